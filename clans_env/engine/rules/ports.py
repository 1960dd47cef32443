"""Rulebook "Free Action: Using a Port Bonus Tile" and "Appendix: Port Bonus Tiles"
(tile numbers as in the player aid's reference list).

A Port tile is usable by p when its port space is neighbouring or within Shipping reach of
one of p's units and p has not used that tile yet (once per game per player). Tile 1 is
used inside the Fulfil action (see fulfil.py), never as a stand-alone free action.
"""
from __future__ import annotations

from .. import data as D
from ..actions import DONE, EXPAND, GOOD, MARKET_AREA, SPACE, USE_PORT
from ..state import (K_BONUS_UPGRADE, K_EXCHANGE_FROM, K_EXCHANGE_TO, K_PORT_COPY, K_PORT_DISCARD, K_PORT_GAIN,
                     K_PORT_PRICE, K_POST_MAIN, PLACE_EXCHANGE)
from ..topology import UNIT_LAND, bits
from .common import move_price, notify_deploy, reach, replace_unit
from .contracts import building_bonus_available, start_building_bonus
from .expand import building_bonus_triggered, offer_bonuses
from .market import neighbourhood_goods
from .registry import PORT_TILES, apply_for, describe_for, legal_for


def tile_applicable(g, p: int, tile: int, copying: bool = False) -> bool:
    """Whether using ``tile`` now would do anything the rules allow."""
    pl = g.players[p]
    if tile == 1:
        return False                       # only while slaughtering (fulfil.py)
    if tile == 2:
        return any(pl.goods[i] for i in D.BASIC_GOODS)
    if tile == 3:
        return any(pl.goods[i] for i in D.PROCESSED_GOODS)
    if tile == 7:
        return bool(exchange_spaces(g, p, (), ()))
    if tile == 9:
        if copying or pl.money < D.PORT9_COST:
            return False
        return bool(copy_targets(g, p))
    if tile >= 10:
        return PORT_TILES[tile][0](g, p, tile)          # a module's tile (Industria 10-18)
    return True                            # 4, 5, 6, 8 always do something


def port_tile_pool(g) -> list[int]:
    """The configuration's Port tiles, in number order (Kickstarter's tile 9, a module's: Industria 10-18)."""
    pool = list(D.PORT_TILES_BASE) + (list(D.PORT_TILES_KICKSTARTER) if g.config.kickstarter else [])
    for extra in g.hooks.port_tile_pool:
        pool += extra(g)
    return pool


def port_options(g, p: int, out: list) -> None:
    tiles = g.port_tiles
    if not tiles:
        return
    pl = g.players[p]
    r = -1 if g.turn.get("any_port") else reach(g, p)    # Industria Delivery bonus 11: even out of reach
    if not r & g.topo.port_spaces:          # no slot's space in reach (common before Shipping grows)
        return
    for slot, tile in enumerate(tiles):
        if not pl.ports_used >> slot & 1 and r >> g.topo.port_space[slot] & 1 and tile_applicable(g, p, tile):
            out.append(USE_PORT + slot)


def use_port(g, p: int, slot: int) -> None:
    g.players[p].ports_used |= 1 << slot
    resolve_tile(g, p, g.port_tiles[slot])


def resolve_tile(g, p: int, tile: int) -> None:
    pl = g.players[p]
    if tile == 2:
        g.stack.append((K_PORT_DISCARD, p, 2))
    elif tile == 3:
        g.stack.append((K_PORT_DISCARD, p, 3))
    elif tile == 4:
        pl.glory += D.PORT4_GLORY
        g.stack.append((K_BONUS_UPGRADE, p))
    elif tile == 5:
        pl.money += D.PORT5_MONEY
    elif tile == 6:
        g.stack.append((K_PORT_PRICE, p))
    elif tile == 7:
        g.stack.append((K_EXCHANGE_FROM, p, (), ()))
    elif tile == 8:
        pl.money += D.PORT8_MONEY
        if building_bonus_available(g, p):
            start_building_bonus(g, p)
    elif tile == 9:
        pl.money -= D.PORT9_COST
        g.stack.append((K_PORT_COPY, p))
    elif tile >= 10:
        PORT_TILES[tile][1](g, p, tile)
    else:  # pragma: no cover
        raise AssertionError(f"port tile {tile} has no effect here")


# ---- after the main action -------------------------------------------------------------------
@legal_for(K_POST_MAIN)
def legal_post_main(g, frame) -> list:
    out: list = []
    p = frame[1]
    port_options(g, p, out)
    clan = g.clans[p]
    if clan.adds_post_main_actions:
        extra = clan.post_main_actions(g, p)
        if extra:
            out.extend(extra)
    if out:
        out.append(DONE)
    return out


@apply_for(K_POST_MAIN)
def apply_post_main(g, frame, action: int) -> None:
    if action == DONE:
        g.stack.pop()
        return
    if g.clans[frame[1]].apply_post_main(g, frame[1], action):
        return                                  # the frame stays
    use_port(g, frame[1], action - USE_PORT)   # the frame stays: more tiles may follow


@describe_for(K_POST_MAIN)
def describe_post_main(g, frame) -> str:
    return "After your main action: use a Port tile, or done to end your turn"


# ---- tiles 2 and 3: discard one Good, gain three Basic / two Processed -------------------------
def _tile_goods(tile: int):
    return (D.BASIC_GOODS, D.PORT2_GAIN) if tile == 2 else (D.PROCESSED_GOODS, D.PORT3_GAIN)


@legal_for(K_PORT_DISCARD)
def legal_port_discard(g, frame) -> list:
    goods, _ = _tile_goods(frame[2])
    pl = g.players[frame[1]]
    return [GOOD + i for i in goods if pl.goods[i]]


@apply_for(K_PORT_DISCARD)
def apply_port_discard(g, frame, action: int) -> None:
    _, p, tile = frame
    g.stack.pop()
    g.players[p].goods[action - GOOD] -= 1
    g.stack.append((K_PORT_GAIN, p, tile, _tile_goods(tile)[1]))


@describe_for(K_PORT_DISCARD)
def describe_port_discard(g, frame) -> str:
    kind = "Basic" if frame[2] == 2 else "Processed"
    return f"Port tile {frame[2]}: discard one {kind} good"


@legal_for(K_PORT_GAIN)
def legal_port_gain(g, frame) -> list:
    return [GOOD + i for i in _tile_goods(frame[2])[0]]


@apply_for(K_PORT_GAIN)
def apply_port_gain(g, frame, action: int) -> None:
    _, p, tile, left = frame
    g.stack.pop()
    g.players[p].goods[action - GOOD] += 1
    if left > 1:
        g.stack.append((K_PORT_GAIN, p, tile, left - 1))


@describe_for(K_PORT_GAIN)
def describe_port_gain(g, frame) -> str:
    return f"Port tile {frame[2]}: gain a good ({frame[3]} left to choose)"


# ---- tile 6: move one price by three steps ---------------------------------------------------
@legal_for(K_PORT_PRICE)
def legal_port_price(g, frame) -> list:
    return [MARKET_AREA + i for i in range(D.NUM_GOODS * 2)]


@apply_for(K_PORT_PRICE)
def apply_port_price(g, frame, action: int) -> None:
    """market_area:buy:<good> moves the price up three steps, market_area:sell:<good> down."""
    g.stack.pop()
    good, direction = divmod(action - MARKET_AREA, 2)
    move_price(g, good, D.PORT6_STEPS if direction == 0 else -D.PORT6_STEPS)


@describe_for(K_PORT_PRICE)
def describe_port_price(g, frame) -> str:
    return "Port tile 6: move one Good's price three steps (market_area:buy = up, sell = down)"


# ---- tile 7: exchange two units ---------------------------------------------------------------
def exchange_new_units(g, p: int, space: int, olds: tuple, news: tuple) -> list:
    """Board units (not Fields) that may replace the unit on ``space``: a different type from
    every exchanged-away unit, matching the land, available on the Player board."""
    old = g.unit_at[space]
    banned = set(olds) | {old}
    land = g.board.land[space]
    left = g.players[p].units_left
    out = []
    for u in range(D.NUM_UNITS):
        if u == D.FIELD or u in banned or u not in UNIT_LAND or not land & UNIT_LAND[u]:
            continue
        if left[u] > 0:
            out.append(u)
    return out


def exchange_spaces(g, p: int, olds: tuple, news: tuple) -> int:
    """p's non-Field units that can be exchanged now (the old unit must differ from new ones)."""
    mask = 0
    ua = g.unit_at
    done_spaces = {s for s, _ in olds}
    for s in bits(g.players[p].spaces):
        u = ua[s]
        if u == D.FIELD or u == D.FISHERMAN or u in news or s in done_spaces:
            continue
        if exchange_new_units(g, p, s, tuple(o for _, o in olds), news):
            mask |= 1 << s
    return mask


@legal_for(K_EXCHANGE_FROM)
def legal_exchange_from(g, frame) -> list:
    _, p, olds, news = frame
    out = [SPACE + s for s in bits(exchange_spaces(g, p, olds, news))]
    if olds and out:
        out.append(DONE)     # the second exchange is optional (interpretation, see docs)
    return out


@apply_for(K_EXCHANGE_FROM)
def apply_exchange_from(g, frame, action: int) -> None:
    _, p, olds, news = frame
    g.stack.pop()
    if action == DONE:
        exchange_finished(g, p, olds, news)
        return
    g.stack.append((K_EXCHANGE_TO, p, action - SPACE, olds, news))


@describe_for(K_EXCHANGE_FROM)
def describe_exchange_from(g, frame) -> str:
    return f"Port tile 7: choose one of your units on the map to exchange ({len(frame[2])} done)"


@legal_for(K_EXCHANGE_TO)
def legal_exchange_to(g, frame) -> list:
    _, p, space, olds, news = frame
    return [EXPAND + u for u in exchange_new_units(g, p, space, tuple(o for _, o in olds), news)]


@apply_for(K_EXCHANGE_TO)
def apply_exchange_to(g, frame, action: int) -> None:
    _, p, space, olds, news = frame
    g.stack.pop()
    new = action - EXPAND
    old = replace_unit(g, p, space, new)       # a second unit on the space (Industria) stays
    notify_deploy(g, p, new, space, PLACE_EXCHANGE)
    olds = olds + ((space, old),)
    news = news + (new,)
    if len(olds) < 2 and exchange_spaces(g, p, olds, news):
        g.stack.append((K_EXCHANGE_FROM, p, olds, news))
    else:
        exchange_finished(g, p, olds, news)


def exchange_finished(g, p: int, olds: tuple, news: tuple) -> None:
    """'If you qualify you can obtain the Building bonus' (base game: no Neighbourhood bonus). With
    Industria the errata (A441, A620; R7.9, R11.20) makes the exchange a deployment: the Neighbourhood
    bonus of the new units' spaces and each Farmers market neighbouring them apply too, in the
    player's order (one Neighbourhood decision for both spaces: its limit is per Good and turn)."""
    building = any(building_bonus_triggered(g, p, u) for u in news)
    if g.hooks.industria:
        spaces = [s for s, _ in olds]
        nb = 0
        if g.num_players > 1:
            for s in spaces:
                nb |= neighbourhood_goods(g, p, s)
        markets: tuple = ()
        for triggered in g.hooks.deployment_markets:
            for s in spaces:
                markets += tuple(m for m in triggered(g, p, s) if m not in markets)
        offer_bonuses(g, p, nb, markets, building)
    elif building:
        start_building_bonus(g, p)


@describe_for(K_EXCHANGE_TO)
def describe_exchange_to(g, frame) -> str:
    return f"Port tile 7: choose the unit from your Player board to put on {g.board.label[frame[2]]}"


# ---- tile 9 (Kickstarter): use another tile in play -------------------------------------------
def copy_targets(g, p: int) -> list:
    return [slot for slot, tile in enumerate(g.port_tiles) if tile != 9 and tile_applicable(g, p, tile, True)]


@legal_for(K_PORT_COPY)
def legal_port_copy(g, frame) -> list:
    return [USE_PORT + slot for slot in copy_targets(g, frame[1])]


@apply_for(K_PORT_COPY)
def apply_port_copy(g, frame, action: int) -> None:
    g.stack.pop()
    resolve_tile(g, frame[1], g.port_tiles[action - USE_PORT])


@describe_for(K_PORT_COPY)
def describe_port_copy(g, frame) -> str:
    return "Port tile 9: use the effect of another Port tile in play"
