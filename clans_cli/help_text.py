"""Plain-language help for ``clans play``: what each pending decision asks and how to answer.

One entry per decision kind of ``clans_env.engine.state.DECISION_KINDS`` (the internal "hook"
kind is never pending, so it has none); ``tests/test_cli_play.py`` checks that the table covers
every kind, so a new decision kind cannot ship without an explanation for human players.
The wording follows the rulebook sections named in brackets (``/work/shared/rules/rulebook.md``).
"""
from __future__ import annotations

import re

from clans_env.engine.state import DECISION_KINDS

#: decision kind -> (rulebook section, explanation)
DECISION_HELP: dict[str, tuple[str, str]] = {
    "start_tile": (
        "Variants: Without Clans",
        "Pick one of the offered Starting tiles (choose:k). You get its money and Goods; later seats in "
        "turn order also get £2/£4/£6 to even out the start."),
    "clan_pick": (
        "Setup: Clans",
        "Pick a Clan together with the Starting tile lying next to it (choose:k). Players pick in reverse "
        "turn order, so the starting player chooses last. Each clan changes one rule for you (see the "
        "rulebook appendix 'Clans')."),
    "auction_bid": (
        "Variants: Clan Auction",
        "Bid victory points for the right to pick the next clan (choose:k bids k VP, at most 30), or pass. "
        "Whoever passes cannot bid again in this auction round. The winning bid is scored as negative VP."),
    "auction_pick": (
        "Variants: Clan Auction",
        "You won the bidding: take one of the remaining clans with its Starting tile (choose:k)."),
    "first_worker": (
        "Setup: Placing the First Workers",
        "Choose which Worker to place first (expand:woodcutter on a forest, expand:miner on a mountain). "
        "You pay the land cost plus the Worker cost. The next decision asks for the space. No "
        "Neighbourhood or Building bonus applies during setup."),
    "place": (
        "Phase 2: 3. Expand",
        "Choose the empty space for the unit you are deploying (space:<label>). The space must neighbour "
        "one of your units or be within your Shipping reach and must match the unit's land type (grassland "
        "for animals, Fields and buildings, forest for Woodcutters, mountain for Miners). You pay the unit "
        "cost and the land cost shown on the map (the map view highlights the legal spaces)."),
    "main": (
        "Phase 2: Action",
        "Take exactly one action: trade (buy/sell up to your Merchants in stock of one Good), "
        "take_contract (obtain an Export contract), expand:<unit> (deploy a unit; the space comes next), "
        "upgrade_shipping (£4), upgrade_tech:<worker> (£10, +£2 income per Worker), hire_merchant (£4), "
        "fulfil:<box> (pay the Goods of your Export contract), or pass (stop for this round and take the "
        "next Passing bonus; pass order sets next round's turn order). Port tiles in reach (use_port:<slot>) "
        "are free actions you may use before or after the main action, once per game each."),
    "post_main": (
        "Free Action: Using a Port Bonus Tile",
        "Your main action is done. Use another Port tile in reach (use_port:<slot>) or answer done to end "
        "your turn."),
    "neighbourhood": (
        "Phase 2: 3. Expand - Neighbourhood Bonus",
        "You expanded next to another player's unit: you may buy the Good that unit produces from the "
        "common stock at a discount (Basic goods £2 cheaper, Processed goods £3 cheaper), at most 3 of a "
        "type per turn (4 with two players), using Merchants from your stock. Answer done to stop buying."),
    "bonus_order": (
        "Phase 2: 3. Expand - Neighbourhood and Building Bonus",
        "Both expansion bonuses apply; choose which one to resolve first (choose:0 Neighbourhood, "
        "choose:1 Building)."),
    "building_bonus": (
        "Phase 2: 3. Expand - Building Bonus",
        "You deployed your fourth building of one type with an empty Export box: you may draw three "
        "Export contracts (choose:0; done declines and draws nothing), then take one of the drawn contracts "
        "(choose:k, paying the round cost as for Obtain an Export Contract) or done to take none. "
        "Unchosen contracts go to the bottom of the draw pile."),
    "market_place": (
        "Industria: Setup - Farmers Markets",
        "Place your Farmers market (space:<label>) on an empty land space with at least 3 neighbouring land "
        "spaces and not next to another Farmers market. Nobody may deploy there while it stands."),
    "market_sell": (
        "Industria: Expand - Farmers Market Bonus",
        "You deployed next to a Farmers market: you may sell up to 4 Goods of one uncovered type shown on it "
        "(trade:sell:<good>:<qty>, one Merchant each) at the market price plus £2 per Basic or £3 per "
        "Processed good; one of them covers the icon. Both icons covered: the market leaves the game. "
        "Answer done to sell nothing."),
    "bonus_menu": (
        "Industria: Expand - Deployment bonuses in any order",
        "Several deployment bonuses apply: choose the next one (choose:0 Neighbourhood bonus, choose:1 "
        "Building bonus, choose:2 and up a Farmers market as listed); the others follow."),
    "port_ignore": (
        "Industria: Port tile 10",
        "You are fulfilling a contract: ignore one of its required Processed goods with Port tile 10 "
        "(good:<good>; the tile is then used), or done to pay every Good and keep the tile."),
    "port_field": (
        "Industria: Port tile 12",
        "Choose one of your Cheese dairies, Bakeries or Distilleries on the map (space:<label>): it returns "
        "to your Player board and a Field from your board takes its space, for free (no bonuses)."),
    "port_tech": (
        "Industria: Port tile 13",
        "choose:0 pays £10 for your two Technology upgrades; choose:1 gains 4 Glory."),
    "port_discard4": (
        "Industria: Port tile 14",
        "Discard Processed goods one at a time (good:<good>); after the fourth you gain £50."),
    "port_deploy": (
        "Industria: Port tile 17 (without the Train module)",
        "Deploy a Cheese dairy, Bakery or Distillery paying only the land cost: first the building "
        "(expand:<unit>), then the space (space:<label>). Its deployment bonuses follow."),
    "port_fulfil": (
        "Industria: Port tile 18",
        "You paid £25: choose the open contract to fulfil without paying its Goods or Meat (fulfil:<box>)."),
    "stack": (
        "Industria: Port tile 11 - Two units on a space",
        "Deploy an animal for free on the space of another of your animals: first the animal (expand:<unit>), "
        "then the space (space:<label>). It is a deployment: its bonuses follow."),
    "move": (
        "Industria: Moving a unit (Port tile 16 without the Train module)",
        "Move one of your units to an adjacent empty space of matching land (Workers: any forest or mountain; "
        "across a river only with river-crossing Shipping): choose its space, if two units stand there which "
        "one (expand:<unit>), then the new space. No cost, no bonuses. done stops moving."),
    "train_place": (
        "Industria: Train module setup - First Trains (R1.12, R1.13)",
        "Place your Train on a free Town of the train map (choose:<location>; the decision text names them). "
        "With 2 players the first placement may be the Mini-train instead (choose:16+<location>)."),
    "train_move": (
        "Industria: the Train action (R13.2-R13.8)",
        "Move 1 or 2 locations along the tracks, one step at a time (choose:<location>; done stops after one). "
        "Locked Cities and Tunnels need their Milestone; £3 per other player's Train passed or reached; you "
        "must end where you can deliver. With 2 players the first answer says which piece moves first "
        "(choose:16+<location> for the Mini-train); the Train delivers once both have moved. A Tunnel's additional "
        "Train action may be declined: done as its first answer."),
    "delivery": (
        "Industria: Delivery bonus (R13.10)",
        "Take the parts of the Delivery bonus tile one at a time (choose:<part>; a part with a cost is paid "
        "first), or done to forfeit the rest."),
    "delivery_step": (
        "Industria: Delivery bonus - its own choices (R13.26)",
        "The bonus part asks for a Good, a space, a unit, an upgrade, a Market area, a trade or a contract; the "
        "decision text says which."),
    "station": (
        "Industria: Train station (R13.14-R13.17)",
        "After your 5th delivery place your Train station on a land space in your reach with another player's "
        "unit, without a station, not adjacent to a station (space:<label>)."),
    "milestone": (
        "Industria: Claim a Milestone (R13.19-R13.21; Variants R16.3-R16.4)",
        "Choose the Milestone whose condition you meet (choose:<spot>); your marker takes its highest free "
        "scoring spot and unlocks its City or Tunnel for you."),
    "slaughter": (
        "Phase 2: 7. Fulfil an Export Contract",
        "The contract needs Meat: choose which Cow (beef) or Sheep (mutton) on the map to slaughter "
        "(space:<label>; the animal returns to your Player board), or use Port tile 1 (use_port) to supply "
        "meat without slaughtering if it is in reach."),
    "export_bonus": (
        "Phase 2: 7. Fulfil an Export Contract - Direct Export Bonuses",
        "The fulfilled contract gives several Direct export bonuses: choose which to take next "
        "(choose:0 Free space, choose:1 Bonus upgrade)."),
    "bonus_upgrade": (
        "Direct Export Bonuses: Bonus Upgrade",
        "Take one upgrade: upgrade_tech:<worker> for £5, upgrade_shipping for free, hire_merchant for free, "
        "or market_area:<dir>:<good> to take one of your Merchants back from the Market instead of hiring. "
        "done declines."),
    "free_space": (
        "Direct Export Bonuses: Free Space",
        "Expand without paying the land cost (you still pay the unit cost): choose the unit (expand:<unit>), "
        "then the space. done declines."),
    "port_discard": (
        "Appendix: Port Bonus Tiles (tiles 2 and 3)",
        "Discard one Good of the named kind from your stock (good:<name>); the next decision lets you gain "
        "Goods in exchange."),
    "port_gain": (
        "Appendix: Port Bonus Tiles (tiles 2 and 3)",
        "Choose the Good to gain (good:<name>); you are asked once per Good still to gain."),
    "port_price": (
        "Appendix: Port Bonus Tiles (tile 6)",
        "Move one Good's price three steps: market_area:buy:<good> raises it, market_area:sell:<good> "
        "lowers it."),
    "exchange_from": (
        "Appendix: Port Bonus Tiles (tile 7)",
        "Exchange up to two of your units on the map for other units from your Player board: choose the "
        "unit to take off (space:<label>), or done to stop."),
    "exchange_to": (
        "Appendix: Port Bonus Tiles (tile 7)",
        "Choose the unit from your Player board to put on the freed space (expand:<unit>); it must suit the "
        "land and differ from the unit removed."),
    "port_copy": (
        "Kickstarter Port Tile 9",
        "Use the effect of another Port tile in play (use_port:<slot>) as if it were this one."),
    "process": (
        "Phase 3: Production",
        "Processing is optional: choose how many Basic goods this factory type turns into Processed goods "
        "(choose:k; each Cheese dairy turns one Milk into Cheese, each Bakery one Grain into Bread, each "
        "Distillery one Grain into Whisky). Processed goods score 2 VP at the end and sell for more."),
    "clan": (
        "Appendix: Clans",
        "A decision of your clan's special ability; the decision text above says what it asks."),
}

#: action-table section -> how to type it
SECTION_HELP: dict[str, str] = {
    "pass": "pass - end your actions for this round (or pass in an auction)",
    "done": "done - finish the current step / decline an optional bonus",
    "trade": "trade:<buy|sell>:<good>:<qty> - e.g. trade:buy:whisky:2",
    "take_contract": "take_contract:<box> - obtain the Export contract in that display box (0..5)",
    "expand": "expand:<unit> - deploy a sheep, cow, field, cheese_dairy, bakery, distillery, woodcutter, miner "
              "(fisherman: Clan MacDonald)",
    "space": "space:<label> - a map space, e.g. space:A3.4 (module A, local row 3, cell 4)",
    "upgrade_shipping": "upgrade_shipping - one Shipping level further",
    "upgrade_tech": "upgrade_tech:<woodcutter|miner> - flip a Technology tile",
    "hire_merchant": "hire_merchant - one more Merchant into your stock",
    "fulfil": "fulfil:<box> - fulfil the Export contract in your Export box",
    "use_port": "use_port:<slot> - use the Port tile in that corner slot (0..3, A..D)",
    "market_area": "market_area:<buy|sell>:<good> - a Market area (retrieve a Merchant / move a price)",
    "good": "good:<name> - one of wool, milk, grain, cheese, bread, whisky",
    "choose": "choose:<k> - the k-th option of a small menu (quantity, contract, clan, bid)",
}

def for_users(doc: str) -> str:
    """A module docstring as a ``--help`` text: the reST literal markup (double backquotes) dropped."""
    return re.sub(r"``([^`]+)``", r"\1", doc)


COMMANDS_HELP = (
    "Answer with the number of a listed move (numbered from 0, as choose:0 is the first option of a menu), or "
    "type its name (e.g. expand:sheep, pass): numbers change from one decision to the next, names do not. A "
    "unique beginning of a name is enough (e.g. upgrade_s). Passing for the round asks y/N first (--no-confirm "
    "skips the question).\n" + """\
Commands:
  help            explain the pending decision and how to type moves
  map             the whole map with its key (map FILE.png writes a picture of it)
  market          the Market, the Export contracts on display and the Port tiles
  board | show    the whole table (map, market, contracts, players, your Player board)
  moves           list the legal moves again
  scores          the score sheet as if the game ended now
  undo            take back your last decision (and the bots' moves since)
  save [FILE]     save the game record (JSON); resume with `clans play --load FILE`
  quit            stop (the game is saved first when --save was given)""")


def decision_help(kind: str) -> str:
    """The explanation for one decision kind, with its rulebook section."""
    try:
        section, text = DECISION_HELP[kind]
    except KeyError:
        valid = ", ".join(k for k in DECISION_KINDS if k != "hook")
        raise ValueError(f"no help for decision kind {kind!r}; known kinds: {valid}") from None
    return f"[{section}] {text}"


def missing_kinds() -> list[str]:
    """Decision kinds a human can face that have no help text (should be empty)."""
    return [k for k in DECISION_KINDS if k != "hook" and k not in DECISION_HELP]

#: Port bonus tile number -> effect (rulebook "Appendix: Port Bonus Tiles", player-aid numbering)
PORT_TILE_HELP: dict[int, str] = {
    1: "when fulfilling a contract that needs Meat: one animal fewer to slaughter",
    2: "discard 1 Basic good, gain any 3 Basic goods",
    3: "discard 1 Processed good, gain any 2 Processed goods",
    4: "one Bonus upgrade and 3 Glory",
    5: "gain £10",
    6: "move one Good's price three steps",
    7: "exchange up to two of your units on the map (not Fields) with units from your board",
    8: "gain £5; with an empty Export box, take the Building bonus",
    9: "(Kickstarter) pay £3 and use one of the other Port tiles in play",
}

#: Scoring tile number -> Glory rule (rulebook "Appendix: Scoring Tiles", player-aid numbering)
SCORING_TILE_HELP: dict[int, str] = {
    1: "1 Glory per Basic good in stock",
    2: "3 Glory per two Processed goods in stock",
    3: "1 Glory per Sheep, Cow, Cheese dairy, Bakery, Distillery; 2 per Field",
    4: "2 Glory per deployed Worker",
    5: "3 Glory per two units on border spaces",
    6: "1 Glory per Cotton, Tobacco, Sugar cane on fulfilled contracts",
    7: "2 Glory per Meat on fulfilled contracts",
    8: "1 Glory per Upgrade (Shipping steps, hired Merchants, Technology tiles)",
    9: "(Kickstarter) 2 Glory per occupied space of cost £5 or £6",
}
