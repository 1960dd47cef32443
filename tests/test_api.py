"""The engine's public API: errors, saving and loading, determinization, action names, replay
and clone independence (issue 2, test section)."""
import json
import os
import random

import pytest

from clans_env import Game, GameConfig, IllegalActionError
from clans_env.engine import actions as A
from helpers import make_game, play_setup, random_playout


def positions(n, seed, every=7, limit=60):
    """Games at several points of one random game (setup decisions included)."""
    g = make_game(n, seed)
    rng = random.Random(seed)
    out = []
    k = 0
    while not g.is_terminal() and len(out) < limit:
        if k % every == 0:
            out.append(g.clone())
        legal = g.legal_actions()
        if len(legal) > 1 and A.PASS in legal and rng.random() > 0.1:
            legal = [a for a in legal if a != A.PASS]
        g.apply(rng.choice(legal))
        k += 1
    out.append(g)
    return out


# ---- illegal actions -----------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4])
def test_illegal_action_raises_with_reason_and_changes_nothing(n):
    """Requirement: an illegal action raises IllegalActionError with a reason and leaves the state
    unchanged (to_json before and after)."""
    rng = random.Random(n)
    for g in positions(n, n, every=11, limit=15):
        if g.is_terminal():
            continue
        legal = set(g.legal_actions())
        before = g.to_json()
        illegal = [a for a in range(A.NUM_ACTIONS) if a not in legal]
        for a in rng.sample(illegal, 12):
            with pytest.raises(IllegalActionError) as err:
                g.apply(a)
            msg = str(err.value)
            assert "not legal" in msg and g.decision_kind in msg and "legal" in msg
            assert g.to_json() == before
        assert set(g.legal_actions()) == legal


@pytest.mark.parametrize("bad", [-1, A.NUM_ACTIONS, 10 ** 9, "pass", None, [1]])
def test_malformed_actions_raise(bad):
    """Requirement: bad input gets a clear error and loses nothing."""
    g = play_setup(make_game(2, 0))
    before = g.to_json()
    with pytest.raises(IllegalActionError):
        g.apply(bad)
    assert g.to_json() == before


def test_no_action_after_the_game_ends():
    """Requirement: after Final Scoring no action is legal; applying one explains why."""
    g = make_game(2, 1)
    random_playout(g, random.Random(1))
    with pytest.raises(IllegalActionError, match="game is over"):
        g.apply(A.PASS)


def test_legal_actions_is_a_fresh_sorted_list():
    """API: legal_actions() returns a fresh list of distinct indices (sorted, as documented);
    changing it does not change the game."""
    for g in positions(3, 2, every=3, limit=40):
        legal = g.legal_actions()
        assert legal == sorted(set(legal)), g.decision_kind
        legal.clear()
        assert g.legal_actions() or g.is_terminal()


# ---- configuration -------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs,needle", [
    ({"num_players": 5}, "1, 2, 3, 4"),
    ({"num_players": 0}, "1, 2, 3, 4"),
    ({"num_players": "2"}, "1, 2, 3, 4"),
    ({"seed": "x"}, "seed"),
    ({"clan_selection": "random"}, "'none', 'draft', 'auction'"),
    ({"map_sides": ("A1", "B1", "C3", "D1")}, "A1"),
    ({"map_sides": ("B1", "A1", "C1", "D1")}, "A, B, C, D"),
    ({"map_sides": ("A1", "B1", "C1")}, "four sides"),
    ({"static_imports": "yes"}, "True or False"),
    ({"port_tiles": 1}, "True or False"),
    ({"num_players": 4, "tighter_map": True}, "2 or 3 players"),
    ({"num_players": 2, "clans": ("stewart", "nobody")}, "valid clans"),
])
def test_bad_config_raises_value_error_naming_choices(kwargs, needle):
    """Requirement: bad GameConfig values raise ValueError naming the valid choices."""
    with pytest.raises(ValueError) as err:
        GameConfig(**kwargs)
    assert needle in str(err.value)


def test_config_dict_round_trip_and_unknown_field():
    """GameConfig.to_dict / from_dict round-trip; an unknown field is a ValueError naming the
    valid fields."""
    cfg = GameConfig(num_players=3, seed=4, map_sides=("A2", "B1", "C1", "D2"), tighter_map=True,
                     clan_selection="none")
    assert GameConfig.from_dict(cfg.to_dict()) == cfg
    with pytest.raises(ValueError, match="valid fields"):
        GameConfig.from_dict({"num_players": 2, "players": 3})


def test_game_takes_config_or_keywords_not_both():
    """Game(config) or Game(**options); mixing both is a TypeError."""
    assert Game(num_players=2, seed=3).config == GameConfig(num_players=2, seed=3)
    with pytest.raises(TypeError):
        Game(GameConfig(), num_players=2)


# ---- saving and loading ----------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4])
def test_save_load_round_trip(n, tmp_path):
    """Requirement: save/load round-trips: the loaded game has the same state, the same legal
    actions, and plays on identically."""
    rng = random.Random(n)
    for g in positions(n, 10 + n, every=13, limit=12):
        path = tmp_path / "game.json"
        g.save(path)
        h = Game.load(path)
        assert h.to_json() == g.to_json()
        assert h.legal_actions() == g.legal_actions()
        assert h.history == g.history
        assert h.public_state() == g.public_state()
        seed = rng.randrange(10 ** 6)
        a, b = g.clone(), h
        random_playout(a, random.Random(seed))
        random_playout(b, random.Random(seed))
        assert a.to_json() == b.to_json()
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]      # no temporary files left


def test_save_is_atomic_on_failure(tmp_path, monkeypatch):
    """Project rule: files are written atomically: a failed write leaves the old file intact."""
    g = play_setup(make_game(2, 5))
    path = tmp_path / "g.json"
    g.save(path)
    old = path.read_text()
    g.apply(g.legal_actions()[-1])

    def boom(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        g.save(path)
    assert path.read_text() == old
    assert [p.name for p in tmp_path.iterdir()] == ["g.json"]


def corrupt_docs():
    g = play_setup(make_game(3, 6))
    good = json.loads(g.to_json())
    docs = {
        "not json": "{this is not json",
        "not an object": "[1, 2, 3]",
        "no format marker": json.dumps({k: v for k, v in good.items() if k != "format"}),
        "wrong version": json.dumps({**good, "version": 999}),
        "missing players": json.dumps({k: v for k, v in good.items() if k != "players"}),
        "missing state": json.dumps({k: v for k, v in good.items() if k != "state"}),
        "bad config": json.dumps({**good, "config": {**good["config"], "num_players": 7}}),
        "player count mismatch": json.dumps({**good, "players": good["players"][:2]}),
        "bad map": json.dumps({**good, "map_sides": ["Z9", "B1", "C1", "D1"]}),
        "truncated state": json.dumps({**good, "state": {k: v for k, v in good["state"].items() if k != "prices"}}),
        "bad player": json.dumps({**good, "players": [{"money": 3}] * 3}),
    }
    return docs


@pytest.mark.parametrize("name", list(corrupt_docs()))
def test_corrupt_saved_game_raises_clear_value_error(name):
    """Requirement: corrupt or incompatible saved games raise a clear ValueError."""
    text = corrupt_docs()[name]
    with pytest.raises(ValueError) as err:
        Game.from_json(text)
    msg = str(err.value)
    assert any(word in msg for word in ("saved game", "not a saved", "num_players", "side", "does not match")), msg


# ---- determinization -----------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4])
def test_determinize_keeps_public_state_and_reshuffles_pile(n):
    """Hidden information: determinize(seed) keeps the public state (public_state() equal) and the
    legal actions, reshuffles only the unseen part of the contract pile, and is reproducible."""
    for g in positions(n, 20 + n, every=17, limit=8):
        if g.is_terminal():
            continue
        public = g.public_state()
        piles = set()
        for seed in range(8):
            d = g.determinize(seed)
            assert d.public_state() == public
            assert d.legal_actions() == g.legal_actions()
            assert sorted(d.pile) == sorted(g.pile)
            known = g.pile_known
            if known:
                assert d.pile[-known:] == g.pile[-known:]
            assert d.determinize(seed + 1).pile == g.determinize(seed).determinize(seed + 1).pile
            assert g.determinize(seed).pile == d.pile
            piles.add(tuple(d.pile))
        unknown = len(g.pile) - g.pile_known
        if unknown >= 3:
            assert len(piles) > 1
        assert g.public_state() == public


def test_determinize_returns_an_independent_game():
    """determinize returns a copy; playing it does not touch the original."""
    g = play_setup(make_game(2, 3))
    before = g.to_json()
    d = g.determinize(1)
    random_playout(d, random.Random(1))
    assert g.to_json() == before


def test_returned_contracts_stay_known_after_determinize():
    """Building bonus: contracts returned to the bottom of the pile are known to everyone, so
    determinize keeps them in place."""
    from clans_env.engine.rules.contracts import return_to_bottom
    g = play_setup(make_game(3, 8))
    seen = g.pile[:3]
    del g.pile[:3]
    return_to_bottom(g, seen)
    assert g.pile_known == 3
    for seed in range(5):
        assert g.determinize(seed).pile[-3:] == seen


# ---- action names ------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4])
def test_action_names_round_trip_for_every_legal_action(n):
    """API: action_to_string / string_to_action round-trip for every legal action in many
    positions (context in brackets is ignored when parsing)."""
    count = 0
    for g in positions(n, 30 + n, every=2, limit=80):
        for a in g.legal_actions():
            s = g.action_to_string(a)
            assert isinstance(s, str) and s
            assert g.string_to_action(s) == a
            count += 1
    assert count > 300


def test_every_index_has_a_unique_name():
    """The flat action table: every index 0..NUM_ACTIONS-1 has one name that parses back."""
    g = play_setup(make_game(4, 0))
    names = [g.action_to_string(a).split(" (")[0] for a in range(A.NUM_ACTIONS)]
    assert len(set(names)) == A.NUM_ACTIONS
    assert all(g.string_to_action(s) == a for a, s in enumerate(names))
    with pytest.raises(ValueError, match="trade:buy:whisky:2"):
        g.string_to_action("buy whisky please")


def test_decision_text_and_views():
    """Every pending decision explains itself; the text view and the public state render at every
    step."""
    for g in positions(2, 40, every=5, limit=30):
        assert isinstance(g.decision_text(), str) and g.decision_text()
        assert "Clans of Caledonia" in str(g)
        json.dumps(g.public_state())
        assert repr(g).startswith("<Game")


# ---- replay, determinism, clones --------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4])
def test_same_seed_same_game(n):
    """Requirement: the same seed (and the same choices) replays the same game."""
    a, b = make_game(n, 77), make_game(n, 77)
    assert a.to_json() == b.to_json()
    random_playout(a, random.Random(5))
    random_playout(b, random.Random(5))
    assert a.to_json() == b.to_json()
    assert a.final_scores() == b.final_scores()
    c = make_game(n, 78)
    assert c.to_json() != make_game(n, 77).to_json()


@pytest.mark.parametrize("n", [2, 3, 4])
def test_replay_reproduces_final_scores(n):
    """Requirement: Game.replay(config, actions) (and the record) reproduces the game and its final
    scores; a wrong action in a record is reported with its position."""
    g = make_game(n, 88)
    random_playout(g, random.Random(88))
    rec = g.record()
    json.dumps(rec)
    r = Game.replay(rec["config"], rec["actions"])
    assert r.final_scores() == g.final_scores()
    assert r.to_json() == g.to_json()
    bad = list(rec["actions"])
    bad[5] = A.NUM_ACTIONS - 1
    with pytest.raises(IllegalActionError, match="#5"):
        Game.replay(g.config, bad)


def test_history_lists_every_action():
    """API: history is every action applied since setup, in order."""
    g = make_game(3, 9)
    done = []
    rng = random.Random(9)
    for _ in range(60):
        a = rng.choice(g.legal_actions())
        g.apply(a)
        done.append(a)
    assert g.history == done
    assert g.clone().history == done


def test_clone_independence():
    """Requirement: mutating a clone (playing on, editing its lists) never changes the original."""
    for g in positions(4, 50, every=19, limit=6):
        before = g.to_json()
        c = g.clone()
        for pl in c.players:
            pl.goods[0] += 5
            pl.units_left[0] = 0
            pl.open_contracts.append(1)
            pl.merchants_market[0] += 1
            pl.tech[0] = not pl.tech[0]
        c.prices[0] = 9
        c.display[0] = -1
        c.pile.reverse()
        c.occupant[0] = 3
        c.turn_order.reverse()
        c.import_track[0] += 4
        c.stack.append(c.stack[-1] if c.stack else (0, 0))
        c.turn["x"] = 1
        assert g.to_json() == before
        d = g.clone()
        if not d.is_terminal():
            random_playout(d, random.Random(1))
        assert g.to_json() == before


def test_final_scores_mid_game():
    """API: final_scores() works at any time (the position scored as if the game ended now)."""
    for g in positions(3, 60, every=23, limit=6):
        rows = g.final_scores()
        assert len(rows) == 3 and all("total" in r and "rank" in r for r in rows)
        assert g.returns() == [float(r["total"]) for r in rows]


def test_numpy_integers_are_accepted():
    """API: environments hand over numpy integers; apply accepts any int-like index."""
    np = pytest.importorskip("numpy")
    g = play_setup(make_game(2, 4))
    a = g.legal_actions()[-1]
    h = g.clone()
    g.apply(np.int64(a))
    h.apply(a)
    assert g.to_json() == h.to_json()


@pytest.mark.parametrize("options", [{}, {"industria": True}, {"industria": True, "automa": {1: 3}}])
def test_a_pickled_position_plays_on_identically(options):
    """Root-parallel MCTS sends positions to worker processes by pickle: a pickled game (base, Industria, an
    Automa with its module record) rebuilds its module hooks and plays on to the same scores."""
    import pickle
    import random
    g = Game(GameConfig(num_players=2, seed=11, **options))
    rng = random.Random(0)
    for _ in range(40):
        g.apply(rng.choice(g.legal_actions()))
    h = pickle.loads(pickle.dumps(g.clone()))
    assert h.to_json() == g.to_json() and h.legal_actions() == g.legal_actions()
    while not g.is_terminal():
        a = rng.choice(g.legal_actions())
        g.apply(a)
        h.apply(a)
    assert h.final_scores() == g.final_scores()


@pytest.mark.parametrize("clans", [("sinclair", "macdonald"), ("gordon", "mackenzie"), ("macleod", "macgregor")])
def test_main_decisions_with_clan_actions_are_distinct_and_sorted(clans):
    """API: a clan's own main actions (Railroad Reach, rowing, Silos, the cellar, Shipyards, Grazing) join the
    main decision's legal list without repeating an option, and the list stays sorted (rules/turn.py appends
    them; Game sorts)."""
    rng = random.Random(7)
    seen = 0
    for seed in range(4):
        g = Game(GameConfig(num_players=2, seed=seed, industria=True, clans=clans))
        while not g.is_terminal():
            legal = g.legal_actions()
            assert legal == sorted(set(legal)), g.decision_kind
            if g.decision_kind == "main":
                p = g.current_player
                extra = g.clans[p].main_actions(g, p)
                seen += bool(extra)
                assert set(extra) <= set(legal)
            g.apply(legal[int(rng.random() * len(legal))])
    assert seen >= 3                     # the clans' actions were on offer (MacLeod's Shipyards rarely)
