"""Rulebook, Phase 2 "7. Fulfil an Export Contract" (goods, slaughtering, imports) and its
"Direct Export Bonuses" (money, Free space, Bonus Upgrade)."""
import pytest

from clans_env import IllegalActionError
from clans_env.engine import data as D
from clans_env.engine.state import K_BONUS_UPGRADE
from helpers import (GRASS, act, active_land, blank_position, expand_targets, label, legal_names, placement_targets,
                     push, put, start_turn)


def contract_position(cid, n=3, money=100, goods=True, cows=0, sheep=0, **options):
    """p holds contract ``cid`` (and its goods unless ``goods=False``), with ``cows`` Cows and
    ``sheep`` Sheep on a chain of grassland spaces."""
    g = blank_position(n, money=money, **options)
    p = g.current_player
    c = D.CONTRACT_BY_ID[cid]
    if cid in g.display:
        g.display[g.display.index(cid)] = -1
    if cid in g.pile:
        g.pile.remove(cid)
    g.players[p].open_contracts = [cid]
    if goods:
        g.players[p].goods = list(c.goods)
    grass = set(active_land(g, GRASS))
    spaces = []
    for s in sorted(grass):
        if len(spaces) == cows + sheep:
            break
        if g.occupant[s] == -1 and all(s not in g.board.adjacent[t] for t in spaces):
            spaces.append(s)
    for i, s in enumerate(spaces):
        put(g, p, "cow" if i < cows else "sheep", s)
    start_turn(g, p)
    return g, p, spaces


def test_fulfil_pays_goods_and_takes_rewards():
    """7. Fulfil: pay the Goods on the left half, receive the right half (imports, Hops, money);
    the tile goes next to the Export box, which is open again."""
    g, p, _ = contract_position(8)                      # 4 Bread -> 4 Tobacco, 1 Hops, £5
    act(g, "fulfil:0")
    pl = g.players[p]
    assert pl.goods[D.BREAD] == 0
    assert pl.done_contracts == [8] and pl.open_contracts == []
    assert pl.imports == [0, 4, 0] and g.import_track == [0, 4, 0]
    assert pl.hops == 1
    assert pl.money == 105
    start_turn(g, p)
    assert any(n.startswith("take_contract:") for n in legal_names(g))


def test_cannot_fulfil_without_the_goods():
    """7. Fulfil: the Goods listed must be paid."""
    g, p, _ = contract_position(8)
    g.players[p].goods[D.BREAD] = 3
    start_turn(g, p)
    assert "fulfil:0" not in legal_names(g)
    before = g.to_json()
    with pytest.raises(IllegalActionError):
        act(g, "fulfil:0")
    assert g.to_json() == before


def test_slaughter_exactly_the_cows_needed():
    """7. Fulfil: Meat (Beef) is only delivered by slaughtering Cows: the animals go back to the
    Player board and their spaces are free again."""
    g, p, spaces = contract_position(3, cows=2)         # 2 Beef -> 2 Sugar cane, 1 Hops, £10
    act(g, "fulfil:0")
    pl = g.players[p]
    assert pl.units_left[D.COW] == 4
    assert all(g.occupant[s] == -1 and g.unit_at[s] == -1 for s in spaces)
    assert pl.spaces == 0
    assert pl.meat == 2 and pl.money == 110


def test_slaughter_choice_when_more_animals_than_needed():
    """7. Fulfil: you choose which animals to slaughter (part of the Fulfil action)."""
    g, p, spaces = contract_position(3, cows=3)
    act(g, "fulfil:0")
    assert g.decision_kind == "slaughter"
    assert placement_targets(g) == set(spaces)
    act(g, f"space:{label(g, spaces[2])}")
    assert g.decision_kind == "slaughter"
    act(g, f"space:{label(g, spaces[0])}")
    assert g.occupant[spaces[1]] == p and g.occupant[spaces[0]] == -1 and g.occupant[spaces[2]] == -1
    assert g.players[p].units_left[D.COW] == 3
    assert g.players[p].done_contracts == [3]


def test_beef_and_mutton():
    """7. Fulfil: Beef from Cows and Mutton from Sheep (contract 46: 2 Wool, 1 Beef, 1 Mutton)."""
    g, p, spaces = contract_position(46, cows=2, sheep=1)
    act(g, "fulfil:0")
    assert g.decision_kind == "slaughter"
    assert placement_targets(g) == set(spaces)        # either Cow, or the Sheep
    act(g, f"space:{label(g, spaces[2])}")            # the Sheep
    assert placement_targets(g) == set(spaces[:2])    # only Cows now
    act(g, f"space:{label(g, spaces[0])}")
    pl = g.players[p]
    assert pl.units_left[D.SHEEP] == 4 and pl.units_left[D.COW] == 3 and pl.meat == 2


def test_not_enough_animals():
    """7. Fulfil: contracts requiring Meat can only be fulfilled by slaughtering; one Cow cannot
    deliver two Beef."""
    g, p, _ = contract_position(3, cows=1)
    assert "fulfil:0" not in legal_names(g)
    g, p, _ = contract_position(46, cows=1, sheep=0)
    assert "fulfil:0" not in legal_names(g)


@pytest.mark.parametrize("track,bonus", [(0, 0), (2, 0), (3, 1), (4, 1), (5, 0), (8, 1), (9, 1)])
def test_import_track_marked_steps(track, bonus):
    """7. Fulfil: move the Import token as many steps as imported; if it reaches or passes a
    marked step, gain £1 (contract 16: 1 Wool, 1 Beef -> 2 Cotton)."""
    g, p, _ = contract_position(16, cows=1)
    g.import_track[D.COTTON] = track
    start_turn(g, p)
    act(g, "fulfil:0")
    assert g.import_track[D.COTTON] == track + 2
    marked = [m for m in D.IMPORT_MARKED_STEPS if track < m <= track + 2]
    assert len(marked) == bonus
    assert g.players[p].money == 100 + bonus * D.IMPORT_STEP_BONUS


@pytest.mark.parametrize("n,options", [(3, {"static_imports": True}), (1, {})])
def test_no_import_track_with_static_import_goods_or_solo(n, options):
    """Variants, Static Import Goods: "No need to track Imported goods": the Import token does not
    move, so no marked step pays the £1 (contract 16 brings 2 Cotton, from step 4 past step 5);
    likewise in the solo game. The imports still score (4 VP each with the variant)."""
    g, p, _ = contract_position(16, n=n, cows=1, **options)
    g.import_track[D.COTTON] = 0 if n == 1 else 4
    track = list(g.import_track)
    start_turn(g, p)
    act(g, "fulfil:0")
    assert g.import_track == track
    assert g.players[p].money == 100
    assert g.players[p].imports[D.COTTON] == 2


def test_hops_and_imports_score_at_the_end():
    """Final Scoring: 1 VP per Hops and the import values per Cotton/Tobacco/Sugar cane listed on
    fulfilled contracts."""
    g, p, _ = contract_position(8)
    act(g, "fulfil:0")
    row = g.final_scores()[p]
    assert row["hops"] == 1
    # Tobacco is the only import moved: most common (3 VP); Cotton and Sugar cane tie at 0
    assert row["imports"] == 4 * 3


def test_free_space_skips_land_cost_and_keeps_expand_rules():
    """Direct Export Bonuses, Free space: immediately take an Expand action without paying the
    land cost (the unit cost is still paid); all expanding and Neighbourhood bonus rules apply."""
    g, p, _ = contract_position(1)                      # 4 Wool -> 2 Cotton, 1 Hops, Free space
    o = g.turn_order[1]
    grass = set(active_land(g, GRASS))
    home = next(s for s in sorted(grass) if len([t for t in g.board.neighbours[s] if t in grass]) >= 3)
    nbs = [t for t in g.board.neighbours[home] if t in grass]
    put(g, p, "sheep", home)
    target = nbs[0]
    opp = [t for t in g.board.neighbours[target] if t in grass and t != home][0]
    put(g, o, "distillery", opp)
    start_turn(g, p)
    normal_targets = expand_targets(g, "bakery")
    act(g, "fulfil:0")
    assert g.decision_kind == "free_space"
    assert "done" in legal_names(g)
    act(g, "expand:bakery")
    assert placement_targets(g) == normal_targets
    money = g.players[p].money
    act(g, f"space:{label(g, target)}")
    assert g.players[p].money == money - D.UNIT_COST[D.BAKERY]
    assert g.decision_kind == "neighbourhood"


def test_free_space_reaches_spaces_only_the_land_cost_made_unaffordable():
    """Free space: without the land cost, a space you could not otherwise pay for is a target."""
    g, p, _ = contract_position(1, money=D.UNIT_COST[D.BAKERY])
    home = sorted(active_land(g, GRASS))[0]
    put(g, p, "sheep", home)
    start_turn(g, p)
    assert not expand_targets(g, "bakery")
    act(g, "fulfil:0", "expand:bakery")
    assert placement_targets(g)


def test_free_space_can_be_declined():
    """Free space: a bonus, not an obligation."""
    g, p, _ = contract_position(1)
    put(g, p, "sheep", sorted(active_land(g, GRASS))[0])
    start_turn(g, p)
    act(g, "fulfil:0", "done")
    assert g.players[p].units_left[D.SHEEP] == 3


def test_bonus_upgrade_options():
    """Direct Export Bonuses, Bonus Upgrade: a Technology upgrade for £5, a Shipping upgrade at no
    cost, or a Merchant from the Player board at no cost, or one of your Merchants back from the
    Market."""
    g, p, _ = contract_position(6, n=3)                 # 3 Wool -> 1 Sugar cane, 1 Hops, 1 upgrade
    g.players[p].goods[D.WHISKY] = 0
    act(g, "trade:buy:whisky:1")
    start_turn(g, p)
    act(g, "fulfil:0")
    assert g.decision_kind == "bonus_upgrade"
    assert legal_names(g) == {"upgrade_tech:woodcutter", "upgrade_tech:miner", "upgrade_shipping",
                              "hire_merchant", "market_area:buy:whisky", "done"}
    money = g.players[p].money
    for choice, check in (
            ("upgrade_tech:miner", lambda pl: pl.tech == [False, True] and pl.money == money - 5),
            ("upgrade_shipping", lambda pl: pl.shipping == 1 and pl.money == money),
            ("hire_merchant", lambda pl: pl.merchants_board == 4 and pl.merchants_stock == 2 and pl.money == money),
            ("market_area:buy:whisky", lambda pl: pl.merchants_market[D.WHISKY * 2] == 0
             and pl.merchants_stock == 2 and pl.merchants_board == 5)):
        c = g.clone()
        act(c, choice)
        assert check(c.players[p]), choice


def test_bonus_upgrade_technology_needs_five_pounds():
    """Bonus Upgrade: the Technology upgrade still costs £5."""
    g, p, _ = contract_position(6, money=4)
    act(g, "fulfil:0")
    assert "upgrade_tech:woodcutter" not in legal_names(g)
    assert "upgrade_shipping" in legal_names(g)


def test_multiple_bonus_upgrades_same_or_different():
    """Direct Export Bonuses: with multiple Bonus upgrades you can choose the same or different
    upgrades (contract 10: 4 Cheese -> 4 Cotton, £10, 2 Bonus upgrades)."""
    g, p, _ = contract_position(10)
    act(g, "fulfil:0", "upgrade_shipping")
    assert g.decision_kind == "bonus_upgrade"
    act(g, "upgrade_shipping")
    assert g.players[p].shipping == 2
    g, p, _ = contract_position(10)
    act(g, "fulfil:0", "upgrade_tech:woodcutter", "upgrade_tech:miner")
    assert g.players[p].tech == [True, True]
    assert g.players[p].money == 100 + 10 - 5 - 5


def test_direct_export_bonuses_in_any_order(monkeypatch):
    """Direct Export Bonuses 'can be taken in any order': with a Free space and a Bonus upgrade the
    player picks which comes first (no printed contract has both, so one is constructed)."""
    both = D.Contract(id=99, goods=(1, 0, 0, 0, 0, 0), beef=0, mutton=0, imports=(0, 0, 0), hops=0, money=0,
                      free_space=1, bonus_upgrade=1)
    monkeypatch.setitem(D.CONTRACT_BY_ID, 99, both)
    g, p, _ = contract_position(99)
    put(g, p, "sheep", sorted(active_land(g, GRASS))[0])
    start_turn(g, p)
    act(g, "fulfil:0")
    assert g.decision_kind == "export_bonus"
    c = g.clone()
    act(c, "choose:1")                       # Bonus upgrade first: Shipping, then the Free space
    assert c.decision_kind == "bonus_upgrade"
    act(c, "upgrade_shipping")
    assert c.decision_kind == "free_space"
    act(g, "choose:0")                       # Free space first
    assert g.decision_kind == "free_space"
    act(g, "done")
    assert g.decision_kind == "bonus_upgrade"


def test_bonus_upgrade_frame_offers_nothing_when_all_done():
    """Bonus Upgrade: when no upgrade is possible (Shipping at the end, Technology flipped, no
    Merchant on the board or the Market) the bonus is skipped."""
    g = blank_position(2)
    p = g.current_player
    pl = g.players[p]
    pl.shipping = D.MAX_SHIPPING
    pl.tech = [True, True]
    pl.merchants_stock += pl.merchants_board
    pl.merchants_board = 0
    push(g, (K_BONUS_UPGRADE, p))
    assert g.decision_kind == "main"


def test_slaughter_frees_space_for_anyone():
    """7. Fulfil: slaughtering frees the space; any player may expand there later."""
    g, p, spaces = contract_position(3, cows=2)
    o = g.turn_order[1]
    grass = set(active_land(g, GRASS))
    nb = [t for t in g.board.neighbours[spaces[0]] if t in grass and g.occupant[t] == -1][0]
    put(g, o, "sheep", nb)
    act(g, "fulfil:0")
    start_turn(g, o)
    assert spaces[0] in expand_targets(g, "cow")


def test_free_space_fourth_factory_gets_the_building_bonus():
    """Free space is an Expand action: deploying the fourth Cheese dairy with it, right after the
    fulfilled contract left the Export box empty, earns the Building bonus."""
    g, p, _ = contract_position(1)                      # 4 Wool -> ..., Free space
    home = sorted(active_land(g, GRASS))[0]
    put(g, p, "sheep", home)
    g.players[p].units_left[D.DAIRY] = 1                # three Cheese dairies 'deployed' already
    start_turn(g, p)
    act(g, "fulfil:0", "expand:cheese_dairy")
    target = sorted(placement_targets(g))[0]
    act(g, f"space:{label(g, target)}")
    assert g.decision_kind in ("building_bonus", "bonus_order")


def test_contract_data_facts():
    """Components / 7. Fulfil: 50 Export contracts; they never require Grain or Milk."""
    assert len(D.CONTRACTS) == 50 and len({c.id for c in D.CONTRACTS}) == 50
    assert all(c.goods[D.MILK] == 0 and c.goods[D.GRAIN] == 0 for c in D.CONTRACTS)


def test_bonus_upgrade_can_be_declined():
    """Bonus Upgrade: a bonus, so it may be declined ('done')."""
    g, p, _ = contract_position(6)
    act(g, "fulfil:0", "done")
    pl = g.players[p]
    assert pl.shipping == 0 and pl.tech == [False, False] and pl.merchants_board == 5


def test_merchant_back_from_the_market_frees_that_area():
    """Bonus Upgrade, 'take one of your Merchants back from the Market': with no Merchant left on
    the buy area of a Good, the rule 'prohibited to have your Merchants on both the buy and sell
    area of the same Good' no longer blocks selling it (literal reading)."""
    g, p, _ = contract_position(6)
    act(g, "trade:buy:whisky:1")
    start_turn(g, p)
    assert "trade:sell:whisky:1" not in legal_names(g)
    act(g, "fulfil:0", "market_area:buy:whisky")
    start_turn(g, p)
    assert "trade:sell:whisky:1" in legal_names(g)
