"""The PettingZoo environment (issue 4, "Environment"): classic-environment conventions, the
official API and seed tests, the masked action space, end-of-game rewards, infos, rendering,
seeding and illegal-move handling."""
from __future__ import annotations

import random

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import clans_env
from clans_env import Game, GameConfig, IllegalActionError, clans_of_caledonia_v0
from clans_env.encoding import ObservationEncoder
from clans_env.engine.actions import NUM_ACTIONS
from clans_env.engine.state import DECISION_KINDS
from clans_env.env.aec import raw_env
from clans_env.env.rewards import final_rewards

PLAYER_COUNTS = (1, 2, 3, 4)


def play(env, rng, max_steps=None):
    """Drive an AEC env with uniformly random masked actions; returns the number of moves."""
    moves = 0
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))
        moves += 1
        if max_steps is not None and moves >= max_steps:
            break
    return moves


# ---- PettingZoo conventions and official tests --------------------------------------------------------
@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_pettingzoo_api_test(n):
    """Tests: pettingzoo.test.api_test passes for 1, 2, 3 and 4 players."""
    api_test(clans_env.env(num_players=n), num_cycles=200)


@pytest.mark.parametrize("options", [{"clan_selection": "draft", "kickstarter": True}, {"clan_selection": "auction"},
                                     {"tighter_map": True, "static_imports": True}])
def test_pettingzoo_api_test_with_variants(options):
    """Tests: the API test also passes with clans (draft, auction), Kickstarter and variants."""
    api_test(clans_env.env(num_players=3, **options), num_cycles=200)


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_pettingzoo_seed_test(n):
    """Tests: pettingzoo.test.seed_test passes for 1, 2, 3 and 4 players."""
    seed_test(lambda: clans_env.env(num_players=n), num_cycles=200)


def test_classic_entry_points():
    """Environment: clans_env.env(**kwargs) is the wrapped AEC env, clans_env.raw_env the raw one, and
    the module clans_of_caledonia_v0 has both; metadata follows PettingZoo classic environments."""
    wrapped = clans_env.env(num_players=3)
    assert isinstance(wrapped.unwrapped, raw_env) and wrapped is not wrapped.unwrapped
    assert clans_env.raw_env is raw_env
    assert clans_of_caledonia_v0.raw_env is raw_env
    assert isinstance(clans_of_caledonia_v0.env(num_players=2).unwrapped, raw_env)
    meta = raw_env.metadata
    assert meta["name"] == "clans_of_caledonia_v0" and meta["is_parallelizable"] is False
    assert set(meta["render_modes"]) == {"ansi", "rgb_array", "human"}
    e = raw_env(num_players=4)
    assert e.possible_agents == ["player_0", "player_1", "player_2", "player_3"]


def test_game_options_pass_through():
    """Environment: all GameConfig options are accepted and reach the engine."""
    e = raw_env(num_players=2, clan_selection="draft", kickstarter=True, static_imports=True, tighter_map=True,
                map_sides=("A2", "B1", "C2", "D1"))
    e.reset(seed=4)
    cfg = e.unwrapped.game.config
    assert (cfg.clan_selection, cfg.kickstarter, cfg.static_imports, cfg.tighter_map) == ("draft", True, True, True)
    assert e.game.board.sides == ("A2", "B1", "C2", "D1")


@pytest.mark.parametrize("kwargs, match", [
    ({"num_players": 5}, "num_players"),
    ({"reward": "money"}, "win"),
    ({"render_mode": "video"}, "ansi"),
    ({"clan_selection": "lottery"}, "none"),
    ({"num_players": 1, "reward": "win"}, "score"),
    ({"score_scale": 0}, "positive"),
])
def test_bad_options_are_explained(kwargs, match):
    """Bad input gets a clear error naming the valid choices, at construction time."""
    with pytest.raises(ValueError, match=match):
        raw_env(**kwargs)


# ---- observations and masks -------------------------------------------------------------------
def test_observation_is_the_encoder_view_of_the_acting_seat():
    """observe(agent): {"observation": float32, "action_mask": int8} from that agent's point of view;
    reset(seed=s) plays the engine game with seed s; agents other than the one to move get an
    all-zero mask (PettingZoo convention)."""
    e = raw_env(num_players=3)
    e.reset(seed=7)
    g = Game(GameConfig(num_players=3, seed=7))
    enc = ObservationEncoder(3)
    rng = random.Random(1)
    for _ in range(60):
        agent = e.agent_selection
        assert agent == f"player_{g.current_player}"
        for other in e.agents:
            obs = e.observe(other)
            seat = e.agent_name_mapping[other]
            assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
            assert np.array_equal(obs["observation"], enc.encode(g, seat))
            assert e.observation_space(other).contains(obs)
            if other != agent:
                assert not obs["action_mask"].any()
        mask = e.observe(agent)["action_mask"]
        assert np.flatnonzero(mask).tolist() == sorted(g.legal_actions())
        legal = g.legal_actions()
        action = legal[rng.randrange(len(legal))]
        e.step(action)
        g.apply(action)


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_mask_round_trip(n):
    """Round trip: for many random positions, every index in the mask decodes (action_to_string /
    string_to_action) to a legal engine action that the engine accepts, and every legal engine
    action is masked in."""
    rng = random.Random(n)
    e = raw_env(num_players=n, clan_selection="draft" if n > 1 else "none")
    checked = 0
    for seed in range(3):
        e.reset(seed=seed)
        while not e.game.is_terminal():
            g = e.game
            mask = e.observe(e.agent_selection)["action_mask"]
            masked = np.flatnonzero(mask).tolist()
            assert masked == sorted(set(g.legal_actions()))
            if rng.random() < 0.25:
                for a in masked:
                    text = g.action_to_string(a)
                    assert g.string_to_action(text) == a
                    trial = g.clone()
                    trial.apply(a)            # accepted: raises IllegalActionError otherwise
                checked += 1
            e.step(masked[rng.randrange(len(masked))])
    assert checked > 20


def test_action_space_is_the_engine_table():
    """One fixed Discrete(N) action space for every decision: N is the engine's NUM_ACTIONS."""
    e = raw_env(num_players=2)
    assert e.action_space("player_0").n == NUM_ACTIONS
    assert e.observation_space("player_0")["action_mask"].shape == (NUM_ACTIONS,)


# ---- rewards and infos ------------------------------------------------------------------------------
@pytest.mark.parametrize("reward", ["win", "rank", "score"])
def test_rewards_at_the_end_follow_the_score_sheet(reward):
    """Rewards at the end only: 'win' (1 winner, -1 others), 'rank' or 'score', computed from
    the final score sheet; infos carry the score breakdown at the end."""
    e = raw_env(num_players=3, reward=reward)
    e.reset(seed=5)
    rng = random.Random(2)
    totals = dict.fromkeys(e.agents, 0.0)
    finals = {}
    for agent in e.agent_iter():
        obs, r, terminated, truncated, info = e.last()
        totals[agent] += r
        if terminated:
            finals[agent] = info
            e.step(None)
            continue
        assert r == 0.0
        legal = np.flatnonzero(obs["action_mask"])
        e.step(legal[rng.randrange(len(legal))])
    rows = e.game.final_scores()
    expected = final_rewards(rows, reward)
    for seat in range(3):
        agent = f"player_{seat}"
        assert totals[agent] == pytest.approx(expected[seat])
        assert (finals[agent]["score"], finals[agent]["rank"]) == (rows[seat]["total"], rows[seat]["rank"])
    if reward == "win":
        winners = [s for s in range(3) if rows[s]["rank"] == 1]
        if len(winners) == 1:
            assert sorted(expected) == [-1.0, -1.0, 1.0]


def test_final_rewards_share_ties():
    """Rewards: ties (same VP and money, so the same rank) share the places they cover."""
    rows = [{"total": 50, "rank": 1}, {"total": 50, "rank": 1}, {"total": 30, "rank": 3}]
    assert final_rewards(rows, "win") == [0.0, 0.0, -1.0]
    assert final_rewards(rows, "rank") == [0.5, 0.5, -1.0]
    assert final_rewards([{"total": 40, "rank": 1}, {"total": 40, "rank": 1}], "win") == [0.0, 0.0]
    assert final_rewards(rows, "score", 100) == [0.0, 0.0, -0.2]
    assert final_rewards([{"total": 80, "rank": 1}], "score", 100) == [0.8]


@pytest.mark.parametrize("n,options,steps", [(2, {}, 30), (3, {"industria": True}, 10_000)])
def test_infos_name_the_last_move_and_the_pending_decision(n, options, steps):
    """infos carry the last move's index and the pending decision kind's index (numbers only, the same
    keys INFO_KEYS at every step); the descriptive strings are on the env (last_action_string), named by
    the one source, Game.action_to_string of the move before it is made: with Industria (a whole game) the
    Train context too ("choose:2 (to T1)")."""
    from clans_env.env.aec import INFO_KEYS
    e = raw_env(num_players=n, **options)
    e.reset(seed=3)
    assert e.infos["player_0"] == {"action": -1, "decision": DECISION_KINDS.index(e.game.decision_kind),
                                   "score": 0, "rank": 0}
    assert e.last_action_string is None
    rng = random.Random(0)
    with_train_context = 0
    for _ in range(steps):
        g = e.game
        if g.is_terminal():
            break
        legal = g.legal_actions()
        a = legal[rng.randrange(len(legal))]
        expected = g.action_to_string(a)
        with_train_context += " (to " in expected
        e.step(a)
        assert e.last_action_string == expected
        if e.game.is_terminal():
            break
        for agent in e.agents:
            assert tuple(e.infos[agent]) == INFO_KEYS
            assert e.infos[agent]["action"] == a
            assert DECISION_KINDS[e.infos[agent]["decision"]] == e.game.decision_kind
    assert with_train_context > 0 or not options


def test_descriptive_infos_option_adds_the_strings_and_the_score_sheet():
    """descriptive_infos=True: action_string, decision_name at every step and the score sheet at the end,
    beside the numeric keys."""
    e = raw_env(num_players=2, descriptive_infos=True)
    e.reset(seed=3)
    assert e.infos["player_1"]["action_string"] is None
    assert e.infos["player_1"]["decision_name"] == e.game.decision_kind
    rng = random.Random(1)
    while not e.game.is_terminal():
        legal = e.game.legal_actions()
        a = legal[rng.randrange(len(legal))]
        expected = e.game.action_to_string(a)
        e.step(a)
        info = e.infos[e.agents[0]]
        assert info["action_string"] == expected and info["action"] == a
    rows = e.game.final_scores()
    for seat, agent in enumerate(e.agents):
        assert e.infos[agent]["scores"] == rows[seat] and e.infos[agent]["decision"] == -1
        assert e.infos[agent]["decision_name"] == ""


def test_infos_stack_into_arrays_every_step():
    """The default infos have the same keys at every step, game end included, and only integer values
    (no None, strings or dicts), so libraries that stack infos into tensors (Tianshou, TorchRL) can."""
    from clans_env.env.aec import INFO_KEYS
    e = clans_env.env(num_players=3)
    e.reset(seed=8)
    rng = np.random.default_rng(0)
    seen = []
    for agent in e.agent_iter():
        obs, r, terminated, truncated, info = e.last()
        seen.append(info)
        e.step(None if terminated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert all(tuple(i) == INFO_KEYS and all(type(v) is int for v in i.values()) for i in seen)
    assert np.asarray([[i[k] for k in INFO_KEYS] for i in seen]).dtype.kind == "i"
    assert seen[-1]["decision"] == -1 and seen[-1]["rank"] >= 1


def test_solo_scores_its_own_total():
    """Solo (1 player): the default reward is the final score / score_scale."""
    e = raw_env(num_players=1, score_scale=50)
    e.reset(seed=2)
    rng = random.Random(0)
    reward = 0.0
    for agent in e.agent_iter():
        obs, r, terminated, truncated, info = e.last()
        reward += r
        if terminated:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(legal[rng.randrange(len(legal))])
    assert reward == pytest.approx(e.game.final_scores()[0]["total"] / 50)


# ---- seeding, illegal moves, options --------------------------------------------------------------------
def test_reset_seed_reproduces_games():
    """reset(seed=...) makes games reproducible; later unseeded resets continue a seeded sequence."""
    def run(first_seed):
        e = raw_env(num_players=2)
        e.reset(seed=first_seed)
        out = [e.game.to_json()]
        e.reset()
        out.append(e.game.to_json())
        return out
    assert run(9) == run(9)
    assert run(9)[0] != run(10)[0]
    e = raw_env(num_players=2, seed=12)
    e.reset()
    assert e.game.config.seed == 12


def test_raw_env_raises_on_illegal_actions_and_keeps_the_state():
    """Illegal actions: the raw env raises IllegalActionError and the game is unchanged."""
    e = raw_env(num_players=2)
    e.reset(seed=1)
    before = e.game.to_json()
    illegal = next(a for a in range(NUM_ACTIONS) if a not in e.game.legal_actions())
    with pytest.raises(IllegalActionError):
        e.step(illegal)
    assert e.game.to_json() == before
    assert not any(e.terminations.values())


def test_wrapped_env_ends_the_game_on_an_illegal_move(caplog):
    """Illegal actions: env() applies PettingZoo's standard wrappers, so an illegal move ends the
    game with -1 for the offender and 0 for the others."""
    e = clans_env.env(num_players=3)
    e.reset(seed=1)
    offender = e.agent_selection
    obs, *_ = e.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    e.step(illegal)
    assert "Illegal move" in caplog.text
    assert all(e.terminations.values())
    rewards = {}
    for agent in e.agent_iter():
        _, r, terminated, _, _ = e.last()
        rewards[agent] = r
        e.step(None)
    assert rewards[offender] == -1
    assert all(r == 0 for a, r in rewards.items() if a != offender)


def test_reset_from_a_given_position():
    """reset(options={"game": g}) starts from a copy of an engine state (evaluation from positions)."""
    g = Game(GameConfig(num_players=2, seed=8))
    for _ in range(15):
        g.apply(g.legal_actions()[0])
    e = raw_env(num_players=2)
    e.reset(options={"game": g})
    assert e.game is not g and e.game.to_json() == g.to_json()
    assert e.agent_selection == f"player_{g.current_player}"
    with pytest.raises(ValueError, match="2 players"):
        e.reset(options={"game": Game(GameConfig(num_players=3, seed=0))})


# ---- rendering ---------------------------------------------------------------------------------------
def test_render_ansi_and_human(capsys):
    """render(): "ansi" returns the text view, "human" prints it."""
    e = raw_env(num_players=2, render_mode="ansi")
    e.reset(seed=0)
    text = e.render()
    assert isinstance(text, str) and text == e.game.render_text()
    h = raw_env(num_players=2, render_mode="human")
    h.reset(seed=0)
    capsys.readouterr()
    h.render()
    assert "Clans of Caledonia" in capsys.readouterr().out


def test_render_rgb_array_draws_map_and_boards():
    """render(): "rgb_array" returns a picture of the map and boards as a uint8 (H, W, 3) array,
    and the picture changes when units are placed."""
    e = raw_env(num_players=2, render_mode="rgb_array")
    e.reset(seed=0)
    first = e.render()
    assert first.dtype == np.uint8 and first.ndim == 3 and first.shape[2] == 3
    assert first.shape[0] > 300 and first.shape[1] > 500 and first.std() > 10
    play(e, random.Random(0), max_steps=12)
    assert not np.array_equal(first, e.render())


# ---- speed-related behaviour (issue 4, "Speed") ----------------------------------------------------------
def test_action_strings_in_infos_match_the_engine_names():
    """infos["action_string"] has one source, Game.action_to_string: equal for every index in positions
    with contracts on display, units on the map and (Industria) Train decisions whose names carry their
    context ("choose:2 (to T1)"); an index outside the table is refused like the engine refuses it."""
    from clans_env.env.aec import action_string
    rng = random.Random(5)
    contexts = set()
    for n, seed, options in ((2, 1, {}), (4, 2, {}), (3, 3, {"industria": True}), (2, 4, {"industria": True})):
        g = Game(GameConfig(num_players=n, seed=seed, **options))
        checked = 0
        while not g.is_terminal():
            if rng.random() < 0.1:
                for a in range(NUM_ACTIONS):
                    name = action_string(g, a)
                    assert name == g.action_to_string(a)
                    contexts.update(c for c in ("(contract", " of player ", " (to ") if c in name)
                checked += 1
            legal = g.legal_actions()
            g.apply(legal[rng.randrange(len(legal))])
        assert checked > 5
        for bad in (-1, NUM_ACTIONS):
            with pytest.raises(ValueError, match="outside"):
                action_string(g, bad)
    assert contexts == {"(contract", " of player ", " (to "}


def test_observe_encodes_once_per_position_and_agent():
    """observe(): last(), the wrappers and the agent asking again within a step get the same
    observation without encoding again; every step (and reset) gives a new one, equal to a fresh
    encoding of the position."""
    e = raw_env(num_players=3)
    calls = []
    encode = e.encoder.encode
    e.encoder.encode = lambda game, seat: calls.append(seat) or encode(game, seat)
    e.reset(seed=4)
    fresh = ObservationEncoder(3)
    rng = random.Random(4)
    previous = None
    for _ in range(40):
        agent = e.agent_selection
        before = len(calls)
        first = e.observe(agent)
        assert e.last()[0] is first and e.observe(agent) is first and first is not previous
        assert calls[before:] == [e.agent_name_mapping[agent]]
        assert np.array_equal(first["observation"], fresh.encode(e.game, e.agent_name_mapping[agent]))
        legal = np.flatnonzero(first["action_mask"])
        e.step(int(legal[rng.randrange(len(legal))]))
        assert len(calls) == before + 1          # step() itself encodes nothing
        previous = first
    e.reset(seed=4)
    assert np.array_equal(e.observe(e.agent_selection)["observation"],
                          fresh.encode(e.game, e.agent_name_mapping[e.agent_selection]))


def test_observation_mask_follows_the_agent_to_move_after_an_illegal_move():
    """Illegal moves (env()): after PettingZoo's wrapper ends the game without changing the position,
    each agent's mask is still the one of a fresh observe() (legal set only for agent_selection)."""
    e = clans_env.env(num_players=2)
    e.reset(seed=6)
    offender = e.agent_selection
    obs, *_ = e.last()
    e.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    raw = e.unwrapped
    for agent in raw.agents:
        mask = raw.observe(agent)["action_mask"]
        expected = agent == raw.agent_selection and not raw.game.is_terminal()
        assert bool(mask.any()) == expected, (agent, offender)


# ---- the wrapper stack ---------------------------------------------------------------------------------
def _plain_pettingzoo_env(**kwargs):
    from pettingzoo.utils import wrappers
    e = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


@pytest.mark.parametrize("illegal_at", [None, 37])
def test_env_behaves_exactly_like_pettingzoos_plain_wrappers(illegal_at):
    """env()'s wrappers are PettingZoo's classes with the per-step attribute reads bound to the raw env
    (speed); every step of a game, an illegal move included, gives the same last() as the plain
    PettingZoo stack."""
    from pettingzoo.utils import wrappers
    ours, plain = clans_env.env(num_players=3), _plain_pettingzoo_env(num_players=3)
    chain = [type(ours), type(ours.env), type(ours.env.env)]
    for cls, base in zip(chain, (wrappers.OrderEnforcingWrapper, wrappers.AssertOutOfBoundsWrapper,
                                 wrappers.TerminateIllegalWrapper)):
        assert issubclass(cls, base) and cls.__name__ == base.__name__
    for e in (ours, plain):
        e.reset(seed=4)
    rng = np.random.default_rng(4)
    steps = 0
    for agent, twin in zip(ours.agent_iter(), plain.agent_iter()):
        assert agent == twin
        got, want = ours.last(), plain.last()
        assert np.array_equal(got[0]["observation"], want[0]["observation"])
        assert np.array_equal(got[0]["action_mask"], want[0]["action_mask"])
        assert got[1:] == want[1:]
        assert ours.rewards == plain.rewards and ours._cumulative_rewards == plain._cumulative_rewards
        if got[2] or got[3]:
            action = None
        elif steps == illegal_at:
            action = int(np.flatnonzero(got[0]["action_mask"] == 0)[0])
        else:
            legal = got[0]["action_mask"].nonzero()[0]
            action = int(legal[rng.integers(len(legal))])
        ours.step(action)
        plain.step(action)
        steps += 1
    assert ours.agents == plain.agents == []
    assert steps > (5 if illegal_at else 100)


def test_env_order_and_bounds_errors_are_pettingzoos():
    """Before reset() the per-step attributes raise OrderEnforcingWrapper's AttributeError; an action
    outside the space fails AssertOutOfBoundsWrapper's assertion."""
    e = clans_env.env(num_players=2)
    for name in ("agents", "agent_selection", "rewards", "terminations", "truncations", "infos"):
        with pytest.raises(AttributeError, match="before reset"):
            getattr(e, name)
    e.reset(seed=0)
    assert e.agent_selection == e.unwrapped.agent_selection
    with pytest.raises(AssertionError):
        e.step(NUM_ACTIONS)


@pytest.mark.parametrize("copier", ["pickle", "deepcopy"])
def test_wrapped_env_can_be_pickled_and_copied_mid_game(copier):
    """env() (wrappers included) survives pickle / deepcopy mid-game, as vectorised-env libraries do
    to it, and the copy goes on exactly like the original."""
    import copy
    import pickle
    e = clans_env.env(num_players=2)
    e.reset(seed=9)
    rng = np.random.default_rng(9)
    for _ in range(25):
        legal = e.last()[0]["action_mask"].nonzero()[0]
        e.step(int(legal[rng.integers(len(legal))]))
    twin = pickle.loads(pickle.dumps(e)) if copier == "pickle" else copy.deepcopy(e)
    assert str(twin) == str(e) and type(twin.env).__name__ == "AssertOutOfBoundsWrapper"
    for agent, other in zip(e.agent_iter(40), twin.agent_iter(40)):
        assert agent == other
        got, want = e.last(), twin.last()
        assert np.array_equal(got[0]["observation"], want[0]["observation"]) and got[1:] == want[1:]
        if got[2]:
            action = None
        else:
            legal = got[0]["action_mask"].nonzero()[0]
            action = int(legal[rng.integers(len(legal))])
        e.step(action)
        twin.step(action)


@pytest.mark.parametrize("bad", [True, False, np.bool_(True), NUM_ACTIONS, -1, 1.7, None, "5", np.float32(3.0),
                                 np.array([1, 2])])
def test_actions_outside_the_space_are_refused_with_the_valid_range(bad):
    """env.step(True) failed inside PettingZoo's TerminateIllegalWrapper with numpy's "truth value of
    an array is ambiguous"; 325, -1, 1.7, None, "5" with a bare "action is not in action space".
    Each now says what was wrong, the valid range and the actions legal now, and changes nothing
    (wrapped and raw env alike)."""
    from clans_env.env import ActionSpaceError
    for make_env in (clans_env.env, clans_env.raw_env):
        e = make_env(num_players=2)
        e.reset(seed=0)
        before, agent = e.unwrapped.game.to_json(), e.agent_selection
        legal = e.unwrapped.game.legal_actions()
        with pytest.raises(ActionSpaceError, match=rf"actions are integers 0\.\.{NUM_ACTIONS - 1}.*legal now "
                                                   rf"\({len(legal)}\): \[{legal[0]}, "):
            e.step(bad)
        assert e.unwrapped.game.to_json() == before and e.agent_selection == agent
        assert not any(e.terminations.values())
    e = clans_env.env(num_players=2)
    e.reset(seed=0)
    e.step(np.int64(e.unwrapped.game.legal_actions()[0]))        # NumPy integers are actions
