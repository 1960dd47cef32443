"""Industria, Export Contract Refill Board (player aid "Setup", "Phase 1: Preparation", "Building
Bonus"; rules R1.1, R2.1, R9.1-R9.3 of docs/rules-index.md).

``g.misc["refill"]`` holds the face-up contracts of the refill board, leftmost first (at most
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
from ..modules import Module, register

#: g.misc key: the refill board's face-up contracts, leftmost first (not the Train map's Demand refill area,
#: train_core.DEMAND_REFILL)
CONTRACT_REFILL = "refill"


def top_up(g) -> None:
    """Fill the refill board's empty slots (on the right) from the top of the draw pile."""
    board = list(g.misc.get(CONTRACT_REFILL, []))
    need = D.REFILL_SLOTS - len(board)
    board += g.pile[:need]
    del g.pile[:need]
    g.misc[CONTRACT_REFILL] = board
    if g.pile_known > len(g.pile):
        g.pile_known = len(g.pile)


@register
class RefillBoard(Module):
    """The refill board as a module (hook points: ``engine/modules.py``)."""
    name = "refill_board"

    def setup(self, g) -> None:
        top_up(g)                                   # R1.1

    def contract_source(self, g):
        return g.misc.get(CONTRACT_REFILL)          # None until setup filled it

    def display_refilled(self, g) -> None:
        if CONTRACT_REFILL in g.misc:               # R2.1 (not in setup: R1.1 fills it after the Export board)
            top_up(g)
