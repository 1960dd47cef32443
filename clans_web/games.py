"""Games played in the browser: the server keeps each game (one human seat against bots built
from agent specs); a move names its action and the position it was chosen in (``version``: the
number of decisions made so far), so an illegal or stale request is refused and changes nothing.
"""
from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from pathlib import Path

from clans_env import Game, GameConfig, IllegalActionError
from clans_env.engine.records import take_back, write_record
from clans_env.engine.views import automa_record

from .views import PLAYER_COLOURS, frame, legal_moves, map_svg

#: resource bounds on the bots a request may ask for
MAX_SIMS = 5000
MAX_SECONDS = 10.0
#: the wall-clock cap of one bot decision in the server, whatever its spec asks (searches stop there)
MAX_MOVE_SECONDS = MAX_SECONDS
MAX_BOT_DECISIONS = 5000     # bot decisions in a row before the server gives up (no agent loops forever)
#: agent kinds a request may name without the server's operator allowing more (``--allow-agent``): the
#: built-in ones, whose code is this package's; "automa" seats the engine's Automa
BUILT_IN_KINDS = ("random", "heuristic", "mcts", "ppo", "az", "automa")


class MoveError(ValueError):
    """A refused request (status 400: bad or illegal; 404: no such game; 409: stale or not your turn)."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def check_spec(spec: str, model_dirs=(), allowed_agents=()) -> str:
    """``spec`` if a web request may use it; MoveError otherwise.

    The check reads the spec's text and imports nothing: its kind must be a built-in one or one that the
    server's operator allowed by name (``clans serve --allow-agent NAME``: an installed entry point, or a
    ``module:Class`` / ``./file.py:Class`` the operator typed); its model files (``ppo:path=``,
    ``mcts:policy=``, ``az:path=``) must lie in ``model_dirs``; its numbers must be finite and its search
    budget bounded."""
    from agents import parse_spec

    if not isinstance(spec, str) or len(spec) > 500:
        raise MoveError("an agent spec is a string of at most 500 characters")
    try:
        kind, options = parse_spec(spec)       # text only: nothing is imported or run
    except ValueError as e:
        raise MoveError(str(e)) from None
    if kind not in BUILT_IN_KINDS and kind not in allowed_agents:
        extra = f"; this server also allows: {', '.join(allowed_agents)}" if allowed_agents else \
            "; the server's operator may allow more with clans serve --allow-agent NAME"
        raise MoveError(f"agent {kind!r} may not be played from the web page: built-in kinds are "
                        f"{', '.join(BUILT_IN_KINDS)}{extra}", 403)
    for key in ("path", "policy"):
        if key in options:
            p = Path(str(options[key])).resolve()
            if not any(p.is_relative_to(Path(d).resolve()) for d in model_dirs):
                raise MoveError(f"{kind}:{key}= must name a model file inside the served folders or models/ "
                                f"(got {options[key]!r})", 403)
    if kind in BUILT_IN_KINDS:
        if options.get("workers", 1) != 1:
            raise MoveError("mcts workers= is not available from the web page (one process per request)")
        if options.get("sims", 0) > MAX_SIMS:
            raise MoveError(f"sims= is at most {MAX_SIMS} from the web page")
        if (options.get("seconds") or 0) > MAX_SECONDS:
            raise MoveError(f"seconds= is at most {MAX_SECONDS:g} from the web page")
    return spec.strip()


def make_bot(spec: str, seed: int):
    """The agent for a checked spec, its searches capped at ``MAX_MOVE_SECONDS`` a decision."""
    from agents import make

    bot = make(spec, seed=seed)
    if hasattr(bot, "max_seconds"):
        bot.max_seconds = MAX_MOVE_SECONDS
    return bot


class WebGame:
    """One game: the engine state, the human's seat and the bots for the other seats."""

    def __init__(self, gid: str, config: GameConfig, human: int, specs: dict):
        self.id = gid
        self.game = Game(config)
        self.human = human
        self.specs = specs                              # seat -> spec
        self.bots = {p: make_bot(s, seed=config.seed * 10 + p + 1) for p, s in specs.items()}
        self.names = ["you" if p == human else specs[p] for p in range(config.num_players)]
        self.lock = threading.Lock()
        self.touched = time.monotonic()
        self.saved_as: str | None = None
        self.bot_moves: list[dict] = []                 # the bots' moves since the human's last one
        self.log: list[dict] = []                       # every decision: who made it and its name
        self._run_bots()

    @property
    def version(self) -> int:
        return len(self.game.history)

    def _run_bots(self) -> None:
        g = self.game
        self.bot_moves = []
        for _ in range(MAX_BOT_DECISIONS):
            if g.is_terminal() or g.current_player == self.human:
                return
            p = g.current_player
            a = self.bots[p].act(g)
            entry = {"index": self.version, "player": p, "who": self.names[p], "text": g.action_to_string(a)}
            self._apply(entry, a)
            self.bot_moves.append(entry)
            self.log.append(entry)
        raise MoveError("the bots did not hand the turn back", 500)

    def _apply(self, entry: dict, action: int) -> None:
        """Apply ``action``; with an Automa, ``entry["automa"]`` gets the lines of its turns resolved inside
        (its cards drawn and actions carried out, as ``clans play`` prints them)."""
        g = self.game
        if not g.config.automa:
            g.apply(action)
            return
        seen = len(automa_record(g))
        g.apply(action)
        entry["automa"] = automa_record(g)[seen:]

    def move(self, action: int, version: int) -> None:
        g = self.game
        if version != self.version:
            raise MoveError(f"stale move: it was chosen at decision {version} but the game is at decision "
                            f"{self.version}; the page shows the current position again", 409)
        if g.is_terminal():
            raise MoveError("the game is over: no more moves", 409)
        if g.current_player != self.human:
            raise MoveError(f"it is not your turn (seat {g.current_player} decides)", 409)
        legal = g.legal_actions()
        if action not in legal:
            raise MoveError(f"illegal move: action {action} is not one of the {len(legal)} legal moves of this "
                            f"decision ({g.decision_kind}: {g.decision_text()})", 400)
        entry = {"index": self.version, "player": self.human, "who": "you", "text": g.action_to_string(action)}
        try:
            self._apply(entry, action)
        except IllegalActionError as e:     # the state is untouched (engine guarantee)
            raise MoveError(f"illegal move: {e}", 400) from None
        self.log.append(entry)
        self._run_bots()

    def undo(self, version: int) -> int:
        """Take back the human's last decision and the bots' since; returns the decisions taken back."""
        if version != self.version:
            raise MoveError(f"stale undo: sent at decision {version}, the game is at decision {self.version}", 409)
        try:
            self.game, undone = take_back(self.game, self.human)
        except ValueError as e:
            raise MoveError(str(e), 409) from None
        for bot in self.bots.values():
            bot.reset()
        self.bot_moves = []
        self.log = self.log[:self.version]
        return undone

    def state(self, with_map: bool = False) -> dict:
        g = self.game
        out = {"kind": "game", "id": self.id, "version": self.version, "human": self.human, "names": self.names,
               "specs": {str(p): s for p, s in self.specs.items()},
               "colours": [PLAYER_COLOURS[p] for p in range(g.num_players)],
               "frame": frame(g), "your_turn": (not g.is_terminal()) and g.current_player == self.human,
               "legal": legal_moves(g) if g.current_player == self.human else [],
               "bot_moves": self.bot_moves, "saved_as": self.saved_as, "log": self.log[-40:]}
        if with_map:
            out["map"] = map_svg(g)
        return out

    def record_doc(self) -> dict:
        return {**self.game.record(), "players": self.names, "agents": [
            "human" if p == self.human else self.specs[p] for p in range(self.game.num_players)],
            "human_seat": self.human}

    def save(self, folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"web-{self.id}.json"
        write_record(path, self.game, players=self.names, agents=self.record_doc()["agents"],
                     human_seat=self.human)
        return path


class GameStore:
    """The games in progress, by id (random, unguessable); the least recently used one is dropped
    when ``max_games`` are open."""

    def __init__(self, max_games: int = 500, model_dirs=(), allowed_agents=()):
        self.max_games = max_games
        self.model_dirs = list(model_dirs)
        self.allowed_agents = tuple(allowed_agents)
        self._games: OrderedDict[str, WebGame] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._games)

    def create(self, num_players: int, seat: int, opponents: list[str], seed: int, clan_selection: str | None,
               variants: dict | None = None) -> WebGame:
        if not 1 <= num_players <= 4:
            raise MoveError("players: 1 to 4")
        if not 0 <= seat < num_players:
            raise MoveError(f"seat must be 0..{num_players - 1}")
        others = [p for p in range(num_players) if p != seat]
        if len(opponents) == 1:
            opponents = opponents * len(others)
        if len(opponents) != len(others):
            raise MoveError(f"give one opponent spec for every other seat ({len(others)}) or one for all")
        specs = {p: check_spec(s, self.model_dirs, self.allowed_agents) for p, s in zip(others, opponents)}
        kwargs = dict(num_players=num_players, seed=seed, **(variants or {}))
        from agents import parse_spec
        automa = {p: parse_spec(s)[1].get("level", 3) for p, s in specs.items() if parse_spec(s)[0] == "automa"}
        if automa:                       # the Automa is a seat of the game, played by the engine
            kwargs["automa"] = automa
        if clan_selection:
            kwargs["clan_selection"] = clan_selection
        try:
            config = GameConfig(**kwargs)
        except (ValueError, TypeError) as e:
            raise MoveError(f"bad game settings: {e}") from None
        gid = secrets.token_hex(8)
        try:
            game = WebGame(gid, config, seat, specs)
        except ValueError as e:
            raise MoveError(str(e)) from None
        with self._lock:
            while len(self._games) >= self.max_games:
                self._games.popitem(last=False)
            self._games[gid] = game
        return game

    def get(self, gid: str) -> WebGame:
        with self._lock:
            game = self._games.get(gid)
            if game is None:
                raise MoveError(f"no game {gid!r} on this server (games live while the server runs)", 404)
            self._games.move_to_end(gid)
        game.touched = time.monotonic()
        return game

    def list(self) -> list[dict]:
        with self._lock:
            games = list(self._games.values())
        return [{"id": g.id, "names": g.names, "version": g.version, "round": g.game.round,
                 "over": g.game.is_terminal()} for g in games]
