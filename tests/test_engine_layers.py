"""The layering of clans_env/engine (docs/architecture.md): an import graph read from the sources.

kernel (data, actions, state, config, rng, board, topology, trainmap, modules, rules/registry)
  <- occupancy (rules/common.py: units, stacking records, reach)
  <- base rules (rules/*.py below, the clans)
  <- optional modules (the Industria modules, the Automa: engine/modules.py)
  <- the composition (game.py, saves, invariants, views, records)

A lower layer never imports a higher one; a base rule reaches a module only through the hook points of
engine/modules.py, never by importing it or by reading its config flag.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parent.parent / "clans_env" / "engine"
PKG = "clans_env.engine"

KERNEL = {"data", "actions", "state", "config", "rng", "board", "topology", "trainmap", "modules", "rules.registry"}
OCCUPANCY = {"rules.common"}
BASE_RULES = {"rules.contracts", "rules.expand", "rules.fulfil", "rules.market", "rules.ports", "rules.production",
              "rules.scoring", "rules.setup", "rules.clan_setup", "rules.turn", "rules.upgrades", "rules.solo"}
#: the clans of the base game and the Kickstarter (the Industria clans may use Industria rules: Fraser's tile 12)
BASE_CLANS = {"clans", "clans.base", "clans.buchanan", "clans.campbell", "clans.cunningham", "clans.fergusson",
              "clans.macdonald", "clans.mackenzie", "clans.robertson", "clans.stewart", "clans.macewen"}
MODULE_FILES = {"rules.automa", "rules.awards", "rules.farmers_markets", "rules.refill_board",
                "rules.variable_prices", "rules.industria_ports", "rules.industria_scoring", "rules.stacking", "rules.trains", "rules.train_core",
                "rules.deliveries", "rules.milestones", "rules.alt_scoring"}
#: function-level imports allowed: optional dependencies only (none in the engine today)
OPTIONAL_IMPORTS: set[str] = set()
#: GameConfig fields that switch a module on; ``industria_clans`` is no module (the clans are hook objects
#: chosen by rules/clan_setup.py) and stays readable
MODULE_FLAGS = {"automa", "automa_seats", "farmers_markets", "awards", "refill_board", "industria_tiles",
                "variable_prices", "alt_two_player_scoring", "trains", "milestones", "industria",
                "industria_modules"}


def _modules() -> dict[str, Path]:
    out = {}
    for path in ENGINE.rglob("*.py"):
        rel = path.relative_to(ENGINE).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _targets(name: str, path: Path, node) -> list[str]:
    """The engine modules an import statement loads (relative to the engine package)."""
    if isinstance(node, ast.Import):
        return [n.name[len(PKG) + 1:] for n in node.names if n.name.startswith(PKG + ".")]
    if node.level:
        base = name.split(".") if name else []
        if path.name != "__init__.py":
            base = base[:-1]
        base = base[:len(base) - (node.level - 1)]
        mod = ".".join(base + ([node.module] if node.module else []))
    elif node.module and node.module.startswith(PKG):
        mod = node.module[len(PKG) + 1:]
    else:
        return []
    out = []
    for alias in node.names:
        sub = f"{mod}.{alias.name}" if mod else alias.name
        out.append(sub if sub in MODULES else mod)
    return [t for t in out if t in MODULES and t != name]


def _graph():
    edges, inner = {}, []
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(), str(path))
        in_function = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                       for n in ast.walk(f) if isinstance(n, (ast.Import, ast.ImportFrom))}
        edges[name] = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                edges[name].update(_targets(name, path, node))
                if id(node) in in_function:
                    loaded = node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
                    inner.append((name, node.lineno, loaded or ""))
    return edges, inner


EDGES, INNER = _graph()


def _cycles(edges) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_the_layers_name_every_rule_file():
    rules = {m for m in MODULES if m.startswith("rules.")}
    unplaced = rules - KERNEL - OCCUPANCY - BASE_RULES - MODULE_FILES
    assert not unplaced, f"rule files in no layer (place them in tests/test_engine_layers.py): {sorted(unplaced)}"


def test_the_engine_has_no_import_cycle():
    assert _cycles(EDGES) == []


def test_the_kernel_imports_only_the_kernel():
    bad = {m: sorted(EDGES[m] - KERNEL) for m in KERNEL if EDGES[m] - KERNEL}
    assert bad == {}


@pytest.mark.parametrize("layer,allowed", [
    (OCCUPANCY, KERNEL),
    (BASE_RULES | BASE_CLANS, None),
])
def test_no_upward_imports(layer, allowed):
    """Occupancy imports only the kernel; base rules and base clans never import a module's rules."""
    bad = {}
    for m in layer:
        up = EDGES[m] & MODULE_FILES if allowed is None else EDGES[m] - allowed
        if up:
            bad[m] = sorted(up)
    assert bad == {}


def test_no_imports_inside_functions():
    bad = [f"{m}:{line} imports {what}" for m, line, what in INNER if what.split(".")[0] not in OPTIONAL_IMPORTS]
    assert bad == []


def test_base_rules_never_read_a_module_flag():
    """A base rule asks the hook points (``g.hooks``), never ``config.automa``, ``cfg.trains``, ..."""
    bad = []
    for m in sorted(BASE_RULES | OCCUPANCY | BASE_CLANS):
        tree = ast.parse(MODULES[m].read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in MODULE_FLAGS:
                owner = node.value
                config = (isinstance(owner, ast.Attribute) and owner.attr == "config") or \
                    (isinstance(owner, ast.Name) and owner.id in ("cfg", "config"))
                if config:
                    bad.append(f"{m}:{node.lineno} reads .{node.attr}")
    assert bad == []


def test_the_checks_can_fail():
    """The graph and the checks see what they must: a cycle, an edge, a flag read."""
    assert _cycles({"a": {"b"}, "b": {"a"}, "c": set()}) == [["a", "b"]]
    assert "rules.common" in EDGES["rules.expand"]
    assert "rules.trains" in EDGES["game"]
    tree = ast.parse("def f(g):\n    return g.config.automa\n")
    assert any(isinstance(n, ast.Attribute) and n.attr in MODULE_FLAGS for n in ast.walk(tree))
