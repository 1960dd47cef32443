"""The Gymnasium single-agent wrapper (issue 4, "Gymnasium wrapper"): one learner against fixed
opponent policies, passing gymnasium's env checker, with action_masks() for sb3-contrib."""
from __future__ import annotations

import random
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from agents import RandomAgent
from clans_env import IllegalActionError
from clans_env.encoding import ObservationEncoder
from clans_env.engine.actions import NUM_ACTIONS
from clans_env.env import GYM_ID
from clans_env.env.rewards import final_rewards
from clans_env.wrappers import SingleAgentEnv, UniformRandomOpponent


def play_episode(env, seed, rng):
    obs, info = env.reset(seed=seed)
    total, steps = 0.0, 0
    while True:
        legal = np.flatnonzero(env.action_masks())
        obs, reward, terminated, truncated, info = env.step(int(legal[rng.randrange(len(legal))]))
        total += reward
        steps += 1
        if terminated or truncated:
            return total, steps, info


@pytest.mark.parametrize("n", (1, 2, 4))
def test_gymnasium_env_checker(n):
    """Tests: gymnasium.utils.env_checker.check_env passes on the wrapper."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # "no spec" notice: the env is built directly here
        check_env(SingleAgentEnv(num_players=n, learner_seat="random"))


def test_maskable_ppo_smoke_run():
    """Tests: a short sb3-contrib MaskablePPO run trains on the wrapper unchanged."""
    import torch
    from sb3_contrib import MaskablePPO
    threads = torch.get_num_threads()
    torch.set_num_threads(1)            # tiny network: extra threads only contend on a shared machine
    try:
        env = SingleAgentEnv(num_players=2)
        model = MaskablePPO("MlpPolicy", env, n_steps=256, batch_size=128, n_epochs=1, seed=0,
                            policy_kwargs={"net_arch": [32]}, verbose=0, device="cpu")
        model.learn(2048)
    finally:
        torch.set_num_threads(threads)
    obs, _ = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]


def test_gymnasium_make_registration():
    """The wrapper is registered with Gymnasium under clans_env/ClansOfCaledonia-v0."""
    env = gymnasium.make(GYM_ID, num_players=3, learner_seat=1)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert np.array_equal(env.unwrapped.action_masks(), info["action_mask"])


def test_observation_is_the_learners_view_and_mask_the_legal_set():
    """Observation: the encoder vector from the learner's seat; action_masks() (and info["action_mask"])
    is exactly the engine's legal set; the learner is to move after every reset/step."""
    env = SingleAgentEnv(num_players=3, learner_seat=2)
    enc = ObservationEncoder(3)
    rng = random.Random(0)
    obs, info = env.reset(seed=3)
    for _ in range(40):
        g = env.game
        assert g.current_player == 2
        assert np.array_equal(obs, enc.encode(g, 2))
        mask = env.action_masks()
        assert mask.dtype == bool and mask.shape == (NUM_ACTIONS,)
        assert np.flatnonzero(mask).tolist() == sorted(g.legal_actions())
        assert np.array_equal(info["action_mask"], mask)
        legal = np.flatnonzero(mask)
        obs, reward, terminated, truncated, info = env.step(int(legal[rng.randrange(len(legal))]))
        if terminated:
            break


@pytest.mark.parametrize("reward", ["win", "rank", "score"])
def test_reward_paid_at_the_end(reward):
    """Reward per the env's reward option, paid once at the end; info carries the score sheet row."""
    env = SingleAgentEnv(num_players=2, reward=reward, learner_seat=1)
    total, steps, info = play_episode(env, seed=4, rng=random.Random(1))
    rows = env.game.final_scores()
    assert total == pytest.approx(final_rewards(rows, reward)[1])
    assert (info["score"], info["rank"]) == (rows[1]["total"], rows[1]["rank"]) and env.game.is_terminal()


def test_infos_have_the_same_numeric_keys_every_step():
    """info: the same keys at every step (reset, moves, end, an illegal move) with numbers, bools and the
    mask array only; descriptive_infos=True adds action_string, decision_name and the score sheet."""
    keys = ("action", "decision", "score", "rank", "action_mask", "learner_seat", "illegal_action")
    env = SingleAgentEnv(num_players=2)
    obs, info = env.reset(seed=2)
    infos, rng = [info], random.Random(3)
    done = False
    while not done:
        legal = np.flatnonzero(env.action_masks())
        a = int(legal[rng.randrange(len(legal))])
        text = env.game.action_to_string(a)
        obs, reward, done, truncated, info = env.step(a)
        assert info["action"] == a and env.last_action_string == text
        infos.append(info)
    assert all(tuple(i) == keys for i in infos)
    assert all(not isinstance(v, (str, dict, type(None))) for i in infos for v in i.values())
    assert infos[-1]["decision"] == -1 and infos[-1]["rank"] >= 1 and infos[0]["action"] == -1
    _, info = env.reset(seed=2)
    _, _, _, _, info = env.step(int(np.flatnonzero(~env.action_masks())[0]))
    assert tuple(info) == keys and info["illegal_action"] is True
    env = SingleAgentEnv(num_players=2, descriptive_infos=True)
    total, steps, info = play_episode(env, seed=4, rng=random.Random(1))
    assert info["scores"] == env.game.final_scores()[0] and info["action_string"] == env.last_action_string


def test_reset_seed_reproduces_episodes():
    """reset(seed=...) fixes the game, the learner's seat and the opponents' moves."""
    def trajectory():
        env = SingleAgentEnv(num_players=3, learner_seat="random")
        obs, info = env.reset(seed=10)
        rng = random.Random(5)
        out = [info["learner_seat"], obs.tobytes()]
        for _ in range(25):
            legal = np.flatnonzero(env.action_masks())
            obs, r, terminated, _, _ = env.step(int(legal[rng.randrange(len(legal))]))
            out.append(obs.tobytes())
            if terminated:
                break
        return out
    assert trajectory() == trajectory()
    env = SingleAgentEnv(num_players=2)
    env.reset(seed=6)
    assert env.game.config.seed == 6


def test_random_learner_seat_varies():
    """The learner's seat is configurable: fixed, or drawn per episode."""
    env = SingleAgentEnv(num_players=4, learner_seat="random")
    seats = {env.reset(seed=s)[1]["learner_seat"] for s in range(12)}
    assert len(seats) > 1
    assert SingleAgentEnv(num_players=4, learner_seat=3).reset(seed=0)[1]["learner_seat"] == 3


def test_opponents_any_agent_or_callable():
    """Opponents: any object with act(game), or a callable (game) -> action, one for all seats or one
    per seat; their reset(seed) is called at every episode start."""
    calls = []

    def first_legal(game):
        calls.append(game.current_player)
        return game.legal_actions()[0]

    env = SingleAgentEnv(num_players=3, opponents=[RandomAgent(seed=1), first_legal], learner_seat=0)
    play_episode(env, seed=2, rng=random.Random(0))
    assert calls and set(calls) == {2}
    reset_seeds = []

    class Recorder(UniformRandomOpponent):
        def reset(self, seed=None):
            reset_seeds.append(seed)
            super().reset(seed)

    env = SingleAgentEnv(num_players=2, opponents=Recorder())
    env.reset(seed=0)
    env.reset(seed=0)
    assert len(reset_seeds) == 2 and reset_seeds[0] == reset_seeds[1]


def test_bad_opponents_and_options_are_explained():
    """Bad input gets a clear error naming the valid choices."""
    with pytest.raises(ValueError, match="2 opponent"):
        SingleAgentEnv(num_players=3, opponents=[RandomAgent()])
    with pytest.raises(TypeError, match="act"):
        SingleAgentEnv(num_players=2, opponents=[42])
    with pytest.raises(ValueError, match="random"):
        SingleAgentEnv(num_players=2, learner_seat=2)
    with pytest.raises(ValueError, match="penalize"):
        SingleAgentEnv(num_players=2, illegal_action="ignore")
    with pytest.raises(ValueError, match="win"):
        SingleAgentEnv(num_players=2, reward="elo")
    with pytest.raises(ValueError, match="reset"):
        SingleAgentEnv(num_players=2, seed=3)
    with pytest.raises(ValueError, match="clan_selection"):
        SingleAgentEnv(num_players=2, clan_selection="lottery")


def test_illegal_opponent_move_names_the_opponent():
    """An opponent returning an illegal action raises IllegalActionError naming it and its seat."""
    env = SingleAgentEnv(num_players=2, opponents=lambda game: NUM_ACTIONS - 1, learner_seat=0)
    with pytest.raises(IllegalActionError, match="seat 1"):
        play_episode(env, seed=0, rng=random.Random(0))


def test_illegal_learner_action_penalized_or_raised():
    """Illegal learner actions: "penalize" ends the episode with illegal_reward and leaves the game
    unchanged; "raise" raises IllegalActionError."""
    env = SingleAgentEnv(num_players=2, illegal_reward=-2.0)
    env.reset(seed=0)
    before = env.game.to_json()
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, info["illegal_action"]) == (-2.0, True, True)
    assert env.game.to_json() == before
    strict = SingleAgentEnv(num_players=2, illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError):
        strict.step(illegal)
    with pytest.raises(RuntimeError, match="reset"):
        SingleAgentEnv(num_players=2).step(0)


def test_solo_needs_no_opponents():
    """Solo (1 player): the learner plays every decision; the reward is its score / score_scale."""
    env = SingleAgentEnv(num_players=1, score_scale=100)
    total, steps, info = play_episode(env, seed=3, rng=random.Random(2))
    assert total == pytest.approx(env.game.final_scores()[0]["total"] / 100)


def test_render_modes():
    """render(): "ansi" text and "rgb_array" image, as in the PettingZoo environment."""
    env = SingleAgentEnv(num_players=2, render_mode="ansi")
    env.reset(seed=0)
    assert env.render() == env.game.render_text()
    picture = SingleAgentEnv(num_players=2, render_mode="rgb_array")
    picture.reset(seed=0)
    image = picture.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3


@pytest.mark.parametrize("bad", [True, NUM_ACTIONS, -1, 1.7, None, "5"])
def test_actions_outside_the_space_are_errors_not_penalties(bad):
    """Not an action at all (a bool, out of 0..NUM_ACTIONS-1, a float, None, a string) raises
    ActionSpaceError naming the valid range and the legal actions, whatever illegal_action says;
    the game is unchanged (int(1.7) used to play action 1, int("5") action 5)."""
    from clans_env.env import ActionSpaceError
    for mode in ("penalize", "raise"):
        env = SingleAgentEnv(num_players=2, illegal_action=mode)
        env.reset(seed=0)
        before = env.game.to_json()
        with pytest.raises(ActionSpaceError, match=rf"0\.\.{NUM_ACTIONS - 1}.*legal now"):
            env.step(bad)
        assert env.game.to_json() == before
