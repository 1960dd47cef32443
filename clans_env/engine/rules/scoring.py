"""Rulebook "Phase 4: Scoring" (Scoring tiles), "Final Scoring", "Export Scoring" and
"Settlement Scoring"."""
from __future__ import annotations

from .. import data as D
from ..topology import bits, components
from .common import second_units, stations
from .registry import SCORING_TILES


# ---- Goods "in your stock" (Scoring tiles 1, 2, 12, Awards 6, 7, Milestone 4, Final Scoring) -----------
def goods_in_stock(g, p: int) -> list[int]:
    """p's Goods "in stock" for any scoring condition: the clan says what else counts (Gordon's Silo Grain,
    R18.G6; MacKenzie's cellar Whisky, A898). Fraser's Kilts are a type of their own (``processed_in_stock``)."""
    return g.clans[p].scoring_goods(g, p)


def basic_in_stock(g, p: int) -> int:
    goods = goods_in_stock(g, p)
    return sum(goods[i] for i in D.BASIC_GOODS)


def processed_in_stock(g, p: int) -> int:
    """Processed goods in stock, Fraser's Kilts included ("for all scoring", R18.F4)."""
    goods = goods_in_stock(g, p)
    return sum(goods[i] for i in D.PROCESSED_GOODS) + g.clans[p].extra_processed(g, p)


# ---- Scoring tiles (player aid numbering; 9 is Kickstarter) ------------------------------------
def _tile1(g, p: int) -> int:
    return basic_in_stock(g, p)


def _tile2(g, p: int) -> int:
    return 3 * (processed_in_stock(g, p) // 2)


def _tile3(g, p: int) -> int:
    placed = g.players[p].units_placed
    return sum(map(placed, _TILE3_UNITS)) + 2 * placed(D.FIELD)


def _tile4(g, p: int) -> int:
    return 2 * sum(map(g.players[p].units_placed, D.WORKERS))


def _tile5(g, p: int) -> int:
    border = g.topo.border
    units = (g.players[p].spaces & border).bit_count()
    stacked = second_units(g)
    if stacked:                 # Industria: each unit counts, two on a space too (R4.5, Q3)
        units += sum(1 for i in range(0, len(stacked), 3) if stacked[i + 2] == p and border >> stacked[i] & 1)
    return 3 * (units // 2)


def _tile6(g, p: int) -> int:
    return sum(g.players[p].imports)


def _tile7(g, p: int) -> int:
    return 2 * g.players[p].meat


def _tile8(g, p: int) -> int:
    return upgrades_count(g, p)


def _tile9(g, p: int) -> int:
    return 2 * (g.players[p].spaces & g.topo.cost56).bit_count()


_TILE3_UNITS = (D.SHEEP, D.COW, D.DAIRY, D.BAKERY, D.DISTILLERY)
#: tile -> f(g, p); Industria's tiles 10-18 are added on first use (their module imports this one)
_TILE_GLORY = {1: _tile1, 2: _tile2, 3: _tile3, 4: _tile4, 5: _tile5, 6: _tile6, 7: _tile7, 8: _tile8, 9: _tile9}


def tile_glory_function(tile: int):
    """``f(g, p) -> int``: the Glory Scoring tile ``tile`` gives p now (for callers that score
    one tile on many positions: no dispatch per call)."""
    f = _TILE_GLORY.get(tile)
    if f is None:
        module_tile = SCORING_TILES[tile]                       # a module's tile (Industria 10-18)
        f = lambda g, p: module_tile(g, p, tile)     # noqa: E731
        if tile in D.SCORING_GLORY:
            _TILE_GLORY[tile] = f
    return f


def scoring_tile_glory(g, p: int, tile: int) -> int:
    return tile_glory_function(tile)(g, p)


def upgrades_count(g, p: int) -> int:
    """Spots left of the Shipping marker + free Merchant spots + flipped Technology tiles."""
    pl = g.players[p]
    return pl.shipping + (D.MERCHANTS_ON_TRACK - pl.merchants_board) + sum(pl.tech)


def round_scoring(g) -> None:
    if not g.scoring_tiles:
        return
    tile = g.scoring_tiles[g.round - 1]
    seats = g.hooks.engine_seats           # an Automa skips the Scoring phase
    for p in range(g.num_players):
        if p in seats:
            continue
        g.players[p].glory += scoring_tile_glory(g, p, tile)


# ---- settlements ---------------------------------------------------------------------------------
def settlements(g, p: int) -> list[int]:
    """Clusters of p's units joined by 'neighbouring' (adjacent, no river), as bit sets."""
    own = g.players[p].spaces
    st = stations(g)
    if st and st[p] >= 0:                # Industria R13.16: the Train station counts as one of p's units
        own |= 1 << st[p]
    return components(own, g.topo.neighbours)


def connected_settlements(g, p: int) -> int:
    """Size of the biggest group of p's Settlements within Shipping reach of each other."""
    comps = settlements(g, p)
    if len(comps) <= 1:
        return len(comps)
    table = g.topo.reach[g.players[p].shipping]
    clan = g.clans[p]
    reach = []
    for comp in comps:
        r = clan.settlement_link_mask(g, p, comp)     # clan links (MacFarlane, Sinclair); usually 0
        for s in bits(comp):
            r |= table[s]
        reach.append(r)
    parent = list(range(len(comps)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(comps)):
        for j in range(i + 1, len(comps)):
            if reach[i] & comps[j] or reach[j] & comps[i]:
                parent[find(i)] = find(j)
    sizes: dict[int, int] = {}
    for i in range(len(comps)):
        r = find(i)
        sizes[r] = sizes.get(r, 0) + 1
    return max(sizes.values())


def tier_split(values: list[int], tiers: tuple[int, ...], minimum: int = 1) -> list[int]:
    """VP per player for 'most / second most / ...' with ties sharing the tiers they cover,
    rounded down (rulebook, Export Scoring). Players below ``minimum`` score nothing."""
    out = [0] * len(values)
    pos = 0
    for v in sorted({x for x in values if x >= minimum}, reverse=True):
        if pos >= len(tiers):
            break
        group = [i for i, x in enumerate(values) if x == v]
        share = sum(tiers[pos:pos + len(group)]) // len(group)
        for i in group:
            out[i] = share
        pos += len(group)
    return out


def alternative_two_player_split(values: list[int], base_tiers: tuple[int, ...], first: int, second: int,
                                 behind_by: tuple[int, ...], second_minimum: int = 1) -> list[int]:
    """Industria's alternative 2-player scoring (R15.8-R15.9): the leader scores ``first`` as usual;
    the other scores ``second`` only when exactly ``behind_by`` behind (Export: one contract; Settlements:
    1 or 2), else 0. A tie is scored as in the base game ("Ties still share"), and a leader with none of
    the counted items scores nothing, as in Export scoring. ``second_minimum``: the least the other needs
    (R15.8 "the second player" of Export scoring: 1; the Automa duel's "anyone with exactly one fewer
    than the top gets 4", Automa digest §4.3: 0)."""
    a, b = values
    if a == b:
        return tier_split(values, base_tiers)
    lead, other = (0, 1) if a > b else (1, 0)
    out = [0, 0]
    if values[lead] >= 1:
        out[lead] = first
    if values[other] >= second_minimum and values[lead] - values[other] in behind_by:
        out[other] = second
    return out


def threshold_vp(value: int, thresholds) -> int:
    for at_least, vp in thresholds:
        if value >= at_least:
            return vp
    return 0


def import_values(g) -> list[int]:
    """VP per unit of Cotton, Tobacco, Sugar cane: the most imported 3, then 4, the least 5;
    ties: Cotton counts as rarest, then Tobacco, then Sugar cane."""
    if g.config.static_imports:
        return [D.STATIC_IMPORT_VP] * D.NUM_IMPORTS
    amounts = tuple(g.players[0].imports if g.num_players == 1 else g.import_track)
    values = _IMPORT_VALUES.get(amounts)
    if values is None:
        common_first = sorted(range(D.NUM_IMPORTS), key=lambda k: (-amounts[k], -k))
        values = [0] * D.NUM_IMPORTS
        for rank, k in enumerate(common_first):
            values[k] = D.IMPORT_VP[rank]
        if len(_IMPORT_VALUES) > 10_000:
            _IMPORT_VALUES.clear()
        _IMPORT_VALUES[amounts] = values
    return values[:]


_IMPORT_VALUES: dict = {}       # import amounts -> values (evaluations ask for the same few again and again)


def final_scores(g) -> list[dict]:
    n = g.num_players
    vals = import_values(g)
    exports = [len(pl.done_contracts) for pl in g.players]
    settle = [connected_settlements(g, p) for p in range(n)]
    if n == 1:
        export_vp = [threshold_vp(exports[0], D.SOLO_EXPORT_THRESHOLDS)]
        settle_vp = [threshold_vp(settle[0], D.SOLO_SETTLEMENT_THRESHOLDS)]
    else:
        export_vp = tier_split(exports, D.EXPORT_TIERS[n])
        settle_vp = tier_split(settle, D.SETTLEMENT_TIERS[n])
    hooks = g.hooks
    for split in hooks.score_split:       # alternative 2-player scoring (R15.8-R15.9), the Automa's majorities
        export_vp, settle_vp = split(g, exports, settle, (export_vp, settle_vp))
    award = [0] * n
    for award_vp in hooks.award_vp:       # R10
        award = award_vp(g)
    train_lines = None
    for score_lines in hooks.score_lines:     # Industria R14.2-R14.4, R17.4-R17.5
        train_lines = score_lines(g)
    seats = hooks.engine_seats
    rows = []
    for p, pl in enumerate(g.players):
        if p in seats:
            for score_row in hooks.score_row:
                row = score_row(g, p, sum(a * v for a, v in zip(pl.imports, vals)), export_vp[p], settle_vp[p])
            if train_lines:
                row.update(train_lines[p])
            row["total"] = sum(row.values())
            row["money_left"] = pl.money
            rows.append(row)
            continue
        row = {
            "glory": pl.glory,
            "basic_goods": D.BASIC_GOOD_VP * basic_in_stock(g, p),
            "processed_goods": D.PROCESSED_GOOD_VP * processed_in_stock(g, p),
            "money": pl.money // D.MONEY_PER_VP,
            "hops": pl.hops,
            "imports": sum(a * v for a, v in zip(pl.imports, vals)),
            "export_bonus": export_vp[p],
            "settlement_bonus": settle_vp[p],
            "award": award[p],
        }
        if train_lines:
            row.update(train_lines[p])
        row.update(g.clans[p].extra_score_lines(g, p))
        if pl.vp_bid:
            row["auction_bid"] = -pl.vp_bid
        row["total"] = sum(row.values())
        row["money_left"] = pl.money
        rows.append(row)
    for row in rows:
        better = sum(1 for o in rows if (o["total"], o["money_left"]) > (row["total"], row["money_left"]))
        row["rank"] = 1 + better
    if n == 1:
        rows[0]["band"] = solo_band(rows[0]["total"])
    return rows


def solo_band(total: int) -> str:
    band = D.SOLO_BANDS[0][1]
    for lo, name in D.SOLO_BANDS:
        if total >= lo:
            band = name
    return band
