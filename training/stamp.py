"""Add the weights digest to model / checkpoint files written before digests existed.

    python -m training.stamp models/my_run/model.pt runs/ppo/checkpoint.pt

Each file is read as ``read_checkpoint`` reads it (``torch.load(weights_only=True)``, the arch
and shapes checked, weights finite) and rewritten atomically with ``weights_sha256``; its weights
are not changed, so it plays exactly as before. A file that already has a digest is verified and
left alone: stamping never blesses a file whose weights no longer match their digest.
"""
from __future__ import annotations

import argparse
import sys
import warnings

import torch

from agents.ppo import DIGEST_FIELD, CheckpointError, read_checkpoint

from .ppo import atomic_torch_save


def stamp_file(path) -> bool:
    """Give ``path`` its weights digest; False if it had one (and it matched). Raises
    ``CheckpointError`` for a damaged file."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")           # the "no digest" warning is why we are here
        read_checkpoint(path, num_actions=None)
    ckpt = torch.load(path, map_location="cpu", weights_only=True)
    if DIGEST_FIELD in ckpt:
        return False
    atomic_torch_save(ckpt, path)
    return True


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.stamp", description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", help="model.pt / checkpoint.pt files")
    args = parser.parse_args(argv)
    status = 0
    for path in args.paths:
        try:
            print(f"{path}: {'stamped' if stamp_file(path) else 'already has a digest (verified)'}")
        except (CheckpointError, FileNotFoundError) as e:
            print(f"{path}: {e}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
