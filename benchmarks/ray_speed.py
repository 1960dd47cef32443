"""Ray backend figures (issue 19), all measured in one run on this machine:

1. start-up cost of a local Ray: ``import ray``, ``ray.init(num_cpus=N)``, the first task's round
   trip and ``ray.shutdown()``, in a fresh process;
2. tournament games per second: the process pool (``--workers 2``), inline (1 process), and Ray
   tasks with 1 and 2 at a time (a warm local Ray: its start-up is figure 1), same games;
3. PPO self-play collection, learner steps (training samples) per second: in-process
   (``workers = 0``), subprocess workers (2) and Ray collector actors (1 and 2), same network
   and config, one untimed warm-up collection each (worker start-up is not counted);
4. the RLlib example (``examples/rllib_ppo.py``): seconds per training iteration.

Repeats keep the best (other jobs share the machine); tournament variants alternate, and the
in-process collection is re-measured between the worker variants.

    python benchmarks/ray_speed.py                          # the defaults (a few minutes on 2 cores)
    python benchmarks/ray_speed.py --games 12 --steps 1024 --repeats 1 --rllib-iterations 2
    python benchmarks/ray_speed.py --address auto           # figures 2-4 on an existing cluster
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

STARTUP = r"""
import time
t0 = time.perf_counter()
import ray
t1 = time.perf_counter()
ray.init(num_cpus={cpus}, include_dashboard=False, configure_logging=False, log_to_driver=False)
t2 = time.perf_counter()
ray.get(ray.remote(lambda: 1).remote())
t3 = time.perf_counter()
ray.shutdown()
t4 = time.perf_counter()
print(t1 - t0, t2 - t1, t3 - t2, t4 - t3)
"""


def startup(cpus: int) -> dict:
    out = subprocess.run([sys.executable, "-c", STARTUP.format(cpus=cpus)], capture_output=True, text=True,
                         check=True)
    imp, init, first, down = map(float, out.stdout.split()[-4:])
    return {"import ray": imp, f"ray.init(num_cpus={cpus})": init, "first task": first, "ray.shutdown()": down}


def tournament_rates(agents, games: int, repeats: int) -> dict:
    from training import ray_backend
    from training.tournament import run_tournament

    kw = dict(num_players=2, games_per_pairing=games, seed=11, progress=False)
    # warm the Ray workers (imports) so the timed runs measure playing, not process start-up
    run_tournament(agents, **{**kw, "games_per_pairing": 2}, executor=ray_backend.TournamentExecutor(workers=2))
    variants = {
        "process pool, 2 workers": lambda: run_tournament(agents, workers=2, **kw),
        "inline, 1 process": lambda: run_tournament(agents, workers=1, **kw),
        "Ray tasks, 1 worker": lambda: run_tournament(agents, executor=ray_backend.TournamentExecutor(workers=1), **kw),
        "Ray tasks, 2 workers": lambda: run_tournament(agents, executor=ray_backend.TournamentExecutor(workers=2),
                                                        **kw),
    }
    best: dict = {}
    ref = None
    for _ in range(repeats):
        for name, fn in variants.items():
            t = time.perf_counter()
            result = fn()
            dt = time.perf_counter() - t
            rows = [(g.game_seed, g.totals) for g in result.games]
            assert ref is None or rows == ref, f"{name}: different games"     # same games on every executor
            ref = rows
            n = len(result.games)
            best[name] = max(best.get(name, 0.0), n / dt)
    return {"games": n, "rates": best}


def collection_rates(steps: int, repeats: int) -> dict:
    import torch

    from clans_env.engine.actions import NUM_ACTIONS
    from training import ray_backend
    from training.config import PPOConfig
    from training.networks import build_network
    from training.selfplay import WorkerPool, collect, heuristic_available, make_encoder

    torch.set_num_threads(1)
    config = PPOConfig(rollout_steps=steps, pool_size=0)            # the shipped defaults otherwise
    encoder = make_encoder(config.num_players)
    torch.manual_seed(0)
    net = build_network(config, encoder.size, NUM_ACTIONS).eval()
    have_h = heuristic_available()
    # one pool at a time: a 2-CPU Ray holds at most 2 collector actors
    makers = {"subprocess workers, 2": lambda: WorkerPool(config.replace(workers=2), net.arch),
              "Ray actors, 1": lambda: ray_backend.RayWorkerPool(config, net.arch, workers=1),
              "Ray actors, 2": lambda: ray_backend.RayWorkerPool(config, net.arch, workers=2)}
    best: dict = {}

    def timed(name, fn, seed):
        t = time.perf_counter()
        batch = fn(seed)
        best[name] = max(best.get(name, 0.0), len(batch) / (time.perf_counter() - t))

    inline = lambda s: collect(config, encoder, net, [], s, steps, config.num_envs, have_h)  # noqa: E731
    inline(np.random.SeedSequence([0, 0]))                       # warm-up
    for r in range(repeats):
        timed("in-process (workers = 0)", inline, np.random.SeedSequence([1, r]))
    for name, make in makers.items():
        pool = make()
        try:
            fn = lambda s, p=pool: p.collect(config, net, [], s, steps)  # noqa: E731
            fn(np.random.SeedSequence([0, 0]))                   # warm-up: imports, first weights
            for r in range(repeats):
                timed(name, fn, np.random.SeedSequence([1, r]))
        finally:
            pool.close()
        timed("in-process (workers = 0)", inline, np.random.SeedSequence([2, len(best)]))   # interleaved
    return {"steps": steps, "num_envs": config.num_envs, "hidden": config.hidden_sizes, "rates": best}


def rllib_iterations(iterations: int, batch: int, env_runners: int) -> list[dict]:
    spec = importlib.util.spec_from_file_location("rllib_ppo_example", ROOT / "examples" / "rllib_ppo.py")
    example = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = example
    spec.loader.exec_module(example)
    t = time.perf_counter()
    rows = example.train(iterations=iterations, env_runners=env_runners, batch=batch, verbose=False)
    rows.insert(0, {"total_with_build_s": time.perf_counter() - t})
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cpus", type=int, default=2, help="CPUs of the local Ray (default 2)")
    p.add_argument("--address", default=None, help="an existing Ray cluster for figures 2-4")
    p.add_argument("--agents", default="random,heuristic", help="tournament agents, comma separated")
    p.add_argument("--games", type=int, default=24, help="tournament games per pairing (default 24)")
    p.add_argument("--steps", type=int, default=2048, help="learner steps per PPO collection (default 2048)")
    p.add_argument("--repeats", type=int, default=2, help="alternating repeats, best kept (default 2)")
    p.add_argument("--rllib-iterations", type=int, default=3)
    p.add_argument("--rllib-batch", type=int, default=2000, help="env steps per RLlib iteration (default 2000)")
    p.add_argument("--rllib-env-runners", type=int, default=1)
    p.add_argument("--skip", nargs="*", default=[], choices=["startup", "tournament", "collection", "rllib"])
    args = p.parse_args(argv)
    os.environ.setdefault("RAY_DEDUP_LOGS", "1")
    print(f"machine: {os.cpu_count()} CPUs; python {sys.version.split()[0]}", flush=True)

    if "startup" not in args.skip:
        s = startup(args.cpus)
        print("\n1. start-up of a local Ray (fresh process):")
        for k, v in s.items():
            print(f"   {k:<24} {v:6.2f} s")
        print(f"   {'total':<24} {sum(s.values()):6.2f} s", flush=True)

    from training import ray_backend
    t = time.perf_counter()
    ray_backend.init(args.address, num_cpus=args.cpus, log_to_driver=False)
    print(f"\n(this run's Ray: {'cluster ' + args.address if args.address else 'local'}, "
          f"{ray_backend.cluster_cpus()} CPUs, connected in {time.perf_counter() - t:.1f} s)", flush=True)

    if "tournament" not in args.skip:
        agents = args.agents.split(",")
        r = tournament_rates(agents, args.games, args.repeats)
        print(f"\n2. tournament {' vs '.join(agents)}, {r['games']} games (best of {args.repeats}):")
        base = r["rates"]["process pool, 2 workers"]
        for k, v in r["rates"].items():
            print(f"   {k:<26} {v:7.2f} games/s   x{v / base:.2f} vs process pool")
        print("   (identical games, scores and ratings on every executor: checked)", flush=True)

    if "collection" not in args.skip:
        r = collection_rates(args.steps, args.repeats)
        print(f"\n3. PPO self-play collection, {r['steps']} learner steps per collection, num_envs {r['num_envs']}, "
              f"hidden {r['hidden']} (best of {args.repeats}):")
        base = r["rates"]["in-process (workers = 0)"]
        for k, v in r["rates"].items():
            print(f"   {k:<26} {v:7.0f} steps/s   x{v / base:.2f} vs in-process")
        sys.stdout.flush()

    if "rllib" not in args.skip:
        rows = rllib_iterations(args.rllib_iterations, args.rllib_batch, args.rllib_env_runners)
        print(f"\n4. RLlib PPO example (ActionMaskingTorchRLModule, 2 players, batch {args.rllib_batch} env steps, "
              f"{args.rllib_env_runners} EnvRunner):")
        print(f"   build + {args.rllib_iterations} iterations: {rows[0]['total_with_build_s']:.1f} s")
        for row in rows[1:]:
            print(f"   iteration {row['iteration']}: {row['seconds']:6.2f} s  "
                  f"({row['env_steps'] / row['seconds']:.0f} env steps/s, {row['episodes']} games finished)")
    ray_backend.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
