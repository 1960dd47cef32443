"""Environment speed: PettingZoo steps per second against the bare engine, in the same run.

All loops play the same games: the same seeds and the same uniformly random choice among the
legal actions (the engine's ``legal_actions()`` list, or the indices set in the env's
``action_mask``, which are the same sorted list), so every env step has an engine twin. Timing
alternates engine and env batches, measures CPU time of this thread (``time.thread_time``, so
time the OS gives to other processes does not count) and keeps the best batch of each.

    python benchmarks/env_speed.py                  # 2 and 4 players, 20 games per batch
    python benchmarks/env_speed.py --players 1 2 3 4 --games 20 --repeats 5
    python benchmarks/env_speed.py --baseline HEAD  # also a git revision, alternating, with ratios
    python benchmarks/env_speed.py --instructions --games 4 --baseline HEAD   # instruction counts (valgrind)

Columns:
  engine us/step   bare engine: legal_actions() + random pick + apply()
  raw_env us/step  raw_env(): last() (observation + mask) + random pick from the mask + step()
  env() us/step    the same loop on env() (raw_env in PettingZoo's classic wrapper stack)
  encode us        ObservationEncoder.encode for the player to move (alone, in the game loop)
  mask us          building the int8 action mask from legal_actions() (alone, as observe() does)
  wrappers us      env()'s wrapper stack (PettingZoo's TerminateIllegal, AssertOutOfBounds and
                   OrderEnforcing classes, with the per-step attribute reads bound, see
                   ``clans_env.env.aec._bound``) around a trivial AEC env that does no work
                   (constant observation), minus that env unwrapped
  plain PZ wrappers us
                   the same for PettingZoo's wrapper classes as they come (every attribute
                   forwarded level by level through ``__getattr__``)
  raw_env / engine, env() / engine
                   cost per step relative to the bare engine (issue 4's target: <= 2)
  no-obs raw_env / engine
                   raw_env with ObservationEncoder.encode replaced by copying a blank vector: the
                   floor of raw_env / engine that no encoder speed-up can go below

With --baseline REV the measurement runs alternately (--rounds times) in fresh processes on this
checkout and on a temporary git worktree of REV (both timed by this script's loops); the report
gives each version's median rows and the current / baseline ratios of the same run.

With --instructions the same loops run under valgrind's cachegrind and the report gives instructions
per step: deterministic, so unaffected by other jobs on the machine, but blind to memory stalls (time
per instruction is higher in the environment and the encoder, which move more data, than in the
engine), so it complements the timings rather than replacing them.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from rich.console import Console
from rich.table import Table

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))     # this folder's shared helpers
from versions import cachegrind_in, checkouts, measure_in  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def engine_batch(num_players: int, seeds) -> tuple[int, float]:
    from clans_env import Game, GameConfig

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
            legal = obs["action_mask"].nonzero()[0]      # the masked-in indices, sorted (mask is 1-D)
            environment.step(legal[rng.integers(len(legal))])
            steps += 1
    return steps, time.thread_time() - start


class ConstantEnv(AECEnv):
    """An AEC env that does no work: a constant observation, every action legal, agents in turn, and
    ``steps_per_game[seed]`` (or ``steps_per_game`` if an int) steps per game; it isolates what
    PettingZoo's wrappers cost per step."""

    metadata = {"name": "constant_v0", "is_parallelizable": False, "render_modes": []}

    def __init__(self, num_players: int, steps_per_game: dict | int, num_actions: int, size: int):
        super().__init__()
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.steps_per_game = steps_per_game
        mask = np.ones(num_actions, np.int8)
        # a constant, not all-zero observation (PettingZoo's api_test warns about an all-zero one)
        self._observation = {"observation": np.full(size, 0.5, np.float32), "action_mask": mask}
        box = spaces.Dict({"observation": spaces.Box(-1.0, 1.0, (size,), np.float32),
                           "action_mask": spaces.Box(0, 1, (num_actions,), np.int8)})
        self.observation_spaces = dict.fromkeys(self.possible_agents, box)
        self.action_spaces = dict.fromkeys(self.possible_agents, spaces.Discrete(num_actions))

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]
        steps = self.steps_per_game
        self._left = steps if isinstance(steps, int) else steps[seed]
        self._seat = 0

    def observe(self, agent):
        return self._observation

    def step(self, action):
        if self.terminations[self.agent_selection]:
            self._was_dead_step(action)
            return
        self._left -= 1
        if self._left == 0:
            self.terminations = dict.fromkeys(self.agents, True)
        self._seat = (self._seat + 1) % len(self.possible_agents)
        self.agent_selection = self.possible_agents[self._seat]


def wrap_like_env(environment: AECEnv) -> AECEnv:
    """The wrapper stack of ``clans_env.env.aec.env`` (the same function; tests/test_env_speed.py checks)."""
    try:
        from clans_env.env.aec import standard_wrappers
    except ImportError:                 # a --baseline revision from before it: env() used the plain classes
        return wrap_plain(environment)
    return standard_wrappers(environment)


def wrap_plain(environment: AECEnv) -> AECEnv:
    """PettingZoo's wrapper classes as they come (every attribute forwarded by ``__getattr__``), for
    the "plain PZ wrappers" column."""
    environment = wrappers.TerminateIllegalWrapper(environment, illegal_reward=-1)
    environment = wrappers.AssertOutOfBoundsWrapper(environment)
    return wrappers.OrderEnforcingWrapper(environment)


def timer_overhead() -> float:
    """Seconds one ``thread_time()`` reading adds to an interval (subtracted from per-call costs)."""
    gaps = []
    for _ in range(2000):
        t0 = time.thread_time()
        gaps.append(time.thread_time() - t0)
    return float(np.median(gaps))


def component_costs(num_players: int, seeds) -> tuple[float, float, dict]:
    """Microseconds per observation encoding and per mask, over the positions of the games (timed
    one call at a time inside the game loop, as an environment calls them), and the steps of each
    game."""
    from clans_env import Game, GameConfig
    from clans_env.encoding import ObservationEncoder, action_mask

    encoder = ObservationEncoder(num_players)
    overhead = timer_overhead()
    t_encode = t_mask = 0.0
    count = 0
    steps = {}
    for seed in seeds:
        rng = np.random.default_rng(seed)
        game = Game(GameConfig(num_players=num_players, seed=seed))
        start = count
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
        steps[seed] = count - start
    return 1e6 * (t_encode / count - overhead), 1e6 * (t_mask / count - overhead), steps


def measure(num_players: int, games: int, repeats: int, progress=None) -> dict:
    """Per step costs of every loop (best batch of ``repeats``) and of the components alone (best pass)."""
    from clans_env.env.aec import env as make_env
    from clans_env.env.aec import raw_env

    seeds = range(1000, 1000 + games)
    encode_us, mask_us, steps_per_game = component_costs(num_players, seeds)
    wrapped = make_env(num_players=num_players)
    raw = raw_env(num_players=num_players)
    size = raw.observation_space(raw.possible_agents[0])["observation"].shape[0]
    num_actions = raw.action_space(raw.possible_agents[0]).n
    unencoded = raw_env(num_players=num_players)
    blank = np.zeros(size, np.float32)
    unencoded.encoder.encode = lambda game, seat: blank.copy()    # the env minus the observation vector
    constant = ConstantEnv(num_players, steps_per_game, num_actions, size)
    constant_wrapped = wrap_like_env(ConstantEnv(num_players, steps_per_game, num_actions, size))
    constant_plain = wrap_plain(ConstantEnv(num_players, steps_per_game, num_actions, size))
    loops = {"engine": lambda: engine_batch(num_players, seeds), "env": lambda: env_batch(wrapped, seeds),
             "raw": lambda: env_batch(raw, seeds), "unencoded": lambda: env_batch(unencoded, seeds),
             "constant": lambda: env_batch(constant, seeds),
             "constant_wrapped": lambda: env_batch(constant_wrapped, seeds),
             "constant_plain": lambda: env_batch(constant_plain, seeds)}
    best: dict = dict.fromkeys(loops)
    steps: dict = {}
    for repeat in range(repeats):
        if repeat:
            again = component_costs(num_players, seeds)
            encode_us, mask_us = min(encode_us, again[0]), min(mask_us, again[1])
        for name, fn in loops.items():
            n, seconds = fn()
            if steps.setdefault(name, n) != n:  # pragma: no cover - the loops must play identical games
                raise AssertionError(f"{name} played {n} steps, expected {steps[name]}")
            best[name] = seconds if best[name] is None else min(best[name], seconds)
            if progress is not None:
                progress.update(1)
    if len(set(steps.values())) != 1 or steps["engine"] != sum(steps_per_game.values()):
        raise AssertionError(f"the engine and env loops played different games: {steps}")
    us = {k: 1e6 * best[k] / steps["engine"] for k in best}
    return {"players": num_players, "games": games, "steps": steps["engine"],
            "engine_sps": 1e6 / us["engine"], "env_sps": 1e6 / us["env"], "raw_sps": 1e6 / us["raw"],
            "engine_us": us["engine"], "raw_us": us["raw"], "env_us": us["env"],
            "encode_us": encode_us, "mask_us": mask_us, "wrappers_us": us["constant_wrapped"] - us["constant"],
            "plain_wrappers_us": us["constant_plain"] - us["constant"],
            "unencoded_us": us["unencoded"], "ratio": us["env"] / us["engine"], "raw_ratio": us["raw"] / us["engine"],
            "unencoded_ratio": us["unencoded"] / us["engine"]}


WORKLOADS = ("engine", "encode", "raw_env", "env")


def workload(mode: str, num_players: int, games: int) -> int:
    """The loops above without timing, for instruction counting: ``engine``, ``encode`` (the engine
    loop plus ObservationEncoder.encode for the player to move), ``raw_env`` or ``env``. Returns the
    number of steps."""
    from clans_env import Game, GameConfig
    from clans_env.encoding import ObservationEncoder
    from clans_env.env.aec import env as make_env
    from clans_env.env.aec import raw_env

    seeds = range(1000, 1000 + games)
    if mode in ("raw_env", "env"):
        return env_batch(raw_env(num_players=num_players) if mode == "raw_env" else make_env(num_players=num_players),
                         seeds)[0]
    encoder = ObservationEncoder(num_players) if mode == "encode" else None
    steps = 0
    for seed in seeds:
        rng = np.random.default_rng(seed)
        game = Game(GameConfig(num_players=num_players, seed=seed))
        while not game.is_terminal():
            if encoder is not None:
                encoder.encode(game, game.current_player)
            legal = game.legal_actions()
            game.apply(legal[rng.integers(len(legal))])
            steps += 1
    return steps


def count_instructions(path: str, mode: str, num_players: int, games: int) -> tuple[int, int]:
    """(instructions, steps) of ``workload`` run under valgrind's cachegrind in a fresh process that
    imports ``clans_env`` from ``path`` (hash seed fixed, so the count repeats)."""
    counts, steps = cachegrind_in(path, "env_speed", f"workload({mode!r}, {num_players}, {games})")
    return counts["instructions"], steps


def instructions_per_step(path: str, num_players: int, games: int, progress=None) -> dict:
    """Instructions per step of every workload: the count with ``games`` games minus the count with
    none (imports and construction), over the steps; ``encode`` is the encoder's part alone."""
    per_step = {}
    for mode in WORKLOADS:
        base, _ = count_instructions(path, mode, num_players, 0)
        total, steps = count_instructions(path, mode, num_players, games)
        per_step[mode] = (total - base) / steps
        if progress is not None:
            progress.update(1)
    per_step["encode"] -= per_step["engine"]
    return {"players": num_players, **per_step, "raw_ratio": per_step["raw_env"] / per_step["engine"],
            "ratio": per_step["env"] / per_step["engine"]}


def median_row(runs: list[dict]) -> dict:
    """Per column, the median over runs (a figure and its ratio may come from different runs)."""
    return {k: (float(np.median([r[k] for r in runs])) if isinstance(v, float) else v) for k, v in runs[0].items()}


COLUMNS = ("players", "steps/game", "engine steps/s", "raw_env steps/s", "env() steps/s", "engine us/step",
           "raw_env us/step", "env() us/step", "encode us", "mask us", "wrappers us", "plain PZ wrappers us",
           "raw_env / engine",
           "env() / engine", "no-obs raw_env / engine")


def row_cells(r: dict) -> list[str]:
    return [str(r["players"]), f"{r['steps'] / r['games']:.0f}", f"{r['engine_sps']:,.0f}", f"{r['raw_sps']:,.0f}",
            f"{r['env_sps']:,.0f}", f"{r['engine_us']:.1f}", f"{r['raw_us']:.1f}", f"{r['env_us']:.1f}",
            f"{r['encode_us']:.1f}", f"{r['mask_us']:.1f}", f"{r['wrappers_us']:.1f}", f"{r['plain_wrappers_us']:.1f}",
            f"{r['raw_ratio']:.2f}x",
            f"{r['ratio']:.2f}x", f"{r['unencoded_ratio']:.2f}x"]


def _progress(*args, **kwargs):
    """``training.progress.Progress``, imported only by the reports: ``measure_in`` imports this module
    with a baseline checkout first on the path, which may predate ``training.progress``."""
    from training.progress import Progress
    return Progress(*args, **kwargs)


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4], choices=[1, 2, 3, 4])
    parser.add_argument("--games", type=int, default=20, help="games per batch")
    parser.add_argument("--repeats", type=int, default=3, help="batches per loop (the best one counts)")
    parser.add_argument("--baseline", help="git revision to measure alternately in the same run (fresh processes)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="with --baseline: alternating runs per version and player count (the median counts)")
    parser.add_argument("--instructions", action="store_true",
                        help="count instructions per step under valgrind (deterministic, immune to machine load; "
                             "slow: use a few --games) instead of timing")
    args = parser.parse_args(argv)
    console = Console(width=200)
    if args.instructions:
        return instruction_report(args, console)
    title = f"env_speed: {args.games} random games per batch, best of {args.repeats} batches"
    if not args.baseline:
        rows = []
        with _progress(6 * args.repeats * len(args.players), "timing batches", "batches") as progress:
            for n in args.players:
                rows.append(measure(n, args.games, args.repeats, progress))
        table = Table(title=title)
        for col in COLUMNS:
            table.add_column(col, justify="right")
        for r in rows:
            table.add_row(*row_cells(r))
        console.print(table)
        return rows

    with checkouts(args.baseline, prefix="clans-env-baseline-") as versions:
        runs = {(name, n): [] for name in versions for n in args.players}
        with _progress(2 * args.rounds * len(args.players), "timing (fresh process per run)", "runs") as progress:
            for _ in range(args.rounds):
                for n in args.players:
                    for name, path in versions.items():
                        runs[(name, n)].append(
                            measure_in(path, "env_speed", f"measure({n}, {args.games}, {args.repeats})"))
                        progress.update(1)
        rows = {name: [median_row(runs[(name, n)]) for n in args.players] for name in versions}
        table = Table(title=f"{title}; baseline = {args.baseline}; median of {args.rounds} alternating runs")
        table.add_column("version")
        for col in COLUMNS:
            table.add_column(col, justify="right")
        for name in versions:
            for r in rows[name]:
                table.add_row(name, *row_cells(r))
        console.print(table)
        ratios = Table(title="current / baseline, same run (below 1: the current version is cheaper)")
        for col in ("players", "encode us", "raw_env us/step", "env() us/step", "raw_env / engine",
                    "env() / engine"):
            ratios.add_column(col, justify="right")
        for b, c in zip(rows["baseline"], rows["current"]):
            ratios.add_row(str(c["players"]), f"{c['encode_us'] / b['encode_us']:.2f}",
                           f"{c['raw_us'] / b['raw_us']:.2f}", f"{c['env_us'] / b['env_us']:.2f}",
                           f"{b['raw_ratio']:.2f}x -> {c['raw_ratio']:.2f}x", f"{b['ratio']:.2f}x -> {c['ratio']:.2f}x")
        console.print(ratios)
        return rows["current"]


def instruction_report(args, console: Console) -> list[dict]:
    if shutil.which("valgrind") is None:
        raise SystemExit("--instructions needs valgrind (apt-get install valgrind)")
    with checkouts(args.baseline, prefix="clans-env-baseline-") as versions:
        for path in versions.values():       # compile first, so no count includes compiling a module
            subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(path, "clans_env"),
                            os.path.join(ROOT, "benchmarks")], check=True, capture_output=True)
        rows = {}
        with _progress(len(versions) * len(args.players) * len(WORKLOADS), "valgrind runs (2 each)",
                      "loops") as progress:
            for name, path in versions.items():
                rows[name] = [instructions_per_step(path, n, args.games, progress) for n in args.players]
    table = Table(title=f"env_speed --instructions: thousand instructions per step, {args.games} games "
                        f"(cachegrind; count with the games minus count without)")
    for col in ("version", "players", "engine", "encode", "raw_env", "env()", "raw_env / engine", "env() / engine"):
        table.add_column(col, justify="right")
    for name, version_rows in rows.items():
        for r in version_rows:
            table.add_row(name, str(r["players"]), f"{r['engine'] / 1e3:.0f}", f"{r['encode'] / 1e3:.0f}",
                          f"{r['raw_env'] / 1e3:.0f}", f"{r['env'] / 1e3:.0f}", f"{r['raw_ratio']:.2f}x",
                          f"{r['ratio']:.2f}x")
    console.print(table)
    return rows["current"]


if __name__ == "__main__":
    main()
