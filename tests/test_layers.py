"""Layering (developers' guide, "Layout shows the architecture"): lower layers never import
higher ones, and the engine imports no gymnasium / pettingzoo / torch / matplotlib; Ray only in
``clans_env/interop`` (RLlib glue) and ``training`` (issue 19)."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# package directory -> top-level modules it must not import
FORBIDDEN = {
    "clans_env/engine": {"gymnasium", "pettingzoo", "torch", "matplotlib", "numpy", "ray", "agents", "training",
                         "clans_cli", "clans_web", "clans_env.env", "clans_env.encoding", "clans_env.interop",
                         "clans_env.render", "clans_env.wrappers", "clans_env.clans_of_caledonia_v0"},
    "clans_env/encoding": {"gymnasium", "pettingzoo", "torch", "ray", "agents", "training", "clans_cli",
                           "clans_web", "clans_env.env"},
    "clans_env/env": {"torch", "ray", "agents", "training", "clans_cli", "clans_web"},
    "clans_env/interop": {"torch", "agents", "training", "clans_cli", "clans_web"},
    "clans_env/render": {"torch", "agents", "training", "clans_cli", "clans_web"},
    "agents": {"training", "clans_cli", "clans_web"},
    "training": {"clans_cli", "clans_web"},
    # the web viewer sits above agents and training; the CLI's `clans serve` / `replay --html` call into it
    "clans_web": {"clans_cli"},
}


def _imports(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    pkg = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")
                base = base[:len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            yield mod
            for a in node.names:
                yield f"{mod}.{a.name}"


def test_no_upward_imports():
    """Each layer imports only from the layers below it (docs/architecture.md)."""
    problems = []
    for folder, banned in FORBIDDEN.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            for mod in _imports(path):
                for b in banned:
                    if mod == b or mod.startswith(b + "."):
                        problems.append(f"{path.relative_to(ROOT)} imports {mod}")
    assert not problems, "\n".join(sorted(set(problems)))


def test_engine_import_is_light():
    """`import clans_env` and playing a game load no RL or plotting library."""
    code = ("import sys, clans_env\n"
            "g = clans_env.Game(clans_env.GameConfig(num_players=2, seed=0))\n"
            "while not g.is_terminal(): g.apply(g.legal_actions()[-1])\n"
            "heavy = [m for m in ('gymnasium', 'pettingzoo', 'torch', 'matplotlib', 'numpy') if m in sys.modules]\n"
            "print(','.join(heavy))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"engine pulled in: {out.stdout.strip()}"
