"""What native typed state would buy (issue 34): the main decision's Train check timed three ways on the same
positions.

    python benchmarks/typed_state_probe.py                 # 2 players, 30 random Industria games
    python benchmarks/typed_state_probe.py --players 3 --games 20 --rounds 7

The engine's ``trains.can_take_train_action`` (pure Python, or compiled where this checkout was built with
``python setup.py build_ext --inplace``: ``clans_env.engine.COMPILED`` says which) against
``typed_train_check.py``, the same check written on typed classes, run as Python and compiled by mypyc
(``mypyc --strict`` into a temporary folder, a few seconds; needs mypy, which the ``test`` extras bring).
The engine's compiled build types its functions' arguments as ``Any`` (the game state is plain Python
objects), so its attribute reads stay generic; the typed copy shows what mypyc makes of the same work when the
state is native. Positions: every main decision of random games; the map tables are filled from the engine
first (``ways_from``), so each call is timed warm; best of ``--rounds`` passes, nanoseconds a call.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def positions(players: int, games: int, seed: int) -> list:
    """(game copy, player) at every main decision of ``games`` random Industria games."""
    from clans_env import Game, GameConfig
    from clans_env.engine.state import K_MAIN
    rng = random.Random(seed)
    out = []
    for i in range(games):
        g = Game(GameConfig(num_players=players, seed=seed + i, industria=True))
        while not g.is_terminal():
            top = g.stack[-1]
            if top[0] == K_MAIN and len(top) == 2:
                out.append((g.clone(), top[1]))
            legal = g.legal_actions()
            g.apply(legal[int(rng.random() * len(legal))])
    return out


def load_typed(path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def copy_position(typed, g, p: int):
    """The typed copy of what the Train check reads, with ``typed``'s map tables filled for p's pieces."""
    from clans_env.engine.rules import deliveries as DL
    from clans_env.engine.rules import trains as TR
    if not typed.NEED:
        typed.NEED.extend(TR._NEED_MASKS)
        typed.NEED16.extend(list(ways) for ways in TR._PORT16_NEED_MASKS)
    ts = g.modstate["trains"]
    n = g.num_players
    players = [typed.PlayerCopy(list(pl.goods), pl.money, 16 in g.port_tiles and DL.port16_slot(g, q) >= 0)
               for q, pl in enumerate(g.players)]
    train = typed.TrainCopy(list(ts.at), list(ts.tilt), list(ts.mini or []), list(ts.claims), list(ts.demand),
                            list(ts.solo_done or []))
    copy = typed.GameCopy(n, n - len(g.hooks.engine_seats), players, train)
    c = ts.claims
    for start in (ts.at[p], ts.mini[p] if ts.mini else -1):
        if start >= 0:
            reach, spots, steps, _ = TR.ways_from(g, p, start)
            typed.WAYS[(copy.train_players, start, c[p], c[n + p], c[2 * n + p], c[3 * n + p])] = \
                typed.Ways(reach, list(spots), list(steps))
    return copy


def compile_typed(folder: str):
    """``typed_train_check.py`` compiled by mypyc in ``folder`` (as ``typed_train_check_native``), or None
    where mypyc is missing or fails."""
    if shutil.which("mypyc") is None:
        return None
    source = os.path.join(folder, "typed_train_check_native.py")
    shutil.copy(os.path.join(HERE, "typed_train_check.py"), source)
    done = subprocess.run(["mypyc", "--strict", "typed_train_check_native.py"], cwd=folder, capture_output=True,
                          text=True)
    built = [f for f in os.listdir(folder) if f.startswith("typed_train_check_native.") and f.endswith(".so")]
    if done.returncode or not built:
        print(f"mypyc failed:\n{done.stdout[-1500:]}{done.stderr[-1500:]}", file=sys.stderr)
        return None
    return load_typed(os.path.join(folder, built[0]), "typed_train_check_native")


def best_ns(check, cases: list, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        t = time.perf_counter()
        for g, p in cases:
            check(g, p)
        best = min(best, time.perf_counter() - t)
    return best / len(cases) * 1e9


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--games", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=900)
    args = ap.parse_args()
    sys.path.insert(0, ROOT)
    from clans_env.engine import COMPILED
    from clans_env.engine.rules import trains as TR
    found = positions(args.players, args.games, args.seed)
    rows = [("engine (" + ("compiled" if COMPILED else "pure Python") + ")", TR.can_take_train_action, found)]
    typed = load_typed(os.path.join(HERE, "typed_train_check.py"), "typed_train_check")
    copies = [(copy_position(typed, g, p), p) for g, p in found]
    rows.append(("typed copy, Python", typed.can_take_train_action, copies))
    with tempfile.TemporaryDirectory() as folder:
        native = compile_typed(folder)
        if native is not None:
            native_copies = [(copy_position(native, g, p), p) for g, p in found]
            rows.append(("typed copy, mypyc", native.can_take_train_action, native_copies))
        wrong = sum(TR.can_take_train_action(g, p) != typed.can_take_train_action(c, p)
                    for (g, p), (c, _) in zip(found, copies))
        print(f"Train check at {len(found)} main decisions ({args.players} players, {args.games} random Industria "
              f"games; {sum(TR.can_take_train_action(g, p) for g, p in found)} open), best of {args.rounds}; "
              f"answers differing from the engine's: {wrong}")
        base = None
        for name, check, cases in rows:
            ns = best_ns(check, cases, args.rounds)
            base = base or ns
            print(f"  {name:<26}{ns:>8.0f} ns a call   x{ns / base:.2f} the engine's")
        if native is None:
            print("  (mypyc not found or failed: the compiled typed copy is missing)")


if __name__ == "__main__":
    main()
