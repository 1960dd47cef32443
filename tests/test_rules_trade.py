"""Rulebook, Phase 2 "1. Trade" (the Market)."""
import pytest

from clans_env import IllegalActionError
from clans_env.engine import data as D
from helpers import act, blank_position, legal_names, start_turn


def whisky_step_at(price: int) -> int:
    return D.PRICES[D.WHISKY].index(price)


def test_whisky_example():
    """1. Trade, the rulebook's example: buy two Whisky at £10 -> two Merchants on the Whisky up
    arrow, pay £20, take two Whisky, the price rises two steps to £12."""
    g = blank_position(3)
    p = g.current_player
    g.prices[D.WHISKY] = whisky_step_at(10)
    start_turn(g, p)
    act(g, "trade:buy:whisky:2")
    pl = g.players[p]
    assert pl.money == 100 - 20
    assert pl.goods[D.WHISKY] == 2
    assert D.PRICES[D.WHISKY][g.prices[D.WHISKY]] == 12
    assert g.prices[D.WHISKY] == whisky_step_at(10) + 2
    assert pl.merchants_market[D.WHISKY * 2 + 0] == 2      # buy area of Whisky
    assert pl.merchants_stock == D.MERCHANTS_IN_STOCK - 2


def test_sell_receives_price_times_quantity_and_lowers_price():
    """1. Trade: selling receives the current price x quantity; the marker moves down one step
    per Good sold."""
    g = blank_position(2)
    p = g.current_player
    g.players[p].goods[D.WOOL] = 3
    g.prices[D.WOOL] = 6
    start_turn(g, p)
    act(g, "trade:sell:wool:2")
    assert g.players[p].money == 100 + 2 * D.PRICES[D.WOOL][6]
    assert g.players[p].goods[D.WOOL] == 1
    assert g.prices[D.WOOL] == 4
    assert g.players[p].merchants_market[D.WOOL * 2 + 1] == 2


def test_price_marker_stops_at_the_ends_of_the_track():
    """1. Trade: the marker moves one step per Good but not beyond the last printed step
    (data/components.toml, [market])."""
    g = blank_position(2)
    p = g.current_player
    g.players[p].merchants_stock = 4
    g.prices[D.CHEESE] = D.MAX_STEP - 1
    g.players[p].goods[D.BREAD] = 4
    g.prices[D.BREAD] = 1
    start_turn(g, p)
    act(g, "trade:buy:cheese:2")
    assert g.prices[D.CHEESE] == D.MAX_STEP
    # the price paid is the current price for every Good of the action
    assert g.players[p].money == 100 - 2 * D.PRICES[D.CHEESE][D.MAX_STEP - 1]
    start_turn(g, p)
    act(g, "trade:sell:bread:2")
    assert g.prices[D.BREAD] == 0


def test_quantity_limited_by_merchants_in_stock():
    """1. Trade: only Merchants in stock (not on the Player board) can trade; one Merchant per
    Good traded."""
    g = blank_position(2)
    p = g.current_player
    names = legal_names(g)
    assert "trade:buy:wool:2" in names and "trade:buy:wool:3" not in names
    g.players[p].merchants_stock = 0
    start_turn(g, p)
    assert not any(n.startswith("trade:") for n in legal_names(g))
    with pytest.raises(IllegalActionError):
        act(g, "trade:buy:wool:1")


def test_buying_limited_by_money_and_selling_by_goods():
    """1. Trade: pay the current price x quantity (no credit); sell only Goods you have."""
    g = blank_position(2, money=21)
    p = g.current_player
    g.players[p].merchants_stock = 5
    g.players[p].goods[D.BREAD] = 1
    start_turn(g, p)
    whisky = D.PRICES[D.WHISKY][g.prices[D.WHISKY]]
    names = legal_names(g)
    affordable = 21 // whisky
    assert f"trade:buy:whisky:{affordable}" in names
    assert f"trade:buy:whisky:{affordable + 1}" not in names
    assert "trade:sell:bread:1" in names and "trade:sell:bread:2" not in names
    assert not any(n.startswith("trade:sell:wool") for n in names)


def test_one_good_per_trade_action():
    """1. Trade: one type of Good per Trade action (every trade index names one Good, one
    direction and a quantity); a second type needs another turn: after one Trade the main action
    is spent."""
    from clans_env.engine import actions as A
    names = {A.describe(a) for a in range(A.TRADE, A.TAKE_CONTRACT)}
    assert len(names) == D.NUM_GOODS * 2 * A.MAX_TRADE_QTY
    assert all(len(n.split(":")) == 4 for n in names)
    from helpers import port_neighbours, put
    g = blank_position(2)
    p = g.current_player
    g.port_tiles = (5, 3, 6, 2)
    put(g, p, "sheep", port_neighbours(g, 0)[0])       # a usable Port tile keeps the turn alive
    start_turn(g, p)
    assert any(n.startswith("trade:") for n in legal_names(g))
    act(g, "trade:buy:wool:1")
    assert g.current_player == p and g.decision_kind == "post_main"
    assert "use_port:0" in legal_names(g)
    assert not any(n.startswith("trade:") for n in legal_names(g))


def test_never_buy_and_sell_the_same_good_in_a_round():
    """1. Trade: it is prohibited to have your Merchants on both the buy and sell area of the
    same Good (until they are retrieved in the next Preparation phase)."""
    g = blank_position(2)
    p = g.current_player
    g.players[p].merchants_stock = 5
    g.players[p].goods[D.WHISKY] = 2
    start_turn(g, p)
    act(g, "trade:buy:whisky:1")
    start_turn(g, p)
    names = legal_names(g)
    assert not any(n.startswith("trade:sell:whisky") for n in names)
    assert "trade:buy:whisky:1" in names            # buying more of it is fine
    assert "trade:buy:cheese:1" in names
    before = g.to_json()
    with pytest.raises(IllegalActionError):
        act(g, "trade:sell:whisky:1")
    assert g.to_json() == before
    # selling first forbids buying
    g.players[p].goods[D.CHEESE] = 1
    start_turn(g, p)
    act(g, "trade:sell:cheese:1")
    start_turn(g, p)
    assert not any(n.startswith("trade:buy:cheese") for n in legal_names(g))


def test_merchants_stay_on_market_until_preparation():
    """1. Trade / Phase 1: Merchants remain on the Market until retrieved in the next
    Preparation phase; then the Good may be traded the other way."""
    g = blank_position(2)
    p = g.current_player
    g.players[p].goods[D.WHISKY] = 1
    start_turn(g, p)
    act(g, "trade:buy:whisky:1")
    while g.round == 1:
        g.apply(g.legal_actions()[0])        # pass / decline everything to the next round
    pl = g.players[p]
    assert sum(pl.merchants_market) == 0
    assert pl.merchants_stock == D.MERCHANTS_IN_STOCK
    start_turn(g, p)
    assert "trade:sell:whisky:1" in legal_names(g)
