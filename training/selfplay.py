"""Vectorised self-play: many games stepped side by side on the engine, one forward pass per policy.

``MatchRunner`` plays games whose seats are each controlled by a *controller*: the learner
network, a frozen network (a past snapshot), or a fixed agent (random, heuristic). At every step
it gathers the pending decision of each running game, groups them by controller, and answers
each group at once (one batched forward pass per network). Decisions made by a *trained* seat
become PPO samples; when a game ends, its outcome becomes the terminal reward of each trained
seat's trajectory and GAE runs over that trajectory.

Data collection steps the engine directly with the observation encoder (no PettingZoo layer):
the environment adds nothing a trainer needs and costs a dict per step. Everything random here
comes from one numpy Generator per collection, so a collection is a pure function of
(weights, pool, seed): that is what makes ``--resume`` exact and subprocess workers reproducible.
"""
from __future__ import annotations

import dataclasses
import multiprocessing as mp
import os
import shutil
import tempfile
import warnings
import weakref
from dataclasses import dataclass, field

import numpy as np
import torch
from threadpoolctl import threadpool_limits

from clans_env import Game, GameConfig
from clans_env.encoding.masks import fill_mask
from clans_env.engine.actions import NUM_ACTIONS
from clans_env.env.rewards import final_rewards

from .config import PPOConfig
from .networks import IncrementalActor, PolicyValueNet
from .orphans import exit_with_parent, parent_token

LEARNER = "learner"


# ------------------------------------------------------------------------------------------------
# outcomes and rewards
def seat_outcomes(scores: list[dict], kind: str, score_scale: float) -> np.ndarray:
    """Terminal reward of every seat from ``Game.final_scores()`` rows: the environment's rewards
    (``clans_env.env.rewards.final_rewards``, ``win+score`` included)."""
    return np.asarray(final_rewards(scores, kind, score_scale), np.float32)


def relative(values: np.ndarray, seat: int) -> np.ndarray:
    """Reorder per-seat values so index 0 is ``seat`` and index i the seat i places after it."""
    return np.roll(values, -seat)


# ------------------------------------------------------------------------------------------------
# encoders
def make_encoder(num_players: int, game_options: dict | None = None):
    """The project's observation encoder (``clans_env.encoding``) for ``num_players`` and the games'
    ``GameConfig`` options (the Industria modules among them add their segment)."""
    from clans_env.encoding import ObservationEncoder
    modules = GameConfig(num_players=num_players, **(game_options or {})).industria_modules
    return ObservationEncoder(num_players, industria=modules)


def encode_batch(encoder, games: list, seats: list[int], legals: list | None = None,
                 out: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Observations [B, obs] (float32) and legal masks [B, NUM_ACTIONS] (bool) for a batch
    (``legals``: the games' legal lists when the caller has them already; ``out``: arrays of at
    least B rows to write into, whose first B rows are returned)."""
    if out is None:
        obs = np.empty((len(games), encoder.size), dtype=np.float32)
        mask = np.zeros((len(games), NUM_ACTIONS), dtype=bool)
    else:
        obs, mask = out[0][:len(games)], out[1][:len(games)]
        mask[:] = False
    encode_into = getattr(encoder, "encode_into", None)
    for i, (g, seat) in enumerate(zip(games, seats)):
        if encode_into is not None:
            encode_into(g, seat, obs[i])
        else:
            obs[i] = encoder.encode(g, seat)
        fill_mask(mask[i], g.legal_actions() if legals is None else legals[i])
    return obs, mask


class SampleRows:
    """Growing [N, ...] arrays that samples are encoded into in place. Encoding each batch into
    fresh arrays and stacking the kept rows at the end touched every observation's memory twice;
    first writes to fresh pages are what collection paid most for after the network."""

    def __init__(self, widths: dict[str, tuple[int, type]], capacity: int, reuse: dict | None = None):
        """``reuse``: arrays (name -> [N, width]) of a finished collection to write over where they fit:
        their memory is already mapped, and first writes to fresh pages cost more than the encoding."""
        self.n = 0
        self.arrays = {}
        for k, (w, dtype) in widths.items():
            old = (reuse or {}).get(k)
            fits = old is not None and old.dtype == dtype and old.ndim == 2 and old.shape[1] == w \
                and len(old) >= capacity and old.flags.c_contiguous and old.flags.writeable
            self.arrays[k] = old if fits else np.empty((max(1, capacity), w), dtype)

    def reserve(self, k: int) -> dict[str, np.ndarray]:
        """Views of the next ``k`` rows of every array (grown when needed); ``commit(k)`` keeps them."""
        need = self.n + k
        cap = len(next(iter(self.arrays.values())))
        if need > cap:
            cap = max(need, 2 * cap)
            for name, a in self.arrays.items():
                grown = np.empty((cap, a.shape[1]), a.dtype)
                grown[:self.n] = a[:self.n]
                self.arrays[name] = grown
        return {name: a[self.n:need] for name, a in self.arrays.items()}

    def commit(self, k: int) -> None:
        self.n += k

    def rows(self, name: str) -> np.ndarray:
        return self.arrays[name][:self.n]


def _full_rows(rows: np.ndarray) -> np.ndarray:
    """The whole array that ``SampleRows.rows`` returned a leading slice of."""
    base = rows.base
    return base if isinstance(base, np.ndarray) and base.ndim == 2 and base.shape[1:] == rows.shape[1:] else rows


# ------------------------------------------------------------------------------------------------
# fixed agents as controllers
_HEURISTIC_WARNED = False


def make_fixed_agent(kind: str, seed: int):
    """A fixed opponent agent by kind ('random' or 'heuristic'), seeded."""
    global _HEURISTIC_WARNED
    if kind == "heuristic":
        try:
            from agents.heuristic import HeuristicAgent
        except ImportError as e:
            if not _HEURISTIC_WARNED:
                warnings.warn(f"agents.heuristic is not available ({e}); heuristic opponents play randomly")
                _HEURISTIC_WARNED = True
        else:
            return HeuristicAgent(seed=seed)
    elif kind != "random":
        raise ValueError(f"unknown fixed agent kind {kind!r}; valid: random, heuristic")
    from agents import RandomAgent
    return RandomAgent(seed=seed)


def heuristic_available() -> bool:
    try:
        import agents.heuristic  # noqa: F401
    except ImportError:
        return False
    return True


# ------------------------------------------------------------------------------------------------
@dataclass
class GameSpec:
    """One game to play: its seed and, per seat, a controller key and whether the seat trains.

    Controller keys: ``"learner"`` (the network being trained / evaluated), ``"pool:<k>"`` (frozen
    network k), ``"random"``, ``"heuristic"``."""
    seed: int
    controllers: list[str]
    trained: list[bool]
    learner_seat: int = 0
    #: the opponent kind per seat as drawn (current / pool / random / heuristic), for statistics
    kinds: list[str] = field(default_factory=list)


@dataclass
class GameResult:
    spec: GameSpec
    scores: list[dict]
    outcomes: np.ndarray
    decisions: int


@dataclass
class Rollout:
    """PPO samples of one collection (all arrays have the same first dimension)."""
    obs: np.ndarray          # [N, obs] float32
    mask: np.ndarray         # [N, A] bool
    actions: np.ndarray      # [N] int64
    logp: np.ndarray         # [N] float32, log-prob under the behaviour policy
    values: np.ndarray       # [N, P] float32, behaviour value predictions (relative seats)
    advantages: np.ndarray   # [N] float32, GAE of the deciding seat
    returns: np.ndarray      # [N] float32, GAE targets for value head 0
    seat_targets: np.ndarray  # [N, P] float32, final outcome of every seat, relative to the decider
    results: list            # GameResult per finished game
    decisions: int           # all decisions played (every seat)

    def __len__(self) -> int:
        return len(self.actions)

    @staticmethod
    def concat(parts: list["Rollout"]) -> "Rollout":
        return Rollout(*(np.concatenate([getattr(p, f) for p in parts]) for f in
                         ("obs", "mask", "actions", "logp", "values", "advantages", "returns", "seat_targets")),
                       results=[r for p in parts for r in p.results], decisions=sum(p.decisions for p in parts))


def gae(values: np.ndarray, final_reward: float, gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """GAE(lambda) over one seat's trajectory whose only reward arrives after its last decision."""
    T = len(values)
    adv = np.zeros(T, dtype=np.float32)
    last = 0.0
    for t in range(T - 1, -1, -1):
        if t == T - 1:
            delta = final_reward - values[t]
        else:
            delta = gamma * values[t + 1] - values[t]
        last = delta + gamma * lam * last
        adv[t] = last
    return adv, adv + values.astype(np.float32)


class _Slot:
    """One running game: the game, its spec, the fixed agents by seat, and per trained seat the
    indices of its samples (its trajectory)."""

    __slots__ = ("game", "spec", "agents", "trajectories", "decisions")

    def __init__(self, game: Game, spec: GameSpec, agents: dict, trajectories: dict):
        self.game = game
        self.spec = spec
        self.agents = agents
        self.trajectories = trajectories
        self.decisions = 0


class MatchRunner:
    """Plays batches of games with networks and agents as controllers (see module docstring)."""

    def __init__(self, num_players: int, encoder, nets: dict, game_options: dict | None = None,
                 greedy: dict | None = None):
        self.num_players = num_players
        self.encoder = encoder
        self.nets = nets                   # controller key -> PolicyValueNet
        self.greedy = greedy or {}         # controller key -> bool (default: sample)
        self.game_options = dict(game_options or {})

    def _new_game(self, spec: GameSpec) -> Game:
        return Game(GameConfig(num_players=self.num_players, seed=int(spec.seed), **self.game_options))

    def play(self, next_spec, num_slots: int, rng: np.random.Generator, gamma: float = 1.0, lam: float = 0.95,
             reward: str = "win+score", score_scale: float = 40.0, progress=None, expected_samples: int = 1024,
             reuse: "Rollout | None" = None) -> Rollout:
        """Play games from ``next_spec(samples_so_far)`` (a GameSpec, or None to stop starting games)
        on ``num_slots`` slots until every started game has finished. ``progress(samples)`` is
        called after each finished game. ``expected_samples``: room reserved for the samples at
        the start (more is grown into). ``reuse``: a Rollout the caller is done with, whose
        observation and mask memory the samples may be written over (see ``SampleRows``).

        NumPy's BLAS runs on one thread meanwhile: the actors' products are small (~8 rows), and
        OpenBLAS's own threads cost more to wake than they save, far more when the other cores are
        busy (subprocess workers, a training run beside): x2.5 on the first layer then."""
        with threadpool_limits(limits=1, user_api="blas"):
            return self._play(next_spec, num_slots, rng, gamma, lam, reward, score_scale, progress,
                              expected_samples, reuse)

    def _play(self, next_spec, num_slots, rng, gamma, lam, reward, score_scale, progress, expected_samples,
              reuse) -> Rollout:
        P = self.num_players
        slots: list[_Slot | None] = [None] * num_slots
        store = SampleRows({"obs": (self.encoder.size, np.float32), "mask": (NUM_ACTIONS, bool)}, expected_samples,
                           reuse=None if reuse is None else {"obs": _full_rows(reuse.obs), "mask": _full_rows(reuse.mask)})
        scratch = (np.empty((num_slots, self.encoder.size), np.float32), np.zeros((num_slots, NUM_ACTIONS), bool))
        act_buf, logp_buf, val_buf = [], [], []
        adv_buf: list = []
        ret_buf: list = []
        seat_buf: list = []
        results: list[GameResult] = []
        decisions = 0
        stopped = False
        # one incremental actor per network: row i * P + seat follows that seat of slot i
        actors = {key: IncrementalActor(net, num_slots * P) for key, net in self.nets.items()}

        def fill():
            nonlocal stopped
            for i in range(num_slots):
                if slots[i] is None and not stopped:
                    spec = next_spec(len(act_buf))
                    if spec is None:
                        stopped = True
                        return
                    agents = {seat: make_fixed_agent(key, int(rng.integers(2**31)))
                              for seat, key in enumerate(spec.controllers) if key in ("random", "heuristic")}
                    slots[i] = _Slot(self._new_game(spec), spec, agents,
                                     {s: [] for s in range(P) if spec.trained[s]})

        fill()
        while any(s is not None for s in slots):
            groups: dict[str, list[int]] = {}
            for i, slot in enumerate(slots):
                if slot is not None:
                    groups.setdefault(slot.spec.controllers[slot.game.current_player], []).append(i)
            chosen: dict[int, int] = {}
            for key, idx in groups.items():
                if key not in self.nets:
                    for i in idx:
                        g = slots[i].game
                        chosen[i] = int(slots[i].agents[g.current_player].act(g))
                    continue
                # a forced move (one legal action) teaches nothing and needs no forward pass
                asked = []
                legals = []
                for i in idx:
                    legal = slots[i].game.legal_actions()
                    if len(legal) == 1:
                        chosen[i] = legal[0]
                    else:
                        asked.append(i)
                        legals.append(legal)
                if not asked:
                    continue
                games = [slots[i].game for i in asked]
                seats = [g.current_player for g in games]
                trajs = [slots[i].trajectories.get(seat) for i, seat in zip(asked, seats)]
                kept = [j for j, traj in enumerate(trajs) if traj is not None]
                if len(kept) == len(asked):       # every decision becomes a sample: encode in place
                    rows = store.reserve(len(asked))
                    obs, mask = encode_batch(self.encoder, games, seats, legals, out=(rows["obs"], rows["mask"]))
                    store.commit(len(asked))
                else:
                    obs, mask = encode_batch(self.encoder, games, seats, legals, out=scratch)
                    if kept:
                        rows = store.reserve(len(kept))
                        rows["obs"][:] = obs[kept]
                        rows["mask"][:] = mask[kept]
                        store.commit(len(kept))
                actions, logp, values = actors[key].act(obs, mask, [i * P + s for i, s in zip(asked, seats)],
                                                        rng=rng, greedy=self.greedy.get(key, False))
                for j, i in enumerate(asked):
                    a = int(actions[j])
                    chosen[i] = a
                    traj = trajs[j]
                    if traj is not None:          # a trained seat: the decision becomes a sample
                        traj.append(len(act_buf))
                        act_buf.append(a)
                        logp_buf.append(logp[j])
                        val_buf.append(values[j])
                        adv_buf.append(0.0)
                        ret_buf.append(0.0)
                        seat_buf.append(None)
            for i, a in chosen.items():
                slot = slots[i]
                g = slot.game
                g.apply(a)
                slot.decisions += 1
                decisions += 1
                if not g.is_terminal():
                    continue
                scores = g.final_scores()
                outcomes = seat_outcomes(scores, reward, score_scale)
                for seat, traj in slot.trajectories.items():
                    if not traj:
                        continue
                    v = np.array([val_buf[k][0] for k in traj], dtype=np.float32)
                    adv, ret = gae(v, float(outcomes[seat]), gamma, lam)
                    rel = relative(outcomes, seat)
                    for t, k in enumerate(traj):
                        adv_buf[k] = adv[t]
                        ret_buf[k] = ret[t]
                        seat_buf[k] = rel
                results.append(GameResult(slot.spec, scores, outcomes, slot.decisions))
                for actor in actors.values():
                    actor.reset(slice(i * P, (i + 1) * P))
                if progress is not None:
                    progress(len(act_buf))
                slots[i] = None
            fill()

        n = len(act_buf)
        return Rollout(
            obs=store.rows("obs"),
            mask=store.rows("mask"),
            actions=np.array(act_buf, dtype=np.int64),
            logp=np.array(logp_buf, dtype=np.float32),
            values=np.stack(val_buf).astype(np.float32) if n else np.zeros((0, P), np.float32),
            advantages=np.array(adv_buf, dtype=np.float32),
            returns=np.array(ret_buf, dtype=np.float32),
            seat_targets=np.stack(seat_buf).astype(np.float32) if n else np.zeros((0, P), np.float32),
            results=results, decisions=decisions)


# ------------------------------------------------------------------------------------------------
# self-play collection
class OpponentSampler:
    """Draws, per game, the learner's seat and a controller for every other seat."""

    def __init__(self, config: PPOConfig, pool_size_now: int, have_heuristic: bool):
        self.config = config
        self.pool_n = pool_size_now
        weights = {k: float(config.opponent_weights.get(k, 0.0)) for k in ("current", "pool", "random", "heuristic")}
        if self.pool_n == 0:
            # no snapshot yet: the pool's share plays the current learner instead
            weights["current"] += weights.pop("pool")
        if not have_heuristic:
            weights["random"] += weights.pop("heuristic")
        self.kinds = [k for k, w in weights.items() if w > 0]
        w = np.array([weights[k] for k in self.kinds])
        self.p = w / w.sum()
        if config.pool_sampling == "recent" and self.pool_n:
            pw = np.arange(1, self.pool_n + 1, dtype=np.float64)
        else:
            pw = np.ones(self.pool_n)
        self.pool_p = pw / pw.sum() if self.pool_n else None

    def sample(self, rng: np.random.Generator) -> GameSpec:
        P = self.config.num_players
        learner_seat = int(rng.integers(P))
        controllers, trained, kinds = [], [], []
        for seat in range(P):
            if seat == learner_seat:
                controllers.append(LEARNER)
                trained.append(True)
                kinds.append("learner")
                continue
            kind = self.kinds[int(rng.choice(len(self.kinds), p=self.p))]
            kinds.append(kind)
            if kind == "current":
                controllers.append(LEARNER)
                trained.append(self.config.train_on_mirror)
            elif kind == "pool":
                controllers.append(f"pool:{int(rng.choice(self.pool_n, p=self.pool_p))}")
                trained.append(False)
            else:
                controllers.append(kind)
                trained.append(False)
        return GameSpec(seed=int(rng.integers(2**31)), controllers=controllers, trained=trained,
                        learner_seat=learner_seat, kinds=kinds)


def collect(config: PPOConfig, encoder, learner: PolicyValueNet, pool: list[PolicyValueNet], seed,
            target_samples: int, num_slots: int, have_heuristic: bool | None = None, progress=None,
            reuse: Rollout | None = None) -> Rollout:
    """Self-play games until at least ``target_samples`` learner decisions were recorded.

    A pure function of (weights, pool, seed): ``seed`` may be an int or a numpy SeedSequence.
    ``reuse``: a previous Rollout the caller is done with; its observation and mask arrays are
    written over (a training loop passes the last update's batch)."""
    rng = np.random.default_rng(seed)
    if have_heuristic is None:
        have_heuristic = heuristic_available()
    sampler = OpponentSampler(config, len(pool), have_heuristic)
    nets = {LEARNER: learner, **{f"pool:{k}": net for k, net in enumerate(pool)}}
    runner = MatchRunner(config.num_players, encoder, nets, config.game_options)

    def next_spec(samples_so_far):
        return sampler.sample(rng) if samples_so_far < target_samples else None

    return runner.play(next_spec, num_slots, rng, gamma=config.gamma, lam=config.gae_lambda, reward=config.reward,
                       score_scale=config.score_scale, progress=progress,
                       # the samples of the games still running when the target is reached come on top
                       expected_samples=target_samples + 64 * num_slots, reuse=reuse)


# ------------------------------------------------------------------------------------------------
# subprocess workers
#: WorkerPool's shared files live in a folder named by this prefix and the parent's process id
_FILES_PREFIX = "clans-collect-"


def _remove_orphaned_files(where: str) -> None:
    """Remove the shared-file folders of WorkerPools whose process is gone (a run killed with SIGKILL,
    the crash-safe way to stop one, leaves them behind; in /dev/shm they hold memory until removed)."""
    try:
        names = os.listdir(where)
    except OSError:
        return
    for name in names:
        if not name.startswith(_FILES_PREFIX):
            continue
        pid = name[len(_FILES_PREFIX):].split("-", 1)[0]
        if not pid.isdigit() or _process_alive(int(pid)):
            continue
        shutil.rmtree(os.path.join(where, name), ignore_errors=True)


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:             # exists, owned by someone else
        return True
    return True


def _sample_file(path: str, rows: int, width: int, dtype) -> np.ndarray:
    """[rows, width] array on the file ``path`` (created or resized by the caller), mapped shared."""
    return np.memmap(path, dtype=dtype, mode="r+", shape=(rows, width))


def _read_weights(nets: list[PolicyValueNet], weights: dict) -> None:
    """Load ``nets`` from the shared weights file ``WorkerPool`` wrote (one after another, in
    ``state_dict`` order)."""
    flat = np.memmap(weights["path"], dtype=np.float32, mode="c", shape=(weights["size"],))
    at = 0
    with torch.no_grad():
        for net in nets:
            for t in net.state_dict().values():
                t.copy_(torch.from_numpy(np.asarray(flat[at:at + t.numel()])).view_as(t))
                at += t.numel()
    del flat


def _worker_main(conn, config_dict: dict, arch: dict, have_heuristic: bool, torch_threads: int, parent) -> None:
    # in the middle of a collection a worker reads no pipe and would play on for minutes after its
    # trainer was killed
    exit_with_parent(parent)
    torch.set_num_threads(torch_threads)
    config = PPOConfig.from_dict(config_dict)
    encoder = make_encoder(config.num_players, config.game_options)
    learner = PolicyValueNet.from_arch(arch).eval()
    pool: list[PolicyValueNet] = []
    mapped = None                  # (the parent's sample files, their obs and mask arrays)
    while True:
        msg = conn.recv()
        if msg is None:
            break
        weights, seed, target, slots, files = msg
        try:
            while len(pool) < weights["nets"] - 1:
                pool.append(PolicyValueNet.from_arch(arch).eval())
            del pool[weights["nets"] - 1:]
            _read_weights([learner, *pool], weights)
            if mapped is None or mapped[0] != files:
                mapped = (files, _sample_file(files["obs"], files["rows"], encoder.size, np.float32),
                          _sample_file(files["mask"], files["rows"], NUM_ACTIONS, np.bool_))
            shared = Rollout(mapped[1], mapped[2], *(np.zeros(0) for _ in range(6)), results=[], decisions=0)
            r = collect(config, encoder, learner, pool, seed, target, slots, have_heuristic, reuse=shared)
            if np.shares_memory(r.obs, shared.obs) and np.shares_memory(r.mask, shared.mask):
                # the samples are on the parent's files already: send the rest
                r = dataclasses.replace(r, obs=None, mask=None)
            conn.send(r)
        except Exception as e:  # report, never hang the trainer
            conn.send(e)
    conn.close()


class WorkerPool:
    """N subprocesses that each collect a share of an update's games (``workers`` config field).

    Each worker gets the current weights every update and its own seed (a child of the update's
    SeedSequence), so results are reproducible for a fixed number of workers.

    The bulk goes through files in shared memory (``/dev/shm`` where there is one) that this process
    and the workers map: the weights, written once for all workers, and the samples' observations and
    masks, which each worker encodes straight into its own pair of files. Through the pipe, a
    4,096-sample update's 67 MB of observations and each worker's copy of the weights were pickled,
    sent and unpickled, which cost about a quarter of a collection's time. Only a worker whose games
    ran past its files' rows sends its samples the old way."""

    def __init__(self, config: PPOConfig, arch: dict):
        ctx = mp.get_context("spawn")
        have_heuristic = heuristic_available()
        self.conns, self.procs = [], []
        self.obs_size = int(arch["obs_size"])
        shm = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()
        _remove_orphaned_files(shm)
        self._dir = tempfile.mkdtemp(prefix=f"{_FILES_PREFIX}{os.getpid()}-", dir=shm)
        self._cleanup = weakref.finalize(self, shutil.rmtree, self._dir, True)
        self._files: list[dict] = []
        self._views: list = []
        self._weights_path: str | None = None
        for _ in range(config.workers):
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_worker_main, args=(child, config.to_dict(), arch, have_heuristic, 1, parent_token()),
                               daemon=True)
            proc.start()
            child.close()
            self.conns.append(parent)
            self.procs.append(proc)

    def _sample_files(self, rows: int) -> list[dict]:
        """Each worker's pair of files of at least ``rows`` rows (made larger when a collection needs more)."""
        if not self._files or self._files[0]["rows"] < rows:
            self._views = []
            for f in self._files:
                for name in ("obs", "mask"):
                    os.remove(f[name])
            self._files = []
            for w in range(len(self.conns)):
                files = {"rows": rows}
                for name, width, itemsize in (("obs", self.obs_size, 4), ("mask", NUM_ACTIONS, 1)):
                    path = os.path.join(self._dir, f"{name}-{w}-{rows}.bin")
                    with open(path, "wb") as fh:
                        fh.truncate(rows * width * itemsize)
                    files[name] = path
                self._files.append(files)
            self._views = [(_sample_file(f["obs"], rows, self.obs_size, np.float32),
                            _sample_file(f["mask"], rows, NUM_ACTIONS, np.bool_)) for f in self._files]
        return self._files

    def _write_weights(self, nets: list[PolicyValueNet]) -> dict:
        """The networks' weights for the workers, one after another in ``state_dict`` order, as float32
        (the workers' networks are float32) in a shared file: about 5 ms for three 256x256 networks,
        where pickling their state dicts for each worker took ~55 ms."""
        tensors = [t.detach().reshape(-1) for net in nets for t in net.state_dict().values()]
        size = sum(t.numel() for t in tensors)
        path = os.path.join(self._dir, f"weights-{size}.bin")
        if path != self._weights_path:
            if self._weights_path is not None:
                os.remove(self._weights_path)
            with open(path, "wb") as fh:
                fh.truncate(size * 4)
            self._weights_path = path
        flat = np.memmap(path, dtype=np.float32, mode="r+", shape=(size,))
        at = 0
        for t in tensors:
            flat[at:at + t.numel()] = t.numpy()
            at += t.numel()
        flat.flush()
        del flat
        return {"path": path, "size": size, "nets": len(nets)}

    def collect(self, config: PPOConfig, learner: PolicyValueNet, pool: list[PolicyValueNet],
                seed: np.random.SeedSequence, target: int) -> Rollout:
        W = len(self.conns)
        weights = self._write_weights([learner, *pool])
        children = seed.spawn(W)
        base, extra = divmod(config.num_envs, W)
        share = -(-target // W)
        # as ``collect`` sizes its own arrays: the samples of the games still running come on top
        files = self._sample_files(share + 64 * (base + (extra > 0)))
        for w, conn in enumerate(self.conns):
            conn.send((weights, children[w], share, base + (w < extra), files[w]))
        parts = []
        for w, conn in enumerate(self.conns):
            part = conn.recv()
            if isinstance(part, Exception):
                raise RuntimeError(f"a self-play worker failed: {part!r}") from part
            if part.obs is None:
                obs, mask = self._views[w]
                part = dataclasses.replace(part, obs=obs[:len(part)], mask=mask[:len(part)])
            parts.append(part)
        return Rollout.concat(parts)      # (copies the samples out of the files)

    def close(self) -> None:
        for conn in self.conns:
            try:
                conn.send(None)
                conn.close()
            except (OSError, BrokenPipeError):
                pass
        for proc in self.procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.terminate()
        self._views = []
        self._cleanup()
