"""Rulebook "Placing the First Workers", Phase 2 "3. Expand" (with its Neighbourhood and
Building bonuses) and the Direct export bonus "Free space"."""
from __future__ import annotations

from .. import data as D
from ..actions import CHOOSE, DONE, EXPAND, SPACE
from ..state import (K_BONUS_MENU, K_BONUS_ORDER, K_HOOK, K_FIRST_WORKER, K_FREE_SPACE, K_MARKET_SELL,
                     K_NEIGHBOURHOOD, K_PLACE, PLACE_CLAN, PLACE_EXPAND, PLACE_FIRST, PLACE_FREE)
from ..topology import bit_list, offset_table

FISHERMAN = D.FISHERMAN
from .common import (affordable_spaces, expand_targets, notify_deploy, place_unit, placement_cost, reach,
                     reservations, reserved_by)
from .contracts import building_bonus_available, start_building_bonus
from .market import neighbourhood_goods
from .registry import apply_for, describe_for, has_legal_for, hook, legal_for


def expand_options(g, p: int, out: list, free_land: bool = False) -> None:
    """Unit types p can deploy somewhere now (the hot path of legal-move generation: one reach
    lookup, then a few bit operations per unit type)."""
    pl = g.players[p]
    r = pl.reach
    if r == -1:
        r = reach(g, p)
    open_spaces = r & ~g.occupied
    own_res = reserved_by(g, p) & r if reservations(g) else 0   # Delivery bonus 19
    if not open_spaces and not own_res:
        return
    clan = g.clans[p]
    if clan.plain_expand and not own_res:
        # most clans: no discount, no restriction (MacDonald's on the Fisherman only, asked for it alone);
        # units on one land type share its candidate spaces (Topology.unit_groups), and a unit fits when its
        # budget covers the cheapest
        cost_le = g.topo.cost_le
        top = len(cost_le) - 1
        costs = clan.unit_costs
        if costs is None:                    # costs that vary in play (Campbell's factories): once
            costs = clan.costs_now(g, p)
        restricted = clan.restricted_units if clan.restricts_targets else ()
        money = pl.money
        left = pl.units_left
        for mask, units in g.topo.unit_groups:
            cand = open_spaces & mask
            if not cand:
                continue
            if len(units) > 1 and not free_land and not restricted:
                # several units on one land (the grassland's six): the candidates' cheapest land cost, once
                cheapest = 0
                while cheapest <= top and not cand & cost_le[cheapest]:
                    cheapest += 1
                for u in units:
                    if left[u] > 0 and money - costs[u] >= cheapest:
                        out.append(EXPAND + u)
                continue
            for u in units:
                if left[u] > 0:
                    budget = money - costs[u]
                    c = cand & clan.target_mask(g, p, u) if u in restricted else cand
                    if budget >= 0 and c and (free_land or u == FISHERMAN
                                              or c & cost_le[budget if budget < top else top]):
                        out.append(EXPAND + u)
        return
    _expand_options_general(g, p, out, free_land, open_spaces, own_res)


def _expand_options_general(g, p: int, out: list, free_land: bool, open_spaces: int, own_res: int) -> None:
    """``expand_options`` for a clan with varying unit costs, placement discounts or restricted targets, or
    a player with reserved spaces."""
    pl = g.players[p]
    topo = g.topo
    clan = g.clans[p]
    dmask, disc = clan.discount_spaces(g, p)
    unit_mask = topo.unit_mask
    cost_le = topo.cost_le
    top = len(cost_le) - 1
    restricts = clan.restricts_targets
    costs = clan.unit_costs
    money = pl.money
    for u, left in enumerate(pl.units_left):
        if left <= 0:
            continue
        cand = open_spaces & unit_mask[u]
        if cand and restricts:
            cand &= clan.target_mask(g, p, u)
        if not cand and not own_res:
            continue
        cost = costs[u] if costs is not None else clan.unit_cost(g, p, u)
        budget = money - cost
        if not cand:
            ok = False
        elif free_land or u == FISHERMAN:
            ok = budget >= 0 or (dmask and budget + disc >= 0 and cand & dmask)
        elif budget >= 0 and cand & cost_le[budget if budget < top else top]:
            ok = True
        elif dmask:
            b = budget + disc
            ok = b >= 0 and cand & dmask & cost_le[b if b < top else top]
        else:
            ok = False
        if not ok and own_res and own_res & unit_mask[u] and money >= cost:
            ok = not restricts or bool(own_res & clan.target_mask(g, p, u))
        if ok:
            out.append(EXPAND + u)


# ---- first Workers -------------------------------------------------------------------------
def first_worker_targets(g, p: int, unit: int) -> int:
    """Any empty active space of the Worker's land type that p can pay for (no reach needed)."""
    if g.players[p].units_left[unit] <= 0:
        return 0
    mask = g.topo.unit_mask[unit] & ~g.occupied & affordable_spaces(g, p, unit, False)
    for restrict in g.hooks.first_worker_mask:       # the Automa game: away from Farmers markets
        mask = restrict(g, p, unit, mask)
    return mask & g.clans[p].first_worker_spaces(g, p, unit)


@legal_for(K_FIRST_WORKER)
def legal_first_worker(g, frame) -> list:
    p = frame[1]
    return [EXPAND + u for u in g.clans[p].first_worker_units(g, p) if first_worker_targets(g, p, u)]


@apply_for(K_FIRST_WORKER)
def apply_first_worker(g, frame, action: int) -> None:
    g.stack.pop()
    g.stack.append((K_PLACE, frame[1], action - EXPAND, PLACE_FIRST))


@describe_for(K_FIRST_WORKER)
def describe_first_worker(g, frame) -> str:
    """Says which of the player's first Workers this is (rulebook "Placing the First Workers": two each,
    in turn order and then back; some clans place more): the frames still pending are all on the stack."""
    p = frame[1]
    total = g.clans[p].first_workers
    pending = sum(1 for f in g.stack if f[0] == K_FIRST_WORKER and f[1] == p)
    k = total - pending + 1
    ordinal = _ORDINALS[k - 1] if 0 < k <= len(_ORDINALS) else f"{k}th"
    return f"Place your {ordinal} Worker (setup: first Workers, {k} of {total}): choose its type"


_ORDINALS = ("first", "second", "third", "fourth", "fifth")


# ---- placement -------------------------------------------------------------------------------
def place_targets(g, frame) -> int:
    _, p, unit, mode = frame[:4]
    if mode == PLACE_FIRST:
        return first_worker_targets(g, p, unit)
    if mode == PLACE_CLAN:
        return frame[4]
    return expand_targets(g, p, unit, free_land=(mode == PLACE_FREE))


#: ``bit_list``'s table for placement actions (SPACE + space)
_SPACE_ACTIONS = offset_table(SPACE)


@legal_for(K_PLACE)
def legal_place(g, frame) -> list:
    return bit_list(place_targets(g, frame), _SPACE_ACTIONS)


@has_legal_for(K_PLACE)
def place_has_legal(g, frame) -> bool:
    if frame[3] == PLACE_EXPAND:
        return True     # only the main decision pushes it, for a unit type expand_options found a space for
    return place_targets(g, frame) != 0


@apply_for(K_PLACE)
def apply_place(g, frame, action: int) -> None:
    _, p, unit, mode = frame[:4]
    space = action - SPACE
    g.stack.pop()
    g.players[p].money -= placement_cost(g, p, unit, space, free_land=(mode in (PLACE_FREE, PLACE_CLAN)))
    place_unit(g, p, unit, space)
    notify_deploy(g, p, unit, space, mode)
    if mode in (PLACE_EXPAND, PLACE_FREE):
        expansion_bonuses(g, p, unit, space)


_PLACE_MODES = {PLACE_FIRST: "setup, first Workers: land and Worker cost", PLACE_EXPAND: "Expand: unit and land cost",
                PLACE_FREE: "Free space: no land cost", PLACE_CLAN: "clan placement"}


@describe_for(K_PLACE)
def describe_place(g, frame) -> str:
    return f"Choose the space for your {D.UNITS[frame[2]]} ({_PLACE_MODES.get(frame[3], 'placement')})"


def deployed(g, p: int, unit: int, space: int) -> None:
    """After a deployment by an Industria effect (Port tiles 11 and 17): the clan's deploy hook, then the
    deployment bonuses (R3.1), as for an Expand."""
    notify_deploy(g, p, unit, space, PLACE_EXPAND)
    expansion_bonuses(g, p, unit, space)


def expansion_bonuses(g, p: int, unit: int, space: int, neighbourhood: bool = True) -> None:
    """After an Expand: the Neighbourhood bonus and the Building bonus, in the player's order (with
    Industria's Farmers markets also each market neighbouring the space, R3.2)."""
    nb = neighbourhood_goods(g, p, space) if (neighbourhood and g.num_players > 1) else 0
    building = building_bonus_triggered(g, p, unit)
    for triggered in g.hooks.deployment_markets:
        markets = triggered(g, p, space)
        if markets:
            offer_bonuses(g, p, nb, markets, building)
            return
    if nb and building:
        g.stack.append((K_BONUS_ORDER, p, nb))
    elif nb:
        g.stack.append((K_NEIGHBOURHOOD, p, nb))
    elif building:
        start_building_bonus(g, p)


def building_bonus_triggered(g, p: int, unit: int) -> bool:
    """Fourth building of one type deployed AND an empty Export box (Building Bonus)."""
    return unit in D.FACTORIES and g.players[p].units_left[unit] == 0 and building_bonus_available(g, p)


# ---- Industria: the deployment bonuses in any order (R3.2) --------------------------------------
# With Farmers markets a deployment can earn three or more bonuses; the player picks the next one
# (choose:0 Neighbourhood, choose:1 Building, choose:2+k the k-th market listed in the frame) until
# one is left, which starts at once. Each bonus may still be declined inside its own decision.
def offer_bonuses(g, p: int, nb: int, markets: tuple, building: bool) -> None:
    options = (1 if nb else 0) + len(markets) + (1 if building else 0)
    if options >= 2:
        g.stack.append((K_BONUS_MENU, p, nb, markets, int(building)))
    elif nb:
        g.stack.append((K_NEIGHBOURHOOD, p, nb))
    elif markets:
        g.stack.append((K_MARKET_SELL, p, markets[0]))
    elif building and building_bonus_available(g, p):
        start_building_bonus(g, p)


@hook("bonus_menu")
def bonus_menu_rest(g, p: int, nb: int, markets: tuple, building: int) -> None:
    """After one bonus of the menu: the rest (markets p can no longer sell at drop out)."""
    for sellable in g.hooks.sellable_markets:
        markets = sellable(g, p, markets)
    offer_bonuses(g, p, nb, markets, bool(building))


@legal_for(K_BONUS_MENU)
def legal_bonus_menu(g, frame) -> list:
    _, p, nb, markets, building = frame
    out = [CHOOSE + 2 + k for k in range(len(markets))]
    if nb:
        out.append(CHOOSE + 0)
    if building:
        out.append(CHOOSE + 1)
    return out


@apply_for(K_BONUS_MENU)
def apply_bonus_menu(g, frame, action: int) -> None:
    _, p, nb, markets, building = frame
    g.stack.pop()
    k = action - CHOOSE
    if k == 0:
        g.stack.append((K_HOOK, p, "bonus_menu", 0, markets, building))
        g.stack.append((K_NEIGHBOURHOOD, p, nb))
    elif k == 1:
        g.stack.append((K_HOOK, p, "bonus_menu", nb, markets, 0))
        if building_bonus_available(g, p):
            start_building_bonus(g, p)
    else:
        space = markets[k - 2]
        g.stack.append((K_HOOK, p, "bonus_menu", nb, markets[:k - 2] + markets[k - 1:], building))
        g.stack.append((K_MARKET_SELL, p, space))


@describe_for(K_BONUS_MENU)
def describe_bonus_menu(g, frame) -> str:
    _, p, nb, markets, building = frame
    parts = [f"choose:{2 + k} = Farmers market on {g.board.label[s]}" for k, s in enumerate(markets)]
    if nb:
        parts.insert(0, "choose:0 = Neighbourhood bonus")
    if building:
        parts.append("choose:1 = Building bonus")
    return "Deployment bonuses, in the order you choose: " + ", ".join(parts)


@legal_for(K_BONUS_ORDER)
def legal_bonus_order(g, frame) -> list:
    return [CHOOSE + 0, CHOOSE + 1]


@apply_for(K_BONUS_ORDER)
def apply_bonus_order(g, frame, action: int) -> None:
    """choose:0 = Neighbourhood bonus first, choose:1 = Building bonus first (player aid:
    'in any order, you may use the Neighbourhood bonus ... and Building bonus')."""
    _, p, nb = frame
    g.stack.pop()
    if action == CHOOSE + 0:
        # the stack is LIFO: push the later one first
        g.stack.append((K_HOOK, p, "building_bonus"))
        g.stack.append((K_NEIGHBOURHOOD, p, nb))
    else:
        g.stack.append((K_NEIGHBOURHOOD, p, nb))
        start_building_bonus(g, p)


@describe_for(K_BONUS_ORDER)
def describe_bonus_order(g, frame) -> str:
    return "Both bonuses apply: choose:0 = Neighbourhood bonus first, choose:1 = Building bonus first"


# ---- Free space (Direct export bonus) ------------------------------------------------------
# "immediately take an Expand action without paying the land cost (... all normal Expand rules apply)":
# a clan's own ways to expand are offered here as in the main decision (Sinclair's Railroad Reach).
@legal_for(K_FREE_SPACE)
def legal_free_space(g, frame) -> list:
    p = frame[1]
    out: list = []
    expand_options(g, p, out, free_land=True)
    out += g.clans[p].free_space_actions(g, p)
    if out:
        out.append(DONE)
    return out


@apply_for(K_FREE_SPACE)
def apply_free_space(g, frame, action: int) -> None:
    p = frame[1]
    g.stack.pop()
    if action == DONE or g.clans[p].apply_free_space(g, p, action):
        return
    g.stack.append((K_PLACE, p, action - EXPAND, PLACE_FREE))


@describe_for(K_FREE_SPACE)
def describe_free_space(g, frame) -> str:
    return "Free space: Expand without paying the land cost (choose the unit), or done to decline"
