"""Action masks over the engine's flat action table (``clans_env.engine.actions``).

The env's action space *is* the engine's table, so a mask is just the legal index set as a
0/1 vector of length ``NUM_ACTIONS``. Legal sets recur (the same menus come back turn after
turn), so masks are memoised and handed out as fresh copies.
"""
from __future__ import annotations

import numpy as np

from ..engine.actions import NUM_ACTIONS

_MEMO_LIMIT = 4096
_memo: dict = {}


def action_mask(legal, dtype=np.int8) -> np.ndarray:
    """A fresh ``dtype`` vector of length NUM_ACTIONS with ones at the ``legal`` indices."""
    key = (tuple(legal), dtype)
    mask = _memo.get(key)
    if mask is None:
        if len(_memo) >= _MEMO_LIMIT:
            _memo.clear()
        mask = np.zeros(NUM_ACTIONS, dtype)
        mask[list(key[0])] = 1
        _memo[key] = mask
    return mask.copy()
