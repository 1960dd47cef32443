"""The hook points a clan ability may change.

The core rules call these methods at named points and never test a clan's name. A clan is
a stateless subclass (its per-game state lives in ``PlayerState.extra``), so one instance is
shared by every clone of a game. ``NoClan`` is the rulebook's behaviour without abilities.
"""
from __future__ import annotations

from .. import data as D


class Clan:
    name = "none"
    #: Export boxes (open contracts at once), contracts obtainable/fulfillable per turn
    export_boxes = 1
    #: Building bonus draw size
    building_bonus_draw = D.BUILDING_BONUS_DRAW
    #: Workers placed during setup
    first_workers = 2
    #: money gained before paying each time this clan trades at the Market (Clan Stewart)
    trade_money = 0
    #: Neighbourhood bonus limit per Good per turn; 0 = the rulebook's 3 (4 with 2 players)
    neighbourhood_limit = 0

    # ---- setup ---------------------------------------------------------------------
    def on_setup(self, game, p: int) -> None:
        """Adjust the starting board (extra Merchants, free Shipping, ...)."""

    def first_worker_units(self, game, p: int) -> tuple[int, ...]:
        return (D.WOODCUTTER, D.MINER)

    def first_worker_spaces(self, game, p: int, unit: int) -> int:
        """Bit set restricting where a first Worker may go (default: anywhere legal)."""
        return -1

    # ---- costs ---------------------------------------------------------------------
    def unit_cost(self, game, p: int, unit: int) -> int:
        return D.UNIT_COST[unit]

    def placement_discount(self, game, p: int, space: int) -> int:
        """Money off the total cost of placing a unit on ``space``."""
        return 0

    def discount_spaces(self, game, p: int) -> tuple[int, int]:
        """(bit set, discount) of spaces where ``placement_discount`` applies, for fast legality."""
        return 0, 0

    def can_upgrade_technology(self, game, p: int) -> bool:
        return True

    def extra_reach(self, game, p: int) -> int:
        """Spaces counted as neighbouring for Expand beyond the normal reach."""
        return 0

    # ---- events --------------------------------------------------------------------
    def on_deploy(self, game, p: int, unit: int, space: int, mode: int) -> None:
        """Called after p's unit is placed on the map (any placement mode)."""

    def on_trade(self, game, p: int, good: int, qty: int, direction: int) -> None:
        """Called before a Trade at the Market is paid."""

    def worker_income(self, game, p: int, unit: int) -> int:
        pl = game.players[p]
        base = D.WORKER_INCOME[unit]
        if unit == D.WOODCUTTER and pl.tech[0]:
            base += D.TECH_BONUS
        elif unit == D.MINER and pl.tech[1]:
            base += D.TECH_BONUS
        return base

    def after_fulfil(self, game, p: int, contract_id: int) -> None:
        """Called when a contract's rewards are taken (before Free space / Bonus upgrades)."""

    def production_per_unit(self, game, p: int, unit: int, base: int) -> int:
        """Goods one Sheep / Cow / Field produces."""
        return base

    def on_produce(self, game, p: int, good: int, qty: int) -> None:
        """Called for Goods produced in Production (basic and processed)."""

    def after_production(self, game, p: int) -> None:
        """End of this player's Production (may push clan decisions)."""

    def at_production_start(self, game, p: int) -> None:
        """Start of this player's Production."""

    # ---- decisions -----------------------------------------------------------------
    def main_actions(self, game, p: int) -> list[int]:
        """Extra legal actions in the main decision (e.g. rowing)."""
        return []

    def apply_main(self, game, p: int, action: int) -> bool:
        """Resolve one of ``main_actions``; return True if handled."""
        return False

    def legal(self, game, frame) -> list[int]:
        """Legal actions of this clan's own decision frames (kind K_CLAN)."""
        raise NotImplementedError

    def apply(self, game, frame, action: int) -> None:
        raise NotImplementedError

    def describe(self, game, frame) -> str:
        return f"{self.name} decision"

    # ---- scoring -------------------------------------------------------------------
    def scoring_goods(self, game, p: int) -> list[int]:
        """Goods that count as 'in stock' for Scoring tiles (MacKenzie's cellar adds Whisky)."""
        return game.players[p].goods

    def final_goods(self, game, p: int) -> list[int]:
        """Goods scored at Final Scoring."""
        return game.players[p].goods

    def extra_score_lines(self, game, p: int) -> dict:
        """Additional score sheet lines (name -> VP)."""
        return {}


class NoClan(Clan):
    pass


NO_CLAN = NoClan()

