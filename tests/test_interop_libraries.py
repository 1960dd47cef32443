"""Issue 15, "The libraries researchers use run the environment unchanged": a tiny run of each library on
our environments exactly as the library documents it, with no glue code in between. Tianshou's masked
DQN on the PettingZoo env (its tic-tac-toe example), TorchRL's ``PettingZooWrapper(use_mask=True)``
(``check_env_specs`` and a rollout to the end of a game), OpenSpiel's ``rl_environment`` with its
PyTorch DQN, and Gymnasium's registered id in a spawned worker that imported nothing of ours.

The libraries come with the ``interop`` extra (part of ``dev``, which ``.ci/run`` installs), so these
run in CI; ``importorskip`` only spares a partial local install.
"""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import clans_env

# Tianshou's replay buffer compiles helpers with numba on first use (about 30 s of JIT on a loaded CI
# core, the library's own cost, not the environment's); without JIT they run as plain Python, which a
# few hundred steps do not notice. numba reads this when it is first imported.
os.environ.setdefault("NUMBA_DISABLE_JIT", "1")

#: the Gymnasium id with its module, for a process that has imported nothing of ours (docs/environment.md)
GYM_ID_WITH_MODULE = "clans_env.env:clans_env/ClansOfCaledonia-v0"


def _fresh_python(code: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a new interpreter (what a spawned or forkserver worker is): nothing imported yet."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})


def test_gym_make_in_a_process_that_imported_nothing_of_ours():
    """Gymnasium 1.x has no plugin entry points (they were removed in 1.0), so a worker that has not
    imported ``clans_env.env`` finds the id through its module prefix, the form the docs give; the bare id
    needs the import first (also documented), and that is what Gymnasium reports without it."""
    ok = _fresh_python(
        "import gymnasium as gym, sys\n"
        f"env = gym.make({GYM_ID_WITH_MODULE!r}, num_players=2)\n"
        "obs, info = env.reset(seed=0)\n"
        "print(obs.shape, int(info['action_mask'].sum()) > 0, 'clans_env.env' in sys.modules)\n")
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.split()[-2:] == ["True", "True"]
    bare = _fresh_python("import gymnasium as gym\ngym.make('clans_env/ClansOfCaledonia-v0')\n")
    assert bare.returncode != 0 and "NamespaceNotFound" in bare.stderr
    imported = _fresh_python("import gymnasium as gym, clans_env.env\n"
                             "print(gym.make('clans_env/ClansOfCaledonia-v0').reset(seed=0)[0].shape)\n")
    assert imported.returncode == 0, imported.stderr


def test_gymnasium_async_vector_env_under_spawn():
    """Gymnasium's AsyncVectorEnv with spawn workers (the macOS / Windows default): factories naming the id
    with its module reach workers that import nothing first, and the infos stack (same keys, numbers)."""
    import functools

    import gymnasium as gym
    envs = gym.vector.AsyncVectorEnv([functools.partial(gym.make, GYM_ID_WITH_MODULE, num_players=2)] * 2,
                                     context="spawn")
    try:
        obs, info = envs.reset(seed=3)
        assert obs.shape[0] == 2 and info["action_mask"].shape == (2, 325)
        rng = np.random.default_rng(0)
        for _ in range(5):
            actions = [int(rng.choice(np.flatnonzero(m))) for m in info["action_mask"]]
            obs, reward, terminated, truncated, info = envs.step(actions)
            assert info["decision"].dtype.kind == "i" and list(info["action"]) == actions
    finally:
        envs.close()


def test_tianshou_masked_dqn_on_the_pettingzoo_env():
    """Tianshou's multi-agent DQN against its masked random opponent, set up as its tic-tac-toe example
    (``test/pettingzoo/tic_tac_toe.py``), with our env in place of tic-tac-toe: collect, train one tiny
    epoch and test on a full game. The buffer takes our infos as they are."""
    pytest.importorskip("tianshou")
    import torch
    from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.data import Collector, CollectStats, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv
    from tianshou.env.pettingzoo_env import PettingZooEnv
    from tianshou.trainer import OffPolicyTrainerParams
    from tianshou.utils.net.common import Net

    def get_env():
        return PettingZooEnv(clans_env.env(num_players=2))

    torch.manual_seed(0)
    env = get_env()
    net = Net(state_shape=env.observation_space.spaces["observation"].shape, action_shape=int(env.action_space.n),
              hidden_sizes=[32])
    learner = DQN(policy=DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.1,
                                                 eps_inference=0.05),
                  optim=AdamOptimizerFactory(lr=1e-4), n_step_return_horizon=3, gamma=0.9, target_update_freq=32)
    opponent = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    marl = MultiAgentOffPolicyAlgorithm(algorithms=[learner, opponent], env=env)
    train_envs, test_envs = DummyVectorEnv([get_env] * 2), DummyVectorEnv([get_env])
    train_envs.seed(1)
    test_envs.seed(2)
    train = Collector[CollectStats](marl, train_envs, VectorReplayBuffer(1000, 2), exploration_noise=True)
    test = Collector[CollectStats](marl, test_envs, exploration_noise=True)
    train.reset()
    train.collect(n_step=32)
    result = marl.run_training(OffPolicyTrainerParams(
        training_collector=train, test_collector=test, max_epochs=1, epoch_num_steps=32,
        collection_step_num_env_steps=16, test_step_num_episodes=1, batch_size=16,
        update_step_num_gradient_steps_per_sample=0.25, test_in_training=False, show_progress=False,
        verbose=False, multi_agent_return_reduction=lambda rews: rews[:, 0]))
    assert result.update_step >= 1 and result.test_episode >= 1
    assert result.best_reward in (-1.0, 0.0, 1.0)          # a finished game's "win" reward


def test_torchrl_pettingzoo_wrapper_with_masks():
    """TorchRL's ``PettingZooWrapper(use_mask=True)`` on the AEC env: ``check_env_specs`` passes (the infos
    become tensors) and a random rollout runs to the end of a game with only legal moves."""
    pytest.importorskip("torchrl")
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs

    env = PettingZooWrapper(clans_env.env(num_players=2), use_mask=True, seed=0)
    check_env_specs(env, seed=0)
    td = env.rollout(2000, break_when_any_done=True)
    assert bool(td["next", "done"][-1].all()) and td.batch_size[0] < 2000
    for agent in ("player_0", "player_1"):
        acted = td[agent, "mask"].squeeze(-1)
        actions = td[agent, "action"].squeeze(-1)[acted]
        masks = td[agent, "action_mask"].squeeze(-2)[acted]
        assert bool(masks.gather(-1, actions.unsqueeze(-1)).all())      # every move was legal
        final = td["next", agent, "info"][-1]
        assert int(final["rank"].item()) >= 1 and int(final["decision"].item()) == -1


def test_openspiel_rl_environment_with_its_dqn():
    """OpenSpiel's ``rl_environment`` and its PyTorch DQN agents, one per seat, learn for a few steps on
    the registered game (the observation tensor is the environments' vector)."""
    pytest.importorskip("pyspiel")
    pytest.importorskip("tree")                    # OpenSpiel's PyTorch DQN imports dm-tree
    from open_spiel.python import rl_environment
    from open_spiel.python.pytorch import dqn

    from clans_env.interop import openspiel_game
    env = rl_environment.Environment(openspiel_game.load(num_players=2), seed=0)
    size = env.observation_spec()["info_state"][0]
    agents = [dqn.DQN(player_id=p, state_representation_size=size, num_actions=env.action_spec()["num_actions"],
                      hidden_layers_sizes=[32], batch_size=8, replay_buffer_capacity=200,
                      min_buffer_size_to_learn=16, learn_every=4, update_target_network_every=20)
              for p in range(2)]
    ts = env.reset()
    for _ in range(80):
        if ts.last():
            break
        p = ts.observations["current_player"]
        out = agents[p].step(ts)
        assert out.action in ts.observations["legal_actions"][p]
        ts = env.step([out.action])
    assert all(a.loss is not None for a in agents)         # both learned from their buffers
