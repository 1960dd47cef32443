"""Industria Train module: rules corrections from an audit of every Delivery bonus and Milestone (rule
numbers of docs/rules-index.md; readings T4, T5, T7, T8, T11 of docs/rules-interpretations.md).
Each test plays its position through the public API (``legal_actions`` / ``apply``)."""
from __future__ import annotations

import pytest

from clans_env.engine import actions as A
from clans_env.engine import data as D
from clans_env.engine.board import hex_distance
from clans_env.engine.rules import milestones as MS
from clans_env.engine.rules import trains as TR
from clans_env.engine.rules.stacking import place_second

from helpers import free_spaces, put, start_turn, GRASS
from test_industria_trains import (_grass_where, _line, delivery_position, give, grass_cluster, loc, one_unit_position,
                                   place_trains, push_bonus, set_demand, tile_with, train_position)

CHOOSE = A.CHOOSE
_BONUS_KINDS = ("delivery", "delivery_step", "bonus_upgrade", "place", "free_space", "move", "building_bonus",
                "neighbourhood", "bonus_order", "bonus_menu")


#: grassland units, few of each (a player has 8 Sheep, 8 Cows, 8 Fields)
UNITS = ["sheep", "cow", "field"] * 3


def _wool2():
    return tile_with({"wool": 2})


def _forfeit_bonus(g):
    while g.decision_kind in _BONUS_KINDS:
        g.apply(A.DONE if A.DONE in g.legal_actions() else g.legal_actions()[0])


def _two_player(money=100, demand_everywhere=True):
    g = train_position(2, money=money)
    p, q = g.turn_order
    g.modstate["trains"].demand = [0] * len(g.modstate["trains"].demand)
    if demand_everywhere:
        for label in TR.side(g).ids:
            set_demand(g, label, _wool2())
    return g, p, q


# ---- Milestone 16: Money is a Direct export bonus (R13.24 tile 16; T8) -----------------------------------
def test_milestone_16_money_is_a_direct_export_bonus():
    """R13.24 tile 16 "2 fulfilled Export contracts with no Direct export bonuses": the aid's Direct Export
    Bonuses are Money, Free space and Bonus upgrade, so a contract paying Money does not count."""
    plain = [c.id for c in D.CONTRACTS if not c.money and not c.free_space and not c.bonus_upgrade]
    money_only = [c.id for c in D.CONTRACTS if c.money and not c.free_space and not c.bonus_upgrade]
    assert len(plain) == 14 and money_only                       # 14 of the 50 contracts qualify
    g = train_position(3)
    p = g.turn_order[0]
    g.modstate["trains"].ms = [16, 1, 2, 3]
    g.modstate["trains"].markers[p] = 1
    g.players[p].done_contracts = [plain[0], money_only[0]]
    start_turn(g, p)
    assert MS.CLAIM_ACTION not in g.legal_actions()
    g.players[p].done_contracts = plain[:2]
    start_turn(g, p)
    g.apply(MS.CLAIM_ACTION)
    g.apply(CHOOSE + 0)
    assert MS.claimed_by(g, 0, p)


# ---- R15.4 "in either order": the Mini-train first may free the Train's way (T5) --------------------------
def test_train_action_offered_when_only_the_mini_train_moving_first_frees_the_delivery():
    """R15.4 (both pieces move "in either order") with R15.5 (the Train may not end on the own Mini-train):
    the Mini-train stands on the only location the Train could deliver to, so the action is legal and its
    first decision offers the Mini-train first; then the Train delivers there."""
    g, p, q = _two_player()
    g.modstate["trains"].demand = [0] * len(g.modstate["trains"].demand)
    set_demand(g, "T2", _wool2())                                   # the pair T1-T2 only
    place_trains(g, {p: "T1", q: "T5"}, {p: "T2", q: "T6"})
    give(g, p, wool=2)
    start_turn(g, p)
    assert TR.TRAIN_ACTION in g.legal_actions()
    g.apply(TR.TRAIN_ACTION)
    firsts = g.legal_actions()
    assert firsts and all(a >= CHOOSE + TR.MINI_OFFSET for a in firsts)     # only the Mini-train first
    g.apply(CHOOSE + TR.MINI_OFFSET + loc(g, "T3"))
    if A.DONE in g.legal_actions():
        g.apply(A.DONE)
    assert g.legal_actions() == [CHOOSE + loc(g, "T2")]
    g.apply(CHOOSE + loc(g, "T2"))
    if g.decision_kind == "train_move":
        g.apply(A.DONE)
    assert g.modstate["trains"].at[p] == loc(g, "T2") and g.modstate["trains"].mini[p] == loc(g, "T3")
    assert g.modstate["trains"].deliv[p] == 1 and g.players[p].goods[D.GOOD_INDEX["wool"]] == 0


# ---- R13.6: the Tunnel's additional Train action is optional (T4) ------------------------------------------
def test_tunnel_extra_train_action_may_be_declined():
    """R13.6 "grants you an additional Train action": granted, not imposed; its first decision offers done,
    which ends it without moving or paying a second Demand."""
    g = train_position(3)
    p = g.turn_order[0]
    others = [x for x in range(3) if x != p]
    place_trains(g, {p: "T1", others[0]: "T6", others[1]: "T9"})
    for label in TR.side(g).ids:
        set_demand(g, label, _wool2())
    g.modstate["trains"].claims[TR.side(g).tunnel_spot(loc(g, "T2"), loc(g, "T13")) * 3 + p] = 1
    give(g, p, wool=4)
    start_turn(g, p)
    g.apply(TR.TRAIN_ACTION)
    g.apply(CHOOSE + loc(g, "T2"))
    g.apply(CHOOSE + loc(g, "T13"))                                 # through the Tunnel
    _forfeit_bonus(g)
    assert g.decision_kind == "train_move" and A.DONE in g.legal_actions()
    assert len(g.legal_actions()) > 1                               # a second delivery is possible
    g.apply(A.DONE)
    assert g.modstate["trains"].at[p] == loc(g, "T13") and g.modstate["trains"].deliv[p] == 1
    assert g.players[p].goods[D.GOOD_INDEX["wool"]] == 2            # the second Demand not paid
    assert g.decision_kind != "train_move"


def test_first_train_action_offers_no_decline():
    """R13.1: the ordinary Train action, once chosen, moves (done is only the Tunnel's decline)."""
    g = train_position(3)
    p = g.turn_order[0]
    place_trains(g, {p: "T1"})
    for label in TR.side(g).ids:
        set_demand(g, label, _wool2())
    give(g, p, wool=2)
    start_turn(g, p)
    g.apply(TR.TRAIN_ACTION)
    assert A.DONE not in g.legal_actions()


# ---- R13.6 with R15.4, R15.7: the order of a 2-player Train action (T4, T5) ---------------------------------
def test_two_player_tunnel_extra_action_after_the_mini_train_has_moved():
    """R13.6 "after completing this one": with 2 players the first action is complete once both pieces have
    moved and the Train has delivered; R15.7 the Mini-train moves (and pays) before the delivery."""
    g, p, q = _two_player()
    place_trains(g, {p: "T1", q: "T7"}, {p: "T5", q: "T8"})
    g.modstate["trains"].claims[TR.side(g).tunnel_spot(loc(g, "T2"), loc(g, "T9")) * 2 + p] = 1
    give(g, p, wool=4)
    start_turn(g, p)
    g.apply(TR.TRAIN_ACTION)
    g.apply(CHOOSE + loc(g, "T2"))                                  # the Train first
    g.apply(CHOOSE + loc(g, "T9"))                                  # through the Tunnel T2-T9
    assert g.decision_kind == "train_move" and g.stack[-1][2] == TR.MINITRAIN
    assert g.modstate["trains"].deliv[p] == 0                                 # no delivery yet
    g.apply(CHOOSE + loc(g, "T4"))
    if g.decision_kind == "train_move":
        g.apply(A.DONE)
    assert g.modstate["trains"].mini[p] == loc(g, "T4") and g.modstate["trains"].deliv[p] == 1
    _forfeit_bonus(g)
    assert g.decision_kind == "train_move" and len(g.stack[-1]) > 4   # now the additional action
    assert A.DONE in g.legal_actions()


def test_two_player_mini_train_fee_is_paid_before_the_delivery():
    """R15.7 "pay £3 per opponent Train met during the move, before resolving any delivery": the Train
    moving first, the Mini-train's fee cannot come from the delivery's bonus money."""
    def play(money):
        g, p, q = _two_player(money=money)
        place_trains(g, {p: "T1", q: "T3"}, {p: "T4", q: "T5"})   # every move of p's Mini-train meets q
        g.modstate["trains"].bonus[loc(g, "T8")] = 18                        # £5 and 2 Upgrades
        give(g, p, wool=2)
        start_turn(g, p)
        g.apply(TR.TRAIN_ACTION)
        g.apply(CHOOSE + loc(g, "T8"))                              # the Train first, free
        g.apply(A.DONE)
        return g, p

    g, p = play(0)                                                  # £0: the Mini-train cannot move
    assert g.decision_kind == "delivery" and g.modstate["trains"].mini[p] == loc(g, "T4")
    g.apply(CHOOSE + 0)                                             # the bonus's £5
    _forfeit_bonus(g)
    assert g.modstate["trains"].mini[p] == loc(g, "T4") and g.players[p].money == 5
    g, p = play(3)                                                  # £3: it moves and pays first
    assert g.decision_kind == "train_move" and g.modstate["trains"].deliv[p] == 0
    g.apply(CHOOSE + loc(g, "T3"))
    if g.decision_kind == "train_move":
        g.apply(A.DONE)
    assert g.players[p].money == 0 and g.decision_kind == "delivery"
    g.apply(CHOOSE + 0)
    assert g.players[p].money == 5


# ---- R13.16: the Train station is one of the owner's units on its space (T7) -------------------------------
def _station_for(g, p, q, space, unit="sheep"):
    """q's unit on ``space`` and p's Train station there (R13.15 conditions aside: a constructed position)."""
    put(g, q, unit, space)
    g.modstate["trains"].station[p] = space
    g.players[p].reach = -1


def _claimable(g, p, tile):
    g.modstate["trains"].ms = [tile] + [t for t in (1, 2, 3, 4) if t != tile][:3]
    g.modstate["trains"].markers[p] = 1
    start_turn(g, p)
    if MS.CLAIM_ACTION not in g.legal_actions():
        return False
    g.apply(MS.CLAIM_ACTION)
    return CHOOSE + 0 in g.legal_actions()


@pytest.mark.parametrize("tile, spaces", [
    (13, lambda g: _line(g, 5)),                                                    # "5 spaces with your units"
    (11, lambda g: grass_cluster(g, 6)),                                            # "A Settlement with 6 units"
    (12, lambda g: _grass_where(g, lambda s: g.topo.along_river >> s & 1, 8)),      # "8 units along rivers"
])
def test_station_counts_for_milestones_11_12_13(tile, spaces):
    """R13.24 tiles 11, 12 and 13 with R13.16 (the station "counts as one of your units on that space", as for
    tile 7's spaces): one unit short of the condition, the station completes it."""
    g = train_position(3)
    p, q = 0, 1
    where = spaces(g)
    for s, u in zip(where[:-1], UNITS):
        put(g, p, u, s)
    assert not _claimable(g, p, tile)
    _station_for(g, p, q, where[-1])
    assert _claimable(g, p, tile)


def test_station_is_not_a_deployed_unit_for_milestone_10():
    """R13.24 tile 10 "15 units deployed": placing the station is no deployment (R13.16: no Neighbourhood
    bonus, no Farmers market), so it does not count."""
    g = train_position(3)
    p, q = 0, 1
    spaces = _grass_where(g, lambda s: True, 15)
    for s, u in zip(spaces[:14], UNITS[:6] + ["cheese_dairy", "bakery", "distillery"] * 3):
        put(g, p, u, s)
    _station_for(g, p, q, spaces[14])
    assert not _claimable(g, p, 10)
    put(g, p, "woodcutter", _forest(g))
    assert _claimable(g, p, 10)                                     # the 15th deployed unit


def _forest(g):
    from helpers import active_land
    from clans_env.engine.board import LAND_FOREST
    return next(s for s in active_land(g, LAND_FOREST) if g.occupant[s] == -1)


def test_station_refused_on_a_space_holding_two_units_of_another_player():
    """R13.15 "at least one unit belonging to another player" with the stacking limit ("A space can never
    hold more than 2 units") and R13.16 (the station counts as a unit on the space): a space already holding
    two units has no room for it (Q27)."""
    g, p = delivery_position()
    q = [x for x in range(3) if x != p][0]
    grass = set(free_spaces(g, GRASS))
    a = next(x for x in sorted(grass) if len([t for t in g.board.neighbours[x] if t in grass]) >= 2)
    b, c = [t for t in g.board.neighbours[a] if t in grass][:2]
    put(g, p, "sheep", a)
    put(g, q, "sheep", b)
    put(g, q, "sheep", c)
    place_second(g, q, D.SHEEP, c)
    g.modstate["trains"].deliv[p] = 4
    set_demand(g, "T2", _wool2())
    g.modstate["trains"].bonus[loc(g, "T2")] = 6
    give(g, p, wool=2)
    start_turn(g, p)
    g.apply(TR.TRAIN_ACTION)
    g.apply(CHOOSE + loc(g, "T2"))
    g.apply(A.DONE)                                                 # the 5th delivery (R13.14)
    assert g.decision_kind == "station" and g.legal_actions() == sorted([A.SPACE + b, A.DONE])


# ---- Delivery bonus 4: "Skip any 2 spaces" (R13.26 tile 4; T11) ---------------------------------------------
def test_bonus_4_target_lies_beyond_two_skipped_spaces():
    """R13.26 tile 4: the 2 skipped spaces lie between one of your units and the target, so it is at hex
    distance exactly 3; ordinary neighbours and spaces 2 away are not offered."""
    g, p, s = one_unit_position()
    push_bonus(g, p, 4, 0b01)
    g.apply(CHOOSE + 0)
    g.apply(A.EXPAND + D.COW)
    rc = g.board.rowcol
    targets = {a - A.SPACE for a in g.legal_actions()}
    ring = {t for t in free_spaces(g, GRASS) if hex_distance(rc[s], rc[t]) == 3}
    assert targets == ring and targets
