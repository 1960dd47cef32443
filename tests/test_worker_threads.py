"""Worker processes share the cores: each gets its share of torch's intra-op threads (agents/threads.py),
so networks in parallel game workers do not spin against each other."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

from agents import threads as T
from training.tournament import run_tournament

PROBE = str(Path(__file__).resolve().parent / "thread_probe_agent.py") + ":ThreadProbe"


@pytest.mark.parametrize("cores, workers, want", [(2, 2, 1), (16, 2, 8), (16, 3, 5), (1, 4, 1), (8, 0, 8)])
def test_each_worker_gets_its_share_of_the_cores(monkeypatch, cores, workers, want):
    monkeypatch.setattr(T, "usable_cores", lambda: cores)
    assert T.threads_per_worker(workers) == want


def test_limit_sets_torch_now_and_the_environment_for_later(monkeypatch):
    before = torch.get_num_threads()
    monkeypatch.setenv("OMP_NUM_THREADS", "7")
    try:
        T.limit_torch_threads(1)
        assert torch.get_num_threads() == 1 and os.environ["OMP_NUM_THREADS"] == "1"
    finally:
        torch.set_num_threads(before)


def test_tournament_workers_run_torch_on_their_share(monkeypatch, tmp_path):
    """Two game workers: every move is made with the worker's share of the cores as torch's thread count
    (the probe agent fails its move otherwise, which the tournament reports as a forfeit)."""
    monkeypatch.setenv("CLANS_EXPECT_TORCH_THREADS", str(T.threads_per_worker(2)))
    res = run_tournament([PROBE, "random"], num_players=2, games_per_pairing=2, seed=5, workers=2,
                         progress=False, out_dir=tmp_path)
    assert res.complete and not res.failures and len(res.games) == 2
    monkeypatch.setenv("CLANS_EXPECT_TORCH_THREADS", "999")        # the probe does fail when it should
    bad = run_tournament([PROBE, "random"], num_players=2, games_per_pairing=2, seed=5, workers=2,
                         progress=False, out_dir=tmp_path / "bad")
    assert len(bad.failures) == 2


def test_core_sharing_pool_runs_torch_on_the_share():
    """The process pools of the benchmarks and of mcts:workers= (agents.threads.core_sharing_pool)."""
    with T.core_sharing_pool(2) as pool:
        got = {pool.submit(torch.get_num_threads).result() for _ in range(4)}
    assert got == {T.threads_per_worker(2)}
