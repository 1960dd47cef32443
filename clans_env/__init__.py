"""Clans of Caledonia research environment.

``from clans_env import Game, GameConfig, IllegalActionError`` gives the rules engine.
The PettingZoo / Gymnasium layers are imported lazily so that the engine stays usable
without them.

``CLANS_PURE_PYTHON=1`` in the environment makes the engine import its Python sources even where
its modules were compiled (``setup.py``); ``clans_env.engine.COMPILED`` tells which engine runs.
"""
import os as _os

if _os.environ.get("CLANS_PURE_PYTHON", "").strip().lower() not in ("", "0", "false", "no"):
    from ._pure import prefer_sources as _prefer_sources
    _prefer_sources("clans_env.engine")

from .engine import Game, GameConfig, IllegalActionError  # noqa: E402

__all__ = ["Game", "GameConfig", "IllegalActionError", "env", "raw_env"]
__version__ = "0.1.0"


def __getattr__(name):
    # PettingZoo entry points, imported on first use: ``clans_env.env(**kwargs)``, ``clans_env.raw_env``
    import importlib
    if name in ("env", "clans_of_caledonia_v0", "wrappers", "encoding"):
        return importlib.import_module(f".{name}", __name__)   # the env package is callable
    if name == "raw_env":
        return importlib.import_module(".env.aec", __name__).raw_env
    raise AttributeError(f"module 'clans_env' has no attribute {name!r}")
