"""Industria, the Train module (player aid "Train Module"; rules R1.8-R1.13, R2.2-R2.5, R13.1-R13.18,
R15.2-R15.7, R17.2-R17.5 of docs/rules-index.md). Milestones are in milestones.py, the 24
Delivery bonuses in deliveries.py, the static map in ../trainmap.py.

State: one ``train_core.TrainState`` in ``g.modstate["trains"]`` (its fields, flat lists of ints; None where
the game has not that part: ``mini`` without Mini-trains, ``solo_done`` in a multi-player game, ``at`` ... in
the Milestone variants without trains):

- ``tr_at`` / ``tr_mini``: each player's Train / Mini-train location (-1 = not placed; Mini-trains in
  2-player games only, R15.2); ``tr_tilt``: 1 once the Train is exhausted this round (R13.13).
- ``tr_deliv``: deliveries made (the Delivery track markers taken, R13.11); ``tr_markers``: unlocked
  Milestone markers in stock (R13.19); ``tr_station``: -1 on the track, -2 discarded (R13.17), else its space.
- ``tr_bonus``: the Delivery bonus tile on each location (0 = none; solo: 0 once delivered there, R17.3).
- ``tr_demand`` / ``tr_used``: the Demand tile on each Demand spot (0 = none) and whether it was used this
  round (R2.2); ``tr_refill``: the face-up refill area, leftmost first; ``tr_pile``: the hidden Demand pile.
- Milestone spots: see milestones.py (``tr_ms``, ``tr_claims``, ``tr_claim_round``).

Decisions: ``train_place`` (R1.12/R1.13, choose:<location>; 2-player first placements also
choose:<16 + location> for the Mini-train), ``train_move`` (R13.2-R13.8: choose:<location> for each step,
done to stop after one; the first answer of a Tunnel's additional action may be done, declining it),
``station`` (R13.14-R13.17, space:<s>). The main decision offers the Train action as
choose:31 (TRAIN_ACTION) and the Milestone claim as choose:30 (milestones.CLAIM_ACTION).
"""
from __future__ import annotations

from .. import data as D
from .. import trainmap as TM
from ..actions import CHOOSE, DONE, PASS, SPACE
from ..modules import Module, register
from ..state import K_HOOK, K_STATION, K_TRAIN_MOVE, K_TRAIN_PLACE
from ..topology import bits
from . import deliveries as DL
from . import milestones as MS
from .common import TRAINS, shipping_reach  # noqa: F401 (re-exported)
from .registry import apply_for, describe_for, hook, legal_for
from .train_core import (  # noqa: F401 (re-exported: trains.X names each part of the Train module)
    MINI_OFFSET, MINITRAIN, STATION_AFTER_TRACK, TRAIN, TrainState, demand_spot_tile, has_minis, offer_station_first, on, side, solo,
    station_targets, take_track_marker, train_players)
from .deliveries import IMPLEMENTED, demand_payments
from .milestones import milestone_vp, setup_milestones

TRAIN_ACTION = CHOOSE + 31
# ---- setup (R1.9-R1.12) -------------------------------------------------------------------------------
def setup(g) -> None:
    """R1.9: Delivery bonus tiles on every location, Milestone tiles on the 4 spots and Demand tiles on the
    Demand spots, each drawn at random; R1.10: the refill area; R1.11: markers and station on the track."""
    rng = g.rng
    sd = side(g)
    n = g.num_players
    bonuses = [b for b in TM.DELIVERY_BONUSES if b in IMPLEMENTED]   # the modelled tiles (deliveries.py)
    rng.shuffle(bonuses)
    ts = g.modstate[TRAINS] = TrainState()
    ts.bonus = bonuses[:sd.num_locations]
    setup_milestones(g)
    pile = list(TM.DEMAND_TILES)
    rng.shuffle(pile)
    ts.demand = [pile.pop(0) for _ in range(sd.num_demand_spots)]
    ts.used = [0] * sd.num_demand_spots
    ts.demand_refill = [pile.pop(0) for _ in range(TM.REFILL_SLOTS[train_players(g)])]
    ts.pile = pile
    ts.at = [-1] * n
    if has_minis(g):
        ts.mini = [-1] * n
    ts.tilt = [0] * n
    ts.deliv = [0] * n
    ts.markers = [0] * n
    ts.station = [-1] * n
    if solo(g):
        ts.solo_done = [0] * sd.num_locations


def placement_frames(g) -> list:
    """R1.12: after the first Workers, in reverse turn order, each Train on a Town; R1.13 (2 players): the
    2nd player places a Train or Mini-train, then the 1st; then the 2nd the other one, then the 1st.
    An Automa places no Train (Automa §6.3): the players' turn order without it."""
    if not on(g):
        return []
    seats = g.hooks.engine_seats
    order = [p for p in g.turn_order if p not in seats] if seats else g.turn_order
    if has_minis(g):
        first, second = order
        return [(K_TRAIN_PLACE, second, -1), (K_TRAIN_PLACE, first, -1),
                (K_TRAIN_PLACE, second, 2), (K_TRAIN_PLACE, first, 2)]
    return [(K_TRAIN_PLACE, p, TRAIN) for p in reversed(order)]


def occupied_locations(g) -> set:
    out = {x for x in g.modstate[TRAINS].at if x >= 0}
    if has_minis(g):
        out |= {x for x in g.modstate[TRAINS].mini if x >= 0}
    return out


@legal_for(K_TRAIN_PLACE)
def legal_train_place(g, frame) -> list:
    _, p, which = frame
    taken = occupied_locations(g)
    free = [t for t in side(g).towns if t not in taken]
    if which == -1:
        return [CHOOSE + t for t in free] + [CHOOSE + MINI_OFFSET + t for t in free]
    return [CHOOSE + t for t in free]


@apply_for(K_TRAIN_PLACE)
def apply_train_place(g, frame, action: int) -> None:
    _, p, which = frame
    g.stack.pop()
    k = action - CHOOSE
    if which == -1:
        piece, loc = (MINITRAIN, k - MINI_OFFSET) if k >= MINI_OFFSET else (TRAIN, k)
    elif which == 2:
        piece, loc = (MINITRAIN if g.modstate[TRAINS].at[p] >= 0 else TRAIN), k
    else:
        piece, loc = TRAIN, k
    ts = g.modstate[TRAINS]
    (ts.mini if piece == MINITRAIN else ts.at)[p] = loc


@describe_for(K_TRAIN_PLACE)
def describe_train_place(g, frame) -> str:
    sd = side(g)
    if frame[2] == -1:
        return (f"Place your Train (choose:<town>) or your Mini-train (choose:{MINI_OFFSET}+<town>) on a free Town "
                f"(R1.13); towns: " + ", ".join(f"{t}={sd.ids[t]}" for t in sd.towns))
    what = "Mini-train" if frame[2] == 2 and g.modstate[TRAINS].at[frame[1]] >= 0 else "Train"
    return f"Place your {what} on a free Town (choose:<town>; R1.12): " + ", ".join(f"{t}={sd.ids[t]}" for t in sd.towns)


# ---- Preparation (R2.2-R2.5) -------------------------------------------------------------------------
def preparation(g) -> None:
    """R2.2 discard the used Demand tiles; R2.3 refill Cities first, then Towns, from the leftmost tile of the
    refill area, lowest-numbered spot upward; R2.4 slide and top up the refill area; R2.5 Trains upright."""
    sd = side(g)
    ts = g.modstate[TRAINS]
    demand, used, refill, pile = ts.demand, ts.used, ts.demand_refill, ts.pile
    for s in range(sd.num_demand_spots):
        if used[s]:
            demand[s] = 0
            used[s] = 0
    order = [s for s in range(sd.num_demand_spots) if sd.spot_is_city[s]] + \
            [s for s in range(sd.num_demand_spots) if not sd.spot_is_city[s]]
    for s in order:
        if not demand[s] and refill:
            demand[s] = refill.pop(0)
    while len(refill) < TM.REFILL_SLOTS[train_players(g)] and pile:
        refill.append(pile.pop(0))
    tilt = g.modstate[TRAINS].tilt
    for p in range(g.num_players):
        tilt[p] = 0


# ---- movement (R13.2-R13.8, R15.4-R15.7) ---------------------------------------------------------------
def city_open(g, p: int, loc: int) -> bool:
    """R13.3/R13.22: a City can be passed or reached once p claimed its Milestone."""
    spot = side(g).city_spot(loc)
    return spot < 0 or MS.claimed_by(g, spot, p)


def tunnel_open(g, p: int, a: int, b: int) -> bool:
    spot = side(g).tunnel_spot(a, b)
    return spot < 0 or MS.claimed_by(g, spot, p)


def _others_pieces(ts, p: int) -> tuple[int, dict]:
    """The locations of the other players' Trains and Mini-trains (a bit set) and how many stand on each
    (R13.5 / R15.7: a movement meets each piece on the locations it passes or reaches once, and pays £3 for
    it; p's own pieces never pay, R15.6)."""
    occupied = 0
    count: dict = {}
    for q, x in enumerate(ts.at):
        if q != p and x >= 0:
            occupied |= 1 << x
            count[x] = count.get(x, 0) + 1
    minis = ts.mini
    if minis:
        for q, x in enumerate(minis):
            if q != p and x >= 0:
                occupied |= 1 << x
                count[x] = count.get(x, 0) + 1
    return occupied, count


def fee(g, p: int, locs) -> int:
    """R13.5: £3 per player whose Train is on a location passed or reached (each player once); 2 players,
    R15.7: £3 per opponent Train or Mini-train met; own trains never pay (R15.6)."""
    _, count = _others_pieces(g.modstate[TRAINS], p)
    return TM.PASS_FEE * sum(count.get(loc, 0) for loc in set(locs))


def can_deliver(g, p: int, loc: int) -> bool:
    """R13.8: a Demand tile is there and p can pay its Goods (R13.9; with Port tile 16's Train half, less,
    deliveries.demand_options); solo R17.3: once per location."""
    _, tile = demand_spot_tile(g, loc)
    if not tile:
        return False
    solo_done = g.modstate[TRAINS].solo_done
    if solo_done and solo_done[loc]:
        return False
    return bool(demand_payments(g, p, tile))


def deliverable(g, p: int) -> int:
    """Locations where p could deliver now (R13.8/R13.9), ignoring the way there, as a bit set."""
    return _deliverable_among(g, p, _ALL_SPOTS[side(g).name])


def _deliverable_among(g, p: int, spots: tuple[tuple[int, int], ...]) -> int:
    """``deliverable`` over the given (Demand spot, its locations) pairs only."""
    ts = g.modstate[TRAINS]
    # What p lacks, as a bit set over (Good, 1 / 2 of it): a Demand tile asks 0-2 of each Good (_need_mask),
    # so it can be paid when it asks nothing p lacks. One expression: the main decision asks at every turn.
    # (the annotated locals here and in can_take_train_action are for the compiled build, setup.py: typed, mypyc
    # does their arithmetic natively; the rest of the state is untyped there: the Train check x0.75 compiled)
    goods: list[int] = g.players[p].goods
    a, b, c, d, e, f = goods
    lacking: int = ~((3 if a > 1 else a) | (3 if b > 1 else b) << 2 | (3 if c > 1 else c) << 4
                     | (3 if d > 1 else d) << 6 | (3 if e > 1 else e) << 8 | (3 if f > 1 else f) << 10)
    demand: list[int] = ts.demand
    out: int = 0
    s: int
    members: int
    if 16 in g.port_tiles and DL.port16_slot(g, p) >= 0:
        for s, members in spots:         # also for less with Port tile 16's Train half (demand_payments)
            for need in _PORT16_NEED_MASKS[demand[s]]:
                if not need & lacking:
                    out |= members
                    break
    else:
        for s, members in spots:
            if not _NEED_MASKS[demand[s]] & lacking:
                out |= members
    solo_done = ts.solo_done
    if solo_done and out:
        for loc in bits(out):
            if solo_done[loc]:
                out &= ~(1 << loc)
    return out


def _need_mask(need: tuple) -> int:
    """The (Good, 1 / 2 of it) bits a way to pay asks (``_deliverable_among``'s bit set of what p has)."""
    assert len(need) == D.NUM_GOODS == 6 and max(need) <= 2
    return sum((1 if q == 1 else 3) << 2 * i for i, q in enumerate(need) if q)


#: Demand tile -> the bits its Goods ask; no tile (0): a bit nobody has
_NEED_MASKS: tuple[int, ...] = tuple(_need_mask(TM.DEMAND_TILES[t]) if t else 1 << 2 * D.NUM_GOODS
                                     for t in range(max(TM.DEMAND_TILES) + 1))
#: Demand tile -> the bits of each way to pay it with Port tile 16's Train half (the full Goods, and less)
_PORT16_NEED_MASKS: tuple[tuple[int, ...], ...] = tuple(
    tuple(_need_mask(w) for w in (TM.DEMAND_TILES[t],) + DL.PORT16_NEEDS[t]) if t else ()
    for t in range(max(TM.DEMAND_TILES) + 1))


#: side name -> the locations of each Demand spot
_SPOT_LOCATIONS = {sd.name: tuple(tuple(i for i in range(sd.num_locations) if sd.demand_spot[i] == s)
                                  for s in range(sd.num_demand_spots)) for sd in TM.SIDES.values()}
_SPOT_MASKS = {name: tuple(sum(1 << i for i in locs) for locs in spots) for name, spots in _SPOT_LOCATIONS.items()}


#: side name -> (Demand spot, its locations) for every Demand spot
_ALL_SPOTS = {name: tuple(enumerate(masks)) for name, masks in _SPOT_MASKS.items()}


def paths(g, p: int, piece: int, first_only: bool = False, ends: int | None = None) -> list[tuple[int, int, int, bool]]:
    """Every legal movement (mid (-1 for one step), destination, fee, Tunnel used) of p's Train or Mini-train
    (``first_only``: stop at the first one found; ``ends``: ``train_ends(g, p)`` if known).

    R13.2-R13.4: locked Tunnels and Cities (until p claims their Milestone) are neither passed nor reached;
    R13.5/R15.7: £3 per other player's piece on a location passed or reached, each piece once, and no move
    into a location p cannot pay for; a Train ends where it can deliver (R13.8), never where it started or
    on p's other piece."""
    ts = g.modstate[TRAINS]
    at = ts.at
    minis = ts.mini             # 2-player Train games only (R15.2; with Automas: two players, A14)
    if piece == MINITRAIN:
        start, other = minis[p], at[p]
    else:
        start, other = at[p], (minis[p] if minis else -1)
    out: list = []
    if ends is None:
        ends = train_ends(g, p) if piece == TRAIN else -1
    if not ends:
        return out
    money = g.players[p].money
    occupied, count = _others_pieces(ts, p)
    fee = TM.PASS_FEE
    for a, tunnel_a, further in ways_from(g, p, start)[3]:
        met_a = count[a] if occupied >> a & 1 else 0
        f1 = fee * met_a
        if f1 > money:
            continue                   # R13.5: cannot move into a location it cannot pay for
        if a != other and ends >> a & 1:
            out.append((-1, a, f1, tunnel_a))
            if first_only:
                return out
        for b, tunnel_b in further:
            if b == other or not ends >> b & 1:
                continue
            f2 = fee * (met_a + (count[b] if occupied >> b & 1 else 0))
            if f2 <= money:
                out.append((a, b, f2, tunnel_a or tunnel_b))
                if first_only:
                    return out
    return out


def train_ends(g, p: int) -> int:
    """Where p's Train could deliver at the end of a movement (``deliverable`` within its open ways, the only
    places a movement ends)."""
    start = g.modstate[TRAINS].at[p]
    return _deliverable_among(g, p, ways_from(g, p, start)[1]) if start >= 0 else 0


def unlocked_spots(g, p: int) -> int:
    """The Milestone spots p claimed, as a bit set: their City or Tunnel is open for p (R13.3/R13.4)."""
    claims = g.modstate[TRAINS].claims
    n = g.num_players
    return ((claims[p] > 0) | (claims[n + p] > 0) << 1 | (claims[2 * n + p] > 0) << 2
            | (claims[3 * n + p] > 0) << 3)          # MS.NUM_SPOTS = 4 spots, spot-major


assert MS.NUM_SPOTS == 4


def open_ways(sd, start: int, unlocked: int) -> tuple[int, tuple, tuple, tuple]:
    """Where a Train or Mini-train from ``start`` may go for a player with the ``unlocked`` Milestone spots
    (R13.3/R13.4: locked Tunnels and Cities are neither passed nor reached), remembered per side, start and
    unlocked spots (the map never changes):

    - the locations one or two open tracks away (``start`` aside): where a Train that pays every fee may
      stop (``paths`` without fees, ends and the other piece);
    - the (Demand spot, its locations among them) pairs of the Demand spots there (where a Train could
      deliver);
    - steps: (a location one open track away, the bit set of those one open track further, ``start`` aside);
    - routes: the same as (location, through a Tunnel, ((further location, through a Tunnel), ...)), in the
      map's order (``paths`` lists movements in it)."""
    table = _OPEN_WAYS[sd.name]
    key = start << MS.NUM_SPOTS | unlocked
    out = table.get(key)
    if out is None:
        adj = sd.locked_adj
        ends = 0
        steps = []
        routes = []
        for a, ta, ca in adj[start]:
            if (ta >= 0 and not unlocked >> ta & 1) or (ca >= 0 and not unlocked >> ca & 1):
                continue
            further = tuple((b, tb >= 0) for b, tb, cb in adj[a] if b != start and not (
                (tb >= 0 and not unlocked >> tb & 1) or (cb >= 0 and not unlocked >> cb & 1)))
            mask = sum(1 << b for b, _ in further)
            ends |= 1 << a | mask
            steps.append((a, mask))
            routes.append((a, ta >= 0, further))
        out = table[key] = (ends, tuple((s, m & ends) for s, m in enumerate(_SPOT_MASKS[sd.name]) if m & ends),
                            tuple(steps), tuple(routes))
    return out


#: side name -> {start << 4 | unlocked spots: ``open_ways``}
_OPEN_WAYS: dict = {name: {} for name in _SPOT_MASKS}


def ways_from(g, p: int, start: int) -> tuple[int, tuple, tuple, tuple]:
    """``open_ways`` of p's Train or Mini-train on ``start`` (p's unlocked spots, this game's side), looked up
    in one step by the Train players, ``start`` and p's claims (their places: one key per combination, the
    same ways for any place): the main decision asks at every turn, and three calls cost more than the rest
    of its question."""
    n = g.num_players
    key = (n - len(g.hooks.engine_seats), start, *g.modstate[TRAINS].claims[p::n])
    out = _WAYS_FROM.get(key)
    if out is None:
        out = _WAYS_FROM[key] = open_ways(side(g), start, unlocked_spots(g, p))
    return out


#: (Train players, start, p's claim on each spot) -> ``open_ways``
_WAYS_FROM: dict = {}


def _can_move(steps: tuple, ends: int, money: int, occupied: int, count: dict) -> bool:
    """Whether p's Train has a movement (``open_ways``' steps) ending on ``ends`` whose fee p can pay: £3 per
    other player's piece on a location passed or reached (R13.5/R15.7; ``_others_pieces``).
    ``paths(..., first_only=True)`` answered from bit sets."""
    affordable = money // TM.PASS_FEE           # pieces p can pay to meet
    for a, further in steps:
        met = count[a] if occupied >> a & 1 else 0
        if met > affordable:
            continue                             # cannot move into a location it cannot pay for
        if ends >> a & 1:
            return True
        reached = further & ends
        if reached:
            if reached & ~occupied:
                return True
            for b in bits(reached):
                if met + count[b] <= affordable:
                    return True
    return False


def _cheapest_to(steps: tuple, count: dict, ends: int) -> int:
    """The fewest other players' pieces met (R13.5) by a movement along ``steps`` ending on ``ends``; -1 if
    none ends there."""
    best = -1
    for a, further in steps:
        met = count.get(a, 0)
        if ends >> a & 1 and (best < 0 or met < best):
            best = met
        for b in bits(further & ends):
            m = met + count.get(b, 0)
            if best < 0 or m < best:
                best = m
    return best


def _mini_first_frees(g, ts, p: int, steps: tuple, money: int, count: dict) -> bool:
    """2 players, R15.4 "in either order": the Mini-train moves first, off a location where the Train could
    deliver, and the Train then ends there (the only way that order helps: the Mini-train's move only frees
    its location, R15.6, and costs money). Both fees are paid (R13.5/R15.7): the cheapest Mini-train move
    (anywhere but on the Train) and the cheapest Train movement to the freed location. ``mini_paths``'s
    first answer, from bit sets."""
    mini_at = ts.mini[p]
    train = _cheapest_to(steps, count, 1 << mini_at)
    if train < 0:
        return False
    mini = _cheapest_to(ways_from(g, p, mini_at)[2], count, ~(1 << ts.at[p]))
    return mini >= 0 and (train + mini) * TM.PASS_FEE <= money


def can_take_train_action(g, p: int, extra: bool = False) -> bool:
    """R13.1/R13.8: the Train is on the map and upright (``extra``: the Tunnel's additional action, tilted or
    not, R13.6), and some movement ends where it can deliver. 2 players (R15.4 "in either order"): also when
    only the Mini-train moving first frees the Train's way (its location, R15.5; T5)."""
    ts = g.modstate[TRAINS]
    at: list[int] = ts.at
    start: int = at[p]
    if start < 0 or (ts.tilt[p] and not extra):
        return False
    # where a movement could end if every fee were paid (open ways, R13.3/R13.4): no movement ends
    # elsewhere (paths), so only the Demand spots there are asked whether p can deliver
    reach: int
    spots: tuple[tuple[int, int], ...]
    reach, spots, steps, _ = ways_from(g, p, start)
    opened: int = _deliverable_among(g, p, spots)
    if not opened:
        return False
    minis = ts.mini
    other: int = minis[p] if minis else -1
    free_ends: int = opened & ~(1 << other if other >= 0 else 0)      # not on p's other piece (R15.6)
    money: int = g.players[p].money
    # p can pay the fee of every other piece on the map (R13.5), the usual case: no piece need be looked at
    if free_ends and money >= TM.PASS_FEE * (len(ts.at) - 1 + (len(minis) - 1 if minis else 0)):
        return True
    occupied, count = _others_pieces(ts, p)
    if free_ends:
        if money >= TM.PASS_FEE * sum(count[x] for x in bits(occupied & reach)):
            return True          # p can pay the fee of every other piece it could meet (R13.5)
        if _can_move(steps, free_ends, money, occupied, count):
            return True
    # The Mini-train moving first helps only by freeing its location as the Train's end (money only
    # goes down): only when the Train could deliver there.
    return (other >= 0 and bool(opened >> other & 1) and has_minis(g)
            and _mini_first_frees(g, ts, p, steps, money, count))


#: the last field of the first ``train_move`` frame of a Tunnel's additional Train action (R13.6)
EXTRA = 1


def start_train_action(g, p: int, extra: bool = False) -> None:
    """A Train action (R13.1; ``extra``: the additional one a Tunnel grants, R13.6, which the player may
    decline: its first decision also offers ``done``; T4). In 2-player games the Mini-train moves too, in
    either order (R15.4): the first answer says which piece moves first."""
    frame = (K_TRAIN_MOVE, p, -1 if has_minis(g) else TRAIN, -1)
    g.stack.append(frame + (EXTRA,) if extra else frame)


@legal_for(K_TRAIN_MOVE)
def legal_train_move(g, frame) -> list:
    p, piece, first = frame[1], frame[2], frame[3]
    decline = [DONE] if len(frame) > 4 else []      # R13.6: the Tunnel's additional action is optional
    if piece == -1:                    # 2 players: the Train or the Mini-train first
        ends = train_ends(g, p)        # both orders' Train deliveries (the Mini-train's move keeps them)
        free = _paths_without_mini(g, p, ends)
        mini_at = g.modstate[TRAINS].mini[p]
        # the Train first: its movements but those ending on the Mini-train (R15.6), the only difference
        train = sorted({(m if m >= 0 else d) for m, d, _, _ in free if d != mini_at})
        mini = sorted({(m if m >= 0 else d) for m, d, _, _ in mini_paths(g, p, ends=ends, train=free)})
        return [CHOOSE + x for x in train] + [CHOOSE + MINI_OFFSET + x for x in mini] + decline
    ps = mini_paths(g, p) if piece == MINITRAIN and _train_still_to_move(g, p) else paths(g, p, piece)
    if first < 0:
        return sorted({CHOOSE + (m if m >= 0 else d) for m, d, _, _ in ps}) + decline
    out = [CHOOSE + d for m, d, _, _ in ps if m == first]
    if any(m == -1 and d == first for m, d, _, _ in ps):
        out.append(DONE)
    return out


def _train_still_to_move(g, p: int) -> bool:
    return any(f[0] == K_HOOK and f[1] == p and f[2] == "train_other" and f[3] == TRAIN for f in g.stack[-2:])


def mini_paths(g, p: int, first_only: bool = False, ends: int | None = None, train: list | None = None) -> list:
    """Mini-train moves made before the Train's: only those after which the Train can still deliver
    (R13.8: a Train action always delivers; T5). ``ends``: where the Train could deliver (``train_ends``),
    and ``train``: ``_paths_without_mini``, if known."""
    out: list = []
    # Where the Train can deliver depends on Goods and Demand tiles only, and its fees on the others'
    # pieces, none of which the Mini-train's move changes; the move changes only where the Train may
    # not end (on the Mini-train, R15.6) and the money left for fees. So the Train's movements are
    # listed once as if the Mini-train were off the map, then checked against each Mini-train move.
    if ends is None:
        ends = train_ends(g, p)
    if not ends:
        return out
    if train is None:
        train = _paths_without_mini(g, p, ends)
    if not train:
        return out
    money = g.players[p].money
    for path in paths(g, p, MINITRAIN):
        dest, left = path[1], money - path[2]
        for _, d, f, _ in train:
            if d != dest and f <= left:
                out.append(path)
                break
        else:
            continue
        if first_only:
            break
    return out


def _paths_without_mini(g, p: int, ends: int) -> list:
    """p's Train's movements (``paths``) as if p's Mini-train were off the map (it blocks only their ends)."""
    mini = g.modstate[TRAINS].mini
    start = mini[p]
    mini[p] = -1
    try:
        return paths(g, p, TRAIN, ends=ends)
    finally:
        mini[p] = start


@apply_for(K_TRAIN_MOVE)
def apply_train_move(g, frame, action: int) -> None:
    p, piece, first = frame[1], frame[2], frame[3]
    g.stack.pop()
    if first < 0 and action == DONE:     # the Tunnel's additional Train action declined (R13.6)
        return
    if piece == -1:
        k = action - CHOOSE
        piece, loc = (MINITRAIN, k - MINI_OFFSET) if k >= MINI_OFFSET else (TRAIN, k)
        g.stack.append((K_HOOK, p, "train_other", 1 - piece))     # the other piece moves afterwards
        g.stack.append((K_TRAIN_MOVE, p, piece, loc))
        return
    if first < 0:
        g.stack.append((K_TRAIN_MOVE, p, piece, action - CHOOSE))
        return
    if action == DONE:
        finish_move(g, p, piece, _movement(g, p, piece, -1, first))
    else:
        finish_move(g, p, piece, _movement(g, p, piece, first, action - CHOOSE))


def _movement(g, p: int, piece: int, mid: int, dest: int) -> tuple[int, int, int, bool]:
    """The legal movement of p's piece through ``mid`` (-1: one track) to ``dest``, as ``paths`` lists it
    (mid, destination, fee, Tunnel used), read off its open ways instead of listing them all (the decision
    that chose it checked it is one; each pair of locations has one track, so it is the only one)."""
    ts = g.modstate[TRAINS]
    start = ts.mini[p] if piece == MINITRAIN else ts.at[p]
    first = dest if mid < 0 else mid
    occupied, count = _others_pieces(ts, p)
    met = count[first] if occupied >> first & 1 else 0
    for a, tunnel, further in ways_from(g, p, start)[3]:
        if a == first:
            if mid < 0:
                return (-1, dest, TM.PASS_FEE * met, tunnel)
            for b, tunnel_b in further:
                if b == dest:
                    return (mid, dest, TM.PASS_FEE * (met + (count[dest] if occupied >> dest & 1 else 0)),
                            tunnel or tunnel_b)
    raise AssertionError(f"no movement {start} -> {mid} -> {dest}")  # pragma: no cover - legality checked


@hook("train_other")
def train_other(g, p: int, piece: int) -> None:
    """R15.4: the other piece of a 2-player Train action moves (if it can)."""
    if paths(g, p, piece, first_only=True):
        g.stack.append((K_TRAIN_MOVE, p, piece, -1))


def finish_move(g, p: int, piece: int, path) -> None:
    """Pay the fees and move; the Train then delivers (R13.9-R13.13). 2 players, the Train first: its
    delivery waits until the Mini-train has moved and paid ("before resolving any delivery", R15.7; T5)."""
    mid, dest, f, tunnel = path
    g.players[p].money -= f
    if piece == MINITRAIN:
        g.modstate[TRAINS].mini[p] = dest          # R13.7: a Mini-train never grants the extra action
        return
    g.modstate[TRAINS].at[p] = dest
    stack = g.stack
    if stack and stack[-1] == (K_HOOK, p, "train_other", MINITRAIN):
        stack.insert(len(stack) - 1, (K_HOOK, p, "train_deliver", dest, int(tunnel)))
    else:
        train_deliver(g, p, dest, tunnel)


@hook("train_deliver")
def train_deliver(g, p: int, dest: int, tunnel: int) -> None:
    """The Train's delivery at ``dest`` (R13.9-R13.13); a Tunnel used grants an additional Train action after
    this one is complete: the delivery, its bonus and any station (R13.6)."""
    if tunnel:
        g.stack.append((K_HOOK, p, "train_extra"))
    DL.start_delivery(g, p, dest)


@hook("train_extra")
def train_extra(g, p: int) -> None:
    """R13.6 / Q20: the Tunnel's additional Train action (even though the Train was just tilted), if one is
    possible; the player may decline it (T4)."""
    if can_take_train_action(g, p, extra=True):
        start_train_action(g, p, extra=True)


@describe_for(K_TRAIN_MOVE)
def describe_train_move(g, frame) -> str:
    p, piece, first = frame[1], frame[2], frame[3]
    sd = side(g)
    decline = "; done declines this additional Train action (R13.6)" if len(frame) > 4 else ""
    if piece == -1:
        return (f"Train action: move your Train first (choose:<location>) or your Mini-train first "
                f"(choose:{MINI_OFFSET}+<location>), one location along a track (R15.4){decline}")
    what = "Mini-train" if piece == MINITRAIN else "Train"
    if first < 0:
        return (f"Train action: move your {what} from {sd.ids[(g.modstate[TRAINS].mini if piece else g.modstate[TRAINS].at)[p]]} one location along "
                f"a track (choose:<location>; £{TM.PASS_FEE} per other Train met, R13.5){decline}")
    return f"Train action: your {what} is passing {sd.ids[first]}; continue (choose:<location>) or stop there (done)"


@hook("train_station")
def train_station(g, p: int) -> None:
    if g.modstate[TRAINS].station[p] != -1:         # placed before the Delivery bonus (R13.14)
        return
    if station_targets(g, p):
        g.stack.append((K_STATION, p))
    else:
        g.modstate[TRAINS].station[p] = -2          # R13.17: back to the box


@legal_for(K_STATION)
def legal_station(g, frame) -> list:
    out = [SPACE + s for s in bits(station_targets(g, frame[1]))]
    return out + [DONE] if len(frame) > 2 else out      # (K_STATION, p, 1): now, or done = after the bonus


@apply_for(K_STATION)
def apply_station(g, frame, action: int) -> None:
    """R13.16: free, no Neighbourhood or Farmers market bonus. The station counts as one of p's units on the
    space for p's Settlements and reach (scoring.settlements, common.reach) and for the Milestones about p's
    units on the map (milestones.py); if the other player's unit leaves, the station stays and the space is
    p's only (a blocked space, common.remove_unit). It is neither deployed nor a unit type (T7)."""
    p = frame[1]
    g.stack.pop()
    if action == DONE:                   # after the Delivery bonus (the train_station hook, R13.14)
        return
    g.modstate[TRAINS].station[p] = action - SPACE
    g.players[p].reach = -1


@describe_for(K_STATION)
def describe_station(g, frame) -> str:
    if len(frame) > 2:
        return ("Place your Train station now, before the Delivery bonus (space:<space>), or done to place it "
                "after the bonus (R13.14); a land space in your reach with another player's unit, no station, "
                "not adjacent to a station (R13.15)")
    return ("Place your Train station (R13.15): a land space in your reach with another player's unit, no station, "
            "not adjacent to a station (space:<space>)")


def station_spaces(g) -> dict:
    """{space: owner} of the Train stations on the map."""
    ts = g.modstate.get(TRAINS)
    if ts is None or ts.station is None:
        return {}
    return {s: p for p, s in enumerate(ts.station) if s >= 0}


# ---- final scoring (R14.2-R14.4, R17.4-R17.5) ----------------------------------------------------------
def score_lines(g) -> list[dict]:
    """Per seat: ``delivery_track`` (trains), ``milestones``, and solo with the Train map ``train_map``
    (-30 VP, R17.5; the solo game only, not against an Automa). An Automa seat: its own lines
    (automa.train_score_lines, §6.3)."""
    n = g.num_players
    ms = milestone_vp(g)
    rows = []
    seats = g.hooks.engine_seats
    for p in range(n):
        if p in seats:                  # a seat a module plays scores its own lines (the Automa: §6.3)
            rows.append({})
            continue
        row = {}
        if on(g):
            k = g.modstate[TRAINS].deliv[p]
            row["delivery_track"] = TM.DELIVERY_TRACK_VP[min(k, len(TM.DELIVERY_TRACK_VP)) - 1] if k else 0
        row["milestones"] = ms[p]
        if on(g) and n == 1:
            row["train_map"] = -TM.SOLO_TRAIN_PENALTY
        rows.append(row)
    return rows


@register
class Trains(Module):
    """The Train module (R1.8-R1.13, R13, R14.2-R14.4, R15.2-R15.7; deliveries.py, milestones.py), and the
    Milestone variants without it (R16.2-R16.4), as a module (hook points: ``engine/modules.py``)."""
    name = TRAINS
    record = TrainState

    def setup(self, g) -> None:
        if g.config.trains:                     # the Train map's tiles (R1.9-R1.11)
            setup(g)
        else:                                   # the Milestone variants without the Train module (R16.2)
            MS.setup_variant(g)

    def late_setup_frames(self, g) -> list:
        return placement_frames(g)

    def prepare_round(self, g) -> None:
        if g.config.trains:                     # R2.2-R2.5
            preparation(g)
        elif g.config.milestones == "variant_b":   # R16.4
            MS.preparation_variant_b(g)

    def main_options(self, g, frame, out: list) -> None:
        p = frame[1]
        if g.config.trains and can_take_train_action(g, p):       # R13.1: the Train action
            out.append(TRAIN_ACTION)
        if g.modstate[TRAINS].ms is not None and MS.claimable(g, p, first_only=True):   # R13.19: Claim a Milestone
            out.append(MS.CLAIM_ACTION)
        if len(frame) > 2:                      # a Delivery bonus's bonus action (Q29): not Pass
            out.remove(PASS)

    def apply_main(self, g, p: int, action: int) -> bool:
        if action == MS.CLAIM_ACTION:
            g.stack.pop()
            MS.start_claim(g, p)
        elif action == TRAIN_ACTION:
            g.stack.pop()
            start_train_action(g, p)
        else:
            return False
        return True

    def score_lines(self, g) -> list:
        return score_lines(g)
