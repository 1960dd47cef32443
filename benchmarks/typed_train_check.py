"""The main decision's Train check on native typed state: a probe for issue 34, not part of the engine.

``rules/trains.can_take_train_action`` (with ``_deliverable_among``, ``ways_from``, ``_can_move``,
``_cheapest_to`` and ``_mini_first_frees``) written against typed classes, so that mypyc can compile it to
native attribute reads and int arithmetic, as it would the engine if ``Game``, ``PlayerState`` and the module
records were native classes. ``typed_state_probe.py`` times it against the engine's own function on the same
positions (pure Python and compiled by mypyc); ``tests/test_speed_benchmarks.py`` checks that it answers as the
engine does, so that the comparison stays about the same work. The map tables (``WAYS``, ``NEED``) and
Port tile 16's usability (``PlayerCopy.port16``) are filled from the engine by the probe.
"""
from __future__ import annotations

PASS_FEE = 3


class PlayerCopy:
    def __init__(self, goods: list[int], money: int, port16: bool) -> None:
        self.goods = goods
        self.money = money
        self.port16 = port16


class TrainCopy:
    def __init__(self, at: list[int], tilt: list[int], mini: list[int], claims: list[int], demand: list[int],
                 solo_done: list[int]) -> None:
        self.at = at
        self.tilt = tilt
        self.mini = mini
        self.claims = claims
        self.demand = demand
        self.solo_done = solo_done


class GameCopy:
    def __init__(self, num_players: int, train_players: int, players: list[PlayerCopy], ts: TrainCopy) -> None:
        self.num_players = num_players
        self.train_players = train_players
        self.players = players
        self.ts = ts


class Ways:
    """``trains.open_ways``: reach, (Demand spot, its locations there), (location, locations one further)."""
    def __init__(self, reach: int, spots: list[tuple[int, int]], steps: list[tuple[int, int]]) -> None:
        self.reach = reach
        self.spots = spots
        self.steps = steps


#: (Train players, start, p's claim on each of the 4 spots) -> Ways (``trains.ways_from``'s key)
WAYS: dict[tuple[int, int, int, int, int, int], Ways] = {}
#: Demand tile -> its Goods as (Good, 1 / 2 of it) bits; with Port tile 16, each way's
NEED: list[int] = []
NEED16: list[list[int]] = []


def ways_from(g: GameCopy, p: int, start: int) -> Ways:
    n = g.num_players
    c = g.ts.claims
    return WAYS[(g.train_players, start, c[p], c[n + p], c[2 * n + p], c[3 * n + p])]


def deliverable_among(g: GameCopy, p: int, spots: list[tuple[int, int]]) -> int:
    ts = g.ts
    pl = g.players[p]
    goods = pl.goods
    have = 0
    for i in range(6):
        h = goods[i]
        have |= (3 if h > 1 else h) << 2 * i
    lacking = ~have
    demand = ts.demand
    out = 0
    if pl.port16:
        for s, members in spots:
            for need in NEED16[demand[s]]:
                if not need & lacking:
                    out |= members
                    break
    else:
        for s, members in spots:
            if not NEED[demand[s]] & lacking:
                out |= members
    solo_done = ts.solo_done
    if solo_done and out:
        for loc in range(len(solo_done)):
            if out >> loc & 1 and solo_done[loc]:
                out &= ~(1 << loc)
    return out


def can_move(steps: list[tuple[int, int]], ends: int, money: int, occupied: int, count: dict[int, int]) -> bool:
    affordable = money // PASS_FEE
    for a, further in steps:
        met = count[a] if occupied >> a & 1 else 0
        if met > affordable:
            continue
        if ends >> a & 1:
            return True
        reached = further & ends
        if reached:
            if reached & ~occupied:
                return True
            b = 0
            while reached:
                if reached & 1 and met + count[b] <= affordable:
                    return True
                reached >>= 1
                b += 1
    return False


def cheapest_to(steps: list[tuple[int, int]], count: dict[int, int], ends: int) -> int:
    best = -1
    for a, further in steps:
        met = count.get(a, 0)
        if ends >> a & 1 and (best < 0 or met < best):
            best = met
        reached = further & ends
        b = 0
        while reached:
            if reached & 1:
                m = met + count.get(b, 0)
                if best < 0 or m < best:
                    best = m
            reached >>= 1
            b += 1
    return best


def can_take_train_action(g: GameCopy, p: int) -> bool:
    ts = g.ts
    start = ts.at[p]
    if start < 0 or ts.tilt[p]:
        return False
    ways = ways_from(g, p, start)
    opened = deliverable_among(g, p, ways.spots)
    if not opened:
        return False
    minis = ts.mini
    other = minis[p] if minis else -1
    free_ends = opened & ~(1 << other if other >= 0 else 0)
    money = g.players[p].money
    if free_ends and money >= PASS_FEE * (len(ts.at) - 1 + (len(minis) - 1 if minis else 0)):
        return True
    occupied = 0
    count: dict[int, int] = {}
    for q in range(len(ts.at)):
        x = ts.at[q]
        if q != p and x >= 0:
            occupied |= 1 << x
            count[x] = count.get(x, 0) + 1
    for q in range(len(minis)):
        x = minis[q]
        if q != p and x >= 0:
            occupied |= 1 << x
            count[x] = count.get(x, 0) + 1
    if free_ends:
        total = 0
        for x in count:
            if ways.reach >> x & 1:
                total += count[x]
        if money >= PASS_FEE * total:
            return True
        if can_move(ways.steps, free_ends, money, occupied, count):
            return True
    if other < 0 or not opened >> other & 1 or g.train_players != 2:
        return False
    train = cheapest_to(ways.steps, count, 1 << other)          # the Mini-train first (R15.4)
    if train < 0:
        return False
    mini = cheapest_to(ways_from(g, p, other).steps, count, ~(1 << start))
    return mini >= 0 and (train + mini) * PASS_FEE <= money
