"""Rulebook "Appendix: Clans" (and the player aid's clan texts): each clan's ability and each of
its limits, shown on constructed positions and driven through the public API."""
import pytest

from clans_env import IllegalActionError
from clans_env.engine import actions as A
from clans_env.engine import data as D
from clans_env.engine.board import KIND_LOCH
from clans_env.engine.clans import CLANS
from clans_env.engine.clans.macdonald import rebalance
from clans_env.engine.rules.production import start_production
from clans_env.engine.rules.scoring import scoring_tile_glory
from clans_env.engine.state import K_BONUS_UPGRADE, K_EXCHANGE_FROM, PRODUCTION
from helpers import (FOREST, GRASS, MOUNTAIN, act, active_land, blank_position, label, legal_names,
                     placement_targets, push, put, start_turn)

def clan_position(clan, n=2, money=100, other="campbell", **options):
    """Round 1 action phase on an empty map; seat 0 plays ``clan`` and is to move."""
    clans = [clan] + [c for c in ("campbell", "stewart", "robertson", "cunningham") if c != clan][:n - 1]
    if other != "campbell" and n > 1:
        clans[1] = other
    g = blank_position(n, money=money, clans=clans, **options)
    for pl in g.players:
        if pl.clan == "macdonald":
            rebalance(pl)          # blank_position took the first Workers back past the clan's hook
    start_turn(g, 0)
    return g


def end_turn(g):
    """Finish the current player's turn (decline optional follow-ups)."""
    p = g.current_player
    while g.current_player == p and g.decision_kind != "main":
        act(g, "done")


def expand(g, unit, space):
    """Expand with ``unit`` onto ``space``; returns the money paid."""
    p = g.current_player
    before = g.players[p].money
    act(g, f"expand:{unit}", f"space:{label(g, space)}")
    return before - g.players[p].money


def grass_chain(g, k):
    """k+1 active grassland spaces forming a chain of neighbours (no rivers), all empty."""
    grass = set(active_land(g, GRASS))
    for start in sorted(grass):
        chain = [start]
        while len(chain) <= k:
            nxt = [t for t in g.board.neighbours[chain[-1]] if t in grass and t not in chain
                   and g.occupant[t] == -1]
            if not nxt:
                break
            chain.append(nxt[0])
        if len(chain) == k + 1 and all(g.occupant[s] == -1 for s in chain):
            return chain
    raise AssertionError("no grassland chain on this map")


def run_production(g, answer=None):
    """Every player has passed; run Production, answering decisions with ``answer(g)`` (a
    name) or, by default, the first legal action. Stops when the next round starts."""
    for pl in g.players:
        pl.passed = True
    g.pass_order = list(g.turn_order)
    g.stack = []
    start_production(g)
    g._advance()
    while g.phase == PRODUCTION:
        name = answer(g) if answer else None
        if name is None:
            g.apply(g.legal_actions()[0])
        else:
            act(g, name)


# ---- Buchanan ------------------------------------------------------------------------------------
def test_buchanan_second_contract_same_turn_pays_once():
    """Appendix: Clans - Clan Buchanan: obtain one or two Export contracts in one turn; the
    second of a turn costs nothing (round 2: pay the round cost once instead of twice)."""
    g = clan_position("buchanan")
    g.round = 2
    start_turn(g, 0)
    cost = D.ROUND_COST[1]
    a, b = g.display[0], g.display[1]
    act(g, "take_contract:0")
    assert g.players[0].money == 100 - cost
    assert g.decision_kind == "clan" and "take_contract:1" in legal_names(g) and "done" in legal_names(g)
    act(g, "take_contract:1")
    assert g.players[0].money == 100 - cost
    assert g.players[0].open_contracts == [a, b]
    # two Export boxes full: no third contract, in this turn or the next
    start_turn(g, 0)
    assert not any(n.startswith("take_contract") for n in legal_names(g))


def test_buchanan_one_contract_pays_regular_cost_and_may_stop():
    """Appendix: Clans - Clan Buchanan: obtaining just one contract in a turn pays the regular
    round cost; a later turn's contract pays again."""
    g = clan_position("buchanan")
    g.round = 3
    start_turn(g, 0)
    cost = D.ROUND_COST[2]
    act(g, "take_contract:0", "done")
    assert g.players[0].money == 100 - cost and len(g.players[0].open_contracts) == 1
    start_turn(g, 0)
    act(g, "take_contract:1")
    assert g.players[0].money == 100 - 2 * cost


def test_buchanan_round_one_five_pounds_once_per_turn():
    """Appendix: Clans - Clan Buchanan: in the first round two contracts in one turn give the
    +£5 only once, but each turn in which a contract is obtained gives £5 (even with the first
    contract unfulfilled)."""
    g = clan_position("buchanan")
    act(g, "take_contract:0", "take_contract:1")
    assert g.players[0].money == 105
    g.players[0].open_contracts.pop()
    start_turn(g, 0)
    act(g, "take_contract:2")
    assert g.players[0].money == 110 and len(g.players[0].open_contracts) == 2


def test_other_clans_take_one_contract_per_turn():
    """2. Obtain an Export Contract: only one Export box without Clan Buchanan, so no second
    contract decision follows."""
    g = clan_position("campbell")
    act(g, "take_contract:0")
    assert g.decision_kind != "clan"
    assert len(g.players[0].open_contracts) == 1


def give_contracts(g, p, ids, with_goods=True):
    """Move contracts ``ids`` from the pile / Export board into p's Export boxes, with the
    Goods they require (so that they can be fulfilled)."""
    pl = g.players[p]
    for cid in ids:
        if cid in g.pile:
            g.pile.remove(cid)
        if cid in g.display:
            g.display[g.display.index(cid)] = -1
        if with_goods:
            for good in range(D.NUM_GOODS):
                pl.goods[good] += D.CONTRACT_BY_ID[cid].goods[good]
    g.pile_known = min(g.pile_known, len(g.pile))
    pl.open_contracts = list(ids)
    return list(ids)


def _fulfillable(g, p, k=2):
    """Give p k open contracts that need no meat and give no Direct export bonus decisions."""
    ids = [c.id for c in D.CONTRACTS if not c.meat and not c.free_space and not c.bonus_upgrade][:k]
    assert len(ids) == k
    return give_contracts(g, p, ids)


def test_buchanan_fulfils_two_contracts_per_turn():
    """Appendix: Clans - Clan Buchanan: up to two Export contracts fulfilled in one turn (the
    second right after the first's rewards); then no third."""
    g = clan_position("buchanan")
    ids = _fulfillable(g, 0)
    start_turn(g, 0)
    act(g, "fulfil:0")
    assert g.decision_kind == "clan" and legal_names(g) == {"fulfil:0", "done"}
    act(g, "fulfil:0")
    assert g.decision_kind == "post_main" or g.current_player != 0
    assert sorted(g.players[0].done_contracts) == sorted(ids)


def test_buchanan_second_fulfil_after_direct_export_bonuses():
    """Appendix: Clans - Clan Buchanan: the second fulfilment follows the first contract's
    Direct export bonuses; declining it leaves the contract open."""
    g = clan_position("buchanan")
    first = next(c.id for c in D.CONTRACTS if not c.meat and c.bonus_upgrade and not c.free_space)
    second = next(c.id for c in D.CONTRACTS if not c.meat and c.id != first)
    give_contracts(g, 0, [first, second])
    start_turn(g, 0)
    act(g, "fulfil:0")
    assert g.decision_kind == "bonus_upgrade"
    act(g, "upgrade_shipping")
    while g.decision_kind == "bonus_upgrade":
        act(g, "hire_merchant")
    assert g.decision_kind == "clan" and "fulfil:0" in legal_names(g)
    act(g, "done")
    assert g.players[0].open_contracts == [second]


def test_single_box_clan_fulfils_one_per_turn():
    """7. Fulfil an Export Contract: one contract per action without Clan Buchanan."""
    g = clan_position("campbell")
    _fulfillable(g, 0, 1)
    start_turn(g, 0)
    act(g, "fulfil:0")
    assert g.decision_kind != "clan"
    assert len(g.players[0].done_contracts) == 1


def test_buchanan_building_bonus_draws_six_keeps_two_pays_once():
    """Appendix: Clans - Clan Buchanan: the Building bonus draws six contracts instead of three
    and 0-2 may be taken, paying the round cost once."""
    g = clan_position("buchanan")
    g.round = 3
    chain = grass_chain(g, 4)
    for s in chain[:3]:
        put(g, 0, "cheese_dairy", s)
    put(g, 0, "sheep", chain[3])
    start_turn(g, 0)
    top6 = g.pile[:6]
    money = g.players[0].money
    paid = expand(g, "cheese_dairy", chain[4])
    assert g.decision_kind == "building_bonus"
    act(g, "choose:0")                                   # draw
    assert {a - A.CHOOSE for a in g.legal_actions() if a >= A.CHOOSE} == set(range(6))
    act(g, "choose:2")
    assert g.decision_kind == "building_bonus"
    act(g, "choose:5")
    assert g.players[0].open_contracts == [top6[2], top6[5]]
    assert D.ROUND_COST[2] > 0
    assert g.players[0].money == money - paid - D.ROUND_COST[2]
    assert g.pile[-4:] == [top6[i] for i in (0, 1, 3, 4)]


# ---- Campbell ------------------------------------------------------------------------------------
def test_campbell_factory_costs_rulebook_example():
    """Appendix: Clans - Clan Campbell example: three Bakeries and one Distillery cost
    £8-£3 = £5, then £4 and £4; the Distillery £10-£3 = £7 (plus land cost); a fourth
    Bakery £8-£5 = £3, the first Cheese dairy £3 cheaper."""
    g = clan_position("campbell", money=200)
    chain = grass_chain(g, 6)
    put(g, 0, "sheep", chain[0])
    costs = []
    for unit, s in zip(("bakery", "bakery", "bakery", "distillery", "bakery", "cheese_dairy"), chain[1:]):
        start_turn(g, 0)
        costs.append(expand(g, unit, s) - g.board.cost[s])
        end_turn(g)
    d = D.UNIT_COST
    assert costs == [d[D.BAKERY] - 3, d[D.BAKERY] - 4, d[D.BAKERY] - 4, d[D.DISTILLERY] - 3, d[D.BAKERY] - 5,
                     d[D.DAIRY] - 3]
    assert costs[:4] == [5, 4, 4, 7]


def test_campbell_discount_only_on_factories():
    """Appendix: Clans - Clan Campbell: only factories of Processed goods are cheaper."""
    g = clan_position("campbell")
    clan = CLANS["campbell"]
    for u in (D.SHEEP, D.COW, D.FIELD, D.WOODCUTTER, D.MINER):
        assert clan.unit_cost(g, 0, u) == D.UNIT_COST[u]


# ---- Cunningham --------------------------------------------------------------------------------
def test_cunningham_butter_after_production():
    """Appendix: Clans - Clan Cunningham: at the end of Production discard any number of Milk
    (including the Milk just produced) for £8 each; no Merchants; the Milk price is unchanged."""
    g = clan_position("cunningham", money=0)
    for s in grass_chain(g, 1):
        put(g, 0, "cow", s)
    g.players[0].goods[D.MILK] = 3
    step = g.prices[D.MILK]

    def answer(g):
        if g.decision_kind == "clan":
            assert {a - A.CHOOSE for a in g.legal_actions()} == set(range(6))
            return "choose:4"
        return "choose:0" if g.decision_kind == "process" else None

    run_production(g, answer)
    pl = g.players[0]
    assert pl.goods[D.MILK] == 3 + 2 - 4
    assert pl.money == 4 * D.CUNNINGHAM_BUTTER_MONEY == 32
    assert g.prices[D.MILK] == step
    assert pl.merchants_stock == D.MERCHANTS_IN_STOCK


def test_cunningham_no_butter_without_milk_and_other_clans_never():
    """Appendix: Clans - Clan Cunningham: nothing to decide without Milk; other clans never churn."""
    g = clan_position("cunningham", money=0, other="stewart")
    g.players[1].goods[D.MILK] = 2
    kinds = []
    run_production(g, lambda g: kinds.append((g.decision_kind, g.current_player)))
    assert ("clan", 0) not in kinds and ("clan", 1) not in kinds


# ---- Fergusson -----------------------------------------------------------------------------------
@pytest.mark.parametrize("n,level", [(1, "1-loch"), (2, "1-loch"), (3, "2-loch"), (4, "2-loch")])
def test_fergusson_free_shipping(n, level):
    """Appendix: Clans - Clan Fergusson: 2-loch Shipping for free in a 3-4 player game, 1-loch
    in a 1-2 player game."""
    clans = ["fergusson", "campbell", "stewart", "robertson"][:n]
    g = blank_position(n, clans=clans)
    assert D.SHIPPING_LEVELS[g.players[0].shipping] == level


@pytest.mark.parametrize("n", [2, 3])
def test_fergusson_three_border_workers_third_after_everyone(n):
    """Appendix: Clans - Clan Fergusson: three starting Workers, all on border spaces of the
    active map, fully paid (unit and land); the third after all other players have placed."""
    from helpers import make_game
    clans = ["campbell", "fergusson", "stewart"][:n]
    g = make_game(n, 4, clans=clans)
    order = []
    paid = 0
    while g.decision_kind in ("first_worker", "place"):
        p = g.current_player
        if g.decision_kind == "first_worker":
            order.append(p)
            g.apply(g.legal_actions()[0])
        else:
            if g.clans[p].name == "fergusson":
                assert placement_targets(g) <= set(s for s in range(g.board.num_spaces) if g.topo.border >> s & 1)
            unit = g.stack[-1][2]
            s = min(placement_targets(g))
            before = g.players[p].money
            g.apply(A.SPACE + s)
            if g.clans[p].name == "fergusson":
                assert before - g.players[p].money == D.UNIT_COST[unit] + g.board.cost[s]
                paid += 1
    f = clans.index("fergusson")
    assert order.count(f) == 3 and order[-1] == f
    assert order[:-1].count(f) == 2 and len(order) == 2 * n + 1
    assert paid == 3
    assert sum(g.players[f].units_placed(u) for u in D.WORKERS) == 3


# ---- MacDonald ------------------------------------------------------------------------------------
def lochs(g):
    return [s for s in range(g.board.num_spaces) if g.board.kind[s] == KIND_LOCH and g.topo.active >> s & 1]


def loch_next_to_grass(g):
    """(loch, land) with the land a grassland space adjacent to the loch."""
    grass = set(active_land(g, GRASS))
    for loch in lochs(g):
        for t in g.board.adjacent[loch]:
            if t in grass:
                return loch, t
    raise AssertionError


def put_worker(g, unit, space):
    """Deploy a MacDonald Worker of seat 0 for free (through the clan's deploy hook, which
    keeps its Worker pool)."""
    put(g, 0, unit, space, check=False)
    CLANS["macdonald"].on_deploy(g, 0, D.UNIT_INDEX[unit], space, 0)


def test_macdonald_fishermen_never_adjacent():
    """Appendix: Clans - Clan MacDonald: Fishermen go on empty loch spaces (no land cost,
    Workers cost £6); two Fishermen may never be adjacent."""
    g = clan_position("macdonald", n=2)
    loch, land = loch_next_to_grass(g)
    put(g, 0, "sheep", land)
    g.players[0].shipping = D.MAX_SHIPPING
    start_turn(g, 0)
    assert expand(g, "fisherman", loch) == D.MACDONALD_WORKER_COST
    assert g.unit_at[loch] == D.FISHERMAN
    end_turn(g)
    start_turn(g, 0)
    act(g, "expand:fisherman")
    targets = placement_targets(g)
    assert targets and not targets & set(g.board.adjacent[loch])
    near = [t for t in g.board.adjacent[loch] if g.board.kind[t] == KIND_LOCH]
    assert near, "map has no adjacent lochs here"
    with pytest.raises(IllegalActionError):
        act(g, f"space:{label(g, near[0])}")


def test_macdonald_first_workers_any_type_including_fishermen():
    """Appendix: Clans - Clan MacDonald (player aid): three first Workers, each a Woodcutter,
    Miner or Fisherman; all cost £6."""
    from helpers import make_game
    g = make_game(2, 1, clans=["stewart", "macdonald"])
    placed = []
    while g.decision_kind in ("first_worker", "place"):
        p = g.current_player
        if g.decision_kind == "first_worker":
            names = legal_names(g)
            if p == 1:
                assert names == {"expand:woodcutter", "expand:miner", "expand:fisherman"}
                unit = ["fisherman", "miner", "fisherman"][len(placed)]
                act(g, f"expand:{unit}")
            else:
                g.apply(g.legal_actions()[0])
        else:
            s = min(placement_targets(g))
            before = g.players[p].money
            g.apply(A.SPACE + s)
            if p == 1:
                placed.append(s)
                assert before - g.players[p].money == 6 + g.board.cost[s]
    pl = g.players[1]
    assert [pl.units_placed(u) for u in (D.WOODCUTTER, D.MINER, D.FISHERMAN)] == [0, 1, 2]
    assert g.board.adjacent[placed[0]].count(placed[2]) == 0
    # the pool: five Workers left, usable as any type
    assert [pl.units_left[u] for u in (D.WOODCUTTER, D.MINER, D.FISHERMAN)] == [5, 5, 5]


def test_macdonald_worker_pool_is_eight():
    """Appendix: Clans - Clan MacDonald: all eight Workers may be used as any Worker type; once
    all are deployed no Worker of any type is left."""
    g = clan_position("macdonald", n=2, money=500)
    forests = active_land(g, FOREST)
    mountains = active_land(g, MOUNTAIN)
    lake = lochs(g)
    mines = [s for s in mountains if s not in forests][:5]
    for s in mines:
        put_worker(g, "miner", s)
    pl = g.players[0]
    assert pl.units_placed(D.MINER) == 5 and pl.units_left[D.WOODCUTTER] == 3
    chosen = []
    for s in lake:
        if all(s not in g.board.adjacent[c] for c in chosen):
            chosen.append(s)
        if len(chosen) == 3:
            break
    for s in chosen:
        put_worker(g, "fisherman", s)
    assert [pl.units_left[u] for u in (D.WOODCUTTER, D.MINER, D.FISHERMAN)] == [0, 0, 0]
    start_turn(g, 0)
    assert not legal_names(g) & {"expand:woodcutter", "expand:miner", "expand:fisherman"}


def test_macdonald_no_technology_and_four_pounds_per_worker():
    """Appendix: Clans - Clan MacDonald: no Technology upgrade (action or Bonus upgrade); every
    Worker, Miners too, earns £4."""
    g = clan_position("macdonald", n=2, money=100)
    assert not any(n.startswith("upgrade_tech") for n in legal_names(g))
    push(g, (K_BONUS_UPGRADE, 0))
    assert g.decision_kind == "bonus_upgrade"
    assert not any(n.startswith("upgrade_tech") for n in legal_names(g))
    g2 = clan_position("macdonald", n=2, money=0)
    put_worker(g2, "miner", active_land(g2, MOUNTAIN)[0])
    put_worker(g2, "woodcutter", [s for s in active_land(g2, FOREST) if g2.occupant[s] == -1][0])
    run_production(g2)
    assert g2.players[0].money == 2 * D.MACDONALD_WORKER_INCOME


@pytest.mark.parametrize("n,level", [(1, 1), (2, 1), (3, 0), (4, 0)])
def test_macdonald_river_crossing_in_small_games(n, level):
    """Appendix: Clans - Clan MacDonald: river-crossing Shipping for free in 1-2 player games only."""
    g = blank_position(n, clans=["macdonald", "campbell", "cunningham", "robertson"][:n])
    assert g.players[0].shipping == level


def test_macdonald_rowing_once_before_main_action():
    """Appendix: Clans - Clan MacDonald: once per turn a Fisherman may row to an adjacent loch
    space, only before the main action; no Neighbourhood bonus for rowing."""
    g = clan_position("macdonald", n=2)
    pairs = [(a, b) for a in lochs(g) for b in g.board.adjacent[a] if b in lochs(g)]
    a, b = pairs[0]
    put_worker(g, "fisherman", a)
    start_turn(g, 0)
    assert f"space:{label(g, a)}" in legal_names(g)
    act(g, f"space:{label(g, a)}")
    assert g.decision_kind == "clan" and f"space:{label(g, b)}" in legal_names(g)
    act(g, f"space:{label(g, b)}")
    assert g.unit_at[b] == D.FISHERMAN and g.occupant[a] == -1
    assert g.decision_kind == "main"                      # the main action is still to come
    assert not any(n.startswith("space:") for n in legal_names(g))   # once per turn
    act(g, "hire_merchant")
    end_turn(g)
    start_turn(g, 0)
    assert any(n.startswith("space:") for n in legal_names(g))       # next turn again


def test_macdonald_land_next_to_fisherman_is_neighbouring():
    """Appendix: Clans - Clan MacDonald: land spaces adjacent to Fishermen count as neighbouring
    for Expand, even without Shipping."""
    g = clan_position("macdonald", n=3)
    loch, land = loch_next_to_grass(g)
    put_worker(g, "fisherman", loch)
    g.players[0].shipping = 0
    start_turn(g, 0)
    act(g, "expand:sheep")
    assert land in placement_targets(g)


def test_macdonald_neighbourhood_bonus_when_deploying_fisherman():
    """Appendix: Clans - Clan MacDonald: the Neighbourhood bonus can be used when deploying a
    Fisherman."""
    g = clan_position("macdonald", n=2)
    grass = set(active_land(g, GRASS))
    loch, land, own = next((loch, *near[:2]) for loch in lochs(g)
                           for near in [[t for t in g.board.adjacent[loch] if t in grass]] if len(near) >= 2)
    put(g, 1, "sheep", land)
    put(g, 0, "cow", own)
    start_turn(g, 0)
    expand(g, "fisherman", loch)
    assert g.decision_kind == "neighbourhood" and "trade:buy:wool:1" in legal_names(g)


def test_macdonald_rowing_never_next_to_another_fisherman():
    """Appendix: Clans - Clan MacDonald: rowing goes to an adjacent empty loch, and two Fishermen
    may never be adjacent: a loch next to another Fisherman is not offered."""
    g = clan_position("macdonald", n=2)
    lake = set(lochs(g))
    a, b, d = next((a, b, d) for a in sorted(lake) for b in g.board.adjacent[a] if b in lake
                   for d in g.board.adjacent[b] if d in lake and d != a and d not in g.board.adjacent[a]
                   and any(e in lake and e not in g.board.adjacent[d] for e in g.board.adjacent[a]))
    put_worker(g, "fisherman", a)
    put_worker(g, "fisherman", d)
    start_turn(g, 0)
    act(g, f"space:{label(g, a)}")
    targets = placement_targets(g)
    assert b not in targets
    assert targets == {t for t in g.board.adjacent[a] if t in lake and g.occupant[t] == -1
                       and t not in g.board.adjacent[d]}


def loch_beyond_a_loch(g):
    """(grass, near, far): a grassland space, a loch adjacent to it and a loch adjacent to that loch
    but one loch away from the grassland (crossing exactly one loch space)."""
    from helpers import loch_distance
    lake = set(lochs(g))
    for s in active_land(g, GRASS):
        for near in g.board.adjacent[s]:
            if near not in lake:
                continue
            for far in g.board.adjacent[near]:
                if far in lake and loch_distance(g, s, far) == 1:
                    return s, near, far
    raise AssertionError("no loch one loch away from grassland")


@pytest.mark.parametrize("level,offered", [(1, False), (2, True)])
def test_macdonald_fisherman_on_a_loch_one_loch_away_at_one_loch(level, offered):
    """Appendix: Clans - Clan MacDonald: "You still need the appropriate Shipping reach to expand
    across loch spaces"; 4. Upgrade Shipping: "1-loch: ... you can expand across one loch space".
    So at 1-loch a Fisherman may go on a loch reached by crossing one loch space (not at
    river-crossing), exactly as land beyond one loch is reached."""
    g = clan_position("macdonald", n=3)
    grass, near, far = loch_beyond_a_loch(g)
    put(g, 0, "sheep", grass)
    g.players[0].shipping = level
    g.players[0].reach = -1
    start_turn(g, 0)
    act(g, "expand:fisherman")
    targets = placement_targets(g)
    assert near in targets
    assert (far in targets) is offered


@pytest.mark.parametrize("level,joined", [(1, False), (2, True)])
def test_macdonald_fishermen_one_loch_apart_form_one_settlement_group_at_one_loch(level, joined):
    """Settlement Scoring: Settlements "within Shipping reach of each other" count together. Two
    Fishermen with one loch space between them are within 1-loch reach of each other (and not
    within river-crossing reach)."""
    from clans_env.engine.rules.scoring import connected_settlements
    g = clan_position("macdonald", n=3)
    lake = set(lochs(g))
    a, d = next((a, d) for a in sorted(lake) for b in g.board.adjacent[a] if b in lake
                for d in g.board.adjacent[b] if d in lake and d != a and d not in g.board.adjacent[a])
    put_worker(g, "fisherman", a)
    put_worker(g, "fisherman", d)
    g.players[0].shipping = level
    g.players[0].reach = -1
    assert connected_settlements(g, 0) == (2 if joined else 1)


def test_macdonald_rowing_may_end_on_an_adjacent_port_tile():
    """Appendix: Clans - Clan MacDonald: "Fishermen can be placed on or moved to all empty loch spaces
    and Port bonus tiles"; rowing is the move, so a Fisherman may row to an adjacent empty Port tile
    in play (docs/rules-interpretations.md), never to one that is not in play."""
    sides = ("A1", "B2", "C1", "D2")                  # a map whose 1-2 player ports touch lochs
    g = clan_position("macdonald", n=2, sides=sides)
    lake = set(lochs(g))
    slot, loch = next((k, t) for k, ps in enumerate(g.topo.port_space) for t in g.board.adjacent[ps] if t in lake)
    port = g.topo.port_space[slot]
    put_worker(g, "fisherman", loch)
    start_turn(g, 0)
    act(g, f"space:{label(g, loch)}")
    assert f"space:{label(g, port)}" in legal_names(g)
    act(g, f"space:{label(g, port)}")
    assert g.unit_at[port] == D.FISHERMAN and g.occupant[loch] == -1
    g2 = clan_position("macdonald", n=2, sides=sides, port_tiles=False)
    put_worker(g2, "fisherman", loch)
    start_turn(g2, 0)
    act(g2, f"space:{label(g2, loch)}")
    assert f"space:{label(g2, port)}" not in legal_names(g2)


def test_macdonald_port_tile_7_exchange_keeps_worker_pool():
    """Appendix: Port Bonus Tiles (tile 7) with Clan MacDonald: a Worker put on the map by the
    exchange comes out of the shared pool of eight Workers."""
    g = clan_position("macdonald", n=2)
    both = [s for s in active_land(g, GRASS) if g.board.land[s] & FOREST and g.occupant[s] == -1]
    put(g, 0, "sheep", both[0])
    pl = g.players[0]
    before = pl.units_left[D.MINER]
    push(g, (K_EXCHANGE_FROM, 0, (), ()))         # Port tile 7
    act(g, f"space:{label(g, both[0])}", "expand:woodcutter")
    assert g.unit_at[both[0]] == D.WOODCUTTER
    assert pl.units_placed(D.WOODCUTTER) == 1
    assert [pl.units_left[u] for u in (D.WOODCUTTER, D.MINER, D.FISHERMAN)] == [before - 1] * 3


# ---- MacKenzie -------------------------------------------------------------------------------------
def mackenzie_production(g, distill=1, cellar=True):
    def answer(g):
        if g.decision_kind == "process":
            factory = g.stack[-1][2]
            return f"choose:{min(distill, max(a - A.CHOOSE for a in g.legal_actions()))}" \
                if factory == D.DISTILLERY else "choose:0"
        if g.decision_kind == "clan":
            return "choose:0" if cellar else "done"
        return None
    run_production(g, answer)


def test_mackenzie_three_pounds_per_whisky_produced():
    """Appendix: Clans - Clan MacKenzie: £3 for each Whisky produced; the Whisky is kept."""
    g = clan_position("mackenzie", n=2, money=0)
    for s in grass_chain(g, 1):
        put(g, 0, "distillery", s)
    g.players[0].goods[D.GRAIN] = 2
    mackenzie_production(g, distill=2, cellar=False)
    assert g.players[0].goods[D.WHISKY] == 2
    assert g.players[0].money == 2 * D.MACKENZIE_WHISKY_MONEY


def test_mackenzie_cellar_ages_and_returns_with_money():
    """Appendix: Clans - Clan MacKenzie: at the end of Production one fresh barrel may go in
    the left cellar space; each Production start ages it one space; the barrel starting a
    Production in the rightmost space goes to stock with £15."""
    g = clan_position("mackenzie", n=2, money=0)
    put(g, 0, "distillery", grass_chain(g, 0)[0])
    g.players[0].goods[D.GRAIN] = 1
    mackenzie_production(g)
    pl = g.players[0]
    assert pl.extra["cellar"] == [1, 0, 0] and pl.goods[D.WHISKY] == 0
    for expected in ([0, 1, 0], [0, 0, 1]):
        pl.money = 0
        mackenzie_production(g, distill=0)
        assert pl.extra["cellar"] == expected and pl.money == 0 and pl.goods[D.WHISKY] == 0
    mackenzie_production(g, distill=0)
    assert pl.extra["cellar"] == [0, 0, 0] and pl.goods[D.WHISKY] == 1
    assert pl.money == D.MACKENZIE_CELLAR_MONEY[2] == 15


def test_mackenzie_cellar_only_fresh_whisky():
    """Appendix: Clans - Clan MacKenzie: only a freshly produced barrel may go in the cellar."""
    g = clan_position("mackenzie", n=2, money=0)
    put(g, 0, "distillery", grass_chain(g, 0)[0])
    g.players[0].goods[D.WHISKY] = 3
    kinds = []
    run_production(g, lambda g: kinds.append(g.decision_kind))
    assert "clan" not in kinds and g.players[0].extra["cellar"] == [0, 0, 0]


@pytest.mark.parametrize("space,money", [(0, 0), (1, 7), (2, 15)])
def test_mackenzie_take_barrel_out_any_time(space, money):
    """Appendix: Clans - Clan MacKenzie: any barrel may be moved to stock at any time (here:
    before the main action, which stays pending), gaining £7 or £15 for aged Whisky."""
    g = clan_position("mackenzie", n=2, money=0)
    cellar = [0, 0, 0]
    cellar[space] = 1
    g.players[0].extra["cellar"] = cellar
    start_turn(g, 0)
    act(g, f"choose:{space}")
    assert g.players[0].money == money and g.players[0].goods[D.WHISKY] == 1
    assert g.players[0].extra["cellar"] == [0, 0, 0] and g.decision_kind == "main"


def test_mackenzie_cellar_counts_for_scoring_tile_2_and_final():
    """Appendix: Clans - Clan MacKenzie: Whisky in the cellar counts for Scoring tile #2 (and,
    being the player's Whisky, at Final Scoring)."""
    g = clan_position("mackenzie", n=2)
    g.players[0].goods[D.WHISKY] = 1
    assert scoring_tile_glory(g, 0, 2) == 0
    g.players[0].extra["cellar"] = [1, 0, 0]
    assert scoring_tile_glory(g, 0, 2) == 3
    assert g.final_scores()[0]["processed_goods"] == 2 * 2


# ---- Robertson ------------------------------------------------------------------------------------
def delta_and_plain_next_to(g):
    """(land, delta, plain): grassland ``land`` neighbouring a river-delta grassland space and a
    grassland space that is no river delta."""
    grass = {s for s in active_land(g, GRASS) if g.occupant[s] == -1}
    for land in sorted(grass):
        near = [t for t in g.board.neighbours[land] if t in grass]
        deltas = [t for t in near if g.board.river_delta[t]]
        plain = [t for t in near if not g.board.river_delta[t]]
        if deltas and plain:
            return land, deltas[0], plain[0]
    raise AssertionError("no such spaces on this map")


@pytest.mark.parametrize("n,discount", [(1, 2), (2, 2), (3, 3), (4, 3)])
def test_robertson_river_delta_discount(n, discount):
    """Appendix: Clans - Clan Robertson: £3 less in total on a river delta space (£2 less with
    1-2 players); rulebook example: 4 players, Bakery £8 on a £1 delta space costs £6."""
    clans = ["robertson", "campbell", "stewart", "cunningham"][:n]
    g = blank_position(n, clans=clans)
    land, delta, plain = delta_and_plain_next_to(g)
    put(g, 0, "sheep", land)
    start_turn(g, 0)
    assert expand(g, "bakery", delta) == D.UNIT_COST[D.BAKERY] + g.board.cost[delta] - discount
    end_turn(g)
    start_turn(g, 0)
    assert expand(g, "bakery", plain) == D.UNIT_COST[D.BAKERY] + g.board.cost[plain]


def test_robertson_discount_on_first_workers():
    """Appendix: Clans - Clan Robertson: the discount applies to placing the initial Workers."""
    from helpers import make_game
    g = make_game(2, 0, clans=["robertson", "stewart"])
    seen = False
    while g.decision_kind in ("first_worker", "place"):
        p = g.current_player
        if g.decision_kind == "place" and p == 0:
            unit = g.stack[-1][2]
            deltas = [s for s in placement_targets(g) if g.board.river_delta[s]]
            s = deltas[0] if deltas else min(placement_targets(g))
            before = g.players[0].money
            g.apply(A.SPACE + s)
            disc = 2 if g.board.river_delta[s] else 0
            seen |= bool(disc)
            assert before - g.players[0].money == D.UNIT_COST[unit] + g.board.cost[s] - disc
        else:
            g.apply(g.legal_actions()[0])
    assert seen, "no river delta space took a first Worker on this map"


# ---- Stewart -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 4])
def test_stewart_start_merchants_and_shipping(n):
    """Appendix: Clans - Clan Stewart: three additional Merchants (five in stock) and
    river-crossing Shipping for free; they count as Upgrades for Scoring tile 8."""
    g = blank_position(n, clans=["stewart", "campbell", "cunningham", "robertson"][:n])
    pl = g.players[0]
    assert pl.merchants_stock == 5 and pl.merchants_board == D.MERCHANTS_ON_TRACK - 3
    assert D.SHIPPING_LEVELS[pl.shipping] == "river-crossing"
    assert scoring_tile_glory(g, 0, 8) == 3 + 1
    assert scoring_tile_glory(g, 1, 8) == 0


def test_stewart_one_pound_per_trade():
    """Appendix: Clans - Clan Stewart: £1 each time it trades, however many Goods, received
    before paying (so a purchase may use it)."""
    g = clan_position("stewart", money=0)
    g.players[0].goods[D.WOOL] = 3
    start_turn(g, 0)
    act(g, "trade:sell:wool:3")
    assert g.players[0].money == 1 + 3 * D.PRICES[D.WOOL][D.START_STEP]
    g2 = clan_position("stewart", money=D.PRICES[D.WOOL][D.START_STEP] - 1)
    assert "trade:buy:wool:1" in legal_names(g2)
    act(g2, "trade:buy:wool:1")
    assert g2.players[0].money == 0 and g2.players[0].goods[D.WOOL] == 1


def test_stewart_one_pound_per_good_type_in_neighbourhood_bonus():
    """Appendix: Clans - Clan Stewart: with the Neighbourhood bonus, £1 per type of Good traded."""
    g = clan_position("stewart", n=3)
    grass = set(active_land(g, GRASS))
    target = next(s for s in sorted(grass)
                  if sum(1 for t in g.board.neighbours[s] if t in grass) >= 3)
    nbs = [t for t in g.board.neighbours[target] if t in grass]
    put(g, 1, "sheep", nbs[0])
    put(g, 1, "cow", nbs[1])
    put(g, 0, "field", nbs[2])
    start_turn(g, 0)
    money = g.players[0].money
    paid = expand(g, "sheep", target)
    assert g.decision_kind == "neighbourhood"
    wool = D.PRICES[D.WOOL][g.prices[D.WOOL]] - D.NB_DISCOUNT[D.WOOL]
    act(g, "trade:buy:wool:1")
    milk = D.PRICES[D.MILK][g.prices[D.MILK]] - D.NB_DISCOUNT[D.MILK]
    act(g, "trade:buy:milk:2")
    assert g.players[0].money == money - paid - wool - 2 * milk + 2


def test_other_clans_no_trade_money():
    """1. Trade: without Clan Stewart a trade pays exactly the price."""
    g = clan_position("campbell", money=0)
    g.players[0].goods[D.WOOL] = 1
    start_turn(g, 0)
    act(g, "trade:sell:wool:1")
    assert g.players[0].money == D.PRICES[D.WOOL][D.START_STEP]


# ---- MacEwen (Kickstarter) ---------------------------------------------------------------------------
def test_macewen_brews_beer_from_hops():
    """Kickstarter clan MacEwen (components.toml [clans.macewen]): after fulfilling a contract with Hops, brew up
    to one Beer per Hops (max 3), 1 Grain each, £9 per Beer."""
    hop = next(c for c in D.CONTRACTS if c.hops >= 2 and not c.meat)
    g = clan_position("macewen", kickstarter=True, money=0)
    pl = g.players[0]
    for good in range(D.NUM_GOODS):
        pl.goods[good] = hop.goods[good]
    pl.goods[D.GRAIN] = 5
    pl.open_contracts = [hop.id]
    for zone in (g.display,):
        if hop.id in zone:
            zone[zone.index(hop.id)] = -1
    if hop.id in g.pile:
        g.pile.remove(hop.id)
    start_turn(g, 0)
    act(g, "fulfil:0")
    assert g.decision_kind == "clan"
    top = min(hop.hops, 3)
    assert {a - A.CHOOSE for a in g.legal_actions()} == set(range(top + 1))
    money = pl.money
    act(g, f"choose:{top}")
    assert pl.goods[D.GRAIN] == 5 - top and pl.money == money + 9 * top


def test_macewen_only_with_kickstarter():
    """Kickstarter clan MacEwen: only in play with the Kickstarter option."""
    from clans_env import GameConfig
    with pytest.raises(ValueError, match="kickstarter"):
        GameConfig(num_players=2, clans=["macewen", "stewart"])


def test_every_clan_registered_in_its_own_module():
    """Issue: one module per clan, each registering itself."""
    assert set(CLANS) == set(D.CLANS_BASE) | set(D.CLANS_KICKSTARTER) | set(D.CLANS_INDUSTRIA)
    for name, clan in CLANS.items():
        assert type(clan).__module__.endswith("." + name)
        expected = ("kickstarter" if name in D.CLANS_KICKSTARTER else
                    "industria" if name in D.CLANS_INDUSTRIA else "base")
        assert clan.expansion == expected, name


def rowing_by_the_rule(g, p):
    """Clan MacDonald's rowing offers, stated plainly: a Fisherman with an adjacent empty loch or Port tile in
    play that is not next to another of p's Fishermen (once a turn)."""
    from clans_env.engine.clans.macdonald import water_spaces
    if g.turn.get("rowed"):
        return []
    fish = [s for s in range(g.board.num_spaces) if g.occupant[s] == p and g.unit_at[s] == D.FISHERMAN]
    out = []
    for s in fish:
        others = set().union(*(g.board.adjacent[t] for t in fish if t != s))
        if any(water_spaces(g) >> t & 1 and g.occupant[t] == -1 and t not in others for t in g.board.adjacent[s]):
            out.append(A.SPACE + s)
    return out


def test_macdonald_rowing_offered_for_each_pair_of_fishermen_two_apart():
    """Appendix: Clans - Clan MacDonald: with two Fishermen two lochs apart, each is offered rowing exactly when
    it has an empty loch next to it that is not next to the other (whichever comes first on the map)."""
    g = clan_position("macdonald", n=2)
    lake = lochs(g)
    pairs = [(a, d) for a in lake for d in lake if a != d and d not in g.board.adjacent[a]
             and set(g.board.adjacent[a]) & set(g.board.adjacent[d])]
    assert len(pairs) > 20
    blocked = 0
    for a, d in pairs:
        h = g.clone()
        put_worker(h, "fisherman", a)
        put_worker(h, "fisherman", d)
        want = rowing_by_the_rule(h, 0)
        assert h.clans[0].main_actions(h, 0) == want, (a, d)
        blocked += len(want) < 2
    assert blocked > 5


@pytest.mark.parametrize("industria", [False, True])
def test_macdonald_rowing_offered_exactly_where_the_rules_say_in_random_games(industria):
    """Appendix: Clans - Clan MacDonald: the main decision offers rowing exactly as ``rowing_by_the_rule`` at
    every MacDonald main decision of random games, and ``fishermen`` finds every Fisherman of p."""
    import random

    from clans_env import Game, GameConfig
    from clans_env.engine.clans.macdonald import fishermen
    from clans_env.engine.state import K_MAIN
    rng = random.Random(5)
    checked = offered = 0
    for seed in range(8):
        g = Game(GameConfig(num_players=3, seed=400 + seed, clans=("macdonald", "stewart", "campbell"),
                            industria=industria))
        while not g.is_terminal():
            top = g.stack[-1]
            if top[0] == K_MAIN and g.clans[top[1]].name == "macdonald":
                p = top[1]
                fish = [s for s in range(g.board.num_spaces) if g.occupant[s] == p and g.unit_at[s] == D.FISHERMAN]
                assert fishermen(g, p) == sum(1 << s for s in fish)
                want = rowing_by_the_rule(g, p)
                assert g.clans[p].main_actions(g, p) == want, (seed, p)
                checked += 1
                offered += bool(want)
            legal = g.legal_actions()
            g.apply(legal[int(rng.random() * len(legal))])
    assert checked > 100 and offered > 30, (checked, offered)
