"""Issue 13, "Tests and figures": random seeded games with random clans from all eighteen (nineteen with
MacEwen) and random Industria modules, 1-4 players: the invariants after every action
(``invariants.check_invariants``), a save/load round trip at random moments and at the end, and the record
replays to the same final scores.

Small here (well under a minute); run large for the closing note with
``python3 tests/test_industria_clans_soak.py GAMES_PER_PLAYER_COUNT`` (it prints games, actions, errors and
the clans seen per player count)."""
from __future__ import annotations

import json
import random
import sys
from collections import Counter
from dataclasses import replace

import pytest

from clans_env import Game
from clans_env.engine import actions as A
from clans_env.engine.clans import clan_names
from clans_env.engine.invariants import check_invariants, random_config

ALL_CLANS = clan_names(kickstarter=True, industria_clans=True)


def soak_config(rng: random.Random, n: int, seed: int):
    """``random_config`` with its Industria modules at random, the Industria clans always in the pool, and
    mostly (70%) fixed random clans from all nineteen (else the draft or auction of the configuration)."""
    cfg = random_config(rng, n, seed, industria=True)
    if rng.random() < 0.7:
        clans = tuple(rng.sample(ALL_CLANS, n))
        return replace(cfg, industria_clans=True, clans=clans, kickstarter=cfg.kickstarter or "macewen" in clans,
                       clan_selection="draft")
    return replace(cfg, industria_clans=True)


def play_soak_game(cfg, rng: random.Random, save_prob: float = 0.01) -> Game:
    g = Game(cfg)
    check_invariants(g)
    while not g.is_terminal():
        legal = g.legal_actions()
        if len(legal) > 1 and A.PASS in legal and rng.random() < 0.85:
            legal = [a for a in legal if a != A.PASS]
        g.apply(rng.choice(legal))
        check_invariants(g)
        if rng.random() < save_prob:
            copy = Game.from_json(g.to_json())
            assert copy.to_json() == g.to_json()
            assert copy.legal_actions() == g.legal_actions()
    rows = g.final_scores()
    replayed = Game.replay(g.record()["config"], g.record()["actions"])
    assert replayed.final_scores() == rows
    assert json.loads(Game.from_json(g.to_json()).to_json())["state"] == json.loads(g.to_json())["state"]
    return g


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_random_games_with_all_clans_and_industria_modules_keep_invariants(n):
    """Issue 13: random clans from all nineteen, random Industria modules, invariants after every action,
    save/load and replay (a few games per player count here; thousands for the closing note)."""
    seen = Counter()
    for k in range(6 if n > 2 else 10):
        seed = 13_000 + 100 * n + k
        rng = random.Random(seed)
        g = play_soak_game(soak_config(rng, n, seed), rng)
        seen.update(pl.clan for pl in g.players)
    assert sum(seen.values()) >= n * 3


def test_soak_configurations_cover_every_clan():
    """The soak's configurations draw every one of the nineteen clans (so a large run plays them all)."""
    rng = random.Random(0)
    seen = set()
    for k in range(200):
        cfg = soak_config(rng, rng.randint(1, 4), k)
        seen.update(cfg.clans or ())
    assert seen == set(ALL_CLANS)


def main(games: int) -> int:
    import time
    errors = 0
    for n in (1, 2, 3, 4):
        start, actions, clans = time.time(), 0, Counter()
        for k in range(games):
            seed = 1_000_000 * n + k
            rng = random.Random(seed)
            try:
                g = play_soak_game(soak_config(rng, n, seed), rng, save_prob=0.002)
            except Exception as e:                   # report and go on: the count is the result
                errors += 1
                print(f"ERROR n={n} seed={seed}: {type(e).__name__}: {e}", flush=True)
                continue
            actions += len(g.history)
            clans.update(pl.clan or "none" for pl in g.players)
        print(f"{n} players: {games} games, {actions} actions, {time.time() - start:.0f} s; clans {dict(sorted(clans.items()))}",
              flush=True)
    print(f"errors: {errors}")
    return errors


if __name__ == "__main__":
    sys.exit(1 if main(int(sys.argv[1]) if len(sys.argv) > 1 else 100) else 0)
