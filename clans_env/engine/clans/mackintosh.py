"""Clan Mackintosh (Industria; player aid "Clans - Clan Mackintosh", docs/rules-index.md R18).

Only with ``GameConfig(industria_clans=True)`` (or ``industria=True``).

- R18.MI1: every time any player (Mackintosh too) deploys a Worker or a factory (Cheese dairy, Bakery,
  Distillery), Mackintosh gains £3 if at least one of its Workers is adjacent to that unit (a shared
  edge, a river between allowed; Q54). Once per deployment however many Workers are adjacent; paid
  after the deployed unit and its space were paid for (the hook runs after the payment,
  rules/common.py ``notify_deploy``). First Worker placements (anyone's) count ("This applies to your
  starting Workers as well", Q54), as does any deployment (Expand, Free space, Port tiles 7 and 17);
  moves, Port tile 12's exchange and MacPherson's calves are no deployments of a Worker or factory.
- The money gained so far is kept in ``extra["mackintosh_money"]`` (shown by ``state_text``).
"""
from __future__ import annotations

from .. import data as D
from .base import Clan, register
from .macdonald import adjacency_masks
from ..rules.common import units_of

MONEY = "mackintosh_money"
TRIGGERS = frozenset(D.WORKERS) | frozenset(D.FACTORIES)


def worker_spaces(game, p: int) -> int:
    out = 0
    for u in D.WORKERS:
        out |= units_of(game, p, u)
    return out


@register
class Mackintosh(Clan):
    name = "mackintosh"
    expansion = "industria"
    watches_deploys = True

    def on_setup(self, game, p: int) -> None:
        game.players[p].extra[MONEY] = 0

    def on_any_deploy(self, game, me, p, unit, space, mode) -> None:
        if unit not in TRIGGERS:
            return
        workers = worker_spaces(game, me) & ~(1 << space)
        if workers & adjacency_masks(game.board)[space]:
            pl = game.players[me]
            pl.money += D.MACKINTOSH_DEPLOY_MONEY
            pl.extra[MONEY] = pl.extra.get(MONEY, 0) + D.MACKINTOSH_DEPLOY_MONEY

    def state_problem(self, game, p: int) -> str:
        m = game.players[p].extra.get(MONEY, 0)
        return "" if m >= 0 and m % D.MACKINTOSH_DEPLOY_MONEY == 0 else f"deployment money {m}"

    def state_features(self, game, p: int) -> tuple:
        return (min(1.0, game.players[p].extra.get(MONEY, 0) / 60.0),)

    def state_text(self, game, p: int) -> str:
        return f"Mackintosh: £{game.players[p].extra.get(MONEY, 0)} from deployments next to its Workers"
