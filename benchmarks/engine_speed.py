"""Engine speed: microseconds per decision (legal_actions + apply), random games per second,
microseconds per decision when a search replays known actions (``apply_unchecked``, or ``apply``
in a checkout without it), and clone microseconds on mid-game states.

    python benchmarks/engine_speed.py                  # this checkout
    python benchmarks/engine_speed.py --baseline HEAD~1  # also a git revision, interleaved, with ratios
    python benchmarks/engine_speed.py --catanatron     # also catanatron's Catan engine, same run
    python benchmarks/engine_speed.py --pure-baseline  # the compiled engine (setup.py) against its pure-Python path

With ``--catanatron`` (``pip install -e ".[bench]"``) the pure-Python Catan engine catanatron plays
random games with the same player counts in the same alternation, and the report gives our
decision time as a ratio to its time per action (random legal move, its ``play()`` loop).

Shared machines are noisy, so with --baseline the two versions run alternately in fresh
processes and the report gives each figure as a ratio against the baseline of the same run.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))     # this folder's shared helpers
from versions import PURE, checkouts, measure_in  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def measure(games: int, players: int, seed: int, industria: bool = False, options: dict | None = None) -> dict:
    """Random games of ``GameConfig(num_players=players, seed=seed + i, **options)`` (``industria``: also
    ``industria=True``): per-decision, clone and replay times."""
    from clans_env import Game, GameConfig
    options = dict(options or {}, **({"industria": True} if industria else {}))

    rng = random.Random(seed)
    decisions = 0
    t_decide = 0.0
    clone_states = []
    fallback = None
    t0 = time.perf_counter()
    for i in range(games):
        g = Game(GameConfig(num_players=players, seed=seed + i, **options))
        perf = time.perf_counter
        while not g.is_terminal():
            t = perf()
            legal = g.legal_actions()
            g.apply(legal[int(rng.random() * len(legal))])
            t_decide += perf() - t
            decisions += 1
            if g.round == 3 and len(clone_states) < 50 * (i + 1) and rng.random() < 0.05:
                clone_states.append(g.clone())      # a snapshot: the live game ends up finished
            elif fallback is None and g.round == 3:
                fallback = g.clone()                # for a run too short to draw one (no extra draw)
    wall = time.perf_counter() - t0
    if not clone_states:
        clone_states.append(fallback)
    # search replays: the same games' actions applied again to fresh copies of their starts, as a
    # search replays a known path (``apply_unchecked`` where the checkout has it, else ``apply``)
    records = []
    for i in range(games):
        g = Game(GameConfig(num_players=players, seed=seed + i, **options))
        records.append((g, _history_of(g, rng)))
    t_replay = 0.0
    replayed = 0
    for start, actions in records:
        g = start.clone()
        step = getattr(g, "apply_unchecked", g.apply)
        t = time.perf_counter()
        for a in actions:
            step(a)
        t_replay += time.perf_counter() - t
        replayed += len(actions)
        assert g.is_terminal()
    # clone cost on mid-game states
    reps = 200
    t = time.perf_counter()
    for g in clone_states:
        for _ in range(reps):
            g.clone()
    clone_us = (time.perf_counter() - t) / (len(clone_states) * reps) * 1e6
    assert clone_states and not any(g.is_terminal() for g in clone_states)
    return {"players": players, "games": games, "decisions": decisions,
            "us_per_decision": t_decide / decisions * 1e6, "games_per_s": games / wall,
            "decisions_per_game": decisions / games, "clone_us": clone_us, "clone_states": len(clone_states),
            "replay_us_per_decision": t_replay / replayed * 1e6}


def _history_of(start, rng) -> list:
    """The actions of a random game played from a copy of ``start``."""
    g = start.clone()
    while not g.is_terminal():
        legal = g.legal_actions()
        g.apply(legal[int(rng.random() * len(legal))])
    return g.history


def measure_catanatron(games: int, players: int, seed: int) -> dict:
    """catanatron (pure-Python Catan): random players, microseconds per action of ``Game.play``."""
    from catanatron import Color, Game, RandomPlayer

    colors = list(Color)[:players]
    actions = 0
    t0 = time.perf_counter()
    for i in range(games):
        g = Game([RandomPlayer(c) for c in colors], seed=seed + i)
        g.play()
        actions += len(g.state.actions)
    wall = time.perf_counter() - t0
    return {"players": players, "games": games, "us_per_action": wall / actions * 1e6,
            "actions_per_game": actions / games}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=40, help="random games per measurement")
    ap.add_argument("--players", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=3, help="alternating repetitions (median reported)")
    ap.add_argument("--baseline", help="git revision to compare against in the same run")
    ap.add_argument("--pure-baseline", action="store_true",
                    help="baseline = this checkout with CLANS_PURE_PYTHON=1 (its compiled engine, if built, against "
                         "pure Python); with --industria both are timed on Industria too")
    ap.add_argument("--catanatron", action="store_true", help="also time catanatron's Catan engine in the same run")
    ap.add_argument("--industria", action="store_true",
                    help="also time full Industria configurations (industria=True) in the same run, in this "
                         "checkout and in --baseline's")
    args = ap.parse_args()
    catan: dict = {n: [] for n in args.players}
    pure_industria: dict = {n: [] for n in args.players}

    with checkouts(args.baseline, pure_baseline=args.pure_baseline) as versions:
        envs = {"baseline": PURE} if args.pure_baseline else {}
        results: dict = {name: {n: [] for n in args.players} for name in versions}
        industria: dict = {name: {n: [] for n in args.players} for name in versions}
        for r in range(args.rounds):
            for n in args.players:
                for name, path in versions.items():
                    results[name][n].append(
                        measure_in(path, "engine_speed", f"measure({args.games}, {n}, {args.seed})",
                                   env=envs.get(name)))
                if args.industria and args.pure_baseline:
                    pure_industria[n].append(measure_in(ROOT, "engine_speed",
                                                        f"measure({args.games}, {n}, {args.seed}, industria=True)",
                                                        env=PURE))
                if args.industria:
                    for name, path in versions.items():
                        if name == "current" or not args.pure_baseline:
                            industria[name][n].append(measure_in(
                                path, "engine_speed", f"measure({args.games}, {n}, {args.seed}, industria=True)"))
                if args.catanatron:
                    catan[n].append(measure_in(ROOT, "engine_speed",
                                               f"measure_catanatron({args.games}, {n}, {args.seed})"))
        if args.pure_baseline:
            print("baseline: this checkout's pure-Python engine (CLANS_PURE_PYTHON=1); current: as imported")
        print(f"engine speed: {args.games} random games x {args.rounds} repetitions per row "
              f"(median), Python {sys.version.split()[0]}")
        header = (f"{'version':<10}{'players':>8}{'us/decision':>13}{'games/s':>10}{'decisions/game':>16}"
                  f"{'clone us':>10}{'replay us/dec':>15}")
        print(header)
        print("-" * len(header))
        med = {}
        for name in versions:
            for n in args.players:
                rows = results[name][n]
                m = {k: statistics.median(r[k] for r in rows)
                     for k in ("us_per_decision", "games_per_s", "decisions_per_game", "clone_us",
                               "replay_us_per_decision")}
                med[(name, n)] = m
                print(f"{name:<10}{n:>8}{m['us_per_decision']:>13.1f}{m['games_per_s']:>10.2f}"
                      f"{m['decisions_per_game']:>16.0f}{m['clone_us']:>10.1f}{m['replay_us_per_decision']:>15.1f}")
        if args.industria:
            keys = ("us_per_decision", "clone_us", "decisions_per_game", "replay_us_per_decision")
            imed = {(name, n): {k: statistics.median(r[k] for r in industria[name][n]) for k in keys}
                    for name in versions for n in args.players if industria[name][n]}
            print("\nIndustria (industria=True, same run, median):")
            for n in args.players:
                for name in versions:
                    m = imed.get((name, n))
                    if m is None:
                        continue
                    base = med[(name, n)]
                    print(f"  {name:<9}{n} players: {m['us_per_decision']:.1f} us/decision ({m['decisions_per_game']:.0f} "
                          f"decisions/game), clone {m['clone_us']:.1f} us; x{m['us_per_decision'] / base['us_per_decision']:.2f} "
                          f"a base-game decision, clone x{m['clone_us'] / base['clone_us']:.2f}")
                if args.baseline and (("baseline", n) in imed):
                    c, b = imed[("current", n)], imed[("baseline", n)]
                    print(f"    current / baseline: us/decision x{c['us_per_decision'] / b['us_per_decision']:.2f}, "
                          f"clone x{c['clone_us'] / b['clone_us']:.2f}, replay us/decision "
                          f"x{c['replay_us_per_decision'] / b['replay_us_per_decision']:.2f}")
                if args.pure_baseline:
                    keys = ("us_per_decision", "clone_us", "replay_us_per_decision")
                    p = {k: statistics.median(r[k] for r in pure_industria[n]) for k in keys}
                    full = imed[("current", n)]
                    print(f"    pure Python: {p['us_per_decision']:.1f} us/decision, clone {p['clone_us']:.1f} us, replay "
                          f"{p['replay_us_per_decision']:.1f} us/decision; current / pure: us/decision "
                          f"x{full['us_per_decision'] / p['us_per_decision']:.2f}, clone x{full['clone_us'] / p['clone_us']:.2f}, "
                          f"replay x{full['replay_us_per_decision'] / p['replay_us_per_decision']:.2f}; pure Industria x"
                          f"{p['us_per_decision'] / med[('baseline', n)]['us_per_decision']:.2f} a pure base decision")
        if args.catanatron:
            print(f"\ncatanatron (same run, {args.games} random games x {args.rounds}, median):")
            for n in args.players:
                us = statistics.median(r["us_per_action"] for r in catan[n])
                apg = statistics.median(r["actions_per_game"] for r in catan[n])
                ours = med[("current", n)]["us_per_decision"]
                print(f"  {n} players: {us:.1f} us/action ({apg:.0f} actions/game); ours / catanatron x{ours / us:.2f}")
        if args.baseline or args.pure_baseline:
            print("\nratios current / baseline (lower is faster for us and clone, higher is faster for games/s):")
            for n in args.players:
                c, b = med[("current", n)], med[("baseline", n)]
                print(f"  {n} players: us/decision x{c['us_per_decision'] / b['us_per_decision']:.2f}, "
                      f"games/s x{c['games_per_s'] / b['games_per_s']:.2f}, clone x{c['clone_us'] / b['clone_us']:.2f}, "
                      f"replay us/decision x{c['replay_us_per_decision'] / b['replay_us_per_decision']:.2f}")


if __name__ == "__main__":
    main()
