"""The map: eight module sides as data, assembled into one immutable :class:`Board`.

Everything here is pure Python (stdlib only).  The printed map modules of *Clans of
Caledonia* are pictures we do not have, so the eight sides in ``data/maps/*.toml`` are
**designed stand-ins** that keep every structural feature the rules rely on (land types,
costs, lochs, rivers and river deltas, mist, border spaces, ports, the central loch).
See ``docs/map-design.md`` for the geometry and the file format.

Geometry (fixed for all sides, so all 16 assemblies line up):

* one hex grid, pointy-top hexes, **odd-r** offset coordinates (odd global rows are shifted
  right by half a hex), 12 columns x 10 rows = 120 cells;
* module A = global rows 0-4, cols 0-5 (top left); B = rows 0-4, cols 6-11 (top right);
  C = rows 5-9, cols 6-11 (bottom right); D = rows 5-9, cols 0-5 (bottom left);
* a side file describes its 30 cells in *local* (row, col) of its quadrant:
  global = (row + row_offset, col + col_offset) with offsets A (0,0), B (0,6), C (5,6), D (5,0);
* space ids: A's cells 0-29 (row-major local order), B 30-59, C 60-89, D 90-119, then the
  port nodes 120 + 2*m (1-2 player port of module m) and 121 + 2*m (3-4 player port).
"""
from __future__ import annotations

import functools
import math
import re
import tomllib
from dataclasses import dataclass
from itertools import product
from pathlib import Path
from typing import Iterable, Iterator, Sequence

# ----------------------------------------------------------------------------------------
# constants

LAND_GRASS, LAND_FOREST, LAND_MOUNTAIN = 1, 2, 4          # bit flags
KIND_LAND, KIND_LOCH, KIND_PORT = 0, 1, 2
MODULE_NAMES = ("A", "B", "C", "D")
SIDE_NAMES = ("A1", "A2", "B1", "B2", "C1", "C2", "D1", "D2")

MAPS_DIR = Path(__file__).resolve().parent / "data" / "maps"

ROWS, COLS = 10, 12                     # whole map
MOD_ROWS, MOD_COLS = 5, 6               # one module (quadrant)
CELLS_PER_MODULE = MOD_ROWS * MOD_COLS  # 30
NUM_CELLS = 4 * CELLS_PER_MODULE        # 120
NUM_PORTS = 8
NUM_SPACES = NUM_CELLS + NUM_PORTS      # 128

#: global (row, col) of local (0, 0) for modules A, B, C, D
MODULE_OFFSETS = ((0, 0), (0, 6), (5, 6), (5, 0))
#: local cell at the module's inner corner (touching the map centre)
INNER_CORNER = ((4, 5), (4, 0), (0, 0), (0, 5))
#: local cell at the module's outer corner (where the factory with the two ports is)
OUTER_CORNER = ((0, 0), (0, 5), (4, 5), (4, 0))
#: the mist ring: (local row, local col) of the module's two outer map edges
MIST_ROW = (0, 0, 4, 4)
MIST_COL = (0, 5, 5, 0)

_LAND_LETTERS = {"g": LAND_GRASS, "f": LAND_FOREST, "m": LAND_MOUNTAIN}
_TOKEN_RE = re.compile(r"^([gfm]{1,3})([1-6])$")
LOCH_TOKEN = "L"

# Design ranges that validate_side() checks (docs/map-design.md, "Design targets").
LAND_RANGE = (22, 24)
LOCH_RANGE = (6, 8)
MEAN_COST_RANGE = (3.0, 4.0)
GRASS_ONLY_RANGE = (12, 16)
FOREST_ONLY_RANGE = (2, 4)
MOUNTAIN_ONLY_RANGE = (2, 4)
HYBRID_RANGE = (3, 5)
RIVERS_RANGE = (1, 2)
COST1_ACTIVE_RANGE = (2, 3)
CENTRAL_LOCH_MAX = 12


def land_token(mask: int, cost: int) -> str:
    """The data-file token of a land cell, e.g. ``gf4``."""
    return "".join(ch for ch, bit in _LAND_LETTERS.items() if mask & bit) + str(cost)


# ----------------------------------------------------------------------------------------
# hex geometry (global odd-r offset coordinates; cube coordinates for arithmetic)

_CUBE_DIRS = ((1, -1, 0), (1, 0, -1), (0, 1, -1), (-1, 1, 0), (-1, 0, 1), (0, -1, 1))


def offset_to_cube(row: int, col: int) -> tuple[int, int, int]:
    x = col - (row - (row & 1)) // 2
    z = row
    return (x, -x - z, z)


def cube_to_offset(cube: tuple[int, int, int]) -> tuple[int, int]:
    x, _, z = cube
    return (z, x + (z - (z & 1)) // 2)


def hex_neighbours(row: int, col: int) -> list[tuple[int, int]]:
    """The six hex neighbours of a global cell (may lie off the map)."""
    cx, cy, cz = offset_to_cube(row, col)
    return [cube_to_offset((cx + dx, cy + dy, cz + dz)) for dx, dy, dz in _CUBE_DIRS]


def hex_ring(row: int, col: int, k: int) -> list[tuple[int, int]]:
    """The 6k global cells at hex distance exactly k >= 1 from a cell (may lie off the map): from k steps out
    along one direction, k steps along each direction in turn."""
    x, y, z = offset_to_cube(row, col)
    sx, sy, sz = _CUBE_DIRS[4]
    x, y, z = x + sx * k, y + sy * k, z + sz * k
    out = []
    for dx, dy, dz in _CUBE_DIRS:
        for _ in range(k):
            out.append(cube_to_offset((x, y, z)))
            x, y, z = x + dx, y + dy, z + dz
    return out


def hex_distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    ax, ay, az = offset_to_cube(*a)
    bx, by, bz = offset_to_cube(*b)
    return max(abs(ax - bx), abs(ay - by), abs(az - bz))


def edge_vertices(a: tuple[int, int], b: tuple[int, int]) -> tuple[frozenset, frozenset]:
    """The two corners of the hex edge between adjacent global cells a and b.

    A corner is identified by the three cells that meet there (as a frozenset of global
    (row, col), possibly off the map)."""
    ca, cb = offset_to_cube(*a), offset_to_cube(*b)
    d = (cb[0] - ca[0], cb[1] - ca[1], cb[2] - ca[2])
    i = _CUBE_DIRS.index(d)  # raises ValueError when not adjacent
    out = []
    for j in (i - 1, (i + 1) % 6):
        dx, dy, dz = _CUBE_DIRS[j]
        x = cube_to_offset((ca[0] + dx, ca[1] + dy, ca[2] + dz))
        out.append(frozenset((a, b, x)))
    return out[0], out[1]


def cell_xy(row: int, col: int) -> tuple[float, float]:
    """Drawing centre of a global cell: hex size 1 (centre to corner), x right, y up."""
    return (math.sqrt(3.0) * (col + 0.5 * (row & 1)), -1.5 * row)


def local_to_global(module: int, r: int, c: int) -> tuple[int, int]:
    dr, dc = MODULE_OFFSETS[module]
    return (r + dr, c + dc)


def is_mist_position(module: int, r: int, c: int) -> bool:
    """True for local cells on the module's two outer map edges (the mist ring)."""
    return r == MIST_ROW[module] or c == MIST_COL[module]


def river_path(edges: Sequence[tuple[tuple[int, int], tuple[int, int]]],
               is_loch, show=lambda g: g) -> tuple[list[frozenset], str | None]:
    """Check that river edges (global cells) form one chain from source to mouth.

    Returns (vertex path v0..vn, problem or None).  The chain is valid when consecutive edges
    meet at exactly one corner, no corner is visited twice, and the last corner (the mouth)
    touches a loch cell (``is_loch(cell)``) as its third cell."""
    if not edges:
        return [], "river has no edges"
    verts = []
    for a, b in edges:
        if b not in hex_neighbours(*a):
            return [], f"river edge {show(a)}-{show(b)} joins cells that are not adjacent"
        verts.append(edge_vertices(a, b))
    if len(set(frozenset(e) for e in edges)) != len(edges):
        return [], "river lists the same edge twice"
    if len(edges) == 1:
        v1, v2 = verts[0]
        mouth = [v for v in (v1, v2) if any(is_loch(x) for x in v - set(edges[0]))]
        if not mouth:
            return [], f"river edge {show(edges[0][0])}-{show(edges[0][1])} does not end next to a loch"
        vn = mouth[0]
        v0 = v2 if vn == v1 else v1
        return [v0, vn], None
    junctions = []
    for i in range(len(edges) - 1):
        shared = set(verts[i]) & set(verts[i + 1])
        if len(shared) != 1:
            return [], (f"river edges {show(edges[i][0])}-{show(edges[i][1])} and "
                        f"{show(edges[i + 1][0])}-{show(edges[i + 1][1])} do not meet at a corner")
        junctions.append(shared.pop())
    v0 = [v for v in verts[0] if v != junctions[0]][0]
    vn = [v for v in verts[-1] if v != junctions[-1]][0]
    path = [v0] + junctions + [vn]
    if len(set(path)) != len(path):
        return [], "river chain branches or loops (a corner is used twice)"
    third = vn - set(edges[-1])
    if not any(is_loch(x) for x in third):
        return [], (f"river does not end next to a loch: its last edge "
                    f"{show(edges[-1][0])}-{show(edges[-1][1])} must be listed last and touch a loch at its mouth")
    return path, None


# ----------------------------------------------------------------------------------------
# one module side


@dataclass(frozen=True)
class ModuleSide:
    """One parsed side file, in local coordinates of its quadrant."""
    name: str                                   # "A1"
    module: int                                 # 0..3
    path: str                                   # the file it came from
    tokens: tuple[tuple[str, ...], ...]         # 5 rows x 6 tokens as written
    land: tuple[tuple[int, ...], ...]           # 5 x 6 LAND_* masks, 0 = loch
    cost: tuple[tuple[int, ...], ...]           # 5 x 6, 0 = loch
    rivers: tuple[tuple[tuple[tuple[int, int], tuple[int, int]], ...], ...]  # local cells
    ports12: tuple[tuple[int, int], ...]        # local cells the 1-2 player port touches
    ports34: tuple[tuple[int, int], ...]        # local cells the 3-4 player port touches
    waterfall: tuple[tuple[int, int], ...]      # local mountain cells at a river source
    provenance: str

    def is_loch(self, r: int, c: int) -> bool:
        return self.land[r][c] == 0

    def cells(self) -> Iterator[tuple[int, int]]:
        return iter(product(range(MOD_ROWS), range(MOD_COLS)))


def _bad(path, msg: str) -> ValueError:
    return ValueError(f"map side file {path}: {msg}")


def _cell(path, value, what: str) -> tuple[int, int]:
    if (not isinstance(value, (list, tuple)) or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise _bad(path, f"{what}: expected a cell [row, col], got {value!r}")
    r, c = value
    if not (0 <= r < MOD_ROWS and 0 <= c < MOD_COLS):
        raise _bad(path, f"{what}: cell [{r}, {c}] is outside the module "
                         f"(rows 0-{MOD_ROWS - 1}, cols 0-{MOD_COLS - 1})")
    return (r, c)


def load_side_file(path, name: str | None = None) -> ModuleSide:
    """Parse and structurally check one side file (raises ValueError naming file and problem).

    ``name`` defaults to the file's ``side`` field.  Balance targets (counts, mean cost...)
    are not checked here but by :func:`validate_side`, so that an edited side still loads."""
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise _bad(path, f"cannot read: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise _bad(path, f"not valid TOML: {exc}") from exc

    side = data.get("side", name)
    if name is not None and side != name:
        raise _bad(path, f"file says side = {side!r} but was loaded as {name!r}")
    if side not in SIDE_NAMES:
        raise _bad(path, f"side = {side!r} is not one of {', '.join(SIDE_NAMES)}")
    module = MODULE_NAMES.index(side[0])
    provenance = data.get("provenance")
    if not isinstance(provenance, str) or not provenance:
        raise _bad(path, "missing 'provenance' (e.g. provenance = \"stand-in\")")
    known = {"side", "provenance", "grid", "river", "ports", "waterfall", "description"}
    unknown = set(data) - known
    if unknown:
        raise _bad(path, f"unknown keys {sorted(unknown)} (known: {sorted(known)})")

    # ---- grid
    grid = data.get("grid")
    if not isinstance(grid, str):
        raise _bad(path, "missing 'grid' text block")
    lines = [ln.split("#", 1)[0].split() for ln in grid.splitlines()]
    lines = [ln for ln in lines if ln]
    if len(lines) != MOD_ROWS:
        raise _bad(path, f"grid has {len(lines)} rows, expected {MOD_ROWS}")
    tokens, land, cost = [], [], []
    for r, row in enumerate(lines):
        if len(row) != MOD_COLS:
            raise _bad(path, f"grid row {r} has {len(row)} cells, expected {MOD_COLS}: {' '.join(row)}")
        lrow, crow = [], []
        for c, tok in enumerate(row):
            if tok == LOCH_TOKEN:
                lrow.append(0)
                crow.append(0)
                continue
            m = _TOKEN_RE.match(tok)
            if not m or len(set(m.group(1))) != len(m.group(1)):
                raise _bad(path, f"grid cell ({r},{c}) has invalid token {tok!r}: expected 'L' "
                                 f"(loch) or land letters g/f/m (each at most once) followed by "
                                 f"a cost 1-6, e.g. g3, f2, m5, gf4, gfm5")
            mask = 0
            for ch in m.group(1):
                mask |= _LAND_LETTERS[ch]
            lrow.append(mask)
            crow.append(int(m.group(2)))
        tokens.append(tuple(row))
        land.append(tuple(lrow))
        cost.append(tuple(crow))
    land_t = tuple(land)

    def to_local(g):
        return [g[0] - MODULE_OFFSETS[module][0], g[1] - MODULE_OFFSETS[module][1]]

    def is_loch_global(g):
        r, c = g[0] - MODULE_OFFSETS[module][0], g[1] - MODULE_OFFSETS[module][1]
        return 0 <= r < MOD_ROWS and 0 <= c < MOD_COLS and land_t[r][c] == 0

    # ---- rivers
    rivers_raw = data.get("river", [])
    if not isinstance(rivers_raw, list):
        raise _bad(path, "'river' must be an array of tables ([[river]] edges = ...)")
    rivers = []
    seen_edges: set[frozenset] = set()
    for i, rv in enumerate(rivers_raw):
        if not isinstance(rv, dict) or not isinstance(rv.get("edges"), list):
            raise _bad(path, f"river {i}: expected a table with 'edges = [[[r,c],[r,c]], ...]'")
        edges = []
        for e in rv["edges"]:
            if not isinstance(e, list) or len(e) != 2:
                raise _bad(path, f"river {i}: edge {e!r} must be a pair of cells [[r,c],[r,c]]")
            a = _cell(path, e[0], f"river {i}")
            b = _cell(path, e[1], f"river {i}")
            for x in (a, b):
                if land_t[x[0]][x[1]] == 0:
                    raise _bad(path, f"river {i}: edge {list(a)}-{list(b)} touches loch cell "
                                     f"{list(x)}; rivers run between two land cells")
            ga, gb = local_to_global(module, *a), local_to_global(module, *b)
            if gb not in hex_neighbours(*ga):
                raise _bad(path, f"river {i}: cells {list(a)} and {list(b)} are not adjacent")
            key = frozenset((a, b))
            if key in seen_edges:
                raise _bad(path, f"river {i}: edge {list(a)}-{list(b)} is used twice")
            seen_edges.add(key)
            edges.append((a, b))
        gedges = [(local_to_global(module, *a), local_to_global(module, *b)) for a, b in edges]
        _, problem = river_path(gedges, is_loch_global, show=to_local)
        if problem:
            raise _bad(path, f"river {i}: {problem}")
        rivers.append(tuple(edges))

    # ---- waterfall (Industria)
    wf_raw = data.get("waterfall")
    waterfall = []
    if wf_raw is not None:
        items = wf_raw if (isinstance(wf_raw, list) and wf_raw and isinstance(wf_raw[0], list)) else [wf_raw]
        for item in items:
            w = _cell(path, item, "waterfall")
            if not land[w[0]][w[1]] & LAND_MOUNTAIN:
                raise _bad(path, f"waterfall {list(w)} is not a mountain cell")
            if any(w in e for rv in rivers for e in rv):
                raise _bad(path, f"waterfall {list(w)} lies along a river; the waterfall mountain "
                                 f"is at a river's source, not along it")
            gw = local_to_global(module, *w)
            ok = False
            for rv in rivers:
                gedges = [(local_to_global(module, *a), local_to_global(module, *b)) for a, b in rv]
                vpath, _ = river_path(gedges, is_loch_global)
                if gw in vpath[0]:
                    ok = True
            if not ok:
                raise _bad(path, f"waterfall {list(w)} is not at the source corner of any river")
            waterfall.append(w)

    # ---- ports
    ports = data.get("ports")
    if not isinstance(ports, dict) or "p12" not in ports or "p34" not in ports:
        raise _bad(path, "missing [ports] table with p12 = [[r,c],...] and p34 = [[r,c],...]")
    corner = OUTER_CORNER[module]
    gcorner = local_to_global(module, *corner)
    port_cells = {}
    for key in ("p12", "p34"):
        lst = ports[key]
        if not isinstance(lst, list) or not 1 <= len(lst) <= 3:
            raise _bad(path, f"ports.{key} must list 1-3 cells")
        cells = tuple(_cell(path, x, f"ports.{key}") for x in lst)
        if len(set(cells)) != len(cells):
            raise _bad(path, f"ports.{key} lists a cell twice")
        for x in cells:
            if hex_distance(local_to_global(module, *x), gcorner) > 2:
                raise _bad(path, f"ports.{key} cell {list(x)} is not near the outer corner {list(corner)}")
        port_cells[key] = cells
    if corner not in port_cells["p34"]:
        raise _bad(path, f"ports.p34 must touch the outer corner cell {list(corner)}")
    if all(is_mist_position(module, *x) and land[x[0]][x[1]] for x in port_cells["p12"]):
        raise _bad(path, "ports.p12 must touch at least one non-mist cell (land or loch) so that "
                         "it is reachable in a 1-2 player game")

    return ModuleSide(name=side, module=module, path=str(path), tokens=tuple(tokens), land=land_t,
                      cost=tuple(cost), rivers=tuple(rivers), ports12=port_cells["p12"],
                      ports34=port_cells["p34"], waterfall=tuple(waterfall), provenance=provenance)


def _check_side_name(name) -> str:
    if not isinstance(name, str) or name.strip().upper() not in SIDE_NAMES:
        raise ValueError(f"unknown map side {name!r}; valid sides are {', '.join(SIDE_NAMES)}")
    return name.strip().upper()


@functools.lru_cache(maxsize=None)
def _load_side_cached(name: str) -> ModuleSide:
    return load_side_file(MAPS_DIR / f"{name}.toml", name)


def load_side(name: str) -> ModuleSide:
    """Load one of the eight module sides by name ("A1" ... "D2") from data/maps/."""
    return _load_side_cached(_check_side_name(name))


def validate_side(side: ModuleSide) -> list[str]:
    """Design targets of one side (docs/map-design.md): counts, costs, lochs, rivers."""
    p: list[str] = []
    m = side.module
    pre = f"{side.name}: "
    lands = [(r, c) for r, c in side.cells() if side.land[r][c]]
    lochs = [(r, c) for r, c in side.cells() if not side.land[r][c]]

    def rng(value, bounds, what):
        if not bounds[0] <= value <= bounds[1]:
            p.append(f"{pre}{what} = {value}, expected {bounds[0]}-{bounds[1]}")

    rng(len(lands), LAND_RANGE, "land cells")
    rng(len(lochs), LOCH_RANGE, "loch cells")
    costs = [side.cost[r][c] for r, c in lands]
    if lands:
        mean = sum(costs) / len(costs)
        if not MEAN_COST_RANGE[0] <= mean <= MEAN_COST_RANGE[1]:
            p.append(f"{pre}mean land cost {mean:.2f}, expected {MEAN_COST_RANGE[0]}-{MEAN_COST_RANGE[1]}")
    masks = [side.land[r][c] for r, c in lands]
    rng(masks.count(LAND_GRASS), GRASS_ONLY_RANGE, "grassland-only cells")
    rng(masks.count(LAND_FOREST), FOREST_ONLY_RANGE, "forest-only cells")
    rng(masks.count(LAND_MOUNTAIN), MOUNTAIN_ONLY_RANGE, "mountain-only cells")
    rng(sum(1 for x in masks if x not in (LAND_GRASS, LAND_FOREST, LAND_MOUNTAIN)), HYBRID_RANGE,
        "hybrid cells")
    rng(len(side.rivers), RIVERS_RANGE, "rivers")
    inner = [(r, c) for r, c in lands if not is_mist_position(m, r, c)]
    rng(sum(1 for r, c in inner if side.cost[r][c] == 1), COST1_ACTIVE_RANGE,
        "cost-1 land cells outside the mist")
    if not any(side.land[r][c] & LAND_FOREST for r, c in inner):
        p.append(f"{pre}no forest-capable land outside the mist (1-2 player Woodcutters)")
    if not any(side.land[r][c] & LAND_MOUNTAIN for r, c in inner):
        p.append(f"{pre}no mountain-capable land outside the mist (1-2 player Miners)")
    if not any(side.land[r][c] & LAND_GRASS for r, c in inner):
        p.append(f"{pre}no grassland outside the mist")
    ir, ic = INNER_CORNER[m]
    if side.land[ir][ic]:
        p.append(f"{pre}inner corner {ir},{ic} must be loch (it forms the central loch)")
    # loch groups inside the module: at least one of 2+ cells besides the central one
    groups = _loch_groups_local(side)
    if not any(len(g) >= 2 and (ir, ic) not in g for g in groups):
        p.append(f"{pre}no loch group of 2 or more cells apart from the central loch")
    return p


def _local_neighbours(module: int, r: int, c: int) -> list[tuple[int, int]]:
    dr, dc = MODULE_OFFSETS[module]
    out = []
    for gr, gc in hex_neighbours(r + dr, c + dc):
        lr, lc = gr - dr, gc - dc
        if 0 <= lr < MOD_ROWS and 0 <= lc < MOD_COLS:
            out.append((lr, lc))
    return out


def _loch_groups_local(side: ModuleSide) -> list[set[tuple[int, int]]]:
    seen: set = set()
    groups = []
    for start in side.cells():
        if side.land[start[0]][start[1]] or start in seen:
            continue
        grp = {start}
        stack = [start]
        while stack:
            x = stack.pop()
            for y in _local_neighbours(side.module, *x):
                if not side.land[y[0]][y[1]] and y not in grp:
                    grp.add(y)
                    stack.append(y)
        seen |= grp
        groups.append(grp)
    return groups


# ----------------------------------------------------------------------------------------
# the assembled board


class Board:
    """An assembled map: four sides, 120 cells and 8 port nodes.  Immutable; shared by all
    game states (never copied).  All per-space data are tuples indexed by space id."""

    __slots__ = ("sides", "num_spaces", "kind", "land", "cost", "module", "label", "xy",
                 "adjacent", "neighbours", "river_edges", "rivers", "mist", "river_delta",
                 "central_loch", "waterfall", "port_positions", "rowcol", "outer_edge",
                 "side_data", "_active", "_border", "_frozen")

    def __init__(self, sides: tuple[ModuleSide, ModuleSide, ModuleSide, ModuleSide]):
        set_ = object.__setattr__
        if [s.module for s in sides] != [0, 1, 2, 3]:
            raise ValueError("sides must be given in A, B, C, D order")
        n = NUM_SPACES
        kind = [KIND_PORT] * n
        land = [0] * n
        cost = [0] * n
        module = [0] * n
        label = [""] * n
        xy: list[tuple[float, float]] = [(0.0, 0.0)] * n
        rowcol: list[tuple[int, int]] = [(-1, -1)] * n
        mist = [False] * n
        outer = [False] * n
        gid: dict[tuple[int, int], int] = {}

        for m, side in enumerate(sides):
            for r, c in side.cells():
                i = m * CELLS_PER_MODULE + r * MOD_COLS + c
                g = local_to_global(m, r, c)
                gid[g] = i
                rowcol[i] = g
                module[i] = m
                label[i] = f"{MODULE_NAMES[m]}{r}.{c}"
                xy[i] = cell_xy(*g)
                outer[i] = is_mist_position(m, r, c)
                if side.land[r][c]:
                    kind[i] = KIND_LAND
                    land[i] = side.land[r][c]
                    cost[i] = side.cost[r][c]
                    mist[i] = outer[i]
                else:
                    kind[i] = KIND_LOCH
        adj: list[set[int]] = [set() for _ in range(n)]
        for g, i in gid.items():
            for h in hex_neighbours(*g):
                j = gid.get(h)
                if j is not None:
                    adj[i].add(j)

        # ports
        allx = [xy[i][0] for i in range(NUM_CELLS)]
        ally = [xy[i][1] for i in range(NUM_CELLS)]
        cx, cy = (min(allx) + max(allx)) / 2, (min(ally) + max(ally)) / 2
        port_positions = []
        for m, side in enumerate(sides):
            p12, p34 = NUM_CELLS + 2 * m, NUM_CELLS + 2 * m + 1
            port_positions.append((p12, p34))
            corner = gid[local_to_global(m, *OUTER_CORNER[m])]
            ox, oy = xy[corner][0] - cx, xy[corner][1] - cy
            norm = math.hypot(ox, oy)
            ox, oy = ox / norm, oy / norm
            for pid, cells, tag in ((p12, side.ports12, "port12"), (p34, side.ports34, "port34")):
                module[pid] = m
                label[pid] = f"{MODULE_NAMES[m]}-{tag}"
                ids = [gid[local_to_global(m, *x)] for x in cells]
                for j in ids:
                    adj[pid].add(j)
                    adj[j].add(pid)
                if tag == "port34":
                    # just outside the outer corner, away from the map centre
                    px, py = xy[corner][0] + 1.25 * ox, xy[corner][1] + 1.25 * oy
                else:
                    mx = sum(xy[j][0] for j in ids) / len(ids)
                    my = sum(xy[j][1] for j in ids) / len(ids)
                    push = {1: 0.55, 2: 0.3, 3: 0.0}[len(ids)]
                    px, py = mx + push * ox, my + push * oy
                xy[pid] = (round(px, 6), round(py, 6))

        # rivers
        river_edges: set[tuple[int, int]] = set()
        rivers = []
        delta = [False] * n
        waterfall = []
        for m, side in enumerate(sides):
            for rv in side.rivers:
                chain = []
                for a, b in rv:
                    ia, ib = gid[local_to_global(m, *a)], gid[local_to_global(m, *b)]
                    e = (min(ia, ib), max(ia, ib))
                    chain.append(e)
                    river_edges.add(e)
                rivers.append(tuple(chain))
                delta[chain[-1][0]] = delta[chain[-1][1]] = True
            for w in side.waterfall:
                waterfall.append(gid[local_to_global(m, *w)])
        neighbours = []
        for i in range(n):
            neighbours.append(tuple(sorted(j for j in adj[i]
                                           if (min(i, j), max(i, j)) not in river_edges)))

        # central loch: the loch group(s) containing the four inner corners
        central: set[int] = set()
        stack = [gid[local_to_global(m, *INNER_CORNER[m])] for m in range(4)]
        stack = [i for i in stack if kind[i] == KIND_LOCH]
        central.update(stack)
        while stack:
            i = stack.pop()
            for j in adj[i]:
                if kind[j] == KIND_LOCH and j not in central:
                    central.add(j)
                    stack.append(j)

        set_(self, "sides", tuple(s.name for s in sides))
        set_(self, "side_data", tuple(sides))
        set_(self, "num_spaces", n)
        set_(self, "kind", tuple(kind))
        set_(self, "land", tuple(land))
        set_(self, "cost", tuple(cost))
        set_(self, "module", tuple(module))
        set_(self, "label", tuple(label))
        set_(self, "xy", tuple(xy))
        set_(self, "rowcol", tuple(rowcol))
        set_(self, "adjacent", tuple(tuple(sorted(a)) for a in adj))
        set_(self, "neighbours", tuple(neighbours))
        set_(self, "river_edges", frozenset(river_edges))
        set_(self, "rivers", tuple(rivers))
        set_(self, "mist", tuple(mist))
        set_(self, "outer_edge", tuple(outer))
        set_(self, "river_delta", tuple(delta))
        set_(self, "central_loch", tuple(sorted(central)))
        set_(self, "waterfall", tuple(sorted(waterfall)))
        set_(self, "port_positions", tuple(port_positions))

        ports12 = {p for p, _ in port_positions}
        active = {}
        border = {}
        for k in (1, 2, 3, 4):
            if k <= 2:
                act = tuple((kind[i] == KIND_LAND and not mist[i]) or kind[i] == KIND_LOCH
                            or i in ports12 for i in range(n))
                bor = tuple(kind[i] == KIND_LAND and not mist[i]
                            and any(mist[j] for j in adj[i]) for i in range(n))
            else:
                act = tuple(i not in ports12 for i in range(n))
                bor = tuple(kind[i] == KIND_LAND and mist[i] for i in range(n))
            active[k], border[k] = act, bor
        set_(self, "_active", active)
        set_(self, "_border", border)
        set_(self, "_frozen", True)

    def __setattr__(self, name, value):
        raise AttributeError("Board is immutable")

    def __delattr__(self, name):
        raise AttributeError("Board is immutable")

    def __repr__(self) -> str:
        return f"Board({' '.join(self.sides)})"

    def __reduce__(self):
        return (assemble, (self.sides,))

    def __deepcopy__(self, memo):
        return self

    def __copy__(self):
        return self

    @staticmethod
    def _check_players(num_players: int) -> int:
        if num_players not in (1, 2, 3, 4):
            raise ValueError(f"num_players must be 1-4, got {num_players!r}")
        return num_players

    def active(self, num_players: int) -> tuple[bool, ...]:
        """Spaces in play: 1-2 players: non-mist land, all lochs and the four 1-2 player
        ports; 3-4 players: everything except the 1-2 player ports."""
        return self._active[self._check_players(num_players)]

    def border(self, num_players: int) -> tuple[bool, ...]:
        """Border spaces of the active map (Scoring tile 5, Clan Fergusson).  3-4 players:
        the land cells on the map's outer edge (the mist ring); 1-2 players: active land
        cells adjacent to a mist land cell.  False for lochs and ports."""
        return self._border[self._check_players(num_players)]

    def space_of(self, label: str) -> int:
        """Space id from a label such as "A3.4" or "B-port12"."""
        try:
            return self.label.index(label)
        except ValueError:
            raise ValueError(f"no space labelled {label!r}") from None


def _normalise_sides(sides) -> tuple[str, str, str, str]:
    if isinstance(sides, str):
        names = sides.replace(",", " ").split()
    else:
        names = list(sides)
    if len(names) != 4:
        raise ValueError(f"need four sides in A, B, C, D order (e.g. 'A1 B2 C1 D2'), got {sides!r}")
    out = []
    for pos, nm in enumerate(names):
        nm = _check_side_name(nm)
        if nm[0] != MODULE_NAMES[pos]:
            raise ValueError(f"side {pos + 1} must be a module {MODULE_NAMES[pos]} side "
                             f"({MODULE_NAMES[pos]}1 or {MODULE_NAMES[pos]}2), got {nm}")
        out.append(nm)
    return tuple(out)  # type: ignore[return-value]


@functools.lru_cache(maxsize=None)
def _assemble_cached(names: tuple[str, str, str, str]) -> Board:
    return Board(tuple(load_side(nm) for nm in names))  # type: ignore[arg-type]


def assemble(sides) -> Board:
    """The Board for four side names in A, B, C, D order, e.g. ("A1","B2","C1","D2") or
    "A1 B2 C1 D2".  Cached: the same sides always give the same Board object."""
    return _assemble_cached(_normalise_sides(sides))


def all_assemblies() -> Iterator[tuple[str, str, str, str]]:
    """The 16 combinations of sides, in A, B, C, D order."""
    for a, b, c, d in product("12", repeat=4):
        yield (f"A{a}", f"B{b}", f"C{c}", f"D{d}")


def clear_caches() -> None:
    """Forget loaded sides and assembled boards (after editing a data file)."""
    _load_side_cached.cache_clear()
    _assemble_cached.cache_clear()


# ----------------------------------------------------------------------------------------
# validation of an assembled board


def _components(nodes: Iterable[int], adj) -> list[set[int]]:
    nodes = set(nodes)
    seen: set[int] = set()
    comps = []
    for s in sorted(nodes):
        if s in seen:
            continue
        comp = {s}
        stack = [s]
        while stack:
            i = stack.pop()
            for j in adj[i]:
                if j in nodes and j not in comp:
                    comp.add(j)
                    stack.append(j)
        seen |= comp
        comps.append(comp)
    return comps


def validate_board(board: Board) -> list[str]:
    """Problems with an assembled board (empty list when valid)."""
    p: list[str] = []
    n = board.num_spaces
    if n != NUM_SPACES:
        p.append(f"num_spaces = {n}, expected {NUM_SPACES}")
    for attr in ("kind", "land", "cost", "module", "label", "xy", "adjacent", "neighbours",
                 "mist", "river_delta", "rowcol"):
        if len(getattr(board, attr)) != n:
            p.append(f"{attr} has length {len(getattr(board, attr))}, expected {n}")
    if p:
        return p
    for side in board.side_data:
        p.extend(validate_side(side))
    if len(set(board.label)) != n:
        p.append("labels are not unique")
    for i in range(n):
        k = board.kind[i]
        if k == KIND_LAND:
            if not 1 <= board.land[i] <= 7 or not 1 <= board.cost[i] <= 6:
                p.append(f"{board.label[i]}: land cell needs land type and cost 1-6")
        elif board.land[i] or board.cost[i]:
            p.append(f"{board.label[i]}: loch/port has land type or cost")
        if (k == KIND_PORT) != (i >= NUM_CELLS):
            p.append(f"{board.label[i]}: ports must be ids {NUM_CELLS}-{n - 1}")
        for j in board.adjacent[i]:
            if i not in board.adjacent[j]:
                p.append(f"adjacency not symmetric: {board.label[i]}-{board.label[j]}")
            if j == i:
                p.append(f"{board.label[i]} adjacent to itself")
        if not set(board.neighbours[i]) <= set(board.adjacent[i]):
            p.append(f"{board.label[i]}: neighbours not a subset of adjacent")
        if list(board.adjacent[i]) != sorted(board.adjacent[i]):
            p.append(f"{board.label[i]}: adjacent not sorted")
        if board.mist[i] and (k != KIND_LAND or not board.outer_edge[i]):
            p.append(f"{board.label[i]}: mist only on outer-edge land cells")
    # rivers
    flat = set()
    is_loch_rc = {board.rowcol[i]: board.kind[i] == KIND_LOCH for i in range(NUM_CELLS)}
    for ri, chain in enumerate(board.rivers):
        for a, b in chain:
            if (a, b) not in board.river_edges or a >= b:
                p.append(f"river {ri}: edge {a}-{b} not in river_edges as (a<b)")
            if board.kind[a] != KIND_LAND or board.kind[b] != KIND_LAND:
                p.append(f"river {ri}: edge {board.label[a]}-{board.label[b]} not between land cells")
            if b not in board.adjacent[a] or b in board.neighbours[a]:
                p.append(f"river {ri}: edge {board.label[a]}-{board.label[b]} adjacency wrong")
            if board.module[a] != board.module[b]:
                p.append(f"river {ri}: edge {board.label[a]}-{board.label[b]} crosses a module boundary")
            flat.add((a, b))
        _, prob = river_path([(board.rowcol[a], board.rowcol[b]) for a, b in chain],
                             lambda g: is_loch_rc.get(g, False))
        if prob:
            p.append(f"river {ri}: {prob}")
        a, b = chain[-1]
        if not (board.river_delta[a] and board.river_delta[b]):
            p.append(f"river {ri}: delta cells not marked")
    if flat != set(board.river_edges):
        p.append("river_edges differs from the union of the rivers")
    deltas = {x for chain in board.rivers for x in chain[-1]}
    if {i for i in range(n) if board.river_delta[i]} != deltas:
        p.append("river_delta marks cells that are not at a river mouth")
    # central loch
    corners = [m * CELLS_PER_MODULE + INNER_CORNER[m][0] * MOD_COLS + INNER_CORNER[m][1]
               for m in range(4)]
    if not board.central_loch:
        p.append("no central loch")
    if not set(corners) <= set(board.central_loch):
        p.append("central loch does not contain the four inner corners")
    if any(board.kind[i] != KIND_LOCH for i in board.central_loch):
        p.append("central loch contains non-loch spaces")
    if len(board.central_loch) > CENTRAL_LOCH_MAX:
        p.append(f"central loch has {len(board.central_loch)} cells (max {CENTRAL_LOCH_MAX}); "
                 f"it should stay a compact lake")
    for w in board.waterfall:
        if not board.land[w] & LAND_MOUNTAIN:
            p.append(f"waterfall {board.label[w]} is not mountain")
    # mist, active, border, ports, connectivity
    if not any(board.mist):
        p.append("no mist cells")
    loch_or_land = [i for i in range(NUM_CELLS)]
    for k in (1, 2, 3, 4):
        act = board.active(k)
        bor = board.border(k)
        if not any(bor):
            p.append(f"{k} players: no border spaces")
        for i in range(n):
            if bor[i] and (not act[i] or board.kind[i] != KIND_LAND):
                p.append(f"{k} players: border space {board.label[i]} not active land")
        for m, (p12, p34) in enumerate(board.port_positions):
            pid = p12 if k <= 2 else p34
            if not act[pid]:
                p.append(f"{k} players: port {board.label[pid]} not active")
            if not any(act[j] and board.kind[j] != KIND_PORT for j in board.adjacent[pid]):
                p.append(f"{k} players: port {board.label[pid]} touches no active cell")
            other = p34 if k <= 2 else p12
            if act[other]:
                p.append(f"{k} players: port {board.label[other]} should be inactive")
        act_cells = [i for i in loch_or_land if act[i]]
        comps = _components(act_cells, board.adjacent)
        land_comps = [c for c in comps if any(board.kind[i] == KIND_LAND for i in c)]
        if len(land_comps) != 1:
            p.append(f"{k} players: active land is split into {len(land_comps)} regions")
        for m in range(4):
            lo = m * CELLS_PER_MODULE
            cells = [i for i in range(lo, lo + CELLS_PER_MODULE)
                     if act[i] and board.kind[i] == KIND_LAND]
            if not any(board.land[i] & LAND_FOREST for i in cells):
                p.append(f"{k} players: module {MODULE_NAMES[m]} has no active forest-capable land")
            if not any(board.land[i] & LAND_MOUNTAIN for i in cells):
                p.append(f"{k} players: module {MODULE_NAMES[m]} has no active mountain-capable land")
    for i in range(NUM_CELLS):
        if board.mist[i] and board.active(2)[i]:
            p.append(f"{board.label[i]}: mist land active in a 2 player game")
    return p


def side_stats(name: str) -> dict:
    """Summary numbers of one side (for docs and the report)."""
    s = load_side(name)
    lands = [(r, c) for r, c in s.cells() if s.land[r][c]]
    masks = [s.land[r][c] for r, c in lands]
    costs = [s.cost[r][c] for r, c in lands]
    inner = [(r, c) for r, c in lands if not is_mist_position(s.module, *(r, c))]
    return {
        "side": name,
        "land": len(lands),
        "loch": CELLS_PER_MODULE - len(lands),
        "grass": masks.count(LAND_GRASS),
        "forest": masks.count(LAND_FOREST),
        "mountain": masks.count(LAND_MOUNTAIN),
        "hybrid": len(masks) - masks.count(LAND_GRASS) - masks.count(LAND_FOREST)
        - masks.count(LAND_MOUNTAIN),
        "mean_cost": round(sum(costs) / len(costs), 2) if costs else 0.0,
        "cost1_active": sum(1 for r, c in inner if s.cost[r][c] == 1),
        "mist_land": len(lands) - len(inner),
        "rivers": len(s.rivers),
        "river_edges": sum(len(rv) for rv in s.rivers),
        "waterfall": len(s.waterfall),
        "loch_groups": sorted((len(g) for g in _loch_groups_local(s)), reverse=True),
    }


__all__ = [
    "LAND_GRASS", "LAND_FOREST", "LAND_MOUNTAIN", "KIND_LAND", "KIND_LOCH", "KIND_PORT",
    "MODULE_NAMES", "SIDE_NAMES", "Board", "ModuleSide", "load_side", "load_side_file",
    "assemble", "validate_board", "validate_side", "all_assemblies", "side_stats",
    "clear_caches", "land_token",
]
