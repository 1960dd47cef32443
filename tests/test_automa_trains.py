"""The Automa with Industria's Train module and the Milestone variants (Automa §6.3 and
§4.3; readings A14-A18 of docs/rules-interpretations.md; the Train rules R1.8-R17.5 of
docs/rules-index.md). Code: rules/trains.py (``train_players``), milestones.py, automa.py
(``train_score_lines``)."""
from __future__ import annotations

import json
import random

import pytest

from clans_env import Game, GameConfig
from clans_env.engine import actions as A
from clans_env.engine import data as D
from clans_env.engine import trainmap as TM
from clans_env.engine.config import MILESTONE_VARIANTS
from clans_env.engine.invariants import check_invariants
from clans_env.engine.records import load_game_file, record_config, write_record
from clans_env.engine.rules import automa as AU
from clans_env.engine.rules import milestones as MS
from clans_env.engine.rules import trains as TR

from helpers import GRASS, blank_position, free_spaces, make_game, put, start_turn

CHOOSE = A.CHOOSE
BONUS_KINDS = ("delivery", "delivery_step", "bonus_upgrade", "place", "free_space", "move", "building_bonus",
               "neighbourhood", "bonus_order", "bonus_menu", "station")


def loc(g, label):
    return TR.side(g).ids.index(label)


def tile_with(goods: dict) -> int:
    want = tuple(goods.get(x, 0) for x in D.GOODS)
    return next(k for k, v in TM.DEMAND_TILES.items() if v == want)


def give(g, p, **goods):
    for k, v in goods.items():
        g.players[p].goods[D.GOOD_INDEX[k]] = v


def position(n, automa, **options):
    """Round 1, Action phase, empty map, £100 each, no Goods; the Train module on, every Demand tile 2 Wool."""
    options.setdefault("trains", True)
    g = blank_position(n, automa=automa, **options)
    wool2 = tile_with({"wool": 2})
    for s in range(TR.side(g).num_demand_spots):
        g.modstate["trains"].demand[s] = wool2
    return g


def deliver(g, p, path):
    """p's Train action along ``path`` (location labels), then every bonus decision answered with done or
    its first option; returns p's money before the move."""
    start_turn(g, p)
    money = g.players[p].money
    g.apply(TR.TRAIN_ACTION)
    if TR.has_minis(g):
        g.apply(CHOOSE + loc(g, path[0]))                 # the Train first (R15.4)
    else:
        g.apply(CHOOSE + loc(g, path[0]))
    if len(path) == 2:
        g.apply(CHOOSE + loc(g, path[1]))
    elif g.decision_kind == "train_move":
        g.apply(A.DONE)
    while g.decision_kind in BONUS_KINDS or g.decision_kind == "train_move":
        g.apply(A.DONE if A.DONE in g.legal_actions() else g.legal_actions()[0])
    return money


# ---- configuration (A14, A17, A18) -------------------------------------------------------------------
def test_config_automa_plays_with_trains_and_milestone_variants():
    """A14/A17: trains=True and the Milestone variants are valid with an Automa; industria=True includes the
    Train module (as without an Automa), or the Milestone variant when one is named."""
    assert GameConfig(num_players=2, automa={1: 3}, industria=True).trains is True
    assert GameConfig(num_players=3, automa={0: 5}, trains=True).trains is True
    for v in MILESTONE_VARIANTS:
        c = GameConfig(num_players=2, automa={1: 3}, industria=True, milestones=v)
        assert c.trains is False and c.milestones == v
        assert GameConfig.from_dict(json.loads(json.dumps(c.to_dict()))) == c
    with pytest.raises(ValueError, match="without the Train module"):
        GameConfig(num_players=2, automa={1: 3}, trains=True, milestones="variant_a")


def _old_automa_industria_game(seed=4):
    """A game played as the engine played Automa + industria=True before the Automa's Train rules: trains off."""
    cfg = GameConfig(num_players=2, seed=seed, automa={1: 2}, industria=True, trains=False)
    g = Game(cfg)
    rng = random.Random(seed)
    while not g.is_terminal():
        g.apply(rng.choice(g.legal_actions()))
    return g


def test_earlier_automa_industria_records_and_saves_replay_with_trains_off(tmp_path):
    """A18: ``to_dict`` writes every Industria field once one is on, so the records and saves of Automa games
    from before (industria=True, then without the Train module) say ``trains: false`` and replay as played;
    a config without the key replays with trains off too (T15, records.record_config)."""
    g = _old_automa_industria_game()
    doc = g.record()
    assert doc["config"]["trains"] is False and doc["config"]["industria"] is True
    path = tmp_path / "old.json"
    write_record(path, g, players=["human", "automa:level=2"])
    back, _ = load_game_file(path)
    assert back.config.trains is False and back.to_json() == g.to_json()
    legacy = {k: v for k, v in doc["config"].items() if k != "trains"}       # a record with no trains key
    assert GameConfig.from_dict(record_config(legacy)).trains is False
    assert Game.replay(GameConfig.from_dict(record_config(legacy)), g.history).to_json() == g.to_json()
    assert Game.from_json(g.to_json()).config.trains is False
    new = GameConfig.from_dict({**legacy, "trains": None})                   # a new game: the module is on
    assert new.trains is True


# ---- who plays the Train module (A14) ----------------------------------------------------------------
@pytest.mark.parametrize("n, automa, players, side, minis, solo, refill", [
    (2, {1: 3}, 1, "2", False, True, 4),          # 1 player + Automa: the solo rules (R17.2)
    (3, {0: 3, 2: 1}, 1, "2", False, True, 4),    # 1 player + 2 Automas
    (3, {2: 4}, 2, "2", True, False, 4),          # 2 players + Automa: the 2-player game (R15)
    (4, {1: 5}, 3, "34", False, False, 3),        # 3 players + Automa: the 3-player game (R1.8, R1.10)
])
def test_train_players_side_minis_and_refill_by_the_players_only(n, automa, players, side, minis, solo, refill):
    g = make_game(n, seed=2, automa=automa, trains=True)
    assert TR.train_players(g) == players and TR.side(g).name == side
    assert TR.has_minis(g) == minis and (g.modstate["trains"].mini is not None) == minis
    assert TR.solo(g) == solo and (g.modstate["trains"].solo_done is not None) == solo
    assert len(g.modstate["trains"].demand_refill) == refill
    assert len(g.modstate["trains"].at) == n                # state indexed by seat
    placed = []
    while g.phase == 0:
        if g.decision_kind == "train_place":
            placed.append(g.current_player)
        g.apply(g.legal_actions()[0])
    humans = [p for p in range(n) if p not in automa]
    for p in automa:
        assert g.modstate["trains"].at[p] == -1 and (not minis or g.modstate["trains"].mini[p] == -1)
        assert p not in placed
    order = [p for p in g.turn_order if p not in automa]
    if minis:                                     # R1.13 between the two players: 2nd, 1st, 2nd, 1st
        assert placed == [order[1], order[0], order[1], order[0]]
        assert all(g.modstate["trains"].mini[p] >= 0 for p in humans)
    else:                                         # R1.12: reverse turn order of the players
        assert placed == list(reversed(order))
    assert all(g.modstate["trains"].at[p] >= 0 for p in humans)
    check_invariants(g)


def test_one_player_against_the_automa_delivers_to_each_location_once():
    """§6.3 / R17.3: with one player the location's Delivery bonus tile is discarded after the delivery and
    the location takes no further delivery (also in later rounds)."""
    g = position(2, {1: 3})
    p = 0
    g.modstate["trains"].at[p] = loc(g, "T1")
    give(g, p, wool=6)
    deliver(g, p, ["T2"])
    at = loc(g, "T2")
    assert g.modstate["trains"].deliv[p] == 1 and g.modstate["trains"].solo_done[at] == 1 and g.modstate["trains"].bonus[at] == 0
    g.modstate["trains"].tilt[p] = 0                        # a new round's upright Train
    TR.preparation(g)
    for s in range(TR.side(g).num_demand_spots):
        g.modstate["trains"].demand[s] = tile_with({"wool": 2})
    g.modstate["trains"].at[p] = loc(g, "T3")
    assert not TR.deliverable(g, p) >> at & 1 and not TR.can_deliver(g, p, at)
    assert TR.deliverable(g, p) >> loc(g, "T4") & 1
    start_turn(g, p)
    g.apply(TR.TRAIN_ACTION)
    g.apply(CHOOSE + at)                          # T2 may still be passed on the way to T1
    assert A.DONE not in g.legal_actions()        # ... but not delivered to


def test_two_players_against_the_automa_may_deliver_to_a_location_twice():
    """§6.3: 2 players + Automa play a normal 2-player Train game: no once-per-location rule (Q23)."""
    g = position(3, {2: 3})
    p, q = [x for x in g.turn_order if x != 2]
    g.modstate["trains"].at[p], g.modstate["trains"].mini[p] = loc(g, "T1"), loc(g, "T5")
    g.modstate["trains"].at[q], g.modstate["trains"].mini[q] = loc(g, "T3"), loc(g, "T7")
    give(g, p, wool=2)
    give(g, q, wool=2)
    deliver(g, p, ["T2"])
    g.modstate["trains"].at[p] = loc(g, "T8")
    assert TR.can_deliver(g, q, loc(g, "T2")) and TR.deliverable(g, q) >> loc(g, "T2") & 1
    deliver(g, q, ["T2"])
    assert g.modstate["trains"].deliv[p] == g.modstate["trains"].deliv[q] == 1


def test_fees_only_for_the_players_trains_and_nobody_receives_them():
    """§6.3 and T2: the Automa has no Train, so meeting its units costs nothing; a fee for the other
    player's Train (2 players + Automa: per Train or Mini-train, R15.7) goes to the bank, not to the Automa."""
    g = position(3, {1: 4})
    p, q = [x for x in g.turn_order if x != 1]
    g.modstate["trains"].at[p], g.modstate["trains"].mini[p] = loc(g, "T1"), loc(g, "T6")
    g.modstate["trains"].at[q], g.modstate["trains"].mini[q] = loc(g, "T2"), loc(g, "T9")
    assert TR.fee(g, p, [loc(g, "T2")]) == TM.PASS_FEE
    assert TR.fee(g, p, [loc(g, "T2"), loc(g, "T9")]) == 2 * TM.PASS_FEE     # Train and Mini-train met
    give(g, p, wool=2)
    automa_money, q_money = g.players[1].money, g.players[q].money
    before = deliver(g, p, ["T2", "T3"])
    assert g.modstate["trains"].at[p] == loc(g, "T3")
    assert g.players[p].money <= before - TM.PASS_FEE
    assert g.players[1].money == automa_money and g.players[q].money == q_money


def test_station_may_stand_on_an_automa_unit():
    """A15: R13.15's "another player's unit" includes an Automa's unit (it is a player of the game)."""
    g = position(3, {2: 3})
    p = g.turn_order[0] if g.turn_order[0] != 2 else g.turn_order[1]
    spaces = free_spaces(g, GRASS)
    put(g, p, "sheep", spaces[0])
    nb = [s for s in g.board.neighbours[spaces[0]] if s in spaces][0]
    put(g, 2, "sheep", nb)
    assert TR.station_targets(g, p) == 1 << nb


# ---- Milestones and final scoring (A14, A16, A17) ---------------------------------------------------
def test_one_player_milestones_score_by_round_and_no_train_map_penalty():
    """§6.3 / R17.2 / R17.4: the Automa milestone cards cover the printed VP: 10/8/6/4/2 by the round of the
    claim; R17.5's -30 is the solo game's line, not the Automa game's (A14)."""
    g = position(2, {1: 3})
    n = g.num_players
    for spot, rnd in ((0, 1), (1, 3), (2, 5)):
        g.modstate["trains"].claims[spot * n] = 1
        g.modstate["trains"].claim_round[spot * n] = rnd
    row = g.final_scores()[0]
    assert row["milestones"] == 10 + 6 + 2 and "train_map" not in row
    solo = blank_position(1, trains=True)        # the real solo game keeps R17.5
    assert solo.final_scores()[0]["train_map"] == -TM.SOLO_TRAIN_PENALTY


@pytest.mark.parametrize("n, automa, vp", [(3, {2: 3}, [6, 2]), (4, {3: 3}, [8, 4, 2])])
def test_milestone_vp_by_the_number_of_players(n, automa, vp):
    """§6.3: 2 players + Automa score the 2-player Milestones (R14.4), 3 players + Automa the 3-4 player
    ones (R14.3); the Automa's seat counts for nothing."""
    g = position(n, automa)
    humans = [p for p in range(n) if p not in automa]
    for place, p in enumerate(humans, start=1):
        g.modstate["trains"].claims[0 * n + p] = place
        g.modstate["trains"].claim_round[0 * n + p] = 1
    rows = g.final_scores()
    assert [rows[p]["milestones"] for p in humans] == vp + [0] * (len(humans) - len(vp))


@pytest.mark.parametrize("level", AU.LEVELS)
def test_automa_scores_round5_vp_train_and_no_milestones(level):
    """§4.3 / §6.3: every Automa scores round5VPTrain (10-50 by level) as its Train-delivery line and no
    Milestone VP, whatever the number of players."""
    for n, automa in ((2, {1: level}), (3, {1: level, 2: 6 - level}), (4, {0: level})):
        g = position(n, automa)
        rows = g.final_scores()
        for p, lv in automa.items():
            assert rows[p]["delivery_track"] == AU.ROUND5_VP_TRAIN[lv - 1] == 10 * lv
            assert rows[p]["milestones"] == 0 and "train_map" not in rows[p]
            assert rows[p]["total"] == sum(v for k, v in rows[p].items() if k not in ("total", "money_left", "rank"))
    off = blank_position(2, automa={1: level}, industria=True, trains=False)
    assert "delivery_track" not in off.final_scores()[1]


def test_the_automa_takes_no_train_action_and_claims_no_milestone():
    """§6.3: the Train action and the Milestone claim are the players' main-decision options only; the
    invariants catch an Automa on the Train map or with a claim."""
    g = position(2, {1: 3})
    g.modstate["trains"].ms[0] = 4                          # Milestone 4: Basic goods (the Automa never holds Goods)
    g.modstate["trains"].at[0] = loc(g, "T1")
    g.modstate["trains"].markers = [1, 1]                   # a marker in stock for each seat
    give(g, 0, wool=9)
    start_turn(g, 0)
    legal = g.legal_actions()
    assert TR.TRAIN_ACTION in legal and MS.CLAIM_ACTION in legal and g.current_player == 0
    assert AU.invariant_errors(g) == []
    bad = g.clone()
    bad.modstate["trains"].at[1] = loc(bad, "T5")
    assert any("Train map" in e for e in AU.invariant_errors(bad))
    bad = g.clone()
    bad.modstate["trains"].claims[0 * 2 + 1] = 1
    assert any("Milestone" in e for e in AU.invariant_errors(bad))
    bad = g.clone()
    bad.modstate["trains"].deliv[1] = 1
    assert any("deliv = 1" in e for e in AU.invariant_errors(bad))


@pytest.mark.parametrize("variant", ["variant_a", "variant_b"])
def test_milestone_variants_with_the_automa(variant):
    """A17: the variants are played by the players; the Automa never claims and scores no Milestone VP
    (and no delivery line, there are no Trains)."""
    g = blank_position(3, automa={2: 3}, milestones=variant)
    p = g.turn_order[0]
    g.modstate["trains"].ms[0] = 4
    if variant == "variant_b":
        g.modstate["trains"].demand[0] = tile_with({"wool": 2})
    give(g, p, wool=9)
    start_turn(g, p)
    g.apply(MS.CLAIM_ACTION)
    g.apply(CHOOSE + 0)
    rows = g.final_scores()
    assert rows[p]["milestones"] == 6                 # 2 players: 6 / 2 (R14.4)
    assert rows[2]["milestones"] == 0 and "delivery_track" not in rows[2]
    one = blank_position(2, automa={1: 3}, milestones=variant)
    one.modstate["trains"].claims[0] = 1
    one.modstate["trains"].claim_round[0] = 2
    assert one.final_scores()[0]["milestones"] == TM.SOLO_MILESTONE_VP[1]


def test_determinize_reshuffles_the_automa_pile_and_the_demand_pile_only():
    """A13 and the Train module's hidden Demand pile: both hidden piles (the Automa's cards, the Demand
    tiles) are reshuffled; the Train map's public tiles and pieces stay."""
    g = position(2, {1: 3})
    piles, demands = set(), set()
    for seed in range(6):
        d = g.determinize(seed)
        assert sorted(AU.pile(d, 1, "pile")) == sorted(AU.pile(g, 1, "pile"))
        assert sorted(d.modstate["trains"].pile) == sorted(g.modstate["trains"].pile)
        for k in ("demand", "demand_refill", "bonus", "at", "ms", "solo_done"):
            assert getattr(d.modstate["trains"], k) == getattr(g.modstate["trains"], k)
        piles.add(tuple(AU.pile(d, 1, "pile")))
        demands.add(tuple(d.modstate["trains"].pile))
    assert len(piles) > 1 and len(demands) > 1


# ---- environments ------------------------------------------------------------------------------------
def test_single_agent_env_with_automa_and_trains():
    """SingleAgentEnv against the Automa with the Train module (the PettingZoo env: test_automa.py
    ``test_pettingzoo_agents_exclude_the_automa[options1]``)."""
    import numpy as np

    from clans_env.wrappers import SingleAgentEnv

    senv = SingleAgentEnv(num_players=2, opponents="automa:level=5", learner_seat="random", industria=True)
    senv.reset(seed=8)
    assert senv.game.config.trains and senv.game.config.automa == {1 - senv.learner_seat: 5}
    nrng = np.random.default_rng(0)
    done = False
    while not done:
        _, r, done, _, _ = senv.step(int(nrng.choice(np.flatnonzero(senv.action_masks()))))
    assert senv.game.is_terminal() and senv.game.final_scores()[1 - senv.learner_seat]["delivery_track"] == 50


# ---- random games ------------------------------------------------------------------------------------
def random_train_config(rng: random.Random, seed: int, level: int, others: int) -> GameConfig:
    """An Automa at ``level`` (plus, sometimes, a second one) with ``others`` other seats; the Train module,
    random clans selection and variants."""
    n = others + 1
    seats = rng.sample(range(n), 2 if others >= 2 and rng.random() < 0.25 else 1)
    levels = {s: level if k == 0 else rng.randint(1, 5) for k, s in enumerate(seats)}
    extra = rng.choice([dict(industria=True), dict(trains=True), dict(trains=True, farmers_markets=True),
                        dict(industria=True, industria_clans=False)])
    return GameConfig(num_players=n, seed=seed, automa=levels, clan_selection=rng.choice(["draft", "none"]),
                      tighter_map=n in (2, 3) and rng.random() < 0.2, **extra)


@pytest.mark.parametrize("level", AU.LEVELS)
def test_random_games_with_trains_invariants_save_load_replay(level):
    """Seeded random games, an Automa at each level with 1-3 other seats and the Train module: invariants
    after every action (the Automa never on the Train map, never claiming), save/load, replay."""
    for others in (1, 2, 3, 1):
        seed = 1000 * level + 10 * others + len(str(others))
        rng = random.Random(seed)
        cfg = random_train_config(rng, seed, level, others)
        assert cfg.trains
        g = Game(cfg)
        steps = 0
        while not g.is_terminal():
            assert g.current_player not in cfg.automa
            check_invariants(g)
            g.apply(rng.choice(g.legal_actions()))
            steps += 1
            if steps % 50 == 0:
                assert Game.from_json(g.to_json()).to_json() == g.to_json()
        check_invariants(g)
        assert Game.from_json(g.to_json()).to_json() == g.to_json()
        assert Game.replay(json.loads(json.dumps(g.record()))["config"], g.history).to_json() == g.to_json()
        rows = g.final_scores()
        for s, lv in cfg.automa.items():
            assert rows[s]["delivery_track"] == AU.ROUND5_VP_TRAIN[lv - 1] and rows[s]["milestones"] == 0
            assert g.modstate["trains"].at[s] == -1 and g.modstate["trains"].deliv[s] == 0
