"""Industria, Award Tiles module (player aid "Setup", "Final Scoring", "Award Tiles"; rule numbers
R1.3, R10.1-R10.3 of docs/rules-index.md).

One Award tile is drawn at setup (``AwardState.tile`` in ``g.modstate["awards"]``, its number 1-9). At final scoring the best
and second-best players by the tile's measure score 12 / 6 VP (2 players: 8 / 0), ties sharing as
in Export scoring (a player with nothing of the measured quantity wins no tier,
rules-interpretations.md). In the solo game the tile is the Automa Award card of the same number:
below its first threshold -4 VP, from it 0 VP, from its second threshold +4 VP.
"""
from __future__ import annotations

from .. import data as D
from ..modules import Record, define, field
from .common import unit_spaces
from .industria_scoring import settlement_sizes
from .scoring import basic_in_stock, processed_in_stock, tier_split
from .automa import award_vp as automa_award_vp

NAME = "awards"


class AwardState(Record):
    """The Awards module's state in a game (``g.modstate["awards"]``): ``tile``, the Award tile drawn (1-9)."""
    __slots__ = ("tile",)
    tile: int
    MISC = {"tile": ("award", 0)}
    SHARED = True           # drawn in setup only


def award_tile(g) -> int | None:
    """The game's Award tile (1-9), or None without the module."""
    return field(g, NAME, "tile", None)


def setup_award(g) -> None:
    """R1.3: draw one Award tile at random (solo: one Award card)."""
    g.modstate[NAME] = AwardState(D.AWARD_TILES[g.rng.randrange(len(D.AWARD_TILES))])


def measure(g, p: int, tile: int) -> int:
    """The quantity Award ``tile`` compares (R10.2), for player p at the end of the game."""
    pl = g.players[p]
    topo = g.topo
    kind = D.AWARD_MEASURE[tile]
    # Awards 1, 8, 9 count p's units on spaces, the Train station one of them (R13.16, I18)
    if kind == "units":
        return len(unit_spaces(g, p))
    if kind == "imports_one_type":
        return max(pl.imports)
    if kind == "glory":
        return pl.glory
    if kind == "money":
        return pl.money
    if kind == "units_in_settlement":
        return max(settlement_sizes(g, p), default=0)
    if kind == "basic_goods":
        return basic_in_stock(g, p)
    if kind == "processed_goods":
        return processed_in_stock(g, p)
    if kind == "units_along_rivers":
        return sum(1 for s in unit_spaces(g, p) if topo.along_river >> s & 1)
    if kind == "units_next_to_lochs":
        return sum(1 for s in unit_spaces(g, p) if topo.next_to_loch >> s & 1)
    raise AssertionError(f"Award tile {tile} measures {kind!r}, which has no rule")  # pragma: no cover


def award_vp(g) -> list[int]:
    """VP of the Award per seat (all 0 without the module)."""
    tile = award_tile(g)
    n = g.num_players
    if not tile:
        return [0] * n
    values = [measure(g, p, tile) for p in range(n)]
    if g.config.automa:
        return automa_award_vp(g, values, tile)
    if n == 1:
        low, high = D.AWARD_SOLO_THRESHOLDS[tile]
        below, middle, top = D.AWARD_SOLO_VP
        v = values[0]
        return [top if v >= high else middle if v >= low else below]
    return tier_split(values, D.AWARD_TIERS[n])


define(NAME, "The Award tile (R1.3, R10) as a module (hook points: ``engine/modules.py``).", record=AwardState,
       setup=setup_award, award_vp=award_vp)
