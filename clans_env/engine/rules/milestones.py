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

from operator import itemgetter

from .. import data as D
from .. import trainmap as TM
from ..actions import CHOOSE
from ..board import offset_to_cube
from ..state import K_MILESTONE
from ..topology import bit_list, bits
from .common import TRAINS, second_units, station_space, stations, unit_spaces
from .industria_scoring import own_units, unit_type
from .registry import apply_for, describe_for, legal_for
from .scoring import basic_in_stock, settlements, upgrades_count
from . import train_core as TR
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


def _placed(pl, units) -> int:
    return sum(pl.units_placed(u) for u in units)


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


#: board -> each space's cube coordinates (None off the grid); the few boards of a process are kept
_CUBES: dict = {}


def _line5(g, p: int, length: int) -> bool:
    """``length`` spaces with p's units in a straight hex line (any of the 3 axes)."""
    cubes = _CUBES.get(g.board)
    if cubes is None:
        if len(_CUBES) > 64:
            _CUBES.clear()
        cubes = _CUBES[g.board] = tuple(offset_to_cube(*rc) if rc is not None else None for rc in g.board.rowcol)
    own = {cubes[s] for s in bit_list(_spaces_with_units(g, p))}
    own.discard(None)
    for dx, dy, dz in ((1, -1, 0), (1, 0, -1), (0, 1, -1)):
        for x, y, z in own:
            if (x - dx, y - dy, z - dz) in own:
                continue
            k = 1
            while (x + k * dx, y + k * dy, z + k * dz) in own:
                k += 1
            if k >= length:
                return True
    return False


#: the tiles whose conditions read only where p's units stand (and the map): their answers are remembered
#: per map and unit layout, since the main decision asks them at every turn and a layout changes rarely
_LAYOUT_TILES = frozenset((7, 8, 9, 10, 11, 12, 13))
_LAYOUT_MEMO: dict = {}


def condition(g, p: int, tile: int, layout: tuple | None = None) -> bool:
    """Milestone ``tile``'s condition for player p now (R13.24); ``layout``: ``layout_key(g, p)`` if known."""
    if tile in _LAYOUT_TILES:
        key = (tile, layout or layout_key(g, p))
        met = _LAYOUT_MEMO.get(key)
        if met is None:
            if len(_LAYOUT_MEMO) > 50_000:
                _LAYOUT_MEMO.clear()
            met = _LAYOUT_MEMO[key] = _condition(g, p, tile)
        return met
    return _condition(g, p, tile)


def layout_key(g, p: int) -> tuple:
    """Everything the layout tiles read: the map, p's spaces and the unit on each, the second units on
    spaces (Industria stacking, everyone's: a superset is still exact), p's Train station."""
    spaces = g.players[p].spaces
    ua = g.unit_at
    stacked = second_units(g)
    st = stations(g)
    getter = _UNITS_ON.get(spaces)
    if getter is None:
        if len(_UNITS_ON) > 50_000:
            _UNITS_ON.clear()
        own = bit_list(spaces)
        # itemgetter answers a tuple for 2 indices or more: one space is read twice, no space gives ()
        getter = _UNITS_ON[spaces] = itemgetter(*own, *own) if len(own) == 1 else itemgetter(*own) if own else _no_units
    return (g.topo, g.board, spaces, getter(ua), tuple(stacked) if stacked else (), st[p] if st else -1)


def _no_units(ua) -> tuple:
    return ()


#: space set -> a function reading the unit on each of its spaces from ``g.unit_at`` (a space set recurs
#: turn after turn, and the bits of a mask cost more to list than to look up)
_UNITS_ON: dict = {}


#: layout tile -> the fewest of p's units on the map (spaces, second units, the station) it needs: each counts
#: at least that many (7: ``amount`` Settlements of 3 spaces or more; 8: ``types`` x ``amount`` units; 9: one
#: unit per type), so a player with fewer fails it without the full test
_MIN_UNITS = {7: 3 * _p(7, "amount"), 8: _p(8, "types") * _p(8, "amount"),
              9: len({unit_type(u) for u in range(D.NUM_UNITS)}), 10: _p(10, "amount"), 11: _p(11, "amount"),
              12: _p(12, "amount"), 13: _p(13, "amount")}
assert set(_MIN_UNITS) == _LAYOUT_TILES


def _units_bound(g, p: int) -> int:
    """At least the number of p's units on the map: spaces, every second unit (anyone's) and one station."""
    return g.players[p].spaces.bit_count() + len(second_units(g)) // 3 + 1


def _condition(g, p: int, tile: int) -> bool:
    pl = g.players[p]
    if tile == 1:
        return max(pl.imports) >= _p(1, "amount")
    if tile == 2:
        return pl.ports_used.bit_count() >= _p(2, "amount")          # R13.25: shipyards are not Port tiles
    if tile == 3:
        return _placed(pl, D.FACTORIES) >= _p(3, "amount")
    if tile == 4:
        return basic_in_stock(g, p) >= _p(4, "amount")          # Gordon's Silo Grain is in stock (R18.G6)
    if tile == 5:
        return sum(pl.units_left[u] for u in D.WORKERS) == 0
    if tile == 6:
        return upgrades_count(g, p) >= _p(6, "amount")
    if tile == 7:
        return sum(1 for c in settlements(g, p) if _triangles(g, c, first_only=True)) >= _p(7, "amount")
    if tile == 8:
        counts = {}
        for _, u in own_units(g, p):
            t = unit_type(u)
            if u not in D.WORKERS:
                counts[t] = counts.get(t, 0) + 1
        return sum(1 for v in counts.values() if v >= _p(8, "amount")) >= _p(8, "types")
    if tile == 9:
        types = {unit_type(u) for _, u in own_units(g, p)}
        need = {unit_type(u) for u in range(D.NUM_UNITS)}
        return need <= types
    if tile == 10:
        return len(own_units(g, p)) >= _p(10, "amount")
    if tile == 11:
        units = unit_spaces(g, p)
        return any(sum(1 for s in units if c >> s & 1) >= _p(11, "amount") for c in settlements(g, p))
    if tile == 12:
        return sum(1 for s in unit_spaces(g, p) if g.topo.along_river >> s & 1) >= _p(12, "amount")
    if tile == 13:
        return _line5(g, p, _p(13, "amount"))
    if tile == 14:
        return sum(_LONG[c] for c in pl.done_contracts) >= _p(14, "contracts")
    if tile == 15:
        kinds = 0
        for cid in pl.done_contracts:
            kinds |= _KINDS[cid]
        return kinds.bit_count() >= _p(15, "amount")
    if tile == 16:
        return sum(_NO_DIRECT_BONUS[c] for c in pl.done_contracts) >= _p(16, "amount")
    raise AssertionError(f"no Milestone tile {tile}")  # pragma: no cover


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
    if markers_available(g, p) <= 0:
        return []
    pl = g.players[p]
    cost = claim_cost(g)
    if pl.money < cost:
        return []
    out = []
    n = g.num_players
    claims = g.modstate[TRAINS].claims
    variant_b = g.config.milestones == "variant_b"
    layout = None
    units = -1
    for k, tile in enumerate(g.modstate[TRAINS].ms):
        if claims[k * n + p]:
            continue
        if tile in _LAYOUT_TILES:
            if units < 0:
                units = _units_bound(g, p)
            if units < _MIN_UNITS[tile]:
                continue
            if layout is None:
                layout = layout_key(g, p)
        if not condition(g, p, tile, layout):
            continue
        if variant_b:
            need = TM.DEMAND_TILES.get(g.modstate[TRAINS].demand[k])
            if need is None or any(pl.goods[i] < q for i, q in enumerate(need)):
                continue
        out.append(k)
        if first_only:
            break
    return out


def claim_options(g, p: int, out: list) -> None:
    if active(g) and claimable(g, p, first_only=True):
        out.append(CLAIM_ACTION)


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
