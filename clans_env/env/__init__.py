"""Environments over the engine: the PettingZoo AEC environment (``aec``) and a Gymnasium
single-agent wrapper (``single_agent``).

``clans_env.env`` is both this package and, following PettingZoo's naming, the factory of the
wrapped environment: ``clans_env.env(num_players=2)`` calls ``aec.env``. (Importing a subpackage
binds its name on the parent package, so the package itself is made callable rather than letting
the import silently replace the function.)
"""
import importlib
import sys
import types

import gymnasium

from .aec import env as _make_env
from .aec import ActionSpaceError, raw_env
from .rewards import REWARD_KINDS, final_rewards
from .single_agent import AutomaOpponent, SingleAgentEnv, UniformRandomOpponent

env = _make_env

#: Gymnasium id of the single-agent wrapper:
#: ``gymnasium.make("clans_env/ClansOfCaledonia-v0", num_players=2)`` (import clans_env.env first, or
#: write ``gymnasium.make("clans_env.env:clans_env/ClansOfCaledonia-v0")``)
GYM_ID = "clans_env/ClansOfCaledonia-v0"
if GYM_ID not in gymnasium.envs.registry:
    gymnasium.register(id=GYM_ID, entry_point="clans_env.env.single_agent:SingleAgentEnv")


class _CallablePackage(types.ModuleType):
    def __call__(self, **kwargs):
        """``clans_env.env(**kwargs)``: the wrapped AEC environment (see ``aec.env``)."""
        return _make_env(**kwargs)

    def __reduce__(self):
        # pickled by reference (re-imported where it is unpickled), so factories that name clans_env.env
        # travel to worker processes: cloudpickle for RLlib, spawn / forkserver for vector envs
        return importlib.import_module, (self.__name__,)


sys.modules[__name__].__class__ = _CallablePackage

__all__ = ["env", "raw_env", "ActionSpaceError", "SingleAgentEnv", "UniformRandomOpponent", "AutomaOpponent", "REWARD_KINDS", "final_rewards", "GYM_ID"]
