"""AlphaZero search speed on the same positions: simulations per second of the AZ search (``agents.az``) one
search at a time with batch-1 leaves, one at a time with ``--leaf-batch`` virtual-loss leaves, and all searches
stepped together (as self-play does), with the share of time in the network.

    python benchmarks/az_speed.py                          # this checkout
    python benchmarks/az_speed.py --baseline 7392fd0       # also a git revision, alternating, with ratios
    python benchmarks/az_speed.py --pure-baseline          # the compiled engine against its pure-Python path

With ``--baseline`` each version runs in its own fresh processes, alternating over ``--rounds``
(``benchmarks/versions.py``: the revision's worktree gets its C observation encoder built as an install would,
so that both sides encode alike), both with the same network weights (``--model``, read from this checkout);
each figure is the best of the rounds. ``az_eval.py search-speed`` prints the same table for this checkout.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))     # this folder's shared helpers
from versions import PURE, ROOT, checkouts, measure_in  # noqa: E402

DEFAULT_MODEL = os.path.join(ROOT, "models", "az_2p", "model.pt")


def positions(n_games: int = 2, every: int = 12, seed: int = 100) -> list:
    """Decisions with more than one legal action from heuristic self-play games."""
    from agents.heuristic import HeuristicAgent
    from clans_env import Game, GameConfig
    out = []
    for s in range(n_games):
        g = Game(GameConfig(num_players=2, seed=seed + s))
        agents = [HeuristicAgent(seed=s), HeuristicAgent(seed=s + 50)]
        k = 0
        while not g.is_terminal():
            if len(g.legal_actions()) > 1:
                k += 1
                if k % every == 0:
                    out.append(g.clone())
            g.apply(agents[g.current_player].act(g))
    return out


def measure(model: str, n_positions: int, sims: int, leaf_batch: int) -> dict:
    """Label -> simulations/s, positions per forward pass, network share of the time and microseconds a
    simulation outside the network, for the three ways of searching (the first ``n_positions`` positions of
    one heuristic game, one decision in six)."""
    import random

    import torch

    from agents.az import NetEvaluator, Node, Search, SearchParams, run_searches
    from agents.ppo import load_policy
    from training.selfplay import make_encoder
    torch.set_num_threads(1)
    states = positions(n_games=1, every=6)[:n_positions]
    net, _ = load_policy(model)
    enc = make_encoder(2)
    out = {}
    for label, lb, together in (("sequential, batch-1 leaves", 1, False),
                                (f"sequential, leaf_batch={leaf_batch}", leaf_batch, False),
                                (f"{len(states)} searches together, leaf_batch={leaf_batch}", leaf_batch, True)):
        ev = NetEvaluator(net, enc)
        params = SearchParams(leaf_batch=lb)
        searches = [Search(g, Node(2), sims, random.Random(i), params) for i, g in enumerate(states)]
        t0 = time.perf_counter()
        if together:
            run_searches(searches, {"net": ev})
        else:
            for s in searches:
                run_searches([s], {"net": ev})
        dt = time.perf_counter() - t0
        done = sum(s.done for s in searches)
        out[label] = {"sims_per_s": done / dt, "positions_per_pass": ev.positions / ev.forward_passes,
                      "net_share": ev.net_seconds / dt, "us_per_sim_without_net": 1e6 * (dt - ev.net_seconds) / done}
    return out


def report(rows: dict) -> str:
    """One line per way of searching (``measure``'s result)."""
    first = next(iter(rows.values()))["sims_per_s"]
    return "\n".join(f"{label:40s} {r['sims_per_s']:7.0f} sims/s ({r['sims_per_s'] / first:.2f} x)  "
                     f"{r['positions_per_pass']:5.1f} positions/pass  network {100 * r['net_share']:4.1f}%  "
                     f"{r['us_per_sim_without_net']:5.0f} us/sim outside the network" for label, r in rows.items())


def best_of(runs: list[dict]) -> dict:
    """Per way of searching, the round with the most simulations/s."""
    return {label: max((run[label] for run in runs), key=lambda r: r["sims_per_s"]) for label in runs[0]}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default=DEFAULT_MODEL, help="policy-value network (the same file for both versions)")
    ap.add_argument("--positions", type=int, default=8)
    ap.add_argument("--sims", type=int, default=64)
    ap.add_argument("--leaf-batch", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--baseline", help="git revision to measure alternately with this checkout")
    ap.add_argument("--pure-baseline", action="store_true",
                    help="this checkout's pure-Python engine as the baseline of its compiled build")
    args = ap.parse_args(argv)
    model = os.path.abspath(args.model)
    if not os.path.exists(model):
        sys.exit(f"no model at {model} (--model: a policy-value network file, e.g. {DEFAULT_MODEL})")
    call = f"measure({model!r}, {args.positions}, {args.sims}, {args.leaf_batch})"
    runs: dict = {}
    with checkouts(args.baseline, prefix="clans-az-baseline-", pure_baseline=args.pure_baseline) as versions:
        for _ in range(args.rounds):
            for name, path in versions.items():
                env = PURE if args.pure_baseline and name == "baseline" else None
                runs.setdefault(name, []).append(measure_in(path, "az_speed", call, env=env))
    best = {name: best_of(rs) for name, rs in runs.items()}
    print(f"AZ search speed: {args.positions} positions x {args.sims} simulations, best of {args.rounds} rounds")
    for name, rows in best.items():
        print(f"{name}\n{report(rows)}")
    if "baseline" in best:
        print("ratios current / baseline, simulations/s: " + ", ".join(
            f"{label} x{best['current'][label]['sims_per_s'] / r['sims_per_s']:.2f}"
            for label, r in best["baseline"].items()))


if __name__ == "__main__":
    main()
