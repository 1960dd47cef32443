"""``clans play``: a human game in the terminal (issue 7, "Play").

Requirements checked: a full game can be played with piped input; moves are accepted by their
listed number and by their action name; ``help`` explains the pending decision; ``undo`` takes
back the human's own last decision (and the bots' moves since); ``save`` / ``--save`` /
``--load`` resume a game exactly; bad input gets a clear error and loses nothing.
"""
from __future__ import annotations

import argparse
import io
import json
import re
import subprocess
import sys

import pytest
from rich.console import Console

from clans_cli import play
from clans_cli.help_text import DECISION_HELP, decision_help, missing_kinds
from clans_cli.replay import load_game_file
from clans_env import Game, GameConfig
from clans_env.engine.records import decision_points
from clans_env.engine.state import DECISION_KINDS


def _args(argv):
    parser = argparse.ArgumentParser()
    play.add_arguments(parser)
    return parser.parse_args(argv)


def run_play(argv, script: str, width: int = 100):
    """Run ``clans play`` in this process with ``script`` as stdin; (exit status, output, session)."""
    out = io.StringIO()
    console = Console(file=out, width=width)
    args = _args(argv)
    session = None
    try:
        session = play.build_session(args, console, io.StringIO(script))
    except ValueError as e:   # run() reports these as exit status 2; the tests want the session
        return 2, str(e), None
    rc = session.run()
    return rc, out.getvalue(), session


BASE = ["--players", "2", "--seat", "0", "--opponents", "random", "--seed", "11", "--clan-selection", "none"]


def test_scripted_game_through_the_command_line_to_the_end(tmp_path):
    """A whole game through `python -m clans_cli.main play` with piped input: the script cycles
    through the answers 2, 1, 0, y (moves are numbered from 0; a refused number is answered by the next
    line, "0" is always legal, and "y" confirms a pass or is refused as a move), so the human trades,
    expands and passes. It ends with the score sheet, exit status 0,
    and the saved record replays to a finished game whose human moves were all listed first,
    second or third."""
    save = tmp_path / "game.json"
    proc = subprocess.run([sys.executable, "-m", "clans_cli.main", "play", *BASE, "--save", str(save),
                           "--width", "100"],
                          input="2\n1\n0\ny\n" * 2000, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Score sheet" in proc.stdout and "Game over" in proc.stdout
    game, meta = load_game_file(save)
    assert game.is_terminal()
    assert meta["human_seat"] == 0 and meta["players"] == ["human", "random"]
    replayed = Game(game.config)
    sections = []
    for a in game.history:
        if replayed.current_player == 0:
            assert a in replayed.legal_actions()[:3]
            sections.append(play.A.section_of(a)[0])
        replayed.apply(a)
    assert len(sections) >= 15 and sections.count("pass") == 5    # one pass per round
    assert {"choose", "expand", "space", "trade"} <= set(sections)
    assert "there is no move 2" in proc.stdout   # the refusals were explained, not fatal


def test_moves_by_number_and_by_name_are_the_same_action():
    """A move can be given as its number in the list or as its action string (and a unique
    beginning of the name)."""
    game = Game(GameConfig(num_players=2, seed=11, clan_selection="none"))
    legal = game.legal_actions()
    name = game.action_to_string(legal[-1])
    assert play.parse_move(game, str(len(legal) - 1)) == legal[-1]      # numbered from 0, like choose:0
    assert play.parse_move(game, "0") == legal[0]
    assert play.parse_move(game, name) == legal[-1]
    assert play.parse_move(game, name.upper()) == legal[-1]
    unique = [game.action_to_string(a) for a in legal]
    prefix = next(n[:k] for n in unique for k in range(1, len(n) + 1)
                  if sum(m.startswith(n[:k]) for m in unique) == 1)
    assert play.parse_move(game, prefix) in legal


@pytest.mark.parametrize("text, message", [
    ("325", "there is no move 325"),
    ("999", "there is no move 999"),
    ("fly:to_the_moon", "unknown move or command"),
    ("upgrade_shipping", "is not legal now"),
])
def test_bad_input_is_explained_and_changes_nothing(text, message):
    """Bad input gets a clear error naming the valid choices, and the game is unchanged."""
    game = Game(GameConfig(num_players=2, seed=11, clan_selection="none"))
    before = game.to_json()
    with pytest.raises(ValueError, match=message):
        play.parse_move(game, text)
    assert game.to_json() == before
    rc, out, session = run_play(BASE, f"{text}\nquit\n")
    assert rc == 0 and message in out and session.game.history == []


def test_help_explains_the_pending_decision_and_the_commands():
    """`help` prints the pending decision kind's explanation with its rulebook section, how to
    type the moves offered now, and the command list."""
    rc, out, session = run_play(BASE, "help\nquit\n")
    kind = session.game.decision_kind
    assert rc == 0
    section, text = DECISION_HELP[kind]
    flat = " ".join(out.split())
    assert section in flat and " ".join(text.split()[:8]) in flat
    assert "undo" in flat and "save [FILE]" in flat and "choose:<k>" in flat


def test_every_decision_kind_a_human_can_face_has_help():
    """Each decision kind (except the internal hook) has an explanation; unknown kinds are an
    error naming the known ones."""
    assert missing_kinds() == []
    assert set(DECISION_HELP) == set(DECISION_KINDS) - {"hook"}
    with pytest.raises(ValueError, match="known kinds: start_tile"):
        decision_help("fly")


def test_undo_returns_to_before_the_humans_last_decision():
    """`undo` rebuilds the game as it was just before the human's last decision: the bots'
    moves since are taken back too (the whole state equals the one the human faced); a second undo
    goes one decision further back; undo with nothing to undo says so."""
    rc, _, played = run_play(BASE, "0\n0\n0\nquit\n")
    history = played.game.history
    points = decision_points(played.game.config, history, 0)
    assert len(points) == 3
    rc, _, faced = run_play(BASE, "0\n0\nquit\n")      # stopped at the third decision's prompt
    rc, out, session = run_play(BASE, "0\n0\n0\nundo\nquit\n")
    assert session.game.history == history[:points[2]] == faced.game.history
    assert session.game.to_json() == faced.game.to_json()
    assert session.game.current_player == 0
    rc, out, session = run_play(BASE, "0\n0\n0\nundo\nundo\nquit\n")
    assert session.game.history == history[:points[1]]
    rc, out, session = run_play(BASE, "undo\nquit\n")
    assert "nothing to undo" in out and session.game.history == []


def test_save_and_load_resume_the_same_game(tmp_path):
    """`save FILE` writes the record; `--load FILE` resumes exactly there with the saved seat and
    opponents; a full saved state (Game.save) loads too."""
    path = tmp_path / "g.json"
    rc, out, session = run_play(["--players", "3", "--seat", "1", "--opponents", "random", "heuristic",
                                 "--seed", "4", "--clan-selection", "none"], f"0\n0\nsave {path}\nquit\n")
    saved = session.game
    doc = json.loads(path.read_text())
    assert doc["actions"] == saved.history and doc["human_seat"] == 1
    assert doc["players"] == ["random", "human", "heuristic"]
    rc, out, resumed = run_play(["--load", str(path)], "quit\n")
    assert rc == 0
    assert resumed.game.history == saved.history
    assert resumed.game.public_state() == saved.public_state()
    assert resumed.human == 1 and resumed.names == ["random", "human", "heuristic"]
    state = tmp_path / "state.json"
    saved.save(state)
    rc, out, from_state = run_play(["--load", str(state), "--seat", "1", "--opponents", "random"], "quit\n")
    assert from_state.game.history == saved.history
    rc, message, _ = run_play(["--load", str(path), "--seed", "3"], "quit\n")
    assert rc == 2 and "--seed" in message


def test_autosave_and_input_ending_early(tmp_path):
    """With --save the record is written after each human decision; input that ends before the
    game does gives exit status 1 and leaves the game saved."""
    path = tmp_path / "auto.json"
    rc, out, session = run_play(BASE + ["--save", str(path)], "0\n0\n")
    assert rc == 1 and "Input ended" in out
    assert json.loads(path.read_text())["actions"] == session.game.history


def test_map_command_writes_a_picture(tmp_path):
    """`map FILE.png` draws the current map; a name without .png is refused with a hint."""
    path = tmp_path / "now.png"
    rc, out, _ = run_play(BASE, f"map {tmp_path / 'x.txt'}\nmap {path}\nquit\n")
    assert "ending in .png" in out
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_options_name_the_valid_choices(tmp_path):
    """Bad seats, opponent specs and files are reported with exit status 2 and the valid choices."""
    rc, message, _ = run_play(["--players", "2", "--seat", "5"], "")
    assert rc == 2 and "0..1" in message
    rc, message, _ = run_play(["--players", "3", "--opponents", "random", "random", "random"], "")
    assert rc == 2 and "one per opponent seat" in message
    rc, message, _ = run_play(["--opponents", "wizard"], "")
    assert rc == 2 and "random" in message and "heuristic" in message
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    args = _args(["--load", str(bad)])
    out = io.StringIO()
    assert play.run(args, inp=io.StringIO(""), console=Console(file=out, width=100)) == 2
    assert "game record" in out.getvalue()


def test_table_view_shows_every_player_and_the_humans_board():
    """The full view names each seat, the Market prices, the contracts on display, the human's
    Player board, and marks legal spaces on the text map during a placement."""
    game = Game(GameConfig(num_players=4, seed=2, clan_selection="none"))
    while game.decision_kind != "place":
        game.apply(game.legal_actions()[0])
    legal = game.legal_actions()
    spaces = frozenset(a - play.A.SPACE for a in legal)
    out = io.StringIO()
    Console(file=out, width=100).print(play.table_view(game, game.current_player, ["a", "b", "c", "d"], spaces))
    text = out.getvalue()
    for p in range(4):
        assert f"P{p}" in text
    assert "Your Player board" in text and "whisky" in text and "Export contracts" in text
    assert text.count("*") >= len(spaces)
    for a in legal:
        assert game.board.label[a - play.A.SPACE] in text


def test_cli_reference_shows_the_current_play_and_replay_options():
    """docs/api/cli.md pastes the real `--help` of `clans play` and `clans replay` (regenerate it
    with `python docs/api/make_api_docs.py` after changing an option)."""
    import importlib.util
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location("make_api_docs", root / "docs/api/make_api_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    current = module.cli_page()
    committed = (root / "docs/api/cli.md").read_text(encoding="utf-8")
    for command in ("play", "replay"):
        section = current.split(f"## `clans {command}`")[1].split("\n## ")[0].strip()
        assert section in committed, f"docs/api/cli.md is stale for `clans {command}`: run docs/api/make_api_docs.py"


def test_play_an_industria_game_in_the_terminal():
    """Issue 12: `clans play --industria` plays the Industria modules; the Farmers market placement is
    the first decision after the Starting tiles, and the table (`board`) shows the Industria line."""
    rc, out, session = run_play(BASE + ["--industria"], "board\n" + "0\n" * 12 + "quit\n")
    assert session is not None and session.game.config.industria_modules
    assert "Farmers market" in out and "Industria:" in out


def _screens(out: str) -> list[list[str]]:
    """The decision screens in an output: from each screen's "Round r/5 - phase" rule to the prompt."""
    screens = []
    for chunk in out.split("\n> ")[:-1]:
        lines = chunk.split("\n")
        starts = [i for i, line in enumerate(lines) if re.match(r"Round \d/\d - ", line)]
        if starts:
            screens.append(lines[starts[-1]:])
    return screens


@pytest.mark.parametrize("rows", [50, 24])
def test_a_screen_fits_the_terminal(monkeypatch, rows):
    """Each decision's screen, with the prompt line, fits the terminal's height as
    shutil.get_terminal_size reads it (LINES/COLUMNS simulate an 80 x 50 and an 80 x 24 terminal) in
    a 4-player game: standings, the decision and its moves always; at 50 rows the map while choosing a
    space and the Market line too; at 24 rows what does not fit is named (and long move lists are cut,
    with a note) so that `map`, `market` and `moves` show it."""
    monkeypatch.setenv("LINES", str(rows))
    monkeypatch.setenv("COLUMNS", "80")
    argv = ["--players", "4", "--seat", "2", "--opponents", "random", "--seed", "5", "--clan-selection", "none"]
    rc, out, session = run_play(argv, "2\n1\n0\ny\n" * 150, width=80)
    screens = _screens(out)
    assert len(screens) >= 30
    assert max(len(screen) for screen in screens) + 1 <= rows
    for screen in screens:
        text = "\n".join(screen)
        assert "Your decision [" in text and "P3 random" in text and "  0 " in text
    texts = ["\n".join(screen) for screen in screens]
    if rows == 50:
        assert any("* = a space you may choose" in t for t in texts)
        assert all("Market: wool £" in t or re.search(r"Not shown.*market", t) for t in texts)
        assert sum("Market: wool £" in t for t in texts) > len(texts) // 2
    else:
        assert any("Not shown, to fit the terminal: map" in t for t in texts)
        assert any("more: type `moves` for the full list" in t for t in texts)


def test_map_and_market_commands_show_the_whole_map_and_market():
    """`map` (no file) prints the whole text map with its key, `market` the Market table, the Export
    contracts on display and the Port tiles; neither makes a move."""
    rc, out, session = run_play(BASE, "map\nmarket\nquit\n")
    assert session.game.history == []
    assert "cells: 4gf = empty land" in out and "C4.5" in out
    assert "Export contracts (draw pile" in out and "whisky" in out and "Port slot 0" in out


def _first_main_decision():
    """BASE at the human's first main action: five answers "0" get there (tile, two Workers)."""
    rc, _, session = run_play(BASE, "0\n" * 5 + "quit\n")
    game = session.game
    assert game.decision_kind == "main" and game.current_player == 0
    return game


def test_a_typed_name_applies_the_named_move():
    """A move's action name (Game.action_to_string) applies that move, as its number does, and the
    move made is printed by name, so a number typed from an earlier list shows what it did."""
    game = _first_main_decision()
    legal = game.legal_actions()
    action = legal[-1]
    name = game.action_to_string(action)
    n = len(game.history)
    for answer in (name, str(len(legal) - 1)):
        rc, out, session = run_play(BASE, "0\n" * 5 + answer + "\nquit\n")
        assert session.game.history[:n + 1] == game.history + [action]
        assert f"P0 (you)  main: {name}" in out
        assert "Pass for the rest" not in out


def test_passing_asks_for_confirmation_and_n_cancels():
    """Rulebook "8. Pass": passing ends your round, so `0`/`pass` asks y/N first; `n` (or anything
    but y) cancels and the game is unchanged, `y` passes; --no-confirm passes at once."""
    game = _first_main_decision()
    for answer in ("0", "pass"):
        rc, out, session = run_play(BASE, "0\n" * 5 + answer + "\nn\nquit\n")
        assert "Pass for the rest of round 1? You take no more actions this round. [y/N]" in out
        assert "Not passed" in out
        assert session.game.history == game.history
        rc, out, session = run_play(BASE, "0\n" * 5 + answer + "\ny\nquit\n")
        assert session.game.history[len(game.history)] == play.A.PASS
    rc, out, session = run_play(BASE + ["--no-confirm"], "0\n" * 6 + "quit\n")
    assert "Pass for the rest" not in out and session.game.history[len(game.history)] == play.A.PASS


def test_grouped_trades_keep_one_number_per_move():
    """Trades of one Good in one direction share a listed item (`1-5 trade:buy:wool:1-5 (...)`), so a
    Stewart's long trade list fits a screen; the numbers still name single moves: in a group from
    number i, number i + k is quantity 1 + k, as parse_move reads it; every move keeps its number."""
    game = Game(GameConfig(num_players=2, seed=3, clans=("stewart", "campbell")))
    while game.decision_kind != "main" or game.current_player != 0:
        game.apply(game.legal_actions()[0])
    legal = game.legal_actions()
    items = [str(t) for t in play.move_items(game, legal)]
    assert len(items) < len(legal)
    numbers = []
    for item in items:
        group = re.match(r"\s*(\d+)-(\d+) (trade:\w+:\w+):1-(\d+) \((pay|get) £\d+ for 1 \.\. £\d+ for \4\)", item)
        if group:
            i, j, name, top = int(group[1]), int(group[2]), group[3], int(group[4])
            assert j - i + 1 == top
            for n in range(i, j + 1):
                assert game.action_to_string(play.parse_move(game, str(n))) == f"{name}:{n - i + 1}"
            numbers += range(i, j + 1)
        else:
            numbers.append(int(item.split()[0]))
    assert numbers == list(range(len(legal)))


def test_the_move_list_and_the_bots_moves_are_the_engines_records():
    """`moves` lists each legal move as the engine's record (``Game.describe_legal``: name and detail, as the
    web viewer shows it), and a bot's move is printed as the record of the move it made."""
    rc, out, session = run_play(["--opponents", "random", "--seed", "4", "--clan-selection", "auction", "--width",
                                 "200"], "moves\nquit\n", width=200)
    game = Game(session.game.config)
    assert session.game.history and session.game.decision_kind == "auction_bid"     # a bot bid first
    for a in session.game.history:
        move = game.describe_move(a)
        assert move.text() in out               # the bots' moves before your first decision
        game.apply(a)
    flat = " ".join(out.split())
    for k, m in enumerate(session.game.describe_legal()):
        assert f"{k} {m.text()}" in flat
