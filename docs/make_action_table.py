"""Generate docs/action-space.md: the action index table, what each section means in each decision
kind, and the observation layout, all read from the code (``clans_env.engine.actions.SECTIONS``,
``ObservationEncoder.layout``).

Which sections each decision kind actually uses is measured, not assumed: the script plays random
games (with and without clans, Kickstarter on) and records the sections of every legal set.

    python docs/make_action_table.py            # rewrite docs/action-space.md
    python docs/make_action_table.py --stdout   # print instead
"""
from __future__ import annotations

import argparse
import random
from collections import defaultdict
from pathlib import Path

from clans_env import Game, GameConfig
from clans_env.encoding import ObservationEncoder
from clans_env.engine import actions as A
from clans_env.engine import data as D
from clans_env.engine.game import atomic_write_text
from clans_env.engine.state import DECISION_KINDS
from training.progress import Progress

OUT = Path(__file__).resolve().parent / "action-space.md"

#: what an index of a section means in a decision kind (the rules modules document the same)
MEANING = {
    ("pass", "main"): "Pass (8. Pass): take no more actions this round",
    ("pass", "auction_bid"): "pass: bid nothing (Clan Auction)",
    ("done", None): "finish / decline the pending optional decision",
    ("trade", "main"): "1. Trade: buy or sell `qty` of `good` at the Market",
    ("trade", "neighbourhood"): "Neighbourhood bonus: buy `qty` of `good` at the discount",
    ("take_contract", None): "2. Obtain the Export contract in box `slot`",
    ("expand", "main"): "3. Expand: the unit type to deploy (the space follows in `place`)",
    ("expand", "first_worker"): "Setup: the Worker type to place first",
    ("expand", "free_space"): "Free space bonus: the unit type (the space follows in `place`)",
    ("expand", "exchange_to"): "Port tile 7: the unit from the Player board that replaces the exchanged one",
    ("space", "place"): "the space where the chosen unit goes",
    ("space", "slaughter"): "the Cow / Sheep on this space is slaughtered for Meat",
    ("space", "exchange_from"): "Port tile 7: the unit on this space is exchanged",
    ("space", "clan"): "a clan ability's space choice (e.g. Clan MacDonald rows a Fisherman here)",
    ("space", "main"): "Clan MacDonald: row the Fisherman on this space (free action; the loch follows)",
    ("choose", "main"): "Clan MacKenzie: take the Whisky barrel out of cellar space k (free action)",
    ("take_contract", "clan"): "Clan Buchanan: take a second contract this turn (from box `slot`)",
    ("upgrade_shipping", None): "4. Upgrade Shipping (Bonus upgrade: free)",
    ("upgrade_tech", None): "5. Upgrade Technology: 0 woodcutter, 1 miner (Bonus upgrade: £5)",
    ("hire_merchant", None): "6. Hire a Merchant (Bonus upgrade: free)",
    ("fulfil", None): "7. Fulfil the open contract in Export box `box`",
    ("use_port", "main"): "free action: use the Port tile in slot `slot`",
    ("use_port", "post_main"): "free action after the main action: use the Port tile in slot `slot`",
    ("use_port", "slaughter"): "Port tile 1: one animal fewer to slaughter",
    ("use_port", "port_copy"): "Port tile 9: use the effect of the tile in slot `slot`",
    ("market_area", "bonus_upgrade"): "Bonus upgrade: take a Merchant back from this Market area",
    ("market_area", "port_price"): "Port tile 6: move the price of `good` three steps (buy = up, sell = down)",
    ("good", None): "Port tiles 2 / 3: the Good to discard / to gain",
    ("choose", "start_tile"): "the k-th Starting tile on offer",
    ("choose", "clan_pick"): "the k-th clan (and Starting tile) on offer",
    ("choose", "auction_bid"): "bid k VP (Clan Auction)",
    ("choose", "auction_pick"): "the k-th clan on offer to the auction winner",
    ("choose", "bonus_order"): "0: Neighbourhood bonus first, 1: Building bonus first",
    ("choose", "building_bonus"): "take the k-th drawn contract",
    ("choose", "export_bonus"): "0: Free space next, 1: Bonus upgrade next",
    ("choose", "process"): "Production: process k inputs with this factory type",
    ("choose", "clan"): "a clan ability's menu (e.g. Milk to churn, Beer to brew)",
    ("choose", "building_bonus"): "before the draw: 0 draws the contracts (done declines); after: take the k-th drawn one",
    # Industria
    ("space", "market_place"): "Industria setup: place your Farmers market on this space",
    ("trade", "market_sell"): "Farmers market bonus: sell `qty` of `good` (market price + 2 / + 3 each)",
    ("choose", "bonus_menu"): "the next deployment bonus: 0 Neighbourhood, 1 Building, 2+k the k-th listed market",
    ("good", "port_ignore"): "Port tile 10: the Processed good to ignore",
    ("space", "port_field"): "Port tile 12: this factory becomes a Field",
    ("choose", "port_tech"): "Port tile 13: 0 pay for Technology upgrades, 1 gain 4 Glory",
    ("good", "port_discard4"): "Port tile 14: the Processed good to discard (four in all)",
    ("expand", "port_deploy"): "Port tile 17: the factory to deploy for the land cost",
    ("space", "port_deploy"): "Port tile 17: the space for that factory",
    ("fulfil", "port_fulfil"): "Port tile 18: the contract fulfilled without Goods",
    ("expand", "stack"): "Port tile 11: the animal to deploy beside another",
    ("space", "stack"): "Port tile 11: the space of your animal that takes it",
    ("space", "move"): "moving (Port tile 16): the unit's space, then its new space",
    ("expand", "move"): "moving: which of the two units on the space moves",
    ("choose", "train_place"): "first Trains (R1.12/R1.13): the Town (16 + location: the Mini-train)",
    ("choose", "train_move"): "Train action (R13.2): the next location (16 + location: the Mini-train first)",
    ("done", "train_move"): "Train action: stop after one location (first answer of a Tunnel's additional action: decline it)",
    ("choose", "delivery"): "Delivery bonus (R13.10): the part to take next",
    ("choose", "milestone"): "Claim a Milestone (R13.19): the spot (0-3)",
    ("space", "station"): "Train station (R13.15): its space",
    ("space", "delivery_step"): "Delivery bonus: a space (deploy, city tile, unit to return)",
    ("expand", "delivery_step"): "Delivery bonus: the unit to deploy",
    ("good", "delivery_step"): "Delivery bonus: a Good to gain / process / buy for free",
    ("choose", "delivery_step"): "Delivery bonus / Demand: the way to pay (Port tile 16)",
    ("fulfil", "delivery_step"): "Delivery bonus: the contract (discard, fulfil)",
    ("market_area", "delivery_step"): "Delivery bonus: a Price marker to move / the area for 3 Merchants",
    ("trade", "delivery_step"): "Delivery bonus 20: the sale",
    ("take_contract", "delivery_step"): "Delivery bonus 8: the free contract",
    ("upgrade_shipping", "delivery_step"): "Delivery bonus 5: return a Shipping step",
    ("upgrade_tech", "delivery_step"): "Delivery bonus 5: return a Technology upgrade",
    ("hire_merchant", "delivery_step"): "Delivery bonus 5: return a Merchant to the Player board",
    ("hire_merchant", "bonus_upgrade"): "Bonus upgrade (or Port tile 15's Merchant upgrade): hire a Merchant",
}

INDEX_FORMULA = {
    "trade": "TRADE + (good * 2 + direction) * 10 + (qty - 1); direction 0 buy, 1 sell; qty 1..10",
    "take_contract": "TAKE_CONTRACT + slot (Export board box 0..5)",
    "expand": f"EXPAND + unit ({', '.join(f'{i} {u}' for i, u in enumerate(D.UNITS))})",
    "space": "SPACE + space id (0-119 map cells, 120-127 port nodes; labels via Game.action_to_string)",
    "upgrade_tech": "UPGRADE_TECH + 0 (woodcutter) / 1 (miner)",
    "fulfil": "FULFIL + open-contract box",
    "use_port": "USE_PORT + Port tile slot (one per map module)",
    "market_area": "MARKET_AREA + good * 2 + direction",
    "good": f"GOOD + good ({', '.join(f'{i} {g}' for i, g in enumerate(D.GOODS))})",
    "choose": f"CHOOSE + k, k = 0..{A.NUM_CHOICES - 1}",
}


def observed_sections(games: int, seed: int = 0) -> dict:
    """{decision kind: set of sections seen in its legal sets} over random games."""
    setups = [dict(num_players=2), dict(num_players=3, clan_selection="draft", kickstarter=True),
              dict(num_players=4, clan_selection="auction"), dict(num_players=2, clan_selection="draft"),
              dict(num_players=1), dict(num_players=2, industria=True), dict(num_players=4, industria=True)]
    seen = defaultdict(set)
    rng = random.Random(seed)
    with Progress(games, "random games", "games") as bar:
        for i in range(games):
            g = Game(GameConfig(seed=seed + i, **setups[i % len(setups)]))
            while not g.is_terminal():
                legal = g.legal_actions()
                kind = g.decision_kind
                for a in legal:
                    seen[kind].add(A.section_of(a)[0])
                g.apply(legal[rng.randrange(len(legal))])
            bar.update()
    return seen


def meaning(section: str, kind: str) -> str:
    return MEANING.get((section, kind)) or MEANING.get((section, None)) or "see the decision's text"


def render(games: int) -> str:
    seen = observed_sections(games)
    lines = [
        "# Action space",
        "",
        "<!-- generated by docs/make_action_table.py; edit that script, not this file -->",
        "",
        f"Every decision of the game uses one flat table of **{A.NUM_ACTIONS} actions** "
        "(`clans_env.engine.actions`); environments expose it as `Discrete(NUM_ACTIONS)` with the legal set as "
        "a mask. The engine's indices *are* the action space: no translation layer, so an index means the "
        "same thing to the engine, the environments, the agents and saved game records. The table is the same "
        "for every player count; which part of it is legal depends on the pending decision "
        "(`Game.decision_kind`). It is as small as the rules allow: 120 trade indices (6 goods x buy/sell x "
        "1..10 Merchants, Clan Stewart's maximum), one index per map space, and small menus (`choose`) "
        "for the rest.",
        "",
        "Names: `Game.action_to_string(a)` (e.g. `trade:buy:whisky:2`, `space:B2.3`, `choose:0`) and "
        "`Game.string_to_action(name)` map both ways.",
        "",
        "## Sections",
        "",
        "| section | indices | size | index |",
        "|---|---|---:|---|",
    ]
    for name, start, size in A.SECTIONS:
        rng_text = f"{start}" if size == 1 else f"{start}-{start + size - 1}"
        lines.append(f"| `{name}` | {rng_text} | {size} | {INDEX_FORMULA.get(name, name.upper())} |")
    lines += [
        "",
        "## What a section means in each decision",
        "",
        f"Sections seen in the legal sets of each decision kind over {games} random games (2-4 players, "
        "solo, with and without clans, Kickstarter, Industria):",
        "",
        "| decision kind | section | meaning |",
        "|---|---|---|",
    ]
    for kind in DECISION_KINDS:
        for section in sorted(seen.get(kind, ()), key=lambda s: [n for n, _, _ in A.SECTIONS].index(s)):
            lines.append(f"| `{kind}` | `{section}` | {meaning(section, kind)} |")
    missing = [k for k in DECISION_KINDS if k not in seen and k != "hook"]
    if missing:
        lines += ["", f"Not reached in these games: {', '.join(f'`{k}`' for k in missing)} "
                      "(rare situations; their sections are listed in `clans_env/engine/state.py`)."]
    lines += [
        "",
        "## Observation layout",
        "",
        "`ObservationEncoder(num_players).layout` (also `raw_env.observation_layout`) lists every slice of the "
        "float32 observation: name, start, length, bounds and meaning. Player slices are relative to the "
        "observer (`me`, then `opp1`, `opp2`, ... in seat order after it). Lengths per player count:",
        "",
        "| players | length | map planes (x 128) |",
        "|---:|---:|---:|",
    ]
    for n in (1, 2, 3, 4):
        enc = ObservationEncoder(n)
        lines.append(f"| {n} | {enc.size} | {enc.num_map_planes} |")
    lines += ["", "The two-player layout (other counts add or drop the `opp*` slices and per-player entries):", "",
              ObservationEncoder(2).markdown_table(), ""]
    lines += industria_section()
    return "\n".join(lines)


def industria_section() -> list[str]:
    """The table and the vector per configuration (Industria)."""
    from clans_env.engine.config import INDUSTRIA_MODULES
    from clans_env.encoding.observation import INDUSTRIA_DECISION_KINDS
    full = ObservationEncoder(2, industria=INDUSTRIA_MODULES)
    base = ObservationEncoder(2)
    lines = [
        "## Per configuration (Industria)",
        "",
        f"The action table is the same **{A.NUM_ACTIONS} actions** in every configuration, the Industria "
        "modules included: their decisions (" + ", ".join(f"`{k}`" for k in INDUSTRIA_DECISION_KINDS) +
        ") answer with the existing sections (a space, a Good, a trade, a contract box, a unit type, "
        "`choose`, `done`), so no base index moves and a base-game model or save is unaffected. "
        "`env.action_space(agent)` is `Discrete(325)` for every configuration.",
        "",
        "With the Train module (`trains`) or a Milestone variant (`milestones`), the main decision offers the "
        "Train action as `choose:31` and Claim a Milestone as `choose:30` (no base or clan main action uses "
        "them); train-map locations are `choose:<location>` (the location's index on the side in play, "
        "docs/train-map.md; a 2-player Mini-train `choose:16+<location>`), Milestone spots `choose:<spot>` "
        "(0-3), the parts of a Delivery bonus `choose:<part>`, and the bonuses' own steps the existing "
        "sections (a Good, a space, a unit, an upgrade, a Market area, a trade, a contract box).",
        "",
        "The observation of a configuration with Industria modules is the base layout, unchanged, followed "
        "by the Industria segment (`industria.*`), whatever modules are on (their flags say which), except "
        "that its last two slices, the Export box stacks of Delivery bonus 16 (`industria.train.export_stack`, "
        "`industria.train.export_stack_size`), come with the Train module (`trains`) only:",
        "",
        "| players | base length | with Industria, no Train module | with the Train module |",
        "|---:|---:|---:|---:|",
    ]
    part1 = tuple(m for m in INDUSTRIA_MODULES if m != "trains")
    for n in (1, 2, 3, 4):
        lines.append(f"| {n} | {ObservationEncoder(n).size} | {ObservationEncoder(n, industria=part1).size} | "
                     f"{ObservationEncoder(n, industria=INDUSTRIA_MODULES).size} |")
    lines += ["", "The Industria segment (two players):", "",
              "| slice | start | length | bounds | meaning |", "|---|---:|---:|---|---|"]
    for sl in full.layout[len(base.layout):]:
        lines.append(f"| `{sl.name}` | {sl.start} | {sl.length} | [{sl.low:g}, {sl.high:g}] | {sl.description} |")
    lines.append("")
    return lines


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=60, help="random games used to observe section usage")
    parser.add_argument("--stdout", action="store_true", help="print instead of writing docs/action-space.md")
    args = parser.parse_args(argv)
    text = render(args.games)
    if args.stdout:
        print(text)
    else:
        atomic_write_text(OUT, text)
        print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
