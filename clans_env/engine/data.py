"""Component data, loaded once from the files in ``data/``.

Code never writes a game number as a literal: it reads the constants below, which come
from ``data/components.toml`` and ``data/export_contracts.csv`` (each value there carries
its provenance: seed, community or stand-in).
"""
from __future__ import annotations

import csv
import tomllib
from dataclasses import dataclass
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent / "data"

with open(DATA_DIR / "components.toml", "rb") as _fh:
    COMPONENTS = tomllib.load(_fh)

# ---- goods -----------------------------------------------------------------------------
GOODS: tuple[str, ...] = tuple(COMPONENTS["goods"]["names"])
NUM_GOODS = len(GOODS)
GOOD_INDEX = {name: i for i, name in enumerate(GOODS)}
BASIC_GOODS = tuple(GOOD_INDEX[g] for g in COMPONENTS["goods"]["basic"])
PROCESSED_GOODS = tuple(GOOD_INDEX[g] for g in COMPONENTS["goods"]["processed"])
IS_BASIC = tuple(i in BASIC_GOODS for i in range(NUM_GOODS))
WOOL, MILK, GRAIN, CHEESE, BREAD, WHISKY = (GOOD_INDEX[g] for g in
                                            ("wool", "milk", "grain", "cheese", "bread", "whisky"))

# ---- units -----------------------------------------------------------------------------
UNITS: tuple[str, ...] = tuple(COMPONENTS["units"]["names"])
NUM_UNITS = len(UNITS)
UNIT_INDEX = {name: i for i, name in enumerate(UNITS)}
SHEEP, COW, FIELD, DAIRY, BAKERY, DISTILLERY, WOODCUTTER, MINER, FISHERMAN = range(NUM_UNITS)
assert UNITS[FISHERMAN] == "fisherman" and UNITS[DAIRY] == "cheese_dairy"
UNITS_PER_PLAYER = tuple(COMPONENTS["units"]["per_player"])
UNIT_COST = tuple(COMPONENTS["units"]["cost"][u]["value"] for u in UNITS)
WORKERS = (WOODCUTTER, MINER, FISHERMAN)
GRASSLAND_UNITS = (SHEEP, COW, FIELD, DAIRY, BAKERY, DISTILLERY)
ANIMALS = (SHEEP, COW)
FACTORIES = (DAIRY, BAKERY, DISTILLERY)
#: the good each unit produces, as seen by a neighbour (Neighbourhood bonus); -1 = money only
UNIT_GOOD = (WOOL, MILK, GRAIN, CHEESE, BREAD, WHISKY, -1, -1, -1)
#: factory -> (input good, output good)
FACTORY_IO = {DAIRY: (MILK, CHEESE), BAKERY: (GRAIN, BREAD), DISTILLERY: (GRAIN, WHISKY)}
UNIT_LETTER = {SHEEP: "S", COW: "C", FIELD: "F", DAIRY: "D", BAKERY: "B", DISTILLERY: "W",
               WOODCUTTER: "Wc", MINER: "Mi", FISHERMAN: "Fi"}

_prod = COMPONENTS["production"]
WORKER_INCOME = {WOODCUTTER: _prod["worker_income"]["woodcutter"],
                 MINER: _prod["worker_income"]["miner"],
                 FISHERMAN: _prod["worker_income"]["fisherman"]}
TECH_BONUS = _prod["technology_bonus"]["value"]
ANIMAL_OUTPUT = {SHEEP: (WOOL, _prod["animal_output"]["sheep"]),
                 COW: (MILK, _prod["animal_output"]["cow"]),
                 FIELD: (GRAIN, _prod["animal_output"]["field"])}

# ---- upgrades --------------------------------------------------------------------------
_up = COMPONENTS["upgrades"]
HIRE_MERCHANT_COST = _up["hire_merchant"]["value"]
SHIPPING_COST = _up["shipping"]["value"]
TECH_COST = _up["technology"]["value"]
TECH_BONUS_UPGRADE_COST = _up["technology_bonus_upgrade"]["value"]
SHIPPING_LEVELS: tuple[str, ...] = tuple(_up["shipping_levels"]["names"])
MAX_SHIPPING = len(SHIPPING_LEVELS) - 1
MERCHANTS_TOTAL = _up["merchants"]["total"]
MERCHANTS_IN_STOCK = _up["merchants"]["in_stock_at_start"]
MERCHANTS_ON_TRACK = _up["merchants"]["on_track_at_start"]

# ---- market ----------------------------------------------------------------------------
_mk = COMPONENTS["market"]
PRICES: tuple[tuple[int, ...], ...] = tuple(tuple(_mk[g]) for g in GOODS)
PRICE_STEPS = len(PRICES[0])
MAX_STEP = PRICE_STEPS - 1
START_STEP = _mk["start_step"]["value"]
SOLO_BRACKETS = (tuple(_mk["solo_brackets"]["low"]), tuple(_mk["solo_brackets"]["medium"]),
                 tuple(_mk["solo_brackets"]["high"]))
NB_DISCOUNT = tuple(_mk["neighbourhood_discount"]["basic" if b else "processed"] for b in IS_BASIC)
NB_LIMIT_MULTI = _mk["neighbourhood_limit"]["multi"]
NB_LIMIT_TWO = _mk["neighbourhood_limit"]["two_player"]

# ---- export board ----------------------------------------------------------------------
_ex = COMPONENTS["export"]
ROUND_COST = tuple(_ex["round_cost"]["values"])
NUM_ROUNDS = len(ROUND_COST)
_boxes = _ex["boxes"]
CONTRACT_BOXES = {1: _boxes["solo"], 2: _boxes["two"], 3: _boxes["three"], 4: _boxes["four"]}
MAX_CONTRACT_BOXES = max(CONTRACT_BOXES.values()) if max(CONTRACT_BOXES.values()) >= _boxes["solo_fill"] \
    else _boxes["solo_fill"]
SOLO_FILL_BOXES = _boxes["solo_fill"]
PASSING_BONUS = tuple(_ex["passing_bonus"]["values"])
SOLO_PASSING_BONUS = _ex["passing_bonus"]["solo"]
IMPORT_MARKED_STEPS = tuple(_ex["import_marked_steps"]["values"])
IMPORT_STEP_BONUS = _ex["import_marked_steps"]["bonus"]
BUILDING_BONUS_DRAW = _ex["building_bonus_draw"]["value"]
SOLO_START_CONTRACTS = _ex["solo_start_contracts"]["value"]

# ---- scoring ---------------------------------------------------------------------------
_sc = COMPONENTS["scoring"]
IMPORT_VP = (_sc["import_vp_by_rarity"]["most_common"], _sc["import_vp_by_rarity"]["middle"],
             _sc["import_vp_by_rarity"]["rarest"])
STATIC_IMPORT_VP = _sc["import_vp_by_rarity"]["static"]
MONEY_PER_VP = _sc["money_per_vp"]["value"]
BASIC_GOOD_VP = _sc["basic_good_vp"]["value"]
PROCESSED_GOOD_VP = _sc["processed_good_vp"]["value"]
EXPORT_TIERS = {2: tuple(_sc["export_tiers"]["two_player"]), 3: tuple(_sc["export_tiers"]["multi"]),
                4: tuple(_sc["export_tiers"]["multi"])}
SETTLEMENT_TIERS = {2: tuple(_sc["settlement_tiers"]["two_player"]),
                    3: tuple(_sc["settlement_tiers"]["multi"]), 4: tuple(_sc["settlement_tiers"]["multi"])}
SOLO_EXPORT_THRESHOLDS = tuple(tuple(t) for t in _sc["solo_export"]["thresholds"])
SOLO_SETTLEMENT_THRESHOLDS = tuple(tuple(t) for t in _sc["solo_settlement"]["thresholds"])
SOLO_BANDS = tuple((int(lo), name) for lo, name in _sc["solo_bands"]["values"])
WITHOUT_CLANS_MONEY = tuple(_sc["without_clans_money"]["values"])

# ---- imports ---------------------------------------------------------------------------
#: imported goods tracked on the Export board, in the rarity tie order (rarest first)
IMPORTS: tuple[str, ...] = tuple(_sc["import_tie_rarity_order"]["values"])
NUM_IMPORTS = len(IMPORTS)
COTTON, TOBACCO, SUGAR_CANE = range(NUM_IMPORTS)


# ---- starting tiles --------------------------------------------------------------------
@dataclass(frozen=True)
class StartingTile:
    id: int
    money: int
    goods: tuple[int, ...]      # per GOODS index


STARTING_TILES: tuple[StartingTile, ...] = tuple(
    StartingTile(t["id"], t["money"], tuple(t["goods"].get(g, 0) for g in GOODS))
    for t in COMPONENTS["starting_tiles"])


# ---- export contracts ------------------------------------------------------------------
@dataclass(frozen=True)
class Contract:
    id: int
    goods: tuple[int, ...]      # required goods per GOODS index (milk and grain always 0)
    beef: int                   # Cows to slaughter
    mutton: int                 # Sheep to slaughter
    imports: tuple[int, ...]    # cotton, tobacco, sugar cane received (IMPORTS order)
    hops: int
    money: int
    free_space: int
    bonus_upgrade: int

    @property
    def meat(self) -> int:
        return self.beef + self.mutton


def _load_contracts() -> tuple[Contract, ...]:
    out = []
    with open(DATA_DIR / "export_contracts.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            v = {k: int(x) for k, x in row.items()}
            out.append(Contract(
                id=v["id"], goods=tuple(v.get(g, 0) for g in GOODS), beef=v["beef"], mutton=v["mutton"],
                imports=(v["cotton"], v["tobacco"], v["sugar_cane"]), hops=v["hops"], money=v["money"],
                free_space=v["free_space"], bonus_upgrade=v["bonus_upgrade"]))
    return tuple(out)


CONTRACTS: tuple[Contract, ...] = _load_contracts()
CONTRACT_BY_ID = {c.id: c for c in CONTRACTS}

# ---- tiles -----------------------------------------------------------------------------
PORT_TILES_BASE = tuple(COMPONENTS["port_tiles"]["base"])
PORT_TILES_KICKSTARTER = tuple(COMPONENTS["port_tiles"]["kickstarter"])
_pt = COMPONENTS["port_tiles"]
PORT4_GLORY = _pt["tile4_glory"]["value"]
PORT5_MONEY = _pt["tile5_money"]["value"]
PORT6_STEPS = _pt["tile6_steps"]["value"]
PORT8_MONEY = _pt["tile8_money"]["value"]
PORT9_COST = _pt["tile9_cost"]["value"]
PORT2_GAIN = _pt["tile2"]["gain"]
PORT3_GAIN = _pt["tile3"]["gain"]
SCORING_TILES_BASE = tuple(COMPONENTS["scoring_tiles"]["base"])
SCORING_TILES_KICKSTARTER = tuple(COMPONENTS["scoring_tiles"]["kickstarter"])
SCORING_TILES_PER_GAME = COMPONENTS["scoring_tiles"]["per_game"]


def stand_ins() -> list[str]:
    """Every value marked stand-in in components.toml and industria.toml, as dotted paths (for the
    README; Industria's start with ``industria.``)."""
    found: list[str] = []

    def walk(node, path):
        if isinstance(node, dict):
            prov = node.get("provenance")
            if isinstance(prov, str) and "stand-in" in prov:
                found.append(".".join(path))
            for k, v in node.items():
                walk(v, path + [k])
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, path + [str(i)])

    walk(COMPONENTS, [])
    walk(INDUSTRIA, ["industria"])
    with open(DATA_DIR / "trains.toml", "rb") as fh:       # Industria's Train module (trainmap.py)
        walk(tomllib.load(fh), ["trains"])
    return found


# ---- clans, Clan Auction, solo game (rulebook "Appendix: Clans", "Clan Auction", "Solo Game") ---
_cl = COMPONENTS["clans"]
CLANS_BASE: tuple[str, ...] = tuple(_cl["base"])
CLANS_KICKSTARTER: tuple[str, ...] = tuple(_cl["kickstarter"])
CLANS_INDUSTRIA: tuple[str, ...] = tuple(_cl["industria"])
BUCHANAN_EXPORT_BOXES = _cl["buchanan"]["export_boxes"]["value"]
BUCHANAN_BUILDING_BONUS_DRAW = _cl["buchanan"]["building_bonus_draw"]["value"]
BUCHANAN_CONTRACTS_PER_TURN = _cl["buchanan"]["contracts_per_turn"]["value"]
CAMPBELL_FACTORY_DISCOUNT = tuple(_cl["campbell"]["factory_discount"]["values"])
CUNNINGHAM_BUTTER_MONEY = _cl["cunningham"]["butter_money"]["value"]
FERGUSSON_FIRST_WORKERS = _cl["fergusson"]["first_workers"]["value"]
FERGUSSON_SHIPPING = {k: SHIPPING_LEVELS.index(_cl["fergusson"]["free_shipping"][k]) for k in ("multi", "two_player")}
MACDONALD_FIRST_WORKERS = _cl["macdonald"]["first_workers"]["value"]
MACDONALD_WORKER_COST = _cl["macdonald"]["worker_cost"]["value"]
MACDONALD_WORKER_INCOME = _cl["macdonald"]["worker_income"]["value"]
MACDONALD_SHIPPING_TWO_PLAYER = SHIPPING_LEVELS.index(_cl["macdonald"]["free_shipping"]["two_player"])
MACKENZIE_WHISKY_MONEY = _cl["mackenzie"]["whisky_money"]["value"]
MACKENZIE_CELLAR_MONEY = tuple(_cl["mackenzie"]["cellar_money"]["values"])
ROBERTSON_DELTA_DISCOUNT = {k: _cl["robertson"]["delta_discount"][k] for k in ("multi", "two_player")}
STEWART_EXTRA_MERCHANTS = _cl["stewart"]["extra_merchants"]["value"]
STEWART_TRADE_MONEY = _cl["stewart"]["trade_money"]["value"]
STEWART_SHIPPING = {k: SHIPPING_LEVELS.index(_cl["stewart"]["free_shipping"][k]) for k in ("multi", "two_player")}
DOUGLAS_RETURNED_MERCHANTS = _cl["douglas"]["returned_merchants"]["value"]
DOUGLAS_GOODS_PER_MERCHANT = _cl["douglas"]["goods_per_merchant"]["value"]
DOUGLAS_PAIR_MONEY = _cl["douglas"]["pair_money"]["value"]
DOUGLAS_NEIGHBOURHOOD_LIMIT = _cl["douglas"]["neighbourhood_limit"]["value"]
FRASER_KILTMAKERS = _cl["fraser"]["kiltmakers"]["value"]
FRASER_MAX_KILTS = _cl["fraser"]["max_kilts"]["value"]
FRASER_COTTON_STEP = _cl["fraser"]["cotton_step"]["value"]
FRASER_COTTON_WOOL = _cl["fraser"]["cotton_wool"]["value"]
GORDON_FIELD_COST = _cl["gordon"]["field_cost"]["value"]
GORDON_EXTRA_GRAIN = _cl["gordon"]["extra_grain"]["value"]
GORDON_SILOS = _cl["gordon"]["silos"]["value"]
MACKINTOSH_DEPLOY_MONEY = _cl["mackintosh"]["deploy_money"]["value"]
MACPHERSON_CALVES_PER_TYPE = _cl["macpherson"]["calves_per_type"]["value"]
MACEWEN_BEER_MONEY = _cl["macewen"]["beer_money"]["value"]
MACEWEN_MAX_BEER = _cl["macewen"]["max_beer_per_contract"]["value"]
MACEWEN_GRAIN_PER_BEER = _cl["macewen"]["grain_per_beer"]["value"]

AUCTION_MAX_BID = COMPONENTS["auction"]["max_bid"]["value"]

_solo = COMPONENTS["solo"]
SOLO_GOODS_DIE = tuple(GOOD_INDEX[g] for g in _solo["goods_die"]["values"])
SOLO_PRICE_DIE = tuple(_solo["price_die"]["values"])
SOLO_GOODS_CHANGED = _solo["goods_changed"]["value"]
SOLO_MARKET_ROUNDS = tuple(_solo["market_rounds"]["values"])
#: last Price die result -> Export box whose contract leaves the game
SOLO_REMOVAL_BOX = dict(zip(SOLO_PRICE_DIE, _solo["removal_box"]["values"]))


# ---- Industria (data/industria.toml; rule numbers of docs/rules-index.md) ---------------
with open(DATA_DIR / "industria.toml", "rb") as _fh:
    INDUSTRIA = tomllib.load(_fh)

_fm = INDUSTRIA["farmers_markets"]
#: Farmers market tile id -> (Basic good, Processed good)
FARMERS_MARKET_TILES = {k + 1: (GOOD_INDEX[b], GOOD_INDEX[q]) for k, (b, q) in enumerate(_fm["tiles"]["values"])}
assert all(IS_BASIC[b] and not IS_BASIC[q] for b, q in FARMERS_MARKET_TILES.values())
MARKET_MIN_NEIGHBOURING_LAND = _fm["min_neighbouring_land"]["value"]
MARKET_MIN_DISTANCE = _fm["min_distance"]["value"]
MARKET_MAX_SELL = _fm["max_sell"]["value"]
#: selling bonus per Good (Basic +2, Processed +3)
MARKET_BONUS = tuple(_fm["bonus"]["basic"] if IS_BASIC[i] else _fm["bonus"]["processed"] for i in range(NUM_GOODS))
PASSING_OVERLAY = _fm["passing_overlay"]["value"]
REFILL_SLOTS = INDUSTRIA["refill_board"]["slots"]["value"]

_aw = INDUSTRIA["awards"]
AWARD_TILES = tuple(t["id"] for t in _aw["tiles"])
AWARD_MEASURE = {t["id"]: t["measure"] for t in _aw["tiles"]}
AWARD_TEXT = {t["id"]: t["text"] for t in _aw["tiles"]}
AWARD_TIERS = {2: tuple(_aw["vp"]["two_player"]), 3: tuple(_aw["vp"]["multi"]), 4: tuple(_aw["vp"]["multi"])}
AWARD_SOLO_THRESHOLDS = {i: (lo, hi) for i, lo, hi in zip(AWARD_TILES, _aw["solo_null_vp"]["values"],
                                                          _aw["solo_four_vp"]["values"])}
AWARD_SOLO_VP = (_aw["solo_vp"]["below"], _aw["solo_vp"]["middle"], _aw["solo_vp"]["top"])

_vp = INDUSTRIA["variable_prices"]
#: setup Price die result -> steps the Price marker moves (R16.1)
VARIABLE_PRICE_STEPS = dict(zip(_vp["steps"]["die"], _vp["steps"]["move"]))
VARIABLE_PRICE_MARKET_ROUNDS = tuple(_vp["market_phase_rounds"]["values"])

_alt = INDUSTRIA["alt_two_player_scoring"]
ALT_EXPORT = (_alt["export"]["first"], _alt["export"]["second"], tuple(_alt["export"]["second_if_behind_by"]))
ALT_SETTLEMENT = (_alt["settlement"]["first"], _alt["settlement"]["second"],
                  tuple(_alt["settlement"]["second_if_behind_by"]))

_tl = INDUSTRIA["tiles"]
PORT_TILES_INDUSTRIA = tuple(_tl["port"]["values"])
SCORING_TILES_INDUSTRIA = tuple(_tl["scoring"]["values"])
_st = INDUSTRIA["scoring_tiles"]
SCORING_GLORY = {int(k[1:]): v for k, v in _st["glory"].items() if k.startswith("t")}
FIELD_PAIRS = _st["field_pairs"]["value"]
TILE14_UNITS = _st["tile14_units_per_award"]["value"]
TILE18_UNITS = _st["tile18_units"]["value"]
_pt = INDUSTRIA["port_tiles"]
PORT_INDUSTRIA = {"tile13_cost": _pt["tile13"]["cost"], "tile13_glory": _pt["tile13"]["glory"],
                  "tile14_discard": _pt["tile14"]["discard"], "tile14_money": _pt["tile14"]["money"],
                  "tile15_needs_fulfilled": _pt["tile15"]["needs_fulfilled"], "tile15_upgrades": _pt["tile15"]["upgrades"],
                  "tile16_moves": _pt["tile16"]["moves"], "tile18_cost": _pt["tile18"]["cost"]}

# ---- Industria clans MacFarlane, MacGregor, MacLeod, Sinclair (data/industria.toml [clans.*]) ----------
_icl = INDUSTRIA["clans"]
MACFARLANE_SHIPPING = SHIPPING_LEVELS.index(_icl["macfarlane"]["free_shipping"]["value"])
MACFARLANE_FREE_MERCHANTS = _icl["macfarlane"]["free_merchants"]["value"]
MACFARLANE_CANAL_SHIPPING = SHIPPING_LEVELS.index(_icl["macfarlane"]["canal_shipping"]["value"])
MACGREGOR_SHIPPING = SHIPPING_LEVELS.index(_icl["macgregor"]["free_shipping"]["value"])
MACGREGOR_SHEEP_MONEY = _icl["macgregor"]["sheep_money"]["value"]
MACLEOD_SHIPPING = SHIPPING_LEVELS.index(_icl["macleod"]["free_shipping"]["value"])
MACLEOD_SHIPYARDS = _icl["macleod"]["shipyards"]["value"]
SINCLAIR_SHIPPING = SHIPPING_LEVELS.index(_icl["sinclair"]["shipping"]["value"])
SINCLAIR_LAND_SKIP_COST = _icl["sinclair"]["land_skip_cost"]["value"]
SINCLAIR_LOCH_SKIP_COST = _icl["sinclair"]["loch_skip_cost"]["value"]
SINCLAIR_SETTLEMENT_DISTANCE = _icl["sinclair"]["settlement_distance"]["value"]
