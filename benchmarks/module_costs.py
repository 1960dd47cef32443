"""What each Industria module adds to a decision's cost (issue 34: a full Industria decision against a base one).

    python benchmarks/module_costs.py                      # 2 players, 20 games x 3 rounds
    python benchmarks/module_costs.py --players 2 3 4 --games 20 --rounds 3

Random games (``engine_speed.measure``, fresh process each) of the base game, of ``industria=True`` and of
``industria=True`` with one module switched off in turn (``config.INDUSTRIA_MODULES``), the configurations
alternating within each round; the medians are printed as microseconds per decision and as multiples of a
base decision. A module's share is (full Industria - Industria without it) / base: what switching it off
takes out of the Industria ratio. The shares need not add up to the whole excess (modules meet: a
Farmers market is a place the Train map does not know, Industria clans add decisions the tiles price), and
games with a module off are other games (other decisions), so a share is the module's cost in play, its
own code and the decisions it brings.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))     # this folder's shared helpers
from versions import measure_in  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def configurations() -> dict:
    """Name -> GameConfig options: the base game, full Industria, Industria less each module."""
    sys.path.insert(0, ROOT)
    from clans_env.engine.config import INDUSTRIA_MODULES
    out = {"base game": {}, "industria": {"industria": True}}
    for name in INDUSTRIA_MODULES:
        out[f"industria, {name}=False"] = {"industria": True, name: False}
    return out


def measure_all(games: int, players: int, seed: int, rounds: int, progress=None) -> dict:
    """Name -> median microseconds per decision over ``rounds`` alternating rounds."""
    configs = configurations()
    times: dict = {name: [] for name in configs}
    for _ in range(rounds):
        for name, options in configs.items():
            row = measure_in(ROOT, "engine_speed", f"measure({games}, {players}, {seed}, options={options!r})")
            times[name].append(row["us_per_decision"])
            if progress:
                progress()
    return {name: statistics.median(ts) for name, ts in times.items()}


def report(players: int, medians: dict) -> str:
    base = medians["base game"]
    full = medians["industria"]
    lines = [f"{players} players: base {base:.1f} us/decision, Industria {full:.1f} (x{full / base:.2f} a base "
             f"decision; excess x{(full - base) / base:.2f})",
             f"  {'configuration':<44}{'us/decision':>12}{'x base':>8}{'module share':>14}"]
    for name, t in medians.items():
        share = f"{(full - t) / base:+.2f}" if name.startswith("industria, ") else ""
        lines.append(f"  {name:<44}{t:>12.1f}{t / base:>8.2f}{share:>14}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=20, help="random games per measurement")
    ap.add_argument("--players", type=int, nargs="+", default=[2])
    ap.add_argument("--seed", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=3, help="alternating repetitions (median reported)")
    args = ap.parse_args()
    sys.path.insert(0, ROOT)
    from training.progress import Progress
    steps = len(args.players) * args.rounds * len(configurations())
    results = {}
    with Progress(steps, "module costs", "runs", leave=False) as bar:
        for n in args.players:
            results[n] = measure_all(args.games, n, args.seed, args.rounds, bar.update)
    print(f"Industria module costs: {args.games} random games x {args.rounds} alternating rounds (median), "
          f"Python {sys.version.split()[0]}")
    for n in args.players:
        print(report(n, results[n]))


if __name__ == "__main__":
    main()
