"""Legal lists built on demand (issue 16, engine speed) and the unchecked apply of search and replays.

``Game._advance`` no longer builds the pending decision's legal list: kinds with a registered
``has_legal`` (``rules/registry.py``) only say whether there is one, and ``legal_actions`` /
``apply`` build the list when they need it. These tests check that nothing observable changed:
the on-demand list equals the list the rules give at every decision, ``has_legal`` agrees with the
rules' list at every frame ``_advance`` asks about (popped frames included), ``apply_unchecked``
reaches exactly the states ``apply`` reaches, and a save does not depend on whether the list was
built.
"""
from __future__ import annotations

import random

import pytest

from clans_env import Game, GameConfig
from clans_env.engine import actions as A
from clans_env.engine.rules import registry as R
from clans_env.engine.state import K_CLAN, IllegalActionError

CONFIGS = [(n, industria) for n in (1, 2, 3, 4) for industria in (False, True)]


def rules_list(g: Game) -> list[int]:
    """The pending decision's legal list straight from the rules (what the eager engine cached)."""
    frame = g.stack[-1]
    legal = g.clans[frame[1]].legal(g, frame) if frame[0] == K_CLAN else R.LEGAL[frame[0]](g, frame)
    return sorted(legal)


@pytest.mark.parametrize("n,industria", CONFIGS)
def test_on_demand_list_equals_the_rules_list_after_every_action(n, industria, monkeypatch):
    """At every decision of seeded random games (1-4 players, base game and industria=True) the
    list built on demand is the rules' sorted list, and each registered ``has_legal`` answers
    ``bool(legal)`` for every frame it is asked about (also those then popped as empty)."""
    asked = {}

    def checked(kind, fn):
        def has_legal(g, frame):
            answer = fn(g, frame)
            assert answer == bool(R.LEGAL[kind](g, frame)), f"has_legal of kind {kind} disagrees with its list"
            asked[kind] = asked.get(kind, 0) + 1
            return answer
        return has_legal

    registered = [k for k, fn in enumerate(R.HAS_LEGAL) if fn is not None]
    assert registered, "no decision kind has a has_legal"
    monkeypatch.setattr(R, "HAS_LEGAL", [None if fn is None else checked(k, fn) for k, fn in enumerate(R.HAS_LEGAL)])
    rng = random.Random(n * 10 + industria)
    for seed in range(2):
        g = Game(GameConfig(num_players=n, seed=seed, industria=industria))
        while not g.is_terminal():
            expected = rules_list(g)
            legal = g.legal_actions()
            assert legal == expected and legal
            g.apply(legal[rng.randrange(len(legal))])
        assert g.legal_actions() == []
    assert set(asked) == set(registered), f"has_legal never asked for kinds {set(registered) - set(asked)}"


@pytest.mark.parametrize("n,industria", CONFIGS)
def test_apply_unchecked_reaches_the_same_states_as_apply(n, industria):
    """``apply_unchecked`` (search and replays) gives the state ``apply`` gives, action by action,
    and the game's record replays to the same final state through the checked path."""
    rng = random.Random(100 + n * 10 + industria)
    checked = Game(GameConfig(num_players=n, seed=7, industria=industria))
    unchecked = checked.clone()
    step = 0
    while not checked.is_terminal():
        legal = checked.legal_actions()
        a = legal[rng.randrange(len(legal))]
        checked.apply(a)
        unchecked.apply_unchecked(a)
        if step % 7 == 0 or checked.is_terminal():
            assert unchecked.to_json() == checked.to_json()
        step += 1
    assert unchecked.is_terminal()
    assert unchecked.final_scores() == checked.final_scores()
    assert Game.replay(checked.config, unchecked.history).to_json() == checked.to_json()


def test_a_save_does_not_depend_on_whether_the_list_was_built():
    """Building the list fills caches (reach); ``to_json`` builds it first, so the text is the
    same either way (and the same as when every list was built eagerly)."""
    rng = random.Random(3)
    g = Game(GameConfig(num_players=3, seed=5))
    for _ in range(120):
        fresh = g.clone()
        built = g.clone()
        built.legal_actions()
        assert fresh.to_json() == built.to_json()
        legal = g.legal_actions()
        g.apply_unchecked(legal[rng.randrange(len(legal))])


def test_an_illegal_action_on_an_unbuilt_list_raises_and_changes_nothing():
    """Requirement (bad input): with the list not built yet (right after an unchecked apply),
    an illegal action still raises the same IllegalActionError and leaves the state unchanged."""
    g = Game(GameConfig(num_players=2, seed=1))
    rng = random.Random(1)
    for _ in range(40):
        legal = g.legal_actions()
        g.apply_unchecked(legal[rng.randrange(len(legal))])
    reference = g.clone()
    reference.legal_actions()
    bad = next(a for a in range(A.NUM_ACTIONS) if a not in reference.legal_actions())
    with pytest.raises(IllegalActionError) as expected:
        reference.apply(bad)
    before = g.to_json()
    with pytest.raises(IllegalActionError) as got:
        g.apply(bad)
    assert str(got.value) == str(expected.value)
    assert g.to_json() == before


def test_place_has_legal_is_false_exactly_when_no_space_is_legal():
    """A placement frame with no target space (none happens in random play, so built here) is
    empty for ``has_legal`` as for the list, and ``_advance`` pops it; with a target it is pending.
    (An Expand's placement, PLACE_EXPAND, is pushed only by the main decision for a unit type with a
    target, so its ``has_legal`` answers True without looking; the random games above check that claim
    at every such frame.)"""
    from clans_env.engine.actions import SPACE
    from clans_env.engine.state import K_PLACE, PLACE_CLAN, PLACE_FREE
    g = Game(GameConfig(num_players=2, seed=2))
    while g.decision_kind != "main":
        g.apply(g.legal_actions()[0])
    p = g.current_player
    free = next(s for s in range(g.board.num_spaces) if not g.occupied >> s & 1 and g.topo.unit_mask[0] >> s & 1)
    poor = g.clone()
    poor.players[p].money = 0
    cases = [(g, (K_PLACE, p, 0, PLACE_CLAN, 0), False), (g, (K_PLACE, p, 0, PLACE_CLAN, 1 << free), True),
             (poor, (K_PLACE, p, 0, PLACE_FREE), False), (g, (K_PLACE, p, 0, PLACE_FREE), True)]
    for state, frame, pending in cases:
        assert R.HAS_LEGAL[K_PLACE](state, frame) is pending
        assert bool(R.LEGAL[K_PLACE](state, frame)) is pending
        s = state.clone()
        depth = len(s.stack)
        s.stack.append(frame)
        s._advance()
        assert (len(s.stack) == depth + 1) is pending
        if pending:
            assert s.legal_actions() == R.LEGAL[K_PLACE](state, frame) and all(a >= SPACE for a in s.legal_actions())
