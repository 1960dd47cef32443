"""Tournaments between any agents given as specs (``agents.make``): round-robin or gauntlet,
seats rotated, games in parallel processes, win rates with 95% Wilson intervals, mean scores,
OpenSkill ratings, and results saved as JSON / CSV / PNG with a replay file per game.

    >>> result = run_tournament(["random", "heuristic", "mcts:sims=50"], games_per_pairing=4,
    ...                         seed=1, workers=2, out_dir="runs/tournament")   # doctest: +SKIP
    >>> print_report(result)                                                     # doctest: +SKIP

Schedule. A *lineup* is a set of ``num_players`` different agents (round-robin: every such
set; gauntlet: the first agent against every set of the others). Each lineup is played in all
``num_players`` cyclic seatings on the **same deal** (same game seed), so every agent plays
every position and luck of the deal cancels within the lineup; that block is repeated
``games_per_pairing / num_players`` times (rounded up) with fresh deals.

Reproducibility. Game ``i`` gets its game seed and its agents' seeds from the tournament seed,
and results are gathered in game order whatever the worker count, so the same call gives the
same games, scores and ratings (agents budgeted in seconds, e.g. ``mcts:seconds=1``, are the
exception: their play depends on machine speed).

Failures. Every game runs under a guard: an agent that raises (also while being built),
returns an illegal action, exceeds the per-move time limit (``move_time_limit`` seconds, default
60, None = off) or whose worker process dies forfeits that game. The game is recorded as failed
(agent, seat, spec, game index, error, game and agent seeds to reproduce it), is left out of the
standings and ratings (each agent's ``forfeits`` counts them), and the rest of the schedule goes
on. The time limit is enforced with ``SIGALRM`` around every ``act()`` (in worker processes, and
in-process when running in the main thread); in worker processes the parent also kills a worker
whose move overruns the limit by a grace period (an agent stuck in C code that the alarm cannot
interrupt) and starts a new one. results.json, standings.csv and games.csv are rewritten as games
finish, and ``resume=True`` continues an interrupted tournament from its results.json, playing
only the games it lacks: the final results equal an uninterrupted run's (each kept game is checked
against its replay file; see ``load_for_resume``). Worker processes end when the tournament's
process does, however it ends (``training.orphans``).
"""
from __future__ import annotations

import copy
import csv
import io
import itertools
import json
import math
import multiprocessing as mp
import os
import signal
import threading
import time
import traceback
from collections import deque
from dataclasses import asdict, dataclass, field, fields
from multiprocessing.connection import wait as mp_wait
from pathlib import Path

from agents.threads import limit_torch_threads, threads_per_worker
from clans_env.engine import Game, GameConfig, IllegalActionError
from clans_env.engine.game import atomic_write_text

from .orphans import exit_with_parent, parent_token
from .progress import Progress, say
from .ratings import RatingTable, mean_interval, wilson_interval

MODES = ("round-robin", "gauntlet")
#: the README's main job: a short default tournament (a few minutes on 2 cores)
QUICK_AGENTS = ("random", "heuristic", "mcts:sims=50")
QUICK_GAMES_PER_PAIRING = 8
#: default per-move time limit (seconds): generous, it only stops agents that hang
DEFAULT_MOVE_TIME_LIMIT = 60.0
#: how long past the limit a worker's move may run before the parent kills the worker
KILL_GRACE = 2.0


@dataclass
class GameJob:
    index: int
    game_seed: int
    specs: list            # agent spec per seat
    names: list            # agent name per seat (unique within the tournament)
    agent_seeds: list
    config: dict           # GameConfig fields (seed replaced by game_seed)
    replay_path: str | None
    move_time_limit: float | None = None
    #: per seat, an Agent object given to run_tournament instead of a spec (None: build from the spec);
    #: each game plays a fresh copy of it, reseeded, so it travels to worker processes by pickling
    objects: list | None = None


@dataclass
class GameResult:
    index: int
    game_seed: int
    names: list
    scores: list = field(default_factory=list)     # final score sheet per seat ([] if failed)
    totals: list = field(default_factory=list)
    ranks: list = field(default_factory=list)
    decisions: list = field(default_factory=list)  # decisions taken per seat
    think_seconds: list = field(default_factory=list)   # total time per seat inside act()
    num_actions: int = 0
    replay_path: str | None = None
    status: str = "ok"                             # "ok" or "failed"
    failure: dict | None = None                    # see game_failure()

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @classmethod
    def from_dict(cls, d: dict) -> "GameResult":
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in names})


@dataclass
class TournamentResult:
    agents: list           # names, in the order given
    specs: dict            # name -> spec
    num_players: int
    mode: str
    seed: int
    games: list = field(default_factory=list)       # GameResult, in game order
    standings: list = field(default_factory=list)   # per agent summary rows (best first)
    head_to_head: dict = field(default_factory=dict)
    ratings: dict = field(default_factory=dict)
    rating_history: list = field(default_factory=list)
    seconds: float = 0.0
    out_dir: str | None = None
    files: dict = field(default_factory=dict)
    failures: list = field(default_factory=list)    # the failure record of every failed game
    games_total: int = 0                            # games in the schedule
    complete: bool = True                           # False while (or if) games are missing
    params: dict = field(default_factory=dict)      # what defines the schedule (checked on resume)

    def to_dict(self) -> dict:
        d = asdict(self)
        return d


# ------------------------------------------------------------------------------------------------
# schedule
def agent_label(agent) -> str:
    """The name an Agent object given to run_tournament goes by in the results: its spec when it was
    built from one, else ``object:<module>.<class>``."""
    spec = getattr(agent, "spec", None)
    return spec if isinstance(spec, str) and spec else f"object:{type(agent).__module__}.{type(agent).__qualname__}"


def unique_names(specs) -> list[str]:
    """Agent names for the tables: the spec itself, with #2, #3 for repeated specs."""
    seen: dict[str, int] = {}
    out = []
    for s in specs:
        s = s.strip()
        seen[s] = seen.get(s, 0) + 1
        out.append(s if seen[s] == 1 else f"{s}#{seen[s]}")
    return out


def schedule(num_agents: int, num_players: int, mode: str, games_per_pairing: int) -> list[tuple[int, list[int]]]:
    """(deal number, agent index per seat) for every game, in order."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES} (got {mode!r})")
    if num_agents < 2:
        raise ValueError(f"a tournament needs at least 2 agents (got {num_agents})")
    # both modes seat num_players different agents in a game; a spec listed twice counts as two
    copies = " ".join(["heuristic"] * (num_players - 1))
    if mode == "round-robin":
        if num_agents < num_players:
            raise ValueError(f"round-robin with {num_players} players per game needs at least {num_players} agents "
                             f"(got {num_agents}): list an agent more than once to seat copies of it, e.g. "
                             f"clans tournament random {copies} --players {num_players} (in Python: the same spec "
                             f"twice in the list)")
        lineups = [list(c) for c in itertools.combinations(range(num_agents), num_players)]
    else:
        if num_agents - 1 < num_players - 1:
            raise ValueError(f"a gauntlet with {num_players} players per game needs at least {num_players - 1} "
                             f"opponents after the challenger (got {num_agents - 1}): list an opponent more than "
                             f"once to seat copies of it, e.g. clans tournament random {copies} --players "
                             f"{num_players} --mode gauntlet")
        lineups = [[0, *c] for c in itertools.combinations(range(1, num_agents), num_players - 1)]
    blocks = max(1, math.ceil(games_per_pairing / num_players))
    out = []
    deal = 0
    for _ in range(blocks):
        for lineup in lineups:
            for r in range(num_players):
                out.append((deal, lineup[r:] + lineup[:r]))
            deal += 1
    return out


def _derive_seed(*parts: int) -> int:
    """A 31-bit seed from integers (stable across Python versions and processes)."""
    h = 0x9E3779B97F4A7C15
    for p in parts:
        h ^= (int(p) + 0x632BE59BD9B4E019 + (h << 6) + (h >> 2)) & 0xFFFFFFFFFFFFFFFF
        h = (h * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    return int(h >> 33)


# ------------------------------------------------------------------------------------------------
# one game
class MoveTimeout(BaseException):
    """An agent's act() ran past the per-move time limit (a BaseException, so that an agent's own
    ``except Exception`` does not swallow it)."""


class AgentFault(Exception):
    """An agent failed a game: ``seat``, ``kind`` (exception, illegal action, timeout) and the
    error text."""

    def __init__(self, seat: int, kind: str, error: str):
        super().__init__(f"seat {seat}: {kind}: {error}")
        self.seat, self.kind, self.error = seat, kind, error


def _alarm(signum, frame):
    raise MoveTimeout()


class _MoveTimer:
    """SIGALRM-based per-move time limit (main thread only; elsewhere it does nothing) that also
    publishes the move's start time and seat in ``state`` (a shared array, for the parent's
    watchdog over worker processes)."""

    def __init__(self, limit: float | None, state=None):
        self.limit = limit if limit and limit > 0 else None
        self.state = state
        self.armed = self.limit is not None and threading.current_thread() is threading.main_thread()
        self._old = None
        self.seat = None

    def __enter__(self):
        if self.armed:
            # a caller's own alarm (e.g. a test timeout) is suspended for the game and restored after
            self._outer = signal.setitimer(signal.ITIMER_REAL, 0)
            self._entered = time.monotonic()
            self._old = signal.signal(signal.SIGALRM, _alarm)
        return self

    def __exit__(self, *exc):
        if self.armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._old if self._old is not None else signal.SIG_DFL)
            remaining, interval = self._outer
            if remaining > 0:
                left = remaining - (time.monotonic() - self._entered)
                signal.setitimer(signal.ITIMER_REAL, max(left, 1e-3), interval)
        if self.state is not None:
            self.state[0] = 0.0
        return False

    def start(self, seat: int) -> None:
        self.seat = seat
        if self.state is not None:
            self.state[1] = seat
            self.state[0] = time.monotonic()
        if self.armed:
            signal.setitimer(signal.ITIMER_REAL, self.limit)

    def stop(self) -> None:
        if self.armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
        if self.state is not None:
            self.state[0] = 0.0


def _error_text(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}" if str(e) else type(e).__name__


def play_game(agents, config: GameConfig, move_time_limit: float | None = None, state=None):
    """Play one game with ``agents[seat]``; returns (game, decisions per seat, seconds per seat).

    Raises ``AgentFault`` naming the seat when an agent raises, exceeds ``move_time_limit``
    seconds in one ``act()`` or returns an illegal action."""
    game = Game(config)
    n = config.num_players
    decisions = [0] * n
    seconds = [0.0] * n
    perf = time.perf_counter
    with _MoveTimer(move_time_limit, state) as timer:
        try:
            while not game.is_terminal():
                p = game.current_player
                t = perf()
                timer.start(p)
                try:
                    action = agents[p].act(game)
                    timer.stop()
                except Exception as e:
                    timer.stop()
                    raise AgentFault(p, "exception", f"act() raised {_error_text(e)} (decision {decisions[p] + 1})"
                                                     f"\n{traceback.format_exc(limit=-8)}") from None
                seconds[p] += perf() - t
                decisions[p] += 1
                try:
                    game.apply(action)
                except IllegalActionError as e:
                    raise AgentFault(p, "illegal action", f"returned {action!r} (decision {decisions[p]}): {e}") \
                        from None
                except Exception as e:
                    raise AgentFault(p, "exception", f"applying its action {action!r} raised {_error_text(e)}\n"
                                                     f"{traceback.format_exc(limit=-8)}") from None
        except MoveTimeout:                  # from act(), or a moment after it (the alarm is asynchronous)
            timer.stop()
            raise AgentFault(timer.seat, "timeout", f"act() ran past the per-move time limit of "
                                                    f"{move_time_limit:g} s") from None
    return game, decisions, seconds


def game_failure(job: GameJob, seat: int | None, kind: str, error: str) -> dict:
    """The record of a failed game: which agent (seat, name, spec), which game, the error and the
    seeds that reproduce it, plus a one-line ``message`` naming the agent and the game."""
    name = job.names[seat] if seat is not None else None
    spec = job.specs[seat] if seat is not None else None
    who = f"agent {name!r} (seat {seat}, spec {spec!r})" if seat is not None else "no agent was moving"
    first = error.strip().splitlines()[0] if error.strip() else kind
    return {"game": job.index, "agent": name, "seat": seat, "spec": spec, "kind": kind, "error": error.strip(),
            "game_seed": job.game_seed, "agent_seeds": list(job.agent_seeds), "specs": list(job.specs),
            "message": f"game {job.index} (game seed {job.game_seed}, agent seeds {list(job.agent_seeds)}): {who} "
                       f"forfeits: {kind}: {first}"}


def failed_result(job: GameJob, seat: int | None, kind: str, error: str) -> GameResult:
    return GameResult(index=job.index, game_seed=job.game_seed, names=list(job.names), replay_path=None,
                      status="failed", failure=game_failure(job, seat, kind, error))


def run_job(job: GameJob, state=None) -> GameResult:
    """Play one scheduled game (in a worker process or inline) and write its replay file. Never
    raises for an agent's fault: a failed game comes back as a result with status "failed"."""
    from agents import make

    # the job's seed unless the spec fixes one (e.g. "mcts:sims=50,seed=3")
    agents = []
    try:
        for seat, (spec, s) in enumerate(zip(job.specs, job.agent_seeds)):
            if state is not None:                # -1: building seat's agent (for a death's message)
                state[1], state[0] = seat, -1.0
            try:
                given = job.objects[seat] if job.objects else None
                if given is None:
                    agents.append(make(spec, seed=s))
                else:
                    agent = copy.deepcopy(given)
                    agent.reset(s)
                    agents.append(agent)
            except Exception as e:
                return failed_result(job, seat, "exception", f"could not be built: {_error_text(e)}")
            finally:
                if state is not None:
                    state[0] = 0.0
        from agents.automa_seat import automa_levels
        automa = automa_levels(agents)       # automa:level=N participants are Automa seats of the game
        extra = {"automa": {**(job.config.get("automa") or {}), **automa}} if automa else {}
        try:
            config = GameConfig.from_dict({**job.config, "seed": job.game_seed, **extra})
        except ValueError as e:
            return failed_result(job, None, "configuration", f"this lineup cannot be played: {e}")
        try:
            game, decisions, seconds = play_game(agents, config, job.move_time_limit, state)
        except AgentFault as f:
            return failed_result(job, f.seat, f.kind, f.error)
    finally:
        for a in agents:
            close = getattr(a, "close", None)
            if close:
                try:
                    close()
                except Exception:
                    pass
    scores = game.final_scores()
    result = GameResult(index=job.index, game_seed=job.game_seed, names=list(job.names), scores=scores,
                        totals=[r["total"] for r in scores], ranks=[r["rank"] for r in scores],
                        decisions=decisions, think_seconds=[round(s, 4) for s in seconds],
                        num_actions=len(game.history), replay_path=job.replay_path)
    if job.replay_path:
        doc = {"format": "clans-of-caledonia-replay", "version": 1, "game_index": job.index,
               "agents": list(job.specs), "names": list(job.names), "agent_seeds": list(job.agent_seeds),
               "record": game.record(), "final_scores": scores}
        atomic_write_text(job.replay_path, json.dumps(doc, separators=(",", ":")))
    return result


# ------------------------------------------------------------------------------------------------
# the tournament
def run_tournament(agent_specs, num_players: int = 2, games_per_pairing: int = 2, mode: str = "round-robin",
                   seed: int = 0, workers: int = 2, out_dir=None, progress: bool = True,
                   config: dict | None = None, max_games: int | None = None,
                   move_time_limit: float | None = DEFAULT_MOVE_TIME_LIMIT, resume: bool = False,
                   retry_failed: bool = False, executor=None) -> TournamentResult:
    """Play the schedule (see the module docstring) and return the results; with ``out_dir``
    also write results.json, games.csv, standings.csv, ratings.png and replays/ (the first three
    rewritten as games finish).

    games_per_pairing: games per lineup (rounded up to a multiple of num_players so that seats
        rotate fully).
    config: extra GameConfig fields for every game (e.g. {"clan_selection": "draft"}).
    max_games: stop the schedule after this many games (for smoke tests).
    move_time_limit: seconds an agent may take for one move before it forfeits (None: no limit).
    resume: continue the tournament whose results.json is in ``out_dir`` (same agents, players,
        mode, seed, games per pairing and config): only the games it lacks are played.
    retry_failed: with ``resume``, play the failed games again too.
    executor: play the games elsewhere: a callable ``executor(run_job, jobs)`` yielding GameResults
        in any order (e.g. ``training.ray_backend.TournamentExecutor``); ``workers`` is then unused.
    """
    from agents import parse_spec
    from agents.registry import load_check

    if num_players not in (2, 3, 4):
        raise ValueError(f"tournament games have 2, 3 or 4 players (got num_players={num_players!r}); solo "
                         "scores are benchmarked by training.benchmarks.solo / clans benchmark strength")
    objects = [None if isinstance(a, str) else a for a in agent_specs]
    specs = [a.strip() if isinstance(a, str) else agent_label(a) for a in agent_specs]
    for s, obj in zip(specs, objects):
        if obj is None:
            load_check(s)                  # fail fast, before any process starts
        elif not callable(getattr(obj, "act", None)):
            raise ValueError(f"run_tournament takes agent specs or Agent objects (with act(game)); got {obj!r}")
    names = unique_names(specs)
    base_config = dict(config or {})
    base_config["num_players"] = num_players
    GameConfig.from_dict({**base_config, "seed": 0})        # validate the configuration
    if move_time_limit is not None and not move_time_limit > 0:
        raise ValueError(f"move_time_limit must be a positive number of seconds or None (got {move_time_limit!r})")
    plan = schedule(len(specs), num_players, mode, games_per_pairing)
    if max_games is not None:
        plan = plan[:max_games]
    automa = [obj is None and parse_spec(s)[0] == "automa" for s, obj in zip(specs, objects)]
    if any(all(automa[k] for k in seats) for _, seats in plan):
        raise ValueError("the Automa (automa:level=N) plays against players: a schedule whose games seat only "
                         "Automas cannot be played (use mode='gauntlet' with a player first, or one Automa)")
    params = {"agents": specs, "num_players": num_players, "mode": mode, "seed": seed,
              "games_per_pairing": games_per_pairing, "config": dict(config or {})}
    replay_dir = None
    if resume and out_dir is None:
        raise ValueError("resume needs the out_dir of the tournament to continue")
    if out_dir is not None:
        out_dir = Path(out_dir)
        replay_dir = out_dir / "replays"
        replay_dir.mkdir(parents=True, exist_ok=True)
        for folder in (out_dir, replay_dir):        # temporary files of writes a kill interrupted
            for f in folder.glob(".tmp-*"):
                try:
                    f.unlink()
                except OSError:
                    pass
    jobs = []
    for i, (deal, seats) in enumerate(plan):
        game_seed = _derive_seed(seed, deal)
        jobs.append(GameJob(
            index=i, game_seed=game_seed, specs=[specs[k] for k in seats], names=[names[k] for k in seats],
            agent_seeds=[_derive_seed(seed, i, seat, 7) for seat in range(num_players)], config=base_config,
            replay_path=str(replay_dir / f"game_{i:05d}.json") if replay_dir else None,
            move_time_limit=move_time_limit,
            objects=[objects[k] for k in seats] if any(o is not None for o in objects) else None))
    done: dict[int, GameResult] = {}
    seconds_before = 0.0
    if resume:
        done, seconds_before = load_for_resume(out_dir, params, jobs, retry_failed)
    todo = [job for job in jobs if job.index not in done]
    t0 = time.perf_counter()
    spec_of = dict(zip(names, specs))

    def build(complete: bool) -> TournamentResult:
        r = summarise([done[i] for i in sorted(done)], names, spec_of, num_players, mode, seed)
        r.seconds = seconds_before + time.perf_counter() - t0
        r.games_total, r.complete, r.params = len(jobs), complete, params
        if out_dir is not None:
            r.out_dir = str(out_dir)
        return r

    saver = _IncrementalSaver(out_dir, build) if out_dir is not None else None
    finished = False
    try:
        for r in _run_jobs(todo, workers, progress, names, done, executor):
            done[r.index] = r
            if not r.ok:
                _say(r.failure["message"], progress)
            if saver is not None:
                saver.game_done()
        finished = True
    finally:
        if saver is not None and not finished:
            saver.flush(complete=False)             # interrupted: keep every game played
    result = build(complete=len(done) == len(jobs))
    if out_dir is not None:
        save_results(result, out_dir)
    return result


def _say(text: str, progress: bool) -> None:
    """A line on stderr (above the progress bar when it is shown)."""
    say(text)


class _IncrementalSaver:
    """Rewrites results.json, standings.csv and games.csv (atomically) after every finished game;
    when a rewrite takes long (big tournaments), waits so that writing stays under ~10% of the
    wall time. ``flush`` writes whatever is pending (at the end, or on an interruption)."""

    def __init__(self, out_dir, build):
        self.out_dir, self.build = out_dir, build
        self.pending = False
        self.last_end = 0.0
        self.last_cost = 0.0

    def game_done(self) -> None:
        self.pending = True
        if time.perf_counter() - self.last_end >= 10 * self.last_cost:
            self.flush(complete=False)

    def flush(self, complete: bool) -> None:
        if not self.pending and not complete:
            return
        t = time.perf_counter()
        save_results(self.build(complete), self.out_dir, plot=False)
        self.last_end = time.perf_counter()
        self.last_cost = self.last_end - t
        self.pending = False


def load_for_resume(out_dir, params: dict, jobs, retry_failed: bool = False) -> tuple[dict, float]:
    """The games already played by the tournament in ``out_dir`` ({index: GameResult}) and its
    seconds so far; raises ``ValueError`` when results.json is missing, belongs to another
    tournament (other agents, players, mode, seed, games per pairing or game config), contradicts
    its own params, or has a finished game whose row differs from its replay file. A finished game
    without its replay file is left out (played again)."""
    path = Path(out_dir) / "results.json"
    if not path.is_file():
        raise ValueError(f"cannot resume: {str(path)!r} does not exist (start the tournament without --resume)")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ValueError(f"cannot resume: {str(path)!r} is not readable JSON ({e})") from None
    if not isinstance(doc, dict):
        raise ValueError(f"cannot resume: {str(path)!r} is not a tournament's results.json")
    stored = doc.get("params") or {}
    diff = [f"{k}: {stored.get(k)!r} in the file, {v!r} now" for k, v in params.items() if stored.get(k) != v]
    if diff:
        raise ValueError(f"cannot resume from {str(path)!r}: it is another tournament ({'; '.join(diff)})")
    # the summary's copies of the schedule's parameters: a resume rewrites them, so one edited to
    # disagree with params would otherwise be silently overwritten
    diff = [f"{k} is {doc.get(k)!r} but params.{k} is {params[k]!r}" for k in ("seed", "num_players", "mode")
            if doc.get(k) != params[k]]
    if diff:
        raise ValueError(f"cannot resume from {str(path)!r}: the file contradicts itself ({'; '.join(diff)}); "
                         f"it was edited or damaged")
    done = {}
    by_index = {job.index: job for job in jobs}
    for d in doc.get("games", []):
        try:
            r = GameResult.from_dict(d)
        except TypeError as e:
            raise ValueError(f"cannot resume from {str(path)!r}: a game row is malformed ({e})") from None
        job = by_index.get(r.index)
        if job is None:
            continue                                     # beyond a smaller max_games now
        if r.game_seed != job.game_seed or list(r.names) != list(job.names):
            raise ValueError(f"cannot resume from {str(path)!r}: game {r.index} there has seed {r.game_seed} and "
                             f"seats {r.names}, the schedule has {job.game_seed} and {job.names}")
        if r.ok:
            if not _matches_replay(r, job, path):
                continue                                 # no replay to vouch for it: played again
            r.replay_path = job.replay_path
        if r.ok or not retry_failed:
            done[r.index] = r
    return done, float(doc.get("seconds") or 0.0)


def _matches_replay(r: GameResult, job: GameJob, path) -> bool:
    """Whether the finished game ``r`` of results.json ``path`` has its replay file; raises
    ``ValueError`` naming the game when the row's scores, totals, ranks or seats differ from the
    replay's (results.json was edited: the standings would be wrong)."""
    try:
        replay = json.loads(Path(job.replay_path).read_text(encoding="utf-8"))
        sheets = replay["final_scores"]
        recorded = {"names": replay["names"], "game_seed": replay["record"]["config"]["seed"],
                    "totals": [s["total"] for s in sheets], "ranks": [s["rank"] for s in sheets],
                    "num_actions": len(replay["record"]["actions"]), "scores": sheets}
    except (OSError, ValueError, TypeError, KeyError):
        return False
    row = {"names": list(r.names), "game_seed": r.game_seed, "num_actions": r.num_actions, "scores": r.scores,
           "totals": r.totals, "ranks": r.ranks}
    wrong = [f"{k} {row[k]!r} (replay: {v!r})" for k, v in recorded.items() if row[k] != v]
    if wrong:
        raise ValueError(f"cannot resume from {str(path)!r}: game {r.index}'s row does not match its replay "
                         f"{job.replay_path!r}: {'; '.join(wrong[:3])}; restore the file or delete that row "
                         f"(the game is then played again)")
    return True


# ------------------------------------------------------------------------------------------------
# running the games: in this process, or in worker processes watched for hangs and deaths
def _run_jobs(jobs, workers: int, progress: bool, names, done: dict | None = None, executor=None):
    """Yield a GameResult per job as games finish (a failed game is a result too)."""
    tally = {n: 0.0 for n in names}
    for r in (done or {}).values():
        _leader_text(tally, r)
    with Progress(len(jobs), "tournament", "games", enabled=progress) as bar:
        if executor is not None:
            for r in executor(run_job, jobs):
                bar.update(text=_leader_text(tally, r))
                yield r
        elif workers <= 1 or len(jobs) <= 1:
            for job in jobs:
                r = run_job(job)
                bar.update(text=_leader_text(tally, r))
                yield r
        else:
            with _WorkerPool(min(workers, len(jobs))) as pool:
                for r in pool.run(jobs):
                    bar.update(text=_leader_text(tally, r))
                    yield r


def _worker_main(conn, state, parent, inherited, threads: int = 1) -> None:
    exit_with_parent(parent)
    limit_torch_threads(threads)        # the workers share the cores (agents/threads.py)
    # a forked worker holds copies of the parent's ends of its own and its siblings' pipes: with
    # them open, its read would never see EOF once the parent is gone
    for c in inherited:
        c.close()
    signal.signal(signal.SIGINT, signal.SIG_IGN)        # Ctrl-C is the parent's to handle
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        conn.send(run_job(job, state))


class _Worker:
    def __init__(self, ctx, siblings=(), threads: int = 1):
        self.conn, child = ctx.Pipe()
        self.state = ctx.Array("d", 2, lock=False)     # [start of the current move (monotonic) or 0, seat]
        inherited = [self.conn, *(w.conn for w in siblings)] if ctx.get_start_method() == "fork" else []
        self.proc = ctx.Process(target=_worker_main, args=(child, self.state, parent_token(), inherited, threads))   # not daemonic: agents may start processes (mcts:workers=)
        self.proc.start()
        child.close()
        self.job: GameJob | None = None

    def kill(self) -> None:
        try:
            self.proc.kill()
        except (OSError, AttributeError):
            pass
        self.proc.join(5)
        self.conn.close()


class _WorkerPool:
    """Worker processes playing one game at a time each. A worker that dies fails its game
    ("worker died", naming the agent that was moving); one whose move overruns the time limit by
    ``KILL_GRACE`` seconds (the in-worker alarm could not stop it) is killed and fails its game
    ("timeout"); either way a fresh worker takes its place and the schedule goes on."""

    def __init__(self, n: int):
        self.ctx = mp.get_context()
        self.threads = threads_per_worker(n)
        self.workers = []
        for _ in range(n):
            self.workers.append(_Worker(self.ctx, self.workers, self.threads))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for w in self.workers:
            if exc[0] is None and w.proc.is_alive():
                try:
                    w.conn.send(None)
                except OSError:
                    pass
        for w in self.workers:
            if exc[0] is None:
                w.proc.join(5)
            if w.proc.is_alive():
                w.kill()
        return False

    def _replace(self, w: _Worker) -> None:
        w.kill()
        self.workers[self.workers.index(w)] = _Worker(self.ctx, [o for o in self.workers if o is not w], self.threads)

    def run(self, jobs):
        queue = deque(jobs)
        while queue or any(w.job is not None for w in self.workers):
            for w in self.workers:
                if w.job is None and queue:
                    w.job = queue.popleft()
                    w.state[0] = 0.0
                    try:
                        w.conn.send(w.job)
                    except OSError:
                        pass                             # a dead worker: noticed below
            busy = [w for w in self.workers if w.job is not None]
            ready = set(mp_wait([w.conn for w in busy] + [w.proc.sentinel for w in busy], timeout=0.2))
            now = time.monotonic()
            for w in busy:
                job = w.job
                if w.conn in ready or w.proc.sentinel in ready:
                    try:
                        if w.conn.poll():
                            result = w.conn.recv()
                            w.job = None
                            yield result
                            continue
                    except (EOFError, OSError):
                        pass
                    if w.proc.is_alive() and w.proc.sentinel not in ready:
                        continue
                    w.proc.join(1)
                    seat = int(w.state[1]) if w.state[0] != 0 else None
                    code = w.proc.exitcode
                    self._replace(w)
                    yield failed_result(job, seat, "worker died",
                                        f"the worker process playing the game died (exit code {code})"
                                        + ("" if seat is not None else " between moves"))
                    continue
                limit = job.move_time_limit
                started = w.state[0]
                if limit and started > 0 and now - started > limit + KILL_GRACE:
                    seat = int(w.state[1])
                    self._replace(w)
                    yield failed_result(job, seat, "timeout",
                                        f"act() ran past the per-move time limit of {limit:g} s and did not stop "
                                        f"(worker killed after {now - started:.1f} s)")


def _leader_text(tally: dict, r: GameResult) -> str:
    if not r.ok:
        return f"game {r.index} failed: {r.failure['agent']}"
    for name, share in zip(r.names, win_shares(r.ranks)):
        tally[name] += share
    leader = max(tally, key=tally.get)
    return f"leader: {leader} ({tally[leader]:g} wins)"


# ------------------------------------------------------------------------------------------------
# summaries
def win_shares(ranks: list[int]) -> list[float]:
    """1 for a sole winner, 1/k each for a k-way tie for first, 0 otherwise (the engine's ranks
    already break VP ties by money left)."""
    firsts = ranks.count(1)
    return [1.0 / firsts if r == 1 else 0.0 for r in ranks]


def summarise(results: list[GameResult], names, specs: dict, num_players: int, mode: str, seed: int) \
        -> TournamentResult:
    out = TournamentResult(agents=list(names), specs=specs, num_players=num_players, mode=mode, seed=seed,
                           games=results)
    per = {n: {"wins": 0.0, "games": 0, "scores": [], "ranks": [], "margins": [], "decisions": 0,
               "seconds": 0.0, "forfeits": 0} for n in names}
    h2h = {a: {b: [0.0, 0] for b in names if b != a} for a in names}
    ratings = RatingTable(names)
    for r in results:
        if not r.ok:                      # a forfeit is no playing result: not in the standings or ratings
            out.failures.append(r.failure)
            if r.failure.get("agent") in per:
                per[r.failure["agent"]]["forfeits"] += 1
            continue
        shares = win_shares(r.ranks)
        for seat, name in enumerate(r.names):
            row = per[name]
            row["wins"] += shares[seat]
            row["games"] += 1
            row["scores"].append(r.totals[seat])
            row["ranks"].append(r.ranks[seat])
            if num_players > 1:
                row["margins"].append(r.totals[seat] - max(t for s, t in enumerate(r.totals) if s != seat))
            row["decisions"] += r.decisions[seat]
            row["seconds"] += r.think_seconds[seat]
            for other_seat, other in enumerate(r.names):
                if other != name:
                    ahead = r.ranks[seat] < r.ranks[other_seat]
                    tie = r.ranks[seat] == r.ranks[other_seat]
                    h2h[name][other][0] += 1.0 if ahead else (0.5 if tie else 0.0)
                    h2h[name][other][1] += 1
        ratings.update(list(r.names), list(r.ranks))
    rating_table = ratings.table()
    standings = []
    for name in names:
        row = per[name]
        n = row["games"]
        lo, hi = wilson_interval(row["wins"], n)
        mean, mlo, mhi = mean_interval(row["scores"])
        standings.append({
            "agent": name, "spec": specs[name], "games": n, "wins": row["wins"],
            "win_rate": row["wins"] / n if n else float("nan"), "win_rate_ci95": [lo, hi],
            "mean_score": mean, "mean_score_ci95": [mlo, mhi],
            "mean_margin": mean_interval(row["margins"])[0] if row["margins"] else float("nan"),
            "mean_rank": sum(row["ranks"]) / n if n else float("nan"),
            "mu": rating_table[name]["mu"], "sigma": rating_table[name]["sigma"],
            "ordinal": rating_table[name]["ordinal"],
            "ms_per_decision": 1000 * row["seconds"] / row["decisions"] if row["decisions"] else 0.0,
            "forfeits": row["forfeits"],
        })
    standings.sort(key=lambda s: (-s["ordinal"], s["agent"]))
    out.standings = standings
    out.head_to_head = {a: {b: {"score": v[0], "games": v[1], "rate": v[0] / v[1] if v[1] else float("nan"),
                                "ci95": list(wilson_interval(v[0], v[1]))} for b, v in row.items() if v[1]}
                        for a, row in h2h.items()}
    out.ratings = rating_table
    out.rating_history = ratings.history
    return out


# ------------------------------------------------------------------------------------------------
# output
def save_results(result: TournamentResult, out_dir, plot: bool = True) -> dict:
    """results.json, standings.csv, games.csv and (with ``plot``) ratings.png under ``out_dir``
    (atomic writes)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    files = {"results": str(out_dir / "results.json"), "standings": str(out_dir / "standings.csv"),
             "games": str(out_dir / "games.csv"), "ratings_plot": str(out_dir / "ratings.png"),
             "replays": str(out_dir / "replays")}
    result.files = files
    atomic_write_text(files["results"], json.dumps(_finite(result.to_dict()), indent=1, allow_nan=False))
    buf = io.StringIO()
    cols = ["agent", "spec", "games", "wins", "win_rate", "win_rate_lo", "win_rate_hi", "mean_score", "mean_score_lo",
            "mean_score_hi", "mean_margin", "mean_rank", "mu", "sigma", "ordinal", "ms_per_decision", "forfeits"]
    w = csv.writer(buf)
    w.writerow(cols)
    for s in result.standings:
        w.writerow([s["agent"], s["spec"], s["games"], s["wins"], _r(s["win_rate"]), _r(s["win_rate_ci95"][0]),
                    _r(s["win_rate_ci95"][1]), _r(s["mean_score"]), _r(s["mean_score_ci95"][0]),
                    _r(s["mean_score_ci95"][1]), _r(s["mean_margin"]), _r(s["mean_rank"]), _r(s["mu"]),
                    _r(s["sigma"]), _r(s["ordinal"]), _r(s["ms_per_decision"]), s.get("forfeits", 0)])
    atomic_write_text(files["standings"], buf.getvalue())
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["game", "game_seed", "seat", "agent", "total", "rank", "decisions", "think_seconds", "num_actions",
                "replay", "status", "error"])
    for g in result.games:
        for seat, name in enumerate(g.names):
            if g.ok:
                w.writerow([g.index, g.game_seed, seat, name, g.totals[seat], g.ranks[seat], g.decisions[seat],
                            g.think_seconds[seat], g.num_actions, os.path.basename(g.replay_path or ""), "ok", ""])
            else:
                culprit = g.failure.get("seat") == seat
                w.writerow([g.index, g.game_seed, seat, name, "", "", "", "", "", "",
                            "forfeit" if culprit else "failed", g.failure["message"] if culprit else ""])
    atomic_write_text(files["games"], buf.getvalue())
    if plot:
        plot_ratings(result, files["ratings_plot"])
    return files


def _r(x, nd: int = 4):
    return round(x, nd) if isinstance(x, float) and not math.isnan(x) else x


def _finite(o):
    """NaN / inf (e.g. a margin with no opponent) become null: results.json stays strict JSON."""
    if isinstance(o, float):
        return o if math.isfinite(o) else None
    if isinstance(o, dict):
        return {k: _finite(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_finite(v) for v in o]
    return o


def plot_ratings(result: TournamentResult, path) -> None:
    """Rating (mu, with a +-sigma band) of every agent after each game, and final ordinals."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.2), gridspec_kw={"width_ratios": [3, 2]})
    xs = list(range(1, len(result.rating_history) + 1))
    colours = {}
    for name in result.agents:
        mu = [h[name][0] for h in result.rating_history]
        sd = [h[name][1] for h in result.rating_history]
        line, = ax.plot(xs, mu, label=name)
        colours[name] = line.get_color()
        ax.fill_between(xs, [m - s for m, s in zip(mu, sd)], [m + s for m, s in zip(mu, sd)],
                        color=line.get_color(), alpha=0.15)
    ax.set_xlabel("games played")
    ax.set_ylabel("OpenSkill mu (band: +-sigma)")
    ax.set_title(f"Ratings over the tournament ({len(result.rating_history)} games, {result.num_players} players)")
    ax.legend(fontsize=8)
    names = [s["agent"] for s in result.standings]
    ordinals = [s["ordinal"] for s in result.standings]
    wr = [s["win_rate"] for s in result.standings]
    bars = bx.barh(names[::-1], ordinals[::-1], color=[colours[n] for n in names[::-1]])
    bx.axvline(0, color="black", linewidth=0.6)
    for b, rate in zip(bars, wr[::-1]):
        bx.text(max(b.get_width(), 0), b.get_y() + b.get_height() / 2, f"  win {rate:.0%}", va="center",
                fontsize=8)
    bx.set_xlabel("ordinal (mu - 3 sigma)")
    bx.set_title("Final ratings")
    fig.tight_layout()
    tmp = Path(path).with_name(f".tmp-{os.getpid()}-{Path(path).name}")
    fig.savefig(tmp, dpi=110, format="png")
    plt.close(fig)
    os.replace(tmp, path)


def report_table(result: TournamentResult):
    """The standings as a rich Table."""
    from rich.table import Table

    played = sum(1 for g in result.games if g.ok)
    failed = len(result.games) - played
    t = Table(title=f"{result.mode} tournament: {played} games" + (f" (+{failed} failed)" if failed else "")
                    + f", {result.num_players} players, seed {result.seed} ({result.seconds:.0f} s)")
    for col in ("agent", "games", "win rate [95% CI]", "mean VP [95% CI]", "margin", "rank", "OpenSkill mu+-sigma",
                "ordinal", "ms/move"):
        t.add_column(col, justify="left" if col == "agent" else "right")
    for s in result.standings:
        lo, hi = s["win_rate_ci95"]
        mlo, mhi = s["mean_score_ci95"]
        t.add_row(s["agent"], str(s["games"]), f"{s['win_rate']:.0%} [{lo:.0%}, {hi:.0%}]",
                  f"{s['mean_score']:.1f} [{mlo:.0f}, {mhi:.0f}]", f"{s['mean_margin']:+.1f}", f"{s['mean_rank']:.2f}",
                  f"{s['mu']:.1f}+-{s['sigma']:.1f}", f"{s['ordinal']:.1f}", f"{s['ms_per_decision']:.1f}")
    return t


def head_to_head_table(result: TournamentResult):
    """Row agent's share of games finishing ahead of the column agent (ties count half)."""
    from rich.table import Table

    names = [s["agent"] for s in result.standings]
    t = Table(title="head to head: row finishes ahead of column (games)")
    t.add_column("")
    for n in names:
        t.add_column(n, justify="right")
    for a in names:
        cells = []
        for b in names:
            cell = result.head_to_head.get(a, {}).get(b)
            cells.append("-" if a == b or cell is None else f"{cell['rate']:.0%} ({cell['games']})")
        t.add_row(a, *cells)
    return t


def print_report(result: TournamentResult, console=None) -> None:
    from rich.console import Console

    if console is None:
        import shutil
        console = Console(width=max(shutil.get_terminal_size((140, 24)).columns, 120))
    console.print(report_table(result))
    if len(result.agents) > 2 or result.num_players > 2:
        console.print(head_to_head_table(result))
    if result.failures:
        console.print(f"[bold red]{len(result.failures)} failed game(s)[/] (left out of the standings and ratings; "
                      f"the agent forfeits):", highlight=False)
        for f in result.failures:
            console.print(f"  {f['message']}", highlight=False, markup=False)
    if not result.complete:
        console.print(f"incomplete: {len(result.games)} of {result.games_total} games; continue with --resume")
    if result.files:
        console.print(f"results: {result.files['results']}  standings: {result.files['standings']}  "
                      f"games: {result.files['games']}")
        console.print(f"ratings plot: {result.files['ratings_plot']}  replays: {result.files['replays']}/")
