"""MCTS speed on the same states: our ``MCTSAgent`` and OpenSpiel's ``MCTSBot`` search the same
positions with the same number of simulations, both with random rollouts to the end of the game
(ours: ``training.benchmarks.OPENSPIEL_CONFIGS["random"]``; MCTSBot: ``RandomRolloutEvaluator(1)``),
and ours also as shipped (heuristic leaf values). Reports simulations per second of each and the
ratio ours / MCTSBot measured in the same process.

    python benchmarks/mcts_speed.py                    # this checkout
    python benchmarks/mcts_speed.py --baseline main    # also a git revision, alternating, with ratios
    python benchmarks/mcts_speed.py --industria        # also ours on 2-player Industria positions

The positions are sampled from random 2-player games of the registered OpenSpiel game (the same
deals for both versions). Every figure is the best of ``--rounds``; with ``--baseline`` the
versions run alternately in fresh processes (``benchmarks/versions.py``). Whole games against
MCTSBot with win rates: ``benchmarks/vs_openspiel.py``.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))     # this folder's shared helpers
from versions import PURE, checkouts, measure_in  # noqa: E402


def sample_positions(deal, step, positions: int, rng) -> list:
    """``positions`` states met in random games (each with 4% chance where there is a choice), from
    ``deal(k)`` for k = 0, 1, ... and ``step(state, action)``."""
    states: list = []
    k = 0
    while len(states) < positions:
        s = deal(k)
        k += 1
        while not s.is_terminal() and len(states) < positions:
            legal = s.legal_actions()
            if len(legal) > 1 and rng.random() < 0.04:
                states.append(s.clone())
            step(s, legal[rng.randrange(len(legal))])
    return states


def our_bots(sims: int, seed: int) -> dict:
    """Our MCTSAgent with random rollouts (OpenSpiel's reading) and as shipped (heuristic leaf values)."""
    from agents import MCTSAgent
    from training.benchmarks import OPENSPIEL_CONFIGS

    return {"ours_random": MCTSAgent(sims=sims, c=0.2, seed=seed, reuse=False, **OPENSPIEL_CONFIGS["random"]),
            "ours_shipped": MCTSAgent(sims=sims, c=0.2, seed=seed, reuse=False, **OPENSPIEL_CONFIGS["heuristic"])}


def measure(positions: int = 12, sims: int = 50, seed: int = 0, reps: int = 2) -> dict:
    """Simulations per second on ``positions`` sampled states: ours (random rollouts, and as
    shipped) and MCTSBot (random rollouts), best of ``reps`` passes each."""
    import random

    import numpy as np
    from open_spiel.python.algorithms import mcts as os_mcts

    from clans_env.interop import openspiel_game

    game = openspiel_game.load(num_players=2)

    def deal(k: int):
        s = game.new_initial_state()
        s.apply_action(k)
        return s

    states = sample_positions(deal, lambda s, a: s.apply_action(a), positions, random.Random(seed))
    bots = our_bots(sims, seed)
    mcts_bot = os_mcts.MCTSBot(game, uct_c=2.0, max_simulations=sims,
                               evaluator=os_mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed + 1)),
                               solve=False, random_state=np.random.RandomState(seed + 2))
    runs = {name: (lambda b=b: [b.act(s.engine) for s in states]) for name, b in bots.items()}
    runs["openspiel"] = lambda: [mcts_bot.step(s) for s in states]
    best = {name: float("inf") for name in runs}
    for _ in range(reps):
        for name, run in runs.items():
            t = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - t)
    rate = {name: len(states) * sims / t for name, t in best.items()}
    return {"positions": len(states), "sims": sims, **{f"{k}_sims_per_s": v for k, v in rate.items()},
            "ratio_random": rate["ours_random"] / rate["openspiel"],
            "ratio_shipped": rate["ours_shipped"] / rate["openspiel"]}


def measure_industria(positions: int = 12, sims: int = 50, seed: int = 0, reps: int = 2) -> dict:
    """Simulations per second of ours (random rollouts, and as shipped) on positions of random 2-player
    Industria games (``industria=True``; OpenSpiel's registered game is the base game, so no MCTSBot row)."""
    import random

    from clans_env import Game, GameConfig

    states = sample_positions(lambda k: Game(GameConfig(num_players=2, seed=seed + k, industria=True)),
                              lambda g, a: g.apply(a), positions, random.Random(seed))
    bots = our_bots(sims, seed)
    best = {name: float("inf") for name in bots}
    for _ in range(reps):
        for name, bot in bots.items():
            t = time.perf_counter()
            for g in states:
                bot.act(g)
            best[name] = min(best[name], time.perf_counter() - t)
    return {"positions": len(states), "sims": sims,
            **{f"{k}_sims_per_s": len(states) * sims / t for k, t in best.items()}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--positions", type=int, default=12)
    ap.add_argument("--sims", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=2, help="alternating repetitions (best reported; default 2)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--baseline", help="git revision to compare against in the same run")
    ap.add_argument("--pure-baseline", action="store_true",
                    help="baseline = this checkout with CLANS_PURE_PYTHON=1 (compiled engine against pure Python)")
    ap.add_argument("--industria", action="store_true",
                    help="also time ours on 2-player Industria positions (industria=True), in each version")
    args = ap.parse_args()
    with checkouts(args.baseline, prefix="clans-mcts-baseline-", pure_baseline=args.pure_baseline) as versions:
        envs = {"baseline": PURE} if args.pure_baseline else {}
        res: dict = {name: [] for name in versions}
        ind: dict = {name: [] for name in versions}
        for _ in range(args.rounds):
            for name, path in versions.items():
                res[name].append(measure_in(path, "mcts_speed", f"measure({args.positions}, {args.sims}, {args.seed})",
                                            env=envs.get(name)))
                if args.industria:
                    ind[name].append(measure_in(path, "mcts_speed",
                                                f"measure_industria({args.positions}, {args.sims}, {args.seed})",
                                                env=envs.get(name)))
    print(f"MCTS speed: {args.positions} positions x {args.sims} simulations, best of {args.rounds} rounds "
          f"(each the best of 2 passes)")
    best = {}
    for name in versions:
        r = {k: max(x[k] for x in res[name]) for k in res[name][0] if k.endswith("sims_per_s") or k.startswith("ratio")}
        best[name] = r
        print(f"{name:<9} ours random rollouts {r['ours_random_sims_per_s']:.0f} sims/s, ours as shipped "
              f"{r['ours_shipped_sims_per_s']:.0f} sims/s, OpenSpiel MCTSBot {r['openspiel_sims_per_s']:.0f} sims/s; "
              f"ours / MCTSBot: random rollouts x{r['ratio_random']:.2f}, as shipped x{r['ratio_shipped']:.2f}")
    if args.industria:
        print("\nIndustria (2 players, industria=True; ours only):")
        for name in versions:
            r = {k: max(x[k] for x in ind[name]) for k in ("ours_random_sims_per_s", "ours_shipped_sims_per_s")}
            best[name].update({"industria_" + k: v for k, v in r.items()})
            print(f"{name:<9} ours random rollouts {r['ours_random_sims_per_s']:.0f} sims/s, as shipped "
                  f"{r['ours_shipped_sims_per_s']:.0f} sims/s")
    if args.baseline or args.pure_baseline:
        c, b = best["current"], best["baseline"]
        print(f"\nratios current / baseline: ours random rollouts x{c['ours_random_sims_per_s'] / b['ours_random_sims_per_s']:.2f}, "
              f"as shipped x{c['ours_shipped_sims_per_s'] / b['ours_shipped_sims_per_s']:.2f}, MCTSBot (same engine) "
              f"x{c['openspiel_sims_per_s'] / b['openspiel_sims_per_s']:.2f}")
        if args.industria:
            print(f"  Industria: ours random rollouts x{c['industria_ours_random_sims_per_s'] / b['industria_ours_random_sims_per_s']:.2f}, "
                  f"as shipped x{c['industria_ours_shipped_sims_per_s'] / b['industria_ours_shipped_sims_per_s']:.2f}")


if __name__ == "__main__":
    main()
