"""``clans replay FILE``: a saved game round by round as text, and the map after every round as a PNG.

FILE is a game record (JSON with ``config`` and ``actions``, as ``Game.record()`` and
``clans play --save`` write it), a tournament replay file (``replays/game_*.json`` under a
``clans tournament --out`` folder: the record plus the seats' names) or a full saved state
(``Game.save``; its history is replayed from the start). At the end of each round it lists the
moves made (every decision in words, as the engine describes it and the web viewer shows it, e.g.
``choose:1 (mackenzie with Starting tile 4 (£75))``, with the player's seat and name), then the
position and the players' VP (``--step`` / ``--verbose``: every move as it is made, with the position
after it; ``--pause`` waits for Enter after each view), and
``--out DIR`` receives ``round-1.png`` ... ``round-5.png`` (the map at the end of each round, with a
legend of the players' colours, names and VP) and ``final.png``.
``--html OUT.html`` writes instead one self-contained web page of the replay (the web viewer's
board, decision stepping, charts and score sheet) that opens in a browser without a server.
To step through a game decision by decision on the board, use ``--html`` or ``clans serve``
(the web viewer: every replay under a folder).
"""
# The file helpers here (load_game_file, write_record, write_map_png) are shared with clans play; what both show of a
# game (moves, score sheet) is in present.py.
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from clans_env import Game, GameConfig, IllegalActionError

from .help_text import for_users
from .present import move_text, score_table

from clans_env.engine.records import (  # noqa: F401  (re-exported: the CLI's file helpers)
    RECORD_FORMAT, RECORD_VERSION, GameFileError, _checked_record, load_game_file, read_game_file, write_record,
)


def write_map_png(game: Game, path, title: str | None = None, dpi: int = 80, names=None) -> Path:
    """Draw the map with every unit and Port tile of ``game`` to ``path`` (PNG, atomic), with a legend of
    the players' colours: seat, name (``names[seat]``, e.g. the agents' specs) and VP if it ended now, and a
    caption with each clan's own state (Kilts, Silos, ...)."""
    from clans_env.render.map_image import (clan_caption, game_occupants, game_players,  # matplotlib only when wanted
                                            render_position_png)

    path = Path(path)
    if path.suffix.lower() != ".png":
        raise ValueError(f"the map picture is a PNG file: give a name ending in .png (got {str(path)!r})")
    path.parent.mkdir(parents=True, exist_ok=True)
    ports = {game.topo.port_space[k]: t for k, t in enumerate(game.port_tiles)}
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".png")
    os.close(fd)
    try:
        render_position_png(game.board, tmp, game_occupants(game), port_tiles=ports, num_players=game.num_players,
                            title=title, dpi=dpi, players=game_players(game, names), caption=clan_caption(game))
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)   # mkstemp makes the file private; a picture is for sharing
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def map_players(game: Game, names=None) -> list[tuple[int, str, int]]:
    """The map legend's rows: (seat, player or agent name, VP if the game ended now)."""
    scores = game.final_scores()
    return [(p, str(names[p]) if isinstance(names, list) and p < len(names) else f"player {p}", scores[p]["total"])
            for p in range(game.num_players)]


def position(game: Game) -> str:
    """The text view of the position without its last line, the pending decision (a replay shows the
    moves that were made instead)."""
    return game.render_text().split("\n>> ")[0]


def replay(path, out_dir=None, step: bool = False, console=None, dpi: int = 80, pause=None) -> list[Path]:
    """Replay the game in ``path``, printing the text view and writing the per-round pictures.

    pause: a text stream (e.g. ``sys.stdin``) to wait on after each view: Enter goes on, ``q``
    (or the end of the stream) stops the replay there.
    Returns the PNG paths written (empty without ``out_dir``)."""
    from rich.console import Console
    from rich.rule import Rule

    console = console or Console()
    record, meta = read_game_file(path)
    try:
        config = GameConfig.from_dict(record["config"])
        game = Game(config)
    except (ValueError, TypeError) as e:
        raise GameFileError(f"{path}: bad configuration: {e}") from None
    actions = record["actions"]
    names = meta.get("players")
    written: list[Path] = []
    out = Path(out_dir) if out_dir is not None else None

    def seat_name(p):
        if isinstance(names, list) and p is not None and p < len(names):
            return f"P{p} ({names[p]})"
        return f"P{p}"

    console.print(Rule(f"Replay of {path}: {config.num_players} players, seed {config.seed}, "
                       f"{len(actions)} decisions"))
    def legend():
        console.print("players: " + "   ".join(f"{seat_name(p)} {vp} VP" for p, _, vp in map_players(game, names)),
                      markup=False, highlight=False)

    console.print(game.render_text(), markup=False, highlight=False)
    legend()
    current_round = game.round
    round_moves: list[str] = []

    def keep_going() -> bool:
        if pause is None:
            return True
        console.print("[Enter] next, q quit: ", end="", markup=False, highlight=False)
        line = pause.readline()
        return bool(line) and line.strip().lower() not in ("q", "quit")

    stopped = False
    for i, a in enumerate(actions):
        if stopped:
            break
        p = game.current_player
        kind = game.decision_kind
        try:
            text = move_text(game, a)
            game.apply(a)
        except (IllegalActionError, ValueError) as e:
            raise GameFileError(f"{path}: the record does not replay: decision #{i} ({a!r}) failed: {e}") from None
        move = f"#{i:<4} {seat_name(p)} {kind}: {text}"
        round_moves.append(move)
        if step:
            console.print(move, markup=False, highlight=False)
            console.print(position(game), markup=False, highlight=False)
            legend()
            stopped = not keep_going()
        if game.round != current_round or game.is_terminal():
            finished = current_round
            current_round = game.round
            if game.is_terminal():
                label = f"End of round {finished} (game over)"
            else:
                label = f"End of round {finished}"
            console.print(Rule(label))
            if not step:
                console.print(f"The moves of round {finished}:", markup=False, highlight=False)
                for line in round_moves:
                    console.print("  " + line, markup=False, highlight=False)
                console.print(position(game), markup=False, highlight=False)
                legend()
                stopped = stopped or not keep_going()
            round_moves = []
            if out is not None and not game.is_terminal():
                written.append(write_map_png(game, out / f"round-{finished}.png",
                                             title=label, dpi=dpi, names=names))
    if out is not None:
        if game.is_terminal():
            written.append(write_map_png(game, out / f"round-{game.round}.png",
                                         title=f"End of round {game.round}", dpi=dpi,
                                         names=names))
        written.append(write_map_png(game, out / "final.png",
                                     title="Final" if game.is_terminal() else
                                     f"After {len(actions)} decisions (unfinished)", dpi=dpi,
                                     names=names))
    console.print(Rule("Score sheet" if game.is_terminal() else "Score sheet (game unfinished: scored as if "
                                                                 "it ended now)"))
    console.print(score_table(game, [seat_name(p) for p in range(game.num_players)]))
    for p in written:
        console.print(f"wrote {p}", markup=False, highlight=False)
    return written


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a game record (JSON with config and actions: `clans play --save`, "
                                     "tournament replays, Game.record()) or a saved state (Game.save)")
    parser.add_argument("--out", metavar="DIR", default=None,
                        help="write the map picture after each round (round-1.png ... final.png) here")
    parser.add_argument("--step", "--verbose", dest="step", action="store_true",
                        help="print every decision and the text view after it (default: once per round)")
    parser.add_argument("--pause", action="store_true",
                        help="wait for Enter after each view (q stops), to step through at your own pace")
    parser.add_argument("--dpi", type=int, default=80, help="resolution of the PNG pictures (default 80)")
    parser.add_argument("--html", metavar="OUT.html", default=None,
                        help="write the replay as one self-contained HTML page (board, every decision, charts, "
                             "score sheet) that opens in a browser without a server, instead of the text view")


def run(args) -> int:
    from rich.console import Console

    console = Console()
    if args.html:
        from clans_web.pages import replay_html   # the web viewer's page, inlined

        if not args.html.lower().endswith((".html", ".htm")):
            console.print(f"error: --html writes an HTML page: give a name ending in .html (got {args.html!r})",
                          markup=False, highlight=False, style="bold red")
            return 2
        try:
            out = replay_html(args.file, args.html)
        except GameFileError as e:
            console.print(f"error: {e}", markup=False, highlight=False, style="bold red")
            return 2
        console.print(f"wrote {out} (open it in a browser)", markup=False, highlight=False)
        return 0
    try:
        replay(args.file, out_dir=args.out, step=args.step, console=console, dpi=args.dpi,
               pause=sys.stdin if args.pause else None)
    except GameFileError as e:
        console.print(f"error: {e}", markup=False, highlight=False, style="bold red")
        return 2
    return 0


def add_replay_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``clans replay`` on an argparse subparsers object."""
    parser = subparsers.add_parser("replay", help="a saved game round by round as text; map PNG per round (--out)",
                                   description=for_users(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    parser.set_defaults(func=run)
    return parser


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="clans replay", description=for_users(__doc__),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
