"""Consistency checks that hold in every reachable game state, for tests and fuzzing.

``check_invariants(game)`` raises ``InvariantError`` naming the first broken rule:

- money, goods, Glory and units left never negative; Merchants on the board, in stock and on
  the Market add up to the player's Merchants; Shipping within its track;
- every unit on the map matches the Player board count of its type (units on the map =
  ``units_placed``), at most one unit per space, units only on active spaces of a land type
  they may stand on (Fishermen: lochs and Port tiles, never adjacent to another Fisherman);
- the occupancy bit sets agree with the per-space arrays; a cached reach equals a fresh one;
- prices stay on the track; every Export contract is in exactly one place (pile, board,
  Export boxes, fulfilled, drawn for a Building bonus, or removed by the solo die); no more
  open contracts than Export boxes; the import track equals the imports fulfilled;
- every score sheet's total is the sum of its VP lines.
"""
from __future__ import annotations

from . import data as D
from .modules import field
from .rules.common import TRAINS, export_stacks, reach, reservations, second_units
from .rules.farmers_markets import MARKET, market_list
from .rules.fulfil import tracks_imports
from .rules.solo import removed_contracts
from .rules.refill_board import board as refill_board
from .state import K_BUILDING_BONUS, K_HOOK
from .topology import bits
from .clans import clan_names
from .config import GameConfig, INDUSTRIA_MODULES
from .rules.automa import invariant_errors

#: score sheet entries that are not VP lines
NOT_VP = ("total", "money_left", "rank", "band")


class InvariantError(AssertionError):
    """A game state broke a rule that every reachable state keeps."""


def _fail(msg: str):
    raise InvariantError(msg)


def check_invariants(g) -> None:
    n = g.num_players
    topo = g.topo
    board = g.board
    S = board.num_spaces
    # ---- map arrays ----------------------------------------------------------------------
    occupied = 0
    per_player = [0] * n
    # where each unit type may stand: its land; Workers anywhere a Worker may go, since Industria's
    # moves keep a Worker's type (R5.2, R5.6), and MacDonald's Fishermen on lochs and ports
    workers = topo.unit_mask[D.WOODCUTTER] | topo.unit_mask[D.MINER]
    terrain = [workers | topo.unit_mask[u] if u in D.WORKERS else topo.unit_mask[u] for u in range(D.NUM_UNITS)]
    counts = [[0] * D.NUM_UNITS for _ in range(n)]
    for s in range(S):
        o, u = g.occupant[s], g.unit_at[s]
        if o == -1:
            if u != -1:
                _fail(f"empty space {board.label[s]} has unit {u}")
            continue
        occupied |= 1 << s
        if o in (-2, MARKET):
            if u != -1:
                _fail(f"blocked space {board.label[s]} has a unit")
            continue
        if not 0 <= o < n:
            _fail(f"space {board.label[s]} has occupant {o}")
        if not 0 <= u < D.NUM_UNITS:
            _fail(f"space {board.label[s]} of player {o} has no unit type ({u})")
        if not terrain[u] >> s & 1:
            _fail(f"{D.UNITS[u]} of player {o} stands on {board.label[s]}, which does not support it "
                  f"(or is not active)")
        per_player[o] |= 1 << s
        counts[o][u] += 1
    # Industria: a second unit on a space (R4.1-R4.3): the same owner, never a third, matching land
    stacked = second_units(g)
    if len(stacked) % 3 or len(set(stacked[0::3])) != len(stacked) // 3:
        _fail(f"stacked units {stacked} are not (space, unit, owner) triples, one per space")
    for i in range(0, len(stacked), 3):
        s, u, o = stacked[i:i + 3]
        if g.occupant[s] != o or not 0 <= u < D.NUM_UNITS or not terrain[u] >> s & 1:
            _fail(f"second unit {u} of player {o} on {board.label[s]} does not fit the space")
        counts[o][u] += 1
    if occupied != g.occupied:
        _fail("g.occupied disagrees with g.occupant")
    # ---- Industria: Farmers markets (R1.6, R7.1, R7.7) -------------------------------------------
    markets = market_list(g)
    spaces = markets[0::5]
    if sorted(spaces) != [s for s in range(S) if g.occupant[s] == MARKET]:
        _fail(f"Farmers markets {spaces} disagree with the map's market spaces")
    for i in range(0, len(markets), 5):
        s, basic, processed, cb, cp = markets[i:i + 5]
        if not (D.IS_BASIC[basic] and not D.IS_BASIC[processed]) or (cb and cp) or {cb, cp} - {0, 1}:
            _fail(f"Farmers market on {board.label[s]} is {markets[i:i + 5]} (covered markets leave the game)")
        if not topo.market_sites >> s & 1 or any(t in spaces for t in board.adjacent[s]):
            _fail(f"Farmers market on {board.label[s]} breaks the placement rule (R1.6)")
    for p, pl in enumerate(g.players):
        where = f"player {p} ({pl.clan or 'no clan'})"
        if pl.spaces != per_player[p]:
            _fail(f"{where}: spaces bit set disagrees with the map")
        for u in range(D.NUM_UNITS):
            if pl.units_left[u] < 0:
                _fail(f"{where}: {D.UNITS[u]} left is {pl.units_left[u]}")
            if pl.units_placed(u) != counts[p][u]:
                _fail(f"{where}: {counts[p][u]} {D.UNITS[u]} on the map but units_placed says {pl.units_placed(u)}")
        fish = [s for s in bits(pl.spaces) if g.unit_at[s] == D.FISHERMAN]
        for a in fish:
            for b in fish:
                if a < b and b in board.adjacent[a]:
                    _fail(f"{where}: Fishermen on {board.label[a]} and {board.label[b]} are adjacent")
        if pl.money < 0:
            _fail(f"{where}: money {pl.money}")
        if min(pl.goods) < 0:
            _fail(f"{where}: goods {pl.goods}")
        if pl.glory < 0:
            _fail(f"{where}: glory {pl.glory}")
        res = reservations(g) or []            # Industria Delivery bonus 19: a Merchant on a reservation
        merchants = pl.merchants_board + pl.merchants_stock + sum(pl.merchants_market) + \
            sum(1 for i in range(1, len(res), 2) if res[i] == p)
        total = D.MERCHANTS_TOTAL - g.clans[p].merchants_returned(g, p)  # Clan Douglas: one in the box
        if min(pl.merchants_board, pl.merchants_stock, min(pl.merchants_market)) < 0 or merchants != total:
            _fail(f"{where}: Merchants board {pl.merchants_board} + stock {pl.merchants_stock} + market "
                  f"{sum(pl.merchants_market)} != {total}")
        for good in range(D.NUM_GOODS):
            if pl.merchants_market[2 * good] and pl.merchants_market[2 * good + 1]:
                _fail(f"{where}: Merchants on both the buy and sell area of {D.GOODS[good]}")
        problem = g.clans[p].state_problem(g, p)
        if problem:
            _fail(f"{where}: {problem}")
        if not 0 <= pl.shipping <= D.MAX_SHIPPING:
            _fail(f"{where}: shipping {pl.shipping}")
        if len(pl.open_contracts) > g.clans[p].export_boxes:
            _fail(f"{where}: {len(pl.open_contracts)} open contracts, {g.clans[p].export_boxes} Export boxes")
        if pl.reach != -1:
            cached = pl.reach
            pl.reach = -1
            fresh = reach(g, p)
            pl.reach = cached
            if fresh != cached:
                _fail(f"{where}: cached reach differs from a fresh computation")
    # ---- market and contracts ------------------------------------------------------------
    for good, step in enumerate(g.prices):
        if not 0 <= step <= D.MAX_STEP:
            _fail(f"price step of {D.GOODS[good]} is {step}")
    refill = refill_board(g)
    seen = list(g.pile) + [c for c in g.display if c >= 0] + list(refill)
    if len(refill) > D.REFILL_SLOTS:
        _fail(f"refill board holds {len(refill)} contracts, it has {D.REFILL_SLOTS} slots")
    for pl in g.players:
        seen += pl.open_contracts + pl.done_contracts
    for frame in g.stack:
        if frame[0] == K_BUILDING_BONUS:
            seen += [c for c in frame[2] if c >= 0]
        elif frame[0] == K_HOOK and frame[2] == "fulfil_rewards":   # fulfilled, rewards pending
            seen.append(frame[3])
    seen += [*removed_contracts(g), *field(g, TRAINS, "discarded")]   # Delivery bonus 8 discards
    below = export_stacks(g) or []          # Delivery bonus 16: contracts under a box's top one
    seen += below[1::2]
    held = set(below[1::2]).union(*(pl.open_contracts for pl in g.players))
    if any(top not in held for top in below[::2]):
        _fail("a contract stacked under one that is no Export box's contract (Delivery bonus 16)")
    if sorted(seen) != sorted(c.id for c in D.CONTRACTS):
        _fail("Export contracts lost or duplicated")
    if tracks_imports(g):
        fulfilled = [sum(pl.imports[k] for pl in g.players) for k in range(D.NUM_IMPORTS)]
        if fulfilled != list(g.import_track):
            _fail(f"import track {g.import_track} != imports fulfilled {fulfilled}")
    elif any(g.import_track):
        _fail(f"import track {g.import_track} moved without import tracking (solo or Static Import Goods)")
    if g.config.automa:                 # the Automa seats (rules/automa.py)
        errors = invariant_errors(g)
        if errors:
            _fail("; ".join(errors))
    # ---- scores ------------------------------------------------------------------------------
    for p, row in enumerate(g.final_scores()):
        lines = sum(v for k, v in row.items() if k not in NOT_VP)
        if lines != row["total"]:
            _fail(f"player {p}: score lines add up to {lines}, total says {row['total']}")


def random_config(rng, n: int, seed: int, industria: bool = False):
    """A random configuration for checked random games: clan selection (draft, auction, fixed
    clans, none), Kickstarter, static imports, no Scoring or Port tiles, tighter map; with
    ``industria`` also each Industria module on or off at random (``industria`` = a probability
    per module, True = 0.5). ``rng`` is a ``random.Random``."""
    kickstarter = rng.random() < 0.3
    selection = rng.choice(["draft", "auction", "none", "fixed"])
    pool = clan_names(kickstarter=kickstarter)
    clans = tuple(rng.sample(pool, n)) if selection == "fixed" else None
    fields = dict(static_imports=rng.random() < 0.2, scoring_tiles=rng.random() < 0.9,
                  port_tiles=rng.random() < 0.9, tighter_map=n in (2, 3) and rng.random() < 0.3)
    modules = _industria_modules(rng, n, industria)
    if clans is not None and modules.get("industria_clans"):
        # drawn after the modules so that base configurations keep their draws (and their seeds)
        clans = tuple(rng.sample(clan_names(kickstarter=kickstarter, industria_clans=True), n))
    return GameConfig(num_players=n, seed=seed, kickstarter=kickstarter, clans=clans,
                      clan_selection="draft" if selection == "fixed" else selection, **fields, **modules)


def _industria_modules(rng, n: int, industria) -> dict:
    """``industria``: a probability per module (True = 0.5), or the exact module names to switch on."""
    if not industria:
        return {}
    if isinstance(industria, (tuple, list)):
        return {m: m in industria for m in INDUSTRIA_MODULES if m != "alt_two_player_scoring" or n == 2}
    prob = 0.5 if industria is True else float(industria)
    return {m: rng.random() < prob for m in INDUSTRIA_MODULES if m != "alt_two_player_scoring" or n == 2}
