"""RLlib glue: our PettingZoo AEC environment as an RLlib ``MultiAgentEnv`` whose observations fit
RLlib's action-masking module (``ActionMaskingTorchRLModule``).

Two things stand between ``clans_env.env(...)`` and RLlib's PPO with action masking, and this
module is exactly those two things:

* the key names: RLlib's masking module reads ``{"observations", "action_mask"}``, PettingZoo's
  classic convention (ours) is ``{"observation", "action_mask"}``; the mask also becomes float32
  (the module takes its log);
* a picklable factory: RLlib builds environments in its EnvRunner processes from a registered
  creator, so the creator must be a module-level function (``env_creator``), not a lambda closing
  over local state.

    >>> from clans_env.interop.rllib import ENV_NAME, register            # doctest: +SKIP
    >>> register()                                                         # doctest: +SKIP
    >>> config = PPOConfig().environment(ENV_NAME, env_config={"num_players": 2})   # doctest: +SKIP

``env_config`` is passed to ``clans_env.env`` (num_players, reward, seed, any GameConfig field).
``examples/rllib_ppo.py`` trains RLlib's PPO on 2-player games with it (docs/ray.md). Needs the
optional extra ``.[ray]``; the engine and environment layers never import Ray.
"""
from __future__ import annotations

import numpy as np

try:
    import gymnasium as gym
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
except ImportError as e:        # pragma: no cover - exercised only without the extra
    raise ImportError('clans_env.interop.rllib needs Ray RLlib: install the optional extra with  '
                      'pip install -e ".[ray]"') from e

#: the name ``register()`` gives the environment in Ray Tune's registry
ENV_NAME = "clans_of_caledonia"
#: the observation keys RLlib's ActionMaskingTorchRLModule reads
OBS_KEY = "observations"
MASK_KEY = "action_mask"


def rllib_observation(obs: dict) -> dict:
    """One PettingZoo observation ``{"observation", "action_mask"}`` in RLlib's masking layout
    ``{"observations": float32, "action_mask": float32}``."""
    return {OBS_KEY: obs["observation"], MASK_KEY: obs["action_mask"].astype(np.float32)}


def rllib_space(space: gym.spaces.Dict) -> gym.spaces.Dict:
    """The observation space to match ``rllib_observation``."""
    mask = space["action_mask"]
    return gym.spaces.Dict({OBS_KEY: space["observation"],
                            MASK_KEY: gym.spaces.Box(0.0, 1.0, shape=mask.shape, dtype=np.float32)})


class ClansRLlibEnv(PettingZooEnv):
    """RLlib's ``PettingZooEnv`` around ``clans_env.env(**config)`` with observations renamed for
    the action-masking module (``rllib_observation``). Agents are ``player_0`` .. ``player_{n-1}``;
    an agent that decides several times in a row simply gets several consecutive observations, and
    every agent receives its final reward when the game ends."""

    def __init__(self, config: dict | None = None):
        import clans_env

        super().__init__(clans_env.env(**dict(config or {})))
        self.observation_spaces = {aid: rllib_space(sp) for aid, sp in self.observation_spaces.items()}
        self.observation_space = gym.spaces.Dict(self.observation_spaces)

    def reset(self, *, seed=None, options=None):
        obs, info = super().reset(seed=seed, options=options)
        return {a: rllib_observation(o) for a, o in obs.items()}, info

    def step(self, action):
        obs, rew, terminated, truncated, info = super().step(action)
        return {a: rllib_observation(o) for a, o in obs.items()}, rew, terminated, truncated, info


def env_creator(config=None) -> ClansRLlibEnv:
    """The picklable factory RLlib's EnvRunners call (``register`` registers it)."""
    return ClansRLlibEnv(dict(config or {}))


def register(name: str = ENV_NAME) -> str:
    """Register ``env_creator`` under ``name`` with Ray Tune's registry; returns the name."""
    from ray.tune.registry import register_env

    register_env(name, env_creator)
    return name


def shared_policy(agent_id, episode=None, **kwargs) -> str:
    """policy_mapping_fn for self-play: every seat plays the one module ``"shared"``."""
    return "shared"
