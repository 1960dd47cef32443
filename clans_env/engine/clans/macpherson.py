"""Clan MacPherson (Industria; player aid "Clans - Clan MacPherson", docs/rules-index.md R18).

Only with ``GameConfig(industria_clans=True)`` (or ``industria=True``).

- R18.MP1 / R18.MP2 Breeding: at the end of MacPherson's Production (after producing and processing,
  ``after_production``), for each animal type, Sheep then Cows: if two or more of its animals of that
  type stand on neighbouring spaces (no river between; two on one space neighbour each other, R4.4,
  Q55) and one is left on the Player board, the ``breed`` decision places one new animal for free
  (no unit cost, no land cost) on the space of one of those parents (space:<parent's space>), or
  declines (done). At most one per type per Production.
- R18.MP3: Two Units on a Space rules: the parent's space must hold only that one unit (never three).
- The newborn produces from the next Production on (breeding comes after this one's production).
  It is no deployment for the Neighbourhood, Farmers market or Building bonus nor for Mackintosh
  (breeding is outside the Action phase, Q55), so no deployment hook runs.
- ``extra["calves"]``: [lambs, calves] born in the game (shown by ``state_text``).
"""
from __future__ import annotations

from .. import data as D
from ..actions import DONE, SPACE
from ..state import K_CLAN
from ..topology import bits
from .base import Clan, register
from ..rules.common import place_second, stacked_unit, units_of

BREED = "breed"
CALVES = "calves"
#: the order the two animal types breed in, and their index in ``extra["calves"]``
BREEDS = (D.SHEEP, D.COW)


def parent_spaces(game, p: int, animal: int) -> int:
    """Spaces where a newborn ``animal`` may go (R18.MP2, R18.MP3): a space holding only p's ``animal``
    with another of p's ``animal`` neighbouring it; 0 if none is left on the Player board."""
    if game.players[p].units_left[animal] <= 0:
        return 0
    herd = units_of(game, p, animal)
    nb = game.topo.neighbours
    ua = game.unit_at
    out = 0
    for s in bits(herd):
        if ua[s] == animal and stacked_unit(game, s) < 0 and nb[s] & herd & ~(1 << s):
            out |= 1 << s
    return out


def push_breeding(game, p: int, k: int) -> None:
    """The next breeding decision from animal type ``BREEDS[k]`` on (types with no parents are skipped)."""
    while k < len(BREEDS):
        if parent_spaces(game, p, BREEDS[k]):
            game.stack.append((K_CLAN, p, BREED, k))
            return
        k += 1


@register
class MacPherson(Clan):
    name = "macpherson"
    expansion = "industria"

    def on_setup(self, game, p: int) -> None:
        game.players[p].extra[CALVES] = [0, 0]

    def after_production(self, game, p: int) -> None:
        push_breeding(game, p, 0)

    def legal(self, game, frame) -> list[int]:
        if frame[2] != BREED:
            return super().legal(game, frame)
        targets = parent_spaces(game, frame[1], BREEDS[frame[3]])
        return [SPACE + s for s in bits(targets)] + [DONE] if targets else []

    def apply(self, game, frame, action: int) -> None:
        if frame[2] != BREED:
            return super().apply(game, frame, action)
        _, p, _, k = frame
        game.stack.pop()
        if action != DONE:
            place_second(game, p, BREEDS[k], action - SPACE)      # free: no unit or land cost
            pl = game.players[p]
            calves = list(pl.extra.get(CALVES, [0, 0]))
            calves[k] += 1
            pl.extra[CALVES] = calves
        push_breeding(game, p, k + 1)

    def describe(self, game, frame) -> str:
        animal = D.UNITS[BREEDS[frame[3]]]
        return (f"Clan MacPherson, Breeding: place a new {animal} for free on the space of one of two neighbouring "
                f"{animal}s (space:<space>), or done")

    def state_problem(self, game, p: int) -> str:
        calves = game.players[p].extra.get(CALVES, [0, 0])
        return "" if len(calves) == 2 and min(calves) >= 0 else f"calves {calves}"

    def state_features(self, game, p: int) -> tuple:
        lambs, calves = game.players[p].extra.get(CALVES, (0, 0))
        return (min(1.0, lambs / 8.0), min(1.0, calves / 8.0))

    def state_text(self, game, p: int) -> str:
        lambs, calves = game.players[p].extra.get(CALVES, (0, 0))
        return f"MacPherson: {lambs} lamb(s) and {calves} calf/calves bred"
