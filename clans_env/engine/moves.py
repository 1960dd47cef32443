"""Every legal move as one record, for every presenter (``clans play``, ``clans replay``, the web viewer).

``Game.describe_move(action)`` / ``Game.describe_legal()`` return a :class:`Move`: the decision it
answers, the action family (the section of ``actions.py``), the map space and unit it names, the money
it costs when the rules can tell before it is made, the contract or Port tile it takes, and what a
``choose:k`` answer picks (``option``) or counts (``quantity``), read from the pending decision's frame
and the game state, never from the decision's prose. ``name`` is ``Game.action_to_string`` (the one
source of action names); ``detail`` is the record in words, the same in every presenter.

What a ``choose:k`` means depends on the decision: the functions registered with :func:`choices_for`
answer it per decision kind; a clan's own decisions, and the clan's ``choose`` actions offered in a
rules decision (main, post-main, Free space), are answered by the clan's ``describe_choice``.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

from . import actions as A
from . import data as D
from .rules.clan_setup import offered_clans
from .rules.common import placement_cost
from .rules.deliveries import demand_payments
from .rules.trains import demand_spot_tile
from .state import (DECISION_KINDS, K_AUCTION_BID, K_AUCTION_PICK, K_BONUS_MENU, K_BONUS_ORDER, K_BUILDING_BONUS,
                    K_CLAN, K_CLAN_PICK, K_DELIVERY, K_DSTEP, K_EXPORT_BONUS, K_MAIN, K_MILESTONE, K_PLACE,
                    K_PORT_TECH, K_PROCESS, K_SLAUGHTER, K_START_TILE, K_TRAIN_MOVE, K_TRAIN_PLACE,
                    PLACE_CLAN, PLACE_FREE)
from .train_views import choose_context
from .views import _LAND_NAMES, contract_parts

#: families whose money the rules settle within the action itself (a copy of the game applies it to tell)
_PRICED_FAMILIES = frozenset(("trade", "take_contract", "upgrade_shipping", "upgrade_tech", "hire_merchant"))


@dataclass(frozen=True, slots=True)
class Move:
    """One legal move of the pending decision, as data.

    kind: the decision it answers (``Game.decision_kind``; ``clan`` for a clan's own); family: the action's
    section (``actions.SECTIONS``). cost: money the player pays (negative: receives), when the rules settle
    it within the move (None otherwise; for ``expand`` in the main decision the unit's cost, the land
    comes with the space). option: what a ``choose:k`` answer picks, in words built from the state (for a
    count, what is counted); quantity: the Goods a trade moves or the number a ``choose:k`` count answers."""
    action: int
    name: str
    kind: str
    family: str
    player: int | None = None
    space: int | None = None
    space_label: str | None = None
    land: str | None = None
    unit: str | None = None
    good: str | None = None
    direction: str | None = None
    quantity: int | None = None
    cost: int | None = None
    contract: int | None = None
    contract_needs: str | None = None
    contract_gives: str | None = None
    port_tile: int | None = None
    option: str | None = None

    @property
    def detail(self) -> str:
        """The facts beyond the name that help a person choose, in words (every presenter shows this)."""
        parts = []
        if self.option and f"({self.option})" not in self.name:     # Train choices: already in the name
            parts.append(self.option)
        if self.family == "choose" and self.option is None and self.quantity is not None:
            parts.append(f"{self.quantity}")
        if self.cost is not None:
            if self.family == "expand":
                parts.append(f"unit £{self.cost} + land")
            else:
                parts.append(f"pay £{self.cost}" if self.cost >= 0 else f"get £{-self.cost}")
        if self.contract is not None:
            parts.append(f"#{self.contract}: {self.contract_needs} -> {self.contract_gives}")
        if self.family == "space" and self.land:
            parts.append(self.land)
        if self.unit is not None and self.family == "space":
            parts.append(self.unit)
        if self.port_tile is not None:
            parts.append(f"Port tile {self.port_tile}")
        return "; ".join(parts)

    def text(self) -> str:
        """The name with its detail: ``choose:1 (stewart with Starting tile 1 (£70, ...))``."""
        detail = self.detail
        return f"{self.name} ({detail})" if detail else self.name

    def to_dict(self) -> dict:
        return {**asdict(self), "detail": self.detail}


def describe_move(game, action: int) -> Move:
    """The record of ``action`` in the pending decision (it need not be legal; nothing is changed)."""
    action = int(action)
    family, off = A.section_of(action)
    name = game.action_to_string(action)
    if not game.stack:
        return Move(action, name, "game_over", family)
    frame = game.stack[-1]
    p = frame[1]
    fields: dict = {}
    if family == "space":
        fields.update(_space(game, frame, off))
    elif family == "trade":
        good, direction, qty = A.decode_trade(action)
        fields.update(good=D.GOODS[good], direction=A.DIRECTIONS[direction], quantity=qty)
    elif family == "expand":
        fields["unit"] = D.UNITS[off]
        if frame[0] == K_MAIN:
            fields["cost"] = game.clans[p].unit_cost(game, p, off)
    elif family == "take_contract" and off < len(game.display) and game.display[off] >= 0:
        fields.update(_contract(game.display[off]))
    elif family == "fulfil":
        held = game.players[p].open_contracts
        if off < len(held):
            fields.update(_contract(held[off]))
    elif family == "use_port" and off < len(game.port_tiles):
        fields["port_tile"] = game.port_tiles[off]
    elif family in ("market_area", "good"):
        good, direction = divmod(off, 2) if family == "market_area" else (off, None)
        fields["good"] = D.GOODS[good]
        if direction is not None:
            fields["direction"] = A.DIRECTIONS[direction]
    elif family == "choose":
        fields.update(_choice(game, frame, off))
    if family in _PRICED_FAMILIES and action in game.legal_actions():
        after = game.clone()
        after.apply(action)
        fields["cost"] = game.players[p].money - after.players[p].money
    return Move(action, name, DECISION_KINDS[frame[0]], family, player=p, **fields)


def describe_legal(game) -> list[Move]:
    """The record of every legal action, in ``legal_actions()`` order."""
    return [describe_move(game, a) for a in game.legal_actions()]


def _contract(cid: int) -> dict:
    need, gain = contract_parts(cid)
    return {"contract": cid, "contract_needs": need, "contract_gives": gain}


def _space(game, frame, s: int) -> dict:
    b = game.board
    out = {"space": s, "space_label": b.label[s],
           "land": "/".join(n for bit, n in _LAND_NAMES.items() if b.land[s] & bit) or None}
    if frame[0] == K_PLACE:
        out["unit"] = D.UNITS[frame[2]]
        if frame[3] != PLACE_CLAN:
            out["cost"] = placement_cost(game, frame[1], frame[2], s, free_land=(frame[3] == PLACE_FREE))
    return out


# ---- what choose:k means, per decision kind ---------------------------------------------------------
CHOICES: dict = {}


def choices_for(*kinds: int):
    """Register ``fn(game, frame, k) -> dict`` of Move fields for ``choose:k`` in these decision kinds."""
    def deco(fn):
        for kind in kinds:
            CHOICES[kind] = fn
        return fn
    return deco


def _choice(game, frame, off: int) -> dict:
    kind = frame[0]
    if kind == K_CLAN:
        out = game.clans[frame[1]].describe_choice(game, frame, off)
    elif kind in CHOICES:
        out = CHOICES[kind](game, frame, off)
    else:
        out = None
    if out is None and kind != K_CLAN:       # a clan's own actions offered in a rules decision (main, Free space...)
        out = game.clans[frame[1]].describe_choice(game, frame, off)
    return out or {}


def _tile_text(t: int) -> str:
    tile = D.STARTING_TILES[t]
    goods = ", ".join(f"{q} {D.GOODS[i]}" for i, q in enumerate(tile.goods) if q)
    return f"Starting tile {tile.id} (£{tile.money}{', ' + goods if goods else ''})"


@choices_for(K_START_TILE)
def _start_tile(game, frame, k):
    return {"option": _tile_text(game.tile_pool[k])} if k < len(game.tile_pool) else None


@choices_for(K_CLAN_PICK, K_AUCTION_PICK)
def _clan_offer(game, frame, k):
    offer = offered_clans(game)
    return {"option": f"{offer[k]} with {_tile_text(game.tile_pool[k])}"} if k < len(offer) else None


@choices_for(K_AUCTION_BID)
def _bid(game, frame, k):
    return {"option": f"bid {k} VP", "quantity": k}


@choices_for(K_BONUS_ORDER)
def _bonus_order(game, frame, k):
    return {"option": ("Neighbourhood bonus first", "Building bonus first")[k]} if k < 2 else None


@choices_for(K_EXPORT_BONUS)
def _export_bonus(game, frame, k):
    return {"option": ("Free space next", "Bonus upgrade next")[k]} if k < 2 else None


@choices_for(K_BUILDING_BONUS)
def _building_bonus(game, frame, k):
    drawn = frame[2]
    if not drawn:
        return {"option": f"draw {game.clans[frame[1]].building_bonus_draw} Export contracts"}
    if k < len(drawn) and drawn[k] >= 0:
        return {"option": f"take contract {drawn[k]}", **_contract(drawn[k])}
    return None


@choices_for(K_PROCESS)
def _process(game, frame, k):
    source, product = D.FACTORY_IO[frame[2]]
    return {"option": f"process {k} {D.GOODS[source]} into {D.GOODS[product]}", "quantity": k}


@choices_for(K_BONUS_MENU)
def _bonus_menu(game, frame, k):
    if k < 2:
        return {"option": ("Neighbourhood bonus", "Building bonus")[k]}
    markets = frame[3]
    if k - 2 < len(markets):
        s = markets[k - 2]
        return {"option": f"Farmers market on {game.board.label[s]}", "space": s, "space_label": game.board.label[s]}
    return None


@choices_for(K_PORT_TECH)
def _port_tech(game, frame, k):
    tile = D.PORT_INDUSTRIA
    if k == 0:
        return {"option": "your Technology upgrades", "cost": tile["tile13_cost"], "port_tile": 13}
    return {"option": f"gain {tile['tile13_glory']} Glory", "port_tile": 13}


@choices_for(K_SLAUGHTER)
def _slaughter(game, frame, k):
    return {"option": "your clan's own Port tile 1 (one animal fewer)", "port_tile": 1}


@choices_for(K_DSTEP)
def _delivery_step(game, frame, k):
    if frame[2] != "pay":
        return None
    _, tile = demand_spot_tile(game, frame[3])
    ways = demand_payments(game, frame[1], tile)
    if k >= len(ways):
        return None
    goods, port16 = ways[k]
    paid = ", ".join(f"{q} {D.GOODS[i]}" for i, q in enumerate(goods) if q) or "nothing"
    return {"option": f"pay {paid}" + (" (Port tile 16)" if port16 else "")}


@choices_for(K_MAIN, K_TRAIN_PLACE, K_TRAIN_MOVE, K_MILESTONE, K_DELIVERY)
def _trains(game, frame, k):
    if not (game.config.trains or game.config.milestones):
        return None
    ctx = choose_context(game, k)
    return {"option": ctx} if ctx else None
