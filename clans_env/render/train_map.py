"""Draw a Train map side (data/trains.toml), empty or with a game's Trains, tiles and claims, with
matplotlib (Agg, no GUI). Towns are circles, Cities squares; Tunnels are dashed tracks; a Milestone spot's
label sits next to the City or Tunnel it unlocks; Demand spots show their printed number (the refill order,
R2.3), the two Towns of a pair share one number."""
from __future__ import annotations

from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from clans_env.engine import trainmap as TM
from clans_env.engine.rules.common import TRAINS

PLAYER_COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd")


def draw_side(side: TM.TrainSide, ax, game=None) -> None:
    xy = side.xy
    for a, b, tunnel in side.tracks:
        (x1, y1), (x2, y2) = xy[a], xy[b]
        ax.plot([x1, x2], [y1, y2], color="#6b4f2a" if tunnel else "#333333", lw=3 if tunnel else 2,
                ls="--" if tunnel else "-", zorder=1)
        if tunnel:
            k = side.tunnel_spot(a, b)
            ax.text((x1 + x2) / 2, (y1 + y2) / 2 + 0.18, f"tunnel {side.milestone_ids[k]}", ha="center",
                    fontsize=7, color="#6b4f2a", zorder=4)
    ts = game.modstate[TRAINS] if game is not None else None
    for i, (x, y) in enumerate(xy):
        city = side.kind[i] == TM.CITY
        marker = "s" if city else "o"
        ax.scatter([x], [y], s=520 if city else 300, marker=marker, c="#f2c94c" if city else "#ffffff",
                   edgecolors="#222222", linewidths=1.5, zorder=2)
        label = side.ids[i]
        if city:
            label += f"\n{side.milestone_ids[side.city_spot(i)]}"
        ax.text(x, y, label, ha="center", va="center", fontsize=7, zorder=3)
        num = side.demand_numbers[side.demand_spot[i]]
        extra = f"D{num}"
        if game is not None:
            t = ts.demand[side.demand_spot[i]]
            goods = "+".join(f"{q}{g[:2]}" for g, q in zip(("wool", "milk", "grain", "cheese", "bread", "whisky"),
                                                           TM.DEMAND_TILES[t]) if q) if t else "-"
            extra += f" {goods} | B{ts.bonus[i]}"
        ax.text(x, y - 0.42, extra, ha="center", va="top", fontsize=6, color="#555555", zorder=3)
    if game is not None:
        for p, loc in enumerate(ts.at):
            if loc >= 0:
                x, y = xy[loc]
                ax.scatter([x + 0.28 * (p - 1.5)], [y + 0.38], s=90, marker="^" if not ts.tilt[p] else ">",
                           c=PLAYER_COLOURS[p], edgecolors="black", zorder=5)
        for p, loc in enumerate(ts.mini or ()):
            if loc >= 0:
                x, y = xy[loc]
                ax.scatter([x + 0.28 * (p - 1.5)], [y + 0.38], s=40, marker="v", c=PLAYER_COLOURS[p],
                           edgecolors="black", zorder=5)
    ax.set_aspect("equal")
    ax.axis("off")


def render_train_map_png(side_name: str, path, game=None, dpi: int = 110) -> Path:
    """The side ``side_name`` ("34" or "2"), or the side in play of ``game`` with its state."""
    side = TM.SIDES[side_name] if game is None else TM.side_for(game.num_players)
    fig = Figure(figsize=(9, 6.5))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(111)
    draw_side(side, ax, game)
    title = f"Train map side {side.name} ({'/'.join(map(str, side.players))} players; stand-in design)"
    if game is not None:
        title += f" - round {game.round}"
    ax.set_title(title, fontsize=10)
    path = Path(path)
    fig.savefig(path, dpi=dpi, bbox_inches="tight")
    return path


if __name__ == "__main__":   # python -m clans_env.render.train_map  (writes docs/train-map-*.png)
    import sys
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "docs")
    for name in TM.SIDES:
        print(render_train_map_png(name, out / f"train-map-{name}.png"))
