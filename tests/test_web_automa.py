"""The web viewer with an Automa seat (issue 20: "its card and each resolved action are in ... the web
viewer"): the replay data and the games played in the browser carry the Automa's game-record lines
(rules.automa.log_lines, as render_text and ``clans play`` show them) with the decision inside whose
``apply`` they were resolved. The browser test is tests/test_web_browser.py
``test_automa_game_replays_and_plays_with_its_cards_shown``."""
from __future__ import annotations

import random

import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed (pip install -e '.[web]')")

from clans_env import Game, GameConfig  # noqa: E402
from clans_env.engine.rules.automa import log_lines  # noqa: E402
from clans_web.games import GameStore  # noqa: E402
from clans_web.views import replay_data  # noqa: E402


def automa_game(seed=11, **options) -> Game:
    g = Game(GameConfig(num_players=2, seed=seed, automa={1: 3}, **options))
    rng = random.Random(seed)
    while not g.is_terminal():
        g.apply(rng.choice(g.legal_actions()))
    return g


@pytest.mark.parametrize("options", [{}, {"industria": True}])
def test_replay_moves_carry_the_automa_lines_resolved_inside_them(options):
    g = automa_game(**options)
    d = replay_data(g.record(), {}, "automa.json")
    assert d["names"] == ["P0", "automa:level=3"]            # an unnamed Automa seat says what it is
    lines = list(d["automa_start"])
    for k, m in enumerate(d["moves"]):
        assert m["player"] != 1
        replayed = Game.replay(g.config, g.history[:k + 1])
        assert lines + m["automa"] == log_lines(replayed), f"decision {k}"
        lines += m["automa"]
    assert lines == log_lines(g) and any("draws card" in x for x in lines)
    assert d["frames"][-1]["players"][1]["automa"]["level"] == 3          # the Automa's board
    plain = Game(GameConfig(num_players=2, seed=1))
    plain.apply(plain.legal_actions()[0])
    assert "automa" not in replay_data(plain.record(), {}, "x")["moves"][0]   # no Automa: the moves as before


def test_browser_game_log_entries_carry_the_automa_lines():
    store = GameStore()
    wg = store.create(2, 0, ["automa:level=2"], 5, None, {"industria": True})
    assert wg.game.config.automa == {1: 2} and wg.game.config.trains
    while not wg.game.is_terminal():
        wg.move(wg.game.legal_actions()[0], wg.version)
    entries = [line for e in wg.log for line in e.get("automa", [])]
    assert [e["index"] for e in wg.log] == list(range(len(wg.game.history)))
    assert any("draws card" in x for x in entries)
    assert entries == log_lines(wg.game)[len(log_lines(wg.game)) - len(entries):]
    assert wg.state()["frame"]["players"][1]["automa"]["level_name"] == "Easy"
