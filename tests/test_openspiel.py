"""OpenSpiel interoperability (issue 5): the game registers with pyspiel, passes OpenSpiel's own
random-simulation checks, models the setup as one chance node, and OpenSpiel's MCTSBot runs on it."""
from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from clans_env.engine.actions import NUM_ACTIONS  # noqa: E402
from clans_env.interop import openspiel_game  # noqa: E402,F401  (registers the game)


def test_game_is_registered_with_its_type_and_parameters():
    """pyspiel.register_game with a game type: sequential, explicit chance, zero-sum terminal
    returns, the engine's action table."""
    assert openspiel_game.SHORT_NAME in pyspiel.registered_names()
    game = pyspiel.load_game("python_clans_of_caledonia")
    t = game.get_type()
    assert t.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert t.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert t.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert game.num_players() == 2 and game.num_distinct_actions() == NUM_ACTIONS
    assert game.max_chance_outcomes() == openspiel_game.DEFAULT_NUM_SEEDS
    g4 = pyspiel.load_game("python_clans_of_caledonia", {"num_players": 4, "seed": 10, "num_seeds": 5})
    assert g4.num_players() == 4 and g4.max_chance_outcomes() == 5
    with pytest.raises(Exception, match="num_players"):
        pyspiel.load_game("python_clans_of_caledonia", {"num_players": 1})


@pytest.mark.parametrize("num_players, sims", [(2, 3), (3, 1)])
def test_openspiel_random_simulation_checks_pass(num_players, sims):
    """Issue 5 (Tests): OpenSpiel's own game checks pass on random playouts
    (pyspiel.random_sim_test: legal actions sorted, clones independent, returns consistent)."""
    game = pyspiel.load_game("python_clans_of_caledonia", {"num_players": num_players})
    pyspiel.random_sim_test(game, num_sims=sims, serialize=False, verbose=False)


def test_setup_is_one_chance_node_then_the_engine_plays_on():
    """Setup randomness is one explicit chance node: the outcome picks the engine seed."""
    game = openspiel_game.load(num_players=2, seed=100, num_seeds=10)
    state = game.new_initial_state()
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    assert [a for a, _ in outcomes] == list(range(10))
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 3) == "seed:103"
    state.apply_action(3)
    assert state.engine_seed == 103 and state.engine.config.seed == 103
    assert not state.is_chance_node() and state.current_player() == state.engine.current_player
    a = state.legal_actions()[0]
    assert state.action_to_string(state.current_player(), a) == state.engine.action_to_string(a)
    assert "round 1/5" in state.observation_string(0)
    assert "actions=[]" in state.information_state_string(0)


def test_clone_is_independent_and_returns_are_rank_based():
    """Clones do not share engine state; at the end the returns are +1 / -1 (zero-sum)."""
    game = openspiel_game.load(num_players=2)
    state = game.new_initial_state()
    state.apply_action(7)
    rng = np.random.RandomState(0)
    copy = state.clone()
    copy.apply_action(copy.legal_actions()[0])
    assert state.engine.history == [] and len(copy.engine.history) == 1
    steps = 0
    while not state.is_terminal():
        assert state.returns() == [0.0, 0.0]
        state.apply_action(int(rng.choice(state.legal_actions())))
        steps += 1
    assert steps < game.max_game_length()
    ranks = [r["rank"] for r in state.engine.final_scores()]
    expected = [1.0, -1.0] if ranks[0] < ranks[1] else ([-1.0, 1.0] if ranks[1] < ranks[0] else [0.0, 0.0])
    assert state.returns() == expected and sum(state.returns()) == 0.0


def test_openspiel_mcts_bot_and_our_agent_play_on_the_game():
    """OpenSpiel's algorithms run on the game (MCTSBot with random rollouts), and our MCTSAgent
    plays the same state through its engine game."""
    from open_spiel.python.algorithms import mcts

    from agents import MCTSAgent

    game = openspiel_game.load(num_players=2)
    state = game.new_initial_state()
    state.apply_action(1)
    bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=3,
                       evaluator=mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)), solve=False,
                       random_state=np.random.RandomState(1))
    ours = MCTSAgent(sims=5, seed=0)
    for _ in range(6):
        legal = state.legal_actions()
        action = bot.step(state) if state.current_player() == 0 else ours.act(state.engine)
        assert action in legal
        state.apply_action(action)


def test_vs_openspiel_runs_both_of_our_configurations():
    """benchmarks/vs_openspiel.py (issue 11, honest figures): our MCTS is compared with OpenSpiel's
    MCTSBot both as shipped (heuristic leaf evaluation) and with random rollouts to the end like
    MCTSBot's RandomRolloutEvaluator, on the same deals at the same simulation count."""
    from training import benchmarks as B
    assert B.OPENSPIEL_CONFIGS["random"]["rollout"] == "random" and B.OPENSPIEL_CONFIGS["random"]["depth"] > 1000
    for config, says in (("heuristic", "heuristic leaf evaluation"), ("random", "random rollouts to the end")):
        r = B.vs_openspiel(2, sims=2, seed=3, workers=1, progress=False, config=config)
        assert r["config"] == config and r["games"] == 2
        assert r["ours_sims_per_s"] > 0 and r["openspiel_sims_per_s"] > 0
        assert says in B.format_vs_openspiel(r)
    with pytest.raises(ValueError, match="heuristic"):
        B.vs_openspiel(2, config="greedy")


def test_rl_environment_sees_the_observation_vector():
    """Issue 15: the registered game provides ``observation_tensor`` (the environments' vector), so
    OpenSpiel's ``rl_environment`` (DQN, NFSP, policy gradient, AlphaZero) takes it without glue code:
    a few steps with the legal actions it reports."""
    from open_spiel.python import rl_environment

    from clans_env.encoding import ObservationEncoder
    game = openspiel_game.load(num_players=2)
    state = game.new_initial_state()
    state.apply_action(0)
    p = state.current_player()
    want = ObservationEncoder(2).encode(state.engine, p)
    assert np.array_equal(np.asarray(state.observation_tensor(p), np.float32), want)
    env = rl_environment.Environment(game)
    ts = env.reset()
    rng = np.random.default_rng(0)
    for _ in range(30):
        if ts.last():
            break
        p = ts.observations["current_player"]
        obs = ts.observations["info_state"][p]
        assert len(obs) == want.size and any(obs)
        legal = ts.observations["legal_actions"][p]
        ts = env.step([int(rng.choice(legal))])
