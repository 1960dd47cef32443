"""Public views of the Train module and the Milestones (``public_state()["industria"]["trains"]``,
``render_text`` and ``clans play``). The Demand pile's order is hidden: only its size is shown."""
from __future__ import annotations

from . import data as D
from . import trainmap as TM
from .rules import milestones as MS
from .rules import trains as TR
from .rules.common import TRAINS, contracts_under, export_stacks as stacked_contracts
from .state import K_DELIVERY, K_MAIN, K_MILESTONE, K_TRAIN_MOVE, K_TRAIN_PLACE


def _goods(tile: int) -> dict:
    return {D.GOODS[i]: q for i, q in enumerate(TM.DEMAND_TILES[tile]) if q} if tile else {}


def train_view(g) -> dict:
    ts = g.modstate[TRAINS]
    n = g.num_players
    out: dict = {"variant": MS.variant(g)}
    if ts.ms is not None:
        out["milestones"] = [{"spot": k, "tile": t, "text": TM.MILESTONE_TEXT[t],
                              "claims": {p: ts.claims[k * n + p] for p in range(n) if ts.claims[k * n + p]}}
                             for k, t in enumerate(ts.ms)]
    if ts.at is None:
        if ts.demand is not None:
            out["milestone_demand"] = [_goods(t) for t in ts.demand]
            out["demand_refill"] = [_goods(t) for t in ts.demand_refill]
            out["demand_pile"] = len(ts.pile)
        if ts.markers is not None:
            out["markers"] = list(ts.markers)
        return out
    sd = TR.side(g)
    out["side"] = sd.name
    out["locations"] = [{"id": sd.ids[i], "kind": sd.kind[i], "demand": _goods(ts.demand[sd.demand_spot[i]]),
                         "demand_used": bool(ts.used[sd.demand_spot[i]]), "delivery_bonus": ts.bonus[i],
                         "delivery_bonus_text": TM.DELIVERY_TEXT.get(ts.bonus[i])}
                        for i in range(sd.num_locations)]
    out["trains"] = [sd.ids[x] if x >= 0 else None for x in ts.at]
    if ts.mini is not None:
        out["mini_trains"] = [sd.ids[x] if x >= 0 else None for x in ts.mini]
    out["tilted"] = [bool(x) for x in ts.tilt]
    out["deliveries"] = list(ts.deliv)
    out["markers"] = list(ts.markers)
    out["stations"] = [(g.board.label[s] if s >= 0 else ("track" if s == -1 else "discarded")) for s in ts.station]
    out["demand_refill"] = [_goods(t) for t in ts.demand_refill]
    out["demand_pile"] = len(ts.pile)
    res = ts.reserved
    out["reserved"] = [{"space": g.board.label[res[i]], "player": res[i + 1]} for i in range(0, len(res), 2)]
    below = ts.below                          # Delivery bonus 16: Export contracts under a box's top one
    out["contracts_under"] = [{"top": below[i], "under": below[i + 1]} for i in range(0, len(below), 2)]
    out["export_stacks"] = export_stacks(g)
    return out


def export_stacks(g) -> list[dict]:
    """Each Export box with contracts under its top one (Delivery bonus 16): its player, box, top contract and
    the contracts under it, the next to surface first."""
    if not stacked_contracts(g):
        return []
    return [{"player": p, "box": b, "top": cid, "under": under}
            for p, pl in enumerate(g.players) for b, cid in enumerate(pl.open_contracts)
            for under in (contracts_under(g, cid),) if under]


def train_text(g) -> str:
    v = train_view(g)
    parts = []
    for m in v.get("milestones", []):
        claims = ",".join(f"P{p}#{k}" for p, k in m["claims"].items())
        parts.append(f"Milestone {m['tile']}{' [' + claims + ']' if claims else ''}")
    if "trains" in v:
        automa = g.config.automa or {}        # an Automa has no Train (Automa §6.3)
        tr = " ".join(f"P{p}@{x}{'(tilted)' if v['tilted'][p] else ''}" for p, x in enumerate(v["trains"])
                      if p not in automa)
        if "mini_trains" in v:
            tr += " minis " + " ".join(f"P{p}@{x}" for p, x in enumerate(v["mini_trains"]) if p not in automa)
        parts.append(f"Trains {tr} | deliveries {v['deliveries']} markers {v['markers']}")
        dem = " ".join(f"{l['id']}:{'+'.join(f'{q}{k}' for k, q in l['demand'].items()) or '-'}"
                       f"{'*' if l['demand_used'] else ''}/b{l['delivery_bonus']}" for l in v["locations"])
        parts.append(f"Train map {v['side']}: {dem}")
        if v["export_stacks"]:
            parts.append("Export stacks " + "; ".join(f"P{x['player']} box {x['box']}: {x['top']} over "
                                                      + ", ".join(str(c) for c in x["under"])
                                                      for x in v["export_stacks"]))
    return " | ".join(parts)


def choose_context(g, off: int) -> str:
    """What choose:<off> means in the pending Train / Milestone decision (for action_to_string)."""
    kind = g.stack[-1][0]
    if kind == K_MAIN:
        return {31: "Train action", 30: "Claim a Milestone"}.get(off, "")
    ts = g.modstate.get(TRAINS)
    if kind in (K_TRAIN_MOVE, K_TRAIN_PLACE) and ts is not None and ts.at is not None:
        sd = TR.side(g)
        if off >= TR.MINI_OFFSET and off - TR.MINI_OFFSET < sd.num_locations and ts.mini is not None:
            return f"Mini-train to {sd.ids[off - TR.MINI_OFFSET]}"
        return f"to {sd.ids[off]}" if off < sd.num_locations else ""
    if kind == K_MILESTONE and ts is not None and off < len(ts.ms or ()):
        return f"Milestone {ts.ms[off]}"
    if kind == K_DELIVERY:
        parts = TM.DELIVERY_PARTS[g.stack[-1][2]]
        return parts[off]["kind"] if off < len(parts) else ""
    return ""
