"""A greedy player built on an estimate of every player's final score.

Strategy (also in ``docs/agents.md``)
-------------------------------------
``estimate_final_vp(game)`` guesses each seat's final VP from the public state alone:

* **Banked VP** - Glory, Hops, Imports at the *current* rarity values, Goods in stock, and the
  Export / Settlement standing as it would be scored now (rulebook "Final Scoring").
* **Money** - worth more than the final 1 VP per 10 while there are Action phases left to
  spend it in (``money_value``: 0.1 VP/pound at the end, 0.35 in round 1).
* **Remaining production** - every unit on the map produces in each Production phase still to
  come: Worker income at the future money value, Sheep / Cows / Fields one VP per Basic good,
  and factories what a conversion adds (at least 1 VP) for the input they can be fed.
* **Scoring tiles still to come** - each remaining round's tile scored on the current
  position (the tiles are face up from the start, so this is public).
* **Open contracts** - the contract's payout (Imports at current rarity, Hops, money, Direct
  export bonuses, one more fulfilled contract) minus the Goods it consumes and the cost of the
  missing ones, times a chance of fulfilment that grows with the share of Goods already held
  and shrinks as the game runs out of Action phases.
* **Room to grow** - a little for Shipping levels, Merchants and reachable empty land while
  there is time to use them, and a small per-Settlement term so that ties on the Settlement
  majority are approached smoothly.
* **Passing** - a seat that has not passed keeps the value of the next Passing bonus and of
  its remaining turns, so passing only pays when nothing else improves the position.

``evaluate(game, seat)`` is that estimate for ``seat`` minus the best opponent's (in the solo
game: the estimate itself). ``HeuristicAgent`` plays the legal action whose result evaluates
best (a one-step lookahead on clones). An Expand choice (``expand:<unit>``) is looked at
through its placement: the resulting "which space" decision is completed with the cheapest
few spaces and the best one counts. Decisions with one legal action are not evaluated.
"""
from __future__ import annotations

from dataclasses import dataclass
from operator import getitem, itemgetter, mul, sub

from clans_env.engine import data as D
from clans_env.engine.actions import MAX_TRADE_QTY, SPACE, TRADE
from clans_env.engine.rules.awards import award_tile, award_vp
from clans_env.engine.rules.common import TRAINS
from clans_env.engine.rules.scoring import (alternative_two_player_split, connected_settlements, import_values,
                                            threshold_vp, tier_split, tile_glory_function)
from clans_env.engine.state import (ACTION, GAME_OVER, K_CLAN, K_BONUS_MENU, K_BONUS_ORDER, K_MARKET_SELL, K_BONUS_UPGRADE, K_EXCHANGE_FROM,
                                    K_EXCHANGE_TO, K_EXPORT_BONUS, K_FREE_SPACE, K_HOOK, K_PLACE, K_PORT_COPY,
                                    K_PORT_DISCARD, K_PORT_GAIN, K_PORT_PRICE, K_SLAUGHTER, SETUP)
from clans_env.engine.state import K_DELIVERY, K_DSTEP, K_MILESTONE, K_STATION, K_TRAIN_MOVE
from clans_env.engine.topology import bits

from .base import Agent

# ---- tuning constants (VP unless noted) -------------------------------------------------------
@dataclass(frozen=True)
class Weights:
    """The evaluation's tunable numbers (VP unless noted)."""

    #: extra VP per pound for each Action phase still to come (money buys Goods for contracts;
    #: at the end a pound is worth the rulebook's 1/10 VP)
    money_per_phase: float = 0.05
    #: value of a Free space / Bonus upgrade from a contract's Direct export bonuses
    free_space: float = 2.0
    bonus_upgrade: float = 2.0
    #: chance of fulfilling an open contract: base + share of its needs already held x slope
    fulfil_base: float = 0.35
    fulfil_slope: float = 0.4
    #: an empty Export box (room for the next contract), per Action phase still to come
    empty_box: float = 0.5
    #: least that one factory conversion adds (2 VP processed - 1 VP basic); more when the
    #: Market values the product higher
    conversion: float = 1.0
    #: small smooth terms
    settlement: float = 0.6
    shipping: tuple = (0.0, 1.4, 2.2, 2.7, 3.0)
    #: per Merchant (in stock or on the Market, up to six) and per Action phase still to come
    merchant: float = 0.5
    #: a seat that has not passed yet may still act this round: the next Passing bonus is still
    #: theirs and the remaining turns are worth this much (keeps greedy play from passing early)
    turn_option: float = 1.5
    room: float = 0.08
    #: the share of a Good's sale value (at the Market's starting price) counted when that is
    #: more than its final VP
    sale_fraction: float = 0.9
    #: Industria Train module / Milestones: share of the next claim's VP per Milestone marker in stock,
    #: and of the next Delivery-track step for an upright Train
    milestone_marker: float = 0.4
    next_delivery: float = 0.4


DEFAULT_WEIGHTS = Weights()
#: VP per pound at the end of the game (rulebook: 1 VP for every 10 pounds)
FINAL_MONEY_VALUE = 1.0 / D.MONEY_PER_VP

_basic_of = itemgetter(*D.BASIC_GOODS)     # the Basic goods' entries of a per-Good list
_MAX_SPACES_TRIED = 3          # placements looked at when valuing an expand:<unit> choice


def money_value(phases_left: int, w: Weights = DEFAULT_WEIGHTS) -> float:
    """VP per pound with ``phases_left`` Action phases still to play (this one included)."""
    return FINAL_MONEY_VALUE + w.money_per_phase * phases_left


def _phases(g) -> tuple[int, list[int]]:
    """(Action phases left including the current one, production phases left per seat)."""
    n = g.num_players
    if g.phase == GAME_OVER:
        return 0, [0] * n
    r = g.round
    if g.phase in (ACTION, SETUP):
        return D.NUM_ROUNDS - r + 1, [D.NUM_ROUNDS - r + 1] * n
    # Production: seats whose "produce" step is still on the stack produce once more this round
    later = D.NUM_ROUNDS - r
    prod = [later] * n
    for f in g.stack:
        if f[0] == K_HOOK and f[2] == "produce":
            prod[f[1]] = later + 1
    return later, prod


def _reach(g, p: int, pl) -> int:
    """p's Expand reach (``rules.common.reach``) without filling the engine's cache, so that
    evaluating a position never changes it."""
    r = pl.reach
    if r != -1:
        return r
    table = g.topo.reach[pl.shipping]
    r = 0
    for s in bits(pl.spaces):
        r |= table[s]
    return r | g.clans[p].extra_reach(g, p)


_SETTLE_CACHE: dict = {}


def _settlements(g, p: int) -> int:
    pl = g.players[p]
    key = (g.topo, pl.spaces, pl.shipping, g.clans[p])     # clans link Settlements (MacFarlane, Sinclair)
    v = _SETTLE_CACHE.get(key)
    if v is None:
        if len(_SETTLE_CACHE) > 200_000:
            _SETTLE_CACHE.clear()
        v = _SETTLE_CACHE[key] = connected_settlements(g, p)
    return v


_MONEY_AND_GOODS: dict = {}


def _money_and_goods_values(phases_left: int, w: Weights) -> tuple:
    """(VP per pound now, VP per pound of the next income, VP per Good in stock) for
    ``phases_left`` and the weights (cached: they depend on nothing else)."""
    key = (phases_left, id(w))
    out = _MONEY_AND_GOODS.get(key)
    if out is None or out[3] is not w:      # (hashing the dataclass costs more than the lists)
        if len(_MONEY_AND_GOODS) > 1000:
            _MONEY_AND_GOODS.clear()
        mv = money_value(phases_left, w)
        mv_income = money_value(max(phases_left - 1, 0), w)
        # Goods in stock: their final VP, or their sale value at the Market's *starting* price when
        # that is more (valuing them at the current price would reward pushing a price up by buying)
        good_vp = [max(D.BASIC_GOOD_VP if D.IS_BASIC[i] else D.PROCESSED_GOOD_VP,
                       w.sale_fraction * D.PRICES[i][D.START_STEP] * mv) for i in range(D.NUM_GOODS)]
        out = _MONEY_AND_GOODS[key] = (mv, mv_income, good_vp, w)
    return out[:3]


def estimate_final_vp(g, w: Weights = DEFAULT_WEIGHTS) -> list[float]:
    """Estimated final VP of every seat from the public state (see the module docstring)."""
    n = g.num_players
    if g.phase == GAME_OVER:
        return [float(r["total"]) for r in g.final_scores()]
    phases_left, prod_left = _phases(g)
    mv, mv_income, good_vp = _money_and_goods_values(phases_left, w)
    vals = import_values(g)
    prices = list(map(getitem, D.PRICES, g.prices))
    tiles_left = g.scoring_tiles[g.round - 1:] if g.scoring_tiles else ()
    tile_fns = [tile_glory_function(t) for t in tiles_left]
    topo = g.topo
    free_land = topo.land_mask & ~g.occupied
    exports = [len(pl.done_contracts) for pl in g.players]
    settle = [_settlements(g, p) for p in range(n)]
    alt = g.config.alt_two_player_scoring
    export_vp = _majority(exports, True, alt)
    settle_vp = _majority(settle, False, alt)
    if n == 1:
        pass_bonus = D.SOLO_PASSING_BONUS
    else:
        pass_bonus = D.PASSING_BONUS[min(len(g.pass_order), len(D.PASSING_BONUS) - 1)]
    if g.config.farmers_markets:
        pass_bonus -= D.PASSING_OVERLAY
    # Industria's Award: the race as it stands now (its VP if the game ended here)
    award = award_vp(g) if award_tile(g) else None
    trains = train_estimate(g, phases_left, w) if (g.config.trains or g.config.milestones) else None
    out = []
    for p, pl in enumerate(g.players):
        clan = g.clans[p]
        goods = clan.scoring_goods(g, p)
        placed = list(map(sub, D.UNITS_PER_PLAYER, pl.units_left))
        v = float(pl.glory + pl.hops - pl.vp_bid)
        v += sum(map(mul, pl.imports, vals))
        v += export_vp[p] + settle_vp[p] + w.settlement * settle[p]
        if award is not None:
            v += award[p]
        if trains is not None:
            v += trains[p]
        v += pl.money * mv
        # ---- open contracts (their goods are valued inside the contract estimate) ----------
        reserved = [0] * D.NUM_GOODS
        empty_boxes = clan.export_boxes - len(pl.open_contracts)
        if empty_boxes > 0 and phases_left:
            v += w.empty_box * empty_boxes * phases_left
        if pl.open_contracts:
            more = exports[:]
            more[p] += 1
            one_more = _majority(more, True, alt)[p] - export_vp[p]      # VP of one more fulfilled contract
            for cid in pl.open_contracts:
                v += _contract_value(pl, cid, goods, reserved, prices, vals, mv, phases_left, placed, w, one_more)
        v += sum(map(mul, map(sub, goods, reserved), good_vp))
        clan_value = _CLAN_VALUES.get(clan.name)
        if clan_value is not None:          # what an Industria clan's own state is worth
            v += clan_value(g, p, pl, good_vp, phases_left)
        # ---- remaining production -----------------------------------------------------------
        rounds = prod_left[p]
        if rounds:
            income = 0
            for u in D.WORKERS:
                if placed[u]:
                    income += placed[u] * clan.worker_income(g, p, u)
            v += rounds * income * mv_income
            out_goods = [0] * D.NUM_GOODS
            for u, (good, per) in D.ANIMAL_OUTPUT.items():
                if placed[u]:
                    out_goods[good] += placed[u] * clan.production_per_unit(g, p, u, per)
            v += rounds * sum(map(mul, _basic_of(out_goods), _basic_of(good_vp)))
            # factories: conversions fed by production plus the stock spread over the rounds
            for f in D.FACTORIES:
                if placed[f]:
                    src, dst = D.FACTORY_IO[f]
                    feed = out_goods[src] + goods[src] / rounds
                    gain = max(good_vp[dst] - good_vp[src], w.conversion)
                    v += rounds * gain * min(placed[f], feed + 0.25)
        # ---- Scoring tiles still to come, on the current position ----------------------------
        for tile_glory in tile_fns:
            v += tile_glory(g, p)
        # ---- room to grow ----------------------------------------------------------------------
        if phases_left >= 2:
            growth = (phases_left - 1) / (D.NUM_ROUNDS - 1)
            v += growth * w.shipping[min(pl.shipping, len(w.shipping) - 1)]
            v += (phases_left - 1) * w.merchant * min(pl.merchants_stock + sum(pl.merchants_market), 6)
            if pl.spaces:
                room = (_reach(g, p, pl) & free_land).bit_count()
                v += growth * w.room * min(room, 15)
        if not pl.passed and (g.phase == ACTION or g.phase == SETUP):
            v += pass_bonus * mv + w.turn_option
        out.append(v)
    return out


def train_estimate(g, phases_left: int, w: Weights) -> list[float]:
    """Industria's Train module and Milestones: the Delivery track and Milestone VP as they stand, plus
    for each unlocked Milestone marker in stock (or Variant A/B marker) a share of the next claim's VP
    while rounds remain, and an upright Train's next delivery step on the Delivery track."""
    from clans_env.engine import trainmap as TM
    from clans_env.engine.rules import milestones as MS
    from clans_env.engine.rules import trains as TR
    lines = TR.score_lines(g)
    n = g.num_players
    out = []
    for p in range(n):
        v = float(sum(lines[p].values()))
        if phases_left and MS.active(g):
            free = [k for k in range(MS.NUM_SPOTS) if not MS.claimed_by(g, k, p)]
            if free:
                if n == 1:
                    vp = TM.SOLO_MILESTONE_VP[min(g.round, len(TM.SOLO_MILESTONE_VP)) - 1]
                else:
                    table = TM.MILESTONE_VP[n]
                    vp = max(table[min(MS.claimers(g, k), len(table) - 1)] for k in free)
                v += w.milestone_marker * vp * min(MS.markers_available(g, p), len(free))
        ts = g.modstate.get(TRAINS)
        if ts is not None and ts.at is not None and phases_left and not ts.tilt[p]:
            k = ts.deliv[p]
            if k < len(TM.DELIVERY_TRACK_VP):
                nxt = TM.DELIVERY_TRACK_VP[k] - (TM.DELIVERY_TRACK_VP[k - 1] if k else 0)
                v += w.next_delivery * nxt
        out.append(v)
    return out


# ---- Industria clans: the value of their own state ----------------------------------------------
def _fraser_value(g, p, pl, good_vp, phases_left) -> float:
    """Kilts: a Processed good of their own that sells or fulfils as any Processed good (R18.F3, R18.F4)."""
    return g.clans[p].extra_processed(g, p) * max(good_vp[i] for i in D.PROCESSED_GOODS)


def _gordon_value(g, p, pl, good_vp, phases_left) -> float:
    """A full Silo (its Grain is valued as stock) keeps the option of its bonus while Actions are left."""
    if phases_left <= 0 or (phases_left == 1 and pl.passed):
        return 0.0
    return GORDON_SILO_OPTION * sum(pl.extra.get("silos", ()))


#: VP for the option of a full Silo's bonus (a Free space / Bonus upgrade is worth about 2, a Basic good 1)
GORDON_SILO_OPTION = 1.0
_CLAN_VALUES = {"fraser": _fraser_value, "gordon": _gordon_value}


def _contract_value(pl, cid, goods, reserved, prices, vals, mv, phases_left, placed, w, one_more) -> float:
    """Expected VP of open contract ``cid``: (payout - goods used - missing goods' cost) x chance
    (``one_more``: the Export scoring VP one more fulfilled contract adds)."""
    if phases_left <= 0 or (phases_left == 1 and pl.passed):
        return 0.0          # no Action left to fulfil it in: the Goods simply stay in stock
    c = D.CONTRACT_BY_ID[cid]
    payout = c.hops + sum(map(mul, c.imports, vals)) + c.money * mv
    payout += w.free_space * c.free_space + w.bonus_upgrade * c.bonus_upgrade
    payout += one_more
    need_total = 0
    held_total = 0
    used_vp = 0.0
    missing_cost = 0.0
    for i, need, good_vp in _CONTRACT_NEEDS[cid]:
        free = goods[i] - reserved[i]
        held = need if free >= need else max(free, 0)
        reserved[i] += held
        need_total += need
        held_total += held
        used_vp += held * good_vp
        missing_cost += (need - held) * prices[i] * mv
    meat_need = c.beef + c.mutton
    if meat_need:
        short = max(0, c.beef - placed[D.COW]) + max(0, c.mutton - placed[D.SHEEP])
        need_total += meat_need
        held_total += meat_need - short
        # a slaughtered animal stops producing; a missing one must first be bought and placed
        used_vp += (meat_need - short) * 1.0 * max(phases_left - 1, 0)
        missing_cost += short * (D.UNIT_COST[D.COW] + 3) * mv
    share = held_total / need_total if need_total else 1.0
    chance = w.fulfil_base + w.fulfil_slope * share
    if phases_left == 1:
        chance *= 0.5 + 0.5 * share       # last round: missing goods are a real risk
    return chance * (payout - used_vp - missing_cost) + used_vp


#: per contract id, the Goods it needs as (good, quantity, final VP per unit), in Goods order
_CONTRACT_NEEDS = {cid: tuple((i, need, D.BASIC_GOOD_VP if D.IS_BASIC[i] else D.PROCESSED_GOOD_VP)
                              for i, need in enumerate(c.goods) if need)
                   for cid, c in D.CONTRACT_BY_ID.items()}


_MAJORITY_CACHE: dict = {}


def _majority(counts: list[int], export: bool, alt: bool = False) -> list[int]:
    """Export (``export``) or Settlement scoring VP per seat for these counts (cached: the
    counts are small integers, so few distinct tuples occur); ``alt``: Industria's alternative
    2-player scoring."""
    key = (export, tuple(counts), alt)
    out = _MAJORITY_CACHE.get(key)
    if out is None:
        n = len(counts)
        if n == 1:
            out = [threshold_vp(counts[0], D.SOLO_EXPORT_THRESHOLDS if export else D.SOLO_SETTLEMENT_THRESHOLDS)]
        elif alt:
            out = alternative_two_player_split(list(counts), (D.EXPORT_TIERS if export else D.SETTLEMENT_TIERS)[n],
                                               *(D.ALT_EXPORT if export else D.ALT_SETTLEMENT))
        else:
            out = tier_split(list(counts), (D.EXPORT_TIERS if export else D.SETTLEMENT_TIERS)[n])
        _MAJORITY_CACHE[key] = out
    return out


def relative_value(estimates: list[float], seat: int) -> float:
    """Own estimate minus the best opponent's (the estimate itself in the solo game)."""
    if len(estimates) == 1:
        return estimates[0]
    best_other = max(v for q, v in enumerate(estimates) if q != seat)
    return estimates[seat] - best_other


def evaluate(game, seat: int, weights: Weights = DEFAULT_WEIGHTS) -> float:
    """Estimated final VP margin of ``seat`` over its best opponent (solo: estimated final VP)."""
    return relative_value(estimate_final_vp(game, weights), seat)


def candidate_actions(game, legal: list[int]) -> list[int]:
    """Legal actions worth evaluating: Trades of one Good in one direction are looked at for
    every quantity only up to 4 and then for the maximum (larger middle quantities are rarely
    different in kind and cost an evaluation each)."""
    if len(legal) < 24:
        return legal
    out = []
    last_area = -1
    area_actions: list[int] = []
    for a in legal:
        if TRADE <= a < TRADE + D.NUM_GOODS * 2 * MAX_TRADE_QTY:
            area = (a - TRADE) // MAX_TRADE_QTY
            if area != last_area:
                out.extend(_thin(area_actions))
                area_actions = []
                last_area = area
            area_actions.append(a)
        else:
            out.append(a)
    out.extend(_thin(area_actions))
    return out


def _thin(actions: list[int]) -> list[int]:
    if len(actions) <= 5:
        return actions
    return actions[:4] + actions[-1:]


class HeuristicAgent(Agent):
    """Greedy one-step lookahead on ``evaluate`` (see the module docstring for the strategy)."""

    name = "heuristic"

    def __init__(self, seed: int | None = None, noise: float = 0.0, weights: Weights = DEFAULT_WEIGHTS):
        super().__init__(seed)
        self.weights = weights
        #: standard deviation of Gaussian noise added to each candidate's value (0 = deterministic
        #: apart from exact ties, which are broken at random)
        self.noise = float(noise)

    def act(self, game) -> int:
        legal = game.legal_actions()
        if len(legal) == 1:
            return legal[0]
        scored = self.action_values(game, legal)
        best = max(scored.values())
        if self.noise:
            noisy = {a: v + self.rng.gauss(0.0, self.noise) for a, v in scored.items()}
            return max(noisy, key=noisy.get)
        top = [a for a, v in scored.items() if v >= best - 1e-9]
        return top[0] if len(top) == 1 else top[self.rng.randrange(len(top))]

    def action_values(self, game, legal: list[int] | None = None) -> dict[int, float]:
        """Value (``evaluate`` for the deciding seat) of the position after each candidate action,
        with the seat's own forced follow-ups of that action (which space, which animal to
        slaughter, which Bonus upgrade, ...) completed greedily first."""
        seat = game.current_player
        if legal is None:
            legal = game.legal_actions()
        w = self.weights
        out = {}
        for a in candidate_actions(game, legal):
            child = game.clone()
            child.apply_unchecked(a)             # a candidate of the legal list: no list built after it
            out[a] = _complete_and_evaluate(child, seat, w, _FOLLOW_UP_STEPS)
        return out


#: decisions that complete an action already paid for (their state is not worth evaluating
#: half-way): resolved greedily inside the lookahead
_FOLLOW_UPS = frozenset((K_PLACE, K_SLAUGHTER, K_PORT_DISCARD, K_PORT_GAIN, K_EXPORT_BONUS, K_BONUS_UPGRADE,
                         K_FREE_SPACE, K_EXCHANGE_FROM, K_EXCHANGE_TO, K_PORT_PRICE, K_PORT_COPY,
                         K_BONUS_ORDER, K_BONUS_MENU, K_MARKET_SELL,
                         # Industria's Train module: a Train action's moves, its delivery and bonus parts,
                         # the station and a Milestone choice complete the action that started them
                         K_TRAIN_MOVE, K_DELIVERY, K_DSTEP, K_STATION, K_MILESTONE))
_FOLLOW_UP_STEPS = 4
#: clan decisions (``K_CLAN`` frames, by name) that complete an action already chosen: Sinclair's Railroad
#: Reach, MacGregor's Grazing, MacLeod's Shipyard tile 9. Those in ``_CLAN_LOOK_AHEAD`` change nothing
#: by themselves (which unit, which Sheep), so each option is valued after completing what follows it;
#: those in ``_CLAN_SPACES`` are placements, tried on the cheapest few spaces like ``K_PLACE``.
_CLAN_FOLLOW_UPS = frozenset(("rail", "rail_space", "graze", "graze_sheep", "graze_to", "shipyard_copy"))
_CLAN_LOOK_AHEAD = frozenset(("rail", "graze", "graze_sheep"))
_CLAN_SPACES = frozenset(("rail_space", "graze_sheep", "graze_to"))


def complete_follow_ups(g, seat: int, w: Weights = DEFAULT_WEIGHTS, steps: int = _FOLLOW_UP_STEPS):
    """``g`` (or a completed copy) after resolving up to ``steps`` of ``seat``'s pending follow-up
    decisions, each by the best one-level evaluation (placements: the cheapest few spaces)."""
    return _complete(g, seat, w, steps, need_value=False)[0]


def _complete_and_evaluate(g, seat: int, w: Weights, steps: int) -> float:
    return _complete(g, seat, w, steps)[1]


def _complete(g, seat: int, w: Weights, steps: int, need_value: bool = True):
    value = None
    while steps > 0 and g.stack:
        top = g.stack[-1]
        clan_step = top[0] == K_CLAN and (top[2] in _CLAN_FOLLOW_UPS or top[2] in g.clans[top[1]].follow_ups)
        if top[1] != seat or (top[0] not in _FOLLOW_UPS and not clan_step):
            break
        options = g.legal_actions()
        value = None
        if len(options) > 1:
            if top[0] == K_PLACE or (clan_step and top[2] in _CLAN_SPACES):
                cost = g.topo.cost
                options.sort(key=lambda a: cost[a - SPACE])
                options = options[:_MAX_SPACES_TRIED]
            ahead = clan_step and top[2] in _CLAN_LOOK_AHEAD
            best_value, best_child = float("-inf"), None
            for a in options:
                child = g.clone()
                child.apply_unchecked(a)         # from legal_actions()
                v = _complete(child, seat, w, steps - 1)[1] if ahead else evaluate(child, seat, w)
                if v > best_value:
                    best_value, best_child = v, child
            g, value = best_child, best_value
        else:
            g = g.clone()
            g.apply_unchecked(options[0])
        steps -= 1
    if value is None and need_value:
        value = evaluate(g, seat, w)
    return g, value


def greedy_action(game, rng=None) -> int:
    """The HeuristicAgent's move without constructing an agent (used by search rollouts)."""
    legal = game.legal_actions()
    if len(legal) == 1:
        return legal[0]
    values = HeuristicAgent.action_values(_SHARED, game, legal)
    best = max(values.values())
    top = [a for a, v in values.items() if v >= best - 1e-9]
    if rng is None or len(top) == 1:
        return top[0]
    return top[rng.randrange(len(top))]


_SHARED = HeuristicAgent(seed=0)
