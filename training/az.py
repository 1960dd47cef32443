"""AlphaZero-style self-play training: PUCT self-play games, a replay buffer, SGD on the search's
visit distributions and the games' outcomes, evaluation against the previous best and reference
agents, crash-safe checkpoints with exact ``--resume``.

One iteration = play ``games_per_iteration`` self-play games (``parallel_games`` at a time, every
search of every game stepped together so that each forward pass sees a batch of leaves, see
``agents.az.run_searches``), add their positions to the replay buffer, then ``train_steps``
minibatch steps on samples drawn uniformly from the buffer. Every random choice of iteration ``i``
comes from ``SeedSequence([seed, i])``, so a run is a pure function of its config and
``--resume`` continues exactly (``tests/test_az.py`` checks bit-identical weights). With
``selfplay_opponents`` a share of the games seats one fixed agent (a PPO model, the heuristic, ...);
its moves are not samples, the network's are.

Run directory (``--out``)::

    config.toml           the run's configuration
    checkpoint.pt         latest full checkpoint (model, optimizer, best model, counters, buffer file name)
    buffer_i000012.npz    the replay buffer the checkpoint names (older ones are deleted after it)
    model.pt              latest exported model (what AZAgent loads; the PPO model format)
    best.pt               the best model so far by the gating matches
    log.jsonl             one JSON line per iteration and per evaluation
    tb/                   TensorBoard event files

Crash safety follows ``training.ppo``: every file is written atomically; the buffer file comes
first, then the checkpoint that names it, then the exports, and only then are older buffer files
deleted. On resume, ``.tmp-*`` leftovers and buffer files the checkpoint does not name are
removed and log lines after the checkpoint are dropped.
"""
from __future__ import annotations

import copy
import json
import os
import random
import sys
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from torch import nn

from agents.az import (COLLISION_RULES, NetEvaluator, Node, Search, SearchParams, outcome_values, reused_root,
                       run_searches)
from agents.base import Agent
from agents.ppo import (CHECKPOINT_FORMAT, CHECKPOINT_VERSION, CheckpointError, PolicyValueNet, arch_difference,
                        check_encoder, load_policy, read_checkpoint)
from clans_env import Game, GameConfig
from clans_env.engine.actions import NUM_ACTIONS
from clans_env.engine.game import atomic_write, atomic_write_text

from .config import ConfigFile
from .evaluate import summarize
from .loop import (CHECKPOINT_NAME, CONFIG_NAME, LOG_NAME, MODEL_NAME, TrainingLoop, append_log_line,  # noqa: F401
                   resume_overrides, write_point)
from .ppo import _fsync_dir, _optimizer_to, atomic_torch_save, encoder_info, export_model, learner_device
from .progress import Progress
from .selfplay import LEARNER, GameResult, GameSpec, make_encoder

BEST_NAME = "best.pt"
BEST = "best"
POLICY_TARGETS = ("visits", "completed_q")


@dataclass
class AZConfig(ConfigFile):
    """AlphaZero-style self-play settings (see docs/alphazero.md for each field)."""

    KIND = "AZ"
    TITLE = "AlphaZero-style self-play"

    # ---- game and values
    num_players: int = 2
    game_options: dict = field(default_factory=dict)
    #: the value target and the search's terminal values (as PPO: win, rank, score, win+score)
    reward: str = "win+score"
    score_scale: float = 40.0

    # ---- run length and self-play
    seed: int = 0
    iterations: int = 100
    games_per_iteration: int = 16
    #: games played side by side (their searches share forward passes)
    parallel_games: int = 16
    sims: int = 64
    #: playout cap randomization (KataGo): with fast_sims > 0 a move is searched fully (and becomes
    #: a training sample) with probability full_search_prob, else with fast_sims and not recorded
    fast_sims: int = 0
    full_search_prob: float = 1.0
    c_puct: float = 1.5
    fpu: float = 0.2
    leaf_batch: int = 4
    virtual_loss: float = 1.0
    #: a descent into a leaf already waiting for the network: "stop" the search's round there, or
    #: "twin": count it as another visit of that leaf (fuller batches for a sharp prior)
    collisions: str = "stop"
    dirichlet_alpha: float = 0.3
    noise_frac: float = 0.25
    #: the first this many searched decisions of a game are sampled at `temperature`, then greedy
    temperature_moves: int = 30
    temperature: float = 1.0
    tree_reuse: bool = True
    #: agent specs (``agents.make``, e.g. ``"ppo:path=models/ppo_2p/model.pt"``) that take one seat, drawn
    #: at random, in a share ``opponent_games`` of each iteration's games; the other seats search and
    #: are recorded as usual, so the network also learns on the positions those opponents lead to
    selfplay_opponents: list = field(default_factory=list)
    opponent_games: float = 0.0
    #: DAgger: the share of searched, recorded moves (after the sampled opening) on which the
    #: network's own choice, the prior's most probable legal action, is played instead of the
    #: search's; the sample is still the search's target, so the network learns on the positions
    #: its own play leads to (0: the search plays every move, AlphaZero)
    raw_move_prob: float = 0.0

    # ---- network (ignored for the architecture when init_from names a model)
    #: a PPO or AZ model file to start from (its architecture and weights), or "none"
    init_from: str | None = None
    hidden_sizes: list = field(default_factory=lambda: [256, 256])
    activation: str = "tanh"
    mask_in_obs: bool = True
    shared_torso: bool = True

    # ---- learning
    buffer_size: int = 40000
    min_buffer: int = 1000
    batch_size: int = 256
    train_steps: int = 100
    learning_rate: float = 1e-3
    weight_decay: float = 1e-4
    value_coef: float = 1.0
    max_grad_norm: float = 1.0
    #: the policy target is the root visits ** (1 / T), normalised: 1 is AlphaZero's visit
    #: distribution; below 1 it sharpens toward the search's own choice (expert iteration), which
    #: few-simulation searches need (their visits are mostly the prior's)
    policy_target_temperature: float = 1.0
    #: "visits": the root visit counts (AlphaZero); "completed_q": Gumbel MuZero's improved policy
    #: softmax(log prior + sigma(completed Q)) (``Search.completed_q_policy`` with ``c_visit`` and
    #: ``c_scale``), which credits what the search found good also where few simulations went
    policy_target: str = "visits"
    c_visit: float = 50.0
    c_scale: float = 0.1

    # ---- evaluation, checkpoints
    eval_every: int = 5
    #: games against each reference agent spec (agents.make) per evaluation
    eval_games: int = 10
    eval_opponents: list = field(default_factory=lambda: ["heuristic"])
    eval_sims: int = 32
    #: games against the previous best model; promoted when it scores >= gate_threshold
    gate_games: int = 10
    gate_threshold: float = 0.55
    eval_seed: int = 12345
    checkpoint_every: int = 1
    torch_threads: int = 1

    RESUME_MUTABLE = ("iterations", "eval_every", "eval_games", "eval_opponents", "eval_sims", "gate_games",
                      "checkpoint_every", "torch_threads")

    def validate(self) -> None:
        bad = self._bad
        self._check_self_play_fields()
        self._check_ranges(
            positive_ints=("iterations", "games_per_iteration", "parallel_games", "sims", "leaf_batch", "buffer_size",
                           "batch_size", "eval_every", "eval_sims", "checkpoint_every", "torch_threads"),
            ints_from_zero=("fast_sims", "temperature_moves", "min_buffer", "train_steps", "eval_games", "gate_games"),
            positive=("c_puct", "learning_rate", "score_scale", "max_grad_norm", "dirichlet_alpha",
                      "policy_target_temperature", "c_visit", "c_scale"),
            unit=("full_search_prob", "noise_frac", "gate_threshold", "opponent_games", "raw_move_prob"),
            non_negative=("fpu", "virtual_loss", "weight_decay", "value_coef", "temperature"))
        for name in ("eval_opponents", "selfplay_opponents"):
            specs = getattr(self, name)
            if not isinstance(specs, list) or not all(isinstance(s, str) for s in specs):
                bad(name, "must be a list of agent specs (strings)")
        if self.collisions not in COLLISION_RULES:
            bad("collisions", f"must be one of {COLLISION_RULES}")
        if self.policy_target not in POLICY_TARGETS:
            bad("policy_target", f"must be one of {POLICY_TARGETS}")
        if self.opponent_games > 0 and not self.selfplay_opponents:
            bad("opponent_games", "needs selfplay_opponents (agent specs) to draw the opponents from")

    def search_params(self) -> SearchParams:
        return SearchParams(c_puct=self.c_puct, fpu=self.fpu, leaf_batch=self.leaf_batch,
                            virtual_loss=self.virtual_loss, reward=self.reward, score_scale=self.score_scale,
                            collisions=self.collisions)


# ------------------------------------------------------------------------------------------------
# replay buffer
class ReplayBuffer:
    """A ring of training samples: observation (float16; the encoder's values round to within 4e-4),
    legal mask, root visit counts (the policy target, normalised when sampled) and the final outcome
    of every seat relative to the mover (the value target)."""

    def __init__(self, capacity: int, obs_size: int, num_players: int):
        self.capacity = int(capacity)
        self.obs = np.zeros((capacity, obs_size), dtype=np.float16)
        self.mask = np.zeros((capacity, NUM_ACTIONS), dtype=bool)
        self.visits = np.zeros((capacity, NUM_ACTIONS), dtype=np.uint16)
        self.z = np.zeros((capacity, num_players), dtype=np.float32)
        self.size = 0
        self.next = 0          # where the next sample goes
        self.added = 0         # samples ever added

    def __len__(self) -> int:
        return self.size

    def add(self, obs, mask, visits, z) -> None:
        i = self.next
        self.obs[i] = obs
        self.mask[i] = mask
        self.visits[i] = visits
        self.z[i] = z
        self.next = (i + 1) % self.capacity
        self.size = min(self.size + 1, self.capacity)
        self.added += 1

    def sample(self, idx: np.ndarray, target_temperature: float = 1.0) -> tuple[torch.Tensor, ...]:
        obs = torch.from_numpy(self.obs[idx].astype(np.float32))
        mask = torch.from_numpy(self.mask[idx])
        v = self.visits[idx].astype(np.float32)
        if target_temperature != 1.0:
            # scaled by the row's maximum first: 65535 ** 4 would overflow float32
            v = (v / np.maximum(v.max(axis=1, keepdims=True), 1.0)) ** (1.0 / target_temperature)
        pi = torch.from_numpy(v / np.maximum(v.sum(axis=1, keepdims=True), 1e-30))
        return obs, mask, pi, torch.from_numpy(self.z[idx])

    def save(self, path) -> None:
        n = self.size

        def write(fh):
            np.savez_compressed(fh, obs=self.obs[:n], mask=self.mask[:n], visits=self.visits[:n], z=self.z[:n],
                                meta=np.array([self.capacity, self.size, self.next, self.added], dtype=np.int64))
            write_point(f"inside {Path(path).name} (temporary file, before the rename)")
        atomic_write(path, write, binary=True)
        write_point(f"after {Path(path).name}")

    #: the arrays of a buffer file: name -> (dtype, row width given obs_size and num_players)
    FIELDS = {"obs": (np.float16, lambda o, n: o), "mask": (np.bool_, lambda o, n: NUM_ACTIONS),
              "visits": (np.uint16, lambda o, n: NUM_ACTIONS), "z": (np.float32, lambda o, n: n)}

    @classmethod
    def load(cls, path, obs_size: int, num_players: int, *, capacity: int) -> "ReplayBuffer":
        """The buffer saved at ``path``, for a run whose config has ``capacity`` (buffer_size),
        ``obs_size`` and ``num_players``. Raises ``CheckpointError`` naming the file and the fault
        when it is unreadable (truncated, not a zip), lacks an array, holds object arrays, or its
        sizes disagree with the config; sizes are checked from the arrays' headers, before anything
        is allocated or decompressed."""
        where = os.fspath(path)
        try:
            headers = _npz_headers(where)
        except CheckpointError:
            raise
        except Exception as e:          # zipfile.BadZipFile, EOFError, a bad .npy header, ...
            raise CheckpointError(f"replay buffer {where!r} is unreadable (truncated or damaged?): "
                                  f"{type(e).__name__}: {e}") from None
        missing = [k for k in (*cls.FIELDS, "meta") if k not in headers]
        if missing:
            raise CheckpointError(f"replay buffer {where!r} lacks the arrays {missing}")
        shape, dtype = headers["meta"]
        if shape != (4,) or dtype.kind not in "iu":
            raise CheckpointError(f"replay buffer {where!r}: meta must be 4 integers (got shape {shape}, {dtype})")
        try:
            with np.load(where, allow_pickle=False) as d:
                file_capacity, size, nxt, added = (int(x) for x in d["meta"])
                if file_capacity != capacity:
                    raise CheckpointError(f"replay buffer {where!r} has capacity {file_capacity}, but the run's "
                                          f"buffer_size is {capacity}")
                if not (0 <= size <= capacity and added >= size and size == min(added, capacity)
                        and nxt == added % capacity):
                    raise CheckpointError(f"replay buffer {where!r}: inconsistent counters size={size}, "
                                          f"next={nxt}, added={added} for capacity {capacity}")
                for name, (want, width) in cls.FIELDS.items():
                    shape, dtype = headers[name]
                    expected = (size, width(obs_size, num_players))
                    if shape != expected or dtype != np.dtype(want):
                        raise CheckpointError(
                            f"replay buffer {where!r}: {name} is {dtype} of shape {shape}, expected {np.dtype(want)} "
                            f"of shape {expected} (obs_size={obs_size}, num_players={num_players}, {size} samples)")
                buf = cls(capacity, obs_size, num_players)
                for name in cls.FIELDS:
                    getattr(buf, name)[:size] = d[name]
        except CheckpointError:
            raise
        except Exception as e:
            raise CheckpointError(f"replay buffer {where!r} is unreadable (truncated or damaged?): "
                                  f"{type(e).__name__}: {e}") from None
        if not (np.isfinite(buf.obs[:size]).all() and np.isfinite(buf.z[:size]).all()):
            raise CheckpointError(f"replay buffer {where!r} holds non-finite observations or value targets")
        buf.size, buf.next, buf.added = size, nxt, added
        return buf


def _npz_headers(path: str) -> dict:
    """name -> (shape, dtype) of every array in the .npz file ``path``, read from the .npy headers
    only (nothing is decompressed beyond them); raises ``CheckpointError`` for object arrays."""
    out = {}
    with zipfile.ZipFile(path) as z:
        for info in z.infolist():
            if not info.filename.endswith(".npy"):
                continue
            with z.open(info) as fh:
                version = np.lib.format.read_magic(fh)
                read = np.lib.format.read_array_header_1_0 if version == (1, 0) else \
                    np.lib.format.read_array_header_2_0
                shape, _, dtype = read(fh)
            if dtype.hasobject:
                raise CheckpointError(f"replay buffer {path!r}: {info.filename[:-4]} is an object array "
                                      f"(a buffer holds numbers only)")
            out[info.filename[:-4]] = (tuple(shape), dtype)
    return out


# ------------------------------------------------------------------------------------------------
# playing batches of games
@dataclass
class PlayedGame:
    result: GameResult
    samples: list = field(default_factory=list)     # (obs, legal, visits dict, seat)
    searched_moves: int = 0


def play_games(cfg: AZConfig, encoder, specs: list[GameSpec], seat_agents: list[list], evaluators: dict,
               rng: np.random.Generator, selfplay: bool, sims: int | None = None, progress=None) -> tuple[list, dict]:
    """Play ``specs`` (``cfg.parallel_games`` at a time). ``seat_agents[g][s]`` is a network key of
    ``evaluators`` (that seat searches with that network) or an ``Agent``. With ``selfplay`` the
    searches use Dirichlet noise and the temperature schedule, and fully searched moves become
    samples. Returns (PlayedGame per spec, statistics)."""
    params = cfg.search_params()
    sims = cfg.sims if sims is None else sims
    out: list[PlayedGame | None] = [None] * len(specs)
    stats = {"searched_moves": 0, "simulations": 0, "positions": 0, "forward_passes": 0}
    queue = list(range(len(specs)))
    running: dict[int, Game] = {}
    played: dict[int, PlayedGame] = {}
    trees: dict = {}
    passes0 = {k: (ev.forward_passes, ev.positions) for k, ev in evaluators.items()}
    while queue or running:
        while queue and len(running) < cfg.parallel_games:
            gi = queue.pop(0)
            sp = specs[gi]
            running[gi] = Game(GameConfig(num_players=cfg.num_players, seed=sp.seed, **cfg.game_options))
            played[gi] = PlayedGame(GameResult(sp, [], np.zeros(cfg.num_players, np.float32), 0))
        searches = []
        for gi in list(running):
            g = running[gi]
            pg = played[gi]
            while not g.is_terminal():
                ctrl = seat_agents[gi][g.current_player]
                legal = g.legal_actions()
                if isinstance(ctrl, Agent):
                    g.apply(ctrl.act(g))
                elif len(legal) == 1:
                    g.apply(legal[0])
                else:
                    break
                pg.result.decisions += 1
            if g.is_terminal():
                scores = g.final_scores()
                pg.result.scores = scores
                pg.result.outcomes = np.asarray(outcome_values(scores, cfg.reward, cfg.score_scale), np.float32)
                out[gi] = pg
                del running[gi]
                if progress is not None:
                    progress(1)
                continue
            key = seat_agents[gi][g.current_player]
            history = g.history
            old = trees.get((gi, key))
            root = reused_root(old[0], old[1], history, g.num_players) if (cfg.tree_reuse and old) \
                else Node(g.num_players)
            full = not selfplay or cfg.fast_sims == 0 or rng.random() < cfg.full_search_prob
            noise = (cfg.dirichlet_alpha, cfg.noise_frac, rng) if (selfplay and full and cfg.noise_frac > 0) else None
            s = Search(g, root, sims if full else cfg.fast_sims, random.Random(int(rng.integers(2 ** 62))), params,
                       key=key, noise=noise)
            searches.append((gi, s, full, history))
        if not searches:
            continue
        run_searches([s for _, s, _, _ in searches], evaluators)
        for gi, s, full, history in searches:
            g = running[gi]
            pg = played[gi]
            opening = selfplay and pg.searched_moves < cfg.temperature_moves
            a = s.choose(cfg.temperature if opening else 0.0, rng)
            if selfplay and full and not opening and cfg.raw_move_prob > 0 and rng.random() < cfg.raw_move_prob:
                a = s.prior_choice()
            if selfplay and full:
                p = g.current_player
                pg.samples.append((encoder.encode(g, p), s.root_legal, _policy_target(cfg, s), p))
            trees[(gi, s.key)] = (s.root, history)
            pg.searched_moves += 1
            stats["searched_moves"] += 1
            stats["simulations"] += s.done
            g.apply(a)
            pg.result.decisions += 1
        for k in [k for k in trees if k[0] not in running]:
            del trees[k]
    for k, ev in evaluators.items():
        stats["forward_passes"] += ev.forward_passes - passes0[k][0]
        stats["positions"] += ev.positions - passes0[k][1]
    return out, stats


def _policy_target(cfg: AZConfig, search: Search) -> dict[int, int]:
    """A searched move's policy target as the buffer's counts: the visits, or the completed-Q
    policy in units of 1/65535 (the buffer normalises the row when it is sampled)."""
    if cfg.policy_target == "visits":
        return search.visits()
    pi = search.completed_q_policy(cfg.c_visit, cfg.c_scale)
    return {a: int(round(x * 65535)) for a, x in pi.items()}


def _score_against_opponents(games: list[PlayedGame]) -> tuple[int, float]:
    """(games with an opponent seat, the network's mean score in them: 1 a win, 0.5 a shared first
    place, 0 a loss)."""
    points = []
    for pg in games:
        kinds = pg.result.spec.kinds
        if not kinds or all(k == "current" for k in kinds):
            continue
        ranks = [r["rank"] for r in pg.result.scores]          # ties broken as the rules break them
        ours = min(r for r, k in zip(ranks, kinds) if k == "current")
        others = min(r for r, k in zip(ranks, kinds) if k != "current")
        points.append(1.0 if ours < others else 0.5 if ours == others else 0.0)
    return len(points), float(np.mean(points)) if points else 0.0


def _game_seeds(rng: np.random.Generator, n: int) -> list[int]:
    return [int(x) for x in rng.integers(2 ** 31, size=n)]


# ------------------------------------------------------------------------------------------------
class AZTrainer(TrainingLoop):
    """Owns an AlphaZero-style run: network, best network, optimizer, replay buffer, counters,
    logging and checkpoints (see the module docstring)."""

    def __init__(self, config: AZConfig, out_dir, encoder=None, tensorboard: bool = True, progress: bool = True,
                 device: str | None = None, _resume_ckpt: dict | None = None):
        self.config = config
        self.device = learner_device(device)
        self.out = Path(out_dir)
        self.encoder = encoder if encoder is not None else make_encoder(config.num_players, config.game_options)
        torch.set_num_threads(config.torch_threads)
        self.progress = progress
        self._tensorboard = tensorboard
        self._writer = None
        self.net = self._initial_net()
        self.best = PolicyValueNet.from_arch(self.net.arch)
        self.best.load_state_dict(self.net.state_dict())
        self.best.eval()
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=config.learning_rate,
                                          weight_decay=config.weight_decay)
        self.buffer = ReplayBuffer(config.buffer_size, self.encoder.size, config.num_players)
        self.iteration = 0
        self.games = 0
        self.samples_trained = 0     # minibatch samples seen by SGD
        self.best_iteration = 0
        self.elapsed = 0.0
        self.cpu = 0.0
        self._saved_iteration = None
        self._mid_iteration = False
        self._open_run_folder(_resume_ckpt, prune=lambda: self._prune_buffers(keep=None))

    def _initial_net(self) -> PolicyValueNet:
        cfg = self.config
        if cfg.init_from:
            net, ckpt = load_policy(cfg.init_from, num_players=cfg.num_players)
            check_encoder(ckpt, self.encoder, cfg.init_from)
            return net.train()
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(cfg.seed)
            return PolicyValueNet(self.encoder.size, NUM_ACTIONS, cfg.num_players, hidden_sizes=cfg.hidden_sizes,
                                  activation=cfg.activation, mask_in_obs=cfg.mask_in_obs,
                                  shared_torso=cfg.shared_torso)

    # ---- resume ---------------------------------------------------------------------------------
    @classmethod
    def resume(cls, out_dir, overrides: dict | None = None, **kwargs) -> "AZTrainer":
        """Continue the run in ``out_dir`` from its checkpoint (``overrides``: only the fields of
        ``AZConfig.RESUME_MUTABLE``); a run killed before its first checkpoint restarts from its
        config.toml."""
        path = Path(out_dir) / CHECKPOINT_NAME
        if path.is_file():
            ckpt = read_checkpoint(path)
            if ckpt.get("kind") != "az-checkpoint":
                raise CheckpointError(f"{str(path)!r} is not an AlphaZero training checkpoint")
            config = AZConfig.from_dict(ckpt["config"])
        elif (Path(out_dir) / CONFIG_NAME).is_file():
            ckpt, config = None, AZConfig.load(Path(out_dir) / CONFIG_NAME)
        else:
            raise FileNotFoundError(f"cannot resume: {str(path)!r} does not exist (start a new run without --resume)")
        config = resume_overrides(config, overrides, AZConfig.RESUME_MUTABLE)
        if ckpt is None:
            return cls(config, out_dir, **kwargs)
        return cls(config, out_dir, _resume_ckpt=ckpt, **kwargs)

    def _restore(self, ckpt: dict) -> None:
        where = str(self.out / CHECKPOINT_NAME)
        check_encoder(ckpt, self.encoder, where)
        diff = arch_difference(ckpt["arch"], self.net.arch)
        if diff:
            raise CheckpointError(f"{where!r}: the checkpoint's arch does not match the network its config builds "
                                  f"({'; '.join(diff)})")
        self.net.load_state_dict(ckpt["model"])
        self.best.load_state_dict(ckpt["best_model"])
        self.optimizer.load_state_dict(ckpt["optimizer"])
        c = ckpt["counters"]
        self.iteration, self.games, self.samples_trained, self.best_iteration = (
            int(c["iteration"]), int(c["games"]), int(c["samples_trained"]), int(c["best_iteration"]))
        self.elapsed, self.cpu = float(c["elapsed"]), float(c["cpu_s"])
        name = ckpt["buffer"]
        if name:
            self.buffer = ReplayBuffer.load(self.out / name, self.encoder.size, self.config.num_players,
                                             capacity=self.config.buffer_size)
        self._saved_iteration = self.iteration
        self._prune_buffers(keep=name)
        self._export()
        log = self.out / LOG_NAME
        if log.exists():
            kept = []
            for ln in log.read_text(encoding="utf-8", errors="replace").splitlines():
                try:
                    row = json.loads(ln)
                except ValueError:
                    continue                         # a line torn by a kill
                if row.get("iteration", 0) <= self.iteration:
                    kept.append(ln)
            atomic_write_text(log, "".join(ln + "\n" for ln in kept))
            write_point(f"after rewriting {LOG_NAME}")

    # ---- files -------------------------------------------------------------------------------------
    def _buffer_name(self) -> str:
        return f"buffer_i{self.iteration:06d}.npz"

    def _prune_buffers(self, keep: str | None) -> None:
        for f in sorted(self.out.glob("buffer_i*.npz")):
            if f.name != keep:
                f.unlink(missing_ok=True)
                write_point(f"after deleting {f.name}")

    def _export(self) -> None:
        extra = {"algorithm": "alphazero", "counters": {"iteration": self.iteration}}
        export_model(self.net, self.config, self.out / MODEL_NAME, self.encoder, extra)
        export_model(self.best, self.config, self.out / BEST_NAME, self.encoder,
                     {**extra, "best_iteration": self.best_iteration})

    def save(self) -> Path:
        """Buffer file, then the checkpoint naming it, then model.pt / best.pt; older buffer files are
        deleted only once the new checkpoint is durable."""
        name = self._buffer_name() if len(self.buffer) else None
        if name:
            self.buffer.save(self.out / name)
        path = self.out / CHECKPOINT_NAME
        atomic_torch_save({
            "format": CHECKPOINT_FORMAT, "version": CHECKPOINT_VERSION, "kind": "az-checkpoint",
            "arch": self.net.arch, "config": self.config.to_dict(), "encoder": encoder_info(self.encoder),
            "model": self.net.state_dict(), "best_model": self.best.state_dict(),
            "optimizer": self.optimizer.state_dict(), "buffer": name,
            "counters": {"iteration": self.iteration, "games": self.games, "samples_trained": self.samples_trained,
                         "best_iteration": self.best_iteration, "elapsed": self.elapsed, "cpu_s": self.cpu}}, path)
        self._export()
        _fsync_dir(self.out)
        self._prune_buffers(keep=name)
        self._saved_iteration = self.iteration
        return path

    # ---- one iteration -------------------------------------------------------------------------------
    def self_play(self, rng: np.random.Generator, progress=None) -> tuple[list, dict]:
        cfg = self.config
        seeds = _game_seeds(rng, cfg.games_per_iteration)
        specs, seat_agents = [], []
        for s in seeds:
            controllers, row = [LEARNER] * cfg.num_players, [LEARNER] * cfg.num_players
            kinds = ["current"] * cfg.num_players
            # (drawn only when opponents are configured, so that plain self-play keeps its games)
            if cfg.opponent_games > 0 and rng.random() < cfg.opponent_games:
                seat = int(rng.integers(cfg.num_players))
                spec = cfg.selfplay_opponents[int(rng.integers(len(cfg.selfplay_opponents)))]
                row[seat] = self._opponent(spec, int(rng.integers(2 ** 31)))
                controllers[seat] = kinds[seat] = spec
            specs.append(GameSpec(seed=s, controllers=controllers, trained=[c == LEARNER for c in controllers],
                                  kinds=kinds))
            seat_agents.append(row)
        self.net.eval()
        ev = {LEARNER: NetEvaluator(self.net, self.encoder)}
        games, stats = play_games(cfg, self.encoder, specs, seat_agents, ev, rng, selfplay=True, progress=progress)
        stats["opponent_games"], stats["opponent_score"] = _score_against_opponents(games)
        return games, stats

    def _opponent(self, spec: str, seed: int):
        """A fresh agent of ``spec`` for one self-play game, seeded (its model files are read once)."""
        from agents import make
        cache = self.__dict__.setdefault("_opponent_protos", {})
        if spec not in cache:
            try:
                cache[spec] = make(spec)
            except (ValueError, OSError) as e:
                raise ValueError(f"selfplay_opponents: cannot build {spec!r}: {e}") from None
        agent = copy.deepcopy(cache[spec])
        agent.reset(seed=seed)
        return agent

    def add_games(self, games: list[PlayedGame]) -> int:
        n = 0
        for pg in games:
            z = pg.result.outcomes
            for obs, legal, visits, seat in pg.samples:
                mask = np.zeros(NUM_ACTIONS, dtype=bool)
                mask[legal] = True
                v = np.zeros(NUM_ACTIONS, dtype=np.uint16)
                for a, c in visits.items():
                    v[a] = min(c, 65535)
                self.buffer.add(obs, mask, v, np.roll(z, -seat))
                n += 1
        return n

    def train_steps(self, rng: np.random.Generator) -> dict:
        cfg = self.config
        if len(self.buffer) < max(cfg.min_buffer, 1) or cfg.train_steps == 0:
            return {}
        dev = self.device
        net = self.net
        if dev.type != "cpu":
            net.to(dev)
            _optimizer_to(self.optimizer, dev)
        net.train()
        sums = {"policy_loss": 0.0, "value_loss": 0.0, "policy_entropy": 0.0, "grad_norm": 0.0}
        try:
            for _ in range(cfg.train_steps):
                idx = rng.integers(len(self.buffer), size=min(cfg.batch_size, len(self.buffer)))
                obs, mask, pi, z = (t.to(dev) for t in self.buffer.sample(idx, cfg.policy_target_temperature))
                logits, values = net(obs, mask)
                logp = torch.log_softmax(logits.masked_fill(~mask, float("-inf")), dim=-1).masked_fill(~mask, 0.0)
                policy_loss = -(pi * logp).sum(-1).mean()
                value_loss = ((values - z) ** 2).mean()
                loss = policy_loss + cfg.value_coef * value_loss
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                grad_norm = nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
                self.optimizer.step()
                with torch.no_grad():
                    entropy = -(logp.exp() * logp).sum(-1).mean()
                for k, v in (("policy_loss", policy_loss), ("value_loss", value_loss), ("policy_entropy", entropy),
                             ("grad_norm", grad_norm)):
                    sums[k] += float(v.detach()) if torch.is_tensor(v) else float(v)
                self.samples_trained += len(idx)
        finally:
            net.eval()
            if dev.type != "cpu":
                net.to("cpu")
                _optimizer_to(self.optimizer, torch.device("cpu"))
        return {k: v / cfg.train_steps for k, v in sums.items()}

    def train_step(self, progress=None) -> dict:
        cfg = self.config
        play_seed, train_seed = np.random.SeedSequence([cfg.seed, self.iteration]).spawn(2)
        t0, c0 = time.perf_counter(), time.process_time()
        games, stats = self.self_play(np.random.default_rng(play_seed), progress)
        self._mid_iteration = True          # the buffer has moved, the counters not yet
        added = self.add_games(games)
        t1 = time.perf_counter()
        losses = self.train_steps(np.random.default_rng(train_seed))
        t2 = time.perf_counter()
        self.iteration += 1
        self.games += len(games)
        self.elapsed += t2 - t0
        self.cpu += time.process_time() - c0
        self._mid_iteration = False
        totals = [r["total"] for pg in games for r in pg.result.scores]
        return {"iteration": self.iteration, "update": self.iteration, "global_step": self.buffer.added,
                "games": self.games, "samples": added, "buffer": len(self.buffer),
                "samples_trained": self.samples_trained, "selfplay_s": t1 - t0, "train_s": t2 - t1,
                "searched_moves": stats["searched_moves"], "simulations": stats["simulations"],
                "positions_per_s": stats["positions"] / max(t1 - t0, 1e-9),
                "mean_batch": stats["positions"] / max(stats["forward_passes"], 1),
                "moves_per_s": stats["searched_moves"] / max(t1 - t0, 1e-9),
                "train/mean_score": float(np.mean(totals)) if totals else 0.0,
                "train/game_decisions": float(np.mean([pg.result.decisions for pg in games])),
                **({"train/opponent_games": stats["opponent_games"], "train/vs_opponents": stats["opponent_score"]}
                   if stats.get("opponent_games") else {}),
                "elapsed_s": self.elapsed, "cpu_s": self.cpu, **losses}

    # ---- evaluation ----------------------------------------------------------------------------------
    def match(self, opponent, games: int, seed: int) -> dict:
        """``games`` games of the current network (searching with ``eval_sims``, no noise, greedy)
        against ``opponent``: ``BEST`` (the best network, same search) or an agent spec; seats
        alternate, deals and agent seeds are fixed by ``seed``. Returns ``summarize``'s dict."""
        from agents import make
        cfg = self.config
        rng = np.random.default_rng([seed, 7919])
        seeds = _game_seeds(np.random.default_rng(seed), games)
        evaluators = {LEARNER: NetEvaluator(self.net, self.encoder)}
        if opponent == BEST:
            evaluators[BEST] = NetEvaluator(self.best, self.encoder)
        specs, seat_agents = [], []
        for i, s in enumerate(seeds):
            seat = i % cfg.num_players
            name = opponent if opponent == BEST else opponent.split(":")[0]
            specs.append(GameSpec(seed=s, controllers=[LEARNER if q == seat else name for q in range(cfg.num_players)],
                                  trained=[False] * cfg.num_players, learner_seat=seat))
            row = []
            for q in range(cfg.num_players):
                if q == seat:
                    row.append(LEARNER)
                elif opponent == BEST:
                    row.append(BEST)
                else:
                    agent = make(opponent)
                    agent.reset(seed=s * 7 + q)
                    row.append(agent)
            seat_agents.append(row)
        self.net.eval()
        played, _ = play_games(cfg, self.encoder, specs, seat_agents, evaluators, rng, selfplay=False,
                               sims=cfg.eval_sims)
        return summarize([pg.result for pg in played])

    def evaluate(self) -> dict:
        cfg = self.config
        out = {}
        for spec in cfg.eval_opponents:
            if cfg.eval_games > 0:
                out[spec] = self.match(spec, cfg.eval_games, cfg.eval_seed)
        if cfg.gate_games > 0:
            res = self.match(BEST, cfg.gate_games, cfg.eval_seed + self.iteration)
            out["previous_best"] = res
            if res["win_rate"] >= cfg.gate_threshold:
                self.best.load_state_dict(self.net.state_dict())
                self.best_iteration = self.iteration
                res["promoted"] = True
        return out

    # ---- logging -------------------------------------------------------------------------------------
    def _log(self, row: dict) -> None:
        append_log_line(self.out / LOG_NAME, row)
        if self._writer is None and self._tensorboard:
            from torch.utils.tensorboard import SummaryWriter
            self._writer = SummaryWriter(log_dir=str(self.out / "tb"), purge_step=row["iteration"])
        w = self._writer
        if w is None:
            return
        step = row["iteration"]
        if row.get("kind") == "eval":
            for opp, res in row["results"].items():
                w.add_scalar(f"eval/win_rate_vs_{opp}", res["win_rate"], step)
                w.add_scalar(f"eval/mean_margin_vs_{opp}", res["margin"]["mean"], step)
        else:
            for k, v in row.items():
                if isinstance(v, (int, float)) and k not in ("iteration", "update"):
                    w.add_scalar(k if "/" in k else f"az/{k}", v, step)
        w.flush()

    # ---- the loop (training.loop.TrainingLoop) --------------------------------------------------------
    step_name, progress_unit, progress_desc = "iteration", "iterations", "az"

    def train(self, max_iterations: int | None = None, max_seconds: float | None = None) -> dict:
        """Iterate until ``iterations`` (or ``max_iterations`` more / ``max_seconds``), evaluating and
        checkpointing on schedule and at the end. Returns the last evaluation."""
        return self._run_loop(max_iterations, max_seconds)

    def _steps_done(self) -> int:
        return self.iteration

    def _progress_now_and_total(self) -> tuple[int, int]:
        return self.iteration, self.config.iterations

    def _one_step(self, bar) -> dict:
        games_bar = Progress(self.config.games_per_iteration, f"self-play {self.iteration + 1}", "games",
                             enabled=self.progress, leave=False)
        try:
            row = self.train_step(progress=games_bar.update)
        finally:
            games_bar.close()
        self._log(row)
        return row

    def _postfix(self, row: dict) -> dict:
        out = {"games": self.games, "buf": len(self.buffer), "pos/s": f"{row['positions_per_s']:.0f}"}
        if "policy_loss" in row:
            out.update({"pl": f"{row['policy_loss']:.2f}", "vl": f"{row['value_loss']:.3f}"})
        return out

    def _mid_step(self) -> bool:
        return self._mid_iteration        # the buffer has moved, the counters not yet

    def _last_saved(self):
        return self._saved_iteration

    # no evaluation at a budget stop: an evaluation may promote the network to best, and a run
    # stopped and resumed must end exactly where an uninterrupted one ends

    def _eval_and_log(self) -> dict:
        t0 = time.perf_counter()
        results = self.evaluate()
        if results:
            self._log({"kind": "eval", "iteration": self.iteration, "update": self.iteration,
                       "global_step": self.buffer.added, "seconds": time.perf_counter() - t0, "results": results,
                       "best_iteration": self.best_iteration})
        return results

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None


def run(config: AZConfig | None, out_dir, resume: bool = False, overrides: dict | None = None,
        max_iterations: int | None = None, max_seconds: float | None = None, progress: bool = True,
        tensorboard: bool = True, device: str | None = None) -> AZTrainer:
    """Start (or with ``resume`` continue) a run and train it; the command-line entry point. ``device``:
    where the SGD steps run (None / "auto": a GPU when one is present, else the CPU); self-play
    searches run on the CPU."""
    kwargs = {"progress": progress, "tensorboard": tensorboard, "device": device}
    trainer = AZTrainer.resume(out_dir, overrides, **kwargs) if resume else AZTrainer(config, out_dir, **kwargs)
    if progress:
        name = torch.cuda.get_device_name(trainer.device) if trainer.device.type == "cuda" else "CPU"
        print(f"AlphaZero training steps on {trainer.device} ({name}); self-play search on the CPU", file=sys.stderr)
    trainer.train(max_iterations=max_iterations, max_seconds=max_seconds)
    return trainer
