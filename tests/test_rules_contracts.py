"""Rulebook, Phase 2 "2. Obtain an Export Contract" and "3. Expand - Building Bonus"."""
import pytest

from clans_env import IllegalActionError
from clans_env.engine import data as D
from helpers import GRASS, act, active_land, blank_position, label, legal_names, put, start_turn


def take_names(g):
    return {n for n in legal_names(g) if n.startswith("take_contract:")}


def test_round_one_receives_five_pounds():
    """2. Obtain an Export Contract: in the first round players receive £5 when obtaining a
    contract rather than paying; the contract leaves its box for the player's Export box."""
    g = blank_position(3)
    p = g.current_player
    slot = 2
    cid = g.display[slot]
    act(g, f"take_contract:{slot}")
    assert g.players[p].money == 105
    assert g.players[p].open_contracts == [cid]
    assert g.display[slot] == -1


@pytest.mark.parametrize("rnd", [2, 3, 4, 5])
def test_later_rounds_pay_the_round_cost(rnd):
    """2. Obtain an Export Contract: pay the current round cost (rounds 2-5, next to the Scoring
    tiles); without that money the action is not available."""
    g = blank_position(3)
    p = g.current_player
    g.round = rnd
    cost = D.ROUND_COST[rnd - 1]
    assert cost > 0
    start_turn(g, p)
    act(g, "take_contract:0")
    assert g.players[p].money == 100 - cost
    g2 = blank_position(3, money=cost - 1)
    g2.round = rnd
    start_turn(g2, p)
    assert not take_names(g2)


def test_only_one_open_contract():
    """2. Obtain an Export Contract: only one unfulfilled contract on your Export box; you must
    fulfil it before obtaining a new one (and cannot get rid of it)."""
    g = blank_position(2)
    p = g.current_player
    act(g, "take_contract:0")
    start_turn(g, p)
    assert not take_names(g)
    before = g.to_json()
    with pytest.raises(IllegalActionError):
        act(g, "take_contract:1")
    assert g.to_json() == before


def test_empty_boxes_not_offered_and_refilled_in_preparation():
    """Phase 1: Preparation: refill empty boxes on the Export board (according to player count)
    from the top of the draw pile."""
    g = blank_position(3)
    p = g.current_player
    act(g, "take_contract:1")
    start_turn(g, p)
    g.players[p].open_contracts = []
    assert "take_contract:1" not in take_names(g)
    top = g.pile[0]
    while g.round == 1:
        g.apply(g.legal_actions()[0])
    assert g.display[1] == top
    assert g.display[4] >= 0 and g.display[5] == -1        # 3 players: 5 boxes


# ---- Building bonus ------------------------------------------------------------------------
def building_position(n=3, money=100, with_open_contract=False, factories=3, unit="cheese_dairy"):
    """p has ``factories`` of ``unit`` on the map and one grassland target next to them."""
    g = blank_position(n, money=money)
    p = g.current_player
    grass = set(active_land(g, GRASS))
    # a chain of grassland spaces: factories on the first ones, the target next to the last
    chain = []
    for start in sorted(grass):
        chain = [start]
        while len(chain) < factories + 1:
            nxt = [t for t in g.board.neighbours[chain[-1]] if t in grass and t not in chain
                   and not any(x in g.board.neighbours[t] for x in chain[:-1])]
            if not nxt:
                break
            chain.append(nxt[0])
        if len(chain) == factories + 1:
            break
    for s in chain[:-1]:
        put(g, p, unit, s)
    if with_open_contract:
        g.players[p].open_contracts = [g.pile.pop()]
    start_turn(g, p)
    return g, p, chain[-1]


def test_fourth_building_with_empty_box_draws_three():
    """Building Bonus: deploying your fourth building of one type (Cheese dairy, Bakery or
    Distillery) with an empty Export box lets you draw three contracts from the draw pile and
    take one (paying as Obtain an Export Contract: round 1 receives £5); the others return to the
    bottom of the draw pile."""
    g, p, target = building_position()
    top3 = g.pile[:3]
    rest = g.pile[3:]
    money = g.players[p].money
    act(g, "expand:cheese_dairy", f"space:{label(g, target)}")
    assert g.decision_kind == "building_bonus"
    assert legal_names(g) == {"choose:0", "choose:1", "choose:2", "done"}
    act(g, "choose:1")
    pl = g.players[p]
    assert pl.open_contracts == [top3[1]]
    assert pl.money == money - D.UNIT_COST[D.DAIRY] - g.board.cost[target] + 5
    assert g.pile == rest + [top3[0], top3[2]]


def test_building_bonus_take_none():
    """Building Bonus: take either one or none; unselected contracts go to the bottom."""
    g, p, target = building_position()
    top3 = g.pile[:3]
    rest = g.pile[3:]
    act(g, "expand:cheese_dairy", f"space:{label(g, target)}")
    act(g, "done")
    assert g.players[p].open_contracts == []
    assert g.pile == rest + top3


def test_building_bonus_pays_round_cost_in_later_rounds():
    """Building Bonus: if you take a contract you pay the costs as if you performed Obtain an
    Export Contract (round 3: the round-3 cost)."""
    g, p, target = building_position()
    g.round = 3
    start_turn(g, p)
    money = g.players[p].money
    act(g, "expand:cheese_dairy", f"space:{label(g, target)}", "choose:0")
    assert g.players[p].money == money - D.UNIT_COST[D.DAIRY] - g.board.cost[target] - D.ROUND_COST[2]


def test_no_building_bonus_with_an_open_contract():
    """Building Bonus: only if your Export box is empty."""
    g, p, target = building_position(with_open_contract=True)
    pile = list(g.pile)
    act(g, "expand:cheese_dairy", f"space:{label(g, target)}")
    assert g.decision_kind != "building_bonus"
    assert g.pile == pile


@pytest.mark.parametrize("factories,unit", [(2, "cheese_dairy"), (3, "field"), (3, "sheep")])
def test_no_building_bonus_for_third_building_or_other_units(factories, unit):
    """Building Bonus: only the fourth building of one type of Cheese dairy, Bakery or
    Distillery (not a third one, not Fields or animals)."""
    g, p, target = building_position(factories=factories, unit=unit)
    act(g, f"expand:{unit}", f"space:{label(g, target)}")
    assert g.decision_kind != "building_bonus"


@pytest.mark.parametrize("unit", ["bakery", "distillery"])
def test_building_bonus_for_bakeries_and_distilleries(unit):
    """Building Bonus: Bakeries and Distilleries count as well."""
    g, p, target = building_position(unit=unit)
    act(g, f"expand:{unit}", f"space:{label(g, target)}")
    assert g.decision_kind == "building_bonus"


def test_building_bonus_round_cost_must_be_affordable():
    """Building Bonus / Obtain an Export Contract: a contract you cannot pay for cannot be taken
    (round 5, after paying for the unit and the land)."""
    g, p, target = building_position()
    g.round = 5
    cost = D.UNIT_COST[D.DAIRY] + g.board.cost[target]
    g.players[p].money = cost + D.ROUND_COST[4] - 1
    start_turn(g, p)
    act(g, "expand:cheese_dairy", f"space:{label(g, target)}")
    assert g.decision_kind == "building_bonus"
    assert legal_names(g) == {"done"}


def test_bonus_order_when_both_bonuses_apply():
    """Building Bonus and Neighbourhood Bonus together: the player chooses the order (player aid:
    'in any order, you may use the Neighbourhood bonus ... and Building bonus')."""
    g, p, target = building_position(n=3)
    o = g.turn_order[1]
    grass = set(active_land(g, GRASS))
    opp = [t for t in g.board.neighbours[target] if t in grass and g.occupant[t] == -1]
    put(g, o, "distillery", opp[0])
    start_turn(g, p)
    for first, expect in (("choose:0", "neighbourhood"), ("choose:1", "building_bonus")):
        c = g.clone()
        act(c, "expand:cheese_dairy", f"space:{label(c, target)}")
        assert c.decision_kind == "bonus_order"
        act(c, first)
        assert c.decision_kind == expect
        if expect == "neighbourhood":
            act(c, "trade:buy:whisky:1")
            assert c.decision_kind == "building_bonus"
        else:
            act(c, "choose:0")
            assert c.decision_kind == "neighbourhood"


def test_building_bonus_with_a_short_pile():
    """Building Bonus: with fewer than three contracts in the draw pile the player draws what is
    left; with an empty pile there is nothing to draw (no bonus decision)."""
    g, p, target = building_position()
    g.pile = g.pile[:2]
    g.pile_known = 0
    start_turn(g, p)
    c = g.clone()
    act(c, "expand:cheese_dairy", f"space:{label(c, target)}")
    assert legal_names(c) == {"choose:0", "choose:1", "done"}
    g.pile = []
    start_turn(g, p)
    act(g, "expand:cheese_dairy", f"space:{label(g, target)}")
    assert g.decision_kind != "building_bonus"
