"""Environment speed: PettingZoo steps per second against the bare engine, in the same run.

All loops play the same games: the same seeds and the same uniformly random choice among the
legal actions (the engine's ``legal_actions()`` list, or the indices set in the env's
``action_mask``, which are the same sorted list), so every env step has an engine twin. Timing
alternates engine and env batches, measures CPU time of this thread (``time.thread_time``, so
time the OS gives to other processes does not count) and keeps the best batch of each.

    python benchmarks/env_speed.py                  # 2 and 4 players, 20 games per batch
    python benchmarks/env_speed.py --players 1 2 3 4 --games 40 --repeats 5

Columns:
  engine steps/s   bare engine: legal_actions() + random pick + apply()
  env steps/s      env(): last() (observation + mask) + random pick from the mask + step()
  raw env steps/s  the same loop on raw_env() (no PettingZoo wrappers)
  encode us        ObservationEncoder.encode for the player to move (alone)
  mask us          building the int8 action mask from legal_actions() (alone, as observe() does)
  env / engine     cost per step of env() relative to the bare engine (target: <= 2)
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from rich.console import Console
from rich.table import Table
from tqdm import tqdm

from clans_env import Game, GameConfig
from clans_env.encoding import ObservationEncoder, action_mask
from clans_env.env.aec import env as make_env
from clans_env.env.aec import raw_env


def engine_batch(num_players: int, seeds) -> tuple[int, float]:
    steps = 0
    start = time.thread_time()
    for seed in seeds:
        rng = np.random.default_rng(seed)
        game = Game(GameConfig(num_players=num_players, seed=seed))
        while not game.is_terminal():
            legal = game.legal_actions()          # sorted, like the indices set in a mask
            game.apply(legal[rng.integers(len(legal))])
            steps += 1
    return steps, time.thread_time() - start


def env_batch(environment, seeds) -> tuple[int, float]:
    steps = 0
    start = time.thread_time()
    for seed in seeds:
        rng = np.random.default_rng(seed)
        environment.reset(seed=seed)
        for agent in environment.agent_iter():
            obs, reward, terminated, truncated, info = environment.last()
            if terminated or truncated:
                environment.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            environment.step(legal[rng.integers(len(legal))])
            steps += 1
    return steps, time.thread_time() - start


def timer_overhead() -> float:
    """Seconds one ``thread_time()`` reading adds to an interval (subtracted from per-call costs)."""
    gaps = []
    for _ in range(2000):
        t0 = time.thread_time()
        gaps.append(time.thread_time() - t0)
    return float(np.median(gaps))


def component_costs(num_players: int, seeds) -> tuple[float, float]:
    """Microseconds per observation encoding and per mask, over the positions of the games (timed
    one call at a time inside the game loop, as an environment calls them)."""
    encoder = ObservationEncoder(num_players)
    overhead = timer_overhead()
    t_encode = t_mask = 0.0
    count = 0
    for seed in seeds:
        rng = np.random.default_rng(seed)
        game = Game(GameConfig(num_players=num_players, seed=seed))
        while not game.is_terminal():
            seat = game.current_player
            t0 = time.thread_time()
            encoder.encode(game, seat)
            t1 = time.thread_time()
            action_mask(game.legal_actions())
            t2 = time.thread_time()
            t_encode += t1 - t0
            t_mask += t2 - t1
            count += 1
            legal = game.legal_actions()
            game.apply(legal[rng.integers(len(legal))])
    return 1e6 * (t_encode / count - overhead), 1e6 * (t_mask / count - overhead)


def measure(num_players: int, games: int, repeats: int, progress) -> dict:
    seeds = range(1000, 1000 + games)
    wrapped = make_env(num_players=num_players)
    raw = raw_env(num_players=num_players)
    best = {"engine": None, "env": None, "raw": None}
    steps = {}
    for _ in range(repeats):
        for name, fn in (("engine", lambda: engine_batch(num_players, seeds)),
                         ("env", lambda: env_batch(wrapped, seeds)),
                         ("raw", lambda: env_batch(raw, seeds))):
            n, seconds = fn()
            if steps.setdefault(name, n) != n:  # pragma: no cover - the loops must play identical games
                raise AssertionError(f"{name} played {n} steps, expected {steps[name]}")
            best[name] = seconds if best[name] is None else min(best[name], seconds)
            progress.update(1)
    if not steps["engine"] == steps["env"] == steps["raw"]:
        raise AssertionError(f"engine and env loops played different games: {steps}")
    encode_us, mask_us = component_costs(num_players, seeds)
    per_step = {k: best[k] / steps["engine"] for k in best}
    return {"players": num_players, "steps": steps["engine"],
            "engine_sps": 1 / per_step["engine"], "env_sps": 1 / per_step["env"], "raw_sps": 1 / per_step["raw"],
            "engine_us": 1e6 * per_step["engine"], "encode_us": encode_us, "mask_us": mask_us,
            "ratio": per_step["env"] / per_step["engine"], "raw_ratio": per_step["raw"] / per_step["engine"]}


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4], choices=[1, 2, 3, 4])
    parser.add_argument("--games", type=int, default=20, help="games per batch")
    parser.add_argument("--repeats", type=int, default=3, help="batches per loop (the best one counts)")
    args = parser.parse_args(argv)
    rows = []
    with tqdm(total=3 * args.repeats * len(args.players), desc="timing batches", unit="batch") as progress:
        for n in args.players:
            rows.append(measure(n, args.games, args.repeats, progress))
    table = Table(title=f"env_speed: {args.games} random games per batch, best of {args.repeats} batches")
    for col in ("players", "steps/game", "engine steps/s", "env steps/s", "raw env steps/s", "engine us/step",
                "encode us", "mask us", "env / engine", "raw env / engine"):
        table.add_column(col, justify="right")
    for r in rows:
        table.add_row(str(r["players"]), f"{r['steps'] / args.games:.0f}", f"{r['engine_sps']:,.0f}",
                      f"{r['env_sps']:,.0f}", f"{r['raw_sps']:,.0f}", f"{r['engine_us']:.1f}",
                      f"{r['encode_us']:.1f}", f"{r['mask_us']:.1f}", f"{r['ratio']:.2f}x", f"{r['raw_ratio']:.2f}x")
    Console(width=160).print(table)
    return rows


if __name__ == "__main__":
    main()
