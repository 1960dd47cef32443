"""Masked PPO self-play (issue 6): masking, GAE, self-play collection, checkpoints, exact resume,
PPOAgent and the ``clans train ppo`` command.

Requirements checked (issue 6 "Tests"): a tiny training run completes and its checkpoint loads
and plays legal moves; masking never gives probability to illegal actions; resume reproduces the
same next update; a missing or mismatched checkpoint fails with a clear message.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from agents import RandomAgent, make
from agents.ppo import CheckpointError, MaskedCategorical, PPOAgent, read_checkpoint
from clans_env import Game, GameConfig
from clans_env.engine.actions import NUM_ACTIONS
from training.config import PPOConfig
from training.evaluate import evaluate_net, summarize, wilson_interval
from training.networks import build_network
from training.ppo import PPOTrainer, export_model
from training.selfplay import collect, gae, make_encoder, seat_outcomes

TINY = dict(num_players=2, total_steps=10_000, rollout_steps=64, num_envs=2, hidden_sizes=[16], minibatch_size=32,
            epochs=2, eval_every=100, eval_games_random=2, eval_games_heuristic=0, pool_add_every=1, pool_size=2,
            checkpoint_every=100, opponent_weights={"current": 0.4, "pool": 0.3, "random": 0.3})


@pytest.fixture(scope="module")
def encoder():
    return make_encoder(2)


def tiny_config(**kw) -> PPOConfig:
    return PPOConfig(**{**TINY, **kw})


def params(net) -> dict:
    return {k: v.detach().clone() for k, v in net.state_dict().items()}


# ------------------------------------------------------------------------------------------------
# masking
@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 8))
def test_masked_distribution_gives_illegal_actions_exactly_zero(seed, batch):
    """Masked logits: illegal actions get probability exactly 0 (and -inf log-prob), legal ones sum
    to 1, entropy is finite, and neither sampling nor the mode can pick an illegal action, even with
    huge logits on the illegal ones."""
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(batch, NUM_ACTIONS, generator=g) * 50
    mask = torch.rand(batch, NUM_ACTIONS, generator=g) < 0.05
    mask[torch.arange(batch), torch.randint(NUM_ACTIONS, (batch,), generator=g)] = True  # >= 1 legal
    logits[~mask] += 1e4                                     # tempt the policy towards illegal moves
    dist = MaskedCategorical(logits, mask)
    probs = dist.probs
    assert torch.all(probs[~mask] == 0.0)
    assert torch.all(torch.isinf(dist.log_probs[~mask]))
    assert torch.allclose(probs.sum(-1), torch.ones(batch), atol=1e-5)
    assert torch.isfinite(dist.entropy()).all()
    assert mask[torch.arange(batch), dist.mode()].all()
    for _ in range(5):
        assert mask[torch.arange(batch), dist.sample(g)].all()


def test_masked_gradient_never_reaches_illegal_logits():
    """Illegal actions receive no gradient from the PPO loss terms (log-prob and entropy)."""
    logits = torch.randn(3, NUM_ACTIONS, requires_grad=True)
    mask = torch.zeros(3, NUM_ACTIONS, dtype=torch.bool)
    mask[:, [0, 5, 17]] = True
    dist = MaskedCategorical(logits, mask)
    (dist.log_prob(torch.tensor([0, 5, 17])).sum() + dist.entropy().sum()).backward()
    assert torch.all(logits.grad[~mask] == 0)
    assert torch.isfinite(logits.grad).all()


def test_mask_row_without_legal_action_is_an_error():
    """A decision always has a legal action; an empty mask row is reported, not turned into NaNs."""
    with pytest.raises(ValueError, match="no legal action"):
        MaskedCategorical(torch.zeros(2, 4), torch.tensor([[1, 0, 0, 0], [0, 0, 0, 0]]))


def test_network_on_real_positions_puts_no_mass_on_illegal_actions(encoder):
    """On positions from real games, the network's policy is zero outside legal_actions()."""
    net = build_network(tiny_config(hidden_sizes=[32]), encoder.size, NUM_ACTIONS)
    g = Game(GameConfig(num_players=2, seed=3))
    rng = np.random.default_rng(0)
    agent = RandomAgent(seed=1)
    checked = 0
    while not g.is_terminal() and checked < 60:
        legal = g.legal_actions()
        obs = torch.from_numpy(encoder.encode(g, g.current_player))[None]
        mask = torch.zeros(1, NUM_ACTIONS, dtype=torch.bool)
        mask[0, legal] = True
        dist, values = net.distribution(obs, mask)
        illegal = np.setdiff1d(np.arange(NUM_ACTIONS), legal)
        assert torch.all(dist.probs[0, illegal] == 0)
        a, _, _ = net.act(obs.numpy(), mask.numpy(), rng=rng)
        assert int(a[0]) in legal
        assert values.shape == (1, 2)
        g.apply(agent.act(g))
        checked += 1


# ------------------------------------------------------------------------------------------------
# rewards, GAE, intervals
def test_seat_outcomes_match_the_environment_rewards():
    """Terminal rewards are the environment's (clans_env.env.rewards): win +1 / others -1, ties
    share; rank linear in [-1, 1]; score = margin over the best other seat / scale; win+score is
    their mean."""
    rows = [{"total": 80, "rank": 1}, {"total": 60, "rank": 2}, {"total": 40, "rank": 3}]
    assert seat_outcomes(rows, "win", 40).tolist() == [1, -1, -1]
    assert seat_outcomes(rows, "rank", 40).tolist() == [1, 0, -1]
    assert np.allclose(seat_outcomes(rows, "score", 40), [0.5, -0.5, -1.0])
    assert np.allclose(seat_outcomes(rows, "win+score", 40), [0.75, -0.75, -1.0])
    tie = [{"total": 50, "rank": 1}, {"total": 50, "rank": 1}]
    assert seat_outcomes(tie, "win", 40).tolist() == [0, 0]


def test_gae_matches_hand_computation():
    """GAE(lambda) with a single terminal reward: delta_t = gamma V_{t+1} - V_t (last: R - V_T)."""
    v = np.array([0.1, 0.3, -0.2], dtype=np.float32)
    adv, ret = gae(v, 1.0, gamma=0.9, lam=0.5)
    d2 = 1.0 - (-0.2)
    d1 = 0.9 * -0.2 - 0.3
    d0 = 0.9 * 0.3 - 0.1
    a2 = d2
    a1 = d1 + 0.45 * a2
    a0 = d0 + 0.45 * a1
    assert np.allclose(adv, [a0, a1, a2])
    assert np.allclose(ret, adv + v)
    # lambda = gamma = 1: every advantage is the Monte Carlo return minus the value
    adv, ret = gae(v, -1.0, 1.0, 1.0)
    assert np.allclose(ret, [-1, -1, -1])


def test_wilson_interval_known_values():
    """Wilson 95% interval (reference values from the closed form)."""
    lo, hi = wilson_interval(95, 100)
    assert math.isclose(lo, 0.8882, abs_tol=1e-3) and math.isclose(hi, 0.9785, abs_tol=1e-3)
    assert wilson_interval(0, 10)[0] == 0.0 and math.isclose(wilson_interval(10, 10)[1], 1.0)


# ------------------------------------------------------------------------------------------------
# config
def test_config_toml_round_trip_and_clear_errors(tmp_path):
    """A config written as TOML loads back equal; unknown fields and bad values name the valid choices."""
    cfg = tiny_config(value_clip=None, target_kl=0.05, reward="rank", score_scale=25.0)
    path = tmp_path / "c.toml"
    path.write_text(cfg.to_toml())
    assert PPOConfig.load(path) == cfg
    with pytest.raises(ValueError, match="valid fields"):
        PPOConfig.from_dict({"learning_rat": 1e-3})
    with pytest.raises(ValueError, match="win, rank|'win', 'rank'"):
        tiny_config(reward="margin")
    with pytest.raises(ValueError, match="opponent kinds"):
        tiny_config(opponent_weights={"mcts": 1.0})
    with pytest.raises(FileNotFoundError, match="does not exist"):
        PPOConfig.load(tmp_path / "missing.toml")


def test_shipped_config_loads():
    """training/configs/ppo_2p.toml (the shipped model's recipe) is a valid config."""
    from pathlib import Path
    cfg = PPOConfig.load(Path(__file__).resolve().parent.parent / "training" / "configs" / "ppo_2p.toml")
    assert cfg.num_players == 2


def test_learning_rate_schedules():
    """Linear and cosine schedules go from learning_rate at step 0 to lr_final_fraction of it at
    total_steps (and stay there if a resumed run goes on); constant stays put."""
    for sched in ("linear", "cosine"):
        cfg = tiny_config(lr_schedule=sched, total_steps=1000, learning_rate=1e-3, lr_final_fraction=0.1)
        assert math.isclose(cfg.learning_rate_at(0), 1e-3)
        assert math.isclose(cfg.learning_rate_at(500), 5.5e-4)
        assert math.isclose(cfg.learning_rate_at(1000), 1e-4) and math.isclose(cfg.learning_rate_at(5000), 1e-4)
    assert tiny_config(lr_schedule="constant").learning_rate_at(7) == tiny_config().learning_rate


# ------------------------------------------------------------------------------------------------
# self-play collection
def test_collection_is_reproducible_and_only_learner_decisions_are_samples(encoder):
    """The same seed and weights give the same games and samples; every sample's action was legal
    under its recorded mask; value targets and advantages are finite; games run to the end."""
    cfg = tiny_config(opponent_weights={"random": 1.0}, train_on_mirror=False)
    net = build_network(cfg, encoder.size, NUM_ACTIONS)
    a = collect(cfg, encoder, net, [], 11, 40, 2, have_heuristic=False)
    b = collect(cfg, encoder, net, [], 11, 40, 2, have_heuristic=False)
    assert len(a) >= 40 and np.array_equal(a.actions, b.actions) and np.array_equal(a.obs, b.obs)
    assert a.mask[np.arange(len(a)), a.actions].all()
    assert np.isfinite(a.advantages).all() and np.isfinite(a.seat_targets).all()
    for r in a.results:
        assert r.spec.controllers.count("learner") == 1 and "random" in r.spec.controllers
    # the last sample of each game's learner trajectory carries the terminal outcome as its return
    # target for the other seat: targets are relative, so seat 1's value is -seat 0's in 2p win+margin
    assert np.allclose(a.seat_targets[:, 0], -a.seat_targets[:, 1])


def test_collection_written_over_a_spent_rollout_is_the_same_collection(encoder):
    """``collect(..., reuse=spent)`` (what PPOTrainer does with the last update's batch) writes the
    samples into the spent rollout's memory and gives exactly the samples of a fresh collection;
    arrays that do not fit (another width) are not used."""
    cfg = tiny_config(opponent_weights={"current": 0.5, "random": 0.5})
    net = build_network(cfg, encoder.size, NUM_ACTIONS)
    fresh = collect(cfg, encoder, net, [], 21, 120, 3, have_heuristic=False)
    spent = collect(cfg, encoder, net, [], 5, 200, 3, have_heuristic=False)
    memory = spent.obs.base
    again = collect(cfg, encoder, net, [], 21, 120, 3, have_heuristic=False, reuse=spent)
    assert np.shares_memory(again.obs, memory)
    for name in ("obs", "mask", "actions", "logp", "values", "advantages", "returns", "seat_targets"):
        assert np.array_equal(getattr(again, name), getattr(fresh, name)), name
    import dataclasses
    narrow = dataclasses.replace(fresh, obs=np.zeros((5000, 3), np.float32))
    other = collect(cfg, encoder, net, [], 21, 120, 3, have_heuristic=False, reuse=narrow)
    assert not np.shares_memory(other.obs, narrow.obs) and np.array_equal(other.obs, fresh.obs)


class _RecordingEncoder:
    """The real encoder, remembering every position it encoded (seed, seat, legal mask, observation)."""

    def __init__(self, encoder):
        self.inner, self.size, self.calls = encoder, encoder.size, []

    def encode(self, game, seat):
        obs = self.inner.encode(game, seat)
        mask = np.zeros(NUM_ACTIONS, bool)
        mask[game.legal_actions()] = True
        self.calls.append((game.config.seed, seat, mask, obs.copy()))
        return obs


@pytest.mark.parametrize("mirror", [True, False])
def test_samples_are_the_observations_and_masks_of_the_recorded_positions(encoder, mirror):
    """Samples are encoded in place into growing arrays (``SampleRows``), or copied there from a
    scratch batch when only some seats of a network train (a mirror game with
    ``train_on_mirror=False``). Either way, with room for 1 sample at the start or for all of them,
    sample k is exactly the k-th trained position the network was asked about: its observation and
    its legal mask."""
    from training.selfplay import MatchRunner, OpponentSampler
    cfg = tiny_config(opponent_weights={"current": 1.0}, train_on_mirror=mirror)
    net = build_network(cfg, encoder.size, NUM_ACTIONS)

    def run(room):
        rec = _RecordingEncoder(encoder)
        rng = np.random.default_rng(5)
        sampler = OpponentSampler(cfg, 0, False)
        runner = MatchRunner(2, rec, {"learner": net})
        return runner.play(lambda n: sampler.sample(rng) if n < 60 else None, 3, rng, expected_samples=room), rec

    (small, rec), (large, _) = run(1), run(10_000)
    assert len(small) >= 60 and np.array_equal(small.obs, large.obs) and np.array_equal(small.mask, large.mask)
    trained = {r.spec.seed: [s for s in range(2) if r.spec.trained[s]] for r in small.results}
    kept = [c for c in rec.calls if c[1] in trained[c[0]]]
    assert len(kept) == len(small) and (len(kept) < len(rec.calls)) == (not mirror)
    for k, (_, _, mask, obs) in enumerate(kept):
        assert np.array_equal(small.obs[k], obs) and np.array_equal(small.mask[k], mask)


def test_inference_reads_the_first_layer_sparsely_and_matches_the_dense_layer(encoder):
    """Without gradients the first layer multiplies only the input columns some row of the batch
    uses; on real positions that path is taken and equals the dense layer to float rounding, also
    after an optimizer step changed the weights (the transposed copy is refreshed)."""
    games = []
    for seed in range(24):
        g = Game(GameConfig(num_players=2, seed=seed))
        agent = RandomAgent(seed=seed)
        for _ in range(3 * seed):
            if g.is_terminal():
                break
            g.apply(agent.act(g))
        if not g.is_terminal():
            games.append(g)
    from training.selfplay import encode_batch
    obs, mask = encode_batch(encoder, games, [g.current_player for g in games])
    obs_t, mask_t = torch.from_numpy(obs), torch.from_numpy(mask)
    net = build_network(tiny_config(hidden_sizes=[64, 32]), encoder.size, NUM_ACTIONS)
    x = torch.cat([obs_t, mask_t.float()], -1)
    assert 2 * int(x.any(0).sum()) < x.shape[1], "real observations are sparse enough for the sparse path"
    opt = torch.optim.SGD(net.parameters(), lr=0.5)
    for step in range(2):
        with torch.no_grad():
            sparse_logits, sparse_values = net(obs_t, mask_t)
        dense_logits, dense_values = net(obs_t, mask_t)        # gradients on: the dense layer
        assert torch.allclose(sparse_logits, dense_logits, atol=1e-5)
        assert torch.allclose(sparse_values, dense_values, atol=1e-5)
        opt.zero_grad()
        (dense_logits.square().mean() + dense_values.square().mean()).backward()
        opt.step()


@pytest.mark.parametrize("arch", [dict(hidden_sizes=[64, 32]),
                                  dict(hidden_sizes=[32], activation="relu", shared_torso=False),
                                  dict(hidden_sizes=[32, 16], activation="gelu", mask_in_obs=False)])
def test_incremental_actor_follows_games_and_matches_the_network(encoder, arch):
    """``IncrementalActor`` (self-play's inference: first layer moved by the change since the same
    seat's last position, the rest in NumPy) gives the network's greedy actions, log-probs and values
    to float rounding at every decision of games played side by side to the end, and on through slots
    that start other games (``reset`` rows take the full product again)."""
    from training.networks import IncrementalActor
    from training.selfplay import encode_batch
    torch.manual_seed(3)
    net = build_network(tiny_config(**arch), encoder.size, NUM_ACTIONS).eval()
    with torch.no_grad():                              # larger weights than the init: drift would show
        for p in net.parameters():
            p.mul_(3.0)
    actor = IncrementalActor(net, 3 * 2)
    seeds = iter(range(40, 60))
    slots = [Game(GameConfig(num_players=2, seed=next(seeds))) for _ in range(3)]
    movers = [RandomAgent(seed=i) for i in range(3)]
    restarts = worst = decisions = 0
    while restarts < 2 or decisions < 400:
        seats = [g.current_player for g in slots]
        obs, mask = encode_batch(encoder, slots, seats)
        got = actor.act(obs, mask, [i * 2 + s for i, s in enumerate(seats)], greedy=True)
        want = net.act(obs, mask, greedy=True)
        assert np.array_equal(got[0], want[0])
        worst = max(worst, float(np.abs(got[1] - want[1]).max()), float(np.abs(got[2] - want[2]).max()))
        decisions += len(slots)
        for i, g in enumerate(slots):
            g.apply(movers[i].act(g))
            if g.is_terminal():
                slots[i] = Game(GameConfig(num_players=2, seed=next(seeds)))
                actor.reset(slice(i * 2, i * 2 + 2))
                restarts += 1
    assert worst < 1e-4


def test_incremental_actor_samples_from_the_masked_policy(encoder):
    """Sampling draws one uniform per position (inverse CDF): the samples are legal, their log-probs
    are the masked policy's, and their frequencies are the policy's probabilities."""
    from training.networks import IncrementalActor
    from training.selfplay import encode_batch
    torch.manual_seed(0)
    net = build_network(tiny_config(hidden_sizes=[32]), encoder.size, NUM_ACTIONS).eval()
    with torch.no_grad():
        net.policy_head.weight.mul_(300.0)             # a clearly non-uniform policy
    g = Game(GameConfig(num_players=2, seed=5))
    while len(g.legal_actions()) < 4:
        g.apply(g.legal_actions()[0])
    obs, mask = encode_batch(encoder, [g], [g.current_player])
    with torch.no_grad():
        logits, _ = net(torch.from_numpy(obs), torch.from_numpy(mask))
    probs = MaskedCategorical(logits, torch.from_numpy(mask)).probs[0].numpy()
    assert probs.max() < 0.9 and (probs > 0.02).sum() >= 2
    actor = IncrementalActor(net, 1)
    rng = np.random.default_rng(1)
    n = 4000
    obs_n, mask_n = np.repeat(obs, n, 0), np.repeat(mask, n, 0)
    counts = np.zeros(NUM_ACTIONS)
    big = IncrementalActor(net, n)
    for _ in range(2):                                  # rows continue: the second call is incremental
        actions, logp, _ = big.act(obs_n, mask_n, np.arange(n), rng=rng)
        assert mask[0, actions].all()
        assert np.allclose(logp, np.log(probs[actions]), atol=1e-5)
        counts += np.bincount(actions, minlength=NUM_ACTIONS)
    freq = counts / counts.sum()
    assert np.abs(freq - probs).max() < 0.03

    class Extreme:                                      # the uniform's two ends: 0 and just below 1
        def __init__(self, u):
            self.u = u

        def random(self, n, dtype):
            return np.full(n, self.u, dtype)
    legal = np.flatnonzero(mask[0])
    for u, want in ((0.0, legal[probs[legal] > 0][0]), (np.nextafter(np.float32(1), np.float32(0)), legal[-1])):
        assert actor.act(obs, mask, [0], rng=Extreme(u))[0][0] == want
    with pytest.raises(ValueError, match="rng"):
        actor.act(obs, mask, [0])
    with pytest.raises(ValueError, match="no legal action"):
        actor.act(obs, np.zeros_like(mask), [0], greedy=True)


# ------------------------------------------------------------------------------------------------
# training, checkpoints, resume
def test_tiny_training_run_checkpoint_loads_and_plays_legal_moves(tmp_path, encoder):
    """A few updates complete; the run writes config, log, TensorBoard events, checkpoint and model;
    PPOAgent loads the model and plays a whole game of legal moves (greedy and sampled)."""
    cfg = tiny_config()
    trainer = PPOTrainer(cfg, tmp_path / "run", encoder=encoder, progress=False)
    trainer.train(max_updates=3)
    out = tmp_path / "run"
    for name in ("config.toml", "checkpoint.pt", "model.pt", "log.jsonl"):
        assert (out / name).is_file(), name
    assert any((out / "tb").iterdir())
    rows = [json.loads(line) for line in (out / "log.jsonl").read_text().splitlines()]
    assert [r["update"] for r in rows if "kind" not in r] == [1, 2, 3]
    assert all(math.isfinite(r["policy_loss"]) and math.isfinite(r["value_loss"]) for r in rows if "kind" not in r)
    assert len(list((out / "pool").iterdir())) == 2                      # pool_size snapshots kept
    from agents import registry
    made = registry.make(f"ppo:path={out / 'model.pt'},greedy=0,seed=3")   # the tournament spec
    assert isinstance(made, PPOAgent) and not made.greedy
    for greedy, decisions in ((True, 10_000), (False, 40)):      # a whole greedy game, a sampled opening
        agent = PPOAgent(out / "model.pt", greedy=greedy, seed=5)
        g = Game(GameConfig(num_players=2, seed=21))
        opp = RandomAgent(seed=2)
        while not g.is_terminal() and len(g.history) < decisions:
            if g.current_player == 0:
                a = agent.act(g)
                assert a in g.legal_actions()
                prior = agent.policy_prior(g)
                assert set(prior) == set(g.legal_actions()) and math.isclose(sum(prior.values()), 1.0, rel_tol=1e-6)
            else:
                a = opp.act(g)
            g.apply(a)


def test_shared_files_of_killed_runs_are_removed_and_live_ones_kept(tmp_path):
    """A run killed with SIGKILL leaves its WorkerPool's folder of shared files behind (in /dev/shm it
    holds memory): the next WorkerPool removes the folders whose process is gone, and only those."""
    import os
    import subprocess
    import sys

    from training.selfplay import _FILES_PREFIX, _remove_orphaned_files
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    dead, live = tmp_path / f"{_FILES_PREFIX}{gone.stdout.strip()}-abc", tmp_path / f"{_FILES_PREFIX}{os.getpid()}-def"
    other = tmp_path / "someone-else"
    for d in (dead, live, other):
        d.mkdir()
        (d / "obs-0-10.bin").write_bytes(b"x")
    _remove_orphaned_files(str(tmp_path))
    assert not dead.exists() and live.exists() and other.exists()


def test_greedy_agent_plays_the_most_probable_action_with_reused_inputs():
    """PPOAgent writes each position into the inputs of its previous call. Played over two games in
    turn (so every move overwrites the other game's position), its greedy move is still the most
    probable legal action of the network on inputs built fresh."""
    from pathlib import Path
    agent = PPOAgent(Path(__file__).resolve().parent.parent / "models" / "ppo_2p" / "model.pt", greedy=True)
    enc = make_encoder(2)
    games = [Game(GameConfig(num_players=2, seed=s)) for s in (40, 41)]
    opp = RandomAgent(seed=1)
    moves = 0
    while not all(g.is_terminal() for g in games):
        for g in games:
            if g.is_terminal():
                continue
            if g.current_player == 0:
                legal = g.legal_actions()
                mask = torch.zeros((1, NUM_ACTIONS), dtype=torch.bool)
                mask[0, legal] = True
                with torch.no_grad():
                    logits, _ = agent.net(torch.from_numpy(enc.encode(g, 0)).unsqueeze(0), mask)
                a = agent.act(g)
                assert a == max(legal, key=lambda x: float(logits[0, x]))
                moves += 1
            else:
                a = opp.act(g)
            g.apply(a)
    assert moves > 100          # two whole games' decisions of seat 0


def test_resume_reproduces_the_next_update_exactly(tmp_path, encoder):
    """Run N+1 updates straight vs run N, checkpoint, resume in a new trainer, run 1 more: the
    parameters, optimizer state, counters and pool are identical."""
    cfg = tiny_config()
    straight = PPOTrainer(cfg, tmp_path / "a", encoder=encoder, progress=False, tensorboard=False)
    straight.train(max_updates=3)
    first = PPOTrainer(cfg, tmp_path / "b", encoder=encoder, progress=False, tensorboard=False)
    first.train(max_updates=2)
    resumed = PPOTrainer.resume(tmp_path / "b", encoder=encoder, progress=False, tensorboard=False)
    assert resumed.update == 2
    resumed.train(max_updates=1)
    assert resumed.update == straight.update == 3
    assert resumed.global_step == straight.global_step
    pa, pb = params(straight.net), params(resumed.net)
    assert all(torch.equal(pa[k], pb[k]) for k in pa)
    sa, sb = straight.optimizer.state_dict()["state"], resumed.optimizer.state_dict()["state"]
    assert all(torch.equal(sa[i]["exp_avg_sq"], sb[i]["exp_avg_sq"]) for i in sa)
    assert [n for n, _ in straight.pool] == [n for n, _ in resumed.pool]


def test_resume_refuses_changes_that_alter_the_run(tmp_path, encoder):
    """--resume may extend total_steps, but not change e.g. the learning rate (clear error)."""
    PPOTrainer(tiny_config(), tmp_path / "r", encoder=encoder, progress=False, tensorboard=False).train(max_updates=1)
    with pytest.raises(ValueError, match="learning_rate"):
        PPOTrainer.resume(tmp_path / "r", {"learning_rate": 1.0}, encoder=encoder)
    t = PPOTrainer.resume(tmp_path / "r", {"total_steps": 123_456}, encoder=encoder, progress=False)
    assert t.config.total_steps == 123_456
    with pytest.raises(FileExistsError, match="--resume"):
        PPOTrainer(tiny_config(), tmp_path / "r", encoder=encoder)


def test_missing_or_mismatched_checkpoint_fails_clearly(tmp_path, encoder):
    """Missing file, other player count and other observation size each raise an error that names
    both values."""
    with pytest.raises(FileNotFoundError, match="does not exist"):
        PPOAgent(tmp_path / "nope.pt")
    with pytest.raises(FileNotFoundError, match="cannot resume"):
        PPOTrainer.resume(tmp_path / "nothing", encoder=encoder)
    trainer = PPOTrainer(tiny_config(), tmp_path / "m", encoder=encoder, progress=False, tensorboard=False)
    trainer.save()
    model = tmp_path / "m" / "model.pt"
    with pytest.raises(CheckpointError, match="num_players=2.*num_players=3"):
        read_checkpoint(model, num_players=3)
    with pytest.raises(CheckpointError, match=f"obs_size={encoder.size}.*obs_size=99"):
        read_checkpoint(model, obs_size=99)
    agent = PPOAgent(model)
    with pytest.raises(CheckpointError, match="num_players=2.*num_players=3"):
        agent.act(Game(GameConfig(num_players=3, seed=0)))
    (tmp_path / "junk.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError, match="not a readable PPO checkpoint"):
        PPOAgent(tmp_path / "junk.pt")
    with pytest.raises(CheckpointError, match="exported model"):
        (tmp_path / "x").mkdir()
        (tmp_path / "x" / "checkpoint.pt").write_bytes(model.read_bytes())
        PPOTrainer.resume(tmp_path / "x", encoder=encoder)


class _ReorderedEncoder:
    """The real encoder with its slices stored in reverse order: the same features elsewhere."""

    def __init__(self, encoder):
        from clans_env.encoding import ObsSlice
        self.inner = encoder
        self.size = encoder.size
        self.layout, start = [], 0
        for sl in reversed(encoder.layout):
            self.layout.append(ObsSlice(sl.name, start, sl.length, sl.low, sl.high, sl.description))
            start += sl.length
        self.index = np.concatenate([np.arange(sl.start, sl.start + sl.length) for sl in reversed(encoder.layout)])

    def encode(self, game, seat):
        return self.inner.encode(game, seat)[self.index]


def test_moved_observation_slices_are_followed_and_changed_ones_refused(tmp_path, encoder):
    """A policy trained on one layout plays identically when the encoder later only moves slices
    (its first layer is permuted: adapt_to_encoder); renamed / resized slices are refused with
    the list of differences, and a resumed run refuses any layout change."""
    from agents.ppo import adapt_to_encoder, check_encoder, load_policy, observation_fingerprint
    old = _ReorderedEncoder(encoder)
    assert observation_fingerprint(old) != observation_fingerprint(encoder)
    trainer = PPOTrainer(tiny_config(), tmp_path / "f", encoder=old, progress=False, tensorboard=False)
    trainer.train(max_updates=1)
    model = tmp_path / "f" / "model.pt"
    trained, ckpt = load_policy(model)
    adapted, _ = load_policy(model)
    with pytest.raises(CheckpointError, match="observation layout"):
        check_encoder(ckpt, encoder, model)
    assert adapt_to_encoder(adapted, ckpt, encoder, model) is True
    g = Game(GameConfig(num_players=2, seed=4))
    agent = RandomAgent(seed=0)
    for _ in range(40):
        mask = torch.zeros(1, NUM_ACTIONS, dtype=torch.bool)
        mask[0, g.legal_actions()] = True
        la, va = trained(torch.from_numpy(old.encode(g, g.current_player))[None], mask)
        lb, vb = adapted(torch.from_numpy(encoder.encode(g, g.current_player))[None], mask)
        assert torch.allclose(la, lb, atol=1e-5) and torch.allclose(va, vb, atol=1e-5)
        g.apply(agent.act(g))
    renamed = _ReorderedEncoder(encoder)
    renamed.layout = [sl._replace(name=sl.name + "_v2") if i == 0 else sl for i, sl in enumerate(renamed.layout)]
    with pytest.raises(CheckpointError, match="slices removed"):
        adapt_to_encoder(load_policy(model)[0], ckpt, renamed, model)
    with pytest.raises(CheckpointError, match="observation layout"):
        PPOTrainer.resume(tmp_path / "f", encoder=encoder)


def test_evaluation_is_deterministic_and_alternates_seats(encoder):
    """Evaluation matches use fixed seeds and alternate the network's seat; the summary counts
    every game once with a Wilson interval around the win rate."""
    net = build_network(tiny_config(), encoder.size, NUM_ACTIONS)
    a = evaluate_net(net, encoder, 2, "random", 4, seed=3, num_slots=2)
    b = evaluate_net(net, encoder, 2, "random", 4, seed=3, num_slots=2)
    assert a == b
    assert a["games"] == a["wins"] + a["ties"] + a["losses"] == 4
    assert a["ci95"][0] <= a["win_rate"] <= a["ci95"][1]
    assert summarize([])["games"] == 0


def test_cli_train_ppo_start_and_resume(tmp_path, capsys):
    """`clans train ppo` starts a run from flags/--set and --resume extends it."""
    from clans_cli.train_cmd import main
    out = tmp_path / "cli"
    common = ["--no-progress", "--no-tensorboard"]
    sets = ["--set", "hidden_sizes=[8]", "--set", "num_envs=2", "--set", "minibatch_size=32", "--set", "epochs=1",
            "--set", "eval_games_random=0", "--set", "eval_games_heuristic=0", "--set", "pool_size=0"]
    # an update finishes every game it starts, so 30 learner steps take one update (two games)
    assert main(["ppo", "--out", str(out), "--total-steps", "30", "--rollout-steps", "30", *sets, *common]) == 0
    ckpt = read_checkpoint(out / "checkpoint.pt")
    assert ckpt["counters"]["update"] == 1 and ckpt["config"]["hidden_sizes"] == [8]
    more = str(ckpt["counters"]["global_step"] + 1)
    assert main(["ppo", "--out", str(out), "--resume", "--total-steps", more, *common]) == 0
    assert read_checkpoint(out / "checkpoint.pt")["counters"]["update"] == 2
    assert main(["ppo", "--out", str(out), "--resume", "--learning-rate", "0.5", *common]) == 2
    assert "cannot change ['learning_rate']" in capsys.readouterr().err


def test_subprocess_workers_collect_the_same_kind_of_data(tmp_path, encoder):
    """With workers=1 the self-play runs in a subprocess and one update completes."""
    trainer = PPOTrainer(tiny_config(workers=1, pool_size=0), tmp_path / "w", encoder=encoder,
                         progress=False, tensorboard=False)
    trainer.train(max_updates=1)
    assert trainer.update == 1 and trainer.global_step >= 64


def test_subprocess_workers_return_the_in_process_rollouts_through_shared_files(encoder):
    """WorkerPool: worker w plays child seed w of the update's SeedSequence, so the rollout equals the
    in-process collections of those children, concatenated, bit for bit. The weights (the learner and a
    pool network: the workers start from other random ones) and the samples go through files that both
    processes map, not the pipe, also after a larger collection made the sample files bigger, and the
    files are gone once the pool is closed."""
    import os

    from training.selfplay import Rollout, WorkerPool, heuristic_available
    config = tiny_config(workers=2, num_envs=3)
    torch.manual_seed(0)
    net, frozen = (build_network(config, encoder.size, NUM_ACTIONS).eval() for _ in range(2))
    fields = ("obs", "mask", "actions", "logp", "values", "advantages", "returns", "seat_targets")

    def in_process(seed, target):
        children = np.random.SeedSequence(seed).spawn(2)
        return Rollout.concat([collect(config, encoder, net, [frozen], children[w], -(-target // 2), slots,
                                       heuristic_available()) for w, slots in enumerate((2, 1))])

    pool = WorkerPool(config, net.arch)
    assert os.path.basename(pool._dir).startswith(f"clans-collect-{os.getpid()}-")
    try:
        for seed, target in ((5, 40), (6, 120), (5, 40)):
            got, want = pool.collect(config, net, [frozen], np.random.SeedSequence(seed), target), in_process(seed, target)
            assert got.decisions == want.decisions and len(got) >= target
            for f in fields:
                assert np.array_equal(getattr(got, f), getattr(want, f)), f
            assert got.obs.flags.owndata          # copied out of the files, which the next collection overwrites
            rows = pool._files[0]["rows"]
            assert sorted(n.rsplit("-", 1)[-1] for n in os.listdir(pool._dir) if not n.startswith("weights")) \
                == [f"{rows}.bin"] * 4
        shared = pool._views[0][0]
        assert isinstance(shared, np.memmap) and np.array_equal(shared[:5], got.obs[:5])
        weights = np.fromfile(pool._weights_path, np.float32)
        assert np.array_equal(weights, torch.cat([t.reshape(-1) for m in (net, frozen)
                                                  for t in m.state_dict().values()]).numpy())
    finally:
        pool.close()
    assert not os.path.exists(pool._dir)


def test_shipped_model_loads_and_beats_random():
    """The shipped 2-player model (models/ppo_2p/model.pt) still fits the current encoder and engine
    (this fails first if the observation layout changes: retrain or migrate the model) and wins
    greedy games against Random from both seats."""
    from pathlib import Path
    path = Path(__file__).resolve().parent.parent / "models" / "ppo_2p" / "model.pt"
    agent = PPOAgent(path, greedy=True)
    for seat in (0, 1):
        g = Game(GameConfig(num_players=2, seed=100 + seat))
        opp = RandomAgent(seed=seat)
        while not g.is_terminal():
            g.apply(agent.act(g) if g.current_player == seat else opp.act(g))
        assert g.final_scores()[seat]["rank"] == 1


# ------------------------------------------------------------------------------------------------
# issue 18: checkpoints that exhaust memory / mismatched arch records
def _tiny_model_file(path, encoder, arch_changes=None, drop=(), state_changes=None, stamp=True):
    """An exported-model file of a 1x8 network whose ``arch`` is then edited (the weights stay);
    with its weights digest unless ``stamp`` is false (as an older version wrote it)."""
    from agents.ppo import stamp_weights
    from training.networks import PolicyValueNet
    net = PolicyValueNet(encoder.size, NUM_ACTIONS, 2, hidden_sizes=[8])
    arch = {**net.arch, **(arch_changes or {})}
    for k in drop:
        arch.pop(k)
    state = {k: v.clone() for k, v in net.state_dict().items()}
    state.update(state_changes or {})
    ckpt = {"format": "clans-ppo-checkpoint", "version": 1, "kind": "model", "arch": arch, "model": state,
            "config": {}}
    torch.save(stamp_weights(ckpt) if stamp else ckpt, path)
    return path


def test_checkpoint_with_huge_arch_is_refused_before_anything_is_built(tmp_path, encoder):
    """Issue 18: a few-KB checkpoint whose arch claims hidden_sizes=[40000, 40000] (6.4 GB to build)
    is a CheckpointError naming arch.hidden_sizes, raised by read_checkpoint itself, before any
    network exists (PPOAgent and load_policy go through it)."""
    path = _tiny_model_file(tmp_path / "huge.pt", encoder, {"hidden_sizes": [40000, 40000]})
    assert path.stat().st_size < 200_000
    with pytest.raises(CheckpointError, match="arch.hidden_sizes"):
        read_checkpoint(path)
    with pytest.raises(CheckpointError, match="arch.hidden_sizes"):
        PPOAgent(path)
    path = _tiny_model_file(tmp_path / "deep.pt", encoder, {"hidden_sizes": [8] * 100})
    with pytest.raises(CheckpointError, match="arch.hidden_sizes"):
        read_checkpoint(path)


@pytest.mark.parametrize("changes, drop, field", [
    ({"num_players": 3}, (), "value_head.weight"),                 # other player count than the weights
    ({"hidden_sizes": [16]}, (), "policy_torso.0.weight"),         # other sizes than the weights
    ({"hidden_sizes": [8, 8]}, (), "policy_torso.2.weight"),       # an extra layer the weights lack
    ({"shared_torso": False}, (), "value_torso"),                  # a torso the weights lack
    ({"obs_size": 7}, (), "policy_torso.0.weight"),
    ({"dropout": 0.1}, (), "dropout"),                             # an extra key
    ({}, ("activation",), "activation"),                           # a missing key
    ({"activation": "swish"}, (), "arch.activation"),
    ({"mask_in_obs": 1}, (), "arch.mask_in_obs"),
    ({"num_players": "2"}, (), "arch.num_players"),
    ({"hidden_sizes": [8.0]}, (), "arch.hidden_sizes"),
])
def test_mismatched_arch_is_a_checkpoint_error_naming_the_field(tmp_path, encoder, changes, drop, field):
    """Issue 18: an arch record that does not fit the tensors (other player count, other sizes, an
    extra or missing key, a wrong type) is a CheckpointError naming the field, never a raw
    RuntimeError / TypeError / KeyError from building or loading the network."""
    path = _tiny_model_file(tmp_path / "bad.pt", encoder, changes, drop)
    with pytest.raises(CheckpointError, match=field):
        PPOAgent(path)
    with pytest.raises(CheckpointError, match=field):
        read_checkpoint(path)


def test_weights_of_the_wrong_shape_or_kind_are_a_checkpoint_error(tmp_path, encoder):
    bad = _tiny_model_file(tmp_path / "w.pt", encoder, state_changes={"value_head.bias": torch.zeros(3)})
    with pytest.raises(CheckpointError, match=r"model.value_head.bias has shape \[3\].*num_players=2"):
        PPOAgent(bad)
    extra = _tiny_model_file(tmp_path / "x.pt", encoder, state_changes={"extra.weight": torch.zeros(1)})
    with pytest.raises(CheckpointError, match="unexpected.*extra.weight"):
        PPOAgent(extra)
    ints = _tiny_model_file(tmp_path / "i.pt", encoder, state_changes={"value_head.bias": torch.zeros(2, dtype=torch.long)})
    with pytest.raises(CheckpointError, match="floating-point"):
        PPOAgent(ints)
    good = _tiny_model_file(tmp_path / "ok.pt", encoder)
    assert PPOAgent(good).net.arch["hidden_sizes"] == [8]


def test_damaged_training_checkpoint_fields_are_checkpoint_errors(tmp_path, encoder):
    """The optimizer state, counters, pool list and RNG states of a resumable checkpoint that do
    not fit are a CheckpointError naming the field (pool names cannot point outside pool/)."""
    out = tmp_path / "run"
    PPOTrainer(tiny_config(), out, encoder=encoder, progress=False, tensorboard=False).train(max_updates=1)
    good = torch.load(out / "checkpoint.pt", weights_only=True)
    for field, value in (("optimizer", {"state": {}, "param_groups": []}), ("counters", {"update": 1}),
                         ("pool", ["../../model.pt"]), ("rng", {"torch": torch.zeros(3)})):
        torch.save({**good, field: value}, out / "checkpoint.pt")
        with pytest.raises(CheckpointError, match=f"checkpoint's {field}" if field != "pool" else "snapshot names"):
            PPOTrainer.resume(out, encoder=encoder, progress=False, tensorboard=False)


def test_learner_device_defaults_to_a_gpu_only_when_there_is_one():
    """Issue 19: the PPO update runs on a GPU when one is present (``--device auto``), on the CPU
    otherwise; asking for CUDA without one is a clear error. (The CUDA path itself needs a GPU machine
    to run; the CPU path is the one every other test here exercises.)"""
    from training.ppo import _optimizer_to, learner_device
    dev = learner_device(None)
    assert dev.type == ("cuda" if torch.cuda.is_available() else "cpu")
    assert learner_device("cpu").type == "cpu"
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="no CUDA GPU"):
            learner_device("cuda")
    net = torch.nn.Linear(3, 2)
    opt = torch.optim.Adam(net.parameters())
    net(torch.ones(1, 3)).sum().backward()
    opt.step()
    _optimizer_to(opt, torch.device("cpu"))
    state = next(iter(opt.state.values()))
    assert state["exp_avg"].device.type == "cpu" and state["step"].device.type == "cpu"


# ------------------------------------------------------------------------------------------------
# weights digests: damaged weights are refused
SHIPPED_MODELS = sorted((Path(__file__).resolve().parent.parent / "models").glob("*/model.pt"))


def _flip_weight_bytes(src, dst, count=64):
    """Copy ``src`` to ``dst`` with ``count`` bytes inside the largest weight tensor inverted (the
    zip container and the pickle stay intact, so torch.load still reads it)."""
    raw = bytearray(Path(src).read_bytes())
    state = torch.load(src, map_location="cpu", weights_only=True)["model"]
    t = max(state.values(), key=lambda x: x.numel())
    data = t.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()
    at = raw.find(data[:4096]) + 1000
    assert at > 1000
    for i in range(at, at + count):
        raw[i] ^= 0xFF
    Path(dst).write_bytes(bytes(raw))
    return dst


@pytest.mark.parametrize("shipped", SHIPPED_MODELS, ids=lambda p: p.parent.name)
def test_shipped_models_carry_a_weights_digest_and_damage_is_refused(tmp_path, shipped):
    """64 flipped bytes inside a shipped model's weights loaded and played; every model the project
    writes (and ships) carries the sha256 of its weights, and a mismatch is a CheckpointError
    naming the file."""
    from agents.ppo import DIGEST_FIELD, weights_digest
    ckpt = read_checkpoint(shipped)
    assert ckpt[DIGEST_FIELD]["model"] == weights_digest(ckpt["model"])
    bad = _flip_weight_bytes(shipped, tmp_path / "model.pt")
    assert torch.load(bad, map_location="cpu", weights_only=True)["model"] is not None     # still "loads"
    with pytest.raises(CheckpointError, match=f"{bad}.*model weights do not match their recorded sha256"):
        read_checkpoint(bad)
    with pytest.raises(CheckpointError, match="sha256"):
        make(f"ppo:path={bad}")


def test_non_finite_weights_are_refused_and_written_files_are_stamped(tmp_path, encoder):
    """A model whose weights are all NaN (digest recomputed, so only the values are wrong) is refused;
    export_model / the trainer's checkpoints carry a digest that loading verifies; a file without
    one (an older version's) loads with a warning naming `python -m training.stamp`, which adds it."""
    from agents.ppo import DIGEST_FIELD
    from training.networks import PolicyValueNet
    from training.stamp import stamp_file
    net = PolicyValueNet(encoder.size, NUM_ACTIONS, 2, hidden_sizes=[8])
    path = tmp_path / "m.pt"
    export_model(net, tiny_config(), path, encoder)
    assert DIGEST_FIELD in read_checkpoint(path)
    with torch.no_grad():
        for p in net.parameters():
            p.fill_(float("nan"))
    export_model(net, tiny_config(), tmp_path / "nan.pt", encoder)
    with pytest.raises(CheckpointError, match="nan.pt.*non-finite weights"):
        read_checkpoint(tmp_path / "nan.pt")
    with pytest.raises(CheckpointError, match="non-finite"):
        PPOAgent(tmp_path / "nan.pt")
    old = _tiny_model_file(tmp_path / "old.pt", encoder, stamp=False)
    with pytest.warns(UserWarning, match="no weights digest.*python -m training.stamp"):
        read_checkpoint(old)
    assert stamp_file(old) and not stamp_file(old)
    assert DIGEST_FIELD in read_checkpoint(old)
    out = tmp_path / "run"
    PPOTrainer(tiny_config(), out, encoder=encoder, progress=False, tensorboard=False).train(max_updates=1)
    for f in ("checkpoint.pt", "model.pt"):
        assert DIGEST_FIELD in read_checkpoint(out / f)
