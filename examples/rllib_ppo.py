"""RLlib's PPO with action masking on 2-player Clans of Caledonia (self-play, one shared policy).

    pip install -e ".[ray]"
    python examples/rllib_ppo.py --iterations 3                       # a local Ray, 2 CPUs
    python examples/rllib_ppo.py --iterations 50 --env-runners 8 --address auto   # on a cluster

The environment is our PettingZoo AEC env through ``clans_env.interop.rllib`` (RLlib's
``PettingZooEnv`` with the observation key renamed to ``observations`` and a picklable factory);
the policy is RLlib's ``ActionMaskingTorchRLModule``, so illegal actions get probability zero.
Both seats play the same module ``"shared"`` (parameter sharing), as in our own PPO self-play.
``tests/test_ray.py`` runs ``build_config(tiny=True)`` for one iteration. See docs/ray.md.
"""
from __future__ import annotations

import argparse
import time


def build_config(num_players: int = 2, env_runners: int = 1, tiny: bool = False, seed: int = 0,
                 hidden: tuple = (256, 256), batch: int | None = None):
    """RLlib ``PPOConfig`` for self-play on our environment with the action-masking module.

    tiny: a batch of a few hundred steps and a small network (the test / smoke size).
    batch: env steps per training iteration (default 4000; tiny: 256).
    Connects to Ray first (``ray_backend.init()``: a local Ray unless one is running or RAY_ADDRESS
    is set) to size the EnvRunners: each asks for 1 CPU, or a share of a local Ray's CPUs when there
    are more runners than CPUs (with a warning; ``ray_backend.actor_cpus``)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    from clans_env.interop.rllib import ENV_NAME, register, shared_policy
    from training import ray_backend

    register()
    ray_backend.init()
    runner_cpus = ray_backend.actor_cpus(env_runners, "RLlib EnvRunners")
    batch = batch or (256 if tiny else 4000)
    hidden = [16] if tiny else list(hidden)
    return (
        PPOConfig()
        # RLlib's env pre-check steps random (illegal) actions: it would only print warnings here
        .environment(ENV_NAME, env_config={"num_players": num_players, "reward": "win"}, disable_env_checking=True)
        .env_runners(num_env_runners=env_runners, num_envs_per_env_runner=1, num_cpus_per_env_runner=runner_cpus,
                     rollout_fragment_length="auto", sample_timeout_s=300)
        .multi_agent(policies={"shared"}, policy_mapping_fn=shared_policy)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            "shared": RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                                   model_config={"head_fcnet_hiddens": hidden, "fcnet_hiddens": hidden,
                                                 "head_fcnet_activation": "relu"})}))
        .training(train_batch_size_per_learner=batch, minibatch_size=min(batch, 128 if tiny else 512),
                  num_epochs=1 if tiny else 4, lr=3e-4, entropy_coeff=0.01)
        .learners(num_learners=0)          # the learner in the driver process (a GPU there if present)
        .debugging(seed=seed)
    )


def _plain(x):
    """numpy scalars from RLlib's result dict as plain ints / floats."""
    return x.item() if hasattr(x, "item") else x


def train(iterations: int = 3, num_players: int = 2, env_runners: int = 1, tiny: bool = False,
          seed: int = 0, verbose: bool = True, batch: int | None = None) -> list[dict]:
    """Build the algorithm and run ``iterations`` training iterations; returns one summary per
    iteration (seconds, env steps sampled, games finished, mean return per seat)."""
    algo = build_config(num_players, env_runners, tiny, seed, batch=batch).build_algo()
    rows = []
    try:
        for i in range(iterations):
            t = time.perf_counter()
            res = algo.train()
            runners = res.get("env_runners", {})
            # the win reward is zero-sum, so the episode return (summed over seats) is 0: report per seat
            row = {"iteration": i + 1, "seconds": round(time.perf_counter() - t, 3),
                   "env_steps": _plain(runners.get("num_env_steps_sampled",
                                                   runners.get("num_env_steps_sampled_lifetime"))),
                   "episodes": _plain(runners.get("num_episodes")),
                   "seat_return_mean": {a: round(float(v), 3)
                                        for a, v in sorted(runners.get("agent_episode_returns_mean", {}).items())}}
            rows.append(row)
            if verbose:
                print(row, flush=True)
    finally:
        algo.stop()
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--iterations", type=int, default=3)
    p.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    p.add_argument("--env-runners", type=int, default=1, help="RLlib EnvRunner actors sampling games")
    p.add_argument("--tiny", action="store_true", help="tiny batch and network (smoke test)")
    p.add_argument("--batch", type=int, default=None, help="env steps per iteration (default 4000; --tiny: 256)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--address", default=None, help="an existing Ray cluster (default: a local Ray)")
    p.add_argument("--num-cpus", type=int, default=2, help="CPUs of the local Ray (ignored with --address)")
    args = p.parse_args(argv)
    from training import ray_backend
    ray_backend.init(args.address, num_cpus=args.num_cpus)
    train(args.iterations, args.players, args.env_runners, args.tiny, args.seed, batch=args.batch)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
