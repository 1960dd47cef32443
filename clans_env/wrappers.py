"""Gymnasium wrappers: ``SingleAgentEnv`` puts one learner against fixed opponents."""
from .env.single_agent import AutomaOpponent, SingleAgentEnv, UniformRandomOpponent

__all__ = ["AutomaOpponent", "SingleAgentEnv", "UniformRandomOpponent"]
