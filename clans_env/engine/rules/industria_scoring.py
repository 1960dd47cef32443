"""Industria, Scoring tiles 10-18 (player aid "Scoring Tiles"; rules R12.10-R12.19 of
docs/rules-index.md). Glory per item from data/industria.toml.

"Per pair" tiles (10, 13, 17) score the best pairing: a unit belongs to at most one pair, a Field
to two on tile 13 ("One Field produces 2 Grain, so it can be used for 2 pairs"; Q13). Units on one
space neighbour each other (R4.4) and each unit counts (R4.5): the tiles read the player's units
through ``own_units``, so a second unit on a space (Industria's stacking effects) counts too. The tiles that
count units on spaces without their type (14, 15, 18) read ``unit_spaces``, the Train station included (I18).
"""
from __future__ import annotations

from .. import data as D
from ..topology import bits
from .common import second_units, unit_spaces
from .registry import SCORING_TILES
from .scoring import goods_in_stock, settlements

#: a producer and the factory it feeds (tile 13: Cow + Cheese dairy, Field + Bakery, Field + Distillery)
CHAINS = {(D.COW, D.DAIRY), (D.FIELD, D.BAKERY), (D.FIELD, D.DISTILLERY)}


def own_units(g, p: int) -> list[tuple[int, int]]:
    """(space, unit) for every unit of p on the map, a second unit on a space included."""
    ua = g.unit_at
    out = [(s, ua[s]) for s in bits(g.players[p].spaces)]
    stacked = second_units(g)
    if stacked:
        for i in range(0, len(stacked), 3):
            if stacked[i + 2] == p:
                out.append((stacked[i], stacked[i + 1]))
    return out


def unit_type(u: int) -> int:
    """Workers count as one type (Q16: "all Workers count as one type")."""
    return D.WOODCUTTER if u in D.WORKERS else u


def max_matching(n: int, edges: list[tuple[int, int]]) -> int:
    """Largest set of disjoint pairs among ``n`` items (a player has at most a few dozen units): a search
    over the items left, which first matches any item with a single partner left to it (some largest
    matching does) and branches only where every item left has two or more."""
    adj = [0] * n
    for a, b in edges:
        adj[a] |= 1 << b
        adj[b] |= 1 << a
    memo = {0: 0}

    def best(left: int) -> int:
        top = memo.get(left)
        if top is not None:
            return top
        rest = left
        while rest:                      # an item with at most one partner left decides itself
            low = rest & -rest
            i = low.bit_length() - 1
            rest ^= low
            partners = adj[i] & left
            if partners & (partners - 1) == 0:
                top = best(left & ~low & ~partners) + (1 if partners else 0)
                break
        else:
            low = left & -left
            i = low.bit_length() - 1
            rest = left & ~low
            top = best(rest)
            partners = adj[i] & rest
            while partners:
                j = partners & -partners
                partners ^= j
                top = max(top, 1 + best(rest & ~j))
        memo[left] = top
        return top

    return best(sum(1 << i for i in range(n) if adj[i]))


def _close(g, a: int, b: int) -> bool:
    """Neighbouring spaces, or the same space (R4.4)."""
    return a == b or g.topo.neighbours[a] >> b & 1 == 1


def tile10_pairs(g, p: int) -> int:
    animals = [s for s, u in own_units(g, p) if u in D.ANIMALS]
    edges = [(i, j) for i in range(len(animals)) for j in range(i + 1, len(animals)) if _close(g, animals[i], animals[j])]
    return max_matching(len(animals), edges)


def tile13_pairs(g, p: int) -> int:
    """Production chains: producers matched to neighbouring factories, a Field up to twice (augmenting paths)."""
    units = own_units(g, p)
    producers = [(s, u) for s, u in units if u in (D.COW, D.FIELD)]
    factories = [(s, u) for s, u in units if u in D.FACTORIES]
    cap = g.clans[p].field_pairs
    slots = [k for k, (s, u) in enumerate(producers) for _ in range(cap if u == D.FIELD else 1)]
    match = [-1] * len(factories)        # factory -> producer slot

    def feeds(k: int, f: int) -> bool:
        (ps, pu), (fs, fu) = producers[k], factories[f]
        return (pu, fu) in CHAINS and _close(g, ps, fs)

    def augment(slot: int, seen: set) -> bool:
        k = slots[slot]
        for f in range(len(factories)):
            if f in seen or not feeds(k, f):
                continue
            seen.add(f)
            if match[f] < 0 or augment(match[f], seen):
                match[f] = slot
                return True
        return False

    return sum(1 for slot in range(len(slots)) if augment(slot, set()))


def tile17_pairs(g, p: int) -> int:
    units = own_units(g, p)
    rivers = g.board.river_edges
    edges = [(i, j) for i in range(len(units)) for j in range(i + 1, len(units))
             if unit_type(units[i][1]) == unit_type(units[j][1])
             and (min(units[i][0], units[j][0]), max(units[i][0], units[j][0])) in rivers]
    return max_matching(len(units), edges)


def settlement_sizes(g, p: int) -> list[int]:
    """How many of p's units each of p's Settlements holds: a second unit on a space counts (R4.5), and so
    does p's Train station ("counts as one of your units on that space", R13.16; Q17: with an opponent's
    unit it is "a 1-unit Settlement of yours")."""
    units = unit_spaces(g, p)
    return [sum(1 for s in units if comp >> s & 1) for comp in settlements(g, p)]


def _settlement_units(g, p: int) -> list[list[int]]:
    """The unit types in each of p's Settlements."""
    units = own_units(g, p)
    out = []
    for comp in settlements(g, p):
        out.append([u for s, u in units if comp >> s & 1])
    return out


def scoring_tile_glory(g, p: int, tile: int) -> int:
    """Glory of Industria Scoring tile ``tile`` (10-18) for p now."""
    pl = g.players[p]
    per = D.SCORING_GLORY[tile]
    topo = g.topo
    if tile == 10:
        return per * tile10_pairs(g, p)
    if tile == 11:
        return per * sum(pl.merchants_market)
    if tile == 12:
        return per * (sum(1 for q in goods_in_stock(g, p) if q > 0) + (1 if g.clans[p].extra_processed(g, p) else 0))
    if tile == 13:
        return per * (tile13_pairs(g, p) + g.clans[p].production_chains(g, p))
    if tile == 14:
        around = topo.central_loch
        for s in bits(topo.central_loch):
            for t in g.board.adjacent[s]:
                around |= 1 << t
        return per * (sum(1 for s in unit_spaces(g, p) if around >> s & 1) // D.TILE14_UNITS)   # the station too (I18)
    if tile == 15:
        dry = topo.land_mask & ~topo.next_to_loch
        return per * sum(1 for s in unit_spaces(g, p) if dry >> s & 1)          # the station too (I18)
    if tile == 16:
        return per * max((len({unit_type(u) for u in units}) for units in _settlement_units(g, p)), default=0)
    if tile == 17:
        return per * tile17_pairs(g, p)
    if tile == 18:
        return per * sum(1 for n in settlement_sizes(g, p) if n == D.TILE18_UNITS)
    raise ValueError(f"unknown scoring tile {tile}")


for _tile in D.SCORING_TILES_INDUSTRIA:
    SCORING_TILES[_tile] = scoring_tile_glory
