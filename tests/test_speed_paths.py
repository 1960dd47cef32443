"""The fast paths of issue 16 (speed) give what the plain paths give.

* ``PPOAgent.act`` (greedy) takes the legal action with the largest logit instead of building the
  masked distribution: the same move as the argmax of ``policy_prior`` (the distribution).
* ``encode_batch`` with the caller's legal lists builds the same masks as without them.
* The heuristic's lookahead and the MCTS search apply their candidates unchecked
  (``Game.apply_unchecked``): a search from a position gives the statistics it gives with the
  checked ``apply`` everywhere.
"""
from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from clans_env import Game, GameConfig

MODEL = Path(__file__).resolve().parent.parent / "models" / "ppo_2p" / "model.pt"


def positions(n: int, seed: int, players: int = 2) -> list[Game]:
    rng = random.Random(seed)
    out = []
    g = Game(GameConfig(num_players=players, seed=seed))
    while len(out) < n:
        if g.is_terminal():
            seed += 1
            g = Game(GameConfig(num_players=players, seed=seed))
        legal = g.legal_actions()
        if rng.random() < 0.2:
            out.append(g.clone())
        g.apply(legal[rng.randrange(len(legal))])
    return out


@pytest.mark.skipif(not MODEL.exists(), reason="the shipped PPO model is not in this checkout")
def test_greedy_ppo_move_is_the_most_probable_legal_action():
    from agents.ppo import PPOAgent
    agent = PPOAgent(MODEL, greedy=True, seed=0)
    for g in positions(60, 3):
        prior = agent.policy_prior(g)
        best = max(prior.values())
        a = agent.act(g)
        assert a in g.legal_actions()
        assert prior[a] == best, f"greedy move {a} is not the argmax of the policy {prior}"
        if len(prior) == 1:
            assert a == next(iter(prior))


def test_encode_batch_with_given_legal_lists_is_the_same():
    from training.selfplay import encode_batch, make_encoder
    enc = make_encoder(2)
    games = positions(12, 5)
    seats = [g.current_player for g in games]
    obs1, mask1 = encode_batch(enc, games, seats)
    obs2, mask2 = encode_batch(enc, games, seats, [g.legal_actions() for g in games])
    assert np.array_equal(obs1, obs2) and np.array_equal(mask1, mask2)
    assert all(mask1[i].sum() == len(g.legal_actions()) for i, g in enumerate(games))


@pytest.mark.parametrize("config", ["heuristic", "random"])
def test_search_with_unchecked_applies_equals_search_with_checked_ones(monkeypatch, config):
    """The MCTS (both benchmark configurations, heuristic lookahead included) visits the same
    children with the same counts when every apply is checked: the unchecked applies change no
    state, they only skip building lists."""
    from agents import MCTSAgent
    from training.benchmarks import OPENSPIEL_CONFIGS
    g = positions(1, 11)[0]
    while len(g.legal_actions()) < 3:
        g.apply(g.legal_actions()[0])

    def search():
        agent = MCTSAgent(sims=40, seed=4, reuse=False, **OPENSPIEL_CONFIGS[config])
        agent.act(g)
        return agent.last_stats["children"]

    fast = search()
    monkeypatch.setattr(Game, "apply_unchecked", Game.apply)
    checked = search()
    assert fast == checked and sum(fast.values()) > 0


def test_clan_hot_path_flags_follow_the_methods_a_subclass_overrides():
    """The engine skips a clan's main/post-main actions, trade and deploy hooks, and its unit-cost and
    discount look-ups, by flags; every Clan subclass gets them from the methods it overrides, registered
    or not (a user's own clan class, a test's), so an overridden method is never silently skipped."""
    from clans_env.engine import data as D
    from clans_env.engine.clans.base import CLANS, Clan

    class Rower(Clan):
        def main_actions(self, game, p):
            return []

        def on_trade(self, game, p, good, qty, direction):
            pass

        def unit_cost(self, game, p, unit):
            return 1

    plain = Clan.__new__(type("Plain", (Clan,), {}))
    assert Rower.adds_main_actions and Rower.watches_trades and not Rower.acts_on_deploy
    assert Rower.unit_costs is None and not Rower.plain_costs
    assert not plain.adds_main_actions and plain.plain_costs and plain.unit_costs == D.UNIT_COST
    assert CLANS["macleod"].adds_post_main_actions and CLANS["stewart"].watches_trades
    assert not CLANS["robertson"].plain_costs and CLANS["gordon"].plain_costs
