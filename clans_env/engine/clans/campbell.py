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


@register
class Campbell(Clan):
    name = "campbell"

    def unit_cost(self, game, p: int, unit: int) -> int:
        cost = D.UNIT_COST[unit]
        if unit in D.FACTORIES:
            nth = game.players[p].units_placed(unit)          # 0 = the first factory of the type
            if nth < len(D.CAMPBELL_FACTORY_DISCOUNT):
                cost -= D.CAMPBELL_FACTORY_DISCOUNT[nth]
        return cost if cost > 0 else 0

    def costs_now(self, game, p: int) -> tuple:
        pl = game.players[p]
        costs = list(D.UNIT_COST)
        discounts = D.CAMPBELL_FACTORY_DISCOUNT
        for u in D.FACTORIES:
            nth = pl.units_total[u] - pl.units_left[u]       # units_placed: 0 = the first of the type
            if nth < len(discounts):
                costs[u] = max(0, costs[u] - discounts[nth])
        return tuple(costs)
