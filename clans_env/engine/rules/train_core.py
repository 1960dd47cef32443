"""Industria, the Train module's state record and the small rules that trains.py, deliveries.py,
milestones.py and the Port tiles share (the layer under them: trains.py builds on deliveries.py,
which builds on this; ``trains`` re-exports every name here). State layout: trains.py's docstring.
"""
from __future__ import annotations

from typing import Any

from .. import trainmap as TM
from ..state import K_HOOK, K_STATION
from ..topology import bits
from ..modules import Record
from .common import TRAINS, shipping_reach, stacked_unit


class TrainState(Record):
    """The Train module's state in a game (``g.modstate["trains"]``, also for the Milestone variants without
    trains): the fields of trains.py's docstring (Train map, Demand tiles, stations), milestones.py's
    (``ms``, ``claims``, ``claim_round``) and deliveries.py's (``below``, ``reserved``, ``discarded``).
    ``demand_refill`` is the Demand tiles' refill area (R1.10, R2.4), not the Export contract refill board
    (refill_board.py). A field the game has not (``mini`` without Mini-trains, ...) is None."""
    __slots__ = ("at", "mini", "tilt", "deliv", "markers", "station", "bonus", "demand", "used", "demand_refill",
                 "pile", "solo_done", "ms", "claims", "claim_round", "below", "reserved", "discarded")
    # declared for mypy (the compiled build); a part the game has not is None, hence Any
    at: Any
    mini: Any
    tilt: Any
    deliv: Any
    markers: Any
    station: Any
    bonus: Any
    demand: Any
    used: Any
    demand_refill: Any
    pile: Any
    solo_done: Any
    ms: Any
    claims: Any
    claim_round: Any
    below: list
    reserved: list
    discarded: list
    MISC = {"at": ("tr_at", None), "mini": ("tr_mini", None), "tilt": ("tr_tilt", None),
            "deliv": ("tr_deliv", None), "markers": ("tr_markers", None), "station": ("tr_station", None),
            "bonus": ("tr_bonus", None), "demand": ("tr_demand", None), "used": ("tr_used", None),
            "demand_refill": ("tr_refill", None), "pile": ("tr_pile", None), "solo_done": ("tr_solo_done", None),
            "ms": ("tr_ms", None), "claims": ("tr_claims", None), "claim_round": ("tr_claim_round", None),
            "below": ("tr_below", []), "reserved": ("reserved", []), "discarded": ("tr_discarded", [])}

    def __init__(self, *values):
        if not values:      # a new game's: setup fills the parts it has
            values = (None,) * 15 + ([], [], [])
        super().__init__(*values)

#: the main decision's index for the Train action (R13.1)
#: offset of a Mini-train location in train_place / train_move answers (2-player side, <= 16 locations)
MINI_OFFSET = 16
TRAIN, MINITRAIN = 0, 1


def on(g) -> bool:
    return g.config.trains


_SIDES = {n: TM.side_for(n) for n in (1, 2, 3, 4)}


def train_players(g) -> int:
    """How many seats play the Train module: every seat but the Automas (Automa §6.3: with 1 player the
    solo rules R17.2-R17.4, with 2 or 3 players a normal 2- or 3-player Train game among them). State stays
    indexed by seat; an Automa seat never has a Train (docs/rules-interpretations.md A14)."""
    return g.num_players - len(g.hooks.engine_seats)


def side(g) -> TM.TrainSide:
    return _SIDES[g.num_players - len(g.hooks.engine_seats)]      # train_players(g), inline: a hot path


def has_minis(g) -> bool:
    return g.num_players - len(g.hooks.engine_seats) == 2


def solo(g) -> bool:
    """R17.2-R17.4 apply: one player plays the Train module (alone, or against Automas: A14)."""
    return train_players(g) == 1


def demand_spot_tile(g, loc: int) -> tuple[int, int]:
    s = side(g).demand_spot[loc]
    return s, g.modstate[TRAINS].demand[s]


# ---- the Delivery track and the Train station (R13.11, R13.14-R13.18) ----------------------------------
def take_track_marker(g, p: int) -> None:
    """R13.11: the leftmost marker of p's Delivery track: a Milestone marker to stock (R13.19), and the 5th
    the Train station, placed at once (R13.14). Also Port tile 17's Train half (R13.18)."""
    deliv = g.modstate[TRAINS].deliv
    deliv[p] += 1
    if deliv[p] <= TM.MARKERS:
        g.modstate[TRAINS].markers[p] += 1
    elif deliv[p] == TM.STATION_AFTER:
        g.stack.append((K_HOOK, p, "train_station"))


def station_targets(g, p: int) -> int:
    """R13.15: land spaces in p's reach with another player's unit, no station yet, not adjacent to a
    space with a station."""
    topo = g.topo
    stations = [s for s in g.modstate[TRAINS].station if s >= 0]
    near = 0
    for s in stations:
        near |= 1 << s
        near |= topo.neighbours[s] | _adjacent_mask(g, s)
    others = 0
    for q in range(g.num_players):
        if q != p:
            others |= g.players[q].spaces
    mask = shipping_reach(g, p) & topo.land_mask & others & ~near
    out = 0
    for s in bits(mask):
        if stacked_unit(g, s) < 0 and g.occupant[s] >= 0:       # Q27: room for one more (capacity 2)
            out |= 1 << s
    return out


def _adjacent_mask(g, s: int) -> int:
    return sum(1 << t for t in g.board.adjacent[s])


def offer_station_first(g, p: int) -> None:
    """R13.14 "before or after resolving that delivery's bonus tile": called with the bonus's decision on top
    of the stack and the ``train_station`` hook under it; when a space qualifies now, the player may place
    the station now (space:<s>, before the bonus) or ``done`` (after it, the hook). With no space now,
    "before" would only discard it (R13.17), so the station waits for after the bonus (T7)."""
    ts = g.modstate[TRAINS]
    if ts.deliv[p] == TM.STATION_AFTER and ts.station[p] == -1 and station_targets(g, p) and \
            any(f[0] == K_HOOK and f[1] == p and f[2] == "train_station" for f in g.stack[-3:]):
        g.stack.append((K_STATION, p, 1))


#: markers on a Delivery track (4 Milestone markers and the station): Port tile 17 needs one left
STATION_AFTER_TRACK = TM.STATION_AFTER
