"""Industria rules corrections found by an independent audit and a separately written scoring check. Each
test names the rule it checks (R numbers of shared/reference/industria.md, A numbers of automa.md) and
plays the position through the public API; readings are in docs/rules-interpretations.md."""
from __future__ import annotations

import random

from clans_env.engine import Game, GameConfig
from clans_env.engine import data as D
from clans_env.engine.rules.common import units_of
from clans_env.engine.topology import bits

TRIGGERS = tuple(D.WORKERS) + tuple(D.FACTORIES)


def deployed_units(g, q, kinds=TRIGGERS) -> set:
    """(space, unit) of every unit of seat q of the given kinds (a second unit on a space too)."""
    return {(s, u) for u in kinds for s in bits(units_of(g, q, u))}


# ==== Industria clans against the Automa (R18.MI1, C-MI1, A15) ========================================
def test_mackintosh_gains_when_the_automa_deploys_next_to_its_worker():
    """R18.MI1 "Every time you or another player deploys a Worker or a factory ... you gain £3 if at least one
    of your Workers is adjacent to that unit": the Automa is another player (C-MI1, A15), so its Expand pays
    Mackintosh like anyone's. Checked over random games on every step where Mackintosh itself deployed
    nothing: its money from deployments grows by exactly £3 per adjacent Automa Worker or factory."""
    paid = 0
    for seed in range(6):
        g = Game(GameConfig(num_players=2, seed=seed, clans=["mackintosh", None], automa={1: 3},
                            industria_clans=True))
        rng = random.Random(seed)
        while not g.is_terminal():
            mine, theirs = deployed_units(g, 0), deployed_units(g, 1)
            before = g.players[0].extra.get("mackintosh_money", 0)
            g.apply(rng.choice(g.legal_actions()))
            if deployed_units(g, 0) - mine:
                continue
            workers = {s for s, _ in deployed_units(g, 0, D.WORKERS)}
            near = [s for s, _ in deployed_units(g, 1) - theirs if workers & (set(g.board.adjacent[s]) - {s})]
            assert g.players[0].extra.get("mackintosh_money", 0) - before == 3 * len(near), (seed, near)
            paid += len(near)
    assert paid >= 3
