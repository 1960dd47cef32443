"""Which rule function answers which pending decision.

Every decision kind (``state.DECISION_KINDS``) has a ``legal(game, frame) -> list[int]``
and an ``apply(game, frame, action)``; the rule modules register them with ``@legal_for``
and ``@apply_for`` right next to the rule text they implement. A ``legal`` returning an
empty list means "nothing to decide": the game pops the frame and carries on.
"""
from __future__ import annotations

from ..state import DECISION_KINDS

LEGAL: list = [None] * len(DECISION_KINDS)
APPLY: list = [None] * len(DECISION_KINDS)
DESCRIBE: list = [None] * len(DECISION_KINDS)


def legal_for(kind: int):
    def deco(fn):
        LEGAL[kind] = fn
        return fn
    return deco


def apply_for(kind: int):
    def deco(fn):
        APPLY[kind] = fn
        return fn
    return deco


def describe_for(kind: int):
    def deco(fn):
        DESCRIBE[kind] = fn
        return fn
    return deco


#: named rule steps that run when a K_HOOK frame reaches the top of the stack
HOOKS: dict = {}


def hook(name: str):
    def deco(fn):
        HOOKS[name] = fn
        return fn
    return deco
