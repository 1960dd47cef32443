"""Clan MacKenzie (rulebook "Appendix: Clans - Clan MacKenzie").

- Production: £3 for each Whisky produced (the Whisky is kept).
- The cellar: three spaces, left to right, each holding at most one barrel
  (``extra["cellar"]`` = [left, middle, right], 1 = a barrel).

  * Start of each Production phase: the barrel in the rightmost space goes into stock and
    earns £15; the others age one space to the right.
  * End of each Production phase: one Whisky produced in this phase may be put in the left
    space (``cellar`` decision: choose:0 = put a barrel in, done = keep it in stock).
  * Any time on your turn before the main action (a free action in the main decision,
    choose:k = take the barrel out of space k): move a barrel to stock, earning £0 / £7 /
    £15 from the left / middle / rightmost space.
  * After the last Production phase every barrel still in the cellar is taken out (with its
    money): a player always may, and it never hurts, so it is not asked.
- Scoring tile 2 counts cellar Whisky as in stock; Final Scoring counts it too.
"""
from __future__ import annotations

from .. import data as D
from ..actions import CHOOSE, DONE
from ..state import K_CLAN
from .base import Clan, register

CELLAR = "cellar"
CELLAR_SPACES = len(D.MACKENZIE_CELLAR_MONEY)
MADE = "whisky_made"


def cellar(game, p: int) -> list[int]:
    return game.players[p].extra.setdefault("cellar", [0] * CELLAR_SPACES)


def take_out(game, p: int, space: int) -> None:
    """Move the barrel in cellar ``space`` to stock, with its ageing money."""
    pl = game.players[p]
    c = cellar(game, p)
    c[space] = 0
    pl.goods[D.WHISKY] += 1
    pl.money += D.MACKENZIE_CELLAR_MONEY[space]


@register
class MacKenzie(Clan):
    name = "mackenzie"

    def on_setup(self, game, p: int) -> None:
        game.players[p].extra["cellar"] = [0] * CELLAR_SPACES
        game.players[p].extra[MADE] = 0

    def at_production_start(self, game, p: int) -> None:
        pl = game.players[p]
        c = cellar(game, p)
        if c[-1]:
            take_out(game, p, CELLAR_SPACES - 1)
        pl.extra["cellar"] = [0] + c[:-1]
        pl.extra[MADE] = 0

    def on_produce(self, game, p: int, good: int, qty: int) -> None:
        if good == D.WHISKY and qty:
            pl = game.players[p]
            pl.money += D.MACKENZIE_WHISKY_MONEY * qty
            pl.extra[MADE] = pl.extra.get(MADE, 0) + qty

    def after_production(self, game, p: int) -> None:
        pl = game.players[p]
        if game.round >= D.NUM_ROUNDS:
            for space in range(CELLAR_SPACES):
                if cellar(game, p)[space]:
                    take_out(game, p, space)
            return
        if pl.extra.get(MADE, 0) and pl.goods[D.WHISKY] and not cellar(game, p)[0]:
            game.stack.append((K_CLAN, p, CELLAR))

    # the free action: take a barrel out before the main action
    def main_actions(self, game, p: int) -> list[int]:
        c = game.players[p].extra.get("cellar")
        return [CHOOSE + k for k in range(CELLAR_SPACES) if c[k]] if c else []

    def apply_main(self, game, p: int, action: int) -> bool:
        if CHOOSE <= action < CHOOSE + CELLAR_SPACES:
            take_out(game, p, action - CHOOSE)
            return True
        return False

    def legal(self, game, frame) -> list[int]:
        if frame[2] != CELLAR:
            return super().legal(game, frame)
        return [DONE, CHOOSE + 0]

    def apply(self, game, frame, action: int) -> None:
        p = frame[1]
        game.stack.pop()
        if action == CHOOSE + 0:
            game.players[p].goods[D.WHISKY] -= 1
            cellar(game, p)[0] = 1

    def describe(self, game, frame) -> str:
        return "Clan MacKenzie: put one freshly produced Whisky barrel in the cellar to age (choose:0), or done"

    def describe_choice(self, game, frame, k: int) -> dict | None:
        if frame[0] == K_CLAN:
            return {"option": "age a Whisky barrel in the cellar"} if frame[2] == CELLAR else None
        return {"option": f"take the barrel out of cellar space {k}"} if k < CELLAR_SPACES else None

    # scoring
    def scoring_goods(self, game, p: int) -> list[int]:
        pl = game.players[p]
        barrels = sum(pl.extra.get("cellar", ()))
        if not barrels:
            return pl.goods
        goods = pl.goods[:]
        goods[D.WHISKY] += barrels
        return goods
