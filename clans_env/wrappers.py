"""Gymnasium wrappers: ``SingleAgentEnv`` puts one learner against fixed opponents."""
from .env.single_agent import SingleAgentEnv, UniformRandomOpponent

__all__ = ["SingleAgentEnv", "UniformRandomOpponent"]
