"""PettingZoo AEC environment for Clans of Caledonia (classic-game conventions).

>>> from clans_env import clans_of_caledonia_v0
>>> env = clans_of_caledonia_v0.env(num_players=2)
>>> env.reset(seed=0)
>>> for agent in env.agent_iter():
...     obs, reward, terminated, truncated, info = env.last()
...     action = None if terminated or truncated else env.action_space(agent).sample(obs["action_mask"])
...     env.step(action)

Every decision of the game (main actions, "which space", bonus purchases, production choices,
setup picks) is one step of the deciding agent, so an agent often acts several times in a row.
The action space is the engine's flat action table (``clans_env.engine.actions``), the same for
every decision: ``Discrete(NUM_ACTIONS)`` with the legal set given as ``action_mask``.
"""
from __future__ import annotations

from operator import attrgetter

import numpy as np
from gymnasium import logger, spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..encoding import ACCELERATED, ObservationEncoder, action_mask
from ..engine import Game, GameConfig
from ..engine.actions import NUM_ACTIONS
from ..engine.state import DECISION_KINDS
from .rewards import DEFAULT_SCORE_SCALE, check_reward, final_rewards

RENDER_MODES = ("ansi", "rgb_array", "human")
#: the infos of both environments at every step (numbers only, so that libraries can stack them):
#: the last move's action index (-1 after reset), the pending decision kind (an index into
#: ``state.DECISION_KINDS``; -1 once the game is over), and the final VP total and rank (0 until the end)
INFO_KEYS = ("action", "decision", "score", "rank")
#: keys ``reset(options=...)`` understands
RESET_OPTIONS = ("game",)


def action_string(game: Game, action: int) -> str:
    """The name of ``action`` in ``game``'s position with its context: ``game.action_to_string``, the one
    name source (ValueError for an index outside 0..NUM_ACTIONS-1)."""
    return game.action_to_string(action)


class ActionSpaceError(ValueError, AssertionError):
    """``step`` got something that is not an action of the space: not an integer (a bool, a float,
    a string, None while alive) or outside 0..NUM_ACTIONS-1. The state is unchanged. (Also an
    AssertionError: PettingZoo's AssertOutOfBoundsWrapper raised that for these before.)"""


def checked_action(action, game: Game | None = None) -> int:
    """``action`` as an int when it is an integer (Python or NumPy, not a bool) in
    0..NUM_ACTIONS-1; raises ``ActionSpaceError`` saying what was wrong, the valid range and,
    with ``game``, the actions legal now."""
    if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
        a = int(action)
        if 0 <= a < NUM_ACTIONS:
            return a
        what = f"{a} is outside the action space"
    elif isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        return checked_action(action.item(), game)
    else:
        what = f"{action!r} ({type(action).__name__}) is not an integer action"
    legal = ""
    if game is not None:
        now = game.legal_actions() if not game.is_terminal() else []
        shown = ", ".join(str(x) for x in now[:20]) + (", ..." if len(now) > 20 else "")
        legal = f"; legal now ({len(now)}): [{shown}]"
    raise ActionSpaceError(f"{what}: actions are integers 0..{NUM_ACTIONS - 1} (Discrete({NUM_ACTIONS})){legal}")


def env(**kwargs) -> AECEnv:
    """The environment with PettingZoo's standard classic-game wrappers: an illegal action ends
    the game with reward -1 for the offender (others 0), anything that is not an action of the
    space (out of range, a bool, a float, ...) raises ``ActionSpaceError`` saying why, and calls
    out of order (step before reset, ...) raise a clear error."""
    return standard_wrappers(raw_env(**kwargs))


#: the attributes that PettingZoo's wrappers, ``last()`` and ``agent_iter()`` read on every step
_PER_STEP_ATTRIBUTES = ("agents", "agent_selection", "rewards", "_cumulative_rewards", "terminations",
                        "truncations", "infos")


def _bound(wrapper: type, qualname: str) -> type:
    """``wrapper`` (a PettingZoo wrapper class) with the per-step attributes read straight from the
    innermost env. PettingZoo's ``BaseWrapper`` forwards every attribute through ``__getattr__``,
    level by level: with three wrappers that cost more per step than the game engine itself. The
    wrappers never shadow these attributes, so reading the innermost env's value is what the
    forwarding returns anyway; the wrappers' own logic (illegal-move handling, bounds assertion,
    order checks) is PettingZoo's, unchanged.

    Each attribute is a property reading ``self._innermost.<name>`` (one C-level ``attrgetter``).
    OrderEnforcingWrapper learns ``_innermost`` only in ``reset()``: before that the property fails
    and Python falls back to its ``__getattr__``, which raises its usual "cannot be accessed before
    reset" error."""
    namespace = {name: property(attrgetter(f"_innermost.{name}"), doc=f"The innermost env's ``{name}``.")
                 for name in _PER_STEP_ATTRIBUTES}
    if issubclass(wrapper, wrappers.OrderEnforcingWrapper):
        def reset(self, seed=None, options=None):
            self._innermost = self.env.unwrapped
            wrapper.reset(self, seed=seed, options=options)
        namespace["reset"] = reset
    else:
        def __init__(self, env, *args, **kwargs):
            self._innermost = env.unwrapped
            wrapper.__init__(self, env, *args, **kwargs)
        namespace["__init__"] = __init__
    if issubclass(wrapper, wrappers.AssertOutOfBoundsWrapper):
        # checked before PettingZoo's bare assertion and before TerminateIllegalWrapper indexes the
        # mask with it (a bool would index numpy's mask as a boolean array)
        def step(self, action):
            inner = self._innermost
            agent = inner.agent_selection
            if not (action is None and (inner.terminations[agent] or inner.truncations[agent])):
                action = checked_action(action, getattr(inner, "game", None))   # any env these wrap
            wrapper.step(self, action)
        namespace["step"] = step
    # the class keeps PettingZoo's name (its str() and wrapper chains read the same) and is found by
    # pickle under ``qualname`` in this module
    namespace.update(__doc__=wrapper.__doc__, __module__=__name__, __qualname__=qualname)
    return type(wrapper.__name__, (wrapper,), namespace)


_TerminateIllegal = _bound(wrappers.TerminateIllegalWrapper, "_TerminateIllegal")
_AssertOutOfBounds = _bound(wrappers.AssertOutOfBoundsWrapper, "_AssertOutOfBounds")
_OrderEnforcing = _bound(wrappers.OrderEnforcingWrapper, "_OrderEnforcing")


def standard_wrappers(environment: AECEnv) -> AECEnv:
    """PettingZoo's classic-game wrapper stack around ``environment`` (each class a subclass of the
    PettingZoo wrapper of the same name that only binds the per-step attribute reads, see
    ``_bound``)."""
    environment = _TerminateIllegal(environment, illegal_reward=-1)
    environment = _AssertOutOfBounds(environment)
    return _OrderEnforcing(environment)


class raw_env(AECEnv):
    """Clans of Caledonia as an AEC environment; the raw form raises ``IllegalActionError`` on an
    illegal action (use ``env()`` for PettingZoo's standard illegal-move handling).

    Args:
        num_players: 1 (solo) to 4; agents are ``player_0`` .. ``player_{n-1}`` (engine seats), less the
            seats of an Automa (``automa={seat: level}``), whose turns the engine plays inside ``step``.
        reward: "win" (+1 winner, -1 others, ties share), "rank" (linear in the finishing place) or
            "score" (VP margin over the best opponent / score_scale; solo: VP / score_scale).
            Default: "win", or "score" for a solo game.
        score_scale: divisor for the "score" reward.
        render_mode: None, "ansi" (text), "rgb_array" (numpy image) or "human" (prints the text).
        seed: game seed of the first ``reset()`` called without one (later resets draw new seeds).
        descriptive_infos: also put the descriptive values in the infos (``action_string``,
            ``decision_name`` and, at the end, the ``scores`` sheet); off by default so that every info
            value is a number (``INFO_KEYS``) for libraries that stack infos into tensors. The same text
            is always on the env: ``last_action_string``, ``game.decision_kind``, ``game.final_scores()``.
        **game_options: any other ``GameConfig`` field (clans, clan_selection, static_imports,
            scoring_tiles, port_tiles, tighter_map, kickstarter, map_sides).
    """

    metadata = {"name": "clans_of_caledonia_v0", "render_modes": list(RENDER_MODES), "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, num_players: int = 2, reward: str | None = None, score_scale: float = DEFAULT_SCORE_SCALE,
                 render_mode: str | None = None, seed: int | None = None, descriptive_infos: bool = False,
                 **game_options):
        super().__init__()
        # validate everything now, so that a bad option fails here and not at the first reset
        config = GameConfig(num_players=num_players, seed=0 if seed is None else seed, **game_options)
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None or one of {RENDER_MODES} (got {render_mode!r})")
        if not score_scale > 0:
            raise ValueError(f"score_scale must be positive (got {score_scale!r})")
        self.num_players = num_players
        self.reward_kind = check_reward(reward, num_players)
        self.score_scale = float(score_scale)
        self.render_mode = render_mode
        self.game_options = dict(game_options)
        self.descriptive_infos = bool(descriptive_infos)
        self._last_action, self._last_text = -1, None
        self._first_seed = seed
        self._seed_rng: np.random.Generator | None = None

        # an Automa seat (GameConfig.automa) is no agent: its turns happen inside step()
        self.possible_agents = [f"player_{i}" for i in range(num_players) if i not in config.automa_seats]
        self.agent_name_mapping = {a: int(a[len("player_"):]) for a in self.possible_agents}
        self._seat_agent = {i: a for a, i in self.agent_name_mapping.items()}
        self.encoder = ObservationEncoder(num_players, industria=config.industria_modules)
        if not ACCELERATED:
            logger.warn("clans_env's compiled observation encoder was not built (no C compiler at install time): "
                        "observations use the pure-Python path (about 5x slower; an environment step about 2x). "
                        "Reinstall (pip install -e .) with gcc and the Python headers present to build it.")
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(low=self.encoder.low, high=self.encoder.high, dtype=np.float32),
                "action_mask": spaces.Box(low=0, high=1, shape=(NUM_ACTIONS,), dtype=np.int8),
            }) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self.game: Game | None = None
        # observe() results: agent -> (game, actions applied, agent to move?, observation dict)
        self._observed: dict = {}

    # ---- spaces and layout ---------------------------------------------------------------------------
    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    @property
    def observation_layout(self):
        """Named slices of the ``observation`` vector (``ObservationEncoder.layout``)."""
        return self.encoder.layout

    # ---- reset / observe / step -------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game. ``seed`` fixes it (``reset(seed=s)`` plays ``Game(GameConfig(seed=s))``);
        without one the seed comes from the generator seeded by the last explicit seed.
        ``options={"game": g}`` starts from a copy of the engine state ``g`` instead."""
        options = options or {}
        unknown = sorted(set(options) - set(RESET_OPTIONS))
        if unknown:
            logger.warn(f"reset() ignores unknown options {unknown}; known options: {list(RESET_OPTIONS)}")
        if seed is None and self._seed_rng is None and self._first_seed is not None:
            seed = self._first_seed
        if seed is not None:
            self._seed_rng = np.random.default_rng(seed)
            game_seed = int(seed)
        else:
            if self._seed_rng is None:
                self._seed_rng = np.random.default_rng()
            game_seed = int(self._seed_rng.integers(2 ** 31 - 1))
        start = options.get("game")
        if start is not None:
            if not isinstance(start, Game) or start.num_players != self.num_players:
                raise ValueError(f"options['game'] must be a Game with {self.num_players} players (got {start!r})")
            self.game = start.clone()
        else:
            self.game = Game(GameConfig(num_players=self.num_players, seed=game_seed, **self.game_options))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._observed = {}
        self._last_action, self._last_text = -1, None
        self._after_move(-1)
        if self.render_mode == "human":
            self.render()

    def observe(self, agent):
        """``{"observation": float32 vector (seat-relative), "action_mask": int8 over NUM_ACTIONS}``;
        the mask is all zeros for an agent that is not to move.

        ``last()``, the wrappers and the agent often ask for the same observation within one step, so
        it is computed once per agent and position (number of actions applied) and the same dict is
        returned again until the next ``step()`` or ``reset()``; as in other PettingZoo environments
        the arrays are not copied: treat them as read-only (copy before modifying). ``self.game`` is
        changed only by ``step()``; after editing it in place, call ``reset(options={"game": ...})``."""
        game = self.game
        to_move = agent == self.agent_selection
        seen = self._observed.get(agent)
        if seen is not None and seen[0] is game and seen[1] == game._hist_len and seen[2] == to_move:
            return seen[3]
        # no legal action once the game is over, so the mask is all zeros then too
        mask = action_mask(game.legal_actions()) if to_move else np.zeros(NUM_ACTIONS, np.int8)
        obs = {"observation": self.encoder.encode(game, self.agent_name_mapping[agent]), "action_mask": mask}
        self._observed[agent] = (game, game._hist_len, to_move, obs)
        return obs

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        action = checked_action(action, game)
        text = action_string(game, action)       # the context needs the position before the move
        game.apply(action)                   # IllegalActionError leaves everything unchanged
        self._last_action = action
        self._last_text = text
        self._cumulative_rewards[agent] = 0.0
        if self._after_move(action):
            self._accumulate_rewards()       # rewards are paid at the end only: zero until then
        if self.render_mode == "human":
            self.render()

    @property
    def last_action_string(self) -> str | None:
        """The last move in words (``game.action_to_string`` with its context), None after reset."""
        return self._last_text

    def _after_move(self, action: int) -> bool:
        """Update rewards, infos and the agent to move after a move (``action``; -1 for a reset);
        True at the end. The infos have the keys ``INFO_KEYS`` (numbers only) at every step, plus the
        descriptive ones when ``descriptive_infos`` is on."""
        game = self.game
        if not game.is_terminal():
            # rewards stay 0.0 from reset() until the end, so only the infos change here: every agent
            # gets the same (read-only) dict, like the arrays of an observation
            kind, seat = game.stack[-1][:2]                  # game.decision_kind, game.current_player
            info = {"action": action, "decision": kind, "score": 0, "rank": 0}
            if self.descriptive_infos:
                info.update(action_string=self._last_text, decision_name=DECISION_KINDS[kind])
            self.infos = dict.fromkeys(self.agents, info)
            self.agent_selection = self._seat_agent[seat]
            return False
        rows = game.final_scores()
        values = final_rewards(rows, self.reward_kind, self.score_scale)
        for a in self.agents:
            seat = self.agent_name_mapping[a]
            self.rewards[a] = values[seat]
            self.terminations[a] = True
            info = {"action": action, "decision": -1, "score": int(rows[seat]["total"]),
                    "rank": int(rows[seat]["rank"])}
            if self.descriptive_infos:
                info.update(action_string=self._last_text, decision_name="", scores=rows[seat])
            self.infos[a] = info
        # let every agent see its final reward, starting after the one that just moved
        last = self.agent_selection if action >= 0 else self.agents[0]
        i = self.possible_agents.index(last) if last in self.possible_agents else 0
        self.agent_selection = self.possible_agents[(i + 1) % len(self.possible_agents)]
        return True

    # ---- render / close ----------------------------------------------------------------------------
    def render(self):
        return render_game(self.game, self.render_mode)

    def close(self) -> None:
        """Nothing to release: pictures are drawn on a fresh matplotlib Figure each time."""

    def __str__(self) -> str:
        return self.metadata["name"]


def render_game(game, render_mode):
    """The render() of both environments: text for "ansi", printed text for "human", a numpy
    picture of the map and boards for "rgb_array"."""
    if render_mode is None:
        logger.warn("render() called without a render_mode; pass render_mode='ansi', 'rgb_array' or 'human'")
        return None
    if game is None:
        raise RuntimeError("call reset() before render()")
    if render_mode == "ansi":
        return game.render_text()
    if render_mode == "human":
        print(game.render_text())
        return None
    from .render import render_rgb
    return render_rgb(game)
