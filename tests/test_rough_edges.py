"""Issue 15, "What a new user stumbled on (fix each)": one test per rough edge of ``clans play``,
``clans replay``, the map pictures, the extras and ``clans benchmark strength``."""
from __future__ import annotations

import argparse
import io
import random
import re
import sys
import tomllib
from pathlib import Path

import pytest
from rich.console import Console

from clans_cli import play, present, replay
from clans_env import Game, GameConfig
from clans_env.engine import data as D
from clans_env.engine.records import write_record

ROOT = Path(__file__).resolve().parent.parent


def _session(argv, script: str, width: int = 120):
    parser = argparse.ArgumentParser()
    play.add_arguments(parser)
    out = io.StringIO()
    session = play.build_session(parser.parse_args(argv), Console(file=out, width=width), io.StringIO(script))
    rc = session.run()
    return rc, out.getvalue(), session


def _random_game(seed: int, num_players: int = 2, until=None) -> Game:
    """A game of random moves, stopped where ``until(game)`` holds (or at the end)."""
    g = Game(GameConfig(num_players=num_players, seed=seed))
    rng = random.Random(seed)
    while not g.is_terminal() and not (until and until(g)):
        g.apply(rng.choice(g.legal_actions()))
    return g


# ---- clans play --------------------------------------------------------------------------------------------
def test_the_text_map_explains_its_cell_codes_and_names_the_players():
    """Under the map: what 4gf, ~~~, .., XX, P1S and * mean, and a legend naming each seat's colour with
    the player or agent and the VP if the game ended now."""
    g = _random_game(3, until=lambda g: g.round == 2)
    text = play.map_view(g).plain
    for code in ("4gf", "~~~", "..", "XX", "P1S", "*", "grassland", "forest", "mountain", "loch"):
        assert code in text.split("cells:")[1], code
    legend = play.players_legend(g, 0, ["human", "heuristic"]).plain
    scores = g.final_scores()
    assert legend == f"players: P0 (you) {scores[0]['total']} VP   P1 heuristic {scores[1]['total']} VP"
    rc, out, _ = _session(["--opponents", "random", "--seed", "3"], "map\nquit\n")     # the `map` command
    assert "cells: 4gf" in out and "players: P0 (you)" in out


def test_moves_are_numbered_from_0_like_choose_0():
    """The listed numbers count from 0, so in a menu number k is choose:k."""
    g = Game(GameConfig(num_players=2, seed=3))
    assert g.decision_kind == "clan_pick"
    legal = g.legal_actions()
    out = io.StringIO()
    Console(file=out, width=200).print(play.moves_view(g, legal))
    for k, a in enumerate(legal):
        assert g.action_to_string(a) == f"choose:{k}"
        assert re.search(rf"(^|\s){k} choose:{k} \(\w+ with Starting tile", out.getvalue())
        assert play.parse_move(g, str(k)) == a
    with pytest.raises(ValueError, match=f"from 0 to {len(legal) - 1}"):
        play.parse_move(g, str(len(legal)))


def test_the_second_first_worker_prompt_says_second():
    """Setup, "Placing the First Workers": each player's prompts count its first Workers (1 of 2, 2 of 2)."""
    g = Game(GameConfig(num_players=2, seed=3))
    rng = random.Random(0)
    prompts: dict[int, list[str]] = {}
    while g.round == 1 and g.phase == 0:
        if g.decision_kind == "first_worker":
            prompts.setdefault(g.current_player, []).append(g.decision_text())
        g.apply(rng.choice(g.legal_actions()))
    for p, texts in prompts.items():
        total = g.clans[p].first_workers
        assert len(texts) == total
        assert texts[0].startswith("Place your first Worker") and "1 of" in texts[0]
        assert texts[1].startswith("Place your second Worker") and f"2 of {total}" in texts[1]


def test_the_solo_header_says_solo_game():
    rc, out, _ = _session(["--players", "1", "--seed", "2"], "quit\n")
    assert "solo game, seed 2" in out and "1 players" not in out


def test_neighbourhood_offers_show_their_prices():
    """The Neighbourhood bonus names each Good's discounted price, and every offered purchase shows what
    it costs (the money it takes, read from applying it to a copy)."""
    for seed in range(20):
        g = _random_game(seed, until=lambda g: g.decision_kind == "neighbourhood")
        if not g.is_terminal():
            break
    else:
        pytest.fail("no Neighbourhood bonus in 20 random games")
    frame = g.stack[-1]
    for i in range(D.NUM_GOODS):
        if frame[2] >> i & 1:
            unit = D.PRICES[i][g.prices[i]] - D.NB_DISCOUNT[i]
            assert f"{D.GOODS[i]} at £{unit} each" in g.decision_text()
    p = g.current_player
    for a in g.legal_actions():
        text = present.move_text(g, a)
        if text.startswith("trade:"):
            after = g.clone()
            after.apply(a)
            assert text.endswith(f"(pay £{g.players[p].money - after.players[p].money})")


def test_the_goods_legend_names_mutton_and_beef():
    g = Game(GameConfig(num_players=2, seed=1))
    out = io.StringIO()
    Console(file=out, width=100).print(play.players_table(g, 0, ["human", "random"]))
    text = " ".join(out.getvalue().split())
    assert "mutton and beef" in text and "wo wool" in text


def test_production_is_reported_and_the_table_is_not_redrawn_after_every_bot_move():
    """A whole scripted game: at each Production a line per player says what it produces and earns
    (the Workers' income checked against the record replayed), and the full table (with the Export contracts) is not
    drawn after every bot move (each decision has its compact screen; `board` draws the table)."""
    rc, out, session = _session(["--opponents", "random", "--seed", "5", "--clan-selection", "none", "--no-confirm"],
                                "0\n" * 3000)
    assert rc == 0 and session.game.is_terminal()
    reports = re.findall(r"P(\d)[^\n]*? produces ([^\n]*) and earns £(\d+)", out)
    assert len(reports) == 2 * D.NUM_ROUNDS
    # without clans the money Production gives is the Workers' income (rulebook "Phase 3: Production", 1.),
    # computed on the position before the move that ended each action phase
    g = Game(session.game.config)
    expected = []
    for a in session.game.history:
        before, phase, rnd = g.clone(), g.phase, g.round
        g.apply(a)
        if play.PHASE_NAMES[phase] == "action" and (g.phase != phase or g.round != rnd):
            expected.extend((p, sum(pl.units_placed(u) * before.clans[p].worker_income(before, p, u)
                                    for u in D.WORKERS)) for p, pl in enumerate(before.players))
    assert [(int(p), int(m)) for p, _, m in reports] == expected
    bot_moves = len(re.findall(r"^  P1 random  \w+: ", out, re.M))
    assert bot_moves > 40
    assert out.count("Export contracts (draw pile") <= D.NUM_ROUNDS + 2      # start, each round, game over


# ---- clans replay -------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def record_file(tmp_path_factory):
    g = _random_game(5)
    path = tmp_path_factory.mktemp("replay") / "game.json"
    write_record(path, g, players=["alice", "random"])
    return path, g


@pytest.mark.parametrize("step", [False, True])
def test_replay_lists_the_moves_made_with_descriptions_and_names(record_file, step):
    """`clans replay` (and --step) shows each move that was made, in words (a menu answer with its meaning,
    a space with its unit) and with the player's name, not the pending decision."""
    path, game = record_file
    out = io.StringIO()
    replay.replay(path, step=step, console=Console(file=out, width=200))
    text = out.getvalue()
    g = Game(game.config)
    for i, a in enumerate(game.history):
        name = ["alice", "random"][g.current_player]
        line = f"#{i:<4} P{g.current_player} ({name}) {g.decision_kind}: {present.move_text(g, a)}"
        assert line in text
        g.apply(a)
    assert re.search(r"choose:\d \(\w+ with Starting tile", text)
    assert re.search(r"place: space:\S+ \(.*(sheep|cow|woodcutter|miner|field|cheese_dairy|bakery|distillery)\)",
                     text)
    assert text.count("\n>> ") == 1                 # only the start shows the pending decision
    assert "players: P0 (alice)" in text


# ---- map pictures ----------------------------------------------------------------------------------------------
def test_map_pictures_have_a_legend_of_the_players(record_file, tmp_path, monkeypatch):
    """Replay and play pictures and the environments' rgb_array renders draw a legend: seat, name, VP."""
    import clans_env.env.render as env_render
    import clans_env.render.map_image as map_image
    path, game = record_file
    seen = []
    real = map_image.draw_player_legend

    def recording(ax, players, **kw):
        seen.append(list(players))
        real(ax, players, **kw)
        assert ax.get_legend() is not None and len(ax.get_legend().get_texts()) == len(players)

    monkeypatch.setattr(map_image, "draw_player_legend", recording)
    monkeypatch.setattr(env_render, "draw_player_legend", recording)
    replay.write_map_png(game, tmp_path / "m.png", names=["alice", "random"])
    totals = [r["total"] for r in game.final_scores()]
    clans = [pl.clan for pl in game.players]
    assert seen[-1] == [(0, f"alice ({clans[0]})", totals[0]), (1, f"random ({clans[1]})", totals[1])]
    env_render.render_rgb(game)
    assert seen[-1] == [(0, f"player_0 ({clans[0]})", totals[0]), (1, f"player_1 ({clans[1]})", totals[1])]


# ---- extras and the benchmark ---------------------------------------------------------------------------------
def test_the_notebooks_extra_installs_jupyter_and_the_readme_says_so():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert any(r.startswith("jupyter") for r in extras["notebooks"])
    assert '.[notebooks]' in (ROOT / "README.md").read_text()


def test_the_interop_libraries_are_installed_by_ci():
    """tests/test_interop_libraries.py runs in CI: its libraries are in the interop extra, which dev includes
    and .ci/run installs."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    names = {re.split(r"[<>=\[]", r)[0] for r in extras["interop"]}
    assert {"tianshou", "torchrl", "dm-tree", "open_spiel", "sb3-contrib"} <= names
    assert "clans-env[interop,test]" in extras["dev"]
    assert '".[dev,' in (ROOT / ".ci" / "run").read_text()


def test_benchmark_strength_says_its_plan_and_an_estimate(capsys):
    """`clans benchmark strength` starts by saying how long it will take (each agent timed per decision on
    this machine) and numbers its parts."""
    from clans_cli.main import main
    from training import benchmarks as B
    assert main(["benchmark", "strength", "--games", "2", "--mcts-games", "0", "--solo-games", "1",
                 "--solo-agents", "random", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"clans benchmark strength: 2 parts, about \d+ (s|min) in all on 1 worker", out)
    assert "[1/2] heuristic vs random: 2 games, about" in out and "[2/2] solo random: 1 games, about" in out
    assert "done in" in out
    assert B.decision_seconds("heuristic") > B.decision_seconds("random") > 0
    assert B.estimate_seconds(["heuristic", "random"], 10, workers=2) > 0
    assert sys.modules["training.benchmarks"] is B


def test_pettingzoos_api_test_raises_no_warning_but_the_filtered_ones(recwarn):
    """The test run's warnings: ours are fixed (the speed benchmark's constant env no longer observes all
    zeros), and every warning PettingZoo's api_test still raises on our envs matches one of the filters in
    pyproject.toml, each of which says why it is not ours to fix."""
    import warnings

    from pettingzoo.test import api_test

    import clans_env
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import env_speed
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    warnings.simplefilter("always")
    api_test(clans_env.env(num_players=2), num_cycles=30)
    api_test(env_speed.wrap_like_env(env_speed.ConstantEnv(2, 40, 10, 4)), num_cycles=20)
    filters = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["filterwarnings"]
    patterns = [re.compile(f.split(":")[1] if not f.startswith("ignore:.*") else f[len("ignore:"):].rsplit(":", 1)[0])
                for f in filters]
    unexplained = [str(w.message) for w in recwarn if not any(p.match(str(w.message)) for p in patterns)]
    assert not unexplained, unexplained
    assert len(recwarn) > 0                     # the filtered ones were raised and recorded here
