"""Digests of random games, to show that a change leaves every game of a seed as it was.

For each seed a game is played by ``random.Random(seed)`` choosing from ``legal_actions()``; the digest
covers every legal list, every chosen action's name, the observation of the deciding seat (when
``--observations``) and the final score sheet. Two runs of the same command on two commits agree seed by
seed exactly when the games are the same.

    python benchmarks/game_digests.py --games 200 --out /tmp/before.json             # base 2-4 players
    python benchmarks/game_digests.py --games 200 --industria --out /tmp/before_i.json
    python benchmarks/game_digests.py --compare /tmp/before.json /tmp/after.json      # names the seeds that differ

``--option key=value`` sets more GameConfig options (JSON values: ``--option automa={"1":3}``).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from clans_env import Game, GameConfig  # noqa: E402


def game_digest(config: GameConfig, seed: int, observations: bool = False) -> tuple[str, int]:
    """(hex digest, number of decisions) of the random game ``seed`` under ``config``."""
    rng = random.Random(seed)
    g = Game(config)
    h = hashlib.sha256()
    encoder = None
    if observations:
        from clans_env.encoding.observation import ObservationEncoder
        encoder = ObservationEncoder(config.num_players, industria=config.industria_modules)
    n = 0
    while not g.is_terminal():
        legal = g.legal_actions()
        h.update(repr(legal).encode())
        if encoder is not None:
            h.update(encoder.encode(g, g.current_player).tobytes())
        a = rng.choice(legal)
        h.update(g.action_to_string(a).encode())
        g.apply(a)
        n += 1
    h.update(json.dumps(g.final_scores(), sort_keys=True, default=str).encode())
    return h.hexdigest(), n


def _options(pairs) -> dict:
    out = {}
    for p in pairs or ():
        k, _, v = p.partition("=")
        try:
            out[k] = json.loads(v)
        except json.JSONDecodeError:
            out[k] = v
    if isinstance(out.get("automa"), dict):
        out["automa"] = {int(k): v for k, v in out["automa"].items()}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=100, help="seeds 0..N-1 for each player count")
    ap.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    ap.add_argument("--industria", action="store_true")
    ap.add_argument("--option", action="append", help="more GameConfig options, key=JSON value")
    ap.add_argument("--observations", action="store_true", help="digest the observation of every decision too")
    ap.add_argument("--out", help="write {key: digest} here")
    ap.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    args = ap.parse_args(argv)
    if args.compare:
        a, b = (json.loads(Path(p).read_text()) for p in args.compare)
        differ = sorted(k for k in a if k in b and a[k] != b[k])
        missing = sorted(set(a) ^ set(b))
        print(f"{len(a)} vs {len(b)} games; {len(differ)} differ; {len(missing)} only in one file")
        for k in differ[:20]:
            print("  differs:", k)
        return 1 if differ or missing else 0
    extra = _options(args.option)
    out, t0, decisions = {}, time.perf_counter(), 0
    for players in args.players:
        for seed in range(args.games):
            config = GameConfig(**{"num_players": players, "seed": seed, "industria": args.industria, **extra})
            digest, n = game_digest(config, seed, args.observations)
            out[f"{players}p/{seed}"] = digest
            decisions += n
    dt = time.perf_counter() - t0
    print(f"{len(out)} games, {decisions} decisions in {dt:.1f} s")
    if args.out:
        Path(args.out).write_text(json.dumps(out, indent=0, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
