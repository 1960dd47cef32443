"""Static map facts the rules need, precomputed once per (assembled board, player count).

Everything is a Python int used as a bit set over space ids: union, intersection and
"is there any" are single integer operations, which is what makes legal-move generation
for Expand cheap. A ``Topology`` is immutable and shared by every clone of a game.

Rules implemented here (rulebook, "3. Expand" and "4. Upgrade Shipping"):
- Neighbouring: adjacent space with no river in between.
- River-crossing: also the adjacent land space across a river.
- n-loch: also any space next to a chain of at most n consecutive loch spaces that starts
  next to the unit, a loch space as much as a land space (so at 1-loch a Fisherman may go
  on a loch one loch away, and Fishermen one loch apart are within reach of each other).
  Reach never hops over a land space.
"""
from __future__ import annotations

from functools import lru_cache

from . import data as D
from .board import KIND_LAND, KIND_LOCH, KIND_PORT, LAND_FOREST, LAND_GRASS, LAND_MOUNTAIN, Board

#: land types each unit may stand on (rulebook, Land Restrictions)
UNIT_LAND = {D.SHEEP: LAND_GRASS, D.COW: LAND_GRASS, D.FIELD: LAND_GRASS, D.DAIRY: LAND_GRASS,
             D.BAKERY: LAND_GRASS, D.DISTILLERY: LAND_GRASS, D.WOODCUTTER: LAND_FOREST,
             D.MINER: LAND_MOUNTAIN}


def bits(mask: int):
    """Yield the set bit positions of ``mask`` in increasing order."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


#: per byte of a space set (16: space ids are below 128) and byte value, its set bit positions
_BYTE_BITS = tuple(tuple(tuple(8 * k + i for i in range(8) if b >> i & 1) for b in range(256)) for k in range(16))


def offset_table(offset: int) -> tuple:
    """``bit_list``'s table with ``offset`` added to every position (``bit_list(mask, offset_table(SPACE))``:
    the action indices of a space set without a second pass)."""
    return tuple(tuple(tuple(offset + s for s in positions) for positions in row) for row in _BYTE_BITS)


def bit_list(mask: int, table: tuple = _BYTE_BITS) -> list[int]:
    """``list(bits(mask))`` for a space set, a byte at a time: faster than ``bits`` for the dozens of
    spaces a placement can target (a legal list of its own); ``table``: ``offset_table(k)`` for the
    positions plus k."""
    out: list[int] = []
    for k, byte in enumerate(mask.to_bytes(16, "little")):
        if byte:
            out += table[k][byte]
    return out


def components(mask: int, adjacency) -> list[int]:
    """The connected parts of the space set ``mask`` (bit sets, lowest space first), spaces joined when
    ``adjacency[s]`` (a bit set per space) links them: settlements, herds, groups."""
    comps = []
    left = mask
    while left:
        comp = frontier = left & -left
        while frontier:
            grow = 0
            # bits() inlined (~20% faster): settlements are asked in scoring and in the agents' evaluations
            while frontier:
                low = frontier & -frontier
                grow |= adjacency[low.bit_length() - 1]
                frontier ^= low
            grow &= mask & ~comp
            comp |= grow
            frontier = grow
        comps.append(comp)
        left &= ~comp
    return comps


@lru_cache(maxsize=64)
def adjacency_masks(board: Board) -> tuple[int, ...]:
    """Per space, the bit set of spaces adjacent to it (rivers do not matter; ``Topology.neighbours``
    leaves out the spaces across a river)."""
    return tuple(sum(1 << t for t in board.adjacent[s]) for s in range(board.num_spaces))


class Topology:
    __slots__ = ("board", "num_players", "num_spaces", "active", "land_mask", "loch_mask", "port_mask",
                 "unit_mask", "cost", "cost_le", "border", "delta", "neighbours", "reach", "port_space",
                 "central_loch", "mist", "labels", "cost56", "along_river", "next_to_loch", "market_sites",
                 "port_spaces", "unit_groups", "adjacent")

    def __init__(self, board: Board, num_players: int):
        self.board = board
        self.num_players = num_players
        n = self.num_spaces = board.num_spaces
        active = board.active(num_players)
        border = board.border(num_players)
        self.labels = board.label
        self.active = sum(1 << s for s in range(n) if active[s])
        self.land_mask = sum(1 << s for s in range(n) if board.kind[s] == KIND_LAND) & self.active
        self.loch_mask = sum(1 << s for s in range(n) if board.kind[s] == KIND_LOCH) & self.active
        self.port_mask = sum(1 << s for s in range(n) if board.kind[s] == KIND_PORT) & self.active
        self.mist = sum(1 << s for s in range(n) if board.mist[s])
        self.border = sum(1 << s for s in range(n) if border[s]) & self.land_mask
        self.delta = sum(1 << s for s in range(n) if board.river_delta[s]) & self.land_mask
        self.central_loch = sum(1 << s for s in board.central_loch)
        self.cost = tuple(board.cost)
        max_cost = max(board.cost)
        # cost_le[c]: active land spaces whose land cost is at most c (c clipped to 0..max_cost)
        self.cost_le = tuple(sum(1 << s for s in range(n) if board.kind[s] == KIND_LAND and board.cost[s] <= c)
                             & self.land_mask for c in range(max_cost + 1))
        self.cost56 = sum(1 << s for s in range(n) if board.cost[s] >= 5) & self.land_mask
        um = []
        for u in range(D.NUM_UNITS):
            if u in UNIT_LAND:
                um.append(sum(1 << s for s in range(n) if board.land[s] & UNIT_LAND[u]) & self.land_mask)
            else:  # Fishermen: lochs and port tiles (Clan MacDonald)
                um.append(self.loch_mask | self.port_mask)
        self.unit_mask = tuple(um)
        # runs of consecutive unit types on the same land (the six on grass, ...), in unit order:
        # (their mask, their unit types), so Expand's legality intersects each land mask once
        groups: list = []
        for u, m in enumerate(um):
            if groups and groups[-1][0] == m:
                groups[-1][1].append(u)
            else:
                groups.append((m, [u]))
        self.unit_groups = tuple((m, tuple(units)) for m, units in groups)
        self.adjacent = adjacency_masks(board)
        self.neighbours = tuple(sum(1 << t for t in board.neighbours[s]) & self.active for s in range(n))
        self.reach = tuple(tuple(self._reach(s, level) & self.active for s in range(n))
                           for level in range(D.MAX_SHIPPING + 1))
        # Industria (Award tiles 8 and 9, Farmers markets): spaces with a river edge; loch spaces and the
        # spaces adjacent to one; land spaces with enough neighbouring land for a Farmers market (R1.6)
        self.along_river = sum(1 << s for s in {s for e in board.river_edges for s in e}) & self.active
        self.next_to_loch = self.loch_mask | (sum(1 << s for s in range(n) if any(
            board.kind[t] == KIND_LOCH for t in board.adjacent[s])) & self.active)
        self.market_sites = sum(1 << s for s in range(n) if self.land_mask >> s & 1 and
                                (self.neighbours[s] & self.land_mask).bit_count() >= D.MARKET_MIN_NEIGHBOURING_LAND)
        # ports in play: slot k sits on module k's port position for this player count
        which = 0 if num_players <= 2 else 1
        self.port_space = tuple(pp[which] for pp in board.port_positions)
        self.port_spaces = sum(1 << s for s in set(self.port_space))   # bit set of the slots' spaces

    def _reach(self, s: int, level: int) -> int:
        b = self.board
        mask = 0
        for t in b.neighbours[s]:
            mask |= 1 << t
        if level >= 1:  # river-crossing: the adjacent land space across a river
            for t in b.adjacent[s]:
                if b.kind[t] == KIND_LAND and b.kind[s] != KIND_PORT:
                    mask |= 1 << t
        if level >= 2:  # n-loch: across up to (level - 1) consecutive loch spaces
            max_lochs = level - 1
            frontier = [t for t in b.adjacent[s] if b.kind[t] == KIND_LOCH]
            seen = set(frontier)
            depth = 1
            while frontier:
                nxt = []
                for loch in frontier:
                    mask |= 1 << loch
                    for t in b.adjacent[loch]:
                        if t == s:
                            continue
                        # beyond `depth` crossed lochs lies land or the next loch: both are
                        # in reach (a Fisherman may stand on that loch); only a loch may be
                        # crossed further, while the level allows
                        mask |= 1 << t
                        if b.kind[t] == KIND_LOCH and depth < max_lochs and t not in seen:
                            seen.add(t)
                            nxt.append(t)
                frontier = nxt
                depth += 1
        mask &= ~(1 << s)
        return mask

    def affordable(self, budget: int) -> int:
        """Active land spaces whose land cost fits in ``budget``."""
        if budget < 0:
            return 0
        if budget >= len(self.cost_le):
            return self.cost_le[-1]
        return self.cost_le[budget]


@lru_cache(maxsize=64)
def topology(board: Board, num_players: int) -> Topology:
    return Topology(board, num_players)
