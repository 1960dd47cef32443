"""Random seeded games with Automas (issue 20): every level, 1-3 other seats, random clans, variants and
Industria modules; the invariants after every action, save/load and replay at the end. Prints the
count of games and errors, and the Automa's mean score per level.

    python benchmarks/automa_random_games.py --games 2000
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "tests"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--every", type=int, default=1, help="check the invariants every N actions (default 1)")
    args = ap.parse_args(argv)
    from clans_env import Game
    from clans_env.engine.invariants import check_invariants
    from test_automa import random_automa_config

    errors = []
    scores: dict[int, list[int]] = {}
    t0 = time.perf_counter()
    actions = 0
    for i in range(args.games):
        seed = args.seed + i
        rng = random.Random(seed)
        level = 1 + i % 5
        try:
            cfg = random_automa_config(rng, seed, level)
            g = Game(cfg)
            k = 0
            while not g.is_terminal():
                if g.current_player in cfg.automa:
                    raise AssertionError("an Automa seat is to decide")
                if k % args.every == 0:
                    check_invariants(g)
                g.apply(rng.choice(g.legal_actions()))
                k += 1
            check_invariants(g)
            actions += k
            text = g.to_json()
            if Game.from_json(text).to_json() != text:
                raise AssertionError("save/load changed the game")
            if Game.replay(json.loads(json.dumps(g.record()))["config"], g.history).to_json() != text:
                raise AssertionError("replay differs")
            rows = g.final_scores()
            for s, lv in cfg.automa.items():
                scores.setdefault(lv, []).append(rows[s]["total"])
        except Exception as e:  # noqa: BLE001 - counted and reported
            errors.append((seed, f"{type(e).__name__}: {e}", traceback.format_exc(limit=-3)))
        if (i + 1) % 100 == 0:
            print(f"  {i + 1}/{args.games} games, {len(errors)} errors, {time.perf_counter() - t0:.0f} s",
                  file=sys.stderr, flush=True)
    print(f"{args.games} random games with Automas ({actions} player actions), {len(errors)} errors, "
          f"{time.perf_counter() - t0:.0f} s")
    print("Automa mean score per level (random opponents): " + ", ".join(
        f"L{lv} {sum(v) / len(v):.1f} (n={len(v)})" for lv, v in sorted(scores.items())))
    for seed, msg, tb in errors[:5]:
        print(f"seed {seed}: {msg}\n{tb}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
