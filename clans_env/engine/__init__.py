"""The rules engine: Python, no gymnasium / pettingzoo / torch imports; most of its modules may be
compiled by mypyc from the same source at install time (``setup.py``)."""
from .config import GameConfig
from .game import Game
from .rules import turn as _turn
from .state import IllegalActionError

#: True where the mypyc-compiled modules are the ones imported (not forced off by CLANS_PURE_PYTHON)
COMPILED = not _turn.__file__.endswith(".py")

__all__ = ["Game", "GameConfig", "IllegalActionError", "COMPILED"]
