"""What ``clans play`` and ``clans replay`` both show: a move in words and the score sheet.

A move is the engine's record (``Game.describe_move``: ``clans_env.engine.moves.Move``), rendered as its
name with its detail, as the web viewer shows it too."""
from __future__ import annotations

from rich import box
from rich.table import Table
from rich.text import Text

from clans_env import Game


def move_text(game: Game, action: int) -> str:
    """A move in words, read before it is made: ``choose:1 (stewart with Starting tile 1 (£70, ...))``,
    ``space:A1.2 (pay £4; grassland; sheep)``."""
    return game.describe_move(action).text()


def score_table(game: Game, names) -> Table:
    """The score sheet (``game.final_scores()``): one column per seat, one row per VP line."""
    scores = game.final_scores()
    lines: list[str] = []
    for row in scores:
        for k in row:
            if k not in ("total", "money_left", "rank") and k not in lines:
                lines.append(k)
    table = Table(title="Score sheet", box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("")
    for p in range(game.num_players):
        table.add_column(Text(str(names[p])), justify="right")
    for k in lines:
        table.add_row(k.replace("_", " "), *(str(r.get(k, 0)) for r in scores))
    table.add_row(Text("total", style="bold"), *(Text(str(r["total"]), style="bold") for r in scores))
    table.add_row("money left (tie-break)", *(str(r["money_left"]) for r in scores))
    table.add_row("rank", *(str(r["rank"]) for r in scores))
    return table
