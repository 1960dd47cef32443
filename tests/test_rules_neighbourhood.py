"""Rulebook, Phase 2 "3. Expand - Neighbourhood Bonus"."""
from clans_env.engine import data as D
from helpers import FOREST, GRASS, act, active_land, blank_position, label, legal_names, put, river_pairs, start_turn


def setup_neighbours(n, opponent_units, merchants=5, money=100):
    """p has a Sheep on ``home``; ``target`` (empty grassland) neighbours ``home``; the opponent
    has ``opponent_units`` on other spaces neighbouring ``target``. Returns (g, p, o, target)."""
    g = blank_position(n, money=money)
    p = g.current_player
    o = g.turn_order[1]
    grass = set(active_land(g, GRASS))
    need = len(opponent_units) + 2          # one spare neighbour for the tests that need it
    for target in sorted(grass):
        nbs = [t for t in g.board.neighbours[target] if t in grass]
        if len(nbs) >= need:
            break
    else:
        raise AssertionError("no grassland space with enough grassland neighbours")
    put(g, p, "sheep", nbs[0])
    for unit, s in zip(opponent_units, nbs[1:]):
        put(g, o, unit, s)
    g.players[p].merchants_stock = merchants
    start_turn(g, p)
    return g, p, o, target


def test_rulebook_whisky_example_three_at_seven():
    """Neighbourhood Bonus, example: expanding next to another player's Distillery lets you buy
    Whisky; at a price of £10 you could buy three Whisky at £7 each (3-4 players)."""
    g, p, o, target = setup_neighbours(3, ["distillery"])
    g.prices[D.WHISKY] = D.PRICES[D.WHISKY].index(10)
    start_turn(g, p)
    act(g, "expand:cow", f"space:{label(g, target)}")
    assert g.decision_kind == "neighbourhood" and g.current_player == p
    names = legal_names(g)
    assert {"trade:buy:whisky:1", "trade:buy:whisky:2", "trade:buy:whisky:3", "done"} == names
    money = g.players[p].money
    act(g, "trade:buy:whisky:3")
    assert g.players[p].money == money - 3 * 7
    assert g.players[p].goods[D.WHISKY] == 3
    # prices are adjusted as in a Trade, Merchants go to the Market
    assert D.PRICES[D.WHISKY][g.prices[D.WHISKY]] == D.PRICES[D.WHISKY][D.PRICES[D.WHISKY].index(10) + 3]
    assert g.players[p].merchants_market[D.WHISKY * 2] == 3


def test_two_player_limit_is_four():
    """Neighbourhood Bonus: you cannot buy more than three of one Good per turn, four in a
    2 player game."""
    g, p, o, target = setup_neighbours(2, ["distillery"])
    act(g, "expand:cow", f"space:{label(g, target)}")
    assert "trade:buy:whisky:4" in legal_names(g) and "trade:buy:whisky:5" not in legal_names(g)
    g, p, o, target = setup_neighbours(4, ["distillery"])
    act(g, "expand:cow", f"space:{label(g, target)}")
    assert "trade:buy:whisky:3" in legal_names(g) and "trade:buy:whisky:4" not in legal_names(g)


def test_basic_goods_two_pounds_off():
    """Neighbourhood Bonus: the price of Basic goods (Wool, Grain, Milk) is reduced by £2,
    Processed goods by £3; a Field gives Grain, a Cow Milk."""
    g, p, o, target = setup_neighbours(3, ["field", "cow"])
    act(g, "expand:sheep", f"space:{label(g, target)}")
    names = legal_names(g)
    assert "trade:buy:grain:3" in names and "trade:buy:milk:3" in names
    grain = D.PRICES[D.GRAIN][g.prices[D.GRAIN]]
    money = g.players[p].money
    act(g, "trade:buy:grain:2")
    assert g.players[p].money == money - 2 * (grain - 2)


def test_several_neighbours_each_give_a_bonus():
    """Neighbourhood Bonus: expanding next to several opponent units, you may use the bonus for
    each (the rulebook example: a Distillery and a Cheese dairy: Whisky and Cheese)."""
    g, p, o, target = setup_neighbours(3, ["distillery", "cheese_dairy"])
    act(g, "expand:cow", f"space:{label(g, target)}")
    assert {n.rsplit(":", 1)[0] for n in legal_names(g) if n != "done"} == {"trade:buy:whisky", "trade:buy:cheese"}
    act(g, "trade:buy:whisky:2")
    assert g.decision_kind == "neighbourhood"
    assert {n.rsplit(":", 1)[0] for n in legal_names(g) if n != "done"} == {"trade:buy:cheese"}
    act(g, "trade:buy:cheese:3")
    assert g.players[p].goods[D.WHISKY] == 2 and g.players[p].goods[D.CHEESE] == 3
    assert g.decision_kind != "neighbourhood"


def test_same_good_from_two_neighbours_still_max_three_per_turn():
    """Neighbourhood Bonus: no more than three pieces of the same type of Good per turn, even
    with two neighbouring opponent Distilleries."""
    g, p, o, target = setup_neighbours(3, ["distillery", "distillery"], merchants=7)
    act(g, "expand:cow", f"space:{label(g, target)}")
    assert "trade:buy:whisky:3" in legal_names(g) and "trade:buy:whisky:4" not in legal_names(g)
    act(g, "trade:buy:whisky:3")
    assert g.decision_kind != "neighbourhood"


def test_merchants_needed():
    """Neighbourhood Bonus: you need the appropriate Merchants available (one per Good)."""
    g, p, o, target = setup_neighbours(3, ["distillery"], merchants=1)
    act(g, "expand:cow", f"space:{label(g, target)}")
    assert legal_names(g) == {"trade:buy:whisky:1", "done"}
    g, p, o, target = setup_neighbours(3, ["distillery"], merchants=0)
    act(g, "expand:cow", f"space:{label(g, target)}")
    assert g.decision_kind != "neighbourhood"


def test_never_buy_a_good_you_sold_this_round():
    """Neighbourhood Bonus: 'proceed as under the Trade action': no Merchants on both the buy
    and the sell area of one Good, so a Good sold this round cannot be bought."""
    g, p, o, target = setup_neighbours(3, ["distillery", "bakery"])
    g.players[p].goods[D.WHISKY] = 1
    start_turn(g, p)
    act(g, "trade:sell:whisky:1")
    start_turn(g, p)
    act(g, "expand:cow", f"space:{label(g, target)}")
    assert {n.rsplit(":", 1)[0] for n in legal_names(g) if n != "done"} == {"trade:buy:bread"}


def test_bonus_is_optional_and_only_immediately():
    """Neighbourhood Bonus: 'may immediately perform an additional Trade action'; declining ends
    it and it cannot be used on a later turn."""
    g, p, o, target = setup_neighbours(3, ["distillery"])
    act(g, "expand:cow", f"space:{label(g, target)}")
    money = g.players[p].money
    act(g, "done")
    assert g.players[p].money == money and g.players[p].goods[D.WHISKY] == 0
    start_turn(g, p)
    assert g.decision_kind == "main"
    price = D.PRICES[D.WHISKY][g.prices[D.WHISKY]]
    act(g, "trade:buy:whisky:1")           # a later Trade pays the full price
    assert g.players[p].money == money - price


def test_no_bonus_from_own_units():
    """Neighbourhood Bonus: only another player's unit gives the bonus; your own Distillery
    next to the space does not."""
    g, p, o, target = setup_neighbours(3, [])
    grass = set(active_land(g, GRASS))
    others = [t for t in g.board.neighbours[target] if t in grass and g.occupant[t] == -1]
    put(g, p, "distillery", others[0])
    start_turn(g, p)
    act(g, "expand:cow", f"space:{label(g, target)}")
    assert g.decision_kind != "neighbourhood"


def test_no_bonus_across_a_river():
    """Neighbourhood Bonus: neighbouring means adjacent with no river in between; an opponent
    Distillery across a river gives no bonus."""
    g = blank_position(3)
    p = g.current_player
    o = g.turn_order[1]
    grass = set(active_land(g, GRASS))
    for a, b in river_pairs(g):
        home = [t for t in g.board.neighbours[a] if t in grass and t != b]
        if home:
            break
    else:
        raise AssertionError("no river pair with a free neighbour")
    put(g, p, "sheep", home[0])
    put(g, o, "distillery", b)
    start_turn(g, p)
    act(g, "expand:cow", f"space:{label(g, a)}")
    assert g.decision_kind != "neighbourhood"


def test_opponent_worker_gives_no_bonus():
    """Neighbourhood Bonus: you buy 'the type of Good produced by the neighbouring unit';
    Woodcutters and Miners produce money, no Good."""
    g = blank_position(3)
    p = g.current_player
    o = g.turn_order[1]
    grass = set(active_land(g, GRASS))
    forest = set(active_land(g, FOREST))
    for target in sorted(grass):
        f = [t for t in g.board.neighbours[target] if t in forest]
        h = [t for t in g.board.neighbours[target] if t in grass]
        if f and h and f[0] != h[0]:
            break
    put(g, o, "woodcutter", f[0])
    put(g, p, "sheep", h[0])
    start_turn(g, p)
    act(g, "expand:cow", f"space:{label(g, target)}")
    assert g.decision_kind != "neighbourhood"


def test_money_limits_the_discounted_purchase():
    """Neighbourhood Bonus: proceed as under the Trade action: pay the (discounted) price."""
    g, p, o, target = setup_neighbours(3, ["distillery"], money=40)
    cost = D.UNIT_COST[D.COW] + g.board.cost[target]
    act(g, "expand:cow", f"space:{label(g, target)}")
    left = 40 - cost
    unit = D.PRICES[D.WHISKY][g.prices[D.WHISKY]] - 3
    can = min(3, left // unit)
    names = legal_names(g)
    assert f"trade:buy:whisky:{can}" in names if can else "trade:buy:whisky:1" not in names
    assert f"trade:buy:whisky:{can + 1}" not in names
