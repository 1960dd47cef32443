"""Build agents from short text specs, for the command line and scripts.

A spec is ``kind`` or ``kind:key=value,key=value``::

    make("random")
    make("heuristic:seed=3")
    make("mcts:sims=200,c=0.2,rollout=heuristic,depth=20,seed=3")
    make("mcts:seconds=1.0")
    make("ppo:path=runs/ppo/model.pt,greedy=1")

Bad specs raise ``ValueError`` naming the valid kinds and that kind's options.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable


def _bool(text: str) -> bool:
    t = text.strip().lower()
    if t in ("1", "true", "yes", "on"):
        return True
    if t in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"expected a boolean (1/0, true/false), got {text!r}")


def _opt_float(text: str) -> float | None:
    return None if text.strip().lower() in ("none", "") else float(text)


@dataclass(frozen=True)
class AgentKind:
    name: str
    summary: str
    options: dict            # option name -> (converter, help)
    build: Callable          # (**options) -> Agent


def _random(**kw):
    from .random_agent import RandomAgent
    return RandomAgent(**kw)


def _heuristic(**kw):
    from .heuristic import HeuristicAgent
    return HeuristicAgent(**kw)


def _mcts(**kw):
    from .mcts import MCTSAgent
    return MCTSAgent(**kw)


def _ppo(**kw):
    if "path" not in kw:
        raise ValueError("ppo needs a model file: ppo:path=FILE[,greedy=1][,temperature=1][,seed=N]")
    if not os.path.isfile(kw["path"]):
        raise ValueError(f"ppo model file {kw['path']!r} does not exist (ppo:path=FILE)")
    try:
        from .ppo import PPOAgent
    except ImportError as e:
        raise ValueError(f"the ppo agent is not available ({e}); it needs agents/ppo.py with PPOAgent "
                         f"and its dependencies (torch)") from None
    return PPOAgent(**kw)


_SEED = (int, "seed of the agent's random generator")
KINDS: dict[str, AgentKind] = {k.name: k for k in (
    AgentKind("random", "uniformly random legal actions", {"seed": _SEED}, _random),
    AgentKind("heuristic", "greedy one-step lookahead on the estimated final VP margin",
              {"seed": _SEED, "noise": (float, "std. dev. of Gaussian noise on action values (VP)")},
              _heuristic),
    AgentKind("mcts", "determinized open-loop MCTS with max^n backups", {
        "sims": (int, "simulations per decision (default 200)"),
        "seconds": (_opt_float, "time budget per decision instead of sims"),
        "c": (float, "UCT exploration constant (default 0.2)"),
        "rollout": (str, "rollout policy: random, heuristic or policy (needs policy=)"),
        "depth": (int, "rollout length in actions before the heuristic evaluation (default 0)"),
        "scale": (float, "VP margin scale of the normalised value (default 5)"),
        "reuse": (_bool, "reuse the subtree between moves (default 1)"),
        "workers": (int, "root parallelism over this many processes (default 1)"),
        "top_k": (int, "search only the k best root actions by the heuristic (default 0 = all)"),
        "widen": (float, "progressive widening below the root (default 1; 0 = try every action)"),
        "fpu": (_opt_float, "first-play urgency reduction (default none: try every action once first)"),
        "policy": (str, "PPO checkpoint whose policy is the search prior (PUCT selection; default none)"),
        "puct": (float, "PUCT exploration constant with policy= (default 1)"),
        "seed": _SEED}, _mcts),
    AgentKind("ppo", "a trained PPO policy (agents/ppo.py)", {
        "path": (str, "model file"), "greedy": (_bool, "argmax instead of sampling (default 1)"),
        "temperature": (float, "softmax temperature when sampling (default 1)"),
        "seed": _SEED}, _ppo),
)}


def describe_kinds() -> str:
    """One line per agent kind with its options (for --help texts and error messages)."""
    lines = []
    for k in KINDS.values():
        opts = ", ".join(k.options)
        lines.append(f"{k.name}: {k.summary} (options: {opts})")
    return "\n".join(lines)


def parse_spec(spec: str) -> tuple[str, dict]:
    """Split ``kind:key=value,...`` into the kind and its converted options."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"an agent spec is a non-empty string like 'mcts:sims=200'; valid kinds: "
                         f"{', '.join(KINDS)}")
    kind_name, _, rest = spec.strip().partition(":")
    kind_name = kind_name.strip().lower()
    kind = KINDS.get(kind_name)
    if kind is None:
        raise ValueError(f"unknown agent kind {kind_name!r} in spec {spec!r}; valid kinds: {', '.join(KINDS)}")
    options: dict = {}
    if rest.strip():
        for part in rest.split(","):
            key, eq, value = part.partition("=")
            key = key.strip().lower()
            if not eq or not key:
                raise ValueError(f"bad option {part!r} in spec {spec!r}: options are key=value pairs separated "
                                 f"by commas; {kind_name} options: {', '.join(kind.options)}")
            if key not in kind.options:
                raise ValueError(f"unknown option {key!r} for agent kind {kind_name!r} in spec {spec!r}; "
                                 f"valid options: {', '.join(kind.options)}")
            if key in options:
                raise ValueError(f"option {key!r} given twice in spec {spec!r}")
            convert, help_text = kind.options[key]
            try:
                options[key] = convert(value.strip())
            except ValueError as e:
                raise ValueError(f"bad value {value!r} for option {key!r} ({help_text}) in spec {spec!r}: {e}") \
                    from None
    return kind_name, options


def make(spec: str, seed: int | None = None):
    """Build an agent from ``spec``; ``seed`` is used when the spec does not fix one."""
    kind_name, options = parse_spec(spec)
    if seed is not None and "seed" not in options:
        options["seed"] = seed
    try:
        agent = KINDS[kind_name].build(**options)
    except TypeError as e:
        raise ValueError(f"cannot build {spec!r}: {e}; {kind_name} options: "
                         f"{', '.join(KINDS[kind_name].options)}") from None
    agent.spec = spec.strip()
    return agent
