"""Evaluation matches of a policy network against fixed agents, with confidence intervals.

Games are batched like self-play (one forward pass for all games waiting on the network), the
network plays greedily by default, seats alternate (game i puts the network in seat
``i % num_players``) and game seeds are fixed, so two evaluations of the same weights agree
exactly and two checkpoints face the same deals.
"""
from __future__ import annotations

import json
import os

import numpy as np

from .ratings import wilson_interval
from .selfplay import GameSpec, MatchRunner

LEARNER = "learner"


def score_summary(values) -> dict:
    v = np.asarray(values, dtype=np.float64)
    if v.size == 0:
        return {"n": 0}
    q1, med, q3 = np.percentile(v, [25, 50, 75])
    return {"n": int(v.size), "mean": float(v.mean()), "std": float(v.std(ddof=1)) if v.size > 1 else 0.0,
            "min": float(v.min()), "q1": float(q1), "median": float(med), "q3": float(q3), "max": float(v.max())}


def summarize(results, learner_key: str = LEARNER) -> dict:
    """Win/tie/loss counts of the learner seat over GameResults, win rate (ties = half) with a 95%
    Wilson interval, and the learner's and opponents' score distributions and margins."""
    wins = ties = losses = 0
    own, opp, margins = [], [], []
    for r in results:
        seat = r.spec.controllers.index(learner_key)
        ranks = [row["rank"] for row in r.scores]
        totals = [row["total"] for row in r.scores]
        if ranks[seat] == 1 and ranks.count(1) == 1:
            wins += 1
        elif ranks[seat] == 1:
            ties += 1
        else:
            losses += 1
        own.append(totals[seat])
        others = [t for s, t in enumerate(totals) if s != seat]
        opp.extend(others)
        margins.append(totals[seat] - max(others))
    n = wins + ties + losses
    rate = (wins + 0.5 * ties) / n if n else 0.0
    lo, hi = wilson_interval(wins + 0.5 * ties, n)
    return {"games": n, "wins": wins, "ties": ties, "losses": losses, "win_rate": rate, "ci95": [lo, hi],
            "score": score_summary(own), "opponent_score": score_summary(opp), "margin": score_summary(margins)}


def evaluate_net(net, encoder, num_players: int, opponent: str, games: int, seed: int = 0,
                 game_options: dict | None = None, num_slots: int = 16, greedy: bool = True) -> dict:
    """Play ``games`` games of ``net`` against ``opponent`` ('random' or 'heuristic') in every other
    seat and summarise them (see ``summarize``); deterministic given ``seed``."""
    if opponent not in ("random", "heuristic"):
        raise ValueError(f"evaluation opponent must be 'random' or 'heuristic' (got {opponent!r})")
    rng = np.random.default_rng([seed, 7919])
    seeds = np.random.default_rng(seed).integers(2**31, size=games)
    specs = []
    for i in range(games):
        seat = i % num_players
        controllers = [LEARNER if s == seat else opponent for s in range(num_players)]
        specs.append(GameSpec(seed=int(seeds[i]), controllers=controllers, trained=[False] * num_players,
                              learner_seat=seat, kinds=["learner" if s == seat else opponent
                                                        for s in range(num_players)]))
    it = iter(specs)
    runner = MatchRunner(num_players, encoder, {LEARNER: net}, game_options, greedy={LEARNER: greedy})
    rollout = runner.play(lambda _n: next(it, None), min(num_slots, max(1, games)), rng)
    return summarize(rollout.results)


def read_log(path) -> tuple[list[dict], list[dict]]:
    """(update rows, evaluation rows) of a run's ``log.jsonl``."""
    updates, evals = [], []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                row = json.loads(line)
                (evals if row.get("kind") == "eval" else updates).append(row)
    return updates, evals


def plot_training_curve(log_path, png_path, title: str | None = None, xlabel: str = "learner steps (decisions trained on)",
                        ylabel: str = "win rate (greedy policy, ties = 1/2)") -> None:
    """Two panels over learner steps: evaluation win rates (95% Wilson bands) against each
    opponent, and mean scores (evaluation games and self-play training games)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    updates, evals = read_log(log_path)
    if not updates:
        raise ValueError(f"{log_path}: no update rows to plot")
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    colours = {"random": "tab:blue", "heuristic": "tab:red"}
    opponents = sorted({o for e in evals for o in e["results"]})
    for opp in opponents:
        rows = [e for e in evals if opp in e["results"]]
        x = [e["global_step"] for e in rows]
        res = [e["results"][opp] for e in rows]
        c = colours.get(opp)
        ax1.plot(x, [r["win_rate"] for r in res], marker=".", color=c, label=f"vs {opp} ({res[-1]['games']} games/eval)")
        ax1.fill_between(x, [r["ci95"][0] for r in res], [r["ci95"][1] for r in res], color=c, alpha=0.15)
        ax2.plot(x, [r["score"]["mean"] for r in res], marker=".", color=c, label=f"policy score vs {opp}")
        ax2.plot(x, [r["opponent_score"]["mean"] for r in res], linestyle="--", color=c, alpha=0.7,
                 label=f"{opp}'s score")
    ax1.axhline(0.5, color="grey", lw=0.8, ls=":")
    ax1.set_ylim(-0.02, 1.02)
    ax1.set_xlabel(xlabel)
    ax1.set_ylabel(ylabel)
    ax1.set_title("evaluation win rate, 95% Wilson band")
    ax1.legend(loc="lower right")
    x = [u["global_step"] for u in updates]
    y = [u.get("train/mean_score", np.nan) for u in updates]
    k = max(1, len(y) // 50)
    smooth = np.convolve(y, np.ones(k) / k, mode="valid")
    ax2.plot(x[k - 1:], smooth, color="tab:green", alpha=0.8, label="learner score in self-play (smoothed)")
    ax2.set_xlabel(xlabel)
    ax2.set_ylabel("final VP")
    ax2.set_title("mean final score")
    ax2.legend(loc="lower right", fontsize=8)
    last = updates[-1]
    cpu = f", {last['cpu_s'] / 3600:.2f} h CPU" if "cpu_s" in last else ""
    fig.suptitle(title or f"masked PPO self-play: {last['global_step']:,} learner steps, {last['update']} updates, "
                          f"{last.get('elapsed_s', 0) / 3600:.2f} h wall{cpu}")
    fig.tight_layout()
    png_path = os.fspath(png_path)
    tmp = os.path.join(os.path.dirname(os.path.abspath(png_path)), ".tmp-" + os.path.basename(png_path))
    fig.savefig(tmp, dpi=110, format="png")
    plt.close(fig)
    os.replace(tmp, png_path)
