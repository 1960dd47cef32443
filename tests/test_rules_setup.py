"""Rulebook "Setup" (Map Modules, Port Bonus Tiles, Market Board, Export Board, Player Starting
Items, Turn Order, Placing the First Workers) and "Variants: Without Clans"."""
import pytest

from clans_env import Game, GameConfig
from clans_env.engine import data as D
from clans_env.engine.board import KIND_PORT
from helpers import FOREST, MOUNTAIN, active_land, label, make_game, play_setup, placement_targets


@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_map_sides_one_per_module(n):
    """Setup, Map Modules: a random side for each module, modules A-D in order; over many seeds
    both sides of every module appear."""
    seen = set()
    for seed in range(40):
        sides = Game(GameConfig(num_players=n, seed=seed)).board.sides
        assert [s[0] for s in sides] == ["A", "B", "C", "D"]
        seen.update(sides)
    assert seen == set(("A1", "A2", "B1", "B2", "C1", "C2", "D1", "D2"))
    assert make_game(n, 0, ("A2", "B1", "C2", "D1")).board.sides == ("A2", "B1", "C2", "D1")


@pytest.mark.parametrize("n", [2, 3, 4])
def test_four_port_tiles_on_player_count_positions(n):
    """Setup, Port Bonus Tiles: four random different tiles (of the base 1-8), one at each
    corner, on the 1-2 player position in a 2 player game and the 3-4 player position otherwise."""
    seen = set()
    for seed in range(30):
        g = make_game(n, seed)
        assert len(g.port_tiles) == 4 and len(set(g.port_tiles)) == 4
        assert set(g.port_tiles) <= set(range(1, 9))
        seen.update(g.port_tiles)
        for m, s in enumerate(g.topo.port_space):
            assert g.board.kind[s] == KIND_PORT and g.board.module[s] == m
            assert s == g.board.port_positions[m][0 if n <= 2 else 1]
            assert label(g, s).endswith("port12" if n <= 2 else "port34")
    assert seen == set(range(1, 9))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_five_scoring_tiles(n):
    """Setup, Export Board: five Scoring tiles chosen at random (of the base 1-8), random order."""
    orders = set()
    for seed in range(20):
        g = make_game(n, seed)
        assert len(g.scoring_tiles) == 5 and len(set(g.scoring_tiles)) == 5
        assert set(g.scoring_tiles) <= set(range(1, 9))
        orders.add(g.scoring_tiles)
    assert len(orders) > 10


@pytest.mark.parametrize("n,boxes", [(2, 6), (3, 5), (4, 6)])
def test_export_board_boxes_per_player_count(n, boxes):
    """Setup, Export Board: one face-up contract per box; in a 3 player game one box stays
    empty (2p and 4p: 6 contracts, 3p: 5); the rest form the draw pile."""
    g = make_game(n, 3)
    shown = [c for c in g.display if c >= 0]
    assert len(shown) == boxes
    assert g.display[:boxes] == shown
    assert len(g.pile) == len(D.CONTRACTS) - boxes
    assert sorted(shown + g.pile) == sorted(c.id for c in D.CONTRACTS)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_player_starting_items_and_market(n):
    """Setup, Player Starting Items and Market Board: 4 of each unit, 8 Workers (4 Woodcutters,
    4 Miners), 5 Merchants on the track and 2 in stock, no Shipping, Technology unflipped;
    price markers on the starting step."""
    g = make_game(n, 1)
    assert g.prices == [D.START_STEP] * D.NUM_GOODS
    for pl in g.players:
        assert pl.units_left[:8] == [4] * 8
        assert pl.merchants_board == 5 and pl.merchants_stock == 2 and sum(pl.merchants_market) == 0
        assert pl.shipping == 0 and pl.tech == [False, False]
        assert pl.open_contracts == [] and pl.done_contracts == []


@pytest.mark.parametrize("n", [2, 3, 4])
def test_turn_order_random_start_then_clockwise(n):
    """Setup, Turn Order: a random starting player, then clockwise."""
    starts = set()
    for seed in range(30):
        g = make_game(n, seed)
        s = g.turn_order[0]
        starts.add(s)
        assert g.turn_order == [(s + i) % n for i in range(n)]
    assert starts == set(range(n))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_without_clans_starting_tile_draft(n):
    """Setup: Clans / Variants: Without Clans (the lead's reading): n+1 Starting tiles are drawn;
    players choose in reverse turn order, the starting player last between the remaining two;
    each receives the tile's money and goods plus £0/£2/£4/£6 by turn order position."""
    g = make_game(n, 5)
    pool = list(g.tile_pool)
    assert len(pool) == n + 1 and len(set(pool)) == n + 1
    chosen = {}
    for p in reversed(g.turn_order):
        assert g.decision_kind == "start_tile" and g.current_player == p
        assert len(g.legal_actions()) == len(g.tile_pool)
        k = len(g.tile_pool) - 1                 # take the last offered tile
        chosen[p] = D.STARTING_TILES[g.tile_pool[k]]
        g.apply(g.string_to_action(f"choose:{k}"))
    assert g.decision_kind == "first_worker"
    for p, tile in chosen.items():
        extra = (0, 2, 4, 6)[g.turn_order.index(p)]
        assert g.players[p].money == tile.money + extra
        assert g.players[p].goods == list(tile.goods)
        assert g.players[p].start_tile == tile.id
    assert len(g.tile_pool) == 1


@pytest.mark.parametrize("n", [2, 3, 4])
def test_first_workers_snake_order(n):
    """Placing the First Workers: starting player first and clockwise, then in reverse turn
    order a second Worker each (the last to place first places again)."""
    g = make_game(n, 2)
    while g.decision_kind == "start_tile":
        g.apply(g.legal_actions()[0])
    order = []
    while g.decision_kind in ("first_worker", "place"):
        if g.decision_kind == "first_worker":
            order.append(g.current_player)
        g.apply(g.legal_actions()[0])
    assert order == g.turn_order + g.turn_order[::-1]
    assert g.decision_kind == "main" and g.current_player == g.turn_order[0]
    for pl in g.players:
        assert bin(pl.spaces).count("1") == 2


def test_first_worker_land_and_cost():
    """Placing the First Workers: Woodcutters on an empty forest space, Miners on any empty
    mountain space (no adjacency needed, mist excluded in 2p); pay the land cost plus £6
    (Woodcutter) or £10 (Miner); one unit per space."""
    for n in (2, 4):
        g = make_game(n, 0)
        while g.decision_kind == "start_tile":
            g.apply(g.legal_actions()[0])
        p = g.current_player
        assert {g.action_to_string(a) for a in g.legal_actions()} == {"expand:woodcutter", "expand:miner"}
        for unit, land in (("woodcutter", FOREST), ("miner", MOUNTAIN)):
            c = g.clone()
            c.apply(c.string_to_action(f"expand:{unit}"))
            assert placement_targets(c) == {s for s in active_land(g, land)}, unit
        g.apply(g.string_to_action("expand:miner"))
        s = max(placement_targets(g), key=lambda t: g.board.cost[t])
        money = g.players[p].money
        g.apply(g.string_to_action(f"space:{label(g, s)}"))
        assert g.players[p].money == money - 10 - g.board.cost[s]
        assert g.occupant[s] == p and g.unit_at[s] == D.MINER
        # the next player may not use that space
        g.apply(g.string_to_action("expand:miner"))
        assert s not in placement_targets(g)


def test_hybrid_forest_mountain_space_takes_either_worker():
    """Placing the First Workers, example: a space with both forest and mountain lets you place
    a Woodcutter (£6 + land) or a Miner (£10 + land)."""
    g = make_game(4, 0)
    while g.decision_kind == "start_tile":
        g.apply(g.legal_actions()[0])
    hybrids = [s for s in active_land(g) if g.board.land[s] & FOREST and g.board.land[s] & MOUNTAIN]
    assert hybrids, "the map needs a forest+mountain space"
    s = hybrids[0]
    for unit, cost in (("woodcutter", 6), ("miner", 10)):
        c = g.clone()
        p = c.current_player
        money = c.players[p].money
        c.apply(c.string_to_action(f"expand:{unit}"))
        assert s in placement_targets(c)
        c.apply(c.string_to_action(f"space:{label(c, s)}"))
        assert c.players[p].money == money - cost - g.board.cost[s]


def test_setup_then_round_one_action_phase():
    """Game Structure: after setup round 1 starts directly with the Action phase (Preparation
    is skipped in the first round)."""
    g = play_setup(make_game(3, 4))
    assert g.round == 1 and g.phase == 1 and g.decision_kind == "main"
    assert g.current_player == g.turn_order[0]
