"""Rulebook, Phase 2 "1. Trade" and "3. Expand - Neighbourhood Bonus" (the discounted purchase)."""
from __future__ import annotations

from .. import data as D
from ..actions import BUY, DONE, MAX_TRADE_QTY, SELL, TRADE, decode_trade
from ..state import K_NEIGHBOURHOOD
from ..topology import bits
from .common import move_price, price, second_units
from .registry import apply_for, describe_for, legal_for


def trade_options(g, p: int, out: list) -> None:
    """Append every legal Trade action of p (one Good, buy or sell, 1..Merchants in stock).

    Never Merchants on both the buy and the sell area of one Good in a round.
    """
    pl = g.players[p]
    stock = pl.merchants_stock
    if stock <= 0:
        return
    if stock > MAX_TRADE_QTY:
        stock = MAX_TRADE_QTY
    market = pl.merchants_market
    clan = g.clans[p]
    budget = pl.money + clan.trade_money
    goods = pl.goods
    wild = clan.wild_processed(g, p) if clan.custom_trade else 0     # Clan Fraser's Kilts
    prices = g.prices
    for good, price_track, basic, buy, sell in _TRADE_ROWS:
        area = good * 2
        if not market[area + SELL]:          # may buy
            q = budget // price_track[prices[good]]
            if q > stock:
                q = stock
            if q > 0:
                out += buy[q]
        if not market[area + BUY]:           # may sell
            q = goods[good] + (wild if wild and not basic else 0)
            if q > stock:
                q = stock
            if q > 0:
                out += sell[q]


def _runs(first: int) -> tuple:
    """For q = 0..MAX_TRADE_QTY, the Trade indices of quantities 1..q (``first``: quantity 1's)."""
    return tuple(tuple(range(first, first + q)) for q in range(MAX_TRADE_QTY + 1))


#: per Good: its price track, whether it is Basic, and its buy and sell indices (``_runs``), appended whole
_TRADE_ROWS = tuple((good, D.PRICES[good], D.IS_BASIC[good], _runs(TRADE + (good * 2 + BUY) * MAX_TRADE_QTY),
                     _runs(TRADE + (good * 2 + SELL) * MAX_TRADE_QTY)) for good in range(D.NUM_GOODS))


def do_trade(g, p: int, good: int, direction: int, qty: int, discount: int = 0, limit: int = 0) -> None:
    """Send ``qty`` Merchants to the Market, pay or receive price x qty, move the price.

    A clan with ``custom_trade`` (Douglas's Bulk Trading, Fraser's Kilts) resolves the trade itself,
    possibly through its own decision pushed on top of the stack (so callers push what follows the
    trade before calling this); ``limit`` is the most Goods the trade may move (0: no limit but the
    Merchants), e.g. 4 for the Farmers market sale."""
    clan = g.clans[p]
    if clan.custom_trade:
        clan.trade(g, p, good, direction, qty, discount, limit)
        return
    execute_trade(g, p, good, direction, qty, qty, discount)


def execute_trade(g, p: int, good: int, direction: int, merchants: int, qty: int, discount: int = 0) -> None:
    """``merchants`` Merchants trade ``qty`` Goods: pay or receive price x qty (the price before the
    trade), the Price marker moves one step per Merchant (rulebook, 1. Trade; Clan Douglas R18.D3)."""
    pl = g.players[p]
    clan = g.clans[p]
    if clan.watches_trades:
        clan.on_trade(g, p, good, qty, direction)
    unit_price = price(g, good) - discount
    if direction == BUY:
        pl.money -= unit_price * qty
        pl.goods[good] += qty
        move_price(g, good, merchants)
    else:
        pl.money += unit_price * qty
        pl.goods[good] -= qty
        move_price(g, good, -merchants)
    pl.merchants_stock -= merchants
    pl.merchants_market[good * 2 + direction] += merchants


def apply_trade(g, p: int, action: int) -> None:
    good, direction, qty = decode_trade(action)
    do_trade(g, p, good, direction, qty)


# ---- Neighbourhood bonus ----------------------------------------------------------------
def neighbourhood_goods(g, p: int, space: int) -> int:
    """Goods (bit set over GOODS) produced by opponent units neighbouring ``space``."""
    mask = 0
    occ = g.occupant
    ua = g.unit_at
    nb = g.board.neighbours[space]
    extra = g.clans[p].bonus_reach(g, p, space)     # clan: more spaces count (MacFarlane's river)
    if extra:
        nb = tuple(sorted(set(nb) | set(bits(extra))))
    for t in nb:
        o = occ[t]
        if o >= 0 and o != p:
            good = D.UNIT_GOOD[ua[t]]
            if good >= 0:
                mask |= 1 << good
    stacked = second_units(g)
    if stacked:                 # Industria: a second unit on a space gives its Good too (R4.7, Q5)
        for i in range(0, len(stacked), 3):
            if stacked[i + 2] != p and stacked[i] in nb:
                good = D.UNIT_GOOD[stacked[i + 1]]
                if good >= 0:
                    mask |= 1 << good
    return mask


def neighbourhood_limit(g, p: int) -> int:
    lim = g.clans[p].neighbourhood_limit
    if lim:
        return lim
    return D.NB_LIMIT_TWO if g.num_players == 2 else D.NB_LIMIT_MULTI


@legal_for(K_NEIGHBOURHOOD)
def legal_neighbourhood(g, frame) -> list:
    """Buy up to 3 (4 with 2 players) of each neighbouring opponent's Good at -2 / -3 each."""
    _, p, goods_mask = frame
    pl = g.players[p]
    stock = pl.merchants_stock
    limit = neighbourhood_limit(g, p)
    if stock < limit:
        limit = stock
    out = []
    if limit <= 0:
        return out
    budget = pl.money + g.clans[p].trade_money
    for good in range(D.NUM_GOODS):
        if goods_mask >> good & 1 and not pl.merchants_market[good * 2 + SELL]:
            unit_price = D.PRICES[good][g.prices[good]] - D.NB_DISCOUNT[good]
            q = budget // unit_price if unit_price > 0 else limit
            if q > limit:
                q = limit
            if q > 0:
                base = TRADE + (good * 2 + BUY) * MAX_TRADE_QTY
                out.extend(range(base, base + q))
    if out:
        out.append(DONE)
    return out


@apply_for(K_NEIGHBOURHOOD)
def apply_neighbourhood(g, frame, action: int) -> None:
    _, p, goods_mask = frame
    g.stack.pop()
    if action == DONE:
        return
    good, _, qty = decode_trade(action)
    rest = goods_mask & ~(1 << good)
    if rest:                                # pushed first: a clan's trade decision comes before it
        g.stack.append((K_NEIGHBOURHOOD, p, rest))
    do_trade(g, p, good, BUY, qty, discount=D.NB_DISCOUNT[good], limit=neighbourhood_limit(g, p))


@describe_for(K_NEIGHBOURHOOD)
def describe_neighbourhood(g, frame) -> str:
    offers = [f"{D.GOODS[i]} at £{D.PRICES[i][g.prices[i]] - D.NB_DISCOUNT[i]} each (Market £{D.PRICES[i][g.prices[i]]} "
              f"- £{D.NB_DISCOUNT[i]})" for i in range(D.NUM_GOODS) if frame[2] >> i & 1]
    return f"Neighbourhood bonus: buy {', '.join(offers)}, or done"
