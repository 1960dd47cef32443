"""Industria variant, Variable Starting Market Prices (player aid "Variants", "Phase 1: Preparation";
rules R16.1 and R2.6 of docs/rules-index.md).

- Setup, after the Price markers are placed: the Price die is rolled once for each Good, in the
  order of ``data.GOODS``; +1 or -1 leaves the marker, +2 / +3 moves it up one step, -2 / -3 down one
  step (R16.1). The rolls are kept in ``PriceDiceState.dice`` (``g.modstate["variable_prices"]``).
- "From round 2 onward, also run the Market Phase to shift prices" (A135, R2.6): in Preparation the
  solo game's Market Phase runs (three different Goods, the brackets), without the solo game's
  contract removal, which belongs to the solo Export board (rules-interpretations.md).
Dice come from the game's own generator, so a seed replays them and ``determinize`` resamples them.
"""
from __future__ import annotations

from .. import data as D
from ..modules import Record, define, field
from .common import move_price
from .solo import market_phase

NAME = "variable_prices"


class PriceDiceState(Record):
    """The module's state in a game: ``dice``, the Price die's starting roll per Good (``data.GOODS`` order)."""
    __slots__ = ("dice",)
    dice: list
    MISC = {"dice": ("price_dice", [])}
    SHARED = True           # rolled in setup only


def starting_dice(g) -> list | tuple:
    """The starting rolls per Good (empty without the module)."""
    return field(g, NAME, "dice")


def roll_starting_prices(g) -> None:
    rolls = []
    for good in range(D.NUM_GOODS):
        die = D.SOLO_PRICE_DIE[g.rng.randrange(len(D.SOLO_PRICE_DIE))]
        move_price(g, good, D.VARIABLE_PRICE_STEPS[die])
        rolls.append(die)
    g.modstate[NAME] = PriceDiceState(rolls)


def preparation(g) -> None:
    """R2.6: the Market Phase of rounds 2-5 (multi-player; the solo game runs its own)."""
    if g.num_players > 1 and g.round in D.VARIABLE_PRICE_MARKET_ROUNDS:
        market_phase(g)


define(NAME, "Variable Starting Market Prices (R16.1, R2.6) as a module (hook points: "
       "``engine/modules.py``).", record=PriceDiceState, setup=roll_starting_prices, after_prepare_round=preparation)
