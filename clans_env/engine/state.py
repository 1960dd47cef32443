"""Plain state containers: per-player boards, pending decisions, phases.

Kept deliberately dumb (``__slots__``, lists of ints) so that ``Game.clone`` is a handful
of list copies; all behaviour lives in ``rules/``.
"""
from __future__ import annotations

from . import data as D


class IllegalActionError(ValueError):
    """Raised by ``Game.apply`` for an action that is not legal now; the state is unchanged."""


# ---- phases ---------------------------------------------------------------------------
SETUP, ACTION, PRODUCTION, GAME_OVER = range(4)
PHASE_NAMES = ("setup", "action", "production", "game_over")

# ---- decision kinds (the top frame of Game.stack says which one is pending) -------------
# A frame is a tuple: (kind, player, *context). Frames are immutable; a rule that needs to
# change a frame's context pops it and pushes a new one, so clones may share frames.
_KINDS = [
    "start_tile",        # pick a Starting tile (Without Clans draft)       CHOOSE(k)
    "clan_pick",         # pick a Clan + Starting tile pair                 CHOOSE(k)
    "auction_bid",       # Clan Auction: bid VP or pass                     CHOOSE(bid) / PASS
    "auction_pick",      # Clan Auction winner picks a clan                 CHOOSE(k)
    "first_worker",      # which Worker type to place first                 EXPAND(u)
    "place",             # which space for the chosen unit                  SPACE(s)
    "main",              # the main action of a turn (and free Port uses)   many
    "post_main",         # after the main action: more Port tiles, or end   USE_PORT / DONE
    "neighbourhood",     # Neighbourhood bonus purchases                    TRADE(buy) / DONE
    "bonus_order",       # Neighbourhood or Building bonus first            CHOOSE(0/1)
    "building_bonus",    # take one of the drawn contracts                  CHOOSE(k) / DONE
    "slaughter",         # which Cow / Sheep to slaughter for Meat          SPACE(s) / USE_PORT
    "export_bonus",      # which Direct export bonus next                   CHOOSE(0/1)
    "bonus_upgrade",     # Technology / Shipping / Merchant                 UPGRADE_* / HIRE / MARKET_AREA / DONE
    "free_space",        # unit for the Free space bonus                    EXPAND(u) / DONE
    "port_discard",      # Port tiles 2/3: Good to discard                  GOOD(g)
    "port_gain",         # Port tiles 2/3: Good to gain                     GOOD(g)
    "port_price",        # Port tile 6: Good and direction                  MARKET_AREA
    "exchange_from",     # Port tile 7: unit on the map to exchange         SPACE(s) / DONE
    "exchange_to",       # Port tile 7: unit from the board                 EXPAND(u)
    "port_copy",         # Port tile 9: which other tile to use             USE_PORT(k)
    "process",           # Production: how many inputs to process           CHOOSE(k)
    "clan",              # a clan ability's own decision (see clans/)       any
    "hook",              # internal: run a named rule step when reached      - (never pending)
]
#: the base game's decision kinds (their indices, and the observation's one-hot over them, never change)
NUM_BASE_DECISION_KINDS = len(_KINDS)
_KINDS += [
    # Industria (rule numbers of docs/rules-index.md); only pending with its modules on
    "market_place",      # R1.6: where to place your Farmers market          SPACE(s)
    "market_sell",       # R7.2: the Farmers market selling bonus            TRADE(sell) / DONE
    "bonus_menu",        # R3.2: which deployment bonus next (3 or more)     CHOOSE(k)
    "port_ignore",       # Port 10: which Processed good to ignore          GOOD(g) / DONE
    "port_field",        # Port 12: which factory becomes a Field           SPACE(s)
    "port_tech",         # Port 13: Technology upgrades or Glory            CHOOSE(0/1)
    "port_discard4",     # Port 14: a Processed good to discard            GOOD(g)
    "port_deploy",       # Port 17: which factory, then where               EXPAND(u) / SPACE(s)
    "port_fulfil",       # Port 18: which contract                          FULFIL(k)
    "stack",             # Port 11: which animal, then beside which animal  EXPAND(u) / SPACE(s)
    "move",              # R5 (Port 16): which unit, then where              SPACE(s) / EXPAND(u) / DONE
    # Industria Train module and Milestones (rules/trains.py, milestones.py, deliveries.py)
    "train_place",       # R1.12/R1.13: a Train (or Mini-train) on a Town   CHOOSE(location)
    "train_move",        # R13.2-R13.8: the next location of the move       CHOOSE(location) / DONE
    "delivery",          # R13.10: which part of the Delivery bonus next     CHOOSE(part) / DONE
    "delivery_step",     # R13.26: a Delivery bonus's own choices           various
    "station",           # R13.14-R13.17: where the Train station goes      SPACE(s)
    "milestone",         # R13.19-R13.21: which Milestone to claim          CHOOSE(spot)
]
DECISION_KINDS: tuple[str, ...] = tuple(_KINDS)
(K_START_TILE, K_CLAN_PICK, K_AUCTION_BID, K_AUCTION_PICK, K_FIRST_WORKER, K_PLACE, K_MAIN, K_POST_MAIN,
 K_NEIGHBOURHOOD, K_BONUS_ORDER, K_BUILDING_BONUS, K_SLAUGHTER, K_EXPORT_BONUS, K_BONUS_UPGRADE,
 K_FREE_SPACE, K_PORT_DISCARD, K_PORT_GAIN, K_PORT_PRICE, K_EXCHANGE_FROM, K_EXCHANGE_TO, K_PORT_COPY,
 K_PROCESS, K_CLAN, K_HOOK, K_MARKET_PLACE, K_MARKET_SELL, K_BONUS_MENU, K_PORT_IGNORE, K_PORT_FIELD, K_PORT_TECH,
 K_PORT_DISCARD4, K_PORT_DEPLOY, K_PORT_FULFIL, K_STACK, K_MOVE,
 K_TRAIN_PLACE, K_TRAIN_MOVE, K_DELIVERY, K_DSTEP, K_STATION, K_MILESTONE) = range(len(_KINDS))

# placement modes (context of K_PLACE)
PLACE_FIRST, PLACE_EXPAND, PLACE_FREE, PLACE_CLAN = range(4)
#: on_deploy mode of a unit put on the map by Port tile 7's exchange (never a K_PLACE context)
PLACE_EXCHANGE = 4


class PlayerState:
    """One player's board and belongings. Lists are indexed by ``data`` constants."""

    __slots__ = ("money", "goods", "units_left", "spaces", "shipping", "tech", "merchants_board",
                 "merchants_stock", "merchants_market", "open_contracts", "done_contracts", "imports",
                 "hops", "meat", "glory", "passed", "ports_used", "clan", "start_tile", "reach", "vp_bid",
                 "extra", "units_total")

    def __init__(self):
        self.money = 0
        self.goods = [0] * D.NUM_GOODS
        self.units_left = list(D.UNITS_PER_PLAYER)
        self.spaces = 0                    # bit set of spaces holding this player's units
        self.shipping = 0
        self.tech = [False, False]         # woodcutter, miner Technology tiles flipped
        self.merchants_board = D.MERCHANTS_ON_TRACK
        self.merchants_stock = D.MERCHANTS_IN_STOCK
        self.merchants_market = [0] * (D.NUM_GOODS * 2)   # per (good, buy/sell) area
        self.open_contracts: list[int] = []
        self.done_contracts: list[int] = []
        self.imports = [0] * D.NUM_IMPORTS  # on fulfilled contracts
        self.hops = 0
        self.meat = 0
        self.glory = 0
        self.passed = False
        self.ports_used = 0                # bit set of port slots used (once per game)
        self.clan = None                   # clan name or None
        self.start_tile = 0
        self.reach = -1                    # cached reach bit set; -1 = stale
        self.vp_bid = 0                    # Clan Auction bid, scored as negative VP
        self.extra: dict = {}              # clan-specific state (plain JSON values)
        # units of each type this player owns (placed + on the board); replaced, never mutated
        # in place, so clones share it (Clan MacDonald's Workers change type)
        self.units_total = D.UNITS_PER_PLAYER

    def copy(self) -> "PlayerState":
        c = PlayerState.__new__(PlayerState)
        c.money = self.money
        c.goods = self.goods[:]
        c.units_left = self.units_left[:]
        c.spaces = self.spaces
        c.shipping = self.shipping
        c.tech = self.tech[:]
        c.merchants_board = self.merchants_board
        c.merchants_stock = self.merchants_stock
        c.merchants_market = self.merchants_market[:]
        c.open_contracts = self.open_contracts[:]
        c.done_contracts = self.done_contracts[:]
        c.imports = self.imports[:]
        c.hops = self.hops
        c.meat = self.meat
        c.glory = self.glory
        c.passed = self.passed
        c.ports_used = self.ports_used
        c.clan = self.clan
        c.start_tile = self.start_tile
        c.reach = self.reach
        c.vp_bid = self.vp_bid
        c.extra = {k: (v[:] if isinstance(v, list) else v) for k, v in self.extra.items()} if self.extra else {}
        c.units_total = self.units_total
        return c

    def units_placed(self, unit: int) -> int:
        return self.units_total[unit] - self.units_left[unit]

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__slots__}

    @classmethod
    def from_dict(cls, d: dict) -> "PlayerState":
        p = cls()
        for k in cls.__slots__:
            setattr(p, k, d[k])
        return p
