"""Rulebook "Setup: Clans" (the draft), "Variants: Clan Auction", "Variants: Without Clans",
fixed clans through ``GameConfig(clans=...)``, and random-game properties with random clans
and variants in 1-4 player games."""
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clans_env import Game, GameConfig, IllegalActionError
from clans_env.engine import actions as A
from clans_env.engine import data as D
from clans_env.engine.invariants import check_invariants, random_config
from helpers import act, legal_names

SIDES = ("A1", "B1", "C1", "D1")


def game(n, seed=0, **options):
    return Game(GameConfig(num_players=n, seed=seed, map_sides=SIDES, **options))


def offers(g):
    return list(g.modstate["clan_offer"].clans)


# ---- draft ----------------------------------------------------------------------------------------
def test_draft_is_the_default():
    """Setup: Clans: without ``clans`` and ``clan_selection`` the clans are drafted."""
    assert GameConfig().clan_selection == "draft"
    assert Game(GameConfig(num_players=3, seed=2)).decision_kind == "clan_pick"


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_draft_reverse_turn_order_start_player_last_between_two(n):
    """Setup: Clans: draw players+1 clans, each with a random Starting tile; choose in reverse turn
    order, the start player last, between the remaining two; each player receives the Goods and
    money of the chosen Starting tile (no Without Clans money)."""
    g = game(n, seed=7)
    assert len(offers(g)) == n + 1 and len(set(offers(g))) == n + 1
    assert set(offers(g)) <= set(D.CLANS_BASE)
    assert len(set(g.tile_pool)) == n + 1
    pickers = []
    while g.decision_kind == "clan_pick":
        p = g.current_player
        pickers.append(p)
        k = len(offers(g)) - 1                    # take the last pair on offer
        name, tile = offers(g)[k], D.STARTING_TILES[g.tile_pool[k]]
        assert legal_names(g) == {f"choose:{i}" for i in range(len(offers(g)))}
        money = g.players[p].money
        act(g, f"choose:{k}")
        assert g.players[p].clan == name and g.clans[p].name == name
        assert g.players[p].start_tile == tile.id
        assert g.players[p].money == money + tile.money
        assert g.players[p].goods == list(tile.goods)
    assert pickers == list(reversed(g.turn_order))
    assert pickers[-1] == g.start_player
    assert len({pl.clan for pl in g.players}) == n
    assert g.decision_kind == "first_worker"


def test_draft_last_choice_is_between_two():
    """Setup: Clans: the starting player chooses last, between the remaining two clans."""
    g = game(4, seed=3)
    while g.current_player != g.start_player:
        act(g, "choose:0")
    assert g.decision_kind == "clan_pick" and len(g.legal_actions()) == 2


def test_draft_clan_setup_applies_after_picking():
    """Appendix: Clans - Clan Stewart via the draft: the chosen clan's starting items apply."""
    for seed in range(60):
        g = game(2, seed=seed)
        if "stewart" in offers(g):
            k = offers(g).index("stewart")
            p = g.current_player
            act(g, f"choose:{k}")
            while g.decision_kind == "clan_pick":
                act(g, "choose:0")
            assert g.players[p].merchants_stock == D.MERCHANTS_IN_STOCK + 3
            assert g.players[p].shipping == 1
            return
    pytest.fail("Stewart never offered")


def test_draft_kickstarter_clan_only_with_option():
    """Kickstarter option: Clan MacEwen joins the clans drawn only with ``kickstarter=True``."""
    with_ks = set()
    without = set()
    for seed in range(80):
        with_ks.update(offers(game(4, seed, kickstarter=True)))
        without.update(offers(game(4, seed)))
    assert "macewen" in with_ks and "macewen" not in without
    assert without == set(D.CLANS_BASE)


# ---- fixed clans --------------------------------------------------------------------------------
def test_fixed_clans_in_seat_order():
    """``GameConfig(clans=[...])`` fixes the clans in seat order; each gets a random Starting tile;
    the game starts with the first Workers."""
    g = game(3, clans=["mackenzie", "stewart", "fergusson"])
    assert [pl.clan for pl in g.players] == ["mackenzie", "stewart", "fergusson"]
    assert [c.name for c in g.clans] == ["mackenzie", "stewart", "fergusson"]
    tiles = [pl.start_tile for pl in g.players]
    assert len(set(tiles)) == 3
    for pl in g.players:
        assert pl.goods == list(D.STARTING_TILES[pl.start_tile - 1].goods)
    assert g.decision_kind == "first_worker"
    assert g.players[2].shipping == D.SHIPPING_LEVELS.index("2-loch")


@pytest.mark.parametrize("clans,match", [
    (["stewart"], "one clan per player"),
    (["stewart", "gordon"], "valid clans"),
    (["stewart", "stewart"], "one player only"),
    (["macewen", "stewart"], "kickstarter"),
])
def test_fixed_clans_bad_input_names_the_choices(clans, match):
    """Bad input gets a clear error naming the valid choices."""
    with pytest.raises(ValueError, match=match):
        GameConfig(num_players=2, clans=clans)


def test_bad_clan_selection_names_the_choices():
    """Bad input gets a clear error naming the valid choices."""
    with pytest.raises(ValueError, match="none.*draft.*auction"):
        GameConfig(num_players=2, clan_selection="lottery")


# ---- Without Clans ---------------------------------------------------------------------------------
def test_without_clans_money_by_turn_order():
    """Variants: Without Clans: n+1 Starting tiles picked in reverse turn order; in addition the
    start player gets £0, the second £2, the third £4, the fourth £6; no clan abilities."""
    g = game(4, seed=5, clan_selection="none")
    assert g.decision_kind == "start_tile" and len(g.tile_pool) == 5
    while g.decision_kind == "start_tile":
        p = g.current_player
        tile = D.STARTING_TILES[g.tile_pool[0]]
        act(g, "choose:0")
        assert g.players[p].money == tile.money + (0, 2, 4, 6)[g.turn_order.index(p)]
    assert all(pl.clan is None for pl in g.players)


def test_clans_give_no_turn_order_money():
    """Variants: Without Clans: the extra money is only for games without clans."""
    g = game(4, seed=5, clans=["campbell", "cunningham", "robertson", "buchanan"])
    for pl in g.players:
        assert pl.money == D.STARTING_TILES[pl.start_tile - 1].money


# ---- Clan Auction -----------------------------------------------------------------------------------
def bid(g, amount):
    act(g, f"choose:{amount}")


def test_auction_scenario_three_players():
    """Variants: Clan Auction: a random player opens with any bid (0 allowed, passing not);
    to the left players outbid or pass (and cannot bid again this round); the winner records
    the bid as negative VP, is first in turn order and takes a clan; the player to the
    winner's left opens the next auction; the last player takes the last clan free, last in
    turn order."""
    g = game(3, seed=11, clan_selection="auction")
    assert len(offers(g)) == 3 and len(g.tile_pool) == 3
    a = g.start_player
    b, c = (a + 1) % 3, (a + 2) % 3
    assert g.decision_kind == "auction_bid" and g.current_player == a
    assert "pass" not in legal_names(g)
    assert legal_names(g) == {f"choose:{k}" for k in range(D.AUCTION_MAX_BID + 1)}
    bid(g, 5)
    assert g.current_player == b and "pass" in legal_names(g)
    assert min(x - A.CHOOSE for x in g.legal_actions() if x >= A.CHOOSE) == 6
    act(g, "pass")
    assert g.current_player == c
    bid(g, 7)
    assert g.current_player == a                  # b passed: out of this auction round
    act(g, "pass")
    assert g.decision_kind == "auction_pick" and g.current_player == c
    picked = offers(g)[1]
    act(g, "choose:1")
    assert g.players[c].clan == picked and g.players[c].vp_bid == 7
    # the next auction: opened by the player to c's left (a), among players without a clan
    assert g.decision_kind == "auction_bid" and g.current_player == a
    bid(g, 0)
    act(g, "pass")
    assert g.decision_kind == "auction_pick" and g.current_player == a
    act(g, "choose:0")
    # b takes the last clan for free
    assert g.players[b].clan is not None and g.players[b].vp_bid == 0
    assert g.turn_order == [c, a, b] and g.start_player == c
    assert g.decision_kind == "first_worker" and g.current_player == c
    rows = g.final_scores()
    assert rows[c]["auction_bid"] == -7 and "auction_bid" not in rows[b]
    assert rows[c]["total"] == sum(v for k, v in rows[c].items() if k not in ("total", "money_left", "rank"))


def test_auction_thirty_cannot_be_outbid():
    """Variants: Clan Auction: 30 VP is the highest possible bid, so it wins at once."""
    g = game(4, seed=2, clan_selection="auction")
    opener = g.current_player
    bid(g, D.AUCTION_MAX_BID)
    assert g.decision_kind == "auction_pick" and g.current_player == opener
    with pytest.raises(IllegalActionError):
        g.apply(A.CHOOSE + 31)


def test_auction_two_players_and_solo():
    """Variants: Clan Auction: with two players one auction decides both; the solo player simply
    takes the single clan drawn."""
    g = game(2, seed=4, clan_selection="auction")
    opener = g.current_player
    bid(g, 3)
    act(g, "pass")
    act(g, "choose:0")
    assert g.turn_order[0] == opener and g.players[1 - opener].clan is not None
    solo = game(1, seed=4, clan_selection="auction")
    assert solo.players[0].clan in D.CLANS_BASE and solo.decision_kind == "first_worker"


def test_illegal_bid_keeps_state():
    """Bad input: an illegal bid raises and loses nothing."""
    g = game(3, seed=1, clan_selection="auction")
    bid(g, 9)
    before = g.to_json()
    with pytest.raises(IllegalActionError):
        bid(g, 9)
    assert g.to_json() == before


# ---- random games: properties --------------------------------------------------------------------
def play_checked(cfg: GameConfig, rng: random.Random) -> Game:
    """Random legal moves (passing rarely, so games go deep), invariants after every action,
    a save/load round trip at random moments."""
    g = Game(cfg)
    check_invariants(g)
    while not g.is_terminal():
        legal = g.legal_actions()
        if len(legal) > 1 and A.PASS in legal and rng.random() < 0.85:
            legal = [a for a in legal if a != A.PASS]
        g.apply(rng.choice(legal))
        check_invariants(g)
        if rng.random() < 0.02:
            copy = Game.from_json(g.to_json())
            assert copy.to_json() == g.to_json()
            assert copy.legal_actions() == g.legal_actions()
    return g


@pytest.mark.parametrize("n", [1, 2, 3, 4])
@settings(max_examples=25, deadline=None, derandomize=True)
@given(seed=st.integers(min_value=0, max_value=10**6))
def test_random_games_with_random_clans_keep_invariants(n, seed):
    """Random games with random clans and variants (1-4 players) finish; every state keeps the
    invariants (money and goods never negative, unit counts within limits, one unit per space,
    units on matching land, scores add up, contracts conserved); save/load round-trips; the
    record replays to the same final scores."""
    rng = random.Random(seed)
    cfg = random_config(rng, n, seed)
    g = play_checked(cfg, rng)
    rows = g.final_scores()
    assert all(pl.clan is not None for pl in g.players) == (cfg.clan_selection != "none" or cfg.clans is not None)
    replayed = Game.replay(g.record()["config"], g.record()["actions"])
    assert replayed.final_scores() == rows
    assert json.loads(Game.from_json(g.to_json()).to_json())["state"] == json.loads(g.to_json())["state"]
    if n == 1:
        assert rows[0]["band"] in [name for _, name in D.SOLO_BANDS]
