"""The hook points a clan ability may change.

The core rules call these methods at named points and never test a clan's name. A clan is
a stateless subclass (its per-game state lives in ``PlayerState.extra``), so one instance is
shared by every clone of a game. ``NoClan`` is the rulebook's behaviour without abilities.

Where each hook is called (so a reader can follow a clan ability into the rules):

==========================  ===========================================================
hook                        called from
==========================  ===========================================================
on_setup                    rules/clan_setup.py, once the clans are chosen
first_worker_units/_spaces  rules/expand.py (Placing the First Workers)
move_targets                rules/stacking.py ``move_targets``: moving the clan's own unit type (R5;
                            MacDonald's Fishermen: water, never next to another Fisherman)
first_workers               rules/clan_setup.py (how many first Workers)
extra_workers_last          rules/clan_setup.py (extra first Workers after everyone)
unit_cost                   rules/common.py, rules/expand.py (every placement and its legality)
costs_now                   rules/expand.py ``expand_options`` (every unit's cost at once)
placement_discount          rules/common.py ``placement_cost``
discount_spaces             rules/common.py, rules/expand.py (fast affordability)
restricts_targets/
target_mask/restricted_units rules/common.py ``expand_targets``, rules/expand.py
can_upgrade_technology      rules/upgrades.py (action and Bonus upgrade)
can_change_shipping         rules/upgrades.py (Shipping action and Bonus upgrade; Sinclair: never)
extra_reach                 rules/common.py ``reach`` (recomputed when ``pl.reach`` is -1; with
                            ``extra_reach_grows`` rules/common.py ``place_unit`` drops the cache)
bonus_reach                 rules/market.py ``neighbourhood_goods``, rules/farmers_markets.py
                            ``triggered_markets``: extra spaces a deployment's Neighbourhood and
                            Farmers market bonuses see (MacFarlane: the same river)
settlement_link_mask        rules/scoring.py ``connected_settlements`` (Settlements joined beyond
                            Shipping reach: MacFarlane's canals, Sinclair's 2 spaces)
trade_money / on_trade      rules/market.py (Trade and Neighbourhood bonus)
neighbourhood_limit         rules/market.py
custom_trade / trade        rules/market.py ``do_trade`` (every Trade, Neighbourhood purchase and
                            Farmers market sale: Douglas's Bulk Trading, Fraser's Kilts)
wild_processed              rules/market.py, farmers_markets.py, fulfil.py, industria_ports.py (tile 10):
                            Goods usable as any Processed good (Fraser's Kilts; read with custom_trade)
pay_contract_goods          rules/fulfil.py ``finish_fulfil`` (paying a contract's Goods)
bonus_process_inputs /      rules/deliveries.py, Delivery bonus 10's ``process`` step (processing
bonus_process               without factories): Goods beyond Milk and Grain the clan may process
                            there, and what processing one makes (Fraser: Wool into a Kilt)
export_boxes                rules/common.py, contracts.py, fulfil.py
contracts_per_turn /
round_cost_once_per_turn    rules/contracts.py (Obtain, Building bonus, Port tile 8)
building_bonus_draw         rules/contracts.py
after_obtain_contract       rules/contracts.py, after the Obtain action took a contract
after_fulfil / fulfil_extras rules/fulfil.py, when a contract's rewards are taken
fulfil_tile /               rules/fulfil.py (Port tile 1 while slaughtering, tile 10 in the Fulfil),
use_fulfil_tile             rules/industria_ports.py (tile 10): the clan's own copy of a Port tile
                            that acts inside a Fulfil (MacLeod's Shipyards), after the map's tile
on_deploy                   rules/common.py ``notify_deploy``: rules/expand.py (every K_PLACE, Port
                            tiles 11 and 17), rules/ports.py (tile 7)
watches_deploys /
on_any_deploy               rules/common.py ``notify_deploy``, after any player's deployment (Mackintosh)
worker_income               rules/production.py
production_per_unit         rules/production.py
at_production_start         rules/production.py, before income
on_produce                  rules/production.py (basic and processed goods)
after_production            rules/production.py, after the player's processing
main_actions / apply_main   rules/turn.py, the main decision (free actions before it)
free_space_actions /        rules/expand.py, the Free space decision (an Expand action without the
apply_free_space            land cost): the clan's own ways to expand there (Sinclair's Railroad Reach)
post_main_actions /         rules/ports.py, the decision after the main action (free actions
apply_post_main             after it, beside the Port tiles; MacLeod's Shipyards)
legal / apply / describe    game.py, for this clan's own K_CLAN frames
scoring_goods               rules/scoring.py ``goods_in_stock``: every "in stock" condition
extra_score_lines           rules/scoring.py (Final Scoring)
extra_processed             rules/scoring.py (tile 2, Final Scoring), industria_scoring.py (tile 12),
                            awards.py: Processed goods of a type of their own (Fraser's Kilts)
production_chains           rules/industria_scoring.py (Scoring tile 13: Fraser's Kiltmaker + Sheep)
state_features              encoding/observation.py, the ``industria.clan_state`` segment
                            (NUM_STATE_FEATURES numbers per player: Kilts, Silos, ...)
state_text                  engine/views.py ``render_text`` (and so ``clans play``), render/map_image.py
                            ``clan_caption`` (map PNG), env/render.py (the rgb panel)
state_problem               engine/invariants.py (the clan's own state is one a game can reach)
merchants_returned          engine/invariants.py (the Merchants a clan has; Douglas returns one, R18.D1)
follow_ups                  agents/heuristic.py: clan decisions its lookahead resolves as part of an action
==========================  ===========================================================

Industria clans (``expansion = "industria"``) are in the pool only with
``GameConfig(industria_clans=True)`` (or ``industria=True``).
"""
from __future__ import annotations

from .. import data as D
from ..rules.market import execute_trade


#: numbers per player a clan writes into the observation's ``industria.clan_state`` (each in [-1, 1])
NUM_STATE_FEATURES = 8


class Clan:
    name = "none"
    #: which box the clan tile comes from: "base", "kickstarter" or "industria"
    expansion = "base"
    #: Export boxes (open contracts at once)
    export_boxes = 1
    #: most contracts obtained in one turn; 0 = no limit but the empty Export boxes
    contracts_per_turn = 0
    #: the round cost is paid (round 1: received) for the first contract of a turn only
    round_cost_once_per_turn = False
    #: Building bonus draw size
    building_bonus_draw = D.BUILDING_BONUS_DRAW
    #: Workers placed during setup
    first_workers = 2
    #: place the Workers beyond the second after every other player's first Workers (Fergusson)
    extra_workers_last = False
    #: money gained before paying each time this clan trades at the Market (Clan Stewart)
    trade_money = 0
    #: Neighbourhood bonus limit per Good per turn; 0 = the rulebook's 3 (4 with 2 players)
    neighbourhood_limit = 0
    #: whether ``extra_reach`` can grow when a unit is placed (``place_unit`` then drops the reach cache
    #: instead of adding the new space's Shipping reach; MacFarlane's canals)
    extra_reach_grows = False
    #: whether ``target_mask`` must be consulted for Expand targets (kept a flag: hot path)
    restricts_targets = False
    #: the unit types ``target_mask`` restricts, when it restricts only some (MacDonald: the Fisherman);
    #: None = any of them. Expand's legality asks the others nothing
    restricted_units: tuple | None = None
    #: production-chain pairs one Field may be part of (Industria Scoring tile 13; Clan Gordon: 3)
    field_pairs = D.FIELD_PAIRS
    #: whether ``trade`` resolves this clan's trades and ``wild_processed`` is read (kept a flag: hot path)
    custom_trade = False
    #: names of this clan's K_CLAN decisions that only complete an action already chosen (how many Goods
    #: Douglas's Merchants trade, ...): an agent's lookahead may resolve them as part of that action
    follow_ups: frozenset = frozenset()
    #: whether ``on_any_deploy`` is called after every player's deployments (Clan Mackintosh)
    watches_deploys = False

    def __init_subclass__(cls, **kwargs):
        # every subclass, registered or not (a test's, a user's), gets flags that match its methods
        super().__init_subclass__(**kwargs)
        _derive_flags(cls)

    # ---- setup ---------------------------------------------------------------------
    def on_setup(self, game, p: int) -> None:
        """Adjust the starting board (extra Merchants, free Shipping, ...)."""

    def first_worker_units(self, game, p: int) -> tuple[int, ...]:
        return (D.WOODCUTTER, D.MINER)

    def move_targets(self, game, p: int, space: int, unit: int, mask: int) -> int:
        """Where the clan's own unit type (the Fisherman) on ``space`` may move, of the empty adjacent
        spaces ``mask`` (Industria R5; MacDonald's Fishermen)."""
        return mask

    def first_worker_spaces(self, game, p: int, unit: int) -> int:
        """Bit set restricting where a first Worker may go (default: anywhere legal)."""
        return -1

    # ---- costs ---------------------------------------------------------------------
    #: each unit type's cost when it never changes in play (Expand's legality reads it without a call per
    #: unit); None for a subclass that overrides ``unit_cost`` without declaring its own tuple
    unit_costs: tuple | None = D.UNIT_COST
    #: fixed ``unit_costs``, no placement discount, no ``restricts_targets`` (set per subclass): Expand's
    #: legality and costs take their short path
    plain_costs = True
    #: no placement discount, and ``target_mask`` restricting only ``restricted_units`` (set per subclass):
    #: Expand's legality takes its short path with ``costs_now``
    plain_expand = True
    #: set per subclass (``__init_subclass__``) from the methods the clan overrides: ``main_actions``/``apply_main``,
    #: ``post_main_actions``/``apply_post_main``, ``on_trade``, ``on_deploy``
    adds_main_actions = adds_post_main_actions = watches_trades = acts_on_deploy = False

    def unit_cost(self, game, p: int, unit: int) -> int:
        return self.unit_costs[unit]

    def costs_now(self, game, p: int) -> tuple:
        """Every unit type's ``unit_cost`` now, in unit order (Expand's legality asks once per decision);
        a clan whose costs vary in play may override it with a cheaper count."""
        if self.unit_costs is not None:
            return self.unit_costs
        return tuple(self.unit_cost(game, p, u) for u in range(D.NUM_UNITS))

    def placement_discount(self, game, p: int, space: int) -> int:
        """Money off the total cost of placing a unit on ``space``."""
        return 0

    def discount_spaces(self, game, p: int) -> tuple[int, int]:
        """(bit set, discount) of spaces where ``placement_discount`` applies, for fast legality."""
        return 0, 0

    def target_mask(self, game, p: int, unit: int) -> int:
        """Bit set of spaces where ``unit`` may be deployed at all (only read when
        ``restricts_targets``); -1 = no restriction."""
        return -1

    def can_upgrade_technology(self, game, p: int) -> bool:
        return True

    def extra_reach(self, game, p: int) -> int:
        """Spaces counted as neighbouring for Expand beyond the normal reach."""
        return 0

    def can_change_shipping(self, game, p: int) -> bool:
        """Whether p's Shipping may move at all (the Upgrade Shipping action, Bonus upgrades)."""
        return True

    def bonus_reach(self, game, p: int, space: int) -> int:
        """Bit set of spaces beyond the neighbours of ``space`` whose opponent units give the
        Neighbourhood bonus and whose Farmers markets trigger when p deploys on ``space``."""
        return 0

    def settlement_link_mask(self, game, p: int, settlement: int) -> int:
        """Spaces joined to the Settlement ``settlement`` (bit set of p's spaces) beyond Shipping
        reach, when counting connected Settlements."""
        return 0

    # ---- events --------------------------------------------------------------------
    def on_deploy(self, game, p: int, unit: int, space: int, mode: int) -> None:
        """Called after p's unit is placed on the map (any placement mode, Port tile 7 too)."""

    def on_trade(self, game, p: int, good: int, qty: int, direction: int) -> None:
        """Called before a Trade at the Market is paid."""

    def state_problem(self, game, p: int) -> str:
        """What is wrong with this clan's own state (``PlayerState.extra``), or "" (for invariants.py)."""
        return ""

    def merchants_returned(self, game, p: int) -> int:
        """Merchants this clan has returned to the box (Clan Douglas; invariants.py counts the rest)."""
        return 0

    def on_any_deploy(self, game, me: int, p: int, unit: int, space: int, mode: int) -> None:
        """Called (with ``watches_deploys``) for clan player ``me`` after player ``p`` (``me`` too)
        deployed ``unit`` on ``space`` and paid for it."""

    def trade(self, game, p: int, good: int, direction: int, merchants: int, discount: int, limit: int) -> None:
        """Resolve a trade of ``merchants`` Merchants (with ``custom_trade``); ``limit``: most Goods, 0 = none.
        A decision it needs goes on top of the stack (it is resolved before anything the caller pushed)."""
        execute_trade(game, p, good, direction, merchants, merchants, discount)

    def wild_processed(self, game, p: int) -> int:
        """Goods that can be used as any Processed good to trade and fulfil (read with ``custom_trade``)."""
        return 0

    def pay_contract_goods(self, game, p: int, need: list) -> tuple | None:
        """Pay a contract's Goods (``need`` per Good); may instead return a decision frame that pays them,
        which is resolved before the contract's rewards."""
        goods = game.players[p].goods
        for i, n in enumerate(need):
            goods[i] -= n
        return None

    def bonus_process_inputs(self, game, p: int) -> tuple[int, ...]:
        """Goods beyond Milk and Grain that p may process now without factories (Delivery bonus 10), each
        offered as ``good:<that Good>`` in the bonus's ``process`` step."""
        return ()

    def bonus_process(self, game, p: int, good: int) -> None:
        """Process one ``good`` (one of ``bonus_process_inputs``) without factories (Delivery bonus 10)."""
        raise NotImplementedError(f"clan {self.name!r} processes no {D.GOODS[good]} without factories")

    def worker_income(self, game, p: int, unit: int) -> int:
        pl = game.players[p]
        base = D.WORKER_INCOME[unit]
        if unit == D.WOODCUTTER and pl.tech[0]:
            base += D.TECH_BONUS
        elif unit == D.MINER and pl.tech[1]:
            base += D.TECH_BONUS
        return base

    def after_obtain_contract(self, game, p: int) -> None:
        """Called after the Obtain an Export Contract action took a contract from the board."""

    def after_fulfil(self, game, p: int, contract_id: int) -> None:
        """Called when a contract's rewards are taken; decisions pushed here are resolved
        after the contract's Direct export bonuses."""

    def fulfil_extras(self, game, p: int, contract_id: int) -> None:
        """Called when a contract's rewards are taken; decisions pushed here are resolved
        immediately, before the contract's Direct export bonuses."""

    def fulfil_tile(self, game, p: int, tile: int) -> bool:
        """Whether p may use the clan's own Port tile ``tile`` (1 or 10, the tiles that act inside a
        Fulfil) now; the engine asks only when no such tile on the map is usable."""
        return False

    def use_fulfil_tile(self, game, p: int, tile: int) -> None:
        """p uses the clan's own Port tile ``tile`` inside a Fulfil (after ``fulfil_tile`` said yes)."""

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

    def free_space_actions(self, game, p: int) -> list[int]:
        """Extra legal actions in a Free space decision (clan abilities that apply "when expanding")."""
        return []

    def apply_free_space(self, game, p: int, action: int) -> bool:
        """Resolve one of ``free_space_actions`` (the Free space frame is already popped); True if handled."""
        return False

    def post_main_actions(self, game, p: int) -> list[int]:
        """Extra legal actions after the main action (free actions; never DONE or USE_PORT)."""
        return []

    def apply_post_main(self, game, p: int, action: int) -> bool:
        """Resolve one of ``post_main_actions``; return True if handled."""
        return False

    def legal(self, game, frame) -> list[int]:
        """Legal actions of this clan's own decision frames (kind K_CLAN)."""
        raise NotImplementedError(f"clan {self.name!r} has no decision {frame[2]!r}")

    def apply(self, game, frame, action: int) -> None:
        raise NotImplementedError(f"clan {self.name!r} has no decision {frame[2]!r}")

    def describe(self, game, frame) -> str:
        return f"{self.name} decision"

    def describe_choice(self, game, frame, k: int) -> dict | None:
        """What ``choose:k`` means in this clan's own decision ``frame``, or among the clan's actions offered
        in another decision (main, post-main, Free space): ``moves.Move`` fields (``option`` in words,
        ``quantity`` for a count, ``cost``...), None when the clan offers no such choice there."""
        return None

    # ---- scoring -------------------------------------------------------------------
    def scoring_goods(self, game, p: int) -> list[int]:
        """Goods that count as 'in stock' for every scoring condition (Scoring tiles, Awards, Milestones,
        Final Scoring): MacKenzie's cellar adds Whisky, Gordon's Silos Grain (R18.G6). Read through
        ``rules/scoring.py`` ``goods_in_stock`` / ``basic_in_stock`` / ``processed_in_stock``."""
        return game.players[p].goods

    def extra_score_lines(self, game, p: int) -> dict:
        """Additional score sheet lines (name -> VP)."""
        return {}

    def extra_processed(self, game, p: int) -> int:
        """Processed goods in stock of a type of their own, for all scoring (Fraser's Kilts)."""
        return 0

    def production_chains(self, game, p: int) -> int:
        """Production chains for Scoring tile 13 beyond producer + factory pairs (Fraser's Kiltmakers)."""
        return 0

    # ---- what the clan shows ---------------------------------------------------------------
    def state_features(self, game, p: int) -> tuple:
        """The clan's own state for the observation (at most NUM_STATE_FEATURES numbers in [-1, 1],
        e.g. Kilts held / 2); only read in configurations with the Industria segment."""
        return ()

    def state_text(self, game, p: int) -> str:
        """The clan's own state in words for ``render_text`` ("" when there is nothing to show)."""
        return ""


#: clan name (lower case, as in the rulebook) -> instance; filled by the clan modules (``@register``)
CLANS: dict[str, Clan] = {}


def _overrides(cls, name: str) -> bool:
    return getattr(cls, name) is not getattr(Clan, name)


def _derive_flags(cls) -> None:
    """The hot-path flags of a Clan subclass, from the methods it overrides (``Clan.__init_subclass__``)."""
    if cls.unit_cost is not Clan.unit_cost and not cls.__dict__.get("unit_costs"):
        cls.unit_costs = None           # a cost that varies in play: ask ``unit_cost`` each time
    # which optional clan methods the hot paths must call (a flag read costs less than a call that does nothing)
    cls.adds_main_actions = _overrides(cls, "main_actions") or _overrides(cls, "apply_main")
    cls.adds_post_main_actions = _overrides(cls, "post_main_actions") or _overrides(cls, "apply_post_main")
    cls.watches_trades = _overrides(cls, "on_trade")
    cls.acts_on_deploy = _overrides(cls, "on_deploy")
    cls.plain_costs = (cls.unit_costs is not None and not cls.restricts_targets
                       and cls.discount_spaces is Clan.discount_spaces
                       and cls.placement_discount is Clan.placement_discount)
    # Expand's short path: no placement discount, and a restriction (if any) on named unit types only
    cls.plain_expand = (cls.discount_spaces is Clan.discount_spaces
                        and cls.placement_discount is Clan.placement_discount
                        and (not cls.restricts_targets or cls.restricted_units is not None))


class NoClan(Clan):
    pass


NO_CLAN = NoClan()


def register(cls):
    CLANS[cls.name] = cls()
    return cls
