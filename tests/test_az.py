"""AlphaZero-style agent and training (issue 16): PUCT with max^n backups over per-seat values,
batched leaf evaluation by virtual loss and across games, determinization (no peeking at the
hidden pile), Dirichlet noise and temperature, the Agent interface and tournaments, and the
training loop's files, evaluation and exact --resume."""
from __future__ import annotations

import json
import math
import random
import shutil

import numpy as np
import pytest
import torch

from agents import make
from agents.az import (AZAgent, NetEvaluator, Node, Search, SearchParams, outcome_values, reused_root,
                       run_searches)
from agents.heuristic import HeuristicAgent
from agents.ppo import CheckpointError, PolicyValueNet, read_checkpoint
from clans_env import Game, GameConfig
from clans_env.engine.actions import FULFIL, NUM_ACTIONS, PASS
from clans_env.env.rewards import final_rewards
from training.az import AZConfig, AZTrainer, ReplayBuffer
from training.ppo import export_model
from training.selfplay import make_encoder, seat_outcomes


def tiny_config(**kw) -> AZConfig:
    base = dict(iterations=2, games_per_iteration=2, parallel_games=2, sims=6, fast_sims=3, full_search_prob=0.5,
                min_buffer=10, train_steps=3, batch_size=32, eval_every=2, eval_games=1, eval_sims=3, gate_games=2,
                hidden_sizes=[16], leaf_batch=3)
    base.update(kw)
    return AZConfig(**base)


@pytest.fixture(scope="module")
def encoder():
    return make_encoder(2)


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory, encoder):
    """An untrained 16-unit network exported in the model format (the search's values then come
    mostly from exact terminal outcomes)."""
    torch.manual_seed(0)
    net = PolicyValueNet(encoder.size, NUM_ACTIONS, 2, hidden_sizes=[16])
    path = tmp_path_factory.mktemp("az") / "tiny.pt"
    export_model(net, AZConfig(hidden_sizes=[16]), path, encoder)
    return str(path)


def _mid_game(seed=11, round_=2) -> Game:
    g = Game(GameConfig(num_players=2, seed=seed))
    agents = [HeuristicAgent(seed=1), HeuristicAgent(seed=2)]
    while not (g.round == round_ and g.decision_kind == "main" and len(g.legal_actions()) > 5):
        g.apply(agents[g.current_player].act(g))
    return g


def _walk(node):
    yield node
    for ch in node.children.values():
        yield from _walk(ch)


class ConstantNet(torch.nn.Module):
    """Uniform policy; value head answers ``rel`` (observer first) for every position."""

    def __init__(self, rel):
        super().__init__()
        self.rel = torch.tensor(rel, dtype=torch.float32)

    def forward(self, obs, mask):
        return torch.zeros(obs.shape[0], NUM_ACTIONS), self.rel.expand(obs.shape[0], -1)


# ------------------------------------------------------------------------------------------------
def test_outcome_values_match_ppo_and_the_environment():
    """The value target is PPO's terminal reward (win+score), the environment's for the other kinds."""
    g = Game(GameConfig(num_players=3, seed=2))
    rng = random.Random(0)
    while not g.is_terminal():
        g.apply(rng.choice(g.legal_actions()))
    scores = g.final_scores()
    assert np.allclose(outcome_values(scores, "win+score", 40.0), seat_outcomes(scores, "win+score", 40.0))
    for kind in ("win", "rank", "score"):
        assert outcome_values(scores, kind, 40.0) == pytest.approx(list(final_rewards(scores, kind, 40.0)))
    with pytest.raises(ValueError, match="reward must be one of"):
        outcome_values(scores, "glory")


def test_values_are_rolled_to_absolute_seats_and_backed_up_per_seat(encoder):
    """max^n: a node's value sums are per absolute seat. The network answers relative to the
    observer (head 0 = the seat to move); with a constant answer (+0.5 for the mover, -0.25 for
    the other) every simulation adds the mover's view in absolute seats at its leaf."""
    g = _mid_game()
    ev = NetEvaluator(ConstantNet([0.5, -0.25]), encoder)
    root = Node(2)
    s = Search(g, root, 40, random.Random(0), SearchParams(leaf_batch=1, fpu=0.0))
    run_searches([s], {"net": ev})
    assert s.done == 40 and root.N == 40
    # each leaf's mover gets +0.5 and the other seat -0.25: the two sums add up to 0.25 per visit
    assert sum(root.W) == pytest.approx(0.25 * root.N)
    seat = g.current_player
    assert root.W[seat] != root.W[1 - seat]           # not symmetric: the seats are told apart


def test_puct_prefers_the_prior_then_the_value():
    """PUCT: among untried actions the highest prior goes first; a tried action with a high mean
    value for the mover beats an untried one with a small prior."""
    g = _mid_game()
    s = Search(g, Node(2), 1, random.Random(0), SearchParams(c_puct=1.0, fpu=0.2))
    legal = s.root_legal
    p = s.player
    priors = {a: 0.5 / (len(legal) - 1) for a in legal}
    priors[legal[2]] = 0.5
    s.root.expand(priors)
    s.root.N = 1
    assert s._select(s.root, legal, p) == legal[2]
    ch = s.root.children[legal[0]] = Node(2)
    ch.N, ch.W[p] = 4, 4.0                           # mean 1.0 for the mover
    s.root.N = 5
    assert s._select(s.root, legal, p) == legal[0]
    ch.W[p] = -4.0                                   # the same child, now losing for the mover
    assert s._select(s.root, legal, p) == legal[2]


@pytest.mark.parametrize("leaf_batch", [1, 8])
def test_virtual_loss_is_taken_back_and_visits_add_up(tiny_model, leaf_batch):
    """Batched leaf evaluation by virtual loss: with a huge virtual loss (100) nothing of it may be
    left after the search; every visited node was either evaluated once or passed a forced move:
    its visits are its children's plus 0 or 1; the root has exactly the simulations run."""
    g = _mid_game()
    agent = AZAgent(tiny_model, sims=60, leaf_batch=leaf_batch, virtual_loss=100.0, reuse=False, seed=0)
    s = agent.search(g)
    assert s.done == 60 and s.pending == 0 and s.root.N == 60
    if leaf_batch > 1:
        assert agent.last_stats["forward_passes"] < 60      # leaves were evaluated in batches
    for node in _walk(s.root):
        if node.N:
            assert node.N - sum(ch.N for ch in node.children.values()) in (0, 1)
            assert all(abs(w) / node.N <= 1.5 for w in node.W)   # |win+score| <= 1 + margin/40


class SharpNet(ConstantNet):
    """A near-certain prior (the highest-numbered legal action gets ~all of it) and constant values:
    every descent heads into the same child, so a batched search keeps colliding there."""

    def forward(self, obs, mask):
        logits = 8.0 * torch.arange(NUM_ACTIONS, dtype=torch.float32).expand(obs.shape[0], -1)
        return logits, self.rel.expand(obs.shape[0], -1)


def test_collisions_twin_batches_a_sharp_prior_and_leaves_no_virtual_loss(encoder):
    """``collisions="twin"``: a descent into a leaf already waiting counts as a visit of that leaf,
    answered by its evaluation. With a sharp prior, "stop" ends nearly every round at one or two
    positions, "twin" fills the batch; afterwards no virtual loss (1, and 100) is left anywhere (each
    visit added the leaf mover's +0.5 / -0.25, so every node's value sums are 0.25 per visit), and each
    simulation ended at exactly one node."""
    g = _mid_game()
    runs = {}
    for rule, vl in (("stop", 1.0), ("twin", 1.0), ("twin", 100.0)):
        ev = NetEvaluator(SharpNet([0.5, -0.25]), encoder)
        s = Search(g, Node(2), 64, random.Random(0), SearchParams(leaf_batch=8, virtual_loss=vl, collisions=rule))
        run_searches([s], {"net": ev})
        runs[rule, vl] = ev.forward_passes
        assert s.done == 64 and s.pending == 0 and s.root.N == 64
        ends = 0
        for node in _walk(s.root):
            if node.N:
                assert sum(node.W) == pytest.approx(0.25 * node.N)
                ends += node.N - sum(ch.N for ch in node.children.values())
        assert ends == 64
    assert runs["twin", 1.0] * 2 < runs["stop", 1.0]
    with pytest.raises(ValueError, match="collisions must be one of"):
        SearchParams(collisions="merge")


def test_search_finds_the_export_bonus_win_in_the_last_turn(tiny_model):
    """Issue 5's end game (test_mcts.export_decider): passing loses by 3 VP, fulfilling the contract
    wins the Export bonus; the exact terminal outcomes steer PUCT to Fulfil even with an untrained
    network, from either seat."""
    from test_mcts import export_decider
    for me in (0, 1):
        g = export_decider(me)
        agent = AZAgent(tiny_model, sims=100, seed=1)
        assert agent.act(g) == FULFIL
        visits = agent.action_visits(g)
        assert visits[FULFIL] > visits[PASS]


def test_search_never_depends_on_the_hidden_pile_order(tiny_model):
    """Determinization (rulebook Setup: the contract pile is face down): two games differing only
    in the order of the unseen contracts get the identical search."""
    g = _mid_game()
    g.pile_known = 0
    h = g.clone()
    h.pile = list(reversed(h.pile))
    assert h.pile != g.pile
    a, b = AZAgent(tiny_model, sims=40, seed=7), AZAgent(tiny_model, sims=40, seed=7)
    assert a.action_visits(g) == b.action_visits(h)


def test_forced_moves_tree_reuse_and_time_budget(tiny_model):
    g = Game(GameConfig(num_players=2, seed=3))
    rng = random.Random(0)
    while len(g.legal_actions()) != 1:
        g.apply(rng.choice(g.legal_actions()))
    agent = AZAgent(tiny_model, sims=30, seed=0)
    assert agent.act(g) == g.legal_actions()[0]
    assert agent.last_stats == {"simulations": 0, "seconds": 0.0, "forced": True}
    # reuse: the subtree below the moves played since the last search is kept
    g = _mid_game()
    g.apply(agent.act(g))
    root = reused_root(agent._root, agent._root_history, g.history, 2)
    assert root.N > 0
    while len(g.legal_actions()) == 1:
        g.apply(g.legal_actions()[0])
        root = reused_root(agent._root, agent._root_history, g.history, 2)
    before = root.N
    agent.act(g)
    assert agent.last_stats["root_visits"] == before + 30
    timed = AZAgent(tiny_model, seconds=0.2, seed=0)
    timed.act(_mid_game())
    assert timed.last_stats["simulations"] >= 1 and timed.last_stats["seconds"] < 1.5


def test_dirichlet_noise_and_temperature(tiny_model, encoder):
    """Self-play exploration: root noise changes the root prior reproducibly (same numpy seed, same
    noisy prior) and keeps it a distribution; temperature 1 samples moves by visit counts."""
    g = _mid_game()
    net = read_checkpoint(tiny_model)
    pv = PolicyValueNet.from_arch(net["arch"])
    pv.load_state_dict(net["model"])
    ev = {"net": NetEvaluator(pv.eval(), encoder)}

    def noisy(seed):
        s = Search(g, Node(2), 20, random.Random(0), SearchParams(), noise=(0.3, 0.25, np.random.default_rng(seed)))
        run_searches([s], ev)
        return s
    a, b, c = noisy(1), noisy(1), noisy(2)
    pa, pb, pc = a._prior_at_root()[0], b._prior_at_root()[0], c._prior_at_root()[0]
    assert pa == pb and pa != pc and pa != a.root.P
    assert sum(pa.values()) == pytest.approx(1.0)
    s = Search(g, Node(2), 1, random.Random(0), SearchParams())
    legal = s.root_legal
    for a_ in legal[:2]:
        s.root.children[a_] = Node(2)
    s.root.children[legal[0]].N, s.root.children[legal[1]].N = 30, 10
    rng = np.random.default_rng(0)
    picks = [s.choose(1.0, rng) for _ in range(400)]
    assert set(picks) == {legal[0], legal[1]}
    assert 0.65 < picks.count(legal[0]) / 400 < 0.85           # 30 / 40 = 0.75
    assert s.choose(0.0) == legal[0]


def test_a_search_cut_short_after_the_root_plays_the_network_choice(tiny_model, encoder):
    """A time budget can stop a search once the root's own evaluation is in (``seconds`` smaller than a
    simulation): with no child visited the move is the prior's most probable legal action, the raw
    policy's move, not the first legal action."""
    g = _mid_game()
    ckpt = read_checkpoint(tiny_model)
    pv = PolicyValueNet.from_arch(ckpt["arch"])
    pv.load_state_dict(ckpt["model"])
    s = Search(g, Node(2), 1, random.Random(0), SearchParams())
    run_searches([s], {"net": NetEvaluator(pv.eval(), encoder)})
    assert s.done == 1 and all(n == 0 for n in s.visits().values())
    prior = s.root.P
    assert max(prior, key=prior.get) != s.root_legal[0] or len(set(prior.values())) == 1
    assert s.choose(0.0) == s.prior_choice() == max(s.root_legal, key=lambda a: prior.get(a, -1.0))
    # one child visited wins over a higher prior
    other = next(a for a in s.root_legal if a != s.prior_choice())
    s.root.children[other] = Node(2)
    s.root.children[other].N = 1
    assert s.choose(0.0) == other


def test_registry_spec_options_and_errors(tiny_model):
    agent = make(f"az:path={tiny_model},sims=5,leaf_batch=2,seed=3")
    assert isinstance(agent, AZAgent) and agent.sims == 5 and agent.params.leaf_batch == 2
    g = _mid_game()
    assert agent.act(g) in g.legal_actions()
    with pytest.raises(ValueError, match="az needs a model file"):
        make("az:sims=5")
    with pytest.raises(ValueError, match="does not exist"):
        make("az:path=/nonexistent/model.pt")
    with pytest.raises(ValueError, match="sims must be a positive int"):
        AZAgent(tiny_model, sims=0)
    with pytest.raises(ValueError, match="unknown option"):
        make(f"az:path={tiny_model},simz=3")
    with pytest.raises(ValueError, match="num_players=2"):
        AZAgent(tiny_model, sims=2).act(Game(GameConfig(num_players=3, seed=0)))


def test_az_joins_a_tournament_in_worker_processes(tiny_model, tmp_path):
    """The common interface: az plays full games against other agents in tournament workers."""
    from training.tournament import run_tournament
    res = run_tournament([f"az:path={tiny_model},sims=3", "random"], games_per_pairing=2, workers=2,
                         progress=False, out_dir=tmp_path / "t", seed=1)
    assert not res.failures and len(res.games) == 2


# ------------------------------------------------------------------------------------------------
def test_config_round_trip_and_errors(tmp_path):
    cfg = tiny_config()
    path = tmp_path / "c.toml"
    path.write_text(cfg.to_toml())
    assert AZConfig.load(path) == cfg
    assert AZConfig.load("training/configs/az_2p.toml").init_from == "models/ppo_2p/model.pt"
    with pytest.raises(ValueError, match="'sims'"):
        tiny_config(sims=0)
    with pytest.raises(ValueError, match="'reward'"):
        tiny_config(reward="glory")
    with pytest.raises(ValueError, match="'collisions'.*stop"):
        tiny_config(collisions="merge")
    assert tiny_config(collisions="twin").search_params().collisions == "twin"
    with pytest.raises(ValueError, match="unknown AZ config field 'simz'"):
        cfg.replace(simz=3)


def test_average_models_is_the_mean_of_the_weights_and_plays(tmp_path, encoder, tiny_model):
    """Weight averaging (``training.ppo.average_models``): each tensor is the mean of the sources',
    the file records them and plays; another architecture is refused, naming the field."""
    from training.ppo import average_models
    torch.manual_seed(1)
    other = tmp_path / "other.pt"
    export_model(PolicyValueNet(encoder.size, NUM_ACTIONS, 2, hidden_sizes=[16]), AZConfig(hidden_sizes=[16]), other,
                 encoder)
    out = tmp_path / "avg.pt"
    average_models([tiny_model, other], out)
    a, b, m = read_checkpoint(tiny_model), read_checkpoint(other), read_checkpoint(out)
    assert m["averaged_from"] == [tiny_model, str(other)]
    for k, v in m["model"].items():
        assert torch.allclose(v, (a["model"][k] + b["model"][k]) / 2, atol=1e-7)
    assert not torch.equal(m["model"]["policy_head.weight"], a["model"]["policy_head.weight"])
    g = _mid_game()
    assert make(f"ppo:path={out}").act(g) in g.legal_actions()
    wide = tmp_path / "wide.pt"
    export_model(PolicyValueNet(encoder.size, NUM_ACTIONS, 2, hidden_sizes=[32]), AZConfig(hidden_sizes=[32]), wide,
                 encoder)
    with pytest.raises(ValueError, match="hidden_sizes"):
        average_models([tiny_model, wide], tmp_path / "bad.pt")
    with pytest.raises(ValueError, match="at least two"):
        average_models([tiny_model], tmp_path / "bad.pt")


def test_replay_buffer_ring_and_file_round_trip(tmp_path):
    buf = ReplayBuffer(4, 3, 2)
    for i in range(6):
        buf.add(np.full(3, i, np.float32), np.eye(NUM_ACTIONS, dtype=bool)[i], np.eye(NUM_ACTIONS)[i] * 7,
                np.array([i, -i], np.float32))
    assert len(buf) == 4 and buf.added == 6 and sorted(buf.obs[:, 0].tolist()) == [2, 3, 4, 5]
    buf.save(tmp_path / "b.npz")
    back = ReplayBuffer.load(tmp_path / "b.npz", 3, 2, capacity=4)
    for name in ("obs", "mask", "visits", "z"):
        assert np.array_equal(getattr(buf, name), getattr(back, name))
    assert (back.size, back.next, back.added) == (4, 2, 6)
    _, _, pi, _ = back.sample(np.array([0, 1]))
    assert torch.allclose(pi.sum(1), torch.ones(2))


def test_damaged_replay_buffers_are_refused_naming_the_file(tmp_path):
    """--resume on a damaged buffer_*.npz: a truncated file, a capacity of 10**12 in its meta (which
    would allocate petabytes), an object array and inconsistent counters each raise CheckpointError
    naming the file and the fault, before anything big is allocated."""
    import io
    import zipfile
    cfg = tiny_config(iterations=1, gate_threshold=0.0)
    run = tmp_path / "run"
    AZTrainer(cfg, run, progress=False, tensorboard=False).train()
    (good,) = run.glob("buffer_i*.npz")
    original = good.read_bytes()
    AZTrainer.resume(run, progress=False, tensorboard=False)           # intact: resumes
    with np.load(good) as d:
        arrays = {k: d[k] for k in d.files}

    def write(**changes):
        np.savez(good, **{**arrays, **changes})

    good.write_bytes(original[:len(original) // 2])
    with pytest.raises(CheckpointError, match=f"{good.name}.*unreadable.*BadZipFile"):
        AZTrainer.resume(run, progress=False, tensorboard=False)
    meta = arrays["meta"].copy()
    meta[0] = 10 ** 12
    write(meta=meta)
    with pytest.raises(CheckpointError, match=f"{good.name}.*capacity 1000000000000, but the run's buffer_size is "
                                              f"{cfg.buffer_size}"):
        AZTrainer.resume(run, progress=False, tensorboard=False)
    write(z=np.array([object()] * len(arrays["z"]), dtype=object))
    with pytest.raises(CheckpointError, match=f"{good.name}.*z is an object array"):
        AZTrainer.resume(run, progress=False, tensorboard=False)
    meta = arrays["meta"].copy()
    meta[1] += 1
    write(meta=meta)
    with pytest.raises(CheckpointError, match=f"{good.name}.*inconsistent counters"):
        AZTrainer.resume(run, progress=False, tensorboard=False)
    write(obs=np.zeros((len(arrays["obs"]), arrays["obs"].shape[1] + 1), np.float16))
    with pytest.raises(CheckpointError, match=f"{good.name}.*obs is float16 of shape"):
        AZTrainer.resume(run, progress=False, tensorboard=False)
    # a header claiming a huge array is refused from the header alone
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": "<f2", "fortran_order": False,
                                               "shape": (10 ** 12, arrays["obs"].shape[1])})
    with zipfile.ZipFile(good, "w") as z:
        for k, v in arrays.items():
            if k != "obs":
                with z.open(f"{k}.npy", "w") as fh:
                    np.lib.format.write_array(fh, v)
        z.writestr("obs.npy", buf.getvalue())
    with pytest.raises(CheckpointError, match=f"{good.name}.*obs is float16 of shape \\(1000000000000"):
        AZTrainer.resume(run, progress=False, tensorboard=False)


def test_policy_target_temperature_sharpens_the_visit_distribution():
    """``policy_target_temperature`` T: the target is visits ** (1/T) normalised (T=1: the visits
    themselves, AlphaZero); huge counts do not overflow; T must be positive."""
    buf = ReplayBuffer(3, 2, 2)
    for counts in ([6, 3, 1], [65535, 65535, 1], [0, 0, 0]):
        visits = np.zeros(NUM_ACTIONS, np.uint16)
        visits[:3] = counts
        buf.add(np.zeros(2, np.float32), visits > 0, visits, np.zeros(2, np.float32))
    plain = buf.sample(np.arange(3))[2][:, :3]
    sharp = buf.sample(np.arange(3), 0.5)[2][:, :3]
    assert torch.allclose(plain[0], torch.tensor([0.6, 0.3, 0.1]))
    assert torch.allclose(sharp[0], torch.tensor([36.0, 9.0, 1.0]) / 46.0)
    assert torch.allclose(sharp[1], torch.tensor([0.5, 0.5, 0.0]), atol=1e-6) and torch.isfinite(sharp).all()
    assert sharp[2].sum() == 0 and plain[2].sum() == 0          # a row without visits stays empty
    with pytest.raises(ValueError, match="policy_target_temperature"):
        tiny_config(policy_target_temperature=0.0)


def test_completed_q_policy_target_worked_example(tiny_model, tmp_path):
    """Gumbel MuZero's policy improvement (``policy_target = "completed_q"``), worked by hand on a
    3-action root: prior 0.5/0.3/0.2, the root's own value 0.1, action 0 visited 4 times at -0.2,
    action 1 twice at 0.6, action 2 never. Mixed value (0.1 + 6 * (0.5*-0.2 + 0.3*0.6)/0.8) / 7 =
    0.1 completes action 2; Q rescaled to [0, 1] is 0, 1, 0.375 and weighted by (50 + 4) * 0.1."""
    g = _mid_game()
    s = Search(g, Node(2), 1, random.Random(0), SearchParams())
    s.root_legal = legal = s.root_legal[:3]
    p = s.player
    s.root.expand(dict(zip(legal, (0.5, 0.3, 0.2))))
    for a, (n, q) in zip(legal, ((4, -0.2), (2, 0.6))):
        ch = s.root.children[a] = Node(2)
        ch.N, ch.W[p] = n, n * q
    s.root.N, s.root.W[p] = 7, 0.1 - 0.8 + 1.2
    got = s.completed_q_policy(c_visit=50.0, c_scale=0.1)
    x = np.log([0.5, 0.3, 0.2]) + 5.4 * np.array([0.0, 1.0, 0.375])
    want = np.exp(x) / np.exp(x).sum()
    assert np.allclose([got[a] for a in legal], want)
    assert got[legal[1]] > 0.9                        # two good simulations outweigh a 0.5 prior
    fresh = Search(g, Node(2), 1, random.Random(0), SearchParams())
    fresh.root_legal = legal
    fresh.root.expand(dict(zip(legal, (0.5, 0.3, 0.2))))
    assert np.allclose([fresh.completed_q_policy()[a] for a in legal], [0.5, 0.3, 0.2])   # no visits: the prior
    # in self-play the targets go into the buffer as counts of 1/65535 (a distribution per sample)
    cfg = tiny_config(iterations=1, games_per_iteration=2, full_search_prob=1.0, init_from=tiny_model,
                      policy_target="completed_q", eval_games=0, gate_games=0)
    tr = AZTrainer(cfg, tmp_path / "cq", progress=False, tensorboard=False)
    games, _ = tr.self_play(np.random.default_rng(0))
    targets = [t for pg in games for _, _, t, _ in pg.samples]
    assert targets and all(abs(sum(t.values()) - 65535) <= len(t) for t in targets)
    assert any(sorted(t.values())[-1] < 65000 for t in targets)     # not one-hot: a distribution
    with pytest.raises(ValueError, match="policy_target.*'visits', 'completed_q'"):
        tiny_config(policy_target="gumbel")


def test_raw_move_prob_one_plays_the_networks_own_greedy_games(tiny_model, tmp_path):
    """DAgger (``raw_move_prob``): with every searched move replaced by the prior's choice and no
    sampled opening, a self-play game is exactly the game two greedy raw policies (``ppo:path``)
    play on that deal, while its samples still carry the search's visit targets."""
    cfg = tiny_config(iterations=1, games_per_iteration=1, full_search_prob=1.0, init_from=tiny_model,
                      temperature_moves=0, raw_move_prob=1.0, eval_games=0, gate_games=0)
    tr = AZTrainer(cfg, tmp_path / "dagger", progress=False, tensorboard=False)
    (pg,), _ = tr.self_play(np.random.default_rng(0))
    g = Game(GameConfig(num_players=2, seed=pg.result.spec.seed))
    raw = [make(f"ppo:path={tiny_model}"), make(f"ppo:path={tiny_model}")]
    while not g.is_terminal():
        g.apply(raw[g.current_player].act(g))
    assert [s["total"] for s in pg.result.scores] == [s["total"] for s in g.final_scores()]
    assert pg.samples and all(sum(t.values()) >= cfg.sims - 1 for _, _, t, _ in pg.samples)   # visits (+ reused)
    # the search's own moves differ somewhere from the raw policy's (else the check says nothing)
    tr_search = AZTrainer(tiny_config(iterations=1, games_per_iteration=1, full_search_prob=1.0,
                                      init_from=tiny_model, temperature_moves=0, eval_games=0, gate_games=0),
                          tmp_path / "search", progress=False, tensorboard=False)
    (ps,), _ = tr_search.self_play(np.random.default_rng(0))
    assert ps.result.spec.seed == pg.result.spec.seed
    assert ps.result.scores != pg.result.scores
    with pytest.raises(ValueError, match="raw_move_prob"):
        tiny_config(raw_move_prob=1.5)


def test_batched_self_play_run_files_and_logs(tmp_path, tiny_model):
    """A tiny run: self-play games batched across games (more positions per forward pass than one
    search's leaf batch), samples in the buffer, SGD, evaluation rows, exports AZAgent and PPOAgent
    load, TensorBoard files; the warm start reads a model's weights."""
    cfg = tiny_config(iterations=2, parallel_games=2, leaf_batch=2, init_from=tiny_model, full_search_prob=1.0)
    tr = AZTrainer(cfg, tmp_path / "run", progress=False)
    tr.train()
    rows = [json.loads(line) for line in (tmp_path / "run" / "log.jsonl").read_text().splitlines()]
    it = [r for r in rows if r.get("kind") != "eval"]
    ev = [r for r in rows if r.get("kind") == "eval"]
    assert [r["iteration"] for r in it] == [1, 2]
    assert it[0]["mean_batch"] > cfg.leaf_batch             # leaves of both games in one pass
    assert it[-1]["buffer"] == len(tr.buffer) > 0 and "policy_loss" in it[-1]
    assert set(ev[0]["results"]) == {"heuristic", "previous_best"}
    assert ev[0]["results"]["heuristic"]["games"] == 1
    for name in ("model.pt", "best.pt", "checkpoint.pt", "config.toml"):
        assert (tmp_path / "run" / name).is_file()
    assert list((tmp_path / "run").glob("buffer_i000002.npz")) and any((tmp_path / "run" / "tb").iterdir())
    g = _mid_game()
    assert AZAgent(tmp_path / "run" / "model.pt", sims=4).act(g) in g.legal_actions()
    assert make(f"ppo:path={tmp_path / 'run' / 'model.pt'}").act(g) in g.legal_actions()
    with pytest.raises(FileExistsError, match="--resume"):
        AZTrainer(cfg, tmp_path / "run", progress=False)


def test_self_play_opponents_take_one_seat_and_are_not_recorded(tmp_path, tiny_model):
    """``selfplay_opponents`` / ``opponent_games``: in that share of the games one seat, drawn at random,
    is an agent of a listed spec; only the searching seats' moves become samples, the log reports the
    network's score in those games, plain self-play keeps its games, and a bad setting names the field."""
    cfg = tiny_config(iterations=1, games_per_iteration=4, parallel_games=4, full_search_prob=1.0, init_from=tiny_model,
                      selfplay_opponents=["random"], opponent_games=1.0, eval_games=0, gate_games=0)
    tr = AZTrainer(cfg, tmp_path / "opp", progress=False, tensorboard=False)
    games, stats = tr.self_play(np.random.default_rng(0))
    assert stats["opponent_games"] == 4 and 0.0 <= stats["opponent_score"] <= 1.0
    for pg in games:
        (opp_seat,) = [s for s, k in enumerate(pg.result.spec.kinds) if k == "random"]
        assert pg.samples and {seat for *_, seat in pg.samples} == {1 - opp_seat}
        assert pg.result.spec.trained == [s != opp_seat for s in range(2)]
    plain = AZTrainer(cfg.replace(opponent_games=0.0), tmp_path / "plain", progress=False, tensorboard=False)
    again = AZTrainer(cfg.replace(opponent_games=0.0, selfplay_opponents=[]), tmp_path / "plain2", progress=False,
                      tensorboard=False)
    played = [t.self_play(np.random.default_rng(0))[0] for t in (plain, again)]
    assert all(k == "current" for pg in played[0] for k in pg.result.spec.kinds)
    assert [[v for *_, v, _ in pg.samples] for pg in played[0]] == [[v for *_, v, _ in pg.samples] for pg in played[1]]
    assert [pg.result.spec.seed for pg in played[0]] == [pg.result.spec.seed for pg in games]   # same deals
    with pytest.raises(ValueError, match="'opponent_games'"):
        tiny_config(opponent_games=0.5)
    with pytest.raises(ValueError, match="'opponent_games'"):
        tiny_config(selfplay_opponents=["random"], opponent_games=1.5)
    bad = AZTrainer(cfg.replace(selfplay_opponents=["nosuchagent"]), tmp_path / "bad", progress=False,
                    tensorboard=False)
    with pytest.raises(ValueError, match="selfplay_opponents: cannot build 'nosuchagent'"):
        bad.self_play(np.random.default_rng(0))
    tr.train()
    row = json.loads((tmp_path / "opp" / "log.jsonl").read_text().splitlines()[0])
    assert row["train/opponent_games"] == 4 and "train/vs_opponents" in row


def test_resume_continues_exactly(tmp_path):
    """Atomic checkpoints and exact --resume: 3 iterations in one go, and 1 + 1 + 1 with two
    resumes (replay buffer, optimizer, best model restored), give bit-identical networks."""
    cfg = tiny_config(iterations=3, gate_threshold=0.0)
    a = AZTrainer(cfg, tmp_path / "a", progress=False, tensorboard=False)
    a.train()
    b = AZTrainer(cfg, tmp_path / "b", progress=False, tensorboard=False)
    b.train(max_iterations=1)
    for _ in range(2):
        b = AZTrainer.resume(tmp_path / "b", progress=False, tensorboard=False)
        b.train(max_iterations=1)
    assert b.iteration == a.iteration == 3 and a.best_iteration == b.best_iteration == 3   # gates at 2 and at the end
    for net_a, net_b in ((a.net, b.net), (a.best, b.best)):
        for (k, x), (_, y) in zip(net_a.state_dict().items(), net_b.state_dict().items()):
            assert torch.equal(x, y), k
    assert np.array_equal(a.buffer.obs, b.buffer.obs)
    assert sorted(p.name for p in (tmp_path / "b").glob("buffer_i*.npz")) == ["buffer_i000003.npz"]
    with pytest.raises(ValueError, match="cannot change \\['sims'\\]"):
        AZTrainer.resume(tmp_path / "b", {"sims": 9}, progress=False, tensorboard=False)
    # killed before the first checkpoint: the run restarts from its config.toml
    c = tmp_path / "c"
    AZTrainer(cfg, c, progress=False, tensorboard=False)
    assert AZTrainer.resume(c, progress=False, tensorboard=False).iteration == 0
    shutil.rmtree(tmp_path / "a")


def test_cli_train_az(tmp_path, capsys):
    from clans_cli.main import main
    out = tmp_path / "cli"
    args = ["train", "az", "--out", str(out), "--set", "hidden_sizes=[16]", "--set", "games_per_iteration=1",
            "--set", "parallel_games=1", "--sims", "3", "--set", "min_buffer=5", "--set", "train_steps=1",
            "--set", "eval_games=0", "--set", "gate_games=0", "--max-iterations", "1", "--no-progress",
            "--no-tensorboard"]
    assert main(args) == 0
    assert "1 iterations" in capsys.readouterr().out
    assert main(["train", "az", "--out", str(out), "--resume", "--max-iterations", "1", "--no-progress",
                 "--no-tensorboard"]) == 0
    assert read_checkpoint(out / "checkpoint.pt")["counters"]["iteration"] == 2
    assert main(["train", "az", "--out", str(tmp_path / "bad"), "--set", "sims=0"]) == 2
    assert "'sims'" in capsys.readouterr().err


@pytest.mark.slow
def test_sigkill_at_every_write_and_at_random_moments_then_resume(tmp_path):
    """Crash safety of ``clans train az`` (as issue 18's loop for PPO, ``benchmarks/kill_resume.py
    --trainer az``): real training processes SIGKILLed at every write point of a 3-iteration run
    (buffer file, checkpoint, exports, config, log lines, buffer deletions; a gate that always
    promotes, so the best network changes too) and at random moments, resumed after every kill:
    no resume fails, every run ends bit-identical to the uninterrupted one (network, best network,
    Adam state, counters, buffer file, log), with no ``.tmp-*`` or stale buffer file left. Two random
    kills here (every write point is still killed once); the long random soak is
    ``benchmarks/kill_resume.py --trainer az``, which keeps this suite short."""
    import importlib.util
    import sys
    from pathlib import Path
    spec = importlib.util.spec_from_file_location("kill_resume", Path(__file__).parent.parent / "benchmarks" / "kill_resume.py")
    kr = sys.modules["kill_resume"] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kr)
    loop = kr.short_loop(tmp_path, "az", updates=3, checkpoint_every=1, seed=2, max_random=2, seconds=30.0)
    assert loop.failures == []
    labels = " ".join(loop.write_points)
    for what in ("buffer_i000001.npz", "checkpoint.pt", "best.pt", "log.jsonl line", "deleting buffer_i"):
        assert what in labels, what
    assert loop.by_kind["write"] >= len(loop.write_points) >= 20
    assert loop.resumes + loop.restarts >= loop.kills - 1 and loop.resumes >= len(loop.write_points) - 2


def test_shipped_models_load_and_the_current_one_beats_random():
    """``models/az_2p`` (the expert-iteration recipe of ``training/configs/az_2p.toml``, its
    iteration-24 export) and the superseded ``models/az_2p_v1`` load as AZ agents; the shipped one
    with an 8-simulation search beats Random from both seats."""
    from training.tournament import play_game
    shipped = read_checkpoint("models/az_2p/model.pt")
    assert shipped["counters"]["iteration"] == 24 and shipped["config"]["policy_target_temperature"] == 0.25
    assert AZConfig.from_dict(shipped["config"]) == AZConfig.load("training/configs/az_2p.toml")
    AZAgent("models/az_2p_v1/model.pt", sims=4)
    for seat in (0, 1):
        agents = [make("random", seed=seat), make("random", seed=seat)]
        agents[seat] = AZAgent("models/az_2p/model.pt", sims=8, seed=seat)
        game, _, _ = play_game(agents, GameConfig(num_players=2, seed=900 + seat))
        assert game.final_scores()[seat]["rank"] == 1
