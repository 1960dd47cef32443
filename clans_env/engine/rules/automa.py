"""The Automa: the physical game's solo opponent, a player of its own kind inside the rules.

Source: the Automa digest indexed in docs/rules-index.md (from the community helper app
brdgm/clans-of-caledonia-solo-helper); section numbers (§) are the digest's, readings of its open
points are in docs/rules-interpretations.md ("Automa"). Numbers live in data/automa.toml.

An Automa seat (``GameConfig.automa = {seat: level}``) never decides anything: ``turn.next_turn``
hands its turns to ``take_turn``, which draws its action card (and a support card for Expand /
Upgrade) and carries out the first possible action on the card (§2.4), or passes. So
``Game.current_player`` is never an Automa seat. Its deck and every die are drawn from ``g.rng``;
the deck is hidden (``Game.determinize`` reshuffles its draw pile, ``shuffle_hidden``).

State: one ``AutomaState`` record in ``g.modstate["automa"]`` (copied by ``clone``, saved by ``to_json``
as ``state.modstate.automa``; not in ``PlayerState.extra``, which the observation encodes, since the draw
pile is hidden): per Automa seat an ``AutomaSeat`` (level, the unit-preference pointer, an index into
``UNIT_CYCLE``, the action and support cards, 0 = none, and the ``pile`` (top first), ``discard`` and
``removed`` cards), and the game record of its turns, one list of lines per round (``log_lines``), shown
by ``render_text``. Saves of version 3 kept these in ``g.misc`` keys (``automa<p>``, ``automa<p>_pile``, ...,
``automa_log``); ``AutomaState.from_misc`` reads them.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass

from .. import data as D
from ..actions import BUY, SELL
from ..board import MODULE_NAMES, hex_distance
from ..modules import Module, register
from ..topology import bits, components
from . import farmers_markets as FM
from ..state import PLACE_EXPAND, PLACE_FIRST
from .common import expand_targets, move_price, notify_deploy, placement_cost, place_unit, reach
from .fulfil import record_fulfilled
from .market import neighbourhood_goods, neighbourhood_limit
from .registry import hook
from .solo import bracket
from . import milestones as MS, train_core as TR
from ..state import K_HOOK
from .scoring import alternative_two_player_split, tier_split
from .turn import do_pass

with open(D.DATA_DIR / "automa.toml", "rb") as _fh:
    AUTOMA = tomllib.load(_fh)

_lv = AUTOMA["levels"]
LEVELS = (1, 2, 3, 4, 5)
LEVEL_NAMES = tuple(_lv["names"])
STARTING_MONEY = tuple(_lv["starting_money"]["values"])
ROUND5_VP = tuple(_lv["round5_vp"]["values"])
ROUND5_VP_TRAIN = tuple(_lv["round5_vp_train"]["values"])
_su = AUTOMA["setup"]
START_SHIPPING = D.SHIPPING_LEVELS.index(_su["shipping"]["value"])
WORKER_MODULES = tuple(MODULE_NAMES.index(m) for m in _su["worker_modules"]["values"])
CHEAP_HEX = _su["cheap_hex"]["value"]
MARKET_WORKER_DISTANCE = _su["market_worker_distance"]["value"]
_mo = AUTOMA["money"]
PREPARATION_MONEY = _mo["preparation"]["value"]
TRADE_MONEY = _mo["trade_per_merchant"]["value"]
NEIGHBOURHOOD_MONEY = _mo["neighbourhood_per_merchant"]["value"]
MARKET_MONEY = _mo["market_per_merchant"]["value"]
PORT_MONEY = _mo["port_bonus"]["value"]
UPGRADE_COST = _mo["upgrade_cost"]["value"]
TECH_COST = _mo["technology_cost"]["value"]
TECH_WORKERS = _mo["technology_workers"]["value"]
FULFIL_GOOD_COST = tuple(_mo["fulfil_cost"][name] for name in D.GOODS)
FULFIL_MEAT_COST = _mo["fulfil_cost"]["meat"]
BONUS_VALUE = _mo["bonus_value"]["value"]
INCOME_ICON = _mo["income_icon"]["value"]
INCOME_ICONS = {D.UNIT_INDEX[u]: n for u, n in _mo["income_icons"].items() if u != "provenance"}
TRADE_DIE = _mo["trade_die"]["value"]
_br = AUTOMA["brackets"]
#: merchants by bracket (-1 lower, 0 medium, +1 upper), solo.bracket's values
NEIGHBOURHOOD_BUY = {-1: _br["neighbourhood_buy"]["lower"], 0: _br["neighbourhood_buy"]["medium"],
                     1: _br["neighbourhood_buy"]["upper"]}
MARKET_SELL = {-1: _br["market_sell"]["lower"], 0: _br["market_sell"]["medium"], 1: _br["market_sell"]["upper"]}
_sc = AUTOMA["scoring"]
MONEY_PER_VP = _sc["money_per_vp"]["value"]
TWO_PLAYER_EXPORT = (_sc["two_player_export"]["first"], _sc["two_player_export"]["second"],
                     tuple(_sc["two_player_export"]["second_if_behind_by"]))
TWO_PLAYER_SETTLEMENT = (_sc["two_player_settlement"]["first"], _sc["two_player_settlement"]["second"],
                         tuple(_sc["two_player_settlement"]["second_if_behind_by"]))

#: the unit-preference cycle (§2.5); WORKER stands for a Woodcutter or a Miner
WORKER = -1
UNIT_CYCLE = (D.SHEEP, D.COW, D.DAIRY, D.BAKERY, D.FIELD, D.DISTILLERY, WORKER)
EXPAND_UNITS = (D.SHEEP, D.COW, D.FIELD, D.DAIRY, D.BAKERY, D.DISTILLERY, D.WOODCUTTER, D.MINER)
ACTION_NAMES = {"tech_upgrade": "Technology upgrade", "expand": "Expand", "fulfil": "Fulfil contract",
                "take_contract": "Take contract", "trade": "Trade", "upgrade": "Upgrade", "skip": "Skip turn"}
CRITERIA = ("port", "costs", "settlements", "neighbourhood")
CRITERION_NAMES = {"port": "Port", "costs": "Costs", "settlements": "Settlements", "neighbourhood": "Neighbourhood"}
LOG = "automa_log"


@dataclass(frozen=True)
class Card:
    id: int
    round: int
    actions: tuple[str, ...]
    remove: bool
    criteria: tuple[str, ...]
    upgrade: str                   # "merchant" or "shipping": tried first by Upgrade
    steps: int                     # unit-pointer steps
    modules: tuple[int, ...]       # Expand modules (0-3 = A-D)

    def text(self) -> str:
        return " > ".join(ACTION_NAMES[a] for a in self.actions)


CARDS = {c["id"]: Card(c["id"], c["round"], tuple(c["actions"]), bool(c.get("remove", False)), tuple(c["criteria"]),
                       c["upgrade"], c["steps"], tuple(MODULE_NAMES.index(m) for m in c["modules"]))
         for c in AUTOMA["cards"]}
assert all(set(c.criteria) == set(CRITERIA) and set(c.actions) <= set(ACTION_NAMES) for c in CARDS.values())


# ---- who is an Automa ------------------------------------------------------------------------------
def is_automa(g, p: int) -> bool:
    a = g.config.automa
    return bool(a) and p in a


def human_seats(g) -> list[int]:
    a = g.config.automa or {}
    return [p for p in range(g.num_players) if p not in a]


def level(g, p: int) -> int:
    return g.config.automa[p]


def log(g, p: int, text: str) -> None:
    """One line of the game record (copy on write: clones share the round lists)."""
    book = g.modstate[NAME].log
    while len(book) < g.round:
        book.append([])
    book[g.round - 1] = book[g.round - 1] + [f"Automa {p}: {text}"]


def log_lines(g) -> list[str]:
    rec = g.modstate.get(NAME)
    return [f"R{r + 1} {line}" for r, lines in enumerate(rec.log if rec else ()) for line in lines]


# ---- state ------------------------------------------------------------------------------------------
#: ``Game.modstate`` key of the Automa's record
NAME = "automa"
PILES = ("pile", "discard", "removed")


class AutomaSeat:
    """One Automa's board: its level, unit pointer, current action and support cards (0: none) and its
    cards: ``pile`` (the draw pile, top first), ``discard`` and ``removed``."""
    __slots__ = ("level", "pointer", "action", "support", "pile", "discard", "removed")

    def __init__(self, level: int, pointer: int, action: int = 0, support: int = 0, pile=(), discard=(),
                 removed=()):
        self.level, self.pointer, self.action, self.support = level, pointer, action, support
        self.pile, self.discard, self.removed = list(pile), list(discard), list(removed)

    def copy(self) -> "AutomaSeat":
        return AutomaSeat(self.level, self.pointer, self.action, self.support, self.pile, self.discard, self.removed)

    def to_list(self) -> list:
        return [self.level, self.pointer, self.action, self.support, self.pile[:], self.discard[:], self.removed[:]]

    def __reduce__(self):
        # pickled through the constructor: the compiled engine's native classes pickle no other way
        return AutomaSeat, tuple(self.to_list())


class AutomaState:
    """The Automa module's state in a game (``g.modstate["automa"]``): each Automa seat's board, and the
    game record of its turns, one list of lines per round (``log_lines``)."""
    __slots__ = ("seats", "log")

    def __init__(self, seats: dict, log: list):
        self.seats, self.log = seats, log

    def copy(self) -> "AutomaState":
        return AutomaState({p: s.copy() for p, s in self.seats.items()}, self.log[:])   # round lists: copy on write

    def __reduce__(self):
        return AutomaState, (self.seats, self.log)

    def to_dict(self) -> dict:
        return {"seats": [[p] + s.to_list() for p, s in self.seats.items()], "log": [list(r) for r in self.log]}

    @classmethod
    def from_dict(cls, d: dict) -> "AutomaState":
        return cls({row[0]: AutomaSeat(*row[1:]) for row in d["seats"]}, [list(r) for r in d["log"]])

    @classmethod
    def from_misc(cls, misc: dict) -> dict | None:
        """Save version 3 kept this state in ``misc`` (``automa<p>`` = [level, pointer, action, support],
        ``automa<p>_pile`` / ``_discard`` / ``_removed``, ``automa_log``): those keys, popped, in
        ``to_dict``'s layout (None without an Automa)."""
        seats = []
        for p in range(4):
            board = misc.pop(f"automa{p}", None)
            if board is not None:
                seats.append([p] + list(board) + [misc.pop(f"automa{p}_{w}", []) for w in PILES])
        log = misc.pop(LOG, None)
        return {"seats": seats, "log": log or []} if seats else None


def state(g, p: int) -> AutomaSeat:
    """The board of the Automa in seat p (mutable)."""
    return g.modstate[NAME].seats[p]


def pile(g, p: int, which: str) -> list:
    """The Automa's ``pile`` (draw pile, top first), ``discard`` or ``removed`` cards (mutable)."""
    return getattr(g.modstate[NAME].seats[p], which)


def pointer_unit(g, p: int) -> str:
    t = UNIT_CYCLE[state(g, p).pointer]
    return "worker" if t == WORKER else D.UNITS[t]


def public_view(g, p: int) -> dict:
    """What everyone sees of an Automa (views.public_state): not the order of its draw pile."""
    st = state(g, p)
    return {"level": st.level, "level_name": LEVEL_NAMES[st.level - 1], "unit_pointer": pointer_unit(g, p),
            "action_card": st.action or None, "support_card": st.support or None,
            "cards_in_pile": len(pile(g, p, "pile")), "discard": list(pile(g, p, "discard")),
            "removed": list(pile(g, p, "removed"))}


# ---- setup (§1.2) -------------------------------------------------------------------------------
def setup_seats(g) -> None:
    """Automa boards: starting money by level, +2 shipping, the round-1 deck and the unit pointer."""
    rec = g.modstate[NAME] = AutomaState({}, [[]])
    for p in g.config.automa_seats:
        pl = g.players[p]
        lv = level(g, p)
        pl.money = STARTING_MONEY[lv - 1]
        pl.shipping = START_SHIPPING
        pl.reach = -1
        start = (UNIT_CYCLE.index(WORKER) + 1 + g.rng.randrange(6)) % len(UNIT_CYCLE)   # d6 steps from worker
        rec.seats[p] = AutomaSeat(lv, start)
        build_deck(g, p)


def starting_worker_frames(g) -> list:
    return [(K_HOOK, p, "automa_workers") for p in g.config.automa_seats]


@hook("automa_workers")
def place_starting_workers(g, p: int) -> None:
    """§1.2 step 7: one Worker per module in the order A, B, D, C, two aiming at the module's Port
    tile and two at the central loch (drawn: a coin unless two of one kind are given already)."""
    targets = []
    for _m in WORKER_MODULES:
        if targets.count("port") == 2:
            targets.append("loch")
        elif targets.count("loch") == 2:
            targets.append("port")
        else:
            targets.append("port" if 1 + g.rng.randrange(2) == 2 else "loch")
    for m, target in zip(WORKER_MODULES, targets):
        space, unit = starting_worker_choice(g, p, m, target)
        if space < 0:
            log(g, p, f"no starting Worker in module {MODULE_NAMES[m]} (no affordable Worker space)")
            continue
        cost = placement_cost(g, p, unit, space, False)
        g.players[p].money -= cost
        place_unit(g, p, unit, space)
        notify_deploy(g, p, unit, space, PLACE_FIRST)     # the Automa is another player (R18.MI1)
        ports = claim_ports(g, p)
        log(g, p, f"places a starting {D.UNITS[unit]} on {g.board.label[space]} (nearest the "
                  f"{'Port tile' if target == 'port' else 'central loch'}, £{cost}){ports}")


def _distance_to(g, s: int, cells) -> int:
    rc = g.board.rowcol
    return min(hex_distance(rc[s], rc[t]) for t in cells)


def starting_worker_choice(g, p: int, module: int, target: str) -> tuple[int, int]:
    """Open point 7: the Worker spaces of the module it can pay for, nearest the target (hex distance),
    then cost at most £2, then (Port target) a space putting a Port tile in reach, then the cheapest,
    then random. The Worker type follows the land (random on land that takes both)."""
    board = g.board
    topo = g.topo
    pl = g.players[p]
    money = pl.money
    cand = []
    for s in bits(topo.land_mask & ~g.occupied):
        if board.module[s] != module:
            continue
        units = [u for u in (D.WOODCUTTER, D.MINER) if topo.unit_mask[u] >> s & 1 and pl.units_left[u] > 0
                 and placement_cost(g, p, u, s, False) <= money]
        if units:
            cand.append((s, units))
    if not cand:
        return -1, -1
    port = topo.port_space[module]
    if target == "port":
        cells = [t for t in board.adjacent[port] if board.rowcol[t][0] >= 0]
        dist = {s: 1 + _distance_to(g, s, cells) for s, _ in cand}
    else:
        dist = {s: _distance_to(g, s, board.central_loch) for s, _ in cand}
    near = min(dist.values())
    spaces = [s for s, _ in cand if dist[s] == near]
    spaces = _keep(spaces, lambda s: topo.cost[s] <= CHEAP_HEX)
    if target == "port" and g.port_tiles:
        spaces = _keep(spaces, lambda s: topo.reach[pl.shipping][s] >> port & 1)
    low = min(topo.cost[s] for s in spaces)
    spaces = [s for s in spaces if topo.cost[s] == low]
    s = spaces[g.rng.randrange(len(spaces))] if len(spaces) > 1 else spaces[0]
    units = dict(cand)[s]
    unit = units[g.rng.randrange(len(units))] if len(units) > 1 else units[0]
    return s, unit


def _keep(spaces: list, test) -> list:
    """A filter that leaves the set unchanged when no candidate passes it."""
    kept = [s for s in spaces if test(s)]
    return kept or spaces


# ---- Industria Farmers markets at setup (§1.2 step 6) ---------------------------------------------
@hook(FM.ENGINE_MARKET)
def place_own_market(g, p: int) -> None:
    """The Automa's dealt Farmers market goes on a random legal site of an allowed module (open point:
    the app leaves the spot to the person at the table)."""
    sites = FM.placement_targets(g)
    if not sites:
        return
    spaces = list(bits(sites))
    s = spaces[g.rng.randrange(len(spaces))]
    FM.place_market(g, p, s)
    log(g, p, f"places its Farmers market on {g.board.label[s]}")


def worker_market_mask(g) -> int:
    """Spaces a human's starting Worker may use with Farmers markets on the map: at least
    ``MARKET_WORKER_DISTANCE`` hexes from every market (the Automa's own Workers ignore this)."""
    markets = FM.market_spaces(g)
    if not markets:
        return -1
    rc = g.board.rowcol
    out = 0
    for s in bits(g.topo.land_mask):
        if all(hex_distance(rc[s], rc[m]) >= MARKET_WORKER_DISTANCE for m in markets):
            out |= 1 << s
    return out


# ---- the deck (§2.3) ----------------------------------------------------------------------------
def build_deck(g, p: int) -> None:
    """Start of round r: every card of rounds <= r less the removed ones, shuffled; nothing current."""
    put_away(g, p)
    removed = pile(g, p, "removed")
    cards = [cid for cid, c in CARDS.items() if c.round <= g.round and cid not in removed]
    g.rng.shuffle(cards)
    st = state(g, p)
    st.pile, st.discard = cards, []


def put_away(g, p: int) -> None:
    """The last turn's cards: a removable action card leaves the game, everything else is discarded
    (a support card always is, even a removable one)."""
    st = state(g, p)
    if st.action:
        (st.removed if CARDS[st.action].remove else st.discard).append(st.action)
    if st.support:
        st.discard.append(st.support)
    st.action = st.support = 0


def draw(g, p: int) -> int:
    """The top card; an empty pile is first refilled from the shuffled discard pile."""
    if not pile(g, p, "pile"):
        cards = list(pile(g, p, "discard"))
        g.rng.shuffle(cards)
        st = state(g, p)
        st.pile, st.discard = cards, []
    cards = pile(g, p, "pile")
    if not cards:     # pragma: no cover - at least 10 cards are never current
        raise AssertionError("Automa deck is empty")
    return cards.pop(0)


def shuffle_hidden(g, rng) -> None:
    """``Game.determinize``: each Automa's draw pile is unseen; reshuffle it with ``rng``."""
    for p in g.config.automa_seats:
        cards = list(pile(g, p, "pile"))
        rng.shuffle(cards)
        state(g, p).pile = cards


# ---- a turn (§2.4, §8) ----------------------------------------------------------------------------
def take_turn(g, p: int) -> None:
    """Draw the action card; Skip: nothing; else the first possible action on it; none: pass."""
    st = state(g, p)
    put_away(g, p)
    cid = draw(g, p)
    st.action = cid
    card = CARDS[cid]
    head = f"draws card {cid} ({card.text()})"
    if card.actions == ("skip",):
        log(g, p, f"{head}; skips this turn")
        return
    for act in card.actions:
        if act in ("expand", "upgrade") and not st.support:
            st.support = draw(g, p)
        support = CARDS[st.support] if st.support else None
        done = ACTIONS[act](g, p, support)
        if done:
            if support is not None:
                head += f", support card {support.id}"
            log(g, p, f"{head}: {done}")
            return
    before = g.players[p].money
    do_pass(g, p)
    log(g, p, f"{head}: nothing possible; passes (pass bonus £{g.players[p].money - before})")


# ---- Expand (§3.1) ------------------------------------------------------------------------------
def _module_mask(g, modules) -> int:
    module = g.board.module
    return sum(1 << s for s in range(g.board.num_spaces) if module[s] in modules)


def expand_plan(g, p: int, support: Card):
    """The modules, criteria order and candidate spaces (space -> unit types that fit) of an Expand."""
    if g.round >= D.NUM_ROUNDS:
        modules = (0, 1, 2, 3)
        criteria = ("settlements",) + tuple(c for c in support.criteria if c != "settlements")
    else:
        modules, criteria = support.modules, support.criteria
    mask = _module_mask(g, modules)
    cand: dict[int, list[int]] = {}
    for u in EXPAND_UNITS:
        for s in bits(expand_targets(g, p, u) & mask):
            cand.setdefault(s, []).append(u)
    return modules, criteria, cand


def unclaimed_ports(g, p: int, modules) -> int:
    """Port spaces (of the modules) whose tile p has not claimed: the Port criterion's targets."""
    if not g.port_tiles:
        return 0
    used = g.players[p].ports_used
    return sum(1 << g.topo.port_space[m] for m in modules if not used >> m & 1)


def settlement_groups(g, spaces: int, shipping: int) -> list[tuple[int, int]]:
    """(spaces, Settlements) of each group of Settlements within Shipping reach of each other."""
    comps = components(spaces, g.topo.neighbours)
    table = g.topo.reach[shipping]
    reach_of = []
    for comp in comps:
        r = 0
        for s in bits(comp):
            r |= table[s]
        reach_of.append(r)
    groups: list[list[int]] = []       # [spaces, settlements, reach]
    for comp, r in zip(comps, reach_of):
        merged = [comp, 1, r]
        rest = []
        for grp in groups:
            if grp[2] & merged[0] or merged[2] & grp[0]:
                merged = [merged[0] | grp[0], merged[1] + grp[1], merged[2] | grp[2]]
            else:
                rest.append(grp)
        groups = rest + [merged]
    return [(grp[0], grp[1]) for grp in groups]


def settlements_gain(g, p: int, space: int) -> tuple[int, int]:
    """Open point 4: (joins two or more groups that were apart, growth in Settlements of the group the
    new unit joins); compared as a tuple, so any join ranks above any plain addition."""
    pl = g.players[p]
    before = settlement_groups(g, pl.spaces, pl.shipping)
    bit = 1 << space
    after = settlement_groups(g, pl.spaces | bit, pl.shipping)
    mine, size = next((m, n) for m, n in after if m & bit)
    touched = [n for m, n in before if m & mine]
    if not touched:
        return (0, 0)                   # a unit on its own joins no group
    return (1 if len(touched) >= 2 else 0, size - max(touched))


def neighbourhood_choice(g, p: int, space: int, taken: int = 0) -> tuple[list[int], int]:
    """§3.1 Neighbourhood bonus: the Goods it could buy (lowest Price marker; random among these)
    and how many: by bracket, at most its free Merchants and the base game's cap for one Good."""
    pl = g.players[p]
    limit = min(pl.merchants_stock - taken, neighbourhood_limit(g, p))
    if limit <= 0:
        return [], 0
    best, low, qty = [], None, 0
    for good in bits(neighbourhood_goods(g, p, space)):
        if pl.merchants_market[good * 2 + SELL]:
            continue                                  # no buy and sell Merchants on one Good in a round
        q = min(NEIGHBOURHOOD_BUY[bracket(g.prices[good])], limit)
        if q <= 0:
            continue
        step = g.prices[good]
        if low is None or step < low:
            best, low, qty = [good], step, q
        elif step == low:
            best.append(good)
    return best, qty


def market_choice(g, p: int, market: int, taken: int, bought: int = -1) -> tuple[list[int], int]:
    """§3.1 Farmers market: the uncovered Goods it could sell there (highest Price marker) and how
    many, by bracket, at most its free Merchants; never a Good it bought this round."""
    pl = g.players[p]
    limit = min(pl.merchants_stock - taken, D.MARKET_MAX_SELL)
    if limit <= 0:
        return [], 0
    best, high, qty = [], None, 0
    for good in FM.uncovered_goods(g, market):
        if pl.merchants_market[good * 2 + BUY] or good == bought:
            continue
        q = min(MARKET_SELL[bracket(g.prices[good])], limit)
        if q <= 0:
            continue
        step = g.prices[good]
        if high is None or step > high:
            best, high, qty = [good], step, q
        elif step == high:
            best.append(good)
    return best, qty


def neighbouring_markets(g, space: int) -> list[int]:
    if not g.config.farmers_markets:
        return []
    nb = g.topo.neighbours[space]
    return [s for s in FM.market_spaces(g) if nb >> s & 1]


def bonus_merchants(g, p: int, space: int) -> int:
    """Merchants the Neighbourhood bonus (and Farmers markets) of ``space`` would place (the Max
    Neighbourhood criterion; each one earns £3)."""
    goods, n = neighbourhood_choice(g, p, space)
    bought = goods[0] if len(goods) == 1 else -1
    total = n
    for market in neighbouring_markets(g, space):
        _, q = market_choice(g, p, market, total, bought)
        total += q
    return total


def criterion_value(g, p: int, name: str, space: int, ports: int):
    """Bigger is better."""
    if name == "costs":
        return -g.topo.cost[space]
    if name == "port":
        return 1 if g.topo.reach[g.players[p].shipping][space] & ports else 0
    if name == "settlements":
        return settlements_gain(g, p, space)
    return bonus_merchants(g, p, space)


def choose_space(g, p: int, criteria, spaces: list[int], modules) -> int:
    """Open point 3: each criterion in order keeps the best candidates by it; ties left: random."""
    ports = unclaimed_ports(g, p, modules)
    for name in criteria:
        if len(spaces) == 1:
            break
        vals = {s: criterion_value(g, p, name, s, ports) for s in spaces}
        best = max(vals.values())
        spaces = [s for s in spaces if vals[s] == best]
    return spaces[g.rng.randrange(len(spaces))] if len(spaces) > 1 else spaces[0]


def choose_unit(g, p: int, units: list[int], preferred: int) -> int:
    """§2.5 / open point 18: the first type of the preference cycle from ``preferred`` that fits; for
    a Worker, the upgraded type if exactly one is upgraded, else Woodcutter or Miner at random."""
    for k in range(len(UNIT_CYCLE)):
        t = UNIT_CYCLE[(preferred + k) % len(UNIT_CYCLE)]
        if t != WORKER:
            if t in units:
                return t
            continue
        workers = [u for u in (D.WOODCUTTER, D.MINER) if u in units]
        if len(workers) == 2:
            tech = g.players[p].tech
            if tech[0] != tech[1]:
                return D.WOODCUTTER if tech[0] else D.MINER
            return workers[g.rng.randrange(2)]
        if workers:
            return workers[0]
    raise AssertionError("no unit fits a candidate space")  # pragma: no cover


def do_expand(g, p: int, support: Card):
    modules, criteria, cand = expand_plan(g, p, support)
    if not cand:
        return None
    st = state(g, p)
    space = choose_space(g, p, criteria, sorted(cand), modules)
    preferred = (st.pointer + support.steps) % len(UNIT_CYCLE)
    unit = choose_unit(g, p, cand[space], preferred)
    cost = placement_cost(g, p, unit, space, False)
    g.players[p].money -= cost
    place_unit(g, p, unit, space)
    notify_deploy(g, p, unit, space, PLACE_EXPAND)        # the Automa is another player (R18.MI1)
    st.pointer = preferred
    where = ", ".join(MODULE_NAMES[m] for m in modules)
    out = (f"Expand in {where} by {' > '.join(CRITERION_NAMES[c] for c in criteria)}; expands a "
           f"{D.UNITS[unit]} to {g.board.label[space]} (£{cost})")
    out += deployment_bonuses(g, p, space)
    out += claim_ports(g, p)
    return out


def deployment_bonuses(g, p: int, space: int) -> str:
    """The Neighbourhood bonus (buys by bracket, £3 per Merchant), then each neighbouring Farmers
    market (sells by bracket, £3 per Merchant); no Goods change hands, prices move."""
    pl = g.players[p]
    out = ""
    goods, q = neighbourhood_choice(g, p, space)
    bought = -1
    if q:
        good = goods[g.rng.randrange(len(goods))] if len(goods) > 1 else goods[0]
        place_merchants(g, p, good, BUY, q, NEIGHBOURHOOD_MONEY)
        bought = good
        out += f", Neighbourhood bonus: buys {q} {D.GOODS[good]} (+£{q * NEIGHBOURHOOD_MONEY})"
    for market in neighbouring_markets(g, space):
        if market not in FM.market_spaces(g):
            continue
        goods, q = market_choice(g, p, market, 0, bought)
        if not q:
            continue
        good = goods[g.rng.randrange(len(goods))] if len(goods) > 1 else goods[0]
        place_merchants(g, p, good, SELL, q, MARKET_MONEY)
        FM.cover(g, market, good)
        out += f", Farmers market {g.board.label[market]}: sells {q} {D.GOODS[good]} (+£{q * MARKET_MONEY})"
    return out


def place_merchants(g, p: int, good: int, direction: int, qty: int, money_each: int) -> None:
    """Merchants to the Market with no Goods and no price paid: the price moves, money per Merchant."""
    pl = g.players[p]
    pl.merchants_stock -= qty
    pl.merchants_market[good * 2 + direction] += qty
    move_price(g, good, qty if direction == BUY else -qty)
    pl.money += qty * money_each


def claim_ports(g, p: int) -> str:
    """§3.1 Port bonus / open point 17: every Port tile newly in reach is claimed at once for £10."""
    if not g.port_tiles:
        return ""
    pl = g.players[p]
    r = reach(g, p)
    out = ""
    for slot in range(len(g.port_tiles)):
        if not pl.ports_used >> slot & 1 and r >> g.topo.port_space[slot] & 1:
            pl.ports_used |= 1 << slot
            pl.money += PORT_MONEY
            out += f", claims the Port of module {MODULE_NAMES[slot]} (+£{PORT_MONEY})"
    return out


# ---- Upgrade, Technology upgrade (§3.5, §3.6) -----------------------------------------------------
def do_upgrade(g, p: int, support: Card):
    pl = g.players[p]
    if pl.money < UPGRADE_COST:
        return None
    order = ("shipping", "merchant") if support.upgrade == "shipping" else ("merchant", "shipping")
    for kind in order:
        if kind == "shipping" and pl.shipping < D.MAX_SHIPPING:
            pl.money -= UPGRADE_COST
            pl.shipping += 1
            pl.reach = -1
            return f"Upgrade: shipping to {D.SHIPPING_LEVELS[pl.shipping]} (£{UPGRADE_COST})" + claim_ports(g, p)
        if kind == "merchant" and pl.merchants_board > 0:
            pl.money -= UPGRADE_COST
            pl.merchants_board -= 1
            pl.merchants_stock += 1
            return f"Upgrade: hires a Merchant (£{UPGRADE_COST})"
    return None


def do_tech_upgrade(g, p: int, support):
    pl = g.players[p]
    if pl.money < TECH_COST:
        return None
    kinds = [k for k, u in enumerate((D.WOODCUTTER, D.MINER)) if not pl.tech[k] and pl.units_placed(u) >= TECH_WORKERS]
    if not kinds:
        return None
    k = kinds[g.rng.randrange(2)] if len(kinds) == 2 else kinds[0]
    pl.money -= TECH_COST
    pl.tech[k] = True
    return f"Technology upgrade: {('woodcutter', 'miner')[k]} (£{TECH_COST})"


# ---- Trade (§3.2) ---------------------------------------------------------------------------------
def do_trade(g, p: int, support):
    pl = g.players[p]
    if pl.merchants_stock <= 0:
        return None
    market = pl.merchants_market
    untraded = [good for good in range(D.NUM_GOODS) if not market[good * 2] and not market[good * 2 + 1]]
    if not untraded:
        return None
    good = untraded[g.rng.randrange(len(untraded))]     # the rerolled Goods die
    preferred = (BUY, SELL)[g.rng.randrange(2)]
    die = 1 + g.rng.randrange(TRADE_DIE)
    qty = min(die, pl.merchants_stock)
    b = bracket(g.prices[good])
    direction = SELL if b > 0 else BUY if b < 0 else preferred
    place_merchants(g, p, good, direction, qty, TRADE_MONEY)
    return (f"Trade: {('buys', 'sells')[direction]} {qty} {D.GOODS[good]} (die {die}, "
            f"{('lower', 'medium', 'upper')[b + 1]} bracket; +£{qty * TRADE_MONEY})")


# ---- Export contracts (§3.3, §3.4) ------------------------------------------------------------------
def contract_cost(cid: int) -> int:
    """Money the Automa pays to fulfil: £5 per Basic good, £10 per Processed good or Meat."""
    c = D.CONTRACT_BY_ID[cid]
    return sum(n * FULFIL_GOOD_COST[i] for i, n in enumerate(c.goods)) + FULFIL_MEAT_COST * (c.beef + c.mutton)


def contract_bonus(cid: int) -> int:
    """The money a contract pays the Automa: printed money plus £5 per Upgrade / Free space bonus."""
    c = D.CONTRACT_BY_ID[cid]
    return c.money + BONUS_VALUE * (c.bonus_upgrade + c.free_space)


def import_counts(g) -> list[int]:
    """Imports on the Scoring track, counting contracts in a player's Export box as fulfilled."""
    counts = [sum(pl.imports[k] for pl in g.players) for k in range(D.NUM_IMPORTS)]
    for q in human_seats(g):
        for cid in g.players[q].open_contracts:
            for k, n in enumerate(D.CONTRACT_BY_ID[cid].imports):
                counts[k] += n
    return counts


def contract_rarity(cid: int, counts) -> int:
    kinds = [counts[k] for k, n in enumerate(D.CONTRACT_BY_ID[cid].imports) if n]
    return min(kinds) if kinds else 1 << 20       # no import good: never the rarest


def choose_contract(g, p: int) -> int:
    """The contract to take (0: none possible)."""
    pl = g.players[p]
    if pl.open_contracts:
        return 0
    fee = D.ROUND_COST[g.round - 1]
    shown = [cid for cid in g.display if cid >= 0]
    if g.round >= D.NUM_ROUNDS:
        shown = [cid for cid in shown if pl.money >= fee + contract_cost(cid)]
    elif pl.money < fee:
        return 0
    if not shown:
        return 0
    if g.round <= 3:
        key = {cid: (-contract_cost(cid), contract_bonus(cid)) for cid in shown}
    else:
        counts = import_counts(g)
        key = {cid: (-contract_rarity(cid, counts), contract_cost(cid)) for cid in shown}
    best = max(key.values())
    tied = [cid for cid in shown if key[cid] == best]
    return tied[g.rng.randrange(len(tied))] if len(tied) > 1 else tied[0]


def do_take_contract(g, p: int, support):
    cid = choose_contract(g, p)
    if not cid:
        return None
    pl = g.players[p]
    fee = D.ROUND_COST[g.round - 1]
    g.display[g.display.index(cid)] = -1
    pl.money -= fee
    pl.open_contracts.append(cid)
    out = f"Take contract: contract {cid} ({'receives' if fee < 0 else 'pays'} £{abs(fee)})"
    if g.round >= D.NUM_ROUNDS:
        out += "; " + fulfil(g, p)
    return out


def do_fulfil(g, p: int, support):
    pl = g.players[p]
    if not pl.open_contracts or pl.money < contract_cost(pl.open_contracts[0]):
        return None
    return fulfil(g, p)


def fulfil(g, p: int) -> str:
    """Pay money for the Goods and Meat; the imports (and their £1 track bonuses), hops and money as
    usual; each Upgrade or Free space bonus becomes £5."""
    pl = g.players[p]
    cid = pl.open_contracts.pop(0)
    cost = contract_cost(cid)
    pl.money -= cost
    before = pl.money
    record_fulfilled(g, p, cid)
    pl.money += contract_bonus(cid)
    return f"Fulfil contract: contract {cid} (pays £{cost}, gains £{pl.money - before})"


ACTIONS = {"expand": do_expand, "upgrade": do_upgrade, "tech_upgrade": do_tech_upgrade, "trade": do_trade,
           "take_contract": do_take_contract, "fulfil": do_fulfil}


# ---- round flow, production, scoring (§2.7, §4) ----------------------------------------------------
def preparation(g) -> None:
    """Rounds 2-5: £10 and the deck rebuilt with the new round's cards."""
    for p in g.config.automa_seats:
        g.players[p].money += PREPARATION_MONEY
        build_deck(g, p)
        log(g, p, f"Preparation: +£{PREPARATION_MONEY}; {len(pile(g, p, 'pile'))} cards in its deck")


def produce(g, p: int) -> None:
    """§4.1: money from Workers as usual; £5 per income icon instead of Goods (no chain needed)."""
    pl = g.players[p]
    clan = g.clans[p]
    workers = sum(pl.units_placed(u) * clan.worker_income(g, p, u) for u in D.WORKERS if pl.units_placed(u))
    icons = sum(n * pl.units_placed(u) for u, n in INCOME_ICONS.items())
    pl.money += workers + icons * INCOME_ICON
    log(g, p, f"Production: £{workers} from Workers + £{icons * INCOME_ICON} for {icons} income icons")


def majorities(g, exports: list[int], settle: list[int]):
    """The 2-player Automa duel's Export and Settlement tables (§4.3), or None (3-4 players: the
    base game's tables). "anyone with exactly one fewer than the top gets 4" (1 or 2 fewer: 6) holds
    for a player with none too (docs/rules-interpretations.md A12)."""
    if g.num_players != 2:
        return None
    return (alternative_two_player_split(exports, D.EXPORT_TIERS[2], *TWO_PLAYER_EXPORT, second_minimum=0),
            alternative_two_player_split(settle, D.SETTLEMENT_TIERS[2], *TWO_PLAYER_SETTLEMENT, second_minimum=0))


def score_row(g, p: int, import_vp: int, export_vp: int, settle_vp: int) -> dict:
    """§4.3: fixed Glory by level, money / 5, hops, imports, the two majorities; no Goods or Awards."""
    pl = g.players[p]
    return {"glory": pl.glory + ROUND5_VP[level(g, p) - 1], "basic_goods": 0, "processed_goods": 0,
            "money": pl.money // MONEY_PER_VP, "hops": pl.hops, "imports": import_vp, "export_bonus": export_vp,
            "settlement_bonus": settle_vp, "award": 0}


def train_score_lines(g, p: int) -> dict:
    """§6.3 / §4.3: with the Train module an Automa scores the fixed round5VPTrain of its level (10-50) as
    its Train-delivery VP, whatever the number of players; never Milestone VP (it claims none, also in the
    Milestone variants; docs/rules-interpretations.md A14-A17)."""
    row = {"delivery_track": ROUND5_VP_TRAIN[level(g, p) - 1]} if g.config.trains else {}
    row["milestones"] = 0
    return row


def award_vp(g, values: list[int], tile: int) -> list[int]:
    """§6.2: one player: the Automa Award card's thresholds; more: the Award tile among the players
    only (their count sets the table). Automas score no Award."""
    humans = human_seats(g)
    out = [0] * g.num_players
    if len(humans) == 1:
        low, high = D.AWARD_SOLO_THRESHOLDS[tile]
        below, middle, top = D.AWARD_SOLO_VP
        v = values[humans[0]]
        out[humans[0]] = top if v >= high else middle if v >= low else below
        return out
    for q, vp in zip(humans, tier_split([values[q] for q in humans], D.AWARD_TIERS[len(humans)])):
        out[q] = vp
    return out


# ---- invariants (invariants.check_invariants) -----------------------------------------------------
def invariant_errors(g) -> list[str]:
    """What is wrong with the Automa seats' state (empty when all is well)."""
    out = []
    for p in g.config.automa_seats:
        pl = g.players[p]
        st = state(g, p)
        if any(pl.goods):
            out.append(f"Automa {p} holds Goods {pl.goods}")
        if len(pl.open_contracts) > 1:
            out.append(f"Automa {p} holds {len(pl.open_contracts)} contracts (at most one)")
        if st.level != level(g, p) or not 0 <= st.pointer < len(UNIT_CYCLE):
            out.append(f"Automa {p} state {st.to_list()[:4]} does not match its level / pointer range")
        cards = st.pile + st.discard + st.removed + [c for c in (st.action, st.support) if c]
        expected = sorted(cid for cid, c in CARDS.items() if c.round <= g.round)
        if sorted(cards) != expected:
            out.append(f"Automa {p} cards {sorted(cards)} are not the cards of rounds 1-{g.round} {expected}")
        if any(not CARDS[c].remove for c in pile(g, p, "removed")):
            out.append(f"Automa {p} removed a card that stays in the game: {pile(g, p, 'removed')}")
        if pl.clan is not None:
            out.append(f"Automa {p} has clan {pl.clan}")
        out += _train_errors(g, p)
    return out


def _train_errors(g, p: int) -> list[str]:
    """§6.3: an Automa never has a Train (or Mini-train), never delivers, never claims a Milestone."""
    ts = g.modstate.get(TR.TRAINS)
    out = []
    if ts is None:
        return out
    for key in ("at", "mini"):
        where = getattr(ts, key)
        if where is not None and where[p] != -1:
            out.append(f"Automa {p} has a piece on the Train map ({key} = {where[p]})")
    for key, none in (("deliv", 0), ("tilt", 0), ("station", -1)):
        if ts.at is not None and getattr(ts, key)[p] != none:
            out.append(f"Automa {p} has {key} = {getattr(ts, key)[p]} (expected {none})")
    if ts.claims is not None and any(MS.claimed_by(g, k, p) for k in range(MS.NUM_SPOTS)):
        out.append(f"Automa {p} claimed a Milestone")
    return out


@register
class Automa(Module):
    """The Automa, the physical game's solo opponent, as a module (hook points: ``engine/modules.py``):
    it plays its own seats (``GameConfig.automa``)."""
    name = NAME
    record = AutomaState

    def seats(self, config) -> tuple:
        return config.automa_seats

    def setup_seats(self, g) -> None:
        setup_seats(g)

    def setup_frames(self, g) -> list:
        return starting_worker_frames(g)

    def prepare_round(self, g) -> None:
        preparation(g)

    def take_turn(self, g, p: int) -> None:
        take_turn(g, p)

    def produce(self, g, p: int) -> None:
        produce(g, p)                           # money instead of Goods (§4.1)

    def first_worker_mask(self, g, p: int, unit: int, mask: int) -> int:
        if FM.market_list(g):                   # away from Farmers markets
            mask &= worker_market_mask(g)
        return mask

    def score_split(self, g, exports: list, settle: list, split: tuple) -> tuple:
        return majorities(g, exports, settle) or split

    def score_row(self, g, p: int, import_vp: int, export_vp: int, settle_vp: int) -> dict:
        row = score_row(g, p, import_vp, export_vp, settle_vp)
        if g.config.trains or g.config.milestones:
            row.update(train_score_lines(g, p))
        return row
