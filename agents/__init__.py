"""Agents that play Clans of Caledonia through one interface (``Agent.act(game) -> action``).

``make(spec)`` builds one from a text spec such as ``"random"``, ``"heuristic"``,
``"mcts:sims=200"`` or ``"ppo:path=FILE"`` (see ``agents.registry``).
"""
from .base import Agent
from .heuristic import HeuristicAgent, estimate_final_vp, evaluate
from .mcts import MCTSAgent
from .policy_agent import PolicyAgent
from .random_agent import RandomAgent
from .registry import KINDS, make, parse_spec

__all__ = ["Agent", "PolicyAgent", "RandomAgent", "HeuristicAgent", "MCTSAgent", "make", "parse_spec", "KINDS", "evaluate",
           "estimate_final_vp"]
