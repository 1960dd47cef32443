"""The compiled observation encoder (``clans_env/encoding/_fastobs.c``, issue 4 "Speed") writes the
same vector as the pure-Python reference path, bit for bit, for any position; bad state gives a
Python exception, never a crash or a silently wrong vector; and it is actually built where CI runs
(a silently failed build would leave the environment at its slow speed).

The frozen-reference fixture (``test_encoding_equivalence.py``) runs both paths on recorded games;
this file adds random configurations (every clan, both selections, variants, 1-4 players) and the
error paths.
"""
from __future__ import annotations

import os
import pickle
import random

import numpy as np
import pytest

from clans_env import Game
from clans_env.encoding import ObservationEncoder, action_mask
from clans_env.encoding import masks as masks_module
from clans_env.encoding import observation as observation_module
from clans_env.encoding.observation import ACCELERATED
from clans_env.engine.actions import NUM_ACTIONS
from clans_env.engine.invariants import random_config

needs_compiled = pytest.mark.skipif(not ACCELERATED, reason="the compiled encoder was not built (no C compiler)")


def test_compiled_encoder_is_built_here():
    """``pip install -e .`` builds the extension where a C compiler exists (CI has one). Set
    CLANS_ALLOW_PURE_PYTHON=1 to run the suite on a machine without a compiler."""
    if os.environ.get("CLANS_ALLOW_PURE_PYTHON") == "1":
        pytest.skip("CLANS_ALLOW_PURE_PYTHON=1: the pure-Python encoder is accepted")
    assert ACCELERATED, ("clans_env.encoding._fastobs is missing: the C extension did not build "
                         "(see pip's output; needs gcc and the Python headers)")
    assert ObservationEncoder(2).accelerated and not ObservationEncoder(2, accelerated=False).accelerated


@needs_compiled
@pytest.mark.parametrize("num_players", [1, 2, 3, 4])
def test_compiled_and_python_paths_are_bit_identical(num_players):
    """Every position of random games (random clans, selections and variants), from every seat."""
    rng = random.Random(num_players)
    fast = ObservationEncoder(num_players)
    slow = ObservationEncoder(num_players, accelerated=False)
    positions = 0
    for g in range(3):
        game = Game(random_config(rng, num_players, seed=500 + 10 * num_players + g))
        while True:
            for seat in range(num_players):
                got, want = fast.encode(game, seat), slow.encode(game, seat)
                if not np.array_equal(got.view(np.uint32), want.view(np.uint32)):
                    bad = [s.name for s in fast.layout if not np.array_equal(got[s.slice], want[s.slice])]
                    pytest.fail(f"game {g}, position {positions}, seat {seat}: slices differ {bad}")
            positions += 1
            if game.is_terminal():
                break
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])
    assert positions > 100


@needs_compiled
def test_compiled_encoder_sees_every_clan_state_shape():
    """PlayerState.extra (the clan's own numbers) is read like ``observation._clan_state``: values in
    key order, lists flattened, non-numbers skipped, the first four, zero padded."""
    game = Game(random_config(random.Random(5), 2, seed=5))
    fast, slow = ObservationEncoder(2), ObservationEncoder(2, accelerated=False)
    for extra in ({}, {"b": 2, "a": [1, 2]}, {"x": (7, "note", 3.5), "y": True, "z": [9, 9, 9]},
                  {"only": "text"}, {"neg": -30}):
        game.players[0].extra = extra
        assert np.array_equal(fast.encode(game, 1), slow.encode(game, 1)), extra


@needs_compiled
def test_bad_state_raises_a_python_error_and_the_next_call_works():
    """State the layout cannot hold (a Shipping level off the track, a non-number) raises, naming
    the problem; the encoder keeps working for good positions."""
    game = Game(random_config(random.Random(6), 3, seed=6))
    enc = ObservationEncoder(3)
    good = enc.encode(game, 0)
    saved = game.players[1].shipping
    game.players[1].shipping = 99
    with pytest.raises(IndexError, match="shipping"):
        enc.encode(game, 0)
    game.players[1].shipping = saved
    saved = game.players[2].money
    game.players[2].money = "lots"
    with pytest.raises(TypeError, match="number"):
        enc.encode(game, 0)
    game.players[2].money = saved
    assert np.array_equal(enc.encode(game, 0), good)
    with pytest.raises(ValueError, match="seat"):
        enc.encode(game, 3)


def test_asking_for_a_missing_compiled_encoder_names_the_fix(monkeypatch):
    monkeypatch.setattr(observation_module, "_fastobs", None)
    with pytest.raises(ValueError, match="C compiler"):
        ObservationEncoder(2, accelerated=True)
    assert not ObservationEncoder(2).accelerated          # the default falls back to Python


@needs_compiled
def test_pickled_encoder_rebuilds_its_compiled_layout():
    game = Game(random_config(random.Random(8), 4, seed=8))
    enc = pickle.loads(pickle.dumps(ObservationEncoder(4)))
    assert enc.accelerated
    assert np.array_equal(enc.encode(game, 2), ObservationEncoder(4, accelerated=False).encode(game, 2))


@pytest.mark.parametrize("compiled", [pytest.param(True, marks=needs_compiled), False])
def test_action_mask_marks_exactly_the_legal_indices(monkeypatch, compiled):
    if not compiled:
        monkeypatch.setattr(masks_module, "_fastobs", None)
    rng = random.Random(9)
    for _ in range(50):
        legal = sorted(rng.sample(range(NUM_ACTIONS), rng.randrange(0, 30)))
        for dtype in (np.int8, bool, np.float32):
            mask = action_mask(legal, dtype)
            assert mask.dtype == np.dtype(dtype) and mask.shape == (NUM_ACTIONS,)
            assert mask.nonzero()[0].tolist() == legal
    with pytest.raises(IndexError):
        action_mask([NUM_ACTIONS])


@pytest.mark.parametrize("compiled", [pytest.param(True, marks=needs_compiled), False])
@pytest.mark.parametrize("industria", [False, True])
def test_encode_into_fills_a_batch_row_exactly_as_encode(compiled, industria):
    """``encode_into`` writes the observation into a given row (what batch encoders use) with the
    same bits as ``encode``; a row of the wrong length or type is refused before anything is written."""
    from clans_env import GameConfig
    config = GameConfig(num_players=2, seed=3, industria=industria)
    enc = ObservationEncoder(2, accelerated=compiled, industria=config.industria_modules)
    g = Game(config)
    rng = random.Random(3)
    batch = np.full((2, enc.size), 7.0, np.float32)
    for _ in range(60):
        for seat in range(2):
            assert enc.encode_into(g, seat, batch[seat]) is not None
            assert np.array_equal(batch[seat].view(np.uint32), enc.encode(g, seat).view(np.uint32))
        legal = g.legal_actions()
        g.apply(legal[rng.randrange(len(legal))])
    for bad in (np.zeros(enc.size - 1, np.float32), np.zeros(enc.size, np.float64),
                np.zeros((enc.size, 2), np.float32)[:, 0]):
        with pytest.raises(ValueError, match="contiguous float32 vector of length"):
            enc.encode_into(g, 0, bad)
        assert not bad.any()


@needs_compiled
def test_compiled_encoder_keeps_no_references_to_the_state():
    """Reference counts of the state objects it reads are the same after many calls, errors included
    (a missing Py_DECREF would leak a game's lists on every step of every self-play game)."""
    import sys
    game = Game(random_config(random.Random(13), 4, seed=13))
    rng = random.Random(13)
    for _ in range(120):
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    enc = ObservationEncoder(4)
    enc.encode(game, 0)                          # the first call may cache the config (import values)
    pl = game.players[2]
    watched = (pl.goods, pl.extra, pl.open_contracts, pl.merchants_market, game.stack[-1], game.unit_at,
               game.display, game.players, game.config, game.turn_order)
    before = [sys.getrefcount(x) for x in watched]
    for k in range(2000):
        enc.encode(game, k % 4)
        action_mask(game.legal_actions())
    saved = game.players[1].money
    game.players[1].money = "lots"
    for _ in range(200):
        with pytest.raises(TypeError):
            enc.encode(game, 0)
    game.players[1].money = saved
    assert [sys.getrefcount(x) for x in watched] == before


def test_environment_warns_when_it_runs_without_the_compiled_encoder(monkeypatch):
    """A user whose install could not compile the extension is told why the environment is slow."""
    import clans_env.env.aec as aec
    monkeypatch.setattr(aec, "ACCELERATED", False)
    with pytest.warns(UserWarning, match="compiled observation encoder was not built"):
        aec.raw_env(num_players=2)
