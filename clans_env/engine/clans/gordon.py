"""Clan Gordon (Industria; player aid "Clans", shared/reference/industria.md §1.18).

Only with ``GameConfig(industria_clans=True)`` (or ``industria=True``).
"""
from __future__ import annotations

from . import register
from .base import Clan


@register
class Gordon(Clan):
    name = "gordon"
    expansion = "industria"
