"""``clans train ppo`` / ``clans train az``: start, or with ``--resume`` continue, a masked-PPO or an
AlphaZero-style self-play run (``clans train az`` is described in docs/alphazero.md).

    clans train ppo --config training/configs/ppo_2p.toml --out runs/my_run
    clans train ppo --out runs/my_run --resume                      # after a crash or Ctrl-C
    clans train ppo --config training/configs/ppo_2p.toml --out runs/x --total-steps 200000 \\
        --set entropy_coef=0.02 --set hidden_sizes=[128,128]

Flags override the config file; ``--set FIELD=VALUE`` reaches every field of ``PPOConfig``
(VALUE is read as TOML: numbers, true/false, "strings", [lists]). Also runnable as
``python -m clans_cli.train_cmd ppo ...``.
"""
from __future__ import annotations

import argparse
import sys
import tomllib

from .help_text import for_users

#: flag name -> PPOConfig field (the common knobs get their own flag; the rest go through --set)
_FLAGS = {
    "total_steps": (int, "learner decisions to train on in total"),
    "seed": (int, "run seed (every game, opponent draw and minibatch order derives from it)"),
    "num_envs": (int, "games played side by side"),
    "workers": (int, "subprocess workers for self-play (0 = in this process)"),
    "rollout_steps": (int, "learner decisions per update"),
    "learning_rate": (float, "initial Adam learning rate"),
    "entropy_coef": (float, "entropy bonus weight"),
    "value_coef": (float, "value loss weight"),
    "reward": (str, "terminal reward: win, rank, score or win+score"),
    "eval_every": (int, "updates between evaluation matches"),
    "checkpoint_every": (int, "updates between checkpoints"),
    "pool_size": (int, "past snapshots kept as opponents"),
}


def add_run_arguments(p, flags: dict, config_name: str, files: str, unit: str, device_help: str) -> None:
    """The arguments every ``clans train ALGORITHM`` shares: config, out, resume, the algorithm's own
    flags (``flags``: field -> (type, help)), --set, session budgets, progress, TensorBoard, device."""
    p.add_argument("--config", help=f"TOML or JSON config file (training/configs/{config_name} is the shipped one)")
    p.add_argument("--out", required=True, help=f"run directory ({files}); e.g. runs/NAME")
    p.add_argument("--resume", action="store_true", help="continue the run in --out from its checkpoint")
    for name, (typ, help_) in flags.items():
        p.add_argument("--" + name.replace("_", "-"), dest=name, type=typ, default=None, help=help_)
    p.add_argument("--set", dest="sets", action="append", default=[], metavar="FIELD=VALUE",
                   help="override any config field (VALUE in TOML syntax); repeatable")
    p.add_argument(f"--max-{unit}", type=int, default=None, help=f"stop after this many {unit} in this session")
    p.add_argument("--max-minutes", type=float, default=None,
                   help="stop (with a checkpoint) after this much wall time in this session")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--no-tensorboard", action="store_true", help="no TensorBoard event files")
    p.add_argument("--device", default="auto", help=device_help)


def add_train_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``train`` (with its ``ppo`` and ``az`` algorithms) on an argparse subparsers object."""
    train = subparsers.add_parser("train", help="train agents by self-play",
                                  description="Train agents by self-play (see docs/training.md).")
    algos = train.add_subparsers(dest="algorithm", metavar="ALGORITHM")
    algos.required = True
    ppo = algos.add_parser("ppo", help="masked PPO self-play", description=for_users(__doc__),
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    add_run_arguments(ppo, _FLAGS, "ppo_2p.toml", "checkpoints, logs, TensorBoard", "updates",
                      "where the PPO update runs: auto (a GPU when one is present, else the CPU; default), cpu, "
                      "cuda or cuda:N; self-play always runs on the CPU")
    from .main import add_ray_arguments
    add_ray_arguments(ppo, "self-play collection and evaluation matches on Ray actors (--workers of them; 0 = one "
                           "per Ray CPU), the PPO update in this process")
    ppo.set_defaults(func=run_train_ppo)
    add_az_parser(algos)
    return train


#: flag name -> AZConfig field for ``clans train az``
_AZ_FLAGS = {
    "iterations": (int, "self-play + training iterations in total"),
    "seed": (int, "run seed (every game, noise draw and minibatch derives from it)"),
    "games_per_iteration": (int, "self-play games per iteration"),
    "parallel_games": (int, "games played side by side (their searches share forward passes)"),
    "sims": (int, "simulations per searched move in self-play"),
    "eval_every": (int, "iterations between evaluations"),
    "checkpoint_every": (int, "iterations between checkpoints"),
}


def add_az_parser(algos) -> None:
    """``clans train az``: AlphaZero-style self-play (training/az.py, docs/alphazero.md)."""
    az = algos.add_parser("az", help="AlphaZero-style self-play (PUCT search + policy-value network)",
                          description="AlphaZero-style self-play: PUCT self-play games into a replay buffer, SGD on "
                                      "visit distributions and outcomes, evaluation against the previous best and "
                                      "reference agents; see docs/alphazero.md.\n\n"
                                      "  clans train az --config training/configs/az_2p.toml --out runs/az\n"
                                      "  clans train az --out runs/az --resume",
                          formatter_class=argparse.RawDescriptionHelpFormatter)
    add_run_arguments(az, _AZ_FLAGS, "az_2p.toml", "checkpoints, replay buffer, logs, TensorBoard", "iterations",
                      "where the SGD steps run: auto (a GPU when one is present, else the CPU; default), cpu, cuda or "
                      "cuda:N; self-play search runs on the CPU")
    az.set_defaults(func=run_train_az)


def run_train_az(args) -> int:
    from training.az import AZConfig, run

    try:
        config, overrides = run_config(args, AZConfig, _AZ_FLAGS)
        trainer = run(config, args.out, resume=args.resume, overrides=overrides, max_iterations=args.max_iterations,
                      max_seconds=None if args.max_minutes is None else 60 * args.max_minutes,
                      progress=not args.no_progress, tensorboard=not args.no_tensorboard, device=args.device)
    except (ValueError, FileNotFoundError, FileExistsError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"run {args.out}: {trainer.iteration} iterations, {trainer.games} self-play games; checkpoint "
          f"{trainer.out / 'checkpoint.pt'}, model {trainer.out / 'model.pt'}, best {trainer.out / 'best.pt'}")
    return 0


def run_config(args, config_class, flags: dict):
    """(config, overrides) of a ``clans train`` command: the flags and ``--set`` values as overrides;
    the config file (or the defaults) with them applied, or None with ``--resume`` (the checkpoint
    holds the configuration; the overrides are then checked against it)."""
    overrides = {name: getattr(args, name) for name in flags}
    overrides.update(_parse_sets(args.sets))
    if args.resume:
        if args.config:
            print("note: --resume uses the configuration stored in the checkpoint; --config is ignored",
                  file=sys.stderr)
        return None, overrides
    config = config_class.load(args.config) if args.config else config_class()
    return config.replace(**overrides), overrides


def _parse_sets(items: list[str]) -> dict:
    out = {}
    for item in items:
        if "=" not in item:
            raise SystemExit(f"--set expects FIELD=VALUE (got {item!r})")
        key, text = item.split("=", 1)
        try:
            value = tomllib.loads(f"v = {text}")["v"]
        except tomllib.TOMLDecodeError:
            value = text          # a bare word such as reward=win
        out[key.strip()] = value
    return out


def run_train_ppo(args) -> int:
    from training.config import PPOConfig
    from training.ppo import run

    try:
        config, overrides = run_config(args, PPOConfig, _FLAGS)
        kwargs = {}
        if getattr(args, "ray", False):
            from training.ray_backend import run_ppo as run
            kwargs["address"] = args.address
        trainer = run(config, args.out, resume=args.resume, overrides=overrides, max_updates=args.max_updates,
                      max_seconds=None if args.max_minutes is None else 60 * args.max_minutes,
                      progress=not args.no_progress, tensorboard=not args.no_tensorboard,
                      device=args.device, **kwargs)
    except RuntimeError as e:
        if type(e).__name__ != "RayUnavailable":
            raise
        print(f"error: {e}", file=sys.stderr)
        return 2
    except (ValueError, FileNotFoundError, FileExistsError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"run {args.out}: {trainer.update} updates, {trainer.global_step} learner steps; "
          f"checkpoint {trainer.out / 'checkpoint.pt'}, policy {trainer.out / 'model.pt'}")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="clans")
    add_train_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["train", *(sys.argv[1:] if argv is None else argv)])
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
