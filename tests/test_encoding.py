"""The observation encoder (issue 4, "Environment": the observation encodes everything public,
from the observer's point of view, fixed length per player count, layout documented and
available programmatically; values finite and within their documented bounds)."""
from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clans_env import Game, GameConfig
from clans_env.encoding import CLAN_NAMES, ObservationEncoder, action_mask
from clans_env.encoding.observation import CONTRACT_FEATURES, CONTRACT_TABLE
from clans_env.engine import data as D
from clans_env.engine.actions import NUM_ACTIONS, NUM_SPACES
from clans_env.engine.clans import CLANS
from clans_env.engine.state import DECISION_KINDS

PLAYER_COUNTS = (1, 2, 3, 4)


def positions(num_players: int, seed: int, every: int = 1, **options):
    """Yield the positions of one random game (every ``every``-th decision, and the end)."""
    rng = random.Random(seed)
    g = Game(GameConfig(num_players=num_players, seed=seed, **options))
    i = 0
    while not g.is_terminal():
        if i % every == 0:
            yield g
        legal = g.legal_actions()
        g.apply(legal[rng.randrange(len(legal))])
        i += 1
    yield g


def seats_of(g):
    return [g.current_player] if g.current_player is not None else list(range(g.num_players))


# ---- layout ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_layout_tiles_the_vector(n):
    """Layout: the named slices are contiguous, cover the whole vector exactly once, have unique
    names and consistent bounds; ``slices`` / ``low`` / ``high`` agree with it."""
    enc = ObservationEncoder(n)
    at = 0
    for s in enc.layout:
        assert s.start == at and s.length > 0 and s.low <= s.high and s.description
        at += s.length
    assert at == enc.size
    assert len(enc.slices) == len(enc.layout)
    for s in enc.layout:
        assert np.all(enc.low[s.slice] == s.low) and np.all(enc.high[s.slice] == s.high)
    # the map is the first block of 128-value planes
    assert all(s.length == NUM_SPACES for s in enc.layout[:enc.num_map_planes])
    assert enc.layout[enc.num_map_planes].name.startswith("market")


def test_length_fixed_per_player_count():
    """Fixed length per player count: options (clans, Kickstarter, variants) never change it; each
    added player adds a player block and its map planes."""
    sizes = {n: ObservationEncoder(n).size for n in PLAYER_COUNTS}
    assert sizes[1] < sizes[2] < sizes[3] < sizes[4]
    for options in ({}, {"clan_selection": "draft", "kickstarter": True}, {"tighter_map": True, "static_imports": True},
                    {"scoring_tiles": False, "port_tiles": False}):
        g = Game(GameConfig(num_players=2, seed=3, **options))
        assert ObservationEncoder(2).encode(g, 0).shape == (sizes[2],)


def test_clan_slots_cover_every_clan():
    """Clans: the clan one-hot reserves a slot for every clan the engine knows (base game and
    Kickstarter); the Industria clans have their own one-hot in the Industria segment, so a base
    observation keeps its layout."""
    from clans_env.engine import data as D
    assert set(CLANS) - set(D.CLANS_INDUSTRIA) <= set(CLAN_NAMES)
    assert ObservationEncoder(2).slices["me.clan"].length == 1 + len(CLAN_NAMES)
    enc = ObservationEncoder(2, industria=("industria_clans",))
    assert enc.slices["industria.clan"].length == 2 * len(D.CLANS_INDUSTRIA)


def test_industria_clan_one_hot_per_relative_seat():
    """Industria clans (R18): the clan one-hot of the Industria segment names each player's clan,
    seen from the observing seat; both encoder paths agree."""
    from clans_env import Game, GameConfig
    from clans_env.engine import data as D
    g = Game(GameConfig(num_players=2, seed=4, clans=["sinclair", "stewart"], industria_clans=True))
    for accelerated in (False, True):
        enc = ObservationEncoder(2, industria=("industria_clans",), accelerated=accelerated)
        sl = enc.slices["industria.clan"]
        for seat, rel_sinclair in ((0, 0), (1, 1)):
            vec = enc.encode(g, seat)[sl.start:sl.start + sl.length].reshape(2, -1)
            assert vec[rel_sinclair].tolist() == [float(c == "sinclair") for c in D.CLANS_INDUSTRIA]
            assert not vec[1 - rel_sinclair].any()


def test_markdown_table_lists_every_slice():
    """The layout is documented: the generated table has one row per slice."""
    enc = ObservationEncoder(2)
    table = enc.markdown_table()
    assert all(f"`{s.name}`" in table for s in enc.layout)


def test_bad_arguments_are_explained():
    """Bad input gets a clear error naming the valid choices."""
    with pytest.raises(ValueError, match="1, 2, 3, 4"):
        ObservationEncoder(5)
    enc = ObservationEncoder(2)
    g = Game(GameConfig(num_players=3, seed=0))
    with pytest.raises(ValueError, match="for 2 players"):
        enc.encode(g, 0)
    with pytest.raises(ValueError, match="0..1"):
        enc.encode(Game(GameConfig(num_players=2, seed=0)), 2)


# ---- bounds ----------------------------------------------------------------------------------------
CONFIGS = st.sampled_from([
    {}, {"clan_selection": "draft"}, {"clan_selection": "auction"}, {"kickstarter": True, "clan_selection": "draft"},
    {"static_imports": True}, {"scoring_tiles": False, "port_tiles": False}, {"tighter_map": True},
])


@settings(max_examples=12, deadline=None)
@given(n=st.sampled_from(PLAYER_COUNTS), seed=st.integers(0, 10 ** 6), options=CONFIGS)
def test_values_finite_and_within_documented_bounds(n, seed, options):
    """Observation values are finite and within the layout's bounds over random games, for every
    player count and variant, from every seat."""
    if options.get("tighter_map") and n not in (2, 3):
        n = 2
    if n == 1 and "clan_selection" in options and options["clan_selection"] == "auction":
        options = {}
    enc = ObservationEncoder(n)
    for g in positions(n, seed, **options):
        for seat in range(n):
            v = enc.encode(g, seat)
            assert v.dtype == np.float32 and v.shape == (enc.size,)
            assert np.isfinite(v).all()
            bad = np.flatnonzero((v < enc.low) | (v > enc.high))
            assert bad.size == 0, [(enc.layout[_slice_at(enc, i)].name, float(v[i])) for i in bad[:5]]


def _slice_at(enc, index):
    return next(k for k, s in enumerate(enc.layout) if s.start <= index < s.start + s.length)


# ---- meaning -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", (2, 4))
def test_slices_mean_what_the_layout_says(n):
    """Each documented slice reflects the engine state it names, relative to the observer: its own
    data first (``me``), then opponents in seat order after it."""
    enc = ObservationEncoder(n)
    for g in positions(n, seed=11, every=7):
        for seat in range(n):
            d = enc.split(enc.encode(g, seat))
            for k, who in enumerate(enc.player_names):
                pl = g.players[(seat + k) % n]
                assert d[f"{who}.money"][0] == pytest.approx(min(pl.money, 500) / 100)
                assert np.allclose(d[f"{who}.goods"], np.minimum(pl.goods, 30) / 10)
                assert np.allclose(d[f"{who}.units_left"], np.minimum(pl.units_left, 8) / 4)
                assert d[f"{who}.shipping"].argmax() == pl.shipping and d[f"{who}.shipping"].sum() == 1
                assert d[f"{who}.glory"][0] == pytest.approx(min(pl.glory, 300) / 100)
                assert d[f"{who}.passed"][0] == pl.passed
                occupied = np.array([pl.spaces >> s & 1 for s in range(NUM_SPACES)])
                assert np.array_equal(d[f"map.occupant.{who}"], occupied)
                for box, cid in enumerate(pl.open_contracts):
                    got = d[f"{who}.contracts.open"][box * len(CONTRACT_FEATURES):(box + 1) * len(CONTRACT_FEATURES)]
                    assert np.array_equal(got, CONTRACT_TABLE[cid + 1])
            for u in range(D.NUM_UNITS):
                assert np.array_equal(d[f"map.unit.{D.UNITS[u]}"], np.array(g.unit_at) == u)
            assert np.allclose(d["market.step"] * D.MAX_STEP, g.prices)
            assert d["round"].argmax() == g.round - 1
            for box, cid in enumerate(g.display):
                got = d["contracts.display"][box * len(CONTRACT_FEATURES):(box + 1) * len(CONTRACT_FEATURES)]
                assert got[0] == (cid >= 0)
                if cid >= 0:
                    contract = D.CONTRACT_BY_ID[cid]
                    assert np.allclose(got[1:1 + D.NUM_GOODS] * 6, contract.goods)
            if g.stack:
                frame = g.stack[-1]
                assert d["decision.kind"].argmax() == frame[0] and d["decision.kind"].sum() == 1
                assert d["decision.player"].argmax() == (frame[1] - seat) % n
            else:
                assert d["decision.kind"].sum() == 0


def test_static_map_planes_match_the_board():
    """Per map space: land type bits, cost / 6 and the active flag come from the assembled board."""
    g = Game(GameConfig(num_players=2, seed=5))
    enc = ObservationEncoder(2)
    d = enc.split(enc.encode(g, 0))
    b = g.board
    assert np.allclose(d["map.cost"] * 6, b.cost)
    assert np.array_equal(d["map.loch"], [k == 1 for k in b.kind])
    assert np.array_equal(d["map.active"], b.active(2))
    assert np.array_equal(d["map.grass"], [bool(land & 1) and k == 0 for land, k in zip(b.land, b.kind)])


def test_memoised_parts_never_leak_between_positions():
    """Speed: the encoder memoises segments; encoding positions in any order with one encoder
    gives exactly what a fresh encoder gives."""
    all_positions = [g.clone() for g in positions(3, seed=21)]
    rng = random.Random(0)
    shared = ObservationEncoder(3)
    for g in all_positions:
        for seat in range(3):
            shared.encode(g, seat)
    for g in rng.sample(all_positions, 25):
        seat = rng.randrange(3)
        assert np.array_equal(shared.encode(g, seat), ObservationEncoder(3).encode(g, seat))


def test_observation_is_a_fresh_array():
    """Callers may modify an observation: later observations are unaffected."""
    g = Game(GameConfig(num_players=2, seed=1))
    enc = ObservationEncoder(2)
    first = enc.encode(g, 0)
    first[:] = 7.0
    assert not np.any(enc.encode(g, 0) == 7.0)


def test_decision_context_is_encoded():
    """The pending decision's context: the unit and mode of a placement, the goods of a
    Neighbourhood bonus, the drawn contracts of a Building bonus."""
    enc = ObservationEncoder(2)
    seen = set()
    for seed in range(40):
        for g in positions(2, seed):
            if not g.stack:
                continue
            frame = g.stack[-1]
            kind = DECISION_KINDS[frame[0]]
            d = enc.split(enc.encode(g, frame[1]))
            if kind == "place":
                assert d["decision.units"][frame[2]] == 1 and d["decision.place_mode"][frame[3]] == 1
            elif kind == "neighbourhood":
                assert [d["decision.goods"][i] for i in range(D.NUM_GOODS)] == [frame[2] >> i & 1 for i in range(6)]
            elif kind == "building_bonus":
                for k, cid in enumerate(frame[2]):
                    got = d["decision.contracts.drawn"][k * len(CONTRACT_FEATURES):(k + 1) * len(CONTRACT_FEATURES)]
                    assert np.array_equal(got, CONTRACT_TABLE[cid + 1])
            seen.add(kind)
        if {"place", "neighbourhood", "building_bonus"} <= seen:
            break
    assert {"place", "neighbourhood"} <= seen


def test_action_mask_helper():
    """The mask is exactly the legal set, as a fresh 0/1 vector over NUM_ACTIONS."""
    legal = [0, 5, 300]
    m = action_mask(legal)
    assert m.dtype == np.int8 and m.shape == (NUM_ACTIONS,) and np.flatnonzero(m).tolist() == legal
    m[:] = 0
    assert np.flatnonzero(action_mask(legal)).tolist() == legal
    assert action_mask(legal, bool).dtype == bool
