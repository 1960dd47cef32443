"""The one agent interface every player in this project implements.

An agent is asked for a move with ``act(game)``: it reads the engine state (never mutates it;
search agents work on ``game.clone()`` / ``game.determinize(seed)``) and returns one of
``game.legal_actions()`` for ``game.current_player``. Agents are seeded for reproducibility.
"""
from __future__ import annotations

import random


class Agent:
    #: short name used in tournaments and the command line
    name = "agent"

    def __init__(self, seed: int | None = None):
        self.seed = seed
        self.rng = random.Random(seed)

    def act(self, game) -> int:
        """Return a legal action for ``game.current_player``."""
        raise NotImplementedError

    def reset(self, seed: int | None = None) -> None:
        """Forget per-game memory (search trees) and optionally reseed. Called at game start."""
        if seed is not None:
            self.seed = seed
            self.rng = random.Random(seed)

    def __call__(self, game) -> int:
        return self.act(game)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"
