"""One move record for every presenter (issue "Expansions as plug-ins"): ``Game.describe_move`` /
``describe_legal`` (``clans_env.engine.moves.Move``) describe each legal move as data, and ``clans play``,
``clans replay`` and the web viewer all render that record; none reads the decision's prose."""
from __future__ import annotations

import ast
import dataclasses
import random
import re
from pathlib import Path

import pytest

from clans_cli import play, present
from clans_env import Game, GameConfig
from clans_env.engine import actions as A
from clans_env.engine.moves import Move
from clans_web.views import legal_moves

ROOT = Path(__file__).resolve().parent.parent
PRESENTERS = sorted((ROOT / "clans_cli").glob("*.py")) + sorted((ROOT / "clans_web").glob("*.py"))

GAMES = [dict(num_players=2, seed=1), dict(num_players=3, seed=2, clan_selection="auction"),
         dict(num_players=4, seed=3), dict(num_players=1, seed=4, clan_selection="none"),
         dict(num_players=2, seed=5, industria=True), dict(num_players=3, seed=6, industria=True),
         dict(num_players=2, seed=7, industria=True, clan_selection="auction")]


def _decisions(config: dict):
    """Every decision of a random game with ``config`` (the game at each, before the move)."""
    g = Game(GameConfig(**config))
    rng = random.Random(config["seed"])
    while not g.is_terminal():
        yield g
        g.apply(rng.choice(g.legal_actions()))


@pytest.mark.parametrize("config", GAMES, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_cli_and_web_render_the_same_record_for_every_legal_move(config):
    """At every decision, the web's move list and the CLI's numbered list show each legal move's record: the
    same name (``action_to_string``) and detail; a CLI group of trades (one Good, one direction) shows the
    first and last quantities' costs from the records."""
    for g in _decisions(config):
        moves = g.describe_legal()
        assert [m.action for m in moves] == g.legal_actions()
        web = legal_moves(g)
        assert [(w["action"], w["name"], w["detail"]) for w in web] == [(m.action, m.name, m.detail) for m in moves]
        assert all(w["space"] == m.space for w, m in zip(web, moves))
        i = 0
        for item in map(str, play.move_items(g, g.legal_actions())):
            group = re.match(r"\s*(\d+)-(\d+) ", item)
            if group:
                first, last = moves[int(group[1])], moves[int(group[2])]
                assert first.family == last.family == "trade"
                assert f"£{abs(first.cost)} for {first.quantity} .. £{abs(last.cost)} for {last.quantity}" in item
                i = int(group[2]) + 1
            else:
                assert item == f"{i:>3} {moves[i].text()}"
                assert moves[i].text() == f"{moves[i].name} ({moves[i].detail})" if moves[i].detail else moves[i].name
                i += 1
        assert i == len(moves)


@pytest.mark.parametrize("config", GAMES, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_every_record_names_the_move_as_the_environment_does_and_every_choice_has_a_meaning(config):
    """``Move.name`` is ``Game.action_to_string`` (the one source of action names), and every ``choose:k``
    answer says what it picks (``option``) or counts (``quantity``), read from the state."""
    for g in _decisions(config):
        for m in g.describe_legal():
            assert m.name == g.action_to_string(m.action) and m.kind == g.decision_kind
            assert m.family == A.section_of(m.action)[0] and m.player == g.current_player
            if m.family == "choose":
                assert m.option is not None or m.quantity is not None, (g.decision_kind, g.decision_text(), m)


def _first(config: dict, kind: str) -> Game:
    return next(g for g in _decisions(config) if g.decision_kind == kind)


def test_an_auction_bid_is_a_bid_not_the_clan_on_offer():
    """Clan Auction (rulebook, Clan selection variant): ``choose:b`` bids b VP. The old prose parsing read the
    offers listed after the question and called ``choose:0`` 'the first clan on offer'."""
    g = _first(dict(num_players=3, seed=2, clan_selection="auction"), "auction_bid")
    for m in g.describe_legal():
        if m.family == "choose":
            k = m.action - A.CHOOSE
            assert (m.option, m.quantity) == (f"bid {k} VP", k)
            assert "Starting tile" not in present.move_text(g, m.action)


def test_drawn_contracts_are_records_with_their_contents():
    """Building bonus (rulebook, Deployment bonuses): each drawn contract is ``choose:k`` with its id and
    contents as data (the old parsing ran the last one into the decision's closing words)."""
    g = _first(dict(num_players=2, seed=2), "building_bonus").clone()
    draw = g.describe_move(A.CHOOSE)
    assert draw.option == f"draw {g.clans[g.current_player].building_bonus_draw} Export contracts"
    g.apply(A.CHOOSE)
    drawn = g.stack[-1][2]
    assert g.decision_kind == "building_bonus" and drawn
    for m in g.describe_legal():
        if m.family == "choose":
            cid = drawn[m.action - A.CHOOSE]
            assert m.contract == cid and m.option == f"take contract {cid}" and "or done" not in m.detail


def test_a_count_is_its_number_and_a_place_names_unit_and_cost():
    """Production "process" decisions (rulebook, Phase 3 Production: processing) are counts; a placement
    names the unit it deploys and the money it costs (``placement_cost``)."""
    g = _first(dict(num_players=2, seed=1), "process")
    assert all(m.quantity == m.action - A.CHOOSE for m in g.describe_legal() if m.family == "choose")
    g = _first(dict(num_players=2, seed=1, clan_selection="none"), "main")
    expand = next(a for a in g.legal_actions() if A.section_of(a)[0] == "expand")
    g = g.clone()
    g.apply(expand)
    for m in g.describe_legal():
        assert m.unit == A.describe(expand).split(":")[1] and m.cost is not None and m.space == m.action - A.SPACE


def test_the_record_is_a_frozen_slotted_value():
    m = Game(GameConfig(num_players=2, seed=1)).describe_legal()[0]
    assert isinstance(m, Move) and not hasattr(m, "__dict__")
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.option = "x"
    assert m.to_dict()["detail"] == m.detail


@pytest.mark.parametrize("path", PRESENTERS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_presenter_parses_decision_prose(path):
    """The presenters render the record: no ``choice_meaning`` and no regular expression over ``choose:``."""
    src = path.read_text(encoding="utf-8")
    assert "choice_meaning" not in src
    assert not re.search(r"re\.\w+\(\s*r?f?[\"'][^\"']*choose", src)


def test_replay_does_not_import_the_interactive_play_module():
    """``clans replay`` shares what it shows with ``clans play`` through clans_cli/present.py."""
    tree = ast.parse((ROOT / "clans_cli" / "replay.py").read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            imported.add(("." * node.level) + (node.module or ""))
            imported.update(f"{'.' * node.level}{node.module or ''}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            imported.update(a.name for a in node.names)
    assert not any(name.endswith(".play") or name == "play" for name in imported), imported
