"""Rulebook "Solo Game": setup (neutral Workers, five contracts), the Market phase of rounds
2-5 and the solo refill of the Export board. The rest of the solo rules sit with the rule
they change: no Neighbourhood bonus (expand.py), no import tracking (fulfil.py; imports
still score by relative amounts, scoring.py), £16 per pass (turn.py), the solo Export and
Settlement thresholds and the result band (scoring.py).

Dice are chance events rolled with the game's own generator ``g.rng`` (so a seed replays
them and ``Game.determinize`` resamples them); they are kept in a ``SoloState`` record
(``g.modstate["solo"]``): the latest rolls in ``dice`` as [good, price die, good, price die, ...]
(also the multi-player Market Phase of Variable prices, R2.6) and every contract the die removed
in ``removed``.
"""
from __future__ import annotations

from .. import data as D
from ..modules import RECORDS, Record, field
from ..topology import bits
from .common import move_price

NEUTRAL = -2   # occupant value of a blocked space (neutral Worker / covered space)
NAME = "solo"


class SoloState(Record):
    """The Market phase's latest rolls (``dice``) and the contracts its die removed (``removed``)."""
    __slots__ = ("dice", "removed")
    dice: list
    removed: list
    MISC = {"dice": ("solo_dice", []), "removed": ("solo_removed", [])}


RECORDS[NAME] = SoloState


def solo_state(g) -> SoloState:
    """The record, made when first needed (a clone may share a read-only empty mapping: rebind it)."""
    rec = g.modstate.get(NAME)
    if rec is None:
        rec = SoloState([], [])
        g.modstate = {**g.modstate, NAME: rec}
    return rec


def removed_contracts(g) -> list | tuple:
    return field(g, NAME, "removed")


def market_dice(g) -> list | tuple:
    return field(g, NAME, "dice")


def setup_solo(g) -> None:
    """Neutral Workers on every active £1 land space; five face-up contracts."""
    topo = g.topo
    for s in bits(topo.land_mask & ~g.occupied):
        if topo.cost[s] == 1:
            g.occupant[s] = NEUTRAL
            g.occupied |= 1 << s
    # setup dealt SOLO_FILL_BOXES contracts; "Randomly draw and place five": the extra one
    # goes back on top of the (unseen) draw pile
    for box in range(D.SOLO_FILL_BOXES - 1, -1, -1):
        shown = sum(1 for c in g.display if c >= 0)
        if shown <= D.SOLO_START_CONTRACTS:
            break
        if g.display[box] >= 0:
            g.pile.insert(0, g.display[box])
            g.display[box] = -1
    solo_state(g)


def bracket(step: int) -> int:
    """-1 low, 0 medium, +1 high (the brackets next to the Market)."""
    low, _medium, high = D.SOLO_BRACKETS
    if step <= low[1]:
        return -1
    if step >= high[0]:
        return 1
    return 0


def price_change(step: int, die: int) -> int:
    """Steps a price moves for a Price die result: low prices rise and high prices fall by
    the die's absolute value; medium prices follow the die's sign."""
    b = bracket(step)
    if b < 0:
        return abs(die)
    if b > 0:
        return -abs(die)
    return die


def market_phase(g) -> int:
    """Change the prices of three different Goods once each; returns the last Price die."""
    rng = g.rng
    changed: list[int] = []
    rolls: list[int] = []
    die = 0
    while len(changed) < D.SOLO_GOODS_CHANGED:
        good = D.SOLO_GOODS_DIE[rng.randrange(len(D.SOLO_GOODS_DIE))]
        if good in changed:
            continue                      # reroll the Goods die
        die = D.SOLO_PRICE_DIE[rng.randrange(len(D.SOLO_PRICE_DIE))]
        move_price(g, good, price_change(g.prices[good], die))
        changed.append(good)
        rolls += [good, die]
    solo_state(g).dice = rolls
    return die


def remove_contract(g, die: int) -> None:
    """The contract in the box of the last Price die's sign and numeral leaves the game."""
    box = D.SOLO_REMOVAL_BOX[die]
    cid = g.display[box]
    if cid >= 0:
        g.display[box] = -1
        solo_state(g).removed.append(cid)


def preparation(g) -> None:
    """Solo extras of Phase 1 (the board was refilled and Merchants retrieved already)."""
    if g.round in D.SOLO_MARKET_ROUNDS:
        remove_contract(g, market_phase(g))
