"""Industria, Train deliveries and the Delivery bonus tiles (player aid "Train Action", "Delivery Bonus
Tiles"; rules R13.9-R13.13, R13.26-R13.27, R11.16 (Port tile 16's Train half) of
docs/rules-index.md).

A delivery (``start_delivery``): pay the Demand tile's Goods (R13.9; a choice when Port tile 16 can lower
it), mark the tile used, the Delivery bonus (R13.10: the ``delivery`` decision offers each part of the tile
still open, choose:<part>, done forfeits the rest; a part with a cost is paid first), the Delivery track
marker (R13.11), 2 Glory at a City (R13.12), and the Train is tilted (R13.13).

Each part kind of data/trains.toml has one function here; sub-choices are ``delivery_step`` frames
(kind, player, step, *context). ``IMPLEMENTED`` lists the tiles all of whose parts are modelled (all 24);
only those are drawn onto the map. Tile 16 stacks Export contracts (``stack`` step; the contracts under a
box's top one are ``misc["tr_below"]``, surfaced by common.pop_open_contract; T13).

The clan clauses (R13.26, R13.27; T16, T17) go through the clan hooks, never a clan's name: tile 10's
``process`` step asks ``Clan.bonus_process_inputs`` (Fraser's Wool into Kilts); tiles 20-22 trade through
``market.do_trade`` / ``Clan.on_trade`` (Stewart, Douglas, Fraser's Kilts; Port tile 6 before tile 20's
sale); tiles 22-24 end in the Fulfil's ``fulfil_rewards`` (Buchanan's second fulfilment as usual,
MacEwen, Fraser, MacLeod) and count toward the turn's fulfilments.
"""
from __future__ import annotations

import itertools

from .. import data as D
from .. import trainmap as TM
from ..actions import (CHOOSE, DONE, EXPAND, FULFIL, GOOD, HIRE_MERCHANT, MARKET_AREA, SPACE, TAKE_CONTRACT,
                       UPGRADE_SHIPPING, UPGRADE_TECH, USE_PORT, trade_action, BUY, SELL, decode_trade, TRADE)
from ..state import K_BONUS_UPGRADE, K_DELIVERY, K_DSTEP, K_HOOK, K_MAIN
from ..topology import bits
from .common import BELOW, move_price, place_unit, pop_open_contract, reach, remove_unit, shipping_reach, units_of
from .registry import apply_for, describe_for, hook, legal_for
from . import train_core as TR
from ..board import cube_to_offset, offset_to_cube
from ..state import K_PORT_PRICE
from .common import RESERVED
from .contracts import building_bonus_available, obtain_cost, start_building_bonus
from .expand import deployed
from .fulfil import apply_fulfil, can_fulfil, ignore_port_usable
from .industria_ports import usable_slot
from .market import do_trade
from .stacking import movable_units, start_moves
from .upgrades import legal_bonus_upgrade

#: Delivery bonus tiles whose every part is modelled (all 24)
IMPLEMENTED = tuple(range(1, 25))
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
        for v in sorted(cands):
            if v != need and all(have[i] >= q for i, q in enumerate(v)):
                opts.append((v, True))
    return opts


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
    g.misc[TR.USED][spot] = 1
    sd = TR.side(g)
    if sd.kind[loc] == TM.CITY:
        pl.glory += TM.CITY_GLORY                       # R13.12
    g.misc[TR.TILT][p] = 1                              # R13.13
    TR.take_track_marker(g, p)                          # R13.11 (the station, if due: hook under the bonus)
    bonus = g.misc[TR.BONUS][loc]
    if TR.SOLO_DONE in g.misc:                          # one player (solo, or against Automas: A14)
        g.misc[TR.SOLO_DONE][loc] = 1                   # R17.3: the tile is discarded after delivering
        g.misc[TR.BONUS][loc] = 0
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
    adj = g.board.adjacent
    out = 0
    for s in bits(g.players[p].spaces):
        for t in adj[s]:
            out |= 1 << t
    return out & g.topo.land_mask


def deploy_targets(g, p: int, unit: int, where: str, pay_unit: bool, pay_land: bool) -> int:
    pl = g.players[p]
    if pl.units_left[unit] <= 0:
        return 0
    topo = g.topo
    area = adjacent_spaces(g, p) if where == "adjacent" else skip_spaces(g, p, where) if where.startswith("skip") \
        else reach(g, p)
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


def deploy_units(g, p: int, part: dict) -> list[int]:
    where, pay_unit, pay_land, units = _deploy_rule(part)
    return [u for u in units if deploy_targets(g, p, u, where, pay_unit, pay_land)]


def _deploy_rule(part: dict):
    k = part["kind"]
    if k == "field_land_cost":                 # tile 2: a Field, land cost only
        return "reach", False, True, (D.FIELD,)
    land_units = tuple(u for u in range(D.NUM_UNITS) if u != D.FISHERMAN)
    if k == "skip_expand":                     # tile 4: a non-Field unit, land cost only, skipping 2 spaces
        return f"skip{TM.DELIVERY_PARTS[4][0]['skip']}", False, True, tuple(u for u in land_units if u != D.FIELD)
    if k == "adjacent_free_space":             # tile 1 (Q31): a Free space next to one of your units
        return "adjacent", True, False, land_units
    return "reach", True, False, land_units    # free_space (tile 15): as the Export bonus


_SKIP_CACHE: dict = {}


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
        table = _SKIP_CACHE[key] = {}
    out = 0
    for s in bits(g.players[p].spaces):
        m = table.get(s)
        if m is None:
            m = table[s] = _within_distance(g.board, s, k) & ~_within_distance(g.board, s, k - 1)
        out |= m
    return out & g.topo.land_mask


def _within_distance(board, s: int, k: int) -> int:
    """The spaces within hex distance k of space s (the cells of the hexagon of radius k around it)."""
    index = _INDEX_CACHE.get(board.sides)
    if index is None:
        index = _INDEX_CACHE[board.sides] = {rc: t for t, rc in enumerate(board.rowcol) if rc is not None}
        if len(_INDEX_CACHE) > 256:
            _INDEX_CACHE.clear()
            _INDEX_CACHE[board.sides] = index
    x, y, z = offset_to_cube(*board.rowcol[s])
    out = 0
    for dx in range(-k, k + 1):
        for dy in range(max(-k, -dx - k), min(k, -dx + k) + 1):
            t = index.get(cube_to_offset((x + dx, y + dy, z - dx - dy)))
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


def part_possible(g, p: int, part: dict) -> bool:
    pl = g.players[p]
    k = part["kind"]
    if k in ("money", "goods", "upgrade", "moves_none"):
        if k == "upgrade":
            return bool(legal_bonus_upgrade(g, (K_BONUS_UPGRADE, p)))
        return True
    if k in ("adjacent_free_space", "free_space", "field_land_cost", "skip_expand"):
        return bool(deploy_units(g, p, part))
    if k == "free_buy_fulfil":
        return bool(free_buy_boxes(g, p))
    if k == "reserve":
        return bool(reserve_targets(g, p))
    if k == "bonus_action":
        return True
    if k == "city_tile":
        return bool(shipping_reach(g, p) & g.topo.land_mask & ~g.occupied)
    if k == "return_upgrades":
        return len(returnable_upgrades(g, p)) > 0 and upgrade_returns_possible(g, p) >= part["returns"]
    if k == "move_prices":
        return True
    if k == "distillery_goods":
        return bool(units_of(g, p, D.DISTILLERY)) and pl.money >= part["cost"]
    if k == "swap_contract":
        return bool(pl.open_contracts) and any(c >= 0 for c in g.display)
    if k == "factory_basics":
        return any(units_of(g, p, f) for f in D.FACTORIES)
    if k == "process":
        return any(pl.goods[src] for src in PROCESS_FROM.values()) or bool(g.clans[p].bonus_process_inputs(g, p))
    if k == "animal_money":
        return any(units_of(g, p, a) for a in D.ANIMALS)
    if k == "whisky_money":
        return pl.goods[D.GOOD_INDEX["whisky"]] >= part["whiskies"]
    if k == "moves":
        return bool(movable_units(g, p))
    if k == "building_bonus":
        return building_bonus_available(g, p)
    if k == "sell_extra":
        return bool(sell_options(g, p, part))
    if k == "merchants_area":
        return pl.merchants_stock >= part["merchants"] and \
            any(not pl.merchants_market[a ^ 1] for a in range(D.NUM_GOODS * 2))
    if k == "fulfil_imports":
        return any(can_fulfil(g, p, c) for c in pl.open_contracts)
    if k == "field_fulfil":
        return bool(units_of(g, p, D.FIELD)) and bool(pl.open_contracts)
    if k == "stack_contract":
        return bool(stack_slots(g, p, ()))
    raise AssertionError(f"Delivery bonus part {k!r} is not modelled")  # pragma: no cover


def take_part(g, p: int, part: dict) -> None:
    pl = g.players[p]
    k = part["kind"]
    if k == "money":
        pl.money += part["amount"]
    elif k == "goods":
        for _ in range(part.get("basic", 0)):
            g.stack.append((K_DSTEP, p, "good", 0))
        for _ in range(part.get("processed", 0)):
            g.stack.append((K_DSTEP, p, "good", 1))
    elif k == "upgrade":
        g.stack.append((K_BONUS_UPGRADE, p))
    elif k in ("adjacent_free_space", "free_space", "field_land_cost", "skip_expand"):
        g.stack.append((K_DSTEP, p, "deploy", k, -1))
    elif k == "free_buy_fulfil":
        g.stack.append((K_DSTEP, p, "free_buy", -1, ()))
    elif k == "reserve":
        g.stack.append((K_DSTEP, p, "reserve", 0))
    elif k == "bonus_action":
        if part.get("any_port"):                      # tile 11: one Port tile even out of reach, during it
            g.turn["any_port"] = 1
        g.stack.append((K_MAIN, p, "bonus"))          # Q29: one more main action at once (not Pass)
    elif k == "city_tile":
        g.stack.append((K_DSTEP, p, "city", 0))
    elif k == "return_upgrades":
        g.stack.append((K_DSTEP, p, "basic_processed", part["basic"], part["processed"]))
        g.stack.append((K_DSTEP, p, "return_upgrade", part["returns"]))
    elif k == "move_prices":
        g.stack.append((K_DSTEP, p, "price", part["markers"], 0))
    elif k == "distillery_goods":
        pl.money -= part["cost"]
        g.stack.append((K_DSTEP, p, "return_unit", (D.DISTILLERY,), "each_good"))
    elif k == "swap_contract":
        g.stack.append((K_DSTEP, p, "discard_contract", 0))
    elif k == "factory_basics":
        g.stack.append((K_DSTEP, p, "return_unit", D.FACTORIES, "basics2"))
    elif k == "process":
        g.stack.append((K_DSTEP, p, "process", 0))      # Goods processed so far
    elif k == "animal_money":
        g.stack.append((K_DSTEP, p, "return_unit", D.ANIMALS, "money25"))
    elif k == "whisky_money":
        pl.goods[D.GOOD_INDEX["whisky"]] -= part["whiskies"]
        pl.money += part["amount"]
    elif k == "moves":
        start_moves(g, p, part["count"])
    elif k == "building_bonus":
        start_building_bonus(g, p)
    elif k == "sell_extra":
        g.stack.append((K_DSTEP, p, "sell", 0))
    elif k == "merchants_area":
        g.stack.append((K_DSTEP, p, "area", 0))
    elif k == "fulfil_imports":
        g.stack.append((K_DSTEP, p, "fulfil", 0))
    elif k == "field_fulfil":
        g.stack.append((K_DSTEP, p, "field_fulfil", -1))
    elif k == "stack_contract":
        g.stack.append((K_DSTEP, p, "stack", -1, ()))
    else:  # pragma: no cover
        raise AssertionError(f"Delivery bonus part {k!r} is not modelled")


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
        g.misc.setdefault(BELOW, []).extend((cid, pl.open_contracts[box]))
        pl.open_contracts[box] = cid


_SELL_PART = TM.DELIVERY_PARTS[20][0]
_AREA_PART = TM.DELIVERY_PARTS[21][0]
_FULFIL_PART = TM.DELIVERY_PARTS[23][0]


@legal_for(K_DSTEP)
def legal_dstep(g, frame) -> list:
    p, step = frame[1], frame[2]
    pl = g.players[p]
    if step == "pay":
        _, tile = TR.demand_spot_tile(g, frame[3])
        return [CHOOSE + k for k in range(len(demand_payments(g, p, tile)))]
    if step == "good":
        return [GOOD + i for i in (D.PROCESSED_GOODS if frame[3] else D.BASIC_GOODS)]
    if step == "basic_processed":
        b, q = frame[3], frame[4]
        return [GOOD + i for i in (D.BASIC_GOODS if b else ()) + (D.PROCESSED_GOODS if q else ())]
    if step == "deploy":
        part = {"kind": frame[3]}
        if frame[4] < 0:
            return [EXPAND + u for u in deploy_units(g, p, part)]
        where, pay_unit, pay_land, _ = _deploy_rule(part)
        return [SPACE + s for s in bits(deploy_targets(g, p, frame[4], where, pay_unit, pay_land))]
    if step == "city":
        return [SPACE + s for s in bits(shipping_reach(g, p) & g.topo.land_mask & ~g.occupied)]
    if step == "return_upgrade":
        return returnable_upgrades(g, p)
    if step == "price":
        used = frame[4]
        return [MARKET_AREA + i * 2 + d for i in range(D.NUM_GOODS) if not used >> i & 1 for d in (0, 1)
                if (g.prices[i] < D.MAX_STEP if d == 0 else g.prices[i] > 0)]
    if step == "return_unit":
        mask = 0
        for u in frame[3]:
            mask |= units_of(g, p, u)
        return [SPACE + s for s in bits(mask)]
    if step == "discard_contract":
        return [FULFIL + b for b in range(len(pl.open_contracts))]
    if step == "take_free":
        return [TAKE_CONTRACT + k for k, c in enumerate(g.display) if c >= 0]
    if step == "process":               # clan inputs: Fraser's Wool into a Kilt (good:wool)
        out = [GOOD + q for q, src in PROCESS_FROM.items() if pl.goods[src]]
        out += [GOOD + i for i in g.clans[p].bonus_process_inputs(g, p)]
        return out + [DONE] if out and frame[3] < _PROCESS_MAX else out
    if step == "sell":
        out = sell_options(g, p, _SELL_PART)
        slot = sell_port_slot(g, p) if out else -1
        return out + [USE_PORT + slot] if slot >= 0 else out
    if step == "area":                        # never both areas of one Good (a Trade action, R13.27)
        return [MARKET_AREA + a for a in range(D.NUM_GOODS * 2) if not pl.merchants_market[a ^ 1]]
    if step == "fulfil":
        return [FULFIL + b for b, c in enumerate(pl.open_contracts) if can_fulfil(g, p, c)]
    if step == "reserve":
        return [SPACE + s for s in bits(reserve_targets(g, p))]
    if step == "free_buy":
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
    if step == "field_fulfil":
        if frame[3] < 0:
            return [SPACE + s for s in bits(units_of(g, p, D.FIELD))]
        return [FULFIL + b for b in range(len(pl.open_contracts))]
    if step == "stack":                       # tile 16: a contract (then its box, if there is a choice)
        slot, placed = frame[3], frame[4]
        if slot < 0:
            out = [TAKE_CONTRACT + k for k in stack_slots(g, p, placed)]
            return out + [DONE] if placed and out else out
        return [FULFIL + b for b in stack_boxes(g, p, placed)]
    raise AssertionError(f"unknown delivery step {step!r}")  # pragma: no cover


_PROCESS_MAX = TM.DELIVERY_PARTS[10][0]["amount"]


@apply_for(K_DSTEP)
def apply_dstep(g, frame, action: int) -> None:
    p, step = frame[1], frame[2]
    pl = g.players[p]
    g.stack.pop()
    if step == "pay":
        pay_demand(g, p, frame[3], action - CHOOSE)
    elif step == "good":
        pl.goods[action - GOOD] += 1
    elif step == "basic_processed":
        i = action - GOOD
        pl.goods[i] += 1
        b, q = frame[3], frame[4]
        b, q = (b - 1, q) if D.IS_BASIC[i] else (b, q - 1)
        if b or q:
            g.stack.append((K_DSTEP, p, "basic_processed", b, q))
    elif step == "deploy":
        if frame[4] < 0:
            g.stack.append((K_DSTEP, p, "deploy", frame[3], action - EXPAND))
            return
        unit, s = frame[4], action - SPACE
        _, pay_unit, pay_land, _ = _deploy_rule({"kind": frame[3]})
        cost = (g.clans[p].unit_cost(g, p, unit) if pay_unit else 0) + (g.topo.cost[s] if pay_land else 0)
        pl.money -= cost
        place_unit(g, p, unit, s)
        deployed(g, p, unit, s)
    elif step == "city":
        s = action - SPACE                             # tile 3: a blocked space for the game
        g.occupant[s] = -2
        g.occupied |= 1 << s
        g.covered = tuple(sorted(g.covered + (s,)))
    elif step == "return_upgrade":
        if action == UPGRADE_SHIPPING:
            pl.shipping -= 1
            pl.reach = -1
        elif action == HIRE_MERCHANT:
            pl.merchants_stock -= 1
            pl.merchants_board += 1
        else:
            pl.tech[action - UPGRADE_TECH] = False
        if frame[3] > 1:
            g.stack.append((K_DSTEP, p, "return_upgrade", frame[3] - 1))
    elif step == "price":
        i, d = divmod(action - MARKET_AREA, 2)
        move_price(g, i, 1 if d == 0 else -1)
        if frame[3] > 1:
            nxt = (K_DSTEP, p, "price", frame[3] - 1, frame[4] | 1 << i)
            if legal_dstep(g, nxt):
                g.stack.append(nxt)
    elif step == "return_unit":
        s = action - SPACE
        units = [u for u in frame[3] if units_of(g, p, u) >> s & 1]
        remove_unit(g, p, s, units[0])
        reward = frame[4]
        if reward == "each_good":
            for i in range(D.NUM_GOODS):
                pl.goods[i] += 1
        elif reward == "basics2":
            for i in D.BASIC_GOODS:
                pl.goods[i] += TM.DELIVERY_PARTS[9][0]["each"]
        elif reward == "money25":
            pl.money += TM.DELIVERY_PARTS[12][0]["amount"]
    elif step == "discard_contract":                  # tile 8: the top contract leaves the game
        box = action - FULFIL
        g.misc.setdefault("tr_discarded", []).append(pop_open_contract(g, p, box))
        g.stack.append((K_DSTEP, p, "take_free", box))  # without paying or gaining money
    elif step == "take_free":
        slot = action - TAKE_CONTRACT
        cid = g.display[slot]
        g.display[slot] = -1
        if len(pl.open_contracts) < g.clans[p].export_boxes:
            pl.open_contracts.append(cid)
        else:                                          # a tile 16 stack: the new one goes on top again
            box = frame[3]
            g.misc.setdefault(BELOW, []).extend((cid, pl.open_contracts[box]))
            pl.open_contracts[box] = cid
    elif step == "process":
        q = action - GOOD
        if action != DONE:
            if q in PROCESS_FROM:
                pl.goods[PROCESS_FROM[q]] -= 1
                pl.goods[q] += 1
            else:                               # a clan's own input (Fraser: Wool into a Kilt)
                g.clans[p].bonus_process(g, p, q)
            if frame[3] + 1 < _PROCESS_MAX:
                nxt = (K_DSTEP, p, "process", frame[3] + 1)
                if legal_dstep(g, nxt):
                    g.stack.append(nxt)
    elif step == "sell":
        if USE_PORT <= action < MARKET_AREA:       # Port tile 6 first (R19.4), then the sale
            pl.ports_used |= 1 << (action - USE_PORT)
            g.stack.append(frame)
            g.stack.append((K_PORT_PRICE, p))
            return
        good, d, qty = decode_trade(action)
        g.stack.append((K_HOOK, p, "sell_extra", good, units_for_sale(g, p, good)))
        do_trade(g, p, good, d, qty, limit=_SELL_PART["amount"])   # at most 4 units (Douglas: 2 per Merchant)
    elif step == "area":
        area = action - MARKET_AREA
        i, d = divmod(area, 2)
        n = _AREA_PART["merchants"]
        pl.merchants_stock -= n
        pl.merchants_market[area] += n
        move_price(g, i, n if d == 0 else -n)
        pl.money += _AREA_PART["amount"]
        g.clans[p].on_trade(g, p, i, 0, d)
    elif step == "fulfil":
        cid = pl.open_contracts[action - FULFIL]
        pl.money += _FULFIL_PART["per_import"] * sum(D.CONTRACT_BY_ID[cid].imports)
        apply_fulfil(g, p, action - FULFIL)
    elif step == "reserve":
        s = action - SPACE                    # the Merchant reserves it: blocked for the others (Q34)
        pl.money -= g.topo.cost[s]
        pl.merchants_stock -= 1
        g.occupant[s] = -2
        g.occupied |= 1 << s
        g.misc.setdefault(RESERVED, []).extend((s, p))
    elif step == "free_buy":
        box, bought = frame[3], frame[4]
        if box < 0:
            g.stack.append((K_DSTEP, p, "free_buy", action - FULFIL, ()))
        elif action != DONE:
            g.stack.append((K_DSTEP, p, "free_buy", box, bought + (action - GOOD,)))
        else:                                      # the free "buy" (prices move, a Trade), then the Fulfil
            for i in sorted(set(bought)):
                q = bought.count(i)
                g.clans[p].on_trade(g, p, i, q, 0)
                pl.goods[i] += q
                move_price(g, i, q)
            apply_fulfil(g, p, box)
    elif step == "stack":
        slot, placed = frame[3], frame[4]
        if slot < 0:
            if action == DONE:
                return
            slot = action - TAKE_CONTRACT
            boxes = stack_boxes(g, p, placed)
            if len(boxes) > 1:
                g.stack.append((K_DSTEP, p, "stack", slot, placed))
                return
            box = boxes[0]
        else:
            box = action - FULFIL
        cid = g.display[slot]
        stack_contract(g, p, slot, box)
        nxt = (K_DSTEP, p, "stack", -1, placed + (cid,))
        if legal_dstep(g, nxt):
            g.stack.append(nxt)
    elif step == "field_fulfil":
        if frame[3] < 0:
            remove_unit(g, p, action - SPACE, D.FIELD)
            g.stack.append((K_DSTEP, p, "field_fulfil", 0))
            return
        cid = pop_open_contract(g, p, action - FULFIL)
        g.turn["fulfilled"] = g.turn.get("fulfilled", 0) + 1     # a Fulfil action (R13.27), as finish_fulfil
        g.stack.append((K_HOOK, p, "fulfil_rewards", cid))       # its clan abilities (Buchanan's second: as usual)


_STEP_TEXT = {"pay": "pay the Demand (choose:<way>; Port tile 16 may lower it)", "good": "gain a Good (good:<good>)",
              "basic_processed": "gain a Basic or Processed good (good:<good>)",
              "deploy": "deploy a unit (expand:<unit>, then space:<space>)", "city": "place the city tile (space:<space>)",
              "return_upgrade": "return an Upgrade (upgrade_shipping / upgrade_tech / hire_merchant)",
              "price": "move a Price marker one step (market_area:buy = up, sell = down)",
              "return_unit": "return a unit to your Player board (space:<space>)",
              "discard_contract": "discard an Export contract (fulfil:<box>)",
              "take_free": "take an Export contract for free (take_contract:<slot>)",
              "process": "process a Basic good (good:<processed good>; Clan Fraser: good:wool makes a Kilt) or done",
              "sell": "sell (trade:sell:...; use_port:<slot>: Port tile 6 first)",
              "area": "place 3 Merchants in a Market area (market_area:<area>)",
              "fulfil": "fulfil an Export contract (fulfil:<box>)",
              "reserve": "reserve a space with a Merchant, paying its land cost (space:<space>)",
              "free_buy": "choose the contract (fulfil:<box>), then up to 2 free Goods for it (good:<good>), done to fulfil",
              "field_fulfil": "return a Field (space:<space>), then fulfil a contract without Goods (fulfil:<box>)",
              "stack": "take an Export contract at the normal cost (take_contract:<slot>; on top of the one in your "
                       "Export box, which you fulfil after it), then its Export box if you choose (fulfil:<box>), "
                       "done to stop"}


@describe_for(K_DSTEP)
def describe_dstep(g, frame) -> str:
    return f"Delivery bonus: {_STEP_TEXT[frame[2]]}"
