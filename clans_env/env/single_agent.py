"""One learner against fixed opponents, as a ``gymnasium.Env`` with ``action_masks()``.

>>> from sb3_contrib import MaskablePPO
>>> from clans_env.wrappers import SingleAgentEnv
>>> env = SingleAgentEnv(num_players=2)               # the opponent plays uniformly random moves
>>> model = MaskablePPO("MlpPolicy", env).learn(10_000)   # doctest: +SKIP

A step is one decision of the learner; the opponents' decisions in between are played inside
``step``. The observation is the float32 vector of ``ObservationEncoder`` seen from the learner's
seat (a ``Box``), so standard policies work unchanged; the legal actions come from
``action_masks()`` (sb3-contrib's convention) and ``info["action_mask"]``.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import gymnasium
import numpy as np
from gymnasium import spaces

from ..encoding import ObservationEncoder, action_mask
from ..engine import Game, GameConfig, IllegalActionError
from ..engine.actions import NUM_ACTIONS
from ..engine.state import DECISION_KINDS
from .aec import RENDER_MODES, action_string, checked_action
from .rewards import DEFAULT_SCORE_SCALE, check_reward, final_rewards

ILLEGAL_ACTION_MODES = ("penalize", "raise")


class UniformRandomOpponent:
    """Plays a uniformly random legal move (the default opponent); seeded through ``reset``."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, game) -> int:
        legal = game.legal_actions()
        return legal[int(self.rng.integers(len(legal)))]


class AutomaOpponent:
    """The physical game's own solo opponent at ``level`` 1-5 as an opponent of ``SingleAgentEnv``: its
    seat becomes an Automa seat of the game (``GameConfig.automa``), whose turns the engine resolves
    inside ``step`` (it is never asked to act). ``"automa:level=5"`` (or ``"automa:5"``) names one."""

    name = "automa"

    def __init__(self, level: int = 3):
        if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= 5:
            raise ValueError(f"Automa level must be one of 1, 2, 3, 4, 5 (got {level!r})")
        self.level = level

    @classmethod
    def parse(cls, spec):
        """An ``AutomaOpponent`` for ``spec`` ("automa", "automa:4", "automa:level=4"), else None."""
        if isinstance(spec, cls):
            return spec
        if not isinstance(spec, str) or spec.split(":")[0].strip() != "automa":
            return None
        rest = spec.partition(":")[2].strip()
        if not rest:
            return cls()
        value = rest.partition("=")[2] if "=" in rest else rest
        if rest.partition("=")[0].strip() not in ("level", rest.strip()) or not value.strip().isdigit():
            raise ValueError(f"an Automa opponent is written 'automa', 'automa:<level>' or 'automa:level=<level>' "
                             f"with a level 1-5 (got {spec!r})")
        return cls(int(value))

    def act(self, game) -> int:
        raise RuntimeError("the Automa's turns are resolved by the engine; it is never asked to act")

    def __repr__(self) -> str:
        return f"AutomaOpponent(level={self.level})"


def _policy_call(opponent) -> Callable:
    act = getattr(opponent, "act", None)
    if callable(act):
        return act
    if callable(opponent):
        return opponent
    raise TypeError(f"an opponent must have act(game) -> int or be callable as opponent(game); got {opponent!r}")


class SingleAgentEnv(gymnasium.Env):
    """Clans of Caledonia for one learning agent; the other seats are played by ``opponents``.

    Args:
        num_players: 1 (solo: no opponents) to 4.
        opponents: None (uniform random), one opponent for every other seat, or a sequence of
            ``num_players - 1`` opponents for the seats after the learner's in seat order
            (``opponents[0]`` plays seat ``learner + 1``, ...). An opponent is any object with
            ``act(game) -> action`` (e.g. an ``agents.Agent``) or a callable ``(game) -> action``;
            its ``reset(seed)`` is called at every episode start when it has one. ``AutomaOpponent(level)``
            (or the string ``"automa:level=5"``) seats the game's own solo opponent, the Automa, whose
            turns the engine plays (``GameConfig.automa``).
        learner_seat: the learner's engine seat, or "random" for a new seat every episode.
        reward / score_scale: as in ``raw_env`` ("win", "rank" or "score"; paid at the end).
        illegal_action: "penalize" ends the episode with ``illegal_reward`` (info["illegal_action"]
            is True; the game state is unchanged); "raise" raises ``IllegalActionError``.
        render_mode: None, "ansi", "rgb_array" or "human".
        descriptive_infos: also put ``action_string``, ``decision_name`` and, at the end, the ``scores``
            sheet in the infos (off by default: every info value is a number or the mask array, the same
            keys at every step; the text is on the env as ``last_action_string`` and ``game``).
        **game_options: other ``GameConfig`` fields (clans, clan_selection, map_sides, ...).
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 1}

    def __init__(self, num_players: int = 2, opponents: Any = None, learner_seat: int | str = 0,
                 reward: str | None = None, score_scale: float = DEFAULT_SCORE_SCALE,
                 illegal_action: str = "penalize", illegal_reward: float = -1.0, render_mode: str | None = None,
                 descriptive_infos: bool = False, **game_options):
        if "seed" in game_options:
            raise ValueError("SingleAgentEnv takes its seed from reset(seed=...) (Gymnasium convention), "
                             "not from the constructor")
        config = GameConfig(num_players=num_players, seed=0, **game_options)   # fail now on a bad option
        if learner_seat != "random" and learner_seat not in range(num_players):
            raise ValueError(f"learner_seat must be 'random' or one of {list(range(num_players))} "
                             f"(got {learner_seat!r})")
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES} (got {illegal_action!r})")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None or one of {RENDER_MODES} (got {render_mode!r})")
        self.num_players = num_players
        self.reward_kind = check_reward(reward, num_players)
        self.score_scale = float(score_scale)
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.learner_seat_option = learner_seat
        self.descriptive_infos = bool(descriptive_infos)
        #: the learner's last move in words (``game.action_to_string``), None after reset
        self.last_action_string: str | None = None
        self._last_action = -1
        self.game_options = dict(game_options)
        self.opponents = self._opponent_list(opponents)
        self._policies = [_policy_call(o) for o in self.opponents]
        self.encoder = ObservationEncoder(num_players, industria=config.industria_modules)
        self.observation_space = spaces.Box(low=self.encoder.low, high=self.encoder.high, dtype=np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.game: Game | None = None
        self._fixed_automa = config.automa_seats          # Automa seats given as a game option
        if learner_seat in self._fixed_automa:
            raise ValueError(f"learner_seat {learner_seat} is an Automa seat (automa={config.automa}); valid: "
                             f"{[s for s in range(num_players) if s not in self._fixed_automa]} or 'random'")
        self.learner_seat = 0 if learner_seat == "random" else learner_seat
        if self.learner_seat in self._fixed_automa:
            self.learner_seat = next(s for s in range(num_players) if s not in self._fixed_automa)

    def _opponent_list(self, opponents) -> list:
        k = self.num_players - 1
        if opponents is None:
            return [UniformRandomOpponent() for _ in range(k)]
        if isinstance(opponents, Sequence) and not isinstance(opponents, str):
            if len(opponents) != k:
                raise ValueError(f"opponents must list {k} opponent(s) for a {self.num_players}-player game "
                                 f"(got {len(opponents)})")
            out = [AutomaOpponent.parse(o) or o for o in opponents]
        else:
            out = [AutomaOpponent.parse(opponents) or opponents] * k
        if any(isinstance(o, AutomaOpponent) for o in out):
            if "automa" in self.game_options:
                raise ValueError("give the Automa either as an opponent (AutomaOpponent) or as the game option "
                                 "automa, not both")
        return out

    def _automa_seats(self) -> dict:
        """Seat -> level of the Automa opponents for the learner's current seat."""
        n = self.num_players
        return {(self.learner_seat + 1 + k) % n: o.level for k, o in enumerate(self.opponents)
                if isinstance(o, AutomaOpponent)}

    # ---- gymnasium API -------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """``seed`` fixes the game (``reset(seed=s)`` plays ``Game(GameConfig(seed=s))``), the learner's
        seat when random, and the opponents' seeds."""
        super().reset(seed=seed)
        rng = self.np_random
        game_seed = int(seed) if seed is not None else int(rng.integers(2 ** 31 - 1))
        if self.learner_seat_option == "random":
            seats = [s for s in range(self.num_players) if s not in self._fixed_automa]
            self.learner_seat = seats[int(rng.integers(len(seats)))]
        seen = set()
        for opponent in self.opponents:
            if id(opponent) not in seen and callable(getattr(opponent, "reset", None)):
                opponent.reset(seed=int(rng.integers(2 ** 31 - 1)))
            seen.add(id(opponent))
        options = dict(self.game_options)
        automa = self._automa_seats()
        if automa:
            options["automa"] = automa
        self.game = Game(GameConfig(num_players=self.num_players, seed=game_seed, **options))
        self._play_opponents()
        self.last_action_string, self._last_action = None, -1
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def step(self, action):
        game = self.game
        if game is None or game.is_terminal():
            raise RuntimeError("the episode is over: call reset() before step()")
        action = checked_action(action, game)      # not an action at all: an error, never a penalty
        text = action_string(game, action)
        try:
            game.apply(action)
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise
            return self._observation(), self.illegal_reward, True, False, self._info(illegal=True)
        self.last_action_string, self._last_action = text, action
        self._play_opponents()
        reward, terminated = 0.0, game.is_terminal()
        if terminated:
            reward = final_rewards(game.final_scores(), self.reward_kind, self.score_scale)[self.learner_seat]
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, terminated, False, self._info()

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (sb3-contrib ``MaskablePPO`` reads this)."""
        if self.game is None or self.game.is_terminal():
            return np.zeros(NUM_ACTIONS, bool)
        return action_mask(self.game.legal_actions(), bool)

    def render(self):
        from .aec import render_game
        return render_game(self.game, self.render_mode)

    # ---- internals -----------------------------------------------------------------------------------
    def _play_opponents(self) -> None:
        """Play the other seats until the learner decides or the game ends."""
        game = self.game
        learner = self.learner_seat
        n = self.num_players
        while not game.is_terminal() and game.current_player != learner:
            seat = game.current_player
            policy = self._policies[(seat - learner) % n - 1]
            action = policy(game)
            try:
                game.apply(action)
            except IllegalActionError as e:
                raise IllegalActionError(f"opponent {self.opponents[(seat - learner) % n - 1]!r} in seat {seat} "
                                         f"chose an illegal action: {e}") from None

    def _observation(self) -> np.ndarray:
        return self.encoder.encode(self.game, self.learner_seat)

    def _info(self, illegal: bool = False) -> dict:
        """The same keys at every step: ``INFO_KEYS`` (``action``: the learner's last legal move, -1 after
        reset; ``decision``: the pending decision kind's index, -1 at the end; ``score`` / ``rank``: final
        VP total and place, 0 until the end), ``action_mask``, ``learner_seat`` and ``illegal_action``."""
        game = self.game
        over = game.is_terminal()
        info = {"action": self._last_action, "decision": -1 if over else game.stack[-1][0], "score": 0, "rank": 0,
                "action_mask": self.action_masks(), "learner_seat": self.learner_seat, "illegal_action": illegal}
        row = game.final_scores()[self.learner_seat] if over else None
        if row is not None:
            info["score"], info["rank"] = int(row["total"]), int(row["rank"])
        if self.descriptive_infos:
            info.update(action_string=self.last_action_string, decision_name="" if over else game.decision_kind)
            if row is not None:
                info["scores"] = row
        return info
