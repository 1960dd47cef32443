"""The Train module's and Milestones' part of the observation's ``industria.*`` segment (written in Python
for both encoder paths, so the compiled and the pure-Python observations are bit-identical by
construction). Locations are indexed as on the train map side in play (data/trains.toml), padded to
``trainmap.MAX_LOCATIONS``; players are relative seats (me, opp1, ...)."""
from __future__ import annotations

from ..engine import data as D
from ..engine.actions import MAX_OPEN_CONTRACTS
from ..engine import trainmap as TM
from ..engine.rules import milestones as MS
from ..engine.rules import trains as TR
from ..engine.rules.common import TRAINS, contracts_under
from ..engine.state import K_DELIVERY
from .observation import CONTRACT_TABLE, CONTRACT_WIDTH

L = TM.MAX_LOCATIONS
NUM_BONUS = len(TM.DELIVERY_BONUSES)
NUM_MS = len(TM.MILESTONES)
DEMAND_REFILL_SLOTS = max(TM.REFILL_SLOTS.values())
MAX_PARTS = max(len(p) for p in TM.DELIVERY_PARTS.values())
#: contracts under an Export box's top one that the observation names (Delivery bonus 16); deeper ones
#: are counted in ``train.export_stack_size`` only
STACK_DEPTH = 3
#: Export boxes per player in the stack slices (Clan Buchanan's two; everyone else uses box 0)
STACK_BOXES = MAX_OPEN_CONTRACTS


def add_segment(seg, n: int, trains: bool = True) -> None:
    """The slices; ``trains`` False (an encoder for Industria configurations without the Train module) leaves
    out the Export box stacks, which only Delivery bonus 16 makes, so those layouts stay as they were."""
    seg.add("train.at", n * L, 0, 1, "each player's Train on this train-map location (relative seats)")
    seg.add("train.mini", n * L, 0, 1, "each player's Mini-train on this location (2 players, R15.2)")
    seg.add("train.tilted", n, 0, 1, "the Train is exhausted this round (R13.13)")
    seg.add("train.deliveries", n, 0, 1, "deliveries made / 5 (the Delivery track, R13.11)")
    seg.add("train.markers", n, 0, 1, "unlocked Milestone markers in stock / 4 (R13.19)")
    seg.add("train.station", n * 2, 0, 1, "Train station on the map, discarded (R13.14-R13.17)")
    seg.add("train.station_space", NUM_SPACES_, 0, 1, "a Train station on this map space")
    seg.add("train.city", L, 0, 1, "the location is a City (else a Town or none)")
    seg.add("train.locked", L, 0, 1, "the location is a City still locked for me (R13.3)")
    seg.add("train.demand", L * D.NUM_GOODS, 0, 1, "Goods of the Demand tile at this location / 3 (R13.9)")
    seg.add("train.demand_used", L, 0, 1, "the location's Demand tile was used this round (R2.2)")
    seg.add("train.bonus", L * NUM_BONUS, 0, 1, "the Delivery bonus tile on this location, one-hot (R1.9)")
    seg.add("train.refill", DEMAND_REFILL_SLOTS * D.NUM_GOODS, 0, 1, "Demand tiles on the refill area, leftmost first / 3")
    seg.add("train.pile", 1, 0, 1, "Demand tiles left in the pile / 30")
    seg.add("milestones.tiles", MS.NUM_SPOTS * NUM_MS, 0, 1, "the Milestone tile on each spot, one-hot")
    seg.add("milestones.claims", MS.NUM_SPOTS * n, 0, 1, "place in which each player claimed each spot / 4")
    seg.add("milestones.demand", MS.NUM_SPOTS * D.NUM_GOODS, 0, 1, "Variant B: Goods of the Demand tile beside "
            "each Milestone / 3 (R16.4)")
    seg.add("train.reserved", n * NUM_SPACES_, 0, 1, "a space reserved by this player's Merchant (Delivery bonus 19)")
    seg.add("decision.delivery", NUM_BONUS + MAX_PARTS, 0, 1,
            "delivery: the Delivery bonus tile being taken and its parts still open (R13.10)")
    if trains:
        seg.add("train.export_stack", n * STACK_BOXES * STACK_DEPTH * CONTRACT_WIDTH, 0, 1,
                f"Delivery bonus 16: the contracts under each player's Export box's top one (relative seats, "
                f"{STACK_BOXES} boxes), the next to surface first, up to {STACK_DEPTH}, contract features each")
        seg.add("train.export_stack_size", n * STACK_BOXES, 0, 1,
                f"contracts under each player's Export box's top one / {STACK_DEPTH} (clipped at 1)")


NUM_SPACES_ = 128


def write(vec, o: dict, game, seat: int) -> None:
    ts = game.modstate[TRAINS]
    n = game.num_players
    frame = game.stack[-1] if game.stack else None
    if frame is not None and frame[0] == K_DELIVERY:
        vec[o["decision.delivery"] + frame[2] - 1] = 1
        for k in range(MAX_PARTS):
            vec[o["decision.delivery"] + NUM_BONUS + k] = frame[3] >> k & 1
    if ts.below and "train.export_stack" in o:
        width = STACK_DEPTH * CONTRACT_WIDTH
        for p, pl in enumerate(game.players):
            rel = (p - seat) % n
            for b, cid in enumerate(pl.open_contracts):
                under = contracts_under(game, cid)
                if under:
                    vec[o["train.export_stack_size"] + rel * STACK_BOXES + b] = min(1.0, len(under) / STACK_DEPTH)
                    at = o["train.export_stack"] + (rel * STACK_BOXES + b) * width
                    for k, c in enumerate(under[:STACK_DEPTH]):
                        vec[at + k * CONTRACT_WIDTH:at + (k + 1) * CONTRACT_WIDTH] = CONTRACT_TABLE[c + 1]
    res = ts.reserved
    if res:
        for i in range(0, len(res), 2):
            vec[o["train.reserved"] + ((res[i + 1] - seat) % n) * NUM_SPACES_ + res[i]] = 1
    if ts.ms is not None:
        for k, t in enumerate(ts.ms):
            vec[o["milestones.tiles"] + k * NUM_MS + t - 1] = 1
            for p in range(n):
                place = ts.claims[k * n + p]
                vec[o["milestones.claims"] + k * n + (p - seat) % n] = place / 4
    if ts.at is None:
        if ts.demand is not None:                 # Variant B
            for k, t in enumerate(ts.demand):
                if t:
                    for i, q in enumerate(TM.DEMAND_TILES[t]):
                        vec[o["milestones.demand"] + k * D.NUM_GOODS + i] = q / 3
        return
    sd = TR.side(game)
    for p in range(n):
        rel = (p - seat) % n
        if ts.at[p] >= 0:
            vec[o["train.at"] + rel * L + ts.at[p]] = 1
        if ts.mini is not None and ts.mini[p] >= 0:
            vec[o["train.mini"] + rel * L + ts.mini[p]] = 1
        vec[o["train.tilted"] + rel] = ts.tilt[p]
        vec[o["train.deliveries"] + rel] = min(ts.deliv[p], 5) / 5
        vec[o["train.markers"] + rel] = ts.markers[p] / 4
        st = ts.station[p]
        if st >= 0:
            vec[o["train.station"] + rel * 2] = 1
            vec[o["train.station_space"] + st] = 1
        elif st == -2:
            vec[o["train.station"] + rel * 2 + 1] = 1
    for loc in range(sd.num_locations):
        if sd.kind[loc] == TM.CITY:
            vec[o["train.city"] + loc] = 1
            if not TR.city_open(game, seat, loc):
                vec[o["train.locked"] + loc] = 1
        spot = sd.demand_spot[loc]
        t = ts.demand[spot]
        if t:
            for i, q in enumerate(TM.DEMAND_TILES[t]):
                vec[o["train.demand"] + loc * D.NUM_GOODS + i] = q / 3
        vec[o["train.demand_used"] + loc] = ts.used[spot]
        b = ts.bonus[loc]
        if b:
            vec[o["train.bonus"] + loc * NUM_BONUS + b - 1] = 1
    for k, t in enumerate(ts.demand_refill):
        for i, q in enumerate(TM.DEMAND_TILES[t]):
            vec[o["train.refill"] + k * D.NUM_GOODS + i] = q / 3
    vec[o["train.pile"]] = len(ts.pile) / len(TM.DEMAND_TILES)
