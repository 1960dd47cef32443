"""The flat action index table shared by the engine, the environment and every agent.

An action is one int. The table is cut into sections; which sections are legal at a moment
depends on the pending decision (see ``decisions.py``), and a section may mean slightly
different things in different decisions (``SPACE(s)`` picks the space to expand into, the
animal to slaughter or the unit to exchange). The same index table serves every player
count, so an environment's ``Discrete(NUM_ACTIONS)`` never changes.
"""
from __future__ import annotations

from .data import GOODS, NUM_GOODS, NUM_UNITS, UNITS, MAX_CONTRACT_BOXES

#: the map always has this many spaces (120 cells + 8 port nodes), see board.py
NUM_SPACES = 128
#: largest number of Goods one Trade action can move (Clan Stewart has 10 Merchants)
MAX_TRADE_QTY = 10
#: largest number of contracts one player can hold open (Clan Buchanan's two Export boxes)
MAX_OPEN_CONTRACTS = 2
NUM_PORT_SLOTS = 4
#: CHOOSE(k) answers small menus: quantities, drawn contracts, clans, bids (0..30)
NUM_CHOICES = 32
BUY, SELL = 0, 1
DIRECTIONS = ("buy", "sell")
TECH_NAMES = ("woodcutter", "miner")

_sections: list[tuple[str, int, int]] = []


def _section(name: str, size: int) -> int:
    start = _sections[-1][1] + _sections[-1][2] if _sections else 0
    _sections.append((name, start, size))
    return start


PASS = _section("pass", 1)
DONE = _section("done", 1)                       # end turn / decline / stop
TRADE = _section("trade", NUM_GOODS * 2 * MAX_TRADE_QTY)
TAKE_CONTRACT = _section("take_contract", MAX_CONTRACT_BOXES)
EXPAND = _section("expand", NUM_UNITS)           # choose the unit type to deploy
SPACE = _section("space", NUM_SPACES)
UPGRADE_SHIPPING = _section("upgrade_shipping", 1)
UPGRADE_TECH = _section("upgrade_tech", 2)
HIRE_MERCHANT = _section("hire_merchant", 1)
FULFIL = _section("fulfil", MAX_OPEN_CONTRACTS)
USE_PORT = _section("use_port", NUM_PORT_SLOTS)
MARKET_AREA = _section("market_area", NUM_GOODS * 2)   # retrieve a Merchant / move a price
GOOD = _section("good", NUM_GOODS)
CHOOSE = _section("choose", NUM_CHOICES)
NUM_ACTIONS = _section("_end", 0)

SECTIONS: tuple[tuple[str, int, int], ...] = tuple(s for s in _sections if s[0] != "_end")


def trade_action(good: int, direction: int, qty: int) -> int:
    return TRADE + (good * 2 + direction) * MAX_TRADE_QTY + (qty - 1)


def decode_trade(action: int) -> tuple[int, int, int]:
    off = action - TRADE
    area, q = divmod(off, MAX_TRADE_QTY)
    good, direction = divmod(area, 2)
    return good, direction, q + 1


def market_area_action(good: int, direction: int) -> int:
    return MARKET_AREA + good * 2 + direction


def section_of(action: int) -> tuple[str, int]:
    """(section name, offset within the section); raises ValueError for an unknown index."""
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action {action} is outside 0..{NUM_ACTIONS - 1}")
    for name, start, size in SECTIONS:
        if start <= action < start + size:
            return name, action - start
    raise ValueError(f"action {action} is in no section")  # pragma: no cover


def describe(action: int, space_labels=None) -> str:
    """Context-free name of an index, e.g. ``trade:buy:whisky:2`` or ``space:A3.4``.

    ``Game.action_to_string`` adds context (which decision it answers); this is the table name.
    """
    name, off = section_of(action)
    if name == "trade":
        g, d, q = decode_trade(action)
        return f"trade:{DIRECTIONS[d]}:{GOODS[g]}:{q}"
    if name == "take_contract":
        return f"take_contract:{off}"
    if name == "expand":
        return f"expand:{UNITS[off]}"
    if name == "space":
        return f"space:{space_labels[off] if space_labels else off}"
    if name == "upgrade_tech":
        return f"upgrade_tech:{TECH_NAMES[off]}"
    if name == "fulfil":
        return f"fulfil:{off}"
    if name == "use_port":
        return f"use_port:{off}"
    if name == "market_area":
        g, d = divmod(off, 2)
        return f"market_area:{DIRECTIONS[d]}:{GOODS[g]}"
    if name == "good":
        return f"good:{GOODS[off]}"
    if name == "choose":
        return f"choose:{off}"
    return name


def action_table() -> list[dict]:
    """Rows of (section, first index, size) for documentation."""
    return [{"section": n, "start": s, "size": z} for n, s, z in SECTIONS]
