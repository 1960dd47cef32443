"""Monte Carlo tree search for Clans of Caledonia (any player count, with hidden information).

Design
------
* **No peeking.** The search starts from a copy whose unseen contracts are sorted, so it
  cannot depend on the true hidden order.
* **Open-loop tree keyed by actions.** A node is the sequence of actions from the search root,
  not a concrete state. Each iteration draws a fresh **determinization** of the root
  (``game.determinize(seed)``: the unseen part of the contract pile reshuffled, the generator
  for future chance events - the solo dice - reseeded) and walks the tree by replaying actions
  on it. Hidden information and chance are thereby sampled per iteration; an action that is
  not legal in one determinization (a different contract drawn) is simply skipped there.
* **max^n backup.** Every node stores a vector of value sums, one per seat; at a node the seat
  to move picks the child maximising *its own* mean value plus the UCT exploration term
  ``c * sqrt(ln N_parent / N_child)``. Values are normalised to [0, 1]: with opponents,
  ``sigmoid((VP - best opponent's VP) / scale)``; solo, ``sigmoid((VP - E) / scale)`` where E
  is the heuristic's estimate of the root position (values stay informative at any level).
* **Leaf evaluation.** A new leaf is followed by a rollout of ``depth`` actions (``random`` or
  ``heuristic`` policy, ``depth=0`` for none); the position reached is valued by the exact
  final scores when the game is over, else by ``agents.heuristic.estimate_final_vp`` after the
  mover's own pending follow-up decisions (which space, which animal, ...) are completed
  greedily, so that half-finished actions are not mis-valued.
* **Root and progressive widening.** The root's candidates are ordered by the heuristic's
  one-step values and tried best first. Below the root a node tries only its
  ``1 + widen * sqrt(visits)`` best actions by the same one-step values (computed once per
  node): an opponent's reply node starts with the reply the heuristic would play, so a root
  action is valued against sensible answers instead of the average over ~40 mostly poor ones
  (which favoured actions that hand the opponent the move). ``widen=0`` turns it off.
* **Forced moves** (one legal action) inside the tree do not use up an expansion, and a
  decision with one legal action is answered without searching at all.
* **Tree reuse.** The subtree under the actions played since the last search becomes the new
  root (the agent remembers the root's action history).
* **The tree** (``Node``, ``reused_root``, the PUCT rule ``puct_choice``) is ``agents.tree``'s,
  shared with the AlphaZero search (``agents.az``).
* **Root parallelism.** ``workers > 1`` runs independent searches in worker processes (each
  with its share of the simulations, its own seed) and sums their root statistics.
* **Budget** by simulations (``sims``) or wall-clock seconds (``seconds``).
* **Learned prior (optional).** With ``policy`` (a PPO checkpoint, or any object with
  ``policy_prior(game) -> {action: probability}``) every node picks among its legal actions by
  PUCT, ``Q + puct * P(a) * sqrt(max(N_parent, 1)) / (1 + N_child)`` (AlphaZero's rule, an untried action
  valued at the node's mean), with ``P`` the policy's probabilities at the first state that reached
  the node; the heuristic ordering and widening are then not used. ``rollout="policy"`` samples
  rollout moves from the same policy.

Below the root, Trade actions are thinned the same way the heuristic thins them (quantities
1-4 and the maximum for one Good and direction) and a placement considers its cheapest few
spaces, to keep the branching factor sane (the root keeps every space of a placement).
"""
from __future__ import annotations

import math
import random
import time
from concurrent.futures import ProcessPoolExecutor

from clans_env.engine.actions import SPACE
from clans_env.engine.state import GAME_OVER, K_PLACE

from .base import Agent
from .heuristic import (DEFAULT_WEIGHTS, HeuristicAgent, candidate_actions, complete_follow_ups, estimate_final_vp,
                        greedy_action)
from .threads import core_sharing_pool
from .tree import Node, puct_choice, reused_root

#: solo scores are centred on the rulebook's "Average" band (131-145 VP)
SOLO_CENTRE = 138.0
ROLLOUT_POLICIES = ("random", "heuristic", "policy")


def normalised_values(totals, scale: float, solo_centre: float = SOLO_CENTRE) -> list[float]:
    """Per-seat values in [0, 1] from (estimated) final VP: the margin over the best opponent
    through a logistic of width ``scale``; solo: the distance from ``solo_centre`` (the search
    passes the root position's own estimate, so that values stay informative at any level)."""
    n = len(totals)
    if n == 1:
        return [_sigmoid((totals[0] - solo_centre) / scale)]
    out = []
    for p in range(n):
        best_other = max(totals[q] for q in range(n) if q != p)
        out.append(_sigmoid((totals[p] - best_other) / scale))
    return out


def _sigmoid(x: float) -> float:
    if x < -30:
        return 0.0
    if x > 30:
        return 1.0
    return 1.0 / (1.0 + math.exp(-x))


def terminal_totals(game) -> list[float]:
    """Final VP with leftover money as a tie-break (rulebook: money left breaks ties)."""
    return [r["total"] + r["money_left"] * 1e-3 for r in game.final_scores()]


class MCTSAgent(Agent):
    """Determinized open-loop MCTS with max^n backups (see the module docstring).

    sims: simulations per decision (ignored when ``seconds`` is given).
    seconds: wall-clock budget per decision instead of a simulation count.
    c: UCT exploration constant (values are in [0, 1]).
    rollout: "random" or "heuristic" policy for the rollout after a new leaf.
    depth: rollout length in actions (0 = evaluate the leaf directly).
    scale: VP margin that maps to sigmoid(1) ~ 0.73 in the normalised value.
    policy: a PPO checkpoint path (or an object with ``policy_prior(game)``) whose policy is the
        search's prior (PUCT selection, see the module docstring); None: heuristic ordering and UCT.
    puct: the PUCT exploration constant (with ``policy``).
    reuse: keep the subtree of the actions played since the previous decision.
    workers: root parallelism over this many processes (1 = in-process).
    top_k: search only the k best root actions by the heuristic's one-step values (0 = all).
    fpu: first-play urgency reduction (None: try every action once before any twice).
    widen: progressive widening below the root: a node tries its 1 + widen * sqrt(visits) best
        actions by the heuristic's one-step values (0: every candidate, in random order).
    max_seconds: a wall-clock cap per decision on top of ``sims`` (None: none); the web viewer sets it so
        that no request's move runs unbounded. In-process searches only (``workers=1``).
    """

    name = "mcts"

    def __init__(self, sims: int = 200, seconds: float | None = None, c: float = 0.2, rollout: str = "random",
                 depth: int = 0, scale: float = 5.0, reuse: bool = True, workers: int = 1, top_k: int = 0,
                 fpu: float | None = None, widen: float = 1.0, policy=None, puct: float = 1.0,
                 seed: int | None = None, max_seconds: float | None = None):
        super().__init__(seed)
        if rollout not in ROLLOUT_POLICIES:
            raise ValueError(f"rollout must be one of {ROLLOUT_POLICIES} (got {rollout!r})")
        if rollout == "policy" and policy is None:
            raise ValueError("rollout='policy' samples rollouts from the search's policy: give policy=<PPO checkpoint>")
        if policy is not None and workers > 1:
            raise ValueError("a policy prior runs in-process: use workers=1 with policy")
        if puct <= 0:
            raise ValueError(f"puct must be positive (got {puct!r})")
        if seconds is None and (not isinstance(sims, int) or sims < 1):
            raise ValueError(f"sims must be a positive int (got {sims!r})")
        if seconds is not None and not (math.isfinite(seconds) and seconds > 0):
            raise ValueError(f"seconds must be a positive finite number (got {seconds!r})")
        if max_seconds is not None and not (math.isfinite(max_seconds) and max_seconds > 0):
            raise ValueError(f"max_seconds must be a positive finite number (got {max_seconds!r})")
        if depth < 0 or workers < 1 or scale <= 0 or c < 0 or top_k < 0 or widen < 0:
            raise ValueError(f"need depth >= 0, workers >= 1, scale > 0, c >= 0, top_k >= 0 and widen >= 0 (got "
                             f"depth={depth}, workers={workers}, scale={scale}, c={c}, top_k={top_k}, widen={widen})")
        self.sims = sims
        self.seconds = seconds
        self.max_seconds = max_seconds
        self.c = float(c)
        self.rollout = rollout
        self.depth = int(depth)
        self.scale = float(scale)
        self.reuse = bool(reuse)
        self.workers = int(workers)
        self.top_k = int(top_k)
        self.fpu = None if fpu is None else float(fpu)
        self.widen = float(widen)
        self.puct = float(puct)
        if isinstance(policy, (str, bytes)) or hasattr(policy, "__fspath__"):
            from .ppo import PPOAgent                # torch only for a search that uses a policy
            policy = PPOAgent(policy, greedy=True, seed=seed)
        if policy is not None and not callable(getattr(policy, "policy_prior", None)):
            raise ValueError(f"policy must be a PPO checkpoint path or have policy_prior(game) (got {policy!r})")
        self.policy = policy
        self._heuristic = HeuristicAgent(seed=seed)
        self._root: Node | None = None
        self._root_history: list[int] = []
        self._pool: ProcessPoolExecutor | None = None
        #: statistics of the last search (for benchmarks and debugging)
        self.last_stats: dict = {}

    # ------------------------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._root = None
        self._root_history = []

    def close(self) -> None:
        """Stop the worker processes of root parallelism (if any)."""
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_pool"] = None
        state["_root"] = None
        state["_root_history"] = []
        return state

    # ------------------------------------------------------------------------------------------
    def act(self, game) -> int:
        legal = game.legal_actions()
        if len(legal) == 1:
            self.last_stats = {"simulations": 0, "seconds": 0.0, "forced": True}
            return legal[0]
        if self.workers > 1:
            return self._act_parallel(game)
        root = self._reused_root(game)
        t0 = time.perf_counter()
        public = hidden_order_removed(game)
        order = self.root_actions(public, legal)
        sims = search(public, root, self.rng, self.sims, self.seconds, self.c, self.rollout, self.depth, self.scale,
                      order, self.fpu, self.widen, self._prior(), self.puct, self.max_seconds)
        elapsed = time.perf_counter() - t0
        action = best_action(root, order, game.current_player)
        self.last_stats = {"simulations": sims, "seconds": elapsed, "root_visits": root.N,
                           "children": {a: ch.N for a, ch in root.children.items()}}
        return action

    def root_actions(self, game, legal: list[int]) -> list[int]:
        """The root's candidates, best first by the heuristic's one-step values (the first
        iterations expand them in this order), cut to the ``top_k`` best when set."""
        values = self._heuristic.action_values(game, legal)
        order = sorted(values, key=lambda a: -values[a])
        if self.top_k:
            order = order[:self.top_k]
        return order

    def action_visits(self, game) -> dict[int, int]:
        """Search ``game`` and return the root visit counts per action (no move is chosen)."""
        root = Node(game.num_players)
        public = hidden_order_removed(game)
        search(public, root, self.rng, self.sims, self.seconds, self.c, self.rollout, self.depth, self.scale,
               self.root_actions(public, public.legal_actions()), self.fpu, self.widen, self._prior(), self.puct,
               self.max_seconds)
        return {a: ch.N for a, ch in root.children.items()}

    def _prior(self):
        return None if self.policy is None else self.policy.policy_prior

    def _reused_root(self, game) -> Node:
        history = game.history
        if self.reuse:
            root = self._root = reused_root(self._root, self._root_history, history, game.num_players)
        else:
            root, self._root = Node(game.num_players), None
        self._root_history = history
        return root

    def _act_parallel(self, game) -> int:
        if self._pool is None:
            self._pool = core_sharing_pool(self.workers)
        k = self.workers
        sims = None if self.seconds is not None else max(1, self.sims // k)
        seeds = [self.rng.getrandbits(62) for _ in range(k)]
        public = hidden_order_removed(game)
        order = self.root_actions(public, public.legal_actions())
        futures = [self._pool.submit(_worker_search, public, s, sims, self.seconds, self.c, self.rollout, self.depth,
                                     self.scale, order, self.fpu, self.widen) for s in seeds]
        visits: dict[int, int] = {}
        values: dict[int, float] = {}
        total = 0
        for f in futures:
            child_stats, n = f.result()
            total += n
            for a, (v, q) in child_stats.items():
                visits[a] = visits.get(a, 0) + v
                values[a] = values.get(a, 0.0) + q
        best = max(visits, key=lambda a: (visits[a], values[a] / max(visits[a], 1)))
        self.last_stats = {"simulations": total, "children": visits, "workers": k}
        return best


def hidden_order_removed(game):
    """A copy of ``game`` whose unseen contracts are put in a fixed (sorted) order, so that a
    search started from it cannot depend on the true hidden pile order, only on what is
    public (determinizations then reshuffle that part)."""
    g = game.clone()
    unknown = len(g.pile) - g.pile_known
    if unknown > 1:
        g.pile[:unknown] = sorted(g.pile[:unknown])
    return g


def _worker_search(game, seed, sims, seconds, c, rollout, depth, scale, order, fpu, widen):
    root = Node(game.num_players)
    n = search(game, root, random.Random(seed), sims, seconds, c, rollout, depth, scale, order, fpu, widen)
    p = game.current_player
    return {a: (ch.N, ch.W[p]) for a, ch in root.children.items()}, n


def best_action(root: Node, legal: list[int], player: int) -> int:
    """Most visited legal root child; ties go to the higher mean value for ``player``."""
    best, best_key = legal[0], (-1, 0.0)
    for a in legal:
        ch = root.children.get(a)
        if ch is not None and ch.N:
            key = (ch.N, ch.W[player] / ch.N)
            if key > best_key:
                best, best_key = a, key
    return best


_ORDERING = HeuristicAgent(seed=0)

#: placements considered below the root: the cheapest few spaces (as in the heuristic's own
#: lookahead); the root's placement decision itself considers every space
PLACE_WIDTH = 4


def tree_candidates(state, legal: list[int]) -> list[int]:
    """Actions a tree node below the root considers: Trade quantities thinned, and only the
    ``PLACE_WIDTH`` cheapest spaces of a placement (so an ``expand:<unit>`` child is valued by
    sensible placements rather than averaged over every space on the map)."""
    if state.stack[-1][0] == K_PLACE and len(legal) > PLACE_WIDTH:
        cost = state.topo.cost
        return sorted(legal, key=lambda a: (cost[a - SPACE], a))[:PLACE_WIDTH]
    return candidate_actions(state, legal)


def search(game, root: Node, rng: random.Random, sims: int | None, seconds: float | None, c: float,
           rollout: str, depth: int, scale: float, root_actions: list[int] | None = None,
           fpu: float | None = None, widen: float = 0.0, prior=None, puct: float = 1.0,
           max_seconds: float | None = None) -> int:
    """Run MCTS iterations from ``game`` into ``root``; returns the number of simulations.

    root_actions: the root's candidate actions in the order to try them (default: all
    candidates, tried in random order).
    fpu: first-play urgency: an untried action scores the node's mean value minus ``fpu``
    (None: every action is tried once before any is tried twice).
    widen: progressive widening below the root (0: every candidate is tried).
    prior: ``prior(state) -> {action: probability}``: select by PUCT with constant ``puct`` instead
    (root_actions still restricts the root's candidates).
    max_seconds: a wall-clock cap on top of a ``sims`` budget (a server bounds every move with it)."""
    n_players = game.num_players
    centre = estimate_final_vp(game)[0] if n_players == 1 else SOLO_CENTRE
    start = time.perf_counter()
    limits = [t for t in (seconds, max_seconds) if t is not None]
    deadline = start + min(limits) if limits else None
    sims_limit = sims if seconds is None else None
    done = 0
    log = math.log
    sqrt = math.sqrt
    w = DEFAULT_WEIGHTS
    while True:
        if sims_limit is not None and done >= sims_limit:
            break
        if deadline is not None and done > 0 and time.perf_counter() >= deadline:
            break
        state = game.determinize(rng.getrandbits(62))
        node = root
        path = [root]
        expanded = False
        while state.phase != GAME_OVER:
            legal = state.legal_actions()
            if len(legal) == 1:
                a = legal[0]
                child = node.children.get(a)
                if child is None:
                    child = node.children[a] = Node(n_players)
                state.apply_unchecked(a)         # taken from this state's legal list
                node = child
                path.append(node)
                continue
            if expanded:
                break
            children = node.children
            if prior is not None:
                # PUCT with P from the policy at the first state that leaves the node (an action it never
                # saw, in another determinization, gets 0) and an untried action valued at the node's mean
                if node.P is None:
                    node.P = prior(state)
                p = state.current_player
                a = puct_choice(node, p, root_actions if node is root and root_actions else legal, node.P, puct,
                                node.W[p] / node.N if node.N else 0.5)
                child = children.get(a)
                if child is None:
                    child = children[a] = Node(n_players)
                    expanded = True
                if node is root:
                    state.apply(a)               # checked: the root's candidates come from the caller
                else:
                    state.apply_unchecked(a)     # from this state's legal list
                node = child
                path.append(node)
                continue
            if node is root and root_actions is not None:
                cands = root_actions
                fresh = [a for a in cands if a not in children][:1]      # best first
            elif widen:
                # progressive widening: the node's candidates best first by the heuristic's
                # one-step values (computed once, on the node's second visit), of which the
                # first 1 + widen * sqrt(visits) may be tried
                if node.order is None:
                    cands = tree_candidates(state, legal)
                    if len(cands) > 1 and state.stack[-1][0] != K_PLACE:   # placements: cheapest first
                        values = _ORDERING.action_values(state, cands)
                        cands = sorted(values, key=lambda b: -values[b])
                    node.order = cands
                allowed = 1 + int(widen * sqrt(node.N))
                legal_set = set(legal)
                cands = [b for b in node.order if b in legal_set][:allowed]
                if not cands:                      # this determinization differs: fall back
                    cands = tree_candidates(state, legal)
                fresh = [a for a in cands if a not in children][:1]
            else:
                cands = tree_candidates(state, legal)
                fresh = [a for a in cands if a not in children]
            a = child = None
            if not fresh or fpu is not None:
                # UCT among the children tried so far; with first-play urgency an untried
                # action competes with the score "parent's mean - fpu" instead of always
                # going first, so wide nodes (an opponent's 40 replies) need not try them all
                p = state.current_player
                parent_log = log(node.N + 1)
                best_score = -1.0
                for b in cands:
                    ch = children.get(b)
                    if ch is None:
                        continue
                    score = ch.W[p] / ch.N + c * sqrt(parent_log / ch.N)
                    if score > best_score:
                        best_score, a, child = score, b, ch
                if fresh and node.N and node.W[p] / node.N - fpu > best_score:
                    a = child = None
            if a is None:
                a = fresh[rng.randrange(len(fresh))] if len(fresh) > 1 else fresh[0]
                child = children[a] = Node(n_players)
                expanded = True
            if node is root:
                state.apply(a)                   # checked: the root's candidates come from the caller
            else:
                state.apply_unchecked(a)         # a candidate drawn from this state's legal list
            node = child
            path.append(node)
        values = _leaf_values(state, rng, rollout, depth, scale, w, centre, prior)
        for nd in path:
            nd.N += 1
            v = nd.W
            for i in range(n_players):
                v[i] += values[i]
        done += 1
    return done


def _leaf_values(state, rng, rollout: str, depth: int, scale: float, w, centre: float, prior=None) -> list[float]:
    for _ in range(depth):
        if state.phase == GAME_OVER:
            break
        legal = state.legal_actions()
        if rollout == "random" or len(legal) == 1:
            a = legal[rng.randrange(len(legal))]
        elif rollout == "policy":
            probs = prior(state)
            a = rng.choices(list(probs), weights=list(probs.values()))[0]
        else:
            a = greedy_action(state, rng)
        state.apply_unchecked(a)                 # from the legal list (greedy_action: a candidate of it)
    if state.phase == GAME_OVER:
        return normalised_values(terminal_totals(state), scale, centre)
    state = complete_follow_ups(state, state.current_player, w)
    return normalised_values(estimate_final_vp(state, w), scale, centre)
