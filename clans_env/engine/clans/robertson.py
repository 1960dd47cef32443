"""Clan Robertson (rulebook "Appendix: Clans - Clan Robertson").

Each placement on a river delta (a land space next to a river just flowing into a loch:
``board.river_delta``) costs £3 less in total (£2 less with 1-2 players), never below £0:
Expand, Free space (where only the unit cost is left to reduce) and the first Workers alike.
"""
from __future__ import annotations

from .. import data as D
from .base import Clan, register


def _discount(game) -> int:
    return D.ROBERTSON_DELTA_DISCOUNT["two_player" if game.num_players <= 2 else "multi"]


@register
class Robertson(Clan):
    name = "robertson"

    def placement_discount(self, game, p: int, space: int) -> int:
        return _discount(game) if game.topo.delta >> space & 1 else 0

    def discount_spaces(self, game, p: int) -> tuple[int, int]:
        return game.topo.delta, _discount(game)
