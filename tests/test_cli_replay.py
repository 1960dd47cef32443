"""``clans replay FILE``: step through a saved game (issue 7, "Replays").

Requirements checked: a game record replays with the text view per round and writes the map
picture after every round plus the final one; ``--step`` prints every decision; a full saved
state (``Game.save``) is accepted; unknown or broken files get a clear error and exit status 2.
"""
from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
import tempfile

import matplotlib.image
from rich.console import Console

from clans_cli import replay as R
from clans_env import Game, GameConfig


def random_game(num_players=2, seed=5, stop_after=None) -> Game:
    game = Game(GameConfig(num_players=num_players, seed=seed))
    rng = random.Random(seed)
    while not game.is_terminal() and (stop_after is None or len(game.history) < stop_after):
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    return game


def test_replay_of_a_recorded_game_writes_a_picture_per_round(tmp_path):
    """`clans replay FILE --out DIR` (run as a command): text view per round, round-1.png ...
    round-5.png and final.png, each a real picture; the score sheet matches the game's."""
    game = random_game()
    record = tmp_path / "game.json"
    R.write_record(record, game, players=["random", "random"])
    out_dir = tmp_path / "pictures"
    proc = subprocess.run([sys.executable, "-m", "clans_cli.main", "replay", str(record), "--out", str(out_dir),
                           "--dpi", "30"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    names = sorted(p.name for p in out_dir.iterdir())
    assert names == ["final.png", "round-1.png", "round-2.png", "round-3.png", "round-4.png", "round-5.png"]
    picture = matplotlib.image.imread(out_dir / "round-3.png")
    assert picture.ndim == 3 and picture.shape[0] > 100 and picture.std() > 0.05
    for r in range(1, 6):
        assert f"End of round {r}" in proc.stdout
    totals = [row["total"] for row in game.final_scores()]
    score_line = next(line for line in proc.stdout.splitlines() if line.strip().startswith("total"))
    assert [int(x) for x in score_line.split()[1:]] == totals
    assert "P0 (random)" in proc.stdout


def test_step_prints_every_decision():
    """--step prints each decision with its seat, kind and action name."""
    game = random_game(stop_after=40)
    path_doc = {"config": game.config.to_dict(), "actions": game.history}
    out = io.StringIO()
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "short.json")
        with open(path, "w") as fh:
            json.dump(path_doc, fh)
        written = R.replay(path, step=True, console=Console(file=out, width=120))
    assert written == []
    lines = [line for line in out.getvalue().splitlines() if line.startswith("#")]
    assert len(lines) == 40
    assert lines[0].startswith("#0 ") and game.action_to_string(game.history[0]).split(" (")[0] in lines[0]
    assert "unfinished" in out.getvalue()


def test_a_saved_state_replays_from_its_history(tmp_path):
    """A full saved state (Game.save) is replayed from its history; an unfinished game gets only
    final.png, titled as unfinished."""
    game = random_game(num_players=3, seed=8, stop_after=20)
    assert game.round == 1
    state = tmp_path / "state.json"
    game.save(state)
    loaded, meta = R.load_game_file(state)
    assert loaded.history == game.history and meta["source"] == "state"
    written = R.replay(state, out_dir=tmp_path / "pics", console=Console(file=io.StringIO()), dpi=25)
    assert [p.name for p in written] == ["final.png"]


def test_unknown_and_broken_files_are_refused_clearly(tmp_path):
    """Files that are not game records or states, and records that do not replay, give an error
    that says what was expected, with exit status 2."""
    cases = {
        "missing.json": None,
        "notjson.json": "this is not json",
        "list.json": "[1, 2, 3]",
        "other.json": json.dumps({"name": "something else"}),
        "badactions.json": json.dumps({"config": {"num_players": 2}, "actions": ["pass"]}),
        "badconfig.json": json.dumps({"config": {"players": 2}, "actions": []}),
        "illegal.json": json.dumps({"config": {"num_players": 2, "seed": 1}, "actions": [0, 0, 0, 324, 324]}),
        "state.json": json.dumps({"format": "clans-of-caledonia-state", "version": 99}),
    }
    expected = {
        "missing.json": "no such file",
        "notjson.json": "not JSON",
        "list.json": "not an object",
        "other.json": "needs 'config' and 'actions'",
        "badactions.json": "list of action indices",
        "badconfig.json": "valid fields",
        "illegal.json": "does not replay",
        "state.json": "version",
    }
    for name, text in cases.items():
        path = tmp_path / name
        if text is not None:
            path.write_text(text)
        out = io.StringIO()
        try:
            R.replay(path, console=Console(file=out, width=200))
        except R.GameFileError as e:
            assert expected[name] in str(e), (name, str(e))
        else:
            raise AssertionError(f"{name} was accepted")
    proc = subprocess.run([sys.executable, "-m", "clans_cli.main", "replay", str(tmp_path / "other.json")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "error:" in proc.stdout


def test_records_are_written_atomically_and_replay_exactly(tmp_path):
    """write_record leaves no temporary file behind and load_game_file rebuilds the same game."""
    game = random_game(seed=9)
    path = tmp_path / "g.json"
    R.write_record(path, game, human_seat=1)
    assert [p.name for p in tmp_path.iterdir()] == ["g.json"]
    loaded, meta = R.load_game_file(path)
    assert loaded.history == game.history and loaded.final_scores() == game.final_scores()
    assert meta["human_seat"] == 1 and meta["format"] == R.RECORD_FORMAT


def test_a_tiny_tournament_then_replaying_one_of_its_games(tmp_path):
    """End to end through the command line: `clans tournament` with two cheap agents writes
    replay files, and `clans replay` reads one (the nested record and the seats' names) and
    reaches the same final score the tournament recorded."""
    out_dir = tmp_path / "t"
    proc = subprocess.run([sys.executable, "-m", "clans_cli.main", "tournament", "random", "random",
                           "--games-per-pairing", "2", "--workers", "1", "--no-progress", "--out", str(out_dir)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    replay_file = sorted((out_dir / "replays").iterdir())[0]
    recorded = json.loads(replay_file.read_text())
    game, meta = R.load_game_file(replay_file)
    assert game.is_terminal()
    assert [r["total"] for r in game.final_scores()] == [r["total"] for r in recorded["final_scores"]]
    proc = subprocess.run([sys.executable, "-m", "clans_cli.main", "replay", str(replay_file)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "End of round 5 (game over)" in proc.stdout
    assert f"P0 ({meta['players'][0]})" in proc.stdout


def test_pause_waits_for_enter_and_q_stops(tmp_path):
    """--pause reads a line after each view: Enter continues, q stops the replay there (the score
    sheet then shows the position reached)."""
    game = random_game(seed=4)
    path = tmp_path / "g.json"
    R.write_record(path, game)
    out = io.StringIO()
    R.replay(path, step=True, console=Console(file=out, width=150), pause=io.StringIO("\n\n\nq\n"))
    text = out.getvalue()
    assert text.count("[Enter] next, q quit") == 4
    assert "#3 " in text and "#4 " not in text and "game unfinished" in text
    out = io.StringIO()
    R.replay(path, console=Console(file=out, width=150), pause=io.StringIO("\n" * 10))
    assert out.getvalue().count("[Enter] next") == 5 and "End of round 5 (game over)" in out.getvalue()
