"""Industria, Train deliveries and the Delivery bonus tiles (player aid "Train Action", "Delivery Bonus
Tiles"; rules R13.9-R13.13, R13.26-R13.27, R11.16 (Port tile 16's Train half) of
docs/rules-index.md).

A delivery (``start_delivery``): pay the Demand tile's Goods (R13.9; a choice when Port tile 16 can lower
it), mark the tile used, the Delivery bonus (R13.10: the ``delivery`` decision offers each part of the tile
still open, choose:<part>, done forfeits the rest; a part with a cost is paid first), the Delivery track
marker (R13.11), 2 Glory at a City (R13.12), and the Train is tilted (R13.13).

Each part kind of data/trains.toml has one ``Part`` in ``PARTS`` (may it be taken now, taking it); its
sub-choices are ``delivery_step`` frames (K_DSTEP, player, step name, *context), each step name one ``Step``
registered in ``STEPS`` (its legal list, its effect, its text); the spaces a step offers, after a unit type
where there is one to choose, go through ``UnitSpaceStep``. ``IMPLEMENTED`` lists the tiles all of whose
parts are in ``PARTS`` (all 24); only those are drawn onto the map. Tile 16 stacks Export contracts (``stack`` step; the contracts under a
box's top one are ``TrainState.below``, surfaced by common.pop_open_contract; T13).

The clan clauses (R13.26, R13.27; T16, T17) go through the clan hooks, never a clan's name: tile 10's
``process`` step asks ``Clan.bonus_process_inputs`` (Fraser's Wool into Kilts); tiles 20-22 trade through
``market.do_trade`` / ``Clan.on_trade`` (Stewart, Douglas, Fraser's Kilts; Port tile 6 before tile 20's
sale); tiles 22-24 end in the Fulfil's ``fulfil_rewards`` (Buchanan's second fulfilment as usual,
MacEwen, Fraser, MacLeod) and count toward the turn's fulfilments.
"""
from __future__ import annotations

import itertools
from typing import Callable, NamedTuple

from .. import data as D
from .. import trainmap as TM
from ..actions import (CHOOSE, DONE, EXPAND, FULFIL, GOOD, HIRE_MERCHANT, MARKET_AREA, SPACE, TAKE_CONTRACT,
                       UPGRADE_SHIPPING, UPGRADE_TECH, USE_PORT, trade_action, BUY, SELL, decode_trade, TRADE)
from ..state import K_BONUS_UPGRADE, K_DELIVERY, K_DSTEP, K_HOOK, K_MAIN
from ..topology import bits
from .common import TRAINS, move_price, place_unit, pop_open_contract, reach, remove_unit, shipping_reach, units_of
from .registry import apply_for, describe_for, hook, legal_for
from . import train_core as TR
from ..board import KIND_PORT, hex_ring
from ..state import K_PORT_PRICE
from .contracts import building_bonus_available, obtain_cost, start_building_bonus
from .expand import deployed
from .fulfil import apply_fulfil, can_fulfil, ignore_port_usable
from .industria_ports import usable_slot
from .market import do_trade
from .stacking import movable_units, start_moves
from .upgrades import legal_bonus_upgrade

PROCESS_FROM = {D.GOOD_INDEX["cheese"]: D.GOOD_INDEX["milk"], D.GOOD_INDEX["bread"]: D.GOOD_INDEX["grain"],
                D.GOOD_INDEX["whisky"]: D.GOOD_INDEX["grain"]}


# ---- the Demand (R13.9, Port tile 16) ---------------------------------------------------------------
def port16_slot(g, p: int) -> int:
    if not g.config.trains or 16 not in g.port_tiles:
        return -1
    return usable_slot(g, p, 16)


def demand_payments(g, p: int, tile: int) -> list[tuple[tuple[int, ...], bool]]:
    """(Goods to pay, uses Port tile 16) for each way p can pay Demand ``tile`` now."""
    need = TM.DEMAND_TILES[tile]
    have = g.players[p].goods
    opts = []
    if all(have[i] >= q for i, q in enumerate(need)):
        opts.append((need, False))
    if port16_slot(g, p) >= 0:
        for v in PORT16_NEEDS[tile]:
            if all(have[i] >= q for i, q in enumerate(v)):
                opts.append((v, True))
    return opts


def _port16_needs(need: tuple) -> tuple:
    """The Goods a Demand tile asks with Port tile 16's Train half, sorted, the full need aside: 1 less
    Processed good, or 2 less Basic goods (fewer if the tile has fewer)."""
    cands = set()
    for i in D.PROCESSED_GOODS:             # 1 less Processed good
        if need[i]:
            v = list(need)
            v[i] -= TM.PORT16_LESS_PROCESSED
            cands.add(tuple(v))
    basics = [i for i in D.BASIC_GOODS for _ in range(need[i])]
    if basics:                              # 2 less Basic goods (fewer if the tile has fewer)
        k = min(TM.PORT16_LESS_BASIC, len(basics))
        for combo in set(itertools.combinations(basics, k)):
            v = list(need)
            for i in combo:
                v[i] -= 1
            cands.add(tuple(v))
    return tuple(v for v in sorted(cands) if v != need)


#: Demand tile -> its needs with Port tile 16 (``_port16_needs``; the tiles never change)
PORT16_NEEDS = {t: _port16_needs(tuple(need)) for t, need in TM.DEMAND_TILES.items()}


def start_delivery(g, p: int, loc: int) -> None:
    """R13.9-R13.13 at ``loc`` (the Train has moved there)."""
    _, tile = TR.demand_spot_tile(g, loc)
    opts = demand_payments(g, p, tile)
    if len(opts) == 1:
        pay_demand(g, p, loc, 0)
    else:
        g.stack.append((K_DSTEP, p, "pay", loc))


def pay_demand(g, p: int, loc: int, k: int) -> None:
    spot, tile = TR.demand_spot_tile(g, loc)
    goods, port = demand_payments(g, p, tile)[k]
    pl = g.players[p]
    for i, q in enumerate(goods):
        pl.goods[i] -= q
    if port:
        pl.ports_used |= 1 << g.port_tiles.index(16)
    ts = g.modstate[TRAINS]
    ts.used[spot] = 1
    sd = TR.side(g)
    if sd.kind[loc] == TM.CITY:
        pl.glory += TM.CITY_GLORY                       # R13.12
    ts.tilt[p] = 1                                      # R13.13
    TR.take_track_marker(g, p)                          # R13.11 (the station, if due: hook under the bonus)
    bonus = ts.bonus[loc]
    if ts.solo_done is not None:                        # one player (solo, or against Automas: A14)
        ts.solo_done[loc] = 1                           # R17.3: the tile is discarded after delivering
        ts.bonus[loc] = 0
    if bonus:
        g.stack.append((K_DELIVERY, p, bonus, (1 << len(TM.DELIVERY_PARTS[bonus])) - 1))
        TR.offer_station_first(g, p)                    # R13.14: the station before or after the bonus


# ---- the Delivery bonus menu (R13.10) -------------------------------------------------------------------
@legal_for(K_DELIVERY)
def legal_delivery(g, frame) -> list:
    _, p, tile, left = frame
    parts = TM.DELIVERY_PARTS[tile]
    out = [CHOOSE + k for k in range(len(parts)) if left >> k & 1 and part_possible(g, p, parts[k])]
    return out + [DONE] if out else out


@apply_for(K_DELIVERY)
def apply_delivery(g, frame, action: int) -> None:
    _, p, tile, left = frame
    g.stack.pop()
    if action == DONE:
        return
    k = action - CHOOSE
    left &= ~(1 << k)
    if left:
        g.stack.append((K_DELIVERY, p, tile, left))
    take_part(g, p, TM.DELIVERY_PARTS[tile][k])


@describe_for(K_DELIVERY)
def describe_delivery(g, frame) -> str:
    _, p, tile, left = frame
    parts = TM.DELIVERY_PARTS[tile]
    opts = ", ".join(f"choose:{k}={parts[k]['kind']}" for k in range(len(parts)) if left >> k & 1)
    return f"Delivery bonus {tile} ({TM.DELIVERY_TEXT[tile]}): take a part ({opts}) or done to forfeit the rest"


# ---- part kinds ---------------------------------------------------------------------------------------
def adjacent_spaces(g, p: int) -> int:
    """Q31: spaces adjacent to one of p's units (a river edge allowed), active land, not across a loch."""
    adj = g.topo.adjacent
    out = 0
    for s in bits(g.players[p].spaces):
        out |= adj[s]
    return out & g.topo.land_mask


def deploy_targets(g, p: int, unit: int, where: str, pay_unit: bool, pay_land: bool, area: int = -1) -> int:
    """Where p may deploy ``unit`` for a deploy part (``DEPLOY_RULES``); ``area``: ``deploy_area``'s answer
    if known."""
    pl = g.players[p]
    if pl.units_left[unit] <= 0:
        return 0
    topo = g.topo
    if area == -1:
        area = deploy_area(g, p, where)
    mask = area & ~g.occupied & topo.unit_mask[unit]
    clan = g.clans[p]
    if clan.restricts_targets:
        mask &= clan.target_mask(g, p, unit)
    budget = pl.money - (clan.unit_cost(g, p, unit) if pay_unit else 0)
    if budget < 0:
        return 0
    if pay_land:
        mask &= topo.affordable(budget)
    return mask


def deploy_area(g, p: int, where: str) -> int:
    """The spaces a deploy part reaches (``DEPLOY_RULES``' where), before occupancy, terrain and money."""
    return adjacent_spaces(g, p) if where == "adjacent" else skip_spaces(g, p, where) if where.startswith("skip") \
        else reach(g, p)


def can_deploy(g, p: int, part: dict) -> bool:
    """Whether p has a unit type to deploy for a deploy part (the area is looked up once for all)."""
    where, pay_unit, pay_land, units = DEPLOY_RULES[part["kind"]]
    left = g.players[p].units_left
    area = -1
    for u in units:
        if left[u] > 0:
            if area == -1:
                area = deploy_area(g, p, where)
            if deploy_targets(g, p, u, where, pay_unit, pay_land, area):
                return True
    return False


_LAND_UNITS = tuple(u for u in range(D.NUM_UNITS) if u != D.FISHERMAN)
#: deploy part kind -> (where, pays the unit's cost, pays the land cost, the unit types)
DEPLOY_RULES = {
    "field_land_cost": ("reach", False, True, (D.FIELD,)),          # tile 2: a Field, land cost only
    # tile 4: a non-Field unit, land cost only, skipping 2 spaces
    "skip_expand": (f"skip{TM.DELIVERY_PARTS[4][0]['skip']}", False, True,
                    tuple(u for u in _LAND_UNITS if u != D.FIELD)),
    "adjacent_free_space": ("adjacent", True, False, _LAND_UNITS),  # tile 1 (Q31): next to one of your units
    "free_space": ("reach", True, False, _LAND_UNITS),              # tile 15: as the Export bonus
}


#: (layout, distance) -> {space: the land-or-not spaces at that hex distance}: ``_SKIP_BY_GRID``'s table
_SKIP_CACHE: dict = {}
#: (where the spaces lie, distance) -> {space: spaces at that distance}: the distances depend on the grid
#: alone, which every layout shares, so one table serves them all (filled as spaces are asked)
_SKIP_BY_GRID: dict = {}


def skip_spaces(g, p: int, where: str) -> int:
    """Tile 4 "Skip any 2 spaces": land spaces at hex distance exactly skip + 1 from one of p's units, so that
    the skipped spaces lie between, whatever they are (no Shipping reach, A723); T11 in
    rules-interpretations.md."""
    k = int(where[4:]) + 1
    key = (g.board.sides, k)
    table = _SKIP_CACHE.get(key)
    if table is None:
        if len(_SKIP_CACHE) > 256:     # random boards: keep the cache small
            _SKIP_CACHE.clear()
        table = _SKIP_CACHE[key] = _SKIP_BY_GRID.setdefault((g.board.rowcol, k), {})
    out = 0
    for s in bits(g.players[p].spaces):
        m = table.get(s)
        if m is None:
            m = table[s] = ring(g.board, s, k)
        out |= m
    return out & g.topo.land_mask


def ring(board, s: int, k: int) -> int:
    """The spaces at hex distance exactly k >= 1 from space s: the cells of ``hex_ring`` (board.py) that are
    spaces of this map (Port tiles lie beside the grid, not on a cell)."""
    index = _INDEX_CACHE.get(board.sides)
    if index is None:
        index = _INDEX_CACHE[board.sides] = {rc: t for t, rc in enumerate(board.rowcol)
                                             if rc is not None and board.kind[t] != KIND_PORT}
        if len(_INDEX_CACHE) > 256:
            _INDEX_CACHE.clear()
            _INDEX_CACHE[board.sides] = index
    out = 0
    for cell in hex_ring(*board.rowcol[s], k):
        t = index.get(cell)
        if t is not None:
            out |= 1 << t
    return out


_INDEX_CACHE: dict = {}


def reserve_targets(g, p: int) -> int:
    """Tile 19 (Q34): any empty active land space, even out of reach, whose land cost p can pay, with a
    Merchant in stock."""
    if g.players[p].merchants_stock <= 0:
        return 0
    return g.topo.land_mask & ~g.occupied & g.topo.affordable(g.players[p].money)


def free_buy_boxes(g, p: int) -> list[int]:
    """Tile 22: contracts that up to 2 free Goods (of those the contract needs) make fulfillable."""
    pl = g.players[p]
    n = TM.DELIVERY_PARTS[22][0]["amount"]
    clan = g.clans[p]
    # Processed goods the contract may lack without a free "buy": the clan's wild Goods (Fraser's Kilts,
    # R18.F3) and Port tile 10's ignored one
    spare = (clan.wild_processed(g, p) if clan.custom_trade else 0) + (1 if ignore_port_usable(g, p) else 0)
    out = []
    for b, cid in enumerate(pl.open_contracts):
        need = D.CONTRACT_BY_ID[cid].goods
        basic = sum(max(0, q - pl.goods[i]) for i, q in enumerate(need) if D.IS_BASIC[i])
        processed = sum(max(0, q - pl.goods[i]) for i, q in enumerate(need) if not D.IS_BASIC[i])
        if basic + max(0, processed - spare) > n:
            continue
        saved = pl.goods[:]
        for i, q in enumerate(need):
            pl.goods[i] = max(pl.goods[i], q)
        ok = can_fulfil(g, p, cid)
        pl.goods[:] = saved
        if ok:
            out.append(b)
    return out


# ---- part kinds: one table, kind -> its Part ------------------------------------------------------------
class Part(NamedTuple):
    """A part kind of data/trains.toml: ``possible(g, p, part)``, whether the menu offers it now, and
    ``take(g, p, part)``: its cost paid, then its gain, or the steps (or other decisions) that resolve it."""
    possible: Callable
    take: Callable


def _always(g, p: int, part: dict) -> bool:
    return True


def push_step(g, p: int, name: str, *context) -> None:
    """Put the ``delivery_step`` frame (K_DSTEP, p, name, *context) on the stack."""
    g.stack.append((K_DSTEP, p, name) + context)


def _starts(name: str, *context):
    """A part's ``take`` that starts the step ``name`` with a fixed context."""
    return lambda g, p, part: push_step(g, p, name, *context)


def _take_money(g, p: int, part: dict) -> None:
    g.players[p].money += part["amount"]


def _take_goods(g, p: int, part: dict) -> None:
    for _ in range(part.get("basic", 0)):
        push_step(g, p, "good", 0)
    for _ in range(part.get("processed", 0)):
        push_step(g, p, "good", 1)


def _upgrade_possible(g, p: int, part: dict) -> bool:
    return bool(legal_bonus_upgrade(g, (K_BONUS_UPGRADE, p)))


def _take_bonus_action(g, p: int, part: dict) -> None:
    if part.get("any_port"):                      # tile 11: one Port tile even out of reach, during it
        g.turn["any_port"] = 1
    g.stack.append((K_MAIN, p, "bonus"))          # Q29: one more main action at once (not Pass)


def _take_return_upgrades(g, p: int, part: dict) -> None:
    push_step(g, p, "basic_processed", part["basic"], part["processed"])
    push_step(g, p, "return_upgrade", part["returns"])


def _take_distillery_goods(g, p: int, part: dict) -> None:
    g.players[p].money -= part["cost"]
    push_step(g, p, "return_unit", (D.DISTILLERY,), "each_good")


def _take_whisky_money(g, p: int, part: dict) -> None:
    pl = g.players[p]
    pl.goods[D.GOOD_INDEX["whisky"]] -= part["whiskies"]
    pl.money += part["amount"]


def _moves_possible(g, p: int, part: dict) -> bool:
    return bool(movable_units(g, p))


def _take_moves(g, p: int, part: dict) -> None:
    start_moves(g, p, part["count"])


def _building_bonus_possible(g, p: int, part: dict) -> bool:
    return building_bonus_available(g, p)


def _take_building_bonus(g, p: int, part: dict) -> None:
    start_building_bonus(g, p)


def _fulfil_imports_possible(g, p: int, part: dict) -> bool:
    return any(can_fulfil(g, p, c) for c in g.players[p].open_contracts)


def _merchants_area_possible(g, p: int, part: dict) -> bool:
    pl = g.players[p]
    return pl.merchants_stock >= part["merchants"] and \
        any(not pl.merchants_market[a ^ 1] for a in range(D.NUM_GOODS * 2))


def _city_spaces(g, p: int) -> int:
    return shipping_reach(g, p) & g.topo.land_mask & ~g.occupied


_DEPLOY = Part(can_deploy,
               lambda g, p, part: push_step(g, p, "deploy", part["kind"], -1))
#: tile 15's "1 free space" is the aid's Free space, "an Expand action without paying the land cost (...
#: all normal Expand rules apply)" (C-S5): a clan's own ways to expand are offered there too, as in the
#: Direct export bonus's Free space (``free_space_actions``: Sinclair's Railroad Reach). Tile 1's
#: "adjacent free spaces" are bound to adjacent spaces (Q31), so no reach of any kind applies there.
FREE_SPACE_KINDS = frozenset({"free_space"})
_FREE_SPACE = Part(lambda g, p, part: can_deploy(g, p, part) or bool(g.clans[p].free_space_actions(g, p)),
                   _DEPLOY.take)

#: part kind -> its Part (every kind of data/trains.toml; the tiles using each in the comments)
PARTS: dict[str, Part] = {
    "money": Part(_always, _take_money),
    "goods": Part(_always, _take_goods),                                                   # 8, 11, 15
    "upgrade": Part(_upgrade_possible, lambda g, p, part: g.stack.append((K_BONUS_UPGRADE, p))),  # 4, 18
    "adjacent_free_space": _DEPLOY, "field_land_cost": _DEPLOY, "skip_expand": _DEPLOY,     # 1, 2, 4
    "free_space": _FREE_SPACE,                                                             # 15
    "city_tile": Part(lambda g, p, part: bool(_city_spaces(g, p)), _starts("city", 0)),    # 3
    "bonus_action": Part(_always, _take_bonus_action),                                     # 3, 11, 15
    "return_upgrades": Part(lambda g, p, part: len(returnable_upgrades(g, p)) > 0          # 5
                            and upgrade_returns_possible(g, p) >= part["returns"], _take_return_upgrades),
    "move_prices": Part(_always, lambda g, p, part: push_step(g, p, "price", part["markers"], 0)),  # 6
    "distillery_goods": Part(lambda g, p, part: bool(units_of(g, p, D.DISTILLERY))         # 7
                             and g.players[p].money >= part["cost"], _take_distillery_goods),
    "swap_contract": Part(lambda g, p, part: bool(g.players[p].open_contracts) and any(c >= 0 for c in g.display),
                          _starts("discard_contract", 0)),                                 # 8
    "factory_basics": Part(lambda g, p, part: any(units_of(g, p, f) for f in D.FACTORIES),  # 9
                           _starts("return_unit", D.FACTORIES, "basics2")),
    "process": Part(lambda g, p, part: any(g.players[p].goods[src] for src in PROCESS_FROM.values())  # 10
                    or bool(g.clans[p].bonus_process_inputs(g, p)), _starts("process", 0)),
    "animal_money": Part(lambda g, p, part: any(units_of(g, p, a) for a in D.ANIMALS),     # 12
                         _starts("return_unit", D.ANIMALS, "money25")),
    "whisky_money": Part(lambda g, p, part: g.players[p].goods[D.GOOD_INDEX["whisky"]] >= part["whiskies"],
                         _take_whisky_money),                                              # 13
    "moves": Part(_moves_possible, _take_moves),                                           # 14
    "stack_contract": Part(lambda g, p, part: bool(stack_slots(g, p, ())), _starts("stack", -1, ())),  # 16
    "building_bonus": Part(_building_bonus_possible, _take_building_bonus),                # 17
    "reserve": Part(lambda g, p, part: bool(reserve_targets(g, p)), _starts("reserve", 0)),  # 19
    "sell_extra": Part(lambda g, p, part: bool(sell_options(g, p, part)), _starts("sell", 0)),  # 20
    "merchants_area": Part(_merchants_area_possible, _starts("area", 0)),                  # 21
    "free_buy_fulfil": Part(lambda g, p, part: bool(free_buy_boxes(g, p)), _starts("free_buy", -1, ())),  # 22
    "fulfil_imports": Part(_fulfil_imports_possible, _starts("fulfil", 0)),                # 23
    "field_fulfil": Part(lambda g, p, part: bool(units_of(g, p, D.FIELD)) and bool(g.players[p].open_contracts),
                         _starts("field_fulfil", -1)),                                     # 24
}
#: Delivery bonus tiles whose every part is modelled (all 24); only those are drawn onto the map
IMPLEMENTED = tuple(sorted(t for t, parts in TM.DELIVERY_PARTS.items() if all(x["kind"] in PARTS for x in parts)))


def part_possible(g, p: int, part: dict) -> bool:
    return PARTS[part["kind"]].possible(g, p, part)


def take_part(g, p: int, part: dict) -> None:
    PARTS[part["kind"]].take(g, p, part)



# ---- helpers of the parts -----------------------------------------------------------------------------
def returnable_upgrades(g, p: int) -> list[int]:
    """Tile 5 (Q32): Shipping one step back, a flipped Technology tile back (no money), a Merchant from
    stock back to the Player board (not one from the Market)."""
    pl = g.players[p]
    out = []
    if pl.shipping > 0:
        out.append(UPGRADE_SHIPPING)
    out += [UPGRADE_TECH + i for i in (0, 1) if pl.tech[i]]
    if pl.merchants_stock > 0 and pl.merchants_board < D.MERCHANTS_ON_TRACK:
        out.append(HIRE_MERCHANT)
    return out


def upgrade_returns_possible(g, p: int) -> int:
    pl = g.players[p]
    return pl.shipping + sum(pl.tech) + min(pl.merchants_stock, D.MERCHANTS_ON_TRACK - pl.merchants_board)


def sell_options(g, p: int, part: dict) -> list[int]:
    """Tile 20: a Trade selling 1-4 of one Good (Merchants from stock, as a Trade; the index's quantity is
    the Merchants placed, as in the Trade action: Clan Douglas's Merchants may sell 2 Goods each, up to 4
    units in all; Clan Fraser's Kilts sell as a Processed good, R18.F3)."""
    pl = g.players[p]
    clan = g.clans[p]
    wild = clan.wild_processed(g, p) if clan.custom_trade else 0
    out = []
    for i in range(D.NUM_GOODS):
        if pl.merchants_market[i * 2 + BUY]:  # never Merchants on both areas of one Good (as a Trade)
            continue
        have = pl.goods[i] + (0 if D.IS_BASIC[i] else wild)
        for q in range(1, min(part["amount"], have, pl.merchants_stock) + 1):
            out.append(trade_action(i, SELL, q))
    return out


#: Port tile 6 ("Manipulate the price of one Good by 3 steps on the Market before trading that Good")
#: applies to Delivery bonus 20's Trade (R13.26 tile 20, R19.4): offered in its ``sell`` step
PRICE_PORT_TILE = 6


def sell_port_slot(g, p: int) -> int:
    """Slot of Port tile 6 if p may use it now, before bonus 20's sale (in reach, unused), else -1."""
    return usable_slot(g, p, PRICE_PORT_TILE) if g.port_tiles else -1


def units_for_sale(g, p: int, good: int) -> int:
    """Goods of type ``good`` p could sell: the stock and, for a Processed good, the clan's wild Goods."""
    clan = g.clans[p]
    n = g.players[p].goods[good]
    if clan.custom_trade and not D.IS_BASIC[good]:
        n += clan.wild_processed(g, p)
    return n


@hook("sell_extra")
def sell_extra(g, p: int, good: int, before: int) -> None:
    """Tile 20: £6 extra per unit sold, counted once the Trade is resolved (a clan's own trade decision,
    Douglas's Bulk Trading or Fraser's Kilts, may decide how many Goods it sold)."""
    g.players[p].money += _SELL_PART["extra"] * (before - units_for_sale(g, p, good))


def stack_boxes(g, p: int, placed: tuple) -> list[int]:
    """Tile 16: the Export boxes a new contract may go on (T13): each box holding a contract this bonus did
    not place there (the new one goes on top, index of ``open_contracts``), and an empty box (index
    ``len(open_contracts)``). One contract per box (Buchanan: one on each of the two boxes); a clan's
    limit of contracts per turn (Buchanan: two) holds too."""
    clan = g.clans[p]
    if len(placed) >= clan.export_boxes:
        return []
    limit = clan.contracts_per_turn
    if limit and g.turn.get("obtained", 0) >= limit:
        return []
    open_ = g.players[p].open_contracts
    out = [b for b, c in enumerate(open_) if c not in placed]
    if len(open_) < clan.export_boxes:
        out.append(len(open_))
    return out


def stack_slots(g, p: int, placed: tuple) -> list[int]:
    """Tile 16: the Export board's contracts p may take now (paying the normal cost, contracts.obtain_cost)."""
    if not stack_boxes(g, p, placed) or g.players[p].money < obtain_cost(g, p):
        return []
    return [k for k, c in enumerate(g.display) if c >= 0]


def stack_contract(g, p: int, slot: int, box: int) -> None:
    """Tile 16: take the contract in display ``slot`` at the normal cost onto ``box``: an empty box, or on
    top of the box's contract, which waits under it until the top one is fulfilled (common.pop_open_contract)."""
    pl = g.players[p]
    cid = g.display[slot]
    g.display[slot] = -1
    pl.money -= obtain_cost(g, p)
    g.turn["obtained"] = g.turn.get("obtained", 0) + 1
    if box == len(pl.open_contracts):
        pl.open_contracts.append(cid)
    else:
        g.modstate[TRAINS].below.extend((cid, pl.open_contracts[box]))
        pl.open_contracts[box] = cid


_SELL_PART = TM.DELIVERY_PARTS[20][0]
_AREA_PART = TM.DELIVERY_PARTS[21][0]
_FULFIL_PART = TM.DELIVERY_PARTS[23][0]
_PROCESS_MAX = TM.DELIVERY_PARTS[10][0]["amount"]


# ---- delivery steps: one registered decision per step name -----------------------------------------------
#: step name -> its Step. The name stays text in the frame (K_DSTEP, p, name, *context): saved games keep
#: their frames as they were.
STEPS: dict[str, "Step"] = {}


def step(cls):
    """Register one instance of a Step subclass under its ``name`` (steps keep no state of their own)."""
    STEPS[cls.name] = cls()
    return cls


class Step:
    """One sub-decision of a Delivery bonus: ``legal(g, frame)``, ``apply(g, frame, action)`` (the frame
    already popped; the step pushes its next frame itself when it goes on) and ``text`` for describe."""
    name = ""
    text = ""

    def legal(self, g, frame) -> list:  # pragma: no cover
        raise NotImplementedError

    def apply(self, g, frame, action: int) -> None:  # pragma: no cover
        raise NotImplementedError


def go_on(g, frame) -> None:
    """Push the step's next frame only if it has something to decide (a repeated step ends early)."""
    if STEPS[frame[2]].legal(g, frame):
        g.stack.append(frame)


class UnitSpaceStep(Step):
    """The shared "choose a unit type, then a space" decision. With ``unit_at`` (the frame index of the
    chosen type, -1 until chosen): expand:<unit> among ``unit_types`` having a target, the frame pushed
    again with the type; then space:<space> among ``targets`` (a mask), resolved by ``at_space``. Without
    ``unit_at`` (None) the space is chosen at once (``unit`` None)."""
    unit_at: int | None = None

    def unit_types(self, g, frame):
        return ()

    def targets(self, g, frame, unit) -> int:  # pragma: no cover
        raise NotImplementedError

    def at_space(self, g, frame, unit, s: int) -> None:  # pragma: no cover
        raise NotImplementedError

    def legal(self, g, frame) -> list:
        i = self.unit_at
        if i is None:
            return [SPACE + s for s in bits(self.targets(g, frame, None))]
        if frame[i] < 0:
            return [EXPAND + u for u in self.unit_types(g, frame) if self.targets(g, frame, u)]
        return [SPACE + s for s in bits(self.targets(g, frame, frame[i]))]

    def apply(self, g, frame, action: int) -> None:
        i = self.unit_at
        if i is None:
            self.at_space(g, frame, None, action - SPACE)
        elif frame[i] < 0:
            g.stack.append(frame[:i] + (action - EXPAND,) + frame[i + 1:])
        else:
            self.at_space(g, frame, frame[i], action - SPACE)


@step
class PayDemand(Step):
    name, text = "pay", "pay the Demand (choose:<way>; Port tile 16 may lower it)"

    def legal(self, g, frame):
        _, tile = TR.demand_spot_tile(g, frame[3])
        return [CHOOSE + k for k in range(len(demand_payments(g, frame[1], tile)))]

    def apply(self, g, frame, action):
        pay_demand(g, frame[1], frame[3], action - CHOOSE)


@step
class GainGood(Step):
    """(K_DSTEP, p, "good", processed?)"""
    name, text = "good", "gain a Good (good:<good>)"

    def legal(self, g, frame):
        return [GOOD + i for i in (D.PROCESSED_GOODS if frame[3] else D.BASIC_GOODS)]

    def apply(self, g, frame, action):
        g.players[frame[1]].goods[action - GOOD] += 1


@step
class GainBasicProcessed(Step):
    """Tile 5: (K_DSTEP, p, "basic_processed", Basic goods left, Processed goods left)."""
    name, text = "basic_processed", "gain a Basic or Processed good (good:<good>)"

    def legal(self, g, frame):
        b, q = frame[3], frame[4]
        return [GOOD + i for i in (D.BASIC_GOODS if b else ()) + (D.PROCESSED_GOODS if q else ())]

    def apply(self, g, frame, action):
        p = frame[1]
        i = action - GOOD
        g.players[p].goods[i] += 1
        b, q = frame[3], frame[4]
        b, q = (b - 1, q) if D.IS_BASIC[i] else (b, q - 1)
        if b or q:
            push_step(g, p, "basic_processed", b, q)


@step
class Deploy(UnitSpaceStep):
    """Tiles 1, 2, 4, 15: (K_DSTEP, p, "deploy", part kind, unit or -1)."""
    name, text = "deploy", "deploy a unit (expand:<unit>, then space:<space>)"
    unit_at = 4

    def unit_types(self, g, frame):
        return DEPLOY_RULES[frame[3]][3]

    def legal(self, g, frame):
        out = super().legal(g, frame)
        if frame[4] < 0 and frame[3] in FREE_SPACE_KINDS:
            out += g.clans[frame[1]].free_space_actions(g, frame[1])
        return out

    def apply(self, g, frame, action):
        p = frame[1]
        if frame[4] < 0 and frame[3] in FREE_SPACE_KINDS and g.clans[p].apply_free_space(g, p, action):
            return
        super().apply(g, frame, action)

    def targets(self, g, frame, unit):
        where, pay_unit, pay_land, _ = DEPLOY_RULES[frame[3]]
        return deploy_targets(g, frame[1], unit, where, pay_unit, pay_land)

    def at_space(self, g, frame, unit, s):
        p = frame[1]
        _, pay_unit, pay_land, _ = DEPLOY_RULES[frame[3]]
        g.players[p].money -= (g.clans[p].unit_cost(g, p, unit) if pay_unit else 0) + \
            (g.topo.cost[s] if pay_land else 0)
        place_unit(g, p, unit, s)
        deployed(g, p, unit, s)


@step
class CityTile(UnitSpaceStep):
    name, text = "city", "place the city tile (space:<space>)"

    def targets(self, g, frame, unit):
        return _city_spaces(g, frame[1])

    def at_space(self, g, frame, unit, s):           # tile 3: a blocked space for the game
        g.occupant[s] = -2
        g.occupied |= 1 << s
        g.covered = tuple(sorted(g.covered + (s,)))


@step
class Reserve(UnitSpaceStep):
    name, text = "reserve", "reserve a space with a Merchant, paying its land cost (space:<space>)"

    def targets(self, g, frame, unit):
        return reserve_targets(g, frame[1])

    def at_space(self, g, frame, unit, s):           # the Merchant reserves it: blocked for the others (Q34)
        p = frame[1]
        pl = g.players[p]
        pl.money -= g.topo.cost[s]
        pl.merchants_stock -= 1
        g.occupant[s] = -2
        g.occupied |= 1 << s
        g.modstate[TRAINS].reserved.extend((s, p))


def _gain_each_good(pl) -> None:
    for i in range(D.NUM_GOODS):
        pl.goods[i] += 1


def _gain_basics(pl) -> None:
    for i in D.BASIC_GOODS:
        pl.goods[i] += TM.DELIVERY_PARTS[9][0]["each"]


def _gain_money25(pl) -> None:
    pl.money += TM.DELIVERY_PARTS[12][0]["amount"]


#: what returning a unit gains (tiles 7, 9, 12), by the reward name kept in the ``return_unit`` frame
_RETURN_REWARDS = {"each_good": _gain_each_good, "basics2": _gain_basics, "money25": _gain_money25}


@step
class ReturnUnit(UnitSpaceStep):
    """Tiles 7, 9, 12: (K_DSTEP, p, "return_unit", unit types, reward name)."""
    name, text = "return_unit", "return a unit to your Player board (space:<space>)"

    def targets(self, g, frame, unit):
        mask = 0
        for u in frame[3]:
            mask |= units_of(g, frame[1], u)
        return mask

    def at_space(self, g, frame, unit, s):
        p = frame[1]
        remove_unit(g, p, s, next(u for u in frame[3] if units_of(g, p, u) >> s & 1))
        _RETURN_REWARDS[frame[4]](g.players[p])


@step
class FieldFulfil(UnitSpaceStep):
    """Tile 24: (K_DSTEP, p, "field_fulfil", -1) returns a Field, then (..., 0) fulfils a contract."""
    name = "field_fulfil"
    text = "return a Field (space:<space>), then fulfil a contract without Goods (fulfil:<box>)"

    def targets(self, g, frame, unit):
        return units_of(g, frame[1], D.FIELD)

    def at_space(self, g, frame, unit, s):
        remove_unit(g, frame[1], s, D.FIELD)
        push_step(g, frame[1], "field_fulfil", 0)

    def legal(self, g, frame):
        if frame[3] < 0:
            return super().legal(g, frame)
        return [FULFIL + b for b in range(len(g.players[frame[1]].open_contracts))]

    def apply(self, g, frame, action):
        if frame[3] < 0:
            return super().apply(g, frame, action)
        p = frame[1]
        cid = pop_open_contract(g, p, action - FULFIL)
        g.turn["fulfilled"] = g.turn.get("fulfilled", 0) + 1     # a Fulfil action (R13.27), as finish_fulfil
        g.stack.append((K_HOOK, p, "fulfil_rewards", cid))       # its clan abilities (Buchanan's second: as usual)


@step
class ReturnUpgrade(Step):
    """Tile 5: (K_DSTEP, p, "return_upgrade", returns left)."""
    name, text = "return_upgrade", "return an Upgrade (upgrade_shipping / upgrade_tech / hire_merchant)"

    def legal(self, g, frame):
        return returnable_upgrades(g, frame[1])

    def apply(self, g, frame, action):
        pl = g.players[frame[1]]
        if action == UPGRADE_SHIPPING:
            pl.shipping -= 1
            pl.reach = -1
        elif action == HIRE_MERCHANT:
            pl.merchants_stock -= 1
            pl.merchants_board += 1
        else:
            pl.tech[action - UPGRADE_TECH] = False
        if frame[3] > 1:
            push_step(g, frame[1], "return_upgrade", frame[3] - 1)


@step
class MovePrice(Step):
    """Tile 6: (K_DSTEP, p, "price", markers left, mask of the Goods already moved)."""
    name, text = "price", "move a Price marker one step (market_area:buy = up, sell = down)"

    def legal(self, g, frame):
        used = frame[4]
        return [MARKET_AREA + i * 2 + d for i in range(D.NUM_GOODS) if not used >> i & 1 for d in (0, 1)
                if (g.prices[i] < D.MAX_STEP if d == 0 else g.prices[i] > 0)]

    def apply(self, g, frame, action):
        i, d = divmod(action - MARKET_AREA, 2)
        move_price(g, i, 1 if d == 0 else -1)
        if frame[3] > 1:
            go_on(g, (K_DSTEP, frame[1], "price", frame[3] - 1, frame[4] | 1 << i))


@step
class DiscardContract(Step):
    """Tile 8: the top contract of a box leaves the game, then one from the display for free."""
    name, text = "discard_contract", "discard an Export contract (fulfil:<box>)"

    def legal(self, g, frame):
        return [FULFIL + b for b in range(len(g.players[frame[1]].open_contracts))]

    def apply(self, g, frame, action):
        p = frame[1]
        box = action - FULFIL
        g.modstate[TRAINS].discarded.append(pop_open_contract(g, p, box))
        push_step(g, p, "take_free", box)               # without paying or gaining money


@step
class TakeFree(Step):
    """Tile 8: (K_DSTEP, p, "take_free", the box emptied)."""
    name, text = "take_free", "take an Export contract for free (take_contract:<slot>)"

    def legal(self, g, frame):
        return [TAKE_CONTRACT + k for k, c in enumerate(g.display) if c >= 0]

    def apply(self, g, frame, action):
        p = frame[1]
        pl = g.players[p]
        slot = action - TAKE_CONTRACT
        cid = g.display[slot]
        g.display[slot] = -1
        if len(pl.open_contracts) < g.clans[p].export_boxes:
            pl.open_contracts.append(cid)
        else:                                          # a tile 16 stack: the new one goes on top again
            box = frame[3]
            g.modstate[TRAINS].below.extend((cid, pl.open_contracts[box]))
            pl.open_contracts[box] = cid


@step
class Process(Step):
    """Tile 10: (K_DSTEP, p, "process", Goods processed so far)."""
    name = "process"
    text = "process a Basic good (good:<processed good>; Clan Fraser: good:wool makes a Kilt) or done"

    def legal(self, g, frame):                # clan inputs: Fraser's Wool into a Kilt (good:wool)
        p = frame[1]
        pl = g.players[p]
        out = [GOOD + q for q, src in PROCESS_FROM.items() if pl.goods[src]]
        out += [GOOD + i for i in g.clans[p].bonus_process_inputs(g, p)]
        return out + [DONE] if out and frame[3] < _PROCESS_MAX else out

    def apply(self, g, frame, action):
        if action == DONE:
            return
        p = frame[1]
        pl = g.players[p]
        q = action - GOOD
        if q in PROCESS_FROM:
            pl.goods[PROCESS_FROM[q]] -= 1
            pl.goods[q] += 1
        else:                               # a clan's own input (Fraser: Wool into a Kilt)
            g.clans[p].bonus_process(g, p, q)
        if frame[3] + 1 < _PROCESS_MAX:
            go_on(g, (K_DSTEP, p, "process", frame[3] + 1))


@step
class Sell(Step):
    """Tile 20's Trade, Port tile 6 first if p chooses (R19.4)."""
    name, text = "sell", "sell (trade:sell:...; use_port:<slot>: Port tile 6 first)"

    def legal(self, g, frame):
        p = frame[1]
        out = sell_options(g, p, _SELL_PART)
        slot = sell_port_slot(g, p) if out else -1
        return out + [USE_PORT + slot] if slot >= 0 else out

    def apply(self, g, frame, action):
        p = frame[1]
        if USE_PORT <= action < MARKET_AREA:       # Port tile 6 first (R19.4), then the sale
            g.players[p].ports_used |= 1 << (action - USE_PORT)
            g.stack.append(frame)
            g.stack.append((K_PORT_PRICE, p))
            return
        good, d, qty = decode_trade(action)
        g.stack.append((K_HOOK, p, "sell_extra", good, units_for_sale(g, p, good)))
        do_trade(g, p, good, d, qty, limit=_SELL_PART["amount"])   # at most 4 units (Douglas: 2 per Merchant)


@step
class MerchantsArea(Step):
    """Tile 21: never both areas of one Good (a Trade action, R13.27)."""
    name, text = "area", "place 3 Merchants in a Market area (market_area:<area>)"

    def legal(self, g, frame):
        pl = g.players[frame[1]]
        return [MARKET_AREA + a for a in range(D.NUM_GOODS * 2) if not pl.merchants_market[a ^ 1]]

    def apply(self, g, frame, action):
        p = frame[1]
        pl = g.players[p]
        area = action - MARKET_AREA
        i, d = divmod(area, 2)
        n = _AREA_PART["merchants"]
        pl.merchants_stock -= n
        pl.merchants_market[area] += n
        move_price(g, i, n if d == 0 else -n)
        pl.money += _AREA_PART["amount"]
        g.clans[p].on_trade(g, p, i, 0, d)


@step
class FulfilImports(Step):
    """Tile 23: a Fulfil with money per Import."""
    name, text = "fulfil", "fulfil an Export contract (fulfil:<box>)"

    def legal(self, g, frame):
        p = frame[1]
        return [FULFIL + b for b, c in enumerate(g.players[p].open_contracts) if can_fulfil(g, p, c)]

    def apply(self, g, frame, action):
        p = frame[1]
        pl = g.players[p]
        cid = pl.open_contracts[action - FULFIL]
        pl.money += _FULFIL_PART["per_import"] * sum(D.CONTRACT_BY_ID[cid].imports)
        apply_fulfil(g, p, action - FULFIL)


@step
class FreeBuy(Step):
    """Tile 22: (K_DSTEP, p, "free_buy", box or -1, the Goods chosen so far)."""
    name = "free_buy"
    text = "choose the contract (fulfil:<box>), then up to 2 free Goods for it (good:<good>), done to fulfil"

    def legal(self, g, frame):
        p = frame[1]
        pl = g.players[p]
        box, bought = frame[3], frame[4]
        if box < 0:
            return [FULFIL + b for b in free_buy_boxes(g, p)]
        need = D.CONTRACT_BY_ID[pl.open_contracts[box]].goods
        out = []
        if len(bought) < TM.DELIVERY_PARTS[22][0]["amount"]:
            out = [GOOD + i for i, q in enumerate(need) if q > bought.count(i)]
        saved = pl.goods[:]
        for i in bought:
            pl.goods[i] += 1
        if can_fulfil(g, p, pl.open_contracts[box]):
            out.append(DONE)
        pl.goods[:] = saved
        return out

    def apply(self, g, frame, action):
        p = frame[1]
        box, bought = frame[3], frame[4]
        if box < 0:
            push_step(g, p, "free_buy", action - FULFIL, ())
        elif action != DONE:
            push_step(g, p, "free_buy", box, bought + (action - GOOD,))
        else:                                      # the free "buy" (prices move, a Trade), then the Fulfil
            pl = g.players[p]
            for i in sorted(set(bought)):
                q = bought.count(i)
                g.clans[p].on_trade(g, p, i, q, 0)
                pl.goods[i] += q
                move_price(g, i, q)
            apply_fulfil(g, p, box)


@step
class StackContract(Step):
    """Tile 16: (K_DSTEP, p, "stack", display slot or -1, the contracts placed so far): a contract, then its
    box if there is a choice."""
    name = "stack"
    text = ("take an Export contract at the normal cost (take_contract:<slot>; on top of the one in your "
            "Export box, which you fulfil after it), then its Export box if you choose (fulfil:<box>), "
            "done to stop")

    def legal(self, g, frame):
        p = frame[1]
        slot, placed = frame[3], frame[4]
        if slot < 0:
            out = [TAKE_CONTRACT + k for k in stack_slots(g, p, placed)]
            return out + [DONE] if placed and out else out
        return [FULFIL + b for b in stack_boxes(g, p, placed)]

    def apply(self, g, frame, action):
        p = frame[1]
        slot, placed = frame[3], frame[4]
        if slot < 0:
            if action == DONE:
                return
            slot = action - TAKE_CONTRACT
            boxes = stack_boxes(g, p, placed)
            if len(boxes) > 1:
                push_step(g, p, "stack", slot, placed)
                return
            box = boxes[0]
        else:
            box = action - FULFIL
        cid = g.display[slot]
        stack_contract(g, p, slot, box)
        go_on(g, (K_DSTEP, p, "stack", -1, placed + (cid,)))


@legal_for(K_DSTEP)
def legal_dstep(g, frame) -> list:
    return STEPS[frame[2]].legal(g, frame)


@apply_for(K_DSTEP)
def apply_dstep(g, frame, action: int) -> None:
    g.stack.pop()
    STEPS[frame[2]].apply(g, frame, action)


@describe_for(K_DSTEP)
def describe_dstep(g, frame) -> str:
    return f"Delivery bonus: {STEPS[frame[2]].text}"
