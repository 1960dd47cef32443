"""Industria rules corrections found by an independent audit and a separately written scoring check. Each
test names the rule it checks (R numbers and A readings of docs/rules-index.md) and
plays the position through the public API; readings are in docs/rules-interpretations.md."""
from __future__ import annotations

import random

from clans_env.engine import Game, GameConfig
from clans_env.engine import actions as A
from clans_env.engine import data as D
from clans_env.engine.rules import awards as AW
from clans_env.engine.rules import milestones as MS
from clans_env.engine.invariants import check_invariants
from clans_env.engine.rules.common import units_of
from clans_env.engine.rules import farmers_markets as FM
from clans_env.engine.rules.scoring import scoring_tile_glory
from clans_env.engine.rules.stacking import place_second
from clans_env.engine.state import K_MARKET_SELL
from clans_env.engine.topology import bits
from helpers import GRASS, act, active_land, blank_position, label, legal_names, put, start_turn
from test_industria_clans_a import breeding_answers, isolated, neighbour_pairs, position, production

TRIGGERS = tuple(D.WORKERS) + tuple(D.FACTORIES)


def deployed_units(g, q, kinds=TRIGGERS) -> set:
    """(space, unit) of every unit of seat q of the given kinds (a second unit on a space too)."""
    return {(s, u) for u in kinds for s in bits(units_of(g, q, u))}


# ==== Industria clans against the Automa (R18.MI1, C-MI1, A15) ========================================
def test_mackintosh_gains_when_the_automa_deploys_next_to_its_worker():
    """R18.MI1 "Every time you or another player deploys a Worker or a factory ... you gain £3 if at least one
    of your Workers is adjacent to that unit": the Automa is another player (C-MI1, A15), so its Expand pays
    Mackintosh like anyone's. Checked over random games on every step where Mackintosh itself deployed
    nothing: its money from deployments grows by exactly £3 per adjacent Automa Worker or factory."""
    paid = 0
    for seed in range(6):
        g = Game(GameConfig(num_players=2, seed=seed, clans=["mackintosh", None], automa={1: 3},
                            industria_clans=True))
        rng = random.Random(seed)
        while not g.is_terminal():
            mine, theirs = deployed_units(g, 0), deployed_units(g, 1)
            before = g.players[0].extra.get("mackintosh_money", 0)
            g.apply(rng.choice(g.legal_actions()))
            if deployed_units(g, 0) - mine:
                continue
            workers = {s for s, _ in deployed_units(g, 0, D.WORKERS)}
            near = [s for s, _ in deployed_units(g, 1) - theirs if workers & (set(g.board.adjacent[s]) - {s})]
            assert g.players[0].extra.get("mackintosh_money", 0) - before == 3 * len(near), (seed, near)
            paid += len(near)
    assert paid >= 3


# ==== "In your stock": Gordon's Silos, Fraser's Kilts (R18.G6, R18.F4) ===================================
def goods_position(clans, **options):
    g = blank_position(2, clans=clans, industria_clans=True, **options)
    for pl in g.players:
        pl.goods = [0] * D.NUM_GOODS
    return g


def give(g, p, **goods):
    for k, v in goods.items():
        g.players[p].goods[D.GOOD_INDEX[k]] = v


def claim_milestone_4(g, p) -> bool:
    """Milestone 4 ("7 Basic goods in stock") on the first spot: is the claim legal for p now?"""
    g.modstate["trains"].ms[0] = 4
    start_turn(g, p)
    if MS.CLAIM_ACTION not in g.legal_actions():
        return False
    g.apply(MS.CLAIM_ACTION)
    return A.CHOOSE + 0 in g.legal_actions()


def test_milestone_4_counts_gordons_silo_grain():
    """R18.G6 "Grain in your Silos counts as being in your stock"; Milestone 4 "7 Basic goods in stock":
    6 Basic goods and 1 Silo Grain meet it, 6 alone do not."""
    g = goods_position(["gordon", "stewart"], milestones="variant_a")
    give(g, 0, wool=3, grain=3)
    assert not claim_milestone_4(g, 0)
    g.players[0].extra["silos"] = [0, 1, 0]
    assert claim_milestone_4(g, 0)
    g.apply(A.CHOOSE + 0)
    assert MS.claimed_by(g, 0, 0) and g.players[0].extra["silos"] == [0, 1, 0]   # nothing is spent


def test_milestone_4_kilts_are_not_basic_goods():
    """R18.F2 "that token now counts as a Kilt, not as Wool"; R18.F4 Kilts count as "a unique Processed
    good": 6 Basic goods and 2 Kilts do not meet Milestone 4 ("7 Basic goods in stock")."""
    g = goods_position(["fraser", "stewart"], milestones="variant_a")
    give(g, 0, wool=6)
    g.players[0].extra["kilts"] = 2
    assert not claim_milestone_4(g, 0)
    give(g, 0, wool=7)
    assert claim_milestone_4(g, 0)


def award_scores(g, tile):
    g.modstate["awards"].tile = tile
    return [row["award"] for row in g.final_scores()]


def test_award_6_counts_gordons_silo_grain():
    """R18.G6 Silo Grain is in stock; Award 6 "Most Basic goods in stock" (2 players: 8/0 VP, R1.10):
    3 Grain and 2 in the Silos beat 4 Wool."""
    g = goods_position(["gordon", "stewart"], awards=True)
    give(g, 0, grain=3)
    give(g, 1, wool=4)
    assert award_scores(g, 6) == [0, 8]
    g.players[0].extra["silos"] = [1, 1, 0]
    assert award_scores(g, 6) == [8, 0]


def test_award_7_counts_frasers_kilts():
    """R18.F4 "Kilts count as a unique Processed good for all scoring (Scoring tiles, Milestones, Awards,
    etc.)"; Award 7 "Most Processed goods in stock": 1 Cheese and 2 Kilts beat 2 Whisky."""
    g = goods_position(["fraser", "stewart"], awards=True)
    give(g, 0, cheese=1)
    give(g, 1, whisky=2)
    assert award_scores(g, 7) == [0, 8]
    g.players[0].extra["kilts"] = 2
    assert award_scores(g, 7) == [8, 0]
    assert g.final_scores()[0]["processed_goods"] == 3 * D.PROCESSED_GOOD_VP


# ==== Scoring tile 18 and Award 5: the Train station is one of the owner's units (R13.16, Q17) ============
def grass_chain(g, size):
    """``size`` empty grassland spaces, each neighbouring the one before (one Settlement)."""
    grass = set(active_land(g, GRASS))
    for start in sorted(grass):
        chain = [start]
        while len(chain) < size:
            nxt = [t for t in g.board.neighbours[chain[-1]] if t in grass and t not in chain
                   and not any(t in g.board.adjacent[c] for c in chain[:-1])]
            if not nxt:
                break
            chain.append(nxt[0])
        if len(chain) == size:
            return chain
    raise AssertionError("no chain of grassland")


def test_tile_18_counts_the_train_station_as_a_unit():
    """R12.18 "Gain 3 Glory per Settlement consisting of exactly 2 units"; R13.16 "Your Train station counts as
    one of your units on that space"; Q17 "A space with your Train station plus an opponent's unit is a
    1-unit Settlement of yours". So a Sheep next to the station is a 2-unit Settlement (3 Glory), and two
    Sheep with the station are 3 units (no Glory). Award 5 ("Most units in a single Settlement") counts the
    same way."""
    g = blank_position(3, industria=True)
    p, q = 0, 1
    a, b, c = grass_chain(g, 3)
    put(g, q, "sheep", b)
    g.modstate["trains"].station[p] = b
    put(g, p, "sheep", a)
    assert scoring_tile_glory(g, p, 18) == 3 and AW.measure(g, p, 5) == 2
    put(g, p, "sheep", c)
    assert scoring_tile_glory(g, p, 18) == 0 and AW.measure(g, p, 5) == 3
    check_invariants(g)


def test_two_player_award_tie_shares_eight_and_zero():
    """R10.1 "12 VP for best, 6 VP for second (8 VP / 0 VP in a 2-player game). Ties share as in Export
    scoring": two players tied for the best share 8 + 0, 4 VP each (the position of seed 3058's Award)."""
    g = goods_position(["stewart", "campbell"], awards=True)
    give(g, 0, wool=4)
    give(g, 1, milk=4)
    assert award_scores(g, 6) == [4, 4]
    give(g, 1, milk=5)
    assert award_scores(g, 6) == [0, 8]
    give(g, 0, wool=0)
    give(g, 1, milk=0)
    assert award_scores(g, 6) == [0, 0]                  # nobody with any scores nothing (I8)


def test_tile_12_counts_each_type_in_stock_cellar_silos_and_kilts():
    """R12.12 "Gain 3 Glory per different type of Good in your stock" (Q18): MacKenzie's cellar Whisky
    (A898), Gordon's Silo Grain (R18.G6) count as in stock; Fraser's Kilts are one type more (R18.F4)."""
    g = goods_position(["mackenzie", "gordon"], kickstarter=True)
    give(g, 0, wool=1)
    give(g, 1, wool=1)
    assert scoring_tile_glory(g, 0, 12) == 3 == scoring_tile_glory(g, 1, 12)
    g.players[0].extra["cellar"] = [0, 1, 0]
    g.players[1].extra["silos"] = [1, 1, 0]
    assert scoring_tile_glory(g, 0, 12) == 6 == scoring_tile_glory(g, 1, 12)
    g = goods_position(["fraser", "stewart"])
    give(g, 0, cheese=2)
    g.players[0].extra["kilts"] = 1
    assert scoring_tile_glory(g, 0, 12) == 6


# ==== Static Import Goods with Industria (rulebook "Simplifications"; player aid A537) ==================
def test_static_import_goods_with_industria_score_four_each_and_public_state_says_so():
    """"Static Import Goods: regardless of how much Cotton, Tobacco, or Sugar cane was imported, each is worth
    4 VP at the end of the game. With this variant, you do not need to track Imports on the Export board":
    in Industria games with drafted clans (the audit's seeds) the Import track stays at 0 (base entry 19),
    ``public_state`` gives 4 VP per import in ``import_values`` and each player's ``imports``, and Final
    Scoring's imports line is 4 VP per import whatever the counts."""
    imported = 0
    for seed in (8019, 8020, 8027):
        g = Game(GameConfig(num_players=3, seed=seed, static_imports=True, industria=True, kickstarter=True))
        rng = random.Random(seed)
        while not g.is_terminal():
            g.apply(rng.choice(g.legal_actions()))
        ps = g.public_state()
        assert set(ps["import_values"].values()) == {D.STATIC_IMPORT_VP}
        assert set(ps["import_track"].values()) == {0}
        for pl, row in zip(ps["players"], g.final_scores()):
            assert row["imports"] == D.STATIC_IMPORT_VP * sum(pl["imports"].values())
            imported += sum(pl["imports"].values())
    assert imported > 0


# ==== Clans at a Farmers market (R7.2-R7.6 with R18.D2-D4, R18.F3) =====================================
def market_sale(clan, **options):
    """Seat 0 plays ``clan`` and is to sell at the first Farmers market (the decision after an Expand next
    to it, R7.2); returns (game, market space, its Basic good, its Processed good)."""
    g = position(clan, n=3, money=100, farmers_markets=True, **options)
    m, basic, processed = g.modstate["farmers_markets"].markets[:3]
    pl = g.players[0]
    pl.goods = [0] * D.NUM_GOODS
    total = pl.merchants_stock + pl.merchants_board        # Douglas has one fewer (R18.D1)
    pl.merchants_stock, pl.merchants_board = 3, total - 3
    g.stack.append((K_MARKET_SELL, 0, m))
    return g, m, basic, processed


def test_douglas_money_at_a_farmers_market():
    """R7.5 "Gain the current Market value of that Good +£2 per Basic good sold ... move the Price marker as
    normal" with Douglas's Bulk Trading (R18.D2 two Goods per Merchant, R18.D3 the marker moves per
    Merchant, R18.D4 "gain £2 per pair of Goods traded"): 2 Merchants selling 4 Goods earn 4 x (price + £2)
    + 2 x £2."""
    g, m, basic, _ = market_sale("douglas")
    pl = g.players[0]
    pl.goods[basic] = 6
    g._advance()
    value, step = D.PRICES[basic][g.prices[basic]], g.prices[basic]
    act(g, f"trade:sell:{D.GOODS[basic]}:2", "choose:4")
    assert pl.money == 100 + 4 * (value + D.MARKET_BONUS[basic]) + 2 * D.DOUGLAS_PAIR_MONEY
    assert pl.goods[basic] == 2 and g.prices[basic] == max(0, step - 2) and pl.merchants_stock == 1
    check_invariants(g)


def test_fraser_sells_kilts_at_a_farmers_market_as_its_processed_good():
    """R18.F3 "you may use a Kilt as if it were any Processed good ... to ... trade": at a Farmers market
    (R7.2 "sell up to 4 Goods of a single type shown on the tile") Kilts sell as the market's Processed good,
    at its value +£3 each (R7.5), one icon covered (R7.6); never as its Basic good (a Kilt is not Wool)."""
    g, m, basic, processed = market_sale("fraser")
    pl = g.players[0]
    pl.extra["kilts"] = 2
    g._advance()
    names = legal_names(g)
    assert {f"trade:sell:{D.GOODS[processed]}:1", f"trade:sell:{D.GOODS[processed]}:2"} <= names
    assert not any(n.startswith(f"trade:sell:{D.GOODS[basic]}") for n in names)
    value, step = D.PRICES[processed][g.prices[processed]], g.prices[processed]
    act(g, f"trade:sell:{D.GOODS[processed]}:2")
    assert pl.extra["kilts"] == 0 and pl.goods == [0] * D.NUM_GOODS
    assert pl.money == 100 + 2 * (value + D.MARKET_BONUS[processed]) and g.prices[processed] == max(0, step - 2)
    assert FM.uncovered_goods(g, m) == (basic,)
    check_invariants(g)


# ==== MacPherson breeding next to a shared space (R18.MP2, R18.MP3, R4.4-R4.5) ==========================
def test_macpherson_breeds_from_the_second_unit_of_a_shared_space():
    """R18.MP2 "if you have 2 or more of that type on neighbouring spaces, you may ... deploy it for free on
    the space of one of the parent animals"; a Sheep that is the second unit on a space (under a Cow) is one
    of MacPherson's Sheep (R4.5), so with a Sheep next to it they breed; the lamb goes to the single Sheep's
    space only, since the shared space is full (R18.MP3 "a space can never hold more than 2 units")."""
    g = position("macpherson")
    pl = g.players[0]
    x, y = next((a, b) for a, b in neighbour_pairs(g) if isolated(g, (a, b)))
    put(g, 0, "cow", x)
    place_second(g, 0, D.SHEEP, x)
    put(g, 0, "sheep", y)
    offered = []

    def choose(g):
        offered.append(legal_names(g))
        return f"space:{label(g, y)}"
    production(g, breeding_answers(choose))
    assert offered == [{f"space:{label(g, y)}", "done"}]            # Sheep only: a single Cow breeds nothing
    assert sorted(zip(*[iter(g.modstate["second_units"].units)] * 3)) == sorted([(x, D.SHEEP, 0), (y, D.SHEEP, 0)])
    assert pl.extra["calves"] == [1, 0]
    check_invariants(g)
