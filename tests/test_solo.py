"""Rulebook "Solo Game": setup, "Additional Phase: Market Phase", "Refill Export Contracts
(Solo)", "Solo Scoring Thresholds" and the result bands."""
import pytest

from clans_env import Game, GameConfig
from clans_env.engine import actions as A
from clans_env.engine import data as D
from clans_env.engine.rules import scoring, solo
from clans_env.engine.rules.scoring import solo_band
from clans_env.engine.rules.setup import prepare_round
from helpers import patches_engine
from helpers import GRASS, act, active_land, blank_position, put, start_turn

SIDES = ("A1", "B1", "C1", "D1")


def solo_game(seed=0, **options):
    return Game(GameConfig(num_players=1, seed=seed, map_sides=SIDES, **options))


# ---- setup -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_solo_setup_map_neutral_workers_five_contracts(seed):
    """Solo Game: the 2 player map; neutral Workers on every active-map space costing £1 (and
    nowhere else); five Export contracts face-up before starting."""
    g = solo_game(seed)
    two = Game(GameConfig(num_players=2, seed=seed, map_sides=SIDES))
    assert g.topo.active == two.topo.active
    land = [s for s in range(g.board.num_spaces) if g.topo.land_mask >> s & 1]
    for s in land:
        blocked = g.occupant[s] == -2
        assert blocked == (g.board.cost[s] == 1), g.board.label[s]
        assert g.occupied >> s & 1 == int(blocked)
    assert any(g.occupant[s] == -2 for s in land)
    assert sum(1 for c in g.display if c >= 0) == D.SOLO_START_CONTRACTS == 5
    assert len(g.pile) + 5 == len(D.CONTRACTS)


def test_solo_clan_draft_between_two():
    """Setup: Clans in the solo game: one more clan than players, so the player picks one of two."""
    g = solo_game(3)
    assert g.decision_kind == "clan_pick" and len(g.legal_actions()) == 2


def test_solo_without_clans_gets_no_bonus_money():
    """Variants: Without Clans: the (only, start) player gets £0 extra; two Starting tiles offered."""
    g = solo_game(3, clan_selection="none")
    assert g.decision_kind == "start_tile" and len(g.tile_pool) == 2
    money = D.STARTING_TILES[g.tile_pool[1]].money
    act(g, "choose:1")
    assert g.players[0].money == money


def test_neutral_spaces_never_expanded_into():
    """Solo Game: the neutral spaces are unavailable for the whole game."""
    g = blank_position(1, clans=["stewart"])
    blocked = [s for s in range(g.board.num_spaces) if g.occupant[s] == -2]
    grass = set(active_land(g, GRASS))
    s = next(s for s in blocked if any(t in grass and g.occupant[t] == -1 for t in g.board.neighbours[s]))
    nb = next(t for t in g.board.neighbours[s] if t in grass and g.occupant[t] == -1)
    put(g, 0, "sheep", nb)
    start_turn(g, 0)
    act(g, "expand:cow")
    assert A.SPACE + s not in g.legal_actions()


# ---- no Neighbourhood bonus, no import tracking, £16 per pass -------------------------------
def test_no_neighbourhood_bonus_next_to_neutral_workers():
    """Solo Game: you cannot take a Neighbourhood bonus (neutral Workers produce nothing either)."""
    g = blank_position(1, clans=["campbell"])
    blocked = [s for s in range(g.board.num_spaces) if g.occupant[s] == -2]
    grass = set(active_land(g, GRASS))
    target = next(t for s in blocked for t in g.board.neighbours[s] if t in grass and g.occupant[t] == -1)
    src = next(u for u in g.board.neighbours[target] if u in grass and g.occupant[u] == -1)
    put(g, 0, "sheep", src)
    start_turn(g, 0)
    act(g, "expand:cow", f"space:{g.board.label[target]}")
    assert g.decision_kind != "neighbourhood"


@pytest.mark.parametrize("rnd", [1, 3, 5])
def test_sixteen_pounds_every_pass(rnd):
    """Solo Game: each time you pass you receive a Passing bonus of £16."""
    g = blank_position(1, clans=["campbell"], money=0)
    g.round = rnd
    start_turn(g, 0)
    act(g, "pass")
    assert g.players[0].money == D.SOLO_PASSING_BONUS == 16


def test_imports_not_tracked_but_scored_by_own_amounts():
    """Solo Game: Imported goods are not tracked on the Export board; Final Scoring still ranks
    Cotton, Tobacco and Sugar cane by the amounts imported (most 3 VP, least 5 VP)."""
    cid = next(c.id for c in D.CONTRACTS if sum(c.imports) and not c.meat and not c.free_space
               and not c.bonus_upgrade)
    g = blank_position(1, clans=["campbell"])
    pl = g.players[0]
    for good in range(D.NUM_GOODS):
        pl.goods[good] = D.CONTRACT_BY_ID[cid].goods[good]
    if cid in g.pile:
        g.pile.remove(cid)
    if cid in g.display:
        g.display[g.display.index(cid)] = -1
    pl.open_contracts = [cid]
    start_turn(g, 0)
    act(g, "fulfil:0")
    assert g.import_track == [0, 0, 0]
    pl.imports = [1, 6, 3]
    assert scoring.import_values(g) == [5, 3, 4]
    assert g.final_scores()[0]["imports"] == 1 * 5 + 6 * 3 + 3 * 4


# ---- Market phase ------------------------------------------------------------------------------
@pytest.mark.parametrize("die", D.SOLO_PRICE_DIE)
@pytest.mark.parametrize("step", range(D.PRICE_STEPS))
def test_price_die_by_bracket(step, die):
    """Additional Phase: Market Phase: low prices rise by the die's absolute value, high prices
    fall by it, medium prices move exactly as the die shows (brackets: components.toml market.solo_brackets)."""
    low, medium, high = D.SOLO_BRACKETS
    change = solo.price_change(step, die)
    if low[0] <= step <= low[1]:
        assert change == abs(die)
    elif high[0] <= step <= high[1]:
        assert change == -abs(die)
    else:
        assert medium[0] <= step <= medium[1] and change == die


def test_brackets_cover_the_track():
    """components.toml market.solo_brackets: steps 0-2 low, 3-6 medium, 7-9 high."""
    assert [solo.bracket(s) for s in range(D.PRICE_STEPS)] == [-1] * 3 + [0] * 4 + [1] * 3


def test_rulebook_example_low_price_rises_three():
    """Market Phase example: a low price with -3 or +3 increases by three steps."""
    assert solo.price_change(1, -3) == solo.price_change(1, 3) == 3


@pytest.mark.parametrize("seed", range(6))
def test_market_phase_changes_three_different_goods_once(seed):
    """Market Phase: at the start of rounds 2-5 (after Merchants are retrieved) the prices of three
    different Goods change once each by the rolled Price die; the other prices stay."""
    g = blank_position(1, seed=seed, clans=["campbell"])
    assert not g.modstate["solo"].dice                    # no Market phase in round 1
    before = g.prices[:]
    g.players[0].merchants_market[0] = 1
    g.players[0].merchants_stock -= 1
    g.pass_order = [0]
    prepare_round(g)
    dice = g.modstate["solo"].dice
    goods, faces = dice[0::2], dice[1::2]
    assert len(goods) == 3 and len(set(goods)) == 3
    assert all(f in D.SOLO_PRICE_DIE for f in faces)
    for good in range(D.NUM_GOODS):
        if good in goods:
            die = faces[goods.index(good)]
            expected = min(max(before[good] + solo.price_change(before[good], die), 0), D.MAX_STEP)
            assert g.prices[good] == expected
        else:
            assert g.prices[good] == before[good]
    assert g.players[0].merchants_stock == D.MERCHANTS_IN_STOCK    # retrieved first


def test_market_phase_rounds_two_to_five_over_a_game():
    """Market Phase: in rounds 2-5 only; each Action phase starts with five contracts."""
    g = blank_position(1, seed=3, clans=["stewart"])
    seen_rounds = set()
    while not g.is_terminal():
        rnd = g.round
        act(g, "pass") if A.PASS in g.legal_actions() else g.apply(g.legal_actions()[0])
        if g.round != rnd and not g.is_terminal():
            seen_rounds.add(g.round)
            assert len(g.modstate["solo"].dice) == 6
            assert sum(1 for c in g.display if c >= 0) == 5
    assert seen_rounds == {2, 3, 4, 5}
    assert len(g.modstate["solo"].removed) == 4


# ---- Refill and removal ---------------------------------------------------------------------------
@pytest.mark.parametrize("die", D.SOLO_PRICE_DIE)
def test_last_price_die_removes_that_box(die):
    """Refill Export Contracts (Solo): fill all six boxes, then the contract at the intersection of
    the last Price die's sign and numeral leaves the game (board layout: components.toml)."""
    g = blank_position(1, clans=["campbell"])
    g.display = [c if c >= 0 else g.pile.pop(0) for c in g.display]
    box = D.SOLO_REMOVAL_BOX[die]
    cid = g.display[box]
    solo.remove_contract(g, die)
    assert g.display[box] == -1 and sum(1 for c in g.display if c >= 0) == 5
    assert cid not in g.pile and g.modstate["solo"].removed[-1] == cid


def test_removal_table_is_a_bijection():
    """Refill Export Contracts (Solo): the six die results name the six boxes."""
    assert sorted(D.SOLO_REMOVAL_BOX.values()) == list(range(D.SOLO_FILL_BOXES))


def test_removal_follows_the_last_roll_in_preparation():
    """Refill Export Contracts (Solo): in Preparation the removed box is the one of the last
    Price die rolled in that Market phase."""
    for seed in range(5):
        g = blank_position(1, seed=seed, clans=["campbell"])
        g.pass_order = [0]
        prepare_round(g)
        last = g.modstate["solo"].dice[-1]
        assert g.display[D.SOLO_REMOVAL_BOX[last]] == -1
        assert sum(1 for c in g.display if c >= 0) == 5


def test_determinize_resamples_future_dice():
    """Hidden information: future solo dice are chance events; determinize reseeds them while the
    public state stays the same."""
    g = blank_position(1, seed=0, clans=["campbell"])
    g.pass_order = [0]
    outcomes = set()
    for seed in range(8):
        d = g.determinize(seed)
        assert d.prices == g.prices and d.display == g.display
        prepare_round(d)
        outcomes.add(tuple(d.modstate["solo"].dice))
    assert len(outcomes) > 1


# ---- scoring thresholds and bands -------------------------------------------------------------------
@pytest.mark.parametrize("done,vp", [(0, 0), (4, 0), (5, 4), (6, 8), (7, 12), (9, 12)])
def test_solo_export_thresholds(done, vp):
    """Solo Scoring Thresholds: 7 or more fulfilled contracts = 12 VP; 6 = 8 VP; 5 = 4 VP."""
    g = blank_position(1, clans=["campbell"])
    g.players[0].done_contracts = [c.id for c in D.CONTRACTS[:done]]
    for cid in g.players[0].done_contracts:
        if cid in g.pile:
            g.pile.remove(cid)
    assert g.final_scores()[0]["export_bonus"] == vp


@patches_engine
@pytest.mark.parametrize("count,vp", [(1, 0), (7, 0), (8, 6), (10, 6), (11, 12), (13, 12), (14, 18), (20, 18)])
def test_solo_settlement_thresholds(count, vp, monkeypatch):
    """Solo Scoring Thresholds: 14 or more Settlements = 18 VP; 11-13 = 12 VP; 8-10 = 6 VP."""
    g = blank_position(1, clans=["campbell"])
    monkeypatch.setattr(scoring, "connected_settlements", lambda game, p: count)
    assert g.final_scores()[0]["settlement_bonus"] == vp


def chain_of_separate_settlements(g, count):
    """``count`` grassland spaces, none neighbouring another (so each unit is a Settlement of its
    own), each joined to an earlier one across a river or across 1-3 loch spaces: with 3-loch
    Shipping all of them are within Shipping reach of each other. Built from the board's primitive
    facts (helpers.loch_distance, river edges), not from topology.py."""
    from helpers import loch_distance
    grass = active_land(g, GRASS)
    rivers = {frozenset(e) for e in g.board.river_edges}
    for start in grass:
        placed = [start]
        while len(placed) < count:
            nxt = next((x for x in grass if x not in placed
                        and not any(x in g.board.neighbours[q] for q in placed)
                        and any(frozenset((x, q)) in rivers or (loch_distance(g, x, q) or 0) in (1, 2, 3)
                                for q in placed)), None)
            if nxt is None:
                break
            placed.append(nxt)
        if len(placed) == count:
            return placed
    raise AssertionError(f"no chain of {count} separate Settlements on this map")


@pytest.mark.parametrize("count,vp", [(7, 0), (8, 6), (11, 12)])
def test_solo_settlements_counted_on_the_map(count, vp):
    """Solo Scoring Thresholds: Settlements within Shipping reach of each other: 8 or more 6 VP, 11
    or more 12 VP, 14 or more 18 VP. A constructed map with exactly ``count`` separate Settlements,
    all within 3-loch reach of each other."""
    g = blank_position(1, clans=["campbell"])
    g.players[0].shipping = D.MAX_SHIPPING
    units = ["sheep"] * 4 + ["cow"] * 4 + ["field"] * 4
    for unit, s in zip(units, chain_of_separate_settlements(g, count)):
        put(g, 0, unit, s)
    assert len(scoring.settlements(g, 0)) == count
    assert scoring.connected_settlements(g, 0) == count
    assert g.final_scores()[0]["settlement_bonus"] == vp
    g.players[0].shipping = 0                       # no Shipping: no two of them join
    g.players[0].reach = -1
    assert scoring.connected_settlements(g, 0) == 1
    assert g.final_scores()[0]["settlement_bonus"] == 0


@pytest.mark.parametrize("total,band", [(0, "Newbie"), (115, "Newbie"), (116, "Rookie"), (130, "Rookie"),
                                        (131, "Average"), (145, "Average"), (146, "Expert"), (160, "Expert"),
                                        (161, "Genius!"), (250, "Genius!")])
def test_result_bands(total, band):
    """Solo Scoring Thresholds: 0-115 Newbie; 116-130 Rookie; 131-145 Average; 146-160 Expert;
    161+ Genius!"""
    assert solo_band(total) == band


def test_band_reported_with_final_score():
    """Solo Game: the result band comes with the final score."""
    g = blank_position(1, clans=["campbell"], money=1200)
    row = g.final_scores()[0]
    assert row["band"] == solo_band(row["total"]) and row["money"] == 120
    assert "band" not in blank_position(2).final_scores()[0]
