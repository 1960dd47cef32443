"""Pictures of a game for ``render_mode="rgb_array"``: the map with every unit on it, beside a
panel of the player boards, drawn with matplotlib (Agg, no GUI).

The map itself (``clans_env.render.map_image.draw_board``: hundreds of patches and labels) is the
slow part and never changes during a game, so it is drawn once per (board, player count, Port
tiles) and reused as a background image; each frame only draws the units and the panel.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..engine import data as D
from ..engine.state import PHASE_NAMES
from ..render.map_image import (PLAYER_COLOURS, draw_board, draw_player_legend, draw_units, game_occupants,
                                game_players)

FIG_SIZE = (19.0, 11.0)
MAP_BOX = (0.0, 0.06, 0.66, 0.92)       # figure fraction: left, bottom, width, height
PANEL_BOX = (0.665, 0.0, 0.335, 1.0)
DPI = 60


@lru_cache(maxsize=8)
def _background(board, num_players: int, port_tiles: tuple, dpi: int):
    """The empty map as an image, cropped to its axes, with the data limits it spans."""
    fig = Figure(figsize=FIG_SIZE, dpi=dpi)
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_axes(MAP_BOX)
    draw_board(board, num_players=num_players, ax=ax, port_tiles=dict(port_tiles), legend=False,
               show_labels=False)
    canvas.draw()
    pixels = np.asarray(canvas.buffer_rgba())[..., :3]
    box = ax.get_window_extent()
    height = pixels.shape[0]
    x0, x1 = int(round(box.x0)), int(round(box.x1))
    y0, y1 = height - int(round(box.y1)), height - int(round(box.y0))   # image rows run downwards
    crop = pixels[y0:y1, x0:x1].copy()
    crop.flags.writeable = False
    return crop, ax.get_xlim(), ax.get_ylim()


def render_rgb(game, dpi: int = DPI, names=None) -> np.ndarray:
    """The position as a uint8 array of shape (H, W, 3); the map's legend names each colour's seat
    (``names[seat]``, default the agent name ``player_<seat>``), clan and VP if the game ended now."""
    ports = tuple((game.topo.port_space[k], tile) for k, tile in enumerate(game.port_tiles))
    background, xlim, ylim = _background(game.board, game.num_players, ports, dpi)
    fig = Figure(figsize=FIG_SIZE, dpi=dpi)
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_axes(MAP_BOX)
    ax.imshow(background, extent=(*xlim, *ylim), interpolation="nearest")
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.set_aspect("equal")
    ax.axis("off")
    draw_units(ax, game.board, game_occupants(game))
    # the colours' legend under the map (two columns)
    draw_player_legend(ax, game_players(game, names), loc="upper left", bbox_to_anchor=(0.0, 0.0),
                       ncol=min(game.num_players, 2), title=None, frameon=False, fontsize=12,
                       borderaxespad=0.0, labelspacing=0.2)
    _panel(fig.add_axes(PANEL_BOX), game)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[..., :3].copy()


def _panel(ax, game) -> None:
    """Round, market and one block per player board, as text."""
    ax.axis("off")
    lines = [(f"Round {game.round}/{D.NUM_ROUNDS} - {PHASE_NAMES[game.phase]}", "black", "bold")]
    if game.scoring_tiles:
        lines.append((f"Scoring tiles {list(game.scoring_tiles)}", "black", "normal"))
    lines.append(("Market " + " ".join(f"{g[:2]}£{D.PRICES[i][game.prices[i]]}" for i, g in enumerate(D.GOODS)),
                  "black", "normal"))
    lines.append((f"Contracts on display {sum(1 for c in game.display if c >= 0)}, pile {len(game.pile)}",
                  "black", "normal"))
    lines.append(("", "black", "normal"))
    scores = game.final_scores()
    for p, pl in enumerate(game.players):
        colour = PLAYER_COLOURS.get(p, "black")
        clan = f" ({pl.clan})" if pl.clan else ""
        marker = "  <- to move" if game.current_player == p else ""
        lines.append((f"Player {p}{clan}{marker}", colour, "bold"))
        lines.append((f"  £{pl.money}  glory {pl.glory}  VP if it ended now {scores[p]['total']}", colour, "normal"))
        goods = " ".join(f"{g[:2]}:{q}" for g, q in zip(D.GOODS, pl.goods) if q) or "-"
        lines.append((f"  goods {goods}", colour, "normal"))
        lines.append((f"  ship {D.SHIPPING_LEVELS[pl.shipping]}, merchants {pl.merchants_stock}, contracts "
                      f"{len(pl.open_contracts)} open / {len(pl.done_contracts)} done"
                      f"{', passed' if pl.passed else ''}", colour, "normal"))
        clan_text = game.clans[p].state_text(game, p)       # the clan's own state (Kilts, Silos, ...)
        if clan_text:
            lines.append((f"  {clan_text}", colour, "normal"))
    lines.append(("", "black", "normal"))
    lines.append((f"Player {game.current_player}: {game.decision_kind}" if game.stack else "Game over",
                  "black", "bold"))
    y = 0.97
    step = min(0.04, 0.95 / len(lines))      # the clans' own lines can make the panel longer
    for text, colour, weight in lines:
        ax.text(0.01, y, text, transform=ax.transAxes, fontsize=12, color=colour, fontweight=weight, va="top",
                family="monospace")
        y -= step
