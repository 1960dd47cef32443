"""Industria: two units on a space (R4.1-R4.8) and moving a unit (R5.1-R5.8) of
docs/rules-index.md, with the Port tiles that use them (11: stack an animal; 16 without
the Train module: two moves).

A second unit stands on a space already holding one of the same player's units; it is kept in
``g.modstate[STACKED]`` (a ``common.SecondUnits``) as a flat list, three ints per stacked space: ``space,
unit, owner`` (the first
unit stays in ``occupant`` / ``unit_at``, so the base game's arrays and every rule that reads them are
unchanged). rules/common.py owns that record (``stacked_unit``, ``place_second``, ``remove_second``: the
one owner of occupancy); its ``remove_unit`` promotes the second unit when the first leaves (R4.6);
``units_of``, the Neighbourhood bonus, production counts and scoring see both (R4.5, R4.7).

Moving (R5): to an adjacent empty space (R5.8) of matching terrain (Workers: any forest or mountain,
R5.2; Clan MacDonald's Fishermen also to and from lochs and Port tiles in play, never next to another
Fisherman); across a river only with river-crossing Shipping (R5.5); no land cost, no bonuses, not a
deployment (R5.3, R5.4, R5.7); a unit's type and its income stay (R5.6).
"""
from __future__ import annotations

from .. import data as D
from ..actions import DONE, EXPAND, SPACE
from ..board import KIND_LOCH, KIND_PORT
from ..state import K_MOVE, K_STACK
from ..topology import UNIT_LAND, bits
from .common import STACKED, place_second, place_unit, remove_second, remove_unit, stacked_unit  # noqa: F401
from .expand import deployed
from .registry import apply_for, describe_for, legal_for

CAPACITY = 2


# ---- Port tile 11: an animal onto the space of another of your animals ----------------------------
def stack_animal_targets(g, p: int, unit: int) -> int:
    """p's spaces holding one animal and nothing else (the new animal's land matches: grassland)."""
    if g.players[p].units_left[unit] <= 0:
        return 0
    mask = 0
    ua = g.unit_at
    for s in bits(g.players[p].spaces):
        if ua[s] in D.ANIMALS and stacked_unit(g, s) < 0:
            mask |= 1 << s
    return mask


def start_stack_animal(g, p: int) -> None:
    g.stack.append((K_STACK, p, -1))


@legal_for(K_STACK)
def legal_stack(g, frame) -> list:
    _, p, unit = frame
    if unit < 0:
        return [EXPAND + u for u in D.ANIMALS if stack_animal_targets(g, p, u)]
    return [SPACE + s for s in bits(stack_animal_targets(g, p, unit))]


@apply_for(K_STACK)
def apply_stack(g, frame, action: int) -> None:
    _, p, unit = frame
    g.stack.pop()
    if unit < 0:
        g.stack.append((K_STACK, p, action - EXPAND))
        return
    s = action - SPACE
    place_second(g, p, unit, s)                 # free: no unit cost, no land cost (R4.2, R11.11)
    deployed(g, p, unit, s)                     # a deployment (R3.1, Q36)


@describe_for(K_STACK)
def describe_stack(g, frame) -> str:
    if frame[2] < 0:
        return "Port tile 11: choose the animal to deploy for free beside another of your animals (expand:<animal>)"
    return f"Port tile 11: choose the space of one of your animals for the {D.UNITS[frame[2]]} (space:<space>)"


# ---- moving a unit (R5) ---------------------------------------------------------------------------
def _allowed_terrain(g, p: int, unit: int) -> int:
    topo = g.topo
    if unit in D.WORKERS:
        forest_or_mountain = topo.unit_mask[D.WOODCUTTER] | topo.unit_mask[D.MINER]
        return forest_or_mountain
    return topo.unit_mask[unit]


def move_targets(g, p: int, space: int, unit: int) -> int:
    """Where p's ``unit`` on ``space`` may move (R5.1-R5.5, R5.8)."""
    b = g.board
    river_ok = g.players[p].shipping >= 1
    mask = 0
    for t in b.adjacent[space]:
        if not river_ok and t not in b.neighbours[space]:
            continue                            # across a river without river-crossing Shipping
        mask |= 1 << t
    mask &= ~g.occupied & g.topo.active
    if unit == D.FISHERMAN:             # a clan's own unit type (MacDonald's): the clan's terrain
        return g.clans[p].move_targets(g, p, space, unit, mask)
    return mask & _allowed_terrain(g, p, unit)


def units_at(g, p: int, space: int) -> tuple[int, ...]:
    second = stacked_unit(g, space)
    return (g.unit_at[space],) if second < 0 else (g.unit_at[space], second)


def movable_units(g, p: int) -> list[tuple[int, int]]:
    return [(s, u) for s in bits(g.players[p].spaces) for u in set(units_at(g, p, s)) if move_targets(g, p, s, u)]


def start_moves(g, p: int, count: int) -> None:
    g.stack.append((K_MOVE, p, count, -1, -1))


@legal_for(K_MOVE)
def legal_move(g, frame) -> list:
    _, p, left, space, unit = frame
    if space < 0:
        spaces = sorted({s for s, _ in movable_units(g, p)})
        return [SPACE + s for s in spaces] + ([DONE] if spaces else [])
    if unit < 0:
        return [EXPAND + u for u in sorted(set(units_at(g, p, space))) if move_targets(g, p, space, u)]
    return [SPACE + t for t in bits(move_targets(g, p, space, unit))]


@apply_for(K_MOVE)
def apply_move(g, frame, action: int) -> None:
    _, p, left, space, unit = frame
    g.stack.pop()
    if action == DONE:
        return
    if space < 0:
        s = action - SPACE
        kinds = {u for u in units_at(g, p, s) if move_targets(g, p, s, u)}
        g.stack.append((K_MOVE, p, left, s, kinds.pop() if len(kinds) == 1 else -1))
        return
    if unit < 0:
        g.stack.append((K_MOVE, p, left, space, action - EXPAND))
        return
    move_unit(g, p, space, unit, action - SPACE)
    if left > 1 and movable_units(g, p):
        g.stack.append((K_MOVE, p, left - 1, -1, -1))


def move_unit(g, p: int, origin: int, unit: int, dest: int) -> None:
    """Not a deployment: no costs, no bonuses, no on_deploy hook (R5.3, R5.4, R5.7)."""
    remove_unit(g, p, origin, unit)
    place_unit(g, p, unit, dest)


@describe_for(K_MOVE)
def describe_move(g, frame) -> str:
    _, p, left, space, unit = frame
    if space < 0:
        return f"Move one of your units to an adjacent space ({left} move(s) left): space:<unit's space>, or done"
    if unit < 0:
        return f"Choose which unit on {g.board.label[space]} moves (expand:<unit>)"
    return f"Move your {D.UNITS[unit]} from {g.board.label[space]} to an adjacent space (space:<space>)"
