"""Rulebook, Phase 2 "4. Upgrade Shipping", "5. Upgrade Technology", "6. Hire a Merchant",
and the Direct export bonus "Bonus Upgrade"."""
from __future__ import annotations

from .. import data as D
from ..actions import DONE, HIRE_MERCHANT, MARKET_AREA, UPGRADE_SHIPPING, UPGRADE_TECH
from ..state import K_BONUS_UPGRADE
from .registry import apply_for, describe_for, legal_for


def upgrade_options(g, p: int, out: list) -> None:
    pl = g.players[p]
    money = pl.money
    if pl.shipping < D.MAX_SHIPPING and money >= D.SHIPPING_COST and g.clans[p].can_change_shipping(g, p):
        out.append(UPGRADE_SHIPPING)
    if money >= D.TECH_COST and g.clans[p].can_upgrade_technology(g, p):
        if not pl.tech[0]:
            out.append(UPGRADE_TECH)
        if not pl.tech[1]:
            out.append(UPGRADE_TECH + 1)
    if pl.merchants_board > 0 and money >= D.HIRE_MERCHANT_COST:
        out.append(HIRE_MERCHANT)


def upgrade_shipping(g, p: int, cost: int) -> None:
    pl = g.players[p]
    pl.money -= cost
    pl.shipping += 1
    pl.reach = -1


def upgrade_tech(g, p: int, which: int, cost: int) -> None:
    pl = g.players[p]
    pl.money -= cost
    pl.tech[which] = True


def hire_merchant(g, p: int, cost: int) -> None:
    pl = g.players[p]
    pl.money -= cost
    pl.merchants_board -= 1
    pl.merchants_stock += 1


def apply_upgrade(g, p: int, action: int) -> None:
    if action == UPGRADE_SHIPPING:
        upgrade_shipping(g, p, D.SHIPPING_COST)
    elif action == HIRE_MERCHANT:
        hire_merchant(g, p, D.HIRE_MERCHANT_COST)
    else:
        upgrade_tech(g, p, action - UPGRADE_TECH, D.TECH_COST)


# ---- Bonus upgrade ------------------------------------------------------------------------
@legal_for(K_BONUS_UPGRADE)
def legal_bonus_upgrade(g, frame) -> list:
    """Technology for £5, Shipping for free, or a Merchant for free (from the Player board, or
    back from the Market: the aid's 'take one of your Merchants back from the Market')."""
    p = frame[1]
    pl = g.players[p]
    if len(frame) > 2:          # Industria Port tile 15: a Merchant upgrade only
        out = merchant_upgrades(g, p)
        return out + [DONE] if out else out
    out = []
    if pl.money >= D.TECH_BONUS_UPGRADE_COST and g.clans[p].can_upgrade_technology(g, p):
        if not pl.tech[0]:
            out.append(UPGRADE_TECH)
        if not pl.tech[1]:
            out.append(UPGRADE_TECH + 1)
    if pl.shipping < D.MAX_SHIPPING and g.clans[p].can_change_shipping(g, p):
        out.append(UPGRADE_SHIPPING)
    out += merchant_upgrades(g, p)
    if out:
        out.append(DONE)
    return out


def merchant_upgrades(g, p: int) -> list[int]:
    """A Bonus upgrade's Merchant options: hire one from the Player board, or take one back from a
    Market area (alone: Industria Port tile 15)."""
    pl = g.players[p]
    out = [HIRE_MERCHANT] if pl.merchants_board > 0 else []
    out += [MARKET_AREA + area for area, n in enumerate(pl.merchants_market) if n]
    return out


@apply_for(K_BONUS_UPGRADE)
def apply_bonus_upgrade(g, frame, action: int) -> None:
    p = frame[1]
    g.stack.pop()
    if action == DONE:
        return
    if action == UPGRADE_SHIPPING:
        upgrade_shipping(g, p, 0)
    elif action == HIRE_MERCHANT:
        hire_merchant(g, p, 0)
    elif action >= MARKET_AREA:
        pl = g.players[p]
        pl.merchants_market[action - MARKET_AREA] -= 1
        pl.merchants_stock += 1
    else:
        upgrade_tech(g, p, action - UPGRADE_TECH, D.TECH_BONUS_UPGRADE_COST)


@describe_for(K_BONUS_UPGRADE)
def describe_bonus_upgrade(g, frame) -> str:
    return ("Bonus upgrade: Technology for £5, Shipping free, hire a Merchant free, "
            "take a Merchant back from the Market (market_area), or done")
