"""Uniformly random legal moves: the baseline every other agent must beat."""
from __future__ import annotations

from .base import Agent


class RandomAgent(Agent):
    name = "random"

    def act(self, game) -> int:
        legal = game.legal_actions()
        return legal[self.rng.randrange(len(legal))]
