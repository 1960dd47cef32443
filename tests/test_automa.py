"""The Automa (issue 20; docs/rules-index.md, "Automa": section numbers §, open points "op"; readings in
docs/rules-interpretations.md, "Automa"). Constructed positions drive rules/automa.py directly; random
games check the whole flow (invariants after every action, save/load, replay)."""
from __future__ import annotations

import json
import random

import pytest

from clans_env import Game, GameConfig
from clans_env.engine import data as D
from clans_env.engine.actions import BUY, SELL
from clans_env.engine.invariants import check_invariants
from clans_env.engine.rules import automa as AU
from clans_env.engine.rules import farmers_markets as FM
from clans_env.engine.rules.solo import bracket
from clans_env.engine.rules.scoring import round_scoring
from clans_env.engine.state import SETUP
from helpers import SIDES, GRASS, FOREST, clear, free_spaces, put, river_pairs

P = 1        # the Automa's seat in the 2-player positions
LOW, MEDIUM, HIGH = D.SOLO_BRACKETS[0][0], D.SOLO_BRACKETS[1][0], D.SOLO_BRACKETS[2][0]


def automa_game(level=3, n=2, seat=P, seed=0, **options) -> Game:
    options.setdefault("clan_selection", "none")
    return Game(GameConfig(num_players=n, seed=seed, map_sides=SIDES, automa={seat: level}, **options))


def position(level=3, n=2, seat=P, seed=0, money=100, **options) -> Game:
    """After setup (the Automa's starting Workers placed), map cleared, ``money`` each, no Goods."""
    g = automa_game(level, n, seat, seed, **options)
    while g.phase == SETUP:
        g.apply(g.legal_actions()[0])
    clear(g)
    for pl in g.players:
        pl.money = money
        pl.goods = [0] * D.NUM_GOODS
    return g


def card(i) -> AU.Card:
    return AU.CARDS[i]


def module_spaces(g, m, land=GRASS):
    return [s for s in free_spaces(g, land) if g.board.module[s] == m]


# ---- configuration ---------------------------------------------------------------------------------
def test_config_round_trip_and_base_records_unchanged():
    cfg = GameConfig(num_players=3, automa={2: 5, "0": 1})
    assert cfg.automa == {0: 1, 2: 5} and cfg.automa_seats == (0, 2)
    d = cfg.to_dict()
    assert d["automa"] == {"0": 1, "2": 5}
    assert GameConfig.from_dict(json.loads(json.dumps(d))) == cfg
    assert "automa" not in GameConfig(num_players=2).to_dict()       # base records carry no new field
    assert GameConfig(num_players=2, automa={}).to_dict() == GameConfig(num_players=2).to_dict()
    base = Game(GameConfig(num_players=2, seed=3))
    same = Game(GameConfig(num_players=2, seed=3, automa={}))
    rng = random.Random(3)
    while not base.is_terminal():
        a = rng.choice(base.legal_actions())
        base.apply(a)
        same.apply(a)
    assert base.to_json() == same.to_json()


@pytest.mark.parametrize("bad, words", [
    ({2: 3}, "valid seats: [0, 1]"), ({1: 0}, "valid levels: 1, 2, 3, 4, 5"), ({1: 6}, "valid levels"),
    ({1: True}, "valid levels"), ({0: 3, 1: 3}, "at least one seat must be a player"), ([1], "dict seat -> level"),
])
def test_config_bad_automa_names_valid_choices(bad, words):
    with pytest.raises(ValueError, match=words.replace("[", r"\[").replace("]", r"\]")):
        GameConfig(num_players=2, automa=bad)


def test_config_auction_and_clans_with_automa():
    with pytest.raises(ValueError, match="auction"):
        GameConfig(num_players=2, automa={1: 3}, clan_selection="auction")
    with pytest.raises(ValueError, match="None for each Automa seat"):
        GameConfig(num_players=2, automa={1: 3}, clans=("stewart", "campbell"))
    g = Game(GameConfig(num_players=2, seed=1, automa={1: 3}, clans=("stewart", None)))
    assert g.players[0].clan == "stewart" and g.players[1].clan is None


# ---- setup (§1.2) ------------------------------------------------------------------------------------
@pytest.mark.parametrize("level", AU.LEVELS)
def test_setup_money_shipping_workers_turn_order(level):
    g = automa_game(level, seed=level)
    assert g.current_player == 0 and g.decision_kind == "start_tile"
    assert len(g.tile_pool) == 2                          # players + 1 Starting tiles, for the one human
    g.apply(g.legal_actions()[0])
    assert g.decision_kind == "first_worker"              # the Automa's Workers came first
    pl = g.players[P]
    workers = [s for s in range(g.board.num_spaces) if g.occupant[s] == P]
    assert len(workers) == 4 and sorted(g.board.module[s] for s in workers) == [0, 1, 2, 3]
    spent = sum(D.UNIT_COST[g.unit_at[s]] + g.topo.cost[s] for s in workers)
    ports = bin(pl.ports_used).count("1") * AU.PORT_MONEY
    assert pl.money == AU.STARTING_MONEY[level - 1] - spent + ports
    assert pl.shipping == D.SHIPPING_LEVELS.index("1-loch")
    assert g.turn_order[-1] == P                          # round 1: the Automa goes last
    lines = AU.log_lines(g)
    assert sum("Port tile" in x for x in lines) == 2 and sum("central loch" in x for x in lines) == 2


def test_starting_worker_nearest_then_cheap_then_port_then_cheapest():
    g = automa_game()
    for m in range(4):
        for target in ("port", "loch"):
            s, unit = AU.starting_worker_choice(g, P, m, target)
            assert g.board.module[s] == m and g.topo.unit_mask[unit] >> s & 1
            cand = [t for t in range(120) if g.board.module[t] == m and g.occupant[t] == -1 and
                    g.topo.land_mask >> t & 1 and (g.topo.unit_mask[D.WOODCUTTER] | g.topo.unit_mask[D.MINER]) >> t & 1]
            port = g.topo.port_space[m]
            cells = [c for c in g.board.adjacent[port] if g.board.rowcol[c][0] >= 0]
            dist = {t: (1 + AU._distance_to(g, t, cells)) if target == "port" else AU._distance_to(g, t, g.board.central_loch)
                    for t in cand}
            assert dist[s] == min(dist.values())         # op 7: nearest first
            near = [t for t in cand if dist[t] == dist[s]]
            if any(g.topo.cost[t] <= AU.CHEAP_HEX for t in near):
                assert g.topo.cost[s] <= AU.CHEAP_HEX


def test_human_first_workers_keep_away_from_farmers_markets():
    g = automa_game(farmers_markets=True, seed=4)
    while g.decision_kind != "first_worker":
        g.apply(g.legal_actions()[0])
    markets = FM.market_spaces(g)
    assert len(markets) == 2
    mods = sorted(g.board.module[s] for s in markets)
    assert mods in ([0, 2], [1, 3])                       # 2 players: modules A & C or B & D
    g.apply(g.legal_actions()[0])
    rc = g.board.rowcol
    from clans_env.engine.actions import SPACE
    assert g.decision_kind == "place" and g.legal_actions()
    for a in g.legal_actions():
        assert all(AU.hex_distance(rc[a - SPACE], rc[m]) >= AU.MARKET_WORKER_DISTANCE for m in markets)


# ---- the deck (§2.3) -------------------------------------------------------------------------------
def test_deck_sizes_by_round_and_removed_cards():
    g = position()
    assert sorted(AU.pile(g, P, "pile")) == list(range(1, 15))
    AU.pile(g, P, "removed").append(10)
    AU.pile(g, P, "pile").remove(10)
    for r, size in ((2, 15), (3, 17), (4, 19), (5, 21)):
        g.round = r
        AU.build_deck(g, P)
        assert len(AU.pile(g, P, "pile")) == size and 10 not in AU.pile(g, P, "pile")
        assert AU.pile(g, P, "discard") == []


def test_put_away_removable_action_card_but_discards_support():
    g = position()
    st = AU.state(g, P)
    st.action, st.support = 11, 12            # two Skip cards: action removed, support discarded
    AU.put_away(g, P)
    assert AU.pile(g, P, "removed") == [11] and 12 in AU.pile(g, P, "discard")
    st.action = 18                                 # card 18 is a Skip card that stays
    AU.put_away(g, P)
    assert 18 in AU.pile(g, P, "discard") and AU.pile(g, P, "removed") == [11]


def test_draw_reshuffles_discard_but_not_current_cards():
    g = position()
    AU.state(g, P).pile = []
    AU.state(g, P).discard = [1, 2, 3]
    st = AU.state(g, P)
    st.action = 4
    c = AU.draw(g, P)
    assert c in (1, 2, 3) and sorted(AU.pile(g, P, "pile") + [c]) == [1, 2, 3] and AU.pile(g, P, "discard") == []


# ---- a turn (§2.4) -----------------------------------------------------------------------------------
def test_skip_card_is_no_pass_and_leaves_the_game():
    g = position()
    AU.state(g, P).pile = [13, 1, 2]
    AU.take_turn(g, P)
    assert not g.players[P].passed and "skips" in AU.log_lines(g)[-1]
    AU.take_turn(g, P)
    assert 13 in AU.pile(g, P, "removed")


def test_first_possible_action_is_the_only_one():
    g = position()
    pl = g.players[P]
    pl.merchants_stock = 0                             # card 3: Trade > Fulfil > Take > Expand
    AU.state(g, P).pile = [3, 5, 6]
    money, shown = pl.money, [c for c in g.display if c >= 0]
    AU.take_turn(g, P)
    assert len(pl.open_contracts) == 1 and pl.open_contracts[0] in shown     # Take contract
    assert pl.money == money - D.ROUND_COST[0]
    assert pl.spaces == 0 and AU.state(g, P).support == 0    # Expand not reached: no support card
    pl.merchants_stock = 2
    AU.state(g, P).pile = [3, 5, 6]
    AU.take_turn(g, P)                                 # now Trade is possible and comes first
    assert sum(pl.merchants_market) > 0 and len(pl.open_contracts) == 1


def test_support_card_drawn_when_expand_reached_even_if_impossible():
    g = position(money=0)
    pl = g.players[P]
    pl.merchants_stock = 1                             # card 14: Expand > Fulfil > Take > Upgrade > Trade
    g.display = [-1] * len(g.display)
    AU.state(g, P).pile = [14, 7, 1, 2]
    pointer = AU.state(g, P).pointer
    AU.take_turn(g, P)
    st = AU.state(g, P)
    assert st.action == 14 and st.support == 7 and sum(pl.merchants_market) == 1   # Trade
    assert st.pointer == pointer                   # Expand was not carried out: pointer unchanged
    assert AU.pile(g, P, "pile") == [1, 2]             # one support card only


@pytest.mark.parametrize("farmers, bonuses", [(False, D.PASSING_BONUS), (True, (12, 10, 8, 6))])
def test_nothing_possible_passes_with_pass_bonus(farmers, bonuses):
    g = position(money=0, farmers_markets=farmers)
    pl = g.players[P]
    pl.merchants_stock = 0
    g.display = [-1] * len(g.display)
    AU.state(g, P).pile = [3, 4]
    g.players[0].passed = True
    g.pass_order = [0]
    AU.take_turn(g, P)
    assert pl.passed and g.pass_order == [0, P] and pl.money == bonuses[1]
    assert "passes" in AU.log_lines(g)[-1]


# ---- Expand (§3.1, §2.5) -----------------------------------------------------------------------------
def test_expand_modules_criteria_round5():
    g = position()
    modules, criteria, _ = AU.expand_plan(g, P, card(14))
    assert modules == (3, 2) and criteria == ("neighbourhood", "port", "costs", "settlements")
    g.round = 5
    modules, criteria, _ = AU.expand_plan(g, P, card(14))
    assert modules == (0, 1, 2, 3) and criteria == ("settlements", "neighbourhood", "port", "costs")


def test_expand_candidates_need_reach_module_and_money():
    g = position()
    a = module_spaces(g, 0)[0]
    put(g, P, "sheep", a)
    _, _, cand = AU.expand_plan(g, P, card(1))         # module A
    assert cand and all(g.board.module[s] == 0 and AU.reach(g, P) >> s & 1 for s in cand)
    _, _, cand = AU.expand_plan(g, P, card(3))         # module C: out of reach
    assert cand == {}
    g.players[P].money = 0
    assert AU.do_expand(g, P, card(1)) is None


def test_criterion_min_costs_space_cost_only():
    g = position()
    spaces = module_spaces(g, 0)
    a, b = next((a, b) for a in spaces for b in spaces if g.topo.cost[a] < g.topo.cost[b])
    assert AU.choose_space(g, P, ("costs",), [b, a], (0,)) == a


def test_criterion_port_unclaimed_port_in_reach():
    g = position()
    port = g.topo.port_space[0]
    table = g.topo.reach[g.players[P].shipping]
    spaces = module_spaces(g, 0)
    near = next(s for s in spaces if table[s] >> port & 1)
    far = next(s for s in spaces if not table[s] >> port & 1)
    assert AU.choose_space(g, P, ("port",), [far, near], (0,)) == near
    ports = AU.unclaimed_ports(g, P, (0,))
    g.players[P].ports_used |= 1                        # claimed already: the criterion is void
    assert AU.unclaimed_ports(g, P, (0,)) == 0 and ports
    assert AU.criterion_value(g, P, "port", near, 0) == AU.criterion_value(g, P, "port", far, 0)


def test_criterion_settlements_join_beats_new_settlement_beats_adjacent():
    g = position()
    pl = g.players[P]
    pl.shipping, pl.reach = 1, -1                       # river crossing: across a river is reach, not neighbour
    a, b = river_pairs(g)[0]
    put(g, P, "sheep", a)
    nb = next(t for t in g.board.neighbours[a] if g.occupant[t] == -1 and g.board.land[t] & GRASS and
              g.topo.active >> t & 1)
    assert AU.settlements_gain(g, P, b) == (0, 1)       # a new Settlement in the group
    assert AU.settlements_gain(g, P, nb) == (0, 0)      # the same Settlement grows
    assert AU.choose_space(g, P, ("settlements",), [nb, b], (0, 1, 2, 3)) == b
    # two Settlements apart: a space neighbouring both joins them, and ranks first
    g2 = position()
    g2.players[P].shipping, g2.players[P].reach = 0, -1
    x, mid, y = _bridge(g2)
    put(g2, P, "sheep", x)
    put(g2, P, "cow", y)
    other = next(t for t in g2.board.neighbours[x] if t != mid and g2.occupant[t] == -1 and
                 g2.board.land[t] & GRASS and g2.topo.active >> t & 1 and t not in g2.board.adjacent[y])
    assert AU.settlements_gain(g2, P, mid)[0] == 1 and AU.settlements_gain(g2, P, other)[0] == 0
    assert AU.choose_space(g2, P, ("settlements",), [other, mid], (0, 1, 2, 3)) == mid


def _bridge(g):
    """Grassland x, mid, y: mid neighbours both, x and y are not adjacent."""
    grass = set(free_spaces(g, GRASS))
    for x in sorted(grass):
        for mid in g.board.neighbours[x]:
            if mid not in grass:
                continue
            for y in g.board.neighbours[mid]:
                if y in grass and y != x and y not in g.board.adjacent[x]:
                    return x, mid, y
    raise AssertionError("no bridge on this map")


def test_criterion_neighbourhood_and_tie_leaves_set_unchanged():
    g = position()
    spaces = module_spaces(g, 0)
    s1 = spaces[0]
    sheep = next(t for t in g.board.neighbours[s1] if g.occupant[t] == -1 and g.board.land[t] & GRASS and
                 g.topo.active >> t & 1)
    put(g, 0, "sheep", sheep)
    s2 = next(s for s in module_spaces(g, 0) if s != s1 and sheep not in g.board.adjacent[s])
    g.prices[D.WOOL] = LOW
    g.players[P].merchants_stock = 5
    assert AU.bonus_merchants(g, P, s1) == 4 and AU.bonus_merchants(g, P, s2) == 0   # 2 players: cap 4
    assert AU.choose_space(g, P, ("neighbourhood",), [s2, s1], (0,)) == s1
    # a criterion on which all tie keeps them all (the random tie-break picks among both)
    picks = set()
    for seed in range(12):
        g.rng.state = seed * 7919 + 1
        picks.add(AU.choose_space(g, P, ("port",), [s2, s1] if g.topo.cost[s1] == g.topo.cost[s2] else [s1, s2], ()))
    assert picks == {s1, s2}


def test_unit_preference_pointer_cycle():
    g = position()
    idx = AU.UNIT_CYCLE.index
    assert AU.choose_unit(g, P, [D.SHEEP, D.COW, D.DAIRY], idx(D.COW)) == D.COW
    assert AU.choose_unit(g, P, [D.SHEEP, D.COW], idx(D.FIELD)) == D.SHEEP       # field, distillery, worker, sheep
    assert AU.choose_unit(g, P, [D.SHEEP, D.WOODCUTTER], idx(D.DISTILLERY)) == D.WOODCUTTER
    g.players[P].tech = [False, True]                                            # op 18: upgraded Workers first
    assert AU.choose_unit(g, P, [D.WOODCUTTER, D.MINER], idx(AU.WORKER)) == D.MINER
    g.players[P].tech = [False, False]
    seen = set()
    for seed in range(16):
        g.rng.state = seed + 1
        seen.add(AU.choose_unit(g, P, [D.WOODCUTTER, D.MINER], idx(AU.WORKER)))
    assert seen == {D.WOODCUTTER, D.MINER}


def test_expand_pays_unit_and_space_and_moves_pointer():
    g = position()
    a = module_spaces(g, 0)[0]
    put(g, P, "sheep", a)
    st = AU.state(g, P)
    st.pointer = 0
    money = g.players[P].money
    text = AU.do_expand(g, P, card(1))                  # steps 1: preferred = cow
    assert st.pointer == 1 and text.startswith("Expand in A by Port > Costs")
    new = [s for s in range(120) if g.occupant[s] == P and s != a][0]
    unit = g.unit_at[new]
    ports = bin(g.players[P].ports_used).count("1") * AU.PORT_MONEY
    assert g.players[P].money == money - D.UNIT_COST[unit] - g.topo.cost[new] + ports + \
        AU.NEIGHBOURHOOD_MONEY * sum(g.players[P].merchants_market)
    if g.topo.unit_mask[D.COW] >> new & 1:
        assert unit == D.COW


# ---- Neighbourhood bonus and Farmers market by bracket (§3.1, §5) ------------------------------------
@pytest.mark.parametrize("step, bought", [(LOW, 4), (MEDIUM, 2), (HIGH, 0)])
def test_neighbourhood_bonus_by_bracket(step, bought):
    g = position()
    pl = g.players[P]
    pl.merchants_stock = 5
    s = module_spaces(g, 0)[0]
    t = next(t for t in g.board.neighbours[s] if g.occupant[t] == -1 and g.board.land[t] & GRASS and
             g.topo.active >> t & 1)
    put(g, 0, "sheep", t)
    g.prices[D.WOOL] = step
    money = pl.money
    AU.deployment_bonuses(g, P, s)
    assert pl.merchants_market[D.WOOL * 2 + BUY] == bought and pl.money == money + 3 * bought
    assert g.prices[D.WOOL] == min(D.MAX_STEP, step + bought) and pl.goods == [0] * D.NUM_GOODS


def test_neighbourhood_bonus_caps_lowest_marker_and_no_sold_good():
    g = position()
    pl = g.players[P]
    s = module_spaces(g, 0)[0]
    nbs = [t for t in g.board.neighbours[s] if g.occupant[t] == -1 and g.board.land[t] & GRASS and
           g.topo.active >> t & 1]
    put(g, 0, "sheep", nbs[0])
    put(g, 0, "cow", nbs[1])
    g.prices[D.WOOL], g.prices[D.MILK] = 1, 0
    pl.merchants_stock = 3
    goods, q = AU.neighbourhood_choice(g, P, s)
    assert goods == [D.MILK] and q == 3                     # lowest Price marker; free Merchants cap
    pl.merchants_market[D.MILK * 2 + SELL] = 1              # sold milk this round: no buying it
    pl.merchants_stock = 2
    goods, q = AU.neighbourhood_choice(g, P, s)
    assert goods == [D.WOOL] and q == 2


@pytest.mark.parametrize("step, sold", [(LOW, 0), (MEDIUM, 2), (HIGH, 4)])
def test_farmers_market_sells_by_bracket(step, sold):
    g = position(farmers_markets=True)
    pl = g.players[P]
    pl.merchants_stock = 5
    market = FM.market_spaces(g)[0]
    goods = FM.uncovered_goods(g, market)
    for good in goods:
        g.prices[good] = step
    choice, q = AU.market_choice(g, P, market, 0)
    assert q == sold and (not sold or set(choice) == set(goods))
    g.prices[goods[0]] = min(D.MAX_STEP, step + 1) if step != HIGH else step
    if step != HIGH and sold:
        assert AU.market_choice(g, P, market, 0)[0] == [goods[0]]      # highest Price marker first
    pl.merchants_market[goods[0] * 2 + BUY] = 1                          # bought this round: not sold
    assert goods[0] not in AU.market_choice(g, P, market, 0)[0]


def test_farmers_market_sale_covers_icon_and_pays_3_each():
    g = position(farmers_markets=True)
    pl = g.players[P]
    pl.merchants_stock = 5
    market = FM.market_spaces(g)[0]
    for good in FM.uncovered_goods(g, market):
        g.prices[good] = HIGH
    s = next(t for t in g.board.neighbours[market] if g.occupant[t] == -1 and g.topo.land_mask >> t & 1)
    money = pl.money
    text = AU.deployment_bonuses(g, P, s)
    assert "Farmers market" in text and pl.money == money + 4 * AU.MARKET_MONEY
    assert len(FM.uncovered_goods(g, market)) == 1


# ---- Trade (§3.2) ------------------------------------------------------------------------------------
def test_trade_good_die_and_brackets():
    dies, dirs = set(), set()
    for seed in range(40):
        g = position(seed=seed % 3)
        g.rng.state = 1000 + seed
        pl = g.players[P]
        pl.merchants_stock = 3
        for good in range(D.NUM_GOODS - 1):
            pl.merchants_market[good * 2 + (good % 2)] = 1          # every good traded but whisky
        pl.merchants_stock = 3
        g.prices[D.WHISKY] = MEDIUM
        money = pl.money
        text = AU.do_trade(g, P, None)
        n = pl.merchants_market[D.WHISKY * 2] + pl.merchants_market[D.WHISKY * 2 + 1]
        assert text and 1 <= n <= 3 and pl.money == money + n * AU.TRADE_MONEY
        dies.add(n)
        dirs.add(BUY if pl.merchants_market[D.WHISKY * 2] else SELL)
    assert dies == {1, 2, 3} and dirs == {BUY, SELL}                # d3; medium bracket: the 50/50 preference
    for step, direction in ((HIGH, SELL), (LOW, BUY)):
        g = position()
        pl = g.players[P]
        pl.merchants_stock = 1
        for good in range(D.NUM_GOODS - 1):
            pl.merchants_market[good * 2] = 1
        g.prices[D.WHISKY] = step
        AU.do_trade(g, P, None)
        assert pl.merchants_market[D.WHISKY * 2 + direction] == 1
        assert g.prices[D.WHISKY] == step + (1 if direction == BUY else -1)


def test_trade_not_possible():
    g = position()
    pl = g.players[P]
    pl.merchants_stock = 0
    assert AU.do_trade(g, P, None) is None
    pl.merchants_stock = 2
    for good in range(D.NUM_GOODS):
        pl.merchants_market[good * 2] = 1
    assert AU.do_trade(g, P, None) is None


# ---- Export contracts (§3.3, §3.4) ---------------------------------------------------------------------
def _by_cost():
    return sorted(D.CONTRACTS, key=lambda c: AU.contract_cost(c.id))


def test_contract_cost_and_bonus():
    for c in D.CONTRACTS:
        assert AU.contract_cost(c.id) == 5 * c.goods[D.WOOL] + 10 * (sum(c.goods[i] for i in D.PROCESSED_GOODS)
                                                                     + c.beef + c.mutton)
        assert AU.contract_bonus(c.id) == c.money + 5 * (c.free_space + c.bonus_upgrade)


def test_take_contract_rounds_1_to_3_cheapest_then_bonus():
    g = position()
    cs = _by_cost()
    cheap, dear = cs[0].id, cs[-1].id
    g.display = [dear, cheap] + [-1] * (len(g.display) - 2)
    assert AU.choose_contract(g, P) == cheap
    same = [c.id for c in D.CONTRACTS if AU.contract_cost(c.id) == AU.contract_cost(cheap)]
    pair = next(((a, b) for a in same for b in same if AU.contract_bonus(a) > AU.contract_bonus(b)), None)
    if pair:
        g.display = [pair[1], pair[0]] + [-1] * (len(g.display) - 2)
        assert AU.choose_contract(g, P) == pair[0]
    g.players[P].open_contracts = [dear]
    assert AU.do_take_contract(g, P, None) is None          # op 12: one contract at a time


def test_take_contract_round_4_rarest_then_most_expensive():
    g = position()
    g.round = 4
    cotton = [c.id for c in D.CONTRACTS if c.imports[D.COTTON] and not any(c.imports[1:])]
    tobacco = [c.id for c in D.CONTRACTS if c.imports[D.TOBACCO] and not c.imports[0] and not c.imports[2]]
    g.players[0].imports = [5, 0, 0]
    g.display = [cotton[0], tobacco[0]] + [-1] * (len(g.display) - 2)
    assert AU.choose_contract(g, P) == tobacco[0]
    g.players[0].imports = [0, 0, 0]
    g.players[P].imports = [0, 0, 1]                        # sugar cane imported: cotton and tobacco tie at 0
    g.players[0].open_contracts = [tobacco[1]]              # a player's contract counts as fulfilled (op 13)
    assert AU.choose_contract(g, P) == cotton[0]
    same = [t for t in tobacco if t not in g.players[0].open_contracts]
    a, b = max(same, key=AU.contract_cost), min(same, key=AU.contract_cost)
    g.players[0].open_contracts = []
    if AU.contract_cost(a) != AU.contract_cost(b):
        g.display = [b, a] + [-1] * (len(g.display) - 2)
        assert AU.choose_contract(g, P) == a                # tie on rarity: the most expensive


def test_take_contract_round_5_only_affordable_and_fulfils_at_once():
    g = position()
    g.round = 5
    cs = _by_cost()
    cheap, dear = cs[0].id, cs[-1].id
    g.display = [dear, cheap] + [-1] * (len(g.display) - 2)
    pl = g.players[P]
    pl.money = D.ROUND_COST[4] + AU.contract_cost(cheap)
    text = AU.do_take_contract(g, P, None)
    assert pl.done_contracts == [cheap] and pl.open_contracts == [] and "Fulfil" in text
    pl.money = D.ROUND_COST[4] - 1
    g.display = [dear] + [-1] * (len(g.display) - 1)
    assert AU.do_take_contract(g, P, None) is None


def test_fulfil_pays_money_gains_imports_hops_bonus():
    g = position()
    pl = g.players[P]
    c = max(D.CONTRACTS, key=lambda c: c.free_space + c.bonus_upgrade + c.money)
    pl.open_contracts = [c.id]
    pl.money = AU.contract_cost(c.id) - 1
    assert AU.do_fulfil(g, P, None) is None                 # no partial payment (op 1, 2)
    pl.money = AU.contract_cost(c.id) + 3
    track = list(g.import_track)
    AU.do_fulfil(g, P, None)
    steps = sum(D.IMPORT_STEP_BONUS for k, n in enumerate(c.imports) for m in D.IMPORT_MARKED_STEPS
                if track[k] < m <= track[k] + n)
    assert pl.money == 3 + AU.contract_bonus(c.id) + steps
    assert pl.done_contracts == [c.id] and pl.imports == list(c.imports) and pl.hops == c.hops
    assert g.import_track == [t + n for t, n in zip(track, c.imports)]
    assert pl.goods == [0] * D.NUM_GOODS and pl.spaces == 0          # no Goods, no slaughter


# ---- Upgrades (§3.5, §3.6) ------------------------------------------------------------------------------
def test_upgrade_order_and_port_bonus():
    g = position()
    pl = g.players[P]
    money, board = pl.money, pl.merchants_board
    AU.do_upgrade(g, P, card(1))                            # Merchant first
    assert pl.merchants_board == board - 1 and pl.money == money - 4
    shipping = pl.shipping
    AU.do_upgrade(g, P, card(9))                            # Ship level first
    assert pl.shipping == shipping + 1
    pl.shipping, pl.merchants_board = D.MAX_SHIPPING, 0
    assert AU.do_upgrade(g, P, card(9)) is None
    pl.shipping, pl.merchants_board, pl.money = 0, 3, 3
    assert AU.do_upgrade(g, P, card(1)) is None             # less than £4


def test_port_bonus_claimed_at_once_for_10_pounds():
    from helpers import port_neighbours
    for tiles in (True, False):
        g = position(port_tiles=tiles)
        pl = g.players[P]
        s = next(t for t in port_neighbours(g, 0) if g.board.land[t] & GRASS)
        put(g, P, "sheep", s)
        money = pl.money
        text = AU.claim_ports(g, P)
        if tiles:
            assert pl.ports_used & 1 and "claims the Port of module A" in text and pl.money == money + AU.PORT_MONEY
            assert AU.claim_ports(g, P) == "" and pl.money == money + AU.PORT_MONEY     # once
        else:
            assert text == "" and pl.ports_used == 0 and pl.money == money


def test_technology_upgrade_needs_three_workers():
    g = position()
    pl = g.players[P]
    forests = [s for s in free_spaces(g, FOREST)]
    for s in forests[:2]:
        put(g, P, "woodcutter", s, check=False)
    assert AU.do_tech_upgrade(g, P, None) is None
    put(g, P, "woodcutter", forests[2], check=False)
    money = pl.money
    assert AU.do_tech_upgrade(g, P, None) and pl.tech == [True, False] and pl.money == money - 10
    assert AU.do_tech_upgrade(g, P, None) is None


# ---- production, Scoring phase, final scoring (§4) -----------------------------------------------------
def test_production_money_instead_of_goods():
    g = position()
    pl = g.players[P]
    forests = free_spaces(g, FOREST)
    put(g, P, "woodcutter", forests[0], check=False)
    put(g, P, "woodcutter", forests[1], check=False)
    grass = module_spaces(g, 0)
    put(g, P, "bakery", grass[0])                           # no Field needed
    put(g, P, "sheep", grass[1])
    money = pl.money
    AU.produce(g, P)
    assert pl.money == money + 2 * D.WORKER_INCOME[D.WOODCUTTER] + 2 * AU.INCOME_ICON
    assert pl.goods == [0] * D.NUM_GOODS


def test_scoring_phase_skips_the_automa():
    g = position(scoring_tiles=True)
    forests = free_spaces(g, FOREST)
    put(g, P, "woodcutter", forests[0], check=False)
    put(g, 0, "woodcutter", forests[1], check=False)
    g.scoring_tiles = (4,) * 5
    round_scoring(g)
    assert g.players[P].glory == 0 and g.players[0].glory == 2


@pytest.mark.parametrize("level", AU.LEVELS)
def test_final_scoring_per_level(level):
    g = position(level=level)
    pl = g.players[P]
    pl.money = 47
    pl.hops = 3
    row = g.final_scores()[P]
    assert row["glory"] == AU.ROUND5_VP[level - 1] and row["money"] == 47 // 5 and row["hops"] == 3
    assert row["basic_goods"] == row["processed_goods"] == row["award"] == 0
    assert row["total"] == sum(v for k, v in row.items() if k not in ("total", "money_left", "rank"))


@pytest.mark.parametrize("exports, vp", [([3, 2], [8, 4]), ([3, 1], [8, 0]), ([2, 2], [4, 4]), ([0, 0], [0, 0]),
                                         ([0, 1], [4, 8]), ([1, 0], [8, 4])])
def test_two_player_export_majority(exports, vp):
    """Automa digest §4.3 (A12): "the most fulfilled gets ⌊8 / number tied⌋; anyone with exactly one fewer than
    the top gets 4; everyone else gets 0": also a player with none against the Automa's one; with none
    at all nobody is "the most fulfilled" (base entry 2)."""
    g = position()
    ids = [c.id for c in D.CONTRACTS]
    g.players[0].done_contracts, g.players[P].done_contracts = ids[:exports[0]], ids[10:10 + exports[1]]
    assert [r["export_bonus"] for r in g.final_scores()] == vp


def test_two_player_settlement_majority_and_three_players():
    g = position()
    e, s = AU.majorities(g, [0, 0], [5, 3])
    assert s == [12, 6]
    assert AU.majorities(g, [0, 0], [5, 2])[1] == [12, 0] and AU.majorities(g, [0, 0], [4, 4])[1] == [6, 6]
    assert AU.majorities(g, [0, 0], [2, 0])[1] == [12, 6]        # "anyone 1 or 2 fewer than the top gets 6"
    g3 = position(n=3, seat=2)
    assert AU.majorities(g3, [1, 2, 3], [1, 2, 3]) is None       # 3-4 players: the base tables


def test_award_one_player_thresholds_two_players_tiers():
    g = position(awards=True)
    tile = g.modstate["awards"].tile
    low, high = D.AWARD_SOLO_THRESHOLDS[tile]
    assert AU.award_vp(g, [high, 999], tile) == [4, 0]
    assert AU.award_vp(g, [low, 999], tile) == [0, 0] and AU.award_vp(g, [low - 1, 999], tile) == [-4, 0]
    g3 = position(n=3, seat=2, awards=True)
    assert AU.award_vp(g3, [5, 3, 99], g3.modstate["awards"].tile) == [8, 0, 0]                  # the 2 players' table; the Automa out


# ---- hidden information, the env ----------------------------------------------------------------------
def test_determinize_reshuffles_the_automa_pile_only():
    g = position()
    orders = set()
    for seed in range(6):
        d = g.determinize(seed)
        assert sorted(AU.pile(d, P, "pile")) == sorted(AU.pile(g, P, "pile"))
        assert d.public_state()["players"][P]["automa"] == g.public_state()["players"][P]["automa"]
        orders.add(tuple(AU.pile(d, P, "pile")))
    assert len(orders) > 1


def test_observation_does_not_show_the_draw_pile():
    from clans_env.encoding import ObservationEncoder
    g = automa_game(seed=2)
    while g.phase == SETUP:
        g.apply(g.legal_actions()[0])
    enc = ObservationEncoder(2)
    a = enc.encode(g.determinize(1), 0).copy()
    b = ObservationEncoder(2).encode(g.determinize(2), 0)
    assert AU.pile(g.determinize(1), P, "pile") != AU.pile(g.determinize(2), P, "pile")
    assert (a == b).all()


@pytest.mark.parametrize("options", [{}, {"industria": True}])      # industria: the Train module too (A14)
def test_pettingzoo_agents_exclude_the_automa(options):
    import clans_env
    env = clans_env.env(num_players=3, automa={1: 4}, **options)
    env.reset(seed=3)
    assert env.possible_agents == ["player_0", "player_2"]
    assert env.unwrapped.game.config.trains == bool(options)
    rng = random.Random(0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        assert agent != "player_1"
        legal = [i for i, m in enumerate(obs["action_mask"]) if m]
        env.step(rng.choice(legal))
    assert env.unwrapped.game.is_terminal()
    if options:
        assert env.unwrapped.game.final_scores()[1]["delivery_track"] == AU.ROUND5_VP_TRAIN[3]


def test_single_agent_env_automa_opponent():
    import numpy as np
    from clans_env.wrappers import AutomaOpponent, SingleAgentEnv
    env = SingleAgentEnv(num_players=2, opponents="automa:level=2", learner_seat="random")
    assert isinstance(env.opponents[0], AutomaOpponent) and env.opponents[0].level == 2
    obs, info = env.reset(seed=5)
    assert env.game.config.automa == {1 - env.learner_seat: 2}
    rng = np.random.default_rng(0)
    done = False
    while not done:
        obs, r, done, _, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
    assert env.game.is_terminal() and r in (-1.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="level"):
        SingleAgentEnv(num_players=2, opponents="automa:level=9")


def test_tournament_seats_automa_participant():
    from training.tournament import run_tournament
    r = run_tournament(["random", "automa:level=5"], num_players=2, games_per_pairing=2, workers=1,
                       progress=False)
    assert all(game.ok for game in r.games) and len(r.games) == 2
    for game in r.games:
        seat = game.names.index("automa:level=5")
        assert game.scores[seat]["glory"] >= AU.ROUND5_VP[4]
    with pytest.raises(ValueError, match="only Automas"):
        run_tournament(["automa:level=1", "automa:level=5"], num_players=2, games_per_pairing=2, workers=1,
                       progress=False)


def test_record_lines_in_render_text_and_public_state():
    g = automa_game(seed=6)
    rng = random.Random(6)
    while g.round == 1 and not g.is_terminal():
        g.apply(rng.choice(g.legal_actions()))
    text = g.render_text()
    assert "Automa level 3" in text and "Automa record" in text and "draws card" in text
    assert any("draws card" in line for line in g.public_state()["automa_record"])


# ---- random games ------------------------------------------------------------------------------------
def random_automa_config(rng: random.Random, seed: int, level: int) -> GameConfig:
    n = rng.choice([2, 3, 4])
    seats = rng.sample(range(n), 1 if rng.random() < 0.7 else rng.randint(1, n - 1))
    levels = {s: level if k == 0 else rng.randint(1, 5) for k, s in enumerate(seats)}
    selection = rng.choice(["draft", "none", "fixed"])
    clans = None
    if selection == "fixed":
        pool = rng.sample(list(D.CLANS_BASE), n)
        clans = tuple(None if s in levels else pool[s] for s in range(n))
    return GameConfig(num_players=n, seed=seed, automa=levels, clans=clans,
                      clan_selection="draft" if selection == "fixed" else selection,
                      static_imports=rng.random() < 0.2, scoring_tiles=rng.random() < 0.9,
                      port_tiles=rng.random() < 0.9, tighter_map=n in (2, 3) and rng.random() < 0.3,
                      industria=rng.random() < 0.4)


@pytest.mark.parametrize("level", AU.LEVELS)
def test_random_games_invariants_save_load_replay(level):
    for k in range(2):
        seed = 100 * level + k
        rng = random.Random(seed)
        cfg = random_automa_config(rng, seed, level)
        g = Game(cfg)
        while not g.is_terminal():
            assert g.current_player not in cfg.automa
            check_invariants(g)
            g.apply(rng.choice(g.legal_actions()))
        check_invariants(g)
        assert Game.from_json(g.to_json()).to_json() == g.to_json()
        assert Game.replay(json.loads(json.dumps(g.record()))["config"], g.history).to_json() == g.to_json()
        rows = g.final_scores()
        for s in cfg.automa:
            assert rows[s]["glory"] >= AU.ROUND5_VP[cfg.automa[s] - 1]


@pytest.mark.parametrize("cid", sorted(AU.CARDS))
def test_each_card_tries_its_actions_in_order_and_stops_at_the_first_possible(cid, monkeypatch):
    """§2.4 for all 22 cards (data/automa.toml = src/services/Cards.ts): the entries are tried in the
    card's order; the first possible one is the only action; none possible: the Automa passes."""
    c = card(cid)
    for first_possible in range(len(c.actions) + 1):
        g = position()
        tried = []

        def fake(name):
            def act(g, p, support):
                tried.append((name, support.id if support else None))
                return f"did {name}" if len(tried) - 1 == first_possible else None
            return act
        monkeypatch.setattr(AU, "ACTIONS", {name: fake(name) for name in AU.ACTIONS})
        AU.state(g, P).pile = [cid] + [k for k in (21, 22) if k != cid]
        AU.take_turn(g, P)
        if c.actions == ("skip",):
            assert tried == [] and not g.players[P].passed
            break
        expect = c.actions[:first_possible + 1]
        assert [name for name, _ in tried] == list(expect)
        support = AU.state(g, P).support
        reached = any(a in ("expand", "upgrade") for a in expect)
        assert bool(support) == reached                     # a support card once Expand / Upgrade is reached
        for name, sup in tried:
            if name in ("expand", "upgrade"):
                assert sup == support
        assert g.players[P].passed == (first_possible == len(c.actions))
        if first_possible == len(c.actions):
            break


def test_card_data_matches_the_digest_counts():
    """§2.2: 14 cards for round 1, then 2 more each for rounds 2-5; removable: 10-13; card 18 stays."""
    rounds = [c.round for c in AU.CARDS.values()]
    assert [rounds.count(r) for r in range(1, 6)] == [14, 2, 2, 2, 2]
    assert sorted(cid for cid, c in AU.CARDS.items() if c.remove) == [10, 11, 12, 13]
    assert [cid for cid, c in AU.CARDS.items() if c.actions == ("skip",)] == [10, 11, 12, 13, 18]
