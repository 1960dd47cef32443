"""Re-render the map pictures in docs/maps/ from the side files in clans_env/engine/data/maps/.

    PYTHONPATH=. python docs/maps/make_maps.py

Writes A1.png ... D2.png (each side alone), map-4p-example.png (A1 B1 C1 D1, 4 players)
and map-2p-example.png (A2 B2 C2 D2, 2 players, mist shown).  Exits non-zero when any
assembly fails validation.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from clans_env.engine.board import SIDE_NAMES, all_assemblies, assemble, side_stats, validate_board  # noqa: E402
from clans_env.render.map_image import render_board_png, render_side_png  # noqa: E402

OUT = Path(__file__).resolve().parent


def main() -> int:
    problems = []
    for sides in all_assemblies():
        problems += [f"{' '.join(sides)}: {p}" for p in validate_board(assemble(sides))]
    for p in problems:
        print("PROBLEM", p)
    for name in SIDE_NAMES:
        st = side_stats(name)
        print(f"{name}: land {st['land']} loch {st['loch']} grass {st['grass']} forest {st['forest']} "
              f"mountain {st['mountain']} hybrid {st['hybrid']} mean cost {st['mean_cost']} "
              f"cost-1 (non-mist) {st['cost1_active']} rivers {st['rivers']} "
              f"({st['river_edges']} edges) waterfall {st['waterfall']} loch groups {st['loch_groups']}")
        render_side_png(name, OUT / f"{name}.png")
    render_board_png(assemble("A1 B1 C1 D1"), OUT / "map-4p-example.png", num_players=4,
                     title="Sides A1 B1 C1 D1, 4 players (stand-in map design)")
    render_board_png(assemble("A2 B2 C2 D2"), OUT / "map-2p-example.png", num_players=2,
                     title="Sides A2 B2 C2 D2, 2 players: mist greyed (stand-in map design)")
    print(f"wrote {len(SIDE_NAMES) + 2} pictures to {OUT}")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
