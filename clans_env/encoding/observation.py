"""The observation vector: everything public about a game, seen from one seat, as float32.

``ObservationEncoder(num_players).layout`` lists named slices, each with bounds that every value
in it stays within (values that can grow without limit, such as money, are scaled and clipped at
the documented upper bound). Player-specific slices are relative to the observer: ``me`` first,
then ``opp1``, ``opp2``, ... = seats ``(seat + 1) % n``, ``(seat + 2) % n``, ... so one policy can
play any seat.

The vector is four segments, in this order:

1. ``map.*``: planes of 128 values, one per space id (``clans_env.engine.board``): static land
   facts, empty / covered spaces, the space named by the pending decision, each player's units and
   reach, the unit type on each space.
   ``vector[:encoder.num_map_planes * 128].reshape(-1, 128)`` is a feature-major map for
   convolutional or graph encoders.
2. global: round, phase, market, import track, Scoring and Port tiles, Starting tile offers and
   the contracts on display.
3. one block per player (``me.*``, ``opp1.*``, ...): the player board, open contracts, clan.
4. ``decision.*``: the pending decision kind, who decides and its context.

Speed: most of the state is unchanged from one decision to the next, so the encoder keeps one
float32 vector per seat and rewrites only the parts whose inputs changed since that vector was last
written. Each call reads the inputs afresh (every player's fields in one ``attrgetter`` call each,
the market and tracks, the unit list, the decision frame) and compares them, at C speed, with
copies of the inputs last seen, so any change is seen, an edit made in place between calls too.
The parts that do not depend on the observer (a player's scaled numbers and its unit and reach
planes, the shared map planes, the unit type planes, the global numbers) are kept once per engine
seat and updated element by element (only the fields, bits and spaces that changed) in
``array.array`` stores; one-hot parts and the decision context are memoised on their inputs. A
seat's vector copies in the parts whose version changed and the caller gets a copy of it. All of
this is kept per game object (a "tracker"), so one encoder serves a batch of games encoded in turn
(``max_games`` of them) as fast as a single game; fresh objects (new games, clones in a search)
share a scratch tracker holding the position encoded just before. The values are bit-identical to
the first, memoise-and-concatenate implementation (pinned by ``tests/test_encoding_equivalence.py``).
Pure numpy; imports only the engine.

Compiled path: where the optional C extension ``_fastobs`` was built at install time (``pip install``
builds it when a C compiler is present; ``ACCELERATED`` tells), ``encode`` writes the whole vector
from scratch in C instead, from the same layout numbers (``_fast_spec``) and with the same
arithmetic, about ten times faster. The Python path above is the reference: both are checked
bit-identical over random games (``tests/test_fast_encoder.py``); ``ObservationEncoder(n,
accelerated=False)`` selects it.
"""
from __future__ import annotations

import itertools
from array import array
from itertools import compress
from functools import reduce
from operator import attrgetter, ne, or_
from collections import OrderedDict
from typing import NamedTuple

import numpy as np

from ..engine import data as D
from ..engine.actions import NUM_SPACES
from ..engine.board import KIND_LAND, KIND_LOCH, KIND_PORT, LAND_FOREST, LAND_GRASS, LAND_MOUNTAIN
from ..engine.rules.common import reach as player_reach, second_units
from ..engine.rules.scoring import import_values
from ..engine.rules.awards import award_tile
from ..engine.rules.farmers_markets import dealt_tiles, market_list
from ..engine.rules.refill_board import board as refill_board
from ..engine.config import INDUSTRIA_MODULES
from ..engine.state import (DECISION_KINDS, K_BONUS_MENU, K_MARKET_SELL, NUM_BASE_DECISION_KINDS, K_BONUS_ORDER, K_BUILDING_BONUS, K_EXCHANGE_FROM, K_EXCHANGE_TO,
                            K_NEIGHBOURHOOD, K_PLACE, K_PORT_DISCARD, K_PORT_GAIN, K_PROCESS, K_SLAUGHTER,
                            PHASE_NAMES, SETUP, PlayerState)

from ..engine.clans.base import NUM_STATE_FEATURES

try:
    from . import _fastobs
except ImportError:  # pragma: no cover - built where a C compiler was available at install time
    _fastobs = None

#: True where the compiled encoder is available (``ObservationEncoder`` then uses it by default)
ACCELERATED = _fastobs is not None

#: the clans of the base game and the Kickstarter promo, sorted; the clan one-hot reserves one
#: slot per name (after "none") so the vector length does not depend on which clans are loaded
CLAN_NAMES: tuple[str, ...] = tuple(sorted(("buchanan", "campbell", "cunningham", "fergusson", "macdonald",
                                            "mackenzie", "robertson", "stewart", "macewen")))
#: the Industria clans have slot 0 of that one-hot (a base observation never changes); their identity
#: and state are in the ``industria.clan`` and ``industria.clan_state`` segment
_CLAN_SLOT = {None: 0, "none": 0, **{name: i + 1 for i, name in enumerate(CLAN_NAMES)},
              **{name: 0 for name in D.CLANS_INDUSTRIA}}
INDUSTRIA_CLAN_NAMES: tuple[str, ...] = tuple(D.CLANS_INDUSTRIA)

NUM_PLACE_MODES = 4                                   # state.PLACE_FIRST .. PLACE_CLAN
MAX_DRAWN_CONTRACTS = 2 * D.BUILDING_BONUS_DRAW        # Clan Buchanan draws twice as many
MAX_TILE_OFFERS = 5                                   # Without Clans: n + 1 Starting tiles
NUM_DECISION_INTS = 4
NUM_CLAN_STATE = 4
NUM_TILE_KINDS = 9                                    # Port and Scoring tiles are numbered 1..9
NUM_PORT_SLOTS = 4
NUM_STATIC_PLANES = 11

# ---- contract features -------------------------------------------------------------------------
#: (name, scale): the feature is value / scale; every contract's value lies within [0, scale]
CONTRACT_FEATURES: tuple[tuple[str, float], ...] = (
    ("present", 1.0),
    *((f"need_{g}", 6.0) for g in D.GOODS),
    ("need_beef", 4.0), ("need_mutton", 4.0),
    *((f"gain_{imp}", 4.0) for imp in D.IMPORTS),
    ("gain_hops", 10.0), ("gain_money", 15.0), ("free_space", 1.0), ("bonus_upgrade", 2.0),
)
CONTRACT_WIDTH = len(CONTRACT_FEATURES)


def _contract_table() -> np.ndarray:
    """Row ``id + 1`` holds contract ``id``'s features; row 0 (id -1, an empty box) is all zeros."""
    table = np.zeros((max(c.id for c in D.CONTRACTS) + 2, CONTRACT_WIDTH), np.float32)
    scale = np.array([s for _, s in CONTRACT_FEATURES], np.float32)
    for c in D.CONTRACTS:
        raw = [1, *c.goods, c.beef, c.mutton, *c.imports, c.hops, c.money, c.free_space, c.bonus_upgrade]
        table[c.id + 1] = np.asarray(raw, np.float32) / scale
    if table.max() > 1.0:  # pragma: no cover - guards the documented bounds against new card data
        raise ValueError("a contract value exceeds its documented feature scale; update CONTRACT_FEATURES")
    return table


CONTRACT_TABLE = _contract_table()

#: Starting tile offers: present, money / 100, goods / 3
TILE_OFFER_WIDTH = 2 + D.NUM_GOODS
_TILE_TABLE = np.zeros((len(D.STARTING_TILES) + 1, TILE_OFFER_WIDTH), np.float32)
for _i, _t in enumerate(D.STARTING_TILES):
    _TILE_TABLE[_i + 1] = [1.0, _t.money / 100.0, *(q / 3.0 for q in _t.goods)]

_PRICE = D.PRICES
_UNIT_TYPES = np.arange(D.NUM_UNITS)[:, None]
#: a bit-set plane with more changed bits than this is rewritten whole (one unpack) rather than bit by bit
_FEW_BITS = 16
_versions = itertools.count(1)
_ZEROS = [0] * 8
#: memo tables are cleared when they reach this many entries (they serve nearby positions)
_MEMO_LIMIT = 1024
#: the inputs of a part that has not been written yet (equal to nothing)
_UNSET = object()


_VALUE, _LIST, _COUNT, _CLAN = range(4)
#: the PlayerState fields behind a player's scaled numbers: (field, slice, offset in the slice, read as)
_PLAYER_NUMBERS = (
    ("money", "money", 0, _VALUE),
    ("goods", "goods", 0, _LIST),
    ("units_left", "units_left", 0, _LIST),
    ("tech", "tech", 0, _LIST),
    ("merchants_board", "merchants", 0, _VALUE),
    ("merchants_stock", "merchants", 1, _VALUE),
    ("merchants_market", "merchants_market", 0, _LIST),
    ("done_contracts", "progress", 0, _COUNT),
    ("hops", "progress", 1, _VALUE),
    ("meat", "progress", 2, _VALUE),
    ("imports", "progress", 3, _LIST),
    ("glory", "glory", 0, _VALUE),
    ("passed", "passed", 0, _VALUE),
    ("open_contracts", "open_count", 0, _COUNT),
    ("vp_bid", "auction_bid", 0, _VALUE),
    ("extra", "clan_state", 0, _CLAN),
)
#: the state fields each part depends on, read in one call; a part is rebuilt only when they differ
#: from the snapshot its current contents were written from
_PLAYER_FIELDS = attrgetter(*(field for field, *_ in _PLAYER_NUMBERS), "shipping", "ports_used", "clan",
                            "spaces", "reach")
_REACH_OF = attrgetter("reach")
_SEEN_OF = attrgetter("seen")
_SPACES_OF = attrgetter("spaces")
_ALL_PLAYER_FIELDS = tuple(range(len(_PLAYER_NUMBERS) + 5))
_SHIPPING, _PORTS_USED, _CLAN_NAME, _SPACES, _REACH = range(len(_PLAYER_NUMBERS), len(_PLAYER_NUMBERS) + 5)
_OPEN_CONTRACTS = next(j for j, (field, *_) in enumerate(_PLAYER_NUMBERS) if field == "open_contracts")
#: fields behind a player's one-hots and open contracts (with the turn order and the Port tiles)
_FLAG_FIELDS = frozenset((_SHIPPING, _PORTS_USED, _CLAN_NAME, _REACH, _OPEN_CONTRACTS))
_PLAYER_LISTS = tuple(j for j, (_, _, _, kind) in enumerate(_PLAYER_NUMBERS) if kind in (_LIST, _COUNT))
_PLAYER_EXTRA = next(j for j, (_, _, _, kind) in enumerate(_PLAYER_NUMBERS) if kind == _CLAN)
_GLOBAL_FIELDS = attrgetter("prices", "import_track", "turn", "config")


def _clan_state(extra: dict) -> list:
    """PlayerState.extra as NUM_CLAN_STATE numbers: values in key order, lists flattened, zero-padded."""
    if not extra:
        return _ZEROS[:NUM_CLAN_STATE]
    values = []
    for _, v in sorted(extra.items()):
        if isinstance(v, (list, tuple)):
            values.extend(x for x in v if isinstance(x, (int, float)))
        elif isinstance(v, (int, float)):
            values.append(v)
    values = values[:NUM_CLAN_STATE]
    return values + _ZEROS[:NUM_CLAN_STATE - len(values)]


def _player_snapshot(fields: tuple, seen: tuple | None = None, changed=()) -> tuple:
    """``_snapshot`` for ``_PLAYER_FIELDS``: from scratch, or ``seen`` with the ``changed`` fields
    replaced (copies of the lists and of the clan's dict)."""
    if seen is None:
        out = list(fields)
        for j in _PLAYER_LISTS:
            out[j] = out[j][:]
        changed = (_PLAYER_EXTRA,)
    else:
        out = list(seen)
    for j in changed:
        v = fields[j]
        t = type(v)
        out[j] = v[:] if t is list else {k: (x[:] if type(x) is list else x) for k, x in v.items()} \
            if t is dict else v
    return tuple(out)


def _snapshot(fields: tuple) -> tuple:
    """``fields`` with its lists and dicts copied, so later in-place changes of the state show as
    differences (the state holds ints, lists of ints and small dicts of ints or lists of ints)."""
    out = []
    for v in fields:
        t = type(v)
        if t is list:
            v = v[:]
        elif t is dict:
            v = {k: (x[:] if type(x) is list else x) for k, x in v.items()}
        out.append(v)
    return tuple(out)


class ObsSlice(NamedTuple):
    """One named part of the observation vector: ``vector[start:start + length]``."""
    name: str
    start: int
    length: int
    low: float
    high: float
    description: str

    @property
    def slice(self) -> slice:
        return slice(self.start, self.start + self.length)


class _Segment:
    """Builds one contiguous segment: named slices with local offsets, scaled-number runs, one-hots."""

    def __init__(self, encoder: "ObservationEncoder", prefix: str = ""):
        self.encoder = encoder
        self.prefix = prefix
        self.start = encoder._size
        self.offsets: dict[str, int] = {}
        self._scales: list = []          # (local offset, length, 1/scale, low, high) of scaled runs
        self.scaling: dict[str, tuple] = {}   # name -> (1/scale, low, high) of scaled slices

    def add(self, name: str, length: int, low: float, high: float, description: str,
            scale: float | None = None) -> int:
        """Register a slice; ``scale`` marks it as a scaled number (value / scale, clipped)."""
        local = self.encoder._size - self.start
        self.encoder.layout.append(ObsSlice(self.prefix + name, self.encoder._size, length, float(low), float(high),
                                            description))
        self.encoder._size += length
        self.offsets[name] = local
        if scale is not None:
            self._scales.append((local, length, 1.0 / scale, low, high))
            self.scaling[name] = (1.0 / scale, low, high)
        return local

    def finish(self) -> None:
        self.size = self.encoder._size - self.start
        # the scaled numbers of a segment form one run, so they are written with one slice
        inv, lo, hi = [], [], []
        first = self._scales[0][0] if self._scales else 0
        at = first
        for local, length, s, low, high in self._scales:
            if local != at:  # pragma: no cover - layout invariant
                raise AssertionError("scaled slices of a segment must be contiguous")
            at += length
            inv.extend([s] * length)
            lo.extend([low] * length)
            hi.extend([high] * length)
        self.num_start, self.num_stop = first, at
        # (1 / scale, low, high) per element, applied in Python float64 arithmetic (as the layout was
        # first defined) and rounded once to float32 where written
        self.scale_rows = (inv, lo, hi)


def _unpack(masks) -> np.ndarray:
    """Bit sets over the 128 spaces as consecutive 0/1 planes (uint8)."""
    raw = b"".join(mask.to_bytes(16, "little") for mask in masks)
    return np.unpackbits(np.frombuffer(raw, np.uint8), bitorder="little")


def _floats(length: int) -> tuple[array, np.ndarray]:
    """A float32 store written element by element (``array.array``: a Python float is rounded to
    float32 exactly as numpy rounds it, for a fraction of the cost of a numpy item assignment) and a
    numpy view of the same memory for whole-slice copies."""
    store = array("f", bytes(4 * length))
    return store, np.frombuffer(store, np.float32)


class _PlayerBlock:
    """One engine seat's parts (the same for every observer): its scaled numbers and its units and
    reach planes, kept up to date in place, and its memoised one-hots; ``seen``: the state fields
    (``_PLAYER_FIELDS``, copied) they were written from; each ``*_version`` (and ``version``, for the
    whole block) changes whenever the corresponding values do."""

    __slots__ = ("numbers", "numbers_view", "planes", "planes_view", "flags", "flags_key", "seen", "version",
                 "numbers_version", "planes_version")

    def __init__(self, num_numbers: int):
        self.numbers, self.numbers_view = _floats(num_numbers)
        self.planes, self.planes_view = _floats(2 * NUM_SPACES)
        self.flags = None
        self.flags_key = _UNSET
        self.seen = None
        self.version = self.numbers_version = self.planes_version = 0


class _Tracker:
    """What the encoder knows about one game object: each seat's vector and what was last copied into
    it, and the parts shared by all observers. Everything is checked against the state on every call,
    so a tracker may serve any position; it is fastest for the one it saw last."""

    def __init__(self, size: int, num_players: int, num_numbers: int, num_global_numbers: int):
        n = num_players
        # per seat: its vector (callers get copies) and, per part, what was last copied into it (a
        # version or a memoised array)
        self.vectors = [np.zeros(size, np.float32) for _ in range(n)]
        self.written: list[list] = [[None] * (6 + 3 * n) for _ in range(n)]
        self.frames: list = [_UNSET] * n
        self.board = self.board_planes = None
        # the parts that are the same for every observer
        self.shared = _Part(3 * NUM_SPACES)                     # empty, blocked, decision space
        self.units = _Part(D.NUM_UNITS * NUM_SPACES)             # extra: the occupied bit set written
        self.global_numbers = _Part(num_global_numbers)          # extra: the state fields read
        self.global_flags_key = _UNSET
        self.global_flags = None
        self.blocks = [_PlayerBlock(num_numbers) for _ in range(n)]     # per engine seat
        self.seen_players = None        # every block's ``seen``, to compare all players at once
        self.players_version = 0        # changes whenever any block does
        self.flags_context = _UNSET     # turn order and port spaces the one-hots were built with
        # per seat: the players version last copied into the vector, and per block its version
        self.written_players = [None] * n
        self.written_blocks: list[list] = [[None] * n for _ in range(n)]

    def copy_from(self, other: "_Tracker") -> None:
        """Become a copy of ``other`` (a good start for a position near the one ``other`` saw last,
        such as a clone of it a few moves on). Tuples and memoised arrays are never changed in place
        after they are stored, so they are shared; arrays and lists that are updated in place are
        copied."""
        for mine, theirs in zip(self.vectors, other.vectors):
            np.copyto(mine, theirs)
        self.written = [w[:] for w in other.written]
        self.frames = other.frames[:]
        self.board, self.board_planes = other.board, other.board_planes
        for part, source in ((self.shared, other.shared), (self.units, other.units),
                             (self.global_numbers, other.global_numbers)):
            np.copyto(part.view, source.view)
            part.inputs = source.inputs[:] if type(source.inputs) is list else source.inputs
            part.extra, part.version = source.extra, source.version
        self.global_flags_key, self.global_flags = other.global_flags_key, other.global_flags
        for block, source in zip(self.blocks, other.blocks):
            np.copyto(block.numbers_view, source.numbers_view)
            np.copyto(block.planes_view, source.planes_view)
            block.flags, block.flags_key, block.seen = source.flags, source.flags_key, source.seen
            block.version, block.numbers_version = source.version, source.numbers_version
            block.planes_version = source.planes_version
        self.seen_players, self.players_version = other.seen_players, other.players_version
        self.flags_context = other.flags_context
        self.written_players = other.written_players[:]
        self.written_blocks = [w[:] for w in other.written_blocks]


class _Part:
    """A part of the vector that is the same for every observer, kept up to date in place: ``values``
    (and its numpy ``view``) were written from ``inputs``; ``version`` changes whenever they do."""

    __slots__ = ("values", "view", "inputs", "extra", "version")

    def __init__(self, length: int):
        self.values, self.view = _floats(length)
        self.inputs = None
        self.extra = None
        self.version = 0

    def changed(self) -> None:
        self.version = next(_versions)


def _write_bits(values: array, view: np.ndarray, at: int, known, mask: int) -> None:
    """Make ``values[at:at + 128]`` the 0/1 expansion of the bit set ``mask``, given that it holds the
    expansion of ``known`` (None: unknown); a few changed bits are written one by one, many through
    ``view`` (numpy, the same memory) at once."""
    if known is not None:
        diff = known ^ mask
        if diff.bit_count() <= _FEW_BITS:
            while diff:
                low = diff & -diff
                values[at + low.bit_length() - 1] = 1.0 if mask & low else 0.0
                diff ^= low
            return
    view[at:at + NUM_SPACES] = _unpack((mask,))


def _write_scaled(values: array, at: int, known, numbers, inv, low, high) -> None:
    """Write ``numbers`` * ``inv`` clipped to [``low``, ``high``] (per element, float64, rounded to
    float32 on writing) into ``values[at:]``, skipping the elements equal to those of ``known``."""
    if known is None or len(known) != len(numbers):
        known = (None,) * len(numbers)
    for k, (was, x) in enumerate(zip(known, numbers)):
        if was != x:
            v = x * inv[k]
            values[at + k] = high[k] if v > high[k] else low[k] if v < low[k] else v


def _move_unit(values: array, space: int, was: int, now: int) -> None:
    """Update the unit type planes (type-major) for ``space`` changing from unit ``was`` to ``now``."""
    if was >= 0:
        values[was * NUM_SPACES + space] = 0.0
    if now >= 0:
        values[now * NUM_SPACES + space] = 1.0


def _remember(memo: dict, key, value: np.ndarray) -> np.ndarray:
    """Store a memoised part. Parts are only ever copied into an observation vector, so they are
    never modified after this."""
    if len(memo) >= _MEMO_LIMIT:
        memo.clear()
    memo[key] = value
    return value



#: the decision kinds only Industria modules make pending (encoded in the Industria segment)
INDUSTRIA_DECISION_KINDS = DECISION_KINDS[NUM_BASE_DECISION_KINDS:]


class ObservationEncoder:
    """Encodes a ``Game`` as a float32 vector from one seat's point of view.

    ``max_games``: how many game objects encoded in turn (self-play batches) keep their own
    incremental state in the pure-Python path; more still encode correctly, only slower.
    ``accelerated``: None (default) uses the compiled encoder where it was built, False the
    pure-Python reference path, True insists on the compiled one (ValueError if it is missing).
    Both give bit-identical vectors. Each call returns a fresh array.

    >>> enc = ObservationEncoder(2)
    >>> vec = enc.encode(game, seat=0)                    # doctest: +SKIP
    >>> vec[enc.slices["me.money"].slice] * 100           # doctest: +SKIP
    """

    def __init__(self, num_players: int, max_games: int = 64, accelerated: bool | None = None,
                 industria: tuple = ()):
        if not set(industria) <= set(INDUSTRIA_MODULES):
            raise ValueError(f"industria must name Industria modules among {INDUSTRIA_MODULES} (got {industria!r})")
        if num_players not in (1, 2, 3, 4):
            raise ValueError(f"num_players must be one of 1, 2, 3, 4 (got {num_players!r})")
        if not isinstance(max_games, int) or max_games < 1:
            raise ValueError(f"max_games must be a positive int (got {max_games!r})")
        if accelerated and _fastobs is None:
            raise ValueError("accelerated=True, but the compiled encoder (clans_env.encoding._fastobs) was not built; "
                             "reinstall with a C compiler available, or pass accelerated=None or False")
        self.num_players = n = num_players
        self.layout: list[ObsSlice] = []
        self._size = 0
        self.player_names = ["me"] + [f"opp{i}" for i in range(1, n)]
        self._orders = [tuple((seat + i) % n for i in range(n)) for seat in range(n)]

        # ---- 1. map planes -----------------------------------------------------------------------
        m = _Segment(self)
        for name, desc in (("grass", "land type includes grassland"), ("forest", "land type includes forest"),
                           ("mountain", "land type includes mountain"), ("loch", "loch space"),
                           ("port", "port node (either player-count position)"),
                           ("cost", "land cost / 6"), ("active", "space in play for this player count"),
                           ("border", "border space (Scoring tile 5, Clan Fergusson)"),
                           ("river_delta", "river delta space"),
                           ("mist", "land in the mist ring (out of play with 1-2 players)"),
                           ("central_loch", "part of the central loch")):
            m.add(f"map.{name}", NUM_SPACES, 0, 1, desc)
        m.add("map.empty", NUM_SPACES, 0, 1, "active space with no unit on it and not covered")
        m.add("map.blocked", NUM_SPACES, 0, 1, "covered space (Tighter Game Map)")
        m.add("map.decision_space", NUM_SPACES, 0, 1,
              "space(s) named by the pending decision (Port tile 7: the unit being exchanged, units already exchanged)")
        for who in self.player_names:       # player-major, so that each player's two planes are one part
            m.add(f"map.occupant.{who}", NUM_SPACES, 0, 1, f"a unit of {who} stands here")
            m.add(f"map.reach.{who}", NUM_SPACES, 0, 1,
                  f"neighbouring or within Shipping reach of a unit of {who} (Expand targets, Port use)")
        for u in D.UNITS:
            m.add(f"map.unit.{u}", NUM_SPACES, 0, 1, f"a {u} stands here (any player)")
        m.finish()
        self._map = m
        self.num_map_planes = m.size // NUM_SPACES

        # ---- 2. global -------------------------------------------------------------------------------
        g = _Segment(self)
        max_price = float(max(max(row) for row in D.PRICES))
        g.add("market.step", D.NUM_GOODS, 0, 1, f"price marker step / {D.MAX_STEP}, per good {D.GOODS}",
              scale=D.MAX_STEP)
        g.add("market.price", D.NUM_GOODS, 0, 1, f"current price / {max_price:g}", scale=max_price)
        g.add("pile_size", 1, 0, 1, f"contracts left in the draw pile / {len(D.CONTRACTS)}", scale=len(D.CONTRACTS))
        g.add("import_track", D.NUM_IMPORTS, 0, 1, f"import tokens on the Export board / 40 {D.IMPORTS}", scale=40)
        g.add("import_values", D.NUM_IMPORTS, 0, 1, "(VP per import at Final Scoring - 3) / 2", scale=2)
        g.add("turn_counts", 2, 0, 1, "contracts obtained, fulfilled in the current turn (/ 2)", scale=2)
        g.add("round", D.NUM_ROUNDS, 0, 1, "current round one-hot (1..5)")
        g.add("phase", len(PHASE_NAMES), 0, 1, f"phase one-hot {PHASE_NAMES}")
        g.add("scoring_tiles", D.NUM_ROUNDS * NUM_TILE_KINDS, 0, 1,
              "per round: Scoring tile 1..9 one-hot (all zero when played without Scoring tiles)")
        g.add("port_tiles", NUM_PORT_SLOTS * NUM_TILE_KINDS, 0, 1,
              "per port slot: Port tile 1..9 one-hot (all zero when played without Port tiles)")
        g.add("setup.tile_offers", MAX_TILE_OFFERS * TILE_OFFER_WIDTH, 0, 1,
              "Starting tiles on offer during setup, each: present, money / 100, goods / 3")
        g.add("contracts.display", D.MAX_CONTRACT_BOXES * CONTRACT_WIDTH, 0, 1,
              "contracts on the Export board, per box: " + ", ".join(f"{k}/{s:g}" for k, s in CONTRACT_FEATURES))
        g.finish()
        self._global = g

        # ---- 3. one block per player (same layout for each, so one memo table serves all) -------
        self._players = []
        for who in self.player_names:
            p = _Segment(self, prefix=f"{who}.")
            p.add("money", 1, 0, 5, "money / 100 (clipped at 5)", scale=100)
            p.add("goods", D.NUM_GOODS, 0, 3, f"goods in stock / 10 (clipped at 3) {D.GOODS}", scale=10)
            p.add("units_left", D.NUM_UNITS, 0, 2, f"units on the Player board / 4 {D.UNITS}", scale=4)
            p.add("tech", 2, 0, 1, "Technology upgraded (woodcutter, miner)", scale=1)
            p.add("merchants", 2, 0, 1, "Merchants on the upgrade track, in stock (/ 10)", scale=10)
            p.add("merchants_market", 2 * D.NUM_GOODS, 0, 1,
                  "Merchants on each Market area (good-major, buy then sell) / 10", scale=10)
            p.add("progress", 6, 0, 3,
                  "fulfilled contracts, hops, meat exported, cotton, tobacco, sugar cane (each / 10, clipped at 3)",
                  scale=10)
            p.add("glory", 1, 0, 3, "glory points / 100 (clipped at 3)", scale=100)
            p.add("passed", 1, 0, 1, "passed this round", scale=1)
            p.add("open_count", 1, 0, 1, "open contracts / 2", scale=2)
            p.add("auction_bid", 1, 0, 1, "Clan Auction bid / 30", scale=30)
            p.add("clan_state", NUM_CLAN_STATE, -1, 1,
                  "the clan's own state: PlayerState.extra numbers (lists flattened) in key order / 10, clipped to "
                  "[-1, 1] (Clan MacKenzie: cellar left, middle, right, Whisky made this Production)",
                  scale=10)
            p.add("shipping", D.MAX_SHIPPING + 1, 0, 1, f"Shipping level one-hot {D.SHIPPING_LEVELS}")
            p.add("ports_used", NUM_PORT_SLOTS, 0, 1, "Port tile slots used (once per game)")
            p.add("ports_in_reach", NUM_PORT_SLOTS, 0, 1, "Port tile slots whose port is in reach")
            p.add("clan", 1 + len(CLAN_NAMES), 0, 1, f"clan one-hot (none, {', '.join(CLAN_NAMES)})")
            p.add("turn_position", n, 0, 1, "position in this round's turn order, one-hot")
            p.add("contracts.open", 2 * CONTRACT_WIDTH, 0, 1, "open contracts (2 boxes), contract features each")
            p.finish()
            self._players.append(p)

        # ---- 4. pending decision -------------------------------------------------------------------
        d = _Segment(self, prefix="decision.")
        d.add("kind", NUM_BASE_DECISION_KINDS, 0, 1,
              "pending decision kind one-hot (state.DECISION_KINDS); all zero when the game is over")
        d.add("player", n, 0, 1, "deciding player, relative (me, opp1, ...)")
        d.add("units", D.NUM_UNITS, 0, 1,
              "unit types named by the decision (place: the unit; process: the factory; Port tile 7: new units)")
        d.add("place_mode", NUM_PLACE_MODES, 0, 1, "placement mode one-hot (first Worker, Expand, Free space, clan)")
        d.add("goods", D.NUM_GOODS, 0, 1, "goods offered (Neighbourhood bonus)")
        d.add("port_tile", NUM_TILE_KINDS, 0, 1, "Port tile being resolved, one-hot")
        d.add("ints", NUM_DECISION_INTS, -1, 1,
              "the first integers of the decision's context / 10, clipped to [-1, 1] (e.g. meat still to "
              "slaughter, bonuses left, goods left to gain)", scale=10)
        d.add("contracts.drawn", MAX_DRAWN_CONTRACTS * CONTRACT_WIDTH, 0, 1,
              "contracts drawn for the pending Building bonus (taken ones zeroed)")
        d.add("contracts.decision", CONTRACT_WIDTH, 0, 1, "the contract being fulfilled (slaughter decision)")
        d.finish()
        self._decision = d
        #: the base game's vector ends here; an Industria configuration appends its segment
        self.base_size = self._size
        self.industria = tuple(m for m in INDUSTRIA_MODULES if m in industria)
        if self.industria:
            self._industria_segment()

        self.size = self._size
        self.slices = {s.name: s for s in self.layout}
        for seg in (self._global, *self._players):
            if seg.num_start != 0:  # pragma: no cover - layout invariant used by encode()
                raise AssertionError("a segment's scaled numbers must come first")
        self.low = np.zeros(self.size, np.float32)
        self.high = np.zeros(self.size, np.float32)
        for s in self.layout:
            self.low[s.slice] = s.low
            self.high[s.slice] = s.high
        self._static: dict = {}
        self._memo_global: dict = {}
        self._memo_player: dict = {}
        self._memo_decision: dict = {}
        self._memo_imports: dict = {}

        # where each part is written (absolute offsets); parts are numbered as in encode()
        sl = self.slices
        self._at_static = (0, NUM_STATIC_PLANES * NUM_SPACES)
        self._at_shared = (sl["map.empty"].start, sl["map.decision_space"].start + NUM_SPACES)
        self._at_planes = [(sl[f"map.occupant.{who}"].start, sl[f"map.reach.{who}"].start + NUM_SPACES)
                           for who in self.player_names]
        self._at_units = (sl[f"map.unit.{D.UNITS[0]}"].start, sl[f"map.unit.{D.UNITS[-1]}"].start + NUM_SPACES)
        g = self._global
        self._at_global_numbers = (g.start, g.start + g.num_stop)
        self._at_global_flags = (g.start + g.num_stop, g.start + g.size)
        self._at_player_numbers = [(p.start, p.start + p.num_stop) for p in self._players]
        self._at_player_flags = [(p.start + p.num_stop, p.start + p.size) for p in self._players]
        self._at_decision = (self._decision.start, self._decision.start + self._decision.size)
        self._global_flag_at = {k: v - g.num_stop for k, v in g.offsets.items()}
        seg = self._players[0]
        self._player_flag_at = {k: v - seg.num_stop for k, v in seg.offsets.items()}
        self._number_writers = tuple((kind, seg.offsets[name] + offset, *seg.scaling[name])
                                     for _, name, offset, kind in _PLAYER_NUMBERS)
        if seg.num_stop != seg.offsets["clan_state"] + NUM_CLAN_STATE:  # pragma: no cover - layout invariant
            raise AssertionError("a player's scaled numbers must end with clan_state")
        #: what the encoder knows about the games it encodes (see ``_tracker``): one tracker per
        #: recurring game object (by id, least recently used first), and a scratch tracker for the
        #: others, with the ids of the objects that used it before (those that come back recur)
        self.max_games = max_games
        self._trackers: OrderedDict[int, _Tracker] = OrderedDict()
        self._scratch = self._new_tracker()
        self._scratch_owner: int | None = None
        self._returning: OrderedDict[int, None] = OrderedDict()
        self.accelerated = _fastobs is not None and accelerated is not False
        self._fast_spec = _fastobs.make_spec(self._fast_spec_numbers()) if self.accelerated else None
        self._fast_board = self._fast_planes = None

    def _fast_spec_numbers(self) -> dict:
        """Every layout number the compiled encoder needs, taken from this encoder's layout."""
        n = self.num_players
        sl = self.slices
        g, d, seg = self._global, self._decision, self._players[0]
        inv, low, high = g.scale_rows
        w_inv, w_low, w_high = [], [], []
        for _, _, s_inv, s_low, s_high in self._number_writers:
            w_inv.append(s_inv)
            w_low.append(float(s_low))
            w_high.append(float(s_high))
        w_len = [sl[f"me.{name}"].length - offset if kind in (_LIST, _CLAN) else 1
                 for _, name, offset, kind in _PLAYER_NUMBERS]
        flags = seg.offsets
        price_cols = max(len(row) for row in _PRICE)
        gd = {k: g.start + v for k, v in g.offsets.items()}
        dd = d.offsets
        return {
            "n": n, "size": self.base_size,
            "at_static": self._at_static[0], "static_len": self._at_static[1] - self._at_static[0],
            "at_shared": self._at_shared[0], "at_units": self._at_units[0], "num_units": D.NUM_UNITS,
            "at_planes": [a for a, _ in self._at_planes],
            "g_at": g.start, "g_num": g.num_stop, "g_inv": list(inv), "g_low": [float(x) for x in low],
            "g_high": [float(x) for x in high],
            "g_round": gd["round"], "g_phase": gd["phase"], "g_scoring": gd["scoring_tiles"],
            "g_port": gd["port_tiles"], "g_offers": gd["setup.tile_offers"], "g_display": gd["contracts.display"],
            "num_goods": D.NUM_GOODS, "num_imports": D.NUM_IMPORTS, "num_tile_kinds": NUM_TILE_KINDS,
            "max_tile_offers": MAX_TILE_OFFERS, "phase_setup": SETUP,
            "price": [row[k] if k < len(row) else 0 for row in _PRICE for k in range(price_cols)],
            "price_rows": len(_PRICE), "price_cols": price_cols,
            "p_at": [p.start for p in self._players],
            "num_fields": len(_PLAYER_NUMBERS), "field_names": tuple(field for field, *_ in _PLAYER_NUMBERS),
            "w_kind": [kind for kind, *_ in self._number_writers], "w_at": [at for _, at, *_ in self._number_writers],
            "w_len": w_len, "w_inv": w_inv, "w_low": w_low, "w_high": w_high,
            "p_shipping": flags["shipping"], "p_ports_used": flags["ports_used"],
            "p_ports_in_reach": flags["ports_in_reach"], "p_clan": flags["clan"], "p_turn": flags["turn_position"],
            "p_open": flags["contracts.open"], "num_port_slots": NUM_PORT_SLOTS, "num_open": 2,
            "p_shipping_len": sl["me.shipping"].length, "p_clan_len": sl["me.clan"].length,
            "g_round_len": sl["round"].length, "g_phase_len": sl["phase"].length, "num_rounds": D.NUM_ROUNDS,
            "d_kind_len": sl["decision.kind"].length, "d_place_mode_len": sl["decision.place_mode"].length,
            "num_boxes": D.MAX_CONTRACT_BOXES,
            "clan_slots": dict(_CLAN_SLOT), "player_type": PlayerState,
            "d_at": d.start, "d_kind": dd["kind"], "d_player": dd["player"], "d_units": dd["units"],
            "d_place_mode": dd["place_mode"], "d_goods": dd["goods"], "d_port_tile": dd["port_tile"],
            "d_ints": dd["ints"], "d_drawn": dd["contracts.drawn"], "d_contract": dd["contracts.decision"],
            "num_decision_ints": NUM_DECISION_INTS, "max_drawn": MAX_DRAWN_CONTRACTS,
            "k_place": K_PLACE, "k_process": K_PROCESS, "k_neighbourhood": K_NEIGHBOURHOOD,
            "k_bonus_order": K_BONUS_ORDER, "k_port_discard": K_PORT_DISCARD, "k_port_gain": K_PORT_GAIN,
            "k_exchange_from": K_EXCHANGE_FROM, "k_exchange_to": K_EXCHANGE_TO,
            "k_building_bonus": K_BUILDING_BONUS, "k_slaughter": K_SLAUGHTER,
            "contracts": CONTRACT_TABLE.astype(np.float32).tobytes(), "contract_width": CONTRACT_WIDTH,
            "tiles": _TILE_TABLE.astype(np.float32).tobytes(), "tile_width": TILE_OFFER_WIDTH,
        }

    # ---- Industria ----------------------------------------------------------------------------------
    # A plain definition, written whole at every call (no incremental tracking): it is small, and
    # only Industria configurations pay for it. Rule numbers of docs/rules-index.md.
    def _industria_segment(self) -> None:
        n = self.num_players
        seg = _Segment(self, prefix="industria.")
        seg.add("modules", len(INDUSTRIA_MODULES), 0, 1, f"Industria modules on {INDUSTRIA_MODULES}")
        seg.add("decision.kind", len(INDUSTRIA_DECISION_KINDS), 0, 1,
                f"pending Industria decision kind one-hot {INDUSTRIA_DECISION_KINDS} (the base kind one-hot is "
                "then all zero)")
        seg.add("decision.bonuses", 2, 0, 1, "bonus_menu: Neighbourhood bonus, Building bonus still to choose")
        seg.add("decision.goods", D.NUM_GOODS, 0, 1, "bonus_menu: Goods of the pending Neighbourhood bonus")
        seg.add("decision.markets", NUM_SPACES, 0, 1,
                "Farmers markets named by the decision (bonus_menu: those still to choose; market_sell: the market)")
        for good in D.GOODS:
            seg.add(f"market.{good}", NUM_SPACES, 0, 1,
                    f"Farmers market with an uncovered {good} icon on this space (R7.2)")
        seg.add("market_deal", n * D.NUM_GOODS, 0, 1,
                "Goods of each player's Farmers market still to place (relative seats me, opp1, ...)")
        seg.add("refill_board", D.REFILL_SLOTS * CONTRACT_WIDTH, 0, 1,
                "contracts on the Export contract refill board, leftmost first, contract features each (R9)")
        n_tiles = len(D.SCORING_TILES_INDUSTRIA)
        seg.add("scoring_tiles", D.NUM_ROUNDS * n_tiles, 0, 1,
                "Industria Scoring tiles 10-18 by round, one-hot per round (tiles 1-9 are in scoring_tiles)")
        seg.add("port_tiles", NUM_PORT_SLOTS * len(D.PORT_TILES_INDUSTRIA), 0, 1,
                "Industria Port tiles 10-18 by slot, one-hot per slot (tiles 1-9 are in port_tiles)")
        for u in D.UNITS:
            seg.add(f"second_unit.{u}", NUM_SPACES, 0, 1,
                    f"a second {u} on this space (Two units on a space, R4; its owner is the space's occupant)")
        seg.add("award", len(D.AWARD_TILES), 0, 1, "the Award tile in play, one-hot (R10.2)")
        seg.add("award.solo", 2, 0, 1, "solo: the Award card's thresholds / 100 (R10.3)")
        seg.add("clan", n * len(INDUSTRIA_CLAN_NAMES), 0, 1,
                f"each player's Industria clan one-hot (relative seats me, opp1, ...; {', '.join(INDUSTRIA_CLAN_NAMES)})")
        seg.add("clan_state", n * NUM_STATE_FEATURES, -1, 1,
                "each player's clan state (relative seats; Clan.state_features: Kilts, Silos, Shipyards, ...)")
        from . import train_obs           # the Train module and Milestones (issue 14)
        train_obs.add_segment(seg, n, trains="trains" in self.industria)
        seg.finish()
        self._industria_seg = seg

    def _industria_vector(self, game, seat: int) -> np.ndarray:
        seg = self._industria_seg
        o = seg.offsets
        vec = np.zeros(seg.size, np.float32)
        cfg = game.config
        for k, name in enumerate(INDUSTRIA_MODULES):
            if getattr(cfg, name):
                vec[o["modules"] + k] = 1
        frame = game.stack[-1] if game.stack else None
        if frame is not None and frame[0] >= NUM_BASE_DECISION_KINDS:
            vec[o["decision.kind"] + frame[0] - NUM_BASE_DECISION_KINDS] = 1
            if frame[0] == K_BONUS_MENU:
                _, _, nb, markets, building = frame
                vec[o["decision.bonuses"]] = 1 if nb else 0
                vec[o["decision.bonuses"] + 1] = building
                for good in range(D.NUM_GOODS):
                    vec[o["decision.goods"] + good] = nb >> good & 1
                for s in markets:
                    vec[o["decision.markets"] + s] = 1
            elif frame[0] == K_MARKET_SELL:
                vec[o["decision.markets"] + frame[2]] = 1
        markets = market_list(game)
        for i in range(0, len(markets), 5):
            for k in (0, 1):
                if not markets[i + 3 + k]:
                    good = markets[i + 1 + k]
                    vec[o[f"market.{D.GOODS[good]}"] + markets[i]] = 1
        n = self.num_players
        for p, tile in enumerate(dealt_tiles(game)):
            if tile > 0:
                rel = (p - seat) % n
                for good in D.FARMERS_MARKET_TILES[tile]:
                    vec[o["market_deal"] + rel * D.NUM_GOODS + good] = 1
        at = o["refill_board"]
        for cid in refill_board(game):
            vec[at:at + CONTRACT_WIDTH] = CONTRACT_TABLE[cid + 1]
            at += CONTRACT_WIDTH
        first = D.SCORING_TILES_INDUSTRIA[0]
        for k, t in enumerate(game.scoring_tiles):
            if t >= first:
                vec[o["scoring_tiles"] + k * len(D.SCORING_TILES_INDUSTRIA) + t - first] = 1
        first = D.PORT_TILES_INDUSTRIA[0]
        for k, t in enumerate(game.port_tiles):
            if t >= first:
                vec[o["port_tiles"] + k * len(D.PORT_TILES_INDUSTRIA) + t - first] = 1
        stacked = second_units(game)
        for i in range(0, len(stacked), 3):
            vec[o[f"second_unit.{D.UNITS[stacked[i + 1]]}"] + stacked[i]] = 1
        tile = award_tile(game)
        if tile:
            vec[o["award"] + D.AWARD_TILES.index(tile)] = 1
            if n == 1:
                low, high = D.AWARD_SOLO_THRESHOLDS[tile]
                vec[o["award.solo"]], vec[o["award.solo"] + 1] = low / 100, high / 100
        for p, clan in enumerate(game.clans):
            rel = (p - seat) % n
            if clan.expansion == "industria":
                vec[o["clan"] + rel * len(INDUSTRIA_CLAN_NAMES) + INDUSTRIA_CLAN_NAMES.index(clan.name)] = 1
            features = clan.state_features(game, p)
            if features:
                at = o["clan_state"] + rel * NUM_STATE_FEATURES
                vec[at:at + len(features)] = features
        if cfg.trains or cfg.milestones:
            from . import train_obs
            train_obs.write(vec, o, game, seat)
        return vec

    # ---- segments ----------------------------------------------------------------------------------
    def _static_planes(self, board) -> np.ndarray:
        planes = self._static.get(board.sides)
        if planes is None:
            n = self.num_players
            active, border, central = board.active(n), board.border(n), set(board.central_loch)
            planes = np.zeros((NUM_STATIC_PLANES, NUM_SPACES), np.float32)
            for s in range(board.num_spaces):
                land = board.land[s] if board.kind[s] == KIND_LAND else 0
                planes[:, s] = (land & LAND_GRASS > 0, land & LAND_FOREST > 0, land & LAND_MOUNTAIN > 0,
                                board.kind[s] == KIND_LOCH, board.kind[s] == KIND_PORT, board.cost[s] / 6.0,
                                active[s], border[s], board.river_delta[s], board.mist[s], s in central)
            planes = _remember(self._static, board.sides, planes.ravel())
        return planes

    def _import_values(self, game) -> list:
        """(VP per import at Final Scoring) - 3, memoised on what decides it."""
        key = (*game.import_track, game.config.static_imports,
               *(game.players[0].imports if self.num_players == 1 else ()))
        values = self._memo_imports.get(key)
        if values is None:
            if len(self._memo_imports) >= _MEMO_LIMIT:
                self._memo_imports.clear()
            values = self._memo_imports[key] = [v - 3 for v in import_values(game)]
        return values

    def _global_numbers(self, game) -> tuple:
        """Raw values of the global scaled slices, in layout order (market .. turn counts)."""
        prices = game.prices
        turn = game.turn
        values = self._import_values(game)
        return (*prices, *[_PRICE[i][s] for i, s in enumerate(prices)], len(game.pile), *game.import_track,
                *values, turn.get("obtained", 0), turn.get("fulfilled", 0))

    def _global_flags(self, game, key: tuple, tiles: tuple) -> np.ndarray:
        """The global segment after its numbers: one-hots, Starting tile offers, contracts on display
        (``key``: round, phase, tiles, offers, display, as read by ``encode``)."""
        vec = self._memo_global.get(key)
        if vec is None:
            seg = self._global
            o = self._global_flag_at
            vec = np.zeros(seg.size - seg.num_stop, np.float32)
            vec[o["round"] + game.round - 1] = 1
            vec[o["phase"] + game.phase] = 1
            for k, tile in enumerate(game.scoring_tiles):
                if tile <= NUM_TILE_KINDS:          # Industria's 10-18: in the Industria segment
                    vec[o["scoring_tiles"] + k * NUM_TILE_KINDS + tile - 1] = 1
            for k, tile in enumerate(game.port_tiles):
                if tile <= NUM_TILE_KINDS:
                    vec[o["port_tiles"] + k * NUM_TILE_KINDS + tile - 1] = 1
            if tiles:
                offers = _TILE_TABLE[[t + 1 for t in tiles]].ravel()
                vec[o["setup.tile_offers"]:o["setup.tile_offers"] + offers.size] = offers
            at = o["contracts.display"]
            for cid in game.display:
                if cid >= 0:
                    vec[at:at + CONTRACT_WIDTH] = CONTRACT_TABLE[cid + 1]
                at += CONTRACT_WIDTH
            vec = _remember(self._memo_global, key, vec)
        return vec

    def _write_player_numbers(self, part: array, seen, fields: tuple, changed) -> None:
        """Write into ``part`` (a player block's scaled numbers) the ``changed`` fields of ``fields``
        (read by ``_PLAYER_FIELDS``; ``seen``: the snapshot ``part`` was written from, or None):
        value * (1 / scale), clipped to the slice's bounds, in float64, rounded to float32 on writing.
        Of a list, only the elements that changed are written."""
        writers = self._number_writers
        for j in changed:
            if j >= len(writers):
                break                       # the fields after the numbers feed other parts
            kind, at, inv, low, high = writers[j]
            value = fields[j]
            if kind == _VALUE:
                v = value * inv
                part[at] = high if v > high else low if v < low else v
                continue
            if kind == _COUNT:
                v = len(value) * inv
                part[at] = high if v > high else low if v < low else v
                continue
            was = None if seen is None else seen[j]
            if kind == _CLAN:
                value = _clan_state(value)
                was = None if was is None else _clan_state(was)
            if was is None or len(was) != len(value):
                was = (None,) * len(value)
            for k, x in enumerate(value):
                if x != was[k]:
                    v = x * inv
                    part[at + k] = high if v > high else low if v < low else v

    def _update_block(self, block: _PlayerBlock, fields: tuple, changed, game, p: int,
                      port_spaces: tuple) -> None:
        """Bring ``block`` up to date with ``fields`` (player ``p``'s state fields), given the indices
        of the fields that differ from ``block.seen`` (all when it is None)."""
        seen = block.seen
        # ``changed`` is ascending and the fields are numbers first, spaces and reach last
        if changed[0] < len(_PLAYER_NUMBERS):
            self._write_player_numbers(block.numbers, seen, fields, changed)
            block.numbers_version = next(_versions)
        if changed[-1] >= _SPACES:
            was = (None, None) if seen is None else (seen[_SPACES], seen[_REACH])
            if was[0] != fields[_SPACES]:
                _write_bits(block.planes, block.planes_view, 0, was[0], fields[_SPACES])
            if was[1] != fields[_REACH]:
                _write_bits(block.planes, block.planes_view, NUM_SPACES, was[1], fields[_REACH])
            block.planes_version = next(_versions)
        if seen is None or not _FLAG_FIELDS.isdisjoint(changed):
            self._update_flags(block, fields, game, p, port_spaces)
        block.seen = _player_snapshot(fields, seen, changed)
        block.version = next(_versions)

    def _update_flags(self, block: _PlayerBlock, fields: tuple, game, p: int, port_spaces: tuple) -> None:
        """Rebuild ``block``'s one-hots and open contracts from its fields (with ``port_spaces``: the
        spaces of the Port tile slots in play, and the turn order)."""
        reach = fields[_REACH]
        in_reach = 0
        for k, space in enumerate(port_spaces):
            if reach >> space & 1:
                in_reach |= 1 << k
        order = game.turn_order
        key = (fields[_SHIPPING], fields[_PORTS_USED], in_reach, fields[_CLAN_NAME],
               order.index(p) if p in order else -1, *fields[_OPEN_CONTRACTS])
        if block.flags_key != key:
            block.flags_key = key
            block.flags = self._player_flags(key)

    def _player_flags(self, key: tuple) -> np.ndarray:
        """A player's segment after its numbers: one-hots and open contracts, from ``key``: shipping
        level, ports used, ports in reach (bit sets over the Port tile slots), clan, turn position
        (-1: not in the turn order) and the open contracts."""
        vec = self._memo_player.get(key)
        if vec is None:
            shipping, ports_used, in_reach, clan, position, *open_contracts = key
            seg = self._players[0]
            o = self._player_flag_at
            vec = np.zeros(seg.size - seg.num_stop, np.float32)
            vec[o["shipping"] + shipping] = 1
            for k in range(NUM_PORT_SLOTS):
                if ports_used >> k & 1:
                    vec[o["ports_used"] + k] = 1
                if in_reach >> k & 1:
                    vec[o["ports_in_reach"] + k] = 1
            slot = _CLAN_SLOT.get(clan)
            if slot is None:
                raise ValueError(f"clan {clan!r} has no slot in the observation; known clans: {CLAN_NAMES}")
            vec[o["clan"] + slot] = 1
            if position >= 0:
                vec[o["turn_position"] + position] = 1
            at = o["contracts.open"]
            for cid in open_contracts[:2]:
                vec[at:at + CONTRACT_WIDTH] = CONTRACT_TABLE[cid + 1]
                at += CONTRACT_WIDTH
            vec = _remember(self._memo_player, key, vec)
        return vec

    def _decision_vector(self, frame, seat: int) -> np.ndarray:
        """The decision segment for the pending ``frame`` (None when the game is over)."""
        key = (frame, seat)
        try:
            vec = self._memo_decision.get(key)
        except TypeError:                       # a clan frame holding an unhashable value
            key, vec = None, None
        if vec is not None:
            return vec
        seg = self._decision
        o = seg.offsets
        if frame is None:
            vec = np.zeros(seg.size, np.float32)
        else:
            vec = np.zeros(seg.size, np.float32)
            ints = [x for x in frame[2:] if isinstance(x, (int, float))][:NUM_DECISION_INTS]
            if ints:
                at = o["ints"]
                vec[at:at + len(ints)] = [-1.0 if x < -10 else 1.0 if x > 10 else x / 10 for x in ints]
            kind = frame[0]
            if kind < NUM_BASE_DECISION_KINDS:      # Industria's kinds are in the Industria segment
                vec[o["kind"] + kind] = 1
            vec[o["player"] + (frame[1] - seat) % self.num_players] = 1
            units = ()
            drawn = ()
            if kind == K_PLACE:
                units = (frame[2],)
                vec[o["place_mode"] + frame[3]] = 1
            elif kind == K_PROCESS:
                units = (frame[2],)
            elif kind in (K_NEIGHBOURHOOD, K_BONUS_ORDER):
                for good in range(D.NUM_GOODS):
                    vec[o["goods"] + good] = frame[2] >> good & 1
            elif kind in (K_PORT_DISCARD, K_PORT_GAIN):
                vec[o["port_tile"] + frame[2] - 1] = 1
            elif kind == K_EXCHANGE_FROM:
                units = frame[3]
            elif kind == K_EXCHANGE_TO:
                units = frame[4]
            elif kind == K_BUILDING_BONUS:
                drawn = frame[2][:MAX_DRAWN_CONTRACTS]
            elif kind == K_SLAUGHTER:
                start = o["contracts.decision"]
                vec[start:start + CONTRACT_WIDTH] = CONTRACT_TABLE[frame[2] + 1]
            for u in units:
                vec[o["units"] + u] = 1
            if drawn:
                feats = CONTRACT_TABLE[np.asarray(drawn, np.intp) + 1].ravel()
                vec[o["contracts.drawn"]:o["contracts.drawn"] + feats.size] = feats
        if key is not None:
            vec = _remember(self._memo_decision, key, vec)
        return vec

    # ---- encoding ---------------------------------------------------------------------------------
    def _tracker(self, key: int) -> _Tracker:
        """The tracker for the game object with id ``key``. A game object seen for the first time (a
        new game, a clone in a search) gets the scratch tracker, which then holds the position encoded
        just before: usually the nearest one (the position a clone was made from, the previous
        decision). One that comes back after losing the scratch tracker recurs (a game of a batch
        encoded in turn): it gets a tracker of its own, new or, at ``max_games``, the least recently
        used one."""
        trackers = self._trackers
        tracker = trackers.get(key)
        if tracker is not None:
            if len(trackers) > 1:
                trackers.move_to_end(key)
            return tracker
        if key == self._scratch_owner:
            return self._scratch
        returning = self._returning
        if key in returning:
            del returning[key]
            if len(trackers) >= self.max_games:
                _, tracker = trackers.popitem(last=False)
            else:
                tracker = self._new_tracker()
                tracker.copy_from(self._scratch)
            trackers[key] = tracker
            return tracker
        if self._scratch_owner is not None:
            returning[self._scratch_owner] = None
            if len(returning) > 4 * self.max_games:
                returning.popitem(last=False)
        self._scratch_owner = key
        return self._scratch

    def _new_tracker(self) -> _Tracker:
        return _Tracker(self.size, self.num_players, self._players[0].num_stop, self._global.num_stop)

    def __getstate__(self) -> dict:
        """Pickling and deep copies leave the trackers behind: they are a cache, and their numpy views
        of ``array.array`` stores would not survive a copy as views."""
        state = self.__dict__.copy()
        for name in ("_trackers", "_scratch", "_scratch_owner", "_returning", "_fast_spec", "_fast_board",
                     "_fast_planes"):
            state.pop(name)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._trackers = OrderedDict()
        self._scratch = self._new_tracker()
        self._scratch_owner = None
        self._returning = OrderedDict()
        self.accelerated = self.accelerated and _fastobs is not None    # unpickled where it was not built
        self._fast_spec = _fastobs.make_spec(self._fast_spec_numbers()) if self.accelerated else None
        self._fast_board = self._fast_planes = None

    def encode(self, game, seat: int) -> np.ndarray:
        """The observation of ``game`` for ``seat`` (a fresh float32 array of length ``size``)."""
        return self.encode_into(game, seat, None)

    def encode_into(self, game, seat: int, out: np.ndarray | None) -> np.ndarray:
        """``encode`` written into ``out`` (a float32 vector of length ``size``; ``None``: a fresh
        one) and returned: batch encoders fill their rows without a copy."""
        if out is not None and (out.shape != (self.size,) or out.dtype != np.float32 or not out.flags.c_contiguous):
            raise ValueError(f"out must be a contiguous float32 vector of length {self.size} "
                             f"(got {out.dtype} of shape {out.shape})")
        n = self.num_players
        if game.num_players != n:
            raise ValueError(f"this encoder is for {n} players; the game has {game.num_players}")
        if not 0 <= seat < n:
            raise ValueError(f"seat must be in 0..{n - 1} (got {seat!r})")
        if self._fast_spec is not None:
            board = game.board
            if board is not self._fast_board:
                self._fast_planes = self._static_planes(board)
                self._fast_board = board
            if out is None:
                out = np.empty(self.size, np.float32)
            base = out[:self.base_size] if self.industria else out
            if not _fastobs.encode(base, game, seat, self._fast_spec, self._fast_planes, self._import_values):
                for p, pl in enumerate(game.players):   # a stale reach cache: rules.common.reach refreshes it
                    if pl.reach == -1:
                        player_reach(game, p)
                if not _fastobs.encode(base, game, seat, self._fast_spec, self._fast_planes, self._import_values):
                    raise RuntimeError("a player's reach cache is still stale after refreshing it")
            if self.industria:
                out[self.base_size:] = self._industria_vector(game, seat)
            return out
        t = self._tracker(id(game))
        vector = t.vectors[seat]
        written = t.written[seat]
        players = game.players
        stack = game.stack
        frame = stack[-1] if stack else None
        occupied = game.occupied

        # part 0: static land facts of the board
        board = game.board
        if board is not t.board:
            t.board = board
            t.board_planes = self._static_planes(board)
        values = t.board_planes
        if written[0] is not values:
            a, b = self._at_static
            vector[a:b] = values
            written[0] = values

        # part n+2: unit type planes; the spaces whose occupancy changed first, then (Port tile 7, clan
        # abilities) any other space whose unit changed type
        unit_at = game.unit_at
        part = t.units
        known = part.inputs
        if known != unit_at:
            values = part.values
            if known is None:
                part.view[:] = (np.array(unit_at) == _UNIT_TYPES).ravel()
                part.inputs = unit_at[:]
            else:
                diff = occupied ^ part.extra
                while diff:
                    low = diff & -diff
                    s = low.bit_length() - 1
                    _move_unit(values, s, known[s], unit_at[s])
                    known[s] = unit_at[s]
                    diff ^= low
                if known != unit_at:
                    for s, (was, now) in enumerate(zip(known, unit_at)):
                        if was != now:
                            _move_unit(values, s, was, now)
                            known[s] = now
            part.changed()
        part.extra = occupied
        if written[2 + n] != part.version:
            a, b = self._at_units
            vector[a:b] = part.view
            written[2 + n] = part.version

        # parts n+3, n+4: global numbers and global one-hots / contracts
        part = t.global_numbers
        fields = (*_GLOBAL_FIELDS(game), len(game.pile), *(players[0].imports if n == 1 else ()))
        if part.extra != fields:
            part.extra = _snapshot(fields)
            numbers = self._global_numbers(game)
            if part.inputs != numbers:
                _write_scaled(part.values, 0, part.inputs, numbers, *self._global.scale_rows)
                part.inputs = numbers
                part.changed()
        phase = game.phase
        tiles = tuple(game.tile_pool[:MAX_TILE_OFFERS]) if phase == SETUP else ()
        key = (game.round, phase, game.scoring_tiles, game.port_tiles, tiles, *game.display)
        if t.global_flags_key != key:
            t.global_flags_key = key
            t.global_flags = self._global_flags(game, key, tiles)
        if written[3 + n] != part.version:
            a, b = self._at_global_numbers
            vector[a:b] = part.view
            written[3 + n] = part.version
        values = t.global_flags
        if written[4 + n] is not values:
            a, b = self._at_global_flags
            vector[a:b] = values
            written[4 + n] = values

        # parts 2 .. n+1 (units and reach planes) and n+5 .. 3n+4 (numbers, one-hots and open
        # contracts) of each player, observer first; kept per engine seat, shared by all observers.
        # All players' fields are read and compared at once; only the blocks that differ are visited.
        if -1 in map(_REACH_OF, players):           # a stale reach cache: rules.common.reach refreshes it
            for p, pl in enumerate(players):
                if pl.reach == -1:
                    player_reach(game, p)
        fields_all = tuple(map(_PLAYER_FIELDS, players))
        seen_all = t.seen_players
        turn_order = game.turn_order
        port_spaces = game.topo.port_space[:len(game.port_tiles)]
        context = t.flags_context
        if context is _UNSET or context[0] != turn_order or context[1] != port_spaces:
            t.flags_context = (turn_order[:], port_spaces)
            for p, block in enumerate(t.blocks):
                if block.seen is not None:
                    self._update_flags(block, block.seen, game, p, port_spaces)
                    block.version = next(_versions)
            t.players_version = next(_versions)
        if seen_all != fields_all:
            blocks = t.blocks
            for p in (range(n) if seen_all is None else compress(range(n), map(ne, seen_all, fields_all))):
                block = blocks[p]
                fields = fields_all[p]
                seen = block.seen
                changed = _ALL_PLAYER_FIELDS if seen is None else list(compress(_ALL_PLAYER_FIELDS,
                                                                                   map(ne, seen, fields)))
                self._update_block(block, fields, changed, game, p, port_spaces)
            t.seen_players = tuple(map(_SEEN_OF, blocks))
            t.players_version = next(_versions)
        if t.written_players[seat] != t.players_version:
            t.written_players[seat] = t.players_version
            written_blocks = t.written_blocks[seat]
            for i, p in enumerate(self._orders[seat]):
                block = t.blocks[p]
                if written_blocks[i] == block.version:
                    continue
                written_blocks[i] = block.version
                if written[5 + n + i] != block.numbers_version:
                    a, b = self._at_player_numbers[i]
                    vector[a:b] = block.numbers_view
                    written[5 + n + i] = block.numbers_version
                if written[2 + i] != block.planes_version:
                    a, b = self._at_planes[i]
                    vector[a:b] = block.planes_view
                    written[2 + i] = block.planes_version
                if written[5 + 2 * n + i] is not block.flags:
                    a, b = self._at_player_flags[i]
                    vector[a:b] = block.flags
                    written[5 + 2 * n + i] = block.flags
        union = reduce(or_, map(_SPACES_OF, players))

        # part 1: empty / blocked / decision space
        decision_space = 0
        if frame is not None:
            if frame[0] == K_EXCHANGE_TO:
                decision_space = 1 << frame[2]
                for s, _ in frame[3]:
                    decision_space |= 1 << s
            elif frame[0] == K_EXCHANGE_FROM:
                for s, _ in frame[2]:
                    decision_space |= 1 << s
        masks = (game.topo.active & ~occupied, occupied & ~union, decision_space)
        part = t.shared
        if part.inputs != masks:
            known = part.inputs or (None, None, None)
            for k in range(3):
                if known[k] != masks[k]:
                    _write_bits(part.values, part.view, k * NUM_SPACES, known[k], masks[k])
            part.inputs = masks
            part.changed()
        if written[1] != part.version:
            a, b = self._at_shared
            vector[a:b] = part.view
            written[1] = part.version

        # last part: the pending decision
        if t.frames[seat] != frame:
            try:
                values = self._memo_decision[(frame, seat)]
                t.frames[seat] = frame
            except KeyError:
                values = self._decision_vector(frame, seat)
                t.frames[seat] = frame
            except TypeError:
                # a clan frame holding a list, which could change in place: never trusted as a key
                values = self._decision_vector(frame, seat)
                t.frames[seat] = _UNSET
            if written[5 + 3 * n] is not values:
                a, b = self._at_decision
                vector[a:b] = values
                written[5 + 3 * n] = values
        if out is None:
            out = vector.copy()
        else:
            out[:] = vector
        if self.industria:
            out[self.base_size:] = self._industria_vector(game, seat)
        return out

    # ---- documentation helpers ----------------------------------------------------------------------
    def split(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        """Named views of an observation (for inspection and tests)."""
        return {s.name: vector[s.slice] for s in self.layout}

    def markdown_table(self) -> str:
        """The layout as a Markdown table (used to generate docs/action-space.md)."""
        rows = ["| slice | start | length | bounds | meaning |", "|---|---:|---:|---|---|"]
        for s in self.layout:
            rows.append(f"| `{s.name}` | {s.start} | {s.length} | [{s.low:g}, {s.high:g}] | {s.description} |")
        return "\n".join(rows)
