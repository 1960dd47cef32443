"""Rulebook "Setup" and "Game Structure": building the opening position, the setup decisions
(Starting tiles, first Workers), and the passage from round to round (Phase 1: Preparation)."""
from __future__ import annotations

from .. import data as D
from ..board import assemble
from ..state import ACTION, GAME_OVER, PlayerState
from ..topology import bits, topology
from . import clan_setup
from .contracts import contract_source
from .ports import port_tile_pool
from .scoring import round_scoring


def setup_game(g) -> None:
    cfg = g.config
    rng = g.rng
    n = g.num_players
    # Map modules: a random side for each module, A-D clockwise
    sides = cfg.map_sides or tuple(m + str(1 + rng.randrange(2)) for m in "ABCD")
    g.board = assemble(sides)
    g.topo = topology(g.board, n)
    # Port bonus tiles: four at random, one per corner, on the position for the player count
    hooks = g.hooks
    pool = port_tile_pool(g)
    rng.shuffle(pool)
    g.port_tiles = tuple(pool[:4]) if cfg.port_tiles else ()
    # Market board
    g.prices = [D.START_STEP] * D.NUM_GOODS
    # Export board: five random Scoring tiles, shuffled contracts, one per box
    tiles = list(D.SCORING_TILES_BASE) + (list(D.SCORING_TILES_KICKSTARTER) if cfg.kickstarter else [])
    for extra in hooks.scoring_tile_pool:
        tiles += extra(g)
    rng.shuffle(tiles)
    g.scoring_tiles = tuple(tiles[:D.SCORING_TILES_PER_GAME]) if cfg.scoring_tiles else ()
    pile = [c.id for c in D.CONTRACTS]
    rng.shuffle(pile)
    g.pile = pile
    g.pile_known = 0
    g.display = [-1] * D.MAX_CONTRACT_BOXES
    refill_display(g)
    g.import_track = [0] * D.NUM_IMPORTS
    # Map occupancy
    S = g.board.num_spaces
    g.occupant = [-1] * S
    g.unit_at = [-1] * S
    g.occupied = 0
    if cfg.tighter_map:
        cover_spaces(g)
    g.players = [PlayerState() for _ in range(n)]
    # Turn order: a random start player, then clockwise
    # (the Automa game: players clockwise from a random start player, then the Automas, round 1)
    seats = hooks.engine_seats
    players = [p for p in range(n) if p not in seats]
    start = rng.randrange(len(players))
    g.turn_order = players[start:] + players[:start] + list(seats)
    g.start_player = g.turn_order[0]
    g.pass_order = []
    g.turn_idx = -1
    g.round = 1
    g.turn = {}
    clan_setup.setup_players(g)
    # the modules' setup steps (none, and no die rolled, in a base game), in MODULE_ORDER: the refill
    # board filled (R1.1), an Award tile drawn (R1.3), the starting prices rolled (R16.1), a Farmers
    # market dealt to each player (R1.5; placed after the clans are chosen), the Train map (R1.9-R1.11)
    for module_setup in hooks.setup:
        module_setup(g)


def refill_display(g) -> None:
    """Fill empty Export boxes for the player count from the top of the draw pile (with the refill
    board: from the refill board left to right, then top the refill board up, R2.1)."""
    boxes = D.SOLO_FILL_BOXES if g.num_players == 1 else D.CONTRACT_BOXES[g.num_players]
    refill = contract_source(g)
    for slot in range(boxes):
        if g.display[slot] < 0:
            if refill:
                g.display[slot] = refill.pop(0)
            elif g.pile:
                g.display[slot] = g.pile.pop(0)
    for refilled in g.hooks.display_refilled:
        refilled(g)
    if g.pile_known > len(g.pile):
        g.pile_known = len(g.pile)


def cover_spaces(g) -> None:
    """Tighter Game Map: cover four land spaces of the active map, one per module (random)."""
    topo = g.topo
    for m in range(4):
        cands = [s for s in bits(topo.land_mask & ~g.occupied) if g.board.module[s] == m]
        s = g.rng.choice(cands)
        g.occupant[s] = -2
        g.occupied |= 1 << s
    g.covered = tuple(s for s in range(g.board.num_spaces) if g.occupant[s] == -2)


# ---- round structure -----------------------------------------------------------------------------
def start_action_phase(g) -> None:
    g.phase = ACTION
    g.turn_idx = -1
    for pl in g.players:
        pl.passed = False
    g.pass_order = []


def end_of_round(g) -> None:
    """Phase 4 Scoring, then either Final Scoring or the next round's Preparation."""
    round_scoring(g)
    if g.round >= D.NUM_ROUNDS:
        g.phase = GAME_OVER
        return
    prepare_round(g)


def prepare_round(g) -> None:
    """Phase 1: flip the Scoring tile, refill the Export board, retrieve Merchants, and the new
    turn order is the pass order."""
    g.round += 1
    refill_display(g)
    for pl in g.players:
        pl.merchants_stock += sum(pl.merchants_market)
        pl.merchants_market = [0] * (D.NUM_GOODS * 2)
    g.turn_order = list(g.pass_order)
    for prepare in g.hooks.prepare_round:   # Train module R2.2-R2.5, Variant B R16.4, the Automa
        prepare(g)
    clan_setup.preparation_extras(g)
    start_action_phase(g)
