"""Rulebook, Phase 2 "7. Fulfil an Export Contract" with slaughtering, imports and the
Direct export bonuses (money, Free space, Bonus upgrade)."""
from __future__ import annotations

from .. import data as D
from ..actions import CHOOSE, FULFIL, SPACE, USE_PORT
from ..state import K_BONUS_UPGRADE, K_EXPORT_BONUS, K_FREE_SPACE, K_HOOK, K_PORT_IGNORE, K_SLAUGHTER
from ..topology import bits
from .common import pop_open_contract, reach, remove_unit, units_of, usable_port_slot
from .registry import apply_for, describe_for, hook, legal_for

MEAT_PORT_TILE = 1


#: ``meat_port_slot`` answer for the clan's own copy of Port tile 1 (MacLeod's Shipyard); offered as choose:0
CLAN_TILE = 99


def meat_port_slot(g, p: int) -> int:
    """Slot of Port tile 1 if p may use it now (in reach, unused), else ``CLAN_TILE`` if p's clan has
    its own tile 1 to use (``Clan.fulfil_tile``), else -1."""
    for slot, tile in enumerate(g.port_tiles):
        if tile == MEAT_PORT_TILE and not g.players[p].ports_used >> slot & 1 and \
                reach(g, p) >> g.topo.port_space[slot] & 1:
            return slot
    return CLAN_TILE if g.clans[p].fulfil_tile(g, p, MEAT_PORT_TILE) else -1


def use_meat_port(g, p: int, slot: int) -> None:
    if slot == CLAN_TILE:
        g.clans[p].use_fulfil_tile(g, p, MEAT_PORT_TILE)
    else:
        g.players[p].ports_used |= 1 << slot


IGNORE_PORT_TILE = 10      # Industria: "Ignore 1 required Processed good when fulfilling"


def ignore_port_usable(g, p: int) -> bool:
    tiles = g.port_tiles
    return (IGNORE_PORT_TILE in tiles and usable_port_slot(g, p, IGNORE_PORT_TILE) >= 0) or \
        g.clans[p].fulfil_tile(g, p, IGNORE_PORT_TILE)


#: per contract id, (the contract, the (Good, quantity, Basic?) of each Good it asks for), made when first asked
_NEEDS: dict = {}


def _needs(cid: int) -> tuple:
    c = D.CONTRACT_BY_ID[cid]
    known = _NEEDS.get(cid)
    if known is None or known[0] is not c:        # a contract made at run time (tests) under a known id
        known = _NEEDS[cid] = (c, tuple((i, q, D.IS_BASIC[i]) for i, q in enumerate(c.goods) if q))
    return known


def can_fulfil(g, p: int, cid: int) -> bool:
    pl = g.players[p]
    goods = pl.goods
    short = 0
    c, needs = _needs(cid)
    for i, need, basic in needs:
        if goods[i] < need:
            if basic:
                return False
            short += need - goods[i]
    if short:
        clan = g.clans[p]
        wild = clan.wild_processed(g, p) if clan.custom_trade else 0    # Clan Fraser's Kilts (R18.F3)
        # one Processed good more than the Kilts cover: Port tile 10 could waive it
        if short > wild and (short > wild + 1 or not ignore_port_usable(g, p)):
            return False
    if c.beef or c.mutton:
        short = max(0, c.beef - pl.units_placed(D.COW)) + max(0, c.mutton - pl.units_placed(D.SHEEP))
        if short > 1 or (short == 1 and meat_port_slot(g, p) < 0):
            return False
    return True


def fulfil_options(g, p: int, out: list) -> None:
    if g.turn.get("fulfilled", 0) >= g.clans[p].export_boxes:
        return
    for box, cid in enumerate(g.players[p].open_contracts):
        if can_fulfil(g, p, cid):
            out.append(FULFIL + box)


def apply_fulfil(g, p: int, box: int) -> None:
    cid = g.players[p].open_contracts[box]
    if ignore_port_usable(g, p) and any(D.CONTRACT_BY_ID[cid].goods[i] for i in D.PROCESSED_GOODS):
        g.stack.append((K_PORT_IGNORE, p, box))       # Industria Port tile 10: which good, if any
        return
    finish_fulfil(g, p, box, -1)


def finish_fulfil(g, p: int, box: int, waived: int) -> None:
    """Pay the contract's Goods (less one ``waived`` Good, Port tile 10), then its rewards and any
    slaughter."""
    cid = pop_open_contract(g, p, box)             # a Delivery bonus 16 stack: the next one surfaces
    c = D.CONTRACT_BY_ID[cid]
    need = [n - (1 if i == waived else 0) for i, n in enumerate(c.goods)]
    # the clan pays (Fraser may use Kilts); a decision it returns is resolved first, before the rewards
    paying = g.clans[p].pay_contract_goods(g, p, need)
    g.turn["fulfilled"] = g.turn.get("fulfilled", 0) + 1
    g.stack.append((K_HOOK, p, "fulfil_rewards", cid))
    if c.beef or c.mutton:
        push_slaughter(g, p, cid, c.beef, c.mutton)
    if paying is not None:
        g.stack.append(paying)


def push_slaughter(g, p: int, cid: int, beef: int, mutton: int) -> None:
    """Slaughter Cows (Beef) and Sheep (Mutton) back to the Player board; ask which ones only
    when there is a choice."""
    if beef == 0 and mutton == 0:
        return
    pl = g.players[p]
    cows, sheep = pl.units_placed(D.COW), pl.units_placed(D.SHEEP)
    port = meat_port_slot(g, p)
    if port >= 0 and (cows < beef or sheep < mutton):
        # Short of an animal: Port tile 1 must cover it, and now, while the port is still in
        # reach (slaughtering the unit next to it first would lose the tile's reach).
        use_meat_port(g, p, port)
        if cows < beef:
            beef -= 1
        else:
            mutton -= 1
        push_slaughter(g, p, cid, beef, mutton)
        return
    forced = port < 0 and beef in (0, cows) and mutton in (0, sheep)
    if forced:
        for unit, need in ((D.COW, beef), (D.SHEEP, mutton)):
            for _ in range(need):           # one at a time: a space may hold two of them (Industria)
                spaces = units_of(g, p, unit)
                remove_unit(g, p, (spaces & -spaces).bit_length() - 1, unit)
        return
    g.stack.append((K_SLAUGHTER, p, cid, beef, mutton))


@legal_for(K_SLAUGHTER)
def legal_slaughter(g, frame) -> list:
    _, p, cid, beef, mutton = frame
    out = []
    if beef:
        out.extend(SPACE + s for s in bits(units_of(g, p, D.COW)))
    if mutton:
        out.extend(SPACE + s for s in bits(units_of(g, p, D.SHEEP)))
    out.sort()
    port = meat_port_slot(g, p)
    if port >= 0:
        out.append(CHOOSE + 0 if port == CLAN_TILE else USE_PORT + port)
    return out


@apply_for(K_SLAUGHTER)
def apply_slaughter(g, frame, action: int) -> None:
    _, p, cid, beef, mutton = frame
    g.stack.pop()
    if action >= USE_PORT:
        # Port tile 1 (choose:0: the clan's own, MacLeod's Shipyard): one fewer slaughtered animal
        use_meat_port(g, p, CLAN_TILE if action >= CHOOSE else action - USE_PORT)
        if beef and (not mutton or g.players[p].units_placed(D.COW) < beef):
            beef -= 1
        else:
            mutton -= 1
    else:
        s = action - SPACE
        want = D.COW if beef and units_of(g, p, D.COW) >> s & 1 else D.SHEEP
        unit = remove_unit(g, p, s, want)
        if unit == D.COW:
            beef -= 1
        else:
            mutton -= 1
    push_slaughter(g, p, cid, beef, mutton)


@describe_for(K_SLAUGHTER)
def describe_slaughter(g, frame) -> str:
    return f"Slaughter for contract {frame[2]}: {frame[3]} Cow(s) and {frame[4]} Sheep still to remove " \
           f"(space of the animal, or use_port for Port tile 1; choose:0 for the clan's own tile 1)"


def tracks_imports(g) -> bool:
    """Whether Import tokens move on the Export board: not in the solo game ("there is no
    import tracking") and not with Static Import Goods ("No need to track Imported goods"),
    so then there is no £1 marked-step bonus either."""
    return g.num_players > 1 and not g.config.static_imports


def move_import_token(g, p: int, kind: int, amount: int) -> None:
    """Move an Import token; £1 for each marked step it reaches or passes."""
    old = g.import_track[kind]
    new = old + amount
    g.import_track[kind] = new
    bonus = sum(D.IMPORT_STEP_BONUS for m in D.IMPORT_MARKED_STEPS if old < m <= new)
    g.players[p].money += bonus


def record_fulfilled(g, p: int, cid: int) -> None:
    """A fulfilled contract goes to p's fulfilled pile with its imports (and their track), Hops and Meat:
    what every fulfilment records, whatever it pays (Final Scoring reads these)."""
    pl = g.players[p]
    c = D.CONTRACT_BY_ID[cid]
    pl.done_contracts.append(cid)
    for kind, amount in enumerate(c.imports):
        if amount:
            pl.imports[kind] += amount
            if tracks_imports(g):
                move_import_token(g, p, kind, amount)
    pl.hops += c.hops
    pl.meat += c.beef + c.mutton


@hook("fulfil_rewards")
def fulfil_rewards(g, p: int, cid: int, action: bool = True) -> None:
    """The contract's rewards; ``action`` False for a fulfilment that is no Fulfil action (Industria
    Port tile 18), which then triggers no clan ability of the Fulfil action (Buchanan's second)."""
    pl = g.players[p]
    c = D.CONTRACT_BY_ID[cid]
    record_fulfilled(g, p, cid)
    pl.money += c.money
    if action:
        g.clans[p].after_fulfil(g, p, cid)
    push_export_bonuses(g, p, c.free_space, c.bonus_upgrade)
    g.clans[p].fulfil_extras(g, p, cid)


def push_export_bonuses(g, p: int, free: int, upgrades: int) -> None:
    if free and upgrades:
        g.stack.append((K_EXPORT_BONUS, p, free, upgrades))
        return
    for _ in range(upgrades):
        g.stack.append((K_BONUS_UPGRADE, p))
    for _ in range(free):
        g.stack.append((K_FREE_SPACE, p))


@legal_for(K_EXPORT_BONUS)
def legal_export_bonus(g, frame) -> list:
    return [CHOOSE + 0, CHOOSE + 1]


@apply_for(K_EXPORT_BONUS)
def apply_export_bonus(g, frame, action: int) -> None:
    """Direct export bonuses 'can be taken in any order': choose:0 Free space next,
    choose:1 a Bonus upgrade next."""
    _, p, free, upgrades = frame
    g.stack.pop()
    if action == CHOOSE + 0:
        push_export_bonuses(g, p, free - 1, upgrades)
        g.stack.append((K_FREE_SPACE, p))
    else:
        push_export_bonuses(g, p, free, upgrades - 1)
        g.stack.append((K_BONUS_UPGRADE, p))


@describe_for(K_EXPORT_BONUS)
def describe_export_bonus(g, frame) -> str:
    return f"Direct export bonuses left: {frame[2]} Free space, {frame[3]} Bonus upgrade; " \
           "choose:0 = Free space next, choose:1 = Bonus upgrade next"
