"""The data the web viewer draws: the static map as SVG markup, one compact *frame* per position
(the public state minus the map's fixed fields, plus score sheets and the VP estimate), a whole
replay as frames and moves, and the legal moves of a decision named as ``action_to_string``
names them.

No web framework is imported here: ``clans replay --html`` and the tests use these functions
without FastAPI. The map geometry and colours come from ``clans_env.render.map_image`` (the
PNG pictures), so the SVG and the PNGs draw the same board.
"""
from __future__ import annotations

from functools import lru_cache
from html import escape

from clans_env import Game, GameConfig, IllegalActionError
from clans_env.engine import data as D
from clans_env.engine.board import KIND_LOCH, KIND_PORT, LAND_FOREST
from clans_env.engine.records import GameFileError
from clans_env.engine.views import automa_record, contract_parts
from clans_env.render.map_image import (
    BORDER_COLOUR, CENTRAL_LOCH_COLOUR, COLOURS, LOCH_COLOUR, MIST_COLOUR, MODULE_LINE, PLAYER_COLOURS,
    PORT_COLOUR, RIVER_COLOUR, edge_segment, hex_corners, wedge_owners,
)

#: pixels per hex radius in the SVG
SCALE = 30.0
_PAD = 1.6
LAND_NAMES = {1: "grassland", 2: "forest", 4: "mountain"}


# ------------------------------------------------------------------------------------------------
# the static map
@lru_cache(maxsize=32)
def _map_svg_cached(board, num_players: int) -> tuple[str, dict, tuple]:
    active = board.active(num_players)
    border = board.border(num_players)
    central = set(board.central_loch)
    xs = [board.xy[i][0] for i in range(board.num_spaces)]
    ys = [board.xy[i][1] for i in range(board.num_spaces)]
    x0, y1 = min(xs) - _PAD, max(ys) + _PAD
    width = (max(xs) + _PAD - x0) * SCALE
    height = (y1 - (min(ys) - _PAD)) * SCALE

    def X(x):
        return round((x - x0) * SCALE, 1)

    def Y(y):
        return round((y1 - y) * SCALE, 1)

    def pts(corners):
        return " ".join(f"{X(x)},{Y(y)}" for x, y in corners)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" id="board" viewBox="0 0 {width:.0f} {height:.0f}" '
           f'width="{width:.0f}" height="{height:.0f}" role="img" aria-label="game map">',
           '<defs><pattern id="mist" width="6" height="6" patternUnits="userSpaceOnUse" '
           'patternTransform="rotate(45)"><rect width="6" height="6" fill="' + MIST_COLOUR + '"/>'
           '<line x1="0" y1="0" x2="0" y2="6" stroke="#7a7a7a" stroke-width="2"/></pattern></defs>',
           '<g id="cells">']
    centres = {}
    for i in range(board.num_spaces):
        x, y = board.xy[i]
        centres[i] = [X(x), Y(y), 1 if board.kind[i] == KIND_PORT else 0]
        if board.kind[i] == KIND_PORT:
            continue
        corners = hex_corners(x, y)
        label = board.label[i]
        in_play = bool(active[i])
        if board.kind[i] == KIND_LOCH:
            kind_text = "central loch" if i in central else "loch"
            title = f"{label}: {kind_text}"
            body = (f'<polygon points="{pts(corners)}" fill="{CENTRAL_LOCH_COLOUR if i in central else LOCH_COLOUR}" '
                    f'stroke="white" stroke-width="1"/>')
            if i in central:
                body += f'<text x="{X(x)}" y="{Y(y) + 5}" class="star">&#9733;</text>'
        else:
            owners = wedge_owners(board.land[i])
            lands = "/".join(LAND_NAMES[t] for t in LAND_NAMES if board.land[i] & t)
            title = f"{label}: {lands}, £{board.cost[i]}" + ("" if in_play else " (mist: not in play)")
            if len(set(owners)) == 1:
                body = f'<polygon points="{pts(corners)}" fill="{COLOURS[owners[0]]}"/>'
            else:
                body = "".join(f'<polygon points="{pts([(x, y), corners[k], corners[(k + 1) % 6]])}" '
                               f'fill="{COLOURS[owners[k]]}" stroke="{COLOURS[owners[k]]}" stroke-width="0.5"/>'
                               for k in range(6))
            body += f'<polygon points="{pts(corners)}" fill="none" stroke="white" stroke-width="1"/>'
            if board.mist[i] and not in_play:
                body += f'<polygon points="{pts(hex_corners(x, y, 0.98))}" fill="url(#mist)" opacity="0.8"/>'
            elif board.mist[i]:
                title += " (printed mist, in play with 3-4 players)"
            colour = "white" if board.land[i] == LAND_FOREST else "black"
            body += (f'<text x="{X(x)}" y="{Y(y + 0.32) + 4}" class="cost" fill="{colour}">£{board.cost[i]}</text>')
        if border[i]:
            body += (f'<polygon points="{pts(hex_corners(x, y, 0.86))}" fill="none" stroke="{BORDER_COLOUR}" '
                     f'stroke-width="2.2"/>')
            title += " (border space)"
        if board.river_delta[i]:
            title += " (river delta)"
            body += (f'<text x="{X(x - 0.5)}" y="{Y(y - 0.05) + 4}" class="delta" fill="white" '
                     f'stroke="{RIVER_COLOUR}">&#9650;</text>')
        if i in board.waterfall:
            title += " (waterfall)"
            body += (f'<text x="{X(x + 0.5)}" y="{Y(y - 0.05) + 4}" class="delta" fill="#9ad0ff" '
                     f'stroke="black">&#9660;</text>')
        body += f'<text x="{X(x)}" y="{Y(y - 0.62) + 3}" class="label">{escape(label[1:])}</text>'
        cls = "space" + ("" if in_play else " out")
        out.append(f'<g class="{cls}" data-space="{i}"><title>{escape(title)}</title>{body}</g>')
    out.append('</g><g id="lines">')
    for i in range(board.num_spaces):
        if board.kind[i] == KIND_PORT:
            continue
        for j in board.adjacent[i]:
            if j < i or board.kind[j] == KIND_PORT or board.module[j] == board.module[i]:
                continue
            a, b, c, d = edge_segment(board, i, j)
            out.append(f'<line x1="{X(a)}" y1="{Y(b)}" x2="{X(c)}" y2="{Y(d)}" stroke="{MODULE_LINE}" '
                       f'stroke-width="1.6" opacity="0.8"/>')
    for a_, b_ in sorted(board.river_edges):
        a, b, c, d = edge_segment(board, a_, b_)
        out.append(f'<line class="river" x1="{X(a)}" y1="{Y(b)}" x2="{X(c)}" y2="{Y(d)}" stroke="{RIVER_COLOUR}" '
                   f'stroke-width="5" stroke-linecap="round"/>')
    out.append('</g><g id="ports">')
    for m, pair in enumerate(board.port_positions):
        for pid, tag in zip(pair, ("1-2p", "3-4p")):
            on = bool(active[pid])
            px, py = board.xy[pid]
            links = "".join(f'<line x1="{X(px)}" y1="{Y(py)}" x2="{X(board.xy[j][0])}" y2="{Y(board.xy[j][1])}" '
                            f'stroke="black" stroke-dasharray="2,2"/>' for j in board.adjacent[pid])
            s = 0.56 * SCALE
            out.append(f'<g class="space port{"" if on else " out"}" data-space="{pid}" opacity="{1 if on else 0.3}">'
                       f'<title>{escape(board.label[pid])}: port ({tag}{"" if on else ", not in play"})</title>{links}'
                       f'<rect x="{X(px) - s / 2:.1f}" y="{Y(py) - s / 2:.1f}" width="{s:.1f}" height="{s:.1f}" '
                       f'fill="{PORT_COLOUR}" stroke="black"/>'
                       f'<text x="{X(px)}" y="{Y(py) + 4}" class="port-tile" data-port="{pid}">P</text></g>')
    out.append('</g><g id="units"></g></svg>')
    return "".join(out), centres, (width, height)


def map_svg(game: Game) -> dict:
    """The map of ``game`` (cells, costs, rivers, lochs, mist, ports) as SVG markup with an empty
    ``<g id="units">`` layer, and each space's centre in SVG pixels ``[x, y, is_port]``."""
    svg, centres, size = _map_svg_cached(game.board, game.num_players)
    return {"svg": svg, "centres": centres, "size": list(size)}


# ------------------------------------------------------------------------------------------------
# one position
def contract_view(cid: int) -> dict:
    need, gain = contract_parts(cid)
    return {"id": cid, "need": need, "gain": gain}


def industria_text(game: Game) -> str:
    from clans_env.engine.views import industria_text as text
    return text(game)


def frame(game: Game) -> dict:
    """Everything the page draws for one position that changes during the game (compact: the
    map's fixed fields stay in :func:`map_svg`)."""
    from agents.heuristic import estimate_final_vp

    ps = game.public_state()
    units = []
    for pl in ps["players"]:
        for u in pl["units_on_map"]:
            units.append([u["space"], pl["seat"], D.UNIT_LETTER[D.UNITS.index(u["unit"])], u["unit"]])
    blocked = [s["id"] for s in ps["map"]["spaces"] if s["occupant"] == "blocked"]
    players = []
    for pl in ps["players"]:
        pl = dict(pl)
        pl.pop("reach", None)
        pl["open_contracts"] = [contract_view(c) for c in pl["open_contracts"]]
        pl["fulfilled_contracts"] = [contract_view(c) for c in pl["fulfilled_contracts"]]
        pl["units_on_map"] = len(pl["units_on_map"])
        players.append(pl)
    scores = game.final_scores()
    return {
        "round": ps["round"], "phase": ps["phase"], "current_player": ps["current_player"],
        "decision": ps["decision"], "terminal": game.is_terminal(), "decisions_made": len(game.history),
        "market": ps["market"],
        "contracts": [None if c is None else contract_view(c) for c in ps["contracts_on_display"]],
        "draw_pile_size": ps["draw_pile_size"], "import_track": ps["import_track"],
        "import_values": ps["import_values"], "scoring_tiles": ps["scoring_tiles"],
        "current_scoring_tile": ps["current_scoring_tile"], "port_tiles": ps["port_tiles"],
        "turn_order": ps["turn_order"], "pass_order": ps["pass_order"], "solo": ps["solo"],
        "setup_offer": ps["setup_offer"],
        "players": players, "units": units, "blocked": blocked, "scores": scores,
        "markets": ps.get("industria", {}).get("farmers_markets", []),
        "industria": industria_text(game) if game.config.industria_modules else None,
        "automa_record": ps.get("automa_record", [])[-8:],         # the Automa's latest turns
        "vp_estimate": [round(v, 1) for v in estimate_final_vp(game)],
    }


def legal_moves(game: Game) -> list[dict]:
    """Every legal action of the pending decision as the engine's record (``Game.describe_legal``,
    ``clans_env.engine.moves.Move``): ``action`` (index), ``name`` (``action_to_string``), ``detail`` (the
    record in words: costs, contract contents, what a choice means, as ``clans play`` lists it), ``space``
    (the map space it names, for clicking on the map, or null) and the record's other fields."""
    if game.is_terminal():
        return []
    return [m.to_dict() for m in game.describe_legal()]


# ------------------------------------------------------------------------------------------------
# a whole replay
def seat_names(meta: dict, n: int, automa: dict | None = None) -> list[str]:
    """The file's player names, else ``P<seat>`` (``automa:level=L`` for an Automa seat of ``automa``)."""
    names = meta.get("players") or meta.get("names")
    if isinstance(names, list) and len(names) == n and all(isinstance(x, str) for x in names):
        return list(names)
    automa = automa or {}
    return [f"automa:level={automa[p]}" if p in automa else f"P{p}" for p in range(n)]


def replay_data(record: dict, meta: dict, source: str = "") -> dict:
    """A replay as the page steps through it: the map, a frame per position (``frames[0]`` before
    the first decision, ``frames[i + 1]`` after decision ``i``), each decision's description, who
    made it and where each round starts. Raises GameFileError when the record does not replay."""
    try:
        config = GameConfig.from_dict(record["config"])
        game = Game(config)
    except (ValueError, TypeError, KeyError) as e:
        raise GameFileError(f"{source}: bad configuration: {e}") from None
    names = seat_names(meta, config.num_players, config.automa)
    frames = [frame(game)]
    moves = []
    round_starts = {game.round: 0}
    seen = automa_record(game)
    automa_start = list(seen)
    for i, a in enumerate(record["actions"]):
        p = game.current_player
        kind = game.decision_kind
        question = game.decision_text() if game.stack else ""
        try:
            text = game.action_to_string(a)
            game.apply(a)
        except (IllegalActionError, ValueError, IndexError) as e:
            raise GameFileError(f"{source}: the record does not replay: decision #{i} ({a!r}) failed: {e}") from None
        move = {"index": i, "player": p, "who": names[p] if p is not None else "", "kind": kind,
                "question": question, "action": a, "text": text, "round": frames[-1]["round"]}
        if config.automa:                # the Automa's cards and actions resolved inside this decision's apply
            lines = automa_record(game)
            move["automa"] = lines[len(seen):]
            seen = lines
        moves.append(move)
        frames.append(frame(game))
        round_starts.setdefault(game.round, i + 1)
    clans = [pl["clan"] for pl in frames[-1]["players"]]
    agents = meta.get("agents") if isinstance(meta.get("agents"), list) else None
    return {
        "kind": "replay", "source": source, "config": config.to_dict(), "names": names, "agents": agents,
        "clans": clans, "colours": [PLAYER_COLOURS[p] for p in range(config.num_players)],
        "map": map_svg(game), "frames": frames, "moves": moves, "automa_start": automa_start,
        "round_starts": {str(k): v for k, v in sorted(round_starts.items())},
        "finished": game.is_terminal(), "final_scores": game.final_scores(),
    }


def replay_summary(record: dict, meta: dict) -> dict:
    """The replay list's row: players, agents, clans, scores (the game is replayed, ~1 ms)."""
    config = GameConfig.from_dict(record["config"])
    game = Game.replay(config, record["actions"])
    scores = game.final_scores()
    return {"num_players": config.num_players, "seed": config.seed, "decisions": len(record["actions"]),
            "names": seat_names(meta, config.num_players, config.automa),
            "agents": meta.get("agents") if isinstance(meta.get("agents"), list) else None,
            "clans": [c.name if c.name != "none" else None for c in game.clans],
            "scores": [r["total"] for r in scores], "ranks": [r["rank"] for r in scores],
            "finished": game.is_terminal(), "round": game.round}
