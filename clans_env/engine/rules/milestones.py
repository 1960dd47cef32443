"""Industria, Milestones (player aid "Claim a Milestone", "Milestone Tiles", "Final Scoring", "Milestones
Without the Train Module"; rules R13.19-R13.25, R14.3-R14.4, R16.2-R16.4, R17.4 of
docs/rules-index.md). One function per Milestone tile (``CONDITIONS``); the numbers are the
tiles' own (data/trains.toml ``params``).

State (``train_core.TrainState`` in ``g.modstate["trains"]``): ``ms`` the Milestone tile on each of the 4
spots; ``claims[spot * n + p]`` the place (1st, 2nd, ...) in which p claimed it (0 = not claimed);
``claim_round`` the round of the claim (solo VP, R17.4). Variant A (R16.3): ``markers`` starts at 4 and a
claim costs £5. Variant B (R16.4): a Demand tile beside each Milestone (``demand``, refilled each
Preparation from ``demand_refill``), a claim
pays its Goods and £15, and the markers are those beside the Scoring tiles of rounds 1-4 up to now.
"""
from __future__ import annotations

from typing import Callable

from .. import data as D
from .. import trainmap as TM
from ..actions import CHOOSE
from ..board import offset_to_cube
from ..state import K_MILESTONE
from ..topology import bits
from .common import TRAINS, second_units, station_space
from .industria_scoring import unit_type
from .registry import apply_for, describe_for, legal_for
from .scoring import basic_in_stock, settlements, upgrades_count
from .train_core import TrainState, train_players

#: the main decision's index for "Claim a Milestone" (R2.7, R13.19)
CLAIM_ACTION = CHOOSE + 30
NUM_SPOTS = 4


def active(g) -> bool:
    ts = g.modstate.get(TRAINS)
    return ts is not None and ts.ms is not None


def variant(g) -> str:
    """'train' (the Train module), 'variant_a' or 'variant_b'."""
    return g.config.milestones or "train"


def setup_milestones(g) -> None:
    """R1.9 / R16.2: 4 Milestone tiles drawn at random onto the spots."""
    tiles = list(TM.MILESTONES)
    g.rng.shuffle(tiles)
    n = g.num_players
    ts = g.modstate[TRAINS]
    ts.ms = tiles[:NUM_SPOTS]
    ts.claims = [0] * (NUM_SPOTS * n)
    ts.claim_round = [0] * (NUM_SPOTS * n)


def setup_variant(g) -> None:
    """R16.2-R16.4: the Milestone variants without the Train module."""
    ts = g.modstate[TRAINS] = TrainState()
    setup_milestones(g)
    n = g.num_players
    if variant(g) == "variant_a":
        ts.markers = [TM.MARKERS] * n       # R16.3: all 4 markers next to the player board
        return
    pile = list(TM.DEMAND_TILES)                    # R16.4
    g.rng.shuffle(pile)
    ts.demand = [pile.pop(0) for _ in range(NUM_SPOTS)]
    ts.demand_refill = [pile.pop(0) for _ in range(TM.REFILL_SLOTS[4])]
    ts.pile = pile


def preparation_variant_b(g) -> None:
    """R16.4: every Preparation but the first, all Demand tiles beside the Milestones are replaced from the
    refill track, which is replenished as normal."""
    ts = g.modstate[TRAINS]
    demand, refill, pile = ts.demand, ts.demand_refill, ts.pile
    for s in range(NUM_SPOTS):
        demand[s] = refill.pop(0) if refill else 0
    while len(refill) < TM.REFILL_SLOTS[4] and pile:
        refill.append(pile.pop(0))


def claimed_by(g, spot: int, p: int) -> bool:
    return g.modstate[TRAINS].claims[spot * g.num_players + p] > 0


def claimers(g, spot: int) -> int:
    n = g.num_players
    return sum(1 for x in g.modstate[TRAINS].claims[spot * n:(spot + 1) * n] if x)


# ---- the 16 conditions (R13.24; all minimum conditions, R13.23) ----------------------------------------
def _p(tile: int, key: str) -> int:
    return TM.MILESTONE_PARAMS[tile][key]


def _triangles(g, comp: int, first_only: bool = False) -> int:
    """Triangles of 3 mutually neighbouring spaces inside the space set ``comp`` (``first_only``: 1 once one
    is found, as Milestone 7 asks only whether there is one)."""
    nb = g.topo.neighbours
    count = 0
    for a in bits(comp):
        for b in bits(nb[a] & comp):
            if b <= a:
                continue
            for c in bits(nb[a] & nb[b] & comp):
                if c > b:
                    if first_only:
                        return 1
                    count += 1
    return count


def _spaces_with_units(g, p: int) -> int:
    """R13.16: the Train station "counts as one of your units on that space", so the Milestones about
    spaces with p's units (7, 13) and about p's units on the map (11, 12) count it; it is neither deployed
    nor of a unit type, so 8, 9 and 10 do not (T7)."""
    st = station_space(g, p)
    return g.players[p].spaces | (1 << st if st >= 0 else 0)


def _line5(g, p: int, length: int) -> bool:
    """``length`` spaces with p's units in a straight hex line (any of the 3 axes)."""
    own = _spaces_with_units(g, p)
    lines = _lines(g.board, length)
    for s in bits(own):
        for line in lines[s]:
            if type(line) is int:
                if own & line == line:
                    return True
            elif all(own & cube for cube in line):
                return True
    return False


_AXES = ((1, -1, 0), (1, 0, -1), (0, 1, -1))


def _lines(board, length: int) -> tuple:
    """Per space, the straight lines of ``length`` hex cells starting at its cell along each axis (cube
    coordinates of the board's rows and columns), each as the bit set of its spaces, or, where a cell holds
    several spaces (the Port tiles, which have no row), as the bit set of each cell's spaces: a line is
    covered when every cell has one of p's spaces. Made once per grid (every board shares one) and length."""
    for rowcol, n, lines in _LINES:
        if n == length and rowcol == board.rowcol:
            return lines
    lines = _grid_lines(board.rowcol, length)
    _LINES.append((board.rowcol, length, lines))
    return lines


def _grid_lines(rowcol: tuple, length: int) -> tuple:
    cubes = [offset_to_cube(*rc) if rc is not None else None for rc in rowcol]
    cell: dict = {}
    for s, c in enumerate(cubes):
        if c is not None:
            cell[c] = cell.get(c, 0) | 1 << s
    rows = []
    for c in cubes:
        mine = []
        if c is not None:
            x, y, z = c
            for dx, dy, dz in _AXES:
                masks = [cell.get((x + k * dx, y + k * dy, z + k * dz), 0) for k in range(length)]
                if all(masks):
                    mine.append(sum(masks) if all(m & (m - 1) == 0 for m in masks) else tuple(masks))
        rows.append(tuple(mine))
    return tuple(rows)


#: (rows and columns, length, ``_lines``) for each grid seen (one in practice: compared, not hashed)
_LINES: list = []


#: the tiles whose conditions read only where p's units stand (the spaces with p's units, p's second units,
#: p's Train station, the map): their answers are remembered per map and placement (``placement_key``),
#: since the main decision asks them at every turn and p's placement changes rarely
_PLACEMENT_TILES = frozenset((7, 11, 12, 13))
_PLACEMENT_MEMO: dict = {}


def condition(g, p: int, tile: int, placement: tuple | None = None) -> bool:
    """Milestone ``tile``'s condition for player p now (R13.24); ``placement``: ``placement_key(g, p)`` if
    known."""
    if tile in _PLACEMENT_TILES:
        key = (tile, placement or placement_key(g, p))
        met = _PLACEMENT_MEMO.get(key)
        if met is None:
            if len(_PLACEMENT_MEMO) > 50_000:
                _PLACEMENT_MEMO.clear()
            met = _PLACEMENT_MEMO[key] = CONDITIONS[tile](g, p)
        return met
    return CONDITIONS[tile](g, p)


def placement_key(g, p: int) -> tuple:
    """Everything the placement tiles read: the map and where p's units stand (``_unit_sites``)."""
    spaces, station, second = _unit_sites(g, p)
    return (g.topo, spaces, station, tuple(second))


#: placement tile -> the fewest of p's units on the map (spaces, second units, the station) it needs: each
#: counts at least that many (7: ``amount`` Settlements of 3 spaces or more), so a player with fewer fails
#: it without the full test
_MIN_UNITS = {7: 3 * _p(7, "amount"), 11: _p(11, "amount"), 12: _p(12, "amount"), 13: _p(13, "amount")}
assert set(_MIN_UNITS) == _PLACEMENT_TILES


def _units_bound(g, p: int) -> int:
    """At least the number of p's units on the map: spaces, every second unit (anyone's) and one station."""
    return g.players[p].spaces.bit_count() + len(second_units(g)) // 3 + 1


# The unit tiles (8-10) count p's units on the map by type, a second unit on a space included and the Train
# station not (T7): the supply less what is on p's Player board (``units_placed``; the engine keeps the two
# equal, invariants.py), which needs no look at the map.
_NOT_WORKERS = tuple(u for u in range(D.NUM_UNITS) if u not in D.WORKERS)
#: the units of each unit type (Workers are one type, Q16)
_TYPE_GROUPS = tuple(tuple(u for u in range(D.NUM_UNITS) if unit_type(u) == t)
                     for t in sorted({unit_type(u) for u in range(D.NUM_UNITS)}))


# Each tile's numbers are bound as default arguments: read once, where the main decision asks at every turn.
# The unit tiles read ``units_total[u] - units_left[u]`` (``PlayerState.units_placed``) inline, with plain
# loops: the main decision asks them at every turn, and a generator or a method call per unit type cost
# more than the count itself.
def _m1(g, p: int, amount: int = _p(1, "amount")) -> bool:
    return max(g.players[p].imports) >= amount


def _m2(g, p: int, amount: int = _p(2, "amount")) -> bool:
    return g.players[p].ports_used.bit_count() >= amount          # R13.25: shipyards are not Port tiles


def _m3(g, p: int, amount: int = _p(3, "amount"), factories: tuple = D.FACTORIES) -> bool:
    pl = g.players[p]
    total, left = pl.units_total, pl.units_left
    n = 0
    for u in factories:
        n += total[u] - left[u]
    return n >= amount


def _m4(g, p: int, amount: int = _p(4, "amount")) -> bool:
    return basic_in_stock(g, p) >= amount          # Gordon's Silo Grain is in stock (R18.G6)


def _m5(g, p: int, workers: tuple = D.WORKERS) -> bool:
    left = g.players[p].units_left
    for u in workers:
        if left[u]:
            return False
    return True


def _m6(g, p: int, amount: int = _p(6, "amount")) -> bool:
    return upgrades_count(g, p) >= amount


def _m7(g, p: int, amount: int = _p(7, "amount")) -> bool:
    return sum(1 for c in settlements(g, p) if c.bit_count() >= 3 and _triangles(g, c, first_only=True)) >= amount


def _m8(g, p: int, amount: int = _p(8, "amount"), types: int = _p(8, "types")) -> bool:
    pl = g.players[p]
    total, left = pl.units_total, pl.units_left
    n = 0
    for u in _NOT_WORKERS:
        if total[u] - left[u] >= amount:
            n += 1
    return n >= types


def _m9(g, p: int) -> bool:
    """Every unit type on the map: a unit of each group of ``_TYPE_GROUPS`` placed."""
    pl = g.players[p]
    total, left = pl.units_total, pl.units_left
    for group in _TYPE_GROUPS:
        for u in group:
            if total[u] > left[u]:
                break
        else:
            return False
    return True


def _m10(g, p: int, amount: int = _p(10, "amount")) -> bool:
    pl = g.players[p]
    return sum(pl.units_total) - sum(pl.units_left) >= amount


def _unit_sites(g, p: int) -> tuple[int, int, list]:
    """``unit_spaces`` in bit-set form: the spaces with p's (first) units, p's Train station's space (-1:
    none; it counts as one of p's units there, R13.16) and p's second units' spaces (R4.5)."""
    stacked = second_units(g)
    second = [stacked[i] for i in range(0, len(stacked), 3) if stacked[i + 2] == p] if stacked else []
    return g.players[p].spaces, station_space(g, p), second


def _units_on(sites: tuple, mask: int) -> int:
    """How many of p's units (``_unit_sites``) stand on the spaces of ``mask``."""
    spaces, st, second = sites
    n = (mask & spaces).bit_count() + (st >= 0 and mask >> st & 1)
    for s in second:
        n += mask >> s & 1
    return n


def _m11(g, p: int, amount: int = _p(11, "amount")) -> bool:
    sites = _unit_sites(g, p)
    return _units_on(sites, -1) >= amount and any(_units_on(sites, c) >= amount for c in settlements(g, p))


def _m12(g, p: int, amount: int = _p(12, "amount")) -> bool:
    return _units_on(_unit_sites(g, p), g.topo.along_river) >= amount


def _m13(g, p: int, amount: int = _p(13, "amount")) -> bool:
    return _line5(g, p, amount)


def _m14(g, p: int, contracts: int = _p(14, "contracts")) -> bool:
    return sum(map(_LONG.__getitem__, g.players[p].done_contracts)) >= contracts


def _m15(g, p: int, amount: int = _p(15, "amount")) -> bool:
    kinds = 0
    for cid in g.players[p].done_contracts:
        kinds |= _KINDS[cid]
    return kinds.bit_count() >= amount


def _m16(g, p: int, amount: int = _p(16, "amount")) -> bool:
    return sum(map(_NO_DIRECT_BONUS.__getitem__, g.players[p].done_contracts)) >= amount


#: Milestone tile -> its condition (R13.24; all minimum conditions, R13.23)
CONDITIONS: dict[int, Callable[..., bool]] = {
    1: _m1, 2: _m2, 3: _m3, 4: _m4, 5: _m5, 6: _m6, 7: _m7, 8: _m8, 9: _m9, 10: _m10, 11: _m11, 12: _m12, 13: _m13,
    14: _m14, 15: _m15, 16: _m16}
assert set(CONDITIONS) == set(TM.MILESTONES)


def _condition(g, p: int, tile: int) -> bool:
    """Milestone ``tile``'s condition evaluated afresh (``condition`` remembers the placement tiles')."""
    return CONDITIONS[tile](g, p)


def _direct_export_bonuses(c) -> int:
    """The Direct export bonuses a contract grants: Money, Free space and Bonus upgrade (the aid's "Direct
    Export Bonuses" list; Milestone 16, T8)."""
    return bool(c.money) + c.free_space + c.bonus_upgrade


def _kinds(c) -> int:
    """The kinds of Goods a contract asks (Milestone 15), as a bit set: each Good, Beef and Mutton."""
    kinds = sum(1 << i for i, q in enumerate(c.goods) if q)
    return kinds | bool(c.beef) << len(c.goods) | bool(c.mutton) << len(c.goods) + 1


#: contract id -> what the contract Milestones (14-16) count of it: at least the tile's hops, its kinds of
#: Goods, no Direct export bonus (the contracts never change, so these are read, not recomputed)
_LONG = {c.id: int(c.hops >= _p(14, "hops")) for c in D.CONTRACTS}
_KINDS = {c.id: _kinds(c) for c in D.CONTRACTS}
_NO_DIRECT_BONUS = {c.id: int(not _direct_export_bonuses(c)) for c in D.CONTRACTS}


# ---- claiming (R13.19-R13.21; variants R16.3, R16.4) ---------------------------------------------------
def markers_available(g, p: int) -> int:
    if g.config.milestones == "variant_b":
        n = g.num_players
        made = sum(1 for k in range(NUM_SPOTS) if g.modstate[TRAINS].claims[k * n + p])
        return min(g.round, len(TM.VARIANT_B_MARKER_ROUNDS)) - made
    return g.modstate[TRAINS].markers[p]


def claim_cost(g) -> int:
    v = variant(g)
    return TM.VARIANT_A_COST if v == "variant_a" else TM.VARIANT_B_COST if v == "variant_b" else 0


def claimable(g, p: int, first_only: bool = False) -> list[int]:
    """Spots p may claim now: a marker in stock, the condition met, not yet claimed by p (Q26)."""
    ts = g.modstate[TRAINS]
    milestones = g.config.milestones
    variant_b = milestones == "variant_b"
    pl = g.players[p]
    if milestones:
        if (markers_available(g, p) if variant_b else ts.markers[p]) <= 0 or pl.money < claim_cost(g):
            return []                                   # no marker, or not the variants' price (R16.3/R16.4)
    elif ts.markers[p] <= 0:
        return []
    out = []
    n = g.num_players
    claims = ts.claims
    placement = None
    units = -1
    for k, tile in enumerate(ts.ms):
        if claims[k * n + p]:
            continue
        if tile in _PLACEMENT_TILES:
            if units < 0:
                units = _units_bound(g, p)
            if units < _MIN_UNITS[tile]:
                continue
            if placement is None:
                placement = placement_key(g, p)
            met = _PLACEMENT_MEMO.get((tile, placement))     # ``condition``'s memo, read here first
            if not (condition(g, p, tile, placement) if met is None else met):
                continue
        elif not CONDITIONS[tile](g, p):
            continue
        if variant_b:
            need = TM.DEMAND_TILES.get(ts.demand[k])
            if need is None or any(pl.goods[i] < q for i, q in enumerate(need)):
                continue
        out.append(k)
        if first_only:
            break
    return out


def start_claim(g, p: int) -> None:
    g.stack.append((K_MILESTONE, p))


@legal_for(K_MILESTONE)
def legal_milestone(g, frame) -> list:
    return [CHOOSE + k for k in claimable(g, frame[1])]


@apply_for(K_MILESTONE)
def apply_milestone(g, frame, action: int) -> None:
    """R13.21: the marker goes on the highest free scoring spot (1st, 2nd, ...); the City or Tunnel is
    unlocked for p (trains.city_open / tunnel_open ask ``claimed_by``)."""
    p = frame[1]
    g.stack.pop()
    k = action - CHOOSE
    n = g.num_players
    pl = g.players[p]
    pl.money -= claim_cost(g)
    if variant(g) == "variant_b":
        for i, q in enumerate(TM.DEMAND_TILES[g.modstate[TRAINS].demand[k]]):
            pl.goods[i] -= q
    else:
        g.modstate[TRAINS].markers[p] -= 1
    g.modstate[TRAINS].claims[k * n + p] = claimers(g, k) + 1
    g.modstate[TRAINS].claim_round[k * n + p] = g.round


@describe_for(K_MILESTONE)
def describe_milestone(g, frame) -> str:
    ms = g.modstate[TRAINS].ms
    opts = ", ".join(f"choose:{k}=Milestone {ms[k]} ({TM.MILESTONE_TEXT[ms[k]]})"
                     for k in claimable(g, frame[1]))
    return f"Claim a Milestone (R13.19-R13.21): {opts}"


# ---- final scoring (R14.3, R14.4, R17.4) ---------------------------------------------------------------
def milestone_vp(g) -> list[int]:
    """R14.3/R14.4 by the number of players who play the Milestones (an Automa claims none, automa.md
    §6.3); one player, alone or against Automas: by the round of the claim (R17.2/R17.4; A14)."""
    n = g.num_players
    out = [0] * n
    if not active(g):
        return out
    m = train_players(g)
    ts = g.modstate[TRAINS]
    claims, rounds = ts.claims, ts.claim_round
    for k in range(NUM_SPOTS):
        for p in range(n):
            place = claims[k * n + p]
            if not place:
                continue
            if m == 1:
                out[p] += TM.SOLO_MILESTONE_VP[rounds[k * n + p] - 1]
            else:
                vp = TM.MILESTONE_VP[m]
                out[p] += vp[place - 1] if place <= len(vp) else 0
    return out
