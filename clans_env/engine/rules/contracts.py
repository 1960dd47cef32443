"""Rulebook, Phase 2 "2. Obtain an Export Contract" and "3. Expand - Building Bonus"."""
from __future__ import annotations

from .. import data as D
from ..actions import CHOOSE, DONE, TAKE_CONTRACT
from ..state import K_BUILDING_BONUS
from .common import contract_capacity_left
from .registry import apply_for, describe_for, hook, legal_for


def obtain_cost(g, p: int) -> int:
    """Round cost of a contract (negative: received; round 1 pays out £5).

    Every contract costs the round cost, also a second one in the same turn (a Port tile 8
    contract, then one from a Building bonus after a Fulfil). Only a clan whose ability says
    so (Buchanan: "you pay the cost only once") pays, or in round 1 receives, it once per turn.
    """
    if g.turn.get("obtained", 0) and g.clans[p].round_cost_once_per_turn:
        return 0
    return D.ROUND_COST[g.round - 1]


def contracts_left_this_turn(g, p: int) -> int:
    """How many more contracts p may obtain this turn: the empty Export boxes, and for a clan
    with a per-turn limit (Buchanan: "one or two Export contracts in one turn") that limit
    less the contracts already obtained this turn."""
    left = contract_capacity_left(g, p)
    limit = g.clans[p].contracts_per_turn
    if limit:
        left = min(left, limit - g.turn.get("obtained", 0))
    return left


def contract_options(g, p: int, out: list) -> None:
    if contracts_left_this_turn(g, p) <= 0:
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
# One decision kind in two steps. The rulebook's "you *may* immediately draw three Export
# contracts" is a choice made before anything is drawn: the frame first holds no drawn
# contracts (an empty tuple; choose:0 draws, done declines and leaves the pile as it was),
# then the drawn ones (choose:k takes the k-th, done returns the rest to the bottom).
BUILDING_BONUS_DRAW = 0


def contract_source(g):
    """The face-up contracts drawn before the pile (a module's: the refill board), or None: the pile."""
    source = None
    for hook_fn in g.hooks.contract_source:
        source = hook_fn(g)
    return source


def building_bonus_available(g, p: int) -> bool:
    if contracts_left_this_turn(g, p) <= 0:
        return False
    source = contract_source(g)
    return bool(source) if source is not None else bool(g.pile)


@hook("building_bonus")
def building_bonus_hook(g, p: int) -> None:
    if building_bonus_available(g, p):
        start_building_bonus(g, p)


def start_building_bonus(g, p: int) -> None:
    """Offer the Building bonus: the player may draw 3 contracts (6 for Buchanan)."""
    g.stack.append((K_BUILDING_BONUS, p, (), contracts_left_this_turn(g, p), 0))


def draw_building_bonus(g, p: int, take: int) -> None:
    """Draw from the top of the pile, or with Industria's refill board its leftmost contracts (R9.3)."""
    k = g.clans[p].building_bonus_draw
    source = contract_source(g)
    if source is not None:
        drawn = tuple(source[:k])
        del source[:k]
        g.stack.append((K_BUILDING_BONUS, p, drawn, take, 0))
        return
    drawn = tuple(g.pile[:k])
    del g.pile[:k]
    if g.pile_known > len(g.pile):
        g.pile_known = len(g.pile)
    g.stack.append((K_BUILDING_BONUS, p, drawn, take, 0))


def return_to_bottom(g, cards) -> None:
    g.pile.extend(cards)
    g.pile_known += len(cards)


@legal_for(K_BUILDING_BONUS)
def legal_building_bonus(g, frame) -> list:
    _, p, drawn, take, taken = frame
    if not drawn:
        return [CHOOSE + BUILDING_BONUS_DRAW, DONE]
    out = []
    if g.players[p].money >= obtain_cost(g, p):
        out = [CHOOSE + i for i, cid in enumerate(drawn) if cid >= 0]
    out.append(DONE)
    return out


@apply_for(K_BUILDING_BONUS)
def apply_building_bonus(g, frame, action: int) -> None:
    _, p, drawn, take, taken = frame
    g.stack.pop()
    if not drawn:
        if action != DONE:
            draw_building_bonus(g, p, take)
        return
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
    if not frame[2]:
        k = g.clans[frame[1]].building_bonus_draw
        return f"Building bonus: draw {k} Export contracts (choose:0) or decline (done)"
    shown = ", ".join(f"choose:{i}=contract {c}" for i, c in enumerate(frame[2]) if c >= 0)
    return f"Building bonus: take one drawn contract ({shown}) or done"
