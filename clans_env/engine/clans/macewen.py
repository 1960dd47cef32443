"""Clan MacEwen, the Kickstarter clan (rulebook "Kickstarter-Contributed Tiles"; data in
components.toml): each time it fulfils an Export contract that gives Hops, it may at once brew
1 Beer per Hops on that contract (at most 3), paying 1 Grain per Beer and selling each
Beer for £9 (``beer`` decision, choose:k = brew k). Beer is never kept. Only with
``GameConfig(kickstarter=True)``.
"""
from __future__ import annotations

from .. import data as D
from ..actions import CHOOSE
from ..state import K_CLAN
from .base import Clan, register

BEER = "beer"


def max_beer(game, p: int, hops: int) -> int:
    return min(hops, D.MACEWEN_MAX_BEER, game.players[p].goods[D.GRAIN] // D.MACEWEN_GRAIN_PER_BEER)


@register
class MacEwen(Clan):
    name = "macewen"
    expansion = "kickstarter"

    def fulfil_extras(self, game, p: int, contract_id: int) -> None:
        hops = D.CONTRACT_BY_ID[contract_id].hops
        if hops and max_beer(game, p, hops):
            game.stack.append((K_CLAN, p, BEER, hops))

    def legal(self, game, frame) -> list[int]:
        if frame[2] != BEER:
            return super().legal(game, frame)
        m = max_beer(game, frame[1], frame[3])
        return [CHOOSE + k for k in range(m + 1)] if m else []

    def apply(self, game, frame, action: int) -> None:
        game.stack.pop()
        k = action - CHOOSE
        pl = game.players[frame[1]]
        pl.goods[D.GRAIN] -= k * D.MACEWEN_GRAIN_PER_BEER
        pl.money += k * D.MACEWEN_BEER_MONEY

    def describe(self, game, frame) -> str:
        return (f"Clan MacEwen: brew k Beer from {frame[3]} Hops (1 Grain each, £{D.MACEWEN_BEER_MONEY} per Beer; "
                f"choose:k)")

    def describe_choice(self, game, frame, k: int) -> dict | None:
        if frame[0] != K_CLAN:
            return None
        return {"option": f"brew {k} Beer", "quantity": k, "cost": -k * D.MACEWEN_BEER_MONEY}
