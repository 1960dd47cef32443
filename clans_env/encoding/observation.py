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

Speed: every part of a segment (map bit planes, unit planes, each block's scaled numbers, its
one-hots, the decision context) is memoised on the few state fields it depends on, since most of
the state is unchanged from one decision to the next; bit-set state is expanded with one
``np.unpackbits``; contract features come from a table; the parts are joined by one
``np.concatenate``. Pure numpy; imports only the engine.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..engine import data as D
from ..engine.actions import NUM_SPACES
from ..engine.board import KIND_LAND, KIND_LOCH, KIND_PORT, LAND_FOREST, LAND_GRASS, LAND_MOUNTAIN
from ..engine.rules.common import reach as player_reach
from ..engine.rules.scoring import import_values
from ..engine.state import (DECISION_KINDS, K_BONUS_ORDER, K_BUILDING_BONUS, K_EXCHANGE_FROM, K_EXCHANGE_TO,
                            K_NEIGHBOURHOOD, K_PLACE, K_PORT_DISCARD, K_PORT_GAIN, K_PROCESS, K_SLAUGHTER,
                            PHASE_NAMES, SETUP)

#: the clans of the base game and the Kickstarter promo, sorted; the clan one-hot reserves one
#: slot per name (after "none") so the vector length does not depend on which clans are loaded
CLAN_NAMES: tuple[str, ...] = tuple(sorted(("buchanan", "campbell", "cunningham", "fergusson", "macdonald",
                                            "mackenzie", "robertson", "stewart", "macewen")))
_CLAN_SLOT = {None: 0, "none": 0, **{name: i + 1 for i, name in enumerate(CLAN_NAMES)}}

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
_ZEROS = [0] * 8
#: memo tables are cleared when they reach this many entries (they serve nearby positions)
_MEMO_LIMIT = 1024


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
        self.num_inv = np.asarray(inv, np.float32)
        self.num_low = np.asarray(lo, np.float32)
        self.num_high = np.asarray(hi, np.float32)
        self.num_signed = bool(lo) and min(lo) < 0
        self.scale_rows = (inv, lo, hi)

    def scale(self, numbers) -> np.ndarray:
        """The segment's raw numbers (in registration order) as value / scale, clipped to the bounds.

        Plain Python arithmetic and one conversion: a handful of small numpy calls costs more than
        this when the interpreter has just been busy in the engine (cold caches)."""
        out = []
        for x, inv, low, high in zip(numbers, self.scale_rows[0], self.scale_rows[1], self.scale_rows[2]):
            v = x * inv
            out.append(high if v > high else low if v < low else v)
        return np.array(out, np.float32)


def _unpack(masks) -> np.ndarray:
    """Bit sets over the 128 spaces as consecutive 0/1 planes (uint8)."""
    raw = b"".join(mask.to_bytes(16, "little") for mask in masks)
    return np.unpackbits(np.frombuffer(raw, np.uint8), bitorder="little")


def _remember(memo: dict, key, value: np.ndarray) -> np.ndarray:
    """Store a memoised part. Parts only ever reach callers through ``np.concatenate`` (a copy),
    so they are never modified after this."""
    if len(memo) >= _MEMO_LIMIT:
        memo.clear()
    memo[key] = value
    return value


class ObservationEncoder:
    """Encodes a ``Game`` as a float32 vector from one seat's point of view.

    >>> enc = ObservationEncoder(2)
    >>> vec = enc.encode(game, seat=0)                    # doctest: +SKIP
    >>> vec[enc.slices["me.money"].slice] * 100           # doctest: +SKIP
    """

    def __init__(self, num_players: int):
        if num_players not in (1, 2, 3, 4):
            raise ValueError(f"num_players must be one of 1, 2, 3, 4 (got {num_players!r})")
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
        d.add("kind", len(DECISION_KINDS), 0, 1,
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
        self._memo_bits: dict = {}
        self._memo_units: dict = {}
        self._memo_global: dict = {}
        self._memo_player: dict = {}
        self._memo_decision: dict = {}
        self._memo_imports: dict = {}
        self._memo_global_numbers: dict = {}
        self._memo_player_numbers: dict = {}

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

    def _global_numbers(self, game) -> tuple:
        """Raw values of the global scaled slices, in layout order (market .. turn counts)."""
        prices = game.prices
        turn = game.turn
        key = (*game.import_track, game.config.static_imports,
               *(game.players[0].imports if self.num_players == 1 else ()))
        values = self._memo_imports.get(key)
        if values is None:
            if len(self._memo_imports) >= _MEMO_LIMIT:
                self._memo_imports.clear()
            values = self._memo_imports[key] = [v - 3 for v in import_values(game)]
        return (*prices, *[_PRICE[i][s] for i, s in enumerate(prices)], len(game.pile), *game.import_track,
                *values, turn.get("obtained", 0), turn.get("fulfilled", 0))

    def _global_flags(self, game) -> np.ndarray:
        """The global segment after its numbers: one-hots, Starting tile offers, contracts on display."""
        tiles = tuple(game.tile_pool[:MAX_TILE_OFFERS]) if game.phase == SETUP else ()
        key = (game.round, game.phase, game.scoring_tiles, game.port_tiles, tiles, *game.display)
        vec = self._memo_global.get(key)
        if vec is None:
            seg = self._global
            o = {k: v - seg.num_stop for k, v in seg.offsets.items()}
            vec = np.zeros(seg.size - seg.num_stop, np.float32)
            vec[o["round"] + game.round - 1] = 1
            vec[o["phase"] + game.phase] = 1
            for k, tile in enumerate(game.scoring_tiles):
                vec[o["scoring_tiles"] + k * NUM_TILE_KINDS + tile - 1] = 1
            for k, tile in enumerate(game.port_tiles):
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

    @staticmethod
    def _player_numbers(pl) -> tuple:
        """Raw values of a player's scaled slices, in layout order (money .. clan state)."""
        extra = pl.extra
        if extra:
            clan_state = []
            for _, v in sorted(extra.items()):
                if isinstance(v, (list, tuple)):
                    clan_state.extend(x for x in v if isinstance(x, (int, float)))
                elif isinstance(v, (int, float)):
                    clan_state.append(v)
            clan_state = clan_state[:NUM_CLAN_STATE] + _ZEROS[:NUM_CLAN_STATE - len(clan_state)]
        else:
            clan_state = _ZEROS[:NUM_CLAN_STATE]
        return (pl.money, *pl.goods, *pl.units_left, *pl.tech, pl.merchants_board, pl.merchants_stock,
                *pl.merchants_market, len(pl.done_contracts), pl.hops, pl.meat, *pl.imports, pl.glory, pl.passed,
                len(pl.open_contracts), pl.vp_bid, *clan_state)

    def _player_flags(self, game, p: int, reach: int) -> np.ndarray:
        """A player's segment after its numbers: one-hots and open contracts."""
        pl = game.players[p]
        order = game.turn_order
        in_reach = 0
        for k, space in enumerate(game.topo.port_space[:len(game.port_tiles)]):
            if reach >> space & 1:
                in_reach |= 1 << k
        key = (pl.shipping, pl.ports_used, in_reach, pl.clan, order.index(p) if p in order else -1,
               *pl.open_contracts)
        vec = self._memo_player.get(key)
        if vec is None:
            seg = self._players[0]
            o = {k: v - seg.num_stop for k, v in seg.offsets.items()}
            vec = np.zeros(seg.size - seg.num_stop, np.float32)
            vec[o["shipping"] + pl.shipping] = 1
            for k in range(NUM_PORT_SLOTS):
                if pl.ports_used >> k & 1:
                    vec[o["ports_used"] + k] = 1
                if in_reach >> k & 1:
                    vec[o["ports_in_reach"] + k] = 1
            slot = _CLAN_SLOT.get(pl.clan)
            if slot is None:
                raise ValueError(f"clan {pl.clan!r} has no slot in the observation; known clans: {CLAN_NAMES}")
            vec[o["clan"] + slot] = 1
            if p in order:
                vec[o["turn_position"] + order.index(p)] = 1
            at = o["contracts.open"]
            for cid in pl.open_contracts[:2]:
                vec[at:at + CONTRACT_WIDTH] = CONTRACT_TABLE[cid + 1]
                at += CONTRACT_WIDTH
            vec = _remember(self._memo_player, key, vec)
        return vec

    def _decision_vector(self, game, seat: int) -> np.ndarray:
        frame = game.stack[-1] if game.stack else None
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
    def encode(self, game, seat: int) -> np.ndarray:
        """The observation of ``game`` for ``seat`` (a fresh float32 array of length ``size``)."""
        n = self.num_players
        if game.num_players != n:
            raise ValueError(f"this encoder is for {n} players; the game has {game.num_players}")
        if not 0 <= seat < n:
            raise ValueError(f"seat must be in 0..{n - 1} (got {seat!r})")
        order = self._orders[seat]
        players = game.players
        stack = game.stack
        frame = stack[-1] if stack else None

        # map bit planes, each part memoised on its own bit sets: empty / blocked / decision space, then
        # per player its units and its reach (so the parts of players who did not move are reused)
        spaces = [players[p].spaces for p in order]
        union = 0
        for mask in spaces:
            union |= mask
        decision_space = 0
        if frame is not None:
            if frame[0] == K_EXCHANGE_TO:
                decision_space = 1 << frame[2]
                for s, _ in frame[3]:
                    decision_space |= 1 << s
            elif frame[0] == K_EXCHANGE_FROM:
                for s, _ in frame[2]:
                    decision_space |= 1 << s
        occupied = game.occupied
        memo = self._memo_bits
        key = (game.topo.active & ~occupied, occupied & ~union, decision_space)
        shared = memo.get(key)
        if shared is None:
            shared = _remember(memo, key, _unpack(key))
        parts = [self._static_planes(game.board), shared]
        reaches = []
        for p, own in zip(order, spaces):
            reach = player_reach(game, p)
            reaches.append(reach)
            key = (own, reach)
            planes = memo.get(key)
            if planes is None:
                planes = _remember(memo, key, _unpack(key))
            parts.append(planes)
        key = tuple(game.unit_at)
        units = self._memo_units.get(key)
        if units is None:
            by_type = [0] * D.NUM_UNITS             # one bit set per unit type
            for s, u in enumerate(key):
                if u >= 0:
                    by_type[u] |= 1 << s
            units = _remember(self._memo_units, key, _unpack(by_type))
        parts.append(units)
        numbers = self._global_numbers(game)
        memo = self._memo_global_numbers
        global_numbers = memo.get(numbers)
        if global_numbers is None:
            global_numbers = _remember(memo, numbers, self._global.scale(numbers))
        parts.append(global_numbers)
        parts.append(self._global_flags(game))
        memo = self._memo_player_numbers
        scale = self._players[0].scale
        for i, p in enumerate(order):
            numbers = self._player_numbers(players[p])
            vec = memo.get(numbers)
            if vec is None:
                vec = _remember(memo, numbers, scale(numbers))
            parts.append(vec)
            parts.append(self._player_flags(game, p, reaches[i]))
        parts.append(self._decision_vector(game, seat))
        return np.concatenate(parts, dtype=np.float32)      # the 0/1 planes are uint8 until here

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
