"""Shared set-up of the web viewer tests (tests/test_web_*.py): a served folder with a small
tournament, a `clans play` record, a saved state and broken files, and a live server on 127.0.0.1."""
from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from pathlib import Path

from clans_env import Game, GameConfig
from clans_env.engine.records import write_record


def random_game(seed: int, num_players: int = 2, moves: int | None = None) -> Game:
    import random

    rng = random.Random(seed)
    g = Game(GameConfig(num_players=num_players, seed=seed))
    while not g.is_terminal() and (moves is None or len(g.history) < moves):
        g.apply(rng.choice(g.legal_actions()))
    return g


def build_served_folder(root: Path) -> dict:
    """Files under ``root``: t1/ (a 2-game tournament with results.json and replays/), play/record.json,
    play/state.json (a Game.save half-way), broken.json (truncated), notes.json (not a game), and
    outside.json next to ``root`` (must never be served)."""
    from training.tournament import run_tournament

    root.mkdir(parents=True, exist_ok=True)
    run_tournament(["random", "heuristic"], games_per_pairing=2, seed=0, workers=1, out_dir=root / "t1", progress=False)
    (root / "play").mkdir()
    game = random_game(3)
    write_record(root / "play" / "record.json", game, players=["human", "random"], human_seat=0)
    half = random_game(4, num_players=3, moves=60)
    half.save(root / "play" / "state.json")
    full = json.dumps(game.record())
    (root / "broken.json").write_text(full[: len(full) // 2], encoding="utf-8")
    (root / "notes.json").write_text('{"note": "not a game"}', encoding="utf-8")
    outside = root.parent / "outside.json"
    outside.write_text(full, encoding="utf-8")
    return {"record": game, "state": half, "outside": outside}


@contextlib.contextmanager
def live_server(folders, **kw):
    """The app under uvicorn in a thread on 127.0.0.1 (a free port); yields the base URL."""
    import uvicorn

    from clans_web.server import create_app

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(folders, **kw), log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def units_in(game: Game) -> int:
    """Unit markers the board must show: every unit in public_state()'s units_on_map."""
    return sum(len(p["units_on_map"]) for p in game.public_state()["players"])
