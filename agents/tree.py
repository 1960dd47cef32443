"""The search tree that MCTS (``agents.mcts``) and the AlphaZero search (``agents.az``) share.

Both searches are open loop: a ``Node`` is the sequence of actions from the search root (every
simulation replays them on a fresh determinization), so a child is keyed by its action alone. A
node keeps its visit count ``N`` and one value sum per seat ``W`` (absolute seat order; the seat to
move maximises its own mean, max^n). ``reused_root`` carries a tree over to the next decision and
``puct_choice`` is the PUCT rule of both searches; each search keeps its own expansion, evaluation
and backup.
"""
from __future__ import annotations

from math import inf, sqrt


class Node:
    """One node of an open-loop search tree.

    N: visits; W: value sums, one per seat; children: {action: Node};
    P: {action: prior probability} once known (az: the network's, set when the node is evaluated;
    mcts: the policy prior's, set when the node is first left), None before;
    order: the node's actions in the order to try them, once computed (az: by prior, highest first;
    mcts: its candidates best first by the heuristic, for progressive widening)."""

    __slots__ = ("N", "W", "children", "P", "order")

    def __init__(self, num_players: int):
        self.N = 0
        self.W = [0.0] * num_players
        self.children: dict[int, Node] = {}
        self.P: dict[int, float] | None = None
        self.order: list[int] | None = None

    def expand(self, priors: dict[int, float]) -> None:
        """Set the prior, and ``order`` by it (highest first; the first untried legal action is the
        best untried)."""
        self.P = priors
        self.order = sorted(priors, key=priors.__getitem__, reverse=True)


def reused_root(root: Node | None, root_history: list[int] | None, history: list[int], num_players: int) -> Node:
    """The subtree of ``root`` (searched at ``root_history``) under the actions played since, or a
    fresh node when there is none."""
    if root is not None and root_history is not None and len(history) >= len(root_history) \
            and history[:len(root_history)] == root_history:
        node = root
        for a in history[len(root_history):]:
            node = node.children.get(a)
            if node is None:
                break
        if node is not None:
            return node
    return Node(num_players)


def puct_choice(node: Node, p: int, actions, prior: dict[int, float], c: float, untried: float):
    """The action of ``actions`` maximising ``Q + c * sqrt(max(N, 1)) * P(a) / (1 + n_a)`` for the seat
    ``p`` (its own mean value ``Q``, max^n), with ``P(a)`` from ``prior`` (0 for an action it lacks) and
    an untried action's ``Q`` the value ``untried`` (MCTS: the node's mean; az: minus first-play
    urgency). Ties go to the first maximum in the order of ``actions``, which the caller chooses
    (every search keeps its own order); None when ``actions`` is empty."""
    children = node.children
    scale = c * sqrt(max(node.N, 1))
    best, best_score = None, -inf
    for a in actions:
        ch = children.get(a)
        if ch is None or not ch.N:
            score = untried + scale * prior.get(a, 0.0)
        else:
            score = ch.W[p] / ch.N + scale * prior.get(a, 0.0) / (1 + ch.N)
        if score > best_score:
            best, best_score = a, score
    return best
