"""Industria clans, part A (issue 13): Douglas, Fraser, Gordon, Mackintosh, MacPherson. Each test names the
rule of docs/rules-index.md (R18) it checks (R18.<clan><n>) and quotes the player aid; readings
of ambiguous text are the Q-numbers of docs/rules-index.md and docs/rules-interpretations.md ("Industria clans").

Positions are built like the base rules tests: a real game after setup, the map cleared, units put with
``put``, the decision under test reached through the public API."""
from __future__ import annotations

import pytest

from clans_env.engine import actions as A
from clans_env.engine import data as D
from clans_env.engine.clans.fraser import kiltmakers
from clans_env.engine.invariants import check_invariants
from clans_env.engine.rules.production import start_production
from clans_env.engine.rules.scoring import final_scores, scoring_tile_glory
from clans_env.engine.state import K_NEIGHBOURHOOD, PRODUCTION
from clans_env.engine.views import render_text
from helpers import FOREST, GRASS, MOUNTAIN, act, active_land, blank_position, label, legal_names, put, start_turn

OTHERS = ("stewart", "cunningham", "robertson", "campbell")


def position(clan, n=2, money=100, **options):
    """Round 1 Action phase on an empty map; seat 0 plays ``clan`` (the others base clans) and is to move."""
    clans = [clan] + [c for c in OTHERS if c != clan][:n - 1]
    g = blank_position(n, money=money, clans=clans, industria_clans=True, **options)
    start_turn(g, 0)
    return g


def production(g, answer=None):
    """Everyone has passed: run the Production phase, answering decisions with ``answer(g)`` (an action
    name, or None for the first legal action) until the next round starts."""
    for pl in g.players:
        pl.passed = True
    g.pass_order = list(g.turn_order)
    g.stack = []
    start_production(g)
    g._advance()
    while g.phase == PRODUCTION:
        name = answer(g) if answer else None
        g.apply(g.legal_actions()[0] if name is None else g.string_to_action(name))


def neighbour_pairs(g, land_a=GRASS, land_b=GRASS):
    """(a, b): neighbouring active spaces (no river) of the two land types, both empty."""
    b = g.board
    A_, B_ = set(active_land(g, land_a)), set(active_land(g, land_b))
    return [(s, t) for s in sorted(A_) for t in b.neighbours[s] if t in B_ and t != s]


def isolated(g, spaces, margin=2):
    """True when no unit stands within ``margin`` steps of any of ``spaces``."""
    b = g.board
    seen = set(spaces)
    frontier = set(spaces)
    for _ in range(margin):
        frontier = {t for s in frontier for t in b.adjacent[s]} - seen
        seen |= frontier
    return all(g.occupant[s] == -1 for s in seen)


def set_price(g, good, value):
    g.prices[good] = D.PRICES[good].index(value)


# ==== Clan Douglas ======================================================================================
def test_douglas_returns_one_starting_merchant():
    """R18.D1 "At the start of the game, return 1 of your starting Merchants to the box" (Q47: from the 2
    in stock: 1 in stock, 5 on the track; the invariants count 6 Merchants for Douglas)."""
    g = position("douglas", n=3)
    assert g.players[0].merchants_stock == 1 and g.players[0].merchants_board == D.MERCHANTS_ON_TRACK
    assert g.players[1].clan == "stewart" and g.players[2].merchants_stock == D.MERCHANTS_IN_STOCK
    check_invariants(g)


def test_douglas_whisky_example_exactly():
    """R18.D5 "you buy 3 units of Whisky at £10. You place 2 Merchants on the Market board, pay £30 as normal
    for the 3 units, then increase the Price marker only 2 steps (one per Merchant). You gain £2 for the 1
    pair of Whisky you bought." (R18.D2-R18.D4)."""
    g = position("douglas", money=50)
    pl = g.players[0]
    pl.merchants_stock, pl.merchants_board = 2, 4
    set_price(g, D.WHISKY, 10)
    step = g.prices[D.WHISKY]
    start_turn(g, 0)
    act(g, "trade:buy:whisky:2")                      # 2 Merchants ...
    assert g.decision_kind == "clan"
    assert legal_names(g) == {"choose:2", "choose:3", "choose:4"}     # 1 or 2 Goods per Merchant
    act(g, "choose:3")                                # ... trade 3 Whisky
    assert pl.goods[D.WHISKY] == 3
    assert pl.money == 50 - 30 + 2                    # £30 at £10 each, then £2 for one pair
    assert g.prices[D.WHISKY] == step + 2             # two steps: one per Merchant
    assert pl.merchants_market[D.WHISKY * 2 + A.BUY] == 2 and pl.merchants_stock == 0
    assert g.decision_kind != "clan"                  # the trade is over
    check_invariants(g)


def test_douglas_goods_limited_by_money_and_stock():
    """R18.D2 "each of your Merchants can trade up to 2 Goods": the choice runs from one to two Goods per
    Merchant, within the money (buying: the £2 per pair comes only after paying, R18.D4) and the Goods
    in stock (selling); with a single possibility nothing is asked."""
    g = position("douglas", money=35)
    pl = g.players[0]
    pl.merchants_stock, pl.merchants_board = 3, 3
    set_price(g, D.WHISKY, 10)
    start_turn(g, 0)
    act(g, "trade:buy:whisky:2")
    assert legal_names(g) == {"choose:2", "choose:3"}                 # £35: at most 3 Whisky
    act(g, "choose:2")
    assert pl.money == 35 - 20 + 2 and pl.goods[D.WHISKY] == 2       # a pair is £2 whatever the Merchants
    pl.goods[D.WOOL] = 3
    pl.merchants_stock, pl.merchants_board = 3, 3
    pl.merchants_market = [0] * (2 * D.NUM_GOODS)
    start_turn(g, 0)
    act(g, "trade:sell:wool:1")                      # one Merchant sells 1 or 2 Wool
    assert legal_names(g) == {"choose:1", "choose:2"}
    price = D.PRICES[D.WOOL][g.prices[D.WOOL]]
    step = g.prices[D.WOOL]
    money = pl.money
    act(g, "choose:2")
    assert pl.money == money + 2 * price + 2 and pl.goods[D.WOOL] == 1 and g.prices[D.WOOL] == step - 1
    start_turn(g, 0)
    act(g, "trade:sell:wool:1")                      # 1 Wool left: nothing to choose, no pair
    assert g.decision_kind != "clan" and pl.goods[D.WOOL] == 0


def neighbourhood_position(clan, n):
    g = position(clan, n=n, money=200)
    for a, b in neighbour_pairs(g):
        if isolated(g, (a, b)) and all(t == a or t == b or g.board.kind[t] for t in g.board.adjacent[a]):
            break
    put(g, 1, "distillery", a)
    pl = g.players[0]
    pl.merchants_stock, pl.merchants_board = 5, D.MERCHANTS_TOTAL - 5 - g.clans[0].merchants_returned(g, 0)
    return g, a, b


def test_douglas_neighbourhood_bonus_four_goods_in_any_player_count():
    """R18.D6 "you can buy up to 4 Goods through the Neighbourhood bonus regardless of player count" (Q47:
    4 Goods; Bulk Trading applies, so 2 Merchants may buy them). Other clans: 3 with 3-4 players."""
    g, a, b = neighbourhood_position("douglas", 3)
    g.stack.append((K_NEIGHBOURHOOD, 0, 1 << D.WHISKY))
    g._advance()
    assert {f"trade:buy:whisky:{q}" for q in range(1, 5)} <= legal_names(g)
    assert "trade:buy:whisky:5" not in legal_names(g)
    set_price(g, D.WHISKY, 10)
    money = g.players[0].money
    act(g, "trade:buy:whisky:2")
    assert legal_names(g) == {"choose:2", "choose:3", "choose:4"}
    act(g, "choose:4")
    assert g.players[0].money == money - 4 * (10 - 3) + 2 * 2       # 4 at £3 off, 2 pairs
    assert g.players[0].goods[D.WHISKY] == 4
    # three Merchants may still buy 3 or 4, never 5 or 6
    g2, _, _ = neighbourhood_position("douglas", 3)
    g2.stack.append((K_NEIGHBOURHOOD, 0, 1 << D.WHISKY))
    g2._advance()
    act(g2, "trade:buy:whisky:3")
    assert legal_names(g2) == {"choose:3", "choose:4"}
    other, _, _ = neighbourhood_position("campbell", 3)
    other.stack.append((K_NEIGHBOURHOOD, 0, 1 << D.WHISKY))
    other._advance()
    assert "trade:buy:whisky:4" not in legal_names(other) and "trade:buy:whisky:3" in legal_names(other)


def test_douglas_farmers_market_sale_counts_goods_not_merchants():
    """R18.D2 with R7.2 "sell up to 4 Goods": the limit of 4 counts Goods (Q8); Douglas's Merchants sell 2
    each, the price moves per Merchant."""
    from clans_env.engine.state import K_MARKET_SELL
    g = position("douglas", n=3, money=100, farmers_markets=True)
    m = g.modstate["farmers_markets"].markets[0]
    basic = g.modstate["farmers_markets"].markets[1]
    pl = g.players[0]
    pl.goods[basic] = 6
    pl.merchants_stock, pl.merchants_board = 3, 3
    g.stack.append((K_MARKET_SELL, 0, m))
    g._advance()
    good = D.GOODS[basic]
    assert {f"trade:sell:{good}:{q}" for q in (1, 2, 3)} <= legal_names(g)
    step = g.prices[basic]
    act(g, f"trade:sell:{good}:2")
    assert legal_names(g) == {"choose:2", "choose:3", "choose:4"}
    act(g, "choose:4")
    assert pl.goods[basic] == 2 and g.prices[basic] == max(0, step - 2)
    check_invariants(g)


# ==== Clan Fraser =======================================================================================
def kiltmaker_map(g, sheep=1, workers=1):
    """Fraser's Workers on forest/mountain spaces neighbouring its Sheep: ``workers`` Workers around
    ``sheep`` Sheep, each Worker next to a Sheep of its own. Returns (worker spaces, sheep spaces)."""
    b = g.board
    wood = set(active_land(g, FOREST)) | set(active_land(g, MOUNTAIN))
    used = set()
    ws, ss = [], []
    for s in active_land(g, GRASS):
        if len(ss) == sheep:
            break
        if s in used or g.occupant[s] != -1:
            continue
        near = [t for t in b.neighbours[s] if t in wood and t not in used and g.occupant[t] == -1
                and b.land[t] & (FOREST | MOUNTAIN)]
        if near and not any(t in used for t in b.adjacent[s]):
            put(g, 0, "sheep", s)
            ss.append(s)
            used |= {s, *b.adjacent[s]}
            w = near[0]
            unit = "woodcutter" if b.land[w] & FOREST else "miner"
            put(g, 0, unit, w)
            ws.append(w)
            used |= {w, *b.adjacent[w]}
    assert len(ss) == sheep
    return ws, ss


def test_fraser_kiltmakers_need_a_different_sheep_each_and_at_most_two():
    """R18.F1 "treat up to 2 of your Workers (each neighbouring a different Sheep) as Kiltmakers"."""
    g = position("fraser")
    assert kiltmakers(g, 0) == 0
    ws, ss = kiltmaker_map(g, sheep=1)
    assert kiltmakers(g, 0) == 1
    b = g.board
    # a second Worker next to the same (only) Sheep is no second Kiltmaker
    live = set(active_land(g))
    other = [t for t in b.neighbours[ss[0]] if t in live and g.occupant[t] == -1 and b.land[t] & (FOREST | MOUNTAIN)]
    if other:
        put(g, 0, "woodcutter" if b.land[other[0]] & FOREST else "miner", other[0])
        assert kiltmakers(g, 0) == 1
    g = position("fraser")
    kiltmaker_map(g, sheep=3)
    assert kiltmakers(g, 0) == 2                     # three Worker-Sheep pairs: still 2 Kiltmakers
    assert "Kiltmaker" in g.clans[0].state_text(g, 0)


def test_fraser_production_makes_kilts_from_wool_at_most_two_held():
    """R18.F2 "each Kiltmaker may process 1 Wool into 1 Kilt in addition to generating money as normal ...
    that token now counts as a Kilt, not as Wool. You may hold a maximum of 2 Kilts at any time"."""
    g = position("fraser")
    kiltmaker_map(g, sheep=2)
    pl = g.players[0]
    pl.goods[D.WOOL] = 0
    money = pl.money
    seen = []

    def answer(g):
        if g.decision_kind == "clan":
            seen.append(legal_names(g))
            return g.action_to_string(max(g.legal_actions()))
        return None
    production(g, answer)
    assert seen == [{"choose:0", "choose:1", "choose:2"}]           # 2 Kiltmakers, 2 Wool just produced
    assert pl.extra["kilts"] == 2 and pl.goods[D.WOOL] == 0
    income = sum(pl.units_placed(u) * g.clans[0].worker_income(g, 0, u) for u in D.WORKERS)
    assert pl.money == money + income                # the Workers earn as normal
    seen.clear()
    production(g, answer)                            # 2 Kilts held: no more are made
    assert seen == [] and pl.extra["kilts"] == 2 and pl.goods[D.WOOL] == 2
    pl.extra["kilts"] = 1
    production(g, answer)                            # room for one
    assert seen == [{"choose:0", "choose:1"}]


def test_fraser_sells_a_kilt_as_any_processed_good():
    """R18.F3 "you may use a Kilt as if it were any Processed good (Cheese, Whisky, or Bread) to ... trade"
    (Q48: at that Good's price, on its Price marker); the Kilt leaves the game, not back to Wool."""
    g = position("fraser")
    pl = g.players[0]
    pl.extra["kilts"] = 1
    start_turn(g, 0)
    names = legal_names(g)
    assert {"trade:sell:cheese:1", "trade:sell:bread:1", "trade:sell:whisky:1"} <= names
    assert "trade:sell:wool:1" not in names          # a Kilt is not Wool
    price, step = D.PRICES[D.CHEESE][g.prices[D.CHEESE]], g.prices[D.CHEESE]
    money = pl.money
    act(g, "trade:sell:cheese:1")
    assert pl.money == money + price and g.prices[D.CHEESE] == step - 1
    assert pl.extra["kilts"] == 0 and pl.goods == [0] * D.NUM_GOODS
    # Cheese in stock and a Kilt: which is sold is Fraser's choice
    pl.extra["kilts"], pl.goods[D.WHISKY] = 1, 1
    pl.merchants_stock, pl.merchants_board = 4, 3
    pl.merchants_market = [0] * (2 * D.NUM_GOODS)
    start_turn(g, 0)
    act(g, "trade:sell:whisky:2")                    # 2 needs the Kilt: no choice
    assert pl.extra["kilts"] == 0 and pl.goods[D.WHISKY] == 0 and g.decision_kind != "clan"
    pl.extra["kilts"], pl.goods[D.BREAD] = 1, 1
    start_turn(g, 0)
    act(g, "trade:sell:bread:1")
    assert legal_names(g) == {"choose:0", "choose:1"}
    act(g, "choose:0")                               # sell the Bread, keep the Kilt
    assert pl.extra["kilts"] == 1 and pl.goods[D.BREAD] == 0
    check_invariants(g)


def give_contract(g, p, cid):
    g.pile = [c for c in g.pile if c != cid]
    g.display = [(-1 if c == cid else c) for c in g.display]
    if "refill_board" in g.modstate:
        g.modstate["refill_board"].board = [c for c in g.modstate["refill_board"].board if c != cid]
    g.players[p].open_contracts = [cid]


def test_fraser_fulfils_with_kilts():
    """R18.F3 "... to fulfil contracts": Kilts cover missing Processed goods; when a Kilt could replace a Good
    in stock, Fraser chooses (good:<good> or done)."""
    g = position("fraser")
    pl = g.players[0]
    give_contract(g, 0, 9)                           # 2 Cheese
    pl.goods[D.CHEESE], pl.extra["kilts"] = 1, 1
    start_turn(g, 0)
    assert "fulfil:0" in legal_names(g)
    act(g, "fulfil:0")
    assert pl.goods[D.CHEESE] == 0 and pl.extra["kilts"] == 0 and 9 in pl.done_contracts
    check_invariants(g)
    g = position("fraser")
    pl = g.players[0]
    give_contract(g, 0, 9)
    pl.goods[D.CHEESE], pl.extra["kilts"] = 0, 1
    start_turn(g, 0)
    assert "fulfil:0" not in legal_names(g)          # one Kilt is one Good
    pl.goods[D.CHEESE], pl.extra["kilts"] = 2, 2
    start_turn(g, 0)
    act(g, "fulfil:0")
    assert legal_names(g) == {"good:cheese", "done"}
    act(g, "good:cheese")                            # one Kilt for one Cheese, then the rest from stock
    assert legal_names(g) == {"good:cheese", "done"}
    act(g, "done")
    assert pl.goods[D.CHEESE] == 1 and pl.extra["kilts"] == 1 and 9 in pl.done_contracts
    check_invariants(g)


def test_fraser_kilts_score_as_a_processed_good_of_their_own():
    """R18.F4 "Kilts count as a unique Processed good for all scoring (Scoring tiles, Milestones, Awards,
    etc.). A Kiltmaker and its neighbouring Sheep form a production chain, making them eligible for Scoring
    tile 13."."""
    g = position("fraser")
    pl = g.players[0]
    before = final_scores(g)[0]["processed_goods"]
    pl.extra["kilts"] = 2
    assert final_scores(g)[0]["processed_goods"] == before + 2 * D.PROCESSED_GOOD_VP
    assert scoring_tile_glory(g, 0, 2) == 3                          # 2 Processed goods: 3 Glory
    pl.goods[D.CHEESE] = 1
    t12 = scoring_tile_glory(g, 0, 12)
    assert t12 == 2 * D.SCORING_GLORY[12]                            # Cheese and Kilts: two types
    assert scoring_tile_glory(g, 0, 13) == 0
    kiltmaker_map(g, sheep=2)
    assert scoring_tile_glory(g, 0, 13) == 2 * D.SCORING_GLORY[13]   # two Kiltmaker + Sheep chains


@pytest.mark.parametrize("before, imported, wool", [(3, 2, 2), (0, 4, 2), (7, 4, 2), (0, 2, 0), (4, 3, 0)])
def test_fraser_cotton_imports_bonus(before, imported, wool):
    """R18.F5 "whenever your total imported Cotton reaches or passes a multiple of 4, gain 2 Wool"."""
    cid = next(c.id for c in D.CONTRACTS if c.imports[D.COTTON] == imported and not c.beef and not c.mutton)
    g = position("fraser")
    pl = g.players[0]
    give_contract(g, 0, cid)
    pl.imports[D.COTTON] = before
    g.import_track[D.COTTON] = before
    pl.goods = list(D.CONTRACT_BY_ID[cid].goods)
    start_turn(g, 0)
    act(g, "fulfil:0")
    assert pl.goods[D.WOOL] == wool


# ==== Clan Gordon =======================================================================================
def test_gordon_fields_cost_fifteen_and_produce_three_grain():
    """R18.G1 "Your Fields cost £15 instead of £18 and each produces 1 extra Grain during the Production
    Phase"; Q13: a Field can be in 3 production chains for Scoring tile 13."""
    g = position("gordon")
    pl = g.players[0]
    s = active_land(g, GRASS)[0]
    put(g, 0, "sheep", s)
    t = next(t for t in g.board.neighbours[s] if t in set(active_land(g, GRASS)) and g.occupant[t] == -1)
    start_turn(g, 0)
    money = pl.money
    act(g, "expand:field", f"space:{label(g, t)}")
    assert money - pl.money == 15 + g.board.cost[t]
    grain = pl.goods[D.GRAIN]
    production(g, lambda g: "done" if g.decision_kind == "clan" else None)
    assert pl.goods[D.GRAIN] == grain + 3
    assert g.clans[0].field_pairs == 3


def test_gordon_silos_filled_in_production_with_grain_just_produced():
    """R18.G2 "3 Silos, each of which can hold up to 1 Grain. During the Production Phase, you may place
    Grain you just produced on any of your empty Silos"."""
    g = position("gordon")
    pl = g.players[0]
    put(g, 0, "field", active_land(g, GRASS)[0])
    pl.goods[D.GRAIN] = 5                           # old Grain is no Grain just produced
    answers = iter(["choose:2", "choose:0", "choose:1"])
    seen = []

    def answer(g):
        if g.decision_kind == "clan":
            seen.append(legal_names(g))
            return next(answers)
        return "choose:0" if g.decision_kind == "process" else None
    production(g, answer)
    assert seen == [{"choose:0", "choose:1", "choose:2", "done"}, {"choose:0", "choose:1", "done"},
                    {"choose:1", "done"}]
    assert pl.extra["silos"] == [1, 1, 1] and pl.goods[D.GRAIN] == 5    # 3 produced, 3 in the Silos
    assert "Silos" in render_text(g)
    production(g, lambda g: "choose:0" if g.decision_kind == "process" else None)
    assert pl.goods[D.GRAIN] == 8                                     # full Silos: nothing asked


@pytest.mark.parametrize("silo, kind, names", [
    (0, "free_space", None),
    (1, "bonus_upgrade", None),
    (2, "clan", {"good:wool", "good:milk"}),
])
def test_gordon_silo_action_bonuses(silo, kind, names):
    """R18.G2 "As an Action, you may discard 1 Grain from one of your Silos to gain the following bonus":
    R18.G3 "Silo 1: gain a free space", R18.G4 "Silo 2: gain a Bonus upgrade", R18.G5 "Silo 3: gain 1 Wool
    or 1 Milk". It is the turn's main Action; the Silo can be refilled later (Q49)."""
    g = position("gordon")
    pl = g.players[0]
    put(g, 0, "sheep", active_land(g, GRASS)[0])
    pl.extra["silos"] = [1, 1, 1]
    grain = pl.goods[D.GRAIN]
    start_turn(g, 0)
    act(g, f"choose:{silo}")
    assert g.decision_kind == kind and pl.extra["silos"][silo] == 0 and pl.goods[D.GRAIN] == grain
    if names:
        assert legal_names(g) == names
        act(g, "good:milk")
        assert pl.goods[D.MILK] == 1
        assert g.current_player != 0 or g.decision_kind == "post_main"     # the main Action was taken
    check_invariants(g)


def test_gordon_silo_grain_counts_as_stock_and_moves_back_freely():
    """R18.G6 "Grain in your Silos counts as being in your stock. You may freely move Grain from a Silo back
    to your regular stock as a free action"."""
    g = position("gordon")
    pl = g.players[0]
    pl.goods[D.GRAIN] = 1
    pl.extra["silos"] = [1, 0, 1]
    start_turn(g, 0)
    assert scoring_tile_glory(g, 0, 1) == 3
    assert final_scores(g)[0]["basic_goods"] == 3 * D.BASIC_GOOD_VP
    assert {"choose:3", "choose:5"} <= legal_names(g) and "choose:4" not in legal_names(g)
    act(g, "choose:5")                               # Silo 3 back to stock: still the main decision
    assert g.decision_kind == "main" and pl.goods[D.GRAIN] == 2 and pl.extra["silos"] == [1, 0, 0]
    assert final_scores(g)[0]["basic_goods"] == 3 * D.BASIC_GOOD_VP


# ==== Clan Mackintosh ===================================================================================
def worker_next_to_grass(g, across_river=False):
    """(worker space, grassland space): adjacent, with (``across_river``) or without a river between."""
    b = g.board
    wood = [s for s in active_land(g, FOREST) if not b.land[s] & GRASS]
    grass = set(s for s in active_land(g, GRASS) if not b.land[s] & (FOREST | MOUNTAIN))
    for w in wood:
        for t in b.adjacent[w]:
            river = t not in b.neighbours[w]
            if t in grass and river == across_river and isolated(g, (w, t)):
                return w, t
    pytest.skip("no such geometry on this map")


@pytest.mark.parametrize("across_river", [False, True])
def test_mackintosh_three_pounds_when_anyone_deploys_a_factory_next_to_its_worker(across_river):
    """R18.MI1 "Every time you or another player deploys a Worker or a factory (Cheese dairy, Bakery, or
    Distillery), you gain £3 if at least one of your Workers is adjacent to that unit ... You receive this
    bonus after the deployed unit and space have been paid for" (Q54: adjacent = a shared edge, a river
    between allowed)."""
    g = position("mackintosh", money=100)
    w, t = worker_next_to_grass(g, across_river)
    put(g, 0, "woodcutter", w)
    live = set(active_land(g, GRASS))
    put(g, 1, "sheep", next(s for s in g.board.neighbours[t] if s != w and s in live and g.occupant[s] == -1))
    start_turn(g, 1)
    act(g, "expand:bakery", f"space:{label(g, t)}")
    assert g.players[0].money == 103 and g.players[0].extra["mackintosh_money"] == 3
    assert g.players[1].money == 100 - D.UNIT_COST[D.BAKERY] - g.board.cost[t]


def test_mackintosh_not_for_animals_or_fields_and_once_per_deployment():
    """R18.MI1: only "a Worker or a factory"; one £3 however many Workers are adjacent (Q54)."""
    g = position("mackintosh", money=100)
    w, t = worker_next_to_grass(g)
    put(g, 0, "woodcutter", w)
    b = g.board
    more = [s for s in b.adjacent[t] if s != w and g.occupant[s] == -1 and b.land[s] & FOREST]
    if more:
        put(g, 0, "woodcutter", more[0])
    live = set(active_land(g, GRASS))
    put(g, 1, "sheep", next(s for s in b.neighbours[t] if s in live and g.occupant[s] == -1))
    start_turn(g, 1)
    act(g, "expand:cow", f"space:{label(g, t)}")
    assert g.players[0].money == 100
    from clans_env.engine.rules.common import remove_unit
    remove_unit(g, 1, t)
    start_turn(g, 0)
    act(g, "expand:distillery", f"space:{label(g, t)}")        # Mackintosh itself, next to its Workers
    assert g.players[0].money == 100 - D.UNIT_COST[D.DISTILLERY] - g.board.cost[t] + 3


def test_mackintosh_first_workers_count():
    """R18.MI1 "This applies to your starting Workers as well" (Q54: anyone's first-Worker placement next to
    Mackintosh's Workers, its own second next to its first too)."""
    from clans_env.engine import Game, GameConfig
    for seed in range(30):
        g = Game(GameConfig(num_players=2, seed=seed, clans=["mackintosh", "campbell"], industria_clans=True))
        me = 0
        money = None
        while g.decision_kind in ("first_worker", "place"):
            p = g.current_player
            if g.decision_kind == "first_worker":
                g.apply(g.legal_actions()[0])
                continue
            mine = [s for s in range(g.board.num_spaces) if g.occupant[s] == me]
            near = [a - A.SPACE for a in g.legal_actions()
                    if any(t in g.board.adjacent[a - A.SPACE] for t in mine)]
            if p != me and near:
                money = g.players[me].money
                g.apply(A.SPACE + near[0])
                assert g.players[me].money == money + 3
                return
            g.apply(g.legal_actions()[-1])
    pytest.fail("no first Worker was placed next to Mackintosh's")


# ==== Clan MacPherson ===================================================================================
def breeding_answers(choice):
    def answer(g):
        if g.decision_kind == "clan":
            return choice(g)
        return None
    return answer


def test_macpherson_lamb_on_a_parents_space_for_free():
    """R18.MP1 / R18.MP2 "if you have 2 or more of that type on neighbouring spaces, you may take 1
    additional animal of that type (if available on your player board) and deploy it for free on the space
    of one of the parent animals"; R18.MP3 "no land cost, and a space can never hold more than 2 units"."""
    g = position("macpherson")
    pl = g.players[0]
    a, b = next((a, b) for a, b in neighbour_pairs(g) if isolated(g, (a, b)))
    put(g, 0, "sheep", a)
    put(g, 0, "sheep", b)
    money, left = pl.money, pl.units_left[D.SHEEP]
    offered = []

    def choose(g):
        offered.append(legal_names(g))
        return g.action_to_string(min(a for a in g.legal_actions() if a >= A.SPACE)).split(" (")[0]
    production(g, breeding_answers(choose))
    assert offered == [{f"space:{label(g, a)}", f"space:{label(g, b)}", "done"}]
    assert g.modstate["second_units"].units == [a, D.SHEEP, 0]
    assert pl.units_left[D.SHEEP] == left - 1 and pl.money == money      # free
    assert pl.goods[D.WOOL] == 2                     # the lamb did not produce this round
    offered.clear()
    production(g, breeding_answers(choose))          # a's space is full now: only b's
    assert offered == [{f"space:{label(g, b)}", "done"}]
    assert pl.goods[D.WOOL] == 2 + 3                 # the lamb produces from the next round on
    check_invariants(g)
    assert "lamb" in render_text(g)


def test_macpherson_needs_two_neighbouring_animals_of_one_type():
    """R18.MP2 "For each animal type (Cows and Sheep), if you have 2 or more of that type on neighbouring
    spaces": a Sheep next to a Cow breeds nothing; Sheep then Cows each get their own decision."""
    g = position("macpherson")
    chain = None
    for a, b in neighbour_pairs(g):
        c = next((c for c in g.board.neighbours[b] if c != a and c in set(active_land(g, GRASS))
                  and c not in g.board.adjacent[a]), None)
        if c is not None and isolated(g, (a, b, c)):
            chain = (a, b, c)
            break
    a, b, c = chain
    put(g, 0, "sheep", a)
    put(g, 0, "cow", b)
    seen = []
    production(g, breeding_answers(lambda g: seen.append(1) or "done"))
    assert seen == []
    put(g, 0, "cow", c)
    kinds = []

    def choose(g):
        kinds.append(g.decision_text())
        return "done"
    production(g, breeding_answers(choose))
    assert len(kinds) == 1 and "cow" in kinds[0].lower()
    g.players[0].units_left[D.COW] = 0
    kinds.clear()
    production(g, breeding_answers(choose))          # none left on the Player board
    assert kinds == []


# ==== what the clans show, and the heuristic agent =======================================================
def test_map_picture_caption_shows_each_clans_state(tmp_path):
    """Issue 13: the map PNG shows each clan's own state (its ``state_text``) in a caption, one line per
    player; a picture of the same position without Industria clans is unchanged (no caption)."""
    import matplotlib.image as mpimg
    import numpy as np
    from clans_cli.replay import write_map_png
    from clans_env.render.map_image import clan_caption, game_occupants, render_position_png
    g = position("gordon", n=3)
    g.players[0].extra["silos"] = [1, 0, 0]
    caption = clan_caption(g)
    assert caption == ["P0: Gordon Silos: 1:Grain 2:empty 3:empty"]
    write_map_png(g, tmp_path / "with.png")
    render_position_png(g.board, tmp_path / "plain.png", game_occupants(g), num_players=3, dpi=80,
                        port_tiles={g.topo.port_space[k]: t for k, t in enumerate(g.port_tiles)})
    assert not np.array_equal(mpimg.imread(tmp_path / "with.png"), mpimg.imread(tmp_path / "plain.png"))


def heuristic_choice(g):
    from agents.heuristic import HeuristicAgent
    return g.action_to_string(HeuristicAgent(seed=0).act(g)).split(" (")[0]


def test_heuristic_uses_the_clans_production_decisions():
    """Issue 13: the heuristic agent does not waste the clans' decisions: Fraser makes Kilts, Gordon fills
    its Silos, MacPherson breeds."""
    g = position("fraser")
    kiltmaker_map(g, sheep=2)
    picks = []
    production(g, lambda g: (picks.append(heuristic_choice(g)) or picks[-1]) if g.decision_kind == "clan" else None)
    assert picks == ["choose:2"]
    g = position("gordon")
    put(g, 0, "field", active_land(g, GRASS)[0])
    picks = []
    production(g, lambda g: (picks.append(heuristic_choice(g)) or picks[-1]) if g.decision_kind == "clan" else None)
    assert len(picks) == 3 and "done" not in picks and g.players[0].extra["silos"] == [1, 1, 1]
    g = position("macpherson")
    a, b = next((a, b) for a, b in neighbour_pairs(g) if isolated(g, (a, b)))
    put(g, 0, "cow", a)
    put(g, 0, "cow", b)
    picks = []
    production(g, lambda g: (picks.append(heuristic_choice(g)) or picks[-1]) if g.decision_kind == "clan" else None)
    assert len(picks) == 1 and picks[0].startswith("space:")


def test_heuristic_trades_two_goods_per_douglas_merchant():
    """Issue 13 / R18.D2: the heuristic's lookahead completes Douglas's Goods-per-Merchant decision (a
    follow-up of the trade), so selling Wool in round 1 (money is worth more than Wool then) it lets one
    Merchant sell two: the second Wool and the pair's £2."""
    g = position("douglas")
    pl = g.players[0]
    pl.goods[D.WOOL] = 2
    start_turn(g, 0)
    act(g, "trade:sell:wool:1")
    assert heuristic_choice(g) == "choose:2"


def test_observation_carries_each_clans_state_in_both_encoder_paths():
    """Issue 13: the observation's ``industria.clan_state`` holds each clan's ``state_features`` (Kilts and
    Kiltmakers / 2, the three Silos, the lambs and calves, Mackintosh's money), per relative seat; the
    Python and compiled encoders agree bit for bit."""
    import numpy as np
    from clans_env.encoding.observation import ObservationEncoder
    from clans_env.engine.clans.base import NUM_STATE_FEATURES
    g = blank_position(4, clans=["fraser", "gordon", "macpherson", "mackintosh"], industria_clans=True)
    for p, extra in enumerate(({"kilts": 1}, {"silos": [1, 0, 1]}, {"calves": [2, 0]}, {"mackintosh_money": 12})):
        g.players[p].extra.update(extra)
    expected = [[0.5, 0.0], [1.0, 0.0, 1.0], [0.25, 0.0], [0.2]]
    vectors = []
    for accelerated in (False, True):
        enc = ObservationEncoder(4, industria=("industria_clans",), accelerated=accelerated)
        sl = enc.slices["industria.clan_state"]
        vec = enc.encode(g, 0)
        vectors.append(vec)
        rows = vec[sl.start:sl.start + sl.length].reshape(4, NUM_STATE_FEATURES)
        for rel, want in enumerate(expected):
            assert rows[rel][:len(want)].tolist() == pytest.approx(want)
            assert not rows[rel][len(want):].any()
    assert np.array_equal(*vectors)


def test_invariants_check_the_clans_own_state():
    """The invariants (used after every action of the random games) refuse clan state no game reaches:
    three Kilts (R18.F2 "a maximum of 2"), a Silo holding two Grain (R18.G2 "up to 1 Grain")."""
    from clans_env.engine.invariants import InvariantError
    g = position("fraser")
    g.players[0].extra["kilts"] = 3
    with pytest.raises(InvariantError, match="Kilts"):
        check_invariants(g)
    g = position("gordon")
    g.players[0].extra["silos"] = [2, 0, 0]
    with pytest.raises(InvariantError, match="Silos"):
        check_invariants(g)


def test_mackintosh_gains_when_sinclair_deploys_by_railroad_reach():
    """R18.MI1 "Every time you or another player deploys ... a factory": a deployment through Sinclair's
    Railroad Reach (R18.S4) is one, so it pays Mackintosh's £3 like any Expand."""
    from test_industria_clans_b import land_skip
    g = blank_position(2, clans=["sinclair", "mackintosh"], industria_clans=True)
    a, m, b = land_skip(g)
    put(g, 0, "sheep", a)
    live = set(active_land(g))
    w = next((t for t in g.board.adjacent[b] if t in live and g.occupant[t] == -1
              and g.board.land[t] & (FOREST | MOUNTAIN)), None)
    if w is None:
        pytest.skip("no Worker space next to the Railroad Reach target on this map")
    put(g, 1, "woodcutter" if g.board.land[w] & FOREST else "miner", w)
    start_turn(g, 0)
    money = g.players[1].money
    act(g, "choose:0", "expand:bakery", f"space:{label(g, b)}")
    assert g.players[1].money == money + 3
