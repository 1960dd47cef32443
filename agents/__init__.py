"""Agents that play Clans of Caledonia through one interface (``Agent.act(game) -> action``)."""
from .base import Agent
from .random_agent import RandomAgent

__all__ = ["Agent", "RandomAgent"]
