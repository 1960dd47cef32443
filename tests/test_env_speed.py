"""The environment speed benchmark (issue 4, "Speed"): it runs, its engine, raw_env and env() loops
play exactly the same games (so the per-step ratios compare like with like), and the wrapper-only
measurement uses the same wrapper stack as env()."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import clans_env

BENCHMARK = Path(__file__).resolve().parent.parent / "benchmarks" / "env_speed.py"


@pytest.fixture(scope="module")
def env_speed():
    spec = importlib.util.spec_from_file_location("env_speed", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def wrapper_chain(environment) -> list[str]:
    chain = []
    while hasattr(environment, "env"):
        chain.append(type(environment).__name__)
        environment = environment.env
    return chain


def test_env_speed_benchmark_runs_identical_games(env_speed):
    """benchmarks/env_speed.py: engine, raw_env, env() and the constant env take the same number of
    steps (it raises otherwise) and every reported cost is positive."""
    # best of 3 batches: one batch of one game is at the mercy of whatever else runs on the machine
    rows = env_speed.main(["--players", "2", "--games", "2", "--repeats", "3"])
    (row,) = rows
    assert row["players"] == 2 and row["steps"] > 50
    for key in ("engine_sps", "env_sps", "raw_sps", "engine_us", "raw_us", "env_us", "encode_us", "mask_us",
                "ratio", "raw_ratio"):
        assert row[key] > 0, key
    assert row["env_us"] > row["engine_us"] and row["raw_us"] > row["engine_us"]


def test_wrapper_measurement_uses_the_env_wrapper_stack(env_speed):
    """The "PZ wrappers" column wraps the constant env exactly as env() wraps raw_env."""
    env = clans_env.env(num_players=2)
    constant = env_speed.ConstantEnv(2, {0: 3}, 10, 4)
    assert wrapper_chain(env_speed.wrap_like_env(constant)) == wrapper_chain(env)
    assert wrapper_chain(env) == ["OrderEnforcingWrapper", "AssertOutOfBoundsWrapper", "TerminateIllegalWrapper"]


def test_constant_env_is_a_valid_aec_env(env_speed):
    """The constant env the wrapper cost is measured on passes PettingZoo's API test, so the wrappers
    do their normal work around it."""
    from pettingzoo.test import api_test
    api_test(env_speed.wrap_like_env(env_speed.ConstantEnv(2, 40, 10, 4)), num_cycles=20)


def test_instruction_workloads_play_the_same_games(env_speed):
    """--instructions: the untimed engine, encode, raw_env and env() workloads play the same games, so
    their per-step instruction counts compare like with like."""
    steps = {mode: env_speed.workload(mode, 3, 1) for mode in env_speed.WORKLOADS}
    assert len(set(steps.values())) == 1 and steps["engine"] > 50


def test_instruction_count_without_valgrind_says_what_is_missing(env_speed, monkeypatch):
    """--instructions on a machine without valgrind stops with a message naming what to install."""
    monkeypatch.setattr(env_speed.shutil, "which", lambda name: None)
    with pytest.raises(SystemExit, match="valgrind"):
        env_speed.main(["--instructions", "--players", "2", "--games", "1"])
