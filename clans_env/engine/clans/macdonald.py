"""Clan MacDonald (rulebook "Appendix: Clans - Clan MacDonald"; player aid, Clan MacDonald).

- Every Worker may be a Woodcutter, a Miner or a Fisherman (the first Workers too): the
  eight Workers form one pool. ``units_left`` shows the free pool for each of the three
  types and ``units_total`` is rebalanced after every placement so that ``units_placed``
  stays exact per type (``rebalance``).
- All Workers cost £6 and earn £4; no Technology upgrades (action or Bonus upgrade).
- Fishermen go on empty loch spaces and on Port bonus tiles (no land cost), never adjacent
  to another Fisherman (``target_mask``; first Workers: ``first_worker_spaces``).
- Rowing: once per turn, before the main action, move a Fisherman to an adjacent empty loch
  space, or to an adjacent empty Port bonus tile in play ("Fishermen can be placed on or
  moved to all empty loch spaces and Port bonus tiles": rowing is the base game's only way
  to move one; docs/rules-interpretations.md). Main decision: space:<Fisherman> starts it,
  then space:<loch or port>. No Neighbourhood bonus for rowing.
- Three first Workers; the third after everyone's second (rules/clan_setup.py).
- River-crossing Shipping for free in 1-2 player games.
- Land spaces adjacent to a Fisherman count as neighbouring: no hook is needed, because the
  map data never has a river beside a loch or a port (board.py rejects one), so every land
  space adjacent to a Fisherman is a neighbour of its space in topology.py. Crossing lochs
  still needs Shipping reach, measured from the Fisherman's space like from any unit.
"""
from __future__ import annotations

from .. import data as D
from ..actions import SPACE
from ..state import K_CLAN
from ..topology import adjacency_masks, bits  # noqa: F401 (adjacency_masks: MacGregor, Mackintosh import it here)
from .base import Clan, register
from ..rules.common import place_unit, remove_unit

ROW = "row"
WORKER_TYPES = (D.WOODCUTTER, D.MINER, D.FISHERMAN)
#: the Workers of a Player board: all of them are MacDonald's pool
POOL = D.UNITS_PER_PLAYER[D.WOODCUTTER] + D.UNITS_PER_PLAYER[D.MINER]


def fishermen(game, p: int) -> int:
    ua = game.unit_at
    out = 0
    topo = game.topo
    left = game.players[p].spaces & (topo.loch_mask | topo.port_mask)   # where a Fisherman can stand
    while left:                 # bits() inlined: this runs several times per MacDonald decision
        low = left & -left
        if ua[low.bit_length() - 1] == D.FISHERMAN:
            out |= low
        left ^= low
    return out


def near_fishermen(game, p: int, except_space: int = -1, fish: int = -1) -> int:
    """Spaces adjacent to p's Fishermen (other than one on ``except_space``); ``fish``: p's Fishermen
    when the caller has them already."""
    adj = game.topo.adjacent
    out = 0
    for s in bits(fishermen(game, p) if fish == -1 else fish):
        if s != except_space:
            out |= adj[s]
    return out


def water_spaces(game) -> int:
    """Lochs, and Port tiles in play: where a Fisherman may stand."""
    topo = game.topo
    return topo.loch_mask | (topo.port_mask if game.port_tiles else 0)


def fisherman_spaces(game, p: int) -> int:
    """Spaces where a new Fisherman may stand (not next to another)."""
    return water_spaces(game) & ~near_fishermen(game, p)


def row_targets(game, p: int, space: int, fish: int = -1, near_others: int = -1) -> int:
    """Where p's Fisherman on ``space`` may row: an adjacent empty loch or Port tile not next to another of p's
    Fishermen (``near_others``: the spaces next to them, if known)."""
    if near_others == -1:
        near_others = near_fishermen(game, p, space, fish)
    return game.topo.adjacent[space] & water_spaces(game) & ~game.occupied & ~near_others


def rebalance(pl) -> None:
    """Make every Worker type show the free pool while ``units_placed`` stays exact."""
    total = list(pl.units_total)
    left = pl.units_left
    placed = [total[u] - left[u] for u in WORKER_TYPES]
    free = POOL - sum(placed)
    for u, n in zip(WORKER_TYPES, placed):
        left[u] = free
        total[u] = n + free
    pl.units_total = tuple(total)


@register
class MacDonald(Clan):
    name = "macdonald"
    first_workers = D.MACDONALD_FIRST_WORKERS
    restricts_targets = True
    restricted_units = (D.FISHERMAN,)         # target_mask: -1 for every other unit type

    def on_setup(self, game, p: int) -> None:
        pl = game.players[p]
        total = list(pl.units_total)
        for u in WORKER_TYPES:
            total[u] = POOL
            pl.units_left[u] = POOL
        pl.units_total = tuple(total)
        if game.num_players <= 2:
            pl.shipping = max(pl.shipping, D.MACDONALD_SHIPPING_TWO_PLAYER)
            pl.reach = -1

    # ---- Workers -------------------------------------------------------------------
    def first_worker_units(self, game, p: int) -> tuple[int, ...]:
        return WORKER_TYPES

    def first_worker_spaces(self, game, p: int, unit: int) -> int:
        return fisherman_spaces(game, p) if unit == D.FISHERMAN else -1

    def target_mask(self, game, p: int, unit: int) -> int:
        return fisherman_spaces(game, p) if unit == D.FISHERMAN else -1

    unit_costs = tuple(D.MACDONALD_WORKER_COST if u in WORKER_TYPES else cost for u, cost in enumerate(D.UNIT_COST))

    def worker_income(self, game, p: int, unit: int) -> int:
        return D.MACDONALD_WORKER_INCOME

    def move_targets(self, game, p: int, space: int, unit: int, mask: int) -> int:
        """Industria R5.2: a Fisherman moves like a Worker (forest, mountain) or to water, and "Two
        Fishermen may never be adjacent", wherever they stand."""
        topo = game.topo
        terrain = topo.unit_mask[D.WOODCUTTER] | topo.unit_mask[D.MINER] | fisherman_spaces(game, p)
        return mask & terrain & ~near_fishermen(game, p, except_space=space)

    def can_upgrade_technology(self, game, p: int) -> bool:
        return False

    def on_deploy(self, game, p: int, unit: int, space: int, mode: int) -> None:
        if unit in WORKER_TYPES:
            rebalance(game.players[p])

    # ---- rowing (free, before the main action) -----------------------------------
    def main_actions(self, game, p: int) -> list[int]:
        if game.turn.get("rowed"):
            return []
        fish = fishermen(game, p)
        if not fish:
            return []
        # the other Fishermen's surroundings as the unions of those before and after each one, so that each
        # Fisherman's neighbours are read once, not once per other Fisherman
        adj = game.topo.adjacent
        spaces = list(bits(fish))
        after = [0] * (len(spaces) + 1)
        for i in range(len(spaces) - 1, 0, -1):
            after[i] = after[i + 1] | adj[spaces[i]]
        out = []
        before = 0
        for i, s in enumerate(spaces):
            if row_targets(game, p, s, near_others=before | after[i + 1]):
                out.append(SPACE + s)
            before |= adj[s]
        return out

    def apply_main(self, game, p: int, action: int) -> bool:
        if SPACE <= action < SPACE + game.board.num_spaces:
            game.stack.append((K_CLAN, p, ROW, action - SPACE))
            return True
        return False

    def legal(self, game, frame) -> list[int]:
        if frame[2] != ROW:
            return super().legal(game, frame)
        return [SPACE + t for t in bits(row_targets(game, frame[1], frame[3]))]

    def apply(self, game, frame, action: int) -> None:
        _, p, _, origin = frame
        game.stack.pop()
        remove_unit(game, p, origin)
        place_unit(game, p, D.FISHERMAN, action - SPACE)
        game.turn["rowed"] = 1

    def describe(self, game, frame) -> str:
        return (f"Clan MacDonald: row the Fisherman on {game.board.label[frame[3]]} to an adjacent empty loch or "
                f"Port tile (space:<space>)")
