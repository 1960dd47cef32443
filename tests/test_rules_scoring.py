"""Rulebook "Phase 4: Scoring" with "Appendix: Scoring Tiles", and "Final Scoring" (every line,
Export Scoring, Settlement Scoring, import rarity, money as tie-breaker)."""
import pytest

from clans_env.engine import data as D
from clans_env.engine.rules.scoring import connected_settlements, final_scores, import_values, scoring_tile_glory
from helpers import patches_engine
from helpers import (FOREST, GRASS, MOUNTAIN, act, active_land, blank_position, loch_distance, put, river_pairs,
                     start_turn)


def spaced(g, land, k, exclude=()):
    """k empty active spaces supporting ``land``, pairwise not adjacent."""
    out = []
    for s in active_land(g, land):
        if g.occupant[s] != -1 or s in exclude:
            continue
        if all(s not in g.board.adjacent[t] for t in out + list(exclude)):
            out.append(s)
        if len(out) == k:
            return out
    raise AssertionError("not enough spaces")


# ---- Scoring tiles ---------------------------------------------------------------------------
def test_tile_1_basic_goods():
    """Scoring tile 1: 1 Glory for each Basic good in your stock."""
    g = blank_position(2)
    g.players[0].goods = [2, 1, 3, 5, 5, 5]
    assert scoring_tile_glory(g, 0, 1) == 6


@pytest.mark.parametrize("processed,glory", [(0, 0), (1, 0), (2, 3), (5, 6), (6, 9)])
def test_tile_2_processed_pairs(processed, glory):
    """Scoring tile 2: 3 Glory for each two Processed goods in your stock."""
    g = blank_position(2)
    g.players[0].goods = [4, 4, 4, processed, 0, 0]
    assert scoring_tile_glory(g, 0, 2) == glory


def test_tile_3_animals_factories_fields():
    """Scoring tile 3: 1 Glory per deployed Sheep, Cow, Cheese dairy, Bakery and Distillery,
    2 Glory per Field (Workers do not count)."""
    g = blank_position(4)
    units = ["sheep", "cow", "cheese_dairy", "bakery", "distillery", "field", "field"]
    for u, s in zip(units, spaced(g, GRASS, len(units))):
        put(g, 0, u, s)
    put(g, 0, "woodcutter", spaced(g, FOREST, 1)[0])
    assert scoring_tile_glory(g, 0, 3) == 5 + 2 * 2


def test_tile_4_workers():
    """Scoring tile 4: 2 Glory for each deployed Worker."""
    g = blank_position(4)
    for s in spaced(g, FOREST, 2):
        put(g, 0, "woodcutter", s)
    put(g, 0, "miner", spaced(g, MOUNTAIN, 1)[0])
    put(g, 0, "sheep", spaced(g, GRASS, 1)[0])
    assert scoring_tile_glory(g, 0, 4) == 6


@pytest.mark.parametrize("n", [2, 4])
def test_tile_5_border_spaces(n):
    """Scoring tile 5: 3 Glory for every two units on border spaces of the active map; in a 1-2
    player game the spaces next to the mist are the border, in 3-4 players the map's edge."""
    g = blank_position(n)
    b = g.board
    if n == 2:
        border = {s for s in active_land(g) if any(b.mist[t] for t in b.adjacent[s])}
    else:
        border = {s for s in active_land(g) if b.outer_edge[s]}
    assert {s for s in range(b.num_spaces) if g.topo.border >> s & 1} == border
    grass_border = [s for s in active_land(g, GRASS) if s in border][:3]
    inner = [s for s in active_land(g, GRASS) if s not in border][:2]
    assert len(grass_border) == 3 and len(inner) == 2
    for s in grass_border + inner:
        put(g, 0, "sheep", s, check=False)
    assert scoring_tile_glory(g, 0, 5) == 3            # 3 border units: one pair


def test_tile_6_imports_and_tile_7_meat():
    """Scoring tile 6: 1 Glory per Cotton, Tobacco and Sugar cane on fulfilled contracts; tile 7:
    2 Glory per Meat on fulfilled contracts."""
    g = blank_position(2)
    g.players[0].imports = [2, 0, 3]
    g.players[0].meat = 3
    assert scoring_tile_glory(g, 0, 6) == 5
    assert scoring_tile_glory(g, 0, 7) == 6


def test_tile_8_upgrades():
    """Scoring tile 8: 1 Glory per Upgrade: each spot left of the Shipping marker, each free
    Merchant spot, each flipped Technology tile."""
    g = blank_position(2)
    pl = g.players[0]
    pl.shipping = 2
    pl.merchants_board = 2
    pl.tech = [True, False]
    assert scoring_tile_glory(g, 0, 8) == 2 + 3 + 1


def test_tile_9_expensive_spaces():
    """Kickstarter Scoring tile 9: 2 Glory for each occupied space with a cost of £5 or £6."""
    g = blank_position(4)
    dear = [s for s in active_land(g, GRASS) if g.board.cost[s] >= 5][:2]
    cheap = [s for s in active_land(g, GRASS) if g.board.cost[s] <= 4][:3]
    for s in dear + cheap:
        put(g, 0, "sheep", s, check=False)
    assert scoring_tile_glory(g, 0, 9) == 4


def test_phase_4_uses_the_current_round_tile():
    """Phase 4: Scoring: each player gains the Glory of the current round's Scoring tile."""
    g = blank_position(2)
    g.scoring_tiles = (1, 2, 3, 4, 5)
    g.round = 2
    for pl in g.players:
        pl.goods = [0, 0, 0, 2, 2, 0]                # tile 2: 4 Processed -> 6 Glory
    start_turn(g, g.turn_order[0])
    while g.round == 2:
        g.apply(g.legal_actions()[0])
    assert [pl.glory for pl in g.players] == [6, 6]


# ---- Final scoring ---------------------------------------------------------------------------
def test_final_score_lines_add_up():
    """Final Scoring: Glory 1 VP per step; 1 VP per Basic good, 2 per Processed good; 1 VP per
    £10; 1 per Hops; imports by rarity; Export and Settlement scoring; the total is the sum."""
    g = blank_position(2)
    pl = g.players[0]
    pl.glory = 17
    pl.goods = [1, 2, 3, 1, 1, 2]
    pl.money = 59
    pl.hops = 4
    pl.imports = [1, 0, 0]
    g.import_track = [1, 0, 0]
    row = final_scores(g)[0]
    assert row["glory"] == 17
    assert row["basic_goods"] == 6
    assert row["processed_goods"] == 8
    assert row["money"] == 5 and row["money_left"] == 59
    assert row["hops"] == 4
    assert row["imports"] == 3                          # Cotton the most imported: 3 VP
    lines = ("glory", "basic_goods", "processed_goods", "money", "hops", "imports", "export_bonus",
             "settlement_bonus")
    assert row["total"] == sum(row[k] for k in lines)
    assert g.returns()[0] == float(row["total"])


def test_rulebook_import_example():
    """Final Scoring, the rulebook's example: Tobacco imported least, Cotton most: each Tobacco is
    worth 5 VP, Sugar cane 4, Cotton 3; three Tobacco, two Sugar cane and six Cotton give 15, 8
    and 18 VP."""
    g = blank_position(3)
    g.import_track = [9, 2, 5]
    assert import_values(g) == [3, 5, 4]
    g.players[0].imports = [6, 3, 2]
    assert final_scores(g)[0]["imports"] == 18 + 15 + 8


@pytest.mark.parametrize("track,values", [
    ([0, 0, 0], [5, 4, 3]),          # all tied: Cotton rarest, then Tobacco, then Sugar cane
    ([4, 4, 1], [4, 3, 5]),          # Cotton and Tobacco tie for most common
    ([2, 5, 5], [5, 4, 3]),          # Tobacco and Sugar cane tie
    ([3, 3, 7], [5, 4, 3]),
])
def test_import_rarity_ties(track, values):
    """Final Scoring: if there is a tie in the amount imported, Cotton is the rarest, followed by
    Tobacco, then Sugar cane."""
    g = blank_position(3)
    g.import_track = track
    assert import_values(g) == values


def test_money_is_tie_breaker_for_rank():
    """Final Scoring: 1 VP for every £10; leftover money breaks ties on the final score."""
    g = blank_position(3, money=0)
    for pl, money, glory in zip(g.players, (19, 25, 12), (10, 9, 9)):
        pl.money = money
        pl.glory = glory
    rows = final_scores(g)
    assert [r["total"] for r in rows] == [11, 11, 10]
    assert [r["rank"] for r in rows] == [2, 1, 3]


@pytest.mark.parametrize("n,contracts,vp", [
    (3, [2, 2, 1], [9, 9, 0]),            # the rulebook's example: two tie for first
    (3, [3, 2, 1], [12, 6, 0]),
    (4, [3, 1, 1, 0], [12, 3, 3, 0]),      # tie for second shares 6
    (4, [2, 2, 2, 2], [4, 4, 4, 4]),       # (12 + 6) / 4 rounded down
    (2, [2, 1], [8, 0]),
    (2, [1, 1], [4, 4]),                   # the rulebook: each tied player receives 4 VP
    (3, [0, 0, 0], [0, 0, 0]),             # no fulfilled contract, no Export VP (lead's reading)
    (3, [1, 0, 0], [12, 0, 0]),
])
def test_export_scoring(n, contracts, vp):
    """Export Scoring: 3-4 players 12 VP most / 6 VP second most fulfilled contracts; 2 players 8
    VP for the most only; ties divide the VP of the tiers they cover, rounded down."""
    g = blank_position(n)
    for pl, k in zip(g.players, contracts):
        pl.done_contracts = [c.id for c in D.CONTRACTS[:k]]
    assert [r["export_bonus"] for r in final_scores(g)] == vp


@patches_engine
@pytest.mark.parametrize("n,settlements,vp", [
    (3, [3, 2, 1], [18, 12, 6]),
    (4, [4, 3, 2, 1], [18, 12, 6, 0]),
    (4, [2, 2, 1, 1], [15, 15, 3, 3]),     # ties share the tiers they cover
    (3, [2, 2, 2], [12, 12, 12]),
    (3, [0, 0, 0], [0, 0, 0]),
    (2, [2, 1], [12, 0]),
    (2, [1, 1], [6, 6]),
])
def test_settlement_scoring_tiers(n, settlements, vp, monkeypatch):
    """Settlement Scoring: 3-4 players 18/12/6 VP, 2 players 12/0 VP for the most Settlements
    within Shipping reach; ties share as in Export scoring. (The counts are fixed here; how they
    are counted is tested below.)"""
    import clans_env.engine.rules.scoring as scoring
    monkeypatch.setattr(scoring, "connected_settlements", lambda g, p: settlements[p])
    g = blank_position(n)
    assert [r["settlement_bonus"] for r in final_scores(g)] == vp


def test_settlement_is_a_cluster_of_neighbouring_units():
    """Settlement Scoring: a Settlement is a cluster of neighbouring units of one colour; single
    units are Settlements too; 'NOT about having expanded to the most spaces'."""
    g = blank_position(4)
    grass = set(active_land(g, GRASS))
    a = next(s for s in sorted(grass) if len([t for t in g.board.neighbours[s] if t in grass]) >= 2)
    nbs = [t for t in g.board.neighbours[a] if t in grass][:2]
    for s in [a] + nbs:
        put(g, 0, "sheep", s)
    assert connected_settlements(g, 0) == 1


def find_rulebook_settlement_example(g):
    """The rulebook's Settlement example, searched on the map: a 3-unit Settlement C; two single
    units T1, T2 separated by a river; C one loch away from T1; a single unit Z two lochs away
    from the nearest of them."""
    grass = set(active_land(g, GRASS))
    b = g.board

    def adj_any(s, group):
        return any(s in b.adjacent[t] or s == t for t in group)

    for t1, t2 in river_pairs(g):
        for t1_, t2_ in ((t1, t2), (t2, t1)):
            for c0 in sorted(grass):
                if loch_distance(g, t1_, c0) != 1 or adj_any(c0, (t1_, t2_)):
                    continue
                cluster = [c0]
                for s in sorted(grass):
                    if len(cluster) == 3:
                        break
                    if s in cluster or adj_any(s, (t1_, t2_)):
                        continue
                    if any(s in b.neighbours[x] for x in cluster):
                        cluster.append(s)
                if len(cluster) < 3:
                    continue
                group = cluster + [t1_, t2_]
                for z in sorted(grass):
                    if adj_any(z, group):
                        continue
                    d = [loch_distance(g, z, x) for x in group]
                    if 2 in d and all(x is None or x >= 2 for x in d):
                        return cluster, t1_, t2_, z
    return None


def test_rulebook_settlement_example_with_one_loch_shipping():
    """Settlement Scoring, the rulebook's example: the three neighbouring red units are one
    Settlement; two units separated by a river are two Settlements; a unit two loch spaces away
    is not within 1-loch reach. Red has four Settlements, three of them within Shipping reach of
    each other with 1-loch Shipping (and all four with 2-loch)."""
    g = blank_position(4)
    found = find_rulebook_settlement_example(g)
    assert found, "the map has no place for the rulebook's settlement example"
    cluster, t1, t2, z = found
    for unit, s in zip(("sheep", "cow", "field", "sheep", "cow", "field"), cluster + [t1, t2, z]):
        put(g, 0, unit, s)
    expected = {0: 1, 1: 2, 2: 3, 3: 4}       # none, river-crossing, 1-loch, 2-loch
    for level, count in expected.items():
        g.players[0].shipping = level
        assert connected_settlements(g, 0) == count, level


def test_slaughter_can_split_a_settlement():
    """Settlement Scoring, hint: slaughtering can split one bigger Settlement into two (here two
    Sheep across a river, joined only through the Cow neighbouring both)."""
    g = blank_position(4)
    grass = set(active_land(g, GRASS))
    for a, c in river_pairs(g):
        common = [b for b in g.board.neighbours[a] if b in grass and b in g.board.neighbours[c]]
        if common:
            break
    else:
        raise AssertionError("no river pair with a common neighbour")
    put(g, 0, "sheep", a)
    put(g, 0, "cow", common[0])
    put(g, 0, "sheep", c)
    g.players[0].shipping = 1                          # river-crossing
    assert connected_settlements(g, 0) == 1
    g.players[0].open_contracts = [16]                 # 1 Wool, 1 Beef -> 2 Cotton
    g.players[0].goods[D.WOOL] = 1
    start_turn(g, 0)
    act(g, "fulfil:0")
    assert g.occupant[common[0]] == -1
    assert connected_settlements(g, 0) == 2
    g.players[0].shipping = 0                          # ... or harm it: out of Shipping reach
    assert connected_settlements(g, 0) == 1


def test_tile_glory_function_scores_every_tile_as_scoring_tile_glory():
    """Player aid Scoring tiles 1-18: the per-tile function (what evaluations that score one tile on
    many positions use) gives scoring_tile_glory's Glory for every seat along random Industria games;
    import values (cached by amounts) stay the rarity rule's and are fresh lists each call."""
    import random

    from clans_env import Game, GameConfig
    from clans_env.engine.rules.scoring import tile_glory_function
    rng = random.Random(4)
    tiles = range(1, 19)
    funcs = {t: tile_glory_function(t) for t in tiles}
    checked = 0
    for seed in (1, 2):
        g = Game(GameConfig(num_players=3, seed=seed, industria=True))
        while not g.is_terminal():
            for p in range(3):
                for t in tiles:
                    assert funcs[t](g, p) == scoring_tile_glory(g, p, t)
                    checked += 1
            vals = import_values(g)
            vals[0] = -99
            assert import_values(g)[0] != -99
            legal = g.legal_actions()
            g.apply(legal[rng.randrange(len(legal))])
    assert checked > 5000
