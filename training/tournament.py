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
"""
from __future__ import annotations

import csv
import io
import itertools
import json
import math
import os
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path

from clans_env.engine import Game, GameConfig
from clans_env.engine.game import atomic_write_text

from .ratings import RatingTable, mean_interval, wilson_interval

MODES = ("round-robin", "gauntlet")
#: the README's main job: a short default tournament (a few minutes on 2 cores)
QUICK_AGENTS = ("random", "heuristic", "mcts:sims=50")
QUICK_GAMES_PER_PAIRING = 8


@dataclass
class GameJob:
    index: int
    game_seed: int
    specs: list            # agent spec per seat
    names: list            # agent name per seat (unique within the tournament)
    agent_seeds: list
    config: dict           # GameConfig fields (seed replaced by game_seed)
    replay_path: str | None


@dataclass
class GameResult:
    index: int
    game_seed: int
    names: list
    scores: list           # final score sheet per seat
    totals: list
    ranks: list
    decisions: list        # decisions taken per seat
    think_seconds: list    # total time per seat inside act()
    num_actions: int
    replay_path: str | None = None


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

    def to_dict(self) -> dict:
        d = asdict(self)
        return d


# ------------------------------------------------------------------------------------------------
# schedule
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
    if mode == "round-robin":
        if num_agents < num_players:
            raise ValueError(f"round-robin with {num_players} players per game needs at least {num_players} agents "
                             f"(got {num_agents})")
        lineups = [list(c) for c in itertools.combinations(range(num_agents), num_players)]
    else:
        if num_agents - 1 < num_players - 1:
            raise ValueError(f"a gauntlet with {num_players} players per game needs at least {num_players - 1} "
                             f"opponents after the challenger (got {num_agents - 1})")
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
def play_game(agents, config: GameConfig):
    """Play one game with ``agents[seat]``; returns (game, decisions per seat, seconds per seat)."""
    game = Game(config)
    n = config.num_players
    decisions = [0] * n
    seconds = [0.0] * n
    perf = time.perf_counter
    while not game.is_terminal():
        p = game.current_player
        t = perf()
        action = agents[p].act(game)
        seconds[p] += perf() - t
        decisions[p] += 1
        game.apply(action)
    return game, decisions, seconds


def run_job(job: GameJob) -> GameResult:
    """Play one scheduled game (in a worker process or inline) and write its replay file."""
    from agents import make

    # the job's seed unless the spec fixes one (e.g. "mcts:sims=50,seed=3")
    agents = [make(spec, seed=s) for spec, s in zip(job.specs, job.agent_seeds)]
    try:
        config = GameConfig.from_dict({**job.config, "seed": job.game_seed})
        game, decisions, seconds = play_game(agents, config)
    finally:
        for a in agents:
            close = getattr(a, "close", None)
            if close:
                close()
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
                   config: dict | None = None, max_games: int | None = None, executor=None) -> TournamentResult:
    """Play the schedule (see the module docstring) and return the results; with ``out_dir``
    also write results.json, games.csv, standings.csv, ratings.png and replays/.

    games_per_pairing: games per lineup (rounded up to a multiple of num_players so that seats
        rotate fully).
    config: extra GameConfig fields for every game (e.g. {"clan_selection": "draft"}).
    max_games: stop the schedule after this many games (for smoke tests).
    executor: play the games elsewhere: a callable ``executor(run_job, jobs)`` yielding GameResults
        in any order (e.g. ``training.ray_backend.TournamentExecutor``); ``workers`` is then unused.
    """
    from agents import parse_spec

    if num_players not in (2, 3, 4):
        raise ValueError(f"tournament games have 2, 3 or 4 players (got num_players={num_players!r}); solo "
                         "scores are benchmarked by training.benchmarks.solo / clans benchmark strength")
    specs = [s.strip() for s in agent_specs]
    for s in specs:
        parse_spec(s)                      # fail fast, before any process starts
    names = unique_names(specs)
    base_config = dict(config or {})
    base_config["num_players"] = num_players
    GameConfig.from_dict({**base_config, "seed": 0})        # validate the configuration
    plan = schedule(len(specs), num_players, mode, games_per_pairing)
    if max_games is not None:
        plan = plan[:max_games]
    replay_dir = None
    if out_dir is not None:
        out_dir = Path(out_dir)
        replay_dir = out_dir / "replays"
        replay_dir.mkdir(parents=True, exist_ok=True)
    jobs = []
    for i, (deal, seats) in enumerate(plan):
        game_seed = _derive_seed(seed, deal)
        jobs.append(GameJob(
            index=i, game_seed=game_seed, specs=[specs[k] for k in seats], names=[names[k] for k in seats],
            agent_seeds=[_derive_seed(seed, i, seat, 7) for seat in range(num_players)], config=base_config,
            replay_path=str(replay_dir / f"game_{i:05d}.json") if replay_dir else None))
    t0 = time.perf_counter()
    results = _run_jobs(jobs, workers, progress, names, executor)
    result = summarise(results, names, dict(zip(names, specs)), num_players, mode, seed)
    result.seconds = time.perf_counter() - t0
    if out_dir is not None:
        result.out_dir = str(out_dir)
        save_results(result, out_dir)
    return result


def _run_jobs(jobs, workers: int, progress: bool, names, executor=None) -> list[GameResult]:
    results: dict[int, GameResult] = {}
    bar = _progress_bar(len(jobs), progress)
    tally = {n: 0.0 for n in names}
    with bar as (advance):
        if executor is not None:
            for r in executor(run_job, jobs):
                results[r.index] = r
                advance(_leader_text(tally, r))
        elif workers <= 1 or len(jobs) == 1:
            for job in jobs:
                r = run_job(job)
                results[r.index] = r
                advance(_leader_text(tally, r))
        else:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                futures = [pool.submit(run_job, job) for job in jobs]
                for f in as_completed(futures):
                    r = f.result()
                    results[r.index] = r
                    advance(_leader_text(tally, r))
    return [results[i] for i in sorted(results)]


def _leader_text(tally: dict, r: GameResult) -> str:
    for name, share in zip(r.names, win_shares(r.ranks)):
        tally[name] += share
    leader = max(tally, key=tally.get)
    return f"leader: {leader} ({tally[leader]:g} wins)"


class _progress_bar:
    """A rich progress bar (games done, elapsed, remaining) that tolerates progress=False."""

    def __init__(self, total: int, enabled: bool, label: str = "tournament"):
        self.total = total
        self.enabled = enabled
        self.label = label

    def __enter__(self):
        if not self.enabled:
            return lambda text=None: None
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, \
            TimeRemainingColumn
        self._p = Progress(TextColumn(f"[bold]{self.label}"), BarColumn(), MofNCompleteColumn(), TextColumn("games"),
                           TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
                           TextColumn("{task.description}"))
        self._p.__enter__()
        self._task = self._p.add_task("", total=self.total)

        def advance(text=None):
            self._p.update(self._task, advance=1, description=text or "")
        return advance

    def __exit__(self, *exc):
        if self.enabled:
            self._p.__exit__(*exc)
        return False


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
               "seconds": 0.0} for n in names}
    h2h = {a: {b: [0.0, 0] for b in names if b != a} for a in names}
    ratings = RatingTable(names)
    for r in results:
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
def save_results(result: TournamentResult, out_dir) -> dict:
    """results.json, standings.csv, games.csv and ratings.png under ``out_dir`` (atomic writes)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    files = {"results": str(out_dir / "results.json"), "standings": str(out_dir / "standings.csv"),
             "games": str(out_dir / "games.csv"), "ratings_plot": str(out_dir / "ratings.png"),
             "replays": str(out_dir / "replays")}
    result.files = files
    atomic_write_text(files["results"], json.dumps(_finite(result.to_dict()), indent=1, allow_nan=False))
    buf = io.StringIO()
    cols = ["agent", "spec", "games", "wins", "win_rate", "win_rate_lo", "win_rate_hi", "mean_score", "mean_score_lo",
            "mean_score_hi", "mean_margin", "mean_rank", "mu", "sigma", "ordinal", "ms_per_decision"]
    w = csv.writer(buf)
    w.writerow(cols)
    for s in result.standings:
        w.writerow([s["agent"], s["spec"], s["games"], s["wins"], _r(s["win_rate"]), _r(s["win_rate_ci95"][0]),
                    _r(s["win_rate_ci95"][1]), _r(s["mean_score"]), _r(s["mean_score_ci95"][0]),
                    _r(s["mean_score_ci95"][1]), _r(s["mean_margin"]), _r(s["mean_rank"]), _r(s["mu"]),
                    _r(s["sigma"]), _r(s["ordinal"]), _r(s["ms_per_decision"])])
    atomic_write_text(files["standings"], buf.getvalue())
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["game", "game_seed", "seat", "agent", "total", "rank", "decisions", "think_seconds", "num_actions",
                "replay"])
    for g in result.games:
        for seat, name in enumerate(g.names):
            w.writerow([g.index, g.game_seed, seat, name, g.totals[seat], g.ranks[seat], g.decisions[seat],
                        g.think_seconds[seat], g.num_actions, os.path.basename(g.replay_path or "")])
    atomic_write_text(files["games"], buf.getvalue())
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
    ax.set_title(f"Ratings over the tournament ({len(result.games)} games, {result.num_players} players)")
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

    t = Table(title=f"{result.mode} tournament: {len(result.games)} games, {result.num_players} players, "
                    f"seed {result.seed} ({result.seconds:.0f} s)")
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
    if result.files:
        console.print(f"results: {result.files['results']}  standings: {result.files['standings']}  "
                      f"games: {result.files['games']}")
        console.print(f"ratings plot: {result.files['ratings_plot']}  replays: {result.files['replays']}/")
