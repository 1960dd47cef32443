"""Clan Sinclair (Industria; player aid "Clans", rules R18.S1-R18.S12 of docs/rules-index.md;
readings Q56, Q57 and docs/rules-interpretations.md "Sinclair").

Only with ``GameConfig(industria_clans=True)`` (or ``industria=True``).

- R18.S1: river-crossing Shipping from the start and never a Shipping change after
  (``can_change_shipping`` is False: no Upgrade Shipping action, no Shipping Bonus upgrade).
- R18.S2-R18.S6 Railroad Reach, skipping a land space (``choose:0``): Expand onto an empty land space
  two steps away: the skipped space is an active land space adjacent to one of Sinclair's units (a
  river between them does not matter, R18.S4) that is empty or holds another player's unit (R18.S2:
  not a Farmers market, a covered or reserved space, nor Sinclair's own: ``skippable``), and the
  target is adjacent to it and not already in Sinclair's normal reach (R18.S6). Cost: £2 plus the unit
  and land cost. Then the Bonus upgrade (never Shipping), taken or forfeited (done) before the
  Neighbourhood, Farmers market and Building bonuses (R18.S5, R18.S12, R3.2, Q57).
- R18.S7-R18.S8 Railroad Reach, skipping lochs (``choose:1``): Expand onto an empty land space
  beyond a chain of k >= 1 loch spaces that starts next to one of Sinclair's units, paying £2 per loch
  skipped (the shortest chain; Q56) plus the unit and land cost; then the usual bonuses. Targets
  already in normal reach are not offered (a skip there would only cost money).
- R18.S9: claiming a Port across lochs (``choose:2+slot``, a free action before the main action like a
  normal Port use): a Port tile in play, unused by Sinclair, not in normal reach, whose port lies next
  to such a loch chain; pay £2 per loch, then the tile as normal.
- R18.S10: the two kinds are separate choices; one expansion never mixes them.
- R18.S11: at Final Scoring two Settlements count as connected when any of their units are within 2
  spaces of each other (any path of two steps over land or loch spaces: ``settlement_link_mask``),
  besides the Shipping reach that connects any player's Settlements.

Railroad Reach is offered wherever Sinclair expands: the Expand main action (``choose:0``/``choose:1``
in the main decision) and a Free space, which is an Expand action without the land cost (the same
choices in the Free space decision; the skip money is still paid): docs/rules-interpretations.md C-S5.

Decisions (``K_CLAN`` frames): ``rail`` (kind[, free]): which unit (expand:<unit>); ``rail_space`` (kind,
unit[, free]): where (space:<space>); ``free`` is 1 for a Free space (no land cost).
"""
from __future__ import annotations

from functools import lru_cache

from .. import data as D
from ..actions import CHOOSE, EXPAND, SPACE
from ..board import KIND_PORT
from ..state import K_BONUS_UPGRADE, K_CLAN, K_HOOK, K_MAIN, PLACE_EXPAND, PLACE_FREE
from ..rules.common import notify_deploy, place_unit, placement_cost, reach, stations
from ..topology import bits
from .base import Clan, register
from ..rules.expand import expansion_bonuses
from ..rules.ports import tile_applicable, use_port
from ..rules.registry import HOOKS

RAIL = "rail"
RAIL_SPACE = "rail_space"
LAND, LOCHS = 0, 1
KIND_NAMES = ("skip one land space", "skip lochs")
PORT_CLAIM = 2          # choose:2+slot


@lru_cache(maxsize=64)
def _adjacent(topo) -> tuple[int, ...]:
    """Per space, the active spaces adjacent to it (rivers do not matter)."""
    active = topo.active
    return tuple(a & active for a in topo.adjacent)


@lru_cache(maxsize=64)
def within_two(topo) -> tuple[int, ...]:
    """Per space, the spaces at most 2 steps away over map spaces (land or loch, never a port node:
    ports are not spaces of the hex grid), R18.S11."""
    b = topo.board
    ports = sum(1 << s for s in range(b.num_spaces) if b.kind[s] == KIND_PORT)
    adj = tuple(sum(1 << t for t in b.adjacent[s]) & ~ports for s in range(b.num_spaces))
    out = []
    for s in range(b.num_spaces):
        m = adj[s]
        for t in bits(adj[s]):
            m |= adj[t]
        out.append(m & ~(1 << s))
    return tuple(out)


def normal_reach(game, p: int) -> int:
    return reach(game, p)


def skippable(game, p: int) -> int:
    """Land spaces Railroad Reach may skip over: "spaces that are empty or occupied by other players'
    units" (R18.S2). A Farmers market, a covered space (Tighter Game Map) or a Delivery bonus 19
    reservation (a Merchant, "not a unit") is neither; another player's lone Train station is one of
    their units (R13.16)."""
    others = 0
    for q, pl in enumerate(game.players):
        if q != p:
            others |= pl.spaces
    st = stations(game)
    if st:
        for q, s in enumerate(st):
            if q != p and s >= 0:
                others |= 1 << s
    return game.topo.land_mask & (~game.occupied | others) & ~game.players[p].spaces


@lru_cache(maxsize=4096)
def _adjacent_to(topo, spaces: int) -> int:
    """Active spaces adjacent to any of ``spaces`` (rivers do not matter). Cached per (map, set): Sinclair's
    own spaces change only when Sinclair deploys, the skipped ones rarely."""
    adj = _adjacent(topo)
    out = 0
    for s in bits(spaces):
        out |= adj[s]
    return out


def _two_steps_over_land(topo, own: int, skip: int) -> int:
    """Spaces adjacent to a space of ``skip`` that is adjacent to one of ``own``."""
    return _adjacent_to(topo, _adjacent_to(topo, own) & skip) & topo.land_mask


def land_skip_targets(game, p: int, free: int = -1) -> int:
    """Empty land spaces two steps away over one skipped land space (R18.S2, R18.S4, R18.S6); ``free``:
    ``_outside_reach`` if known."""
    if free == -1:
        free = _outside_reach(game, p)
    return _two_steps_over_land(game.topo, game.players[p].spaces, skippable(game, p)) & free


def _outside_reach(game, p: int) -> int:
    """Empty land spaces outside normal reach: where either Railroad Reach may go (R18.S6, R18.S8)."""
    return game.topo.land_mask & ~game.occupied & ~normal_reach(game, p)


@lru_cache(maxsize=4096)
def _loch_layers(topo, own: int) -> tuple[int, ...]:
    adj = _adjacent(topo)
    start = 0
    for s in bits(own):
        start |= adj[s]
    frontier = start & topo.loch_mask
    seen_lochs = frontier
    seen = 0
    layers = []
    while frontier:
        beyond = 0
        for loch in bits(frontier):
            beyond |= adj[loch]
        land = beyond & ~topo.loch_mask & ~seen & ~own
        layers.append(land)
        seen |= land
        frontier = beyond & topo.loch_mask & ~seen_lochs
        seen_lochs |= frontier
    return tuple(layers)


def loch_layers(game, p: int) -> tuple[int, ...]:
    """Spaces (land and port nodes) just beyond k skipped lochs, for k = 1, 2, ... (each space in
    its shortest layer), R18.S8; cached per (map, Sinclair's spaces)."""
    return _loch_layers(game.topo, game.players[p].spaces)


def skip_groups(game, p: int, kind: int, free: int = -1) -> list[tuple[int, int]]:
    """(Railroad Reach money on top of the unit and land cost, bit set of empty target spaces) for a
    land skip (R18.S4, R18.S6: £2) or the loch skips (R18.S8: £2 per loch of the shortest chain), outside
    normal reach; the sets are disjoint. ``free``: ``_outside_reach`` if known."""
    if free == -1:
        free = _outside_reach(game, p)
    if kind == LAND:
        mask = land_skip_targets(game, p, free)
        return [(D.SINCLAIR_LAND_SKIP_COST, mask)] if mask else []
    return [(D.SINCLAIR_LOCH_SKIP_COST * k, layer & free)
            for k, layer in enumerate(loch_layers(game, p), start=1) if layer & free]


def loch_skip_targets(game, p: int) -> dict:
    """Empty land space -> money for the lochs skipped (R18.S8), outside normal reach."""
    return {s: extra for extra, mask in skip_groups(game, p, LOCHS) for s in bits(mask)}


def skip_money(game, p: int, kind: int, space: int) -> int:
    for extra, mask in skip_groups(game, p, kind):
        if mask >> space & 1:
            return extra
    raise AssertionError(f"space {space} is no Railroad Reach target")  # pragma: no cover


def _affordable(topo, budget: int, free_land: bool) -> int:
    """Spaces whose land cost ``budget`` covers (a Free space pays none)."""
    if free_land:
        return -1 if budget >= 0 else 0
    return topo.affordable(budget)


def unit_targets(game, p: int, kind: int, unit: int, groups=None, free_land: bool = False) -> int:
    """Bit set of spaces where p may Railroad-Reach ``unit`` now (land type, affordable with the skip
    money; Sinclair has no placement discounts)."""
    pl = game.players[p]
    if pl.units_left[unit] <= 0:
        return 0
    if groups is None:
        groups = skip_groups(game, p, kind)
    topo = game.topo
    budget = pl.money - game.clans[p].unit_cost(game, p, unit)
    out = 0
    for extra, mask in groups:
        m = mask & topo.unit_mask[unit]
        if m:
            out |= m & _affordable(topo, budget - extra, free_land)
    return out


def rail_kinds(game, p: int, free_land: bool = False) -> list[int]:
    """The Railroad Reach kinds (LAND, LOCHS) with a unit to expand now: the main decision's and a Free
    space's choices (the spaces outside normal reach looked up once for both)."""
    free = _outside_reach(game, p)
    if not free:
        return []
    cheapest_unit = _cheapest_units(game.topo, game.clans[p].costs_now(game, p), tuple(game.players[p].units_left))
    if not cheapest_unit:
        return []
    return [kind for kind in (LAND, LOCHS)
            if _any_rail_target(game, p, skip_groups(game, p, kind, free), cheapest_unit, free_land)]


@lru_cache(maxsize=4096)
def _cheapest_units(topo, costs: tuple, left: tuple) -> tuple[tuple[int, int], ...]:
    """Per land type with a unit in stock (Fishermen aside): (its spaces, its cheapest such unit's cost).
    Asked at every main decision, so (as ``expand.expand_options``) each land type is tried once, with the
    unit that leaves the most money for the land; cached per stock, which changes only at deployments."""
    out = []
    for land, units in topo.unit_groups:
        in_stock = [costs[u] for u in units if left[u] > 0 and u != D.FISHERMAN]
        if in_stock:
            out.append((land, min(in_stock)))
    return tuple(out)


def _any_rail_target(game, p: int, groups: list, cheapest_unit: tuple, free_land: bool) -> bool:
    """Whether a unit in stock has an affordable target in ``skip_groups``: the cheapest unit of each land
    type (``_cheapest_units``) is the one to ask, with what its cost leaves."""
    money = game.players[p].money
    cost_le = game.topo.cost_le
    top = len(cost_le) - 1
    for extra, mask in groups:
        budget = money - extra
        for land, cost in cheapest_unit:
            left_over = budget - cost
            if left_over >= 0 and mask & land and (free_land or mask & land & cost_le[min(left_over, top)]):
                return True
    return False


def rail_units(game, p: int, kind: int, free_land: bool = False, free: int = -1) -> list[int]:
    """Units with at least one Railroad Reach target now (``unit_targets`` unrolled; ``free``: as
    ``skip_groups``)."""
    groups = skip_groups(game, p, kind, free)
    if not groups:
        return []
    pl = game.players[p]
    left = pl.units_left
    topo = game.topo
    unit_mask = topo.unit_mask
    clan = game.clans[p]
    anywhere = 0
    for _, mask in groups:
        anywhere |= mask
    out = []
    for u in range(D.NUM_UNITS):
        if left[u] <= 0 or u == D.FISHERMAN or not anywhere & unit_mask[u]:
            continue
        budget = pl.money - clan.unit_cost(game, p, u)
        for extra, mask in groups:
            if mask & unit_mask[u] & _affordable(topo, budget - extra, free_land):
                out.append(u)
                break
    return out


def port_claims(game, p: int) -> dict:
    """Port slot -> money for claiming it across lochs (R18.S9)."""
    tiles = game.port_tiles
    if not tiles:
        return {}
    pl = game.players[p]
    layers = loch_layers(game, p)
    beyond = 0
    for layer in layers:
        beyond |= layer
    if not beyond & game.topo.port_mask:
        return {}
    r = normal_reach(game, p)
    out = {}
    for slot, tile in enumerate(tiles):
        ps = game.topo.port_space[slot]
        if pl.ports_used >> slot & 1 or r >> ps & 1 or not beyond >> ps & 1:
            continue
        for k, layer in enumerate(layers, start=1):
            if layer >> ps & 1:
                cost = D.SINCLAIR_LOCH_SKIP_COST * k
                if pl.money >= cost:
                    pl.money -= cost                # is the tile still worth using after paying?
                    ok = tile_applicable(game, p, tile)
                    pl.money += cost
                    if ok:
                        out[slot] = cost
                break
    return out


@register
class Sinclair(Clan):
    name = "sinclair"
    expansion = "industria"

    def on_setup(self, game, p: int) -> None:
        pl = game.players[p]
        pl.shipping = D.SINCLAIR_SHIPPING
        pl.reach = -1

    def can_change_shipping(self, game, p: int) -> bool:
        return False

    # ---- Railroad Reach in the main decision ----------------------------------------------------
    def main_actions(self, game, p: int) -> list[int]:
        out = [CHOOSE + kind for kind in rail_kinds(game, p)]
        out += [CHOOSE + PORT_CLAIM + slot for slot in port_claims(game, p)]
        return out

    def apply_main(self, game, p: int, action: int) -> bool:
        if not CHOOSE <= action < CHOOSE + PORT_CLAIM + 4:
            return False
        k = action - CHOOSE
        if k >= PORT_CLAIM:                      # a free action: the main decision stays
            slot = k - PORT_CLAIM
            game.players[p].money -= port_claims(game, p)[slot]
            use_port(game, p, slot)
            return True
        assert game.stack[-1][0] == K_MAIN
        game.stack.pop()                         # Railroad Reach is the turn's Expand action
        game.stack.append((K_CLAN, p, RAIL, k))
        return True

    # ---- Railroad Reach in a Free space (an Expand action without the land cost) ------------------
    def free_space_actions(self, game, p: int) -> list[int]:
        return [CHOOSE + kind for kind in rail_kinds(game, p, free_land=True)]

    def apply_free_space(self, game, p: int, action: int) -> bool:
        if action not in (CHOOSE + LAND, CHOOSE + LOCHS):
            return False
        game.stack.append((K_CLAN, p, RAIL, action - CHOOSE, 1))
        return True

    def legal(self, game, frame) -> list[int]:
        p = frame[1]
        if frame[2] == RAIL:
            return [EXPAND + u for u in rail_units(game, p, frame[3], free_land=_free(frame, 4))]
        if frame[2] == RAIL_SPACE:
            return [SPACE + s for s in bits(unit_targets(game, p, frame[3], frame[4], free_land=_free(frame, 5)))]
        return super().legal(game, frame)

    def apply(self, game, frame, action: int) -> None:
        p = frame[1]
        game.stack.pop()
        if frame[2] == RAIL:
            game.stack.append((K_CLAN, p, RAIL_SPACE, frame[3], action - EXPAND) + frame[4:])
            return
        if frame[2] != RAIL_SPACE:
            return super().apply(game, frame, action)
        kind, unit, free = frame[3], frame[4], _free(frame, 5)
        space = action - SPACE
        pl = game.players[p]
        pl.money -= skip_money(game, p, kind, space) + placement_cost(game, p, unit, space, free)
        place_unit(game, p, unit, space)
        # a deployment (Mackintosh watches them too)
        notify_deploy(game, p, unit, space, PLACE_FREE if free else PLACE_EXPAND)
        if kind == LAND:
            # R18.S5, R18.S12: the Bonus upgrade first (take or forfeit), then the deployment bonuses
            game.stack.append((K_HOOK, p, "sinclair_bonuses", unit, space))
            game.stack.append((K_BONUS_UPGRADE, p))
        else:
            expansion_bonuses(game, p, unit, space)

    def describe(self, game, frame) -> str:
        if frame[2] == RAIL:
            where = ", Free space" if _free(frame, 4) else ""
            return f"Clan Sinclair, Railroad Reach ({KIND_NAMES[frame[3]]}{where}): choose the unit (expand:<unit>)"
        if frame[2] == RAIL_SPACE:
            extra = "£2 more" if frame[3] == LAND else "£2 per loch skipped more"
            costs = "Free space: unit cost" if _free(frame, 5) else "unit and land cost"
            return (f"Clan Sinclair, Railroad Reach ({KIND_NAMES[frame[3]]}): choose the space for your "
                    f"{D.UNITS[frame[4]]} ({costs}, {extra})")
        return super().describe(game, frame)

    def describe_choice(self, game, frame, k: int) -> dict | None:
        if frame[0] == K_CLAN:
            return None
        if k in (LAND, LOCHS):
            return {"option": "Railroad Reach over one land space" if k == LAND else "Railroad Reach across lochs"}
        slot = k - PORT_CLAIM
        claims = port_claims(game, frame[1])
        if slot not in claims:
            return None
        return {"option": f"claim Port slot {slot} across lochs", "cost": claims[slot],
                "port_tile": game.port_tiles[slot] if slot < len(game.port_tiles) else None}

    # ---- Final Scoring ------------------------------------------------------------------------
    def settlement_link_mask(self, game, p: int, settlement: int) -> int:
        near = within_two(game.topo)
        out = 0
        for s in bits(settlement):
            out |= near[s]
        return out

    def state_features(self, game, p: int) -> tuple:
        land = land_skip_targets(game, p).bit_count()
        lochs = len(loch_skip_targets(game, p))
        return (min(land, 16) / 16, min(lochs, 16) / 16)

    def state_text(self, game, p: int) -> str:
        claims = ", ".join(f"choose:{PORT_CLAIM + slot} = Port slot {slot} (£{cost})"
                           for slot, cost in sorted(port_claims(game, p).items()))
        return (f"Railroad Reach: choose:0 = over one land space ({land_skip_targets(game, p).bit_count()} "
                f"spaces), choose:1 = across lochs ({len(loch_skip_targets(game, p))} spaces)"
                + (f"; Port claims across lochs: {claims}" if claims else ""))


def _free(frame, i: int) -> bool:
    """Whether a ``rail``/``rail_space`` frame is a Free space's (its optional last field)."""
    return len(frame) > i and bool(frame[i])


def _bonuses(game, p: int, unit: int, space: int) -> None:
    expansion_bonuses(game, p, unit, space)


def _register_hooks() -> None:
    HOOKS["sinclair_bonuses"] = _bonuses


_register_hooks()
