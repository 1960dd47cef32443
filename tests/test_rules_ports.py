"""Rulebook "Free Action: Using a Port Bonus Tile" and "Appendix: Port Bonus Tiles" (tile
numbers of the player aid's reference list; tile 9 is Kickstarter)."""
import pytest

from clans_env.engine import data as D
from clans_env.engine.board import all_assemblies
from helpers import (FOREST, GRASS, MOUNTAIN, act, active_land, blank_position, clear, label, legal_names,
                     loch_distance, make_game, placement_targets, play_setup, port_neighbours, put, start_turn)


def port_position(tile, n=2, unit="sheep", money=100, others=None, **options):
    """Port tile ``tile`` in slot 0 (other slots: ``others``, default three other tiles), p has
    ``unit`` on the land space next to it. Returns (g, p, space next to the port)."""
    g = blank_position(n, money=money, **options)
    p = g.current_player
    if others is None:
        others = [t for t in (3, 6, 8, 2) if t != tile][:3]
    g.port_tiles = (tile,) + tuple(others)
    land = {"woodcutter": FOREST, "miner": MOUNTAIN}.get(unit, GRASS)
    spaces = [s for s in port_neighbours(g, 0) if g.board.land[s] & land]
    assert spaces, "no suitable land next to the port"
    put(g, p, unit, spaces[0])
    start_turn(g, p)
    return g, p, spaces[0]


def test_port_needs_a_unit_neighbouring_it():
    """Free Action: Port tile usable only if neighbouring or within Shipping reach of one of your
    units."""
    g, p, s = port_position(5)
    assert "use_port:0" in legal_names(g)
    clear(g, p)
    far = sorted(active_land(g, GRASS))[-1]
    put(g, p, "sheep", far)
    start_turn(g, p)
    assert not any(n.startswith("use_port") for n in legal_names(g))


def test_port_within_shipping_reach():
    """Free Action: 'within Shipping reach' counts: a port across one loch needs 1-loch Shipping
    (searched over all 16 map assemblies, 2 players)."""
    for sides in all_assemblies():
        g = make_game(2, 0, sides)
        for slot in range(4):
            ps = g.topo.port_space[slot]
            far = [s for s in active_land(g, GRASS) if loch_distance(g, s, ps) == 1]
            if far:
                break
        else:
            continue
        break
    else:
        pytest.fail("no port one loch away from grassland on any assembly")
    play_setup(g)
    clear(g)
    p = g.current_player
    g.players[p].money = 100
    g.port_tiles = tuple(5 if k == slot else 4 for k in range(4))
    put(g, p, "sheep", far[0])
    for level, usable in ((0, False), (1, False), (2, True)):
        g.players[p].shipping = level
        g.players[p].reach = -1
        start_turn(g, p)
        assert (f"use_port:{slot}" in legal_names(g)) == usable, level


def test_port_once_per_game_per_player_but_for_every_player():
    """Free Action: each player can use each Port tile only once in the game; several players can
    use the same tile."""
    g, p, s = port_position(5, n=2)
    act(g, "use_port:0")
    assert g.players[p].money == 110
    start_turn(g, p)
    assert "use_port:0" not in legal_names(g)
    g.round = 3
    start_turn(g, p)
    assert "use_port:0" not in legal_names(g)
    o = 1 - p
    clear(g, p)
    put(g, o, "sheep", s)
    start_turn(g, o)
    assert "use_port:0" in legal_names(g)


def test_port_before_and_after_main_action_and_several_per_turn():
    """Free Action: usable before or after the main action; a player may use multiple Port tiles
    in one turn."""
    g = blank_position(2)
    p = g.current_player
    g.port_tiles = (5, 8, 5, 5)
    for slot in range(4):
        s = port_neighbours(g, slot)[0]
        put(g, p, "woodcutter" if g.board.land[s] & FOREST else "miner" if g.board.land[s] & MOUNTAIN else "sheep", s)
    g.players[p].open_contracts = [g.pile.pop()]          # no Building bonus from tile 8
    start_turn(g, p)
    act(g, "use_port:0")
    assert g.decision_kind == "main" and g.current_player == p       # main action still to come
    act(g, "use_port:1")
    assert g.decision_kind == "main"
    act(g, "hire_merchant")
    assert g.decision_kind == "post_main" and g.current_player == p
    assert legal_names(g) == {"use_port:2", "use_port:3", "done"}
    act(g, "use_port:2", "use_port:3")
    assert g.players[p].money == 100 + 10 + 5 + 10 + 10 - 4
    assert g.current_player != p


def test_tile_1_one_fewer_animal():
    """Port tile 1: when you fulfil a contract requiring Meat, it requires one fewer slaughtered
    animal (used inside the Fulfil action: the lead's reading)."""
    g, p, s = port_position(1, unit="cow")
    g.players[p].open_contracts = [3]                    # 2 Beef -> 2 Sugar cane, 1 Hops, £10
    start_turn(g, p)
    assert "fulfil:0" in legal_names(g)                  # one Cow + the port
    assert "use_port:0" not in legal_names(g)            # not a stand-alone action
    act(g, "fulfil:0")
    pl = g.players[p]
    if g.decision_kind == "slaughter":
        act(g, "use_port:0")
    assert pl.done_contracts == [3]
    assert pl.ports_used & 1
    assert pl.units_left[D.COW] == 4 and g.occupant[s] == -1


def test_tile_1_cannot_be_lost_by_slaughtering_the_unit_next_to_the_port():
    """Port tile 1 with a shortage: the port is in reach when the Fulfil action starts; the engine
    must not let the contract be fulfilled one animal short without using the tile, even if the
    animal next to the port is slaughtered first."""
    g, p, s = port_position(1, unit="cow")
    g.players[p].open_contracts = [3]
    start_turn(g, p)
    act(g, "fulfil:0")
    while g.decision_kind == "slaughter":
        cows = [x for x in placement_targets(g)]
        act(g, f"space:{label(g, cows[0])}" if cows else "use_port:0")
    pl = g.players[p]
    assert pl.done_contracts == [3]
    assert pl.ports_used & 1, "the shortage was covered without using Port tile 1"


def test_tile_1_choice_with_enough_animals():
    """Port tile 1: with enough animals the player may still use the tile to keep one."""
    g, p, s = port_position(1, unit="cow")
    grass = set(active_land(g, GRASS))
    other = next(t for t in sorted(grass) if g.occupant[t] == -1 and t not in g.board.adjacent[s])
    put(g, p, "cow", other)
    g.players[p].open_contracts = [16]                   # 1 Wool, 1 Beef -> 2 Cotton
    g.players[p].goods[D.WOOL] = 1
    start_turn(g, p)
    act(g, "fulfil:0")
    assert g.decision_kind == "slaughter"
    assert "use_port:0" in legal_names(g)
    act(g, "use_port:0")
    assert g.players[p].units_left[D.COW] == 2


def test_tile_2_discard_basic_gain_three():
    """Port tile 2: discard one Basic good of your choice and gain any three Basic goods
    (including the discarded type)."""
    g, p, s = port_position(2)
    assert "use_port:0" not in legal_names(g)            # nothing to discard
    g.players[p].goods[D.MILK] = 1
    g.players[p].goods[D.CHEESE] = 1
    start_turn(g, p)
    act(g, "use_port:0")
    assert legal_names(g) == {"good:milk"}
    act(g, "good:milk")
    assert legal_names(g) == {"good:wool", "good:milk", "good:grain"}
    act(g, "good:milk", "good:grain", "good:grain")
    assert g.players[p].goods[:3] == [0, 1, 2]
    assert g.decision_kind == "main"


def test_tile_3_discard_processed_gain_two():
    """Port tile 3: discard one Processed good and gain any two Processed goods."""
    g, p, s = port_position(3)
    g.players[p].goods[D.BREAD] = 1
    g.players[p].goods[D.WOOL] = 1
    start_turn(g, p)
    act(g, "use_port:0")
    assert legal_names(g) == {"good:bread"}
    act(g, "good:bread")
    assert legal_names(g) == {"good:cheese", "good:bread", "good:whisky"}
    act(g, "good:whisky", "good:whisky")
    assert g.players[p].goods[3:] == [0, 0, 2]


def test_tile_4_bonus_upgrade_and_three_glory():
    """Port tile 4: receive one Bonus upgrade and gain 3 Glory."""
    g, p, s = port_position(4)
    act(g, "use_port:0")
    assert g.players[p].glory == 3
    assert g.decision_kind == "bonus_upgrade"
    act(g, "upgrade_tech:woodcutter")
    assert g.players[p].tech[0] and g.players[p].money == 95


def test_tile_5_ten_pounds():
    """Port tile 5: gain £10."""
    g, p, s = port_position(5)
    act(g, "use_port:0")
    assert g.players[p].money == 110


@pytest.mark.parametrize("direction,delta", [("buy", 3), ("sell", -3)])
def test_tile_6_price_three_steps(direction, delta):
    """Port tile 6: manipulate the price of one Good by three steps (up or down; a free action
    with no obligation to trade: the lead's reading)."""
    g, p, s = port_position(6)
    act(g, "use_port:0")
    assert g.decision_kind == "port_price"
    assert len(g.legal_actions()) == 12
    act(g, f"market_area:{direction}:whisky")
    assert g.prices[D.WHISKY] == D.START_STEP + delta
    assert g.decision_kind == "main"


def test_tile_6_price_stops_at_the_end():
    """Port tile 6: the marker cannot leave the track."""
    g, p, s = port_position(6)
    g.prices[D.WOOL] = 1
    act(g, "use_port:0", "market_area:sell:wool")
    assert g.prices[D.WOOL] == 0


def exchange_position():
    """p has a Sheep on the port's grassland neighbour and a Cow elsewhere."""
    g, p, s = port_position(7)
    grass = set(active_land(g, GRASS))
    other = next(t for t in sorted(grass) if g.occupant[t] == -1 and t not in g.board.adjacent[s])
    put(g, p, "cow", other)
    start_turn(g, p)
    return g, p, s, other


def test_tile_7_exchange_two_units():
    """Port tile 7: exchange any two of your units on the map (not Fields) with two from your
    Player board (not Fields) at no cost; new types differ from the old ones and match the land."""
    g, p, s, other = exchange_position()
    money = g.players[p].money
    act(g, "use_port:0")
    assert placement_targets(g) == {s, other}
    act(g, f"space:{label(g, s)}")
    names = legal_names(g)
    assert "expand:sheep" not in names and "expand:field" not in names
    assert {"expand:cow", "expand:cheese_dairy", "expand:bakery", "expand:distillery"} <= names
    act(g, "expand:distillery")
    assert g.unit_at[s] == D.DISTILLERY
    # second exchange: the Cow may not become a Sheep or a Cow (old types) nor be... its new type
    act(g, f"space:{label(g, other)}")
    names = legal_names(g)
    assert "expand:sheep" not in names and "expand:cow" not in names and "expand:field" not in names
    act(g, "expand:bakery")
    pl = g.players[p]
    assert g.unit_at[other] == D.BAKERY and pl.money == money
    assert pl.units_left[D.SHEEP] == 4 and pl.units_left[D.COW] == 4
    assert pl.units_left[D.DISTILLERY] == 3 and pl.units_left[D.BAKERY] == 3


def test_tile_7_second_exchange_optional():
    """Port tile 7: 'up to two' units (the lead's reading): stop after one exchange."""
    g, p, s, other = exchange_position()
    act(g, "use_port:0", f"space:{label(g, s)}", "expand:bakery")
    assert "done" in legal_names(g)
    act(g, "done")
    assert g.unit_at[other] == D.COW


def test_tile_7_no_neighbourhood_but_building_bonus():
    """Port tile 7: no Neighbourhood bonus during this port action; if you qualify you can obtain
    the Building bonus (4th Distillery with an empty Export box)."""
    g, p, s, other = exchange_position()
    o = 1 - p
    grass = set(active_land(g, GRASS))
    nb = [t for t in g.board.neighbours[s] if t in grass and g.occupant[t] == -1]
    if nb:
        put(g, o, "distillery", nb[0])
    g.players[p].units_left[D.DISTILLERY] = 1           # three already "deployed" elsewhere
    start_turn(g, p)
    act(g, "use_port:0", f"space:{label(g, s)}", "expand:distillery", "done")
    assert g.decision_kind == "building_bonus"


def test_tile_8_money_and_building_bonus():
    """Port tile 8: gain £5; if your Export box is empty you can perform the Building bonus
    (paying the round cost if you take a contract)."""
    g, p, s = port_position(8)
    top = g.pile[:3]
    act(g, "use_port:0")
    assert g.players[p].money == 105
    assert g.decision_kind == "building_bonus"
    act(g, "choose:0", "choose:2")          # draw ("you can perform the Building bonus"), take
    assert g.players[p].open_contracts == [top[2]]
    assert g.players[p].money == 110


def test_tile_8_without_building_bonus_when_box_full():
    """Port tile 8: with a contract on the Export box only the £5."""
    g, p, s = port_position(8)
    g.players[p].open_contracts = [g.pile.pop()]
    start_turn(g, p)
    act(g, "use_port:0")
    assert g.players[p].money == 105 and g.decision_kind == "main"


def test_tile_9_kickstarter_copies_another_tile():
    """Kickstarter Port tile 9: pay £3, put a marker on it, then use any one of the other three
    Port tiles in play (even one already used)."""
    g, p, s = port_position(9, others=(5, 4, 2), kickstarter=True)
    g.players[p].ports_used = 0b10                       # tile 5 in slot 1 already used
    start_turn(g, p)
    act(g, "use_port:0")
    assert g.players[p].money == 97
    assert g.decision_kind == "port_copy"
    assert legal_names(g) == {"use_port:1", "use_port:2"}    # tile 2 has nothing to discard
    act(g, "use_port:1")
    assert g.players[p].money == 107
    assert g.players[p].ports_used == 0b11


def test_kickstarter_pool():
    """Kickstarter-Contributed Tiles: tile 9 joins the Port pool only with kickstarter=True."""
    seen = set()
    for seed in range(40):
        seen.update(make_game(3, seed, kickstarter=True).port_tiles)
        assert 9 not in make_game(3, seed).port_tiles
    assert 9 in seen


def test_port_right_after_passing():
    """Free Action: a Port tile may be used 'in addition to whatever Action you perform on your
    turn (before or after your main Action)'; Pass is an Action, so a tile may follow it."""
    g, p, s = port_position(5)
    act(g, "pass")
    assert g.decision_kind == "post_main" and g.current_player == p
    assert legal_names(g) == {"use_port:0", "done"}
    act(g, "use_port:0")
    assert g.players[p].money == 100 + D.PASSING_BONUS[0] + 10
