"""The Train module's fast paths (issue 14, speed) against plain statements of the rules they implement:
the movement enumeration (R13.2-R13.8, R15.4-R15.7), the remembered Milestone conditions (R13.24) and
Delivery bonus 4's "skip 2 spaces" area (R13.26 tile 4). The fast versions must agree everywhere a random
full-expansion game goes."""
from __future__ import annotations

import random

import pytest

from clans_env import Game, GameConfig
from clans_env.engine import data as D
from clans_env.engine import trainmap as TM
from clans_env.engine.board import hex_distance, offset_to_cube
from clans_env.engine.rules import deliveries as DL
from clans_env.engine.rules import milestones as MS
from clans_env.engine.rules import trains as TR
from clans_env.engine.rules.common import unit_spaces
from clans_env.engine.rules.scoring import settlements
from clans_env.engine.state import K_MAIN


def reference_paths(g, p: int, piece: int = TR.TRAIN) -> set:
    """Every 1- or 2-track movement of p's Train (or Mini-train), straight from the texts: R13.3/R13.4 a
    locked Tunnel or City (Milestone not claimed by p) is neither passed nor reached; R13.5 no move into a
    location p cannot pay £3 per other player's piece met for; R13.8 the Train ends where p can deliver; it
    leaves its location and does not end on p's other piece (R15.5)."""
    sd = TR.side(g)
    minis = g.modstate["trains"].mini if TR.has_minis(g) else None
    start, own_mini = (g.modstate["trains"].at[p], minis[p] if minis else -1) if piece == TR.TRAIN else \
        (minis[p], g.modstate["trains"].at[p])
    money = g.players[p].money
    out = set()
    if piece == TR.MINITRAIN:                # the Mini-train does not deliver (R15.4)
        def can_end(x):
            return True
    else:
        def can_end(x):
            return TR.can_deliver(g, p, x)

    def open_to(a, b, tunnel):
        return (not tunnel or TR.tunnel_open(g, p, a, b)) and (sd.kind[b] != TM.CITY or TR.city_open(g, p, b))

    for a, t1 in sd.neighbours(start):
        if not open_to(start, a, t1) or TR.fee(g, p, [a]) > money:
            continue
        if a != own_mini and can_end(a):
            out.add((-1, a, TR.fee(g, p, [a]), t1))
        for b, t2 in sd.neighbours(a):
            if b in (start, own_mini) or not open_to(a, b, t2):
                continue
            f = TR.fee(g, p, [a, b])
            if f <= money and can_end(b):
                out.add((a, b, f, t1 or t2))
    return out


def reference_mini_first(g, p: int) -> bool:
    """R15.4 "in either order": some Mini-train movement after which the Train has a movement."""
    if not TR.has_minis(g):
        return False
    minis, pl = g.modstate["trains"].mini, g.players[p]
    start, money = minis[p], pl.money
    try:
        for _, dest, f, _ in reference_paths(g, p, TR.MINITRAIN):
            minis[p], pl.money = dest, money - f
            if reference_paths(g, p):
                return True
        return False
    finally:
        minis[p], pl.money = start, money


def main_decisions(players: int, games: int, seed: int):
    """(game, player) at every main decision of random full-expansion games."""
    rng = random.Random(seed)
    for i in range(games):
        g = Game(GameConfig(num_players=players, seed=seed + i, industria=True))
        while not g.is_terminal():
            top = g.stack[-1] if g.stack else None
            if top is not None and top[0] == K_MAIN:
                yield g, top[1]
            legal = g.legal_actions()
            g.apply(legal[int(rng.random() * len(legal))])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_train_movements_match_the_rules_statement(players):
    """R13.2-R13.8, R15.7: the fast enumeration (bit sets, static lock table) finds exactly the movements
    of the plain statement, and the Train action is offered exactly when there is one."""
    checked = moving = freed = 0
    for g, p in main_decisions(players, 6, 300 + players):
        if g.modstate["trains"].at[p] < 0:
            continue
        ref = reference_paths(g, p)
        assert set(TR.paths(g, p, TR.TRAIN)) == ref
        upright = not g.modstate["trains"].tilt[p]
        mini_first = not ref and reference_mini_first(g, p)
        assert TR.can_take_train_action(g, p) == (upright and (bool(ref) or mini_first))
        checked += 1
        moving += bool(ref)
        freed += upright and mini_first
    assert checked > 100 and moving > 10          # the games reached positions with movements to compare
    if players == 2:
        assert freed                              # and some where only the Mini-train first frees the way


@pytest.mark.parametrize("players", [2, 3])
def test_a_chosen_movement_is_the_one_listed(players):
    """R13.5/R13.6: applying a Train move reads the chosen movement (fee, Tunnel used) off the open ways
    instead of listing every movement; it is the movement ``paths`` lists, for the Train and the Mini-train."""
    compared = fees = tunnels = 0
    for g, p in main_decisions(players, 6, 600 + players):
        ts = g.modstate["trains"]
        for piece in (TR.TRAIN, TR.MINITRAIN) if TR.has_minis(g) else (TR.TRAIN,):
            if (ts.mini[p] if piece == TR.MINITRAIN else ts.at[p]) < 0:
                continue
            for movement in TR.paths(g, p, piece):
                assert TR._movement(g, p, piece, movement[0], movement[1]) == movement
                compared += 1
                fees += movement[2] > 0
                tunnels += movement[3]
    assert compared > 300 and fees > 10 and (tunnels > 0 or players != 2), (compared, fees, tunnels)


@pytest.mark.parametrize("players", [2, 4])
def test_remembered_milestone_conditions_match_a_fresh_evaluation(players):
    """R13.24: a remembered answer of a layout tile (7-13) is the answer the condition gives now, for
    every Milestone tile at every main decision."""
    compared = met = 0
    for g, p in main_decisions(players, 5, 500 + players):
        for tile in TM.MILESTONES:
            fresh = MS._condition(g, p, tile)
            assert MS.condition(g, p, tile) == fresh, (tile, p)
            compared += 1
            met += fresh
    assert compared > 1000 and met > 50


def reference_units(g, p: int) -> list:
    """Every unit of p on the map read from the map: the unit on each of p's spaces and p's second units
    (Industria R4.5); not the Train station (R13.16, T7)."""
    out = [g.unit_at[s] for s in range(len(g.unit_at)) if g.players[p].spaces >> s & 1]
    stacked = g.modstate["second_units"].units if "second_units" in g.modstate else []
    return out + [stacked[i + 1] for i in range(0, len(stacked), 3) if stacked[i + 2] == p]


def reference_line(g, p: int, length: int) -> bool:
    """Milestone 13 read directly: ``length`` hex cells in a row (cube coordinates, any axis) each holding
    a space with p's unit or Train station."""
    own = {offset_to_cube(*g.board.rowcol[s]) for s in range(len(g.board.rowcol))
           if MS._spaces_with_units(g, p) >> s & 1}
    return any(all((x + k * dx, y + k * dy, z + k * dz) in own for k in range(length))
               for x, y, z in own for dx, dy, dz in ((1, -1, 0), (1, 0, -1), (0, 1, -1)))


@pytest.mark.parametrize("players", [2, 4])
def test_unit_milestones_count_the_units_on_the_map(players):
    """R13.24 tiles 8-10 (read from the Player board: supply less units left) against p's units on the map
    (T7: second units count, the station does not); tile 11 against p's units per Settlement (second units
    and the station count, R4.5, R13.16); tile 13 against its text on cube coordinates."""
    seen = {8: 0, 9: 0, 10: 0, 11: 0, 13: 0}
    for g, p in main_decisions(players, 5, 900 + players):
        units = reference_units(g, p)
        on_map = unit_spaces(g, p)             # one entry per unit: second units and the station included
        big = any(sum(1 for s in on_map if c >> s & 1) >= MS._p(11, "amount") for c in settlements(g, p))
        types = {D.WOODCUTTER if u in D.WORKERS else u for u in units}
        counts = {u: units.count(u) for u in set(units) if u not in D.WORKERS}
        want = {8: sum(1 for v in counts.values() if v >= MS._p(8, "amount")) >= MS._p(8, "types"),
                9: len(types) == 7, 10: len(units) >= MS._p(10, "amount"), 11: big,
                13: reference_line(g, p, MS._p(13, "amount"))}
        for tile, ok in want.items():
            assert MS._condition(g, p, tile) == ok, (tile, p, units)
            seen[tile] += ok
    assert all(seen.values()), seen                 # each tile met somewhere, so both answers were compared


@pytest.mark.parametrize("players", [2, 3])
def test_settlement_and_river_milestones_count_the_station_and_second_units(players):
    """R13.24 tiles 11 (units in one Settlement) and 12 (units along rivers) with p's Train station moved onto
    and beside p's spaces (R13.16: it counts as one of p's units there), against ``unit_spaces`` (second
    units count too, R4.5), for several thresholds (the functions take the tile's number as an argument)."""
    rng = random.Random(11)
    met = decided = 0
    for g, p in main_decisions(players, 4, 950 + players):
        spaces = [s for s in range(len(g.unit_at)) if g.players[p].spaces >> s & 1]
        if len(spaces) < 3:
            continue
        near = sorted({t for s in spaces for t in g.board.adjacent[s] if g.occupant[t] == -1})
        for amount in (3, 4, MS._p(11, "amount")):
            answers = []
            for st in [-1] + rng.sample(spaces + near, min(4, len(spaces) + len(near))):
                h = g.clone()
                h.modstate["trains"].station[p] = st
                on_map = unit_spaces(h, p)
                big = any(sum(1 for s in on_map if c >> s & 1) >= amount for c in settlements(h, p))
                river = sum(1 for s in on_map if h.topo.along_river >> s & 1) >= amount
                assert (MS._m11(h, p, amount), MS._m12(h, p, amount)) == (big, river), (p, st, amount)
                answers.append((big, river))
            met += sum(a + b for a, b in answers)
            decided += any(a != answers[0] for a in answers[1:])      # the station made the difference
    assert met > 50 and decided > 20, (met, decided)


@pytest.mark.parametrize("players", [2, 3])
def test_claimable_spots_and_deliverable_locations_match_a_fresh_evaluation(players):
    """Issue 34 shortcuts against the plain rules: R13.19/R13.24/Q26, the spots p may claim (a marker, the
    condition met now, not claimed yet) whatever the unit-count bound of the layout tiles (7-13) skips;
    R13.8/R13.9, ``deliverable`` (remembered per Goods in hand and Demand tiles) is where p can deliver."""
    claims = sizes = 0
    for g, p in main_decisions(players, 6, 700 + players):
        ts = g.modstate["trains"]
        n = g.num_players
        want = [k for k, tile in enumerate(ts.ms) if not ts.claims[k * n + p] and MS._condition(g, p, tile)] \
            if MS.markers_available(g, p) > 0 else []
        assert MS.claimable(g, p) == want, (ts.ms, p)
        claims += bool(want)
        sizes += sum(MS._units_bound(g, p) >= MS._MIN_UNITS[t] for t in ts.ms if t in MS._MIN_UNITS)
        sd = TR.side(g)
        assert TR.deliverable(g, p) == sum(1 << x for x in range(sd.num_locations) if TR.can_deliver(g, p, x))
    assert claims > 10 and sizes > 100


def test_contract_milestones_match_the_tiles_text():
    """R13.24 tiles 14-16 (read from per-contract tables) against their text: 14, contracts of at least
    ``hops`` hops; 15, kinds of Goods (Beef and Mutton each a kind) over the contracts; 16, contracts with no
    Direct export bonus (Money, Free space, Bonus upgrade; T8)."""
    rng = random.Random(34)
    ids = [c.id for c in D.CONTRACTS]
    g = Game(GameConfig(num_players=2, seed=1, industria=True))
    met = 0
    for _ in range(400):
        done = rng.sample(ids, rng.randint(0, 8))
        g.players[0].done_contracts = done
        cs = [D.CONTRACT_BY_ID[c] for c in done]
        kinds = {i for c in cs for i, q in enumerate(c.goods) if q} | {"beef" for c in cs if c.beef} | \
            {"mutton" for c in cs if c.mutton}
        want = {14: sum(c.hops >= MS._p(14, "hops") for c in cs) >= MS._p(14, "contracts"),
                15: len(kinds) >= MS._p(15, "amount"),
                16: sum(not (c.money or c.free_space or c.bonus_upgrade) for c in cs) >= MS._p(16, "amount")}
        for tile, ok in want.items():
            assert MS._condition(g, 0, tile) == ok, (tile, done)
            met += ok
    assert 100 < met < 1100


def test_skip_two_spaces_area_is_hex_distance_three():
    """R13.26 tile 4 (T11): 'skip any 2 spaces' reaches the land spaces at hex distance exactly 3."""
    for seed in range(4):
        g = Game(GameConfig(num_players=3, seed=seed, industria=True))
        rc = g.board.rowcol
        land = [s for s in range(g.board.num_spaces) if g.topo.land_mask >> s & 1]
        for s in land:
            g.players[0].spaces = 1 << s
            want = sum(1 << t for t in land if hex_distance(rc[s], rc[t]) == 3)
            assert DL.skip_spaces(g, 0, "skip2") == want


@pytest.mark.parametrize("players", [2, 3, 4])
def test_ring_is_every_cell_at_hex_distance_k(players):
    """The ring walk behind Delivery bonus 4's area: every space with a cell at hex distance exactly k, for
    k = 1..4, from every space with a cell (Port tiles lie beside the grid)."""
    from clans_env.engine.board import KIND_PORT
    g = Game(GameConfig(num_players=players, seed=players, industria=True))
    rc = g.board.rowcol
    cells = [s for s in range(g.board.num_spaces) if rc[s] is not None and g.board.kind[s] != KIND_PORT]
    for s in cells:
        for k in (1, 2, 3, 4):
            assert DL.ring(g.board, s, k) == sum(1 << t for t in cells if hex_distance(rc[s], rc[t]) == k), (s, k)


@pytest.mark.parametrize("port16", [False, True])
def test_deliverable_reads_the_goods_as_the_demand_payments_do(monkeypatch, port16):
    """R13.8/R13.9 (and Port tile 16's Train half, R13.18): ``deliverable``'s bit set of what p lacks against
    each tile's Goods finds exactly the locations ``can_deliver`` (``demand_payments``) accepts, for hands of
    0-3 of each Good, with Port tile 16 usable and not."""
    monkeypatch.setattr(DL, "port16_slot", lambda g, p: 0 if port16 else -1)
    g = Game(GameConfig(num_players=2, seed=16, industria=True))
    if port16 and 16 not in g.port_tiles:
        g.port_tiles = (16,) + tuple(g.port_tiles[1:])
    sd = TR.side(g)
    rng = random.Random(9)
    found = set()
    for _ in range(400):
        g.players[0].goods = [rng.choice((0, 0, 1, 1, 2, 3)) for _ in range(D.NUM_GOODS)]
        want = sum(1 << x for x in range(sd.num_locations) if TR.can_deliver(g, 0, x))
        assert TR.deliverable(g, 0) == want, (g.players[0].goods, port16)
        found.add(want)
    assert len(found) > 20


@pytest.mark.parametrize("players", [2, 3])
def test_ways_from_are_the_open_ways_of_the_players_claims(players):
    """R13.3/R13.4: the ways looked up per Train players, start and claims are ``open_ways`` of the side, the
    start and the spots p unlocked, for every piece at every main decision (claims made included)."""
    unlocked = 0
    for g, p in main_decisions(players, 5, 610 + players):
        ts = g.modstate["trains"]
        for start in (ts.at[p], ts.mini[p] if ts.mini else -1):
            if start >= 0:
                assert TR.ways_from(g, p, start) == TR.open_ways(TR.side(g), start, TR.unlocked_spots(g, p))
                unlocked += TR.unlocked_spots(g, p) > 0
    assert unlocked > 20


@pytest.mark.parametrize("players", [2, 3])
def test_claim_action_is_offered_exactly_when_a_spot_is_claimable(players):
    """R13.19: the main decision offers Claim a Milestone exactly when ``claimable`` finds a spot (the main
    decision first asks whether p has a marker)."""
    offered = 0
    for g, p in main_decisions(players, 5, 630 + players):
        if len(g.stack[-1]) > 2:
            continue
        has = MS.CLAIM_ACTION in g.legal_actions()
        assert has == bool(MS.claimable(g, p)), (g.config.seed, p)
        offered += has
    assert offered > 5


@pytest.mark.parametrize("players", [2, 3])
def test_sinclair_rail_kinds_match_the_unit_by_unit_test(players):
    """R18.S2-R18.S8: the main decision (and a Free space) offers a Railroad Reach kind exactly when some unit
    in stock has a target it can pay for (``rail_units``, unit by unit): the fast check asks only each land
    type's cheapest unit in stock. Every Sinclair main decision of random games, at its own money and at
    other sums around the costs, with and without the land cost."""
    from clans_env.engine.clans import sinclair as S
    rng = random.Random(40 + players)
    checked = offered = 0
    for i in range(6):
        clans = ("sinclair", "macdonald", "gordon", "campbell")[:players]
        g = Game(GameConfig(num_players=players, seed=700 + i, clans=clans, industria=True))
        while not g.is_terminal():
            top = g.stack[-1]
            if top[0] == K_MAIN and g.clans[top[1]].name == "sinclair":
                p = top[1]
                for money in (g.players[p].money, rng.randrange(0, 12), rng.randrange(0, 30)):
                    h = g.clone()
                    h.players[p].money = money
                    for free_land in (False, True):
                        want = [k for k in (S.LAND, S.LOCHS) if S.rail_units(h, p, k, free_land)]
                        assert S.rail_kinds(h, p, free_land) == want, (h.config.seed, p, money, free_land)
                        checked += 1
                        offered += bool(want)
            legal = g.legal_actions()
            g.apply(legal[int(rng.random() * len(legal))])
    assert checked > 300 and offered > 100, (checked, offered)


def test_delivery_adjacent_area_is_every_space_next_to_a_unit():
    """Q31 (R13.26 deploy parts "adjacent"): the land spaces adjacent to one of p's units, a river edge
    allowed, read from the map's adjacency masks: the same as listing each unit's neighbours, at every main
    decision of random games."""
    checked = 0
    for g, p in main_decisions(3, 3, 650):
        want = 0
        for s in range(g.board.num_spaces):
            if g.players[p].spaces >> s & 1:
                for t in g.board.adjacent[s]:
                    want |= 1 << t
        assert DL.adjacent_spaces(g, p) == want & g.topo.land_mask
        checked += want > 0
    assert checked > 50
