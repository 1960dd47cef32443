"""Evaluate a trained PPO policy against Random and Heuristic, and measure self-play throughput.

    python benchmarks/ppo_eval.py eval --model models/ppo_2p/model.pt --random-games 200 \\
        --heuristic-games 100 --out models/ppo_2p/eval.json
    python benchmarks/ppo_eval.py plot --log runs/ppo_2p/log.jsonl --out models/ppo_2p/training_curve.png
    python benchmarks/ppo_eval.py throughput --model models/ppo_2p/model.pt --seconds 20

``eval``: greedy policy, seats alternated (game i puts the policy in seat i % players), fixed
game seeds; win rate counts a shared first place as half a win; 95% Wilson intervals; the
policy's score distribution (mean, std, quartiles) and its margin over the best opponent.
A consistency check replays a few games move by move through ``PPOAgent`` (the interface
tournaments use) and asserts it picks the same moves as the batched evaluation.

``throughput``: learner decisions per second of self-play collection in this process
(``workers=0``) against subprocess workers (``workers=2``) and against a baseline measured in
the same run: the engine playing random legal moves without encoding or network.
"""
from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np
import torch


def cmd_eval(args) -> int:
    from agents.ppo import load_policy
    from clans_env.engine.game import atomic_write_text
    from training.evaluate import evaluate_net
    from training.selfplay import make_encoder

    torch.set_num_threads(1)
    net, ckpt = load_policy(args.model)
    n = net.num_players
    game_options = ckpt.get("config", {}).get("game_options", {})
    enc = make_encoder(n, game_options)             # the model's own game: Industria models see its modules
    report = {"model": str(args.model), "num_players": n, "game_options": game_options, "trained_steps": ckpt.get("counters", {}).get("global_step"),
              "greedy": True, "seed": args.seed, "win_rate_note": "a shared first place counts as half a win",
              "results": {}}
    for opponent, games in (("random", args.random_games), ("heuristic", args.heuristic_games)):
        if games <= 0:
            continue
        t0 = time.perf_counter()
        res = evaluate_net(net, enc, n, opponent, games, seed=args.seed, game_options=game_options,
                           num_slots=args.slots)
        res["seconds"] = time.perf_counter() - t0
        report["results"][opponent] = res
        lo, hi = res["ci95"]
        s = res["score"]
        print(f"vs {opponent:9s}: {res['games']} games  W/T/L {res['wins']}/{res['ties']}/{res['losses']}  "
              f"win rate {res['win_rate']:.3f}  95% CI [{lo:.3f}, {hi:.3f}]  score mean {s['mean']:.1f} "
              f"sd {s['std']:.1f} q1/med/q3 {s['q1']:.0f}/{s['median']:.0f}/{s['q3']:.0f}  "
              f"opp mean {res['opponent_score']['mean']:.1f}  margin mean {res['margin']['mean']:+.1f}  "
              f"({res['seconds']:.0f}s)")
    if args.check_games > 0:
        report["agent_consistency_games"] = check_agent_consistency(args.model, net, enc, n, args.check_games,
                                                                    args.seed, game_options)
        print(f"PPOAgent consistency: {args.check_games} games replayed move by move, identical moves")
    if args.out:
        atomic_write_text(args.out, json.dumps(report, indent=2) + "\n")
        print(f"wrote {args.out}")
    return 0


def check_agent_consistency(model, net, enc, n, games: int, seed: int, game_options: dict | None = None) -> int:
    """PPOAgent (one decision at a time) and the batched greedy evaluation choose the same moves."""
    from agents import RandomAgent
    from agents.ppo import PPOAgent
    from clans_env import Game, GameConfig
    from clans_env.engine.actions import NUM_ACTIONS

    agent = PPOAgent(model, greedy=True)
    for i in range(games):
        g = Game(GameConfig(num_players=n, seed=seed + i, **(game_options or {})))
        opp = RandomAgent(seed=i)
        while not g.is_terminal():
            if g.current_player == i % n:
                a = agent.act(g)
                obs = enc.encode(g, g.current_player)[None]
                mask = np.zeros((1, NUM_ACTIONS), bool)
                mask[0, g.legal_actions()] = True
                b = int(net.act(obs, mask, greedy=True)[0][0])
                if a != b:
                    raise AssertionError(f"PPOAgent chose {a} but the batched policy {b} (game {i})")
            else:
                a = opp.act(g)
            g.apply(a)
    return games


def cmd_plot(args) -> int:
    from training.evaluate import plot_training_curve
    plot_training_curve(args.log, args.out, title=args.title)
    print(f"wrote {args.out}")
    return 0


def cmd_throughput(args) -> int:
    import random

    from agents.ppo import load_policy
    from clans_env import Game, GameConfig
    from training.config import PPOConfig
    from training.selfplay import WorkerPool, collect, make_encoder

    torch.set_num_threads(1)
    net, ckpt = load_policy(args.model)
    config = PPOConfig.from_dict(ckpt["config"]).replace(num_envs=args.num_envs, workers=0)
    enc = make_encoder(config.num_players, config.game_options)

    def timed(fn):
        steps = decisions = 0
        t0 = time.perf_counter()
        k = 0
        while time.perf_counter() - t0 < args.seconds:
            s, d = fn(k)
            steps += s
            decisions += d
            k += 1
        dt = time.perf_counter() - t0
        return steps / dt, decisions / dt

    def engine_random(k):
        g = Game(GameConfig(num_players=config.num_players, seed=k))
        r = random.Random(k)
        d = 0
        while not g.is_terminal():
            legal = g.legal_actions()
            g.apply(legal[r.randrange(len(legal))])
            d += 1
        return d, d

    rows = {}
    _, rows["engine_random_decisions_per_s"] = timed(engine_random)
    rows["selfplay_workers0_steps_per_s"], rows["selfplay_workers0_decisions_per_s"] = timed(
        lambda k: _collect_counts(collect(config, enc, net, [], k, 2048, config.num_envs)))
    if args.workers > 0:
        wcfg = config.replace(workers=args.workers)
        pool = WorkerPool(wcfg, net.arch)
        try:
            pool.collect(wcfg, net, [], np.random.SeedSequence(0), 256)      # warm-up: process start-up
            rows[f"selfplay_workers{args.workers}_steps_per_s"], rows[f"selfplay_workers{args.workers}_decisions_per_s"] = \
                timed(lambda k: _collect_counts(pool.collect(wcfg, net, [], np.random.SeedSequence(k), 2048)))
        finally:
            pool.close()
    base = rows["engine_random_decisions_per_s"]
    print(f"machine: {platform.processor() or platform.machine()}, {torch.get_num_threads()} torch thread(s)")
    for k, v in rows.items():
        print(f"{k:40s} {v:10.0f}   ({v / base:.3f} x engine random play)")
    if args.workers > 0:
        ratio = rows[f"selfplay_workers{args.workers}_steps_per_s"] / rows["selfplay_workers0_steps_per_s"]
        print(f"workers={args.workers} vs in-process: {ratio:.2f}x")
    return 0


def _collect_counts(rollout) -> tuple[int, int]:
    return len(rollout), rollout.decisions


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("eval", help="win rates with confidence intervals and score distributions")
    e.add_argument("--model", required=True)
    e.add_argument("--random-games", type=int, default=200)
    e.add_argument("--heuristic-games", type=int, default=100)
    e.add_argument("--seed", type=int, default=2024, help="evaluation seed (other than the training eval seed)")
    e.add_argument("--slots", type=int, default=16, help="games played side by side")
    e.add_argument("--check-games", type=int, default=2, help="games replayed through PPOAgent as a cross-check")
    e.add_argument("--out", help="write the report as JSON")
    e.set_defaults(func=cmd_eval)
    pl = sub.add_parser("plot", help="training curve (win rates and mean score over steps) from log.jsonl")
    pl.add_argument("--log", required=True)
    pl.add_argument("--out", required=True)
    pl.add_argument("--title", default=None)
    pl.set_defaults(func=cmd_plot)
    t = sub.add_parser("throughput", help="self-play steps/s, in-process vs workers, vs engine random play")
    t.add_argument("--model", required=True)
    t.add_argument("--seconds", type=float, default=20.0)
    t.add_argument("--num-envs", type=int, default=32)
    t.add_argument("--workers", type=int, default=2)
    t.set_defaults(func=cmd_throughput)
    args = p.parse_args(argv)
    if hasattr(args, "model") and not Path(args.model).is_file():
        print(f"error: model file {args.model!r} does not exist", file=sys.stderr)
        return 2
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
