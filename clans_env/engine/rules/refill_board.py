"""Industria, Export Contract Refill Board (player aid "Setup", "Phase 1: Preparation", "Building
Bonus"; rules R1.1, R2.1, R9.1-R9.3 of docs/rules-index.md).

``RefillState.board`` (``g.modstate["refill_board"]``) holds the face-up contracts, leftmost first (at most
``D.REFILL_SLOTS``). They are public: ``determinize`` reshuffles only the unseen draw pile below.
- Setup: every slot is filled from the top of the draw pile (R1.1).
- Preparation: the Export board's empty boxes are filled from the refill board left to right (then
  from the pile should it run out), the rest slides left, and the refill board is topped up from the
  draw pile (R2.1). Players still take contracts from the Export board only (R9.1).
- The Building bonus draws the leftmost 3 (6 for Buchanan) from the refill board instead of the
  pile (R9.3); the board is topped up only in Preparation, so a later Building bonus in the same
  round may see fewer (rules-interpretations.md, Q22). Untaken contracts go to the bottom of the pile.
"""
from __future__ import annotations

from .. import data as D
from ..modules import Module, Record, field, register

NAME = "refill_board"


class RefillState(Record):
    """The refill board's state in a game (``g.modstate["refill_board"]``): ``board``, its face-up
    contracts, leftmost first (not the Train map's Demand refill area, train_core.DEMAND_REFILL)."""
    __slots__ = ("board",)
    board: list
    MISC = {"board": ("refill", [])}


def board(g) -> list | tuple:
    """The refill board's face-up contracts, leftmost first (empty without the module)."""
    return field(g, NAME, "board")


def top_up(g) -> None:
    """Fill the refill board's empty slots (on the right) from the top of the draw pile."""
    rec = g.modstate.get(NAME)
    if rec is None:
        rec = g.modstate[NAME] = RefillState([])
    need = D.REFILL_SLOTS - len(rec.board)
    rec.board = rec.board + g.pile[:need]
    del g.pile[:need]
    if g.pile_known > len(g.pile):
        g.pile_known = len(g.pile)


@register
class RefillBoard(Module):
    """The refill board as a module (hook points: ``engine/modules.py``)."""
    name = NAME
    record = RefillState

    def setup(self, g) -> None:
        top_up(g)                                   # R1.1

    def contract_source(self, g):
        return field(g, NAME, "board", None)        # None until setup filled it

    def display_refilled(self, g) -> None:
        if NAME in g.modstate:                      # R2.1 (not in setup: R1.1 fills it after the Export board)
            top_up(g)
