"""Clan MacFarlane (Industria; player aid "Clans", rules R18.MF1-R18.MF6 of
docs/rules-index.md; readings Q50 and docs/rules-interpretations.md "MacFarlane").

Only with ``GameConfig(industria_clans=True)`` (or ``industria=True``).

- R18.MF1: river-crossing Shipping and 2 Merchant upgrades at the start (``on_setup``: two Merchants
  hired from the Player board for free, Q50).
- R18.MF2 Canals: for every river along which one of MacFarlane's units stands, every space along
  that same river is within reach, for Expanding (``extra_reach``) and for connecting Settlements at
  Final Scoring (``settlement_link_mask``), nothing else: the Train station and Delivery bonus 3's city
  tile ask for ``rules/common.py`` ``shipping_reach``, which leaves the canals out (C-MF2). A river is one
  chain of ``board.rivers``; a space is along it when one of its edges is a river edge of that chain.
- R18.MF3: deploying a unit on a space along a river, the Neighbourhood bonus counts every opponent
  unit along the same river(s) and every Farmers market along them triggers (``bonus_reach``, read by
  rules/market.py ``neighbourhood_goods`` and rules/farmers_markets.py ``triggered_markets``; the
  limit per Good stays, Q50).
- R18.MF4: waterfall spaces (the mountain at a river's source) are never in canal reach (board.py
  already keeps them off the river; ``canal_masks`` also drops them by name).
- R18.MF5: all canal abilities need Shipping at least river-crossing (checked each time: Delivery
  bonus 5 could lower it).
- R18.MF6: canal reach does not combine with loch Shipping: canal spaces are reached from the units'
  own spaces only, and the canal spaces do not extend Shipping reach further.

The reach cache (``pl.reach``) is incremental in ``place_unit`` for Shipping reach only; a new unit
along a river widens the canals, so the clan sets ``extra_reach_grows`` and ``place_unit`` drops the
cache for MacFarlane.
"""
from __future__ import annotations

from functools import lru_cache

from .. import data as D
from ..topology import bits
from .base import Clan, register


@lru_cache(maxsize=64)
def canal_masks(topo) -> tuple[int, ...]:
    """Per space: the active spaces along every river the space is along (0 for a space along none),
    waterfall spaces excluded (R18.MF2, R18.MF4)."""
    board = topo.board
    waterfall = sum(1 << s for s in board.waterfall)
    out = [0] * board.num_spaces
    for river in board.rivers:
        along = 0
        for a, b in river:
            along |= (1 << a) | (1 << b)
        along &= topo.active & topo.land_mask & ~waterfall
        for s in bits(along):
            out[s] |= along
    return tuple(out)


def canals_open(game, p: int) -> bool:
    """R18.MF5: canal abilities need at least river-crossing Shipping."""
    return game.players[p].shipping >= D.MACFARLANE_CANAL_SHIPPING


def canal_reach(game, p: int, spaces: int) -> int:
    """Spaces along the rivers that the units on ``spaces`` stand along (R18.MF2)."""
    canal = canal_masks(game.topo)
    out = 0
    for s in bits(spaces & game.topo.along_river):
        out |= canal[s]
    return out


@register
class MacFarlane(Clan):
    name = "macfarlane"
    expansion = "industria"
    extra_reach_grows = True            # a new unit along a river widens the canals

    def on_setup(self, game, p: int) -> None:
        pl = game.players[p]
        pl.shipping = max(pl.shipping, D.MACFARLANE_SHIPPING)
        hired = min(D.MACFARLANE_FREE_MERCHANTS, pl.merchants_board)
        pl.merchants_board -= hired
        pl.merchants_stock += hired
        pl.reach = -1

    def extra_reach(self, game, p: int) -> int:
        if not canals_open(game, p):
            return 0
        return canal_reach(game, p, game.players[p].spaces)

    def bonus_reach(self, game, p: int, space: int) -> int:
        if not (game.topo.along_river >> space & 1) or not canals_open(game, p):
            return 0
        return canal_masks(game.topo)[space] & ~(1 << space)

    def settlement_link_mask(self, game, p: int, settlement: int) -> int:
        if not canals_open(game, p):
            return 0
        return canal_reach(game, p, settlement)

    def state_features(self, game, p: int) -> tuple:
        if not canals_open(game, p):
            return (0.0, 0.0)
        n = (canal_reach(game, p, game.players[p].spaces) & ~game.occupied).bit_count()
        return (1.0, min(n, 32) / 32)

    def state_text(self, game, p: int) -> str:
        if not canals_open(game, p):
            return "Canals closed (Shipping below river-crossing)"
        n = (canal_reach(game, p, game.players[p].spaces) & ~game.occupied).bit_count()
        return f"Canals open: {n} empty spaces along your rivers in reach"
