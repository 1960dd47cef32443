"""Which rule function answers which pending decision.

Every decision kind (``state.DECISION_KINDS``) has a ``legal(game, frame) -> list[int]``
and an ``apply(game, frame, action)``; the rule modules register them with ``@legal_for``
and ``@apply_for`` right next to the rule text they implement. A ``legal`` returning an
empty list means "nothing to decide": the game pops the frame and carries on.

The legal list is built on demand (``Game.legal_actions`` / ``Game.apply``), not after every
action. To tell whether a new frame has anything to decide, ``Game._advance`` calls the kind's
``has_legal(game, frame) -> bool`` when one is registered (``@has_legal_for``: a cheap test that
must agree with ``bool(legal(game, frame))``; tests/test_lazy_legal.py checks it) and otherwise
builds the list itself (and keeps it).
"""
from __future__ import annotations

from ..state import DECISION_KINDS

LEGAL: list = [None] * len(DECISION_KINDS)
APPLY: list = [None] * len(DECISION_KINDS)
DESCRIBE: list = [None] * len(DECISION_KINDS)
#: optional cheap "is the legal list non-empty?" per kind (None: build the list to find out)
HAS_LEGAL: list = [None] * len(DECISION_KINDS)


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


def has_legal_for(kind: int):
    def deco(fn):
        HAS_LEGAL[kind] = fn
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


#: Port tiles a module adds to the pool (Industria 10-18): tile -> (applicable(g, p, tile) -> bool,
#: resolve(g, p, tile)); rules/ports.py dispatches the tiles it has no rule for here
PORT_TILES: dict = {}
#: Scoring tiles a module adds to the pool (Industria 10-18): tile -> glory(g, p, tile) -> int
SCORING_TILES: dict = {}
