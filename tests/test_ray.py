"""Ray (issue 19): tournaments on Ray tasks give exactly the process pool's results, Ray collectors
give exactly the subprocess workers' rollout, a PPO update and its evaluation run on Ray actors,
the --ray commands work, and RLlib's PPO with action masking trains on our PettingZoo env.

Skipped when Ray (the optional extra ``.[ray]``) is not installed. One local Ray with 2 CPUs per
test process (pytest-xdist runs two of them side by side: local Rays do not share ports or
sessions), started once for the module and torn down after it.
"""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray")

from clans_env.engine.actions import NUM_ACTIONS  # noqa: E402
from training import ray_backend  # noqa: E402
from training.config import PPOConfig  # noqa: E402
from training.evaluate import evaluate_net  # noqa: E402
from training.networks import build_network  # noqa: E402
from training.selfplay import Rollout, collect, heuristic_available, make_encoder  # noqa: E402
from training.tournament import run_tournament  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
ROLLOUT_FIELDS = ("obs", "mask", "actions", "logp", "values", "advantages", "returns", "seat_targets")
TINY_PPO = dict(num_players=2, total_steps=10_000, rollout_steps=48, num_envs=2, workers=2, hidden_sizes=[16],
                minibatch_size=32, epochs=1, eval_every=100, eval_games_random=2, eval_games_heuristic=0,
                pool_size=0, checkpoint_every=100, opponent_weights={"current": 0.5, "random": 0.5})


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    if ray.is_initialized():          # another module left one running in this process
        ray.shutdown()
    # address="local": a Ray of this test process's own, even where a `ray start` cluster runs
    ray.init(address="local", num_cpus=2, include_dashboard=False, object_store_memory=100 * 1024 ** 2,
             configure_logging=False)
    yield
    ray.shutdown()


def _game_rows(result):
    """Everything a game result holds except think times (wall clock)."""
    return [(g.index, g.game_seed, g.names, g.scores, g.totals, g.ranks, g.decisions, g.num_actions)
            for g in result.games]


def test_tournament_on_ray_matches_the_process_pool(tmp_path):
    """Same seed, same games, scores, ratings, standings and replay files with Ray tasks (1 and 2
    at a time) as with the process pool."""
    specs = ["random", "heuristic", "mcts:sims=5"]
    pool = run_tournament(specs, games_per_pairing=2, seed=3, workers=2, out_dir=tmp_path / "pool", progress=False)
    for workers in (1, 2):
        out = tmp_path / f"ray{workers}"
        on_ray = run_tournament(specs, games_per_pairing=2, seed=3, out_dir=out, progress=False,
                                executor=ray_backend.TournamentExecutor(workers=workers))
        assert _game_rows(on_ray) == _game_rows(pool)
        assert on_ray.ratings == pool.ratings
        drop = lambda rows: [{k: v for k, v in r.items() if k != "ms_per_decision"} for r in rows]  # noqa: E731
        assert drop(on_ray.standings) == drop(pool.standings)
        for g in on_ray.games:                       # replays written by the driver, same content
            assert Path(g.replay_path).parent == out / "replays"
            same = tmp_path / "pool" / "replays" / Path(g.replay_path).name
            assert json.loads(Path(g.replay_path).read_text()) == json.loads(same.read_text())


def test_ray_collectors_give_the_subprocess_workers_rollout():
    """RayWorkerPool hands worker w the w-th child seed, as selfplay.WorkerPool does: the rollout
    equals the in-process collections of those children, concatenated (what subprocess workers
    return), bit for bit."""
    config = PPOConfig(**TINY_PPO)
    encoder = make_encoder(2)
    net = build_network(config, encoder.size, NUM_ACTIONS).eval()
    workers = ray_backend.RayWorkerPool(config, net.arch)
    try:
        got = workers.collect(config, net, [], np.random.SeedSequence([5, 0]), config.rollout_steps)
    finally:
        workers.close()
    children = np.random.SeedSequence([5, 0]).spawn(2)
    want = Rollout.concat([collect(config, encoder, net, [], children[w], -(-config.rollout_steps // 2), 1,
                                   heuristic_available()) for w in range(2)])
    assert len(got) >= config.rollout_steps and got.decisions == want.decisions
    for f in ROLLOUT_FIELDS:
        assert np.array_equal(getattr(got, f), getattr(want, f)), f


def test_ray_ppo_trainer_updates_and_evaluates_on_actors(tmp_path):
    """One PPO update with collection on Ray actors; the evaluation matches on the actors give the
    in-process evaluation exactly."""
    trainer = ray_backend.RayPPOTrainer(PPOConfig(**TINY_PPO), tmp_path / "run", progress=False, tensorboard=False)
    try:
        row = trainer.train_step()
        assert trainer.update == 1 and row["samples"] >= 48
        on_ray = trainer.evaluate()
        local = evaluate_net(trainer.net, trainer.encoder, 2, "random", 2, seed=trainer.config.eval_seed,
                             num_slots=2)
        assert on_ray == {"random": local}
    finally:
        trainer.close()


def test_cli_ray_flags(tmp_path, capsys):
    """`clans tournament --ray` and `clans train ppo --ray` run (the Ray already started is reused)."""
    from clans_cli.main import main
    out = tmp_path / "t"
    assert main(["tournament", "random", "heuristic", "--ray", "--workers", "2", "--max-games", "2", "--no-progress",
                 "--out", str(out)]) == 0
    assert len(json.loads((out / "results.json").read_text())["games"]) == 2
    run = tmp_path / "ppo"
    sets = ["--set", "hidden_sizes=[8]", "--set", "num_envs=2", "--set", "minibatch_size=32", "--set", "epochs=1",
            "--set", "eval_games_random=0", "--set", "eval_games_heuristic=0", "--set", "pool_size=0"]
    assert main(["train", "ppo", "--ray", "--out", str(run), "--total-steps", "30", "--rollout-steps", "30", *sets,
                 "--no-progress", "--no-tensorboard"]) == 0
    assert (run / "checkpoint.pt").is_file()


# ------------------------------------------------------------------------------------------------
# RLlib
def test_rllib_env_renames_observations_and_plays_a_game():
    """The RLlib glue: observations {"observations", "action_mask" (float32)} inside the declared
    space, masked random play reaches the end and every agent gets its final reward."""
    from clans_env.interop.rllib import ClansRLlibEnv, env_creator
    import pickle
    pickle.dumps(env_creator)                        # the factory travels to EnvRunner processes
    env = ClansRLlibEnv({"num_players": 2, "reward": "win"})
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(0)
    rewards = {}
    for _ in range(5000):
        (agent, o), = obs.items()
        assert set(o) == {"observations", "action_mask"} and o["action_mask"].dtype == np.float32
        assert env.observation_space[agent].contains(o)
        action = int(rng.choice(np.flatnonzero(o["action_mask"])))
        obs, rew, term, trunc, _ = env.step({agent: action})
        for a, r in rew.items():
            rewards[a] = rewards.get(a, 0.0) + r
        if term["__all__"]:
            break
    assert term["__all__"] and sorted(rewards) == ["player_0", "player_1"]
    assert sorted(rewards.values()) == [-1.0, 1.0]


def _rllib_example():
    spec = importlib.util.spec_from_file_location("rllib_ppo_example", ROOT / "examples" / "rllib_ppo.py")
    example = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = example
    spec.loader.exec_module(example)
    return example


def test_rllib_ppo_example_trains_one_iteration():
    """examples/rllib_ppo.py: RLlib's PPO with ActionMaskingTorchRLModule, one iteration at the
    tiny size on 2-player games, one EnvRunner actor."""
    rows = _rllib_example().train(iterations=1, env_runners=1, tiny=True, verbose=False)
    assert len(rows) == 1 and rows[0]["env_steps"] >= 256


def test_more_runners_than_ray_cpus_warn_and_share_a_local_ray(monkeypatch):
    """A first-hour stumble: docs/ray.md's `build_config(num_players=2, env_runners=4)` waited
    silently for ever on a 2-CPU machine (4 EnvRunners asking for 1 CPU each). Actors asking for
    more CPUs than Ray has (ray.cluster_resources()) now warn; on a local Ray they share its CPUs
    (4 x 0.5 here), so the snippet starts; on a cluster they keep 1 CPU (nodes may join)."""
    import warnings
    monkeypatch.setattr(ray_backend, "_local_ray", True)      # this module's Ray: local, 2 CPUs
    with pytest.warns(UserWarning, match=r"4 RLlib EnvRunners ask for 4 CPUs but Ray has 2: .* 0\.5 CPU"):
        config = _rllib_example().build_config(num_players=2, env_runners=4)
    assert config.num_env_runners == 4 and config.num_cpus_per_env_runner == 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _rllib_example().build_config(env_runners=2).num_cpus_per_env_runner == 1
    monkeypatch.setattr(ray_backend, "_local_ray", False)     # a cluster: nodes may join, so no sharing
    with pytest.warns(UserWarning, match=r"3 actors ask for 3 CPUs but Ray has 2: they start only if nodes join"):
        assert ray_backend.actor_cpus(3, "actors") == 1.0
