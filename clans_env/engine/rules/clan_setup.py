"""Who plays which clan and the player-specific setup steps: rulebook "Setup: Clans",
"Placing the First Workers", "Variants: Without Clans" and "Variants: Clan Auction", plus the
per-variant extras of the Preparation phase (the solo game's, in ``solo.py``).

Clan selection (``GameConfig``):

- ``clans=[...]``: the clans are fixed in seat order; each gets a random Starting tile (as the
  draft allocates one to each clan).
- ``clan_selection="draft"`` (default): players + 1 random clans, each with a random Starting
  tile; picks in reverse turn order (``clan_pick``: choose:k), the start player last between
  the remaining two. The solo player picks one of two.
- ``clan_selection="auction"``: as many clans as players, each with a random Starting tile.
  A random player (the start player drawn at setup) opens by bidding 0-30 VP
  (``auction_bid``: choose:b); to the left, each still-bidding player bids higher or passes
  (pass: out of this auction round). When all others have passed (or a bid of 30 cannot be
  outbid) the winner records the bid as negative VP, takes the next Turn order position and
  picks a clan (``auction_pick``: choose:k). The player to the winner's left opens the next
  auction; the last player takes the last clan for free and is last in turn order.
- ``clan_selection="none"``: Without Clans: players + 1 random Starting tiles, picked in
  reverse turn order (rules/setup.py), plus £0/£2/£4/£6 by turn order position.

Then every clan's ``on_setup`` runs (seat order) and the first Workers are placed: one each
clockwise from the start player, a second each counter-clockwise, then the clans' extra
Workers (MacDonald's third) in the same counter-clockwise order, and last of all the
Workers of clans with ``extra_workers_last`` (Fergusson's third).
"""
from __future__ import annotations

from .. import data as D
from ..actions import CHOOSE, PASS
from ..clans import NO_CLAN, clan_names, get_clan
from ..modules import RECORDS, Record, field
from ..state import K_AUCTION_BID, K_AUCTION_PICK, K_CLAN_PICK, K_FIRST_WORKER, K_HOOK, K_START_TILE
from . import solo
from .registry import apply_for, describe_for, hook, legal_for

OFFER = "clan_offer"


class ClanOffer(Record):
    """The clan selection's state while it lasts (``g.modstate["clan_offer"]``, dropped once the clans are
    chosen): ``clans`` on offer (parallel to ``g.tile_pool``, the Starting tiles allocated to them) and the
    Clan Auction's winners so far, in Turn order (``auction_order``)."""
    __slots__ = ("clans", "auction_order")
    clans: list
    auction_order: list
    MISC = {"clans": ("clan_offer", []), "auction_order": ("auction_order", [])}


RECORDS[OFFER] = ClanOffer


def offered_clans(g) -> list | tuple:
    """The clans still on offer (empty once the clans are chosen)."""
    return field(g, OFFER, "clans")


def clan_pool(cfg) -> list[str]:
    """Clan tiles in the box for this configuration (MacEwen only with the Kickstarter option, the
    Industria clans only with ``industria_clans``)."""
    return clan_names(kickstarter=cfg.kickstarter, industria_clans=cfg.industria_clans)


def setup_players(g) -> None:
    """Called at the end of ``setup_game``: solo extras, then the clan selection decisions."""
    n = g.num_players
    cfg = g.config
    rng = g.rng
    g.clans = tuple(NO_CLAN for _ in range(n))
    if n == 1:
        solo.setup_solo(g)
    tiles = list(range(len(D.STARTING_TILES)))
    rng.shuffle(tiles)
    # the seats that choose: all, or the players beside an Automa (it has no clan and no Starting tile)
    seats = g.hooks.engine_seats
    choosers: list[int] = [p for p in g.turn_order if p not in seats]
    n = len(choosers)
    for setup_seats in g.hooks.setup_seats:
        setup_seats(g)
    if cfg.clans is not None:
        g.tile_pool = []
        for p, name in enumerate(cfg.clans):
            if name is not None:
                assign_clan(g, p, name, tiles[p])
        g.stack = [(K_HOOK, g.turn_order[0], "clans_chosen")]
    elif cfg.clan_selection == "none":
        # Without Clans: players choose among n+1 random Starting tiles in reverse turn order
        g.tile_pool = tiles[:n + 1]
        seq = [(K_START_TILE, p) for p in reversed(choosers)]
        seq += setup_placements(g)
        g.stack = list(reversed(seq))
    elif cfg.clan_selection == "draft":
        pool = clan_pool(cfg)
        rng.shuffle(pool)
        g.modstate[OFFER] = ClanOffer(pool[:n + 1], [])
        g.tile_pool = tiles[:n + 1]
        seq = [(K_CLAN_PICK, p) for p in reversed(choosers)]
        seq.append((K_HOOK, g.turn_order[0], "clans_chosen"))
        g.stack = list(reversed(seq))
    else:  # auction
        pool = clan_pool(cfg)
        rng.shuffle(pool)
        g.modstate[OFFER] = ClanOffer(pool[:n], [])
        g.tile_pool = tiles[:n]
        g.stack = []
        open_auction(g, g.start_player)


def assign_clan(g, p: int, name: str, tile: int) -> None:
    """p takes a Clan tile and its Starting tile (Goods and money)."""
    clans = list(g.clans)
    clans[p] = get_clan(name)
    g.clans = tuple(clans)
    g.players[p].clan = name
    give_starting_tile(g, p, D.STARTING_TILES[tile])


def first_worker_frames(g) -> list:
    """The first-Worker decisions in placement order (rulebook "Placing the First Workers")."""
    order = g.turn_order
    seats = g.hooks.engine_seats
    if seats:                             # an Automa's starting Workers are placed by the engine
        order = [p for p in order if p not in seats]
    seq = [(K_FIRST_WORKER, p) for p in order] + [(K_FIRST_WORKER, p) for p in reversed(order)]
    late = []
    for p in reversed(order):
        clan = g.clans[p]
        extra = [(K_FIRST_WORKER, p)] * (clan.first_workers - 2)
        (late if clan.extra_workers_last else seq).extend(extra)
    return seq + late


def setup_placements(g) -> list:
    """After the clans (or Starting tiles) are chosen: the Farmers markets (Industria, R1.6), then
    the first Workers, then the first Trains (R1.12, R1.13)."""
    frames = []
    for module_frames in g.hooks.setup_frames:    # the Automas' starting Workers: before anyone else's
        frames += module_frames(g)
    frames += first_worker_frames(g)
    for module_frames in g.hooks.late_setup_frames:
        frames += module_frames(g)
    return frames


@hook("clans_chosen")
def clans_chosen(g, _p: int) -> None:
    """Every clan's starting adjustments, then the first Workers."""
    for p in range(g.num_players):
        g.clans[p].on_setup(g, p)
    if OFFER in g.modstate:
        del g.modstate[OFFER]
    g.stack.extend(reversed(setup_placements(g)))


# ---- draft ------------------------------------------------------------------------------------
def _offers_text(g) -> str:
    out = []
    for k, (name, t) in enumerate(zip(g.modstate[OFFER].clans, g.tile_pool)):
        tile = D.STARTING_TILES[t]
        goods = ", ".join(f"{q} {D.GOODS[i]}" for i, q in enumerate(tile.goods) if q)
        out.append(f"choose:{k}={name} with Starting tile {tile.id} (£{tile.money}{', ' + goods if goods else ''})")
    return "; ".join(out)


@legal_for(K_CLAN_PICK)
def legal_clan_pick(g, frame) -> list:
    return [CHOOSE + k for k in range(len(g.modstate[OFFER].clans))]


@apply_for(K_CLAN_PICK)
def apply_clan_pick(g, frame, action: int) -> None:
    g.stack.pop()
    k = action - CHOOSE
    assign_clan(g, frame[1], g.modstate[OFFER].clans.pop(k), g.tile_pool.pop(k))


@describe_for(K_CLAN_PICK)
def describe_clan_pick(g, frame) -> str:
    return f"Choose a clan and its Starting tile: {_offers_text(g)}"


# ---- Clan Auction -------------------------------------------------------------------------------
def _clanless_from(g, first: int) -> list[int]:
    n = g.num_players
    seats = [(first + i) % n for i in range(n)]
    return [p for p in seats if g.players[p].clan is None]


def open_auction(g, opener: int) -> None:
    """Start the auction for the next pick, opened by ``opener`` (or the next player to the
    left without a clan); the last player without a clan takes the last clan for free."""
    bidders = _clanless_from(g, opener)
    order = g.modstate[OFFER].auction_order
    if len(bidders) > 1:
        # frame: (kind, player to bid, highest bid (-1 none), leader (-1 none), bidders left)
        g.stack.append((K_AUCTION_BID, bidders[0], -1, -1, tuple(bidders)))
        return
    if bidders:
        last = bidders[0]
        assign_clan(g, last, g.modstate[OFFER].clans.pop(0), g.tile_pool.pop(0))
        order.append(last)
    g.turn_order = list(order)
    g.start_player = order[0]
    g.stack.append((K_HOOK, order[0], "clans_chosen"))


@legal_for(K_AUCTION_BID)
def legal_auction_bid(g, frame) -> list:
    _, p, high, leader, bidders = frame
    out = [CHOOSE + b for b in range(high + 1, D.AUCTION_MAX_BID + 1)]
    if leader >= 0:
        out.insert(0, PASS)          # the opener must bid (0 is a bid)
    return out


@apply_for(K_AUCTION_BID)
def apply_auction_bid(g, frame, action: int) -> None:
    _, p, high, leader, bidders = frame
    g.stack.pop()
    i = bidders.index(p)
    if action == PASS:
        bidders = bidders[:i] + bidders[i + 1:]
        i -= 1
    else:
        high, leader = action - CHOOSE, p
    others = [q for q in bidders if q != leader]
    if not others or high >= D.AUCTION_MAX_BID:
        auction_won(g, leader, high)
        return
    # the next bidder to the left who is still in (never the leader: when the turn would
    # come back to the leader, everyone else has passed)
    k = len(bidders)
    for step in range(1, k + 1):
        q = bidders[(i + step) % k]
        if q != leader:
            g.stack.append((K_AUCTION_BID, q, high, leader, bidders))
            return


def auction_won(g, winner: int, bid: int) -> None:
    g.players[winner].vp_bid += bid
    g.modstate[OFFER].auction_order.append(winner)
    g.stack.append((K_AUCTION_PICK, winner))


@describe_for(K_AUCTION_BID)
def describe_auction_bid(g, frame) -> str:
    _, p, high, leader, bidders = frame
    if leader < 0:
        return (f"Clan Auction for Turn order position {len(g.modstate[OFFER].auction_order) + 1}: open with a bid of "
                f"0-{D.AUCTION_MAX_BID} VP (choose:b). On offer: {_offers_text(g)}")
    return (f"Clan Auction: player {leader} bids {high} VP; bid more (choose:{high + 1}-{D.AUCTION_MAX_BID}) or "
            f"pass to leave this auction. On offer: {_offers_text(g)}")


@legal_for(K_AUCTION_PICK)
def legal_auction_pick(g, frame) -> list:
    return [CHOOSE + k for k in range(len(g.modstate[OFFER].clans))]


@apply_for(K_AUCTION_PICK)
def apply_auction_pick(g, frame, action: int) -> None:
    p = frame[1]
    g.stack.pop()
    k = action - CHOOSE
    assign_clan(g, p, g.modstate[OFFER].clans.pop(k), g.tile_pool.pop(k))
    open_auction(g, (p + 1) % g.num_players)


@describe_for(K_AUCTION_PICK)
def describe_auction_pick(g, frame) -> str:
    return f"You won the Clan Auction: choose a clan and its Starting tile: {_offers_text(g)}"


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


# ---- Preparation ------------------------------------------------------------------------------
def preparation_extras(g) -> None:
    """Variant-specific steps at the end of Preparation (after Merchants are retrieved)."""
    if g.num_players == 1:
        solo.preparation(g)
    for prepare in g.hooks.after_prepare_round:   # R16.1's Market phase (from round 2)
        prepare(g)
