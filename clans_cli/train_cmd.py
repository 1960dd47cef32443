"""``clans train ppo``: start, or with ``--resume`` continue, a masked-PPO self-play run.

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


def add_train_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``train`` (with its ``ppo`` algorithm) on an argparse subparsers object."""
    train = subparsers.add_parser("train", help="train agents by self-play",
                                  description="Train agents by self-play (see docs/training.md).")
    algos = train.add_subparsers(dest="algorithm", metavar="ALGORITHM")
    algos.required = True
    ppo = algos.add_parser("ppo", help="masked PPO self-play", description=for_users(__doc__),
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    ppo.add_argument("--config", help="TOML or JSON config file (training/configs/ppo_2p.toml is the shipped one)")
    ppo.add_argument("--out", required=True, help="run directory (checkpoints, logs, TensorBoard); e.g. runs/NAME")
    ppo.add_argument("--resume", action="store_true", help="continue the run in --out from its checkpoint")
    for name, (typ, help_) in _FLAGS.items():
        ppo.add_argument("--" + name.replace("_", "-"), dest=name, type=typ, default=None, help=help_)
    ppo.add_argument("--set", dest="sets", action="append", default=[], metavar="FIELD=VALUE",
                     help="override any config field (VALUE in TOML syntax); repeatable")
    ppo.add_argument("--max-updates", type=int, default=None, help="stop after this many updates in this session")
    ppo.add_argument("--max-minutes", type=float, default=None,
                     help="stop (with a checkpoint) after this much wall time in this session")
    ppo.add_argument("--no-progress", action="store_true", help="no progress bar")
    ppo.add_argument("--no-tensorboard", action="store_true", help="no TensorBoard event files")
    ppo.add_argument("--device", default="auto",
                     help="where the PPO update runs: auto (a GPU when one is present, else the CPU; default), cpu, "
                          "cuda or cuda:N; self-play always runs on the CPU")
    from .main import add_ray_arguments
    add_ray_arguments(ppo, "self-play collection and evaluation matches on Ray actors (--workers of them; 0 = one "
                           "per Ray CPU), the PPO update in this process")
    ppo.set_defaults(func=run_train_ppo)
    return train


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

    overrides = {name: getattr(args, name) for name in _FLAGS}
    overrides.update(_parse_sets(args.sets))
    try:
        if args.resume:
            if args.config:
                print("note: --resume uses the configuration stored in the checkpoint; --config is ignored",
                      file=sys.stderr)
            config = None
        else:
            config = PPOConfig.load(args.config) if args.config else PPOConfig()
            config = config.replace(**overrides)
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
