"""Read-only views of a game: the JSON-serialisable public state and the terminal text view.
Schema documented in docs/public-state.md."""
from __future__ import annotations

from . import data as D
from .actions import DIRECTIONS
from .rules.common import price, reach, stacked_unit
from .rules.awards import award_tile
from .rules.clan_setup import offered_clans
from .rules.farmers_markets import dealt_tiles, market_list
from .rules.industria_scoring import own_units
from .rules.solo import market_dice, removed_contracts
from .rules.variable_prices import starting_dice
from .rules.refill_board import board as refill_board
from .rules.scoring import connected_settlements, import_values
from .state import DECISION_KINDS, PHASE_NAMES
from .topology import bits
from .rules.automa import log_lines, public_view
from .train_views import train_text, train_view

_LAND_NAMES = {1: "grassland", 2: "forest", 4: "mountain"}
_KIND_NAMES = ("land", "loch", "port")


def public_state(g) -> dict:
    b = g.board
    topo = g.topo
    active = topo.active
    spaces = []
    for s in range(b.num_spaces):
        occ = g.occupant[s]
        spaces.append({
            "id": s,
            "label": b.label[s],
            "kind": _KIND_NAMES[b.kind[s]],
            "land": [name for bit, name in _LAND_NAMES.items() if b.land[s] & bit],
            "cost": b.cost[s],
            "module": "ABCD"[b.module[s]],
            "active": bool(active >> s & 1),
            "border": bool(topo.border >> s & 1),
            "river_delta": bool(b.river_delta[s]),
            "neighbours": list(b.neighbours[s]),
            "adjacent": list(b.adjacent[s]),
            "occupant": None if occ == -1 else ("blocked" if occ == -2 else "farmers_market" if occ == -3 else occ),
            "unit": D.UNITS[g.unit_at[s]] if g.unit_at[s] >= 0 else None,
        })
    players = []
    for p, pl in enumerate(g.players):
        players.append({
            "seat": p,
            "clan": g.clans[p].name if g.clans[p].name != "none" else None,
            "starting_tile": pl.start_tile,
            "money": pl.money,
            "goods": dict(zip(D.GOODS, pl.goods)),
            "units_on_board": {D.UNITS[u]: pl.units_left[u] for u in range(D.NUM_UNITS)},
            "units_on_map": [{"space": s, "unit": D.UNITS[u]} for s, u in own_units(g, p)],
            "shipping": pl.shipping,
            "shipping_name": D.SHIPPING_LEVELS[pl.shipping],
            "technology": {"woodcutter": pl.tech[0], "miner": pl.tech[1]},
            "merchants": {"on_board": pl.merchants_board, "in_stock": pl.merchants_stock,
                          "on_market": {f"{DIRECTIONS[a % 2]}:{D.GOODS[a // 2]}": n
                                        for a, n in enumerate(pl.merchants_market) if n}},
            "open_contracts": list(pl.open_contracts),
            "fulfilled_contracts": list(pl.done_contracts),
            "imports": dict(zip(D.IMPORTS, pl.imports)),
            "hops": pl.hops,
            "meat_exported": pl.meat,
            "glory": pl.glory,
            "passed": pl.passed,
            "ports_used": [k for k in range(4) if pl.ports_used >> k & 1],
            "reach": list(bits(reach(g, p))),
            "connected_settlements": connected_settlements(g, p),
            "auction_bid": pl.vp_bid,
            "clan_state": dict(pl.extra),
        })
        if g.config.automa and p in g.config.automa:       # the Automa's public cards and pointer
            players[-1]["automa"] = public_view(g, p)
    top = g.stack[-1] if g.stack else None
    return {
        "num_players": g.num_players,
        "seed": g.config.seed,
        "config": g.config.to_dict(),
        "round": g.round,
        "phase": PHASE_NAMES[g.phase],
        "current_player": g.current_player,
        "decision": None if top is None else {"kind": DECISION_KINDS[top[0]], "player": top[1],
                                              "context": [_jsonable(x) for x in top[2:]],
                                              "text": g.decision_text()},
        "map": {"sides": list(b.sides), "spaces": spaces, "river_edges": [list(e) for e in sorted(b.river_edges)],
                "central_loch": list(b.central_loch)},
        "market": {good: {"step": g.prices[i], "price": price(g, i)} for i, good in enumerate(D.GOODS)},
        "contracts_on_display": [c if c >= 0 else None for c in g.display],
        "draw_pile_size": len(g.pile),
        "import_track": dict(zip(D.IMPORTS, g.import_track)),
        "import_values": dict(zip(D.IMPORTS, import_values(g))),
        "scoring_tiles": list(g.scoring_tiles),
        "current_scoring_tile": g.scoring_tiles[g.round - 1] if g.scoring_tiles else None,
        "port_tiles": [{"slot": k, "tile": t, "space": g.topo.port_space[k]} for k, t in enumerate(g.port_tiles)],
        "setup_offer": {"clans": list(offered_clans(g)),
                        "starting_tiles": [D.STARTING_TILES[t].id for t in g.tile_pool]},
        "solo": {"dice": list(market_dice(g)), "removed_contracts": list(removed_contracts(g))},
        "turn_order": list(g.turn_order),
        "pass_order": list(g.pass_order),
        "players": players,
        **({"industria": industria_view(g)} if g.config.industria_modules or g.config.milestones else {}),
        **({"automa_record": automa_record(g)} if g.config.automa else {}),
    }


def automa_record(g) -> list[str]:
    """The game record of the Automa's turns (``rules.automa.log_lines``; empty without an Automa). Its
    cards and actions are resolved inside ``Game.apply``, so the lines a decision adds are the Automa's turns
    that followed it (``clans play`` prints them, the web viewer lists them under the decision)."""
    if not g.config.automa:
        return []
    return log_lines(g)


def industria_view(g) -> dict:
    """The Industria modules' public state (docs/public-state.md, "industria")."""
    cfg = g.config
    out: dict = {"modules": list(cfg.industria_modules)}
    if cfg.awards:
        tile = award_tile(g)
        out["award"] = {"tile": tile, "text": D.AWARD_TEXT.get(tile)}
        if g.num_players == 1 and tile:
            out["award"]["solo_thresholds"] = list(D.AWARD_SOLO_THRESHOLDS[tile])
    if cfg.refill_board:
        out["refill_board"] = list(refill_board(g))
    if cfg.farmers_markets:
        m = market_list(g)
        out["farmers_markets"] = [{"space": m[i], "label": g.board.label[m[i]],
                                   "goods": [D.GOODS[m[i + 1]], D.GOODS[m[i + 2]]],
                                   "covered": [bool(m[i + 3]), bool(m[i + 4])]} for i in range(0, len(m), 5)]
        out["farmers_markets_to_place"] = {p: t for p, t in enumerate(dealt_tiles(g)) if t > 0}
    if cfg.variable_prices:
        out["starting_price_dice"] = list(starting_dice(g))
    if cfg.trains or cfg.milestones:
        out["trains"] = train_view(g)
    return out


def industria_text(g) -> str:
    """One line for the Industria modules' state (render_text, clans play)."""
    return _industria_text(g)


def _industria_text(g) -> str:
    v = industria_view(g)
    parts = [f"Industria: {', '.join(v['modules'])}"]
    if "award" in v:
        parts.append(f"Award {v['award']['tile']}: {v['award']['text']}")
    if "refill_board" in v:
        parts.append(f"refill board {v['refill_board']}")
    for m in v.get("farmers_markets", []):
        marks = "/".join(f"{good}{' (covered)' if c else ''}" for good, c in zip(m["goods"], m["covered"]))
        parts.append(f"Farmers market {m['label']}: {marks}")
    if "trains" in v:
        parts.append(train_text(g))
    return " | ".join(parts)


def automa_text(g, last: int = 8) -> list[str]:
    """The Automa's latest turns from the game record (render_text, clans play)."""
    record = log_lines(g)
    return ["Automa record (latest):"] + ["  " + line for line in record[-last:]]


def _jsonable(x):
    if isinstance(x, tuple):
        return [_jsonable(v) for v in x]
    return x


def render_text(g) -> str:
    lines = []
    lines.append(f"Clans of Caledonia - {g.num_players} players - round {g.round}/{D.NUM_ROUNDS} - "
                 f"{PHASE_NAMES[g.phase]} - map {' '.join(g.board.sides)}")
    if g.scoring_tiles:
        lines.append(f"Scoring tiles: {list(g.scoring_tiles)} (this round: {g.scoring_tiles[g.round - 1]})")
    if g.port_tiles:
        lines.append("Port tiles: " + ", ".join(f"slot {k}: tile {t} @ {g.board.label[g.topo.port_space[k]]}"
                                                for k, t in enumerate(g.port_tiles)))
    lines.append("Market: " + "  ".join(f"{good} £{price(g, i)}" for i, good in enumerate(D.GOODS)))
    lines.append("Contracts: " + "  ".join(f"[{k}] {_contract_text(c)}" for k, c in enumerate(g.display) if c >= 0))
    lines.append(f"Imports track: {dict(zip(D.IMPORTS, g.import_track))}   draw pile: {len(g.pile)}")
    lines.append("Turn order: " + " ".join(str(p) for p in g.turn_order))
    if g.config.industria_modules or g.config.milestones:
        lines.append(_industria_text(g))
    automa = g.config.automa or {}
    for p, pl in enumerate(g.players):
        clan = g.clans[p].name
        if p in automa:
            clan = f"Automa level {automa[p]}"
        goods = " ".join(f"{n}:{q}" for n, q in zip(D.GOODS, pl.goods) if q)
        units = " ".join(f"{D.UNIT_LETTER[u]}{pl.units_placed(u)}" for u in range(D.NUM_UNITS) if pl.units_placed(u))
        lines.append(f"P{p}{' (' + clan + ')' if clan != 'none' else ''}: £{pl.money} glory {pl.glory} | goods "
                     f"{goods or '-'} | map {units or '-'} | ship {D.SHIPPING_LEVELS[pl.shipping]} | tech "
                     f"{'W' if pl.tech[0] else '-'}{'M' if pl.tech[1] else '-'} | merchants {pl.merchants_stock} "
                     f"stock/{pl.merchants_board} board | open {[_contract_text(c) for c in pl.open_contracts]} | "
                     f"done {len(pl.done_contracts)}{' | passed' if pl.passed else ''}")
        clan_text = g.clans[p].state_text(g, p)
        if clan_text:
            lines.append(f"    {clan} clan: {clan_text}")
    lines.append(_map_text(g))
    if automa:
        lines.extend(automa_text(g))
    if g.stack:
        lines.append(f">> player {g.current_player}: {g.decision_text()}")
    else:
        lines.append(">> game over: " + ", ".join(f"P{p} {r['total']} VP" for p, r in enumerate(g.final_scores())))
    return "\n".join(lines)


def contract_parts(cid: int) -> tuple[str, str]:
    """(what the contract needs, what it gives) in words, e.g. ("1 wool, 2 beef", "3 cotton, £10")."""
    c = D.CONTRACT_BY_ID[cid]
    need = [f"{q} {D.GOODS[i]}" for i, q in enumerate(c.goods) if q]
    if c.beef:
        need.append(f"{c.beef} beef")
    if c.mutton:
        need.append(f"{c.mutton} mutton")
    gain = [f"{q} {D.IMPORTS[i]}" for i, q in enumerate(c.imports) if q]
    if c.hops:
        gain.append(f"{c.hops} hops")
    if c.money:
        gain.append(f"£{c.money}")
    if c.free_space:
        gain.append("free space" if c.free_space == 1 else f"{c.free_space} free spaces")
    if c.bonus_upgrade:
        gain.append("bonus upgrade" if c.bonus_upgrade == 1 else f"{c.bonus_upgrade} bonus upgrades")
    return ", ".join(need), ", ".join(gain)


def _contract_text(cid: int) -> str:
    need, gain = contract_parts(cid)
    return f"#{cid} {need} -> {gain}"


def _map_text(g) -> str:
    """Hex rows of the 12x10 grid: cost+land letter for empty land, ~~ loch, P<seat><unit> for units."""
    b = g.board
    rows = []
    cells = {}
    for s in range(b.num_spaces):
        if b.kind[s] == 2:
            continue
        x, y = b.xy[s]
        cells.setdefault(round(y, 2), []).append((x, s))
    active = g.topo.active
    for y in sorted(cells, reverse=True):
        row = sorted(cells[y])
        indent = "  " if row and (row[0][0] % 1.0) > 0.25 else ""
        toks = []
        for _, s in row:
            occ = g.occupant[s]
            if occ >= 0:
                second = stacked_unit(g, s)
                letters = D.UNIT_LETTER[g.unit_at[s]] + ("+" + D.UNIT_LETTER[second][0] if second >= 0 else "")
                toks.append(f"{occ}{letters:<2}")
            elif occ == -2:
                toks.append("XX ")
            elif occ == -3:
                toks.append("FM ")
            elif b.kind[s] == 1:
                toks.append("~~ ")
            elif not active >> s & 1:
                toks.append(".. ")
            else:
                land = "".join(ch for bit, ch in ((1, "g"), (2, "f"), (4, "m")) if b.land[s] & bit)
                toks.append(f"{b.cost[s]}{land[:2]:<2}")
        rows.append(indent + " ".join(toks))
    return "\n".join(rows)
