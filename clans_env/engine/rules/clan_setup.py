"""Who plays which clan and the player-specific setup steps (rulebook "Setup: Clans",
"Placing the First Workers", "Variants: Without Clans"), plus per-variant extras of the
Preparation phase."""
from __future__ import annotations

from ..clans import get_clan
from ..state import K_START_TILE
from .setup import first_worker_frames


def setup_players(g) -> None:
    n = g.num_players
    cfg = g.config
    rng = g.rng
    g.clans = tuple(get_clan(None) for _ in range(n))
    # Without Clans: players choose among n+1 random Starting tiles in reverse turn order
    tiles = list(range(9))
    rng.shuffle(tiles)
    g.tile_pool = tiles[:n + 1]
    seq = [(K_START_TILE, p) for p in reversed(g.turn_order)]
    seq += first_worker_frames(g)
    g.stack = list(reversed(seq))
    del cfg


def preparation_extras(g) -> None:
    """Variant-specific steps at the end of Preparation (the solo Market phase lives here)."""
