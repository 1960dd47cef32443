"""AlphaZero-style search: PUCT guided by a policy-value network, for 1-4 players.

Design
------
* **Network.** The masked-PPO ``PolicyValueNet`` (``agents.ppo``): logits over the fixed action
  table (325 actions in the base game) and one value per seat, ordered relative to the observer.
  An AlphaZero model is stored in the same checkpoint format, so ``agents.ppo.read_checkpoint``
  checks it and a PPO model can also guide this search.
* **Open loop with determinization.** As in ``agents.mcts``: the search starts from a copy whose
  unseen contracts are sorted (``hidden_order_removed``); every simulation draws a fresh
  ``game.determinize(seed)`` and replays the tree's actions on it. A node is a sequence of actions;
  an action a determinization does not allow (another contract drawn) is not selectable there.
* **PUCT, max^n.** A node stores visit count ``N`` and a value sum ``W`` per seat (absolute seat
  order). The seat to move picks ``argmax Q[p] + c_puct * P(a) * sqrt(N) / (1 + n_a)`` with
  ``Q`` its *own* mean value (max^n); an unvisited action is valued at the node's mean for ``p``
  minus ``fpu`` (first-play urgency). Forced moves (one legal action) pass through without an
  evaluation; a terminal state is valued by its exact outcome.
* **Values** are in the units of the training reward (``reward``/``score_scale`` of the model's
  config, ``win+score`` by default: the mean of win +1/-1 and the VP margin over the best other
  seat / score_scale); the network's relative seat order is rolled back to absolute seats.
* **Batched leaf evaluation.** ``Search.gather`` runs simulations down to new leaves with a
  *virtual loss* on the path (each pending visit counts, with value ``-virtual_loss`` for the seat
  that chose it), so one search yields up to ``leaf_batch`` distinct leaves per round; and
  ``run_searches`` steps many searches (many games) together, one forward pass per network and
  round. ``leaf_batch=1`` is plain sequential PUCT.
* **Self-play options.** Dirichlet noise on the root prior (``dirichlet_alpha``, ``noise_frac``)
  and move choice by visit counts with a temperature (``choose``).
* **Tree reuse** between moves: the subtree under the actions played since the last search.
* **The tree** (``Node``, ``reused_root``, the PUCT rule ``puct_choice``) is ``agents.tree``'s,
  shared with ``agents.mcts``.

>>> agent = AZAgent("models/az_2p/model.pt", sims=200)          # doctest: +SKIP
>>> agent.act(game)                                              # doctest: +SKIP
"""
from __future__ import annotations

import math
import os
import random
import time

import numpy as np
import torch

from clans_env.engine.actions import NUM_ACTIONS
from clans_env.engine.state import GAME_OVER
from clans_env.env.rewards import REWARD_KINDS, final_rewards

from .base import Agent
from .mcts import hidden_order_removed
from .ppo import PPOAgent, load_policy
from .tree import Node, puct_choice, reused_root

#: what a batched search does when a descent reaches a leaf already waiting for the network
#: (``Search.gather``): "stop" the round there, or count the descent as a "twin" of that leaf
COLLISION_RULES = ("stop", "twin")


# ------------------------------------------------------------------------------------------------
# outcomes
def outcome_values(scores: list[dict], kind: str = "win+score", score_scale: float = 40.0) -> list[float]:
    """Every seat's terminal value from ``Game.final_scores()`` rows: the environment's rewards
    (``clans_env.env.rewards.final_rewards``, ``win+score`` included), as PPO's targets."""
    if kind not in REWARD_KINDS:
        raise ValueError(f"reward must be one of {REWARD_KINDS} (got {kind!r})")
    return [float(x) for x in final_rewards(scores, kind, score_scale)]


# ------------------------------------------------------------------------------------------------
class SearchParams:
    """The knobs of one search (shared by the agent and self-play)."""

    __slots__ = ("c_puct", "fpu", "leaf_batch", "virtual_loss", "reward", "score_scale", "collisions")

    def __init__(self, c_puct: float = 1.5, fpu: float = 0.2, leaf_batch: int = 8, virtual_loss: float = 1.0,
                 reward: str = "win+score", score_scale: float = 40.0, collisions: str = "stop"):
        if not c_puct > 0:
            raise ValueError(f"c_puct must be > 0 (got {c_puct!r})")
        if not isinstance(leaf_batch, int) or leaf_batch < 1:
            raise ValueError(f"leaf_batch must be a positive int (got {leaf_batch!r})")
        if virtual_loss < 0 or fpu < 0:
            raise ValueError(f"virtual_loss and fpu must be >= 0 (got {virtual_loss!r}, {fpu!r})")
        if reward not in REWARD_KINDS:
            raise ValueError(f"reward must be one of {REWARD_KINDS} (got {reward!r})")
        if collisions not in COLLISION_RULES:
            raise ValueError(f"collisions must be one of {COLLISION_RULES} (got {collisions!r})")
        self.collisions = collisions
        self.c_puct = float(c_puct)
        self.fpu = float(fpu)
        self.leaf_batch = int(leaf_batch)
        self.virtual_loss = float(virtual_loss)
        self.reward = reward
        self.score_scale = float(score_scale)


class Leaf:
    """A simulation waiting for the network: its path, the state reached and its legal actions;
    ``twins`` are the paths of later simulations of the same round that reached the same node (a
    collision), answered by the same evaluation."""

    __slots__ = ("search", "path", "node", "state", "legal", "seat", "twins")

    def __init__(self, search, path, node, state, legal, seat):
        self.search, self.path, self.node, self.state, self.legal, self.seat = search, path, node, state, legal, seat
        self.twins: list = []


class Search:
    """One PUCT search of ``sims`` new simulations from ``game`` into ``root`` (see the module
    docstring). ``key`` names the network that evaluates its leaves (``run_searches``).

    noise: ``(alpha, frac, np.random.Generator)`` for Dirichlet noise on the root prior, or None."""

    def __init__(self, game, root: Node, sims: int, rng: random.Random, params: SearchParams, key="net",
                 noise=None):
        self.public = hidden_order_removed(game)
        self.root = root
        self.sims = int(sims)
        self.rng = rng
        self.params = params
        self.key = key
        self.noise = noise
        self.n_players = game.num_players
        self.player = game.current_player
        self.root_legal = self.public.legal_actions()
        self.done = 0            # simulations backed up
        self.pending = 0         # simulations waiting for the network
        self.stopped = False     # a time budget ran out: no new simulations
        self._root_prior: dict[int, float] | None = None

    @property
    def finished(self) -> bool:
        return self.pending == 0 and (self.stopped or self.done >= self.sims)

    # ---- selection ------------------------------------------------------------------------------
    def _prior_at_root(self) -> tuple[dict[int, float], list[int]]:
        if self._root_prior is None:
            p = self.root.P
            if self.noise is not None:
                alpha, frac, nrng = self.noise
                legal = [a for a in self.root_legal if a in p]
                eta = nrng.dirichlet([alpha] * len(legal))
                p = dict(p)
                for a, e in zip(legal, eta):
                    p[a] = (1 - frac) * p[a] + frac * float(e)
            self._root_prior = (p, sorted(p, key=p.__getitem__, reverse=True))
        return self._root_prior

    def _select(self, node: Node, legal: list[int], p: int) -> int:
        """PUCT (``agents.tree.puct_choice``) for the seat ``p`` to move among the ``legal`` actions
        that have a prior, an untried one valued at the node's mean for ``p`` minus ``fpu``. Untried
        actions all score ``fpu value + scale * P``, so only the untried one with the highest prior
        competes; in the order of ties, after the tried children (in the order they were added)."""
        if node is self.root:
            prior, order = self._prior_at_root()
        else:
            prior, order = node.P, node.order
        children = node.children
        legal_set = set(legal)
        contenders = []
        for a, ch in children.items():
            if ch.N and a in legal_set and a in prior:
                contenders.append(a)
        for a in order:                          # the best untried: usually a few steps
            if a in legal_set:
                ch = children.get(a)
                if ch is None or not ch.N:
                    contenders.append(a)
                    break
        n = node.N
        params = self.params
        best = puct_choice(node, p, contenders, prior, params.c_puct, (node.W[p] / n if n else 0.0) - params.fpu)
        if best is None:                     # no legal action seen before here: add them uniformly
            u = 1.0 / len(legal)
            merged = dict(node.P)
            for a in legal:
                merged.setdefault(a, u)
            node.expand(merged)
            return self._select(node, legal, p)
        return best

    def gather(self, limit: int | None = None) -> list[Leaf]:
        """Run simulations until ``limit`` (default ``leaf_batch``) distinct leaves wait for the
        network or the simulation budget is used. Terminal simulations are backed up at once. A
        simulation that reaches a leaf already waiting (a collision) ends the round
        (``collisions="stop"``) or becomes that leaf's twin (``"twin"``): a pending visit with its
        own virtual loss, backed up with the same evaluation. A sharp prior sends most descents into
        the same child, so stopping leaves it batches of one or two positions; the virtual loss of
        the twins turns the next descents to other actions."""
        limit = self.params.leaf_batch if limit is None else limit
        out: list[Leaf] = []
        waiting: dict[int, Leaf] = {}
        vl = self.params.virtual_loss
        twins = self.params.collisions == "twin"
        n_players = self.n_players
        attempts = 0
        while len(out) < limit and not self.stopped and self.done + self.pending < self.sims and attempts < 4 * limit:
            attempts += 1
            state = self.public.determinize(self.rng.getrandbits(62))
            node = self.root
            path: list[tuple[Node, int | None]] = [(node, None)]
            leaf = None
            while True:
                if state.phase == GAME_OVER:
                    values = outcome_values(state.final_scores(), self.params.reward, self.params.score_scale)
                    self._backup(path, values, virtual=False)
                    self.done += 1
                    break
                legal = state.legal_actions()
                p = state.current_player
                if len(legal) == 1:
                    a = legal[0]
                elif node.P is None:
                    leaf = Leaf(self, path, node, state, legal, p)
                    break
                else:
                    a = self._select(node, legal, p)
                child = node.children.get(a)
                if child is None:
                    child = node.children[a] = Node(n_players)
                state.apply(a)
                node = child
                path.append((node, p))
            if leaf is None:
                continue
            first = waiting.get(id(leaf.node))
            if first is not None and not twins:
                break                               # collision: wait for this round's evaluations
            for nd, chooser in path:                # virtual loss: a pending visit that lost
                nd.N += 1
                if chooser is not None:
                    nd.W[chooser] -= vl
            self.pending += 1
            if first is not None:
                first.twins.append(path)            # collision: answered with ``first``
                continue
            waiting[id(leaf.node)] = leaf
            out.append(leaf)
        return out

    # ---- backup -----------------------------------------------------------------------------------
    def _backup(self, path, values, virtual: bool) -> None:
        vl = self.params.virtual_loss
        for nd, chooser in path:
            if not virtual:
                nd.N += 1
            elif chooser is not None:
                nd.W[chooser] += vl
            w = nd.W
            for i, v in enumerate(values):
                w[i] += v

    def deliver(self, leaf: Leaf, priors: dict[int, float], values: list[float]) -> None:
        """The network's answer for one of this search's leaves: expand it and back the values up."""
        if leaf.node.P is None:
            leaf.node.expand(priors)
        self._backup(leaf.path, values, virtual=True)
        for path in leaf.twins:
            self._backup(path, values, virtual=True)
        n = 1 + len(leaf.twins)
        self.pending -= n
        self.done += n

    # ---- the move -----------------------------------------------------------------------------------
    def visits(self) -> dict[int, int]:
        """Root visit counts of the legal actions (0 for the untried)."""
        ch = self.root.children
        return {a: (ch[a].N if a in ch else 0) for a in self.root_legal}

    def prior_choice(self) -> int:
        """The network's own move here: the legal root action of highest prior (the noise-free
        prior, as the raw policy ``ppo:path=MODEL`` plays it)."""
        prior = self.root.P or {}
        return max(self.root_legal, key=lambda a: prior.get(a, -1.0))

    def completed_q_policy(self, c_visit: float = 50.0, c_scale: float = 0.1) -> dict[int, float]:
        """The policy improvement of Gumbel MuZero (Danihelka et al. 2022, as ``mctx``'s
        ``qtransform_completed_by_mix_value``): ``softmax(log P + (c_visit + max_a N(a)) * c_scale *
        q̂)`` over the root's legal actions, with the network's noise-free prior ``P`` and ``q̂`` the
        mover's completed Q-values rescaled to [0, 1]. A visited action's Q is its mean value; an
        unvisited one gets the mixed value ``(v + ΣN / Σ_visited P * Σ_visited P(a) Q(a)) / (1 + ΣN)``
        where ``v`` is the network's value of the root. Unlike visit counts it moves probability
        toward what the search found good even when few simulations reach an action."""
        root, p, legal = self.root, self.player, self.root_legal
        prior = root.P or {}
        ch = root.children
        n_sum = sum(ch[a].N for a in legal if a in ch)
        prior_sum = sum(prior.get(a, 0.0) for a in legal) or 1.0
        logp = {a: math.log(max(prior.get(a, 0.0) / prior_sum, 1e-12)) for a in legal}
        if n_sum == 0:
            z = sum(math.exp(x) for x in logp.values())
            return {a: math.exp(x) / z for a, x in logp.items()}
        q = {a: ch[a].W[p] / ch[a].N for a in legal if a in ch and ch[a].N}
        # the root's own evaluation: what its totals hold besides its children's backups
        own_n = root.N - sum(c.N for c in ch.values())
        v_root = (root.W[p] - sum(c.W[p] for c in ch.values())) / own_n if own_n > 0 else root.W[p] / root.N
        pv = sum(prior.get(a, 0.0) for a in q) / prior_sum
        mixed = v_root
        if pv > 0:
            weighted = sum(prior.get(a, 0.0) / prior_sum * q[a] for a in q) / pv
            mixed = (v_root + n_sum * weighted) / (1 + n_sum)
        completed = {a: q.get(a, mixed) for a in legal}
        lo, hi = min(completed.values()), max(completed.values())
        scale = (c_visit + max(ch[a].N for a in q)) * c_scale / max(hi - lo, 1e-8)
        x = {a: logp[a] + scale * (completed[a] - lo) for a in legal}
        top = max(x.values())
        e = {a: math.exp(v - top) for a, v in x.items()}
        z = sum(e.values())
        return {a: v / z for a, v in e.items()}

    def choose(self, temperature: float = 0.0, nrng: np.random.Generator | None = None) -> int:
        """The move: the most visited root action (ties: the higher mean value for the mover, then the
        higher prior, so a search stopped by its time budget after the root's own evaluation plays the
        network's choice) at temperature 0, else a draw with probability proportional to
        ``visits ** (1/temperature)``."""
        visits = self.visits()
        if temperature > 0 and nrng is not None:
            acts = list(visits)
            n = np.array([visits[a] for a in acts], dtype=np.float64)
            if n.sum() > 0:
                w = n ** (1.0 / temperature)
                return acts[int(nrng.choice(len(acts), p=w / w.sum()))]
        p = self.player
        ch = self.root.children
        prior = self.root.P or {}

        def key(a):
            c = ch.get(a)
            return (visits[a], c.W[p] / c.N if c is not None and c.N else -math.inf, prior.get(a, -1.0))
        return max(self.root_legal, key=key)


# ------------------------------------------------------------------------------------------------
# the network side
class NetEvaluator:
    """Answers leaves with one batched forward pass: priors over each leaf's legal actions and the
    per-seat values (rolled from the observer's order back to absolute seats)."""

    def __init__(self, net, encoder):
        self.net = net
        self.encoder = encoder
        self.forward_passes = 0
        self.positions = 0
        self.net_seconds = 0.0       # time inside the forward passes

    @torch.no_grad()
    def __call__(self, leaves: list[Leaf]) -> None:
        enc = self.encoder
        b = len(leaves)
        obs = np.empty((b, enc.size), dtype=np.float32)
        mask = np.zeros((b, NUM_ACTIONS), dtype=bool)
        for i, lf in enumerate(leaves):
            obs[i] = enc.encode(lf.state, lf.seat)
            mask[i, lf.legal] = True
        m = torch.from_numpy(mask)
        t0 = time.perf_counter()
        logits, values = self.net(torch.from_numpy(obs), m)
        self.net_seconds += time.perf_counter() - t0
        probs = torch.softmax(logits.masked_fill(~m, float("-inf")), dim=-1).numpy()
        values = values.double().tolist()
        self.forward_passes += 1
        self.positions += b
        for i, lf in enumerate(leaves):
            legal = lf.legal
            priors = dict(zip(legal, probs[i, legal].tolist()))
            v, k = values[i], lf.seat
            lf.search.deliver(lf, priors, v[-k:] + v[:-k] if k else v)


def run_searches(searches: list[Search], evaluators: dict, deadline: float | None = None) -> None:
    """Step the searches together until all are finished: each round every search gathers its
    leaves, the leaves are grouped by ``search.key`` and each group is answered by
    ``evaluators[key]`` in one forward pass. ``deadline`` (``time.perf_counter()`` value) stops new
    simulations once passed (each search still completes at least one)."""
    active = [s for s in searches if not s.finished]
    while active:
        groups: dict = {}
        for s in active:
            if deadline is not None and s.done > 0 and time.perf_counter() >= deadline:
                s.stopped = True
            for lf in s.gather():
                groups.setdefault(s.key, []).append(lf)
        for key, leaves in groups.items():
            evaluators[key](leaves)
        active = [s for s in active if not s.finished]


def model_reward(checkpoint: dict) -> tuple[str, float]:
    """The reward definition (kind, score scale) a model's values are in (its training config)."""
    cfg = checkpoint.get("config") or {}
    return str(cfg.get("reward", "win+score")), float(cfg.get("score_scale", 40.0))


# ------------------------------------------------------------------------------------------------
class AZAgent(Agent):
    """Plays by PUCT search guided by a policy-value model (an AlphaZero model, or a PPO one).

    sims: simulations per decision (ignored when ``seconds`` is given).
    seconds: wall-clock budget per decision instead.
    c_puct, fpu: the PUCT exploration constant and first-play urgency reduction.
    leaf_batch: leaves evaluated per forward pass (virtual loss; 1 = sequential PUCT).
    collisions: "stop" a batch round at a descent into a leaf already waiting, or count it as a
        "twin" visit of that leaf (``Search.gather``).
    reuse: keep the subtree of the actions played since the previous decision.
    temperature: 0 = the most visited action; > 0 samples by visits ** (1/temperature).
    threads: torch intra-op threads for this process (0 = leave torch's setting).
    max_seconds: a wall-clock cap per decision on top of ``sims`` (None: none; the web viewer sets it).
    """

    name = "az"

    def __init__(self, path, sims: int = 200, seconds: float | None = None, c_puct: float = 1.5,
                 fpu: float = 0.2, leaf_batch: int = 8, reuse: bool = True, temperature: float = 0.0,
                 virtual_loss: float = 1.0, threads: int = 1, seed: int | None = None,
                 collisions: str = "stop", max_seconds: float | None = None):
        super().__init__(seed)
        if seconds is None and (not isinstance(sims, int) or isinstance(sims, bool) or sims < 1):
            raise ValueError(f"sims must be a positive int (got {sims!r})")
        if seconds is not None and not (math.isfinite(seconds) and seconds > 0):
            raise ValueError(f"seconds must be a positive finite number (got {seconds!r})")
        if max_seconds is not None and not (math.isfinite(max_seconds) and max_seconds > 0):
            raise ValueError(f"max_seconds must be a positive finite number (got {max_seconds!r})")
        if temperature < 0:
            raise ValueError(f"temperature must be >= 0 (got {temperature!r})")
        self.path = os.fspath(path)
        self.net, self.checkpoint = load_policy(self.path)
        self.num_players = self.net.num_players
        reward, scale = model_reward(self.checkpoint)
        self.params = SearchParams(c_puct=c_puct, fpu=fpu, leaf_batch=leaf_batch, virtual_loss=virtual_loss,
                                   reward=reward, score_scale=scale, collisions=collisions)
        self.sims = sims
        self.seconds = seconds
        self.max_seconds = max_seconds
        self.reuse = bool(reuse)
        self.temperature = float(temperature)
        self.threads = int(threads)
        self._np_rng = np.random.default_rng(seed)
        self._encoder = None
        self._root: Node | None = None
        self._root_history: list[int] | None = None
        self.last_stats: dict = {}
        self.name = f"az:{os.path.basename(os.path.dirname(self.path)) or os.path.basename(self.path)}"

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if seed is not None:
            self._np_rng = np.random.default_rng(seed)
        self._root = None
        self._root_history = None

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_root"] = None
        state["_root_history"] = None
        return state

    #: the observation encoder for a game (checks the player count, follows Industria modules and
    #: moved encoder slices): the same attributes as PPOAgent's, so its method serves both
    _encoder_for = PPOAgent._encoder_for

    def search(self, game) -> Search:
        """Search ``game`` (reusing the previous tree where it applies) and return the finished
        ``Search`` (its ``visits()``, ``choose()``)."""
        if self.threads > 0 and torch.get_num_threads() != self.threads:
            torch.set_num_threads(self.threads)
        enc = self._encoder_for(game)
        history = game.history
        root = reused_root(self._root, self._root_history, history, game.num_players) if self.reuse \
            else Node(game.num_players)
        budget = self.sims if self.seconds is None else 10 ** 9
        s = Search(game, root, budget, self.rng, self.params)
        ev = NetEvaluator(self.net, enc)
        t0 = time.perf_counter()
        limits = [t for t in (self.seconds, self.max_seconds) if t is not None]
        run_searches([s], {"net": ev}, t0 + min(limits) if limits else None)
        self._root, self._root_history = (root, history) if self.reuse else (None, None)
        self.last_stats = {"simulations": s.done, "seconds": time.perf_counter() - t0,
                           "forward_passes": ev.forward_passes, "root_visits": root.N}
        return s

    def act(self, game) -> int:
        legal = game.legal_actions()
        if not legal:
            raise ValueError("the game is over: there is no decision to make")
        if len(legal) == 1:
            self.last_stats = {"simulations": 0, "seconds": 0.0, "forced": True}
            return legal[0]
        return self.search(game).choose(self.temperature, self._np_rng)

    def action_visits(self, game) -> dict[int, int]:
        """Search ``game`` and return the root visit counts per legal action (no move is chosen)."""
        return self.search(game).visits()
