"""Clan Fraser (Industria; player aid "Clans - Clan Fraser", docs/rules-index.md R18).

Only with ``GameConfig(industria_clans=True)`` (or ``industria=True``).

- R18.F1 Kiltmakers: up to 2 of Fraser's Workers, each neighbouring a different one of Fraser's Sheep
  (Q48; two units on one space neighbour each other, R4.4). Which Workers are Kiltmakers has no effect
  but their number (they stay Workers for everything, R18.F4), so the engine always counts the most
  there can be: a largest matching of Workers to distinct neighbouring Sheep, at most 2
  (``kiltmakers``), recomputed whenever it is needed (units move, Sheep are slaughtered).
- R18.F2 Production: at the end of Fraser's Production the ``kilts`` decision turns Wool from stock
  into Kilts, at most one per Kiltmaker and never more than 2 Kilts held (choose:k Kilts, 0 allowed:
  "may process"). The Worker income is unchanged. Kilts are in ``extra["kilts"]``; they are not Wool.
- R18.F3 Versatile Processed Goods: a Kilt can be used as any Processed good (Cheese, Bread, Whisky) to
  trade and to fulfil contracts. Selling: the Kilt is sold as that Good, at that Good's price and on
  its Price marker (Q48), in a Trade action or at a Farmers market; when Goods of the type in stock and
  Kilts could both be sold, the ``kilt_trade`` decision asks how many of the Goods sold are Kilts
  (choose:k). Fulfilling: Kilts cover missing Processed goods first; when a Kilt could also replace a
  Good in stock, the ``kilt_pay`` decision asks which Good a Kilt replaces next (good:<good>), or done
  to pay the rest from stock. It is resolved before the contract's rewards. A used Kilt leaves the
  game (its Wool token goes to the common stock, not to Fraser's). Kilts are never bought, and are
  not Processed goods for Port tiles 3 or 14 (only "to fulfil contracts or trade").
- R18.F4 Scoring: a Kilt is a Processed good of a type of its own for all scoring (Final Scoring 2 VP,
  Scoring tiles 2 and 12, Award 7: ``extra_processed``, read by rules/scoring.py ``processed_in_stock``); a Kiltmaker and its Sheep form a production
  chain for Scoring tile 13 (``production_chains``); Kiltmakers are Workers, not factories.
- R18.F5 Cotton Imports Bonus: each time Fraser's imported Cotton total (on fulfilled contracts)
  reaches or passes a multiple of 4, 2 Wool (once per multiple reached; every fulfilment, also Port
  tile 18's).
- Delivery bonus 10 (R13.26): while processing up to 4 Basic goods without factories, Fraser may also
  turn Wool into Kilts, one per Good processed, while fewer than 2 Kilts are held
  (``bonus_process_inputs``: good:wool in the bonus's ``process`` step; no Kiltmaker needed;
  docs/rules-interpretations.md T16).
"""
from __future__ import annotations

from .. import data as D
from ..actions import CHOOSE, DONE, GOOD, SELL
from ..state import K_CLAN
from .base import Clan, register
from ..rules.industria_scoring import own_units
from ..rules.market import execute_trade

KILTS = "kilts"
MAKE = "kilts"
KILT_TRADE = "kilt_trade"
KILT_PAY = "kilt_pay"


def kilts(game, p: int) -> int:
    return game.players[p].extra.get(KILTS, 0)


def kiltmaker_pairs(game, p: int) -> list[tuple[int, int]]:
    """(Worker's space, Sheep's space) of the Kiltmakers: a largest matching of p's Workers to distinct
    neighbouring Sheep, at most ``FRASER_KILTMAKERS`` pairs (R18.F1)."""
    units = own_units(game, p)
    workers = [s for s, u in units if u in D.WORKERS]
    sheep = [s for s, u in units if u == D.SHEEP]
    if not workers or not sheep:
        return []
    nb = game.topo.neighbours
    options = [[j for j, t in enumerate(sheep) if t == w or nb[w] >> t & 1] for w in workers]
    match = [-1] * len(sheep)               # Sheep -> Worker

    def augment(i: int, seen: set) -> bool:
        for j in options[i]:
            if j not in seen:
                seen.add(j)
                if match[j] < 0 or augment(match[j], seen):
                    match[j] = i
                    return True
        return False

    size = 0
    for i in range(len(workers)):
        if size < D.FRASER_KILTMAKERS and augment(i, set()):
            size += 1
    return [(workers[i], sheep[j]) for j, i in enumerate(match) if i >= 0]


def kiltmakers(game, p: int) -> int:
    return len(kiltmaker_pairs(game, p))


def make_options(game, p: int) -> int:
    """Most Kilts p may make now (R18.F2)."""
    pl = game.players[p]
    room = D.FRASER_MAX_KILTS - kilts(game, p)
    if room <= 0 or pl.goods[D.WOOL] <= 0:
        return 0
    return min(room, pl.goods[D.WOOL], kiltmakers(game, p))


def use_kilts(game, p: int, k: int) -> None:
    pl = game.players[p]
    pl.extra[KILTS] = pl.extra.get(KILTS, 0) - k


def kilt_sale_range(game, p: int, good: int, qty: int) -> range:
    """How many of ``qty`` Goods sold may be Kilts: the Goods in stock first, Kilts up to all."""
    lo = max(0, qty - game.players[p].goods[good])
    return range(lo, min(qty, kilts(game, p)) + 1)


def sell_with_kilts(game, p: int, good: int, merchants: int, k: int, discount: int) -> None:
    """Sell ``merchants`` Goods of type ``good``, ``k`` of them Kilts (the Kilts are sold as that Good)."""
    use_kilts(game, p, k)
    game.players[p].goods[good] += k
    execute_trade(game, p, good, SELL, merchants, merchants, discount)


def pay_rest(game, p: int, need: tuple) -> None:
    goods = game.players[p].goods
    for i, n in enumerate(need):
        goods[i] -= n


def replaceable(game, p: int, need: tuple) -> list[int]:
    """Processed goods the contract still needs that a Kilt could replace (one is in stock too)."""
    if kilts(game, p) <= 0:
        return []
    return [i for i in D.PROCESSED_GOODS if need[i] > 0]


@register
class Fraser(Clan):
    name = "fraser"
    expansion = "industria"
    follow_ups = frozenset({KILT_TRADE, KILT_PAY})
    custom_trade = True

    def on_setup(self, game, p: int) -> None:
        game.players[p].extra[KILTS] = 0

    # ---- R18.F2 --------------------------------------------------------------------------
    def after_production(self, game, p: int) -> None:
        if make_options(game, p):
            game.stack.append((K_CLAN, p, MAKE))

    # ---- Delivery bonus 10 (R13.26): "Clan Fraser may process Wool into Kilts if there's space on its tile"
    def bonus_process_inputs(self, game, p: int) -> tuple[int, ...]:
        # no Kiltmakers needed ("no factories needed"), only Wool in stock and room for a Kilt (T16)
        if game.players[p].goods[D.WOOL] > 0 and kilts(game, p) < D.FRASER_MAX_KILTS:
            return (D.WOOL,)
        return ()

    def bonus_process(self, game, p: int, good: int) -> None:
        pl = game.players[p]
        pl.goods[D.WOOL] -= 1
        pl.extra[KILTS] = kilts(game, p) + 1

    # ---- R18.F3: Kilts as any Processed good -----------------------------------------------
    def wild_processed(self, game, p: int) -> int:
        return kilts(game, p)

    def trade(self, game, p, good, direction, merchants, discount, limit) -> None:
        if direction == SELL and not D.IS_BASIC[good] and kilts(game, p):
            options = kilt_sale_range(game, p, good, merchants)
            if len(options) > 1:
                game.stack.append((K_CLAN, p, KILT_TRADE, good, merchants, discount))
            else:
                sell_with_kilts(game, p, good, merchants, options[0], discount)
            return
        super().trade(game, p, good, direction, merchants, discount, limit)

    def pay_contract_goods(self, game, p: int, need: list):
        goods = game.players[p].goods
        need = list(need)
        for i in D.PROCESSED_GOODS:           # Kilts must cover what is missing
            short = need[i] - goods[i]
            if short > 0:
                use_kilts(game, p, short)
                need[i] -= short
        if replaceable(game, p, need):
            return (K_CLAN, p, KILT_PAY, tuple(need))
        pay_rest(game, p, need)
        return None

    # ---- decisions ------------------------------------------------------------------------------
    def legal(self, game, frame) -> list[int]:
        kind, p = frame[2], frame[1]
        if kind == MAKE:
            m = make_options(game, p)
            return [CHOOSE + k for k in range(m + 1)] if m else []
        if kind == KILT_TRADE:
            return [CHOOSE + k for k in kilt_sale_range(game, p, frame[3], frame[4])]
        if kind == KILT_PAY:
            return [GOOD + i for i in replaceable(game, p, frame[3])] + [DONE]
        return super().legal(game, frame)

    def apply(self, game, frame, action: int) -> None:
        kind, p = frame[2], frame[1]
        pl = game.players[p]
        if kind == MAKE:
            game.stack.pop()
            k = action - CHOOSE
            pl.goods[D.WOOL] -= k
            pl.extra[KILTS] = kilts(game, p) + k
        elif kind == KILT_TRADE:
            game.stack.pop()
            _, _, _, good, merchants, discount = frame
            sell_with_kilts(game, p, good, merchants, action - CHOOSE, discount)
        elif kind == KILT_PAY:
            game.stack.pop()
            need = list(frame[3])
            if action == DONE:
                pay_rest(game, p, need)
                return
            use_kilts(game, p, 1)
            need[action - GOOD] -= 1
            if replaceable(game, p, need):
                game.stack.append((K_CLAN, p, KILT_PAY, tuple(need)))
            else:
                pay_rest(game, p, need)
        else:
            super().apply(game, frame, action)

    def describe(self, game, frame) -> str:
        kind = frame[2]
        if kind == MAKE:
            return f"Clan Fraser: how many Wool your Kiltmakers make into Kilts (choose:k; at most {D.FRASER_MAX_KILTS} held)"
        if kind == KILT_TRADE:
            return (f"Clan Fraser: how many of the {frame[4]} {D.GOODS[frame[3]]} sold are Kilts (choose:k)")
        need = ", ".join(f"{n} {D.GOODS[i]}" for i, n in enumerate(frame[3]) if n)
        return f"Clan Fraser: contract still needs {need}; a Kilt replaces which (good:<good>), or done to pay from stock"

    def describe_choice(self, game, frame, k: int) -> dict | None:
        if frame[0] != K_CLAN or frame[2] not in (MAKE, KILT_TRADE):
            return None
        return {"option": f"make {k} Kilts" if frame[2] == MAKE else f"{k} of them Kilts", "quantity": k}

    # ---- R18.F4 / R18.F5 ----------------------------------------------------------------------
    def fulfil_extras(self, game, p: int, contract_id: int) -> None:
        pl = game.players[p]
        after = pl.imports[D.COTTON]
        before = after - D.CONTRACT_BY_ID[contract_id].imports[D.COTTON]
        steps = after // D.FRASER_COTTON_STEP - before // D.FRASER_COTTON_STEP
        if steps > 0:
            pl.goods[D.WOOL] += D.FRASER_COTTON_WOOL * steps

    def extra_processed(self, game, p: int) -> int:
        return kilts(game, p)

    def production_chains(self, game, p: int) -> int:
        return kiltmakers(game, p)

    def state_problem(self, game, p: int) -> str:
        k = game.players[p].extra.get(KILTS, 0)
        return "" if 0 <= k <= D.FRASER_MAX_KILTS else f"{k} Kilts (0-{D.FRASER_MAX_KILTS} may be held, R18.F2)"

    def state_features(self, game, p: int) -> tuple:
        return (kilts(game, p) / D.FRASER_MAX_KILTS, kiltmakers(game, p) / D.FRASER_KILTMAKERS)

    def state_text(self, game, p: int) -> str:
        pairs = kiltmaker_pairs(game, p)
        where = ", ".join(game.board.label[w] for w, _ in pairs)
        return (f"Fraser: {kilts(game, p)} Kilt(s) (max {D.FRASER_MAX_KILTS}); {len(pairs)} Kiltmaker(s)"
                + (f" on {where}" if where else ""))
