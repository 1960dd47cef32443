"""Industria's alternative 2-player Export and Settlement scoring (R15.8-R15.9) as a module (hook
points: ``engine/modules.py``); the split itself is ``scoring.alternative_two_player_split``, which the
Automa's majorities use too."""
from __future__ import annotations

from .. import data as D
from ..modules import Module, register
from .scoring import alternative_two_player_split


@register
class AltTwoPlayerScoring(Module):
    name = "alt_two_player_scoring"

    def score_split(self, g, exports: list, settle: list, split: tuple) -> tuple:
        n = g.num_players
        return (alternative_two_player_split(exports, D.EXPORT_TIERS[n], *D.ALT_EXPORT),
                alternative_two_player_split(settle, D.SETTLEMENT_TIERS[n], *D.ALT_SETTLEMENT))
