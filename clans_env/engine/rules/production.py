"""Rulebook "Phase 3: Production": income, Basic goods, then optional processing."""
from __future__ import annotations

from .. import data as D
from ..actions import CHOOSE
from ..state import K_HOOK, K_PROCESS, PRODUCTION
from .registry import apply_for, describe_for, hook, legal_for


def start_production(g) -> None:
    """Queue every player's Production (in turn order): produce, process x3, clan step."""
    g.phase = PRODUCTION
    order = g.pass_order if len(g.pass_order) == g.num_players else g.turn_order
    for p in reversed(order):
        g.stack.append((K_HOOK, p, "after_production"))
        for factory in (D.DISTILLERY, D.BAKERY, D.DAIRY):
            g.stack.append((K_PROCESS, p, factory))
        g.stack.append((K_HOOK, p, "produce"))


@hook("produce")
def produce(g, p: int) -> None:
    """1. Each Worker earns money. 2. Sheep 1 Wool, Cow 1 Milk, Field 2 Grain."""
    if p in g.hooks.engine_seats:
        for module_produce in g.hooks.produce:   # the Automa: money instead of Goods
            module_produce(g, p)
        return
    clan = g.clans[p]
    clan.at_production_start(g, p)
    pl = g.players[p]
    for unit in D.WORKERS:
        placed = pl.units_placed(unit)
        if placed:
            pl.money += placed * clan.worker_income(g, p, unit)
    for unit, (good, per_unit) in D.ANIMAL_OUTPUT.items():
        placed = pl.units_placed(unit)
        if placed:
            amount = placed * clan.production_per_unit(g, p, unit, per_unit)
            pl.goods[good] += amount
            clan.on_produce(g, p, good, amount)


def process_max(g, p: int, factory: int) -> int:
    pl = g.players[p]
    source, _ = D.FACTORY_IO[factory]
    n = pl.units_placed(factory)
    have = pl.goods[source]
    return n if n < have else have


@legal_for(K_PROCESS)
def legal_process(g, frame) -> list:
    """3. Each Cheese dairy / Bakery / Distillery MAY process one input: choose how many."""
    m = process_max(g, frame[1], frame[2])
    return [CHOOSE + k for k in range(m + 1)] if m > 0 else []


@apply_for(K_PROCESS)
def apply_process(g, frame, action: int) -> None:
    _, p, factory = frame
    g.stack.pop()
    k = action - CHOOSE
    if k:
        source, product = D.FACTORY_IO[factory]
        goods = g.players[p].goods
        goods[source] -= k
        goods[product] += k
        g.clans[p].on_produce(g, p, product, k)


@describe_for(K_PROCESS)
def describe_process(g, frame) -> str:
    source, product = D.FACTORY_IO[frame[2]]
    return f"Production: how many {D.GOODS[source]} to process into {D.GOODS[product]} (choose:k)"


@hook("after_production")
def after_production(g, p: int) -> None:
    g.clans[p].after_production(g, p)
