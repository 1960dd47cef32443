"""Rulebook, Phase 2 "2. Obtain an Export Contract" and "3. Expand - Building Bonus"."""
import pytest

from clans_env import IllegalActionError
from clans_env.engine import data as D
from clans_env.engine import actions as A
from helpers import GRASS, act, active_land, blank_position, label, legal_names, port_neighbours, put, start_turn


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


@pytest.mark.parametrize("rnd,cost", [(2, 0), (3, 5), (4, 10), (5, 15)])
def test_later_rounds_pay_the_round_cost(rnd, cost):
    """2. Obtain an Export Contract: pay the current round cost (rounds 2-5, next to the Scoring
    tiles: £0, £5, £10, £15 as the community transcription gives them); without that money the
    action is not available."""
    assert D.ROUND_COST[rnd - 1] == cost
    g = blank_position(3)
    p = g.current_player
    g.round = rnd
    start_turn(g, p)
    act(g, "take_contract:0")
    assert g.players[p].money == 100 - cost
    if cost:
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
def building_position(n=3, money=100, with_open_contract=False, factories=3, unit="cheese_dairy", seat=None,
                      **options):
    """p (``seat``, default the first in turn order) has ``factories`` of ``unit`` on the map and one
    grassland target next to them."""
    g = blank_position(n, money=money, **options)
    p = g.current_player if seat is None else seat
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
    assert legal_names(g) == {"choose:0", "done"}          # draw or decline, nothing drawn yet
    assert g.pile[:3] == top3
    act(g, "choose:0")
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
    act(g, "expand:cheese_dairy", f"space:{label(g, target)}", "choose:0", "done")
    assert g.players[p].open_contracts == []
    assert g.pile == rest + top3


def test_building_bonus_may_be_declined_before_drawing():
    """Building Bonus: "you *may* immediately draw three Export contracts": a player who declines
    draws nothing, so the draw pile keeps its order (docs/rules-interpretations.md)."""
    g, p, target = building_position()
    pile = list(g.pile)
    act(g, "expand:cheese_dairy", f"space:{label(g, target)}")
    assert g.decision_kind == "building_bonus"
    act(g, "done")
    assert g.pile == pile and g.players[p].open_contracts == []
    assert g.decision_kind != "building_bonus"


def test_building_bonus_pays_round_cost_in_later_rounds():
    """Building Bonus: if you take a contract you pay the costs as if you performed Obtain an
    Export Contract (round 3: the round-3 cost)."""
    g, p, target = building_position()
    g.round = 3
    start_turn(g, p)
    money = g.players[p].money
    act(g, "expand:cheese_dairy", f"space:{label(g, target)}", "choose:0", "choose:0")
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
    act(g, "expand:cheese_dairy", f"space:{label(g, target)}", "choose:0")
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
            act(c, "choose:0", "choose:0")
            assert c.decision_kind == "neighbourhood"


def test_building_bonus_with_a_short_pile():
    """Building Bonus: with fewer than three contracts in the draw pile the player draws what is
    left; with an empty pile there is nothing to draw (no bonus decision)."""
    g, p, target = building_position()
    g.pile = g.pile[:2]
    g.pile_known = 0
    start_turn(g, p)
    c = g.clone()
    act(c, "expand:cheese_dairy", f"space:{label(c, target)}", "choose:0")
    assert legal_names(c) == {"choose:0", "choose:1", "done"}
    g.pile = []
    start_turn(g, p)
    act(g, "expand:cheese_dairy", f"space:{label(g, target)}")
    assert g.decision_kind != "building_bonus"


# ---- a second contract in one turn (issue 11) ---------------------------------------------------
def second_contract_position(rnd=3):
    """p (Without Clans) in round ``rnd`` has three Cheese dairies, a Sheep next to the
    Port tile 8 of slot 0, and the Wool for contract 1 (4 Wool; Direct export bonus: a Free
    space) which lies on top of the draw pile. Returns (g, p, target for a fourth dairy)."""
    g, p, target = building_position(n=2)
    g.round = rnd
    g.port_tiles = (8, 3, 6, 2)
    near_port = [s for s in port_neighbours(g, 0) if g.occupant[s] == -1 and g.board.land[s] & GRASS]
    put(g, p, "sheep", near_port[0])
    g.pile.remove(1)
    g.pile.insert(0, 1)
    g.players[p].goods[D.GOOD_INDEX["wool"]] = 4
    start_turn(g, p)
    return g, p, target


def test_second_contract_in_one_turn_pays_the_round_cost_again():
    """2. Obtain an Export Contract / Building Bonus ("pay the costs as if you performed Obtain an
    Export Contract"): every contract costs the round cost. Paying once for two contracts in one
    turn is Clan Buchanan's ability alone. Route: Port tile 8 before the main action takes a
    contract, Fulfil gives a Free space, the Free space deploys a fourth Cheese dairy, its Building
    bonus takes a second contract."""
    g, p, target = second_contract_position(rnd=3)
    pl = g.players[p]
    act(g, "use_port:0", "choose:0")                 # Port tile 8: £5, then draw three
    before = pl.money
    act(g, "choose:0")                               # contract 1
    assert pl.open_contracts == [1] and pl.money == before - D.ROUND_COST[2]
    act(g, "fulfil:0")
    assert g.decision_kind == "free_space"
    act(g, "expand:cheese_dairy", f"space:{label(g, target)}")
    assert g.decision_kind == "building_bonus" and g.turn["obtained"] == 1
    act(g, "choose:0")                               # draw three again
    before = pl.money
    act(g, "choose:0")
    assert len(pl.open_contracts) == 1
    assert pl.money == before - D.ROUND_COST[2] == before - 5


def test_second_contract_in_round_one_receives_the_five_pounds_again():
    """2. Obtain an Export Contract: round 1 receives £5 for every contract; only Clan Buchanan gets
    the first-round £5 once for two contracts in one turn."""
    g, p, target = second_contract_position(rnd=1)
    pl = g.players[p]
    act(g, "use_port:0", "choose:0", "choose:0", "fulfil:0", "expand:cheese_dairy", f"space:{label(g, target)}",
        "choose:0")
    before = pl.money
    act(g, "choose:0")
    assert pl.money == before + 5


def buchanan_building_bonus(obtained: int, rnd: int = 3):
    """Clan Buchanan with empty Export boxes, ``obtained`` contracts already obtained this turn, about
    to deploy a fourth Cheese dairy. Returns (g, p, target)."""
    g, p, target = building_position(n=2, seat=0, clans=("buchanan", "campbell"))
    assert g.players[p].clan == "buchanan"
    g.round = rnd
    start_turn(g, p)
    g.turn["obtained"] = obtained
    return g, p, target


def test_buchanan_building_bonus_counts_contracts_obtained_this_turn():
    """Appendix: Clans - Clan Buchanan: "can obtain one or two Export contracts in one turn": after
    one contract this turn, the Building bonus (draw six, keep 0-2) may take only one more, and it
    is free ("you pay the cost only once")."""
    g, p, target = buchanan_building_bonus(obtained=1)
    pl = g.players[p]
    act(g, "expand:cheese_dairy", f"space:{label(g, target)}", "choose:0")
    assert sum(a >= A.CHOOSE for a in g.legal_actions()) == 6
    before = pl.money
    act(g, "choose:3")
    assert pl.money == before                         # the turn's second contract: no round cost
    assert g.decision_kind != "building_bonus"        # two this turn: no third
    assert len(pl.open_contracts) == 1


def test_buchanan_no_building_bonus_after_two_contracts_this_turn():
    """Appendix: Clans - Clan Buchanan: at most two Export contracts in one turn, so with two
    obtained there is no Building bonus, even with both Export boxes empty again."""
    g, p, target = buchanan_building_bonus(obtained=2)
    pile = list(g.pile)
    act(g, "expand:cheese_dairy", f"space:{label(g, target)}")
    assert g.decision_kind != "building_bonus" and g.pile == pile
