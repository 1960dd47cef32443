"""Industria part 3 soak and figures: random (or heuristic) games with the full expansion and with each
Milestone variant, invariants after every action, save/load every 97 actions, replay at the end; reports
errors, mean ``delivery_track`` / ``milestones`` VP, how often each Delivery bonus part was taken and each
Milestone claimed.

    python benchmarks/train_soak.py --games 120                # random play, 1-4 players x 3 configurations
    python benchmarks/train_soak.py --games 6 --heuristic --players 3
"""
from __future__ import annotations

import argparse
import collections
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CONFIGS = {"full": {"industria": True}, "variant_a": {"industria": True, "milestones": "variant_a"},
           "variant_b": {"industria": True, "milestones": "variant_b"}}


def main(argv=None) -> None:
    from clans_env import Game, GameConfig
    from clans_env.engine.invariants import check_invariants
    from clans_env.engine.state import K_DELIVERY
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=20, help="games per player count and configuration")
    ap.add_argument("--players", type=int, nargs="+", default=[1, 2, 3, 4])
    ap.add_argument("--configs", nargs="+", default=list(CONFIGS), choices=list(CONFIGS))
    ap.add_argument("--heuristic", action="store_true", help="HeuristicAgent for every seat (else random play)")
    args = ap.parse_args(argv)
    t0 = time.time()
    errors = games = 0
    parts = collections.Counter()
    claims = collections.Counter()
    lines = collections.defaultdict(list)
    for n in args.players:
        for name in args.configs:
            for seed in range(args.games):
                try:
                    g = Game(GameConfig(num_players=n, seed=seed, **CONFIGS[name]))
                    rng = random.Random(seed)
                    agents = None
                    if args.heuristic:
                        from agents.heuristic import HeuristicAgent
                        agents = [HeuristicAgent(seed=seed * 10 + p) for p in range(n)]
                    k = 0
                    while not g.is_terminal():
                        a = agents[g.current_player].act(g) if agents else rng.choice(g.legal_actions())
                        frame = g.stack[-1]
                        if frame[0] == K_DELIVERY and a != 1:
                            parts[frame[2]] += 1
                        g.apply(a)
                        check_invariants(g)
                        k += 1
                        if k % 97 == 0:
                            assert Game.from_json(g.to_json()).to_json() == g.to_json()
                    assert Game.replay(g.config, g.history).to_json() == g.to_json()
                    for row in g.final_scores():
                        lines[(n, name, "delivery_track")].append(row.get("delivery_track", 0))
                        lines[(n, name, "milestones")].append(row["milestones"])
                    for s, tile in enumerate(g.misc["tr_ms"]):
                        claims[tile] += sum(1 for p in range(n) if g.misc["tr_claims"][s * n + p])
                    games += 1
                except Exception as e:  # noqa: BLE001 - a soak reports every failure and goes on
                    errors += 1
                    print("ERROR", n, name, seed, repr(e)[:300])
    print(f"games {games} errors {errors} seconds {time.time() - t0:.0f} ({'heuristic' if args.heuristic else 'random'} play)")
    for key, v in sorted(lines.items()):
        print(f"  {key[0]}p {key[1]:9s} mean {key[2]:14s} {sum(v) / len(v):.2f} VP")
    print("Delivery bonus parts taken (tile: count):", sorted(parts.items()))
    print("Milestone claims (tile: count):", sorted(claims.items()))


if __name__ == "__main__":
    main()
