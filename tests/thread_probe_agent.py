"""An agent for tests/test_worker_threads.py: plays the first legal move, and fails its move when torch's
intra-op thread count in its process is not the one the test expects (CLANS_EXPECT_TORCH_THREADS)."""
from __future__ import annotations

import os

import torch

from agents.base import Agent


class ThreadProbe(Agent):
    name = "thread-probe"

    def act(self, game) -> int:
        want = int(os.environ["CLANS_EXPECT_TORCH_THREADS"])
        if torch.get_num_threads() != want:
            raise RuntimeError(f"torch uses {torch.get_num_threads()} threads in this worker, expected {want}")
        return game.legal_actions()[0]
