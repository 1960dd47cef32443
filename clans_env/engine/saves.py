"""Checks for saved games (``Game.from_json`` / ``Game.load``): only states the rules can reach load.

A save is checked in four steps, each rejecting with a ``ValueError`` that names the field:

1. parsing: JSON only (no ``NaN`` / ``Infinity``, no nesting deeper than any save has), an object
   with the format marker and the version this engine reads;
2. types and ranges: every field has the type and the size it has in a save this engine wrote
   (ints are ints, never bools or floats; lists have the right length; indices are in range);
3. invariants: the state, restored as it stands, passes ``invariants.check_invariants`` (money and
   goods never negative, units only where they may stand, every contract in exactly one place, the
   occupancy bit sets and any cached reach equal to fresh ones, ...);
4. history: the saved ``history`` is replayed from the saved configuration (the seed fixes every
   chance event) and the replayed game must equal the saved state field by field. **The history
   wins**: the game returned is the replayed one, so derived caches are rebuilt by the rules, not
   read from the file; a state that disagrees with its history is refused, naming the first field
   that differs.

This module holds steps 1 and 2 and the field comparison; ``Game.from_json`` runs them in order.
"""
from __future__ import annotations

import json

from . import data as D
from .actions import MAX_OPEN_CONTRACTS, NUM_ACTIONS, NUM_CHOICES, NUM_PORT_SLOTS
from .board import SIDE_NAMES
from .config import GameConfig
from .state import DECISION_KINDS, PHASE_NAMES, PlayerState
from .clans import CLANS
from .modules import MODULE_ORDER, MODULES, RECORDS

SAVE_FORMAT = "clans-of-caledonia-state"
#: 2: Industria (config fields of the modules; their state in ``misc``: markets, refill board, Award,
#: second units); version 1 files (base game) load unchanged
#: 3: the Train module and the Milestone variants (config ``trains`` / ``milestones``; ``misc`` ``tr_*``); a
#: version 2 file predates them, so it loads with ``trains=False`` (``industria=True`` there meant part 1)
#: 4: a module's state is a record in ``state.modstate`` (the Automa's); a version 3 file's ``misc`` keys of
#: the Automa (``automa<p>``, ``automa<p>_pile``, ..., ``automa_log``) load into it (``upgrade``); so do the
#: ``misc`` keys of the state that became a record later (every Industria module, second units, the solo
#: dice, the clan offer: ``modules.RECORDS``): a version 4 file written before has those keys in ``misc``
#: and no record, a current one the record and no key
SAVE_VERSION = 4
INDUSTRIA_FIELDS = ("industria", "farmers_markets", "awards", "refill_board", "industria_tiles", "variable_prices",
                    "alt_two_player_scoring")
READABLE_VERSIONS = (1, 2, 3, 4)

#: the top-level fields of a save, in the order ``to_json`` writes them
DOC_FIELDS = ("format", "version", "config", "map_sides", "clans", "rng", "players", "stack", "history", "state")
STATE_FIELDS = ("round", "phase", "prices", "display", "pile", "pile_known", "import_track", "scoring_tiles",
                "port_tiles", "occupant", "unit_at", "occupied", "turn_order", "pass_order", "turn_idx",
                "start_player", "turn", "tile_pool", "covered", "misc", "modstate")

#: generous upper bound for counters (money, goods, Glory, ...): far beyond any real game
BIG = 10_000
#: the longest history accepted (a real game has a few hundred decisions)
MAX_HISTORY = 100_000
#: deepest nesting of plain values inside a decision frame, ``extra``, ``turn`` or ``misc``
MAX_DEPTH = 4

_CONTRACT_IDS = frozenset(c.id for c in D.CONTRACTS)
_SCORING_TILES = frozenset(D.SCORING_TILES_BASE + D.SCORING_TILES_KICKSTARTER + D.SCORING_TILES_INDUSTRIA)
_PORT_TILES = frozenset(D.PORT_TILES_BASE + D.PORT_TILES_KICKSTARTER + D.PORT_TILES_INDUSTRIA)


class SaveError(ValueError):
    """A saved game that is not one the rules can reach (a ``ValueError``)."""


def _short(v) -> str:
    r = repr(v)
    return r if len(r) <= 80 else r[:77] + "..."


def _bad(path: str, what: str, v) -> SaveError:
    return SaveError(f"saved game field {path} must be {what}; got {_short(v)} ({type(v).__name__})")


# ---- step 1: parsing ---------------------------------------------------------------------------
def parse(text, what: str = "a saved Clans of Caledonia game") -> object:
    """The JSON value in ``text``; ``ValueError`` (``not <what> (...)``) for invalid JSON, for
    ``NaN``/``Infinity`` and for nesting too deep to be a save (never ``RecursionError``)."""
    def no_constant(name):
        raise SaveError(f"not {what} (invalid JSON: {name} is not a number JSON allows)")

    if isinstance(text, (bytes, bytearray)):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as e:
            raise SaveError(f"not {what} (not UTF-8 text: {e})") from None
    if not isinstance(text, str):
        raise SaveError(f"{what} is JSON text (str); got {type(text).__name__}")
    try:
        return json.loads(text, parse_constant=no_constant)
    except SaveError:
        raise
    except RecursionError:
        raise SaveError(f"not {what} (invalid JSON: nested too deeply)") from None
    except ValueError as e:           # JSONDecodeError, and ints beyond Python's digit limit
        raise SaveError(f"not {what} (invalid JSON: {e})") from None


# ---- step 2: types and ranges ------------------------------------------------------------------
def _int(v, path: str, lo: int, hi: int) -> int:
    if type(v) is not int:
        raise _bad(path, f"an int from {lo} to {hi}", v)
    if not lo <= v <= hi:
        raise _bad(path, f"an int from {lo} to {hi}", v)
    return v


def _bool(v, path: str) -> bool:
    if type(v) is not bool:
        raise _bad(path, "true or false", v)
    return v


def _list(v, path: str, length: int | None = None, max_len: int | None = None) -> list:
    if type(v) is not list:
        raise _bad(path, "a list" + (f" of {length} entries" if length is not None else ""), v)
    if length is not None and len(v) != length:
        raise _bad(path, f"a list of {length} entries (not {len(v)})", v)
    if max_len is not None and len(v) > max_len:
        raise _bad(path, f"a list of at most {max_len} entries (not {len(v)})", v)
    return v


def _ints(v, path: str, lo: int, hi: int, length: int | None = None, max_len: int | None = None) -> list:
    for i, x in enumerate(_list(v, path, length, max_len)):
        _int(x, f"{path}[{i}]", lo, hi)
    return v


def _ids(v, path: str, valid, what: str, max_len: int, allow_empty: bool = False) -> list:
    for i, x in enumerate(_list(v, path, max_len=max_len)):
        if type(x) is not int or (x not in valid and not (allow_empty and x == -1)):
            raise _bad(f"{path}[{i}]", what, x)
    return v


def _fields(v, path: str, names) -> dict:
    if type(v) is not dict:
        raise _bad(path, "an object", v)
    missing = [k for k in names if k not in v]
    if missing:
        raise SaveError(f"saved game field {path} is missing {', '.join(missing)}")
    extra = sorted(str(k) for k in v if k not in names)
    if extra:
        raise SaveError(f"saved game field {path} has unknown entries {extra}; valid: {list(names)}")
    return v


def _plain(v, path: str, depth: int = 0) -> None:
    """Small JSON values as the rules keep them: ints, strings, bools, None and short lists."""
    if v is None or type(v) in (int, str, bool):
        return
    if type(v) is list:
        if depth >= MAX_DEPTH:
            raise _bad(path, f"a value nested at most {MAX_DEPTH} lists deep", v)
        if len(v) > 256:
            raise _bad(path, "a list of at most 256 entries", v)
        for i, x in enumerate(v):
            _plain(x, f"{path}[{i}]", depth + 1)
        return
    raise _bad(path, "an int, a string, true/false, null or a list of those", v)


def _plain_dict(v, path: str) -> None:
    if type(v) is not dict:
        raise _bad(path, "an object", v)
    if len(v) > 64:
        raise _bad(path, "an object of at most 64 entries", v)
    for k, x in v.items():
        _plain(x, f"{path}.{k}")


def check_fields(doc) -> GameConfig:
    """Step 2: every field's type and range (``SaveError`` naming the field); returns the config."""
    if not isinstance(doc, dict) or doc.get("format") != SAVE_FORMAT:
        raise SaveError("not a saved Clans of Caledonia game (missing format marker)")
    if doc.get("version") not in READABLE_VERSIONS or type(doc.get("version")) is not int:
        raise SaveError(f"saved game has format version {doc.get('version')!r}; this engine reads versions "
                        f"{list(READABLE_VERSIONS)}")
    if doc["version"] == 1 and any(k in (doc.get("config") or {}) for k in INDUSTRIA_FIELDS):
        raise SaveError("a version 1 save cannot hold Industria modules (they came with version 2)")
    missing = [k for k in DOC_FIELDS if k not in doc]
    if missing:
        raise SaveError(f"saved game is missing the field(s) {', '.join(missing)}")
    extra = sorted(str(k) for k in doc if k not in DOC_FIELDS)
    if extra:
        raise SaveError(f"saved game has unknown field(s) {extra}; a save has {list(DOC_FIELDS)}")
    upgrade(doc)
    if doc["version"] == 2 and isinstance(doc.get("config"), dict):
        if "trains" in doc["config"] or "milestones" in doc["config"]:
            raise SaveError("a version 2 save cannot hold the Train module or Milestones (they came with version 3)")
        if doc["config"].get("industria"):
            doc["config"] = {**doc["config"], "trains": False}
    try:
        config = GameConfig.from_dict(doc["config"])
    except (ValueError, TypeError) as e:
        raise SaveError(f"saved game field config is not a valid GameConfig: {e}") from None
    n = config.num_players
    sides = _list(doc["map_sides"], "map_sides", 4)
    for i, s in enumerate(sides):
        if type(s) is not str or s not in SIDE_NAMES or s[0] != "ABCD"[i]:
            raise _bad(f"map_sides[{i}]", f"the side of module {'ABCD'[i]} ({'ABCD'[i]}1 or {'ABCD'[i]}2)", s)
    for i, c in enumerate(_list(doc["clans"], "clans", n)):
        if c is not None and (type(c) is not str or c not in CLANS):
            raise _bad(f"clans[{i}]", f"null or one of {sorted(CLANS)}", c)
    _int(doc["rng"], "rng", 0, (1 << 64) - 1)
    S = 128        # every map has 128 spaces (board.py); the comparison with the replay checks the rest
    for p, d in enumerate(_list(doc["players"], "players", n)):
        _check_player(d, f"players[{p}]", S)
    for i, frame in enumerate(_list(doc["stack"], "stack", max_len=256)):
        path = f"stack[{i}]"
        if type(frame) is not list or len(frame) < 2:
            raise _bad(path, "a decision frame [kind, player, ...]", frame)
        _int(frame[0], f"{path}[0]", 0, len(DECISION_KINDS) - 1)
        _int(frame[1], f"{path}[1]", 0, n - 1)
        for j, x in enumerate(frame[2:], 2):
            _plain(x, f"{path}[{j}]", 1)
    _ints(doc["history"], "history", 0, NUM_ACTIONS - 1, max_len=MAX_HISTORY)
    st = _fields(doc["state"], "state", STATE_FIELDS)
    _int(st["round"], "state.round", 1, D.NUM_ROUNDS)
    _int(st["phase"], "state.phase", 0, len(PHASE_NAMES) - 1)
    _ints(st["prices"], "state.prices", 0, D.MAX_STEP, D.NUM_GOODS)
    _ids(st["display"], "state.display", _CONTRACT_IDS, "-1 or a contract id (1-50)", D.MAX_CONTRACT_BOXES,
         allow_empty=True)
    _list(st["display"], "state.display", D.MAX_CONTRACT_BOXES)
    _ids(st["pile"], "state.pile", _CONTRACT_IDS, "a contract id", len(_CONTRACT_IDS))
    _int(st["pile_known"], "state.pile_known", 0, len(st["pile"]))
    _ints(st["import_track"], "state.import_track", 0, len(_CONTRACT_IDS), D.NUM_IMPORTS)
    _ids(st["scoring_tiles"], "state.scoring_tiles", _SCORING_TILES, f"a Scoring tile {sorted(_SCORING_TILES)}",
         D.SCORING_TILES_PER_GAME)
    _ids(st["port_tiles"], "state.port_tiles", _PORT_TILES, f"a Port tile {sorted(_PORT_TILES)}", NUM_PORT_SLOTS)
    _ints(st["occupant"], "state.occupant", -3, n - 1, S)    # -3 Farmers market, -2 blocked, -1 empty
    _ints(st["unit_at"], "state.unit_at", -1, D.NUM_UNITS - 1, S)
    _int(st["occupied"], "state.occupied", 0, (1 << S) - 1)
    _ints(st["turn_order"], "state.turn_order", 0, n - 1, max_len=n)
    _ints(st["pass_order"], "state.pass_order", 0, n - 1, max_len=n)
    _int(st["turn_idx"], "state.turn_idx", -1, n)
    _int(st["start_player"], "state.start_player", 0, n - 1)
    _plain_dict(st["turn"], "state.turn")
    _ints(st["tile_pool"], "state.tile_pool", 0, len(D.STARTING_TILES) - 1, max_len=len(D.STARTING_TILES))
    _ints(st["covered"], "state.covered", 0, S - 1, max_len=S)
    _plain_dict(st["misc"], "state.misc")
    if type(st["modstate"]) is not dict:
        raise _bad("state.modstate", "an object (module name -> its state)", st["modstate"])
    for name, record in st["modstate"].items():
        if name not in RECORDS or (name in MODULES and name not in config.modules):
            raise _bad(f"state.modstate.{name}", "the state of a module of this game with a record", name)
        _plain_dict(record, f"state.modstate.{name}")
    return config


def upgrade(doc: dict) -> None:
    """A save whose modules kept their state in ``misc`` keys (version 3; version 4 before a module's state
    became a record) in the current layout: those keys become the records' ``to_dict`` in
    ``state.modstate``. A module whose record is already there is left alone, so the current files (no such
    ``misc`` key) read unambiguously. Malformed documents are left to the field checks."""
    st = doc.get("state")
    if not isinstance(doc.get("version"), int) or doc["version"] > 4 or not isinstance(st, dict) \
            or not isinstance(st.get("misc"), dict) or not isinstance(st.get("modstate", {}), dict):
        return
    misc = dict(st["misc"])
    records = dict(st.get("modstate", {}))
    for name in [n for n in MODULE_ORDER if n in RECORDS] + [n for n in RECORDS if n not in MODULE_ORDER]:
        if name not in records:
            old = RECORDS[name].from_misc(misc)
            if old is not None:
                records[name] = old
    doc["state"] = {**st, "misc": misc, "modstate": records}


def _check_player(d, path: str, S: int) -> None:
    _fields(d, path, PlayerState.__slots__)
    _int(d["money"], f"{path}.money", 0, BIG)
    _ints(d["goods"], f"{path}.goods", 0, BIG, D.NUM_GOODS)
    units = sum(D.UNITS_PER_PLAYER)
    _ints(d["units_total"], f"{path}.units_total", 0, units, D.NUM_UNITS)
    _ints(d["units_left"], f"{path}.units_left", 0, units, D.NUM_UNITS)
    for u in range(D.NUM_UNITS):
        if d["units_left"][u] > d["units_total"][u]:
            raise _bad(f"{path}.units_left[{u}]", f"at most units_total[{u}] = {d['units_total'][u]}",
                       d["units_left"][u])
    _int(d["spaces"], f"{path}.spaces", 0, (1 << S) - 1)
    _int(d["shipping"], f"{path}.shipping", 0, D.MAX_SHIPPING)
    for i, x in enumerate(_list(d["tech"], f"{path}.tech", 2)):
        _bool(x, f"{path}.tech[{i}]")
    merchants = 2 * D.MERCHANTS_TOTAL
    _int(d["merchants_board"], f"{path}.merchants_board", 0, merchants)
    _int(d["merchants_stock"], f"{path}.merchants_stock", 0, merchants)
    _ints(d["merchants_market"], f"{path}.merchants_market", 0, merchants, D.NUM_GOODS * 2)
    _ids(d["open_contracts"], f"{path}.open_contracts", _CONTRACT_IDS, "a contract id", MAX_OPEN_CONTRACTS)
    _ids(d["done_contracts"], f"{path}.done_contracts", _CONTRACT_IDS, "a contract id", len(_CONTRACT_IDS))
    _ints(d["imports"], f"{path}.imports", 0, len(_CONTRACT_IDS), D.NUM_IMPORTS)
    _int(d["hops"], f"{path}.hops", 0, BIG)
    _int(d["meat"], f"{path}.meat", 0, BIG)
    _int(d["glory"], f"{path}.glory", 0, BIG)
    _bool(d["passed"], f"{path}.passed")
    _int(d["ports_used"], f"{path}.ports_used", 0, (1 << NUM_PORT_SLOTS) - 1)
    if d["clan"] is not None and (type(d["clan"]) is not str or d["clan"] not in CLANS):
        raise _bad(f"{path}.clan", f"null or one of {sorted(CLANS)}", d["clan"])
    _int(d["start_tile"], f"{path}.start_tile", 0, max(t.id for t in D.STARTING_TILES))   # 0: none yet
    _int(d["reach"], f"{path}.reach", -1, (1 << S) - 1)
    _int(d["vp_bid"], f"{path}.vp_bid", 0, NUM_CHOICES - 1)
    _plain_dict(d["extra"], f"{path}.extra")


# ---- step 4: the comparison with the replayed game ---------------------------------------------
def first_difference(saved, replayed, path: str = ""):
    """The path of the first field where ``saved`` and ``replayed`` differ (types compared too:
    ``1``, ``1.0`` and ``true`` differ), with both values; None when they are equal."""
    if type(saved) is not type(replayed):
        return path, saved, replayed
    if isinstance(replayed, dict):
        for k in replayed:
            if k not in saved:
                return f"{path}.{k}".lstrip("."), "(missing)", replayed[k]
            d = first_difference(saved[k], replayed[k], f"{path}.{k}")
            if d:
                return d
        for k in saved:
            if k not in replayed:
                return f"{path}.{k}".lstrip("."), saved[k], "(no such field)"
        return None
    if isinstance(replayed, list):
        for i, (a, b) in enumerate(zip(saved, replayed)):
            d = first_difference(a, b, f"{path}[{i}]")
            if d:
                return d
        if len(saved) != len(replayed):
            return f"{path} (length)", len(saved), len(replayed)
        return None
    return None if saved == replayed else (path.lstrip("."), saved, replayed)
