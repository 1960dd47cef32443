"""Random seeded games with Automas (issue 20): every level, 1-3 other seats, random clans, variants and
Industria modules; the invariants after every action, save/load and replay at the end. Prints the
count of games and errors, and the Automa's mean score per level. ``--trains``: every game with the Train
module (tests/test_automa_trains.py ``random_train_config``: 1-3 other seats, industria=True or trains=True;
also checks the Automa's Train lines: round5VPTrain, no Milestones, no Train on the map).

    python benchmarks/automa_random_games.py --games 2000
    python benchmarks/automa_random_games.py --games 500 --trains
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
    ap.add_argument("--trains", action="store_true", help="every game with the Train module (Automa §6.3)")
    args = ap.parse_args(argv)
    from clans_env import Game
    from clans_env.engine.invariants import check_invariants
    from clans_env.engine.rules.automa import ROUND5_VP_TRAIN
    from test_automa import random_automa_config
    from test_automa_trains import random_train_config

    errors = []
    scores: dict[int, list[int]] = {}
    t0 = time.perf_counter()
    actions = 0
    for i in range(args.games):
        seed = args.seed + i
        rng = random.Random(seed)
        level = 1 + i % 5
        try:
            if args.trains:
                cfg = random_train_config(rng, seed, level, 1 + (i // 5) % 3)
                if not cfg.trains:
                    raise AssertionError("the Train module is off")
            else:
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
                if cfg.trains and (rows[s]["delivery_track"] != ROUND5_VP_TRAIN[lv - 1] or rows[s]["milestones"]):
                    raise AssertionError(f"Automa {s} Train lines {rows[s]}")
        except Exception as e:  # noqa: BLE001 - counted and reported
            errors.append((seed, f"{type(e).__name__}: {e}", traceback.format_exc(limit=-3)))
        if (i + 1) % 100 == 0:
            print(f"  {i + 1}/{args.games} games, {len(errors)} errors, {time.perf_counter() - t0:.0f} s",
                  file=sys.stderr, flush=True)
    print(f"{args.games} random games with Automas{' and the Train module' if args.trains else ''} ({actions} "
          f"player actions), {len(errors)} errors, "
          f"{time.perf_counter() - t0:.0f} s")
    print("Automa mean score per level (random opponents): " + ", ".join(
        f"L{lv} {sum(v) / len(v):.1f} (n={len(v)})" for lv, v in sorted(scores.items())))
    for seed, msg, tb in errors[:5]:
        print(f"seed {seed}: {msg}\n{tb}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
