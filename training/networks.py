"""Networks for masked PPO.

The network classes are defined in ``agents.ppo`` (playing a checkpoint must not need the
training layer; lower layers never import higher ones) and re-exported here, where training
builds them from a ``PPOConfig``.
"""
from __future__ import annotations

from agents.ppo import IncrementalActor, MaskedCategorical, PolicyValueNet, masked_logits

from .config import PPOConfig

__all__ = ["IncrementalActor", "MaskedCategorical", "PolicyValueNet", "masked_logits", "build_network", "count_parameters"]


def build_network(config: PPOConfig, obs_size: int, num_actions: int) -> PolicyValueNet:
    """The policy/value network a config describes, for observations of ``obs_size``."""
    return PolicyValueNet(obs_size, num_actions, config.num_players, hidden_sizes=config.hidden_sizes,
                          activation=config.activation, mask_in_obs=config.mask_in_obs,
                          shared_torso=config.shared_torso)


def count_parameters(net) -> int:
    return sum(p.numel() for p in net.parameters())
