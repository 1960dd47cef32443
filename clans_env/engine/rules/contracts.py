"""Rulebook, Phase 2 "2. Obtain an Export Contract" and "3. Expand - Building Bonus"."""
from __future__ import annotations

from .. import data as D
from ..actions import CHOOSE, DONE, TAKE_CONTRACT
from ..state import K_BUILDING_BONUS
from .common import contract_capacity_left
from .registry import apply_for, describe_for, hook, legal_for


def obtain_cost(g, p: int) -> int:
    """Round cost of a contract (negative: received). Round 1 pays out £5 instead.

    A clan that may take two contracts in one turn (Buchanan) pays, or in round 1 receives,
    the round cost once per turn: the second contract of a turn is free.
    """
    if g.turn.get("obtained", 0):
        return 0
    return D.ROUND_COST[g.round - 1]


def contract_options(g, p: int, out: list) -> None:
    if contract_capacity_left(g, p) <= 0:
        return
    if g.turn.get("obtained", 0) >= g.clans[p].export_boxes:
        return
    if g.players[p].money < obtain_cost(g, p):
        return
    for slot, cid in enumerate(g.display):
        if cid >= 0:
            out.append(TAKE_CONTRACT + slot)


def take_contract(g, p: int, cid: int) -> None:
    g.players[p].money -= obtain_cost(g, p)
    g.players[p].open_contracts.append(cid)
    g.turn["obtained"] = g.turn.get("obtained", 0) + 1


def apply_take_contract(g, p: int, slot: int) -> None:
    cid = g.display[slot]
    g.display[slot] = -1
    take_contract(g, p, cid)
    g.clans[p].after_obtain_contract(g, p)


# ---- Building bonus ----------------------------------------------------------------------
def building_bonus_available(g, p: int) -> bool:
    return contract_capacity_left(g, p) > 0 and bool(g.pile)


@hook("building_bonus")
def building_bonus_hook(g, p: int) -> None:
    if building_bonus_available(g, p):
        start_building_bonus(g, p)


def start_building_bonus(g, p: int) -> None:
    """Draw 3 contracts (6 for Buchanan) from the pile; the player takes one or none."""
    k = g.clans[p].building_bonus_draw
    drawn = tuple(g.pile[:k])
    del g.pile[:k]
    if g.pile_known > len(g.pile):
        g.pile_known = len(g.pile)
    take = min(contract_capacity_left(g, p), g.clans[p].export_boxes)
    g.stack.append((K_BUILDING_BONUS, p, drawn, take, 0))


def return_to_bottom(g, cards) -> None:
    g.pile.extend(cards)
    g.pile_known += len(cards)


@legal_for(K_BUILDING_BONUS)
def legal_building_bonus(g, frame) -> list:
    _, p, drawn, take, taken = frame
    out = []
    if g.players[p].money >= obtain_cost(g, p):
        out = [CHOOSE + i for i, cid in enumerate(drawn) if cid >= 0]
    out.append(DONE)
    return out


@apply_for(K_BUILDING_BONUS)
def apply_building_bonus(g, frame, action: int) -> None:
    _, p, drawn, take, taken = frame
    g.stack.pop()
    if action == DONE:
        return_to_bottom(g, [c for c in drawn if c >= 0])
        return
    i = action - CHOOSE
    take_contract(g, p, drawn[i])
    drawn = drawn[:i] + (-1,) + drawn[i + 1:]
    if taken + 1 < take and contract_capacity_left(g, p) > 0:
        g.stack.append((K_BUILDING_BONUS, p, drawn, take, taken + 1))
    else:
        return_to_bottom(g, [c for c in drawn if c >= 0])


@describe_for(K_BUILDING_BONUS)
def describe_building_bonus(g, frame) -> str:
    shown = ", ".join(f"choose:{i}=contract {c}" for i, c in enumerate(frame[2]) if c >= 0)
    return f"Building bonus: take one drawn contract ({shown}) or done"
