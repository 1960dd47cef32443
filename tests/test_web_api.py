"""The web viewer's JSON API and pages through FastAPI's test client (clans_web.server), the
shared HTML replay (clans replay --html), `clans serve` itself and the bounded load test."""
from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed (pip install -e '.[web]')")
pytest.importorskip("httpx", reason="the web extra is not installed (pip install -e '.[web]')")

from fastapi.testclient import TestClient  # noqa: E402

from clans_env import Game, GameConfig  # noqa: E402
from clans_web.server import create_app  # noqa: E402
from clans_web.views import replay_data  # noqa: E402

from web_support import build_served_folder, units_in  # noqa: E402


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("web") / "served"
    info = build_served_folder(root)
    info["root"] = root
    return info


@pytest.fixture(scope="module")
def client(served):
    return TestClient(create_app([served["root"]]), base_url="http://127.0.0.1")


def test_replay_list_names_players_agents_clans_scores(client, served):
    rows = {r["id"]: r for r in client.get("/api/replays").json()["replays"]}
    t = rows["0/t1/replays/game_00000.json"]
    assert t["agents"] == t["names"] and sorted(t["names"]) == ["heuristic", "random"]
    assert len(t["clans"]) == 2 and all(t["clans"]) and len(t["scores"]) == 2 and t["finished"]
    rec = rows["0/play/record.json"]
    game = served["record"]
    assert rec["names"] == ["human", "random"] and rec["decisions"] == len(game.history)
    assert rec["scores"] == [r["total"] for r in game.final_scores()]
    assert rows["0/play/state.json"]["finished"] is False and rows["0/play/state.json"]["num_players"] == 3
    assert "not JSON" in rows["0/broken.json"]["error"]
    assert "0/notes.json" not in rows                      # some other JSON file: not a game, not listed
    ts = client.get("/api/tournaments").json()["tournaments"]
    assert [t["id"] for t in ts] == ["0/t1/results.json"] and ts[0]["games"] == 2


def test_replay_frames_follow_the_game(client, served):
    d = client.get("/api/replay", params={"file": "0/play/record.json"}).json()
    game = served["record"]
    actions = game.history
    assert len(d["moves"]) == len(actions) and len(d["frames"]) == len(actions) + 1
    g = Game(game.config)
    for i, a in enumerate(actions):
        f = d["frames"][i]
        assert len(f["units"]) == units_in(g)
        assert f["round"] == g.round and f["current_player"] == g.current_player
        m = d["moves"][i]
        assert m["player"] == g.current_player and m["text"] == g.action_to_string(a) and m["kind"] == g.decision_kind
        g.apply(a)
    assert d["frames"][-1]["terminal"] and d["final_scores"] == game.final_scores()
    assert d["round_starts"]["1"] == 0 and sorted(int(k) for k in d["round_starts"]) == [1, 2, 3, 4, 5]
    assert d["names"] == ["human", "random"]
    assert 'id="units"' in d["map"]["svg"] and len(d["map"]["centres"]) == game.board.num_spaces


def test_saved_state_replays_from_the_start(client, served):
    d = client.get("/api/replay", params={"file": "0/play/state.json"}).json()
    assert len(d["moves"]) == len(served["state"].history) and not d["finished"]


def test_bad_files_give_an_error_not_a_traceback(client):
    r = client.get("/api/replay", params={"file": "0/broken.json"})
    assert r.status_code == 422 and "not JSON" in r.json()["error"]
    page = client.get("/replay", params={"file": "0/broken.json"})
    assert page.status_code == 422 and "text/html" in page.headers["content-type"]
    assert "not JSON" in page.text and "Traceback" not in page.text
    assert client.get("/api/replay", params={"file": "0/notes.json"}).status_code == 422
    assert client.get("/api/tournament", params={"file": "0/play/record.json"}).status_code == 422
    assert client.get("/api/replay").status_code == 422                     # missing parameter
    assert client.get("/no/such/page").status_code == 404


@pytest.mark.parametrize("file_id, status", [
    ("0/../outside.json", 403), ("0/t1/../../outside.json", 403), ("0//etc/passwd", 403),
    ("0/%2e%2e/outside.json", 404), ("1/anything.json", 404), ("x/y.json", 404), ("0/t1/games.csv", 403),
    ("0/missing.json", 404), ("0/..\\outside.json", 403), ("", 400),
])
def test_path_traversal_is_refused(client, file_id, status):
    r = client.get("/api/replay", params={"file": file_id})
    assert r.status_code == status, r.text
    assert "error" in r.json()
    assert '"actions"' not in r.text and '"frames"' not in r.text      # nothing of the file itself


def test_links_leaving_the_folder_are_refused(served, tmp_path):
    root = tmp_path / "links"
    root.mkdir()
    (root / "escape.json").symlink_to(served["outside"])
    c = TestClient(create_app([root]), base_url="http://127.0.0.1")
    assert c.get("/api/replay", params={"file": "0/escape.json"}).status_code == 403
    assert c.get("/api/image", params={"file": "0/escape.json"}).status_code == 403


def test_tournament_view(client):
    d = client.get("/api/tournament", params={"file": "0/t1/results.json"}).json()
    assert {s["agent"] for s in d["standings"]} == {"random", "heuristic"}
    assert [g["replay"] for g in d["games"]] == ["0/t1/replays/game_00000.json", "0/t1/replays/game_00001.json"]
    assert d["plot"] == "0/t1/ratings.png"
    png = client.get("/api/image", params={"file": d["plot"]})
    assert png.status_code == 200 and png.content[:4] == b"\x89PNG"
    assert client.get("/api/image", params={"file": "0/t1/results.json"}).status_code == 403
    page = client.get("/tournament", params={"file": "0/t1/results.json"})
    assert page.status_code == 200 and "standings" in page.text


def _new(client, **kw):
    r = client.post("/api/games", json={"players": 2, "opponents": ["random"], **kw})
    assert r.status_code == 201, r.text
    return r.json()


def test_play_refuses_illegal_and_stale_moves_and_changes_nothing(client):
    st = _new(client, seed=5)
    gid = st["id"]
    assert st["your_turn"] and st["legal"] and "map" in st
    legal = {m["action"] for m in st["legal"]}
    illegal = next(a for a in range(300) if a not in legal)
    before = client.get(f"/api/games/{gid}").json()
    r = client.post(f"/api/games/{gid}/move", json={"action": illegal, "version": st["version"]})
    assert r.status_code == 400 and "illegal move" in r.json()["error"]
    r = client.post(f"/api/games/{gid}/move", json={"action": st["legal"][0]["action"], "version": st["version"] + 3})
    assert r.status_code == 409 and "stale" in r.json()["error"]
    for body in ({"action": "1", "version": 0}, {"action": -1, "version": 0}, {"action": 10 ** 6, "version": 0},
                 {"action": 1}, {"action": 1, "version": 0, "exec": "rm -rf /"}, []):
        assert client.post(f"/api/games/{gid}/move", json=body).status_code == 422
    assert client.post(f"/api/games/{gid}/move", content=b"not json",
                       headers={"content-type": "application/json"}).status_code == 422
    assert client.get(f"/api/games/{gid}").json() == before
    assert client.post("/api/games/nosuchgame/move", json={"action": 1, "version": 0}).status_code == 404
    assert client.get("/play/nosuchgame").status_code == 404


def test_the_move_list_is_the_engines_record(client):
    """The state's ``legal`` list is ``Game.describe_legal()`` of the server's game (name, detail, space and
    the record's fields), the records ``clans play`` lists, through a Clan Auction and the first turns."""
    st = _new(client, seed=4, clan_selection="auction")
    for _ in range(12):
        rec = client.get(f"/api/games/{st['id']}/record").json()
        game = Game.replay(GameConfig.from_dict(rec["config"]), rec["actions"])
        assert st["legal"] == [m.to_dict() for m in game.describe_legal()]
        assert all(m["detail"] for m in st["legal"] if m["name"].startswith("choose:"))
        st = client.post(f"/api/games/{st['id']}/move",
                         json={"action": st["legal"][-1]["action"], "version": st["version"]}).json()


def test_play_a_whole_game_undo_and_save(client, served):
    st = _new(client, seed=2)
    gid = st["id"]
    r = client.post(f"/api/games/{gid}/undo", json={"version": st["version"]})
    assert r.status_code == 409 and "nothing to undo" in r.json()["error"]
    first = st["legal"][-1]["action"]
    after = client.post(f"/api/games/{gid}/move", json={"action": first, "version": st["version"]}).json()
    assert after["version"] > st["version"] and after["log"][len(st["log"])]["who"] == "you"
    back = client.post(f"/api/games/{gid}/undo", json={"version": after["version"]}).json()
    assert back["version"] == st["version"] and back["undone"] == after["version"] - st["version"]
    assert back["legal"] == st["legal"]
    while back["legal"]:
        back = client.post(f"/api/games/{gid}/move",
                           json={"action": back["legal"][0]["action"], "version": back["version"]}).json()
    assert back["frame"]["terminal"] and not back["your_turn"]
    saved = client.post(f"/api/games/{gid}/save").json()
    assert saved["file"].startswith("0/web-games/") and Path(saved["path"]).is_file()
    d = client.get("/api/replay", params={"file": saved["file"]}).json()
    assert d["finished"] and len(d["moves"]) == back["version"] and d["names"] == ["you", "random"]
    rec = client.get(f"/api/games/{gid}/record").json()
    assert Game.replay(GameConfig.from_dict(rec["config"]), rec["actions"]).is_terminal()


def test_several_games_at_once_stay_apart(client):
    a, b = _new(client, seed=11), _new(client, seed=12, seat=1)
    assert a["id"] != b["id"] and b["human"] == 1
    a2 = client.post(f"/api/games/{a['id']}/move",
                     json={"action": a["legal"][0]["action"], "version": a["version"]}).json()
    assert client.get(f"/api/games/{b['id']}").json()["version"] == b["version"]
    assert a2["version"] > a["version"]
    ids = {g["id"] for g in client.get("/api/games").json()["games"]}
    assert {a["id"], b["id"]} <= ids


@pytest.mark.parametrize("body, status, words", [
    ({"opponents": ["nosuch"]}, 400, "unknown agent kind"),
    ({"opponents": ["ppo:path=/etc/passwd"]}, 403, "inside the served folders"),
    ({"opponents": ["mcts:policy=../x.pt"]}, 403, "inside the served folders"),
    ({"opponents": ["mcts:sims=100000"]}, 400, "at most"),
    ({"opponents": ["mcts:workers=8"]}, 400, "workers"),
    ({"opponents": ["random", "random"]}, 400, "one opponent spec"),
    ({"players": 5}, 422, "players"),
    ({"seat": 2}, 400, "seat"),
    ({"clan_selection": "lottery"}, 422, "clan_selection"),
])
def test_new_game_requests_are_validated(client, body, status, words):
    r = client.post("/api/games", json={"players": 2, "opponents": ["random"], **body})
    assert r.status_code == status, r.text
    assert words in r.json()["error"]


def test_shared_html_replay_is_self_contained(served, tmp_path):
    from clans_cli.main import main

    out = tmp_path / "share" / "game.html"
    assert main(["replay", str(served["root"] / "play" / "record.json"), "--html", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert 'src="/static' not in html and 'href="/static' not in html and "<svg" not in html.split("clans-data")[0]
    data = json.loads(html.split('type="application/json">', 1)[1].split("</script>", 1)[0])
    assert data["kind"] == "replay" and len(data["moves"]) == len(served["record"].history)
    assert main(["replay", str(served["root"] / "broken.json"), "--html", str(tmp_path / "b.html")]) == 2
    assert main(["replay", str(served["root"] / "play" / "record.json"), "--html", str(tmp_path / "b.txt")]) == 2


def test_page_data_cannot_close_its_script_tag():
    from clans_web.pages import render_page

    html = render_page("error", {"error": "</script><script>alert(1)</script>"})
    assert "<script>alert(1)" not in html


def test_replay_data_rejects_records_that_do_not_replay():
    from clans_env.engine.records import GameFileError

    with pytest.raises(GameFileError, match="does not replay"):
        replay_data({"config": {"num_players": 2, "seed": 0}, "actions": [999]}, {}, source="x.json")


def test_loopback_check():
    from clans_cli.serve import is_loopback

    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.4")


def test_clans_serve_and_50_concurrent_games(served, tmp_path):
    """`clans serve` prints its URL, answers 50 concurrent games' moves (a bounded load test against
    127.0.0.1) with no error and nothing lost, and stops cleanly on Ctrl-C (SIGINT)."""
    from clans_web.loadtest import format_load, run_load, start_server

    root = tmp_path / "load"
    root.mkdir()
    env = {"PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parent.parent),
                                          os.environ.get("PYTHONPATH", "")])}
    proc, url = start_server(str(root), extra_env=env)
    try:
        assert url.startswith("http://127.0.0.1:")
        res = run_load(url, games=50, moves=6)
        print("\nload test:", format_load(res))
        assert res["errors"] == 0, res["error_samples"]
        assert res["lost"] == 0 and res["requests"] >= 50 + 50
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            out, _ = proc.communicate(timeout=30)
        except Exception:
            proc.kill()
            raise
    err = Path(proc.stderr_path).read_text()
    Path(proc.stderr_path).unlink()
    assert proc.returncode == 0, err
    assert "stopped" in out and "Traceback" not in err
    with pytest.raises(ValueError, match="127.0.0.1"):
        run_load("http://example.com:80", games=1, moves=1)


def _loopback_socket():
    import socket

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))        # the test never opens a port beyond this machine
    sock.listen(8)
    return sock


def test_serve_warns_off_localhost(capsys, tmp_path, monkeypatch):
    import clans_cli.serve as S

    class FakeServer:
        def __init__(self, config):
            pass

        def run(self, sockets):
            raise KeyboardInterrupt

    import uvicorn
    monkeypatch.setattr(uvicorn, "Server", FakeServer)
    monkeypatch.setattr(uvicorn, "Config", lambda app, **kw: None)   # (the real one reconfigures logging)
    monkeypatch.setattr(S, "bind_socket", lambda host, port: _loopback_socket())
    import argparse
    parser = argparse.ArgumentParser()
    S.add_arguments(parser)
    args = parser.parse_args([str(tmp_path), "--host", "0.0.0.0", "--max-games", "5"])
    assert S.run(args) == 0
    cap = capsys.readouterr()
    assert "warning: binding to 0.0.0.0" in cap.err and "http://127.0.0.1:" in cap.out and "stopped" in cap.out
    args.folders = [str(tmp_path / "nope")]
    assert S.run(args) == 2


def test_industria_replay_shows_markets_second_units_and_the_industria_line(tmp_path):
    """Issue 17 with Industria (issue 12): a replay of an Industria game carries the Farmers markets, every
    unit (a second one on a space too) and the modules' line in each frame."""
    import random
    from clans_env import GameConfig
    from clans_env.engine.records import write_record
    from clans_env.engine.rules.industria_scoring import own_units
    g = Game(GameConfig(num_players=2, seed=3, industria=True))
    rng = random.Random(4)
    while not g.is_terminal():
        legal = g.legal_actions()
        ports = [a for a in legal if 271 <= a < 275]
        g.apply(rng.choice(ports if ports and rng.random() < 0.7 else legal))
    write_record(tmp_path / "ind.json", g, players=["a", "b"])
    c = TestClient(create_app([tmp_path]), base_url="http://127.0.0.1")
    d = c.get("/api/replay", params={"file": "0/ind.json"}).json()
    replay = Game(g.config)
    saw_market = False
    for i, a in enumerate(g.history):
        f = d["frames"][i]
        assert len(f["units"]) == sum(len(own_units(replay, p)) for p in range(2))
        assert f["industria"].startswith("Industria:")
        saw_market |= bool(f["markets"])
        replay.apply(a)
    assert saw_market
