"""Tests of the map: the eight stand-in module sides, assembly, validation and rendering.

Spec: docs/map-design.md ("Design targets"); rules: rulebook.md ("Expand",
"Shipping", "2 player game") and player-aid-with-industria.md (waterfalls, scoring tiles 5/14).
"""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from clans_env.engine import board as B
from clans_env.engine.board import (
    KIND_LAND, KIND_LOCH, KIND_PORT, LAND_FOREST, LAND_GRASS, LAND_MOUNTAIN, MODULE_NAMES,
    SIDE_NAMES, Board, all_assemblies, assemble, load_side, load_side_file, validate_board,
    validate_side,
)

ALL = list(all_assemblies())
EXAMPLES = [("A1", "B1", "C1", "D1"), ("A2", "B2", "C2", "D2"), ("A1", "B2", "C1", "D2"),
            ("A2", "B1", "C2", "D1")]


# ---------------------------------------------------------------------------------------
# assembly


def test_sixteen_assemblies_all_validate():
    """map-design.md: all 16 combinations of sides assemble into one valid map."""
    assert len(ALL) == 16 and len(set(ALL)) == 16
    for sides in ALL:
        board = assemble(sides)
        assert validate_board(board) == [], sides


def test_num_spaces_and_id_layout():
    """Brief, space ids: A 0-29, B 30-59, C 60-89, D 90-119, ports 120+2m (1-2p), 121+2m (3-4p)."""
    for sides in ALL:
        b = assemble(sides)
        assert b.num_spaces == 128
        assert b.sides == sides
        for attr in ("kind", "land", "cost", "module", "label", "xy", "adjacent", "neighbours",
                     "mist", "river_delta"):
            assert len(getattr(b, attr)) == 128, attr
        assert b.module[:120] == tuple(m for m in range(4) for _ in range(30))
        assert b.port_positions == tuple((120 + 2 * m, 121 + 2 * m) for m in range(4))
        assert all(b.kind[i] == KIND_PORT for i in range(120, 128))
        assert all(b.kind[i] in (KIND_LAND, KIND_LOCH) for i in range(120))
        assert b.label[0] == "A0.0" and b.label[29] == "A4.5" and b.label[30] == "B0.0"
        assert b.label[120] == "A-port12" and b.label[127] == "D-port34"


def test_labels_unique_and_readable():
    """Brief, labels: unique, module letter + local row.col, ports "X-port12"/"X-port34"."""
    pat = re.compile(r"^[ABCD](\d\.\d|-port12|-port34)$")
    for sides in ALL:
        b = assemble(sides)
        assert len(set(b.label)) == 128
        assert all(pat.match(lab) for lab in b.label)
        assert all(b.space_of(lab) == i for i, lab in enumerate(b.label))


def test_land_cost_and_type_fields():
    """map-design.md: land cost printed on every land space, 1-6; lochs/ports have none."""
    for sides in EXAMPLES:
        b = assemble(sides)
        for i in range(128):
            if b.kind[i] == KIND_LAND:
                assert 1 <= b.cost[i] <= 6 and 1 <= b.land[i] <= 7
            else:
                assert b.cost[i] == 0 and b.land[i] == 0


def test_assemble_is_cached_and_accepts_strings():
    """Brief: assemble() is cached, so one Board object is shared by all game states."""
    a = assemble(("A1", "B2", "C1", "D2"))
    assert assemble(["A1", "B2", "C1", "D2"]) is a
    assert assemble("A1 B2 C1 D2") is a
    assert assemble("a1,b2,c1,d2") is a
    assert assemble("A1 B1 C1 D1") is not a


def test_board_is_immutable():
    """Brief: the Board is immutable after construction (shared, never copied)."""
    import copy
    import pickle

    b = assemble("A1 B1 C1 D1")
    with pytest.raises(AttributeError):
        b.num_spaces = 3
    with pytest.raises(AttributeError):
        b.new_field = 1
    assert copy.deepcopy(b) is b and copy.copy(b) is b
    assert pickle.loads(pickle.dumps(b)) is b
    assert isinstance(b.adjacent, tuple) and isinstance(b.river_edges, frozenset)


def test_unknown_side_names_raise():
    """Brief: unknown side names raise ValueError listing the valid names."""
    for bad in ("E1", "A3", "", "B"):
        with pytest.raises(ValueError, match="A1, A2, B1, B2, C1, C2, D1, D2"):
            load_side(bad)
    with pytest.raises(ValueError, match="A1, A2, B1"):
        assemble(("A1", "B1", "C1", "Z9"))
    with pytest.raises(ValueError, match="module B side"):
        assemble(("A1", "C1", "B1", "D1"))
    with pytest.raises(ValueError, match="four sides"):
        assemble("A1 B1 C1")


# ---------------------------------------------------------------------------------------
# adjacency and rivers


def test_adjacency_symmetric_and_neighbours_subset():
    """Rulebook, Expand: neighbouring = adjacent with no river in between (so a subset)."""
    for sides in ALL:
        b = assemble(sides)
        for i in range(128):
            assert list(b.adjacent[i]) == sorted(set(b.adjacent[i]))
            assert i not in b.adjacent[i]
            for j in b.adjacent[i]:
                assert i in b.adjacent[j]
            assert set(b.neighbours[i]) <= set(b.adjacent[i])
            for j in b.adjacent[i]:
                river = (min(i, j), max(i, j)) in b.river_edges
                assert (j in b.neighbours[i]) == (not river)


def test_hex_grid_shape():
    """map-design.md, geometry: odd-r hex grid, 12 x 10; interior cells have 6 hex neighbours."""
    b = assemble("A1 B1 C1 D1")
    degrees = [sum(1 for j in b.adjacent[i] if j < 120) for i in range(120)]
    assert max(degrees) == 6 and min(degrees) >= 2
    assert sum(1 for d in degrees if d == 6) == 8 * 10  # rows 1-8, cols 1-10
    # the four inner corners meet in the middle: A4.5-B4.0, A4.5-D0.5, B4.0-C0.0, B4.0-D0.5, C0.0-D0.5
    a, bb, c, d = (b.space_of(x) for x in ("A4.5", "B4.0", "C0.0", "D0.5"))
    for x, y in ((a, bb), (a, d), (bb, c), (bb, d), (c, d)):
        assert y in b.adjacent[x]
    # xy: pointy-top hexes of size 1, neighbouring centres sqrt(3) apart
    for i in range(120):
        for j in b.adjacent[i]:
            if j < 120:
                (x1, y1), (x2, y2) = b.xy[i], b.xy[j]
                assert abs(((x1 - x2) ** 2 + (y1 - y2) ** 2) ** 0.5 - 3 ** 0.5) < 1e-9


def test_river_edges_only_between_land_cells_of_one_module():
    """map-design.md: rivers run along edges between land spaces, inside one module."""
    for sides in ALL:
        b = assemble(sides)
        assert b.river_edges
        flat = set()
        for chain in b.rivers:
            for a, c in chain:
                assert a < c and (a, c) in b.river_edges
                assert b.kind[a] == KIND_LAND and b.kind[c] == KIND_LAND
                assert c in b.adjacent[a] and c not in b.neighbours[a]
                assert b.module[a] == b.module[c]
                flat.add((a, c))
        assert flat == set(b.river_edges)


def test_rivers_are_chains_ending_next_to_a_loch_with_deltas_marked():
    """Rulebook (Robertson): a river delta is a space adjacent to a river just flowing into a
    loch; map-design.md: each river ends in a loch."""
    for sides in ALL:
        b = assemble(sides)
        deltas = set()
        for chain in b.rivers:
            # consecutive edges meet at a corner: they share one cell and the other two touch
            for e1, e2 in zip(chain, chain[1:]):
                shared = set(e1) & set(e2)
                assert len(shared) == 1
                x, y = (set(e1) | set(e2)) - shared
                assert y in b.adjacent[x]
            a, c = chain[-1]
            common = set(b.adjacent[a]) & set(b.adjacent[c]) - set(range(120, 128))
            junction = None          # third cell at the corner where the last two edges meet
            if len(chain) > 1:
                (junction,) = (set(chain[-2]) | set(chain[-1])) - {a, c}
            mouth = [x for x in common if x != junction and b.kind[x] == KIND_LOCH]
            assert mouth, (sides, chain)
            assert b.river_delta[a] and b.river_delta[c]
            deltas |= {a, c}
        assert {i for i in range(128) if b.river_delta[i]} == deltas


def test_rivers_per_side_and_waterfalls():
    """map-design.md: 1-2 rivers per side; Industria waterfall = mountain at a river's
    source, adjacent to but not along the river."""
    total_waterfalls = 0
    for name in SIDE_NAMES:
        s = load_side(name)
        assert 1 <= len(s.rivers) <= 2
        total_waterfalls += len(s.waterfall)
    assert total_waterfalls >= 1
    for sides in ALL:
        b = assemble(sides)
        on_river = {x for e in b.river_edges for x in e}
        for w in b.waterfall:
            assert b.land[w] & LAND_MOUNTAIN
            assert w not in on_river
            firsts = [chain[0] for chain in b.rivers]
            assert any(set(first) <= set(b.adjacent[w]) for first in firsts)


# ---------------------------------------------------------------------------------------
# side design targets


@pytest.mark.parametrize("name", SIDE_NAMES)
def test_side_design_targets(name):
    """map-design.md: 22-24 land, 6-8 loch, cost 1-6 mean ~3.5, ~14 grass / 3 forest /
    3 mountain / 3-4 hybrid; 2-3 £1 spaces outside the mist (solo game blocks them)."""
    s = load_side(name)
    assert validate_side(s) == []
    assert s.provenance == "stand-in"
    st = B.side_stats(name)
    assert 22 <= st["land"] <= 24 and 6 <= st["loch"] <= 8
    assert st["land"] + st["loch"] == 30
    assert 3.0 <= st["mean_cost"] <= 4.0
    assert 12 <= st["grass"] <= 16 and 2 <= st["forest"] <= 4 and 2 <= st["mountain"] <= 4
    assert 3 <= st["hybrid"] <= 5
    assert 2 <= st["cost1_active"] <= 3
    assert any(g >= 2 for g in st["loch_groups"])


@pytest.mark.parametrize("name", SIDE_NAMES)
def test_side_non_mist_part_has_worker_land(name):
    """Rules, setup: the first Workers (woodcutter/miner) must be placeable in a 1-2 player game."""
    s = load_side(name)
    inner = [(r, c) for r, c in s.cells() if s.land[r][c] and not B.is_mist_position(s.module, r, c)]
    assert any(s.land[r][c] & LAND_FOREST for r, c in inner)
    assert any(s.land[r][c] & LAND_MOUNTAIN for r, c in inner)
    assert any(s.land[r][c] & LAND_GRASS for r, c in inner)


def test_central_loch():
    """map-design.md: the inner corners of the four modules form the central loch
    (Industria scoring tile 14)."""
    for sides in ALL:
        b = assemble(sides)
        corners = {b.space_of(x) for x in ("A4.5", "B4.0", "C0.0", "D0.5")}
        assert corners <= set(b.central_loch)
        assert all(b.kind[i] == KIND_LOCH for i in b.central_loch)
        assert 4 <= len(b.central_loch) <= 12
        # one connected lake
        comp, stack = {min(corners)}, [min(corners)]
        while stack:
            i = stack.pop()
            for j in b.adjacent[i]:
                if j in b.central_loch and j not in comp:
                    comp.add(j)
                    stack.append(j)
        assert comp == set(b.central_loch)


def test_loch_groups_of_several_lengths():
    """Rulebook, Shipping: n-loch level crosses up to n consecutive lochs, so the map has
    lochs of 1, 2 and 3+ cells in a row."""
    for sides in EXAMPLES:
        b = assemble(sides)
        lochs = [i for i in range(120) if b.kind[i] == KIND_LOCH]
        sizes = sorted(len(c) for c in B._components(lochs, b.adjacent))
        assert max(sizes) >= 4 and any(2 <= s <= 3 for s in sizes), sizes


# ---------------------------------------------------------------------------------------
# mist, active map, border spaces, ports


def test_mist_only_on_outer_edges():
    """Rulebook, 2 player game: the shaded land spaces at the edge (mist) leave the map."""
    for sides in ALL:
        b = assemble(sides)
        for i in range(120):
            r, c = b.rowcol[i]
            outer = r in (0, 9) or c in (0, 11)
            assert b.mist[i] == (outer and b.kind[i] == KIND_LAND), b.label[i]
        assert not any(b.mist[120:])


def test_active_sets():
    """Rulebook, 2 player game: mist land not in play, all lochs stay; setup: the port
    position depends on the player count."""
    for sides in ALL:
        b = assemble(sides)
        p12 = {p for p, _ in b.port_positions}
        p34 = {p for _, p in b.port_positions}
        for n in (1, 2):
            act = b.active(n)
            for i in range(128):
                if b.kind[i] == KIND_LOCH:
                    assert act[i]
                elif b.kind[i] == KIND_LAND:
                    assert act[i] == (not b.mist[i])
                else:
                    assert act[i] == (i in p12)
        for n in (3, 4):
            act = b.active(n)
            assert all(act[i] == (i not in p12) for i in range(128))
        assert sum(b.active(2)[:120]) < sum(b.active(4)[:120])
        with pytest.raises(ValueError):
            b.active(5)


def test_border_sets():
    """Rulebook, scoring tile 5 / Clan Fergusson: border spaces of the active map; 1-2 players:
    the non-shaded spaces adjacent to the shaded (mist) spaces."""
    for sides in ALL:
        b = assemble(sides)
        for n in (3, 4):
            bor = b.border(n)
            assert any(bor)
            assert all(bor[i] == (b.kind[i] == KIND_LAND and b.mist[i]) for i in range(128))
        for n in (1, 2):
            bor, act = b.border(n), b.active(n)
            assert any(bor)
            for i in range(128):
                want = (b.kind[i] == KIND_LAND and act[i]
                        and any(b.mist[j] for j in b.adjacent[i]))
                assert bor[i] == want, b.label[i]
            # each module has border spaces in a 2 player game
            assert {b.module[i] for i in range(120) if bor[i]} == {0, 1, 2, 3}


def test_ports_attach_to_active_cells():
    """Rulebook, setup: a port tile goes beside the factory at each outer corner; it is
    reached like a space, so it must touch a cell in play for its player count."""
    for sides in ALL:
        b = assemble(sides)
        for m, (p12, p34) in enumerate(b.port_positions):
            for pid, n in ((p12, 2), (p34, 4)):
                assert b.module[pid] == m
                attached = b.adjacent[pid]
                assert 1 <= len(attached) <= 3
                assert all(j < 120 and b.module[j] == m for j in attached)
                assert any(b.active(n)[j] for j in attached)
                assert set(b.neighbours[pid]) == set(attached)   # no rivers at ports
            corner = b.space_of(f"{MODULE_NAMES[m]}{B.OUTER_CORNER[m][0]}.{B.OUTER_CORNER[m][1]}")
            assert corner in b.adjacent[p34]
            assert any(not b.mist[j] for j in b.adjacent[p12])


def test_active_land_is_one_region_through_land_and_lochs():
    """Rulebook, Shipping: reach crosses lochs but never hops land; every active land space
    must be reachable through land or lochs (no stranded island)."""
    for sides in ALL:
        b = assemble(sides)
        for n in (2, 4):
            act = b.active(n)
            nodes = [i for i in range(120) if act[i]]
            comps = B._components(nodes, b.adjacent)
            with_land = [c for c in comps if any(b.kind[i] == KIND_LAND for i in c)]
            assert len(with_land) == 1


# ---------------------------------------------------------------------------------------
# bad data


def _side_text(name="A1") -> str:
    return (B.MAPS_DIR / f"{name}.toml").read_text()


def _write(tmp_path: Path, text: str, fname="bad.toml") -> Path:
    p = tmp_path / fname
    p.write_text(text)
    return p


def test_good_copy_loads(tmp_path):
    """map-design.md: load_side_file() reads a side file from any path."""
    s = load_side_file(_write(tmp_path, _side_text("C2"), "C2.toml"))
    assert s.name == "C2"
    assert dataclasses.replace(s, path="") == dataclasses.replace(load_side("C2"), path="")


def test_bad_token_names_file_and_cell(tmp_path):
    """Data format: unknown grid tokens raise ValueError naming the file and the cell."""
    text = _side_text().replace("g2    m6", "x2    m6", 1)
    p = _write(tmp_path, text)
    with pytest.raises(ValueError, match=r"bad\.toml.*\(0,0\).*'x2'"):
        load_side_file(p)
    for tok in ("g7", "g0", "gg3", "L2", "m"):
        p = _write(tmp_path, _side_text().replace("g2    m6", f"{tok}    m6", 1))
        with pytest.raises(ValueError, match="invalid token"):
            load_side_file(p)


def test_bad_grid_shape(tmp_path):
    """Data format: a grid must have 5 rows of 6 tokens."""
    p = _write(tmp_path, _side_text().replace("g3    L     g2    m5    g5    L\n", ""))
    with pytest.raises(ValueError, match="bad.toml.*4 rows"):
        load_side_file(p)
    p = _write(tmp_path, _side_text().replace("g3    L     g2    m5    g5    L", "g3 L g2 m5 g5"))
    with pytest.raises(ValueError, match="row 4 has 5 cells"):
        load_side_file(p)


def test_river_between_non_adjacent_cells(tmp_path):
    """Data format: a river edge must join two adjacent land cells."""
    text = _side_text().replace("edges = [[[3,3],[4,4]], [[4,4],[3,4]]]",
                                "edges = [[[3,3],[4,4]], [[4,4],[2,4]]]")
    with pytest.raises(ValueError, match=r"bad\.toml.*not adjacent"):
        load_side_file(_write(tmp_path, text))


def test_river_through_loch_or_not_ending_at_loch(tmp_path):
    """map-design.md: rivers run between land spaces and end in a loch."""
    text = _side_text().replace("edges = [[[3,3],[4,4]], [[4,4],[3,4]]]",
                                "edges = [[[3,4],[3,5]]]")
    with pytest.raises(ValueError, match="touches loch cell"):
        load_side_file(_write(tmp_path, text))
    # reversed order: the last edge is not the one at the mouth
    text = _side_text().replace("edges = [[[3,3],[4,4]], [[4,4],[3,4]]]",
                                "edges = [[[4,4],[3,4]], [[3,3],[4,4]]]")
    with pytest.raises(ValueError, match="does not end next to a loch"):
        load_side_file(_write(tmp_path, text))
    # two edges that do not meet at a corner
    text = _side_text().replace("edges = [[[3,3],[4,4]], [[4,4],[3,4]]]",
                                "edges = [[[0,0],[0,1]], [[4,4],[3,4]]]")
    with pytest.raises(ValueError, match="do not meet at a corner"):
        load_side_file(_write(tmp_path, text))


def test_bad_ports_and_waterfall(tmp_path):
    """Rulebook setup: ports at the outer corner; the 1-2p one must be reachable without mist."""
    text = _side_text().replace("p12 = [[0,1],[1,0],[1,1]]", "p12 = [[0,1],[1,0]]")
    with pytest.raises(ValueError, match="p12 must touch at least one non-mist"):
        load_side_file(_write(tmp_path, text))
    text = _side_text().replace("p34 = [[0,0],[0,1],[1,0]]", "p34 = [[1,0]]")
    with pytest.raises(ValueError, match="outer corner"):
        load_side_file(_write(tmp_path, text))
    text = _side_text().replace("p34 = [[0,0],[0,1],[1,0]]", "p34 = [[4,4]]")
    with pytest.raises(ValueError, match="not near the outer corner"):
        load_side_file(_write(tmp_path, text))
    text = _side_text().replace("waterfall = [4, 3]", "waterfall = [4, 4]")
    with pytest.raises(ValueError, match="waterfall"):
        load_side_file(_write(tmp_path, text))


def test_bad_toml_and_side_name(tmp_path):
    """Data format: syntax errors and wrong side names name the file."""
    with pytest.raises(ValueError, match="bad.toml.*not valid TOML"):
        load_side_file(_write(tmp_path, "grid = [\n"))
    with pytest.raises(ValueError, match="side = 'E1'"):
        load_side_file(_write(tmp_path, _side_text().replace('side = "A1"', 'side = "E1"')))
    with pytest.raises(ValueError, match="loaded as 'B1'"):
        load_side_file(_write(tmp_path, _side_text()), "B1")
    with pytest.raises(ValueError, match="unknown keys"):
        load_side_file(_write(tmp_path, 'colour = "red"\n' + _side_text()))


def test_validator_reports_design_problems(tmp_path):
    """validate_side/validate_board: an edited side that still loads but breaks the design
    targets is reported (inner corner loch, counts, cost-1 spaces)."""
    text = _side_text("C1")
    assert text.count("   L     g3    g1") == 1
    text = text.replace("   L     g3    g1", "   g3    g3    g3")      # inner corner -> land
    s = load_side_file(_write(tmp_path, text, "C1.toml"))
    probs = validate_side(s)
    assert any("inner corner" in p for p in probs)
    assert any("cost-1" in p for p in probs)
    board = Board((load_side("A1"), load_side("B1"), s, load_side("D1")))
    assert any("central loch does not contain" in p for p in validate_board(board))


def test_every_token_round_trips():
    """Data format: every land token is letters g/f/m + cost; land_token() writes it back."""
    for name in SIDE_NAMES:
        s = load_side(name)
        for r, c in s.cells():
            if s.land[r][c]:
                tok = B.land_token(s.land[r][c], s.cost[r][c])
                assert set(tok[:-1]) == set(s.tokens[r][c][:-1]) and tok[-1] == s.tokens[r][c][-1]
            else:
                assert s.tokens[r][c] == "L"


# ---------------------------------------------------------------------------------------
# rendering


def test_render_png(tmp_path):
    """Brief, rendering: an assembled board and a single side render to PNG files."""
    pytest.importorskip("matplotlib")
    np = pytest.importorskip("numpy")
    from clans_env.render.map_image import board_to_rgb_array, render_board_png, render_side_png

    b = assemble("A1 B2 C1 D2")
    occ = {b.space_of("A2.2"): (0, "S"), b.space_of("C1.1"): (-1, "W"), 121: (2, "Fi")}
    out = render_board_png(b, tmp_path / "map.png", num_players=2, occupants=occ,
                           port_tiles={120: 5, 122: 7, 124: 13, 126: 18}, title="test")
    assert out.exists() and out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    side = render_side_png("D2", tmp_path / "D2.png")
    assert side.stat().st_size > 10_000
    arr = board_to_rgb_array(b, num_players=4)
    assert arr.dtype == np.uint8 and arr.ndim == 3 and arr.shape[2] == 3
    assert arr.shape[0] > 100 and arr.shape[1] > 100
    assert len(np.unique(arr.reshape(-1, 3), axis=0)) > 20   # not a blank picture
    with pytest.raises(ValueError, match="valid sides"):
        render_side_png("Q1", tmp_path / "q.png")


def test_board_module_is_pure_python():
    """Brief: board.py uses the standard library only (no numpy/matplotlib)."""
    src = Path(B.__file__).read_text()
    assert not re.search(r"^\s*(import|from)\s+(numpy|matplotlib)", src, re.M)


def test_position_picture_reuses_the_empty_map_and_matches_a_full_drawing(tmp_path):
    """Replays draw a picture per round: ``render_position_png`` draws the empty map once per map and
    resolution and only the units on top, and its PNG is pixel for pixel the full ``draw_board``
    picture of the same position (units, Port tiles, Tighter-Map covers and title included)."""
    import matplotlib.image as mpimg
    import numpy as np

    from clans_env import Game, GameConfig
    from clans_env.render.map_image import (_map_background, game_occupants, render_board_png,
                                            render_position_png)

    game = Game(GameConfig(num_players=3, seed=2, tighter_map=True))
    rng = np.random.default_rng(0)
    for _ in range(150):
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])
    occupants = game_occupants(game)
    assert any(seat == -1 for seat, _ in occupants.values()) and any(seat >= 0 for seat, _ in occupants.values())
    ports = {game.topo.port_space[k]: t for k, t in enumerate(game.port_tiles)}
    full = render_board_png(game.board, tmp_path / "full.png", dpi=60, num_players=3, occupants=occupants,
                            port_tiles=ports, title="round 3")
    _map_background.cache_clear()
    fast = render_position_png(game.board, tmp_path / "fast.png", occupants, port_tiles=ports, num_players=3,
                               title="round 3", dpi=60)
    render_position_png(game.board, tmp_path / "again.png", occupants, port_tiles=ports, num_players=3,
                        title="round 3", dpi=60)
    assert _map_background.cache_info().hits == 1
    assert np.array_equal(mpimg.imread(full), mpimg.imread(fast))
    assert np.array_equal(mpimg.imread(fast), mpimg.imread(tmp_path / "again.png"))


def test_components_are_the_connected_parts():
    """topology.components (Settlements: units joined by 'neighbouring') against a plain search over the
    neighbour lists, on random space sets of a real map: the parts cover the set, are disjoint, each is
    connected, no two are joined, and they come lowest space first."""
    import random as _random
    from clans_env import Game, GameConfig
    from clans_env.engine.topology import components
    g = Game(GameConfig(num_players=3, seed=4))
    nb = g.topo.neighbours
    rng = _random.Random(5)
    for _ in range(300):
        spaces = rng.sample(range(g.board.num_spaces), rng.randint(0, 30))
        mask = sum(1 << s for s in spaces)
        expected, seen = [], set()
        for s in sorted(spaces):
            if s in seen:
                continue
            part, todo = {s}, [s]
            while todo:
                a = todo.pop()
                for b in spaces:
                    if b not in part and nb[a] >> b & 1:
                        part.add(b)
                        todo.append(b)
            seen |= part
            expected.append(sum(1 << x for x in part))
        assert components(mask, nb) == expected


def test_hex_ring_is_the_6k_cells_at_distance_k():
    """Hex geometry behind Delivery bonus 4's area (R13.26 tile 4): the ring of radius k around a cell is 6k
    distinct cells, each at hex distance exactly k, for even and odd rows."""
    from clans_env.engine.board import hex_distance, hex_ring
    for centre in ((4, 4), (5, 3), (0, 0), (7, 8)):
        for k in (1, 2, 3, 4):
            cells = hex_ring(*centre, k)
            assert len(set(cells)) == len(cells) == 6 * k
            assert all(hex_distance(centre, c) == k for c in cells), (centre, k)
