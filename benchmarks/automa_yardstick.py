"""The Automa as a yardstick (issue 20): each reference agent against the physical game's own solo
opponent at each level, in seeded 2-player games with the seats alternated (each deal played from
both seats), with 95% Wilson intervals on the win rate, and the Automa's own mean score per level
(a check on the implementation: level 5 should score clearly more than level 1).

    python benchmarks/automa_yardstick.py --agents random heuristic --games 20        # a quick look
    python benchmarks/automa_yardstick.py --games 100 --seed 100 --workers 2 --out runs/automa_yardstick.json
    # the full table (docs/automa.md): the default agents below, about 2 hours on 2 cores

A win is a finish ahead of the Automa (a tie on VP and money counts half, as in the tournaments).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: the reference agents: random, heuristic, MCTS at two budgets, the shipped PPO model, the AlphaZero-style
#: agent (search with 32 simulations) and its network alone (played as a policy)
DEFAULT_AGENTS = ("random", "heuristic", "mcts:sims=25", "mcts:sims=50",
                  f"ppo:path={ROOT / 'models' / 'ppo_2p' / 'model.pt'}",
                  f"az:path={ROOT / 'models' / 'az_2p' / 'model.pt'},sims=32",
                  f"ppo:path={ROOT / 'models' / 'az_2p' / 'model.pt'}")
LEVELS = (1, 2, 3, 4, 5)


def cell(spec: str, level: int, games: int, seed: int, workers: int, progress: bool) -> dict:
    """``spec`` against the Automa at ``level``: ``games`` 2-player games (rounded up to even)."""
    from training.tournament import run_tournament
    automa = f"automa:level={level}"
    res = run_tournament([spec, automa], num_players=2, games_per_pairing=games, seed=seed, workers=workers,
                         progress=progress)
    a, b = res.agents
    rows = {s["agent"]: s for s in res.standings}
    h = res.head_to_head[a][b]
    return {"agent": spec, "level": level, "games": h["games"], "win_rate": h["rate"], "win_rate_ci95": h["ci95"],
            "agent_mean_score": rows[a]["mean_score"], "agent_mean_score_ci95": rows[a]["mean_score_ci95"],
            "automa_mean_score": rows[b]["mean_score"], "automa_mean_score_ci95": rows[b]["mean_score_ci95"],
            "failed": sum(1 for g in res.games if not g.ok), "seconds": round(res.seconds, 1)}


def format_table(cells: list[dict]) -> str:
    lines = [f"{'agent':<28} {'level':>5} {'games':>5}  {'win rate [95% CI]':<22} {'agent VP':>9} {'Automa VP':>10}",
             "-" * 86]
    for c in cells:
        lo, hi = c["win_rate_ci95"]
        name = c["agent"] if len(c["agent"]) <= 28 else "..." + c["agent"][-25:]
        lines.append(f"{name:<28} {c['level']:>5} {c['games']:>5}  {c['win_rate']:>5.2f} [{lo:.2f}, {hi:.2f}]"
                     f"{'':<6} {c['agent_mean_score']:>9.1f} {c['automa_mean_score']:>10.1f}"
                     + (f"  ({c['failed']} failed)" if c["failed"] else ""))
    by_level: dict[int, list] = {}
    for c in cells:
        by_level.setdefault(c["level"], []).append((c["automa_mean_score"], c["games"]))
    lines.append("")
    lines.append("Automa mean score per level (over all its games): " + ", ".join(
        f"L{lv} {sum(m * n for m, n in v) / sum(n for _, n in v):.1f}" for lv, v in sorted(by_level.items())))
    return "\n".join(lines)


def markdown_table(cells: list[dict], names: dict | None = None) -> str:
    """One row per agent, one column per level: win rate [95% interval]; then the Automa's mean VP per
    level over all the cells (the docs/automa.md table)."""
    names = names or {}
    levels = sorted({c["level"] for c in cells})
    agents = list(dict.fromkeys(c["agent"] for c in cells))
    by = {(c["agent"], c["level"]): c for c in cells}
    lines = ["| agent | games per level | " + " | ".join(f"L{lv}" for lv in levels) + " |",
             "|---|---:|" + "---|" * len(levels)]
    for a in agents:
        row = []
        for lv in levels:
            c = by.get((a, lv))
            row.append("-" if c is None else f"{c['win_rate']:.2f} [{c['win_rate_ci95'][0]:.2f}, {c['win_rate_ci95'][1]:.2f}]")
        games = sorted({by[(a, lv)]["games"] for lv in levels if (a, lv) in by})
        lines.append(f"| {names.get(a, '`' + a + '`')} | {'/'.join(map(str, games))} | " + " | ".join(row) + " |")
    means = []
    for lv in levels:
        v = [(c["automa_mean_score"], c["games"]) for c in cells if c["level"] == lv]
        means.append(f"{sum(m * n for m, n in v) / sum(n for _, n in v):.1f}")
    lines.append("| the Automa's mean VP (all its games) | | " + " | ".join(means) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--agents", nargs="+", default=list(DEFAULT_AGENTS), metavar="SPEC",
                    help="agent specs (agents.make syntax); default: random, heuristic, mcts:sims=25, "
                         "mcts:sims=50, the shipped PPO model, the AlphaZero agent (32 simulations) and its "
                         "network alone")
    ap.add_argument("--levels", nargs="+", type=int, default=list(LEVELS), choices=LEVELS)
    ap.add_argument("--games", type=int, default=100, help="games per (agent, level) cell (default 100)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default=None, help="write every cell as JSON here")
    ap.add_argument("--no-progress", action="store_true")
    ap.add_argument("--table", nargs="+", metavar="RESULT.json",
                    help="print the markdown table of these saved results (--out files) and exit; no games")
    args = ap.parse_args(argv)
    if args.table:
        cells = [c for f in args.table for c in json.loads(Path(f).read_text())["cells"]]
        print(markdown_table(cells))
        return 0
    from agents.registry import load_check
    for spec in args.agents:
        load_check(spec)                      # a bad spec fails before any game
    t0 = time.perf_counter()
    cells = []
    for spec in args.agents:
        for level in args.levels:
            cells.append(cell(spec, level, args.games, args.seed + level, args.workers, not args.no_progress))
    text = format_table(cells)
    print(text)
    print(f"\n{sum(c['games'] for c in cells)} games in {time.perf_counter() - t0:.0f} s")
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps({"cells": cells, "args": vars(args)}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
