"""Rulebook, Phase 2 "3. Expand" (neighbouring, Shipping reach, Land Restrictions, costs) and
"4. Upgrade Shipping" (Shipping levels)."""
import pytest

from clans_env import IllegalActionError
from clans_env.engine import data as D
from helpers import (FOREST, GRASS, MOUNTAIN, act, active_land, blank_position, expand_targets, free_spaces,
                     label, land_hop_pairs, loch_pairs, put, river_pairs, start_turn)


def lone_pair(g, pairs):
    """First pair whose spaces have nothing else around them."""
    for a, b in pairs:
        if g.occupant[a] == -1 and g.occupant[b] == -1:
            return a, b
    raise AssertionError("no such pair on this map")


def test_expand_to_neighbouring_spaces_only_without_shipping():
    """3. Expand: neighbouring = adjacent space with no river in between; without Shipping the
    targets are exactly the empty neighbouring grassland spaces of your units."""
    g = blank_position(4)
    p = g.current_player
    a = free_spaces(g, GRASS)[0]
    put(g, p, "sheep", a)
    start_turn(g, p)
    b = g.board
    expected = {t for t in b.neighbours[a] if t in set(active_land(g, GRASS))}
    assert expected
    assert expand_targets(g, "cow") == expected


def test_river_needs_river_crossing_shipping():
    """3. Expand / 4. Upgrade Shipping: no Shipping: you cannot expand across any water;
    River-crossing: directly across a river to an adjacent space."""
    g = blank_position(4)
    p = g.current_player
    a, b = lone_pair(g, river_pairs(g))
    put(g, p, "sheep", a)
    start_turn(g, p)
    assert b not in expand_targets(g, "cow")
    g.players[p].shipping = 1
    g.players[p].reach = -1
    start_turn(g, p)
    assert b in expand_targets(g, "cow")


@pytest.mark.parametrize("lochs", [1, 2, 3])
def test_loch_crossing_levels(lochs):
    """4. Upgrade Shipping: 1-loch crosses one loch space, 2-loch two, 3-loch three (level
    lochs + 1 on the track); one level less is not enough."""
    g = blank_position(4)
    p = g.current_player
    pairs = loch_pairs(g, lochs)
    assert pairs, f"the map needs two grassland spaces {lochs} loch(s) apart"
    a, b = pairs[0]
    put(g, p, "sheep", a)
    for level in range(D.MAX_SHIPPING + 1):
        g.players[p].shipping = level
        g.players[p].reach = -1
        start_turn(g, p)
        assert (b in expand_targets(g, "cow")) == (level >= lochs + 1), (label(g, a), label(g, b), level)


def test_never_hop_across_land():
    """4. Upgrade Shipping: regardless of Shipping level, you may never hop across a land space,
    not even along a river."""
    g = blank_position(4)
    p = g.current_player
    a, b = land_hop_pairs(g)[0]
    put(g, p, "sheep", a)
    g.players[p].shipping = D.MAX_SHIPPING
    g.players[p].reach = -1
    start_turn(g, p)
    targets = expand_targets(g, "cow")
    assert b not in targets
    assert targets <= set(g.board.adjacent[a])


def test_upgrade_shipping_costs_4_and_moves_one_level():
    """4. Upgrade Shipping: pay £4 to move the Shipping marker forward one space; not beyond the
    end of the track."""
    g = blank_position(2)
    p = g.current_player
    for level in range(1, D.MAX_SHIPPING + 1):
        start_turn(g, p)
        act(g, "upgrade_shipping")
        assert g.players[p].shipping == level
        assert g.players[p].money == 100 - 4 * level
    start_turn(g, p)
    assert g.string_to_action("upgrade_shipping") not in g.legal_actions()
    g.players[p].shipping = 0
    g.players[p].money = 3
    start_turn(g, p)
    assert g.string_to_action("upgrade_shipping") not in g.legal_actions()


def test_land_restrictions():
    """3. Expand, Land Restrictions: grasslands support Sheep, Cows, Cheese dairies, Bakeries,
    Fields and Distilleries; forests Woodcutters; mountains Miners; a hybrid space takes any
    corresponding unit."""
    g = blank_position(4, money=200)
    p = g.current_player
    grass = set(active_land(g, GRASS))
    forest = set(active_land(g, FOREST))
    mountain = set(active_land(g, MOUNTAIN))
    # a Settlement of Fields covering every cell of one row's worth of reach is not needed: let
    # p "own" every active land space in the reach computation only (spaces stay empty)
    for s in active_land(g):
        g.players[p].spaces |= 1 << s
    g.players[p].reach = -1
    start_turn(g, p)
    for unit in ("sheep", "cow", "field", "cheese_dairy", "bakery", "distillery"):
        assert expand_targets(g, unit) == grass, unit
    assert expand_targets(g, "woodcutter") == forest
    assert expand_targets(g, "miner") == mountain
    hybrid = [s for s in grass if s in forest or s in mountain]
    assert hybrid


def test_forest_only_space_needs_a_woodcutter():
    """3. Expand: if you have deployed all your Woodcutters you cannot expand to a forest-only
    space (likewise Miners and mountain-only spaces)."""
    g = blank_position(4, money=200)
    p = g.current_player
    forest_only = [s for s in free_spaces(g, FOREST, exact=True)]
    s = forest_only[0]
    # a unit of p next to the forest-only space
    nb = [t for t in g.board.neighbours[s] if t in set(active_land(g))]
    put(g, p, "woodcutter" if g.board.land[nb[0]] & FOREST else
        ("miner" if g.board.land[nb[0]] & MOUNTAIN else "sheep"), nb[0])
    start_turn(g, p)
    assert s in expand_targets(g, "woodcutter")
    g.players[p].units_left[D.WOODCUTTER] = 0
    start_turn(g, p)
    assert "expand:woodcutter" not in {g.action_to_string(a) for a in g.legal_actions()}
    for unit in ("sheep", "cow", "field", "cheese_dairy", "bakery", "distillery", "miner"):
        assert s not in expand_targets(g, unit)


def test_expand_pays_unit_and_land_cost():
    """3. Expand: pay for the unit (red number above it) and for the space (£1 to £6); a space
    you cannot pay for is not a target."""
    g = blank_position(4)
    p = g.current_player
    a = free_spaces(g, GRASS)[0]
    put(g, p, "sheep", a)
    start_turn(g, p)
    targets = expand_targets(g, "distillery")
    t = max(targets, key=lambda s: g.board.cost[s])
    act(g, "expand:distillery", f"space:{label(g, t)}")
    assert g.players[p].money == 100 - D.UNIT_COST[D.DISTILLERY] - g.board.cost[t]
    assert g.players[p].units_left[D.DISTILLERY] == 3
    assert g.occupant[t] == p and g.unit_at[t] == D.DISTILLERY
    # budget: exactly enough for the cheapest target only
    g2 = blank_position(4)
    put(g2, p, "sheep", a)
    cheap = min(g.board.cost[s] for s in targets)
    g2.players[p].money = D.UNIT_COST[D.DISTILLERY] + cheap
    start_turn(g2, p)
    assert expand_targets(g2, "distillery") == {s for s in targets if g.board.cost[s] == cheap}


def test_no_two_units_on_a_space():
    """Placing the First Workers / 3. Expand: each space can only ever have one unit on it; an
    occupied space (own or opponent unit) is never a target."""
    g = blank_position(4)
    p = g.current_player
    o = (p + 1) % 4
    grass = set(active_land(g, GRASS))
    a = next(s for s in free_spaces(g, GRASS) if len([t for t in g.board.neighbours[s] if t in grass]) >= 2)
    put(g, p, "sheep", a)
    nbs = [t for t in g.board.neighbours[a] if t in grass]
    put(g, o, "sheep", nbs[0])
    start_turn(g, p)
    targets = expand_targets(g, "cow")
    assert a not in targets and nbs[0] not in targets
    before = g.to_json()
    act(g, "expand:cow")
    with pytest.raises(IllegalActionError):
        act(g, f"space:{label(g, nbs[0])}")
    assert g.to_json() != before                  # 'expand:cow' was applied, the space was not
    assert g.decision_kind == "place"


def test_units_on_board_limit_expansion():
    """Components / 3. Expand: a unit comes from the top of its Player board column; with all
    four deployed, that unit type cannot expand."""
    g = blank_position(4, money=500)
    p = g.current_player
    a = free_spaces(g, GRASS)[0]
    put(g, p, "cow", a)
    for _ in range(4):
        start_turn(g, p)
        t = min(expand_targets(g, "sheep"))
        act(g, "expand:sheep", f"space:{label(g, t)}")
        if g.decision_kind == "neighbourhood":
            act(g, "done")
    assert g.players[p].units_left[D.SHEEP] == 0
    start_turn(g, p)
    assert "expand:sheep" not in {g.action_to_string(x) for x in g.legal_actions()}


def test_two_player_mist_is_not_part_of_the_map():
    """2 Player Game: the shaded land spaces at the edge (mist) are not part of the active map;
    players cannot expand into them."""
    g = blank_position(2, money=500)
    p = g.current_player
    mist = [s for s in range(g.board.num_spaces) if g.board.mist[s]]
    border = [s for s in active_land(g, GRASS) if any(g.board.mist[t] for t in g.board.neighbours[s])
              and g.occupant[s] == -1]
    s = border[0]
    put(g, p, "sheep", s)
    g.players[p].shipping = D.MAX_SHIPPING
    g.players[p].reach = -1
    start_turn(g, p)
    for unit in ("cow", "woodcutter", "miner"):
        assert not expand_targets(g, unit) & set(mist)
    assert any(t in mist for t in g.board.neighbours[s])


def shipping_oracle(board, active, a):
    """For land space ``a``: {space: fewest Shipping level reaching it}, straight from the
    rulebook's definitions (neighbouring 0; across a river 1; across k consecutive lochs k + 1,
    the space beyond being land or a loch: "1-loch: you can expand across one loch space"),
    written independently of topology.py."""
    best = {}
    for t in board.neighbours[a]:
        best[t] = 0
    for t in board.adjacent[a]:
        if t not in best and board.kind[t] == 0:
            best[t] = 1                                   # across a river
    frontier = [t for t in board.adjacent[a] if board.kind[t] == 1]
    for loch in frontier:
        best.setdefault(loch, 2)
    seen = set(frontier)
    crossed = 1
    while frontier and crossed < D.MAX_SHIPPING:          # `crossed` lochs: the (crossed)-loch level
        nxt = []
        for loch in frontier:
            for t in board.adjacent[loch]:
                if t == a:
                    continue
                if t not in best or best[t] > crossed + 1:
                    best[t] = crossed + 1
                if board.kind[t] == 1 and t not in seen:
                    seen.add(t)
                    nxt.append(t)
        frontier = nxt
        crossed += 1
    return {t: lvl for t, lvl in best.items() if active[t]}


@pytest.mark.parametrize("n", [2, 4])
def test_reach_matches_the_rulebook_on_every_map(n):
    """3. Expand / 4. Upgrade Shipping on all 16 map assemblies: a land space reaches exactly its
    neighbouring spaces, plus the land across a river from River-crossing on, plus land and lochs
    across up to k consecutive loch spaces from the k-loch level on; never across land."""
    from clans_env.engine.board import all_assemblies, assemble
    from clans_env.engine.topology import topology
    for sides in all_assemblies():
        board = assemble(sides)
        topo = topology(board, n)
        active = board.active(n)
        for a in range(board.num_spaces):
            if board.kind[a] != 0 or not active[a]:
                continue
            oracle = shipping_oracle(board, active, a)
            for level in range(D.MAX_SHIPPING + 1):
                got = {t for t in range(board.num_spaces) if topo.reach[level][a] >> t & 1}
                want = {t for t, lvl in oracle.items() if lvl <= level}
                assert got == want, (sides, board.label[a], level, sorted(board.label[t] for t in got ^ want))


@pytest.mark.parametrize("industria", [False, True])
def test_expand_is_offered_for_exactly_the_unit_types_with_a_target(industria):
    """3. Expand (and Industria's Free space): the main decision offers expand:<unit> exactly for the unit
    types that have a space to go to now (in reach, empty, the unit's land, affordable with the land
    cost), over every clan's main decisions of random games; ``expand_options``' shortcuts (one land
    mask per run of units, the cheapest land cost of the grassland candidates) against the targets."""
    import random

    from clans_env import Game, GameConfig
    from clans_env.engine.actions import EXPAND
    from clans_env.engine.rules.common import expand_targets as targets
    from clans_env.engine.rules.expand import expand_options
    from clans_env.engine.state import K_MAIN

    rng = random.Random(3)
    offered = checked = 0
    for seed in range(12):
        g = Game(GameConfig(num_players=2 + seed % 3, seed=seed, industria=industria))
        while not g.is_terminal():
            frame = g.stack[-1]
            if frame[0] == K_MAIN and len(frame) == 2:
                p = frame[1]
                for free_land in (False, True):
                    got = []
                    expand_options(g, p, got, free_land=free_land)
                    want = [EXPAND + u for u in range(D.NUM_UNITS) if targets(g, p, u, free_land=free_land)]
                    assert got == want, (g.clans[p].name, free_land)
                    offered += len(got)
                    checked += 1
            legal = g.legal_actions()
            g.apply(legal[int(rng.random() * len(legal))])
    assert checked > 500 and offered > 1000, (checked, offered)


@pytest.mark.parametrize("industria", [False, True])
def test_expand_offers_for_clans_with_varying_costs_or_a_restricted_unit(industria):
    """3. Expand with Campbell's factory discounts (costs that change as factories are built: ``costs_now``,
    read once per decision) and MacDonald's Fishermen (the only restricted unit type, ``restricted_units``):
    ``expand_options`` offers exactly the unit types with a target (``expand_targets``, unit by unit) at their
    main decisions of random games, at their own money and at other sums around the costs."""
    import random

    from clans_env import Game, GameConfig
    from clans_env.engine.actions import EXPAND
    from clans_env.engine.rules.common import expand_targets as targets
    from clans_env.engine.rules.expand import expand_options
    from clans_env.engine.state import K_MAIN

    rng = random.Random(8)
    checked = {"campbell": 0, "macdonald": 0}
    differs = 0
    for seed in range(6):
        g = Game(GameConfig(num_players=3, seed=50 + seed, clans=("campbell", "macdonald", "robertson"),
                            industria=industria))
        while not g.is_terminal():
            frame = g.stack[-1]
            if frame[0] == K_MAIN and len(frame) == 2 and g.clans[frame[1]].name in checked:
                p = frame[1]
                clan = g.clans[p]
                assert list(clan.costs_now(g, p)) == [clan.unit_cost(g, p, u) for u in range(D.NUM_UNITS)]
                for money in (g.players[p].money, rng.randrange(0, 10), rng.randrange(3, 20)):
                    h = g.clone()
                    h.players[p].money = money
                    for free_land in (False, True):
                        got = []
                        expand_options(h, p, got, free_land=free_land)
                        want = [EXPAND + u for u in range(D.NUM_UNITS) if targets(h, p, u, free_land=free_land)]
                        assert got == want, (clan.name, money, free_land)
                        differs += free_land and got != sorted(
                            EXPAND + u for u in range(D.NUM_UNITS) if targets(h, p, u, free_land=False))
                checked[clan.name] += 1
            legal = g.legal_actions()
            g.apply(legal[int(rng.random() * len(legal))])
    assert min(checked.values()) > 60 and differs > 10, (checked, differs)
