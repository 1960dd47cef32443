"""The rules engine: pure Python, no gymnasium / pettingzoo / torch imports."""
from .config import GameConfig
from .game import Game
from .state import IllegalActionError

__all__ = ["Game", "GameConfig", "IllegalActionError"]
