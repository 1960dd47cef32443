"""``Game``: one Clans of Caledonia game state and its public API.

The state is plain data (lists, ints, small tuples); the rules live in ``rules/`` and are
looked up through the pending decision on top of ``Game.stack``. Every apply validates the
action against the legal set first, so an illegal action raises ``IllegalActionError`` and
leaves the state untouched. The legal list is built on demand (``_legal`` is None until
``legal_actions`` or ``apply`` needs it), so that search and replays, which apply actions they
already know (``apply_unchecked``), do not pay for lists they never read.
"""
from __future__ import annotations

import json
import os
import tempfile
from types import MappingProxyType

from . import actions as A
from . import data as D
from .board import assemble
from .clans import get_clan
from .config import GameConfig
from .modules import RECORDS, hooks_for
from .rng import Rng
from .rules import registry as R
from .rules import contracts, expand, fulfil, market, ports, production, scoring, setup, turn, upgrades  # noqa: F401 (register handlers)
from .rules import industria_ports, stacking  # noqa: F401 (register handlers: Industria Port tiles 10-18)
from .rules import deliveries, milestones, trains  # noqa: F401 (register handlers: Industria Train module)
# the optional modules register their hooks (engine/modules.py) and decision kinds as they load
from .rules import alt_scoring, automa, awards, farmers_markets, refill_board, variable_prices  # noqa: F401
from .rules.production import start_production
from .rules.scoring import final_scores
from .rules.setup import end_of_round, setup_game, start_action_phase
from .rules.turn import next_turn
from .state import (ACTION, DECISION_KINDS, GAME_OVER, K_CLAN, K_HOOK, PHASE_NAMES, PRODUCTION, SETUP,
                    IllegalActionError, PlayerState)
from .topology import topology
from .moves import Move, describe_legal, describe_move

from .saves import SAVE_FORMAT, SAVE_VERSION, SaveError, check_fields, first_difference, parse  # noqa: F401
from .saves import STATE_FIELDS as _STATE_FIELDS
from .invariants import InvariantError, check_invariants
from .rules.automa import shuffle_hidden
from .rules.common import TRAINS, reach
from .train_views import choose_context
from .views import public_state, render_text


_NO_RECORDS = MappingProxyType({})


class Game:
    """A game of Clans of Caledonia (base game), from setup to final scoring.

    >>> g = Game(GameConfig(num_players=2, seed=1))
    >>> while not g.is_terminal():
    ...     g.apply(g.legal_actions()[0])
    >>> [row["total"] for row in g.final_scores()]  # doctest: +SKIP
    """

    __slots__ = ("config", "num_players", "rng", "board", "topo", "clans", "players", "stack", "_legal", "hooks",
                 "_hist", "_hist_len") + _STATE_FIELDS

    def __init__(self, config: GameConfig | None = None, **kwargs):
        if config is None:
            config = GameConfig(**kwargs)
        elif kwargs:
            raise TypeError("pass either a GameConfig or keyword options, not both")
        self.config = config
        self.hooks = hooks_for(config)
        self.num_players = config.num_players
        self.rng = Rng(config.seed)
        self.phase = SETUP
        self.covered = ()
        self.misc = {}
        self.modstate = {}
        self._hist = None
        self._hist_len = 0
        setup_game(self)
        self._advance()

    def __getstate__(self):
        """Pickling (a search sends positions to worker processes): every slot, less what is rebuilt from
        the configuration on arrival (the hooks: bound methods of the modules) or shared read-only (the
        empty record mapping of a game without module records)."""
        state = {name: getattr(self, name) for name in self.__slots__ if hasattr(self, name)}
        state["hooks"] = None
        if state.get("modstate") is _NO_RECORDS:
            state["modstate"] = None
        return state

    def __setstate__(self, state) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        self.hooks = hooks_for(self.config)
        if state.get("modstate", ()) is None:
            self.modstate = _NO_RECORDS

    # ------------------------------------------------------------------------------------------
    # flow
    def _advance(self) -> None:
        """Run the game forward to the next real decision (or the end).

        A frame with nothing legal is popped. Kinds with a registered ``has_legal`` (cheap; see
        ``rules/registry.py``) are asked that and leave ``_legal`` None (the list is built on
        demand by ``_legal_list``); for the others the list is built here and kept."""
        stack = self.stack
        legal_fns = R.LEGAL
        has_legal_fns = R.HAS_LEGAL
        while True:
            if stack:
                frame = stack[-1]
                kind = frame[0]
                if kind == K_HOOK:
                    stack.pop()
                    R.HOOKS[frame[2]](self, frame[1], *frame[3:])
                    continue
                if kind == K_CLAN:
                    legal = self.clans[frame[1]].legal(self, frame)
                else:
                    has_legal = has_legal_fns[kind]
                    if has_legal is not None:
                        if has_legal(self, frame):
                            self._legal = None       # built on demand
                            return
                        stack.pop()
                        continue
                    legal = legal_fns[kind](self, frame)
                if legal:
                    legal.sort()     # documented order; several rules append DONE last
                    self._legal = legal
                    return
                stack.pop()
                continue
            phase = self.phase
            if phase == ACTION:
                if not next_turn(self):
                    start_production(self)
            elif phase == PRODUCTION:
                end_of_round(self)
                if self.phase == GAME_OVER:
                    self._legal = []
                    return
            elif phase == SETUP:
                start_action_phase(self)
            else:
                self._legal = []
                return

    # ------------------------------------------------------------------------------------------
    # the public API
    @property
    def current_player(self) -> int | None:
        """The seat that decides next, or None when the game is over."""
        return self.stack[-1][1] if self.stack else None

    def legal_actions(self) -> list[int]:
        """Legal action indices for the pending decision (a fresh list; sorted)."""
        legal = self._legal
        return list(legal if legal is not None else self._legal_list())

    def _legal_list(self) -> list[int]:
        """The pending decision's sorted legal list, built now if ``_advance`` left it unbuilt
        (kept until the next action; clones share it, so it is never mutated)."""
        legal = self._legal
        if legal is None:
            frame = self.stack[-1]
            if frame[0] == K_CLAN:
                legal = self.clans[frame[1]].legal(self, frame)
            else:
                legal = R.LEGAL[frame[0]](self, frame)
            legal.sort()
            self._legal = legal
        return legal

    def is_terminal(self) -> bool:
        """True once the fifth round's Scoring is done (final scores are then fixed)."""
        return self.phase == GAME_OVER

    def apply(self, action: int) -> None:
        """Resolve the pending decision with ``action`` (an index from ``legal_actions``).

        ``action`` must be an int or a NumPy integer; anything else (bool, float, str, None) is an
        ``IllegalActionError`` naming what was given, as is an index that is not legal now."""
        if type(action) is not int:         # fast path: a plain int; the rest is rare
            action = _action_index(action)
        legal = self._legal
        if action not in (legal if legal is not None else self._legal_list()):
            raise IllegalActionError(self._why_illegal(action))
        frame = self.stack[-1]             # = apply_unchecked(action), inline on this hot path
        if frame[0] == K_CLAN:
            self.clans[frame[1]].apply(self, frame, action)
        else:
            R.APPLY[frame[0]](self, frame, action)
        self._hist = (self._hist, action)
        self._hist_len += 1
        self._advance()

    def apply_unchecked(self, action: int) -> None:
        """``apply`` without the legality check, for a plain int the caller knows is legal now
        (taken from this state's ``legal_actions()``, or replayed along a path already checked):
        search and replays use it so as not to build legal lists they never read. An illegal
        action here is not detected and leaves an inconsistent state; use ``apply`` for input."""
        frame = self.stack[-1]
        if frame[0] == K_CLAN:
            self.clans[frame[1]].apply(self, frame, action)
        else:
            R.APPLY[frame[0]](self, frame, action)
        self._hist = (self._hist, action)
        self._hist_len += 1
        self._advance()

    def _why_illegal(self, action: int) -> str:
        if self.phase == GAME_OVER:
            return "the game is over: no action is legal"
        try:
            name = A.describe(action, self.board.label)
        except ValueError as e:
            return f"illegal action: {e}"
        kind = DECISION_KINDS[self.stack[-1][0]]
        legal_sections = sorted({A.section_of(a)[0] for a in self._legal})
        return (f"{name} (index {action}) is not legal for player {self.current_player} now: the pending "
                f"decision is '{kind}' ({self.decision_text()}); legal sections now: {', '.join(legal_sections)}"
                f" ({len(self._legal)} legal actions; see legal_actions())")

    def clone(self) -> "Game":
        """An independent copy (static data such as the map is shared, never copied)."""
        g = Game.__new__(Game)
        g.config = self.config
        g.hooks = self.hooks
        g.num_players = self.num_players
        g.rng = self.rng.copy()
        g.board = self.board
        g.topo = self.topo
        g.clans = self.clans
        g.players = [p.copy() for p in self.players]
        g.stack = self.stack[:]
        g._legal = self._legal
        g._hist = self._hist
        g._hist_len = self._hist_len
        g.round = self.round
        g.phase = self.phase
        g.prices = self.prices[:]
        g.display = self.display[:]
        g.pile = self.pile[:]
        g.pile_known = self.pile_known
        g.import_track = self.import_track[:]
        g.scoring_tiles = self.scoring_tiles
        g.port_tiles = self.port_tiles
        g.occupant = self.occupant[:]
        g.unit_at = self.unit_at[:]
        g.occupied = self.occupied
        g.turn_order = self.turn_order[:]
        g.pass_order = self.pass_order[:]
        g.turn_idx = self.turn_idx
        g.start_player = self.start_player
        g.turn = self.turn.copy()
        g.tile_pool = self.tile_pool[:]
        g.covered = self.covered
        g.misc = {k: (v[:] if isinstance(v, list) else v) for k, v in self.misc.items()} if self.misc else {}
        # a game without module records shares one read-only empty mapping (records are made in setup)
        g.modstate = {k: v.copy() for k, v in self.modstate.items()} if self.modstate else _NO_RECORDS
        return g

    def determinize(self, seed: int) -> "Game":
        """A copy with the same public state whose hidden information is resampled: the unseen
        part of the contract draw pile is reshuffled and the generator for future chance events
        (solo dice) is reseeded; with Industria's Trains (or Variant B) the Demand pile is reshuffled too.
        Cards returned to the bottom of the pile stay known."""
        g = self.clone()
        rng = Rng(seed)
        unknown = len(g.pile) - g.pile_known
        head = g.pile[:unknown]
        rng.shuffle(head)
        g.pile[:unknown] = head
        if self.config.automa:         # each Automa's draw pile is hidden too
            shuffle_hidden(g, rng)
        ts = g.modstate.get(TRAINS)
        if ts is not None and ts.pile is not None:   # Industria Train module / Variant B: the hidden Demand pile
            rng.shuffle(ts.pile)
        g.rng = Rng(rng.next64())
        return g

    @property
    def history(self) -> list[int]:
        """Every action applied since setup, in order."""
        out = []
        node = self._hist
        while node is not None:
            node, a = node
            out.append(a)
        out.reverse()
        return out

    @classmethod
    def replay(cls, config: GameConfig | dict, actions) -> "Game":
        """Rebuild a game from its configuration (with the seed) and its action record."""
        if isinstance(config, dict):
            config = GameConfig.from_dict(config)
        g = cls(config)
        for i, a in enumerate(actions):
            try:
                g.apply(a)
            except IllegalActionError as e:
                raise IllegalActionError(f"replay failed at action #{i}: {e}") from None
        return g

    def record(self) -> dict:
        """A game record: configuration plus the action list (replays exactly)."""
        return {"config": self.config.to_dict(), "actions": self.history}

    def final_scores(self) -> list[dict]:
        """One score sheet per seat: VP lines, ``total`` (their sum), ``money_left`` and ``rank``.

        Available at any time (it scores the position as if the game ended now)."""
        return final_scores(self)

    def returns(self) -> list[float]:
        """Final VP totals (for search); the game need not be over."""
        return [float(r["total"]) for r in final_scores(self)]

    # ------------------------------------------------------------------------------------------
    # decisions and action names
    @property
    def decision_kind(self) -> str | None:
        """Name of the pending decision kind (``state.DECISION_KINDS``), None when over."""
        return DECISION_KINDS[self.stack[-1][0]] if self.stack else None

    def decision_text(self) -> str:
        """One sentence explaining the pending decision."""
        if not self.stack:
            return "the game is over"
        frame = self.stack[-1]
        if frame[0] == K_CLAN:
            return self.clans[frame[1]].describe(self, frame)
        fn = R.DESCRIBE[frame[0]]
        return fn(self, frame) if fn else DECISION_KINDS[frame[0]]

    def action_to_string(self, action: int) -> str:
        """Human-readable name; ``string_to_action`` maps it back (round trip)."""
        action = int(action)
        name, off = A.section_of(action)            # ValueError for an index outside the table
        s = _index_names(self.board.label)[action]
        if name == "take_contract" and self.display[off] >= 0:
            s += f" (contract {self.display[off]})"
        if name == "choose" and (self.config.trains or self.config.milestones) and self.stack:
            ctx = choose_context(self, off)
            if ctx:
                s += f" ({ctx})"
        if name == "space" and self.unit_at[off] >= 0 and self.occupant[off] >= 0:
            s += f" ({D.UNITS[self.unit_at[off]]} of player {self.occupant[off]})"
        return s

    def describe_move(self, action: int) -> Move:
        """``action`` in the pending decision as a ``moves.Move`` record (family, space, unit, cost, what a
        ``choose:k`` means...): what every presenter shows of a move."""
        return describe_move(self, action)

    def describe_legal(self) -> list[Move]:
        """A ``moves.Move`` for every legal action, in ``legal_actions()`` order."""
        return describe_legal(self)

    def string_to_action(self, text: str) -> int:
        """Parse an action name (as printed by ``action_to_string``, context in brackets ignored)."""
        if not isinstance(text, str):
            raise ValueError(f"an action name is a string such as 'pass', 'done', 'trade:buy:whisky:2', "
                             f"'expand:bakery', 'space:{self.board.label[0]}' or 'choose:0'; got {text!r} "
                             f"of type {type(text).__name__}")
        key = text.strip().split(" (")[0].strip()
        table = _action_names(self.board.label)
        try:
            return table[key]
        except KeyError:
            raise ValueError(f"unknown action name {text!r}; examples: pass, done, trade:buy:whisky:2, "
                             f"expand:bakery, space:{self.board.label[0]}, choose:0") from None

    # ------------------------------------------------------------------------------------------
    # views
    def public_state(self) -> dict:
        """Everything public about the position as JSON-serialisable data (docs/public-state.md)."""
        return public_state(self)

    def render_text(self) -> str:
        """A terminal view: tiles, Market, contracts, player boards, the map and the pending decision."""
        return render_text(self)

    def __str__(self) -> str:
        return self.render_text()

    def __repr__(self) -> str:
        return (f"<Game {self.num_players}p seed={self.config.seed} round={self.round} "
                f"phase={PHASE_NAMES[self.phase]} decision={self.decision_kind} player={self.current_player}>")

    # ------------------------------------------------------------------------------------------
    # saving
    def to_json(self) -> str:
        """The complete state as versioned JSON (``from_json`` reads it back; see there)."""
        state = {k: getattr(self, k) for k in _STATE_FIELDS}
        state["modstate"] = {k: v.to_dict() for k, v in self.modstate.items()}
        doc = {
            "format": SAVE_FORMAT,
            "version": SAVE_VERSION,
            "config": self.config.to_dict(),
            "map_sides": list(self.board.sides),
            "clans": [c.name if c.name != "none" else None for c in self.clans],
            "rng": self.rng.state,
            # reach is a cache (-1: stale) that queries such as observe() fill in: saved as stale,
            # so that the text of a position never depends on what was asked of it
            "players": [{**p.to_dict(), "reach": -1} for p in self.players],
            "stack": [list(f) for f in self.stack],
            "history": self.history,
            "state": state,
        }
        return json.dumps(doc, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> "Game":
        """The game saved by ``to_json``; only a state the rules can reach loads.

        The checks (``clans_env.engine.saves``): JSON only, fields of the right types and ranges,
        the state's invariants (``invariants.check_invariants``), and the ``history``: it is
        replayed from the saved configuration and must reproduce the saved state field by field.
        The history is authoritative: the game returned is the replayed one (derived caches such
        as occupancy bit sets and reach are rebuilt by the rules, never taken from the file), and a
        state that disagrees with its history is refused. Every refusal is a ``ValueError`` that
        names the field. A ``determinize``-d copy is not its seed's game, so it does not load."""
        doc = parse(text)
        config = check_fields(doc)
        crash = _check_restored(cls._restore(doc, config))
        try:
            g = cls.replay(config, doc["history"])
        except IllegalActionError as e:
            raise SaveError(f"saved game history does not replay from its configuration: {e}") from None
        _match_history(g, doc)
        if crash:         # cannot happen for a state equal to a replayed one; refuse it all the same
            raise SaveError(f"saved game state is inconsistent ({crash})")
        return g

    @classmethod
    def _unchecked_from_doc(cls, doc: dict) -> "Game":
        """A game from a save's fields with only the type and range checks: for tests that build
        positions the rules cannot reach by editing a save (never for files). Reach is rebuilt."""
        g = cls._restore(doc, check_fields(doc))
        for pl in g.players:
            pl.reach = -1
        g._advance()
        return g

    @classmethod
    def _restore(cls, doc: dict, config: GameConfig) -> "Game":
        """The state in a save (checked by ``saves.check_fields``) as it stands, unreplayed; used
        to check its invariants. The cached reach sets are kept, so the check compares them."""
        g = cls.__new__(cls)
        g.config = config
        g.hooks = hooks_for(config)
        g.num_players = config.num_players
        g.rng = Rng(0)
        g.rng.state = doc["rng"]
        try:
            g.board = assemble(tuple(doc["map_sides"]))
        except ValueError as e:
            raise ValueError(f"saved game field map_sides: {e}") from None
        g.topo = topology(g.board, g.num_players)
        g.clans = tuple(get_clan(c) for c in doc["clans"])
        g.players = [PlayerState.from_dict(d) for d in doc["players"]]
        for p in g.players:
            p.units_total = tuple(p.units_total)
        g.stack = [_tuplify(f) for f in doc["stack"]]
        st = doc["state"]
        for k in _STATE_FIELDS:
            setattr(g, k, st[k])
        g.scoring_tiles = tuple(g.scoring_tiles)
        g.port_tiles = tuple(g.port_tiles)
        g.covered = tuple(g.covered)
        try:
            g.modstate = {k: RECORDS[k].from_dict(v) for k, v in g.modstate.items()}
        except (KeyError, IndexError, TypeError, ValueError) as e:
            raise SaveError(f"saved game field state.modstate is not a module state: {type(e).__name__} {e}") from None
        g._hist = None
        g._hist_len = 0
        for a in doc["history"]:
            g._hist = (g._hist, a)
            g._hist_len += 1
        if len(g.players) != g.num_players or len(g.occupant) != g.board.num_spaces:
            raise ValueError("saved game: player or space count does not match the configuration")
        g._legal = []
        return g

    def save(self, path) -> None:
        """Write ``to_json`` atomically (temporary file + rename)."""
        atomic_write_text(path, self.to_json())

    @classmethod
    def load(cls, path) -> "Game":
        """Read a file written by ``save`` (``from_json``'s checks; ``OSError`` if unreadable)."""
        with open(path, "rb") as fh:
            return cls.from_json(fh.read())


def _action_index(action) -> int:
    """An action given as an int subclass or a NumPy integer, as a plain int; anything else
    (bool, float, str, None, objects with ``__int__``) is an ``IllegalActionError``."""
    cls = type(action)
    if isinstance(action, int) and cls is not bool:
        return int(action)
    # NumPy integer scalars, recognised without importing NumPy (np.bool_ is no np.integer)
    if any(c.__name__ == "integer" and c.__module__ == "numpy" for c in cls.__mro__):
        return int(action)
    raise IllegalActionError(f"an action is an int index from legal_actions() (or a NumPy integer); got "
                             f"{action!r} of type {cls.__name__}")


def _check_restored(g: "Game") -> str | None:
    """Step 3 of loading: the saved state, as it stands, keeps every invariant of the rules
    (``SaveError`` naming the broken rule). A state odd enough to crash the checker (a string where
    a contract id belongs, say) is left to the history comparison, which names the field; the
    crash is returned so that the load is refused even so."""
    try:
        check_invariants(g)
    except InvariantError as e:
        raise SaveError(f"saved game state breaks a rule of the game: {e}") from None
    except (IndexError, KeyError, TypeError, AttributeError, ValueError) as e:
        return f"{type(e).__name__} while checking its invariants: {e}"
    return None


def _match_history(g: "Game", doc: dict) -> None:
    """Step 4 of loading: ``g`` (replayed from the history) must equal the saved state. A saved
    reach cache is -1 (stale; what ``to_json`` writes) or, in saves of older versions, the fresh
    reach; ``g`` takes a verified one."""
    mine = json.loads(g.to_json())
    for d, m in zip(doc["players"], mine["players"]):
        m["reach"] = d["reach"]       # a cache: compared with the fresh reach below
    for key in ("map_sides", "clans", "rng", "players", "stack", "history", "state"):
        diff = first_difference(doc[key], mine[key], key)
        if diff:
            path, saved, replayed = diff
            raise SaveError(
                f"saved game state does not match its history: {path.lstrip('.')} is {_short(saved)} in the file "
                f"but {_short(replayed)} after replaying the {len(doc['history'])} saved actions from the saved "
                f"configuration (the history is authoritative: was the file edited?)")
    for p, (pl, d) in enumerate(zip(g.players, doc["players"])):
        pl.reach = -1
        if d["reach"] != -1:
            if reach(g, p) != d["reach"]:
                raise SaveError(f"saved game field players[{p}].reach is a forged cache: it differs from the "
                                f"reach the rules compute for player {p}")
            pl.reach = d["reach"]


def _short(v) -> str:
    r = repr(v)
    return r if len(r) <= 60 else r[:57] + "..."


def _tuplify(x):
    if isinstance(x, list):
        return tuple(_tuplify(v) for v in x)
    return x


_NAME_CACHE: dict = {}
_INDEX_NAMES: dict = {}


def _index_names(labels) -> tuple[str, ...]:
    """The context-free name of every index on a map (``actions.describe``), built once per map: the
    names the environments print come from ``Game.action_to_string`` alone."""
    key = id(labels)
    names = _INDEX_NAMES.get(key)
    if names is None:
        names = _INDEX_NAMES[key] = tuple(A.describe(a, labels) for a in range(A.NUM_ACTIONS))
    return names


def _action_names(labels) -> dict:
    key = id(labels)
    table = _NAME_CACHE.get(key)
    if table is None:
        table = {A.describe(a, labels): a for a in range(A.NUM_ACTIONS)}
        table.update({f"space:{s}": A.SPACE + s for s in range(A.NUM_SPACES)})
        _NAME_CACHE[key] = table
    return table


def atomic_write(path, write, binary: bool = False) -> None:
    """Write a file atomically: ``write(fh)`` fills a temporary file in the same folder, which is
    flushed, fsynced and renamed over ``path``; a crash leaves the old file or the new one, never
    a torn one. Missing parent folders are created."""
    path = os.fspath(path)
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-", suffix=os.path.basename(path))
    try:
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"})) as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)      # mkstemp creates 0600; give the file the usual mode
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def atomic_write_text(path, text: str) -> None:
    atomic_write(path, lambda fh: fh.write(text))
