"""Clans of Caledonia research environment.

``from clans_env import Game, GameConfig, IllegalActionError`` gives the rules engine.
The PettingZoo / Gymnasium layers are imported lazily so that the engine stays usable
without them.
"""
from .engine import Game, GameConfig, IllegalActionError

__all__ = ["Game", "GameConfig", "IllegalActionError"]
__version__ = "0.1.0"
