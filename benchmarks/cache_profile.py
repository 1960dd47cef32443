"""Instructions and cache misses per decision, base game against Industria (valgrind's cachegrind; issue 34).

    python benchmarks/cache_profile.py                    # 2 players, 20 random games each
    python benchmarks/cache_profile.py --players 3 --games 20 --ll 4194304

Why: a timed Industria decision costs ~1.5x a base one, yet the two execute about the same number of
instructions; what differs is how often they miss the caches (more distinct code and data per decision).
Wall-clock timings on a shared machine drift by several percent, while these counts repeat exactly
(hash seed fixed), so they also compare two versions of a hot path without noise.

Each configuration runs twice under cachegrind in fresh processes: ``--warm`` games first (lazy imports,
tables built on first use), then either nothing or ``--games`` random games; the difference, over the
decisions of those games, is the per-decision figure. ``--ll`` sets the simulated last-level cache (bytes;
default 1 MiB, about one core's share of a shared machine's cache); L1 caches are the host's.
Needs ``valgrind`` on the PATH (Debian: ``apt-get install valgrind``); about a minute per configuration.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_PLAY = """
import random, sys
sys.path.insert(0, {root!r})
from clans_env import Game, GameConfig
def play(seeds, rng):
    n = 0
    for s in seeds:
        g = Game(GameConfig(num_players={players}, seed=s, **{options!r}))
        while not g.is_terminal():
            legal = g.legal_actions()
            g.apply(legal[int(rng.random() * len(legal))])
            n += 1
    return n
play(range(5000, 5000 + {warm}), random.Random(1))
print("decisions", play(range({seed}, {seed} + {games}), random.Random({seed})))
"""

#: cachegrind summary line -> our name
_COUNTS = {"I   refs": "instructions", "I1  misses": "I1 misses", "D1  misses": "D1 misses", "LL misses": "LL misses"}


def cachegrind(options: dict, players: int, games: int, warm: int, seed: int, ll: int) -> dict:
    """Cachegrind's whole-process counts (and the decisions played) for one run."""
    code = _PLAY.format(root=ROOT, players=players, options=options, warm=warm, seed=seed, games=games)
    env = dict(os.environ, PYTHONHASHSEED="0")
    out = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=yes", f"--LL={ll},16,64",
                          "--cachegrind-out-file=/dev/null", sys.executable, "-c", code],
                         env=env, cwd=ROOT, capture_output=True, text=True, check=True)
    counts = {}
    for label, name in _COUNTS.items():
        m = re.search(re.escape(label) + r":\s+([\d,]+)", out.stderr)
        if m is None:  # pragma: no cover - valgrind output format
            raise RuntimeError(f"no {label!r} in valgrind's output:\n{out.stderr[-2000:]}")
        counts[name] = int(m.group(1).replace(",", ""))
    counts["decisions"] = int(re.search(r"^decisions (\d+)$", out.stdout, re.M).group(1))
    return counts


def per_decision(options: dict, players: int, games: int, warm: int = 10, seed: int = 900,
                 ll: int = 1 << 20) -> dict:
    """Counts per decision of ``games`` random games (the run with them less the run without)."""
    without = cachegrind(options, players, 0, warm, seed, ll)
    with_games = cachegrind(options, players, games, warm, seed, ll)
    n = with_games["decisions"]
    return {name: (with_games[name] - without[name]) / n for name in _COUNTS.values()} | {"decisions": n}


def report(players: int, base: dict, industria: dict) -> str:
    lines = [f"{players} players, per decision: {'base':>12}{'Industria':>12}{'ratio':>8}"]
    for name in _COUNTS.values():
        lines.append(f"  {name:<26}{base[name]:>12,.0f}{industria[name]:>12,.0f}{industria[name] / base[name]:>8.2f}")
    lines.append(f"  {'decisions counted':<26}{base['decisions']:>12}{industria['decisions']:>12}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--warm", type=int, default=10, help="games played first, outside the count")
    ap.add_argument("--seed", type=int, default=900)
    ap.add_argument("--ll", type=int, default=1 << 20, help="simulated last-level cache, bytes")
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
    print(report(args.players, rows["base"], rows["industria"]))


if __name__ == "__main__":
    main()
