"""``PPOAgent``: plays a trained masked-PPO policy through the common agent interface.

This module also holds what playing a checkpoint needs and nothing more: the policy/value
network, the masked categorical distribution and checkpoint reading with its compatibility
checks. It lives in ``agents`` (not ``training``) because agents must not import the training
layer; ``training.networks`` re-exports these names and training builds on them.

>>> agent = PPOAgent("models/ppo_2p/model.pt", greedy=True)     # doctest: +SKIP
>>> agent.act(game)                                              # doctest: +SKIP
>>> agent.policy_prior(game)     # {action: probability} for MCTS priors / rollouts  # doctest: +SKIP
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import warnings

import numpy as np
import torch
from torch import nn

from clans_env.engine.actions import NUM_ACTIONS, SECTIONS
from clans_env.engine.config import INDUSTRIA_MODULES, GameConfig

from .base import Agent

CHECKPOINT_FORMAT = "clans-ppo-checkpoint"
CHECKPOINT_VERSION = 1

_ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU, "gelu": nn.GELU}


# ------------------------------------------------------------------------------------------------
# masked distribution
def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Logits with illegal actions (``mask`` False/0) set to -inf.

    Raises if a row has no legal action: every decision has at least one, so such a row is a
    bug upstream (an encoder/mask mismatch) that must not turn silently into NaNs."""
    mask = mask.bool()
    if not bool(mask.any(dim=-1).all()):
        raise ValueError("a legal-action mask row has no legal action")
    return logits.masked_fill(~mask, float("-inf"))


class MaskedCategorical:
    """Categorical distribution over the legal actions only: illegal actions have probability
    exactly 0 (their logit is -inf) and receive no gradient."""

    def __init__(self, logits: torch.Tensor, mask: torch.Tensor):
        self.mask = mask.bool()
        self.logits = masked_logits(logits, self.mask)
        self.log_probs = torch.log_softmax(self.logits, dim=-1)   # -inf on illegal actions

    @property
    def probs(self) -> torch.Tensor:
        return self.log_probs.exp()

    def log_prob(self, actions: torch.Tensor) -> torch.Tensor:
        return self.log_probs.gather(-1, actions.long().unsqueeze(-1)).squeeze(-1)

    def entropy(self) -> torch.Tensor:
        # 0 * -inf is NaN: illegal actions contribute exactly nothing, so zero their log-probs first
        safe = self.log_probs.masked_fill(~self.mask, 0.0)
        return -(safe.exp() * safe).sum(-1)

    def mode(self) -> torch.Tensor:
        return self.logits.argmax(-1)

    def sample(self, generator: torch.Generator | None = None) -> torch.Tensor:
        return torch.multinomial(self.probs, 1, generator=generator).squeeze(-1)


# ------------------------------------------------------------------------------------------------
# network
def _mlp(sizes: list[int], activation: str) -> nn.Sequential:
    layers: list[nn.Module] = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [nn.Linear(a, b), _ACTIVATIONS[activation]()]
    return nn.Sequential(*layers)


class PolicyValueNet(nn.Module):
    """MLP baseline: observation (+ optional legal mask) -> action logits and per-seat values.

    The value head predicts the final outcome of every seat ordered relative to the observer
    (head 0 = the observer, head i = the seat i places after it), like the observation itself, so
    one network serves every seat. With ``mask_in_obs`` the legal mask is appended to the input
    inside ``forward``: callers always pass the plain observation and the mask.
    """

    def __init__(self, obs_size: int, num_actions: int, num_players: int, hidden_sizes=(256, 256),
                 activation: str = "tanh", mask_in_obs: bool = True, shared_torso: bool = True):
        super().__init__()
        if activation not in _ACTIVATIONS:
            raise ValueError(f"activation must be one of {sorted(_ACTIVATIONS)} (got {activation!r})")
        self.obs_size = int(obs_size)
        self.num_actions = int(num_actions)
        self.num_players = int(num_players)
        self.mask_in_obs = bool(mask_in_obs)
        self.arch = {"obs_size": self.obs_size, "num_actions": self.num_actions, "num_players": self.num_players,
                     "hidden_sizes": [int(h) for h in hidden_sizes], "activation": activation,
                     "mask_in_obs": self.mask_in_obs, "shared_torso": bool(shared_torso)}
        in_size = self.obs_size + (self.num_actions if self.mask_in_obs else 0)
        sizes = [in_size, *[int(h) for h in hidden_sizes]]
        self.policy_torso = _mlp(sizes, activation)
        self.value_torso = None if shared_torso else _mlp(sizes, activation)
        self.policy_head = nn.Linear(sizes[-1], self.num_actions)
        self.value_head = nn.Linear(sizes[-1], self.num_players)
        self._init_weights()

    def _init_weights(self) -> None:
        # orthogonal init (the PPO "implementation details" recipe): sqrt(2) gain in the torso,
        # 0.01 for the policy head (a near-uniform first policy), 1 for the value head
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.orthogonal_(m.weight, math.sqrt(2))
                nn.init.zeros_(m.bias)
        nn.init.orthogonal_(self.policy_head.weight, 0.01)
        nn.init.orthogonal_(self.value_head.weight, 1.0)

    @classmethod
    def from_arch(cls, arch: dict) -> "PolicyValueNet":
        return cls(**arch)

    @torch.no_grad()
    def permute_inputs(self, src: np.ndarray) -> None:
        """Reorder the observation inputs: afterwards the network reads ``obs[src]``-ordered vectors as
        it read the original ones (first-layer columns ``W[:, i] <- W[:, src[i]]``)."""
        src_t = torch.as_tensor(np.asarray(src), dtype=torch.long)
        if sorted(src_t.tolist()) != list(range(self.obs_size)):
            raise ValueError("src must be a permutation of the observation indices")
        for torso in (self.policy_torso, self.value_torso):
            if torso is not None:
                w = torso[0].weight
                w[:, :self.obs_size] = w[:, :self.obs_size][:, src_t].clone()

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Raw (unmasked) logits [B, A] and per-seat values [B, num_players]."""
        x = torch.cat([obs, mask.to(obs.dtype)], dim=-1) if self.mask_in_obs else obs
        h = self._torso(self.policy_torso, x)
        hv = h if self.value_torso is None else self._torso(self.value_torso, x)
        return self.policy_head(h), self.value_head(hv)

    def _torso(self, torso: nn.Sequential, x: torch.Tensor) -> torch.Tensor:
        # Inference reads the first layer sparsely: an observation is mostly zeros (about 1 input in
        # 6 is set, and a batch of games shares most of its zero columns), so multiplying only the
        # columns some row uses halves the cost of the layer that holds 85% of the network's
        # multiply-adds. Training (gradients on) keeps the dense layer.
        if torch.is_grad_enabled() or x.dim() != 2:
            return torso(x)
        cols = x.any(0).nonzero().squeeze(1)
        if 2 * cols.numel() > x.shape[1]:
            return torso(x)
        first = torso[0]
        h = torch.addmm(first.bias, x.index_select(1, cols), self._rows_of(first.weight).index_select(0, cols))
        return torso[1:](h)

    def _rows_of(self, weight: torch.Tensor) -> torch.Tensor:
        """``weight.T`` as a contiguous [in, out] matrix (input rows gather cheaply), remembered until
        the weight changes: an optimizer step or ``load_state_dict`` bumps the tensor's version."""
        cache = self.__dict__.setdefault("_transposed", {})
        hit = cache.get(id(weight))
        if hit is None or hit[0] is not weight or hit[1] != weight._version:
            hit = cache[id(weight)] = (weight, weight._version, weight.detach().t().contiguous())
        return hit[2]

    def distribution(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[MaskedCategorical, torch.Tensor]:
        logits, values = self(obs, mask)
        return MaskedCategorical(logits, mask), values

    @torch.no_grad()
    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator | None = None,
            greedy: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Batched decisions: (actions, log-probs, values [B, num_players]) as numpy arrays.

        Sampling uses the Gumbel-max trick driven by ``rng`` so that data collection is
        reproducible from numpy seeds alone (independent of torch's global generator)."""
        dist, values = self.distribution(torch.from_numpy(obs), torch.from_numpy(mask))
        if greedy:
            actions = dist.mode()
        else:
            if rng is None:
                raise ValueError("sampling needs a numpy Generator (rng), or pass greedy=True")
            gumbel = torch.from_numpy(rng.gumbel(size=tuple(dist.logits.shape)).astype(np.float32))
            actions = (dist.logits + gumbel).argmax(-1)
        return actions.numpy(), dist.log_prob(actions).numpy(), values.numpy()


# ------------------------------------------------------------------------------------------------
# incremental inference for self-play
def _activation_np(name: str):
    if name == "tanh":
        return lambda h: np.tanh(h, out=h)
    if name == "relu":
        return lambda h: np.maximum(h, 0.0, out=h)
    return lambda h: torch.nn.functional.gelu(torch.from_numpy(h)).numpy()


def _linear_np(layer: nn.Linear) -> tuple[np.ndarray, np.ndarray]:
    """(weight [in, out], bias [out]) as NumPy copies."""
    return layer.weight.detach().t().contiguous().numpy(), layer.bias.detach().numpy().copy()


class IncrementalActor:
    """``PolicyValueNet.act`` for games played move by move, with the first layer updated from
    the previous position of the same seat instead of recomputed.

    Between two decisions of one seat only ~14 of the ~670 set inputs change (of 4,079), so the
    first layer, 85% of the network's multiply-adds, costs the changed columns only: its
    pre-activations are kept per *row* (a seat of a game slot, numbered by the caller) in float64
    and moved by ``(x_new - x_old) @ W``. The rest of the network and the distribution run in
    NumPy: at the batches self-play gives (~8 positions), each torch call costs more in overhead
    than in arithmetic. A new row (or one ``reset``) takes the full sparse product first.

    The weights are copied when the actor is made: make a new one after the network changes.
    Outputs equal ``PolicyValueNet.act``'s to float rounding (~1e-6). Sampling draws one uniform
    per position (``PolicyValueNet.act`` draws a Gumbel variate per action), so a seed gives other,
    equally distributed samples than there."""

    def __init__(self, net: "PolicyValueNet", rows: int):
        torsos = [net.policy_torso] + ([] if net.value_torso is None else [net.value_torso])
        width = torsos[0][0].out_features
        with torch.no_grad():
            # both torsos' first layers side by side: one delta product moves them together
            first = torch.cat([t[0].weight for t in torsos], 0)
            self._w1 = first.detach().t().contiguous().numpy()                       # [in, T*width]
            self._b1 = torch.cat([t[0].bias for t in torsos]).detach().double().numpy()
            self._layers = [[_linear_np(lay) for lay in list(t)[2::2]] for t in torsos]
            self._policy, self._value = _linear_np(net.policy_head), _linear_np(net.value_head)
            # the policy head as rows ([actions, width]): a batch takes only the rows of the actions
            # legal in one of its positions (~60 of 325), and with one torso the value head's rows
            # come with them into one product
            heads = (self._policy if len(torsos) > 1 else
                     tuple(np.concatenate(pair, -1) for pair in zip(self._policy, self._value)))
            self._head_rows, self._head_bias = np.ascontiguousarray(heads[0].T), heads[1].copy()
        self._value_rows = None if len(torsos) > 1 else np.arange(net.num_actions, self._head_bias.size)
        self._act = _activation_np(net.arch["activation"])
        self._width, self._torsos = width, len(torsos)
        self.obs_size, self.num_actions = net.obs_size, net.num_actions
        self._mask_in_obs = net.mask_in_obs
        self._in = self.obs_size + (self.num_actions if self._mask_in_obs else 0)
        self._x = np.zeros((rows, self._in), np.float32)
        self._pre = np.zeros((rows, self._b1.size), np.float64)
        self._fresh = np.ones(rows, bool)          # no previous position: the next one is computed whole

    def reset(self, rows) -> None:
        """These rows' seats start a new game: their next position takes the full sparse product
        (the update from the old game's last position would be right too, but as wide)."""
        self._fresh[rows] = True

    @staticmethod
    def _columns(x: np.ndarray) -> np.ndarray:
        return np.flatnonzero(x.any(0))

    def _first_layer(self, x: np.ndarray, rows: np.ndarray) -> np.ndarray:
        # rows starting a game take the full sparse product on their own: mixed into the others,
        # their ~700 set inputs would widen the whole batch's product to the union of both
        fresh = self._fresh[rows]
        pre = np.empty((len(rows), self._b1.size), np.float64)
        if fresh.any():
            new = np.flatnonzero(fresh)
            xs = x[new]
            cols = self._columns(xs)
            pre[new] = self._b1 + xs[:, cols] @ self._w1[cols]
            self._fresh[rows[new]] = False
            old = np.flatnonzero(~fresh)
        else:
            old = slice(None)
        delta = self._x[rows[old]]                  # a copy (fancy index), turned into the change in place
        np.subtract(x[old], delta, out=delta)
        cols = self._columns(delta)
        # the update is rounded to float32 (~1e-7 of its size) but summed in float64, so the
        # pre-activations drift from a fresh product by ~1e-6 over a whole game
        pre[old] = self._pre[rows[old]] + (delta[:, cols] @ self._w1[cols] if cols.size else 0.0)
        self._pre[rows] = pre
        self._x[rows] = x
        return pre.astype(np.float32)

    def act(self, obs: np.ndarray, mask: np.ndarray, rows, rng: np.random.Generator | None = None,
            greedy: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(actions, log-probs, values [B, num_players]) of a batch; ``rows[i]``: the row whose
        previous position row i continues (distinct within a batch)."""
        rows = np.asarray(rows, dtype=np.intp)
        mask = np.asarray(mask, dtype=bool)
        if not mask.any(1).all():
            raise ValueError("a legal-action mask row has no legal action")
        if not greedy and rng is None:
            raise ValueError("sampling needs a numpy Generator (rng), or pass greedy=True")
        if self._mask_in_obs:
            x = np.empty((len(obs), self._in), np.float32)
            x[:, :self.obs_size] = obs
            x[:, self.obs_size:] = mask
        else:
            x = np.asarray(obs, dtype=np.float32)
        pre = self._first_layer(x, rows)
        hidden = []
        for t in range(self._torsos):
            h = self._act(pre[:, t * self._width:(t + 1) * self._width])
            for w, b in self._layers[t]:
                h = h @ w
                h += b
                h = self._act(h)
            hidden.append(h)
        # logits of the batch's legal actions only (ascending, so that the illegal ones, which
        # weigh nothing, are simply left out of the sums below)
        legal = np.flatnonzero(mask.any(0))
        k = legal.size
        if self._value_rows is not None:
            take = np.concatenate((legal, self._value_rows))
            out = hidden[0] @ self._head_rows[take].T
            out += self._head_bias[take]
            logits, values = out[:, :k], out[:, k:].copy()
        else:
            logits = hidden[0] @ self._head_rows[legal].T
            logits += self._head_bias[legal]
            values = hidden[-1] @ self._value[0]
            values += self._value[1]
        logits[~mask[:, legal]] = -np.inf
        top = logits.max(1)
        weights = np.exp(logits - top[:, None])            # 0 for the illegal actions
        if greedy:
            pick = logits.argmax(1)
            log_z = np.log(weights.sum(1)) + top
        else:
            # inverse CDF, one uniform per row: the first action whose cumulative weight passes
            # u * total (an illegal action adds no weight, so it is never the first to pass)
            cum = np.cumsum(weights, 1)
            total = cum[:, -1]
            # (held below the total: u * total may round up to it, which no action would pass)
            thr = np.minimum(rng.random(len(total), dtype=np.float32) * total, np.nextafter(total, np.float32(0)))
            pick = (cum <= thr[:, None]).sum(1)
            log_z = np.log(total) + top
        logp = logits[np.arange(len(pick)), pick] - log_z
        return legal[pick], logp.astype(np.float32), values


# ------------------------------------------------------------------------------------------------
# checkpoints
def observation_layout(encoder) -> list[list]:
    """The encoder's layout as plain data: [name, start, length, low, high] per slice."""
    return [[s.name, int(s.start), int(s.length), float(s.low), float(s.high)] for s in encoder.layout]


def _fingerprint(size: int, layout: list) -> str:
    return hashlib.sha256(json.dumps([int(size), layout]).encode()).hexdigest()[:16]


def observation_fingerprint(encoder) -> str:
    """Short hash of the encoder's layout (slice names, positions, bounds): two encoders with the
    same size but a different meaning per position get different fingerprints."""
    return _fingerprint(encoder.size, observation_layout(encoder))


def layout_permutation(trained_layout: list, encoder) -> np.ndarray:
    """``src`` with ``new_obs[i] == trained_obs[src[i]]`` when ``encoder`` has the same slices as the
    trained layout (names, lengths, bounds), only at other positions; raises ``CheckpointError``
    naming the differing slices otherwise."""
    old = {name: (start, length, low, high) for name, start, length, low, high in trained_layout}
    new = {name: (start, length, low, high) for name, start, length, low, high in observation_layout(encoder)}
    missing, added = sorted(set(old) - set(new)), sorted(set(new) - set(old))
    changed = sorted(n for n in set(old) & set(new) if old[n][1:] != new[n][1:])
    if missing or added or changed:
        raise CheckpointError(f"the observation encoder changed since training: slices removed {missing}, added "
                              f"{added}, resized or rescaled {changed}; retrain the policy")
    src = np.empty(encoder.size, dtype=np.int64)
    for name, (start, length, _, _) in new.items():
        src[start:start + length] = np.arange(old[name][0], old[name][0] + length)
    return src


def check_encoder(ckpt: dict, encoder, path) -> None:
    """Raise ``CheckpointError`` unless ``encoder`` produces exactly the observations the checkpoint
    was trained on (same size and, where recorded, the same layout fingerprint)."""
    size = ckpt["arch"]["obs_size"]
    if encoder.size != size:
        raise CheckpointError(f"checkpoint {os.fspath(path)!r} was trained with obs_size={size}, but the current "
                              f"observation encoder has obs_size={encoder.size}")
    recorded = ckpt.get("encoder", {}).get("fingerprint")
    now = observation_fingerprint(encoder)
    if recorded is not None and recorded != now:
        raise CheckpointError(f"checkpoint {os.fspath(path)!r} was trained on observation layout {recorded}, but the "
                              f"current encoder's layout is {now} (same size, different positions or features)")


def adapt_to_encoder(net: "PolicyValueNet", ckpt: dict, encoder, path) -> bool:
    """Make ``net`` read ``encoder``'s observations. When the encoder only moved slices around since
    training (same slices, other positions) and the checkpoint recorded its layout, the first
    layer's input columns are permuted to match, which gives exactly the trained function;
    otherwise this is ``check_encoder``. Returns True if the columns were permuted."""
    try:
        check_encoder(ckpt, encoder, path)
        return False
    except CheckpointError:
        trained = ckpt.get("encoder", {}).get("layout")
        if trained is None or encoder.size != ckpt["arch"]["obs_size"]:
            raise
    net.permute_inputs(layout_permutation(trained, encoder))
    return True


class CheckpointError(ValueError):
    """A checkpoint file is missing, not a PPO checkpoint, or does not fit the requested game."""


#: what a checkpoint's ``arch`` may hold: field -> (type, low, high) for numbers, the choices otherwise
ARCH_FIELDS = ("obs_size", "num_actions", "num_players", "hidden_sizes", "activation", "mask_in_obs", "shared_torso")
MAX_OBS_SIZE = 1_000_000
MAX_ACTIONS = 1_000_000
MAX_HIDDEN_SIZE = 4096
MAX_HIDDEN_LAYERS = 8


def _arch_int(path, arch: dict, name: str, low: int, high: int) -> int:
    v = arch[name]
    if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
        raise CheckpointError(f"checkpoint {path!r}: arch.{name} must be an integer in [{low}, {high}] "
                              f"(got {v!r})")
    return v


def expected_shapes(arch: dict) -> dict[str, tuple[int, ...]]:
    """Name -> shape of every tensor in the state dict of ``PolicyValueNet.from_arch(arch)``,
    computed without building (allocating) the network."""
    in_size = arch["obs_size"] + (arch["num_actions"] if arch["mask_in_obs"] else 0)
    sizes = [in_size, *arch["hidden_sizes"]]
    out: dict[str, tuple[int, ...]] = {}
    torsos = ["policy_torso"] + ([] if arch["shared_torso"] else ["value_torso"])
    for torso in torsos:
        for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
            out[f"{torso}.{2 * i}.weight"] = (b, a)      # Linear layers sit at even indices (odd: activation)
            out[f"{torso}.{2 * i}.bias"] = (b,)
    out["policy_head.weight"] = (arch["num_actions"], sizes[-1])
    out["policy_head.bias"] = (arch["num_actions"],)
    out["value_head.weight"] = (arch["num_players"], sizes[-1])
    out["value_head.bias"] = (arch["num_players"],)
    return out


def validate_arch(arch, state, path) -> dict:
    """Check a checkpoint's ``arch`` (exact key set, types, sane bounds) and that every tensor of
    its state dict ``state`` has the shape that architecture implies, *before* anything is built:
    a small file cannot make ``from_arch`` allocate gigabytes. Raises ``CheckpointError`` naming
    the field or tensor; returns ``arch``."""
    path = os.fspath(path)
    if not isinstance(arch, dict):
        raise CheckpointError(f"checkpoint {path!r} has no architecture record (arch is {type(arch).__name__})")
    missing = [k for k in ARCH_FIELDS if k not in arch]
    extra = sorted(str(k) for k in arch if k not in ARCH_FIELDS)
    if missing or extra:
        raise CheckpointError(f"checkpoint {path!r}: arch fields missing {missing}, unexpected {extra} "
                              f"(expected exactly {list(ARCH_FIELDS)})")
    _arch_int(path, arch, "obs_size", 1, MAX_OBS_SIZE)
    _arch_int(path, arch, "num_actions", 1, MAX_ACTIONS)
    _arch_int(path, arch, "num_players", 1, 4)
    hidden = arch["hidden_sizes"]
    if (not isinstance(hidden, (list, tuple)) or not 1 <= len(hidden) <= MAX_HIDDEN_LAYERS
            or any(isinstance(h, bool) or not isinstance(h, int) or not 1 <= h <= MAX_HIDDEN_SIZE for h in hidden)):
        raise CheckpointError(f"checkpoint {path!r}: arch.hidden_sizes must be a list of 1 to {MAX_HIDDEN_LAYERS} "
                              f"integers in [1, {MAX_HIDDEN_SIZE}] (got {hidden!r})")
    if not isinstance(arch["activation"], str) or arch["activation"] not in _ACTIVATIONS:
        raise CheckpointError(f"checkpoint {path!r}: arch.activation must be one of {sorted(_ACTIVATIONS)} "
                              f"(got {arch['activation']!r})")
    for name in ("mask_in_obs", "shared_torso"):
        if not isinstance(arch[name], bool):
            raise CheckpointError(f"checkpoint {path!r}: arch.{name} must be true or false (got {arch[name]!r})")
    if not isinstance(state, dict):
        raise CheckpointError(f"checkpoint {path!r} has no model weights (model is {type(state).__name__})")
    expected = expected_shapes(arch)
    missing = [k for k in expected if k not in state]
    extra = sorted(str(k) for k in state if k not in expected)
    if missing or extra:
        raise CheckpointError(f"checkpoint {path!r}: the weights do not fit its arch {arch}: tensors missing "
                              f"{missing}, unexpected {extra}")
    for name, shape in expected.items():
        t = state[name]
        if not isinstance(t, torch.Tensor) or not t.is_floating_point():
            raise CheckpointError(f"checkpoint {path!r}: model.{name} is not a floating-point tensor")
        if tuple(t.shape) != shape:
            field = _shape_field(name, arch)
            raise CheckpointError(f"checkpoint {path!r}: model.{name} has shape {list(t.shape)}, but its arch "
                                  f"({field}) implies {list(shape)}")
    return arch


def _shape_field(tensor: str, arch: dict) -> str:
    """The arch field(s) a tensor's shape follows from (for the error message)."""
    if tensor.startswith("value_head"):
        return f"num_players={arch['num_players']}, hidden_sizes={arch['hidden_sizes']}"
    if tensor.startswith("policy_head"):
        return f"num_actions={arch['num_actions']}, hidden_sizes={arch['hidden_sizes']}"
    if tensor.endswith(".0.weight"):
        return (f"obs_size={arch['obs_size']}, num_actions={arch['num_actions']}, mask_in_obs={arch['mask_in_obs']}, "
                f"hidden_sizes={arch['hidden_sizes']}")
    return f"hidden_sizes={arch['hidden_sizes']}"


#: the state dicts of networks a checkpoint may hold (PPO: model; AlphaZero training: also best_model)
WEIGHT_FIELDS = ("model", "best_model")
#: where a checkpoint keeps the sha256 of each of them (see ``stamp_weights``)
DIGEST_FIELD = "weights_sha256"
RESTAMP_HINT = "python -m training.stamp"


def weights_digest(state: dict) -> str:
    """sha256 of a state dict: every tensor's name, dtype, shape and bytes, in name order."""
    h = hashlib.sha256()
    for name in sorted(state):
        t = state[name]
        if not isinstance(t, torch.Tensor):
            raise CheckpointError(f"weights entry {name!r} is not a tensor ({type(t).__name__})")
        t = t.detach().cpu().contiguous().reshape(-1)
        h.update(json.dumps([name, str(t.dtype), list(state[name].shape)]).encode())
        h.update(t.view(torch.uint8).numpy().tobytes())
    return h.hexdigest()


def stamp_weights(ckpt: dict) -> dict:
    """``ckpt`` with the sha256 of each of its networks' weights (``weights_sha256``), which
    ``read_checkpoint`` verifies: every model and checkpoint the project writes carries it."""
    return {**ckpt, DIGEST_FIELD: {f: weights_digest(ckpt[f]) for f in WEIGHT_FIELDS if isinstance(ckpt.get(f), dict)}}


def check_weights(ckpt: dict, path) -> None:
    """Raise ``CheckpointError`` naming the file when any network's weights are not finite (NaN,
    inf) or differ from the sha256 recorded with them (the file was damaged or edited). A file
    without a recorded digest (written before digests existed) is accepted with a warning saying
    how to stamp it."""
    path = os.fspath(path)
    present = [f for f in WEIGHT_FIELDS if isinstance(ckpt.get(f), dict)]
    for f in present:
        for name, t in ckpt[f].items():
            if isinstance(t, torch.Tensor) and t.is_floating_point() and not bool(torch.isfinite(t).all()):
                raise CheckpointError(f"checkpoint {path!r}: {f}.{name} holds non-finite weights (NaN or inf); "
                                      f"the network is unusable")
    recorded = ckpt.get(DIGEST_FIELD)
    if recorded is None:
        warnings.warn(f"checkpoint {path!r} carries no weights digest (written by an older version), so damage to "
                      f"its weights cannot be detected; stamp it with `{RESTAMP_HINT} {path}`", UserWarning,
                      stacklevel=3)
        return
    if not isinstance(recorded, dict) or any(not isinstance(recorded.get(f), str) for f in present):
        raise CheckpointError(f"checkpoint {path!r}: its {DIGEST_FIELD} record is malformed or incomplete")
    for f in present:
        if weights_digest(ckpt[f]) != recorded[f]:
            raise CheckpointError(f"checkpoint {path!r}: the {f} weights do not match their recorded sha256 "
                                  f"digest: the file is damaged (or was edited); restore it from a good copy")


def action_table_fingerprint(sections=SECTIONS) -> str:
    """Short hash of the flat action table (each section's name, first index and size): a policy
    head's rows mean these actions, so a model is only valid under the table it was trained on,
    also when another table happens to have the same number of actions."""
    return hashlib.sha256(json.dumps([[n, int(a), int(b)] for n, a, b in sections]).encode()).hexdigest()[:16]


def trained_modules(ckpt: dict) -> tuple[str, ...]:
    """The Industria modules of the games a checkpoint was trained on (its config's game_options
    read as ``GameConfig`` reads them: ``industria=True`` and single modules); () for the base game."""
    opts = (ckpt.get("config") or {}).get("game_options") or {}
    chosen = {k: v for k, v in opts.items() if k == "industria" or k in INDUSTRIA_MODULES}
    return GameConfig(num_players=ckpt["arch"]["num_players"], **chosen).industria_modules


def describe_configuration(num_players: int, modules) -> str:
    """``num_players=3, Industria modules (awards, trains)`` or ``num_players=2, base game (no Industria)``."""
    return f"num_players={num_players}, " + (f"Industria modules ({', '.join(modules)})" if modules
                                              else "base game (no Industria)")


def read_checkpoint(path, num_players: int | None = None, obs_size: int | None = None,
                    num_actions: int = NUM_ACTIONS) -> dict:
    """Load a PPO checkpoint or exported model (CPU) and check it fits the game.

    Raises ``CheckpointError`` naming both values when the player count, observation size or
    action count differs from the expected one, naming the field when the recorded architecture
    is malformed, out of bounds or does not match the weights' shapes (checked before any
    network is built, see ``validate_arch``), and ``FileNotFoundError`` for a missing file."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"PPO checkpoint {path!r} does not exist")
    try:
        ckpt = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:
        raise CheckpointError(f"{path!r} is not a readable PPO checkpoint ({type(e).__name__}: {e})") from None
    if not isinstance(ckpt, dict) or ckpt.get("format") != CHECKPOINT_FORMAT:
        raise CheckpointError(f"{path!r} is not a PPO checkpoint (format marker {CHECKPOINT_FORMAT!r} missing)")
    if ckpt.get("version") != CHECKPOINT_VERSION:
        raise CheckpointError(f"{path!r} has checkpoint version {ckpt.get('version')!r}; this code reads "
                              f"version {CHECKPOINT_VERSION}")
    arch = validate_arch(ckpt.get("arch"), ckpt.get("model"), path)
    check_weights(ckpt, path)
    for name, expected in (("num_players", num_players), ("obs_size", obs_size), ("num_actions", num_actions)):
        if expected is not None and arch[name] != expected:
            raise CheckpointError(f"checkpoint {path!r} was trained with {name}={arch[name]}, but {name}={expected} "
                                  f"is needed here")
    recorded = ckpt.get("action_table")         # absent in files written before it was recorded
    if recorded is not None and recorded != action_table_fingerprint():
        raise CheckpointError(f"checkpoint {path!r} was trained on action table {recorded!r} ({arch['num_actions']} "
                              f"actions), but this engine's action table is {action_table_fingerprint()!r} "
                              f"({NUM_ACTIONS} actions); retrain the policy")
    return ckpt


def arch_difference(a: dict, b: dict) -> list[str]:
    """The arch fields on which two architectures differ, as ``name: a != b`` strings."""
    return [f"{k}: {a.get(k)!r} != {b.get(k)!r}" for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]


def load_policy(path, num_players: int | None = None, obs_size: int | None = None) -> tuple[PolicyValueNet, dict]:
    """(network in eval mode, checkpoint dict) from a checkpoint or exported model."""
    ckpt = read_checkpoint(path, num_players=num_players, obs_size=obs_size)
    net = PolicyValueNet.from_arch(ckpt["arch"])
    net.load_state_dict(ckpt["model"])
    return net.eval(), ckpt


# ------------------------------------------------------------------------------------------------
class PPOAgent(Agent):
    """Plays a trained policy: argmax over legal actions (``greedy=True``) or a sample.

    The checkpoint's player count and observation size must match the game; a mismatch raises
    ``CheckpointError`` at the first move (the game's player count is not known before)."""

    name = "ppo"

    def __init__(self, path, greedy: bool = True, seed: int | None = None, temperature: float = 1.0):
        super().__init__(seed)
        if not temperature > 0:
            raise ValueError(f"temperature must be > 0 (got {temperature!r})")
        self.path = os.fspath(path)
        self.greedy = bool(greedy) if not isinstance(greedy, str) else greedy.lower() in ("1", "true", "yes")
        self.temperature = float(temperature)
        self.net, self.checkpoint = load_policy(self.path)
        self.num_players = self.net.num_players
        self._encoder = None
        self._input_arrays = None        # (encoder, obs, mask, their tensors, last legal list) of _inputs
        self._np_rng = np.random.default_rng(seed)
        self.name = f"ppo:{os.path.basename(self.path)}" + ("" if self.greedy else ":sampled")

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if seed is not None:
            self._np_rng = np.random.default_rng(seed)

    def _encoder_for(self, game):
        modules = game.config.industria_modules
        trained = trained_modules(self.checkpoint)
        if game.num_players != self.num_players or modules != trained:
            raise CheckpointError(f"checkpoint {self.path!r} was trained with "
                                  f"{describe_configuration(self.num_players, trained)}, but this game has "
                                  f"{describe_configuration(game.num_players, modules)}")
        if self._encoder is None or self._encoder.industria != modules:
            from clans_env.encoding import ObservationEncoder
            enc = ObservationEncoder(self.num_players, industria=modules)
            adapt_to_encoder(self.net, self.checkpoint, enc, self.path)
            self._encoder = enc
        return self._encoder

    def _inputs(self, game) -> tuple[list[int], torch.Tensor, torch.Tensor]:
        """(legal actions, observation [1, obs], legal mask [1, A]) of the position, written into the
        tensors of the previous call (valid until the next one): the encoder overwrites every entry
        and the mask clears only the previous call's legal actions, where fresh arrays cost ~12 µs a
        call, a fifth of a move outside the network. The mask is set in NumPy: indexing a torch tensor
        with a list costs more than the rest."""
        legal = game.legal_actions()
        if not legal:
            raise ValueError("the game is over: there is no decision to make")
        enc = self._encoder_for(game)
        if self._input_arrays is None or self._input_arrays[0] is not enc:
            obs, mask = np.zeros((1, enc.size), np.float32), np.zeros((1, NUM_ACTIONS), bool)
            self._input_arrays = (enc, obs, mask, torch.from_numpy(obs), torch.from_numpy(mask), [])
        _, obs, mask, obs_t, mask_t, last = self._input_arrays
        enc.encode_into(game, game.current_player, obs[0])
        mask[0, last] = False
        mask[0, legal] = True
        last[:] = legal
        return legal, obs_t, mask_t

    @torch.no_grad()
    def _distribution(self, game) -> tuple[list[int], torch.Tensor]:
        legal, obs, mask = self._inputs(game)
        logits, _ = self.net(obs, mask)
        dist = MaskedCategorical(logits / self.temperature, mask)
        return legal, dist.probs[0]

    @torch.no_grad()
    def act(self, game) -> int:
        if not self.greedy:
            legal, probs = self._distribution(game)
            if len(legal) == 1:
                return legal[0]
            p = probs[legal].double().numpy()
            return legal[int(self._np_rng.choice(len(legal), p=p / p.sum()))]
        legal, obs, mask = self._inputs(game)
        if len(legal) == 1:                    # forced: no forward pass needed
            return legal[0]
        logits, _ = self.net(obs, mask)
        # the most probable legal action is the legal action with the largest logit (softmax and
        # temperature keep the order), so no distribution is built; ``max`` keeps the first of equal
        # ones, as argmax does, and over ~30 legal actions costs half of gathering them into an array
        row = logits.numpy()[0]
        return max(legal, key=row.__getitem__)

    def policy_prior(self, game) -> dict[int, float]:
        """{legal action: probability} under the policy (for MCTS priors or rollout policies)."""
        legal, probs = self._distribution(game)
        p = probs[legal].double().numpy()
        p /= p.sum()
        return {a: float(x) for a, x in zip(legal, p)}

    @torch.no_grad()
    def value(self, game) -> list[float]:
        """The value head's estimate of every seat's outcome (absolute seat order), in the
        training reward's units (see the checkpoint's config ``reward``)."""
        if game.is_terminal():
            raise ValueError("the game is over: use game.final_scores()")
        seat = game.current_player
        _, obs, mask = self._inputs(game)
        _, values = self.net(obs, mask)
        return np.roll(values[0].numpy(), seat).astype(float).tolist()
