"""Rulebook "Setup" and "Game Structure": building the opening position, the setup decisions
(Starting tiles, first Workers), and the passage from round to round (Phase 1: Preparation)."""
from __future__ import annotations

from .. import data as D
from ..actions import CHOOSE
from ..board import assemble
from ..state import ACTION, GAME_OVER, K_START_TILE, PlayerState
from ..topology import bits, topology
from . import awards, farmers_markets, refill_board, variable_prices
from .registry import apply_for, describe_for, legal_for
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
    pool = list(D.PORT_TILES_BASE) + (list(D.PORT_TILES_KICKSTARTER) if cfg.kickstarter else []) + \
        (list(D.PORT_TILES_INDUSTRIA) if cfg.industria_tiles else [])
    rng.shuffle(pool)
    g.port_tiles = tuple(pool[:4]) if cfg.port_tiles else ()
    # Market board
    g.prices = [D.START_STEP] * D.NUM_GOODS
    # Export board: five random Scoring tiles, shuffled contracts, one per box
    tiles = list(D.SCORING_TILES_BASE) + (list(D.SCORING_TILES_KICKSTARTER) if cfg.kickstarter else []) + \
        (list(D.SCORING_TILES_INDUSTRIA) if cfg.industria_tiles else [])
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
    if cfg.automa:
        # the Automa game: players clockwise from a random start player, then the Automas (round 1)
        humans = [p for p in range(n) if p not in cfg.automa]
        start = rng.randrange(len(humans))
        g.turn_order = humans[start:] + humans[:start] + list(cfg.automa)
        g.start_player = g.turn_order[0]
    else:
        start = rng.randrange(n)
        g.start_player = start
        g.turn_order = [(start + i) % n for i in range(n)]
    g.pass_order = []
    g.turn_idx = -1
    g.round = 1
    g.turn = {}
    from . import clan_setup
    clan_setup.setup_players(g)
    industria_setup(g)


def industria_setup(g) -> None:
    """The Industria modules' setup steps (nothing, and no die rolled, in a base game): the refill
    board filled (R1.1), an Award tile drawn (R1.3), the starting prices rolled (R16.1), a Farmers
    market dealt to each player (R1.5; placed after the clans are chosen, clan_setup.py)."""
    cfg = g.config
    if cfg.refill_board:
        refill_board.top_up(g)
    if cfg.awards:
        awards.setup_award(g)
    if cfg.variable_prices:
        variable_prices.roll_starting_prices(g)
    if cfg.farmers_markets:
        farmers_markets.deal_markets(g)


def refill_display(g) -> None:
    """Fill empty Export boxes for the player count from the top of the draw pile (with the refill
    board: from the refill board left to right, then top the refill board up, R2.1)."""
    boxes = D.SOLO_FILL_BOXES if g.num_players == 1 else D.CONTRACT_BOXES[g.num_players]
    refill = g.misc.get(refill_board.REFILL)
    for slot in range(boxes):
        if g.display[slot] < 0:
            if refill:
                g.display[slot] = refill.pop(0)
            elif g.pile:
                g.display[slot] = g.pile.pop(0)
    if refill is not None:
        refill_board.top_up(g)
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


# ---- Without Clans: Starting tile draft -------------------------------------------------------
@legal_for(K_START_TILE)
def legal_start_tile(g, frame) -> list:
    return [CHOOSE + k for k in range(len(g.tile_pool))]


@apply_for(K_START_TILE)
def apply_start_tile(g, frame, action: int) -> None:
    p = frame[1]
    g.stack.pop()
    tile = D.STARTING_TILES[g.tile_pool.pop(action - CHOOSE)]
    give_starting_tile(g, p, tile)
    # Without Clans: starting player £0, second £2, third £4, fourth £6
    g.players[p].money += D.WITHOUT_CLANS_MONEY[g.turn_order.index(p)]


@describe_for(K_START_TILE)
def describe_start_tile(g, frame) -> str:
    offers = ", ".join(f"choose:{k}=tile {D.STARTING_TILES[t].id} (£{D.STARTING_TILES[t].money})"
                       for k, t in enumerate(g.tile_pool))
    return f"Choose a Starting tile: {offers}"


def give_starting_tile(g, p: int, tile: D.StartingTile) -> None:
    pl = g.players[p]
    pl.start_tile = tile.id
    pl.money += tile.money
    for i, q in enumerate(tile.goods):
        pl.goods[i] += q


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
    from . import clan_setup
    clan_setup.preparation_extras(g)
    start_action_phase(g)
