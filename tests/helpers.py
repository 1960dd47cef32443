"""A small position builder for the rules tests.

Tests build the position a rulebook section talks about: start from a real game (setup
played), clear or edit the state fields, put units with ``put`` (which keeps the engine's
caches consistent through ``rules.common.place_unit``), put the decision under test on top
of the stack with ``start_turn`` / ``push`` and then drive the engine only through its
public API (``legal_actions``, ``apply``, action names such as ``"trade:buy:whisky:2"``).

The map sides are data that the map designer may still edit, so tests never hard-code a
space label: the ``find_*`` helpers search the assembled board for the geometry a rule needs
(a river between two grassland spaces, a land space one loch away, ...) from the board's
primitive facts (kind, land, adjacency, river edges), independently of ``topology.py``.
"""
from __future__ import annotations

import random

import pytest

from clans_env import Game, GameConfig
from clans_env.engine import COMPILED
from clans_env.engine import actions as A
from clans_env.engine import data as D
from clans_env.engine.board import KIND_LAND, KIND_LOCH, KIND_PORT, LAND_FOREST, LAND_GRASS, LAND_MOUNTAIN
from clans_env.engine.rules.common import place_unit, remove_unit
from clans_env.engine.state import ACTION, K_MAIN, K_POST_MAIN, SETUP

#: for tests that monkeypatch a function of an engine module: in the compiled engine (setup.py) compiled
#: modules call each other's functions directly, so the patch is not seen
patches_engine = pytest.mark.skipif(COMPILED, reason="monkeypatches an engine function, which compiled "
                                    "modules call directly (run with CLANS_PURE_PYTHON=1)")

SIDES = ("A1", "B1", "C1", "D1")
GRASS, FOREST, MOUNTAIN = LAND_GRASS, LAND_FOREST, LAND_MOUNTAIN

__all__ = [
    "SIDES", "GRASS", "FOREST", "MOUNTAIN", "KIND_LAND", "KIND_LOCH", "KIND_PORT",
    "make_game", "play_setup", "blank_position", "start_turn", "push", "put", "clear", "sid", "label",
    "act", "legal_names", "placement_targets", "expand_targets", "random_playout", "snapshot",
    "active_land", "free_spaces", "river_pairs", "loch_distance", "loch_pairs", "land_hop_pairs",
    "port_neighbours", "units_total", "unit_index", "good_index",
]


# ---------------------------------------------------------------------------------------
# games and positions
def make_game(n: int = 2, seed: int = 0, sides=SIDES, **options) -> Game:
    """A fresh game in its first setup decision (fixed map sides so positions are repeatable);
    Without Clans unless ``clan_selection`` / ``clans`` say otherwise."""
    if "clans" not in options:
        options.setdefault("clan_selection", "none")
    return Game(GameConfig(num_players=n, seed=seed, map_sides=sides, **options))


def play_setup(g: Game) -> Game:
    """Answer every setup decision with its first legal action (first tile, first Worker type,
    lowest space id); returns ``g`` at the first main decision of round 1."""
    while g.phase == SETUP:
        g.apply(g.legal_actions()[0])
    return g


def clear(g: Game, p: int | None = None) -> None:
    """Take every unit of player ``p`` (all players if None) back to the Player board."""
    for q in range(g.num_players) if p is None else (p,):
        spaces = g.players[q].spaces
        s = 0
        while spaces:
            if spaces & 1:
                remove_unit(g, q, s)
            spaces >>= 1
            s += 1


def blank_position(n: int = 2, seed: int = 0, sides=SIDES, money: int = 100, **options) -> Game:
    """Round 1, Action phase, after setup, with an empty map, no goods and ``money`` each;
    the first player in turn order is to take the main action."""
    g = play_setup(make_game(n, seed, sides, **options))
    clear(g)
    for pl in g.players:
        pl.money = money
        pl.goods = [0] * D.NUM_GOODS
    start_turn(g, g.turn_order[0])
    return g


def start_turn(g: Game, p: int) -> Game:
    """Make it ``p``'s turn in the Action phase (main decision on top of the stack)."""
    g.phase = ACTION
    g.turn = {}
    g.turn_idx = g.turn_order.index(p)
    g.stack = [(K_POST_MAIN, p), (K_MAIN, p)]
    g._advance()
    return g


def push(g: Game, frame: tuple) -> Game:
    """Put one decision frame ``(kind, player, *context)`` on top of the stack."""
    g.stack.append(frame)
    g._advance()
    return g


def unit_index(unit) -> int:
    return D.UNIT_INDEX[unit] if isinstance(unit, str) else int(unit)


def good_index(good) -> int:
    return D.GOOD_INDEX[good] if isinstance(good, str) else int(good)


def sid(g: Game, where) -> int:
    """Space id from a label (``"A3.4"``) or an id."""
    return g.board.space_of(where) if isinstance(where, str) else int(where)


def label(g: Game, s: int) -> str:
    return g.board.label[s]


def put(g: Game, p: int, unit, where, *, check: bool = True) -> int:
    """Deploy p's ``unit`` (name or index) on ``where`` (label or id) without paying, through
    ``place_unit`` so every cache stays consistent. Checks the space is empty, active and of a
    land type the unit may stand on (rulebook, Land Restrictions) unless ``check=False``."""
    u, s = unit_index(unit), sid(g, where)
    if check:
        assert g.occupant[s] == -1, f"{label(g, s)} is not empty"
        assert g.board.active(g.num_players)[s] and g.board.kind[s] == KIND_LAND, f"{label(g, s)} is not active land"
        need = {D.WOODCUTTER: FOREST, D.MINER: MOUNTAIN}.get(u, GRASS)
        assert g.board.land[s] & need, f"{D.UNITS[u]} cannot stand on {label(g, s)}"
        assert g.players[p].units_left[u] > 0, f"player {p} has no {D.UNITS[u]} left"
    place_unit(g, p, u, s)
    return s


def act(g: Game, *names: str) -> None:
    """Apply actions by name, e.g. ``act(g, "expand:sheep", "space:A3.4")``."""
    for name in names:
        g.apply(g.string_to_action(name))


def legal_names(g: Game) -> set[str]:
    """Names of the legal actions (without the bracketed context)."""
    return {g.action_to_string(a).split(" (")[0] for a in g.legal_actions()}


def placement_targets(g: Game) -> set[int]:
    """Space ids offered by the pending decision (e.g. a 'place' decision)."""
    return {a - A.SPACE for a in g.legal_actions() if A.SPACE <= a < A.SPACE + A.NUM_SPACES}


def expand_targets(g: Game, unit) -> set[int]:
    """Spaces where the current player could Expand with ``unit`` now, asked through the API on
    a clone: empty set when ``expand:<unit>`` is not legal."""
    a = A.EXPAND + unit_index(unit)
    if a not in g.legal_actions():
        return set()
    c = g.clone()
    c.apply(a)
    return placement_targets(c)


def units_total(g: Game, p: int, unit) -> int:
    """Units of one type on the map plus on the Player board (never changes)."""
    u = unit_index(unit)
    on_map = sum(1 for s in range(g.board.num_spaces) if g.occupant[s] == p and g.unit_at[s] == u)
    return on_map + g.players[p].units_left[u]


def snapshot(g: Game) -> str:
    return g.to_json()


_PREFERRED = tuple((start, start + size) for name, start, size in A.SECTIONS
                   if name in ("fulfil", "take_contract", "use_port"))


def random_playout(g: Game, rng: random.Random, pass_prob: float = 0.1, max_steps: int = 5000,
                   on_step=None, contracts_first: bool = False) -> int:
    """Play random legal actions to the end; Pass only with ``pass_prob`` when other actions
    exist (so that games go deep). ``contracts_first``: take, fulfil and Port actions whenever
    legal (reaches slaughtering, imports and export bonuses far more often). Returns the number
    of actions applied."""
    steps = 0
    while not g.is_terminal():
        legal = g.legal_actions()
        if len(legal) > 1 and A.PASS in legal and rng.random() >= pass_prob:
            legal = [a for a in legal if a != A.PASS]
        if contracts_first:
            preferred = [a for a in legal if any(lo <= a < hi for lo, hi in _PREFERRED)]
            if preferred:
                legal = preferred
        g.apply(rng.choice(legal))
        steps += 1
        if on_step is not None:
            on_step(g)
        assert steps < max_steps, "game did not end"
    return steps


# ---------------------------------------------------------------------------------------
# searching the board (primitive facts only: kind, land, adjacency, river edges)
def active_land(g: Game, land: int | None = None, exact: bool = False) -> list[int]:
    """Active land spaces, optionally with a land type (``exact``: that type only)."""
    b = g.board
    act = b.active(g.num_players)
    out = []
    for s in range(b.num_spaces):
        if b.kind[s] != KIND_LAND or not act[s]:
            continue
        if land is not None and (b.land[s] != land if exact else not b.land[s] & land):
            continue
        out.append(s)
    return out


def free_spaces(g: Game, land: int | None = None, exact: bool = False, avoid=()) -> list[int]:
    """Empty active land spaces none of whose neighbours/adjacent spaces are occupied or in
    ``avoid`` (so that no bonus or reach from other units interferes)."""
    b = g.board
    avoid = set(avoid)
    out = []
    for s in active_land(g, land, exact):
        if g.occupant[s] != -1 or s in avoid:
            continue
        if any(g.occupant[t] != -1 or t in avoid for t in b.adjacent[s]):
            continue
        out.append(s)
    return out


def river_pairs(g: Game, land: int = GRASS) -> list[tuple[int, int]]:
    """Adjacent active land spaces with a river between them, both supporting ``land``."""
    ok = set(active_land(g, land))
    return [(a, b) for a, b in sorted(g.board.river_edges) if a in ok and b in ok]


def loch_distance(g: Game, a: int, b: int) -> int | None:
    """Fewest consecutive loch spaces a unit on ``a`` must cross to reach ``b`` (never hopping
    over land); 0 when adjacent; None when no chain of lochs joins them."""
    board = g.board
    if b in board.adjacent[a]:
        return 0
    frontier = [t for t in board.adjacent[a] if board.kind[t] == KIND_LOCH]
    seen = set(frontier)
    depth = 1
    while frontier:
        if any(b in board.adjacent[loch] for loch in frontier):
            return depth
        nxt = []
        for loch in frontier:
            for t in board.adjacent[loch]:
                if board.kind[t] == KIND_LOCH and t not in seen:
                    seen.add(t)
                    nxt.append(t)
        frontier = nxt
        depth += 1
    return None


def loch_pairs(g: Game, lochs: int, land: int = GRASS) -> list[tuple[int, int]]:
    """(a, b): active land spaces (both supporting ``land``) joined across exactly ``lochs``
    consecutive loch spaces and by no shorter way."""
    cand = active_land(g, land)
    out = []
    for a in cand:
        for b in cand:
            if a != b and loch_distance(g, a, b) == lochs:
                out.append((a, b))
    return out


def land_hop_pairs(g: Game, land: int = GRASS) -> list[tuple[int, int]]:
    """(a, b): two active land spaces two steps apart with only land in between, where ``a``
    touches no loch (so no Shipping level can join them: never hop over land)."""
    board = g.board
    cand = set(active_land(g, land))
    out = []
    for a in sorted(cand):
        if any(board.kind[t] != KIND_LAND for t in board.adjacent[a]):
            continue
        for mid in board.adjacent[a]:
            for b in board.adjacent[mid]:
                if b in cand and b != a and b not in board.adjacent[a]:
                    out.append((a, b))
    return sorted(set(out))


def port_neighbours(g: Game, slot: int) -> list[int]:
    """Active land spaces adjacent to the port space of Port tile slot ``slot``."""
    ps = g.topo.port_space[slot]
    act = g.board.active(g.num_players)
    return [s for s in g.board.adjacent[ps] if g.board.kind[s] == KIND_LAND and act[s]]
