"""Industria clans MacFarlane, MacGregor, MacLeod and Sinclair (issue 13): each ability and each limit
on a constructed position, driven through the public API. Every test names its rule of
docs/rules-index.md (R18.MF*, R18.MG*, R18.ML*, R18.S*) and the reading (Q-number)
where one was needed; the readings are in docs/rules-interpretations.md, "Industria clans"."""
from __future__ import annotations

import random

import pytest

from clans_env import Game, GameConfig
from clans_env.engine import actions as A
from clans_env.engine import data as D
from clans_env.engine.board import KIND_LAND, KIND_LOCH
from clans_env.engine.clans.macfarlane import canal_masks
from clans_env.engine.invariants import check_invariants
from clans_env.engine.rules.common import reach
from clans_env.engine.rules.production import start_production
from clans_env.engine.rules.scoring import connected_settlements
from clans_env.engine.rules.stacking import place_second
from clans_env.engine.state import K_BONUS_UPGRADE, K_FREE_SPACE, PRODUCTION
from helpers import (GRASS, MOUNTAIN, act, active_land, blank_position, expand_targets, label, legal_names,
                     loch_distance, placement_targets, push, put, start_turn)


def position(clan, n=2, money=100, other="campbell", **options):
    """Round 1 Action phase on an empty map; seat 0 plays ``clan`` (seat 1 ``other``) and is to move."""
    clans = [clan, other, "stewart", "robertson"][:n]
    options.setdefault("industria_clans", True)
    g = blank_position(n, money=money, clans=clans, **options)
    start_turn(g, 0)
    return g


def adjacent_set(g, s):
    return set(g.board.adjacent[s])


def is_grass(g, s):
    """An empty active grassland space."""
    return g.board.kind[s] == KIND_LAND and g.board.active(g.num_players)[s] and bool(g.board.land[s] & GRASS) \
        and g.occupant[s] == -1


def normal_reach_spaces(g, spaces, level):
    r = 0
    for s in spaces:
        r |= g.topo.reach[level][s]
    return r


def paid(g, *names):
    p = g.current_player
    before = g.players[p].money
    act(g, *names)
    return before - g.players[p].money


# =============================================================================================
# MacFarlane
# =============================================================================================
def river_spaces(g, river):
    act_ = g.board.active(g.num_players)
    return sorted({s for e in river for s in e if act_[s] and g.board.kind[s] == KIND_LAND})


def canal_pair(g):
    """(river, a, t): grassland a and t along the same river, t outside a's river-crossing reach."""
    for river in g.board.rivers:
        along = river_spaces(g, river)
        for a in along:
            for t in along:
                if a != t and is_grass(g, a) and is_grass(g, t) and not g.topo.reach[1][a] >> t & 1:
                    return river, a, t
    raise AssertionError("no river with two far-apart grassland spaces")


def test_macfarlane_starts_with_river_crossing_and_two_merchant_upgrades():
    """R18.MF1 "You start with river-crossing Shipping and 2 Merchant upgrades" (Q50: two Merchants hired
    for free)."""
    g = position("macfarlane")
    pl, other = g.players[0], g.players[1]
    assert pl.shipping == 1 and other.shipping == 0
    assert pl.merchants_board == other.merchants_board - 2
    assert pl.merchants_stock == other.merchants_stock + 2


def test_macfarlane_canal_reach_along_the_same_river():
    """R18.MF2 Canals: "all spaces along a river that one of your units is adjacent to are considered
    within your reach (for expanding ...)"; a space along no river the unit stands by is not."""
    g = position("macfarlane")
    river, a, t = canal_pair(g)
    put(g, 0, "sheep", a)
    start_turn(g, 0)
    targets = expand_targets(g, "sheep")
    assert t in targets
    along = set(river_spaces(g, river))
    normal = normal_reach_spaces(g, [a], 1)
    assert all(normal >> s & 1 or s in along for s in targets)      # nothing else joins the reach
    # the same spaces without the clan: t is out of reach
    h = position("campbell", other="macfarlane")
    g.players[0].shipping, h.players[0].shipping = 1, 1
    put(h, 0, "sheep", a)
    h.players[0].reach = -1
    start_turn(h, 0)
    assert t not in expand_targets(h, "sheep")
    # and deploying there is legal, paid as a normal Expand, and the cached reach stays exact
    cost = paid(g, "expand:sheep", f"space:{label(g, t)}")
    assert cost == D.UNIT_COST[D.SHEEP] + g.topo.cost[t]
    check_invariants(g)


def test_macfarlane_canals_need_river_crossing_shipping():
    """R18.MF5 "Canal abilities require your Shipping to be at least river-crossing or higher"."""
    g = position("macfarlane")
    river, a, t = canal_pair(g)
    put(g, 0, "sheep", a)
    g.players[0].shipping = 0
    g.players[0].reach = -1
    start_turn(g, 0)
    assert t not in expand_targets(g, "sheep")


def test_macfarlane_canal_reach_never_reaches_a_waterfall_mountain():
    """R18.MF4 "Canal reach does not extend to waterfall spaces (where the river originates in a
    mountain)": a Miner standing along that river cannot canal to the waterfall mountain (Q1)."""
    g = position("macfarlane")
    assert g.board.waterfall, "the test map sides have waterfalls"
    checked = 0
    for w in g.board.waterfall:
        assert not any(canal_masks(g.topo)[s] >> w & 1 for s in range(g.board.num_spaces))
        for river in g.board.rivers:
            along = river_spaces(g, river)
            if not any(w in g.board.adjacent[s] for s in along):
                continue
            far = [s for s in along if not g.topo.reach[1][s] >> w & 1 and g.occupant[s] == -1]
            if far:
                put(g, 0, "sheep", far[0])
                g.players[0].reach = -1
                assert not reach(g, 0) >> w & 1
                assert reach(g, 0) & ~normal_reach_spaces(g, [far[0]], 1)   # the canal itself is open
                checked += 1
    assert checked


def test_macfarlane_canal_does_not_combine_with_loch_shipping():
    """R18.MF6 "Canal reach does not combine with your Shipping reach across lochs": with 1-loch
    Shipping, a space one loch beyond a canal space is still out of reach."""
    g = position("macfarlane")
    g.players[0].shipping = 2
    for river in g.board.rivers:
        along = river_spaces(g, river)
        for a in along:
            if not is_grass(g, a):
                continue
            own = normal_reach_spaces(g, [a], 2)
            for c in along:
                if own >> c & 1 or c == a:
                    continue
                for t in active_land(g, GRASS):
                    if t in along or own >> t & 1 or loch_distance(g, c, t) != 1:
                        continue
                    put(g, 0, "sheep", a)
                    g.players[0].reach = -1
                    start_turn(g, 0)
                    targets = expand_targets(g, "sheep")
                    assert c in targets or not is_grass(g, c)
                    assert t not in targets
                    return
    raise AssertionError("no canal space with land one loch beyond it")


def test_macfarlane_canals_not_for_the_train_station_or_a_city_tile():
    """R18.MF2 canal reach is "(for expanding and connecting Settlements)" (C-MF2): placing the Train
    station "within your reach" (R13.15) or Delivery bonus 3's city tile "in your reach" is no Expand,
    so a space only a canal reaches does not qualify; a neighbouring one does."""
    from clans_env.engine.rules import trains as TR
    from clans_env.engine.state import K_DSTEP
    g = position("macfarlane", trains=True)
    river, a, t = canal_pair(g)
    put(g, 0, "sheep", a)
    put(g, 1, "cow", t)
    start_turn(g, 0)
    assert reach(g, 0) >> t & 1                                  # canal reach still serves expanding
    c = g.clone()
    c.modstate["trains"].deliv[0] = TR.TM.STATION_AFTER - 1
    TR.take_track_marker(c, 0)
    c._advance()
    assert c.decision_kind != "station" and c.modstate["trains"].station[0] == -2      # no space: back to the box
    nb = next(s for s in g.board.neighbours[a] if is_grass(g, s) and s != t)
    put(g, 1, "cow", nb)
    c = g.clone()
    c.modstate["trains"].deliv[0] = TR.TM.STATION_AFTER - 1
    TR.take_track_marker(c, 0)
    c._advance()
    assert c.decision_kind == "station" and placement_targets(c) == {nb}
    h = position("macfarlane", trains=True)
    put(h, 0, "sheep", a)
    start_turn(h, 0)
    push(h, (K_DSTEP, 0, "city", 0))
    assert t not in placement_targets(h) and placement_targets(h) == {
        s for s in range(h.board.num_spaces) if normal_reach_spaces(h, [a], 1) >> s & 1
        and h.board.kind[s] == KIND_LAND and h.occupant[s] == -1}


def test_macfarlane_connects_settlements_along_a_river():
    """R18.MF2 "(for expanding and connecting Settlements)": two Settlements on the same river count as
    connected at Final Scoring; the same units of another clan with river-crossing do not."""
    g = position("macfarlane")
    river, a, t = canal_pair(g)
    put(g, 0, "sheep", a)
    put(g, 0, "sheep", t)
    assert connected_settlements(g, 0) == 2
    h = position("campbell", other="macfarlane")
    h.players[0].shipping = 1
    put(h, 0, "sheep", a)
    put(h, 0, "sheep", t)
    assert connected_settlements(h, 0) == 1


def test_macfarlane_neighbourhood_bonus_from_units_along_the_same_river():
    """R18.MF3 "When you deploy a unit along a river, you may trigger the Neighbourhood bonus ... for each
    player unit or tile along the same river" (Q50); a deployment away from the river does not."""
    g = position("macfarlane")
    river, a, t = canal_pair(g)
    along = river_spaces(g, river)
    cand = [o for o in along if o not in (a, t) and is_grass(g, o) and o not in g.board.neighbours[t]]
    assert cand
    put(g, 0, "sheep", a)
    put(g, 1, "cow", cand[0])
    start_turn(g, 0)
    act(g, "expand:sheep", f"space:{label(g, t)}")
    assert g.decision_kind == "neighbourhood"
    assert "trade:buy:milk:1" in legal_names(g)
    # without canals (no river-crossing) the same deployment earns nothing from that Cow
    h = position("macfarlane")
    put(h, 0, "sheep", a)
    put(h, 1, "cow", cand[0])
    h.players[0].shipping = 0
    h.players[0].reach = -1
    start_turn(h, 0)
    nb = [s for s in h.board.neighbours[a] if is_grass(h, s) and h.occupant[s] == -1
          and cand[0] not in h.board.neighbours[s]]
    act(h, "expand:sheep", f"space:{label(h, nb[0])}")
    assert h.decision_kind != "neighbourhood"


def test_macfarlane_farmers_market_along_the_same_river():
    """R18.MF3: "... and/or Farmers market for each player unit or tile along the same river" (Q11, Q50)."""
    from test_industria_modules import put_market
    g = position("macfarlane", farmers_markets=True)
    for s in g.modstate["farmers_markets"].markets[0::5]:
        g.occupant[s] = -1
        g.occupied &= ~(1 << s)
    g.modstate["farmers_markets"].markets = []
    river, a, t = canal_pair(g)
    along = river_spaces(g, river)
    m = [s for s in along if s not in (a, t) and s not in g.board.neighbours[t]]
    assert m
    put(g, 0, "sheep", a)
    put_market(g, m[0])
    g.players[0].goods[D.WOOL] = 3
    start_turn(g, 0)
    act(g, "expand:sheep", f"space:{label(g, t)}")
    assert g.decision_kind == "market_sell"
    assert g.stack[-1][2] == m[0]


# =============================================================================================
# MacGregor
# =============================================================================================
def herd_position(money=100, fits=None, **options):
    """MacGregor's two Sheep on neighbouring grassland a, b (a herd), with an empty grassland space
    next to b (not a); ``fits(g, a, b)`` may ask for more."""
    g = position("macgregor", money=money, **options)
    for a in active_land(g, GRASS):
        for b in g.board.neighbours[a]:
            if is_grass(g, a) and is_grass(g, b) and any(is_grass(g, d) and d != a for d in g.board.adjacent[b]) \
                    and (fits is None or fits(g, a, b)):
                put(g, 0, "sheep", a)
                put(g, 0, "sheep", b)
                start_turn(g, 0)
                return g, a, b
    raise AssertionError("no two neighbouring grassland spaces")


def test_macgregor_starts_with_river_crossing():
    """R18.MG1 "You start with river-crossing Shipping."."""
    g = position("macgregor")
    assert g.players[0].shipping == 1 and g.players[1].shipping == 0


def test_macgregor_grazing_deploys_on_a_herd_sheep_and_moves_it():
    """R18.MG3-R18.MG5 Grazing: a non-Field unit onto a herd Sheep's space for the unit cost only, then
    that Sheep to any unoccupied grassland adjacent to another Sheep of the herd (rivers allowed with
    river-crossing)."""
    g, a, b = herd_position()
    assert "choose:0" in legal_names(g)
    act(g, "choose:0")
    units = legal_names(g)
    assert "expand:field" not in units and {"expand:cow", "expand:sheep", "expand:cheese_dairy"} <= units
    before = g.players[0].money
    act(g, "expand:cow")
    assert placement_targets(g) == {a, b}
    act(g, f"space:{label(g, a)}")
    expected = {d for d in g.board.adjacent[b] if is_grass(g, d) and g.occupant[d] == -1}
    assert placement_targets(g) == expected
    d = min(expected)
    act(g, f"space:{label(g, d)}")
    assert before - g.players[0].money == D.UNIT_COST[D.COW]         # no land cost
    assert g.unit_at[a] == D.COW and g.unit_at[d] == D.SHEEP and g.unit_at[b] == D.SHEEP
    assert g.current_player != 0 or g.decision_kind != "main"           # it was the main action
    check_invariants(g)


def test_macgregor_two_sheep_on_one_space_are_no_herd():
    """R18.MG2 "a herd consists of 2 or more of your Sheep on adjacent spaces. Two Sheep on the same
    space do not form a herd."."""
    g = position("macgregor", industria=True)
    s = [x for x in active_land(g, GRASS) if is_grass(g, x)][0]
    put(g, 0, "sheep", s)
    place_second(g, 0, D.SHEEP, s)
    start_turn(g, 0)
    assert "choose:0" not in legal_names(g)


def test_macgregor_grazing_not_onto_a_space_with_two_units():
    """R18.MG4 "You may not deploy a unit onto a Sheep space that already holds two units"."""
    g, a, b = herd_position(industria=True)
    place_second(g, 0, D.COW, a)
    start_turn(g, 0)
    act(g, "choose:0", "expand:cow")
    assert placement_targets(g) == {b}


def test_macgregor_no_grazing_when_the_sheep_cannot_move():
    """R18.MG6 "If you cannot legally move the Sheep, you cannot perform the Grazing action.": every
    grassland next to the herd is taken."""
    g, a, b = herd_position()
    fill = iter([D.SHEEP] * 8 + [D.COW] * 8 + [D.FIELD] * 8)
    for s in sorted(set(g.board.adjacent[a]) | set(g.board.adjacent[b])):
        if is_grass(g, s) and g.occupant[s] == -1:
            put(g, 1, next(fill), s)
    start_turn(g, 0)
    assert "choose:0" not in legal_names(g)


def test_macgregor_grazing_bonuses_only_from_the_deployed_unit():
    """R18.MG7 "The Neighbourhood bonus and Farmers market trigger only from the deployed unit, not from
    the Sheep being moved." (Q53): an opponent next to the Sheep's new space gives nothing, one next to
    the deployed unit does."""
    def beside_destination(g, a, b):
        return [(d, o) for d in g.board.adjacent[b] if d != a and is_grass(g, d)
                for o in g.board.neighbours[d] if o not in (a, b) and is_grass(g, o) and o not in g.board.neighbours[a]
                and not any(is_grass(g, x) and x not in (d, o) for x in g.board.adjacent[b] if x != a)]

    g, a, b = herd_position(fits=beside_destination)
    d, o = beside_destination(g, a, b)[0]
    put(g, 1, "cow", o)
    start_turn(g, 0)
    act(g, "choose:0", "expand:sheep", f"space:{label(g, a)}", f"space:{label(g, d)}")
    assert g.decision_kind != "neighbourhood"
    def beside_origin(g, a, b):
        return [(d, o) for o in g.board.neighbours[a] if o != b and is_grass(g, o)
                for d in g.board.adjacent[b] if d not in (a, o) and is_grass(g, d)]

    g, a, b = herd_position(fits=beside_origin)
    d, o = beside_origin(g, a, b)[0]
    put(g, 1, "cow", o)
    start_turn(g, 0)
    act(g, "choose:0", "expand:sheep", f"space:{label(g, a)}", f"space:{label(g, d)}")
    assert g.decision_kind == "neighbourhood"


def run_production(g, answer):
    for pl in g.players:
        pl.passed = True
    g.pass_order = list(g.turn_order)
    g.stack = []
    start_production(g)
    g._advance()
    while g.phase == PRODUCTION:
        name = answer(g)
        if name is None:
            g.apply(g.legal_actions()[0])
        else:
            act(g, name)


def test_macgregor_sheep_selling_bonus_after_production():
    """R18.MG8 "at the end of each Production Phase (after producing Wool), you may return 1 Sheep to your
    player board to gain £15."; once per Production, and declining is allowed."""
    g, a, b = herd_position(money=0)
    seen = []

    def answer(game):
        if game.decision_kind == "clan" and game.stack[-1][2] == "sell_sheep":
            seen.append(game.players[0].goods[D.WOOL])
            return f"space:{label(game, a)}"
        return None

    left = g.players[0].units_left[D.SHEEP]
    run_production(g, answer)
    assert seen == [2]                                # asked once, after the Wool
    assert g.players[0].money == D.MACGREGOR_SHEEP_MONEY
    assert g.players[0].units_left[D.SHEEP] == left + 1 and g.occupant[a] == -1


# =============================================================================================
# MacLeod
# =============================================================================================
def test_macleod_private_shipyards_are_four_unused_port_tiles():
    """R18.ML1 river-crossing; R18.ML2 "you receive 4 random, unused Port tiles" (Q46: from the
    configuration's pool less the 4 on the map)."""
    g = position("macleod")
    pl = g.players[0]
    assert pl.shipping == 1
    assert sorted(pl.extra["shipyards"]) == sorted(set(D.PORT_TILES_BASE) - set(g.port_tiles))
    assert pl.extra["shipyards_used"] == [0, 0, 0, 0]
    pools = set()
    for seed in range(6):
        h = Game(GameConfig(num_players=3, seed=seed, clans=("sinclair", "macleod", "campbell"), industria=True))
        yards = h.players[1].extra["shipyards"]
        assert len(set(yards)) == 4 and not set(yards) & set(h.port_tiles)
        assert set(yards) <= set(D.PORT_TILES_BASE) | set(D.PORT_TILES_INDUSTRIA)
        pools.add(tuple(yards))
    assert len(pools) > 1                              # random (from the game's generator)


def shipyard_position(tiles=(5, 8, 4, 6), ports_used=0b1, contracts=True):
    g = position("macleod")
    pl = g.players[0]
    pl.extra["shipyards"] = list(tiles)
    pl.extra["shipyards_used"] = [0] * 4
    pl.ports_used = ports_used
    if not contracts:
        pl.open_contracts = [D.CONTRACTS[0].id]
    start_turn(g, 0)
    return g


def test_macleod_shipyard_limit_follows_used_port_tiles():
    """R18.ML7 "the number of used Private Shipyards cannot exceed the number of used Port bonus tiles"."""
    g = shipyard_position(ports_used=0)
    assert not {"choose:0", "choose:1", "choose:2", "choose:3"} & legal_names(g)
    g = shipyard_position(ports_used=0b1)
    assert {"choose:0", "choose:1", "choose:2", "choose:3"} <= legal_names(g)
    act(g, "choose:0")
    while g.decision_kind != "main":
        act(g, "done")
    assert not {"choose:1", "choose:2", "choose:3"} & legal_names(g)
    g.players[0].ports_used = 0b11
    start_turn(g, 0)
    assert {"choose:1", "choose:2", "choose:3"} <= legal_names(g) and "choose:0" not in legal_names(g)


def test_macleod_shipyard_gives_its_port_bonus_then_a_building_bonus():
    """R18.ML3-R18.ML6: a free action: the Port bonus (tile 5: money), the tile is flipped, then a
    Building bonus; R18.ML8: a Shipyard is no Port tile (``ports_used`` unchanged)."""
    g = shipyard_position()
    before = g.players[0].money
    act(g, "choose:0")
    assert g.players[0].money == before + D.PORT5_MONEY
    assert g.decision_kind == "building_bonus"
    act(g, "done")
    assert g.decision_kind == "main" and g.current_player == 0      # free: the main action is still to come
    assert g.players[0].extra["shipyards_used"] == [1, 0, 0, 0]
    assert g.players[0].ports_used == 0b1


def test_macleod_shipyard_building_bonus_needs_an_empty_export_box():
    """R18.ML6 "Gain a Building bonus. The Export box condition still applies"."""
    g = shipyard_position(contracts=False)
    act(g, "choose:0")
    assert g.decision_kind == "main"


def test_macleod_shipyards_after_the_main_action():
    """R18.ML3 "On your turn, you may activate a Private Shipyard as a free action" (after the main action
    as well, like a Port tile)."""
    g = shipyard_position()
    act(g, "hire_merchant")
    assert g.decision_kind == "post_main" and "choose:0" in legal_names(g)
    before = g.players[0].money
    act(g, "choose:0")
    assert g.players[0].money == before + D.PORT5_MONEY


def test_macleod_port_tile_9_shipyard_copies_a_used_shipyard():
    """R18.ML9 "if you activate Port tile 9 ... as one of your Private Shipyards, you may gain the bonus
    of any other Private Shipyard you own even if you have already used it."."""
    g = shipyard_position(tiles=(9, 5, 4, 6), ports_used=0b11)
    g.players[0].extra["shipyards_used"] = [0, 1, 0, 0]
    start_turn(g, 0)
    before = g.players[0].money
    act(g, "choose:0")
    assert g.decision_kind == "clan" and "choose:1" in legal_names(g)
    act(g, "choose:1")
    assert g.players[0].money == before - D.PORT9_COST + D.PORT5_MONEY
    assert g.players[0].extra["shipyards_used"] == [1, 1, 0, 0]


def test_macleod_shipyard_tile_10_inside_a_fulfil():
    """R18.ML4 with a tile that acts inside a Fulfil: Shipyard tile 10 ("Ignore 1 required Processed good")
    covers the missing Processed good of contract 35; the Shipyard is flipped and the Building bonus
    follows (R18.ML6); without a used Port tile on the map it cannot be used (R18.ML7)."""
    c = D.CONTRACT_BY_ID[35]
    missing = next(i for i in D.PROCESSED_GOODS if c.goods[i])
    for ports_used, can in ((0, False), (0b1, True)):
        g = shipyard_position(tiles=(10, 5, 4, 6), ports_used=ports_used)
        pl = g.players[0]
        pl.open_contracts = [35]
        pl.goods = [need if i != missing else 0 for i, need in enumerate(c.goods)]
        start_turn(g, 0)
        assert ("fulfil:0" in legal_names(g)) == can
        if not can:
            continue
        act(g, "fulfil:0")
        assert g.decision_kind == "port_ignore"
        act(g, f"good:{D.GOODS[missing]}")
        assert pl.extra["shipyards_used"] == [1, 0, 0, 0] and pl.ports_used == 0b1 and 35 in pl.done_contracts
        assert g.decision_kind == "building_bonus"


def test_macleod_shipyard_tile_1_while_slaughtering():
    """R18.ML4 with Port tile 1 ("one fewer animal to slaughter") as a Shipyard: offered in the slaughter
    decision (choose:0) and used at once when an animal is missing."""
    c = D.CONTRACT_BY_ID[3]                   # 2 Beef
    assert c.beef == 2 and not any(c.goods)
    g = shipyard_position(tiles=(1, 5, 4, 6))
    cows = [s for s in active_land(g, GRASS) if is_grass(g, s)][:2]
    put(g, 0, "cow", cows[0])
    pl = g.players[0]
    pl.open_contracts = [3]
    start_turn(g, 0)
    act(g, "fulfil:0")                         # one Cow for two Beef: the Shipyard covers the other
    assert pl.extra["shipyards_used"][0] == 1 and g.occupant[cows[0]] == -1 and 3 in pl.done_contracts
    g = shipyard_position(tiles=(1, 5, 4, 6))
    for s in cows:
        put(g, 0, "cow", s)
    pl = g.players[0]
    pl.open_contracts = [3]
    start_turn(g, 0)
    act(g, "fulfil:0")
    assert g.decision_kind == "slaughter" and "choose:0" in legal_names(g)
    act(g, "choose:0")
    assert pl.extra["shipyards_used"][0] == 1 and g.decision_kind == "slaughter"


# =============================================================================================
# Sinclair
# =============================================================================================
def land_skip(g):
    """(a, m, b): grassland a, land m adjacent to a, grassland b adjacent to m and not adjacent to a."""
    for a in active_land(g, GRASS):
        for m in g.board.adjacent[a]:
            if g.board.kind[m] != KIND_LAND or not g.board.active(g.num_players)[m]:
                continue
            for b in g.board.adjacent[m]:
                if b != a and is_grass(g, b) and b not in g.board.adjacent[a] and \
                        not any(g.board.kind[t] == KIND_LOCH for t in g.board.adjacent[a]):
                    return a, m, b
    raise AssertionError("no land skip")


def test_sinclair_river_crossing_and_no_shipping_changes():
    """R18.S1 "You start with river-crossing Shipping but cannot upgrade (or reduce) your Shipping"."""
    g = position("sinclair")
    assert g.players[0].shipping == 1
    assert "upgrade_shipping" not in legal_names(g)
    push(g, (K_BONUS_UPGRADE, 0))
    assert "upgrade_shipping" not in legal_names(g) and "hire_merchant" in legal_names(g)


def test_sinclair_land_skip_then_bonus_upgrade_before_other_bonuses():
    """R18.S4 "Pay £2 to skip exactly 1 land space"; R18.S5 "After skipping, gain a Bonus upgrade";
    R18.S12: taken or forfeited before the Neighbourhood bonus (R3.2, Q57)."""
    g = position("sinclair")
    a, m, b = land_skip(g)
    put(g, 0, "sheep", a)
    opp = [o for o in g.board.neighbours[b] if is_grass(g, o) and g.occupant[o] == -1 and o != m
           and o not in g.board.adjacent[a]]
    put(g, 1, "cow", opp[0])
    start_turn(g, 0)
    assert b not in expand_targets(g, "sheep")
    act(g, "choose:0", "expand:sheep")
    assert b in placement_targets(g)
    cost = paid(g, f"space:{label(g, b)}")
    assert cost == D.SINCLAIR_LAND_SKIP_COST + D.UNIT_COST[D.SHEEP] + g.topo.cost[b]
    assert g.decision_kind == "bonus_upgrade" and "upgrade_shipping" not in legal_names(g)
    act(g, "hire_merchant")
    assert g.decision_kind == "neighbourhood"


def test_sinclair_land_skip_not_into_normal_reach():
    """R18.S6 "You cannot use this to expand into a space already within your normal reach"; the skipped
    space may hold another player's unit but not one's own (R18.S2)."""
    g = position("sinclair")
    a, m, b = land_skip(g)
    put(g, 0, "sheep", a)
    start_turn(g, 0)
    act(g, "choose:0", "expand:sheep")
    targets = placement_targets(g)
    assert targets and not targets & {s for s in range(g.board.num_spaces) if reach(g, 0) >> s & 1}
    own = reach(g, 0)
    expected = set()
    for mid in g.board.adjacent[a]:
        if g.board.kind[mid] == KIND_LAND and g.board.active(2)[mid]:
            expected |= {t for t in g.board.adjacent[mid] if is_grass(g, t) and not own >> t & 1 and t != a}
    assert targets == expected


def loch_skip(g, k):
    """(a, b): grassland a touching a loch, grassland b exactly k lochs away and not two land steps away."""
    for a in active_land(g, GRASS):
        if not any(g.board.kind[t] == KIND_LOCH for t in g.board.adjacent[a]):
            continue
        two = set()
        for mid in g.board.adjacent[a]:
            if g.board.kind[mid] == KIND_LAND:
                two |= set(g.board.adjacent[mid])
        for b in active_land(g, GRASS):
            if b not in two and loch_distance(g, a, b) == k:
                return a, b
    raise AssertionError(f"no loch skip of {k}")


@pytest.mark.parametrize("lochs", [1, 2])
def test_sinclair_loch_skip_costs_two_per_loch(lochs):
    """R18.S8 "Skip any number of loch spaces, paying £2 per loch space skipped"; R18.S10: a loch skip
    target is not a land skip target (never both in one expansion)."""
    g = position("sinclair")
    a, b = loch_skip(g, lochs)
    put(g, 0, "sheep", a)
    start_turn(g, 0)
    c = g.clone()
    if "choose:0" in legal_names(c):
        act(c, "choose:0")
        if "expand:sheep" in legal_names(c):
            act(c, "expand:sheep")
            assert b not in placement_targets(c)
    act(g, "choose:1", "expand:sheep")
    assert b in placement_targets(g)
    cost = paid(g, f"space:{label(g, b)}")
    assert cost == D.SINCLAIR_LOCH_SKIP_COST * lochs + D.UNIT_COST[D.SHEEP] + g.topo.cost[b]
    assert g.decision_kind != "bonus_upgrade"
    check_invariants(g)


def test_sinclair_claims_a_port_across_lochs():
    """R18.S9 "You may also use this ability to claim a Port as a free action, as normal": £2 per loch,
    then the tile (here tile 5, money); the main action is still to come."""
    g = position("sinclair", sides=("A2", "B2", "C2", "D2"))      # ports beside lochs on these sides
    g.port_tiles = (5, 5, 5, 5)
    for slot in range(4):
        ps = g.topo.port_space[slot]
        for a in active_land(g, GRASS):
            if ps in g.board.adjacent[a]:
                continue
            k = loch_distance(g, a, ps)
            if k and not g.topo.reach[1][a] >> ps & 1:
                put(g, 0, "sheep", a)
                start_turn(g, 0)
                name = f"choose:{2 + slot}"
                assert name in legal_names(g)
                before = g.players[0].money
                act(g, name)
                assert g.players[0].money == before - D.SINCLAIR_LOCH_SKIP_COST * k + D.PORT5_MONEY
                assert g.players[0].ports_used >> slot & 1 and g.decision_kind == "main"
                return
    raise AssertionError("no port across lochs")


def single_skip(g):
    """(a, m, b): grassland a and b two steps apart whose only land space between them is m."""
    act_ = g.board.active(g.num_players)
    for a, m, b in _land_skips(g):
        between = [x for x in g.board.adjacent[a] if x in g.board.adjacent[b] and act_[x] and
                   g.board.kind[x] == KIND_LAND]
        if between == [m] and g.occupant[m] == -1:
            return a, m, b
    raise AssertionError("no land skip over exactly one space")


def _land_skips(g):
    for a in active_land(g, GRASS):
        for m in g.board.adjacent[a]:
            if g.board.kind[m] == KIND_LAND and g.board.active(g.num_players)[m]:
                for b in g.board.adjacent[m]:
                    if b != a and is_grass(g, b) and b not in g.board.adjacent[a]:
                        yield a, m, b


def rail_targets(g, kind=0, unit="sheep"):
    """Spaces Railroad Reach (``choose:<kind>``) offers ``unit`` in the pending decision, asked on a clone."""
    if f"choose:{kind}" not in legal_names(g):
        return set()
    c = g.clone()
    act(c, f"choose:{kind}")
    if f"expand:{unit}" not in legal_names(c):
        return set()
    act(c, f"expand:{unit}")
    return placement_targets(c)


def _fill(g, space, what):
    """Put ``what`` on ``space`` as the engine does: another player's unit, a Farmers market, a city tile
    (a covered space, Delivery bonus 3) or another player's Delivery bonus 19 reservation (a Merchant)."""
    from test_industria_modules import put_market
    if what == "opponent":
        put(g, 1, "cow", space, check=False)
    elif what == "market":
        put_market(g, space)
    elif what == "city":
        g.occupant[space] = -2
        g.occupied |= 1 << space
        g.covered = tuple(sorted(g.covered + (space,)))
    elif what == "reserved":
        g.occupant[space] = -2
        g.occupied |= 1 << space
        g.modstate["trains"].reserved = [space, 1]
    elif what == "station":                      # seat 1's Train station left alone there (R13.16)
        g.occupant[space] = -2
        g.occupied |= 1 << space
        g.modstate["trains"].station[1] = space


@pytest.mark.parametrize("middle,offered", [("empty", True), ("opponent", True), ("station", True),
                                            ("market", False), ("city", False), ("reserved", False)])
def test_sinclair_skips_only_empty_spaces_or_other_players_units(middle, offered):
    """R18.S2 "you may skip over spaces that are empty or occupied by other players' units": a Farmers
    market, a city tile (blocked) or a reservation (a Merchant, "not a unit", Delivery bonus 19) is
    neither, so the space beyond it is no land-skip target; another player's lone Train station counts as
    their unit (R13.16) (C-S2)."""
    g = position("sinclair", farmers_markets=True, trains=True)
    for s in g.modstate["farmers_markets"].markets[0::5]:
        g.occupant[s] = -1
        g.occupied &= ~(1 << s)
    g.modstate["farmers_markets"].markets = []
    a, m, b = single_skip(g)
    put(g, 0, "sheep", a)
    _fill(g, m, middle)
    start_turn(g, 0)
    assert not reach(g, 0) >> b & 1
    assert (b in rail_targets(g)) == offered


def test_sinclair_railroad_reach_in_a_free_space():
    """Railroad Reach "when expanding" applies to a Free space, "an Expand action without paying the land
    cost (... all normal Expand rules apply)" (C-S5): £2 and the unit cost, no land cost, then the Bonus
    upgrade (R18.S4, R18.S5)."""
    g = position("sinclair")
    a, m, b = land_skip(g)
    put(g, 0, "sheep", a)
    start_turn(g, 0)
    push(g, (K_FREE_SPACE, 0))
    assert g.decision_kind == "free_space"
    assert b not in expand_targets(g, "sheep") and b in rail_targets(g)
    act(g, "choose:0", "expand:sheep")
    cost = paid(g, f"space:{label(g, b)}")
    assert cost == D.SINCLAIR_LAND_SKIP_COST + D.UNIT_COST[D.SHEEP]
    assert g.occupant[b] == 0 and g.decision_kind == "bonus_upgrade"
    check_invariants(g)


def test_sinclair_loch_skip_in_a_free_space_and_money_limits():
    """R18.S8 in a Free space (C-S5): £2 per loch and the unit cost, no land cost; not offered when the
    money covers only the unit."""
    g = position("sinclair")
    a, b = loch_skip(g, 1)
    put(g, 0, "sheep", a)
    start_turn(g, 0)
    push(g, (K_FREE_SPACE, 0))
    assert b in rail_targets(g, 1)
    act(g, "choose:1", "expand:sheep")
    assert paid(g, f"space:{label(g, b)}") == D.SINCLAIR_LOCH_SKIP_COST + D.UNIT_COST[D.SHEEP]
    assert g.decision_kind != "bonus_upgrade"
    h = position("sinclair", money=D.UNIT_COST[D.SHEEP] + D.SINCLAIR_LOCH_SKIP_COST - 1)
    put(h, 0, "sheep", a)
    start_turn(h, 0)
    push(h, (K_FREE_SPACE, 0))
    assert b not in rail_targets(h, 1)


def test_sinclair_settlements_within_two_spaces_are_connected():
    """R18.S11 "all of your units within 2 spaces of each other (not necessarily in a straight line) count
    as connected for final scoring"; another clan's units there are two unconnected Settlements."""
    g = position("sinclair")
    a, m, b = land_skip(g)
    put(g, 0, "sheep", a)
    put(g, 0, "sheep", b)
    assert connected_settlements(g, 0) == 2
    h = position("campbell", other="sinclair")
    h.players[0].shipping = 1
    put(h, 0, "sheep", a)
    put(h, 0, "sheep", b)
    assert connected_settlements(h, 0) == 1


# =============================================================================================
# all four in random games: invariants, clones, saves, replays
# =============================================================================================
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_clans_b_random_games_keep_invariants(n):
    """Random legal play with these four clans (Industria modules on or off): the invariants hold after
    every action, clones and saves agree, and a replay ends with the same scores."""
    mine = ["macfarlane", "macgregor", "macleod", "sinclair"]
    for seed in range(3):
        r = random.Random(100 * n + seed)
        clans = r.sample(mine, n)
        g = Game(GameConfig(num_players=n, seed=seed, clans=tuple(clans), industria=bool(seed % 2),
                            industria_clans=True))
        steps = 0
        while not g.is_terminal():
            legal = g.legal_actions()
            if len(legal) > 1 and A.PASS in legal and r.random() < 0.9:
                legal = [x for x in legal if x != A.PASS]
            g.apply(r.choice(legal))
            check_invariants(g)
            steps += 1
            if steps % 101 == 0:
                assert Game.from_json(g.to_json()).legal_actions() == g.legal_actions()
                g.render_text()
        assert Game.replay(g.config, g.history).final_scores() == g.final_scores()


# =============================================================================================
# what the clans show, and the heuristic agent
# =============================================================================================
def test_clan_state_in_observation_and_text():
    """Issue 13, "Observations ... render_text ... show each clan's own state": MacLeod's Shipyards (tile
    / 18, used) in ``industria.clan_state``, the same in both encoder paths; the text names them."""
    import numpy as np
    from clans_env.encoding import ObservationEncoder
    from clans_env.encoding.observation import ACCELERATED
    g = Game(GameConfig(num_players=3, seed=5, clans=("macleod", "sinclair", "macfarlane"), industria=True))
    while g.decision_kind != "main":
        g.apply(g.legal_actions()[0])
    pl = g.players[0]
    pl.extra["shipyards_used"] = [0, 1, 0, 0]
    encs = [ObservationEncoder(3, industria=g.config.industria_modules, accelerated=False)]
    if ACCELERATED:
        encs.append(ObservationEncoder(3, industria=g.config.industria_modules, accelerated=True))
    vecs = [e.encode(g, 0) for e in encs]
    assert all(np.array_equal(vecs[0], v) for v in vecs)
    state = encs[0].split(vecs[0])["industria.clan_state"]
    tiles = pl.extra["shipyards"]
    assert list(state[:8]) == pytest.approx([tiles[0] / 18, 0, tiles[1] / 18, 1, tiles[2] / 18, 0, tiles[3] / 18, 0])
    text = g.render_text()
    assert "Private Shipyards" in text and "Railroad Reach" in text and "Canals" in text


def test_heuristic_completes_railroad_reach_and_grazing():
    """Issue 13, "The heuristic agent knows each clan's special decisions": its lookahead completes
    Railroad Reach (unit, space, Bonus upgrade) and Grazing (unit, Sheep, destination), so the value it
    gives them is that of the finished expansion."""
    from agents.heuristic import complete_follow_ups
    g = position("sinclair")
    a, m, b = land_skip(g)
    put(g, 0, "sheep", a)
    start_turn(g, 0)
    act(g, "choose:0")
    done = complete_follow_ups(g, 0)
    assert done.players[0].spaces.bit_count() == 2 and done.decision_kind not in ("clan", "place")
    g, a, b = herd_position()
    act(g, "choose:0")
    done = complete_follow_ups(g, 0)
    assert done.players[0].spaces.bit_count() == 3 and done.decision_kind != "clan"
