"""Clan Cunningham (rulebook "Appendix: Clans - Clan Cunningham").

Butter: at the end of the Production phase, discard any number of Milk from stock (no
Merchants, the Milk price does not move) for £8 each (``butter`` decision, choose:k = k Milk).
"""
from __future__ import annotations

from .. import data as D
from ..actions import CHOOSE, NUM_CHOICES
from ..state import K_CLAN
from .base import Clan, register

BUTTER = "butter"


@register
class Cunningham(Clan):
    name = "cunningham"

    def after_production(self, game, p: int) -> None:
        if game.players[p].goods[D.MILK]:
            game.stack.append((K_CLAN, p, BUTTER))

    def legal(self, game, frame) -> list[int]:
        if frame[2] != BUTTER:
            return super().legal(game, frame)
        milk = min(game.players[frame[1]].goods[D.MILK], NUM_CHOICES - 1)
        return [CHOOSE + k for k in range(milk + 1)] if milk else []

    def apply(self, game, frame, action: int) -> None:
        game.stack.pop()
        k = action - CHOOSE
        pl = game.players[frame[1]]
        pl.goods[D.MILK] -= k
        pl.money += k * D.CUNNINGHAM_BUTTER_MONEY

    def describe(self, game, frame) -> str:
        return (f"Clan Cunningham: churn butter - discard k Milk for £{D.CUNNINGHAM_BUTTER_MONEY} each "
                f"(choose:k; you have {game.players[frame[1]].goods[D.MILK]} Milk)")

    def describe_choice(self, game, frame, k: int) -> dict | None:
        if frame[0] != K_CLAN:
            return None
        return {"option": f"discard {k} Milk", "quantity": k, "cost": -k * D.CUNNINGHAM_BUTTER_MONEY}
