"""Industria's Train map (R1.8-R1.13, R13.2-R13.6, R13.22 of docs/rules-index.md): the static
data of both sides, loaded from ``data/trains.toml`` and validated on load, shared by every game like
``Board``. The topology is a stand-in (the printed map is not in the texts); docs/train-map.md explains the
design and ``validate_side`` checks a replacement.

A side has locations (Towns and Cities; index = position in the file), tracks between them (some
Tunnels), exactly 4 Milestone spots (one per City, one per Tunnel: the City or Tunnel it unlocks) and
Demand spots (one per City, one per pair of Towns) numbered for the refill order (R2.3).
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from . import data as D

DATA_FILE = Path(__file__).resolve().parent / "data" / "trains.toml"
#: the largest number of locations a side may have: one Delivery bonus tile each (R13.28)
MAX_LOCATIONS = 24
TOWN, CITY = "town", "city"


@dataclass(frozen=True)
class TrainSide:
    name: str
    players: tuple[int, ...]
    ids: tuple[str, ...]                       # location labels
    kind: tuple[str, ...]                      # town | city per location
    xy: tuple[tuple[float, float], ...]
    tracks: tuple[tuple[int, int, bool], ...]  # (a, b, tunnel), a < b
    demand_spot: tuple[int, ...]               # per location: index into demand spots (refill order)
    demand_numbers: tuple[int, ...]            # printed number of each demand spot, ascending
    spot_is_city: tuple[bool, ...]             # per demand spot
    milestone_ids: tuple[str, ...]
    milestone_unlocks: tuple[tuple, ...]       # ("city", loc) or ("tunnel", a, b)
    provenance: str

    @property
    def num_locations(self) -> int:
        return len(self.ids)

    @property
    def num_demand_spots(self) -> int:
        return len(self.demand_numbers)

    @property
    def towns(self) -> tuple[int, ...]:
        return tuple(i for i, k in enumerate(self.kind) if k == TOWN)

    @property
    def cities(self) -> tuple[int, ...]:
        return tuple(i for i, k in enumerate(self.kind) if k == CITY)

    def neighbours(self, loc: int) -> list[tuple[int, bool]]:
        """(other location, is a Tunnel) for each track at ``loc``."""
        return self._adj[loc]

    def city_spot(self, loc: int) -> int:
        """The Milestone spot that unlocks City ``loc`` (-1 for a Town)."""
        return self._city_spot.get(loc, -1)

    def tunnel_spot(self, a: int, b: int) -> int:
        """The Milestone spot that unlocks the Tunnel a-b (-1 for an ordinary track)."""
        return self._tunnel_spot.get((min(a, b), max(a, b)), -1)

    def __post_init__(self):
        adj = [[] for _ in self.ids]
        for a, b, t in self.tracks:
            adj[a].append((b, t))
            adj[b].append((a, t))
        object.__setattr__(self, "_adj", tuple(tuple(sorted(x)) for x in adj))
        cs, ts = {}, {}
        for k, u in enumerate(self.milestone_unlocks):
            if u[0] == "city":
                cs[u[1]] = k
            else:
                ts[(u[1], u[2])] = k
        object.__setattr__(self, "_city_spot", cs)
        object.__setattr__(self, "_tunnel_spot", ts)
        # per location, (neighbour, Milestone spot of the Tunnel or -1, Milestone spot of the neighbour City
        # or -1) for each track: the lock test of a movement without dictionary look-ups (rules/trains.open_ways)
        object.__setattr__(self, "locked_adj", tuple(
            tuple((b, ts.get((min(a, b), max(a, b)), -1) if t else -1, cs.get(b, -1)) for b, t in self._adj[a])
            for a in range(len(self.ids))))


def _parse_side(raw: dict) -> TrainSide:
    name = str(raw.get("name"))
    locs = raw["locations"]
    ids = tuple(l["id"] for l in locs)
    index = {s: i for i, s in enumerate(ids)}
    if len(index) != len(ids):
        raise ValueError(f"train map side {name}: duplicate location ids")

    def loc(label):
        if label not in index:
            raise ValueError(f"train map side {name}: unknown location {label!r}")
        return index[label]

    tracks = []
    for t in raw["tracks"]:
        a, b = loc(t["a"]), loc(t["b"])
        tracks.append((min(a, b), max(a, b), bool(t.get("tunnel", False))))
    numbers = sorted({int(l["demand_spot"]) for l in locs})
    spot_of = {n: k for k, n in enumerate(numbers)}
    demand_spot = tuple(spot_of[int(l["demand_spot"])] for l in locs)
    spot_is_city = tuple(any(l["kind"] == CITY and int(l["demand_spot"]) == n for l in locs) for n in numbers)
    unlocks = []
    for m in raw["milestone_spots"]:
        u = m["unlocks"]
        if "-" in u:
            a, b = (loc(x) for x in u.split("-"))
            unlocks.append(("tunnel", min(a, b), max(a, b)))
        else:
            unlocks.append(("city", loc(u)))
    return TrainSide(name=name, players=tuple(raw["players"]), ids=ids, kind=tuple(l["kind"] for l in locs),
                     xy=tuple(tuple(l["xy"]) for l in locs), tracks=tuple(tracks), demand_spot=demand_spot,
                     demand_numbers=tuple(numbers), spot_is_city=spot_is_city,
                     milestone_ids=tuple(m["id"] for m in raw["milestone_spots"]),
                     milestone_unlocks=tuple(unlocks), provenance=raw.get("provenance", ""))


def validate_side(side: TrainSide) -> list[str]:
    """Every structure the texts fix, for one side; returns the problems (empty = valid)."""
    errs = []
    n = side.num_locations
    if any(k not in (TOWN, CITY) for k in side.kind):
        errs.append("a location kind is neither 'town' nor 'city'")
    if n > MAX_LOCATIONS:
        errs.append(f"{n} locations, but there are only {MAX_LOCATIONS} Delivery bonus tiles (R13.28)")
    # connected
    seen = {0}
    todo = [0]
    while todo:
        x = todo.pop()
        for y, _ in side.neighbours(x):
            if y not in seen:
                seen.add(y)
                todo.append(y)
    if len(seen) != n:
        errs.append("the tracks do not join every location (not connected)")
    # the Towns alone, without Tunnels, are connected too: an unclaimed player can always move on
    towns = set(side.towns)
    if towns:
        start = min(towns)
        seen = {start}
        todo = [start]
        while todo:
            x = todo.pop()
            for y, t in side.neighbours(x):
                if y in towns and not t and y not in seen:
                    seen.add(y)
                    todo.append(y)
        if seen != towns:
            errs.append("the Towns are not connected by ordinary tracks (a player with no Milestone could be stuck)")
    pairs = set()
    for a, b, _ in side.tracks:
        if a == b:
            errs.append(f"track from {side.ids[a]} to itself")
        if (a, b) in pairs:
            errs.append(f"two tracks between {side.ids[a]} and {side.ids[b]}")
        pairs.add((a, b))
    tunnels = [(a, b) for a, b, t in side.tracks if t]
    # Milestone spots: exactly 4, one per City and one per Tunnel (R1.9, A590)
    if len(side.milestone_unlocks) != 4:
        errs.append(f"{len(side.milestone_unlocks)} Milestone spots, the texts need 4 (A66, A590)")
    if len(side.cities) + len(tunnels) != 4:
        errs.append(f"Cities + Tunnels = {len(side.cities) + len(tunnels)}, must be 4 (one Milestone spot each)")
    cities_unlocked = sorted(u[1] for u in side.milestone_unlocks if u[0] == "city")
    if cities_unlocked != sorted(side.cities):
        errs.append("each City needs exactly one Milestone spot that unlocks it")
    tunnels_unlocked = sorted((u[1], u[2]) for u in side.milestone_unlocks if u[0] == "tunnel")
    if tunnels_unlocked != sorted(tunnels):
        errs.append("each Tunnel needs exactly one Milestone spot that unlocks it")
    # Demand spots: one per City, one per pair of Towns (R1.9)
    by_spot: dict[int, list[int]] = {}
    for i, s in enumerate(side.demand_spot):
        by_spot.setdefault(s, []).append(i)
    for s, members in by_spot.items():
        kinds = [side.kind[i] for i in members]
        if kinds == [CITY]:
            continue
        if kinds != [TOWN, TOWN]:
            errs.append(f"Demand spot {side.demand_numbers[s]} holds {[side.ids[i] for i in members]}: "
                        "a Demand spot is one City or a pair of Towns")
    # enough Towns for every starting Train (R1.12, R1.13): 4 players, or 2 Trains each in 2p
    need = max((2 * p if p == 2 else p) for p in side.players)
    if len(side.towns) < need:
        errs.append(f"{len(side.towns)} Towns, {need} Trains start on distinct Towns (R1.12/R1.13)")
    return errs


def _load() -> tuple[dict, dict]:
    with open(DATA_FILE, "rb") as fh:
        raw = tomllib.load(fh)
    sides = {}
    for s in raw["side"]:
        side = _parse_side(s)
        errs = validate_side(side)
        if errs:
            raise ValueError(f"{DATA_FILE.name}: train map side {side.name} is invalid: " + "; ".join(errs))
        sides[side.name] = side
    return raw, sides


RAW, SIDES = _load()
_r = RAW["rules"]
PASS_FEE = _r["pass_fee"]["value"]
CITY_GLORY = _r["city_glory"]["value"]
MAX_DISTANCE = _r["max_distance"]["value"]
STATION_AFTER = _r["station_after"]["value"]
MARKERS = _r["markers"]["value"]
DELIVERY_TRACK_VP = tuple(_r["delivery_track_vp"]["values"])
MILESTONE_VP = {2: tuple(_r["milestone_vp"]["two_player"]), 3: tuple(_r["milestone_vp"]["multi"]),
                4: tuple(_r["milestone_vp"]["multi"])}
SOLO_MILESTONE_VP = tuple(_r["solo_milestone_vp"]["values"])
SOLO_TRAIN_PENALTY = _r["solo_train_penalty"]["value"]
REFILL_SLOTS = {n: _r["refill_slots"][f"p{n}"] for n in (1, 2, 3, 4)}
VARIANT_A_COST = _r["variant_a_cost"]["value"]
VARIANT_B_COST = _r["variant_b_cost"]["value"]
VARIANT_B_MARKER_ROUNDS = tuple(_r["variant_b_marker_rounds"]["values"])
PORT16_LESS_PROCESSED = _r["port16"]["less_processed"]
PORT16_LESS_BASIC = _r["port16"]["less_basic"]


def _demand(t: dict) -> tuple[int, ...]:
    goods = [0] * D.NUM_GOODS
    for k, v in t.items():
        if k not in D.GOOD_INDEX:
            raise ValueError(f"{DATA_FILE.name}: Demand tile good {k!r} is not one of {D.GOODS}")
        goods[D.GOOD_INDEX[k]] = int(v)
    return tuple(goods)


#: Demand tile id (1-based) -> Goods per GOODS index
DEMAND_TILES = {k + 1: _demand(t) for k, t in enumerate(RAW["demand"]["tiles"])}
MILESTONES = {m["id"]: m for m in RAW["milestone"]}
MILESTONE_TEXT = {i: m["text"] for i, m in MILESTONES.items()}
MILESTONE_PARAMS = {i: dict(m.get("params", {})) for i, m in MILESTONES.items()}
DELIVERY_BONUSES = {b["id"]: b for b in RAW["delivery_bonus"]}
DELIVERY_TEXT = {i: b["text"] for i, b in DELIVERY_BONUSES.items()}
DELIVERY_PARTS = {i: tuple(dict(p) for p in b["parts"]) for i, b in DELIVERY_BONUSES.items()}
assert sorted(MILESTONES) == list(range(1, 17)) and sorted(DELIVERY_BONUSES) == list(range(1, 25))


def side_for(num_players: int) -> TrainSide:
    """R1.8 / R15.1 / R17.2: the 3/4-player side, or the 2-player side for 1-2 players."""
    for s in SIDES.values():
        if num_players in s.players:
            return s
    raise ValueError(f"no train map side for {num_players} players")  # pragma: no cover
