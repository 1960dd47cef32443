"""Draw an assembled map (or one module side) with matplotlib (Agg, no GUI).

Land types are colours (hybrids are split hexes: two halves or three wedges), the land cost
is printed on each land space, lochs are blue, rivers are thick blue lines along hex edges,
river deltas carry a small white triangle, the central loch a white star, border spaces a
thick gold outline, mist land (1-2 players) is greyed and hatched, and each port node is a
small square joined by dotted lines to the cells it touches (faded when not in play).

matplotlib and numpy are imported only inside this module (the engine never needs them).
"""
from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Circle, Patch, Polygon, Rectangle
import matplotlib.patheffects as pe

from clans_env.engine.board import (
    CELLS_PER_MODULE, KIND_LAND, KIND_LOCH, KIND_PORT, LAND_FOREST, LAND_GRASS, LAND_MOUNTAIN,
    MODULE_NAMES, SIDE_NAMES, Board, assemble,
)
from clans_env.engine.data import GOODS, UNIT_LETTER
from clans_env.engine.rules.common import second_units
from clans_env.engine.rules.farmers_markets import market_list

COLOURS = {
    LAND_GRASS: "#b6db7e",
    LAND_FOREST: "#2f7d3b",
    LAND_MOUNTAIN: "#a38b76",
}
LOCH_COLOUR = "#5d9fd8"
CENTRAL_LOCH_COLOUR = "#3f7fc4"
RIVER_COLOUR = "#1747b5"
BORDER_COLOUR = "#e0a100"
MIST_COLOUR = "#c9c9c9"
PORT_COLOUR = "#c8a165"
MODULE_LINE = "#222222"
PLAYER_COLOURS = {0: "#d62728", 1: "#1f5fd6", 2: "#2ca02c", 3: "#ff9a1f", -1: "#8a8a8a"}

_CORNER_ANGLES = [math.radians(30 + 60 * k) for k in range(6)]


def _hex_corners(x: float, y: float, size: float = 1.0):
    """The six corners of the (pointy-top) hex cell centred at (x, y)."""
    return [(x + size * math.cos(a), y + size * math.sin(a)) for a in _CORNER_ANGLES]


def _types(mask: int) -> list[int]:
    return [t for t in (LAND_GRASS, LAND_FOREST, LAND_MOUNTAIN) if mask & t]


def wedge_owners(mask: int) -> list[int]:
    """The land type of each of the six wedges of a cell (wedge k spans corners k..k+1): one type for
    plain land, halves for two types, thirds for three."""
    types = _types(mask)
    if len(types) == 1:
        return types * 6
    if len(types) == 2:
        return [types[1], types[0], types[0], types[0], types[1], types[1]]
    return [types[0], types[0], types[1], types[1], types[2], types[2]]


def _text_colour(mask: int) -> str:
    return "white" if mask == LAND_FOREST else "black"


def _outline():
    return [pe.withStroke(linewidth=2.2, foreground="white")]


def draw_board(board: Board, num_players: int = 4, ax=None, occupants=None, port_tiles=None,
               title=None, *, modules=None, show_labels: bool = True, legend: bool = True,
               side_view: bool = False):
    """Draw ``board`` into ``ax`` (a new Figure when None) and return the Figure.

    occupants: {space id: (player index or -1 for neutral, unit letter)}.
    port_tiles: {port space id: tile number}.
    modules: draw only these module indices (0-3); used for single-side pictures.
    side_view: draw both port positions at full strength and the mist of both player counts.
    """
    if ax is None:
        fig = Figure(figsize=(13.5, 11.5) if not modules or len(modules) > 1 else (8.2, 7.6),
                     dpi=110)
        FigureCanvasAgg(fig)
        ax = fig.add_axes((0.01, 0.09, 0.98, 0.86))
    else:
        fig = ax.figure
    occupants = occupants or {}
    port_tiles = port_tiles or {}
    mods = set(range(4)) if modules is None else set(modules)
    shown = [i for i in range(board.num_spaces) if board.module[i] in mods]
    active = board.active(num_players)
    border = board.border(num_players)
    central = set(board.central_loch)
    two_player = num_players <= 2 or side_view

    # ---- cells
    for i in shown:
        if board.kind[i] == KIND_PORT:
            continue
        x, y = board.xy[i]
        corners = _hex_corners(x, y)
        if board.kind[i] == KIND_LOCH:
            colour = CENTRAL_LOCH_COLOUR if i in central else LOCH_COLOUR
            ax.add_patch(Polygon(corners, closed=True, facecolor=colour, edgecolor="white",
                                 linewidth=0.8, zorder=1))
        else:
            types = _types(board.land[i])
            if len(types) == 1:
                ax.add_patch(Polygon(corners, closed=True, facecolor=COLOURS[types[0]],
                                     edgecolor="none", zorder=1))
            else:
                owner = wedge_owners(board.land[i])      # 6 wedges from the centre
                for k in range(6):
                    tri = [(x, y), corners[k], corners[(k + 1) % 6]]
                    ax.add_patch(Polygon(tri, closed=True, facecolor=COLOURS[owner[k]],
                                         edgecolor=COLOURS[owner[k]], linewidth=0.4, zorder=1))
            ax.add_patch(Polygon(corners, closed=True, facecolor="none", edgecolor="white",
                                 linewidth=0.8, zorder=2))
            if board.mist[i]:
                if two_player:
                    ax.add_patch(Polygon(_hex_corners(x, y, 0.98), closed=True,
                                         facecolor=MIST_COLOUR, alpha=0.55 if side_view else 0.78,
                                         edgecolor="none", zorder=3))
                    ax.add_patch(Polygon(_hex_corners(x, y, 0.98), closed=True, facecolor="none",
                                         edgecolor="#7a7a7a", hatch="///", linewidth=0, zorder=3))
                else:  # printed mist, still in play with 3-4 players
                    ax.add_patch(Polygon(_hex_corners(x, y, 0.98), closed=True, facecolor="none",
                                         edgecolor="#ffffff", alpha=0.45, hatch="...",
                                         linewidth=0, zorder=3))
            txt = f"£{board.cost[i]}"
            ax.text(x, y + 0.32, txt, ha="center", va="center", fontsize=10 if len(mods) > 1 else 13,
                    fontweight="bold", color=_text_colour(board.land[i]), zorder=6,
                    path_effects=None if board.land[i] == LAND_FOREST else _outline())
        if border[i] and not side_view:
            ax.add_patch(Polygon(_hex_corners(x, y, 0.86), closed=True, facecolor="none",
                                 edgecolor=BORDER_COLOUR, linewidth=2.2, zorder=4))
        if show_labels:
            lab = board.label[i][1:]   # local "row.col" (the module is the picture's quarter)
            ax.text(x, y - 0.58, lab, ha="center", va="center",
                    fontsize=5.5 if len(mods) > 1 else 7.5, color="#1b1b1b" if board.kind[i] == KIND_LAND
                    and board.land[i] != LAND_FOREST else "#f0f0f0", zorder=6)
        if i in central:
            ax.plot([x], [y + 0.05], marker="*", markersize=11 if len(mods) > 1 else 15,
                    color="white", markeredgecolor="#1b3d73", zorder=6)
        if board.river_delta[i]:
            ax.plot([x - 0.5], [y - 0.05], marker="^", markersize=7 if len(mods) > 1 else 9,
                    color="white", markeredgecolor=RIVER_COLOUR, markeredgewidth=1.4, zorder=6)
        if i in board.waterfall:
            ax.plot([x + 0.5], [y - 0.05], marker="v", markersize=7 if len(mods) > 1 else 9,
                    color="#9ad0ff", markeredgecolor="black", markeredgewidth=1.0, zorder=6)

    # ---- module boundaries (thin dark line where two modules meet)
    for i in shown:
        if board.kind[i] == KIND_PORT:
            continue
        for j in board.adjacent[i]:
            if j < i or board.kind[j] == KIND_PORT or board.module[j] == board.module[i]:
                continue
            if board.module[j] not in mods:
                continue
            _edge_line(ax, board, i, j, color=MODULE_LINE, lw=1.6, zorder=5, alpha=0.8)

    # ---- rivers
    for a, b in board.river_edges:
        if board.module[a] in mods:
            _edge_line(ax, board, a, b, color=RIVER_COLOUR, lw=5.0, zorder=7)

    # ---- ports
    for m, (p12, p34) in enumerate(board.port_positions):
        if m not in mods:
            continue
        for pid, tag in ((p12, "1-2p"), (p34, "3-4p")):
            on = active[pid] or side_view
            alpha = 1.0 if on else 0.28
            px, py = board.xy[pid]
            for j in board.adjacent[pid]:
                cx, cy = board.xy[j]
                ax.plot([px, cx], [py, cy], linestyle=(0, (1.5, 1.5)), color="black",
                        linewidth=1.0, alpha=alpha * 0.8, zorder=8)
            s = 0.56
            ax.add_patch(Rectangle((px - s / 2, py - s / 2), s, s, facecolor=PORT_COLOUR,
                                   edgecolor="black", linewidth=1.2, alpha=alpha, zorder=9))
            ax.text(px, py, str(port_tiles.get(pid, "P")), ha="center", va="center", fontsize=8,
                    fontweight="bold", alpha=alpha, zorder=10)
            if tag == "3-4p":
                dy = -0.48 if board.module[pid] in (2, 3) else 0.48
                ax.text(px, py + dy, tag, ha="center", va="center", fontsize=6.5, alpha=alpha,
                        zorder=10, path_effects=_outline())
            else:  # beside the square, on the map's outer side
                left = board.module[pid] in (0, 3)
                ax.text(px + (-0.34 if left else 0.34), py, tag, ha="right" if left else "left",
                        va="center", fontsize=6.5, alpha=alpha, zorder=10,
                        path_effects=_outline())

    # ---- occupants
    draw_units(ax, board, {sid: v for sid, v in occupants.items() if board.module[sid] in mods})

    # ---- side names outside the map, next to each module
    for m in sorted(mods):
        ids = [i for i in range(m * CELLS_PER_MODULE, (m + 1) * CELLS_PER_MODULE)]
        xs = [board.xy[i][0] for i in ids]
        ys = [board.xy[i][1] for i in ids]
        top = m in (0, 1)
        ax.text(sum(xs) / len(xs), (max(ys) + 1.55) if top else (min(ys) - 1.55),
                f"module {MODULE_NAMES[m]}: side {board.sides[m]}", ha="center", va="center",
                fontsize=10, fontweight="bold", color="#333333")

    xs = [board.xy[i][0] for i in shown]
    ys = [board.xy[i][1] for i in shown]
    ax.set_xlim(min(xs) - 1.9, max(xs) + 1.9)
    ax.set_ylim(min(ys) - 2.2, max(ys) + 2.2)
    ax.set_aspect("equal")
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=13, fontweight="bold")
    if legend:
        handles = [
            Patch(facecolor=COLOURS[LAND_GRASS], label="grassland"),
            Patch(facecolor=COLOURS[LAND_FOREST], label="forest"),
            Patch(facecolor=COLOURS[LAND_MOUNTAIN], label="mountain"),
            Patch(facecolor=LOCH_COLOUR, label="loch"),
            Line2D([], [], color="white", marker="*", markersize=12, markeredgecolor="#1b3d73",
                   markerfacecolor="white", linestyle="none", label="central loch"),
            Line2D([], [], color=RIVER_COLOUR, linewidth=4, label="river (edge)"),
            Line2D([], [], color="white", marker="^", markersize=9, markeredgecolor=RIVER_COLOUR,
                   linestyle="none", label="river delta"),
            Line2D([], [], color="#9ad0ff", marker="v", markersize=9, markeredgecolor="black",
                   linestyle="none", label="waterfall"),
            Patch(facecolor=MIST_COLOUR, hatch="///", edgecolor="#7a7a7a",
                  label="mist (out of 1-2p map)"),
            Patch(facecolor="none", edgecolor=BORDER_COLOUR, linewidth=2.2,
                  label=f"border space ({num_players}p)"),
            Patch(facecolor=PORT_COLOUR, edgecolor="black", label="port (faded: not in play)"),
            Patch(facecolor="white", edgecolor="white", label="£n = land cost; r.c = local cell"),
        ]
        if side_view:
            handles = [h for h in handles if not h.get_label().startswith("border")]
        ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.005),
                  ncol=4 if len(mods) > 1 else 3, fontsize=8.5 if len(mods) > 1 else 7.5,
                  frameon=False, handlelength=1.8)
    return fig


def draw_units(ax, board: Board, occupants: dict) -> None:
    """A marker per unit (``occupants``: {space id: (player index or -1, unit letter)}): a disc in the
    player's colour with the unit letter, beside a port's square so that its tile stays readable."""
    for sid, (player, unit) in occupants.items():
        x, y = board.xy[sid]
        if board.kind[sid] == KIND_PORT:
            r, cx, cy = 0.24, x + 0.42, y - 0.3
        else:
            r, cx, cy = 0.3, x, y - 0.12
        ax.add_patch(Circle((cx, cy), r, facecolor=PLAYER_COLOURS.get(player, "#444444"),
                            edgecolor="black", linewidth=1.2, zorder=11))
        ax.text(cx, cy, unit, ha="center", va="center", fontsize=7.5, color="white",
                fontweight="bold", zorder=12)


def draw_player_legend(ax, players, **legend_kw) -> None:
    """A legend of the players' colours, by default in the upper left corner of ``ax``: ``players`` lists
    ``(seat, name, VP)`` rows (``P0 alice: 42 VP``; the VP is left out where it is None); ``legend_kw``
    go to ``ax.legend`` (placement)."""
    handles = [Line2D([], [], marker="o", linestyle="none", markersize=11, markeredgecolor="black",
                      markerfacecolor=PLAYER_COLOURS.get(seat, "#444444"),
                      label=(name if name.startswith(f"player_{seat}") else f"P{seat} {name}")
                      + (f": {vp} VP" if vp is not None else ""))
               for seat, name, vp in players]
    if handles:
        kw = dict(loc="upper left", fontsize=10, framealpha=0.9, title="players", title_fontsize=10,
                  borderaxespad=0.2)
        kw.update(legend_kw)
        ax.legend(handles=handles, **kw)


def game_players(game, names=None) -> list[tuple[int, str, int]]:
    """The legend's rows for ``game``: (seat, ``names[seat]`` or the agent name ``player_<seat>`` with the
    clan, VP if the game ended now)."""
    scores = game.final_scores()
    rows = []
    for p in range(game.num_players):
        name = str(names[p]) if names is not None and p < len(names) else f"player_{p}"
        clan = game.players[p].clan
        rows.append((p, f"{name} ({clan})" if clan else name, scores[p]["total"]))
    return rows


def game_occupants(game) -> dict:
    """{space: (seat, unit letter)} of a game's units; covered spaces (Tighter Game Map) show as a
    neutral X, Industria's Farmers markets as a neutral "FM" with the initials of their uncovered Goods."""
    out = {}
    for s, who in enumerate(game.occupant):
        if who >= 0:
            out[s] = (who, UNIT_LETTER[game.unit_at[s]])
        elif who == -2:
            out[s] = (-1, "X")
    stacked = second_units(game)
    for i in range(0, len(stacked), 3):       # Industria: a second unit on the space
        who, letter = out[stacked[i]]
        out[stacked[i]] = (who, letter + "+" + UNIT_LETTER[stacked[i + 1]])
    markets = market_list(game)
    for i in range(0, len(markets), 5):
        goods = "".join(GOODS[markets[i + 1 + k]][0].upper() for k in (0, 1) if not markets[i + 3 + k])
        out[markets[i]] = (-1, "FM" + goods)
    return out


@lru_cache(maxsize=8)
def _map_background(board: Board, num_players: int, port_tiles: tuple, dpi: int):
    """The full map picture without units or title (cells, labels, legend), drawn once per map,
    Port tiles and resolution: its pixels, the figure size and the map axes' box and limits."""
    import numpy as np

    fig = draw_board(board, num_players=num_players, port_tiles=dict(port_tiles))
    fig.set_dpi(dpi)
    fig.canvas.draw()
    ax = fig.axes[0]
    pixels = np.asarray(fig.canvas.buffer_rgba()).copy()
    pixels.flags.writeable = False
    return pixels, tuple(fig.get_size_inches()), ax.get_position().bounds, ax.get_xlim(), ax.get_ylim()


def clan_caption(game) -> list[str]:
    """One line per player whose clan has state of its own to show (Kilts, Silos, calves, ...: the clan's
    ``state_text``), for the caption of the map picture."""
    out = []
    for p in range(game.num_players):
        text = game.clans[p].state_text(game, p)
        if text:
            out.append(f"P{p}: {text}")
    return out


def render_position_png(board: Board, path, occupants: dict, port_tiles: dict | None = None,
                        num_players: int = 4, title: str | None = None, dpi: int = 110, players=None,
                        caption=()) -> Path:
    """The map with ``occupants`` (as :func:`draw_board` draws it) saved as a PNG, with a legend of the
    players' colours when ``players`` lists ``(seat, name, VP)`` rows (:func:`game_players`): the empty map is
    drawn once per map and resolution and reused, so a picture per round of a replay takes a fraction of
    a second rather than seconds. ``caption``: lines written in the top left corner, in the players'
    colours when they start with ``P<seat>:`` (the clans' own state, :func:`clan_caption`)."""
    pixels, size, bounds, xlim, ylim = _map_background(board, num_players, tuple(sorted((port_tiles or {}).items())),
                                                       dpi)
    fig = Figure(figsize=size, dpi=dpi)
    FigureCanvasAgg(fig)
    fig.figimage(pixels, 0, 0, origin="upper", zorder=-1)      # under the axes with the units
    ax = fig.add_axes(bounds)
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.set_aspect("equal")
    ax.axis("off")
    draw_units(ax, board, occupants)
    if players:
        draw_player_legend(ax, players)
    if title:
        ax.set_title(title, fontsize=13, fontweight="bold")
    for k, line in enumerate(caption):
        seat = int(line[1]) if line[:1] == "P" and line[1:2].isdigit() else -1
        fig.text(0.01, 0.99 - 0.022 * k, line, ha="left", va="top", fontsize=8,
                 color=PLAYER_COLOURS.get(seat, "black"), fontweight="bold")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi, facecolor="white")
    return path


def edge_segment(board: Board, a: int, b: int) -> tuple[float, float, float, float]:
    """(x1, y1, x2, y2): the hex edge shared by adjacent cells ``a`` and ``b`` (hex size 1); rivers and
    module boundaries are drawn along it (here and in the web viewer's SVG)."""
    (xa, ya), (xb, yb) = board.xy[a], board.xy[b]
    mx, my = (xa + xb) / 2, (ya + yb) / 2
    dx, dy = xb - xa, yb - ya
    d = math.hypot(dx, dy)
    px, py = -dy / d * 0.5, dx / d * 0.5   # half the edge length (hex size 1)
    return mx - px, my - py, mx + px, my + py


def _edge_line(ax, board: Board, a: int, b: int, **kw):
    x1, y1, x2, y2 = edge_segment(board, a, b)
    ax.plot([x1, x2], [y1, y2], solid_capstyle="round", **kw)


def render_board_png(board: Board, path, dpi: int = 110, **kw) -> Path:
    """Draw ``board`` (see :func:`draw_board` for keywords) and save it as a PNG."""
    fig = draw_board(board, **kw)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi, facecolor="white")
    return path


def board_to_rgb_array(board: Board, dpi: int = 60, **kw):
    """The picture as a numpy uint8 array of shape (H, W, 3)."""
    import numpy as np

    fig = draw_board(board, **kw)
    fig.set_dpi(dpi)
    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[..., :3].copy()


def render_side_png(side_name: str, path, dpi: int = 110) -> Path:
    """Draw one module side alone (both port positions, mist shown) and save it as a PNG."""
    name = side_name.strip().upper()
    if name not in SIDE_NAMES:
        raise ValueError(f"unknown map side {side_name!r}; valid sides are {', '.join(SIDE_NAMES)}")
    m = MODULE_NAMES.index(name[0])
    sides = [f"{MODULE_NAMES[k]}1" for k in range(4)]
    sides[m] = name
    board = assemble(tuple(sides))
    fig = draw_board(board, num_players=2, modules=(m,), side_view=True,
                     title=f"Map module side {name} (stand-in design)")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi, facecolor="white")
    return path


hex_corners = _hex_corners

__all__ = ["draw_board", "edge_segment", "hex_corners", "wedge_owners", "draw_units", "game_occupants",
           "render_board_png", "render_position_png",
           "board_to_rgb_array", "render_side_png", "PLAYER_COLOURS",
           "draw_player_legend", "game_players"]
