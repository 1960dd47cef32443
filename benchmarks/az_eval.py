"""AlphaZero agent evaluation (issue 16): per-move time of MCTS-200 and of the AZ search at several
simulation counts on the same positions (same run, so the ratio holds on a loaded machine), and
gauntlet matches with 95% Wilson intervals.

    python benchmarks/az_eval.py calibrate --model models/az_2p/model.pt --sims 100 200 400
    python benchmarks/az_eval.py search-speed --model models/az_2p/model.pt --sims 64
    python benchmarks/az_eval.py match --agent az:path=models/az_2p/model.pt,sims=300 \\
        --opponent mcts:sims=200 --games 20 --out runs/az_vs_mcts
    python benchmarks/az_eval.py average --models runs/a/it_10.pt runs/a/it_12.pt --out runs/a/avg.pt
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))      # az_speed, this folder's

from agents import make                                      # noqa: E402
from az_speed import measure as measure_search               # noqa: E402
from az_speed import positions                               # noqa: E402
from az_speed import report as search_report                 # noqa: E402


def move_time(spec: str, states: list) -> float:
    """Mean seconds per decision of a fresh agent of ``spec`` over ``states``."""
    agent = make(spec, seed=0)
    t0 = time.perf_counter()
    for g in states:
        agent.reset(seed=0)
        agent.act(g)
    return (time.perf_counter() - t0) / len(states)


def calibrate(args) -> dict:
    states = positions()
    specs = [args.reference] + [f"az:path={args.model},sims={s}" for s in args.sims]
    rows = {spec: move_time(spec, states) for spec in specs}
    ref = rows[args.reference]
    for spec, t in rows.items():
        print(f"{spec:60s} {t * 1000:8.1f} ms/move  ({t / ref:.2f} x {args.reference})")
    return {"positions": len(states), "ms_per_move": {k: v * 1000 for k, v in rows.items()}}


def search_speed(args) -> dict:
    """``az_speed.measure`` for this checkout (``benchmarks/az_speed.py --baseline REV`` compares two)."""
    rows = measure_search(args.model, args.positions, args.sims, args.leaf_batch)
    print(search_report(rows))
    return rows


def plot(args) -> None:
    """The training curve of a run's log.jsonl (training.evaluate.plot_training_curve)."""
    from training.evaluate import read_log, plot_training_curve
    updates, _ = read_log(args.log)
    last = updates[-1]
    title = (args.title or f"AlphaZero self-play: {last['iteration']} iterations, {last['games']} games, "
             f"{last['global_step']:,} samples, {last['elapsed_s'] / 3600:.2f} h wall, {last['cpu_s'] / 3600:.2f} h CPU")
    plot_training_curve(args.log, args.png, title=title, xlabel="self-play samples added to the replay buffer",
                        ylabel="win rate (search with eval_sims, ties = 1/2)")
    print(f"wrote {args.png}")


def snapshots(args) -> None:
    """A run's learning curve from its log (policy loss, policy entropy, value loss per iteration)
    beside the win rate of model snapshots in matches (tournament results.json files of
    ``match --agent ppo:path=SNAPSHOT`` or ``az:path=SNAPSHOT``), each at the snapshot's iteration
    (read from the model file), with its 95% Wilson interval; matches of the same snapshot pool."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import torch

    from training.evaluate import read_log
    from training.ratings import wilson_interval
    updates, _ = read_log(args.log)
    points: dict = {}
    for path in args.results:
        res = json.load(open(path))
        agent = res["agents"][0]
        model = next(part.split("=", 1)[1] for part in agent.split(":", 1)[1].split(",") if part.startswith("path="))
        it = torch.load(model, map_location="cpu", weights_only=False).get("counters", {}).get("iteration")
        row = next(r for r in res["standings"] if r["agent"] == agent)
        w, n = points.get(it, (0.0, 0))
        points[it] = (w + row["wins"], n + row["games"])
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    x = [u["iteration"] for u in updates]
    for key, label in (("policy_loss", "policy loss"), ("policy_entropy", "policy entropy"),
                       ("value_loss", "value loss")):
        ax1.plot(x, [u.get(key, float("nan")) for u in updates], label=label)
    ax1.set_xlabel("iteration")
    ax1.set_title("training losses")
    ax1.legend()
    its = sorted(points)
    rates = [points[i][0] / points[i][1] for i in its]
    cis = [wilson_interval(points[i][0], points[i][1]) for i in its]
    ax2.errorbar(its, rates, yerr=[[r - c[0] for r, c in zip(rates, cis)], [c[1] - r for r, c in zip(rates, cis)]],
                 marker="o", capsize=4, label=args.label)
    for i, r in zip(its, rates):
        ax2.annotate(f"{r:.2f} ({points[i][1]} games)", (i, r), textcoords="offset points", xytext=(6, 6), fontsize=8)
    ax2.axhline(0.5, color="grey", lw=0.8, ls=":")
    if args.target:
        ax2.axhline(args.target, color="tab:red", lw=0.8, ls="--", label=f"target {args.target:.2f}")
    ax2.set_ylim(0.2, 0.9)
    ax2.set_xlabel("iteration of the snapshot")
    ax2.set_ylabel("win rate (ties = 1/2), 95% Wilson interval")
    ax2.set_title("snapshot matches")
    ax2.legend(loc="lower right")
    last = updates[-1]
    fig.suptitle(args.title or f"AlphaZero self-play: {last['iteration']} iterations, {last['games']} games, "
                 f"{last['global_step']:,} samples, {last['cpu_s'] / 3600:.2f} h CPU")
    fig.tight_layout()
    fig.savefig(args.png, dpi=110)
    print(f"wrote {args.png}")


def match(args) -> dict:
    from training.tournament import run_tournament
    res = run_tournament([args.agent, args.opponent], games_per_pairing=args.games, mode="gauntlet", seed=args.seed,
                         workers=args.workers, out_dir=args.out, progress=False, move_time_limit=None)
    keys = ("agent", "games", "wins", "win_rate", "win_rate_ci95", "mean_score", "mean_margin", "ms_per_decision",
            "forfeits")
    rows = [{k: row[k] for k in keys} for row in res.standings]
    print(json.dumps({"seconds": round(res.seconds, 1), "failures": len(res.failures), "standings": rows}, indent=1))
    return rows


def average(args) -> None:
    """A model file whose weights are the mean of ``--models`` (``training.ppo.average_models``)."""
    from training.ppo import average_models
    average_models(args.models, args.out)
    print(f"wrote {args.out}: the mean of {len(args.models)} models")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("calibrate")
    c.add_argument("--model", default="models/az_2p/model.pt")
    c.add_argument("--sims", type=int, nargs="+", default=[100, 200, 400])
    c.add_argument("--reference", default="mcts:sims=200")
    c.set_defaults(func=calibrate)
    sp = sub.add_parser("search-speed")
    sp.add_argument("--model", default="models/az_2p/model.pt")
    sp.add_argument("--positions", type=int, default=12)
    sp.add_argument("--sims", type=int, default=64)
    sp.add_argument("--leaf-batch", type=int, default=4)
    sp.set_defaults(func=search_speed)
    pl = sub.add_parser("plot")
    pl.add_argument("--log", default="runs/az_2p/log.jsonl")
    pl.add_argument("--png", default="docs/az_training_curve.png")
    pl.add_argument("--title", default=None)
    pl.set_defaults(func=plot)
    sn = sub.add_parser("snapshots")
    sn.add_argument("--log", required=True)
    sn.add_argument("--results", nargs="+", required=True, help="results.json of snapshot matches")
    sn.add_argument("--png", default="docs/az_training_curve.png")
    sn.add_argument("--label", default="raw policy vs the shipped PPO model")
    sn.add_argument("--target", type=float, default=0.6)
    sn.add_argument("--title", default=None)
    sn.set_defaults(func=snapshots)
    av = sub.add_parser("average")
    av.add_argument("--models", nargs="+", required=True, help="model files of one architecture (snapshots of a run)")
    av.add_argument("--out", required=True)
    av.set_defaults(func=average)
    m = sub.add_parser("match")
    m.add_argument("--agent", required=True)
    m.add_argument("--opponent", required=True)
    m.add_argument("--games", type=int, default=20)
    m.add_argument("--seed", type=int, default=0)
    m.add_argument("--workers", type=int, default=2)
    m.add_argument("--out", default=None)
    m.set_defaults(func=match)
    args = p.parse_args(argv)
    args.func(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
