"""PPO speed: self-play collection in learner steps per second, and the PPO agent's batch-1 move
time with its network forward pass alone beside it.

    python benchmarks/ppo_speed.py                      # this checkout
    python benchmarks/ppo_speed.py --baseline main      # also a git revision, alternating, with ratios
    python benchmarks/ppo_speed.py --only collect --warm --baseline main    # steady-state collection
    python benchmarks/ppo_speed.py --breakdown          # where collection time goes (this checkout)
    python benchmarks/ppo_speed.py --only collect --warm --samples 4096 --seeds 8 --rounds 2 --baseline cc91c59
    python benchmarks/ppo_speed.py --only collect --warm --samples 4096 --seeds 8 --rounds 2 --workers 2 --baseline cc91c59

Collection is ``training.selfplay.collect`` in this process (no subprocess workers, one torch
thread; with ``--workers N``, ``PPOTrainer``'s collection by N subprocess workers instead, in both
versions) with the default ``PPOConfig`` (2 players, 32 games side by side, opponents drawn per seat:
the learner itself, a pool of two frozen copies, random and heuristic agents), a freshly
initialised network and a fixed seed, so both versions play the same games when their engines and
their sampling agree. Learner steps are the PPO samples recorded (the learner's non-forced decisions).

Since ``IncrementalActor`` (sixth session; one uniform per position since the seventh) samples
otherwise than ``PolicyValueNet.act``, a seed plays other games than in earlier versions, and with
them another mix of opponents. A game against the
Heuristic costs about ten others (its one-step lookahead), and with ~65 games per collection their
count varies by a third from seed to seed, so one seed's ratio says more about the mix than about
speed. ``--seeds N`` pools N seeds' collections (total samples over total seconds): use it when
comparing with a version whose sampling differs.

The move time is ``PPOAgent.act`` (greedy) on positions sampled from random 2-player games with
the shipped model ``models/ppo_2p/model.pt``; "forward" is the network call on the same batch-1
tensors alone, and "overhead" is the difference (encoding, mask, distribution, choice).

Shared machines are noisy: with ``--baseline`` the versions run alternately in fresh processes
(``benchmarks/versions.py``) and each figure is the best of ``--rounds``, given as a ratio to the
baseline of the same run.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))     # this folder's shared helpers
from versions import checkouts, measure_in  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL = os.path.join(ROOT, "models", "ppo_2p", "model.pt")


def _collection_setup(seed: int):
    """What both collection measurements play with: the default ``PPOConfig``, its encoder, a freshly
    initialised learner and a pool of two frozen copies, one torch thread, the map topologies built."""
    import copy

    import torch

    from clans_env import Game, GameConfig
    from clans_env.engine.actions import NUM_ACTIONS
    from training.config import PPOConfig
    from training.networks import build_network
    from training.selfplay import make_encoder

    for i in range(200):                  # warm up: the map topologies (16 of them, cached) are built
        Game(GameConfig(num_players=2, seed=10_000 + i))
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    config = PPOConfig()
    encoder = make_encoder(config.num_players, config.game_options)
    learner = build_network(config, encoder.size, NUM_ACTIONS).eval()
    return config, encoder, learner, [copy.deepcopy(learner), copy.deepcopy(learner)]


def measure_collect(samples: int = 3000, seed: int = 0, warm: bool = False, workers: int = 0) -> dict:
    """Learner steps per second of one ``collect`` call of at least ``samples`` samples; ``warm``:
    time the second of two identical calls, as in a training run's steady state (the first call
    also pays for touching fresh memory, which is slow on these virtual machines; where ``collect``
    takes ``reuse``, the second call writes over the first one's samples, as ``PPOTrainer`` does).
    ``workers`` >= 1: the collection of ``PPOTrainer`` with that many subprocess workers
    (``WorkerPool``, the ``workers`` config field), each on a share of the games, the samples sent back
    to this process; the timed call is then always the second on the pool (the first also waits for
    the workers to start)."""
    import inspect

    from training.selfplay import collect

    config, encoder, learner, pool = _collection_setup(seed)
    if workers:
        import dataclasses

        import numpy as np

        from training.selfplay import WorkerPool

        config = dataclasses.replace(config, workers=workers)
        workers_pool = WorkerPool(config, learner.arch)
        try:
            workers_pool.collect(config, learner, pool, np.random.SeedSequence(seed), samples)
            t = time.perf_counter()
            r = workers_pool.collect(config, learner, pool, np.random.SeedSequence(seed), samples)
            wall = time.perf_counter() - t
        finally:
            workers_pool.close()
    else:
        extra = {}
        if warm:
            first = collect(config, encoder, learner, pool, seed, samples, config.num_envs)
            if "reuse" in inspect.signature(collect).parameters:
                extra["reuse"] = first
            del first
        t = time.perf_counter()
        r = collect(config, encoder, learner, pool, seed, samples, config.num_envs, **extra)
        wall = time.perf_counter() - t
    return {"samples": len(r), "decisions": r.decisions, "games": len(r.results), "seconds": wall,
            "steps_per_s": len(r) / wall, "decisions_per_s": r.decisions / wall}


def measure_breakdown(samples: int = 3000, seed: int = 0) -> dict:
    """Seconds of a warm collection (as ``measure_collect(warm=True)``) spent in the networks
    (``IncrementalActor.act``: first-layer update, the rest of the network, the
    distribution and sampling), the fixed agents (heuristic, random), the observation encoder, and
    everything else (engine, legal lists, the loop). ``1 / network share`` bounds what speeding up
    everything but the networks can give."""
    import collections

    import agents.heuristic as heuristic
    import agents.random_agent as random_agent
    import training.selfplay as selfplay
    from training.networks import IncrementalActor

    spent: collections.Counter = collections.Counter()
    calls: collections.Counter = collections.Counter()
    rows = [0]

    def timed(owner, name, key):
        inner = getattr(owner, name)

        def wrapper(*a, **k):
            calls[key] += 1
            if key == "networks":
                rows[0] += len(a[1])              # act(self, obs, mask, rows, ...)
            t = time.perf_counter()
            try:
                return inner(*a, **k)
            finally:
                spent[key] += time.perf_counter() - t
        setattr(owner, name, wrapper)
        return owner, name, inner

    config, encoder, learner, pool = _collection_setup(seed)
    first = selfplay.collect(config, encoder, learner, pool, seed, samples, config.num_envs)
    originals = [timed(IncrementalActor, "act", "networks"),
                 timed(heuristic.HeuristicAgent, "act", "heuristic"), timed(random_agent.RandomAgent, "act", "random"),
                 timed(selfplay, "encode_batch", "encode")]
    try:
        t = time.perf_counter()
        r = selfplay.collect(config, encoder, learner, pool, seed, samples, config.num_envs, reuse=first)
        wall = time.perf_counter() - t
    finally:
        for owner, name, inner in originals:
            setattr(owner, name, inner)
    parts = {"networks (IncrementalActor.act)": spent["networks"],
             "heuristic agents": spent["heuristic"], "random agents": spent["random"],
             "observation encoder": spent["encode"]}
    parts["engine, legal lists, loop"] = wall - sum(parts.values())
    return {"seconds": wall, "samples": len(r), "steps_per_s": len(r) / wall,
            "shares": {k: v / wall for k, v in parts.items()},
            "network_calls": calls["networks"], "rows_per_call": rows[0] / max(calls["networks"], 1),
            "bound_if_only_networks_left": wall / max(spent["networks"], 1e-9)}


def measure_move(positions: int = 150, reps: int = 5, seed: int = 0) -> dict:
    """Milliseconds per greedy ``PPOAgent.act`` and per network forward pass (batch 1)."""
    import random

    import torch

    from agents.ppo import PPOAgent
    from clans_env import Game, GameConfig
    from clans_env.engine.actions import NUM_ACTIONS

    torch.set_num_threads(1)
    rng = random.Random(seed)
    states = []
    i = 0
    while len(states) < positions:
        g = Game(GameConfig(num_players=2, seed=seed + i))
        i += 1
        while not g.is_terminal():
            legal = g.legal_actions()
            if len(legal) > 1 and rng.random() < 0.05:
                states.append(g.clone())
            g.apply(legal[rng.randrange(len(legal))])
    states = states[:positions]
    agent = PPOAgent(MODEL, greedy=True, seed=seed)
    agent.act(states[0])                              # encoder built, first-call costs paid
    enc = agent._encoder_for(states[0])
    inputs = []
    for g in states:
        obs = torch.from_numpy(enc.encode(g, g.current_player)).unsqueeze(0)
        mask = torch.zeros((1, NUM_ACTIONS), dtype=torch.bool)
        mask[0, g.legal_actions()] = True
        inputs.append((obs, mask))
    # per position, the best of ``reps`` timings of each (interleaved, so that load bursts on a
    # shared machine hit both alike)
    perf = time.perf_counter
    t_act = [float("inf")] * len(states)
    t_fwd = [float("inf")] * len(states)
    with torch.no_grad():
        for _ in range(reps):
            for i, (g, (obs, mask)) in enumerate(zip(states, inputs)):
                t = perf()
                agent.act(g)
                t_act[i] = min(t_act[i], perf() - t)
                t = perf()
                agent.net(obs, mask)
                t_fwd[i] = min(t_fwd[i], perf() - t)
    best_act = sum(t_act) / len(states)
    best_fwd = sum(t_fwd) / len(states)
    return {"positions": len(states), "move_ms": best_act * 1e3, "forward_ms": best_fwd * 1e3,
            "overhead_ms": (best_act - best_fwd) * 1e3}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=3000, help="learner samples per collection (default 3000)")
    ap.add_argument("--positions", type=int, default=150, help="positions for the move time (default 150)")
    ap.add_argument("--rounds", type=int, default=3, help="alternating repetitions (best reported; default 3)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--seeds", type=int, default=1,
                    help="collections of seeds --seed, --seed+1, ...: the figure is their pooled steps/s (default 1)")
    ap.add_argument("--baseline", help="git revision to compare against in the same run")
    ap.add_argument("--only", choices=["collect", "move"], help="measure only one of the two")
    ap.add_argument("--warm", action="store_true", help="time the second of two identical collections")
    ap.add_argument("--workers", type=int, default=0,
                    help="collect with this many subprocess workers (PPOTrainer's workers field; default 0: in process)")
    ap.add_argument("--breakdown", action="store_true",
                    help="only: where a warm collection's time goes, in this checkout (best of --rounds)")
    args = ap.parse_args()
    if args.breakdown:
        runs = [measure_in(ROOT, "ppo_speed", f"measure_breakdown({args.samples}, {args.seed})")
                for _ in range(args.rounds)]
        r = max(runs, key=lambda r: r["steps_per_s"])
        print(f"PPO collection breakdown: best of {args.rounds}, warm, one torch thread: {r['steps_per_s']:.0f} "
              f"learner steps/s, {r['samples']} samples in {r['seconds']:.2f} s, {r['network_calls']} network "
              f"calls of {r['rows_per_call']:.1f} positions on average")
        for k, v in r["shares"].items():
            print(f"  {k:<32} {100 * v:5.1f}%")
        print(f"  with everything but the networks free: at most x{r['bound_if_only_networks_left']:.2f} faster")
        return
    parts = [p for p in ("collect", "move") if args.only in (None, p)]
    seeds = list(range(args.seed, args.seed + max(1, args.seeds)))
    calls = {**{("collect", s): f"measure_collect({args.samples}, {s}, {args.warm}, {args.workers})" for s in seeds},
             ("move", args.seed): f"measure_move({args.positions}, 5, {args.seed})"}
    jobs = [(p, s) for p in parts for s in (seeds if p == "collect" else [args.seed])]
    with checkouts(args.baseline, prefix="clans-ppo-baseline-") as versions:
        res: dict = {(name, job): [] for name in versions for job in jobs}
        for _ in range(args.rounds):
            for job in jobs:
                for name, path in versions.items():
                    res[(name, job)].append(measure_in(path, "ppo_speed", calls[job]))
    print(f"PPO speed: best of {args.rounds} alternating rounds, Python {sys.version.split()[0]}, one torch thread"
          + (", collection timed on a second, warm call" if args.warm else "")
          + ((f", {args.workers} subprocess workers" if args.workers else ", collection in process")
             if "collect" in parts else "")
          + (f", collections of seeds {seeds[0]}-{seeds[-1]} pooled" if len(seeds) > 1 and "collect" in parts else ""))
    best = {}
    for name in versions:
        if "collect" in parts:
            runs = [max(res[(name, ("collect", s))], key=lambda r: r["steps_per_s"]) for s in seeds]
            r = {k: sum(run[k] for run in runs) for k in ("samples", "decisions", "games", "seconds")}
            r["steps_per_s"], r["decisions_per_s"] = r["samples"] / r["seconds"], r["decisions"] / r["seconds"]
            r["per_seed"] = [run["steps_per_s"] for run in runs]
            best[(name, "collect")] = r
            print(f"{name:<9} collection: {r['steps_per_s']:.0f} learner steps/s ({r['samples']} samples, "
                  f"{r['decisions']} decisions, {r['games']} games, {r['decisions_per_s']:.0f} decisions/s)")
        if "move" in parts:
            r = min(res[(name, ("move", args.seed))], key=lambda r: r["move_ms"])
            best[(name, "move")] = r
            print(f"{name:<9} batch-1 move: {r['move_ms']:.3f} ms (forward {r['forward_ms']:.3f} ms, other "
                  f"{r['overhead_ms']:.3f} ms; {r['positions']} positions)")
    if args.baseline:
        print("\nratios current / baseline:")
        if "collect" in parts:
            c, b = best[("current", "collect")], best[("baseline", "collect")]
            print(f"  collection learner steps/s x{c['steps_per_s'] / b['steps_per_s']:.2f}")
            if len(seeds) > 1:
                print("  per seed: " + ", ".join(f"{s}: x{x / y:.2f}" for s, x, y in zip(seeds, c["per_seed"], b["per_seed"])))
        if "move" in parts:
            c, b = best[("current", "move")], best[("baseline", "move")]
            print(f"  move time x{c['move_ms'] / b['move_ms']:.2f}, without the forward pass "
                  f"x{c['overhead_ms'] / b['overhead_ms']:.2f}")

if __name__ == "__main__":
    main()
