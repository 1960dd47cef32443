"""The optional mypyc-compiled engine (setup.py) and its pure-Python path.

``CLANS_PURE_PYTHON=1`` must make the engine import its Python sources even where compiled modules sit
beside them (an editable install builds them in place); where a compiled build is present, both paths
must play the same games.
"""
import ast
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# seeded random games in several configurations: their actions and final scores
_GAMES = """
import json, random
import clans_env.engine as E
from clans_env import Game, GameConfig
out = {"compiled": E.COMPILED, "files": sorted({m.__file__.rsplit(".", 1)[-1] for n, m in __import__("sys").modules.items()
                                                if n.startswith("clans_env.engine") and getattr(m, "__file__", None)}),
       "games": []}
for cfg in ({"num_players": 2}, {"num_players": 4}, {"num_players": 3, "industria": True},
            {"num_players": 2, "industria": True, "automa": {"1": 3}}):
    for seed in range(2):
        g = Game(GameConfig(seed=seed, **cfg))
        rng = random.Random(seed)
        while not g.is_terminal():
            legal = g.legal_actions()
            g.apply(legal[int(rng.random() * len(legal))])
        out["games"].append([g.history, [row["total"] for row in g.final_scores()]])
print(json.dumps(out))
"""


def _play(pure: bool) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "CLANS_PURE_PYTHON"}
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    if pure:
        env["CLANS_PURE_PYTHON"] = "1"
    out = subprocess.run([sys.executable, "-c", _GAMES], env=env, cwd=ROOT, capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_pure_python_is_forced():
    pure = _play(pure=True)
    assert pure["compiled"] is False
    assert pure["files"] == ["py"], "CLANS_PURE_PYTHON=1 still imported compiled engine modules"


def test_compiled_and_pure_play_the_same_games():
    compiled = _play(pure=False)
    if not compiled["compiled"]:
        pytest.skip("the compiled engine is not built here (setup.py: CLANS_MYPYC=1 pip install -e .)")
    assert _play(pure=True)["games"] == compiled["games"]


def test_compiled_module_list_names_existing_modules():
    """A module renamed or moved would silently drop out of the compiled build (setup.py skips it)."""
    tree = ast.parse(open(os.path.join(ROOT, "setup.py")).read())
    listed = next(node.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
                  and getattr(node.targets[0], "id", None) == "COMPILED_ENGINE")
    names = ast.literal_eval(listed.func.value).split()
    missing = [m for m in names if not os.path.exists(os.path.join(ROOT, "clans_env", "engine", m + ".py"))]
    assert not missing, f"setup.py COMPILED_ENGINE lists missing modules: {missing}"


_RECORDS = """
import json
import clans_env.engine as E
from clans_env import Game, GameConfig
from clans_env.engine.modules import RECORDS, Record
g = Game(GameConfig(seed=0, num_players=2, industria=True))
records = {name: cls for name, cls in RECORDS.items() if issubclass(cls, Record)}
bad = {name: cls.__name__ for name, cls in records.items() if "__slots__" not in cls.__dict__ or not cls.__slots__}
print(json.dumps({"compiled": E.COMPILED, "records": len(records), "bad": bad}))
"""


def test_compiled_records_stay_python_classes():
    """A record class compiled as a native class loses ``__slots__``, which ``Record.__init__``, ``copy`` and
    ``to_dict`` read (its fields were never set: the build of issue 34 played no game)."""
    env = {k: v for k, v in os.environ.items() if k != "CLANS_PURE_PYTHON"}
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    out = json.loads(subprocess.run([sys.executable, "-c", _RECORDS], env=env, cwd=ROOT, capture_output=True,
                                    text=True, check=True).stdout.strip().splitlines()[-1])
    if not out["compiled"]:
        pytest.skip("the compiled engine is not built here (setup.py: CLANS_MYPYC=1 pip install -e .)")
    assert out["records"] >= 8 and out["bad"] == {}


def _setup_constant(name: str):
    tree = ast.parse(open(os.path.join(ROOT, "setup.py")).read())
    return next(node.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
                and getattr(node.targets[0], "id", None) == name)


def test_compiled_modules_pass_the_builds_type_check(tmp_path):
    """setup.py builds the compiled engine only when mypy accepts every listed module with its settings
    (MYPY_CONFIG), and otherwise falls back to pure Python with one line on stderr: a change that breaks
    the check (say, a dict of functions of different signatures called through) would quietly lose the
    compiled engine. Where mypy is installed, the check runs here."""
    api = pytest.importorskip("mypy.api")
    config = tmp_path / "mypy.ini"
    config.write_text(ast.literal_eval(_setup_constant("MYPY_CONFIG")))
    names = ast.literal_eval(_setup_constant("COMPILED_ENGINE").func.value).split()
    paths = [os.path.join("clans_env", "engine", m + ".py") for m in names]
    out, err, status = api.run(["--config-file", str(config), "--cache-dir", str(tmp_path / "cache")] + paths)
    assert status == 0, out + err
