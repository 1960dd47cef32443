"""Build agents from short text specs, for the command line and scripts.

A spec is ``kind`` or ``kind:key=value,key=value``::

    make("random")
    make("heuristic:seed=3")
    make("mcts:sims=200,c=0.2,rollout=heuristic,depth=20,seed=3")
    make("mcts:seconds=1.0")
    make("ppo:path=runs/ppo/model.pt,greedy=1")
    make("az:path=models/az_2p/model.pt,sims=200")

Your own agents (docs/agents.md, "Your own agent"):

    make("mypkg.bots:Greedy")                 # any importable class or factory: module:attribute
    make("mypkg.bots:Greedy:depth=2,seed=1")  # options become keyword arguments (numbers, true/false, text)
    make("./mybot.py:Greedy")                 # a Python file: path:attribute
    make("their-bot")                         # a kind an installed package registers (entry point group
                                              # "clans_env.agents", name = kind, value = module:attribute)

A factory may return an ``Agent`` or a plain ``policy(observation_dict) -> action`` callable, which is
wrapped in ``PolicyAgent``. Bad specs raise ``ValueError`` naming what is wrong: the valid kinds and that
kind's options, the module or file that is missing, or the attribute it lacks.
"""
from __future__ import annotations

import ast
import cmath
import importlib
import importlib.util
import inspect
import math
import os
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Callable

#: entry point group through which installed packages register agent kinds
ENTRY_POINT_GROUP = "clans_env.agents"


def _bool(text: str) -> bool:
    t = text.strip().lower()
    if t in ("1", "true", "yes", "on"):
        return True
    if t in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"expected a boolean (1/0, true/false), got {text!r}")


def _number(kind: type, low: float | None = None, strict: bool = False, high: float | None = None,
            optional: bool = False) -> Callable:
    """A converter to ``kind`` (int or float) that refuses what no budget or parameter can mean: a value
    that is not finite (``nan``, ``inf`` pass every ``>`` test the other way, and a search whose deadline
    is ``nan`` never stops), or one outside ``[low, high]`` (``strict``: above ``low``)."""
    bound = (f"> {low:g}" if strict else f">= {low:g}") if low is not None else None
    if high is not None:
        bound = f"{bound} and <= {high:g}" if bound else f"<= {high:g}"

    def convert(text: str):
        t = text.strip()
        if optional and t.lower() in ("none", ""):
            return None
        try:
            value = int(t) if kind is int else float(t)
        except ValueError:
            raise ValueError(f"expected {'an integer' if kind is int else 'a number'}, got {text!r}") from None
        if not math.isfinite(value):
            raise ValueError(f"expected a finite number, got {text!r}")
        if low is not None and (value <= low if strict else value < low) or high is not None and value > high:
            raise ValueError(f"expected a number {bound}, got {text!r}")
        return value

    return convert


def _opt_float(text: str) -> float | None:
    """A finite number or ``none``."""
    return _number(float, optional=True)(text)


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


def _automa(**kw):
    from .automa_seat import AutomaSeat
    return AutomaSeat(**kw)


def _az(**kw):
    if "path" not in kw:
        raise ValueError("az needs a model file: az:path=FILE[,sims=200][,seconds=S][,seed=N]")
    if not os.path.isfile(kw["path"]):
        raise ValueError(f"az model file {kw['path']!r} does not exist (az:path=FILE)")
    try:
        from .az import AZAgent
    except ImportError as e:
        raise ValueError(f"the az agent is not available ({e}); it needs torch") from None
    return AZAgent(**kw)


_SEED = (_number(int, 0), "seed of the agent's random generator")
KINDS: dict[str, AgentKind] = {k.name: k for k in (
    AgentKind("random", "uniformly random legal actions", {"seed": _SEED}, _random),
    AgentKind("heuristic", "greedy one-step lookahead on the estimated final VP margin",
              {"seed": _SEED, "noise": (_number(float, 0), "std. dev. of Gaussian noise on action values (VP)")},
              _heuristic),
    AgentKind("mcts", "determinized open-loop MCTS with max^n backups", {
        "sims": (_number(int, 1), "simulations per decision (default 200)"),
        "seconds": (_number(float, 0, strict=True, optional=True), "time budget per decision instead of sims"),
        "c": (_number(float, 0), "UCT exploration constant (default 0.2)"),
        "rollout": (str, "rollout policy: random, heuristic or policy (needs policy=)"),
        "depth": (_number(int, 0), "rollout length in actions before the heuristic evaluation (default 0)"),
        "scale": (_number(float, 0, strict=True), "VP margin scale of the normalised value (default 5)"),
        "reuse": (_bool, "reuse the subtree between moves (default 1)"),
        "workers": (_number(int, 1), "root parallelism over this many processes (default 1)"),
        "top_k": (_number(int, 0), "search only the k best root actions by the heuristic (default 0 = all)"),
        "widen": (_number(float, 0), "progressive widening below the root (default 1; 0 = try every action)"),
        "fpu": (_opt_float, "first-play urgency reduction (default none: try every action once first)"),
        "policy": (str, "PPO checkpoint whose policy is the search prior (PUCT selection; default none)"),
        "puct": (_number(float, 0), "PUCT exploration constant with policy= (default 1)"),
        "seed": _SEED}, _mcts),
    AgentKind("ppo", "a trained PPO policy (agents/ppo.py)", {
        "path": (str, "model file"), "greedy": (_bool, "argmax instead of sampling (default 1)"),
        "temperature": (_number(float, 0, strict=True), "softmax temperature when sampling (default 1)"),
        "seed": _SEED}, _ppo),
    AgentKind("automa", "the physical game's solo opponent (a game seat the engine plays, not an agent; "
              "tournaments seat it through GameConfig.automa)", {
        "level": (_number(int, 1, high=5), "difficulty 1 (Very Easy) to 5 (Very Hard), default 3"),
        "seed": (_number(int, 0), "unused: its cards and dice come from the game's generator")}, _automa),


    AgentKind("az", "AlphaZero-style PUCT search guided by a policy-value model (agents/az.py)", {
        "path": (str, "model file (an AlphaZero or PPO model)"),
        "sims": (_number(int, 1), "simulations per decision (default 200)"),
        "seconds": (_number(float, 0, strict=True, optional=True), "time budget per decision instead of sims"),
        "c_puct": (_number(float, 0), "PUCT exploration constant (default 1.5)"),
        "fpu": (_number(float), "first-play urgency reduction (default 0.2)"),
        "leaf_batch": (_number(int, 1), "leaves per forward pass, by virtual loss (default 8)"),
        "collisions": (str, "a descent into a leaf already waiting: stop the round (default) or twin "
                       "(count it as a visit of that leaf)"),
        "reuse": (_bool, "reuse the subtree between moves (default 1)"),
        "temperature": (_number(float, 0), "0: most visited action (default); > 0: sample by visits"),
        "threads": (_number(int, 0), "torch threads (default 1; 0 = torch's setting)"),
        "seed": _SEED}, _az),
)}


def describe_kinds() -> str:
    """One line per agent kind with its options (for --help texts and error messages)."""
    lines = []
    for k in KINDS.values():
        opts = ", ".join(k.options)
        lines.append(f"{k.name}: {k.summary} (options: {opts})")
    return "\n".join(lines)


def _is_import_spec(spec: str) -> bool:
    """``module:attribute[:options]`` or ``path/file.py:attribute[:options]`` (the part after the first
    colon is an identifier, not ``key=value`` options)."""
    head, sep, rest = spec.partition(":")
    if not sep:
        return False
    attr = rest.partition(":")[0].strip()
    return attr.isidentifier() and (head.endswith(".py") or "." in head or "/" in head or head.lower() not in KINDS)


def _literal(text: str):
    """An option value of a custom agent: a Python literal (number, True/False, None, string), else text."""
    t = text.strip()
    low = t.lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        return ast.literal_eval(t)
    except (ValueError, SyntaxError):
        return t


def _custom_options(spec: str, text: str) -> dict:
    options: dict = {}
    for part in (p for p in text.split(",") if p.strip()):
        key, eq, value = part.partition("=")
        if not eq or not key.strip().isidentifier():
            raise ValueError(f"bad option {part!r} in spec {spec!r}: options are key=value pairs separated by commas")
        options[key.strip()] = v = _literal(value)
        if isinstance(v, (float, complex)) and not cmath.isfinite(v):
            raise ValueError(f"bad value {value.strip()!r} for option {key.strip()!r} in spec {spec!r}: "
                             f"expected a finite number")
    return options


def _entry_points() -> dict:
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def _load_attribute(spec: str, target: str, attr: str):
    """The object ``attr`` of module or Python file ``target`` (errors name what is missing)."""
    if target.endswith(".py") or os.sep in target or "/" in target:
        path = os.path.abspath(target)
        if not os.path.isfile(path):
            raise ValueError(f"agent spec {spec!r}: no such Python file {target!r}")
        name = "clans_agent_" + os.path.splitext(os.path.basename(path))[0]
        module_spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(module_spec)
        try:
            module_spec.loader.exec_module(module)
        except Exception as e:
            raise ValueError(f"agent spec {spec!r}: importing {target!r} failed: {type(e).__name__}: {e}") from None
    else:
        try:
            module = importlib.import_module(target)
        except ImportError as e:
            raise ValueError(f"agent spec {spec!r}: cannot import module {target!r} ({e}); give an importable "
                             f"module (on PYTHONPATH or installed) or a file path such as ./mybot.py:{attr}") from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise ValueError(f"agent spec {spec!r}: {target!r} has no attribute {attr!r}") from None


def parse_spec(spec: str) -> tuple[str, dict]:
    """Split ``kind:key=value,...`` into the kind and its converted options. A custom agent's kind is
    ``module:attribute`` (or ``file.py:attribute``) or the name of an entry point.

    Parsing works on the text alone: it imports nothing and runs nothing, so a spec from anywhere (a web
    request, a results file) can be checked with it. Loading your own agent's code is ``make``'s step, and
    ``load_check`` parses and loads for the command line, where the person typing names the code."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"an agent spec is a non-empty string like 'mcts:sims=200'; valid kinds: "
                         f"{', '.join(KINDS)}")
    spec = spec.strip()
    if _is_import_spec(spec):
        target, _, rest = spec.partition(":")
        attr, _, opts = rest.partition(":")
        return f"{target.strip()}:{attr.strip()}", _custom_options(spec, opts)
    kind_name, _, rest = spec.partition(":")
    kind_name = kind_name.strip().lower()
    kind = KINDS.get(kind_name)
    if kind is None:
        plugins = _entry_points()
        if kind_name in plugins:
            return kind_name, _custom_options(spec, rest)
        known = list(KINDS) + sorted(plugins)
        raise ValueError(f"unknown agent kind {kind_name!r} in spec {spec!r}; valid kinds: {', '.join(known)}, "
                         f"or module:Class / ./file.py:Class for your own agent")
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


def load_check(spec: str) -> tuple[str, dict]:
    """``parse_spec``, then, for your own agent (``module:Class``, ``./file.py:Class``, an installed
    entry point), import its factory, so that a spec typed at the command line fails before anything
    runs. This runs the named code: never call it on a spec from a request or a file."""
    kind_name, options = parse_spec(spec)
    if kind_name not in KINDS:
        _custom_factory(spec.strip(), kind_name)
    return kind_name, options


def _custom_factory(spec: str, kind_name: str):
    if ":" in kind_name:
        target, attr = kind_name.split(":", 1)
        return _load_attribute(spec, target, attr)
    try:
        return _entry_points()[kind_name].load()
    except Exception as e:
        raise ValueError(f"agent spec {spec!r}: loading the entry point {kind_name!r} failed: "
                         f"{type(e).__name__}: {e}") from None


def make(spec: str, seed: int | None = None):
    """Build an agent from ``spec``; ``seed`` is used when the spec does not fix one (and, for your own
    agent, when its factory takes a ``seed`` argument)."""
    kind_name, options = parse_spec(spec)
    if kind_name not in KINDS:
        return _make_custom(spec.strip(), kind_name, options, seed)
    if seed is not None and "seed" not in options:
        options["seed"] = seed
    try:
        agent = KINDS[kind_name].build(**options)
    except TypeError as e:
        raise ValueError(f"cannot build {spec!r}: {e}; {kind_name} options: "
                         f"{', '.join(KINDS[kind_name].options)}") from None
    agent.spec = spec.strip()
    return agent


def _make_custom(spec: str, kind_name: str, options: dict, seed: int | None):
    factory = _custom_factory(spec, kind_name)
    if not callable(factory):
        raise ValueError(f"agent spec {spec!r}: {kind_name!r} is not a class or factory")
    if seed is not None and "seed" not in options and _accepts(factory, "seed"):
        options["seed"] = seed
    try:
        agent = factory(**options)
    except TypeError as e:
        raise ValueError(f"cannot build {spec!r}: {e}") from None
    if not callable(getattr(agent, "act", None)):
        if not callable(agent):
            raise ValueError(f"agent spec {spec!r} built {agent!r}, which is neither an Agent (act(game)) nor a "
                             f"policy(observation) -> action")
        from .policy_agent import PolicyAgent
        agent = PolicyAgent(agent, seed=seed, name=attr_name(kind_name))
    if not getattr(agent, "name", None) or agent.name == "agent":
        agent.name = attr_name(kind_name)
    agent.spec = spec
    return agent


def attr_name(kind_name: str) -> str:
    return kind_name.rsplit(":", 1)[-1]


def _accepts(factory, name: str) -> bool:
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == name or p.kind == p.VAR_KEYWORD for p in params)
