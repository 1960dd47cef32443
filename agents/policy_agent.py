"""Play a policy trained elsewhere: anything that maps the environment's observation to an action.

A policy trained with Stable-Baselines3 / sb3-contrib, CleanRL, RLlib or by hand on our PettingZoo env
(observation dict ``{"observation", "action_mask"}``) or on the Gymnasium ``SingleAgentEnv`` (the flat
vector plus ``action_masks()``) plays in tournaments through ``PolicyAgent``:

    agent = PolicyAgent(lambda obs: int(obs["action_mask"].nonzero()[0][0]))   # any function of the dict
    agent = PolicyAgent.from_sb3(MaskablePPO.load("model.zip"))                 # an sb3-contrib model

The agent encodes the game for the deciding seat with the same encoder as the environments (the
Industria segment too when the game has those modules), so the policy sees exactly what it saw in
training. An illegal answer is an error naming the action (tournaments then forfeit the game).
"""
from __future__ import annotations

import numpy as np

from clans_env.engine.actions import NUM_ACTIONS

from .base import Agent


class PolicyAgent(Agent):
    """An ``Agent`` around ``policy(observation_dict) -> action`` (see the module docstring)."""

    name = "policy"

    def __init__(self, policy, seed: int | None = None, name: str | None = None):
        super().__init__(seed)
        if not callable(policy):
            raise ValueError(f"PolicyAgent needs a callable policy(observation) -> action (got {policy!r})")
        self.policy = policy
        if name:
            self.name = name
        self._encoders: dict = {}

    @classmethod
    def from_sb3(cls, model, deterministic: bool = True, seed: int | None = None) -> "PolicyAgent":
        """A Stable-Baselines3 model: sb3-contrib's MaskablePPO gets the mask as ``action_masks``; any other
        model is asked with the observation vector alone (and must then answer legally)."""
        def policy(obs: dict) -> int:
            try:
                action, _ = model.predict(obs["observation"], deterministic=deterministic,
                                          action_masks=obs["action_mask"].astype(bool))
            except TypeError:              # a model without action masking
                action, _ = model.predict(obs["observation"], deterministic=deterministic)
            return int(action)
        return cls(policy, seed=seed, name=type(model).__name__.lower())

    def observe(self, game) -> dict:
        """The PettingZoo observation dict of ``game`` for its current player."""
        from clans_env.encoding import ObservationEncoder, action_mask
        key = (game.num_players, game.config.industria_modules)
        enc = self._encoders.get(key)
        if enc is None:
            enc = self._encoders[key] = ObservationEncoder(game.num_players, industria=key[1])
        mask = np.zeros(NUM_ACTIONS, np.int8)
        mask[game.legal_actions()] = 1
        return {"observation": enc.encode(game, game.current_player), "action_mask": mask}

    def act(self, game) -> int:
        action = self.policy(self.observe(game))
        if isinstance(action, np.ndarray):
            action = action.item()
        action = int(action)
        legal = game.legal_actions()
        if action not in legal:
            raise ValueError(f"policy {self.name!r} answered {action} ({game.action_to_string(action)}), which is not "
                             f"legal now ({len(legal)} legal actions)")
        return action

