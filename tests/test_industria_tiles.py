"""Industria, part 1 (issue 12): Port tiles 10-18 (R11), Scoring tiles 10-18 (R12), Two units on a space
(R4) and Moving a unit (R5), on constructed positions. Each test names its rule and quotes the aid."""
from __future__ import annotations

import random

import pytest

from clans_env import Game, GameConfig
from clans_env.engine import actions as A
from clans_env.engine import data as D
from clans_env.engine.invariants import check_invariants
from clans_env.engine.rules.industria_scoring import scoring_tile_glory
from clans_env.engine.rules.scoring import scoring_tile_glory as any_tile_glory
from clans_env.engine.rules.stacking import place_second, stacked_unit
from helpers import (FOREST, GRASS, MOUNTAIN, act, active_land, blank_position, label, legal_names,
                     placement_targets, port_neighbours, put, start_turn)


def grass_pair(g, taken=()):
    """Two empty neighbouring grassland spaces away from ``taken``."""
    grass = [s for s in active_land(g, GRASS) if g.occupant[s] == -1 and s not in taken]
    for a in grass:
        for b in g.board.neighbours[a]:
            if b in grass and not any(t in g.board.adjacent[a] or t in g.board.adjacent[b] for t in taken):
                return a, b
    raise AssertionError("no pair")


# ---- the pools (R1.2, R12.19) --------------------------------------------------------------------
def test_industria_tiles_join_the_pools():
    """R1.2 "Randomly choose 4 from the pool (base 1-9 plus Industria 10-18)"; R12.19 five Scoring tiles
    from tiles 1-18 (9 with the Kickstarter option only)."""
    ports, scoring = set(), set()
    for seed in range(80):
        g = Game(GameConfig(num_players=3, seed=seed, industria_tiles=True))
        ports |= set(g.port_tiles)
        scoring |= set(g.scoring_tiles)
    assert ports == set(range(1, 9)) | set(range(10, 19))
    assert scoring == set(range(1, 9)) | set(range(10, 19))
    assert all(t < 10 for s in range(20) for t in Game(GameConfig(num_players=3, seed=s)).port_tiles)


# ---- Scoring tiles 10-18 (R12) -------------------------------------------------------------------
def test_tile_10_pairs_of_animals():
    """R12.10 "Gain 4 Glory per pair of your animals on neighbouring spaces or on the same space. Animals
    of different types count": three animals in a row make one pair; a stacked pair is a pair too."""
    g = blank_position(2, industria_tiles=True)
    grass = set(s for s in active_land(g, GRASS) if g.occupant[s] == -1)
    nb = g.board.neighbours
    a, b, c = next((a, b, c) for a in sorted(grass) for b in nb[a] if b in grass for c in nb[b]
                   if c in grass and c != a and c not in nb[a])
    put(g, 0, "sheep", a)
    put(g, 0, "cow", b)
    put(g, 0, "sheep", c)
    assert scoring_tile_glory(g, 0, 10) == 4            # a-b or b-c, never both (Q13)
    place_second(g, 0, D.COW, a)
    assert scoring_tile_glory(g, 0, 10) == 8            # a+a', b+c


def test_tile_11_merchants_on_the_market():
    """R12.11 "Gain 2 Glory per Merchant of yours on the Market board"."""
    g = blank_position(2, industria_tiles=True)
    pl = g.players[0]
    pl.merchants_stock -= 2
    pl.merchants_market[3] = 2
    assert scoring_tile_glory(g, 0, 11) == 4


def test_tile_12_types_of_goods():
    """R12.12 "Gain 3 Glory per different type of Good in your stock"."""
    g = blank_position(2, industria_tiles=True)
    g.players[0].goods = [2, 0, 1, 0, 0, 5]
    assert scoring_tile_glory(g, 0, 12) == 9


def test_tile_13_production_chains_a_field_in_two_pairs():
    """R12.13 "Gain 3 Glory per pair of your neighbouring units that form a production chain - Cow +
    Cheese dairy, Field + Bakery, Field + Distillery ... One Field produces 2 Grain, so it can be used for
    2 pairs"."""
    g = blank_position(2, industria_tiles=True)
    grass = set(active_land(g, GRASS))
    f, nbs = next((f, [t for t in g.board.neighbours[f] if t in grass]) for f in sorted(grass)
                  if len([t for t in g.board.neighbours[f] if t in grass]) >= 3)
    put(g, 0, "field", f)
    put(g, 0, "bakery", nbs[0])
    put(g, 0, "distillery", nbs[1])
    put(g, 0, "bakery", nbs[2])
    assert scoring_tile_glory(g, 0, 13) == 6            # the Field feeds two of the three


def test_tile_14_central_loch():
    """R12.14 "Gain 3 Glory per 2 of your units on or adjacent to the central loch"."""
    g = blank_position(2, industria_tiles=True)
    near = sorted({t for s in g.board.central_loch for t in g.board.adjacent[s]
                   if g.board.kind[t] == 0 and g.board.land[t] & GRASS and g.topo.active >> t & 1})
    for s in near[:3]:
        put(g, 0, "sheep", s)
    assert scoring_tile_glory(g, 0, 14) == 3


def test_tile_15_units_not_next_to_a_loch():
    """R12.15 "Gain 2 Glory per unit of yours on a land space that is not adjacent to any loch space"."""
    g = blank_position(2, industria_tiles=True)
    dry = [s for s in active_land(g, GRASS) if not any(g.board.kind[t] == 1 for t in g.board.adjacent[s])]
    wet = [s for s in active_land(g, GRASS) if any(g.board.kind[t] == 1 for t in g.board.adjacent[s])]
    put(g, 0, "sheep", dry[0])
    put(g, 0, "sheep", wet[0])
    assert scoring_tile_glory(g, 0, 15) == 2


def test_tile_16_unit_types_in_one_settlement_workers_one_type():
    """R12.16 "Gain 3 Glory per different type of unit you have in a single Settlement" (all Workers
    count as one type, Q16)."""
    g = blank_position(2, industria_tiles=True)
    a, b = grass_pair(g)
    put(g, 0, "sheep", a)
    put(g, 0, "cow", b)
    assert scoring_tile_glory(g, 0, 16) == 6


def test_tile_17_same_type_across_a_river():
    """R12.17 "Gain 4 Glory per pair of your adjacent units of the same type on spaces separated by a
    river"."""
    g = blank_position(2, industria_tiles=True)
    grass = set(active_land(g, GRASS))
    a, b = next((a, b) for a, b in sorted(g.board.river_edges) if a in grass and b in grass)
    put(g, 0, "sheep", a)
    put(g, 0, "sheep", b)
    assert scoring_tile_glory(g, 0, 17) == 4
    g2 = blank_position(2, industria_tiles=True)
    put(g2, 0, "sheep", a)
    put(g2, 0, "cow", b)
    assert scoring_tile_glory(g2, 0, 17) == 0


def test_tile_18_settlements_of_exactly_two_units():
    """R12.18 "Gain 3 Glory per Settlement consisting of exactly 2 units" (two units on one space form
    one, Q17)."""
    g = blank_position(2, industria_tiles=True)
    a, b = grass_pair(g)
    put(g, 0, "sheep", a)
    put(g, 0, "cow", b)
    c, d = grass_pair(g, taken=(a, b))
    put(g, 0, "sheep", c)
    place_second(g, 0, D.SHEEP, c)
    assert scoring_tile_glory(g, 0, 18) == 6
    assert any_tile_glory(g, 0, 18) == 6                 # the rules' dispatcher reaches tiles 10-18


# ---- Port tiles 10-18 (R11) ----------------------------------------------------------------------
def port_position(tile, unit="sheep", money=100, n=2, **options):
    g = blank_position(n, money=money, industria_tiles=True, **options)
    p = g.current_player
    g.port_tiles = (tile, 3, 6, 2)
    land = {"woodcutter": FOREST, "miner": MOUNTAIN}.get(unit, GRASS)
    s = next(s for s in port_neighbours(g, 0) if g.board.land[s] & land)
    put(g, p, unit, s)
    start_turn(g, p)
    return g, p, s


def contract_for(g, p, processed_needed=True):
    """Give p an open contract without Meat (needing a Processed good, or none)."""
    cid = next(c.id for c in D.CONTRACTS if not c.beef and not c.mutton and
               (sum(c.goods[i] for i in D.PROCESSED_GOODS) >= 1) == processed_needed)
    if cid in g.display:
        g.display[g.display.index(cid)] = -1
    if cid in g.pile:
        g.pile.remove(cid)
    g.players[p].open_contracts = [cid]
    return D.CONTRACT_BY_ID[cid]


def test_port_10_ignores_one_processed_good():
    """R11.10 "Ignore 1 required Processed good when fulfilling an Export contract": a contract one
    Processed good short becomes fulfillable, and the tile pays for that good."""
    g, p, s = port_position(10)
    c = contract_for(g, p)
    goods = list(c.goods)
    short = next(i for i in D.PROCESSED_GOODS if goods[i])
    goods[short] -= 1
    g.players[p].goods = goods
    start_turn(g, p)
    act(g, "fulfil:0")
    assert g.decision_kind == "port_ignore" and legal_names(g) == {f"good:{D.GOODS[short]}"}
    act(g, f"good:{D.GOODS[short]}")
    pl = g.players[p]
    assert c.id in pl.done_contracts and pl.ports_used & 1 and pl.goods == [0] * D.NUM_GOODS


def test_port_11_stacks_an_animal():
    """R11.11 "Deploy an animal for free on the same space as another of your animals"; R4.2 no land
    cost; R4.3 never more than 2; R4.5 each unit counts."""
    g, p, s = port_position(11)
    money = g.players[p].money
    act(g, "use_port:0", "expand:cow", f"space:{label(g, s)}")
    assert stacked_unit(g, s) == D.COW and g.players[p].money == money
    assert g.players[p].units_placed(D.COW) == 1 and g.players[p].units_placed(D.SHEEP) == 1
    check_invariants(g)
    from clans_env.engine.rules.stacking import stack_animal_targets
    assert not stack_animal_targets(g, p, D.SHEEP) >> s & 1     # a third unit: never


def test_removing_one_of_two_units_leaves_the_other():
    """R4.6 "If one unit is later removed (slaughtering ...), the other remains on the space"."""
    g, p, s = port_position(11)
    act(g, "use_port:0", "expand:cow", f"space:{label(g, s)}")
    from clans_env.engine.rules.common import remove_unit
    assert remove_unit(g, p, s, D.SHEEP) == D.SHEEP
    assert g.unit_at[s] == D.COW and g.occupant[s] == p and stacked_unit(g, s) == -1
    check_invariants(g)


def test_port_12_factory_becomes_a_field_without_bonuses():
    """R11.12 "Exchange 1 of your Cheese dairies, Bakeries, or Distilleries on the map with 1 of your
    Fields from your player board, for free" (not a deployment, Q36)."""
    g, p, s = port_position(12, unit="bakery")
    act(g, "use_port:0", f"space:{label(g, s)}")
    assert g.unit_at[s] == D.FIELD and g.players[p].units_left[D.BAKERY] == 4
    assert g.decision_kind in ("main", "post_main")


@pytest.mark.parametrize("choice,tech,glory,cost", [("choose:0", [True, True], 0, 10), ("choose:1", [False, False], 4, 0)])
def test_port_13_tech_or_glory(choice, tech, glory, cost):
    """R11.13 "Pay £10 to gain 2 Technology upgrades, or gain 4 Glory"."""
    g, p, s = port_position(13)
    act(g, "use_port:0", choice)
    pl = g.players[p]
    assert pl.tech == tech and pl.glory == glory and pl.money == 100 - cost


def test_port_14_four_processed_for_fifty():
    """R11.14 "Discard 4 Processed goods to gain £50"."""
    g, p, s = port_position(14)
    g.players[p].goods = [0, 0, 0, 2, 1, 2]
    start_turn(g, p)
    act(g, "use_port:0", "good:cheese", "good:cheese", "good:whisky", "good:bread")
    assert g.players[p].goods == [0, 0, 0, 0, 0, 1] and g.players[p].money == 150


def test_port_15_three_merchant_upgrades_after_a_fulfilled_contract():
    """R11.15 "If you have at least 1 Export contract fulfilled, gain 3 Merchant upgrades" (Q40)."""
    g, p, s = port_position(15)
    assert "use_port:0" not in legal_names(g)
    g.players[p].done_contracts = [1]
    start_turn(g, p)
    act(g, "use_port:0")
    assert legal_names(g) == {"hire_merchant", "done"}
    act(g, "hire_merchant", "hire_merchant", "hire_merchant")
    assert g.players[p].merchants_board == D.MERCHANTS_ON_TRACK - 3


def test_port_16_two_moves_to_adjacent_spaces():
    """R11.16 (without Train) "Move any 1 of your units to an adjacent space, twice"; R5.1 terrain must
    match; R5.3 no land cost; R5.8 destination empty; R5.5 rivers need river-crossing Shipping."""
    g, p, s = port_position(16)
    money = g.players[p].money
    act(g, "use_port:0", f"space:{label(g, s)}")
    targets = placement_targets(g)
    assert targets and all(g.board.land[t] & GRASS and g.occupant[t] == -1 for t in targets)
    assert all(t in g.board.neighbours[s] for t in targets)      # shipping 0: no river crossing
    t = min(targets)
    act(g, f"space:{label(g, t)}")
    assert g.unit_at[t] == D.SHEEP and g.occupant[s] == -1 and g.players[p].money == money
    assert g.decision_kind == "move"
    act(g, "done")
    check_invariants(g)


def test_moved_unit_triggers_no_bonus():
    """R5.4 "A moved unit does not trigger the Neighbourhood bonus, Farmers market bonus, or Building
    bonus"."""
    from clans_env.engine.state import K_MOVE
    from helpers import push
    g = blank_position(2, industria_tiles=True)
    p, o = g.turn_order[0], g.turn_order[1]
    grass = set(x for x in active_land(g, GRASS) if g.occupant[x] == -1)
    nb = g.board.neighbours
    s, t, u = next((s, t, u) for s in sorted(grass) for t in nb[s] if t in grass for u in nb[t]
                   if u in grass and u != s and u not in nb[s])
    put(g, p, "sheep", s)
    put(g, o, "distillery", u)
    start_turn(g, p)
    push(g, (K_MOVE, p, 2, -1, -1))
    act(g, f"space:{label(g, s)}")
    assert t in placement_targets(g)
    act(g, f"space:{label(g, t)}")
    assert g.decision_kind == "move" and g.players[p].goods[D.WHISKY] == 0   # no Neighbourhood bonus


def test_port_17_factory_for_the_land_cost():
    """R11.17 (without Train) "Deploy a Cheese dairy, Bakery, or Distillery for free (pay only the land
    cost)"."""
    g, p, s = port_position(17)
    act(g, "use_port:0", "expand:bakery")
    t = min(placement_targets(g))
    act(g, f"space:{label(g, t)}")
    assert g.unit_at[t] == D.BAKERY and g.players[p].money == 100 - g.board.cost[t]


def test_port_18_fulfils_for_25_without_goods_and_keeps_the_main_action():
    """R11.18 "Pay £25 to fulfil an Export contract without paying any Goods or Meat"; a free action
    (R11.21): the turn's main action is still to come."""
    g, p, s = port_position(18)
    c = contract_for(g, p)
    start_turn(g, p)
    act(g, "use_port:0", "fulfil:0")
    pl = g.players[p]
    assert c.id in pl.done_contracts and pl.money == 100 - 25 + c.money
    while g.decision_kind not in ("main",) and g.current_player == p:
        g.apply(g.legal_actions()[-1])
    assert g.decision_kind == "main" and g.current_player == p


def test_random_games_with_the_industria_tiles():
    """Issue 12, Tests: random games with every Industria module, the new tiles and stacking
    preferred, invariants after every action; saves load back exactly."""
    for n in (1, 2, 3, 4):
        rng = random.Random(n)
        g = Game(GameConfig(num_players=n, seed=500 + n, industria=True))
        while not g.is_terminal():
            legal = g.legal_actions()
            ports = [a for a in legal if A.USE_PORT <= a < A.USE_PORT + 4]
            if ports and rng.random() < 0.7:
                legal = ports
            elif len(legal) > 1 and A.PASS in legal and rng.random() < 0.85:
                legal = [a for a in legal if a != A.PASS]
            g.apply(rng.choice(legal))
            check_invariants(g)
        assert Game.from_json(g.to_json()).to_json() == g.to_json()


def test_port_7_exchange_on_a_space_with_two_units_keeps_the_second():
    """R4.6 / R4.7 with Port tile 7: exchanging the unit on a space that holds two of yours replaces the
    first and leaves the second (found by the random-game soak: the second unit was lost)."""
    from clans_env.engine.state import K_EXCHANGE_FROM
    from helpers import push
    g, p, s = port_position(11)
    act(g, "use_port:0", "expand:cow", f"space:{label(g, s)}")
    push(g, (K_EXCHANGE_FROM, p, (), ()))
    act(g, f"space:{label(g, s)}", "expand:cheese_dairy")
    assert g.unit_at[s] == D.DAIRY and stacked_unit(g, s) == D.COW
    check_invariants(g)


def test_waterfall_spaces_form_one_settlement():
    """R6.1 "Waterfall spaces (new maps): the mountain space is not along the river. The two spaces below
    the waterfall are along the river and are adjacent to the mountain, but they are not neighbouring it
    (the river runs between them). Units on all three spaces still form a single Settlement" (read as
    Q1: the river runs between the two lower spaces, each of which neighbours the mountain)."""
    from clans_env.engine.board import all_assemblies, assemble
    from clans_env.engine.rules.scoring import settlements
    checked = 0
    for sides in all_assemblies():
        b = assemble(sides)
        for w in b.waterfall:
            lower = next(chain[0] for chain in b.rivers if set(chain[0]) <= set(b.adjacent[w]))
            a, c = lower
            assert w in b.neighbours[a] and w in b.neighbours[c]          # no river between them and w
            assert c in b.adjacent[a] and c not in b.neighbours[a]        # the river runs between a and c
            if not (b.active(4)[a] and b.active(4)[c] and b.land[a] & GRASS and b.land[c] & GRASS):
                continue
            g = blank_position(4, sides=sides, industria_tiles=True)
            if any(g.occupant[x] != -1 for x in (w, a, c)):
                continue
            put(g, 0, "miner", w)
            put(g, 0, "sheep", a)
            put(g, 0, "cow", c)
            assert len(settlements(g, 0)) == 1
            checked += 1
    assert checked


def test_a_moved_fisherman_never_ends_next_to_another():
    """R5 with Clan MacDonald: "Two Fishermen may never be adjacent to each other" holds for moves too, onto
    land as onto lochs (the soak found a Fisherman moved onto land beside another)."""
    from clans_env.engine.clans import CLANS
    from clans_env.engine.rules.stacking import move_targets
    g = blank_position(3, clans=["macdonald", "stewart", "fergusson"], industria_tiles=True)
    lake = {s for s in range(g.board.num_spaces) if g.board.kind[s] == 1 and g.topo.active >> s & 1}
    land = set(active_land(g, FOREST)) | set(active_land(g, MOUNTAIN))
    for a in sorted(lake):
        for t in g.board.adjacent[a]:
            if t not in land or g.occupant[t] != -1:
                continue
            for b in g.board.adjacent[t]:
                if b in lake and b != a and b not in g.board.adjacent[a]:
                    for s in (a, b):
                        put(g, 0, "fisherman", s, check=False)
                        CLANS["macdonald"].on_deploy(g, 0, D.FISHERMAN, s, 0)
                    g.players[0].shipping = 1
                    assert not move_targets(g, 0, a, D.FISHERMAN) >> t & 1
                    check_invariants(g)
                    return
    pytest.skip("no such position on this map")


def _largest_matching_by_brute_force(n: int, edges: list) -> int:
    best = 0
    for mask in range(1 << len(edges)):
        chosen = [e for k, e in enumerate(edges) if mask >> k & 1]
        ends = [x for e in chosen for x in e]
        if len(ends) == len(set(ends)):
            best = max(best, len(chosen))
    return best


def test_pairs_are_a_largest_matching():
    """R12.10 / R12.17 count pairs of units, each unit in one pair at most: ``max_matching`` (which matches
    an item with a single partner at once and branches elsewhere) against every set of disjoint pairs, on
    random graphs (paths, stars, triangles and denser ones: each shape where matching a leaf first matters)."""
    from clans_env.engine.rules.industria_scoring import max_matching
    rng = random.Random(12)
    for _ in range(1500):
        n = rng.randint(0, 9)
        density = rng.random()
        edges = [(i, j) for i in range(n) for j in range(i + 1, n) if rng.random() < density][:11]
        assert max_matching(n, edges) == _largest_matching_by_brute_force(n, edges), (n, edges)
