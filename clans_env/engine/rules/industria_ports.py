"""Industria, Port bonus tiles 10-18 (player aid "Port Bonus Tiles"; rules R11.10-R11.22 of
docs/rules-index.md). ports.py calls ``applicable`` and ``resolve`` for these numbers;
the use rules (in reach, once per game per player, several in a turn) are the base game's.

- 10: while fulfilling a contract, ignore one required Processed good (used inside the Fulfil
  action, like tile 1; fulfil.py asks).
- 11: deploy an animal for free on the space of another of your animals (a second unit on a space:
  stacking.py; a deployment, so its bonuses apply, Q36).
- 12: exchange one of your factories on the map with a Field from your board, free; not a
  deployment (no bonuses, Q36).
- 13: pay £10 for 2 Technology upgrades (the unflipped ones; not for Clan MacDonald, Q39), or 4 Glory.
- 14: discard 4 Processed goods for £50.
- 15: with at least one fulfilled contract (checked when used, Q40), 3 Merchant upgrades, each hiring
  from the board or taking one back from the Market.
- 16 with the Train module: pay 1 less Processed good or 2 less Basic goods for a delivery (deliveries.py).
  17 with the Train module: take the leftmost Delivery-track marker (R13.18, Q25; trains.py).
- 16 (without the Train module): move one of your units to an adjacent space, twice (stacking.py).
- 17 (without the Train module): deploy a Cheese dairy, Bakery or Distillery paying only the land
  cost (a deployment: Neighbourhood, Farmers market and Building bonus apply).
- 18: pay £25 to fulfil an open contract without paying Goods or Meat; a free action that does not
  use the turn's Fulfil (FAQ, R11.21; Q38: not a Fulfil action for clan abilities).
"""
from __future__ import annotations

from .. import data as D
from ..actions import CHOOSE, DONE, EXPAND, FULFIL, GOOD, SPACE
from ..state import (K_BONUS_UPGRADE, K_HOOK, K_PORT_DEPLOY, K_PORT_DISCARD4, K_PORT_FIELD, K_PORT_FULFIL,
                     K_PORT_IGNORE, K_PORT_TECH)
from ..topology import bits
from ..modules import Module, register
from .common import TRAINS, place_unit, pop_open_contract, reach, replace_unit, units_of
from .common import usable_port_slot as usable_slot
from .registry import PORT_TILES
from .upgrades import merchant_upgrades
from .registry import apply_for, describe_for, legal_for
from .expand import deployed
from .fulfil import finish_fulfil
from .stacking import movable_units, stack_animal_targets, start_moves, start_stack_animal
from .train_core import STATION_AFTER_TRACK, take_track_marker

T = D.PORT_INDUSTRIA


def applicable(g, p: int, tile: int) -> bool:
    pl = g.players[p]
    if tile == 10:
        return False                                   # only inside a Fulfil (fulfil.py)
    if tile == 11:
        return any(stack_animal_targets(g, p, u) for u in D.ANIMALS)
    if tile == 12:
        return pl.units_left[D.FIELD] > 0 and any(units_of(g, p, f) for f in D.FACTORIES)
    if tile == 13:
        return True                                    # 4 Glory is always possible
    if tile == 14:
        return sum(pl.goods[i] for i in D.PROCESSED_GOODS) >= T["tile14_discard"]
    if tile == 15:
        return len(pl.done_contracts) >= T["tile15_needs_fulfilled"] and bool(merchant_upgrades(g, p))
    if tile == 16 and g.config.trains:
        return False                                   # Train half: used inside a delivery (deliveries.py)
    if tile == 17 and g.config.trains:                 # Train half: the leftmost Delivery-track marker (R13.18)
        return g.modstate[TRAINS].deliv[p] < STATION_AFTER_TRACK
    if tile == 16:
        return bool(movable_units(g, p))
    if tile == 17:
        return bool(factory_types(g, p))
    if tile == 18:
        return pl.money >= T["tile18_cost"] and bool(pl.open_contracts)
    raise AssertionError(f"Port tile {tile} is not an Industria tile")  # pragma: no cover


def resolve(g, p: int, tile: int) -> None:
    pl = g.players[p]
    if tile == 11:
        start_stack_animal(g, p)
    elif tile == 12:
        g.stack.append((K_PORT_FIELD, p))
    elif tile == 13:
        g.stack.append((K_PORT_TECH, p))
    elif tile == 14:
        g.stack.append((K_PORT_DISCARD4, p, T["tile14_discard"]))
    elif tile == 15:
        for _ in range(T["tile15_upgrades"]):
            g.stack.append((K_BONUS_UPGRADE, p, "merchant"))
    elif tile == 17 and g.config.trains:
        take_track_marker(g, p)
    elif tile == 16:
        start_moves(g, p, T["tile16_moves"])
    elif tile == 17:
        g.stack.append((K_PORT_DEPLOY, p, -1))
    elif tile == 18:
        pl.money -= T["tile18_cost"]
        g.stack.append((K_PORT_FULFIL, p))
    else:  # pragma: no cover
        raise AssertionError(f"Port tile {tile} has no effect here")


# ---- 10: ignore one Processed good while fulfilling -------------------------------------------------
def ignore_options(g, p: int, cid: int) -> list[int]:
    """GOOD(g) for each Processed good the contract needs (tile 10 can waive one)."""
    c = D.CONTRACT_BY_ID[cid]
    return [GOOD + i for i in D.PROCESSED_GOODS if c.goods[i]]


@legal_for(K_PORT_IGNORE)
def legal_port_ignore(g, frame) -> list:
    _, p, box = frame
    cid = g.players[p].open_contracts[box]
    goods = g.players[p].goods
    c = D.CONTRACT_BY_ID[cid]
    short = [i for i, need in enumerate(c.goods) if goods[i] < need]
    clan = g.clans[p]
    wild = clan.wild_processed(g, p) if clan.custom_trade else 0    # Clan Fraser's Kilts (R18.F3)
    if sum(c.goods[i] - goods[i] for i in short) > wild:   # the tile must cover a missing one
        return [GOOD + i for i in short]
    return ignore_options(g, p, cid) + [DONE]


@apply_for(K_PORT_IGNORE)
def apply_port_ignore(g, frame, action: int) -> None:
    _, p, box = frame
    g.stack.pop()
    if action == DONE:
        finish_fulfil(g, p, box, -1)
        return
    slot = usable_slot(g, p, 10)
    if slot >= 0:
        g.players[p].ports_used |= 1 << slot
    else:                                              # the clan's own tile 10 (MacLeod's Shipyard)
        g.clans[p].use_fulfil_tile(g, p, 10)
    finish_fulfil(g, p, box, action - GOOD)


@describe_for(K_PORT_IGNORE)
def describe_port_ignore(g, frame) -> str:
    return "Port tile 10: ignore one required Processed good of this contract (good:<good>), or done to pay it"


# ---- 12: a factory on the map becomes a Field ----------------------------------------------------
@legal_for(K_PORT_FIELD)
def legal_port_field(g, frame) -> list:
    p = frame[1]
    if g.players[p].units_left[D.FIELD] <= 0:
        return []
    mask = 0
    for f in D.FACTORIES:
        mask |= units_of(g, p, f)
    return [SPACE + s for s in bits(mask)]


@apply_for(K_PORT_FIELD)
def apply_port_field(g, frame, action: int) -> None:
    p = frame[1]
    g.stack.pop()
    replace_unit(g, p, action - SPACE, D.FIELD)


@describe_for(K_PORT_FIELD)
def describe_port_field(g, frame) -> str:
    return "Port tile 12: choose one of your Cheese dairies, Bakeries or Distilleries to exchange for a Field (space:<space>)"


# ---- 13: two Technology upgrades for £10, or 4 Glory ------------------------------------------------
@legal_for(K_PORT_TECH)
def legal_port_tech(g, frame) -> list:
    p = frame[1]
    pl = g.players[p]
    out = [CHOOSE + 1]
    if pl.money >= T["tile13_cost"] and g.clans[p].can_upgrade_technology(g, p) and not all(pl.tech):
        out.append(CHOOSE + 0)
    return out


@apply_for(K_PORT_TECH)
def apply_port_tech(g, frame, action: int) -> None:
    p = frame[1]
    g.stack.pop()
    pl = g.players[p]
    if action == CHOOSE + 0:
        pl.money -= T["tile13_cost"]
        pl.tech = [True, True]
    else:
        pl.glory += T["tile13_glory"]


@describe_for(K_PORT_TECH)
def describe_port_tech(g, frame) -> str:
    return (f"Port tile 13: choose:0 = pay £{T['tile13_cost']} for your Technology upgrades, choose:1 = gain "
            f"{T['tile13_glory']} Glory")


# ---- 14: discard 4 Processed goods for £50 ------------------------------------------------------
@legal_for(K_PORT_DISCARD4)
def legal_port_discard4(g, frame) -> list:
    pl = g.players[frame[1]]
    return [GOOD + i for i in D.PROCESSED_GOODS if pl.goods[i]]


@apply_for(K_PORT_DISCARD4)
def apply_port_discard4(g, frame, action: int) -> None:
    _, p, left = frame
    g.stack.pop()
    pl = g.players[p]
    pl.goods[action - GOOD] -= 1
    if left > 1:
        g.stack.append((K_PORT_DISCARD4, p, left - 1))
    else:
        pl.money += T["tile14_money"]


@describe_for(K_PORT_DISCARD4)
def describe_port_discard4(g, frame) -> str:
    return f"Port tile 14: discard a Processed good ({frame[2]} still to discard, then £{T['tile14_money']})"


# ---- 17: deploy a factory paying only the land cost ------------------------------------------------
def factory_targets(g, p: int, unit: int) -> int:
    """Where p may deploy ``unit`` with tile 17: Expand targets whose land cost p can pay."""
    if g.players[p].units_left[unit] <= 0:
        return 0
    budget = g.players[p].money
    topo = g.topo
    mask = reach(g, p) & ~g.occupied & topo.unit_mask[unit] & topo.affordable(budget)
    clan = g.clans[p]
    if clan.restricts_targets:
        mask &= clan.target_mask(g, p, unit)
    return mask


def factory_types(g, p: int) -> list[int]:
    return [f for f in D.FACTORIES if factory_targets(g, p, f)]


@legal_for(K_PORT_DEPLOY)
def legal_port_deploy(g, frame) -> list:
    _, p, unit = frame
    if unit < 0:
        return [EXPAND + f for f in factory_types(g, p)]
    return [SPACE + s for s in bits(factory_targets(g, p, unit))]


@apply_for(K_PORT_DEPLOY)
def apply_port_deploy(g, frame, action: int) -> None:
    _, p, unit = frame
    g.stack.pop()
    if unit < 0:
        g.stack.append((K_PORT_DEPLOY, p, action - EXPAND))
        return
    s = action - SPACE
    g.players[p].money -= g.topo.cost[s]
    place_unit(g, p, unit, s)
    deployed(g, p, unit, s)


@describe_for(K_PORT_DEPLOY)
def describe_port_deploy(g, frame) -> str:
    if frame[2] < 0:
        return "Port tile 17: choose a Cheese dairy, Bakery or Distillery to deploy paying only the land cost"
    return f"Port tile 17: choose the space for your {D.UNITS[frame[2]]} (land cost only)"


# ---- 18: pay £25, fulfil without Goods ---------------------------------------------------------
@legal_for(K_PORT_FULFIL)
def legal_port_fulfil(g, frame) -> list:
    return [FULFIL + box for box in range(len(g.players[frame[1]].open_contracts))]


@apply_for(K_PORT_FULFIL)
def apply_port_fulfil(g, frame, action: int) -> None:
    p = frame[1]
    g.stack.pop()
    cid = pop_open_contract(g, p, action - FULFIL)
    g.stack.append((K_HOOK, p, "fulfil_rewards", cid, False))


@describe_for(K_PORT_FULFIL)
def describe_port_fulfil(g, frame) -> str:
    return f"Port tile 18 (paid £{T['tile18_cost']}): choose the contract to fulfil without Goods or Meat (fulfil:<box>)"


for _tile in D.PORT_TILES_INDUSTRIA:
    PORT_TILES[_tile] = (applicable, resolve)


@register
class IndustriaTiles(Module):
    """Port tiles 10-18 and Scoring tiles 10-18 in the random pools (R1.2, R11, R12); their rules
    register in ``registry.PORT_TILES`` (here) and ``registry.SCORING_TILES`` (industria_scoring.py)."""
    name = "industria_tiles"

    def port_tile_pool(self, g) -> tuple:
        return tuple(D.PORT_TILES_INDUSTRIA)

    def scoring_tile_pool(self, g) -> tuple:
        return tuple(D.SCORING_TILES_INDUSTRIA)
