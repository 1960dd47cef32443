"""MCTSAgent (issue 5): finds the obvious win in constructed end-game positions, never peeks
at the hidden contract pile, answers forced moves without searching, reuses its tree, honours
time budgets, and runs root-parallel searches."""
from __future__ import annotations

import functools
import json
import random
import time

import pytest

from agents import HeuristicAgent, MCTSAgent
from agents.mcts import hidden_order_removed, normalised_values
from clans_env import Game, GameConfig
from clans_env.engine import data as D
from clans_env.engine.actions import FULFIL, PASS
from clans_env.engine.state import ACTION

#: a contract with no meat and no Direct export bonus decisions: 2 Whisky -> 2 Tobacco, 1 Hops, £10
CONTRACT = next(c for c in D.CONTRACTS if c.goods == (0, 0, 0, 0, 0, 2) and c.meat == 0 and not c.free_space
                and not c.bonus_upgrade)


@functools.lru_cache(maxsize=None)
def _cached_last_turn_position(me: int) -> Game:
    """A real game played by two heuristic players up to round 5, stopped when ``me`` is to
    take a main action and the opponent has already passed (``me`` has the last turns)."""
    for seed in range(40):
        g = Game(GameConfig(num_players=2, seed=seed))
        agents = [HeuristicAgent(seed=seed), HeuristicAgent(seed=seed + 1)]
        while not g.is_terminal():
            if (g.round == D.NUM_ROUNDS and g.phase == ACTION and g.decision_kind == "main"
                    and g.current_player == me and g.players[1 - me].passed):
                return g
            g.apply(agents[g.current_player].act(g))
    raise AssertionError("no seed reached the wanted end-game position")


def _last_turn_position(me: int) -> Game:
    return _cached_last_turn_position(me).clone()


def _mid_game_position() -> Game:
    """A round-2 main decision with several legal actions (the pile still matters: contracts
    are drawn in every later Preparation)."""
    g = Game(GameConfig(num_players=2, seed=11))
    agents = [HeuristicAgent(seed=1), HeuristicAgent(seed=2)]
    while not (g.round == 2 and g.decision_kind == "main" and len(g.legal_actions()) > 5):
        g.apply(agents[g.current_player].act(g))
    return g


def _edit(g: Game, fn) -> Game:
    doc = json.loads(g.to_json())
    fn(doc)
    # a position the rules cannot reach (contracts moved by hand): from_json would refuse it
    return Game._unchecked_from_doc(json.loads(json.dumps(doc)))


def _finish(g: Game, first: int) -> list[dict]:
    """Apply ``first`` and play the game out with the heuristic (only the remaining turns of
    the seat to move and Production choices are left)."""
    g = g.clone()
    g.apply(first)
    h = HeuristicAgent(seed=0)
    while not g.is_terminal():
        g.apply(h.act(g))
    return g.final_scores()


def export_decider(me: int) -> Game:
    """Rulebook "Export Scoring" (2 players: 8 VP for the most fulfilled contracts, ties share
    4 each): both players have fulfilled the same number of contracts, ``me`` holds a contract
    it can fulfil right now and nothing else to do (no money, no Merchants, Port tiles used).
    Passing loses by 3 VP; fulfilling breaks the Export tie and wins."""
    base = _last_turn_position(me)
    other = 1 - me

    def setup(doc):
        pm, po = doc["players"][me], doc["players"][other]
        ids = [c.id for c in D.CONTRACTS if c.id != CONTRACT.id]
        pm["done_contracts"], po["done_contracts"] = ids[:3], ids[3:6]
        pm["open_contracts"] = [CONTRACT.id]
        pm["goods"] = [0, 0, 0, 0, 0, 2]
        pm["money"] = 0
        pm["merchants_stock"] = 0
        pm["ports_used"] = 15
    g = _edit(base, setup)
    assert sorted(g.legal_actions()) == [PASS, FULFIL], g.legal_actions()
    scores = _finish(g, PASS)
    gap = scores[me]["total"] - scores[other]["total"] + 3     # make passing lose by exactly 3

    def balance(doc):
        if gap >= 0:
            doc["players"][other]["glory"] += gap
        else:
            doc["players"][me]["glory"] -= gap
    g = _edit(g, balance)
    passed = _finish(g, PASS)
    fulfilled = _finish(g, FULFIL)
    assert passed[me]["total"] - passed[other]["total"] == -3 and passed[me]["rank"] == 2
    assert fulfilled[me]["rank"] == 1 and fulfilled[me]["export_bonus"] == 8
    return g


@pytest.mark.parametrize("me", [0, 1])
def test_mcts_finds_the_export_bonus_win_in_the_last_turn(me):
    """Issue 5 (Tests): in the last turn, fulfilling the contract that decides the Export bonus
    wins the game; MCTS (200 simulations, either seat) fulfils instead of passing."""
    g = export_decider(me)
    agent = MCTSAgent(sims=200, seed=1)
    assert agent.act(g) == FULFIL
    assert agent.last_stats["children"][FULFIL] > agent.last_stats["children"][PASS]


def test_mcts_finds_the_win_with_heuristic_rollouts():
    """The same end game with heuristic rollouts to a depth: the rollout mode does not hide the win."""
    g = export_decider(0)
    assert MCTSAgent(sims=60, rollout="heuristic", depth=6, seed=2).act(g) == FULFIL
    assert MCTSAgent(sims=60, rollout="random", depth=30, seed=2).act(g) == FULFIL


def test_search_never_depends_on_the_hidden_pile_order():
    """Hidden information (rulebook Setup: the contract pile is face down): two games that
    differ only in the order of the unseen contracts get the identical search."""
    g = _mid_game_position()
    g.pile_known = 0
    h = g.clone()
    h.pile = list(reversed(h.pile))
    assert h.pile != g.pile
    a, b = MCTSAgent(sims=60, seed=7), MCTSAgent(sims=60, seed=7)
    assert a.act(g) == b.act(h)
    assert a.last_stats["children"] == b.last_stats["children"]
    assert hidden_order_removed(g).pile == hidden_order_removed(h).pile


def test_forced_moves_are_not_searched():
    """Issue 5: moves that have a single legal option are not searched."""
    g = Game(GameConfig(num_players=2, seed=3))
    agent = MCTSAgent(sims=50, seed=0)
    rng = random.Random(0)
    while len(g.legal_actions()) != 1:
        g.apply(rng.choice(g.legal_actions()))
    assert agent.act(g) == g.legal_actions()[0]
    assert agent.last_stats == {"simulations": 0, "seconds": 0.0, "forced": True}


def test_tree_is_reused_between_moves():
    """Issue 5: tree reuse: the subtree below the moves played since the last search is kept."""
    g = Game(GameConfig(num_players=2, seed=5))
    while g.decision_kind != "main":
        g.apply(g.legal_actions()[0])
    agent = MCTSAgent(sims=300, seed=0)
    other = HeuristicAgent(seed=0)
    me = g.current_player
    g.apply(agent.act(g))
    while g.current_player != me or len(g.legal_actions()) == 1:
        g.apply(other.act(g) if g.current_player != me else g.legal_actions()[0])
    root = agent._reused_root(g)
    assert root.N > 0                           # statistics carried over from the last search
    agent.act(g)
    assert agent.last_stats["root_visits"] == root.N >= 300
    fresh = MCTSAgent(sims=300, seed=0, reuse=False)
    fresh.act(g)
    assert fresh.last_stats["root_visits"] == 300


def test_time_budget():
    """Budget by seconds instead of simulations."""
    g = _last_turn_position(1)
    agent = MCTSAgent(seconds=0.2, seed=0)
    t = time.perf_counter()
    assert agent.act(g) in g.legal_actions()
    assert time.perf_counter() - t < 2.0
    assert agent.last_stats["simulations"] >= 1


def test_root_parallel_search():
    """Optional root parallelism over processes: the workers' root statistics are summed."""
    g = export_decider(0)
    agent = MCTSAgent(sims=40, workers=2, seed=0)
    try:
        assert agent.act(g) == FULFIL
        assert agent.last_stats["simulations"] == 40 and agent.last_stats["workers"] == 2
    finally:
        agent.close()


def test_normalised_values_are_per_player_and_bounded():
    """max^n backups use one value per seat in [0, 1], increasing with the seat's margin."""
    v = normalised_values([100.0, 90.0, 95.0], scale=10.0)
    assert all(0.0 <= x <= 1.0 for x in v)
    assert v[0] > 0.5 > v[2] > v[1]
    assert normalised_values([120.0, 120.0], 10.0) == [0.5, 0.5]
    solo = normalised_values([160.0], 10.0)
    assert len(solo) == 1 and solo[0] > 0.5


def test_bad_options_are_rejected():
    for kw in ({"sims": 0}, {"rollout": "greedy"}, {"depth": -1}, {"c": -1.0}, {"seconds": 0.0}, {"workers": 0},
               {"widen": -1.0}):
        with pytest.raises(ValueError):
            MCTSAgent(**kw)


def test_progressive_widening_bounds_inner_nodes():
    """Below the root a node tries only its 1 + widen * sqrt(visits) best actions (by the
    heuristic's one-step values); widen=0 tries every candidate."""
    g = _mid_game_position()

    def widest_inner_node(agent):
        agent.act(g)
        stack = list(agent._root.children.values())
        widest = 0
        while stack:
            node = stack.pop()
            if agent.widen:
                assert len(node.children) <= 1 + int(agent.widen * node.N ** 0.5)
            widest = max(widest, len(node.children))
            stack.extend(node.children.values())
        return widest

    assert widest_inner_node(MCTSAgent(sims=150, seed=3, widen=0.0)) > widest_inner_node(MCTSAgent(sims=150, seed=3))


# ---- a learned policy as the search prior (issue 6: "its policy serves as the MCTS prior and rollout policy")
SHIPPED_MODEL = "models/ppo_2p/model.pt"


def _main_decision(seed: int = 4, moves: int = 30) -> Game:
    """A 2-player position at a main decision with many legal actions."""
    game = Game(GameConfig(num_players=2, seed=seed))
    rng = random.Random(seed)
    while len(game.history) < moves or game.decision_kind != "main" or len(game.legal_actions()) < 8:
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    return game


class _FixedPrior:
    """A policy that puts nearly all probability on one chosen action (and counts its calls)."""

    def __init__(self, favourite: int):
        self.favourite = favourite
        self.calls = 0

    def policy_prior(self, game) -> dict[int, float]:
        self.calls += 1
        legal = game.legal_actions()
        rest = 0.01 / max(len(legal) - 1, 1)
        return {a: (0.99 if a == self.favourite else rest) for a in legal}


def test_policy_prior_steers_the_search_by_puct():
    """With a prior, selection is PUCT: a root action the policy favours gets most of the visits even
    when the heuristic ordering would try it late, and the prior is asked once per node."""
    game = _main_decision()
    plain = MCTSAgent(sims=60, seed=3)
    visits = plain.action_visits(game)
    favourite = min(visits, key=lambda a: (visits[a], a))           # one the plain search neglects
    prior = _FixedPrior(favourite)
    steered = MCTSAgent(sims=60, seed=3, policy=prior, puct=3.0).action_visits(game)
    assert steered.get(favourite, 0) > 30 > visits.get(favourite, 0)
    assert 1 <= prior.calls <= 60                                    # once per expanded node, not per visit


def test_shipped_policy_as_prior_and_rollout_policy_plays_legal_moves():
    """``mcts:policy=<PPO checkpoint>`` (prior) and ``rollout=policy`` play legal moves."""
    from agents import make
    game = _main_decision(seed=6)
    for spec in (f"mcts:sims=12,seed=1,policy={SHIPPED_MODEL}",
                 f"mcts:sims=8,seed=1,policy={SHIPPED_MODEL},rollout=policy,depth=3"):
        agent = make(spec)
        probe = game.clone()
        for _ in range(6):
            if probe.is_terminal():
                break
            action = agent.act(probe)
            assert action in probe.legal_actions()
            probe.apply(action)


def test_policy_options_are_checked():
    with pytest.raises(ValueError, match="rollout='policy'"):
        MCTSAgent(rollout="policy")
    with pytest.raises(ValueError, match="workers=1"):
        MCTSAgent(policy=_FixedPrior(0), workers=2)
    with pytest.raises(ValueError, match="policy_prior"):
        MCTSAgent(policy=object())
    with pytest.raises(ValueError, match="puct"):
        MCTSAgent(policy=_FixedPrior(0), puct=0)
