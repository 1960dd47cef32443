"""Masked PPO with self-play against a pool of past selves and fixed agents.

One update = collect at least ``rollout_steps`` learner decisions with ``selfplay.collect``
(complete games only), then ``epochs`` passes of clipped-PPO minibatch SGD over them. Every
random choice of update ``u`` is drawn from ``SeedSequence([seed, u])``, so a run is a pure
function of its config: ``--resume`` from a checkpoint continues exactly as if the run had never
stopped (``tests/test_ppo.py`` checks that the parameters after N+1 updates are bit-identical).

Run directory (``--out``)::

    config.toml        the run's configuration
    checkpoint.pt      latest full checkpoint (model, optimizer, pool list, RNG states, counters)
    model.pt           latest exported policy (what PPOAgent loads; no optimizer state)
    pool/              frozen snapshots currently in the opponent pool
    log.jsonl          one JSON line per update (and per evaluation)
    tb/                TensorBoard event files

Crash safety: a run can be resumed after a kill at any instant. Every file is written
atomically; ``save`` writes checkpoint.pt, then model.pt, syncs the folder, and only then deletes
the pool snapshots the new checkpoint no longer lists (a snapshot leaves the in-memory pool in
``train_step`` but its file stays until that point). On start, leftover ``.tmp-*`` files and
pool files the checkpoint does not list are removed, a model.pt that lags the checkpoint is
rewritten from it, and a torn or unreadable log line is dropped with a warning. A run killed
before its first checkpoint restarts from its config.toml on ``--resume``.
``tests/test_ppo_kill_resume.py`` SIGKILLs real runs at random moments and at every write point
(``CLANS_KILL_AT_WRITE``, see ``training.loop``) and resumes each time.
"""
from __future__ import annotations

import json
import os
import random
import re
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import torch
from torch import nn

from agents.ppo import (CHECKPOINT_FORMAT, CHECKPOINT_VERSION, WEIGHT_FIELDS, CheckpointError, action_table_fingerprint,
                        arch_difference,
                        check_encoder, load_policy, observation_fingerprint, observation_layout, read_checkpoint,
                        stamp_weights)
from clans_env.engine.actions import NUM_ACTIONS
from clans_env.engine.game import atomic_write, atomic_write_text

from .config import PPOConfig
from .evaluate import evaluate_net
from .loop import (CHECKPOINT_NAME, CONFIG_NAME, LOG_NAME, MODEL_NAME, POOL_DIR, TMP_PREFIX, TrainingLoop,  # noqa: F401
                   append_log_line, resume_overrides, write_point)
from .networks import PolicyValueNet, build_network, count_parameters
from .selfplay import LEARNER, Rollout, WorkerPool, collect, heuristic_available, make_encoder


# ------------------------------------------------------------------------------------------------
# files
def atomic_torch_save(obj, path) -> None:
    """``torch.save`` written atomically (temporary file, fsync, rename): a crash leaves either the
    old file or the new one, never a torn one. A checkpoint or model (a dict with network weights)
    gets the sha256 of its weights (``agents.ppo.stamp_weights``), which loading verifies."""
    name = os.path.basename(os.fspath(path))
    if isinstance(obj, dict) and any(isinstance(obj.get(f), dict) for f in WEIGHT_FIELDS):
        obj = stamp_weights(obj)

    def write(fh):
        torch.save(obj, fh)
        write_point(f"inside {name} (temporary file, before the rename)")
    atomic_write(path, write, binary=True)
    write_point(f"after {name}")


def _fsync_dir(path) -> None:
    """Make the renames in folder ``path`` durable (where the platform allows it)."""
    try:
        fd = os.open(os.fspath(path), os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


_SNAPSHOT_NAME = re.compile(r"snapshot_u\d{6,}\.pt")


class _field:
    """Turn any error while restoring checkpoint field ``name`` into a CheckpointError naming it."""

    def __init__(self, path: str, name: str):
        self.path, self.name = path, name

    def __enter__(self):
        return self

    def __exit__(self, typ, exc, tb):
        if typ is not None and issubclass(typ, Exception) and not issubclass(typ, CheckpointError):
            raise CheckpointError(f"{self.path!r}: the checkpoint's {self.name} cannot be restored "
                                  f"({typ.__name__}: {exc})") from None
        return False


def encoder_info(encoder) -> dict:
    """What a checkpoint records about its observations: size, layout and the layout's fingerprint
    (the layout lets PPOAgent follow an encoder whose slices later move, see adapt_to_encoder)."""
    return {"size": int(encoder.size), "fingerprint": observation_fingerprint(encoder),
            "layout": observation_layout(encoder)}


def export_model(net: PolicyValueNet, config: PPOConfig, path, encoder, extra: dict | None = None) -> None:
    """Write the policy alone (architecture, weights, config, observation layout fingerprint):
    what ``PPOAgent`` needs to play."""
    state = {k: v.detach().clone() for k, v in net.state_dict().items()}
    atomic_torch_save({"format": CHECKPOINT_FORMAT, "version": CHECKPOINT_VERSION, "kind": "model",
                       "arch": net.arch, "model": state, "config": config.to_dict(), "encoder": encoder_info(encoder),
                       "action_table": action_table_fingerprint(), **(extra or {})}, path)


def average_models(paths, out_path) -> dict:
    """Write the uniform average of the weights of model files of one architecture and observation
    layout (``paths``: snapshots of one run, say) as a model file at ``out_path``, and return it.
    The averaged model keeps the last file's config, encoder and counters and records its sources
    (``averaged_from``). Weight averaging of a run's late snapshots (Izmailov et al. 2018, "stochastic
    weight averaging") costs nothing at play time."""
    paths = [os.fspath(p) for p in paths]
    if len(paths) < 2:
        raise ValueError(f"averaging needs at least two model files (got {len(paths)})")
    loaded = [load_policy(p) for p in paths]
    first = loaded[0][1]
    for p, (_, c) in zip(paths[1:], loaded[1:]):
        diff = arch_difference(first["arch"], c["arch"])
        if diff:
            raise CheckpointError(f"{p!r} has another architecture than {paths[0]!r}: {'; '.join(diff)}")
        if (c.get("encoder") or {}).get("fingerprint") != (first.get("encoder") or {}).get("fingerprint"):
            raise CheckpointError(f"{p!r} was trained on another observation layout than {paths[0]!r}")
    averaged = torch.optim.swa_utils.AveragedModel(loaded[0][0])     # the running mean of the weights
    for net, _ in loaded:              # the first update copies, each later one folds into the mean
        averaged.update_parameters(net)
    model = {k: v.detach().clone() for k, v in averaged.module.state_dict().items()}
    out = {**loaded[-1][1], "model": model, "averaged_from": paths}
    atomic_torch_save(out, out_path)
    return out


#: architecture fields a warm start must share with its source (the player count, observation size
#: and Industria set may differ: that is what a warm start is for)
WARM_START_SHARED = ("hidden_sizes", "activation", "mask_in_obs", "shared_torso", "num_actions")


def warm_start(net: PolicyValueNet, encoder, path) -> dict:
    """Copy the weights of the model file ``path`` into ``net`` wherever they mean the same thing, so
    that a run for another player count or Industria set starts from a trained policy instead of from
    nothing. First layer: the columns of each observation slice the two layouts share (same name,
    length and bounds) and the legal-mask columns are copied, every other column is zero, so the new
    network computes the old function on the shared features and learns the new ones from there
    (zero weights still get gradients). Deeper layers and the policy head are copied; value head rows
    are seats relative to the deciding one, so rows the source has are copied and each extra seat
    starts as a copy of the source's last opponent row. Returns what was copied and what was not.
    Raises ``CheckpointError`` when the hidden layers, activation, mask input, torso sharing or action
    count differ, or the source records no observation layout."""
    ckpt = read_checkpoint(path)
    src_arch, arch = ckpt["arch"], net.arch
    diff = [d for d in arch_difference(src_arch, arch) if d.split(":")[0] in WARM_START_SHARED]
    if diff:
        raise CheckpointError(f"cannot warm-start from {os.fspath(path)!r}: its network differs in {'; '.join(diff)}")
    trained = (ckpt.get("encoder") or {}).get("layout")
    if trained is None:
        raise CheckpointError(f"cannot warm-start from {os.fspath(path)!r}: it records no observation layout")
    old = {name: (int(start), int(length), low, high) for name, start, length, low, high in trained}
    src_cols, dst_cols, copied, zeroed = [], [], [], []
    for name, start, length, low, high in observation_layout(encoder):
        o = old.get(name)
        if o is not None and (o[1], o[2], o[3]) == (length, low, high):
            src_cols.extend(range(o[0], o[0] + length))
            dst_cols.extend(range(start, start + length))
            copied.append(name)
        else:
            zeroed.append(name)
    if arch["mask_in_obs"]:           # the mask follows the observation in the network's input
        src_cols.extend(range(src_arch["obs_size"], src_arch["obs_size"] + arch["num_actions"]))
        dst_cols.extend(range(arch["obs_size"], arch["obs_size"] + arch["num_actions"]))
    src_state, state = ckpt["model"], net.state_dict()
    new_state = {}
    for key, tensor in state.items():
        src = src_state[key]
        if key.endswith(".0.weight"):                   # a torso's first layer: by input column
            w = torch.zeros_like(tensor)
            w[:, dst_cols] = src[:, src_cols]
        elif key.startswith("value_head"):              # by seat relative to the deciding one
            rows = [min(i, src.shape[0] - 1) for i in range(tensor.shape[0])]
            w = src[rows].clone()
        else:
            w = src.clone()
        new_state[key] = w.to(tensor.dtype)
    net.load_state_dict(new_state)
    return {"init_from": os.fspath(path), "source_weights_sha256": (ckpt.get("weights_sha256") or {}).get("model"),
            "slices_copied": len(copied), "slices_zeroed": zeroed}


# ------------------------------------------------------------------------------------------------
def learner_device(device: str | None = None) -> torch.device:
    """``None`` / ``"auto"``: the first CUDA GPU when one is present, else the CPU; or the named device."""
    if device in (None, "auto"):
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dev = torch.device(device)
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {device!r} asked for, but torch sees no CUDA GPU here; use 'cpu' or 'auto'")
    return dev


def _optimizer_to(optimizer, device) -> None:
    """Move an optimizer's state tensors (Adam's moments) to ``device``, beside its parameters."""
    for state in optimizer.state.values():
        for k, v in state.items():
            if torch.is_tensor(v) and k != "step":
                state[k] = v.to(device)


class PPOTrainer(TrainingLoop):
    """Owns a run: network, optimizer, opponent pool, counters, logging and checkpoints.

    >>> trainer = PPOTrainer(PPOConfig(total_steps=20_000), "runs/demo")   # doctest: +SKIP
    >>> trainer.train()                                                  # doctest: +SKIP
    """

    def __init__(self, config: PPOConfig, out_dir, encoder=None, tensorboard: bool = True,
                 progress: bool = True, _resume_ckpt: dict | None = None, device: str | None = None):
        self.config = config
        #: where the PPO update runs: a GPU when one is present (device=None or "auto"), else the CPU.
        #: The network lives on the CPU between updates, so self-play, checkpoints and the pool never
        #: see device tensors; only the update moves the weights and the optimizer state over.
        self.device = learner_device(device)
        self.out = Path(out_dir)
        self.encoder = encoder if encoder is not None else make_encoder(config.num_players, config.game_options)
        torch.set_num_threads(config.torch_threads)
        self.progress = progress
        with torch.random.fork_rng(devices=[]):
            # initial weights from the run seed alone (the global generator is left untouched)
            torch.manual_seed(config.seed)
            self.net = build_network(config, self.encoder.size, NUM_ACTIONS)
        #: what the warm start copied (config.init_from), recorded in the log's first line
        self.warm_started = warm_start(self.net, self.encoder, config.init_from) \
            if config.init_from is not None and _resume_ckpt is None else None
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=config.learning_rate, eps=config.adam_eps)
        self.update = 0              # updates completed
        self.global_step = 0         # learner decisions trained on
        self.decisions = 0           # all decisions played in self-play (every seat)
        self.games = 0
        self.elapsed = 0.0           # training wall time over all sessions (s)
        self.cpu = 0.0               # CPU time of this process (collection + SGD) over all sessions (s)
        self.pool: list[tuple[str, PolicyValueNet]] = []   # (file name under pool/, frozen net)
        self.have_heuristic = heuristic_available()
        self._workers: WorkerPool | None = None
        self._spent_batch: Rollout | None = None       # the last update's batch, written over by the next
        self._mid_update = False     # True while weights have moved but the counters not yet
        self._saved_update = None    # the update the checkpoint on disk holds (None: none yet)
        self._writer = None
        self._tensorboard = tensorboard
        self._open_run_folder(_resume_ckpt, prune=lambda: self._prune_pool(keep=()))

    # ---- resume -------------------------------------------------------------------------------
    @classmethod
    def resume(cls, out_dir, overrides: dict | None = None, encoder=None, **kwargs) -> "PPOTrainer":
        """Continue the run in ``out_dir`` from its checkpoint. ``overrides`` may change only
        fields that do not alter what the run computes (``PPOConfig.RESUME_MUTABLE``)."""
        path = Path(out_dir) / CHECKPOINT_NAME
        if not path.is_file():
            cfg_path = Path(out_dir) / CONFIG_NAME
            if cfg_path.is_file():
                # killed before its first checkpoint: the run is a function of its config, so
                # starting it again from config.toml is resuming it
                config = resume_overrides(PPOConfig.load(cfg_path), overrides, PPOConfig.RESUME_MUTABLE)
                warnings.warn(f"{str(path)!r} does not exist yet (the run stopped before its first checkpoint): "
                              f"starting it again from {str(cfg_path)!r}", stacklevel=2)
                return cls(config, out_dir, encoder=encoder, **kwargs)
            raise FileNotFoundError(f"cannot resume: {str(path)!r} does not exist (start a new run without --resume)")
        ckpt = read_checkpoint(path)
        if ckpt.get("kind") != "checkpoint":
            raise CheckpointError(f"{str(path)!r} is an exported model, not a resumable training checkpoint")
        config = resume_overrides(PPOConfig.from_dict(ckpt["config"]), overrides, PPOConfig.RESUME_MUTABLE)
        enc = encoder if encoder is not None else make_encoder(config.num_players, config.game_options)
        check_encoder(ckpt, enc, path)
        return cls(config, out_dir, encoder=enc, _resume_ckpt=ckpt, **kwargs)

    def _restore(self, ckpt: dict) -> None:
        diff = arch_difference(ckpt["arch"], self.net.arch)
        if diff:
            raise CheckpointError(f"{str(self.out / CHECKPOINT_NAME)!r}: the checkpoint's arch does not match the "
                                  f"network its config builds ({'; '.join(diff)})")
        self.net.load_state_dict(ckpt["model"])        # shapes checked by read_checkpoint
        where = str(self.out / CHECKPOINT_NAME)
        with _field(where, "optimizer"):
            self.optimizer.load_state_dict(ckpt["optimizer"])
        with _field(where, "counters"):
            c = ckpt["counters"]
            self.update, self.global_step, self.decisions, self.games = (
                int(c["update"]), int(c["global_step"]), int(c["decisions"]), int(c["games"]))
            self.elapsed = float(c["elapsed"])
            self.cpu = float(c.get("cpu_s", 0.0))
        self._saved_update = self.update
        self.pool = []
        with _field(where, "pool"):
            names = list(ckpt["pool"])
            bad = [n for n in names if not isinstance(n, str) or not _SNAPSHOT_NAME.fullmatch(n)]
            if bad:
                raise ValueError(f"snapshot names must look like snapshot_u000010.pt (got {bad})")
        for name in names:
            snap = read_checkpoint(self.out / POOL_DIR / name, num_players=self.config.num_players,
                                   obs_size=self.encoder.size)
            diff = arch_difference(snap["arch"], self.net.arch)
            if diff:
                raise CheckpointError(f"pool snapshot {str(self.out / 'pool' / name)!r} has another architecture "
                                      f"than the learner ({'; '.join(diff)})")
            net = PolicyValueNet.from_arch(snap["arch"])
            net.load_state_dict(snap["model"])
            self.pool.append((name, net.eval()))
        with _field(where, "rng"):
            rng = ckpt["rng"]
            torch.set_rng_state(rng["torch"])
            np.random.set_state(_np_state_from_plain(rng["numpy"]))
            random.setstate(_to_tuple(rng["python"]))
        # files written after the checkpoint: pool snapshots it does not list (added, or left
        # over from a later checkpoint's pruning) go; model.pt is brought back to the checkpoint
        self._prune_pool(keep=[name for name, _ in self.pool])
        self._repair_model()
        # forget log lines written after the checkpoint (a crash between log and checkpoint)
        log = self.out / LOG_NAME
        if log.exists():
            kept = []
            for i, ln in enumerate(log.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
                if not ln.strip():
                    continue
                try:
                    row = json.loads(ln)
                    update = row.get("update", 0)
                    if not isinstance(update, int):
                        raise ValueError(f"update is {update!r}")
                except ValueError as e:          # a line torn by a kill mid-write (or damaged)
                    warnings.warn(f"{str(log)!r} line {i} is not a complete JSON log row ({e}); dropping it",
                                  stacklevel=2)
                    continue
                if update <= self.update:
                    kept.append(ln)
            atomic_write_text(log, "".join(ln + "\n" for ln in kept))
            write_point(f"after rewriting {LOG_NAME}")

    def _repair_model(self) -> None:
        """Rewrite model.pt from the restored weights unless it already holds this update."""
        path = self.out / MODEL_NAME
        try:
            counters = read_checkpoint(path).get("counters", {})
            if counters.get("update") == self.update and counters.get("global_step") == self.global_step:
                return
        except (OSError, ValueError):        # missing, torn or foreign: rewrite it
            pass
        self._export()

    def _export(self) -> None:
        export_model(self.net, self.config, self.out / MODEL_NAME, self.encoder,
                     {"counters": {"update": self.update, "global_step": self.global_step}})

    def _prune_pool(self, keep) -> None:
        """Delete the snapshot files under pool/ that are not in ``keep``."""
        folder = self.out / POOL_DIR
        if not folder.is_dir():
            return
        keep = set(keep)
        for f in sorted(folder.iterdir()):
            if f.suffix == ".pt" and f.name not in keep and not f.name.startswith(TMP_PREFIX):
                try:
                    f.unlink()
                except FileNotFoundError:
                    pass
                write_point(f"after deleting pool/{f.name}")

    # ---- checkpoints ----------------------------------------------------------------------------
    def checkpoint_dict(self) -> dict:
        return {
            "format": CHECKPOINT_FORMAT, "version": CHECKPOINT_VERSION, "kind": "checkpoint",
            "arch": self.net.arch, "config": self.config.to_dict(), "encoder": encoder_info(self.encoder),
            "action_table": action_table_fingerprint(),
            "model": self.net.state_dict(), "optimizer": self.optimizer.state_dict(),
            "counters": {"update": self.update, "global_step": self.global_step, "decisions": self.decisions,
                         "games": self.games, "elapsed": self.elapsed, "cpu_s": self.cpu},
            "pool": [name for name, _ in self.pool],
            "rng": {"torch": torch.get_rng_state(), "numpy": _np_state_to_plain(np.random.get_state()),
                    "python": _to_list(random.getstate())},
        }

    def save(self) -> Path:
        """Write checkpoint.pt and model.pt atomically, make them durable, then delete the pool
        snapshots the new checkpoint no longer lists (the previous checkpoint may still have
        needed them); returns the checkpoint path. A kill at any point leaves a resumable run."""
        path = self.out / CHECKPOINT_NAME
        atomic_torch_save(self.checkpoint_dict(), path)
        self._export()
        _fsync_dir(self.out)
        self._prune_pool(keep=[name for name, _ in self.pool])
        self._saved_update = self.update
        return path

    def _add_to_pool(self) -> None:
        """Add a frozen snapshot of the learner; the oldest leaves the in-memory pool, but its file
        is deleted only by the next ``save`` (the last checkpoint on disk may still list it)."""
        name = f"snapshot_u{self.update:06d}.pt"
        export_model(self.net, self.config, self.out / POOL_DIR / name, self.encoder,
                     {"counters": {"update": self.update}})
        _fsync_dir(self.out / POOL_DIR)
        frozen = PolicyValueNet.from_arch(self.net.arch)
        frozen.load_state_dict(self.net.state_dict())
        self.pool.append((name, frozen.eval()))
        while len(self.pool) > self.config.pool_size:
            self.pool.pop(0)

    # ---- one update -------------------------------------------------------------------------------
    def collect(self, seed: np.random.SeedSequence, progress=None) -> Rollout:
        pool = [net for _, net in self.pool]
        self.net.eval()
        if self.config.workers >= 1:
            if self._workers is None:
                self._workers = WorkerPool(self.config, self.net.arch)
            return self._workers.collect(self.config, self.net, pool, seed, self.config.rollout_steps)
        # the last update's batch is spent: its sample memory is written over, not mapped afresh
        spent, self._spent_batch = self._spent_batch, None
        return collect(self.config, self.encoder, self.net, pool, seed, self.config.rollout_steps,
                       self.config.num_envs, self.have_heuristic, progress=progress, reuse=spent)

    def ppo_update(self, batch: Rollout, seed: np.random.SeedSequence) -> dict:
        """Clipped-PPO epochs over one rollout; returns averaged diagnostics (on ``self.device``)."""
        dev = self.device
        if dev.type == "cpu":
            return self._ppo_update(batch, seed, dev)
        self.net.to(dev)
        _optimizer_to(self.optimizer, dev)
        try:
            return self._ppo_update(batch, seed, dev)
        finally:
            self.net.to("cpu")
            _optimizer_to(self.optimizer, torch.device("cpu"))

    def _ppo_update(self, batch: Rollout, seed: np.random.SeedSequence, dev) -> dict:
        cfg = self.config
        net = self.net.train()
        rng = np.random.default_rng(seed)
        obs = torch.from_numpy(batch.obs).to(dev)
        mask = torch.from_numpy(batch.mask).to(dev)
        actions = torch.from_numpy(batch.actions).to(dev)
        old_logp = torch.from_numpy(batch.logp).to(dev)
        old_values = torch.from_numpy(batch.values).to(dev)
        adv = torch.from_numpy(batch.advantages).to(dev)
        if cfg.normalize_advantages and len(adv) > 1:
            adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        targets = torch.from_numpy(batch.seat_targets).clone().to(dev)
        targets[:, 0] = torch.from_numpy(batch.returns).to(dev)    # the deciding seat learns from GAE returns
        n = len(batch)
        mb = min(cfg.minibatch_size, n)
        sums = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "approx_kl": 0.0, "clip_fraction": 0.0,
                "grad_norm": 0.0}
        count = 0
        stopped_early = False
        for _epoch in range(cfg.epochs):
            perm = torch.from_numpy(rng.permutation(n)).to(dev)
            kls = []
            for start in range(0, n, mb):
                idx = perm[start:start + mb]
                dist, values = net.distribution(obs[idx], mask[idx])
                logp = dist.log_prob(actions[idx])
                log_ratio = logp - old_logp[idx]
                ratio = log_ratio.exp()
                a = adv[idx]
                pg_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - cfg.clip_ratio, 1 + cfg.clip_ratio)).mean()
                if cfg.value_clip is not None:
                    ov = old_values[idx]
                    clipped = ov + (values - ov).clamp(-cfg.value_clip, cfg.value_clip)
                    v_loss = 0.5 * torch.max((values - targets[idx]) ** 2, (clipped - targets[idx]) ** 2).mean()
                else:
                    v_loss = 0.5 * ((values - targets[idx]) ** 2).mean()
                entropy = dist.entropy().mean()
                loss = pg_loss + cfg.value_coef * v_loss - cfg.entropy_coef * entropy
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                grad_norm = nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
                self.optimizer.step()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - log_ratio).mean().item()
                    clip_frac = ((ratio - 1).abs() > cfg.clip_ratio).float().mean().item()
                kls.append(approx_kl)
                for k, v in (("policy_loss", pg_loss.item()), ("value_loss", v_loss.item()),
                             ("entropy", entropy.item()), ("approx_kl", approx_kl), ("clip_fraction", clip_frac),
                             ("grad_norm", float(grad_norm))):
                    sums[k] += v
                count += 1
            if cfg.target_kl is not None and float(np.mean(kls)) > cfg.target_kl:
                stopped_early = True
                break
        net.eval()
        out = {k: v / max(1, count) for k, v in sums.items()}
        ret = batch.returns
        var = float(np.var(ret))
        out["explained_variance"] = float(1 - np.var(ret - batch.values[:, 0]) / var) if var > 0 else 0.0
        out["minibatches"] = count
        out["stopped_early"] = stopped_early
        return out

    def train_step(self, progress=None) -> dict:
        """Collect one rollout and update on it; returns the update's log row."""
        cfg = self.config
        seq = np.random.SeedSequence([cfg.seed, self.update])
        collect_seed, shuffle_seed = seq.spawn(2)
        lr = cfg.learning_rate_at(self.global_step)
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        t0 = time.perf_counter()
        c0 = time.process_time()
        batch = self.collect(collect_seed, progress)
        t1 = time.perf_counter()
        self._mid_update = True
        stats = self.ppo_update(batch, shuffle_seed)
        t2 = time.perf_counter()
        self.update += 1
        self.global_step += len(batch)
        self.decisions += batch.decisions
        self.games += len(batch.results)
        self.elapsed += t2 - t0
        self.cpu += time.process_time() - c0
        self._mid_update = False
        if self.update % cfg.pool_add_every == 0 and cfg.pool_size > 0:
            self._add_to_pool()
        row = {"update": self.update, "global_step": self.global_step, "games": self.games, "lr": lr,
               "samples": len(batch), "collect_s": t1 - t0, "update_s": t2 - t1,
               "steps_per_s": len(batch) / (t2 - t0), "decisions_per_s": batch.decisions / (t1 - t0),
               "elapsed_s": self.elapsed, "cpu_s": self.cpu, **stats, **training_game_stats(batch.results)}
        if cfg.workers == 0:
            self._spent_batch = batch
        return row

    # ---- evaluation ---------------------------------------------------------------------------------
    def evaluate(self) -> dict:
        """Greedy matches against Random and Heuristic on fixed seeds (see ``evaluate_net``)."""
        cfg = self.config
        out = {}
        for opponent, games in (("random", cfg.eval_games_random), ("heuristic", cfg.eval_games_heuristic)):
            if games <= 0 or (opponent == "heuristic" and not self.have_heuristic):
                continue
            out[opponent] = evaluate_net(self.net, self.encoder, cfg.num_players, opponent, games,
                                         seed=cfg.eval_seed, game_options=cfg.game_options,
                                         num_slots=min(cfg.num_envs, games))
        return out

    # ---- logging -------------------------------------------------------------------------------------
    def _log(self, row: dict) -> None:
        append_log_line(self.out / LOG_NAME, row)
        if self._writer is None and self._tensorboard:
            from torch.utils.tensorboard import SummaryWriter
            self._writer = SummaryWriter(log_dir=str(self.out / "tb"), purge_step=self.global_step)
        w = self._writer
        if w is None:
            return
        step = row["global_step"]
        if row.get("kind") == "eval":
            for opp, res in row["results"].items():
                w.add_scalar(f"eval/win_rate_vs_{opp}", res["win_rate"], step)
                w.add_scalar(f"eval/win_rate_ci_low_vs_{opp}", res["ci95"][0], step)
                w.add_scalar(f"eval/mean_score_vs_{opp}", res["score"]["mean"], step)
                w.add_scalar(f"eval/mean_margin_vs_{opp}", res["margin"]["mean"], step)
            w.flush()
            return
        for k in ("policy_loss", "value_loss", "entropy", "approx_kl", "clip_fraction", "explained_variance",
                  "grad_norm"):
            w.add_scalar(f"loss/{k}", row[k], step)
        w.add_scalar("charts/learning_rate", row["lr"], step)
        w.add_scalar("perf/steps_per_s", row["steps_per_s"], step)
        w.add_scalar("perf/decisions_per_s", row["decisions_per_s"], step)
        for k, v in row.items():
            if k.startswith("train/"):
                w.add_scalar(k, v, step)

    def _eval_and_log(self) -> dict:
        results = self.evaluate()
        if results:
            self._log({"kind": "eval", "update": self.update, "global_step": self.global_step, "results": results})
        return results

    # ---- the loop (training.loop.TrainingLoop) --------------------------------------------------------
    step_name, progress_unit, progress_desc = "update", "steps", "ppo"

    def train(self, max_updates: int | None = None, max_seconds: float | None = None) -> dict:
        """Run updates until ``total_steps`` (or ``max_updates`` more updates / ``max_seconds``);
        evaluates and checkpoints on schedule and at the end. Returns the last evaluation."""
        return self._run_loop(max_updates, max_seconds)

    def _steps_done(self) -> int:
        return self.update

    def _progress_now_and_total(self) -> tuple[int, int]:
        return self.global_step, self.config.total_steps

    def _one_step(self, bar) -> dict:
        at, total = self.global_step, self.config.total_steps
        row = self.train_step(progress=lambda samples: bar.update(min(at + samples, total) - bar.n))
        self._log(row)
        return row

    def _postfix(self, row: dict) -> dict:
        return {"upd": self.update, "sps": f"{row['steps_per_s']:.0f}", "ent": f"{row['entropy']:.2f}",
                "ev": f"{row['explained_variance']:.2f}"}

    def _mid_step(self) -> bool:
        return self._mid_update           # weights and counters agree unless the SGD step was hit

    def _last_saved(self):
        return self._saved_update

    def _stopped_by_budget(self, steps_here: int) -> dict:
        return self._eval_and_log()       # evaluate where it stopped (evaluation changes no state)

    def close(self) -> None:
        if self._workers is not None:
            self._workers.close()
            self._workers = None
        if self._writer is not None:
            self._writer.close()
            self._writer = None


def training_game_stats(results) -> dict:
    """Learner score and win rate per opponent kind over the self-play games of one update."""
    out: dict = {}
    if not results:
        return out
    scores, by_kind = [], {}
    for r in results:
        seat = r.spec.learner_seat
        ranks = [row["rank"] for row in r.scores]
        scores.append(r.scores[seat]["total"])
        win = 1.0 if ranks[seat] == 1 and ranks.count(1) == 1 else (0.5 if ranks[seat] == 1 else 0.0)
        for s, kind in enumerate(r.spec.kinds):
            if s != seat:
                by_kind.setdefault(kind, []).append(win)
    out["train/mean_score"] = float(np.mean(scores))
    out["train/game_decisions"] = float(np.mean([r.decisions for r in results]))
    for kind, wins in sorted(by_kind.items()):
        out[f"train/win_rate_vs_{kind}"] = float(np.mean(wins))
    return out


# ------------------------------------------------------------------------------------------------
# RNG state <-> plain containers (torch.load(weights_only=True) accepts only plain types)
def _np_state_to_plain(state):
    name, keys, pos, has_gauss, cached = state
    return [name, torch.from_numpy(np.asarray(keys, dtype=np.int64)), int(pos), int(has_gauss), float(cached)]


def _to_list(x):
    return [_to_list(v) for v in x] if isinstance(x, tuple) else x


def _to_tuple(x):
    return tuple(_to_tuple(v) for v in x) if isinstance(x, list) else x


def _np_state_from_plain(plain):
    name, keys, pos, has_gauss, cached = plain
    return (name, keys.numpy().astype(np.uint32), pos, has_gauss, cached)



def run(config: PPOConfig, out_dir, resume: bool = False, overrides: dict | None = None,
        max_updates: int | None = None, max_seconds: float | None = None, progress: bool = True,
        tensorboard: bool = True, device: str | None = None) -> PPOTrainer:
    """Start (or with ``resume`` continue) a run and train it; the command-line entry point. ``device``:
    where the PPO update runs (None / "auto": a GPU when one is present, else the CPU)."""
    if resume:
        trainer = PPOTrainer.resume(out_dir, overrides, progress=progress, tensorboard=tensorboard, device=device)
    else:
        trainer = PPOTrainer(config, out_dir, progress=progress, tensorboard=tensorboard, device=device)
        if trainer.warm_started:
            w = trainer.warm_started
            print(f"warm start from {w['init_from']}: {w['slices_copied']} observation slices copied, new (zero "
                  f"weights): {', '.join(w['slices_zeroed']) or 'none'}", file=sys.stderr)
    if progress:
        name = torch.cuda.get_device_name(trainer.device) if trainer.device.type == "cuda" else "CPU"
        print(f"PPO update on {trainer.device} ({name}); self-play on the CPU", file=sys.stderr)
    trainer.train(max_updates=max_updates, max_seconds=max_seconds)
    return trainer
