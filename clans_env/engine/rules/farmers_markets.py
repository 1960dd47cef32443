"""Industria, Farmers Markets module (player aid "Setup: Farmers Markets", "Farmers Market Bonus",
"Passing bonus"; rules R1.5-R1.7, R7.1-R7.11, R8.1 of docs/rules-index.md).

- Setup (R1.5, R1.6, R1.7): one tile is dealt to each player before the clans are chosen; after
  the clans (or Starting tiles) are chosen, in reverse turn order (with the Clan Auction that is the
  reverse auction order, which is the turn order it produced), each player places theirs on an
  empty active land space with at least 3 neighbouring land spaces and not adjacent to another
  Farmers market (hex distance at least 2, rules-interpretations.md). First Workers come after.
- A market blocks its space (``occupant == MARKET``) until both icons are covered (R7.1, R7.7).
- Selling bonus (R7.2-R7.6): after a deployment (Expand, Free space; not first Workers) onto a space
  neighbouring a market, once per market, the player may sell 1-4 Goods of one uncovered type
  shown on it, one Merchant per Good to that Good's sell area, at the current price +£2 per Basic
  / +£3 per Processed good; the Price marker moves as for a sale; one of the Goods sold covers the
  icon. When both icons are covered the market leaves the game and its space is free (R7.7).
- The Passing bonus overlay: Passing bonuses £4 lower (R8.1; turn.py).

State: one ``MarketState`` in ``g.modstate["farmers_markets"]``: ``markets`` is a flat list, five ints per
market in play: ``space, basic good, processed good, basic covered (0/1), processed covered (0/1)``;
``deal`` holds the dealt tile of each seat until it is placed (-1 after).
"""
from __future__ import annotations

from .. import data as D
from ..modules import Module, Record, field, register
from ..actions import DONE, MAX_TRADE_QTY, SELL, SPACE, TRADE, decode_trade
from ..state import K_HOOK, K_MARKET_PLACE, K_MARKET_SELL
from ..topology import bits
from .market import do_trade
from .registry import apply_for, describe_for, legal_for

#: occupant value of a space holding a Farmers market (neutral blocks are -2)
MARKET = -3
NAME = "farmers_markets"
#: the K_HOOK step that places the market of a seat the engine plays (rules/automa.py registers it)
ENGINE_MARKET = "automa_market"
FIELDS = 5


class MarketState(Record):
    """The Farmers markets' state in a game (the module docstring: ``markets``, ``deal``)."""
    __slots__ = ("markets", "deal")
    markets: list
    deal: list
    MISC = {"markets": ("markets", []), "deal": ("market_deal", [])}


def market_list(g) -> list | tuple:
    """The markets in play, ``FIELDS`` ints each (empty without the module)."""
    return field(g, NAME, "markets")


def dealt_tiles(g) -> list | tuple:
    """Each seat's dealt Farmers market tile until it is placed, then -1 (empty without the module)."""
    return field(g, NAME, "deal")


def deal_markets(g) -> None:
    """R1.5: deal one Farmers market tile to each player (before the clans are chosen)."""
    tiles = sorted(D.FARMERS_MARKET_TILES)
    g.rng.shuffle(tiles)
    g.modstate[NAME] = MarketState([], tiles[:g.num_players])


def placement_frames(g) -> list:
    """R1.6 / R1.7: the placements, in reverse turn order, in the order they are decided."""
    if not g.config.farmers_markets:
        return []
    seats = g.hooks.engine_seats            # the Automa's own market is placed by the engine (rules/automa.py)
    return [(K_HOOK, p, ENGINE_MARKET) if p in seats else (K_MARKET_PLACE, p) for p in reversed(g.turn_order)]


def market_module_mask(g) -> int:
    """Spaces of the modules where the next Farmers market may go: 2 players in total, modules A and C
    or B and D (the diagonal partner of the first market's module); otherwise a module without one."""
    module = g.board.module
    used = {module[s] for s in market_spaces(g)}
    if g.num_players == 2 and used:
        first = next(iter(used))
        allowed = {(first + 2) % 4} - used
    else:
        allowed = set(range(4)) - used
    return sum(1 << s for s in range(g.board.num_spaces) if module[s] in allowed)


def market_spaces(g) -> list | tuple:
    return market_list(g)[0::FIELDS]


def placement_targets(g) -> int:
    """Empty active land with 3+ neighbouring land spaces, not adjacent to a market (R1.6)."""
    topo = g.topo
    mask = topo.market_sites & ~g.occupied
    adjacent = g.board.adjacent
    for s in market_spaces(g):
        mask &= ~(1 << s)
        for t in adjacent[s]:
            mask &= ~(1 << t)
    if g.hooks.engine_seats and mask:   # the Automa game's modules for markets (rules/automa.py)
        mask = (mask & market_module_mask(g)) or mask
    return mask


@legal_for(K_MARKET_PLACE)
def legal_market_place(g, frame) -> list:
    return [SPACE + s for s in bits(placement_targets(g))]


@apply_for(K_MARKET_PLACE)
def apply_market_place(g, frame, action: int) -> None:
    g.stack.pop()
    place_market(g, frame[1], action - SPACE)


def place_market(g, p: int, s: int) -> None:
    """p's dealt Farmers market goes on space s."""
    rec = g.modstate[NAME]
    tile = rec.deal[p]
    basic, processed = D.FARMERS_MARKET_TILES[tile]
    rec.deal = [(-1 if q == p else t) for q, t in enumerate(rec.deal)]
    rec.markets = rec.markets + [s, basic, processed, 0, 0]
    g.occupant[s] = MARKET
    g.occupied |= 1 << s


@describe_for(K_MARKET_PLACE)
def describe_market_place(g, frame) -> str:
    basic, processed = D.FARMERS_MARKET_TILES[g.modstate[NAME].deal[frame[1]]]
    return (f"Place your Farmers market ({D.GOODS[basic]} / {D.GOODS[processed]}) on a land space with at least "
            f"{D.MARKET_MIN_NEIGHBOURING_LAND} neighbouring land spaces, not next to another market (space:<space>)")


# ---- the selling bonus -----------------------------------------------------------------------------
def _find(markets: list, space: int) -> int:
    for i in range(0, len(markets), FIELDS):
        if markets[i] == space:
            return i
    raise ValueError(f"no Farmers market on space {space}")


def uncovered_goods(g, space: int) -> tuple[int, ...]:
    m = g.modstate[NAME].markets
    i = _find(m, space)
    return tuple(m[i + 1 + k] for k in (0, 1) if not m[i + 3 + k])


def sale_options(g, p: int, space: int) -> list[int]:
    """TRADE(sell) indices of the sales p may make at the market on ``space`` (R7.2, R7.4: up to 4
    Goods of one uncovered type, one Merchant each; never on the sell area of a Good bought this
    round)."""
    pl = g.players[p]
    clan = g.clans[p]
    wild = clan.wild_processed(g, p) if clan.custom_trade else 0       # Clan Fraser's Kilts
    out: list[int] = []
    for good in uncovered_goods(g, space):
        if pl.merchants_market[good * 2]:          # Merchants on its buy area this round
            continue
        have = pl.goods[good] + (0 if D.IS_BASIC[good] else wild)
        q = min(D.MARKET_MAX_SELL, have, pl.merchants_stock)
        if q > 0:
            base = TRADE + (good * 2 + SELL) * MAX_TRADE_QTY
            out.extend(range(base, base + q))
    return out


def triggered_markets(g, p: int, space: int) -> tuple[int, ...]:
    """Markets neighbouring the space p just deployed on where p can sell something now (R7.2)."""
    markets = market_list(g)
    if not markets:
        return ()
    nb = g.topo.neighbours[space] | g.clans[p].bonus_reach(g, p, space)    # clan: MacFarlane's river
    # asked at every deployment, and most are next to no market: the sales are looked at only beside one
    near = [s for s in markets[0::FIELDS] if nb >> s & 1]
    return tuple(s for s in near if sale_options(g, p, s)) if near else ()


@legal_for(K_MARKET_SELL)
def legal_market_sell(g, frame) -> list:
    _, p, space = frame
    if space not in market_spaces(g):
        return []
    out = sale_options(g, p, space)
    if out:
        out.append(DONE)
    return out


@apply_for(K_MARKET_SELL)
def apply_market_sell(g, frame, action: int) -> None:
    _, p, space = frame
    g.stack.pop()
    if action == DONE:
        return
    good, _, qty = decode_trade(action)
    cover(g, space, good)
    do_trade(g, p, good, SELL, qty, discount=-D.MARKET_BONUS[good], limit=D.MARKET_MAX_SELL)


def cover(g, space: int, good: int) -> None:
    """R7.6 / R7.7: one Good sold covers the icon; both covered: the market leaves the game."""
    rec = g.modstate[NAME]
    m = list(rec.markets)
    i = _find(m, space)
    k = 0 if m[i + 1] == good else 1
    m[i + 3 + k] = 1
    if m[i + 3] and m[i + 4]:
        del m[i:i + FIELDS]
        g.occupant[space] = -1
        g.occupied &= ~(1 << space)
    rec.markets = m


@describe_for(K_MARKET_SELL)
def describe_market_sell(g, frame) -> str:
    space = frame[2]
    goods = "/".join(f"{D.GOODS[x]} (+£{D.MARKET_BONUS[x]})" for x in uncovered_goods(g, space))
    return (f"Farmers market on {g.board.label[space]}: sell up to {D.MARKET_MAX_SELL} {goods} at the market price "
            f"plus the bonus (trade:sell:<good>:<qty>), or done")


@register
class FarmersMarkets(Module):
    """Farmers markets and the Passing bonus overlay as a module (hook points: ``engine/modules.py``)."""
    name = NAME
    record = MarketState

    def setup(self, g) -> None:
        deal_markets(g)

    def setup_frames(self, g) -> list:
        return placement_frames(g)

    def passing_bonus(self, g, p: int, bonus: int) -> int:
        return bonus - D.PASSING_OVERLAY            # R1.4, R8.1

    def deployment_markets(self, g, p: int, space: int) -> tuple:
        return triggered_markets(g, p, space)

    def sellable_markets(self, g, p: int, markets: tuple) -> tuple:
        return tuple(s for s in markets if sale_options(g, p, s))
