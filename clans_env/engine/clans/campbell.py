"""Clan Campbell (rulebook "Appendix: Clans - Clan Campbell").

Factories of Processed goods get cheaper the more of one type are built: the first of each
type (Cheese dairy, Bakery, Distillery) is £3 cheaper, the second and third £4, the fourth
£5. The count is per type and is the factory's position in its column of the Player board
(factories on the map + 1), so a factory returned to the board by Port tile 7 is cheapened
again as that position when rebuilt. Land cost is unaffected.
"""
from __future__ import annotations

from .. import data as D
from .base import Clan, register


def _cost(unit: int, placed: int) -> int:
    """A unit's cost for Campbell with ``placed`` of its type already on the map (the factory's position in its
    column of the Player board, 0 = the first)."""
    cost = D.UNIT_COST[unit]
    if unit in D.FACTORIES and placed < len(D.CAMPBELL_FACTORY_DISCOUNT):
        cost -= D.CAMPBELL_FACTORY_DISCOUNT[placed]
    return cost if cost > 0 else 0


@register
class Campbell(Clan):
    name = "campbell"

    def unit_cost(self, game, p: int, unit: int) -> int:
        return _cost(unit, game.players[p].units_placed(unit))

    def costs_now(self, game, p: int) -> tuple:
        pl = game.players[p]
        costs = list(D.UNIT_COST)
        for u in D.FACTORIES:                   # only the factories' costs change
            costs[u] = _cost(u, pl.units_total[u] - pl.units_left[u])
        return tuple(costs)
