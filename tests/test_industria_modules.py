"""Industria, part 1 (issue 12): the modules that need no second unit on a space. Each test names the
rule of docs/rules-index.md it checks (R<section>.<n>) and quotes the player aid.

Positions are built with the helpers of the base rules tests; Farmers markets are put on the map
with ``put_market`` (the state the placement decision leaves)."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from clans_env import Game, GameConfig
from clans_env.engine import actions as A
from clans_env.engine import data as D
from clans_env.engine.config import INDUSTRIA_MODULES
from clans_env.engine.invariants import check_invariants, random_config
from clans_env.engine.rules import awards
from clans_env.engine.rules.farmers_markets import MARKET
from clans_env.engine.rules.scoring import alternative_two_player_split, final_scores
from clans_env.engine.modules import hooks_for
from clans_env.engine.rules.setup import prepare_round
from helpers import patches_engine
from helpers import (GRASS, act, active_land, blank_position, label, legal_names, make_game, play_setup,
                     placement_targets, put, random_playout, start_turn)


# ---- configuration ---------------------------------------------------------------------------------
def test_each_module_is_its_own_field_and_industria_switches_them_all_on():
    """Issue 12, Configuration: ``industria=True`` switches on every Industria module the engine has;
    a module given explicitly wins; the alternative scoring is a 2-player rule only."""
    all_on = GameConfig(num_players=2, industria=True)
    assert all_on.industria_modules == INDUSTRIA_MODULES
    assert "awards" not in GameConfig(num_players=2, industria=True, awards=False).industria_modules
    assert "alt_two_player_scoring" not in GameConfig(num_players=3, industria=True).industria_modules
    assert GameConfig(num_players=3, farmers_markets=True).industria_modules == ("farmers_markets",)
    with pytest.raises(ValueError, match="num_players=2 only"):
        GameConfig(num_players=4, alt_two_player_scoring=True)
    with pytest.raises(ValueError, match="True or False"):
        GameConfig(num_players=2, awards="yes")
    again = GameConfig.from_dict(all_on.to_dict())
    assert again == all_on


def test_base_game_is_unchanged_with_every_module_off():
    """Issue 12: "With every Industria field off, the game is exactly today's base game": the same
    decisions, indices and results for a seed, and the same records (no Industria keys)."""
    for n in (1, 2, 3, 4):
        plain = GameConfig(num_players=n, seed=40 + n)
        off = GameConfig(num_players=n, seed=40 + n, industria=False,
                         **{m: False for m in INDUSTRIA_MODULES})
        assert off == plain and off.to_dict() == plain.to_dict()
        assert "industria" not in plain.to_dict()
        a, b = Game(plain), Game(off)
        random_playout(a, random.Random(n))
        random_playout(b, random.Random(n))
        assert a.history == b.history and a.final_scores() == b.final_scores()
        assert all(row["award"] == 0 for row in a.final_scores())
        assert not any(k in a.misc for k in ("award", "refill", "markets", "price_dice")) and not a.modstate.keys() - {"solo"}


@pytest.mark.parametrize("n", [1, 2, 4])
def test_environments_play_industria_configurations(n):
    """Issue 12, the rest of the stack: the PettingZoo environment plays an Industria configuration
    (PettingZoo's api_test), its observation appends the Industria segment to the base layout, and
    the base layout is untouched."""
    import clans_env
    from pettingzoo.test import api_test
    from clans_env.encoding import ObservationEncoder
    env = clans_env.env(num_players=n, industria=True)
    api_test(env, num_cycles=60)
    enc = env.unwrapped.encoder
    base = ObservationEncoder(n)
    assert enc.base_size == base.size < enc.size
    assert [s.name for s in enc.layout[:len(base.layout)]] == [s.name for s in base.layout]
    assert all(s.name.startswith("industria.") for s in enc.layout[len(base.layout):])


def test_industria_observation_is_bit_identical_in_both_encoder_paths():
    """Issue 12: the Python and the compiled encoder agree on Industria positions (the segment is
    Python in both; the base part must skip the Industria decision kinds identically)."""
    import numpy as np
    from clans_env.encoding import ObservationEncoder
    from clans_env.encoding.observation import ACCELERATED
    if not ACCELERATED:
        pytest.skip("the compiled encoder is not built here")
    kinds = set()
    for n in (1, 2, 3, 4):
        cfg = GameConfig(num_players=n, seed=70 + n, industria=True)
        fast = ObservationEncoder(n, industria=cfg.industria_modules, accelerated=True)
        slow = ObservationEncoder(n, industria=cfg.industria_modules, accelerated=False)
        g, rng = Game(cfg), random.Random(n)
        while not g.is_terminal():
            kinds.add(g.decision_kind)
            for seat in range(n):
                x, y = fast.encode(g, seat), slow.encode(g, seat)
                assert np.array_equal(x, y) and (x >= fast.low).all() and (x <= fast.high).all()
            g.apply(rng.choice(g.legal_actions()))
        seg = fast.split(fast.encode(g, 0))
        assert seg["industria.modules"].sum() == len(cfg.industria_modules)
    assert "market_place" in kinds


def test_industria_segment_encodes_markets_refill_board_and_award():
    """Issue 12, Observation: the new state is in the vector: markets and their uncovered icons, the
    refill board, the Award tile, the pending Industria decision."""
    from clans_env.encoding import ObservationEncoder
    from clans_env.encoding.observation import CONTRACT_TABLE, CONTRACT_WIDTH
    g, p, target, m = market_position(awards=True, refill_board=True)
    g.modstate["farmers_markets"].markets = [m, D.WOOL, D.CHEESE, 1, 0]
    act(g, "expand:cow", f"space:{label(g, target)}")
    enc = ObservationEncoder(3, industria=g.config.industria_modules)
    v = enc.split(enc.encode(g, p))
    assert v["industria.market.cheese"][m] == 1 and v["industria.market.wool"][m] == 0
    assert v["industria.decision.markets"][m] == 1
    from clans_env.encoding.observation import INDUSTRIA_DECISION_KINDS
    assert v["industria.decision.kind"].tolist() == [k == "market_sell" for k in INDUSTRIA_DECISION_KINDS]
    assert v["decision.kind"].sum() == 0
    first = g.modstate["refill_board"].board[0]
    assert (v["industria.refill_board"][:CONTRACT_WIDTH] == CONTRACT_TABLE[first + 1]).all()
    assert v["industria.award"][D.AWARD_TILES.index(g.modstate["awards"].tile)] == 1


# ---- Export contract refill board (R1.1, R2.1, R9) -------------------------------------------------
def test_refill_board_filled_at_setup():
    """R1.1 "Export Contract Refill Board: ... Fill each slot with a face-up Export contract from the
    top of the draw pile", after the Export board."""
    base = Game(GameConfig(num_players=3, seed=5, clan_selection="none"))
    g = Game(GameConfig(num_players=3, seed=5, clan_selection="none", refill_board=True))
    assert g.display == base.display
    assert g.modstate["refill_board"].board == base.pile[:D.REFILL_SLOTS]
    assert g.pile == base.pile[D.REFILL_SLOTS:]


def test_preparation_refills_from_the_refill_board_then_tops_it_up():
    """R2.1 "With the Export Contract Refill Board, draw from the refill board left to right, slide
    remaining contracts left, then top up the refill board from the draw pile"; R9.1 contracts are
    still taken from the Export board only."""
    g = blank_position(3, refill_board=True)
    p = g.current_player
    refill = list(g.modstate["refill_board"].board)
    top2 = g.pile[:2]
    assert {n for n in legal_names(g) if n.startswith("take_contract")} == {f"take_contract:{k}" for k in range(5)}
    act(g, "take_contract:1")
    other = g.turn_order[1]
    g.players[other].open_contracts = [g.display[3]]      # as if the next player had taken it
    g.display[3] = -1
    prepare_round(g)
    assert g.display[1] == refill[0] and g.display[3] == refill[1]
    assert g.modstate["refill_board"].board == refill[2:] + top2
    assert len(g.modstate["refill_board"].board) == D.REFILL_SLOTS
    check_invariants(g)


def building_position(n=3, **options):
    """p has three Cheese dairies and an empty grassland space next to them (a fourth one deploys there)."""
    g = blank_position(n, **options)
    p = g.current_player
    grass = set(active_land(g, GRASS))
    chain = None
    for start in sorted(grass):
        chain = [start]
        while len(chain) < 4:
            nxt = [t for t in g.board.neighbours[chain[-1]] if t in grass and t not in chain
                   and g.occupant[t] == -1 and not any(x in g.board.neighbours[t] for x in chain[:-1])]
            if not nxt:
                break
            chain.append(nxt[0])
        if len(chain) == 4 and g.occupant[start] == -1:
            break
    for s in chain[:3]:
        put(g, p, "cheese_dairy", s)
    start_turn(g, p)
    return g, p, chain[3]


def test_building_bonus_draws_the_leftmost_contracts_of_the_refill_board():
    """R9.3 "With the Export Contract Refill Board, take the leftmost 3 (or 6) Export contracts from the
    refill board instead"; "Contracts not taken go to the bottom of the Export contract draw pile";
    the refill board is topped up only in Preparation (Q22)."""
    g, p, target = building_position(refill_board=True)
    refill = list(g.modstate["refill_board"].board)
    pile = list(g.pile)
    act(g, "expand:cheese_dairy", f"space:{label(g, target)}", "choose:0")
    assert g.stack[-1][2] == tuple(refill[:3])
    act(g, "choose:2")
    assert g.players[p].open_contracts == [refill[2]]
    assert g.modstate["refill_board"].board == refill[3:]
    assert g.pile == pile + refill[:2]
    check_invariants(g)


def test_determinize_keeps_the_face_up_refill_board():
    """R9 (hidden information): the refill board is face up; only the pile below it is hidden."""
    g = Game(GameConfig(num_players=2, seed=9, refill_board=True))
    d = g.determinize(123)
    assert d.modstate["refill_board"].board == g.modstate["refill_board"].board
    assert sorted(d.pile) == sorted(g.pile) and d.pile != g.pile


# ---- Award tiles (R1.3, R10) -----------------------------------------------------------------------
def test_one_award_tile_is_drawn_at_setup():
    """R1.3 "Draw 1 at random and place below the 5th Scoring tile"; every tile occurs."""
    seen = {Game(GameConfig(num_players=2, seed=s, awards=True)).modstate["awards"].tile for s in range(60)}
    assert seen == set(D.AWARD_TILES)


@patches_engine
@pytest.mark.parametrize("n,values,expected", [
    (3, [5, 3, 1], [12, 6, 0]),
    (4, [5, 5, 1, 0], [9, 9, 0, 0]),          # a tie for best shares 12 + 6
    (3, [4, 2, 2], [12, 3, 3]),               # a tie for second shares 6
    (2, [7, 3], [8, 0]),
    (2, [7, 7], [4, 4]),
    (3, [0, 0, 0], [0, 0, 0]),                # nothing measured: no tier (Q41)
])
def test_award_vp_best_and_second_ties_share(monkeypatch, n, values, expected):
    """R10.1 "12 VP for best, 6 VP for second (8 VP / 0 VP in a 2-player game). Ties share as in
    Export scoring"."""
    g = blank_position(n, awards=True)
    monkeypatch.setattr(awards, "measure", lambda g, p, tile: values[p])
    assert awards.award_vp(g) == expected
    assert [row["award"] for row in final_scores(g)] == expected


@patches_engine
@pytest.mark.parametrize("value,vp", [(23, -4), (24, 0), (26, 0), (27, 4), (40, 4)])
def test_solo_award_card_thresholds(monkeypatch, value, vp):
    """R10.3 "compare your progress against the card's thresholds to score 4 VP, 0 VP, or -4 VP"
    (card 1, Most units: 24 / 27, community values)."""
    g = blank_position(1, awards=True)
    g.modstate["awards"].tile = 1
    monkeypatch.setattr(awards, "measure", lambda g, p, tile: value)
    assert awards.award_vp(g) == [vp]


def test_award_measures_on_a_constructed_map():
    """R10.2 the nine Award tiles, measured on one position: units on the board, import goods of one
    type, Glory, money, units in a single Settlement, Basic and Processed goods in stock, units along
    rivers (a space with a river edge), units next to lochs (Q42, Q43)."""
    g = blank_position(2, awards=True)
    pl = g.players[0]
    adj = g.board.adjacent
    free = [s for s in active_land(g, GRASS) if g.occupant[s] == -1]
    on_river = {s for e in g.board.river_edges for s in e}
    by_loch = {s for s in free if any(g.board.kind[t] == 1 for t in adj[s])}
    rivers = [s for s in free if s in on_river and s not in by_loch]
    lochside = [s for s in by_loch if s not in on_river]
    inland = [s for s in free if s not in on_river and s not in by_loch]
    a, b = next((a, b) for a in inland for b in g.board.neighbours[a] if b in inland)
    r = next(x for x in rivers if not {x} & set(adj[a] + adj[b]))
    c = next(x for x in lochside if not {x} & set(adj[a] + adj[b] + adj[r]))
    put(g, 0, "sheep", r)
    put(g, 0, "cow", c)
    put(g, 0, "field", a)
    put(g, 0, "sheep", b)
    pl.imports = [2, 5, 1]
    pl.glory, pl.money = 17, 33
    pl.goods = [1, 2, 0, 4, 0, 1]
    got = {D.AWARD_MEASURE[t]: awards.measure(g, 0, t) for t in D.AWARD_TILES}
    assert got["units"] == 4 and got["imports_one_type"] == 5 and got["glory"] == 17 and got["money"] == 33
    assert got["units_in_settlement"] == 2
    assert got["basic_goods"] == 3 and got["processed_goods"] == 5
    assert got["units_along_rivers"] == 1 and got["units_next_to_lochs"] == 1


# ---- Variable Starting Market Prices (R16.1, R2.6) --------------------------------------------------
def test_variable_starting_prices_follow_the_price_dice():
    """R16.1 "roll the Price dice once for each type of Good: +1 or -1: leave the Price marker where it
    is; +2 or +3: move the Price marker up one spot; -2 or -3: move the Price marker down one spot"."""
    moved = set()
    for seed in range(30):
        g = Game(GameConfig(num_players=3, seed=seed, variable_prices=True))
        dice = g.modstate["variable_prices"].dice
        assert len(dice) == D.NUM_GOODS and set(dice) <= set(D.SOLO_PRICE_DIE)
        want = [D.START_STEP + (1 if d >= 2 else -1 if d <= -2 else 0) for d in dice]
        assert g.prices == want
        moved |= {p - D.START_STEP for p in g.prices}
    assert moved == {-1, 0, 1}


def test_variable_prices_run_the_market_phase_from_round_two():
    """R2.6 "Variable Starting Market Prices variant: from round 2 onward, also run the Market Phase to
    shift prices": three different Goods change once each; no contract leaves the Export board (that
    is the solo game's)."""
    g = blank_position(3, variable_prices=True)
    display = list(g.display)
    before = list(g.prices)
    g.pass_order = list(g.turn_order)
    prepare_round(g)
    rolls = g.modstate["solo"].dice
    goods = rolls[0::2]
    assert len(goods) == 3 and len(set(goods)) == 3
    assert [i for i in range(D.NUM_GOODS) if g.prices[i] != before[i]] == sorted(
        i for i in goods if g.prices[i] != before[i])
    assert [c for c in g.display if c >= 0] == [c for c in display if c >= 0]
    assert "solo" not in g.modstate or not g.modstate["solo"].removed


# ---- alternative 2-player scoring (R15.8, R15.9) -----------------------------------------------------
@pytest.mark.parametrize("exports,expected", [([5, 4], [8, 4]), ([5, 3], [8, 0]), ([4, 4], [4, 4]),
                                              ([1, 0], [8, 0]), ([0, 0], [0, 0])])
def test_alternative_two_player_export_scoring(exports, expected):
    """R15.8 "the most fulfilled Export contracts still gains 8 VP as normal. The second player gains 4
    VP only if they fulfilled exactly one Export contract less, and 0 VP otherwise. Ties still share";
    "only if" is no promise: a second player with none scores nothing, as in Export scoring (I10)."""
    assert alternative_two_player_split(exports, D.EXPORT_TIERS[2], *D.ALT_EXPORT) == expected


@pytest.mark.parametrize("settle,expected", [([6, 5], [12, 6]), ([6, 4], [12, 6]), ([6, 3], [12, 0]),
                                             ([3, 3], [6, 6])])
def test_alternative_two_player_settlement_scoring(settle, expected):
    """R15.9 "the most connected Settlements still gains 12 VP as normal. The second player gains 6 VP
    only if they have 1 or 2 fewer connected Settlements, and 0 VP otherwise. Ties still share 6 VP"."""
    assert alternative_two_player_split(settle, D.SETTLEMENT_TIERS[2], *D.ALT_SETTLEMENT) == expected


def test_alternative_scoring_is_used_by_final_scoring():
    """R15.8 in the score sheet: with the option the second player's Export line is 4, without it 0."""
    rows = {}
    for alt in (False, True):
        g = blank_position(2, alt_two_player_scoring=alt)
        g.players[0].done_contracts = [1, 2, 3]
        g.players[1].done_contracts = [4, 5]
        rows[alt] = [r["export_bonus"] for r in final_scores(g)]
    assert rows == {False: [8, 0], True: [8, 4]}
    g = blank_position(2, alt_two_player_scoring=True)            # one against none: the second gets 0 (I10)
    g.players[0].done_contracts = [1]
    assert [r["export_bonus"] for r in final_scores(g)] == [8, 0]


# ---- Farmers markets (R1.5-R1.7, R7, R8) -----------------------------------------------------------
def test_markets_dealt_and_placed_in_reverse_turn_order_before_the_first_workers():
    """R1.5 "Deal 1 Farmers market tile to each player, before drafting Clans"; R1.6 "After Clans are
    drafted, in reverse turn order, each player places their Farmers market on a space that is: a land
    space, with at least 3 neighbouring land spaces, and at least 2 spaces away from any other Farmers
    market"; first Workers come afterwards (R1.14)."""
    g = make_game(3, 7, clan_selection="draft", farmers_markets=True)
    assert len(set(g.modstate["farmers_markets"].deal)) == 3
    while g.decision_kind == "clan_pick":
        g.apply(g.legal_actions()[0])
    placers = []
    while g.decision_kind == "market_place":
        placers.append(g.current_player)
        targets = placement_targets(g)
        for s in targets:
            assert g.board.kind[s] == 0 and g.occupant[s] == -1
            land_nb = [t for t in g.board.neighbours[s] if g.board.kind[t] == 0 and g.board.active(3)[t]]
            assert len(land_nb) >= D.MARKET_MIN_NEIGHBOURING_LAND
            assert not any(g.occupant[t] == MARKET for t in g.board.adjacent[s])
        g.apply(A.SPACE + max(targets))
    assert placers == list(reversed(g.turn_order))
    assert g.decision_kind == "first_worker"
    assert sorted(g.modstate["farmers_markets"].markets[0::5]) == sorted(s for s in range(g.board.num_spaces) if g.occupant[s] == MARKET)


@pytest.mark.parametrize("selection", ["auction", "none"])
def test_markets_placed_after_the_auction_or_the_starting_tiles(selection):
    """R1.7 "With the Clan Auction variant, place Farmers markets in reverse auction order instead"
    (the auction decides the turn order, so: reverse turn order after the auction); Without Clans the
    markets follow the Starting tile choice."""
    g = make_game(4, 3, clan_selection=selection, farmers_markets=True)
    while g.decision_kind != "market_place":
        assert g.decision_kind in ("auction_bid", "auction_pick", "start_tile", "clan_pick")
        g.apply(g.legal_actions()[0])
    order = []
    while g.decision_kind == "market_place":
        order.append(g.current_player)
        g.apply(g.legal_actions()[0])
    assert order == list(reversed(g.turn_order))


def put_market(g, space: int, basic="wool", processed="cheese") -> None:
    g.modstate["farmers_markets"].markets = g.modstate["farmers_markets"].markets + [space, D.GOOD_INDEX[basic], D.GOOD_INDEX[processed], 0, 0]
    g.occupant[space] = MARKET
    g.occupied |= 1 << space


def market_position(n=3, money=100, **options):
    """p has a Sheep, an empty grassland target next to it and a Farmers market (Wool / Cheese)
    neighbouring the target; no other unit nearby. Returns (g, p, target, market space)."""
    g = blank_position(n, money=money, farmers_markets=True, **options)
    for s in g.modstate["farmers_markets"].markets[0::5]:
        g.occupant[s] = -1
        g.occupied &= ~(1 << s)
    g.modstate["farmers_markets"].markets = []
    p = g.current_player
    grass = set(active_land(g, GRASS))
    for own in sorted(grass):
        for target in g.board.neighbours[own]:
            if target not in grass:
                continue
            for m in g.board.neighbours[target]:
                if m in grass and m != own and m not in g.board.adjacent[own] and g.topo.market_sites >> m & 1:
                    put(g, p, "sheep", own)
                    put_market(g, m)
                    pl = g.players[p]
                    pl.goods = [0] * D.NUM_GOODS
                    pl.goods[D.WOOL], pl.goods[D.CHEESE] = 5, 2
                    start_turn(g, p)
                    return g, p, target, m
    raise AssertionError("no market position")


def test_market_blocks_its_space():
    """R7.1 "You cannot deploy units on a space containing a Farmers market"."""
    g, p, target, m = market_position()
    act(g, "expand:cow")
    assert m not in placement_targets(g)


def test_market_selling_bonus_after_an_expand():
    """R7.2-R7.6: "Whenever you expand to a space neighbouring a Farmers market, you may immediately sell
    up to 4 Goods of a single type shown on the tile that is not already covered"; "Pay any land and
    unit costs for the Expand first"; "Place up to 4 Merchants on the Market board for the Good you want
    to sell"; "Gain the current Market value of that Good +£2 per Basic good sold ... move the Price
    marker as normal"; "Place one of the Goods sold onto the matching icon"."""
    g, p, target, m = market_position()
    pl = g.players[p]
    pl.merchants_stock, pl.merchants_board = 5, D.MERCHANTS_TOTAL - 5
    price_before = D.PRICES[D.WOOL][g.prices[D.WOOL]]
    step_before = g.prices[D.WOOL]
    money = pl.money
    act(g, "expand:cow", f"space:{label(g, target)}")
    paid = D.UNIT_COST[D.COW] + g.board.cost[target]
    assert pl.money == money - paid
    assert g.decision_kind == "market_sell"
    names = legal_names(g)
    assert {f"trade:sell:wool:{q}" for q in range(1, 5)} <= names and "trade:sell:wool:5" not in names
    assert {"trade:sell:cheese:1", "trade:sell:cheese:2", "done"} <= names
    act(g, "trade:sell:wool:3")
    assert pl.money == money - paid + 3 * (price_before + 2)
    assert pl.goods[D.WOOL] == 2 and g.prices[D.WOOL] == step_before - 3
    assert pl.merchants_market[D.WOOL * 2 + A.SELL] == 3 and pl.merchants_stock == 2
    assert g.modstate["farmers_markets"].markets == [m, D.WOOL, D.CHEESE, 1, 0]
    check_invariants(g)


def test_market_removed_when_both_icons_are_covered():
    """R7.7 "When both icons on a Farmers market are covered, the tile is immediately removed ...
    Players can then expand onto that space normally"."""
    g, p, target, m = market_position()
    g.modstate["farmers_markets"].markets = [m, D.WOOL, D.CHEESE, 1, 0]
    act(g, "expand:cow", f"space:{label(g, target)}")
    assert not any(n.startswith("trade:sell:wool") for n in legal_names(g))     # covered icon
    act(g, "trade:sell:cheese:1")
    assert g.modstate["farmers_markets"].markets == [] and g.occupant[m] == -1 and not g.occupied >> m & 1
    check_invariants(g)
    g.players[p].passed = False
    start_turn(g, p)
    act(g, "expand:sheep")
    assert m in placement_targets(g)


def test_market_sale_is_optional_and_needs_merchants_and_goods():
    """R7.2 "you *may* immediately sell" (done sells nothing, Q10); R7.4 one Merchant per Good (Q8);
    a Good bought this round cannot be sold (rulebook, 1. Trade)."""
    g, p, target, m = market_position()
    c = g.clone()
    act(c, "expand:cow", f"space:{label(c, target)}", "done")
    assert c.modstate["farmers_markets"].markets == [m, D.WOOL, D.CHEESE, 0, 0] and c.players[p].goods[D.WOOL] == 5
    g.players[p].merchants_stock = 2
    g.players[p].merchants_market[D.CHEESE * 2 + A.BUY] = 1
    g.players[p].merchants_board -= 1
    act(g, "expand:cow", f"space:{label(g, target)}")
    names = legal_names(g)
    assert "trade:sell:wool:2" in names and "trade:sell:wool:3" not in names
    assert not any(n.startswith("trade:sell:cheese") for n in names)


def test_first_workers_do_not_trigger_markets():
    """R1.14 / R7.8: first Worker placements "do not trigger the Neighbourhood bonus, Farmers market
    bonus, or Building bonus"."""
    for seed in range(12):
        g = make_game(3, seed, farmers_markets=True)
        kinds = []
        while g.phase == 0:                      # SETUP
            kinds.append(g.decision_kind)
            g.apply(g.legal_actions()[0])
        assert "market_sell" not in kinds and "bonus_menu" not in kinds


def test_passing_bonus_overlay():
    """R1.4 / R8.1 "With the Farmers Markets module, the Passing bonus overlay makes these £4 lower than
    the printed amount": 12 / 10 / 8 / 6 (solo: 12)."""
    for n in (1, 4):
        g = blank_position(n, money=50, farmers_markets=True)
        got = []
        for k in range(n):
            p = g.current_player
            before = g.players[p].money
            act(g, "pass")
            got.append(g.players[p].money - before)
            while g.phase == 1 and g.current_player is not None and g.decision_kind != "main":
                g.apply(g.legal_actions()[0])
            if n == 1:
                break
        want = [D.SOLO_PASSING_BONUS - 4] if n == 1 else [b - 4 for b in D.PASSING_BONUS]
        assert got == want == ([12] if n == 1 else [12, 10, 8, 6])


def test_bonus_menu_orders_neighbourhood_market_and_building():
    """R3.2 "Then, in any order, you may use the Neighbourhood bonus, Farmers market bonus, and Building
    bonus": with all three the player picks the next one each time."""
    g = blank_position(3, farmers_markets=True)
    p, o = g.turn_order[0], g.turn_order[1]
    for s in g.modstate["farmers_markets"].markets[0::5]:
        g.occupant[s] = -1
        g.occupied &= ~(1 << s)
    g.modstate["farmers_markets"].markets = []
    grass = set(active_land(g, GRASS))
    nb = g.board.neighbours
    target, own, opp, market = next(
        (t, x, y, m) for t in sorted(grass) for x in nb[t] for y in nb[t] for m in nb[t]
        if len({x, y, m}) == 3 and {x, y, m} <= grass and g.topo.market_sites >> m & 1)
    put(g, p, "sheep", own)
    put(g, o, "distillery", opp)
    put_market(g, market, "milk", "cheese")
    near = {target, own, opp, market} | {u for s in (target, own, opp, market) for u in g.board.adjacent[s]}
    for s in [s for s in sorted(grass) if s not in near and g.occupant[s] == -1][:3]:
        put(g, p, "cheese_dairy", s)
    g.players[p].goods = [0, 3, 0, 0, 0, 0]
    g.players[p].merchants_stock, g.players[p].merchants_board = 5, D.MERCHANTS_TOTAL - 5
    start_turn(g, p)
    act(g, "expand:cheese_dairy", f"space:{label(g, target)}")
    assert g.decision_kind == "bonus_menu"
    assert legal_names(g) == {"choose:0", "choose:1", "choose:2"}
    act(g, "choose:2")                                  # the market first
    assert g.decision_kind == "market_sell"
    act(g, "trade:sell:milk:2")
    assert g.decision_kind == "bonus_order" or g.decision_kind == "bonus_menu"
    assert legal_names(g) == {"choose:0", "choose:1"}
    act(g, "choose:1")                                  # Building, then the Neighbourhood bonus
    assert g.decision_kind == "building_bonus"
    act(g, "done")
    assert g.decision_kind == "neighbourhood"
    check_invariants(g)


def test_port_tile_7_exchange_triggers_the_market_with_industria():
    """R7.9 / R11.20: Port tile 7 "(Industria errata: this now triggers the Neighbourhood bonus and
    Farmers market bonus as if it were a normal Deployment)"; without Industria it does not."""
    from clans_env.engine.state import K_EXCHANGE_FROM
    from helpers import push
    g, p, target, m = market_position()
    put(g, p, "cow", target)
    push(g, (K_EXCHANGE_FROM, p, (), ()))
    act(g, f"space:{label(g, target)}", "expand:sheep")     # no second exchange left: the bonuses follow
    assert g.decision_kind == "market_sell" and g.stack[-1][2] == m
    base, bp, btarget, bm = market_position()
    base.config = GameConfig(num_players=3)                 # the base game's tile 7: no market, no Neighbourhood
    base.hooks = hooks_for(base.config)                     # the rules read the modules through the hooks
    put(base, bp, "cow", btarget)
    push(base, (K_EXCHANGE_FROM, bp, (), ()))
    act(base, f"space:{label(base, btarget)}", "expand:sheep")
    assert base.decision_kind != "market_sell"


def test_random_industria_games_keep_the_invariants():
    """Issue 12, Tests: random seeded games with every module on, invariants after every action, a
    save that loads back exactly (the long run is benchmarks/clan_stats.py --industria)."""
    for n in (1, 2, 3, 4):
        for seed in range(3):
            rng = random.Random(seed)
            g = Game(random_config(rng, n, 900 + seed, industria=1.0))
            assert set(g.config.industria_modules) >= {"farmers_markets", "awards", "refill_board"}
            random_playout(g, rng, pass_prob=0.1, on_step=check_invariants)
            again = Game.from_json(g.to_json())
            assert again.to_json() == g.to_json()


def test_ppo_trains_and_plays_on_an_industria_configuration(tmp_path):
    """Issue 12, the rest of the stack: a short PPO run on an Industria configuration (its encoder
    carries the Industria segment), and the model plays a whole Industria game of legal moves; a
    base-game model refuses an Industria game (other observation size) with a clear error."""
    from agents.ppo import CheckpointError, PPOAgent
    from training.config import PPOConfig
    from training.ppo import PPOTrainer
    cfg = PPOConfig(num_players=2, total_steps=10_000, rollout_steps=64, num_envs=2, hidden_sizes=[16],
                    minibatch_size=32, epochs=1, eval_every=100, eval_games_random=0, eval_games_heuristic=0,
                    pool_add_every=1, pool_size=2, checkpoint_every=100, game_options={"industria": True},
                    opponent_weights={"current": 0.5, "random": 0.5})
    trainer = PPOTrainer(cfg, tmp_path / "run", progress=False, tensorboard=False)
    assert trainer.encoder.industria == GameConfig(num_players=2, industria=True).industria_modules
    trainer.train(max_updates=2)
    agent = PPOAgent(tmp_path / "run" / "model.pt", seed=1)
    g = Game(GameConfig(num_players=2, seed=5, industria=True))
    while not g.is_terminal():
        a = agent.act(g) if g.current_player == 0 else g.legal_actions()[0]
        assert a in g.legal_actions()
        g.apply(a)
    with pytest.raises(CheckpointError):
        PPOAgent(Path(__file__).resolve().parent.parent / "models" / "ppo_2p" / "model.pt").act(Game(GameConfig(num_players=2, seed=1, industria=True)))


def test_saves_bump_the_version_and_old_base_saves_still_load():
    """Issue 12: "to_json/from_json (bump the save version; old saves still load)": a save is version 2;
    a version-1 save of a base game loads into the same game; a version-1 file claiming Industria
    modules is refused; an Industria game loads back exactly."""
    import json
    from clans_env.engine.saves import SAVE_VERSION
    g = Game(GameConfig(num_players=2, seed=8))
    random_playout(g, random.Random(2))
    doc = json.loads(g.to_json())
    assert doc["version"] == SAVE_VERSION == 4         # 4 since the modules' state records (the Automa's)
    doc["version"] = 1
    assert Game.from_json(json.dumps(doc)).to_json() == g.to_json()
    doc["config"]["awards"] = True
    with pytest.raises(ValueError, match="version 1"):
        Game.from_json(json.dumps(doc))
    h = Game(GameConfig(num_players=3, seed=8, industria=True))
    random_playout(h, random.Random(3))
    assert Game.from_json(h.to_json()).to_json() == h.to_json()


def test_mcts_and_heuristic_play_industria_games():
    """Issue 12: the search agents run on Industria configurations (MCTS with determinization of the
    pile below the refill board; the heuristic values the new decisions through its lookahead)."""
    from agents import HeuristicAgent, MCTSAgent
    g = Game(GameConfig(num_players=2, seed=12, industria=True))
    agents = [MCTSAgent(sims=8, seed=1), HeuristicAgent(seed=2)]
    moves = 0
    while not g.is_terminal() and moves < 150:
        a = agents[g.current_player].act(g)
        assert a in g.legal_actions()
        g.apply(a)
        moves += 1
    assert moves == 150 or g.is_terminal()
