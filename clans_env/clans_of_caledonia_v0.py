"""PettingZoo-style module: ``clans_of_caledonia_v0.env(**kwargs)`` (wrapped) and ``raw_env``.

See ``docs/environment.md``; the keyword arguments are those of ``clans_env.env.aec.raw_env``.
"""
from .env.aec import env, raw_env

__all__ = ["env", "raw_env"]
