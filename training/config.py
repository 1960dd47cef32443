"""PPO self-play configuration: one dataclass, loadable from TOML or JSON, overridable by flags.

Every knob of a run lives here so that a checkpoint (which stores the config) fully describes
how it was made, and ``--resume`` can refuse a config that would change the run's meaning.
"""
from __future__ import annotations

import json
import math
import tomllib
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from clans_env.env.rewards import REWARD_KINDS

LR_SCHEDULES = ("constant", "linear", "cosine")
ACTIVATIONS = ("tanh", "relu", "gelu")
OPPONENT_KINDS = ("current", "pool", "random", "heuristic")


class ConfigFile:
    """What a run configuration dataclass shares: TOML/JSON files, plain dicts, validated copies.
    Subclasses are dataclasses with a ``validate`` method and a ``KIND`` for messages."""

    KIND = "PPO"
    #: fields that may differ between a checkpoint and a resumed run without changing its meaning
    RESUME_MUTABLE: tuple = ()

    def __post_init__(self):
        self.validate()

    def validate(self) -> None:
        pass

    # ---- the checks both self-play configurations (PPO, AZ) make; each raises ValueError naming the field
    def _bad(self, name: str, msg: str):
        raise ValueError(f"config field {name!r}: {msg} (got {getattr(self, name)!r})")

    def _check_self_play_fields(self) -> None:
        """The game, reward and network fields every self-play configuration has."""
        if self.num_players not in (2, 3, 4):
            self._bad("num_players", "self-play needs 2, 3 or 4 players")
        if {"num_players", "seed"} & set(self.game_options):
            self._bad("game_options", "set num_players and seed through the config's own fields")
        if self.reward not in REWARD_KINDS:
            self._bad("reward", f"must be one of {REWARD_KINDS}")
        if self.activation not in ACTIVATIONS:
            self._bad("activation", f"must be one of {ACTIVATIONS}")
        if not self.hidden_sizes or any(int(h) < 1 for h in self.hidden_sizes):
            self._bad("hidden_sizes", "must be a non-empty list of positive layer widths")

    def _check_ranges(self, positive_ints=(), ints_from_zero=(), positive=(), unit=(), non_negative=()) -> None:
        """Fields by the range they must lie in: ints >= 1, ints >= 0, numbers > 0, in [0, 1], >= 0."""
        for names, low, msg in ((positive_ints, 1, "must be a positive int"), (ints_from_zero, 0, "must be an int >= 0")):
            for name in names:
                v = getattr(self, name)
                if isinstance(v, bool) or not isinstance(v, int) or v < low:
                    self._bad(name, msg)
        for name in positive:
            if not float(getattr(self, name)) > 0:
                self._bad(name, "must be > 0")
        for name in unit:
            if not 0.0 <= float(getattr(self, name)) <= 1.0:
                self._bad(name, "must be in [0, 1]")
        for name in non_negative:
            if float(getattr(self, name)) < 0:
                self._bad(name, "must be >= 0")

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict):
        known = {f.name for f in fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown {cls.KIND} config fields {sorted(unknown)}; valid fields: {sorted(known)}")
        return cls(**{k: _none_from_file(v) for k, v in d.items()})

    @classmethod
    def load(cls, path):
        """Read a ``.toml`` or ``.json`` file (flat table of fields)."""
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"config file {str(path)!r} does not exist")
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".toml":
            doc = tomllib.loads(text)
        elif path.suffix == ".json":
            doc = json.loads(text)
        else:
            raise ValueError(f"config file {str(path)!r}: use a .toml or .json file")
        return cls.from_dict(doc)

    def replace(self, **overrides):
        """A copy with some fields changed (validated); None values mean 'keep'."""
        d = self.to_dict()
        known = set(d)
        for k, v in overrides.items():
            if k not in known:
                raise ValueError(f"unknown {self.KIND} config field {k!r}; valid fields: {sorted(known)}")
            if v is not None:
                d[k] = v
        return type(self)(**d)

    def to_toml(self) -> str:
        """TOML text that ``load`` reads back to an equal config (None written as the string "none")."""
        lines = [f"# Clans of Caledonia {self.TITLE} configuration ({type(self).__module__.replace('.', '/')}.py)"]
        tables = []
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, dict):
                tables.append((f.name, v))
            else:
                lines.append(f"{f.name} = {_toml_value(v)}")
        for name, table in tables:
            lines.append("")
            lines.append(f"[{name}]")
            for k, v in table.items():
                lines.append(f"{k} = {_toml_value(v)}")
        return "\n".join(lines) + "\n"

    TITLE = "masked-PPO self-play"


@dataclass
class PPOConfig(ConfigFile):
    """Masked-PPO self-play settings (see docs/training.md for the meaning of each field)."""

    # ---- game ---------------------------------------------------------------------------------
    num_players: int = 2
    #: extra GameConfig fields for every training/evaluation game (never num_players or seed)
    game_options: dict = field(default_factory=dict)
    #: terminal reward, as in the environment (clans_env.env.rewards): win (+1 winner, -1 others,
    #: ties share), rank (+1 first .. -1 last), score ((own VP - best other VP) / score_scale);
    #: win+score: the mean of win and score (a win signal that still rewards bigger margins)
    reward: str = "win+score"
    score_scale: float = 40.0

    # ---- run length and data collection -------------------------------------------------------
    seed: int = 0
    #: learner decisions (training samples) to collect over the whole run
    total_steps: int = 2_000_000
    #: learner decisions per update (at least; games in flight are finished, never cut)
    rollout_steps: int = 4096
    #: games played side by side in one process; their learner decisions share one forward pass
    num_envs: int = 32
    #: 0 = collect in this process; N >= 1 = N subprocess workers, each running num_envs / N games
    workers: int = 0
    #: also train on the opponent seats' decisions when the opponent is the current learner
    train_on_mirror: bool = True
    #: start from a trained model file (another player count or Industria set allowed): its weights
    #: are copied where they mean the same (``training.ppo.warm_start``); None = random initial weights
    init_from: str | None = None

    # ---- opponents (self-play pool) -----------------------------------------------------------
    #: relative probabilities of each opponent kind, drawn per opponent seat per game
    opponent_weights: dict = field(default_factory=lambda: {"current": 0.5, "pool": 0.3, "random": 0.1,
                                                            "heuristic": 0.1})
    #: past snapshots of the learner kept as opponents (oldest dropped first)
    pool_size: int = 8
    #: add a snapshot of the learner to the pool every this many updates
    pool_add_every: int = 10
    #: "uniform" over the pool, or "recent": weight k+1 for the k-th oldest snapshot
    pool_sampling: str = "uniform"

    # ---- network ------------------------------------------------------------------------------
    hidden_sizes: list = field(default_factory=lambda: [256, 256])
    activation: str = "tanh"
    #: append the legal-action mask to the observation (tells the policy what it may do)
    mask_in_obs: bool = True
    shared_torso: bool = True

    # ---- PPO ----------------------------------------------------------------------------------
    learning_rate: float = 3e-4
    lr_schedule: str = "linear"
    #: final learning rate as a fraction of the initial one (linear/cosine schedules)
    lr_final_fraction: float = 0.1
    gamma: float = 1.0
    gae_lambda: float = 0.95
    clip_ratio: float = 0.2
    #: clip the value update around the old prediction by this much (None = no value clipping)
    value_clip: float | None = None
    entropy_coef: float = 0.01
    value_coef: float = 0.5
    max_grad_norm: float = 0.5
    epochs: int = 4
    minibatch_size: int = 1024
    normalize_advantages: bool = True
    #: stop the epochs of an update early once the approximate KL exceeds this (None = never)
    target_kl: float | None = None
    adam_eps: float = 1e-5

    # ---- evaluation, logging, checkpoints -----------------------------------------------------
    eval_every: int = 10
    eval_games_random: int = 20
    eval_games_heuristic: int = 20
    eval_seed: int = 12345
    checkpoint_every: int = 10
    torch_threads: int = 1

    # -------------------------------------------------------------------------------------------
    def validate(self) -> None:
        bad = self._bad
        self._check_self_play_fields()
        if self.lr_schedule not in LR_SCHEDULES:
            bad("lr_schedule", f"must be one of {LR_SCHEDULES}")
        if self.pool_sampling not in ("uniform", "recent"):
            bad("pool_sampling", "must be 'uniform' or 'recent'")
        unknown = set(self.opponent_weights) - set(OPPONENT_KINDS)
        if unknown:
            bad("opponent_weights", f"unknown opponent kinds {sorted(unknown)}; valid: {OPPONENT_KINDS}")
        if any(float(w) < 0 for w in self.opponent_weights.values()) or \
                sum(float(w) for w in self.opponent_weights.values()) <= 0:
            bad("opponent_weights", "weights must be >= 0 with a positive sum")
        self._check_ranges(
            positive_ints=("total_steps", "rollout_steps", "num_envs", "epochs", "minibatch_size", "pool_add_every",
                           "eval_every", "checkpoint_every", "torch_threads"),
            ints_from_zero=("pool_size", "workers", "eval_games_random", "eval_games_heuristic"),
            positive=("learning_rate", "score_scale", "adam_eps", "max_grad_norm", "clip_ratio"),
            unit=("gamma", "gae_lambda", "lr_final_fraction"),
            non_negative=("entropy_coef", "value_coef"))
        if self.workers > self.num_envs:
            bad("workers", f"cannot exceed num_envs ({self.num_envs})")
        if self.init_from is not None and (not isinstance(self.init_from, str) or not self.init_from):
            bad("init_from", "must be a model file path or none")

    # -------------------------------------------------------------------------------------------
    def learning_rate_at(self, step: int) -> float:
        """Learning rate after ``step`` learner steps (decisions trained on) under the schedule.

        By steps, not updates: an update finishes the games it started, so it takes a variable
        number of steps and the number of updates in a run is not known in advance."""
        if self.lr_schedule == "constant":
            return self.learning_rate
        frac = min(1.0, step / self.total_steps)
        lo = self.learning_rate * self.lr_final_fraction
        if self.lr_schedule == "linear":
            return self.learning_rate + (lo - self.learning_rate) * frac
        return lo + 0.5 * (self.learning_rate - lo) * (1 + math.cos(math.pi * frac))

    #: fields that may differ between a checkpoint and a resumed run without changing its meaning
    RESUME_MUTABLE = ("total_steps", "eval_every", "checkpoint_every", "eval_games_random",
                      "eval_games_heuristic", "workers", "torch_threads")


def _toml_value(v: Any) -> str:
    if v is None:
        return '"none"'
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise TypeError(f"cannot write {v!r} to TOML")


def _none_from_file(v):
    # TOML has no null; "none" stands for None in optional fields (value_clip, target_kl)
    return None if isinstance(v, str) and v.lower() == "none" else v
