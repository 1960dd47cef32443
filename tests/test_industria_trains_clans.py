"""Delivery bonuses and the clans (issue 14): the clan clauses of the Delivery bonus texts (R13.26 tiles 10,
20, 22, 24; R19.2-R19.4) and R13.27 ("Bonuses 20-22 count as regular Trade actions; bonuses 22-24 count as
Fulfil an Export Contract actions - which matters for Clan abilities that trigger on those actions"), each
from a constructed position, for every base or Industria clan whose ability triggers on a Trade or a Fulfil.
Readings T11, T13, T16 and T17 of docs/rules-interpretations.md. Also the Export box stacks of bonus 16 in
the observation and the public views (T13)."""
from __future__ import annotations

import numpy as np
import pytest

from clans_env.encoding import ObservationEncoder
from clans_env.engine import actions as A
from clans_env.engine import data as D
from clans_env.engine import trainmap as TM
from clans_env.engine.clans.fraser import KILTS
from clans_env.engine.invariants import check_invariants
from clans_env.engine.rules import deliveries as DL
from clans_env.engine.rules.common import price
from clans_env.engine.state import K_DELIVERY

from helpers import blank_position, free_spaces, put, start_turn, GRASS

CHOOSE = A.CHOOSE
WOOL, MILK, GRAIN = D.GOOD_INDEX["wool"], D.GOOD_INDEX["milk"], D.GOOD_INDEX["grain"]
CHEESE, BREAD, WHISKY = D.GOOD_INDEX["cheese"], D.GOOD_INDEX["bread"], D.GOOD_INDEX["whisky"]
OTHERS = ("campbell", "robertson", "cunningham")


def clan_position(clan: str, n: int = 3, **options):
    """Round 1, Action phase, empty map, the Train module on; seat 0 plays ``clan`` and is to act."""
    clans = [clan] + [c for c in OTHERS if c != clan][:n - 1]
    options.setdefault("industria_clans", True)
    g = blank_position(n, money=100, trains=True, clans=clans, **options)
    start_turn(g, 0)
    return g, g.players[0]


def push_bonus(g, tile: int, part: int = 0):
    """Seat 0 takes part ``part`` of Delivery bonus ``tile`` (the rest of the tile is left out)."""
    g.stack.append((K_DELIVERY, 0, tile, 1 << part))
    g._advance()
    g.apply(CHOOSE + part)


def resolve(g):
    """Answer what is left of the bonus (first legal answer, done where offered) back to the main decision."""
    while g.decision_kind != "main":
        legal = g.legal_actions()
        g.apply(A.DONE if A.DONE in legal else legal[0])


def contract(g, *, goods=None, imports=None, hops=False, exclude=()):
    """A contract without Meat from the pile (taken out of it), with the asked features."""
    for c in D.CONTRACTS:
        if c.beef or c.mutton or c.id in exclude or c.id not in g.pile:
            continue
        if goods is not None and not goods(c):
            continue
        if imports is not None and not c.imports[imports]:
            continue
        if hops and not c.hops:
            continue
        g.pile.remove(c.id)
        return c
    raise AssertionError("no such contract")


def merchants_in_stock(pl, k: int):
    """Hire Merchants from the Player board until ``k`` are in stock."""
    moved = k - pl.merchants_stock              # negative: back to the board
    assert 0 <= pl.merchants_board - moved
    pl.merchants_board -= moved
    pl.merchants_stock = k


def pay_for(pl, c):
    for i, q in enumerate(c.goods):
        pl.goods[i] = q


# ---- tile 10 (R13.26): "Clan Fraser may process Wool into Kilts if there's space on its tile" ----------------
def test_bonus_10_fraser_processes_wool_into_kilts_while_there_is_room():
    """R13.26 tile 10, Clan Fraser: good:wool makes a Kilt (no Kiltmaker needed: "no factories needed"),
    counting toward the 4 Goods processed, until Fraser holds 2 Kilts (R18.F2's limit)."""
    g, pl = clan_position("fraser")
    pl.goods[WOOL], pl.goods[MILK] = 3, 2
    assert DL.part_possible(g, 0, TM.DELIVERY_PARTS[10][0])
    push_bonus(g, 10)
    assert A.GOOD + WOOL in g.legal_actions() and A.GOOD + CHEESE in g.legal_actions()
    g.apply(A.GOOD + WOOL)
    g.apply(A.GOOD + WOOL)
    assert pl.extra[KILTS] == 2 and pl.goods[WOOL] == 1
    assert A.GOOD + WOOL not in g.legal_actions()                   # no space left on the tile
    g.apply(A.GOOD + CHEESE)
    g.apply(A.GOOD + CHEESE)                                        # the 4th Good processed ends it
    assert g.decision_kind == "main"
    assert pl.goods[CHEESE] == 2 and pl.goods[MILK] == 0 and pl.goods[WOOL] == 1
    check_invariants(g)


def test_bonus_10_wool_alone_is_enough_for_fraser_only():
    """R13.26 tile 10: Wool is processed by Clan Fraser only (into Kilts), and only with space for one."""
    g, pl = clan_position("fraser")
    pl.goods[WOOL] = 1
    push_bonus(g, 10)
    assert g.legal_actions() == [A.DONE, A.GOOD + WOOL]
    g.apply(A.GOOD + WOOL)
    assert pl.extra[KILTS] == 1 and g.decision_kind == "main"       # nothing left to process
    pl.extra[KILTS] = D.FRASER_MAX_KILTS
    pl.goods[WOOL] = 3
    assert not DL.part_possible(g, 0, TM.DELIVERY_PARTS[10][0])     # the tile is full
    g2, pl2 = clan_position("stewart")
    pl2.goods[WOOL] = 3
    assert not DL.part_possible(g2, 0, TM.DELIVERY_PARTS[10][0])    # no clan but Fraser processes Wool


# ---- tile 20 (R13.26, R13.27, R19.3, R19.4): a regular Trade action -------------------------------------------
def test_bonus_20_stewart_gains_his_pound():
    """R13.26 tile 20, Clan Stewart: "gain their usual benefit" (£1 for trading at the Market)."""
    g, pl = clan_position("stewart")
    pl.goods[WOOL] = 2
    unit = price(g, WOOL)
    m = pl.money
    push_bonus(g, 20)
    g.apply(A.trade_action(WOOL, A.SELL, 2))
    assert pl.money == m + 2 * unit + 2 * 6 + D.STEWART_TRADE_MONEY
    assert pl.merchants_market[WOOL * 2 + A.SELL] == 2


def test_bonus_20_douglas_bulk_trading_up_to_four_units_six_pounds_each():
    """R13.26 tile 20, Clan Douglas's usual benefit (Bulk Trading, R18.D2-R18.D4): 2 Merchants sell 4 Wool,
    the marker moves 2 steps, £2 per pair; the bonus's "up to 4 units" caps the Goods and its £6 is per unit
    sold, not per Merchant."""
    g, pl = clan_position("douglas")
    pl.goods[WOOL] = 6
    merchants_in_stock(pl, 4)
    unit, step = price(g, WOOL), g.prices[WOOL]
    m = pl.money
    push_bonus(g, 20)
    g.apply(A.trade_action(WOOL, A.SELL, 2))
    assert g.legal_actions() == [CHOOSE + 2, CHOOSE + 3, CHOOSE + 4]   # Goods sold: 2 to 2 per Merchant, at most 4
    g.apply(CHOOSE + 4)
    assert pl.goods[WOOL] == 2 and pl.merchants_stock == 2
    assert g.prices[WOOL] == max(0, step - 2)
    assert pl.money == m + 4 * unit + 4 * 6 + 2 * D.DOUGLAS_PAIR_MONEY
    assert g.decision_kind == "main"
    g, pl = clan_position("douglas")
    pl.goods[WOOL] = 8
    merchants_in_stock(pl, 4)
    push_bonus(g, 20)
    g.apply(A.trade_action(WOOL, A.SELL, 3))
    assert g.legal_actions() == [CHOOSE + 3, CHOOSE + 4]            # 3 Merchants, still at most 4 units
    check_invariants(g)


def test_bonus_20_port_tile_6_applies_before_the_sale():
    """R13.26 tile 20, R19.4: "Port tile 6 applies": in reach and unused, it may move the price 3 steps
    first (use_port:<slot> in the sale's step), then the sale at the new price."""
    g, pl = clan_position("stewart")
    g.port_tiles = (6,) + tuple(t for t in g.port_tiles if t != 6)[:len(g.port_tiles) - 1]
    land = next(t for t in g.board.neighbours[g.topo.port_space[0]] if g.occupant[t] == -1)
    put(g, 0, "woodcutter", land, check=False)
    pl.goods[WOOL] = 1
    push_bonus(g, 20)
    assert A.USE_PORT + 0 in g.legal_actions()
    step = g.prices[WOOL]
    g.apply(A.USE_PORT + 0)
    assert pl.ports_used & 1
    g.apply(A.market_area_action(WOOL, A.BUY))                     # up 3 steps
    assert g.prices[WOOL] == min(D.MAX_STEP, step + D.PORT6_STEPS)
    assert A.USE_PORT + 0 not in g.legal_actions()                  # once per game
    unit, m = price(g, WOOL), pl.money
    g.apply(A.trade_action(WOOL, A.SELL, 1))
    assert pl.money == m + unit + 6 + D.STEWART_TRADE_MONEY
    g2, pl2 = clan_position("stewart")
    g2.port_tiles = g.port_tiles
    pl2.goods[WOOL] = 1
    push_bonus(g2, 20)
    assert A.USE_PORT + 0 not in g2.legal_actions()                 # out of reach: not offered


def test_bonus_20_fraser_sells_kilts_as_a_processed_good():
    """R13.27 (a regular Trade), Clan Fraser (R18.F3: Kilts are used as any Processed good to trade): bonus 20
    may sell Kilts as Whisky, £6 extra each."""
    g, pl = clan_position("fraser")
    pl.extra[KILTS] = 2
    pl.goods[WHISKY] = 1
    merchants_in_stock(pl, 3)
    assert A.trade_action(WHISKY, A.SELL, 3) in DL.sell_options(g, 0, TM.DELIVERY_PARTS[20][0])
    unit, m = price(g, WHISKY), pl.money
    push_bonus(g, 20)
    g.apply(A.trade_action(WHISKY, A.SELL, 3))
    assert pl.extra[KILTS] == 0 and pl.goods[WHISKY] == 0
    assert pl.money == m + 3 * unit + 3 * 6
    g, pl = clan_position("fraser")
    pl.extra[KILTS], pl.goods[WHISKY] = 1, 1
    push_bonus(g, 20)
    g.apply(A.trade_action(WHISKY, A.SELL, 1))
    assert g.legal_actions() == [CHOOSE + 0, CHOOSE + 1]            # the Whisky or the Kilt (kilt_trade)
    m = pl.money
    g.apply(CHOOSE + 1)
    assert pl.extra[KILTS] == 0 and pl.goods[WHISKY] == 1 and pl.money > m + 6
    check_invariants(g)


# ---- tile 21 (R13.27): a regular Trade action without Goods ----------------------------------------------------
def test_bonus_21_stewart_gains_his_pound_douglas_nothing():
    """R13.26 tile 21, R13.27: a regular Trade action: Clan Stewart's £1 (R19.3); Clan Douglas's Bulk Trading
    pays per pair of Goods traded, and no Good is traded (T17)."""
    for clan, extra in (("stewart", D.STEWART_TRADE_MONEY), ("douglas", 0), ("campbell", 0)):
        g, pl = clan_position(clan)
        merchants_in_stock(pl, 3)
        m = pl.money
        push_bonus(g, 21)
        g.apply(A.market_area_action(GRAIN, A.SELL))
        assert g.decision_kind == "main", clan
        assert pl.money == m + 20 + extra, clan


# ---- tile 22 (R13.26, R13.27, R19.3): a Trade and a Fulfil ----------------------------------------------------
def _two_type_contract(g):
    return contract(g, goods=lambda c: sum(1 for q in c.goods if q) >= 2 and sum(c.goods) <= 3)


def test_bonus_22_stewart_gains_one_pound_per_type_of_good_traded():
    """R13.26 tile 22: "Clan Stewart gains £1 per type of Good traded" (R19.3); Clan Douglas's Bulk Trading
    is a way for Merchants to trade, and this free "buy" places none: nothing (T17)."""
    for clan in ("stewart", "douglas", "campbell"):
        g, pl = clan_position(clan)
        c = _two_type_contract(g)
        pl.open_contracts = [c.id]
        need = [i for i, q in enumerate(c.goods) if q]
        for i, q in enumerate(c.goods):                              # short of one of each of two types
            pl.goods[i] = q - 1 if i in need[:2] else q
        m = pl.money
        push_bonus(g, 22)
        g.apply(A.FULFIL + 0)
        g.apply(A.GOOD + need[0])
        g.apply(A.GOOD + need[1])
        g.apply(A.DONE)
        resolve(g)
        assert c.id in pl.done_contracts
        gained = pl.money - m - c.money
        assert gained == (2 * D.STEWART_TRADE_MONEY if clan == "stewart" else 0), clan


def test_bonus_22_fraser_kilts_cover_what_the_free_goods_do_not():
    """R13.27 (a Fulfil), Clan Fraser (R18.F3): Kilts count toward the contract, so a contract short of 3
    Goods takes the bonus when a Kilt covers the third (without it, no)."""
    g, pl = clan_position("fraser")
    c = contract(g, goods=lambda c: any(c.goods[i] for i in D.PROCESSED_GOODS) and sum(c.goods) >= 3)
    pl.open_contracts = [c.id]
    units = [i for i in range(D.NUM_GOODS) for _ in range(c.goods[i])]
    units.remove(next(i for i in D.PROCESSED_GOODS if c.goods[i]))  # the Kilt pays this one
    free, stock = units[:2], units[2:]
    pl.goods = [0] * D.NUM_GOODS
    for i in stock:
        pl.goods[i] += 1
    pl.extra[KILTS] = 0
    assert DL.free_buy_boxes(g, 0) == []                           # 3 missing: more than 2 free Goods
    pl.extra[KILTS] = 1
    assert DL.free_buy_boxes(g, 0) == [0]
    push_bonus(g, 22)
    g.apply(A.FULFIL + 0)
    for i in free:
        g.apply(A.GOOD + i)
    g.apply(A.DONE)
    resolve(g)
    assert c.id in pl.done_contracts and pl.extra[KILTS] == 0 and sum(pl.goods) == 0
    check_invariants(g)


# ---- tiles 22-24 (R13.27): Fulfil an Export Contract actions -------------------------------------------------
def _fulfil_by_bonus(g, pl, tile: int, c, extra=None):
    """Fulfil contract ``c`` (in box 0) with Delivery bonus ``tile`` (22 with the Goods in stock and done,
    23, or 24 returning a Field); ``extra``: Goods in stock besides (a list per Good)."""
    extra = extra or [0] * D.NUM_GOODS
    if tile == 24:
        pl.goods = list(extra)
        s = put(g, 0, "field", free_spaces(g, GRASS)[0])
        push_bonus(g, 24)
        g.apply(A.SPACE + s)
        g.apply(A.FULFIL + 0)
    else:
        pl.goods = [q + e for q, e in zip(c.goods, extra)]
        push_bonus(g, tile)
        g.apply(A.FULFIL + 0)
        if tile == 22:
            g.apply(A.DONE)


@pytest.mark.parametrize("tile", [22, 23, 24])
def test_bonuses_22_to_24_give_buchanan_his_second_fulfilment_as_usual(tile):
    """R13.27, Clan Buchanan (fulfil up to two contracts per turn): after the bonus's fulfilment the second
    contract may be fulfilled, as usual (paying its Goods). Tile 24: "may fulfil 2 Export contracts as usual
    but may apply this bonus to only 1" (R19.2): the second one pays its Goods."""
    g, pl = clan_position("buchanan", industria_clans=False)
    a = contract(g)
    b = contract(g, exclude=(a.id,))
    pl.open_contracts = [a.id, b.id]
    _fulfil_by_bonus(g, pl, tile, a)
    resolve(g)
    assert a.id in pl.done_contracts                                  # no Goods for b: it stays open
    assert pl.open_contracts == [b.id] and b.id not in pl.done_contracts
    g, pl = clan_position("buchanan", industria_clans=False)
    a = contract(g)
    b = contract(g, exclude=(a.id,))
    pl.open_contracts = [a.id, b.id]
    _fulfil_by_bonus(g, pl, tile, a, extra=list(b.goods))
    while g.decision_kind != "clan":                                  # the contract's own rewards first
        g.apply(g.legal_actions()[0])
    assert g.stack[-1][2] == "second_fulfil"
    assert g.legal_actions() == [A.DONE, A.FULFIL + 0]              # b, paying its Goods as usual
    m = pl.money
    g.apply(A.FULFIL + 0)
    resolve(g)
    assert b.id in pl.done_contracts and sum(pl.goods) == 0
    assert g.turn["fulfilled"] == 2
    check_invariants(g)


def test_bonus_24_applies_to_one_contract_of_buchanans_two():
    """R13.26 tile 24, Clan Buchanan (R19.2): the Field pays for one contract only: with two contracts and
    no Goods, the second is not offered."""
    g, pl = clan_position("buchanan", industria_clans=False)
    a = contract(g)
    b = contract(g, exclude=(a.id,))
    pl.open_contracts = [a.id, b.id]
    s = put(g, 0, "field", free_spaces(g, GRASS)[0])
    push_bonus(g, 24)
    g.apply(A.SPACE + s)
    assert g.legal_actions() == [A.FULFIL + 0, A.FULFIL + 1]        # either of the two
    g.apply(A.FULFIL + 1)
    resolve(g)
    assert pl.done_contracts == [b.id] and pl.open_contracts == [a.id]


@pytest.mark.parametrize("tile", [22, 23, 24])
def test_bonuses_22_to_24_let_macewen_brew_beer(tile):
    """R13.27, Clan MacEwen (each time it fulfils a contract that gives Hops, Beer at once)."""
    g, pl = clan_position("macewen", industria_clans=False, kickstarter=True)
    c = contract(g, hops=True, goods=lambda c: not c.goods[GRAIN])
    pl.open_contracts = [c.id]
    grain = [0] * D.NUM_GOODS
    grain[GRAIN] = 3
    _fulfil_by_bonus(g, pl, tile, c, extra=grain)
    while g.decision_kind != "clan":                                  # Direct export bonuses come first
        g.apply(g.legal_actions()[0])
    assert g.stack[-1][2] == "beer"
    m = pl.money
    g.apply(CHOOSE + 1)
    assert pl.money == m + D.MACEWEN_BEER_MONEY and c.id in pl.done_contracts


@pytest.mark.parametrize("tile", [22, 23, 24])
def test_bonuses_22_to_24_count_cotton_for_fraser(tile):
    """R13.27, Clan Fraser's Cotton Imports Bonus (R18.F5: every fulfilment): 2 Wool when the Cotton imported
    reaches a multiple of 4."""
    g, pl = clan_position("fraser")
    c = contract(g, imports=D.COTTON, goods=lambda c: not c.goods[WOOL])
    pl.imports[D.COTTON] = D.FRASER_COTTON_STEP - 1
    g.import_track[D.COTTON] = D.FRASER_COTTON_STEP - 1
    pl.open_contracts = [c.id]
    _fulfil_by_bonus(g, pl, tile, c)
    resolve(g)
    assert c.id in pl.done_contracts and pl.goods[WOOL] == D.FRASER_COTTON_WOOL * (
        (D.FRASER_COTTON_STEP - 1 + c.imports[D.COTTON]) // D.FRASER_COTTON_STEP)


def test_bonus_24_counts_as_a_fulfil_action():
    """R13.27: tile 24 is a Fulfil an Export Contract action: it counts toward the turn's fulfilments, as tiles
    22 and 23 (which fulfil through the Fulfil rule)."""
    g, pl = clan_position("campbell", industria_clans=False)
    c = contract(g)
    pl.open_contracts = [c.id]
    _fulfil_by_bonus(g, pl, 24, c)
    resolve(g)
    assert g.turn["fulfilled"] == 1 and c.id in pl.done_contracts


# ---- bonus 16's Export box stacks in the observation and the views (T13) -----------------------------------
def _stacked_position():
    """Seat 0 (Buchanan) holds contracts a (box 0) and b (box 1); bonus 16 puts n1 on b and n2 on n1... as the
    printed game makes them: box 1 = n2 over n1 over b; box 0 = a alone."""
    g, pl = clan_position("buchanan", industria_clans=False)
    a = contract(g)
    b = contract(g, exclude=(a.id,))
    n1 = contract(g, exclude=(a.id, b.id))
    n2 = contract(g, exclude=(a.id, b.id, n1.id))
    pl.open_contracts = [a.id, n2.id]
    g.modstate["trains"].below = [n1.id, b.id, n2.id, n1.id]
    check_invariants(g)
    return g, a, b, n1, n2


def test_observation_shows_the_contracts_under_each_export_box_in_order():
    """Bonus 16 (T13): the contracts under a box's top one are face up in the Export box: the observation
    names them per player (relative seats) and box, the next to surface first, for the owner and the others."""
    from clans_env.encoding.observation import CONTRACT_TABLE, CONTRACT_WIDTH
    from clans_env.encoding import train_obs
    g, a, b, n1, n2 = _stacked_position()
    n = g.num_players
    for accelerated in (False, True):
        enc = ObservationEncoder(n, industria=g.config.industria_modules, accelerated=accelerated)
        sl = enc.slices["industria.train.export_stack"]
        depth = train_obs.STACK_DEPTH
        assert sl.length == n * 2 * depth * CONTRACT_WIDTH
        for seat in range(n):
            v = enc.encode(g, seat)[sl.slice].reshape(n, 2, depth, CONTRACT_WIDTH)
            rel = (0 - seat) % n
            assert np.array_equal(v[rel, 1, 0], CONTRACT_TABLE[n1.id + 1])    # next to surface first
            assert np.array_equal(v[rel, 1, 1], CONTRACT_TABLE[b.id + 1])
            assert not v[rel, 1, 2:].any() and not v[rel, 0].any()            # box 0: a alone
            assert not np.delete(v, rel, axis=0).any()                         # nobody else has a stack
            count = enc.encode(g, seat)[enc.slices["industria.train.export_stack_size"].slice].reshape(n, 2)
            assert count[rel, 1] == pytest.approx(2 / depth) and count[rel, 0] == 0
    g.modstate["trains"].below = []
    g.players[0].open_contracts = [a.id, b.id]
    enc = ObservationEncoder(n, industria=g.config.industria_modules)
    assert not enc.encode(g, 0)[enc.slices["industria.train.export_stack"].slice].any()


def test_observation_layout_without_the_train_module_is_unchanged():
    """The stack slices come with the Train module only: Industria configurations without it (part 1, the
    Milestone variants) keep their layout."""
    from clans_env.engine.config import INDUSTRIA_MODULES
    part1 = tuple(m for m in INDUSTRIA_MODULES if m != "trains")
    for n in (1, 2, 3, 4):
        without = ObservationEncoder(n, industria=part1)
        with_trains = ObservationEncoder(n, industria=INDUSTRIA_MODULES)
        names = [s.name for s in without.layout]
        assert "industria.train.export_stack" not in names
        assert [s.name for s in with_trains.layout if s.name not in (
            "industria.train.export_stack", "industria.train.export_stack_size")] == names
        assert with_trains.size == without.size + n * 2 * (1 + 3 * 16)


def test_public_state_and_render_text_show_the_stacks():
    """Bonus 16 (T13): public_state and render_text show which contracts lie under which box's top one."""
    g, a, b, n1, n2 = _stacked_position()
    stacks = g.public_state()["industria"]["trains"]["export_stacks"]
    assert stacks == [{"player": 0, "box": 1, "top": n2.id, "under": [n1.id, b.id]}]
    text = g.render_text()
    assert f"P0 box 1: {n2.id} over {n1.id}, {b.id}" in text


@pytest.mark.parametrize("tile", [22, 23])
def test_bonuses_22_and_23_let_macleod_use_his_shipyard_tile_10_inside_the_fulfil(tile):
    """R13.27, Clan MacLeod (R18.ML2-R18.ML7: Shipyard tiles 1 and 10 act inside a Fulfil action): bonuses 22
    and 23 fulfil through the Fulfil rule, so a Shipyard with Port tile 10 may ignore a missing Processed
    good (the limit allowing), and its Building bonus follows the contract's rewards (R18.ML6)."""
    from clans_env.engine.clans import macleod as ML
    g, pl = clan_position("macleod")
    c = contract(g, goods=lambda c: any(c.goods[i] for i in D.PROCESSED_GOODS) and sum(c.goods) <= 3)
    pl.open_contracts = [c.id]
    pl.extra[ML.SHIPYARDS] = [10, 5, 4, 3]
    pl.extra[ML.USED] = [0, 0, 0, 0]
    pl.ports_used = 1                                               # one Port tile on the map used: limit 1
    missing = next(i for i in D.PROCESSED_GOODS if c.goods[i])
    pl.goods = list(c.goods)
    pl.goods[missing] -= 1                                          # tile 22: no free Good, the Shipyard
    push_bonus(g, tile)
    assert A.FULFIL + 0 in g.legal_actions()
    g.apply(A.FULFIL + 0)
    if tile == 22:
        g.apply(A.DONE)                                             # "buy" nothing
    assert g.decision_kind == "port_ignore"
    g.apply(A.GOOD + missing)
    assert pl.extra[ML.USED][0] == 1 and c.id in pl.done_contracts and sum(pl.goods) == 0
    kinds = []
    while g.decision_kind != "main":
        kinds.append(g.decision_kind)
        g.apply(A.DONE if A.DONE in g.legal_actions() else g.legal_actions()[0])
    assert "building_bonus" in kinds                                # the Shipyard's Building bonus (R18.ML6)
