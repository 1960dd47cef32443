"""Clan Douglas (Industria; player aid "Clans - Clan Douglas", docs/rules-index.md R18).

Only with ``GameConfig(industria_clans=True)`` (or ``industria=True``).

- R18.D1: at the start of the game one of the two starting Merchants in stock goes back to the box
  (1 in stock, 5 on the Merchant track; Q47).
- R18.D2-R18.D5 Bulk Trading: each Merchant trades 1 or 2 Goods of the one type of a trade. The trade
  index's quantity is the number of Merchants placed (as in the base game); when more than one number
  of Goods is possible, the ``bulk`` decision asks how many Goods (choose:n, n from the Merchants to
  twice the Merchants, within money, stock and the bonus's limit). The price is the one before the
  trade for every Good, the Price marker moves one step per Merchant (R18.D3), and Douglas gains £2
  per pair of Goods traded, after paying when buying (R18.D4). The aid's example (R18.D5): 3 Whisky at
  £10 with 2 Merchants: pay £30, the marker moves 2 steps, £2 back.
  Bulk Trading applies to every trade: the Trade action, the Neighbourhood bonus purchase and the
  Farmers market sale (whose limit of 4 counts Goods, Q8).
- R18.D6: the Neighbourhood bonus buys up to 4 Goods of each type whatever the player count.
"""
from __future__ import annotations

from .. import data as D
from ..actions import BUY, CHOOSE
from ..state import K_CLAN
from .base import Clan, register
from ..rules.common import price
from ..rules.market import execute_trade

BULK = "bulk"
#: ``extra`` key: Merchants returned to the box at setup (R18.D1)
RETURNED = "merchants_returned"


def goods_range(game, p: int, good: int, direction: int, merchants: int, discount: int, limit: int) -> range:
    """How many Goods ``merchants`` Merchants may trade now (R18.D2): from one per Merchant to two per
    Merchant, within the limit of the bonus, the Goods in stock (selling) or the money (buying)."""
    pl = game.players[p]
    top = merchants * D.DOUGLAS_GOODS_PER_MERCHANT
    if limit and top > limit:
        top = limit
    if direction == BUY:
        unit_price = price(game, good) - discount
        if unit_price > 0:
            top = min(top, pl.money // unit_price)
    else:
        top = min(top, pl.goods[good])
    return range(merchants, max(top, merchants) + 1)


def bulk_trade(game, p: int, good: int, direction: int, merchants: int, qty: int, discount: int) -> None:
    """R18.D3 / R18.D4: ``qty`` Goods at the price before the trade, one price step per Merchant, then
    £2 per pair of Goods (after paying when buying)."""
    execute_trade(game, p, good, direction, merchants, qty, discount)
    game.players[p].money += D.DOUGLAS_PAIR_MONEY * (qty // 2)


@register
class Douglas(Clan):
    name = "douglas"
    expansion = "industria"
    follow_ups = frozenset({BULK})
    neighbourhood_limit = D.DOUGLAS_NEIGHBOURHOOD_LIMIT
    custom_trade = True

    def on_setup(self, game, p: int) -> None:
        pl = game.players[p]
        pl.merchants_stock -= D.DOUGLAS_RETURNED_MERCHANTS
        pl.extra[RETURNED] = D.DOUGLAS_RETURNED_MERCHANTS

    def merchants_returned(self, game, p: int) -> int:
        return game.players[p].extra.get(RETURNED, 0)

    def trade(self, game, p, good, direction, merchants, discount, limit) -> None:
        options = goods_range(game, p, good, direction, merchants, discount, limit)
        if len(options) == 1:
            bulk_trade(game, p, good, direction, merchants, merchants, discount)
        else:
            game.stack.append((K_CLAN, p, BULK, good, direction, merchants, discount, options[-1]))

    def legal(self, game, frame) -> list[int]:
        if frame[2] != BULK:
            return super().legal(game, frame)
        merchants, top = frame[5], frame[7]
        return [CHOOSE + n for n in range(merchants, top + 1)]

    def apply(self, game, frame, action: int) -> None:
        if frame[2] != BULK:
            return super().apply(game, frame, action)
        _, p, _, good, direction, merchants, discount, _ = frame
        game.stack.pop()
        bulk_trade(game, p, good, direction, merchants, action - CHOOSE, discount)

    def describe(self, game, frame) -> str:
        _, p, _, good, direction, merchants, discount, top = frame
        verb = "buy" if direction == BUY else "sell"
        return (f"Clan Douglas, Bulk Trading: your {merchants} Merchant(s) {verb} how many {D.GOODS[good]} "
                f"(choose:{merchants}..choose:{top}; up to 2 each, £{D.DOUGLAS_PAIR_MONEY} per pair)")

    def describe_choice(self, game, frame, k: int) -> dict | None:
        if frame[0] != K_CLAN:
            return None
        good, direction = frame[3], frame[4]
        return {"option": f"{'buy' if direction == BUY else 'sell'} {k} {D.GOODS[good]}", "quantity": k}
