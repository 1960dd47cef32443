"""Action masks over the engine's flat action table (``clans_env.engine.actions``).

The env's action space *is* the engine's table, so a mask is just the legal index set as a
0/1 vector of length ``NUM_ACTIONS``: one fresh zeroed vector per call with ones written at
the legal indices (by the compiled encoder's ``fill_mask`` where it is built).
"""
from __future__ import annotations

import numpy as np

from ..engine.actions import NUM_ACTIONS
from .observation import _fastobs

def action_mask(legal, dtype=np.int8) -> np.ndarray:
    """A fresh ``dtype`` vector of length NUM_ACTIONS with ones at the ``legal`` indices
    (raises IndexError for an index outside the table)."""
    return fill_mask(np.zeros(NUM_ACTIONS, dtype), legal)


def fill_mask(mask: np.ndarray, legal) -> np.ndarray:
    """``mask`` (a zeroed vector of length NUM_ACTIONS, e.g. a row of a batch) with ones written at
    the ``legal`` indices, returned."""
    if _fastobs is not None and mask.itemsize == 1 and mask.dtype.kind in "biu" and mask.flags.c_contiguous:
        _fastobs.fill_mask(mask, legal)          # int8, uint8, bool
    elif legal:
        mask[np.asarray(legal, np.intp)] = 1
    return mask
