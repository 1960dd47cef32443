"""Clan Gordon (Industria; player aid "Clans - Clan Gordon", docs/rules-index.md R18).

Only with ``GameConfig(industria_clans=True)`` (or ``industria=True``).

- R18.G1: Fields cost £15 instead of £18 and each produces 1 extra Grain (3). For Scoring tile 13 a
  Field can be in 3 production chains, one per Grain (Q13: "or 3 for Clan Gordon").
- R18.G2 Silos: three Silos, each holding at most 1 Grain (``extra["silos"]``, 1 = full). At the end
  of Gordon's Production (after processing) the ``silo_fill`` decision puts Grain produced in this
  Production into empty Silos, one at a time (choose:k = Silo k+1, done = keep the rest in stock);
  at most the Grain just produced that is still in stock (Q49). Not asked after the last Production:
  Silo Grain counts as stock, so filling would change nothing.
- R18.G2-R18.G5: as a main Action (main decision choose:k, k = 0, 1, 2, for a full Silo k+1), discard
  the Silo's Grain for its bonus: Silo 1 a Free space (the Direct export bonus: Expand without the
  land cost, with the deployment bonuses), Silo 2 a Bonus upgrade, Silo 3 one Wool or one Milk (the
  ``silo_good`` decision: good:wool / good:milk). A Silo can be refilled and used again (Q49). The
  Action is legal even when the bonus cannot be used (it then only discards the Grain): every main
  Action may be taken without gain.
- R18.G6: Silo Grain counts as in stock for all scoring (Scoring tiles 1 and 12, Awards 6, Milestone 4,
  Final Scoring: ``scoring_goods``, read by rules/scoring.py ``goods_in_stock``). To spend it (trade, fulfil, process) it is first
  moved back to the regular stock: a free action before the main action (main decision choose:3+k
  moves Silo k+1's Grain to stock).
"""
from __future__ import annotations

from .. import data as D
from ..actions import CHOOSE, DONE, GOOD
from ..state import K_BONUS_UPGRADE, K_CLAN, K_FREE_SPACE
from .base import Clan, register

SILOS = "silos"
MADE = "grain_made"
FILL = "silo_fill"
SILO_GOOD = "silo_good"
N = D.GORDON_SILOS
#: main decision: choose:k uses Silo k (the Action), choose:N+k moves its Grain to stock (free)
USE, EMPTY = 0, N


def silos(game, p: int) -> list[int]:
    return game.players[p].extra.setdefault(SILOS, [0] * N)


def fill_options(game, p: int) -> list[int]:
    pl = game.players[p]
    if min(pl.extra.get(MADE, 0), pl.goods[D.GRAIN]) <= 0:
        return []
    return [CHOOSE + k for k, full in enumerate(silos(game, p)) if not full]


@register
class Gordon(Clan):
    name = "gordon"
    expansion = "industria"
    follow_ups = frozenset({SILO_GOOD})
    field_pairs = D.FIELD_PAIRS + D.GORDON_EXTRA_GRAIN

    def on_setup(self, game, p: int) -> None:
        game.players[p].extra[SILOS] = [0] * N
        game.players[p].extra[MADE] = 0

    # ---- R18.G1 ------------------------------------------------------------------------
    unit_costs = tuple(D.GORDON_FIELD_COST if u == D.FIELD else cost for u, cost in enumerate(D.UNIT_COST))

    def production_per_unit(self, game, p: int, unit: int, base: int) -> int:
        return base + D.GORDON_EXTRA_GRAIN if unit == D.FIELD else base

    # ---- R18.G2: filling the Silos in Production -----------------------------------------
    def at_production_start(self, game, p: int) -> None:
        game.players[p].extra[MADE] = 0

    def on_produce(self, game, p: int, good: int, qty: int) -> None:
        if good == D.GRAIN and qty:
            extra = game.players[p].extra
            extra[MADE] = extra.get(MADE, 0) + qty

    def after_production(self, game, p: int) -> None:
        if game.round < D.NUM_ROUNDS and fill_options(game, p):
            game.stack.append((K_CLAN, p, FILL))

    # ---- R18.G2-R18.G6: the Silo Action and moving Grain back (main decision) -----------------
    def main_actions(self, game, p: int) -> list[int]:
        full = [k for k, f in enumerate(game.players[p].extra.get(SILOS, ())) if f]
        return [CHOOSE + USE + k for k in full] + [CHOOSE + EMPTY + k for k in full]

    def apply_main(self, game, p: int, action: int) -> bool:
        k = action - CHOOSE
        if not 0 <= k < 2 * N:
            return False
        pl = game.players[p]
        s = silos(game, p)
        if k >= EMPTY:                      # free action: the Grain goes back to stock (R18.G6)
            s[k - EMPTY] = 0
            pl.goods[D.GRAIN] += 1
            return True
        s[k] = 0                            # the Action: the Grain is discarded for the bonus
        game.stack.pop()                    # the main decision (the Action is taken)
        if k == 0:
            game.stack.append((K_FREE_SPACE, p))
        elif k == 1:
            game.stack.append((K_BONUS_UPGRADE, p))
        else:
            game.stack.append((K_CLAN, p, SILO_GOOD))
        return True

    def legal(self, game, frame) -> list[int]:
        if frame[2] == FILL:
            options = fill_options(game, frame[1])
            return options + [DONE] if options else []
        if frame[2] == SILO_GOOD:
            return [GOOD + D.WOOL, GOOD + D.MILK]
        return super().legal(game, frame)

    def apply(self, game, frame, action: int) -> None:
        p = frame[1]
        pl = game.players[p]
        if frame[2] == FILL:
            if action == DONE:
                game.stack.pop()
                return
            silos(game, p)[action - CHOOSE] = 1
            pl.goods[D.GRAIN] -= 1
            pl.extra[MADE] -= 1             # the frame stays while Grain and empty Silos are left
            return
        if frame[2] == SILO_GOOD:
            game.stack.pop()
            pl.goods[action - GOOD] += 1
            return
        super().apply(game, frame, action)

    def describe(self, game, frame) -> str:
        if frame[2] == FILL:
            return ("Clan Gordon: put a Grain you just produced into an empty Silo (choose:k = Silo k+1), "
                    "or done")
        return "Clan Gordon, Silo 3: gain 1 Wool or 1 Milk (good:wool / good:milk)"

    def describe_choice(self, game, frame, k: int) -> dict | None:
        if frame[0] == K_CLAN:
            return {"option": f"Grain into Silo {k + 1}"} if frame[2] == FILL else None
        if not 0 <= k < 2 * N:
            return None
        return {"option": f"Silo {k + 1} Action" if k < EMPTY else f"Silo {k - EMPTY + 1}'s Grain back to stock"}

    # ---- R18.G6: Silo Grain is in stock for scoring -------------------------------------------------
    def scoring_goods(self, game, p: int) -> list[int]:
        pl = game.players[p]
        full = sum(pl.extra.get(SILOS, ()))
        if not full:
            return pl.goods
        goods = pl.goods[:]
        goods[D.GRAIN] += full
        return goods

    def state_problem(self, game, p: int) -> str:
        s = game.players[p].extra.get(SILOS, [0] * N)
        return "" if len(s) == N and set(s) <= {0, 1} else f"Silos {s} (3 Silos of at most 1 Grain, R18.G2)"

    def state_features(self, game, p: int) -> tuple:
        return tuple(float(f) for f in game.players[p].extra.get(SILOS, [0] * N))

    def state_text(self, game, p: int) -> str:
        s = game.players[p].extra.get(SILOS, [0] * N)
        return "Gordon Silos: " + " ".join(f"{k + 1}:{'Grain' if f else 'empty'}" for k, f in enumerate(s))
