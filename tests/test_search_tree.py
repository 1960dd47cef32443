"""The one search tree (agents/tree.py) that MCTS and the AlphaZero search share: for fixed seeds both
agents make the choices, and reach the root statistics, recorded before their trees were merged
(tests/data/search_choices.json, recorded by ``record`` run on the code of commit dcd6cc3, where
``node_stats`` read MCTS's old ``visits``/``value`` names; ``python tests/test_search_tree.py --write``
rewrites it). Each configuration plays the setup of a few seeded 2-player
games by the heuristic, then lets the search choose every contested decision (both seats, the tree
reused between moves; after each searched move the heuristic
plays the next two contested ones) and records the move, the root's visits and value sums, and each root child's
visits and value sum for the mover.

Moves and visit counts must match exactly; value sums to 1e-6 relative or 1e-5 absolute, as the
network's float32 arithmetic may round differently on another CPU or with another torch thread count (a
test run beside others under xdist gave 1.6e-7 on a sum near zero); a changed search changes far more."""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = Path(__file__).parent / "data" / "search_choices.json"
PPO_MODEL = ROOT / "models" / "ppo_2p" / "model.pt"
AZ_MODEL = ROOT / "models" / "az_2p" / "model.pt"
SEEDS = (3, 11, 26)
DECISIONS = 10          # contested decisions searched per game
SKIP = 2                # contested decisions the heuristic plays after each searched one (tree reuse across them)

#: name -> (kind, options); "az_noise" is self-play's use (training/az.py): Search with Dirichlet noise
#: on the root prior, reused_root between moves, the move drawn at temperature 1
CONFIGS = {
    "mcts_uct": ("mcts", dict(sims=40)),
    "mcts_uct_fpu": ("mcts", dict(sims=40, widen=0.0, fpu=0.05, rollout="heuristic", depth=2, top_k=6)),
    "mcts_policy": ("mcts", dict(sims=20, policy=str(PPO_MODEL))),
    "az_batch1": ("az", dict(sims=16, leaf_batch=1)),
    "az_batch8_stop": ("az", dict(sims=24, leaf_batch=8, collisions="stop")),
    "az_batch8_twin": ("az", dict(sims=48, leaf_batch=8, collisions="twin")),
    "az_noise": ("az_noise", dict(sims=16, leaf_batch=4)),
}


def node_stats(node) -> tuple[int, list[float]]:
    """A node's visits and per-seat value sums."""
    return node.N, node.W


def _sig(x: float) -> float:
    return float(f"{x:.12g}")


def _row(action: int, root, mover: int) -> dict:
    n, w = node_stats(root)
    kids = []
    for a in sorted(root.children):
        kn, kw = node_stats(root.children[a])
        kids.append([a, kn, _sig(kw[mover])])
    return {"a": action, "n": n, "w": [_sig(x) for x in w], "kids": kids}


def _games():
    from clans_env import Game, GameConfig
    from clans_env.engine.state import GAME_OVER

    from agents.heuristic import HeuristicAgent

    for seed in SEEDS:
        g = Game(GameConfig(num_players=2, seed=seed))
        setup = HeuristicAgent(seed=seed)
        while g.decision_kind != "main":
            g.apply(setup.act(g))
        yield seed, g, GAME_OVER, setup


def record(name: str) -> list[dict]:
    """The rows of one configuration (see the module docstring)."""
    kind, options = CONFIGS[name]
    if kind == "mcts":
        from agents.mcts import MCTSAgent
        agent = MCTSAgent(seed=0, reuse=True, **options)
    else:
        import torch

        from agents.az import AZAgent
        torch.manual_seed(0)
        sims = options.pop("sims") if kind == "az_noise" else None
        agent = AZAgent(str(AZ_MODEL), seed=0, reuse=True, threads=1, **options)
        if sims is not None:
            options["sims"] = sims
    rows = []
    for seed, g, game_over, heuristic in _games():
        agent.reset(seed)
        nrng = np.random.default_rng(seed)
        old = None
        done = skipped = 0
        while done < DECISIONS and g.phase != game_over:
            legal = g.legal_actions()
            if len(legal) == 1:
                g.apply(legal[0])
                continue
            if done and skipped < SKIP:
                g.apply(heuristic.act(g))
                skipped += 1
                continue
            skipped = 0
            mover = g.current_player
            if kind == "az_noise":
                a, root, old = _self_play_move(agent, g, options["sims"], old, nrng, seed * 100 + done)
            else:
                a = agent.act(g)
                root = agent._root
            rows.append(_row(a, root, mover))
            g.apply(a)
            done += 1
    return rows


def _self_play_move(agent, g, sims, old, nrng, seed):
    """One move as AZ self-play makes it: the reused subtree, root noise, a draw at temperature 1."""
    from agents.az import NetEvaluator, Node, Search, reused_root, run_searches

    history = g.history
    root = reused_root(old[0], old[1], history, g.num_players) if old else Node(g.num_players)
    s = Search(g, root, sims, random.Random(seed), agent.params, noise=(0.3, 0.25, nrng))
    run_searches([s], {"net": NetEvaluator(agent.net, agent._encoder_for(g))})
    return s.choose(1.0, nrng), root, (root, history)


@pytest.fixture(scope="module")
def fixture() -> dict:
    return json.loads(FIXTURE.read_text())


@pytest.mark.parametrize("name", list(CONFIGS))
def test_search_reproduces_recorded_choices(fixture, name):
    """Behaviour kept by merging the two trees (issue "Expansions as plug-ins": the search repeats
    itself): the same moves, root visits and values as recorded from the two separate trees."""
    want = fixture[name]
    got = record(name)
    assert len(got) == len(want)
    for i, (g_row, w_row) in enumerate(zip(got, want)):
        assert g_row["a"] == w_row["a"], (name, i)
        assert g_row["n"] == w_row["n"], (name, i)
        assert [k[:2] for k in g_row["kids"]] == [k[:2] for k in w_row["kids"]], (name, i)
        # Value sums come from float32 network outputs added in batch order, which may differ by
        # ~1e-5 between torch thread schedules; moves and visit counts above stay exact.
        assert g_row["w"] == pytest.approx(w_row["w"], rel=1e-6, abs=1e-4), (name, i)
        assert [k[2] for k in g_row["kids"]] == pytest.approx([k[2] for k in w_row["kids"]], rel=1e-6, abs=1e-4)


def test_puct_ties_follow_the_callers_order():
    """Both searches break PUCT ties by the first maximum in their own order, which the shared rule
    takes from the caller: MCTS its candidate list (untried actions the prior lacks all score the
    node's mean), az its tried children before the best untried action."""
    from agents.tree import Node, puct_choice

    node = Node(2)
    assert puct_choice(node, 0, [5, 3, 9], {}, 1.0, 0.5) == 5
    assert puct_choice(node, 0, [9, 3, 5], {}, 1.0, 0.5) == 9
    assert puct_choice(node, 0, [], {}, 1.0, 0.5) is None


def test_az_tie_goes_to_the_tried_child():
    """az: a tried child that scores exactly what the best untried action scores wins the tie,
    wherever it stands in the legal list (numbers exact in binary)."""
    from agents.az import Node, Search, SearchParams
    from clans_env import Game, GameConfig

    g = Game(GameConfig(num_players=2, seed=3))
    while len(g.legal_actions()) < 3:
        g.apply(g.legal_actions()[0])
    s = Search(g, Node(2), 1, random.Random(0), SearchParams(c_puct=1.0, fpu=0.0))
    legal, p = s.root_legal, s.player
    untried, tried = legal[0], legal[-1]
    s.root.expand({untried: 0.25, tried: 0.5})
    s.root.N, s.root.W[p] = 1, 1.0                      # fpu value 1.0; scale 1.0
    ch = s.root.children[tried] = Node(2)
    ch.N, ch.W[p] = 1, 1.0                              # 1.0 + 0.5 / 2 == 1.0 + 0.25
    assert s._select(s.root, legal, p) == tried
    ch.W[p] = 0.5
    assert s._select(s.root, legal, p) == untried


if __name__ == "__main__":
    if "--write" in sys.argv:
        FIXTURE.write_text(json.dumps({name: record(name) for name in CONFIGS}, separators=(",", ":")) + "\n")
