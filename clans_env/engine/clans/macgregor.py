"""Clan MacGregor (Industria; player aid "Clans", rules R18.MG1-R18.MG8 of
docs/rules-index.md; readings Q51-Q53 and docs/rules-interpretations.md "MacGregor").

Only with ``GameConfig(industria_clans=True)`` (or ``industria=True``).

- R18.MG1: river-crossing Shipping from the start.
- R18.MG2 Herds: a herd is a connected group of 2 or more spaces holding MacGregor's Sheep, joined
  by adjacency (a river edge joins too, Q51); two Sheep on one space alone are no herd.
- R18.MG3-R18.MG6 Grazing, an Expand action (main decision ``choose:0``): deploy a non-Field unit
  that may stand on grassland (Sheep, Cow, Cheese dairy, Bakery, Distillery) onto the space of a herd
  Sheep that holds no second unit, paying the unit cost only (no land cost); then that Sheep moves to
  an unoccupied active grassland space adjacent to another Sheep of the same herd, without land
  cost, across a river only with river-crossing Shipping (lochs never). Grazing is offered only when
  such a move exists (R18.MG6).
- R18.MG7: the deployed unit's space gives the Neighbourhood bonus and triggers Farmers markets (and
  the Building bonus for a fourth factory, Q51); the moved Sheep triggers nothing (Q53: the clan text
  wins over the aid's general list at A308).
- R18.MG8 Sheep Selling Bonus: at the end of each of MacGregor's Productions (after the Wool), one
  Sheep on the map may go back to the Player board for £15 (``sell_sheep`` decision: space:<Sheep>
  or done; a Sheep on a shared space leaves the other unit there, R4.6, Q52).

Decisions (``K_CLAN`` frames): ``graze``: which unit (expand:<unit>); ``graze_sheep`` (unit): which
herd Sheep (space:<space>); ``graze_to`` (unit, Sheep's space): where the Sheep goes (space:<space>).
"""
from __future__ import annotations

from functools import lru_cache

from .. import data as D
from ..actions import CHOOSE, DONE, EXPAND, SPACE
from ..state import K_CLAN, K_MAIN, PLACE_EXPAND
from ..topology import bits, components
from .base import Clan, register
from ..rules.common import place_unit, placement_cost, remove_unit, second_units, stacked_unit, units_of
from ..rules.expand import deployed
from .macdonald import adjacency_masks

GRAZE = "graze"
GRAZE_SHEEP = "graze_sheep"
GRAZE_TO = "graze_to"
SELL = "sell_sheep"
#: units Grazing may deploy: not a Field, and able to stand on the Sheep's grassland
GRAZERS = (D.SHEEP, D.COW, D.DAIRY, D.BAKERY, D.DISTILLERY)


def sheep_spaces(game, p: int) -> int:
    return units_of(game, p, D.SHEEP)


def herds(game, p: int) -> tuple[int, ...]:
    """R18.MG2: the herds of p, as bit sets of Sheep spaces (2 or more spaces each)."""
    if game.players[p].units_placed(D.SHEEP) < 2:
        return ()
    return _herds(game.board, sheep_spaces(game, p))


@lru_cache(maxsize=4096)
def _herds(board, sheep: int) -> tuple[int, ...]:
    return tuple(c for c in components(sheep, adjacency_masks(board)) if c.bit_count() >= 2)


def _single(game, space: int) -> bool:
    """The space holds one unit only (R18.MG4: not onto a space that already holds two)."""
    return not second_units(game) or stacked_unit(game, space) < 0


def move_destinations(game, p: int, herd: int, origin: int) -> int:
    """R18.MG5: unoccupied active grassland adjacent to another Sheep of the herd (rivers only with
    river-crossing Shipping)."""
    topo = game.topo
    table = topo.reach[1] if game.players[p].shipping >= 1 else topo.neighbours
    out = 0
    for s in bits(herd & ~(1 << origin)):
        out |= table[s]
    return out & topo.unit_mask[D.SHEEP] & ~game.occupied


def graze_origins(game, p: int) -> dict:
    """Sheep space -> where its Sheep may move, for every herd Sheep Grazing may use now."""
    out = {}
    for herd in herds(game, p):
        for s in bits(herd):
            if game.unit_at[s] == D.SHEEP and _single(game, s):
                dest = move_destinations(game, p, herd, s)
                if dest:
                    out[s] = dest
    return out


def graze_cost(game, p: int, unit: int, space: int) -> int:
    return placement_cost(game, p, unit, space, True)         # R18.MG4: no land cost


def graze_spaces(game, p: int, unit: int, origins: dict | None = None) -> list[int]:
    if game.players[p].units_left[unit] <= 0:
        return []
    if origins is None:
        origins = graze_origins(game, p)
    money = game.players[p].money
    return [s for s in sorted(origins) if money >= graze_cost(game, p, unit, s)]


def graze_units(game, p: int) -> list[int]:
    origins = graze_origins(game, p)
    if not origins:
        return []
    return [u for u in GRAZERS if graze_spaces(game, p, u, origins)]


@register
class MacGregor(Clan):
    name = "macgregor"
    expansion = "industria"

    def on_setup(self, game, p: int) -> None:
        pl = game.players[p]
        pl.shipping = max(pl.shipping, D.MACGREGOR_SHIPPING)
        pl.reach = -1

    # ---- Grazing (an Expand action) ----------------------------------------------------------------
    def main_actions(self, game, p: int) -> list[int]:
        if not herds(game, p):
            return []
        return [CHOOSE + 0] if graze_units(game, p) else []

    def apply_main(self, game, p: int, action: int) -> bool:
        if action != CHOOSE + 0:
            return False
        assert game.stack[-1][0] == K_MAIN
        game.stack.pop()                           # Grazing is the turn's main (Expand) action
        game.stack.append((K_CLAN, p, GRAZE))
        return True

    # ---- Sheep Selling Bonus ------------------------------------------------------------------------
    def after_production(self, game, p: int) -> None:
        if sheep_spaces(game, p):
            game.stack.append((K_CLAN, p, SELL))

    # ---- the clan's decisions -----------------------------------------------------------------------
    def legal(self, game, frame) -> list[int]:
        p, what = frame[1], frame[2]
        if what == GRAZE:
            return [EXPAND + u for u in graze_units(game, p)]
        if what == GRAZE_SHEEP:
            return [SPACE + s for s in graze_spaces(game, p, frame[3])]
        if what == GRAZE_TO:
            origins = graze_origins(game, p)
            return [SPACE + s for s in bits(origins.get(frame[4], 0))]
        if what == SELL:
            return [DONE] + [SPACE + s for s in bits(sheep_spaces(game, p))]
        return super().legal(game, frame)

    def apply(self, game, frame, action: int) -> None:
        p, what = frame[1], frame[2]
        game.stack.pop()
        if what == GRAZE:
            game.stack.append((K_CLAN, p, GRAZE_SHEEP, action - EXPAND))
        elif what == GRAZE_SHEEP:
            game.stack.append((K_CLAN, p, GRAZE_TO, frame[3], action - SPACE))
        elif what == GRAZE_TO:
            _, _, _, unit, origin = frame
            dest = action - SPACE
            game.players[p].money -= graze_cost(game, p, unit, origin)
            # the unit joins the Sheep on its space, then the Sheep moves on: the end state is the
            # Sheep on ``dest`` and the unit alone on ``origin``
            remove_unit(game, p, origin, D.SHEEP)
            place_unit(game, p, D.SHEEP, dest)
            place_unit(game, p, unit, origin)
            deployed(game, p, unit, origin)       # on_deploy, then the bonuses of the unit only (R18.MG7)
        elif what == SELL:
            if action != DONE:
                remove_unit(game, p, action - SPACE, D.SHEEP)
                game.players[p].money += D.MACGREGOR_SHEEP_MONEY
        else:
            super().apply(game, frame, action)

    def describe(self, game, frame) -> str:
        what = frame[2]
        if what == GRAZE:
            return "Clan MacGregor, Grazing: choose the unit to deploy onto a herd Sheep's space (expand:<unit>)"
        if what == GRAZE_SHEEP:
            return (f"Clan MacGregor, Grazing: choose the herd Sheep whose space takes your {D.UNITS[frame[3]]} "
                    f"(unit cost only)")
        if what == GRAZE_TO:
            return (f"Clan MacGregor, Grazing: move the Sheep from {game.board.label[frame[4]]} to a free grassland "
                    f"next to another Sheep of its herd")
        if what == SELL:
            return (f"Clan MacGregor, Sheep Selling Bonus: return one Sheep (space:<space>) for "
                    f"£{D.MACGREGOR_SHEEP_MONEY}, or done")
        return super().describe(game, frame)

    def describe_choice(self, game, frame, k: int) -> dict | None:
        return {"option": "Grazing"} if frame[0] == K_MAIN and k == 0 else None

    def state_features(self, game, p: int) -> tuple:
        hs = herds(game, p)
        return (min(len(hs), 4) / 4, min(sum(h.bit_count() for h in hs), 12) / 12)

    def state_text(self, game, p: int) -> str:
        hs = herds(game, p)
        if not hs:
            return "No herd (Grazing needs 2 Sheep on adjacent spaces)"
        return ("Herds: " + "; ".join(" ".join(game.board.label[s] for s in bits(h)) for h in hs) +
                " (Grazing: choose:0 in the main decision)")
