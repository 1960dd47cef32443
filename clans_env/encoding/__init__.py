"""Numeric views of a game for learning code: the observation vector and its documented layout.

Pure numpy on top of the engine (no gymnasium, pettingzoo or torch). The action side needs no
encoding: the engine's action indices (``clans_env.engine.actions``) are the action space.
"""
from .masks import action_mask
from .observation import ACCELERATED, CLAN_NAMES, CONTRACT_FEATURES, ObservationEncoder, ObsSlice

__all__ = ["ObservationEncoder", "ObsSlice", "CLAN_NAMES", "CONTRACT_FEATURES", "action_mask", "ACCELERATED"]
