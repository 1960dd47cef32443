"""Shared mechanics: prices, placing and removing units, reach. No decisions here."""
from __future__ import annotations

from .. import data as D
from ..modules import RECORDS, Record, field
from ..topology import bits


def price(g, good: int) -> int:
    """Current Market price of ``good`` (rulebook, 1. Trade)."""
    return D.PRICES[good][g.prices[good]]


def move_price(g, good: int, steps: int) -> None:
    """Move a Price marker; it stops at the ends of the track."""
    s = g.prices[good] + steps
    g.prices[good] = 0 if s < 0 else (D.MAX_STEP if s > D.MAX_STEP else s)


def reach(g, p: int) -> int:
    """Spaces p may expand to, ignoring occupancy: neighbouring or within Shipping reach of any of p's
    units, and the clan's own reach for expanding (MacFarlane's canals). Also the Port reach: a clan's
    extra reach holds only land spaces, never a port (bit set, cached)."""
    pl = g.players[p]
    r = pl.reach
    if r == -1:
        r = shipping_reach(g, p) | g.clans[p].extra_reach(g, p)
        pl.reach = r
    return r


#: the name of Industria's second units in ``g.modstate`` (R4; rules/stacking.py has the decisions that stack
#: and move units, Clan MacPherson and Delivery bonuses stack too): a ``SecondUnits``, made by the first one
STACKED = "second_units"


class SecondUnits(Record):
    """The second units on spaces: ``units``, a flat list ``space, unit, owner`` per space (the first unit
    stays in ``g.unit_at``). This file owns it (``stacked_unit``, ``place_second``, ``remove_second``,
    ``second_units``)."""
    __slots__ = ("units",)
    units: list
    MISC = {"units": ("stacked", [])}


RECORDS[STACKED] = SecondUnits


def second_units(g) -> list | tuple:
    """The flat ``space, unit, owner`` list of second units (empty when there is none)."""
    return field(g, STACKED, "units")
#: the Train module's name: its record (``g.modstate[TRAINS]``, rules/train_core.TrainState) holds what this
#: file reads of it: each seat's Train station (``station``: its space, -1 on the track, -2 discarded; the
#: station counts as its owner's unit for reach and Settlements, and keeps its space when a unit leaves,
#: R13.15-R13.16), Delivery bonus 19's reservations (``reserved``) and 16's Export stacks (``below``)
TRAINS = "trains"


def stations(g) -> list | None:
    """Each seat's Train station (its space, -1 on the track, -2 discarded), or None without trains."""
    return field(g, TRAINS, "station", None)


def shipping_reach(g, p: int) -> int:
    """Spaces neighbouring or within Shipping reach of any of p's units, without a clan's reach for
    expanding: "within your reach" for what is no Expand (Industria: the Train station, R13.15, and
    Delivery bonus 3's city tile), since MacFarlane's canals count only "for expanding and connecting
    Settlements" (R18.MF2). Not cached: those are rare."""
    pl = g.players[p]
    table = g.topo.reach[pl.shipping]
    r = 0
    for s in bits(pl.spaces):
        r |= table[s]
    st = stations(g)
    if st and st[p] >= 0:                # Industria R13.16: the Train station counts as p's unit there
        r |= table[st[p]]
    return r


def unit_cost(g, p: int, unit: int) -> int:
    return g.clans[p].unit_cost(g, p, unit)


def placement_cost(g, p: int, unit: int, space: int, free_land: bool) -> int:
    """Unit cost plus land cost (rulebook, 3. Expand), less clan discounts, never below 0."""
    if g.occupant[space] == -2:          # a space p reserved (Delivery bonus 19): no land cost
        free_land = True
    clan = g.clans[p]
    if clan.plain_costs:
        return clan.unit_costs[unit] + (0 if free_land else g.topo.cost[space])
    cost = clan.unit_cost(g, p, unit) + (0 if free_land else g.topo.cost[space])
    cost -= clan.placement_discount(g, p, space)
    return cost if cost > 0 else 0


def affordable_spaces(g, p: int, unit: int, free_land: bool) -> int:
    """Bit set of spaces where p can pay for placing ``unit`` (ignores reach and occupancy)."""
    topo = g.topo
    budget = g.players[p].money - unit_cost(g, p, unit)
    dmask, disc = g.clans[p].discount_spaces(g, p)
    if free_land:
        allowed = -1 if budget >= 0 else 0
        if dmask and budget + disc >= 0:
            allowed |= dmask
        return allowed
    allowed = topo.affordable(budget)
    if dmask:
        allowed |= topo.affordable(budget + disc) & dmask
    if unit == D.FISHERMAN:
        # lochs and ports have no land cost (Clan MacDonald)
        if budget >= 0:
            allowed |= topo.loch_mask | topo.port_mask
    return allowed


def expand_targets(g, p: int, unit: int, free_land: bool = False) -> int:
    """Spaces where p may Expand with ``unit`` now: in reach, empty, matching land, affordable."""
    pl = g.players[p]
    if pl.units_left[unit] <= 0:
        return 0
    clan = g.clans[p]
    if clan.plain_costs:        # affordable_spaces without a discount (a Fisherman pays no land cost)
        budget = pl.money - clan.unit_costs[unit]
        if budget < 0:
            allowed = 0
        elif free_land or unit == D.FISHERMAN:
            allowed = -1
        else:
            cost_le = g.topo.cost_le
            allowed = cost_le[budget] if budget < len(cost_le) else cost_le[-1]
    else:
        allowed = affordable_spaces(g, p, unit, free_land)
    mask = reach(g, p) & ~g.occupied & g.topo.unit_mask[unit] & allowed
    if reservations(g):                 # Industria Delivery bonus 19: p's reserved spaces, land cost free
        if g.players[p].money >= unit_cost(g, p, unit):
            mask |= reserved_by(g, p) & reach(g, p) & g.topo.unit_mask[unit]
    if clan.restricts_targets:
        mask &= clan.target_mask(g, p, unit)
    return mask


def reservations(g) -> list | None:
    """Delivery bonus 19's reservations, [space, owner] pairs (the Merchant is the owner's); empty (or None)
    without the Train module."""
    return field(g, TRAINS, "reserved", None)


def reserved_by(g, p: int) -> int:
    """Spaces p reserved with Delivery bonus 19 (blocked to everyone else; free land for p)."""
    res = reservations(g)
    out = 0
    if res:
        for i in range(0, len(res), 2):
            if res[i + 1] == p:
                out |= 1 << res[i]
    return out


def place_unit(g, p: int, unit: int, space: int) -> None:
    pl = g.players[p]
    res = reservations(g) if g.occupant[space] == -2 else None
    if res:                             # Delivery bonus 19: the Merchant goes home
        for i in range(0, len(res), 2):
            if res[i] == space:
                del res[i:i + 2]
                pl.merchants_stock += 1
                break
    bit = 1 << space
    g.occupant[space] = p
    g.unit_at[space] = unit
    g.occupied |= bit
    pl.spaces |= bit
    pl.units_left[unit] -= 1
    if pl.reach != -1:
        if g.clans[p].extra_reach_grows:      # the clan's own reach widens with units (MacFarlane): recompute
            pl.reach = -1
        else:
            pl.reach |= g.topo.reach[pl.shipping][space]


def notify_deploy(g, p: int, unit: int, space: int, mode: int) -> None:
    """After p deployed ``unit`` on ``space`` (paid for): p's clan's ``on_deploy``, then every clan
    watching all players' deployments (Clan Mackintosh, R18.MI1) in seat order."""
    own = g.clans[p]
    if own.acts_on_deploy:
        own.on_deploy(g, p, unit, space, mode)
    for q, clan in enumerate(g.clans):
        if clan.watches_deploys:
            clan.on_any_deploy(g, q, p, unit, space, mode)


def remove_unit(g, p: int, space: int, unit: int | None = None) -> int:
    """Take p's unit on ``space`` (of type ``unit`` when the space holds two, Industria R4.6) back to
    the Player board; returns its type. The other unit of a stacked space stays on it."""
    if second_units(g):
        second = stacked_unit(g, space)
        if second >= 0:
            if unit == second:
                return remove_second(g, p, space)
            first = g.unit_at[space]
            remove_second(g, p, space)
            g.unit_at[space] = second
            g.players[p].units_left[second] -= 1
            g.players[p].units_left[first] += 1
            g.players[p].reach = -1
            return first
    pl = g.players[p]
    unit = g.unit_at[space]
    bit = 1 << space
    g.occupant[space] = -1
    g.unit_at[space] = -1
    g.occupied &= ~bit
    pl.spaces &= ~bit
    pl.units_left[unit] += 1
    pl.reach = -1
    st = stations(g)
    if st and space in st:               # Industria R13.16: the station stays; the space is its owner's only
        g.occupant[space] = -2
        g.occupied |= bit
    return unit


def replace_unit(g, p: int, space: int, new: int) -> int:
    """Exchange p's (first) unit on ``space`` for ``new`` from the Player board, in place: a second unit
    on the space (Industria) stays. Returns the old type."""
    pl = g.players[p]
    old = g.unit_at[space]
    pl.units_left[old] += 1
    pl.units_left[new] -= 1
    g.unit_at[space] = new
    return old


def units_of(g, p: int, unit: int) -> int:
    """Bit set of spaces holding p's units of type ``unit`` (a second unit on a space too)."""
    out = 0
    ua = g.unit_at
    for s in bits(g.players[p].spaces):
        if ua[s] == unit:
            out |= 1 << s
    rec = g.modstate.get(STACKED)
    if rec is not None:
        stacked = rec.units
        for i in range(0, len(stacked), 3):
            if stacked[i + 1] == unit and stacked[i + 2] == p:
                out |= 1 << stacked[i]
    return out


def station_space(g, p: int) -> int:
    """p's Train station's space, or -1 (none in play: no Train module, still on the Delivery track, or
    discarded)."""
    st = stations(g)
    return st[p] if st and st[p] >= 0 else -1


def unit_spaces(g, p: int) -> list[int]:
    """The space of each of p's units on the map, one entry per unit: a second unit on a space (Industria
    R4.5 "each unit counts individually") and p's Train station (R13.16 "counts as one of your units on
    that space") included. For the conditions that count p's units on spaces (Awards 1, 8, 9; Scoring
    tiles 5, 14, 15; Milestone 12; readings T7, I15); not for those about deployed units or unit types,
    which the station is not (R13.16, Q16)."""
    out = list(bits(g.players[p].spaces))
    stacked = second_units(g)
    if stacked:
        out += [stacked[i] for i in range(0, len(stacked), 3) if stacked[i + 2] == p]
    st = station_space(g, p)
    if st >= 0:
        out.append(st)
    return out


def gain_money(g, p: int, amount: int) -> None:
    g.players[p].money += amount


def pay(g, p: int, amount: int) -> None:
    pl = g.players[p]
    if amount > pl.money:  # pragma: no cover - legality checks make this unreachable
        raise AssertionError(f"player {p} cannot pay {amount} with {pl.money}")
    pl.money -= amount


def contract_capacity_left(g, p: int) -> int:
    """Empty Export boxes of p (Clan Buchanan has two boxes)."""
    return g.clans[p].export_boxes - len(g.players[p].open_contracts)


def export_stacks(g) -> list | None:
    """Industria Delivery bonus 16 (rules/deliveries.py): contracts under the top one of an Export box, as
    flat pairs [top, the contract under it, ...] (``open_contracts`` holds only the top of each box); None
    without the Train module."""
    return field(g, TRAINS, "below", None)


def contracts_under(g, cid: int) -> list[int]:
    """The contracts stacked under Export box contract ``cid`` (Delivery bonus 16), the next to surface
    first (they are face up in the Export box: public)."""
    below = export_stacks(g)
    out: list[int] = []
    while below:
        for i in range(0, len(below), 2):
            if below[i] == cid:
                cid = below[i + 1]
                out.append(cid)
                break
        else:
            break
    return out


def pop_open_contract(g, p: int, box: int) -> int:
    """Take the top contract of p's Export box ``box`` off (fulfilled or discarded); the contract under
    it, if any (a Delivery bonus 16 stack), becomes that box's open contract."""
    open_ = g.players[p].open_contracts
    cid = open_.pop(box)
    below = export_stacks(g)
    if below:
        for i in range(0, len(below), 2):
            if below[i] == cid:
                open_.insert(box, below[i + 1])
                del below[i:i + 2]
                break
    return cid


def usable_port_slot(g, p: int, tile: int) -> int:
    """Slot of Port ``tile`` if p may use it now (in play, unused, in reach), else -1."""
    tiles = g.port_tiles
    if tile not in tiles:
        return -1
    slot = tiles.index(tile)
    if g.players[p].ports_used >> slot & 1 or not reach(g, p) >> g.topo.port_space[slot] & 1:
        return -1
    return slot


def stacked_unit(g, space: int) -> int:
    """The second unit on ``space``, or -1."""
    rec = g.modstate.get(STACKED)
    if rec is not None:
        st = rec.units
        for i in range(0, len(st), 3):
            if st[i] == space:
                return st[i + 1]
    return -1


def place_second(g, p: int, unit: int, space: int) -> None:
    """Deploy p's ``unit`` onto ``space`` beside p's unit there (R4.1-R4.3): never a third."""
    if g.occupant[space] != p or stacked_unit(g, space) >= 0:
        raise AssertionError(f"space {space} cannot take a second unit of player {p}")
    rec = g.modstate.get(STACKED)
    if rec is None:         # the first second unit of the game (a clone may share a read-only empty mapping)
        g.modstate = {**g.modstate, STACKED: SecondUnits([space, unit, p])}
    else:
        rec.units = rec.units + [space, unit, p]
    g.players[p].units_left[unit] -= 1


def remove_second(g, p: int, space: int) -> int:
    rec = g.modstate[STACKED]
    st = list(rec.units)
    for i in range(0, len(st), 3):
        if st[i] == space:
            unit = st[i + 1]
            del st[i:i + 3]
            rec.units = st
            g.players[p].units_left[unit] += 1
            return unit
    raise AssertionError(f"no second unit on space {space}")
