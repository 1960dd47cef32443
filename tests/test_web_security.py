"""The web viewer's security rules (docs/web.md, "Security"): what a request may name, which hosts and
origins it may come from, bounded bots and files, and a server that stops when told.

Each test here failed before its fix (issue 38): a request ran ``os:system`` while its spec was being
checked, any Host and Origin were accepted, ``mcts:seconds=nan`` hung a worker thread for ever, a FIFO
hung the replay list and a malformed results.json was shown as a tournament.
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

import agents.registry as registry  # noqa: E402
from agents import MCTSAgent, parse_spec  # noqa: E402
from clans_env import Game, GameConfig  # noqa: E402
from clans_web import games as web_games  # noqa: E402
from clans_web.server import create_app  # noqa: E402

LOCAL = "http://127.0.0.1"


def client(root, **kw) -> TestClient:
    return TestClient(create_app([root], **kw), base_url=LOCAL)


def new_game(c: TestClient, *opponents, headers=None, seat=0):
    return c.post("/api/games", json={"players": 2, "seat": seat, "opponents": list(opponents)}, headers=headers)


# ---------------------------------------------------------------- a request never names code
def _evil_file(tmp_path: Path, marker: Path) -> Path:
    bot = tmp_path / "evil.py"
    bot.write_text(f"open({str(marker)!r}, 'w').write('imported')\nX = lambda **kw: None\n", encoding="utf-8")
    return bot


def test_a_request_naming_code_is_refused_and_nothing_runs(tmp_path, monkeypatch):
    """Critical (issue 38): ``os:system:command=...`` ran while the spec was checked. Every way of naming
    code is refused with a 4xx, and none of it ran or was imported."""
    marker = tmp_path / "ran"
    bot = _evil_file(tmp_path, marker)
    loaded = []

    class FakeEntryPoint:                  # an installed plug-in the operator did not allow
        name = "theirbot"

        def load(self):
            loaded.append(self.name)
            marker.write_text("entry point loaded")
            return lambda **kw: None

    monkeypatch.setattr(registry, "_entry_points", lambda: {"theirbot": FakeEntryPoint()})
    before = set(sys.modules)
    c = client(tmp_path)
    for spec in (f"os:system:command='touch {marker}'", f"subprocess:getoutput:cmd='touch {marker}'",
                 f"subprocess:run:args='touch {marker}',shell=True", f"{bot}:X", f"./{bot.name}:X",
                 f"builtins:exec:source='open({str(marker)!r},\"w\")'", "importlib:import_module:name='antigravity'",
                 "shutil:rmtree:path='/nonexistent'", "theirbot", "theirbot:depth=2", "clans_web.server:create_app",
                 "agents.random_agent:RandomAgent"):
        r = new_game(c, spec)
        assert 400 <= r.status_code < 500, (spec, r.status_code, r.text)
        assert "error" in r.json()
    assert not marker.exists()
    assert loaded == []
    assert not {m for m in set(sys.modules) - before if m.startswith("clans_agent_") or m == "antigravity"}


def test_parse_spec_imports_nothing(tmp_path):
    """Parsing is text only (the web check and the results files rely on it); ``make`` loads."""
    marker = tmp_path / "ran"
    bot = _evil_file(tmp_path, marker)
    assert parse_spec(f"{bot}:X:depth=2") == (f"{bot}:X", {"depth": 2})
    assert parse_spec("os:system:command='id'") == ("os:system", {"command": "id"})
    assert not marker.exists()
    registry.load_check(f"{bot}:X")          # the command line's check loads what its user named
    assert marker.exists()


def test_an_agent_the_operator_allowed_plays(tmp_path):
    """``clans serve --allow-agent NAME``: exactly the names allowed, nothing else."""
    bot = tmp_path / "mybot.py"
    bot.write_text("from agents import RandomAgent\nclass Bot(RandomAgent):\n    name = 'mybot'\n", encoding="utf-8")
    spec = f"{bot}:Bot"
    c = client(tmp_path, allowed_agents=[spec])
    r = new_game(c, spec)
    assert r.status_code == 201, r.text
    assert new_game(c, f"{tmp_path / 'other.py'}:Bot").status_code == 403


# ---------------------------------------------------------------- Host and Origin
def test_only_the_servers_own_host_names_are_answered(tmp_path):
    """DNS rebinding (issue 38): a page whose name resolves to 127.0.0.1 sends its own Host."""
    c = client(tmp_path)
    assert c.get("/api/replays", headers={"Host": "attacker.example"}).status_code == 400
    assert c.get("/api/replays", headers={"Host": "attacker.example:8000"}).status_code == 400
    assert c.get("/", headers={"Host": "127.0.0.1.attacker.example"}).status_code == 400
    for host in ("127.0.0.1:8000", "localhost:8000", "[::1]:8000", "127.0.0.1"):
        assert c.get("/api/replays", headers={"Host": host}).status_code == 200, host
    named = client(tmp_path, allowed_hosts=["box.lan"])
    assert named.get("/api/replays", headers={"Host": "box.lan:9000"}).status_code == 200


def test_state_changing_requests_from_another_origin_are_refused(tmp_path):
    c = client(tmp_path)
    r = new_game(c, "random", headers={"Origin": "http://attacker.example"})
    assert r.status_code == 403 and "another site" in r.json()["error"]
    assert new_game(c, "random", headers={"Origin": "http://127.0.0.1:9999"}).status_code == 403   # other port
    assert new_game(c, "random", headers={"Origin": "null"}).status_code == 403
    assert new_game(c, "random", headers={"Sec-Fetch-Site": "cross-site"}).status_code == 403
    assert c.get("/api/games").json()["games"] == []                    # nothing was created
    assert new_game(c, "random", headers={"Origin": LOCAL}).status_code == 201
    assert new_game(c, "random").status_code == 201                     # a program sends no Origin


# ---------------------------------------------------------------- bounded bots
@pytest.mark.parametrize("spec", ["mcts:seconds=nan", "mcts:seconds=inf", "mcts:seconds=-1", "mcts:seconds=0",
                                  "mcts:sims=0", "mcts:c=nan", "heuristic:noise=inf", "az:path=x.pt,seconds=nan",
                                  "mcts:scale=-inf", "automa:level=9"])
def test_non_finite_or_out_of_range_numbers_are_refused_when_parsed(spec, tmp_path):
    """Medium (issue 38): NaN passed ``> MAX_SECONDS`` and ``<= 0`` and the search never stopped."""
    with pytest.raises(ValueError, match="expected"):
        parse_spec(spec)
    t0 = time.monotonic()
    r = new_game(client(tmp_path), spec)
    assert 400 <= r.status_code < 500 and time.monotonic() - t0 < 5


def test_custom_agent_options_must_be_finite():
    with pytest.raises(ValueError, match="finite"):
        parse_spec("mypkg.bots:Greedy:depth=1e999")


def test_searches_stop_at_their_wall_clock_cap():
    """A bot move in the server has a cap (MAX_MOVE_SECONDS) whatever its sims say."""
    g = Game(GameConfig(num_players=2, seed=1))
    bot = web_games.make_bot("mcts:sims=5000", seed=1)
    assert bot.max_seconds == web_games.MAX_MOVE_SECONDS
    bot.max_seconds = 0.3
    t0 = time.perf_counter()
    bot.act(g)
    assert time.perf_counter() - t0 < 2.0 and bot.last_stats["simulations"] < 5000
    with pytest.raises(ValueError, match="finite"):
        MCTSAgent(seconds=float("nan"))


def test_sigterm_stops_the_server_while_a_bot_thinks(tmp_path):
    """SIGTERM used to wait for ever for a bot's request; now it stops within a few seconds."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "clans_cli.main", "serve", str(tmp_path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
    try:
        line = proc.stdout.readline()
        url = re.search(r"http://[^/]+/", line).group(0)
        import httpx

        def slow_request():        # the bot (seat 0) moves first and searches for the whole cap
            try:
                httpx.post(url + "api/games", json={"players": 2, "seat": 1, "opponents": ["mcts:seconds=10"]},
                           timeout=30)
            except httpx.HTTPError:
                pass

        t = threading.Thread(target=slow_request, daemon=True)
        t.start()
        time.sleep(1.5)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=15)
        assert time.monotonic() - t0 < 8
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


# ---------------------------------------------------------------- files
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_in_a_served_folder_is_neither_listed_nor_opened(tmp_path):
    os.mkfifo(tmp_path / "x.json")
    os.mkfifo(tmp_path / "results.json")
    c = client(tmp_path)
    out = {}
    t = threading.Thread(target=lambda: out.update(r=c.get("/api/replays"), t=c.get("/api/tournaments"),
                                                   one=c.get("/api/replay", params={"file": "0/x.json"})),
                         daemon=True)
    t.start()
    t.join(10)
    assert not t.is_alive(), "a FIFO hung the request"
    assert out["r"].status_code == 200 and out["r"].json()["replays"] == []
    assert out["t"].json()["tournaments"] == []
    assert out["one"].status_code == 404


def test_a_malformed_results_json_is_shown_as_damaged(tmp_path):
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "results.json").write_text(json.dumps(
        {"agents": ["a", "b"], "num_players": 2, "standings": [], "games": "x"}), encoding="utf-8")
    c = client(tmp_path)
    rows = c.get("/api/tournaments").json()["tournaments"]
    assert len(rows) == 1 and "damaged" in rows[0]["error"] and "games" in rows[0]["error"]
    r = c.get("/api/tournament", params={"file": "0/t/results.json"})
    assert r.status_code == 422 and "damaged" in r.json()["error"]
