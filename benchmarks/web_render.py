"""Web viewer speed in a real browser: the time the replay page takes to draw each state.

Plays one game with heuristic bots, serves it (clans_web under uvicorn on 127.0.0.1), opens the
replay in headless Chromium (Playwright, the system browser) and presses the right arrow through
every decision. The page measures each state from the key press handler to the end of the
browser's layout (board units, panels, charts, score sheet): ``window.clansTiming``.

    python benchmarks/web_render.py                    # 4 players, seed 3
    python benchmarks/web_render.py --players 2 --seed 0 --chromium /usr/bin/chromium
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = ap.parse_args(argv)

    from playwright.sync_api import sync_playwright
    from web_support import live_server

    from agents import make
    from clans_env import Game, GameConfig
    from clans_env.engine.records import write_record

    g = Game(GameConfig(num_players=args.players, seed=args.seed))
    bots = [make("heuristic", seed=p) for p in range(args.players)]
    while not g.is_terminal():
        g.apply(bots[g.current_player].act(g))
    with tempfile.TemporaryDirectory() as tmp:
        write_record(Path(tmp) / "game.json", g, players=["heuristic"] * args.players)
        with live_server([tmp]) as url, sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            t = time.perf_counter()
            page.goto(url + "/replay?file=0/game.json")
            page.wait_for_selector("#board")
            load = time.perf_counter() - t
            for _ in range(len(g.history)):
                page.keyboard.press("ArrowRight")
            tm = page.evaluate("window.clansTiming")
            browser.close()
    print(f"{args.players} players, {len(g.history)} decisions: page load {load:.2f} s; {tm['count']} states drawn, "
          f"mean {tm['total_ms'] / tm['count']:.1f} ms, max {tm['max_ms']:.1f} ms per state (target < 100 ms)")
    return 0 if tm["max_ms"] < 100 else 1


if __name__ == "__main__":
    sys.exit(main())
