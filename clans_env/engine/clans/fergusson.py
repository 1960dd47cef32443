"""Clan Fergusson (rulebook "Appendix: Clans - Clan Fergusson").

- Three starting Workers, each fully paid (unit and land), all on border spaces of the
  active map; the third is placed after every other player has placed all of theirs
  (rules/clan_setup.py orders the frames by ``extra_workers_last``).
- Starts with 2-loch Shipping for free in a 3-4 player game, 1-loch in a 1-2 player game
  (these count as Upgrades for Scoring tile 8: spots left of the Shipping marker).
"""
from __future__ import annotations

from .. import data as D
from .base import Clan, register


@register
class Fergusson(Clan):
    name = "fergusson"
    first_workers = D.FERGUSSON_FIRST_WORKERS
    extra_workers_last = True

    def on_setup(self, game, p: int) -> None:
        key = "two_player" if game.num_players <= 2 else "multi"
        pl = game.players[p]
        pl.shipping = max(pl.shipping, D.FERGUSSON_SHIPPING[key])
        pl.reach = -1

    def first_worker_spaces(self, game, p: int, unit: int) -> int:
        return game.topo.border
