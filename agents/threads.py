"""Torch's intra-op threads in worker processes.

Torch gives every process as many intra-op threads as the machine has cores. When several game workers
each run a network (PPO policies, MCTS with a policy prior), their thread pools share the cores and spin
waiting for each other: two workers on two cores made an MCTS with a policy 26x slower per move (1,140 ms
against 44 ms a decision on 2-player Industria positions). A pool of N workers therefore gives each worker
its share of the cores, at least one thread.
"""
from __future__ import annotations

import os
import sys
from concurrent.futures import ProcessPoolExecutor


def usable_cores() -> int:
    """Cores this process may run on (its CPU affinity where the platform tells it)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def threads_per_worker(workers: int) -> int:
    """Each of ``workers`` processes' share of the usable cores, at least 1."""
    return max(1, usable_cores() // max(1, workers))


def limit_torch_threads(threads: int) -> None:
    """Use at most ``threads`` intra-op threads in this process: now if torch is loaded, and through
    OMP_NUM_THREADS (read when torch is first imported) otherwise; processes this one starts inherit it."""
    os.environ["OMP_NUM_THREADS"] = str(threads)
    torch = sys.modules.get("torch")
    if torch is not None and torch.get_num_threads() != threads:
        torch.set_num_threads(threads)


def core_sharing_pool(workers: int) -> ProcessPoolExecutor:
    """A process pool of ``workers`` whose processes each run torch on their share of the cores."""
    return ProcessPoolExecutor(max_workers=workers, initializer=limit_torch_threads,
                               initargs=(threads_per_worker(workers),))
