"""Industria part 3: the Train module, Milestones and the Milestone variants (rule numbers of
docs/rules-index.md; the map is the designed stand-in of data/trains.toml)."""
from __future__ import annotations

import dataclasses
import json
import random

import pytest

from clans_env import Game, GameConfig
from clans_env.engine import actions as A
from clans_env.engine import data as D
from clans_env.engine import trainmap as TM
from clans_env.engine.invariants import check_invariants
from clans_env.engine.rules import deliveries as DL
from clans_env.engine.rules import milestones as MS
from clans_env.engine.rules import trains as TR
from clans_env.engine.state import K_DELIVERY, K_STATION

from helpers import blank_position, make_game, play_setup, put, start_turn, free_spaces, GRASS

CHOOSE = A.CHOOSE


def loc(g, label):
    return TR.side(g).ids.index(label)


def train_position(n=3, money=100, **options):
    """Round 1, Action phase, empty map, the Train module on: every Train on a Town, no goods."""
    options.setdefault("trains", True)
    g = blank_position(n, money=money, **options)
    return g


def place_trains(g, where: dict, minis: dict | None = None):
    for p, l in where.items():
        g.modstate["trains"].at[p] = loc(g, l)
    for p, l in (minis or {}).items():
        g.modstate["trains"].mini[p] = loc(g, l)


def set_demand(g, label, tile):
    g.modstate["trains"].demand[TR.side(g).demand_spot[loc(g, label)]] = tile


def give(g, p, **goods):
    for k, v in goods.items():
        g.players[p].goods[D.GOOD_INDEX[k]] = v


def tile_with(goods: dict) -> int:
    want = tuple(goods.get(x, 0) for x in D.GOODS)
    return next(k for k, v in TM.DEMAND_TILES.items() if v == want)


WOOL2 = None


@pytest.fixture(autouse=True)
def _tiles():
    global WOOL2
    WOOL2 = tile_with({"wool": 2})


def move_choices(g):
    return sorted(a - CHOOSE for a in g.legal_actions() if CHOOSE <= a < CHOOSE + 32)


def unclaim_all(g):
    g.modstate["trains"].claims = [0] * len(g.modstate["trains"].claims)


# ---- the map data (M1/M2) ------------------------------------------------------------------------------
def test_train_map_sides_validate_and_keep_the_texts_structures():
    """R1.9, R13.28, A590: 4 Milestone spots = Cities + Tunnels; one Demand spot per City and per pair of
    Towns; enough Towns for every starting Train; at most 24 locations; connected."""
    for sd in TM.SIDES.values():
        assert TM.validate_side(sd) == []
        tunnels = [t for t in sd.tracks if t[2]]
        assert len(sd.cities) + len(tunnels) == 4 == len(sd.milestone_unlocks)
        assert sd.num_demand_spots == len(sd.cities) + len(sd.towns) // 2
        assert sd.num_locations <= 24
    assert TM.side_for(4).name == TM.side_for(3).name == "34"
    assert TM.side_for(2).name == TM.side_for(1).name == "2"      # R15.1, R17.2


def test_validator_rejects_broken_sides():
    sd = TM.SIDES["34"]
    no_tunnel = dataclasses.replace(sd, tracks=tuple(t for t in sd.tracks if not t[2]))
    errs = TM.validate_side(no_tunnel)
    assert any("Cities + Tunnels" in e for e in errs) and any("Tunnel" in e for e in errs)
    cut = dataclasses.replace(sd, tracks=tuple(t for t in sd.tracks if sd.ids[t[0]] != "C1" and sd.ids[t[1]] != "C1"))
    assert any("not connected" in e for e in TM.validate_side(cut))
    ds = list(sd.demand_spot)
    ds[sd.ids.index("T3")] = ds[sd.ids.index("T1")]                 # three Towns on one spot, T4 alone
    odd = dataclasses.replace(sd, demand_spot=tuple(ds))
    assert any("pair of Towns" in e or "Demand spot" in e for e in TM.validate_side(odd))
    few = dataclasses.replace(TM.SIDES["2"], kind=("city",) * 9 + ("town",) * 3)
    assert any("Towns" in e for e in TM.validate_side(few))


# ---- configuration -------------------------------------------------------------------------------------
def test_config_trains_and_milestone_variants():
    assert GameConfig(industria=True).trains and "trains" in GameConfig(industria=True).industria_modules
    assert not GameConfig().trains and GameConfig().milestones is None
    c = GameConfig(industria=True, milestones="variant_a")
    assert not c.trains and c.milestones == "variant_a"
    with pytest.raises(ValueError, match="variant_a.*variant_b"):
        GameConfig(milestones="variant_c")
    with pytest.raises(ValueError, match="without the Train module"):
        GameConfig(trains=True, milestones="variant_b")
    assert GameConfig.from_dict(c.to_dict()) == c
    assert "milestones" not in GameConfig().to_dict()           # base records unchanged


# ---- setup (R1.9-R1.13) ----------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_setup_draws_tiles_and_fills_the_refill_area(n):
    g = make_game(n, seed=3, trains=True)
    sd = TR.side(g)
    assert len(g.modstate["trains"].bonus) == sd.num_locations and len(set(g.modstate["trains"].bonus)) == sd.num_locations
    assert set(g.modstate["trains"].bonus) <= set(DL.IMPLEMENTED)
    assert len(g.modstate["trains"].ms) == 4 and len(set(g.modstate["trains"].ms)) == 4
    assert all(g.modstate["trains"].demand) and len(g.modstate["trains"].demand) == sd.num_demand_spots
    assert len(g.modstate["trains"].demand_refill) == (3 if n == 3 else 4)                     # R1.10
    seen = g.modstate["trains"].demand + g.modstate["trains"].demand_refill + g.modstate["trains"].pile
    assert sorted(seen) == sorted(TM.DEMAND_TILES)
    assert g.modstate["trains"].deliv == [0] * n and g.modstate["trains"].markers == [0] * n and g.modstate["trains"].station == [-1] * n  # R1.11


def test_first_trains_after_the_first_workers_in_reverse_turn_order():
    """R1.12: after the first Workers, reverse turn order, each on a Town, no two on one Town."""
    g = make_game(4, seed=5, trains=True)
    order = []
    while g.phase == 0:
        if g.decision_kind == "train_place":
            assert all(u == 0 for pl in g.players for u in pl.units_left[6:8]) or True
            order.append(g.current_player)
            legal = move_choices(g)
            taken = {x for x in g.modstate["trains"].at if x >= 0}
            assert set(legal) == set(TR.side(g).towns) - taken
        g.apply(g.legal_actions()[0])
    assert order == list(reversed(g.turn_order))
    assert len({x for x in g.modstate["trains"].at}) == 4


def test_two_player_train_setup_interleaves_train_and_mini_train():
    """R1.13: 2nd player Train or Mini-train, 1st player, 2nd the other, 1st the other; no sharing."""
    g = make_game(2, seed=2, trains=True)
    while g.decision_kind != "train_place":
        g.apply(g.legal_actions()[0])
    first, second = g.turn_order
    assert g.current_player == second
    towns = TR.side(g).towns
    assert CHOOSE + TR.MINI_OFFSET + towns[0] in g.legal_actions()
    g.apply(CHOOSE + TR.MINI_OFFSET + towns[0])                   # the 2nd player's Mini-train
    assert g.current_player == first and g.modstate["trains"].mini[second] == towns[0]
    g.apply(CHOOSE + towns[1])
    assert g.current_player == second and CHOOSE + towns[0] not in g.legal_actions()
    g.apply(CHOOSE + towns[2])
    assert g.modstate["trains"].at[second] == towns[2]
    g.apply(CHOOSE + towns[3])
    assert g.modstate["trains"].mini[first] == towns[3]
    assert g.phase != 0 or g.decision_kind != "train_place"


# ---- Preparation (R2.2-R2.5) -----------------------------------------------------------------------------
def test_preparation_discards_used_tiles_refills_cities_first_and_stands_trains_up():
    g = make_game(3, seed=1, trains=True)
    play_setup(g)
    sd = TR.side(g)
    demand, used = g.modstate["trains"].demand, g.modstate["trains"].used
    city = sd.demand_spot[sd.cities[1]]
    towns = sorted({sd.demand_spot[t] for t in sd.towns})
    used[city] = 1
    used[towns[2]] = 1
    demand[towns[0]] = 0
    refill = list(g.modstate["trains"].demand_refill)
    pile = list(g.modstate["trains"].pile)
    g.modstate["trains"].tilt = [1, 1, 0]
    TR.preparation(g)
    assert demand[city] == refill[0]                               # R2.3: Cities first, leftmost tile
    assert demand[towns[0]] == refill[1] and demand[towns[2]] == refill[2]   # then Towns, lowest number first
    assert g.modstate["trains"].demand_refill == pile[:3] and g.modstate["trains"].used == [0] * sd.num_demand_spots  # R2.4
    assert g.modstate["trains"].tilt == [0, 0, 0]                            # R2.5


# ---- the Train action (R13.1-R13.13) ---------------------------------------------------------------------
def delivery_position(n=3, **options):
    g = train_position(n, **options)
    p = g.turn_order[0]
    others = [q for q in range(n) if q != p]
    place_trains(g, {p: "T1", **{q: l for q, l in zip(others, ["T6", "T9", "T11"])}})
    for l in TR.side(g).ids:
        set_demand(g, l, WOOL2)
    start_turn(g, p)
    return g, p


def test_train_action_moves_one_or_two_locations_and_must_leave():
    """R13.2, R13.4: 1 or 2 locations along the tracks; never back to the start; Cities locked (R13.3)."""
    g, p = delivery_position()
    assert TR.TRAIN_ACTION not in g.legal_actions()                 # R13.8: no Goods, nowhere to deliver
    give(g, p, wool=2)
    start_turn(g, p)
    g.apply(TR.TRAIN_ACTION)
    firsts = move_choices(g)
    assert firsts == sorted(loc(g, x) for x in ("T2", "T12", "T13"))   # T1's tracks
    g.apply(CHOOSE + loc(g, "T13"))
    seconds = move_choices(g)
    assert loc(g, "T1") not in seconds                             # R13.4
    assert loc(g, "C1") not in seconds and loc(g, "C2") not in seconds    # R13.3: locked Cities
    assert loc(g, "T2") not in seconds                             # R13.3: the locked Tunnel T2-T13
    assert seconds == [] and A.DONE in g.legal_actions()           # T13 has only locked exits left


def test_delivery_pays_the_demand_takes_a_marker_tilts_the_train():
    """R13.9 pay the Demand; R13.11 the leftmost marker (unlocked Milestone marker); R13.13 tilt; R13.1 once."""
    g, p = delivery_position()
    give(g, p, wool=3)
    start_turn(g, p)
    g.apply(TR.TRAIN_ACTION)
    g.apply(CHOOSE + loc(g, "T2"))
    g.apply(A.DONE)
    pl = g.players[p]
    assert pl.goods[D.GOOD_INDEX["wool"]] == 1
    assert g.modstate["trains"].at[p] == loc(g, "T2") and g.modstate["trains"].tilt[p] == 1
    assert g.modstate["trains"].deliv[p] == 1 and g.modstate["trains"].markers[p] == 1
    assert g.modstate["trains"].used[TR.side(g).demand_spot[loc(g, "T2")]] == 1
    while g.decision_kind in ("delivery", "delivery_step", "bonus_upgrade", "place", "free_space", "move",
                              "building_bonus", "neighbourhood", "bonus_order", "bonus_menu"):
        g.apply(A.DONE if A.DONE in g.legal_actions() else g.legal_actions()[0])
    give(g, p, wool=4)
    start_turn(g, p)
    assert TR.TRAIN_ACTION not in g.legal_actions()                 # R13.1: once per round (tilted)


def test_fees_three_per_other_player_and_unaffordable_locations_are_closed():
    """R13.5: £3 per player whose Train is passed or reached, each once; cannot move there without the money."""
    g, p = delivery_position(money=5)
    others = [q for q in range(3) if q != p]
    place_trains(g, {others[0]: "T2", others[1]: "T3"})
    give(g, p, wool=2)
    start_turn(g, p)
    g.apply(TR.TRAIN_ACTION)
    g.apply(CHOOSE + loc(g, "T2"))                                  # passing T2: £3
    assert loc(g, "T3") not in move_choices(g)                     # T2 + T3 = £6 > £5
    assert A.DONE in g.legal_actions()
    g.apply(A.DONE)
    assert g.players[p].money == 2
    g2, p2 = delivery_position(money=2)
    place_trains(g2, {[q for q in range(3) if q != p2][0]: "T2"})
    give(g2, p2, wool=2)
    start_turn(g2, p2)
    g2.apply(TR.TRAIN_ACTION)
    assert loc(g2, "T2") not in move_choices(g2)                   # cannot pay £3 to enter T2


def test_claimed_tunnel_opens_and_grants_an_extra_train_action():
    """R13.6 (Q20): using a Tunnel grants an additional Train action after this one; R13.22 the claim opens it."""
    g, p = delivery_position()
    sd = TR.side(g)
    spot = sd.tunnel_spot(loc(g, "T2"), loc(g, "T13"))
    g.modstate["trains"].claims[spot * 3 + p] = 1
    give(g, p, wool=4)
    start_turn(g, p)
    g.apply(TR.TRAIN_ACTION)
    g.apply(CHOOSE + loc(g, "T2"))
    assert loc(g, "T13") in move_choices(g)
    g.apply(CHOOSE + loc(g, "T13"))
    while g.decision_kind in ("delivery", "delivery_step", "bonus_upgrade", "place", "free_space", "move",
                              "building_bonus", "neighbourhood", "bonus_order", "bonus_menu", "main"):
        if g.decision_kind == "train_move":
            break
        if g.decision_kind == "main" and len(g.stack[-1]) == 2:
            break
        g.apply(A.DONE if A.DONE in g.legal_actions() else g.legal_actions()[0])
    assert g.decision_kind == "train_move" and g.modstate["trains"].tilt[p] == 1   # the extra action despite the tilt


def test_city_delivery_gains_two_glory_once_unlocked():
    """R13.12, R13.22: a claimed City may be reached; delivering there gives 2 Glory."""
    g, p = delivery_position()
    sd = TR.side(g)
    place_trains(g, {p: "T13"})
    g.modstate["trains"].claims[sd.city_spot(loc(g, "C1")) * 3 + p] = 1
    give(g, p, wool=2)
    start_turn(g, p)
    glory = g.players[p].glory
    g.apply(TR.TRAIN_ACTION)
    g.apply(CHOOSE + loc(g, "C1"))
    g.apply(A.DONE)
    assert g.players[p].glory == glory + TM.CITY_GLORY


def test_fifth_delivery_places_the_station_or_discards_it():
    """R13.14-R13.17: after the 5th delivery the station goes on a qualifying space, else back to the box."""
    g, p = delivery_position()
    g.modstate["trains"].deliv[p] = 4
    q = [x for x in range(3) if x != p][0]
    spaces = free_spaces(g, GRASS)
    put(g, p, "sheep", spaces[0])
    nb = [s for s in spaces if s in g.board.neighbours[spaces[0]] and g.occupant[s] == -1]
    put(g, q, "sheep", nb[0])
    TR.take_track_marker(g, p)
    assert g.stack[-1][2] == "train_station"
    g._advance()
    assert g.decision_kind == "station" and g.legal_actions() == [A.SPACE + nb[0]]
    g.apply(A.SPACE + nb[0])
    assert g.modstate["trains"].station[p] == nb[0] and g.modstate["trains"].markers[p] == 0
    g2, p2 = delivery_position()
    g2.modstate["trains"].deliv[p2] = 4
    TR.take_track_marker(g2, p2)
    g2._advance()
    assert g2.modstate["trains"].station[p2] == -2                             # R13.17: no space qualifies


def test_station_conditions_reach_other_unit_no_station_not_adjacent():
    g, p = delivery_position()
    q = [x for x in range(3) if x != p][0]
    spaces = free_spaces(g, GRASS)
    put(g, p, "sheep", spaces[0])
    nbs = [s for s in g.board.neighbours[spaces[0]] if s in spaces]
    put(g, q, "sheep", nbs[0])
    assert TR.station_targets(g, p) == 1 << nbs[0]
    g.modstate["trains"].station[q] = nbs[0]                                   # already a station there
    assert TR.station_targets(g, p) == 0


# ---- 2 players: Mini-trains (R15.2-R15.7) -----------------------------------------------------------------
def test_mini_train_moves_with_every_train_action_no_delivery_fees_per_opponent_train():
    g = train_position(2)
    p, q = g.turn_order
    place_trains(g, {p: "T1", q: "T2"}, {p: "T8", q: "T3"})
    for l in TR.side(g).ids:
        set_demand(g, l, WOOL2)
    give(g, p, wool=2)
    start_turn(g, p)
    g.apply(TR.TRAIN_ACTION)
    legal = move_choices(g)
    assert loc(g, "T2") in legal and TR.MINI_OFFSET + loc(g, "T7") in legal
    assert all(d != loc(g, "T8") for _, d, _, _ in TR.paths(g, p, TR.TRAIN))   # R15.5: not onto the own Mini-train
    money = g.players[p].money
    g.apply(CHOOSE + loc(g, "T2"))                                  # the Train first, meets q's Train
    g.apply(CHOOSE + loc(g, "T3"))                                  # and q's Mini-train: 2 x £3 (R15.7)
    assert g.players[p].money == money - 2 * TM.PASS_FEE
    # R15.4: the Mini-train too, and (R15.7, T5) before the Train's delivery is resolved
    assert g.decision_kind == "train_move" and g.stack[-1][2] == TR.MINITRAIN
    assert g.modstate["trains"].deliv[p] == 0
    g.apply(CHOOSE + loc(g, "T7"))
    if g.decision_kind == "train_move":
        g.apply(A.DONE)
    assert g.modstate["trains"].mini[p] == loc(g, "T7")
    assert g.modstate["trains"].deliv[p] == 1 and g.modstate["trains"].tilt[p] == 1          # one delivery: the Train's


def test_own_trains_never_pay_each_other():
    """R15.6."""
    g = train_position(2)
    p, q = g.turn_order
    place_trains(g, {p: "T1", q: "T5"}, {p: "T2", q: "T6"})
    assert TR.fee(g, p, (loc(g, "T2"),)) == 0
    assert TR.fee(g, p, (loc(g, "T5"), loc(g, "T6"))) == 2 * TM.PASS_FEE


# ---- Milestones (R13.19-R13.25, R14.3-R14.4) --------------------------------------------------------------
def test_claim_needs_a_marker_the_condition_and_takes_the_highest_free_spot():
    g = train_position(3)
    p = g.turn_order[0]
    g.modstate["trains"].ms[0] = 4                                            # 7 Basic goods in stock
    give(g, p, wool=7)
    start_turn(g, p)
    assert MS.CLAIM_ACTION not in g.legal_actions()                 # R13.19: no unlocked marker
    g.modstate["trains"].markers[p] = 1
    start_turn(g, p)
    g.apply(MS.CLAIM_ACTION)
    assert CHOOSE + 0 in g.legal_actions()
    g.apply(CHOOSE + 0)
    assert g.modstate["trains"].claims[0 * 3 + p] == 1 and g.modstate["trains"].markers[p] == 0      # R13.21
    q = g.turn_order[1]
    give(g, q, milk=7)
    g.modstate["trains"].markers[q] = 1
    start_turn(g, q)
    g.apply(MS.CLAIM_ACTION)
    g.apply(CHOOSE + 0)
    assert g.modstate["trains"].claims[0 * 3 + q] == 2                        # second place
    lines = g.final_scores()
    assert lines[p]["milestones"] == 8 and lines[q]["milestones"] == 4            # R14.3


def test_two_player_milestone_vp_and_solo_by_round():
    g = train_position(2)
    g.modstate["trains"].claims[0:2] = [1, 2]
    assert [r["milestones"] for r in g.final_scores()] == [6, 2]   # R14.4
    s = train_position(1)
    s.modstate["trains"].claims[0] = 1
    s.modstate["trains"].claim_round[0] = 2
    row = s.final_scores()[0]
    assert row["milestones"] == 8 and row["train_map"] == -30      # R17.4, R17.5


def test_delivery_track_vp():
    """R14.2: 2/5/9/14/20 for 1-5 deliveries, no more after the 5th (Q24)."""
    g = train_position(3)
    for k, vp in [(0, 0), (1, 2), (2, 5), (3, 9), (4, 14), (5, 20), (6, 20)]:
        g.modstate["trains"].deliv[0] = k
        assert g.final_scores()[0]["delivery_track"] == vp


def _condition(g, p, tile):
    return MS.condition(g, p, tile)


def test_milestone_conditions_on_constructed_positions():
    """R13.24, each of the 16 texts (minimum conditions, R13.23)."""
    g = train_position(3)
    p = 0
    pl = g.players[p]
    assert not any(_condition(g, p, t) for t in range(1, 17) if t != 5)
    pl.imports = [6, 0, 0]
    assert _condition(g, p, 1)
    pl.ports_used = 0b111
    assert _condition(g, p, 2)
    give(g, p, wool=3, milk=2, grain=2)
    assert _condition(g, p, 4)
    pl.shipping, pl.tech, pl.merchants_board = 3, [True, True], D.MERCHANTS_ON_TRACK - 2
    assert _condition(g, p, 6)
    for i in D.WORKERS:
        pl.units_left[i] = 0
    assert _condition(g, p, 5)
    # contracts: 2 with >= 3 hops, 2 without Direct export bonuses, 5 Good/Meat types
    hops3 = [c.id for c in D.CONTRACTS if c.hops >= 3][:2]
    pl.done_contracts = hops3
    assert _condition(g, p, 14)
    plain = [c.id for c in D.CONTRACTS if not c.money and not c.free_space and not c.bonus_upgrade][:2]
    pl.done_contracts = plain
    assert _condition(g, p, 16)
    pl.done_contracts = [c.id for c in D.CONTRACTS]
    assert _condition(g, p, 15)


def grass_cluster(g, size):
    """``size`` empty grassland spaces joined by 'neighbouring' (one Settlement)."""
    from helpers import active_land
    grass = set(active_land(g, GRASS))
    for start in sorted(grass):
        comp, todo = [start], [start]
        while todo and len(comp) < size:
            x = todo.pop(0)
            for t in g.board.neighbours[x]:
                if t in grass and t not in comp and len(comp) < size:
                    comp.append(t)
                    todo.append(t)
        if len(comp) == size:
            return comp
    raise AssertionError("no cluster")


def test_milestone_unit_conditions_on_a_constructed_map():
    """Milestones 7-13 (Q3: units where the text says units, spaces where it says spaces)."""
    g = train_position(3)
    p = 0
    cluster = grass_cluster(g, 6)
    for s, u in zip(cluster, ["sheep", "sheep", "sheep", "cow", "cow", "cow"]):
        put(g, p, u, s)
    assert MS.condition(g, p, 8)                                     # 2 types x 3
    assert MS.condition(g, p, 11)                                    # a Settlement of 6 units
    assert not MS.condition(g, p, 9) and not MS.condition(g, p, 10)
    assert MS.condition(g, p, 7) is False                            # one Settlement only
    assert MS._triangles(g, sum(1 << s for s in cluster)) >= 0
    from clans_env.engine.rules.common import remove_unit
    remove_unit(g, p, cluster[5])
    assert not MS.condition(g, p, 11)
    # 12: 8 units along rivers; 13: 5 in a straight line (cube coordinates)
    assert MS.condition(g, p, 12) == (sum(1 for s in cluster[:5] if g.topo.along_river >> s & 1) >= 8)


# ---- Delivery bonuses (R13.10, R13.26) --------------------------------------------------------------------
def bonus_position(tile: int, n=3, **goods):
    g = train_position(n)
    p = g.turn_order[0]
    pl = g.players[p]
    give(g, p, **goods)
    start_turn(g, p)
    g.stack.append((K_DELIVERY, p, tile, (1 << len(TM.DELIVERY_PARTS[tile])) - 1))
    g._advance()
    return g, p, pl


def finish(g):
    while g.decision_kind not in ("main", None) or len(g.stack[-1]) > 2:
        g.apply(A.DONE if A.DONE in g.legal_actions() else g.legal_actions()[0])


def test_every_delivery_part_kind_and_step_is_registered():
    """R13.10, R13.26: each part kind of data/trains.toml has its Part in deliveries.PARTS, so all 24 tiles are
    modelled and drawn (IMPLEMENTED); each delivery step is registered under its frame name with a text."""
    kinds = {part["kind"] for parts in TM.DELIVERY_PARTS.values() for part in parts}
    assert kinds == set(DL.PARTS)
    assert DL.IMPLEMENTED == tuple(range(1, 25))
    assert all(st.name == name and st.text for name, st in DL.STEPS.items())


def test_bonus_parts_are_optional_money_and_forfeit():
    """R13.10: all, part or none."""
    g, p, pl = bonus_position(6)
    m = pl.money
    g.apply(CHOOSE + 1)                                             # £15 only
    assert pl.money == m + 15
    g.apply(A.DONE)                                                 # forfeit the price moves
    assert g.decision_kind == "main"


def test_bonus_6_moves_two_different_price_markers():
    g, p, pl = bonus_position(6)
    prices = list(g.prices)
    g.apply(CHOOSE + 0)
    g.apply(A.market_area_action(0, 0))
    assert A.market_area_action(0, 0) not in g.legal_actions()      # 2 different markers
    g.apply(A.market_area_action(1, 1))
    assert g.prices[0] == prices[0] + 1 and g.prices[1] == prices[1] - 1


def test_bonus_12_and_13_return_an_animal_or_whiskies_for_money():
    g, p, pl = bonus_position(12)
    assert g.legal_actions() == []  or A.CHOOSE + 0 not in g.legal_actions()
    g, p, pl = bonus_position(13, whisky=2)
    m = pl.money
    g.apply(CHOOSE + 0)
    assert pl.money == m + 40 and pl.goods[D.GOOD_INDEX["whisky"]] == 0
    g = train_position(3)
    p = g.turn_order[0]
    s = put(g, p, "cow", free_spaces(g, GRASS)[0])
    start_turn(g, p)
    g.stack.append((K_DELIVERY, p, 12, 1))
    g._advance()
    m = g.players[p].money
    g.apply(CHOOSE + 0)
    g.apply(A.SPACE + s)
    assert g.players[p].money == m + 25 and g.occupant[s] == -1 and g.players[p].units_left[D.COW] == D.UNITS_PER_PLAYER[D.COW]


def test_bonus_9_and_7_return_factories_for_goods():
    g = train_position(3)
    p = g.turn_order[0]
    pl = g.players[p]
    s = put(g, p, "distillery", free_spaces(g, GRASS)[0])
    start_turn(g, p)
    g.stack.append((K_DELIVERY, p, 7, 1))
    g._advance()
    g.apply(CHOOSE + 0)
    g.apply(A.SPACE + s)
    assert pl.goods == [1] * D.NUM_GOODS and pl.money == 95
    s = put(g, p, "bakery", s)
    g.stack.append((K_DELIVERY, p, 9, 1))
    g._advance()
    g.apply(CHOOSE + 0)
    g.apply(A.SPACE + s)
    assert [pl.goods[i] for i in D.BASIC_GOODS] == [3, 3, 3]


def test_bonus_10_processes_up_to_four_basic_goods():
    g, p, pl = bonus_position(10, milk=3, grain=3)
    g.apply(CHOOSE + 0)
    for q in ("cheese", "bread", "whisky", "cheese"):
        g.apply(A.GOOD + D.GOOD_INDEX[q])
    assert g.decision_kind == "main"
    assert pl.goods[D.GOOD_INDEX["cheese"]] == 2 and pl.goods[D.GOOD_INDEX["milk"]] == 1


def test_bonus_18_two_upgrades_and_5_returns_three():
    g, p, pl = bonus_position(18)
    m = pl.money
    g.apply(CHOOSE + 0)
    assert pl.money == m + 5
    g.apply(CHOOSE + 1)
    g.apply(A.UPGRADE_SHIPPING)
    g.apply(CHOOSE + 2)
    g.apply(A.UPGRADE_SHIPPING)
    assert pl.shipping == 2
    pl.tech = [True, False]
    start_turn(g, p)
    g.stack.append((K_DELIVERY, p, 5, 1))
    g._advance()
    g.apply(CHOOSE + 0)
    g.apply(A.UPGRADE_SHIPPING)
    g.apply(A.UPGRADE_TECH)
    g.apply(A.UPGRADE_SHIPPING)
    assert pl.shipping == 0 and pl.tech == [False, False]
    for gd in ("wool", "milk", "cheese", "bread"):
        g.apply(A.GOOD + D.GOOD_INDEX[gd])
    assert sum(pl.goods) == 4 and g.decision_kind == "main"


def test_bonus_21_places_three_merchants_and_moves_the_price():
    g, p, pl = bonus_position(21)
    pl.merchants_stock = 3
    start_turn(g, p)
    g.stack.append((K_DELIVERY, p, 21, 1))
    g._advance()
    m, price = pl.money, g.prices[2]
    g.apply(CHOOSE + 0)
    g.apply(A.market_area_action(2, 1))
    assert pl.money == m + 20 and pl.merchants_market[2 * 2 + 1] == 3 and g.prices[2] == max(0, price - 3)


def test_bonus_20_sells_with_six_extra_per_unit():
    g, p, pl = bonus_position(20, wool=4)
    pl.merchants_stock = 4
    start_turn(g, p)
    g.stack.append((K_DELIVERY, p, 20, 1))
    g._advance()
    from clans_env.engine.rules.common import price
    m, unit = pl.money, price(g, 0)
    g.apply(CHOOSE + 0)
    g.apply(A.trade_action(0, A.SELL, 4))
    assert pl.money == m + 4 * unit + 24


def test_bonus_24_returns_a_field_to_fulfil_without_goods():
    g = train_position(3)
    p = g.turn_order[0]
    pl = g.players[p]
    s = put(g, p, "field", free_spaces(g, GRASS)[0])
    cid = D.CONTRACTS[0].id
    pl.open_contracts = [cid]
    start_turn(g, p)
    g.stack.append((K_DELIVERY, p, 24, 1))
    g._advance()
    g.apply(CHOOSE + 0)
    g.apply(A.SPACE + s)
    g.apply(A.FULFIL + 0)
    finish(g)
    assert cid in pl.done_contracts and g.occupant[s] == -1


def test_bonus_3_blocks_a_space_and_gives_a_bonus_action_without_pass():
    g = train_position(3)
    p = g.turn_order[0]
    s = put(g, p, "sheep", free_spaces(g, GRASS)[0])
    start_turn(g, p)
    g.stack.append((K_DELIVERY, p, 3, 0b110))
    g._advance()
    g.apply(CHOOSE + 2)
    target = g.legal_actions()[0]
    g.apply(target)
    assert g.occupant[target - A.SPACE] == -2
    g.apply(CHOOSE + 1)
    assert g.decision_kind == "main" and A.PASS not in g.legal_actions()


def test_port_16_train_half_lowers_the_demand():
    """R11.16 with Trains: 1 less Processed good or 2 less Basic goods."""
    g = train_position(3, port_tiles=True)
    p = g.turn_order[0]
    g.port_tiles = (16,) + tuple(g.port_tiles[1:])
    tile = tile_with({"wool": 2, "cheese": 1})
    assert DL.demand_payments(g, p, tile) == []                    # no Goods
    give(g, p, wool=2, cheese=1)
    assert [o[1] for o in DL.demand_payments(g, p, tile)] == [False]   # the tile is out of reach
    import unittest.mock
    with unittest.mock.patch.object(DL, "port16_slot", lambda g, p: 0):
        give(g, p, wool=0, cheese=1)
        opts = DL.demand_payments(g, p, tile)
        assert opts == [((0, 0, 0, 1, 0, 0), True)]                 # 2 less Basic goods
        give(g, p, wool=2, cheese=0)
        assert DL.demand_payments(g, p, tile) == [((2, 0, 0, 0, 0, 0), True)]   # 1 less Processed good


# ---- variants (R16.2-R16.4) ---------------------------------------------------------------------------------
def test_variant_a_claims_for_five_pounds_without_trains():
    g = blank_position(3, milestones="variant_a")
    assert g.modstate["trains"].at is None and len(g.modstate["trains"].ms) == 4
    p = g.turn_order[0]
    g.modstate["trains"].ms[0] = 4
    give(g, p, wool=7)
    start_turn(g, p)
    assert TR.TRAIN_ACTION not in g.legal_actions()
    g.apply(MS.CLAIM_ACTION)
    g.apply(CHOOSE + 0)
    assert g.players[p].money == 95 and g.modstate["trains"].markers[p] == 3
    assert g.final_scores()[p]["milestones"] == 8 and "delivery_track" not in g.final_scores()[p]


def test_variant_b_claims_deliver_the_demand_and_pay_fifteen():
    g = blank_position(3, milestones="variant_b")
    p = g.turn_order[0]
    g.modstate["trains"].ms[0] = 4
    g.modstate["trains"].demand[0] = WOOL2
    give(g, p, wool=9)
    start_turn(g, p)
    g.apply(MS.CLAIM_ACTION)
    g.apply(CHOOSE + 0)
    assert g.players[p].money == 85 and g.players[p].goods[0] == 7
    g.modstate["trains"].ms[1] = 4
    g.modstate["trains"].demand[1] = WOOL2
    start_turn(g, p)
    assert MS.CLAIM_ACTION not in g.legal_actions()                 # round 1: only the round-1 marker
    g.round = 2
    start_turn(g, p)
    assert MS.CLAIM_ACTION in g.legal_actions()
    refill = list(g.modstate["trains"].demand_refill)
    MS.preparation_variant_b(g)
    assert g.modstate["trains"].demand == refill[:4]


# ---- hidden information -----------------------------------------------------------------------------------
def test_determinize_reshuffles_the_demand_pile_and_nothing_else_of_the_train_map():
    g = play_setup(make_game(3, seed=4, trains=True))
    d = g.determinize(99)
    assert sorted(d.modstate["trains"].pile) == sorted(g.modstate["trains"].pile) and d.modstate["trains"].pile != g.modstate["trains"].pile
    for k in ("demand", "demand_refill", "bonus", "ms", "at"):
        assert getattr(d.modstate["trains"], k) == getattr(g.modstate["trains"], k)


# ---- random games: invariants, saves, replays ---------------------------------------------------------------
CONFIGS = [dict(industria=True), dict(industria=True, milestones="variant_a"),
           dict(industria=True, milestones="variant_b"), dict(trains=True)]


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_random_games_keep_the_invariants_and_save_and_replay(n):
    for k, cfg in enumerate(CONFIGS):
        for seed in range(2):
            g = Game(GameConfig(num_players=n, seed=seed + 10 * k, **cfg))
            r = random.Random(seed)
            steps = 0
            while not g.is_terminal():
                g.apply(r.choice(g.legal_actions()))
                check_invariants(g)
                steps += 1
                if steps % 40 == 0:
                    assert Game.from_json(g.to_json()).to_json() == g.to_json()
                    TR_at = g.modstate["trains"].at
                    if TR_at is not None:
                        assert all(0 <= x < TR.side(g).num_locations for x in TR_at)
            assert Game.replay(g.config, g.history).to_json() == g.to_json()
            rows = g.final_scores()
            assert all("milestones" in r for r in rows)


def one_unit_position(unit="sheep", n=3, **goods):
    g = train_position(n)
    p = g.turn_order[0]
    s = put(g, p, unit, free_spaces(g, GRASS if unit not in ("woodcutter", "miner") else None)[0])
    give(g, p, **goods)
    start_turn(g, p)
    return g, p, s


def push_bonus(g, p, tile, mask=None):
    g.stack.append((K_DELIVERY, p, tile, (1 << len(TM.DELIVERY_PARTS[tile])) - 1 if mask is None else mask))
    g._advance()


def test_bonus_1_two_free_spaces_adjacent_to_own_units():
    """Q31: each a Free space (unit cost, no land cost) next to one of your units."""
    g, p, s = one_unit_position()
    push_bonus(g, p, 1, 0b010)
    g.apply(CHOOSE + 1)
    g.apply(A.EXPAND + D.SHEEP)
    targets = {a - A.SPACE for a in g.legal_actions()}
    assert targets and targets <= set(g.board.adjacent[s])
    m = g.players[p].money
    t = min(targets)
    g.apply(A.SPACE + t)
    assert g.unit_at[t] == D.SHEEP and g.players[p].money == m - g.clans[p].unit_cost(g, p, D.SHEEP)


def test_bonus_2_field_pays_land_cost_only():
    g, p, s = one_unit_position()
    push_bonus(g, p, 2)
    g.apply(CHOOSE + 0)
    g.apply(A.EXPAND + D.FIELD)
    t = g.legal_actions()[0] - A.SPACE
    m = g.players[p].money
    g.apply(A.SPACE + t)
    assert g.unit_at[t] == D.FIELD and g.players[p].money == m - g.topo.cost[t]


def test_bonus_4_skips_two_spaces_non_field_land_cost_only():
    """R13.26 tile 4 "Skip any 2 spaces" (T11): the target lies beyond 2 skipped spaces, at hex distance
    exactly 3 from one of your units; a neighbour or a space 2 away skips fewer."""
    g, p, s = one_unit_position()
    push_bonus(g, p, 4, 0b01)
    g.apply(CHOOSE + 0)
    assert A.EXPAND + D.FIELD not in g.legal_actions()
    g.apply(A.EXPAND + D.COW)
    from clans_env.engine.board import hex_distance
    rc = g.board.rowcol
    targets = [a - A.SPACE for a in g.legal_actions()]
    assert targets and all(hex_distance(rc[s], rc[t]) == 3 for t in targets)
    near = [t for t in free_spaces(g, GRASS) if hex_distance(rc[s], rc[t]) in (1, 2)]
    assert near and not set(near) & set(targets)                   # nothing skipped, or only 1 space


def test_bonus_8_swaps_the_contract_for_free_and_15_and_17():
    g, p, s = one_unit_position()
    pl = g.players[p]
    old = g.pile.pop(0)
    pl.open_contracts = [old]
    push_bonus(g, p, 8, 0b01)
    m = pl.money
    g.apply(CHOOSE + 0)
    g.apply(A.FULFIL + 0)
    slot = g.legal_actions()[0] - A.TAKE_CONTRACT
    new = g.display[slot]
    g.apply(A.TAKE_CONTRACT + slot)
    assert pl.open_contracts == [new] and pl.money == m and old in g.modstate["trains"].discarded
    check_invariants(g)
    push_bonus(g, p, 17, 0b01)
    g.apply(CHOOSE + 0)
    assert pl.money == m + 15


def test_bonus_11_claims_a_port_tile_out_of_reach_during_the_bonus_action():
    g, p, s = one_unit_position(port_tiles=None) if False else one_unit_position()
    assert g.port_tiles
    from clans_env.engine.rules.common import reach
    far = [k for k in range(len(g.port_tiles)) if not reach(g, p) >> g.topo.port_space[k] & 1]
    push_bonus(g, p, 11, 0b10)
    g.apply(CHOOSE + 1)
    legal = g.legal_actions()
    assert A.PASS not in legal
    usable = [k for k in far if A.USE_PORT + k in legal]
    assert usable, "a Port tile out of reach is offered during the bonus action"
    g.apply(A.USE_PORT + usable[0])
    while g.decision_kind != "main":
        g.apply(A.DONE if A.DONE in g.legal_actions() else g.legal_actions()[0])
    assert not any(A.USE_PORT + k in g.legal_actions() for k in far if k != usable[0])   # one only


def test_bonus_22_free_goods_into_a_contract_then_fulfil():
    g, p, s = one_unit_position()
    pl = g.players[p]
    cid = next(c.id for c in D.CONTRACTS if sum(c.goods) == 2 and not c.beef and not c.mutton)
    pl.open_contracts = [cid]
    need = [i for i, q in enumerate(D.CONTRACT_BY_ID[cid].goods) for _ in range(q)]
    prices = list(g.prices)
    push_bonus(g, p, 22)
    g.apply(CHOOSE + 0)
    g.apply(A.FULFIL + 0)
    for i in need:
        g.apply(A.GOOD + i)
    g.apply(A.DONE)
    finish(g)
    assert cid in pl.done_contracts and sum(pl.goods) == 0
    for i in set(need):
        assert g.prices[i] == min(D.MAX_STEP, prices[i] + need.count(i))


def test_bonus_23_fulfils_with_six_per_import():
    g, p, s = one_unit_position()
    pl = g.players[p]
    c = next(c for c in D.CONTRACTS if sum(c.imports) and not c.beef and not c.mutton)
    pl.open_contracts = [c.id]
    for i, q in enumerate(c.goods):
        pl.goods[i] = q
    push_bonus(g, p, 23)
    m = pl.money
    g.apply(CHOOSE + 0)
    g.apply(A.FULFIL + 0)
    finish(g)
    assert c.id in pl.done_contracts
    assert pl.money >= m + 6 * sum(c.imports)


def test_bonus_14_moves_a_unit_twice():
    g, p, s = one_unit_position()
    push_bonus(g, p, 14, 0b10)
    g.apply(CHOOSE + 1)
    assert g.decision_kind == "move"


def test_observation_carries_the_train_map():
    from clans_env.encoding import ObservationEncoder
    g, p = delivery_position()
    enc = ObservationEncoder(3, industria=g.config.industria_modules)
    v = enc.encode(g, p)
    at = enc.slices["industria.train.at"]
    assert v[at.start + loc(g, "T1")] == 1                           # my Train (relative seat 0)
    dem = enc.slices["industria.train.demand"]
    assert v[dem.start + loc(g, "T2") * D.NUM_GOODS + 0] == pytest.approx(2 / 3)
    locked = enc.slices["industria.train.locked"]
    assert v[locked.start + loc(g, "C1")] == 1
    g.modstate["trains"].claims[TR.side(g).city_spot(loc(g, "C1")) * 3 + p] = 1
    assert enc.encode(g, p)[locked.start + loc(g, "C1")] == 0
    from clans_env.encoding.observation import ACCELERATED
    if ACCELERATED:                                                  # both encoder paths, bit-identical
        fast = ObservationEncoder(3, industria=g.config.industria_modules, accelerated=True)
        slow = ObservationEncoder(3, industria=g.config.industria_modules, accelerated=False)
        assert (fast.encode(g, p) == slow.encode(g, p)).all()


def test_mini_train_first_keeps_a_delivery_for_the_train():
    """R13.8 with R15.4/R15.5 (T5): a Mini-train moving first may not take the Train's only delivery."""
    g = train_position(2)
    p, q = g.turn_order
    place_trains(g, {p: "T1", q: "T5"}, {p: "T8", q: "T4"})
    g.modstate["trains"].demand = [0] * len(g.modstate["trains"].demand)
    set_demand(g, "T9", WOOL2)                                       # T9 (and its pair T10) only
    give(g, p, wool=2)
    start_turn(g, p)
    assert {d for _, d, _, _ in TR.paths(g, p, TR.TRAIN)} == {loc(g, "T9")}
    assert loc(g, "T9") in {d for _, d, _, _ in TR.paths(g, p, TR.MINITRAIN)}
    assert loc(g, "T9") not in {d for _, d, _, _ in TR.mini_paths(g, p)}
    g.apply(TR.TRAIN_ACTION)
    assert CHOOSE + TR.MINI_OFFSET + loc(g, "T1") in g.legal_actions()   # T8 -> T1 -> T2 is still fine
    g.apply(CHOOSE + TR.MINI_OFFSET + loc(g, "T1"))
    assert CHOOSE + loc(g, "T9") not in g.legal_actions() and CHOOSE + loc(g, "T2") in g.legal_actions()


def _mini_paths_by_definition(g, p):
    """R13.8 with R15.4 (T5), read directly: move the Mini-train and pay its fee, then ask whether the
    Train can still deliver."""
    mini, pl = g.modstate["trains"].mini, g.players[p]
    start, money = mini[p], pl.money
    out = []
    for path in TR.paths(g, p, TR.MINITRAIN):
        mini[p], pl.money = path[1], money - path[2]
        if TR.paths(g, p, TR.TRAIN, first_only=True):
            out.append(path)
        mini[p], pl.money = start, money
    return out


def _both_trains_on_the_map(rng, games: int):
    """(game, player to decide) after each random move of ``games`` 2-player Industria games, where that
    player's Train and Mini-train are both on the map."""
    for seed in range(games):
        g = Game(GameConfig(num_players=2, seed=seed, industria=True))
        while not g.is_terminal():
            legal = g.legal_actions()
            g.apply(legal[int(rng.random() * len(legal))])
            ts = g.modstate["trains"]
            p = g.current_player
            if p is not None and p >= 0 and ts.at[p] >= 0 and ts.mini[p] >= 0:
                yield g, p


def test_mini_paths_agree_with_moving_the_mini_train_first():
    """R13.8/R15.4 (T5): ``mini_paths`` lists the Train's movements once instead of once per Mini-train
    move; it keeps exactly the Mini-train moves after which the Train still delivers, money for fees
    included, and the Train action is offered exactly when one order delivers (positions of random
    2-player games, money cut down so that fees bind)."""
    rng = random.Random(34)
    checked = binding = blocking = 0
    for g, p in _both_trains_on_the_map(rng, 12):
        if checked >= 600:
            break
        ts = g.modstate["trains"]
        # the Mini-train where it is, and on each end of the Train's movements (it blocks that end)
        h = g.clone()
        h.modstate["trains"].mini[p] = -1
        spots = [ts.mini[p]] + sorted({d for _, d, _, _ in TR.paths(h, p, TR.TRAIN)})
        for mini_at in spots[:3]:
            for money in (g.players[p].money, 3, 6, 0):
                h = g.clone()
                h.players[p].money = money
                h.modstate["trains"].mini[p] = mini_at
                want = _mini_paths_by_definition(h, p)
                assert TR.mini_paths(h, p) == want
                assert TR.mini_paths(h, p, first_only=True) == want[:1]
                # R13.1/R15.4: the Train action is offered exactly when one of the two orders delivers
                train_first = TR.paths(h, p, TR.TRAIN)
                assert TR.can_take_train_action(h, p, extra=True) == bool(train_first or want)
                checked += 1
                binding += len(want) < len(TR.paths(h, p, TR.MINITRAIN))
                blocking += bool(want) and not train_first
    assert checked >= 600 and binding >= 20 and blocking >= 5, (checked, binding, blocking)


def _mini_first_without_its_fee(g, p) -> bool:
    """The check with the Mini-train moving for free (wrong: R15.7): which positions the fee decides."""
    if TR.paths(g, p, TR.TRAIN):
        return True
    mini = g.modstate["trains"].mini
    start = mini[p]
    try:
        for path in TR.paths(g, p, TR.MINITRAIN):
            mini[p] = path[1]
            if TR.paths(g, p, TR.TRAIN, first_only=True):
                return True
        return False
    finally:
        mini[p] = start


def test_train_check_when_only_the_mini_train_first_delivers():
    """R13.5/R15.4/R15.6/R15.7: the Train action's check for the order "Mini-train first" (2 players) against
    the rule read directly, on positions built to make it the only order that delivers: the Mini-train on
    the Train's only deliverable end, the opponent's pieces beside the Mini-train (its moves pay), p's money
    from £0 to £12. Both fees count, and the Mini-train may not end on the Train."""
    rng = random.Random(340)
    checked = fee_binds = train_blocks = 0
    for g, p in _both_trains_on_the_map(rng, 30):
        if checked >= 800:
            break
        if rng.random() < 0.7:
            continue
        q = 1 - p
        h = g.clone()
        h.modstate["trains"].mini[p] = -1
        ends = sorted({d for _, d, _, _ in TR.paths(h, p, TR.TRAIN)})
        if not ends:
            continue
        mini_at = ends[rng.randrange(len(ends))]
        near = [a for a, _, _ in TR.side(g).locked_adj[mini_at]]
        for money in (0, 3, 6, 9, 12):
            h = g.clone()
            hs = h.modstate["trains"]
            hs.mini[p] = mini_at
            h.players[p].money = money
            if rng.random() < 0.8 and hs.at[q] >= 0:         # the opponent's pieces on the Mini-train's way
                hs.at[q] = near[rng.randrange(len(near))]
                hs.mini[q] = near[rng.randrange(len(near))]
            if rng.random() < 0.3:                           # the Train beside the Mini-train
                hs.at[p] = near[rng.randrange(len(near))]
            want = bool(TR.paths(h, p, TR.TRAIN)) or bool(_mini_paths_by_definition(h, p))
            assert TR.can_take_train_action(h, p, extra=True) == want, (g.config.seed, money)
            checked += 1
            fee_binds += want != _mini_first_without_its_fee(h, p)
            train_blocks += hs.at[p] in near
    assert checked >= 800 and fee_binds >= 5 and train_blocks >= 100, (checked, fee_binds, train_blocks)


def _grass_where(g, pred, count):
    """``count`` empty active grassland spaces satisfying ``pred`` (space id)."""
    from helpers import active_land
    out = [s for s in active_land(g, GRASS) if g.occupant[s] == -1 and pred(s)]
    assert len(out) >= count
    return out[:count]


def test_milestones_3_9_10_counting_deployed_units():
    """R13.24 tiles 3 (5 factories), 9 (one of each type, Workers one type), 10 (15 units); Q3."""
    g = train_position(3)
    p = 0
    spaces = _grass_where(g, lambda s: True, 16)
    for s, u in zip(spaces, ["cheese_dairy", "bakery", "distillery", "cheese_dairy"]):
        put(g, p, u, s)
    assert not MS.condition(g, p, 3)
    put(g, p, "bakery", spaces[4])
    assert MS.condition(g, p, 3)
    for s, u in zip(spaces[5:], ["sheep", "cow", "field"]):
        put(g, p, u, s)
    assert not MS.condition(g, p, 9)                                 # no Worker yet
    from helpers import active_land
    from clans_env.engine.board import LAND_FOREST
    forest = [s for s in active_land(g, LAND_FOREST) if g.occupant[s] == -1]
    put(g, p, "woodcutter", forest[0])
    assert MS.condition(g, p, 9)
    assert not MS.condition(g, p, 10)                                # 9 units
    for s, u in zip(spaces[8:], ["sheep", "sheep", "sheep", "cow", "cow", "cow"]):
        put(g, p, u, s)
    assert MS.condition(g, p, 10)                                    # 15 units


def test_milestone_12_units_along_rivers():
    g = train_position(3)
    p = 0
    river = _grass_where(g, lambda s: g.topo.along_river >> s & 1, 8)
    for s, u in zip(river, ["sheep"] * 4 + ["cow"] * 3):
        put(g, p, u, s)
    assert not MS.condition(g, p, 12)
    put(g, p, "field", river[7])
    assert MS.condition(g, p, 12)


def _line(g, length):
    """``length`` active land spaces in a straight hex line (cube coordinates)."""
    from clans_env.engine.board import offset_to_cube, KIND_LAND
    rc = g.board.rowcol
    land = {offset_to_cube(*rc[s]): s for s in range(g.board.num_spaces)
            if rc[s] is not None and g.board.kind[s] == KIND_LAND and g.board.active(g.num_players)[s]
            and g.board.land[s] & GRASS}
    for (x, y, z), s in sorted(land.items()):
        for d in ((1, -1, 0), (1, 0, -1), (0, 1, -1)):
            cells = [(x + k * d[0], y + k * d[1], z + k * d[2]) for k in range(length)]
            if all(c in land for c in cells):
                return [land[c] for c in cells]
    pytest.skip("no straight grassland line of that length on this map")


def test_milestone_13_five_spaces_in_a_straight_line():
    g = train_position(3)
    p = 0
    line = _line(g, 5)
    for s, u in zip(line[:4], ["sheep", "sheep", "cow", "cow"]):
        put(g, p, u, s)
    assert not MS.condition(g, p, 13)
    put(g, p, "field", line[4])
    assert MS.condition(g, p, 13)


def test_milestone_7_two_triangles_in_two_settlements():
    g = train_position(3)
    p = 0
    nb = g.board.neighbours
    from helpers import active_land
    grass = [s for s in active_land(g, GRASS) if g.occupant[s] == -1]
    gs = set(grass)
    tris = []
    for a in grass:
        for b in nb[a]:
            for c in nb[a]:
                if b < c and b in gs and c in gs and c in nb[b] and a < b:
                    tris.append((a, b, c))
    first = tris[0]
    near = set(first) | {t for s in first for t in g.board.adjacent[s]}
    second = next(t for t in tris if not (set(t) & near) and
                  not any(u in near for s in t for u in g.board.adjacent[s]))
    for s, u in zip(first, ["sheep", "cow", "field"]):
        put(g, p, u, s)
    assert not MS.condition(g, p, 7)                                  # one triangle
    for s, u in zip(second, ["sheep", "cow", "field"]):
        put(g, p, u, s)
    assert MS.condition(g, p, 7)


def test_bonus_19_reserves_a_space_for_the_owner_only():
    """Delivery bonus 19 (Q34): a Merchant reserves any empty space for its land cost (even out of reach);
    others may not deploy there; the owner later deploys there (in reach) without land cost and the
    Merchant returns to stock."""
    g, p, s = one_unit_position()
    pl = g.players[p]
    pl.merchants_stock = 2
    target = next(t for t in g.board.neighbours[s] if g.occupant[t] == -1 and g.board.land[t] & GRASS
                  and g.topo.land_mask >> t & 1)
    push_bonus(g, p, 19, 0b10)
    m = pl.money
    g.apply(CHOOSE + 1)
    far = [a - A.SPACE for a in g.legal_actions()]
    from clans_env.engine.rules.common import reach
    assert any(not reach(g, p) >> t & 1 for t in far)                # even out of reach
    g.apply(A.SPACE + target)
    assert pl.money == m - g.topo.cost[target] and pl.merchants_stock == 1 and g.occupant[target] == -2
    check_invariants(g)
    q = [x for x in range(3) if x != p][0]
    put(g, q, "sheep", next(t for t in g.board.neighbours[target] if g.occupant[t] == -1
                            and g.board.land[t] & GRASS and g.topo.land_mask >> t & 1))
    from clans_env.engine.rules.common import expand_targets
    assert not expand_targets(g, q, D.SHEEP) >> target & 1           # blocked to the others
    assert expand_targets(g, p, D.COW) >> target & 1
    start_turn(g, p)
    m = pl.money
    g.apply(A.EXPAND + D.COW)
    g.apply(A.SPACE + target)
    assert g.unit_at[target] == D.COW and g.occupant[target] == p
    assert pl.money == m - g.clans[p].unit_cost(g, p, D.COW) and pl.merchants_stock == 2
    assert g.modstate["trains"].reserved == []
    check_invariants(g)


def test_bonuses_20_and_21_count_as_trades_never_both_areas_of_a_good():
    """R13.27: bonuses 20-22 count as Trade actions, so the Market rule holds: never Merchants on the buy
    and the sell area of one Good in a round."""
    g, p, pl = bonus_position(21)
    pl.merchants_stock = 3
    pl.merchants_market[0 * 2 + A.BUY] = 1
    pl.merchants_stock -= 0
    g.stack.pop()
    push_bonus(g, p, 21)
    g.apply(CHOOSE + 0)
    assert A.market_area_action(0, A.SELL) not in g.legal_actions()
    assert A.market_area_action(0, A.BUY) in g.legal_actions()
    assert all(a not in DL.sell_options(g, p, TM.DELIVERY_PARTS[20][0]) for a in
               [A.trade_action(0, A.SELL, q) for q in range(1, 5)])


def test_port_17_train_half_takes_the_leftmost_delivery_track_marker():
    """R11.17 / R13.18 (Q25): with the Train module, tile 17 takes the leftmost marker (a delivery for the
    Delivery track), and the 5th is the station."""
    from clans_env.engine.rules import industria_ports as IP
    g = train_position(3)
    p = g.turn_order[0]
    assert IP.applicable(g, p, 17) and not IP.applicable(g, p, 16)
    IP.resolve(g, p, 17)
    assert g.modstate["trains"].deliv[p] == 1 and g.modstate["trains"].markers[p] == 1
    g.modstate["trains"].deliv[p] = 4
    IP.resolve(g, p, 17)
    assert g.stack[-1][2] == "train_station"
    g.modstate["trains"].deliv[p] = 5
    assert not IP.applicable(g, p, 17)
    v = make_game(3, seed=1, milestones="variant_a")
    assert not v.config.trains                                       # Variants: the halves without Trains (Q37)


def test_version_2_saves_predate_the_train_module():
    """Saves: version 3 holds the Train module; a version 2 Industria save (part 1) loads with trains off."""
    from helpers import random_playout
    g = Game(GameConfig(num_players=3, seed=8, industria=True, trains=False))
    random_playout(g, random.Random(3))
    doc = json.loads(g.to_json())
    assert doc["version"] == 4                  # 4 since the modules' state records
    doc["version"] = 2
    del doc["config"]["trains"], doc["config"]["milestones"]
    assert Game.from_json(json.dumps(doc)).to_json() == g.to_json()
    doc["config"]["trains"] = True
    with pytest.raises(ValueError, match="version 2"):
        Game.from_json(json.dumps(doc))
    h = Game(GameConfig(num_players=2, seed=8, industria=True))
    random_playout(h, random.Random(3))
    assert Game.from_json(h.to_json()).to_json() == h.to_json()


def test_station_counts_as_the_owners_unit_and_stays_when_the_other_unit_leaves():
    """R13.16: the station counts as one of the owner's units on the space (Settlements, reach); if the
    other player's unit is removed the station stays and the space is the owner's only."""
    from clans_env.engine.rules.common import reach, remove_unit
    from clans_env.engine.rules.scoring import settlements
    g, p = delivery_position()
    q = [x for x in range(3) if x != p][0]
    cluster = grass_cluster(g, 3)
    a, b, c = cluster
    put(g, p, "sheep", a)
    put(g, q, "sheep", b)
    before = reach(g, p)
    g.modstate["trains"].station[p] = b
    g.players[p].reach = -1
    assert reach(g, p) == before | g.topo.reach[g.players[p].shipping][b]
    assert any(comp >> a & 1 and comp >> b & 1 for comp in settlements(g, p))
    remove_unit(g, q, b)
    assert g.occupant[b] == -2 and g.occupied >> b & 1                 # nobody can deploy there
    assert any(comp >> b & 1 for comp in settlements(g, p))
    check_invariants(g)


# ---- Delivery bonus 16: Export box stacks (R13.26 tile 16, Q33, T13) ------------------------------------
def _simple_contract(g, exclude=()):
    c = next(c for c in D.CONTRACTS if not c.beef and not c.mutton and c.id not in exclude
             and c.id in g.pile)
    g.pile.remove(c.id)
    return c


def _offer(g, slot, c):
    """Put contract ``c`` (out of the pile) in display ``slot``; the one there goes back to the pile."""
    if g.display[slot] >= 0:
        g.pile.append(g.display[slot])
    g.display[slot] = c.id


def test_bonus_16_takes_a_contract_on_top_and_the_top_is_fulfilled_first():
    """R13.26 tile 16: £15 and a contract at the normal cost; with one already in the box the new one goes on
    top and is fulfilled first (Q33); the one under it then becomes the open contract."""
    from clans_env.engine.rules.contracts import obtain_cost
    from clans_env.engine.rules.fulfil import apply_fulfil, fulfil_options
    g, p, s = one_unit_position()
    pl = g.players[p]
    old = _simple_contract(g)
    new = _simple_contract(g, exclude=(old.id,))
    pl.open_contracts = [old.id]
    slots = [k for k, c in enumerate(g.display) if c >= 0]
    _offer(g, slots[0], new)
    push_bonus(g, p, 16)
    m = pl.money
    g.apply(CHOOSE + 0)
    assert pl.money == m + 15
    g.apply(CHOOSE + 1)
    assert g.legal_actions() == [A.TAKE_CONTRACT + k for k in slots]   # one box: no box choice, no second
    g.apply(A.TAKE_CONTRACT + slots[0])
    assert g.display[slots[0]] == -1 and pl.money == m + 15 - obtain_cost(g, p)
    assert pl.open_contracts == [new.id] and g.modstate["trains"].below == [new.id, old.id]
    assert g.decision_kind == "main"
    check_invariants(g)
    pl.goods = [9] * D.NUM_GOODS                                    # both could be paid: only the top is offered
    out = []
    fulfil_options(g, p, out)
    assert out == [A.FULFIL + 0]
    apply_fulfil(g, p, 0)
    assert pl.open_contracts == [old.id] and not g.modstate["trains"].below  # the one under it surfaces
    g._advance()
    finish(g)
    assert new.id in pl.done_contracts and old.id not in pl.done_contracts
    check_invariants(g)


def test_bonus_16_into_an_empty_box_and_optional():
    """Tile 16 "you may take": with an empty box the contract goes there; the part may be left (R13.10), and
    it is not offered when the normal cost cannot be paid."""
    from clans_env.engine.rules.contracts import obtain_cost
    g, p, s = one_unit_position()
    pl = g.players[p]
    push_bonus(g, p, 16)
    slot = next(k for k, c in enumerate(g.display) if c >= 0)
    new = g.display[slot]
    g.apply(CHOOSE + 1)
    g.apply(A.TAKE_CONTRACT + slot)
    assert pl.open_contracts == [new] and not g.modstate["trains"].below
    assert g.legal_actions() == sorted([CHOOSE + 0, A.DONE])  # the £15 is still open, or forfeit
    g2, p2, _ = one_unit_position()
    g2.round = max(range(1, 6), key=lambda r: D.ROUND_COST[r - 1])
    assert obtain_cost(g2, p2) > 0
    g2.players[p2].money = obtain_cost(g2, p2) - 1
    push_bonus(g2, p2, 16)
    assert g2.legal_actions() == sorted([CHOOSE + 0, A.DONE])


def test_bonus_16_buchanan_one_contract_on_each_of_two_boxes():
    """Tile 16: "Clan Buchanan can place one Export contract on each of their two Export boxes"; the round
    cost once per turn (Buchanan's ability); which new one covers which held one is the player's choice."""
    g = blank_position(3, money=100, trains=True, clans=["buchanan", "campbell", "stewart"])
    start_turn(g, 0)
    pl = g.players[0]
    a, b = _simple_contract(g), None
    b = _simple_contract(g, exclude=(a.id,))
    pl.open_contracts = [a.id, b.id]
    push_bonus(g, 0, 16, 0b10)
    g.apply(CHOOSE + 1)
    slots = [k for k, c in enumerate(g.display) if c >= 0]
    n1, n2 = g.display[slots[0]], g.display[slots[1]]
    g.apply(A.TAKE_CONTRACT + slots[0])
    assert g.legal_actions() == [A.FULFIL + 0, A.FULFIL + 1]        # which box it goes on
    g.apply(A.FULFIL + 1)
    assert pl.open_contracts == [a.id, n1]
    assert A.DONE in g.legal_actions() and A.TAKE_CONTRACT + slots[1] in g.legal_actions()
    m = pl.money
    g.apply(A.TAKE_CONTRACT + slots[1])                             # the other box, no choice left
    assert pl.open_contracts == [n2, n1] and pl.money == m          # Buchanan pays the round cost once
    assert sorted(zip(g.modstate["trains"].below[::2], g.modstate["trains"].below[1::2])) == sorted([(n1, b.id), (n2, a.id)])
    assert sorted((x["top"], x["under"]) for x in g.public_state()["industria"]["trains"]["contracts_under"]) == \
        sorted([(n1, b.id), (n2, a.id)])
    assert g.decision_kind == "main"
    check_invariants(g)


def test_bonus_8_discards_the_top_of_a_stack_and_the_new_one_goes_on_top():
    """Tile 8 "Discard the top Export contract from your Export box" with a tile 16 stack: the new contract
    goes on top of the one that was under the discarded one."""
    g, p, s = one_unit_position()
    pl = g.players[p]
    under, top = _simple_contract(g), None
    top = _simple_contract(g, exclude=(under.id,))
    pl.open_contracts = [top.id]
    g.modstate["trains"].below = [top.id, under.id]
    push_bonus(g, p, 8, 0b01)
    g.apply(CHOOSE + 0)
    g.apply(A.FULFIL + 0)
    slot = g.legal_actions()[0] - A.TAKE_CONTRACT
    new = g.display[slot]
    g.apply(A.TAKE_CONTRACT + slot)
    assert pl.open_contracts == [new] and g.modstate["trains"].below == [new, under.id]
    assert top.id in g.modstate["trains"].discarded
    check_invariants(g)


def _fifth_delivery_position():
    g, p = delivery_position()
    g.modstate["trains"].deliv[p] = 4
    q = [x for x in range(3) if x != p][0]
    spaces = free_spaces(g, GRASS)
    put(g, p, "sheep", spaces[0])
    nb = [s for s in spaces if s in g.board.neighbours[spaces[0]] and g.occupant[s] == -1]
    put(g, q, "sheep", nb[0])
    g.modstate["trains"].bonus[loc(g, "T2")] = 6                             # Move 2 Price markers, gain £15
    give(g, p, wool=2)
    start_turn(g, p)
    g.apply(TR.TRAIN_ACTION)
    g.apply(CHOOSE + loc(g, "T2"))
    g.apply(A.DONE)
    return g, p, nb[0]


def test_station_before_or_after_the_fifth_deliverys_bonus():
    """R13.14 "you must immediately place your Train station — before or after resolving that delivery's bonus
    tile": a decision (a qualifying space now, or done = after the bonus)."""
    g, p, t = _fifth_delivery_position()                           # before: the station, then the bonus
    assert g.decision_kind == "station" and g.legal_actions() == sorted([A.SPACE + t, A.DONE])
    g.apply(A.SPACE + t)
    assert g.modstate["trains"].station[p] == t
    assert g.decision_kind == "delivery" and g.stack[-1][2] == 6
    m = g.players[p].money
    g.apply(CHOOSE + 1)
    g.apply(A.DONE)
    assert g.players[p].money == m + 15 and g.decision_kind == "post_main"   # no second station decision
    g, p, t = _fifth_delivery_position()                           # after: the bonus, then the station
    g.apply(A.DONE)
    assert g.decision_kind == "delivery" and g.modstate["trains"].station[p] == -1
    g.apply(A.DONE)                                                 # forfeit the bonus
    assert g.decision_kind == "station" and g.legal_actions() == [A.SPACE + t]
    g.apply(A.SPACE + t)
    assert g.modstate["trains"].station[p] == t and g.decision_kind == "post_main"
    check_invariants(g)


def test_bonus_14_ten_pounds_and_two_moves_to_adjacent_spaces():
    """R13.26 tile 14 "Gain £10 and move 1 unit to an adjacent space twice (same or different units)": two
    moves under the Moving rules (R5: an adjacent space, no cost, no deployment bonus), then no third."""
    g, p, s = one_unit_position()
    pl = g.players[p]
    m = pl.money
    push_bonus(g, p, 14)
    g.apply(CHOOSE + 0)
    assert pl.money == m + 10
    g.apply(CHOOSE + 1)
    assert g.legal_actions() == sorted([A.SPACE + s, A.DONE])
    g.apply(A.SPACE + s)                                            # the only unit: no unit choice
    t1 = min(a - A.SPACE for a in g.legal_actions())
    assert all(a - A.SPACE in g.board.adjacent[s] for a in g.legal_actions())
    g.apply(A.SPACE + t1)
    assert g.unit_at[t1] == D.SHEEP and g.occupant[s] == -1 and g.decision_kind == "move"
    g.apply(A.SPACE + t1)                                           # the same unit again
    t2 = max(a - A.SPACE for a in g.legal_actions())
    assert t2 in g.board.adjacent[t1]
    g.apply(A.SPACE + t2)
    assert g.unit_at[t2] == D.SHEEP and g.occupant[t1] == -1
    assert pl.money == m + 10 and g.decision_kind == "main"         # no cost; no third move
    check_invariants(g)


def test_bonus_15_processed_good_free_space_and_a_bonus_action():
    """R13.26 tile 15 "Gain 1 Processed good, 1 free space, and a bonus action": a Processed good of the
    player's choice, a Free space (unit cost, no land cost, in reach, as the Export bonus), and one more
    main action at once that may not Pass (Q29)."""
    from clans_env.engine.rules.common import reach
    g, p, s = one_unit_position()
    pl = g.players[p]
    push_bonus(g, p, 15)
    g.apply(CHOOSE + 0)
    assert g.legal_actions() == [A.GOOD + i for i in D.PROCESSED_GOODS]
    whisky = D.GOOD_INDEX["whisky"]
    g.apply(A.GOOD + whisky)
    assert pl.goods[whisky] == 1 and sum(pl.goods) == 1
    g.apply(CHOOSE + 1)
    g.apply(A.EXPAND + D.COW)
    targets = [a - A.SPACE for a in g.legal_actions()]
    assert targets and all(reach(g, p) >> t & 1 for t in targets)
    t = max(targets, key=lambda x: g.topo.cost[x])
    assert g.topo.cost[t] > 0
    m = pl.money
    g.apply(A.SPACE + t)
    assert g.unit_at[t] == D.COW
    assert pl.money == m - g.clans[p].unit_cost(g, p, D.COW)       # the unit cost only, no land cost
    while g.decision_kind != "delivery":                           # its deployment bonuses, if any
        g.apply(A.DONE if A.DONE in g.legal_actions() else g.legal_actions()[0])
    g.apply(CHOOSE + 2)
    assert g.decision_kind == "main" and len(g.stack[-1]) > 2 and A.PASS not in g.legal_actions()
    check_invariants(g)


def test_bonus_action_with_nothing_to_do_is_skipped():
    """Q29: the bonus action (tiles 3, 11, 15) is one more main action that may not Pass; when no main action
    is possible it is skipped (never a decision without a legal answer)."""
    from clans_env.engine.rules.turn import legal_main
    from clans_env.engine.state import K_MAIN
    g, p, s = one_unit_position()
    pl = g.players[p]
    pl.money = 0                                                    # nothing to buy, expand or upgrade with
    pl.ports_used = (1 << len(g.port_tiles)) - 1
    g.display = [-1] * len(g.display)                               # no contract to take
    assert legal_main(g, (K_MAIN, p, "bonus")) == []
    push_bonus(g, p, 15, 0b100)
    g.apply(CHOOSE + 2)
    assert not any(f[0] == K_MAIN and len(f) > 2 for f in g.stack) and g.legal_actions()


def test_part_one_records_without_a_trains_key_replay_with_trains_off(tmp_path):
    """Records (``clans play --save``, tournaments) of Industria part 1 have no ``trains`` key: they replay
    with trains off, as version 2 saves load; a record with the key keeps it."""
    from helpers import random_playout
    from clans_env.engine.records import load_game_file, read_game_file
    g = Game(GameConfig(num_players=3, seed=8, industria=True, trains=False))
    random_playout(g, random.Random(3))
    old = g.record()
    del old["config"]["trains"], old["config"]["milestones"]
    assert GameConfig.from_dict(old["config"]).trains                # read as a new config: trains on
    path = tmp_path / "part1.json"
    path.write_text(json.dumps(old))
    h, _ = load_game_file(path)
    assert not h.config.trains and h.to_json() == g.to_json()
    nested = tmp_path / "tournament.json"
    nested.write_text(json.dumps({"record": old, "names": ["a", "b", "c"]}))
    record, meta = read_game_file(nested)
    assert record["config"]["trains"] is False and meta["players"] == ["a", "b", "c"]
    t = Game(GameConfig(num_players=3, seed=8, industria=True))
    random_playout(t, random.Random(3))
    path.write_text(json.dumps(t.record()))
    h, _ = load_game_file(path)
    assert h.config.trains and h.to_json() == t.to_json()
