"""Ray as an optional executor for tournaments, evaluation matches and PPO self-play collection.

Nothing here is a scheduler of our own: tournament games are Ray *tasks*, self-play collectors are
Ray *actors*, and the learner (the SGD of PPO) stays in the calling process. The same code runs on
a laptop (a local Ray started by ``init()``) and on a cluster (``init(address="ray://host:10001")``
or ``address="auto"`` on a cluster node); see docs/ray.md.

    >>> from training import ray_backend                                        # doctest: +SKIP
    >>> ray_backend.init(num_cpus=2)                                            # doctest: +SKIP
    >>> result = run_tournament(["random", "heuristic"], seed=1,                # doctest: +SKIP
    ...                         executor=ray_backend.TournamentExecutor(workers=2))

Results do not depend on the executor: a tournament game is a pure function of its job (seeds
derived from the tournament seed), results are put back in game order, so a Ray tournament
returns the same games, scores and ratings as the process pool (``tests/test_ray.py``); a Ray
collector runs ``selfplay.collect`` with the same seeds as a subprocess worker, so ``RayWorkerPool``
returns the same rollout as ``selfplay.WorkerPool`` for the same number of workers.

Ray is the optional extra ``.[ray]``; without it every entry point raises ``RayUnavailable`` with
the install command.
"""
from __future__ import annotations

import math
import os
import tempfile
import time
import warnings
from pathlib import Path

INSTALL_HINT = ('Ray is not installed: install the optional extra with  pip install -e ".[ray]"  '
                '(or pip install "ray[default,rllib]>=2.40")')


#: True once ``init`` started a local Ray of this process's own, False once it connected to a cluster,
#: None when Ray was started elsewhere (``ray.init`` called directly)
_local_ray: bool | None = None


class RayUnavailable(RuntimeError):
    """Ray was asked for but is not installed."""


def require_ray():
    """The ``ray`` module, or ``RayUnavailable`` with the install command."""
    try:
        import ray
    except ImportError as e:
        raise RayUnavailable(INSTALL_HINT) from e
    return ray


def available() -> bool:
    try:
        require_ray()
    except RayUnavailable:
        return False
    return True


def init(address: str | None = None, num_cpus: int | None = None, **kwargs):
    """Connect to Ray once per process: to the cluster at ``address`` (``"auto"``, ``"host:6379"``
    or ``"ray://host:10001"``; the ``RAY_ADDRESS`` variable works too), otherwise start a new local
    Ray with ``num_cpus`` CPUs (default: all) and no dashboard (even if a ``ray start`` cluster runs
    on this machine: reach that one with ``address="auto"``). Returns the ``ray`` module; a second
    call in the same process reuses the running connection."""
    global _local_ray
    ray = require_ray()
    if ray.is_initialized():
        return ray
    kwargs.setdefault("include_dashboard", False)
    kwargs.setdefault("log_to_driver", True)
    kwargs.setdefault("configure_logging", False)
    address = address or os.environ.get("RAY_ADDRESS") or None
    if address and address != "local":
        kwargs.pop("include_dashboard", None)        # a cluster has its own
        try:
            ray.init(address=address, **kwargs)
        except (ConnectionError, RuntimeError) as e:
            if os.environ.get("RAY_AUTH_MODE"):
                raise
            raise ConnectionError(f"could not connect to the Ray cluster at {address!r} ({e}). If the cluster uses "
                                  "token authentication (`ray start` enables it by default since Ray 2.5x), set "
                                  "RAY_AUTH_MODE=token and make its token available (~/.ray/auth_token or "
                                  "RAY_AUTH_TOKEN); see docs/ray.md") from e
        _local_ray = False
    else:
        # "local": always a new Ray of this process's own, never a `ray start` cluster found on the machine
        ray.init(address="local", num_cpus=num_cpus, **kwargs)
        _local_ray = True
    return ray


def shutdown() -> None:
    """Disconnect (and stop a local Ray that ``init`` started)."""
    global _local_ray
    ray = require_ray()
    if ray.is_initialized():
        ray.shutdown()
    _local_ray = None


def cluster_cpus() -> int:
    """CPUs the connected Ray reports (at least 1)."""
    ray = require_ray()
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def actor_cpus(n: int, what: str, cpus_each: float = 1.0) -> float:
    """The CPUs each of ``n`` long-lived actors (``what``, e.g. "RLlib EnvRunners") should ask the
    connected Ray for: ``cpus_each`` when all of them fit its CPUs (``ray.cluster_resources()``).

    Actors that do not fit wait for CPUs without a word from Ray, for ever on a Ray that no node
    joins. So when they do not fit this warns, and on a local Ray that ``init`` started (no node
    will join) it returns an equal share of its CPUs instead, so that all of them start and share
    the cores; on a cluster it keeps ``cpus_each`` (an autoscaling cluster adds nodes for them)."""
    ray = require_ray()
    total = float(ray.cluster_resources().get("CPU", 0.0))
    wanted = n * cpus_each
    if n <= 0 or wanted <= total:
        return cpus_each
    if _local_ray:
        share = math.floor(total / n * 10_000) / 10_000          # Ray counts resources in 1/10000ths
        warnings.warn(f"{n} {what} ask for {wanted:g} CPUs but Ray has {total:g}: on this local Ray each asks for "
                      f"{share:g} CPU instead, so that all of them start and share the cores (at most "
                      f"{int(total // cpus_each)} of them run at full speed)", stacklevel=2)
        return share
    warnings.warn(f"{n} {what} ask for {wanted:g} CPUs but Ray has {total:g}: they start only if nodes join (an "
                  "autoscaling cluster); on a fixed Ray they wait for ever, so ask for fewer", stacklevel=2)
    return cpus_each


# ------------------------------------------------------------------------------------------------
# tournaments and other independent games: one Ray task per game
def _play_remote(fn, job):
    """Run ``fn(job)`` (``tournament.run_job``) on a worker; the replay file is written to a
    temporary file *there* and its text returned, so the driver writes it where it belongs even
    when the worker is another machine."""
    path = getattr(job, "replay_path", None)
    if not path:
        return fn(job), None
    import dataclasses
    with tempfile.TemporaryDirectory(prefix="clans-ray-") as tmp:
        local = os.path.join(tmp, "replay.json")
        result = fn(dataclasses.replace(job, replay_path=local))
        if not os.path.exists(local):        # a failed game (tournament.run_job) writes no replay
            return result, None
        text = Path(local).read_text(encoding="utf-8")
    result.replay_path = path
    return result, text


class TournamentExecutor:
    """Plays tournament jobs as Ray tasks, at most ``workers`` at a time (default: every CPU of the
    cluster), each task asking ``cpus_per_game`` CPUs. Pass it as
    ``run_tournament(..., executor=TournamentExecutor(...))``; it yields results as games finish
    (``run_tournament`` puts them back in game order)."""

    def __init__(self, workers: int | None = None, address: str | None = None, cpus_per_game: float = 1.0,
                 num_cpus: int | None = None):
        self.ray = init(address, num_cpus=num_cpus)
        self.workers = workers if workers and workers > 0 else cluster_cpus()
        self._task = self.ray.remote(num_cpus=cpus_per_game, max_retries=2)(_play_remote)

    def __call__(self, fn, jobs):
        from clans_env.engine.game import atomic_write_text

        ray = self.ray
        fn_ref = ray.put(fn)
        pending = list(jobs)
        pending.reverse()
        running = []
        submitted = {}
        while pending or running:
            while pending and len(running) < self.workers:
                job = pending.pop()
                ref = self._task.remote(fn_ref, job)
                submitted[ref] = job
                running.append(ref)
            done, running = ray.wait(running, num_returns=1)
            try:
                result, text = ray.get(done[0])
            except Exception as e:             # the task's worker died (after Ray's retries)
                from .tournament import failed_result
                job = submitted.pop(done[0])
                yield failed_result(job, None, "worker died", f"{type(e).__name__}: {e}")
                continue
            submitted.pop(done[0], None)
            if text is not None:
                atomic_write_text(result.replay_path, text)
            yield result


# ------------------------------------------------------------------------------------------------
# PPO self-play collection: Ray actors, the learner in this process
class _Collector:
    """One self-play collector (the Ray actor behind ``RayWorkerPool``): the same loop as a
    subprocess worker of ``selfplay.WorkerPool``."""

    def __init__(self, config_dict: dict, arch: dict, have_heuristic: bool, torch_threads: int = 1):
        import torch

        from .config import PPOConfig
        from .networks import PolicyValueNet
        from .selfplay import make_encoder

        torch.set_num_threads(torch_threads)
        self.config = PPOConfig.from_dict(config_dict)
        self.arch = arch
        self.encoder = make_encoder(self.config.num_players)
        self.learner = PolicyValueNet.from_arch(arch).eval()
        self.pool: list = []
        self.have_heuristic = have_heuristic

    def _load(self, learner_state, pool_states) -> None:
        from .networks import PolicyValueNet

        self.learner.load_state_dict(learner_state)
        while len(self.pool) < len(pool_states):
            self.pool.append(PolicyValueNet.from_arch(self.arch).eval())
        del self.pool[len(pool_states):]
        for net, st in zip(self.pool, pool_states):
            net.load_state_dict(st)

    def collect(self, weights, seed, target: int, slots: int):
        from .selfplay import collect

        learner_state, pool_states = weights
        self._load(learner_state, pool_states)
        return collect(self.config, self.encoder, self.learner, self.pool, seed, target, slots, self.have_heuristic)

    def evaluate(self, learner_state, opponent: str, games: int, seed: int, game_options: dict, num_slots: int):
        from .evaluate import evaluate_net

        self.learner.load_state_dict(learner_state)
        return evaluate_net(self.learner, self.encoder, self.config.num_players, opponent, games, seed=seed,
                            game_options=game_options, num_slots=num_slots)

    def ping(self) -> bool:
        return True


class RayWorkerPool:
    """``workers`` (default ``config.workers``) Ray actors that each collect a share of an update's games, with the
    interface of ``selfplay.WorkerPool`` (and the same seeds: child ``w`` of the update's
    SeedSequence goes to collector ``w``), so the rollout is the same as with subprocess workers.
    The weights go out once per update through Ray's object store."""

    def __init__(self, config, arch: dict, workers: int | None = None, address: str | None = None,
                 cpus_per_worker: float = 1.0):
        from .selfplay import heuristic_available

        self.ray = init(address)
        have_heuristic = heuristic_available()
        n = workers or config.workers
        if not 1 <= n <= config.num_envs:
            raise ValueError(f"Ray collectors must be between 1 and num_envs ({config.num_envs}); got {n}")
        actor = self.ray.remote(num_cpus=actor_cpus(n, "Ray collectors (--workers)", cpus_per_worker))(_Collector)
        self.actors = [actor.remote(config.to_dict(), arch, have_heuristic, 1) for _ in range(n)]
        self.ray.get([a.ping.remote() for a in self.actors])        # fail here, not mid-update

    def collect(self, config, learner, pool, seed, target: int):
        from .selfplay import Rollout

        ray = self.ray
        W = len(self.actors)
        state = {k: v.detach().clone() for k, v in learner.state_dict().items()}
        weights = ray.put((state, [net.state_dict() for net in pool]))
        children = seed.spawn(W)
        base, extra = divmod(config.num_envs, W)
        refs = [a.collect.remote(weights, children[w], -(-target // W), base + (w < extra))
                for w, a in enumerate(self.actors)]
        try:
            parts = ray.get(refs)
        except Exception as e:      # a RayTaskError carries the worker's traceback
            raise RuntimeError(f"a Ray self-play collector failed: {e}") from e
        return Rollout.concat(parts)

    def evaluate(self, learner, jobs: list[dict]) -> list[dict]:
        """Evaluation matches (``evaluate_net`` keyword sets) spread over the collectors."""
        state = self.ray.put({k: v.detach().clone() for k, v in learner.state_dict().items()})
        refs = [self.actors[i % len(self.actors)].evaluate.remote(state, **job) for i, job in enumerate(jobs)]
        return self.ray.get(refs)

    def close(self) -> None:
        for a in getattr(self, "actors", []):
            try:
                self.ray.kill(a)
            except Exception:     # already gone (cluster shut down)
                pass
        self.actors = []


def collector_count(config) -> int:
    """Ray collectors for a run: ``config.workers`` when >= 1, otherwise one per CPU the cluster
    reports, at most ``num_envs`` (every collector needs a game slot)."""
    if config.workers >= 1:
        return config.workers
    return max(1, min(config.num_envs, cluster_cpus()))


def _ray_trainer_class():
    from .ppo import PPOTrainer

    class RayPPOTrainer(PPOTrainer):
        """``PPOTrainer`` whose self-play collection and evaluation matches run on Ray actors
        (``RayWorkerPool``); the PPO update stays in this process. ``workers`` = 0 means one
        collector per cluster CPU (``collector_count``)."""

        def _ray_pool(self) -> RayWorkerPool:
            if self._workers is None:
                init()
                self._workers = RayWorkerPool(self.config, self.net.arch, workers=collector_count(self.config))
            return self._workers

        def collect(self, seed, progress=None):
            pool = [net for _, net in self.pool]
            self.net.eval()
            return self._ray_pool().collect(self.config, self.net, pool, seed, self.config.rollout_steps)

        def evaluate(self) -> dict:
            cfg = self.config
            jobs = []
            for opponent, games in (("random", cfg.eval_games_random), ("heuristic", cfg.eval_games_heuristic)):
                if games <= 0 or (opponent == "heuristic" and not self.have_heuristic):
                    continue
                jobs.append({"opponent": opponent, "games": games, "seed": cfg.eval_seed,
                             "game_options": cfg.game_options, "num_slots": min(cfg.num_envs, games)})
            if not jobs:
                return {}
            self.net.eval()
            return {job["opponent"]: res for job, res in zip(jobs, self._ray_pool().evaluate(self.net, jobs))}

    return RayPPOTrainer


def __getattr__(name):
    if name == "RayPPOTrainer":          # built on first use: importing this module stays light
        cls = _ray_trainer_class()
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def run_ppo(config, out_dir, resume: bool = False, overrides: dict | None = None, max_updates: int | None = None,
            max_seconds: float | None = None, progress: bool = True, tensorboard: bool = True,
            address: str | None = None, device: str | None = None):
    """``training.ppo.run`` with collection and evaluation on Ray (``clans train ppo --ray``); the PPO
    update stays in this process (on ``device``: a GPU when present)."""
    init(address)
    trainer_cls = __getattr__("RayPPOTrainer")
    if resume:
        trainer = trainer_cls.resume(out_dir, overrides, progress=progress, tensorboard=tensorboard, device=device)
    else:
        trainer = trainer_cls(config, out_dir, progress=progress, tensorboard=tensorboard, device=device)
    trainer.train(max_updates=max_updates, max_seconds=max_seconds)
    return trainer


def startup_seconds(num_cpus: int = 2) -> float:
    """Wall time of ``ray.init`` for a local Ray plus a first trivial task (the benchmark's
    start-up cost). Leaves Ray running."""
    ray = require_ray()
    t = time.perf_counter()
    init(num_cpus=num_cpus)
    ray.get(ray.remote(lambda: 1).remote())
    return time.perf_counter() - t
