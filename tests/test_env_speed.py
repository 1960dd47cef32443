"""The environment speed benchmark (issue 4, "Speed"): it runs, and its engine, raw_env and env()
loops play exactly the same games, so the per-step ratios compare like with like."""
from __future__ import annotations

import importlib.util
from pathlib import Path

BENCHMARK = Path(__file__).resolve().parent.parent / "benchmarks" / "env_speed.py"


def test_env_speed_benchmark_runs_identical_games():
    """benchmarks/env_speed.py: engine and env loops take the same number of steps (it raises
    otherwise) and every reported figure is positive."""
    spec = importlib.util.spec_from_file_location("env_speed", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rows = module.main(["--players", "2", "--games", "1", "--repeats", "1"])
    (row,) = rows
    assert row["players"] == 2 and row["steps"] > 50
    for key in ("engine_sps", "env_sps", "raw_sps", "encode_us", "mask_us", "ratio", "raw_ratio"):
        assert row[key] > 0, key
