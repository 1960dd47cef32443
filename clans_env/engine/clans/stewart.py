"""Clan Stewart (rulebook "Appendix: Clans - Clan Stewart").

- Starts with three additional Merchants (five in stock): they come off the Merchant track,
  so they count as hired Merchants for Scoring tile 8 ("Upgrades your clan started with").
- Starts with river-crossing Shipping for free.
- Gains £1 each time it trades at the Market, however many Goods (before paying when
  buying); with the Neighbourhood bonus £1 per type of Good bought, since each Good of the
  bonus is its own purchase (rules/market.py ``do_trade``).
"""
from __future__ import annotations

from .. import data as D
from .base import Clan, register


@register
class Stewart(Clan):
    name = "stewart"
    trade_money = D.STEWART_TRADE_MONEY

    def on_setup(self, game, p: int) -> None:
        pl = game.players[p]
        moved = min(D.STEWART_EXTRA_MERCHANTS, pl.merchants_board)
        pl.merchants_board -= moved
        pl.merchants_stock += moved
        pl.shipping = max(pl.shipping, D.STEWART_SHIPPING["two_player" if game.num_players <= 2 else "multi"])
        pl.reach = -1

    def on_trade(self, game, p: int, good: int, qty: int, direction: int) -> None:
        game.players[p].money += D.STEWART_TRADE_MONEY
