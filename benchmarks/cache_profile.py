"""Instructions and cache misses per decision, base game against Industria (valgrind's cachegrind; issue 34).

    python benchmarks/cache_profile.py                    # 2 players, 20 random games each
    python benchmarks/cache_profile.py --players 3 --games 20 --ll 4194304

Why: a timed Industria decision costs ~1.5x a base one; these counts say how much of that is work (instructions)
and how much is missing the caches (more distinct code and data per decision). The report ends with an
estimate in cycles, each count weighted by ``--weights`` (default: 0.4 cycles an instruction, about 2.5 a cycle
as CPython runs; 12 an L1 miss served from L2; 200 a last-level miss), and the share of Industria's excess
each part makes up: a model, not a measurement (this virtual machine has no hardware counters), whose ratio can
be checked against ``engine_speed.py``'s. Wall-clock timings on a shared machine drift by several percent, while
these counts repeat exactly (hash seed fixed), so they also compare two versions of a hot path without noise.

Each configuration runs twice under cachegrind in fresh processes: ``--warm`` games first (lazy imports,
tables built on first use), then ``--games`` random games set up, and played in one of the two runs only; the
difference, over the decisions of those games, is the per-decision figure (their setup is in both). ``--ll``
sets the simulated last-level cache (bytes; default 1 MiB, about one core's share of a shared machine's cache);
L1 caches are the host's.
Needs ``valgrind`` on the PATH (Debian: ``apt-get install valgrind``); about a minute per configuration.
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))     # this folder's shared helpers
from versions import CACHEGRIND_COUNTS, ROOT, cachegrind_in  # noqa: E402

#: seeds of the warm-up games (apart from the measured ones, so that no memo is warmed for them)
WARM_SEEDS = 5000


def play(players: int, games: int, warm: int, seed: int, options: dict, played: bool = True) -> int:
    """``warm`` random games, then ``games`` more from ``seed``, set up before any is played and played only
    if ``played``; returns the decisions played. Both runs of ``per_decision`` set the same games up, so the
    difference holds their decisions alone: a base game's setup builds a board for its random tile layout
    (about a millisecond, ten decisions' worth) where Industria's fixed map is built once, and counting it
    made the two look alike. The choices come from ``random.Random``, not from NumPy as in
    ``env_speed.workload``: a NumPy generator call per decision brings its own code and data into the caches
    and would swamp the engine's misses."""
    from clans_env import Game, GameConfig

    def play_out(started: list, rng: random.Random) -> int:
        decisions = 0
        for g in started:
            while not g.is_terminal():
                legal = g.legal_actions()
                g.apply(legal[int(rng.random() * len(legal))])
                decisions += 1
        return decisions

    def set_up(first: int, n: int) -> list:
        return [Game(GameConfig(num_players=players, seed=s, **options)) for s in range(first, first + n)]

    play_out(set_up(WARM_SEEDS, warm), random.Random(1))
    measured = set_up(seed, games)
    return play_out(measured, random.Random(seed)) if played else 0


def per_decision(options: dict, players: int, games: int, warm: int = 10, seed: int = 900,
                 ll: int = 1 << 20) -> dict:
    """Counts per decision of ``games`` random games: the run that sets them up and plays them less the run
    that only sets them up, over their decisions."""
    def run(played: bool) -> tuple[dict, int]:
        return cachegrind_in(ROOT, "cache_profile", f"play({players}, {games}, {warm}, {seed}, {options!r}, {played})",
                             caches=True, ll=ll)

    (without, _), (with_games, n) = run(False), run(True)
    return {name: (with_games[name] - without[name]) / n for name in CACHEGRIND_COUNTS.values()} | {"decisions": n}


#: estimated cycles per count (``--weights``): an instruction, an I1 miss, a D1 miss, a last-level miss
WEIGHTS = (0.4, 12.0, 12.0, 200.0)


def report(players: int, base: dict, industria: dict, weights: tuple = WEIGHTS) -> str:
    names = list(CACHEGRIND_COUNTS.values())
    lines = [f"{players} players, per decision: {'base':>12}{'Industria':>12}{'ratio':>8}"]
    for name in names:
        lines.append(f"  {name:<26}{base[name]:>12,.0f}{industria[name]:>12,.0f}{industria[name] / base[name]:>8.2f}")
    lines.append(f"  {'decisions counted':<26}{base['decisions']:>12}{industria['decisions']:>12}")
    cost = {row: [w * counts[name] for w, name in zip(weights, names)] for row, counts in
            (("base", base), ("industria", industria))}
    total = {row: sum(parts) for row, parts in cost.items()}
    lines.append(f"  {'estimated cycles':<26}{total['base']:>12,.0f}{total['industria']:>12,.0f}"
                 f"{total['industria'] / total['base']:>8.2f}")
    excess = total["industria"] - total["base"]
    shares = ", ".join(f"{name} {(i - b) / excess:.0%}" for name, b, i in zip(names, cost["base"], cost["industria"]))
    lines.append(f"  Industria's excess by part (weights {', '.join(f'{w:g}' for w in weights)}): {shares}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--warm", type=int, default=10, help="games played first, outside the count")
    ap.add_argument("--seed", type=int, default=900)
    ap.add_argument("--ll", type=int, default=1 << 20, help="simulated last-level cache, bytes")
    ap.add_argument("--weights", type=float, nargs=4, default=WEIGHTS, metavar=("INSTR", "I1", "D1", "LL"),
                    help="estimated cycles an instruction, I1 miss, D1 miss and last-level miss cost")
    args = ap.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("cache_profile.py needs valgrind on the PATH (Debian: apt-get install valgrind)")
    sys.path.insert(0, ROOT)
    from training.progress import Progress
    rows = {}
    with Progress(2, "cachegrind runs", "configurations", leave=False) as bar:
        for name, options in (("base", {}), ("industria", {"industria": True})):
            rows[name] = per_decision(options, args.players, args.games, args.warm, args.seed, args.ll)
            bar.update()
    print(f"cachegrind: {args.games} random games after {args.warm} warm-up games, LL {args.ll:,} bytes, "
          f"Python {sys.version.split()[0]}")
    print(report(args.players, rows["base"], rows["industria"], tuple(args.weights)))


if __name__ == "__main__":
    main()
