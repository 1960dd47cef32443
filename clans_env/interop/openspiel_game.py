"""Clans of Caledonia as an OpenSpiel Python game: ``pyspiel.load_game("python_clans_of_caledonia")``.

Importing this module registers the game. Parameters: ``num_players`` (2-4), ``seed`` (the first
engine seed) and ``num_seeds`` (how many setups the opening chance node chooses from).

Modelling choices
-----------------
* **One chance node at the start.** Its outcome ``k`` (uniform over ``num_seeds``) fixes the engine
  seed ``seed + k``, i.e. the map sides, Port and Scoring tiles, the start player, the Starting
  tile offer and the order of the contract pile. After it the engine is deterministic (the
  base game has no other randomness; the solo dice are not offered here: OpenSpiel's zero-sum
  utility needs two or more players).
* **Perfect information after the seed (an approximation).** The real game hides the order of
  the contract draw pile; here the pile order follows from the seed, so an OpenSpiel algorithm
  that looks ahead through a refill or a Building bonus "knows" the next contracts. Our own
  ``MCTSAgent`` does not: it resamples the unseen pile in every iteration
  (``Game.determinize``). The game type therefore says PERFECT_INFORMATION, and comparisons with
  OpenSpiel's search give it this small advantage.
* **Actions** are the engine's flat table (``NUM_ACTIONS`` distinct actions, the same indices
  as the environments) with the engine's names as action strings; chance outcomes print as
  ``seed:<n>``.
* **Returns** are zero-sum and rank based: each seat gets (players it beats - players that
  beat it) / (n - 1), so +1 / -1 for the 2-player winner / loser and 0 for a tie; the engine's
  ranks already break VP ties by money left.
"""
from __future__ import annotations

import numpy as np
import pyspiel

from clans_env.engine import Game, GameConfig
from clans_env.engine.actions import NUM_ACTIONS, describe

SHORT_NAME = "python_clans_of_caledonia"
DEFAULT_NUM_SEEDS = 1000
#: a generous bound on decisions per player (five rounds of turns and their follow-up dialogue;
#: random and searched play stay far below it, tests check that)
MAX_DECISIONS_PER_PLAYER = 1500

_DEFAULT_PARAMS = {"num_players": 2, "seed": 0, "num_seeds": DEFAULT_NUM_SEEDS}

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Python Clans of Caledonia (base game)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULT_PARAMS,
)


def _game_info(num_players: int, num_seeds: int) -> pyspiel.GameInfo:
    return pyspiel.GameInfo(
        num_distinct_actions=NUM_ACTIONS,
        max_chance_outcomes=num_seeds,
        num_players=num_players,
        min_utility=-1.0,
        max_utility=1.0,
        utility_sum=0.0,
        max_game_length=1 + MAX_DECISIONS_PER_PLAYER * num_players,
    )


class ClansOfCaledoniaGame(pyspiel.Game):
    """The OpenSpiel game object; ``new_initial_state()`` starts at the seed chance node."""

    def __init__(self, params=None):
        params = {**_DEFAULT_PARAMS, **(params or {})}
        n = int(params["num_players"])
        if n not in (2, 3, 4):
            raise ValueError(f"num_players must be 2, 3 or 4 for the OpenSpiel game (got {n}); the solo game has "
                             "no zero-sum utility")
        num_seeds = int(params["num_seeds"])
        if num_seeds < 1:
            raise ValueError(f"num_seeds must be at least 1 (got {num_seeds})")
        self.first_seed = int(params["seed"])
        self.num_seeds = num_seeds
        super().__init__(GAME_TYPE, _game_info(n, num_seeds), params)

    def new_initial_state(self):
        return ClansOfCaledoniaState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return TextObserver(iig_obs_type, params, num_players=self.num_players())


class _EngineBox:
    """Holds the engine game. OpenSpiel clones a Python state by deep-copying its attributes;
    this box turns that into ``Game.clone()``, which shares the static map and copies only the
    mutable state (a generic deepcopy would also copy the precomputed map topology, ~100x
    slower)."""

    __slots__ = ("game",)

    def __init__(self, game):
        self.game = game

    def __deepcopy__(self, memo):
        return _EngineBox(self.game.clone() if self.game is not None else None)


class ClansOfCaledoniaState(pyspiel.State):
    """Wraps an engine ``Game`` (None until the seed chance outcome is applied)."""

    def __init__(self, game: ClansOfCaledoniaGame):
        super().__init__(game)
        self._num_players = game.num_players()
        self._first_seed = game.first_seed
        self._num_seeds = game.num_seeds
        self._box = _EngineBox(None)
        self.engine_seed: int | None = None

    @property
    def engine(self) -> Game | None:
        """The engine game (None before the seed chance outcome)."""
        return self._box.game

    # ---- the OpenSpiel State API ------------------------------------------------------------
    def current_player(self):
        if self.engine is None:
            return pyspiel.PlayerId.CHANCE
        if self.engine.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        return self.engine.current_player

    def _legal_actions(self, player):
        # OpenSpiel wants them ascending; the engine lists follow-up menus' "done" last
        return sorted(self.engine.legal_actions())

    def chance_outcomes(self):
        p = 1.0 / self._num_seeds
        return [(k, p) for k in range(self._num_seeds)]

    def _apply_action(self, action):
        if self.engine is None:
            if not 0 <= action < self._num_seeds:
                raise ValueError(f"chance outcome {action} is outside 0..{self._num_seeds - 1}")
            self.engine_seed = self._first_seed + int(action)
            self._box.game = Game(GameConfig(num_players=self._num_players, seed=self.engine_seed))
        else:
            self.engine.apply(int(action))

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"seed:{self._first_seed + int(action)}"
        if self.engine is not None:
            return self.engine.action_to_string(int(action))
        return describe(int(action))

    def is_terminal(self):
        return self.engine is not None and self.engine.is_terminal()

    def returns(self):
        n = self._num_players
        if not self.is_terminal():
            return [0.0] * n
        ranks = [row["rank"] for row in self.engine.final_scores()]
        return [(sum(1 for q in range(n) if ranks[q] > ranks[p]) - sum(1 for q in range(n) if ranks[q] < ranks[p]))
                / (n - 1) for p in range(n)]

    def __str__(self):
        if self.engine is None:
            return f"Clans of Caledonia ({self._num_players} players): setup not drawn yet (chance node)"
        return self.engine.render_text()


class TextObserver:
    """Observations: the public state as ``Game.render_text`` shows it, and as a tensor the environments'
    observation vector (``clans_env.encoding.ObservationEncoder``) for the observing player, so
    OpenSpiel's ``rl_environment`` (DQN, NFSP, policy gradient, AlphaZero) and RLlib's ``OpenSpielEnv``
    see the same numbers as the PettingZoo env. With perfect recall (information states) the engine seed
    and the full action history are prefixed to the string, so that two different histories never
    share an information state string (the tensor is the observation's)."""

    def __init__(self, iig_obs_type=None, params=None, num_players: int = 2):
        if params:
            raise ValueError(f"observation parameters are not supported (got {params})")
        from clans_env.encoding import ObservationEncoder
        self.perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        self.encoder = ObservationEncoder(num_players)
        self.tensor = np.zeros(self.encoder.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state, player):
        """The observation vector of ``player`` (zeros at the seed chance node, before any game exists)."""
        if state.engine is None:
            self.tensor[:] = 0
        else:
            self.tensor[:] = self.encoder.encode(state.engine, player)

    def string_from(self, state, player):
        text = str(state)
        if self.perfect_recall:
            history = state.engine.history if state.engine is not None else []
            return f"seed={state.engine_seed} player={player} actions={history}\n{text}"
        return text


pyspiel.register_game(GAME_TYPE, ClansOfCaledoniaGame)


def load(num_players: int = 2, seed: int = 0, num_seeds: int = DEFAULT_NUM_SEEDS):
    """``pyspiel.load_game`` with this game's parameters."""
    return pyspiel.load_game(SHORT_NAME, {"num_players": num_players, "seed": seed, "num_seeds": num_seeds})
