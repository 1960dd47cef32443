"""``clans play``: play a full game of Clans of Caledonia in the terminal against agents.

Each decision shows one screen that fits the terminal (its height from shutil.get_terminal_size):
the round, every player's standing in a line, the Market in a line, the map when you choose a space,
then your legal moves, each by number (from 0, as ``choose:0`` counts) and by its action name
(``take_contract`` moves show what the contract needs and gives); answer with either. Numbers change
from one decision to the next, names do not. Passing for the round asks y/N first. Commands: ``map``
and ``market`` show the whole map and the Market with the contracts and Port tiles, ``board`` the
whole table, ``help`` what the pending decision asks, ``undo`` takes back your last decision (and the
bots' moves since), ``save`` writes the game, ``map FILE.png`` a picture. Input is read line by line
from stdin, so a game can be scripted with a pipe::

    clans play --players 2 --seat 0 --opponents heuristic --seed 7 --save mygame.json
    clans play --load mygame.json                       # resume (seat and opponents are saved)
    yes 0 | clans play --opponents random --seed 3 --no-confirm   # always take the first listed move

Exit status: 0 when the game ended or you quit, 1 when the input ran out before the end,
2 for bad options or files.
"""
from __future__ import annotations

import argparse
import inspect
import shutil
import sys
from typing import TextIO

from rich import box
from rich.columns import Columns
from rich.console import Console, Group
from rich.panel import Panel
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from clans_env import Game, GameConfig, IllegalActionError
from clans_env.engine import actions as A
from clans_env.engine import data as D
from clans_env.engine.records import take_back
from clans_env.engine.views import automa_record, contract_parts
from clans_env.engine.board import KIND_LOCH, KIND_PORT, LAND_FOREST, LAND_GRASS, LAND_MOUNTAIN
from clans_env.engine.config import CLAN_SELECTIONS
from clans_env.engine.rules.common import price, reach
from clans_env.engine.rules.scoring import import_values
from clans_env.engine.state import K_PLACE, PHASE_NAMES, PLACE_FIRST, PLACE_FREE

from .help_text import COMMANDS_HELP, PORT_TILE_HELP, SCORING_TILE_HELP, SECTION_HELP, decision_help, for_users
from .present import move_text, score_table
from .replay import GameFileError, load_game_file, write_map_png, write_record

#: seat colours, matching ``clans_env.render.map_image.PLAYER_COLOURS``
SEAT_STYLES = ("bold red", "bold blue", "bold green", "bold dark_orange")
_LAND_STYLES = ((LAND_GRASS, "green3", "g"), (LAND_FOREST, "dark_green", "f"), (LAND_MOUNTAIN, "tan", "m"))
COMMANDS = ("help", "?", "map", "market", "board", "show", "moves", "scores", "undo", "save", "quit", "exit")
#: screen height when the terminal's cannot be read (output to a file or a pipe)
DEFAULT_ROWS = 50


# ---------------------------------------------------------------------------------------------
# agents
def make_agent(spec: str, seed: int):
    """Build the agent for ``spec`` (``agents.make`` syntax, e.g. ``mcts:sims=200``)."""
    try:
        from agents import make
    except ImportError:
        try:
            from agents.registry import make
        except ImportError:
            make = None
    if make is not None:
        if "seed" in inspect.signature(make).parameters:
            return make(spec, seed=seed)
        agent = make(spec)
        agent.reset(seed)
        return agent
    # agents.make is the supported path; this keeps `clans play` usable while it is absent
    from agents import RandomAgent
    if spec.strip().lower() == "random":
        return RandomAgent(seed)
    raise ValueError(f"unknown agent spec {spec!r}: only 'random' is available without agents.make")


def agent_label(agent, spec: str) -> str:
    return getattr(agent, "spec", None) or spec


# ---------------------------------------------------------------------------------------------
# rich views of the table (each returns a renderable; nothing here reads input)
def seat_text(p: int, human: int | None = None, names=None) -> Text:
    label = f"P{p}"
    if p == human:
        label += " (you)"
    elif names is not None:
        label += f" {names[p]}"
    return Text(label, style=SEAT_STYLES[p % len(SEAT_STYLES)])


def _land_letters(mask: int) -> str:
    return "".join(ch for bit, _, ch in _LAND_STYLES if mask & bit)


def _land_style(mask: int) -> str:
    for bit, style, _ in _LAND_STYLES:
        if mask & bit:
            return style
    return ""


def map_view(game: Game, highlight=frozenset(), legend: str | None = None) -> Text:
    """The hex map, two text lines per row of spaces: the label, then the content.

    Content: land cost + land letters (g grassland, f forest, m mountain) for empty land, ``~~``
    loch, ``P1S`` = player 1's Sheep (unit letters below), ``XX`` blocked, ``..`` outside the
    active map. ``*`` marks the spaces you may choose now."""
    b = game.board
    active = game.topo.active
    rows: dict = {}
    for s in range(b.num_spaces):
        if b.kind[s] == KIND_PORT:
            continue
        x, y = b.xy[s]
        rows.setdefault(round(y, 2), []).append((x, s))
    text = Text()
    width = 6
    for y in sorted(rows, reverse=True):
        row = sorted(rows[y])
        indent = " " * (width // 2) if row[0][0] % 1.0 > 0.25 else ""
        top, bottom = Text(indent), Text(indent)
        for _, s in row:
            occ = game.occupant[s]
            mark = "*" if s in highlight else ""
            dim = not (active >> s & 1) and b.kind[s] != KIND_LOCH
            top.append(f"{b.label[s]:<{width}}", style="dim" if dim else "grey50")
            if occ >= 0:
                cell, style = f"P{occ}{D.UNIT_LETTER[game.unit_at[s]]}", SEAT_STYLES[occ % 4]
            elif occ == -2:
                cell, style = "XX", "bold white on grey35"
            elif b.kind[s] == KIND_LOCH:
                cell, style = "~~~", "blue"
            elif dim:
                cell, style = "..", "dim"
            else:
                cell, style = f"{b.cost[s]}{_land_letters(b.land[s])}", _land_style(b.land[s])
            if mark:
                style += " reverse"
            top_cell = f"{mark}{cell}"
            bottom.append(f"{top_cell:<{width}}", style=style)
        text.append_text(top)
        text.append("\n")
        text.append_text(bottom)
        text.append("\n")
    text.append(MAP_LEGEND if legend is None else legend, style="dim")
    return text


#: what the text map's cells mean (printed under it)
MAP_LEGEND = (
    "cells: 4gf = empty land costing £4 (land g grassland, f forest, m mountain); ~~~ loch; P1S = a unit of "
    "player P1 (" + ", ".join(f"{D.UNIT_LETTER[u]} {D.UNITS[u]}" for u in range(D.NUM_UNITS)) + "); "
    "XX blocked (covered) space; .. not in play with this many players; * a space you may choose now. "
    "Rivers are not drawn here (`map FILE.png` draws them).")
#: the one-line legend of the map on the compact screen
SHORT_MAP_LEGEND = "* = a space you may choose; 4gf = land £4, grassland+forest; P1S = P1's sheep; `map`: all cells"


def players_legend(game: Game, human: int | None, names) -> Text:
    """One line naming each seat in its map colour: seat, player or agent name, VP if the game ended now."""
    scores = game.final_scores()
    t = Text("players: ")
    for p in range(game.num_players):
        if p:
            t.append("   ")
        t.append_text(seat_text(p, human, names))
        t.append(f" {scores[p]['total']} VP", style=SEAT_STYLES[p % len(SEAT_STYLES)])
    return t


def header_view(game: Game, human: int | None, compact: bool = False) -> Text:
    """Round, phase, map, turn order, the Scoring tiles and what a contract costs this round; the
    compact form leaves out the map sides and later tiles and fits one or two lines."""
    t = Text()
    if not compact:
        t.append(f"Round {game.round}/{D.NUM_ROUNDS}", style="bold")
        t.append(f" - {PHASE_NAMES[game.phase]} - map {' '.join(game.board.sides)} - ")
    t.append("turn order ")
    for i, p in enumerate(game.turn_order):
        if i:
            t.append(" ")
        t.append(f"P{p}", style=SEAT_STYLES[p % 4])
    sep = "; " if compact else "\n"
    if game.scoring_tiles:
        tile = game.scoring_tiles[game.round - 1]
        t.append(f"{sep}Scoring tile this round: #{tile} ({SCORING_TILE_HELP.get(tile, '?')})")
        if not compact:
            t.append("; later: " + (", ".join(f"#{x}" for x in game.scoring_tiles[game.round:]) or "none"))
    cost = D.ROUND_COST[game.round - 1]
    t.append(f"{sep}Obtaining a contract this round: "
             f"{'receive £' + str(-cost) if cost < 0 else 'pay £' + str(cost)}")
    return t


def market_line(game: Game, human: int | None) -> Text:
    """The Market in one line: each Good's price, then where your Merchants stand on it."""
    t = Text("Market: ", style="bold")
    t.append(", ".join(f"{good} £{price(game, i)}" for i, good in enumerate(D.GOODS)))
    if human is not None:
        pl = game.players[human]
        mine = [f"{A.DIRECTIONS[d]} {good} {pl.merchants_market[2 * i + d]}" for i, good in enumerate(D.GOODS)
                for d in (A.BUY, A.SELL) if pl.merchants_market[2 * i + d]]
        if mine:
            t.append("; your merchants: " + ", ".join(mine))
    t.append("; imports now worth " + ", ".join(f"{n} {v}" for n, v in zip(D.IMPORTS, import_values(game))) + " VP")
    return t


def market_table(game: Game, human: int | None) -> Table:
    table = Table(title="Market", box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("good")
    table.add_column("price", justify="right")
    table.add_column("step", justify="right")
    if human is not None:
        table.add_column("your merchants", justify="right")
    pl = game.players[human] if human is not None else None
    for i, good in enumerate(D.GOODS):
        row = [good, f"£{price(game, i)}", f"{game.prices[i]}/{D.MAX_STEP}"]
        if pl is not None:
            buy, sell = pl.merchants_market[2 * i + A.BUY], pl.merchants_market[2 * i + A.SELL]
            row.append(" ".join(x for x in (f"buy {buy}" if buy else "", f"sell {sell}" if sell else "") if x)
                       or "-")
        table.add_row(*row)
    return table


def contracts_table(game: Game) -> Table:
    table = Table(title=f"Export contracts (draw pile {len(game.pile)})", box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("box", justify="right")
    table.add_column("#", justify="right")
    table.add_column("needs")
    table.add_column("gives")
    for k, cid in enumerate(game.display):
        if cid >= 0:
            need, gain = contract_parts(cid)
            table.add_row(str(k), str(cid), need, gain)
    values = import_values(game)
    table.caption = ("imports now worth " + ", ".join(f"{n} {v} VP" for n, v in zip(D.IMPORTS, values))
                     + " (track " + ", ".join(str(x) for x in game.import_track) + ")")
    return table


def players_table(game: Game, human: int | None, names) -> Table:
    """Every player's standing, one column per seat (fits 80 columns with four players)."""
    table = Table(title="Players", box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("")
    for p in range(game.num_players):
        table.add_column(seat_text(p, human, names), justify="left", overflow="fold")
    scores = game.final_scores()
    rows: dict[str, list[str]] = {}
    for p in range(game.num_players):
        for label, value in standing(game, p, scores).items():
            rows.setdefault(label, []).append(value)
    for label, values in rows.items():
        if label == "passed" and not any(values):
            continue
        table.add_row(label, *values)
    table.caption = GOODS_LEGEND
    return table


def standing(game: Game, p: int, scores=None) -> dict[str, str]:
    """One player's standing, label -> short value (the players table and the compact lines)."""
    pl = game.players[p]
    scores = scores or game.final_scores()
    clan = game.clans[p].name
    return {
        "clan": "-" if clan == "none" else clan,
        "money": f"£{pl.money}",
        "glory": str(pl.glory),
        "VP now": str(scores[p]["total"]),
        "goods": " ".join(f"{D.GOODS[i][:2]}{q}" for i, q in enumerate(pl.goods) if q) or "-",
        "units on map": " ".join(f"{D.UNIT_LETTER[u]}{pl.units_placed(u)}" for u in range(D.NUM_UNITS)
                                 if pl.units_placed(u)) or "-",
        "shipping": D.SHIPPING_LEVELS[pl.shipping],
        "technology": " ".join(n for n, t in zip(A.TECH_NAMES, pl.tech) if t) or "-",
        "merchants": f"{pl.merchants_stock} stock, {sum(pl.merchants_market)} market",
        "open contracts": " ".join(f"#{c}" for c in pl.open_contracts) or "-",
        "fulfilled": str(len(pl.done_contracts)),
        "passed": "yes" if pl.passed else "",
    }


def standings_view(game: Game, human: int | None, names) -> Text:
    """Every player's standing, a line each (the compact form of the players table)."""
    scores = game.final_scores()
    t = Text()
    for p in range(game.num_players):
        row = standing(game, p, scores)
        if p:
            t.append("\n")
        t.append_text(seat_text(p, human, names))
        clan = "" if row["clan"] == "-" else f" {row['clan']}"
        t.append(f"{clan} {row['money']}, {row['glory']} glory, {row['VP now']} VP now; goods {row['goods']}; "
                 f"units {row['units on map']}; shipping {row['shipping']}; tech {row['technology']}; merchants "
                 f"{row['merchants']}; contracts {row['open contracts']}, {row['fulfilled']} fulfilled"
                 + ("; PASSED" if row["passed"] else ""))
    return t


#: the goods abbreviations of the players table, and the meat that contracts ask for
GOODS_LEGEND = ("goods: wo wool, mi milk, gr grain, ch cheese, br bread, wh whisky; mutton and beef (in "
                "contracts) are meat: slaughter a Sheep or Cow from the map when fulfilling; VP now: the score "
                "sheet if the game ended now")


def player_board_view(game: Game, p: int):
    """The human's own Player board: units still to deploy with their cost, and belongings."""
    pl = game.players[p]
    clan = game.clans[p]
    table = Table(title=f"Your Player board (P{p}{', clan ' + clan.name if clan.name != 'none' else ''})",
                  box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("unit")
    table.add_column("to deploy", justify="right")
    table.add_column("on map", justify="right")
    table.add_column("cost", justify="right")
    for u in range(D.NUM_UNITS):
        if pl.units_total[u] == 0:
            continue
        table.add_row(D.UNITS[u], str(pl.units_left[u]), str(pl.units_placed(u)), f"£{clan.unit_cost(game, p, u)}")
    need = []
    for cid in pl.open_contracts:
        n, g = contract_parts(cid)
        need.append(f"#{cid}: {n} -> {g}")
    lines = Text("\n".join([
        f"money £{pl.money}; goods " + (", ".join(f"{q} {D.GOODS[i]}" for i, q in enumerate(pl.goods) if q) or "none"),
        f"merchants: {pl.merchants_stock} in stock, {sum(pl.merchants_market)} on the Market, "
        f"{pl.merchants_board} still to hire (£{D.HIRE_MERCHANT_COST})",
        f"shipping: {D.SHIPPING_LEVELS[pl.shipping]} (upgrade £{D.SHIPPING_COST}); technology: woodcutter "
        f"{'yes' if pl.tech[0] else 'no'}, miner {'yes' if pl.tech[1] else 'no'} (£{D.TECH_COST} each)",
        "open contracts: " + ("; ".join(need) or "none"),
        f"fulfilled: {len(pl.done_contracts)}; imports " + ", ".join(f"{q} {n}" for n, q in zip(D.IMPORTS, pl.imports))
        + f"; hops {pl.hops}; meat exported {pl.meat}",
    ]))
    return Group(table, lines)


def ports_view(game: Game, human: int | None) -> Text:
    t = Text()
    if not game.port_tiles:
        return t
    r = reach(game, human) if human is not None else 0
    used = game.players[human].ports_used if human is not None else 0
    for k, tile in enumerate(game.port_tiles):
        space = game.topo.port_space[k]
        state = ""
        if human is not None:
            state = "used" if used >> k & 1 else ("in your reach" if r >> space & 1 else "out of reach")
        t.append(f"Port slot {k} ({game.board.label[space]}): tile {tile} - {PORT_TILE_HELP.get(tile, '?')}"
                 f"{' [' + state + ']' if state else ''}\n")
    return t


def table_view(game: Game, human: int | None, names, highlight=frozenset()):
    """Everything on the table, for a full redraw."""
    parts = [Rule(style="dim"), header_view(game, human), map_view(game, highlight),
             players_legend(game, human, names), ports_view(game, human),
             Columns([market_table(game, human), contracts_table(game)], padding=(0, 3)),
             players_table(game, human, names)]
    if game.config.industria_modules:
        parts.append(industria_view(game))
    if human is not None:
        parts.append(player_board_view(game, human))
    return Group(*parts)


def industria_view(game: Game) -> Text:
    """The Industria modules' state (Award, refill board, Farmers markets): the engine's text line."""
    from clans_env.engine.views import industria_text
    return Text(industria_text(game), style="cyan")


def describe_decision(game: Game) -> str:
    """``game.decision_text()``, made specific where the engine only names the decision kind."""
    text = game.decision_text()
    if text != game.decision_kind:
        return text
    frame = game.stack[-1]
    if frame[0] == K_PLACE:
        what = {PLACE_FIRST: "first Worker", PLACE_FREE: "unit (Free space: no land cost)"}.get(frame[3], "unit")
        return f"Choose the space for your {D.UNITS[frame[2]]} ({what}); * on the map marks the legal spaces"
    return text


def move_items(game: Game, legal: list[int]) -> list[Text]:
    """The legal moves as numbered items, by number and the engine's record of each (``Move.text``). Trades
    of one Good in one direction with consecutive quantities share an item,
    ``3-5 trade:buy:wool:1-3 (pay £3 for 1 .. £10 for 3)``: number 3 is quantity 1, so a Stewart's 120 trades
    still fit a screen."""
    moves = [game.describe_move(a) for a in legal]
    items: list[Text] = []
    i = 0
    while i < len(moves):
        m = moves[i]
        j = i
        if m.family == "trade":
            while (j + 1 < len(moves) and moves[j + 1].action == moves[j].action + 1
                   and (moves[j + 1].good, moves[j + 1].direction) == (m.good, m.direction)):
                j += 1
        if j == i:
            items.append(Text.assemble((f"{i:>3}", "bold cyan"), " ", m.text()))
        else:
            last = moves[j]
            name = f"{m.name.split(' (')[0]}-{last.quantity}"
            money = ""
            if m.cost is not None and last.cost is not None:
                verb = "pay" if m.cost >= 0 else "get"
                money = f" ({verb} £{abs(m.cost)} for {m.quantity} .. £{abs(last.cost)} for {last.quantity})"
            items.append(Text.assemble((f"{i:>3}-{j}", "bold cyan"), " ", name + money))
        i = j + 1
    return items


def moves_view(game: Game, legal: list[int], items: list[Text] | None = None) -> Columns:
    items = move_items(game, legal) if items is None else items
    return Columns(items, padding=(0, 2), equal=False, column_first=True)


# ---------------------------------------------------------------------------------------------
# the session
class _Quit(Exception):
    pass


class _EndOfInput(Exception):
    pass


class PlaySession:
    """One human seat against agents; reads commands from ``inp`` and draws on ``console``."""

    def __init__(self, game: Game, human: int, bots: dict, specs: list[str], console: Console,
                 inp: TextIO, save_path=None, echo: bool = False, confirm_pass: bool = True):
        self.game = game
        self.human = human
        self.bots = bots
        self.specs = specs
        self.names = specs
        self.console = console
        self.inp = inp
        self.save_path = save_path
        self.echo = echo
        self.confirm_pass = confirm_pass
        self._round_glory = [pl.glory for pl in game.players]

    # ---- output helpers
    def say(self, *objects) -> None:
        """Print each object on lines of its own."""
        for obj in objects:
            self.console.print(obj)

    def plain(self, text: str, style: str | None = None) -> None:
        self.say(Text(text, style=style or ""))

    def rows_of(self, renderable) -> int:
        """How many terminal rows ``renderable`` takes at the console's width."""
        return len(self.console.render_lines(renderable, self.console.options, pad=False))

    def screen_rows(self) -> int:
        """The terminal's height, read at each screen so that a resized terminal is followed."""
        return shutil.get_terminal_size((self.console.width, DEFAULT_ROWS)).lines

    def seat(self, p: int) -> Text:
        return seat_text(p, self.human, self.names)

    # ---- main loop
    def run(self) -> int:
        g = self.game
        who = "solo game" if g.num_players == 1 else f"{g.num_players} players"
        self.say(Rule(f"Clans of Caledonia: {who}, seed {g.config.seed}; you are P{self.human}"))
        self.plain("Type a move number or name; 'help' explains the decision and lists commands.", "dim")
        try:
            while not self.game.is_terminal():
                p = self.game.current_player
                if p in self.bots:
                    self._bot_move(p)
                else:
                    self._human_decision()
        except _Quit:
            self._autosave()
            self.plain("Game stopped." + (f" Saved to {self.save_path}; resume with: clans play --load "
                                          f"{self.save_path}" if self.save_path else ""))
            return 0
        except _EndOfInput:
            self._autosave()
            self.plain("Input ended before the game finished." +
                       (f" Saved to {self.save_path}." if self.save_path else ""), "yellow")
            return 1
        except KeyboardInterrupt:
            self._autosave()
            self.plain("\nInterrupted." + (f" Saved to {self.save_path}." if self.save_path else ""), "yellow")
            return 130
        self._game_over()
        return 0

    def _apply(self, action: int) -> None:
        g = self.game
        before_round, before_phase = g.round, g.phase
        before = g.clone() if PHASE_NAMES[before_phase] == "action" else None
        seen = len(automa_record(g))
        g.apply(action)
        for line in automa_record(g)[seen:]:        # the Automa's turns, resolved inside apply
            self.say(Text("  " + line, style="magenta"))
        if before is not None and (g.phase != before_phase or g.round != before_round):
            # this move ended the action phase: Production follows (within the same move when nobody has a
            # choice to make in it)
            self.say(Rule("Production", style="dim"))
            self._production_report(before)
        if g.round != before_round or (g.is_terminal() and before_phase != g.phase):
            self._round_report(before_round)

    def _production_report(self, before: Game) -> None:
        """What Production gives each player (rulebook "Phase 3: Production" 1.-2.: the Workers' income and
        the Basic goods of Sheep, Cows and Fields, with clan effects), worked out by the engine's own
        Production rule on a copy of the position; processing choices follow as decisions."""
        from clans_env.engine.rules.production import produce
        for p in range(before.num_players):
            copy = before.clone()
            pl0 = copy.players[p]
            money, goods = pl0.money, list(pl0.goods)
            produce(copy, p)
            pl = copy.players[p]
            made = [f"{q1 - q0} {D.GOODS[i]}" for i, (q0, q1) in enumerate(zip(goods, pl.goods)) if q1 > q0]
            self.say(Text.assemble("  ", self.seat(p), f" produces {', '.join(made) or 'no goods'} and earns "
                                   f"£{pl.money - money}"))

    def _round_report(self, finished_round: int) -> None:
        g = self.game
        gains = []
        for p, pl in enumerate(g.players):
            gains.append(Text.assemble(self.seat(p), f" +{pl.glory - self._round_glory[p]} glory"))
        self._round_glory = [pl.glory for pl in g.players]
        tile = f" (scoring tile #{g.scoring_tiles[finished_round - 1]})" if g.scoring_tiles else ""
        self.say(Text.assemble(f"Round {finished_round} scored{tile}: ", *sum(([t, ", "] for t in gains), [])[:-1]))
        if not g.is_terminal():
            self.say(Rule(f"Round {g.round}"))

    def _bot_move(self, p: int) -> None:
        g = self.game
        kind = g.decision_kind
        action = self.bots[p].act(g)
        if action not in g.legal_actions():
            raise RuntimeError(f"agent {self.names[p]!r} returned {action!r}, which is not a legal action for "
                               f"the '{kind}' decision")
        self.say(Text.assemble("  ", self.seat(p), f"  {kind}: ", (move_text(g, action), "bold")))
        self._apply(action)

    def _human_decision(self) -> None:
        self.say(*self.decision_screen())
        while True:
            line = self._read()
            try:
                if self._command(line):
                    return
            except ValueError as e:
                self.plain(str(e), "red")

    def decision_screen(self) -> list:
        """What is shown at a decision, fitted to the terminal's height less the prompt line: the round,
        every player's standing, the decision with its moves and the commands line always (moves that
        do not fit are cut, with a note: `moves` lists them all); then, while they fit, the map when
        choosing a space and the Market line (a note names those left out). The Industria modules' line
        runs to a dozen rows, so it is left to `board`."""
        g = self.game
        legal = g.legal_actions()
        highlight = frozenset(a - A.SPACE for a in legal if A.section_of(a)[0] == "space")
        rows = self.screen_rows() - 1
        title = Rule(Text(f"Round {g.round}/{D.NUM_ROUNDS} - {PHASE_NAMES[g.phase]}", style="bold"),
                     align="left", style="dim")
        top = [title, header_view(g, self.human, compact=True), standings_view(g, self.human, self.names)]
        decision = [self._decision_line()]
        # optional parts in the order they are offered room: (the command that shows it in full, part)
        optional = []
        if highlight:
            optional.append(("map", map_view(g, highlight, legend=SHORT_MAP_LEGEND)))
        optional.append(("market", market_line(g, self.human)))
        board = "board (with the Industria modules)" if g.config.industria_modules else "board"
        hint = Text(f"Type a move's number or name. Commands: map, market, {board}, scores, moves, undo, save, "
                    "help, quit", style="dim")

        def note(names):
            return Text(f"Not shown, to fit the terminal: {', '.join(dict.fromkeys(names))} (type the command to "
                        f"see it); help lists the commands", style="dim")

        items = move_items(g, legal)
        moves = moves_view(g, legal, items)
        used = sum(self.rows_of(r) for r in top + decision)
        used += max(self.rows_of(hint), self.rows_of(note([n for n, _ in optional])))
        moves_rows = self.rows_of(moves)
        if used + moves_rows > rows:
            moves = self._cut_moves(g, legal, items, max(rows - used, 2))
            moves_rows = self.rows_of(moves)
        used += moves_rows
        shown, left_out = set(), []
        for name, part in optional:
            h = self.rows_of(part)
            if used + h <= rows:
                shown.add(name)
                used += h
            else:
                left_out.append(name)
        middle = [part for name, part in reversed(optional) if name in shown]    # the map next to its moves
        return top + middle + decision + [moves, note(left_out) if left_out else hint]

    def _cut_moves(self, g: Game, legal: list[int], items: list[Text], rows: int):
        """The first moves that fit in ``rows`` rows, with a line saying how many more there are."""
        def more(k):
            return Text(f"... and {len(items) - k} more: type `moves` for the full list, or type a move's name",
                        style="yellow")

        room = rows - self.rows_of(more(0))
        lo, hi = 1, len(items)
        while lo < hi:                  # the largest count whose columns fit
            mid = (lo + hi + 1) // 2
            if self.rows_of(moves_view(g, legal, items[:mid])) <= room:
                lo = mid
            else:
                hi = mid - 1
        return Group(moves_view(g, legal, items[:lo]), more(lo))

    def _decision_line(self) -> Text:
        g = self.game
        return Text.assemble(("Your decision ", "bold"), (f"[{g.decision_kind}]", "bold magenta"), ": ",
                             describe_decision(g))

    def _read(self) -> str:
        self.console.print("> ", end="", markup=False, highlight=False)
        line = self.inp.readline()
        if not line:
            self.console.print()
            raise _EndOfInput
        line = line.strip()
        if self.echo:
            self.console.print(line, markup=False, highlight=False)
        return line

    def _command(self, line: str) -> bool:
        """Handle one input line; True when a move was made (or the game state was replaced)."""
        g = self.game
        if not line:
            return False
        word, _, rest = line.partition(" ")
        word = word.lower()
        rest = rest.strip()
        if word in ("help", "?"):
            self._help()
            return False
        legal = g.legal_actions()
        highlight = frozenset(a - A.SPACE for a in legal if A.section_of(a)[0] == "space")
        if word in ("board", "show"):
            self.say(table_view(g, self.human, self.names, highlight), self._decision_line(), moves_view(g, legal))
            return False
        if word == "moves":
            self.say(self._decision_line(), moves_view(g, legal))
            return False
        if word == "market":
            self.say(Columns([market_table(g, self.human), contracts_table(g)], padding=(0, 3)),
                     ports_view(g, self.human), self._decision_line())
            return False
        if word == "map" and not rest:
            self.say(map_view(g, highlight), players_legend(g, self.human, self.names), self._decision_line())
            return False
        if word == "scores":
            self.say(score_table(g, [self.seat(p) for p in range(g.num_players)]))
            return False
        if word == "undo":
            return self._undo()
        if word == "save":
            path = rest or self.save_path
            if not path:
                raise ValueError("save needs a file name: save FILE.json (or start with --save FILE)")
            self._save(path)
            self.plain(f"saved to {path}; resume with: clans play --load {path}", "green")
            return False
        if word == "map":
            path = write_map_png(g, rest, title=f"Round {g.round} - P{self.human} is you",
                                 names=[("you" if p == self.human else n) for p, n in enumerate(self.names)])
            self.plain(f"wrote the map picture to {path}", "green")
            return False
        if word in ("quit", "exit"):
            raise _Quit
        action = parse_move(g, line)
        if action == A.PASS and g.decision_kind == "main" and self.confirm_pass and not self._confirm_pass():
            self.plain("Not passed; choose again (`moves` lists the moves).", "yellow")
            return False
        self.say(Text.assemble("  ", self.seat(self.human), f"  {g.decision_kind}: ",
                               (move_text(g, action), "bold")))
        self._apply(action)
        self._autosave()
        return True

    def _confirm_pass(self) -> bool:
        """Passing ends your round (rulebook "8. Pass"), so a stray 0 must not do it: ask y/N."""
        self.plain(f"Pass for the rest of round {self.game.round}? You take no more actions this round. [y/N]",
                   "bold yellow")
        return self._read().lower() in ("y", "yes")

    def _help(self) -> None:
        g = self.game
        kind = g.decision_kind
        sections = sorted({A.section_of(a)[0] for a in g.legal_actions()},
                          key=[s[0] for s in A.SECTIONS].index)
        body = Text()
        body.append(f"{kind}: ", style="bold")
        body.append(decision_help(kind) + "\n\n")
        body.append("How to type the moves offered now:\n", style="bold")
        for s in sections:
            body.append(f"  {SECTION_HELP[s]}\n")
        body.append("\n" + COMMANDS_HELP)
        self.say(Panel(body, title="help", border_style="cyan"))

    def _undo(self) -> bool:
        try:
            self.game, taken_back = take_back(self.game, self.human)
        except ValueError as e:
            self.plain(str(e), "yellow")
            return False
        for bot in self.bots.values():
            bot.reset()
        self._round_glory = [pl.glory for pl in self.game.players]
        self.plain(f"undone: {taken_back} decision{'s' if taken_back != 1 else ''} taken back (your last one and "
                   f"the bots' since); decide again:", "yellow")
        self._autosave()
        return True

    def _save(self, path) -> None:
        write_record(path, self.game, players=self.specs, human_seat=self.human)

    def _autosave(self) -> None:
        if self.save_path:
            self._save(self.save_path)

    def _game_over(self) -> None:
        g = self.game
        self.say(Rule("Game over"))
        self.say(standings_view(g, self.human, self.names))
        self.say(score_table(g, [self.seat(p) for p in range(g.num_players)]))
        scores = g.final_scores()
        winners = [p for p, r in enumerate(scores) if r["rank"] == 1]
        mine = scores[self.human]
        if g.num_players == 1:
            band = mine.get("band") or next((name for lo, name in reversed(D.SOLO_BANDS) if mine["total"] >= lo), "")
            self.plain(f"Solo game: {mine['total']} VP" + (f" - {band}" if band else ""), "bold")
        elif self.human in winners:
            self.plain(f"You win with {mine['total']} VP!" if len(winners) == 1 else
                       f"You share first place with {mine['total']} VP.", "bold green")
        else:
            best = scores[winners[0]]["total"]
            self.plain(f"You finish rank {mine['rank']} with {mine['total']} VP (winner: "
                       f"{', '.join('P' + str(p) for p in winners)} with {best} VP).", "bold")
        self._autosave()
        if self.save_path:
            self.plain(f"game record saved to {self.save_path} (replay it: clans replay {self.save_path})")


def parse_move(game: Game, text: str) -> int:
    """A legal action from a move number (from 0, as listed), an action name, or a unique
    beginning of a legal action's name; ValueError naming the choices otherwise."""
    legal = game.legal_actions()
    names = [game.action_to_string(a).split(" (")[0] for a in legal]
    text = text.strip()
    if text.isdigit():
        n = int(text)
        if n < len(legal):
            return legal[n]
        raise ValueError(f"there is no move {n}: choose a number from 0 to {len(legal) - 1}, a move name, or 'help'")
    lowered = text.lower()
    if lowered in names:
        return legal[names.index(lowered)]
    try:
        action = game.string_to_action(lowered)
    except ValueError:
        action = None
    if action is not None:
        raise ValueError(f"{lowered} is not legal now ({game.decision_kind}: {describe_decision(game)}); legal moves: "
                         + _some(names))
    matches = [a for a, n in zip(legal, names) if n.startswith(lowered)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise ValueError(f"{text!r} matches several moves: {_some([game.action_to_string(a) for a in matches])}; "
                         f"type more of the name or the number")
    raise ValueError(f"unknown move or command {text!r}: type a number from 0 to {len(legal) - 1}, a move name "
                     f"such as {names[0]}, or one of the commands {', '.join(c for c in COMMANDS if c != '?')}")


def _some(names: list[str], k: int = 8) -> str:
    return ", ".join(names[:k]) + (f" ... ({len(names)} in all)" if len(names) > k else "")


# ---------------------------------------------------------------------------------------------
# command line
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", type=int, default=None, choices=(1, 2, 3, 4),
                        help="number of players including you (default 2; 1 = solo game)")
    parser.add_argument("--seat", type=int, default=None,
                        help="your seat, 0 .. players-1 (default 0); turn order is drawn at random")
    parser.add_argument("--opponents", nargs="+", metavar="SPEC", default=None,
                        help="agent spec for every other seat, or one per other seat in seat order "
                             "(random, heuristic, mcts:sims=200, ppo:path=FILE, automa:level=3 for the game's "
                             "own solo opponent; default heuristic)")
    parser.add_argument("--seed", type=int, default=None, help="game seed (default 0)")
    parser.add_argument("--clans", nargs="+", metavar="CLAN", default=None,
                        help="fix the clans in seat order (e.g. --clans stewart campbell)")
    parser.add_argument("--clan-selection", choices=CLAN_SELECTIONS, default=None,
                        help="how clans are chosen when --clans is not given (default: the engine's, draft)")
    parser.add_argument("--tighter-map", action="store_true", help="variant: Tighter Game Map (2-3 players)")
    parser.add_argument("--static-imports", action="store_true", help="variant: every import worth 4 VP")
    parser.add_argument("--industria", action="store_true",
                        help="play with every Industria module the engine has (Farmers markets, Award, refill board, "
                             "Port and Scoring tiles 10-18, variable prices; the alternative 2-player scoring)")
    parser.add_argument("--load", metavar="FILE", default=None,
                        help="resume a saved game (a record from --save/save, or a Game.save state)")
    parser.add_argument("--save", metavar="FILE", default=None,
                        help="save the game record here after each of your decisions and at the end")
    parser.add_argument("--width", type=int, default=None, help="console width (default: the terminal's)")
    parser.add_argument("--no-confirm", action="store_true",
                        help="pass at once, without the y/N question (for scripted games)")
    parser.add_argument("--echo", action="store_true",
                        help="print each input line (default when input is not a terminal)")


def build_session(args, console: Console, inp: TextIO) -> PlaySession:
    """Create the game (new or loaded), the agents and the session from parsed options."""
    meta: dict = {}
    if args.load:
        game, meta = load_game_file(args.load)
        new_game_options = [o for o in ("players", "seed", "clans", "clan_selection") if getattr(args, o)]
        if args.tighter_map or args.static_imports or getattr(args, "industria", False):
            new_game_options.append("variants")
        if new_game_options:
            raise ValueError(f"--load resumes a saved game with its own configuration; drop "
                             f"{', '.join('--' + o.replace('_', '-') for o in new_game_options)}")
    else:
        kwargs = dict(num_players=args.players or 2, seed=args.seed or 0, tighter_map=args.tighter_map,
                      static_imports=args.static_imports, industria=getattr(args, "industria", False))
        if args.clans:
            kwargs["clans"] = tuple(c.lower() for c in args.clans)
        if args.clan_selection:
            kwargs["clan_selection"] = args.clan_selection
        game = Game(GameConfig(**kwargs))
    n = game.num_players
    seat = args.seat if args.seat is not None else meta.get("human_seat", 0)
    if not isinstance(seat, int) or not 0 <= seat < n:
        raise ValueError(f"--seat must be one of 0..{n - 1} for a {n} player game (got {seat!r})")
    saved_specs = meta.get("players") if isinstance(meta.get("players"), list) else None
    if args.opponents:
        others = [p for p in range(n) if p != seat]
        if len(args.opponents) == 1:
            specs = {p: args.opponents[0] for p in others}
        elif len(args.opponents) == len(others):
            specs = dict(zip(others, args.opponents))
        else:
            raise ValueError(f"--opponents takes one spec for every opponent or one per opponent seat "
                             f"({len(others)}: seats {others}); got {len(args.opponents)}")
    elif saved_specs and len(saved_specs) == n:
        specs = {p: saved_specs[p] for p in range(n) if p != seat}
    else:
        specs = {p: "heuristic" for p in range(n) if p != seat}
    automa = {p: make_agent(s, 0).automa_level for p, s in specs.items() if s.strip().split(":")[0] == "automa"}
    if automa and not args.load:      # the Automa is a seat of the game, played by the engine
        game = Game(GameConfig(**kwargs, automa=automa))
    bots = {p: make_agent(spec, seed=game.config.seed * 10 + p + 1) for p, spec in specs.items()}
    labels = [("human" if p == seat else agent_label(bots[p], specs[p])) for p in range(n)]
    echo = args.echo or not (hasattr(inp, "isatty") and inp.isatty())
    return PlaySession(game, seat, bots, labels, console, inp, save_path=args.save, echo=echo,
                       confirm_pass=not args.no_confirm)


def run(args, inp: TextIO | None = None, console: Console | None = None) -> int:
    inp = inp if inp is not None else sys.stdin
    console = console or Console(width=args.width)
    try:
        session = build_session(args, console, inp)
    except (ValueError, GameFileError) as e:
        console.print(f"error: {e}", markup=False, highlight=False, style="bold red")
        return 2
    return session.run()


def add_play_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``clans play`` on an argparse subparsers object."""
    parser = subparsers.add_parser("play", help="play a game in the terminal against agents",
                                   description=for_users(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    parser.set_defaults(func=run)
    return parser


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="clans play", description=for_users(__doc__),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
