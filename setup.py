"""Build hook for the optional compiled parts (everything else is in pyproject.toml). Both are optional:
where they cannot be built the install still succeeds and the same code runs as pure Python.

- The observation encoder ``clans_env.encoding._fastobs`` (C): built when a C compiler is present;
  ``clans_env.encoding.ACCELERATED`` tells.
- The rules engine compiled by mypyc from its own source (the modules in ``COMPILED_ENGINE``): built
  when mypy (which brings mypyc) can be imported by the build and a C compiler works. A plain
  ``pip install -e .`` builds in an isolated environment without mypy, so the engine stays pure
  Python; ``CLANS_MYPYC=1 pip install -e .`` asks pip to put mypy in that environment (the build
  then takes a few minutes), ``pip install --no-build-isolation -e .`` uses the mypy already
  installed. ``CLANS_PURE_PYTHON=1`` skips it at install time (and, read by ``clans_env``, ignores
  built modules at import time). ``clans_env.engine.COMPILED`` tells which engine runs.
"""
import os
import sys
import tempfile

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

# Engine modules mypyc compiles (paths under clans_env/engine). The others stay Python because mypyc
# cannot compile them as written or because compiled they would behave differently, and the rules are
# not rewritten for the compiler:
#   game, board, topology, trainmap, state, saves: attributes set through setattr / object.__setattr__ /
#     __slots__ read from the class, which native classes do not have;
#   clans/base: the Clan base class (clans register their subclasses with a decorator, and a decorated
#     class cannot derive from a native one); clans/macleod: methods aliased in the class body;
#   data and the packages' __init__: mypyc derives a compiled module's __file__ (and a package's
#     __path__) as if the group's shared library sat above the package tree; here it sits inside the
#     package (so that editable installs find it), so data.py would miss its data files and a compiled
#     package would miss its Python submodules;
#   config: GameConfig is a dataclass that takes lists, strings or ints where its annotations say tuples
#     or bools and checks or converts them itself; compiled, the class raises TypeError before that;
#   invariants: an AssertionError subclass; fraser: values of another type than its annotations or inferred types
#     say (a compiled function checks them and raises TypeError); deliveries: its decision steps are
#     classes registered with a decorator (``@step``) that derive from a base class which compiled would
#     be native (as clans/base above).
# The modules' state records (modules.Record subclasses, defined in several compiled rule files) stay Python
# classes inside compiled modules (Record's metaclass makes mypyc build them so): they keep __slots__ and
# the copy written for each; their fields are declared in the class body for mypy. A rule reading a record
# with field() returns the default (a tuple, None) without the module, so its annotation says so.
# A module missing here (renamed, moved) is skipped; a new module stays Python until it is listed and
# checked with benchmarks/game_digests.py on the compiled build.
COMPILED_ENGINE = (
    "actions records moves rules/automa rules/milestones rules/clan_setup rng views train_views "
    "rules/awards rules/common rules/contracts rules/expand rules/farmers_markets "
    "rules/fulfil rules/industria_ports rules/market rules/ports rules/production rules/refill_board "
    "rules/registry rules/scoring rules/setup rules/solo rules/stacking rules/turn rules/upgrades "
    "rules/variable_prices rules/trains rules/train_core rules/industria_scoring rules/alt_scoring "
    "clans/buchanan clans/campbell clans/cunningham clans/douglas clans/fergusson "
    "clans/gordon clans/macdonald clans/macewen clans/macfarlane clans/macgregor clans/mackenzie "
    "clans/mackintosh clans/macpherson clans/robertson clans/sinclair clans/stewart"
).split()

# mypy settings for the compiled build only. allow_redefinition_new: a local first assigned a bool and
# later an untyped value (an int mask) takes their union instead of failing a compiled bool check;
# common.py trips a mypyc code-generation bug with it (a redefined int parameter), so it is off there.
# Imported modules that are not compiled are followed silently (their types are used, not checked).
# milestones and clan_setup put a str into a set / a longer tuple into a list that mypy typed from their
# first items; compiled containers hold any object, so those two type errors are let through there.
MYPY_CONFIG = """\
[mypy]
ignore_missing_imports = True
follow_imports = silent
allow_redefinition_new = True
local_partial_types = True
disable_error_code = var-annotated, annotation-unchecked
[mypy-clans_env.engine.rules.common]
allow_redefinition_new = False
[mypy-clans_env.engine.rules.milestones]
disable_error_code = var-annotated, annotation-unchecked, arg-type
[mypy-clans_env.engine.rules.clan_setup]
disable_error_code = var-annotated, annotation-unchecked, arg-type
"""


def _on(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no")


def compiled_engine() -> list:
    """The mypyc extensions of the engine, or [] (no mypy, CLANS_PURE_PYTHON, or mypy rejects them)."""
    if _on("CLANS_PURE_PYTHON"):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        return []
    here = os.path.dirname(os.path.abspath(__file__))
    paths = [p for p in (os.path.join("clans_env", "engine", m + ".py") for m in COMPILED_ENGINE)
             if os.path.exists(os.path.join(here, p))]
    config = os.path.join(tempfile.mkdtemp(prefix="clans-mypyc-"), "mypy.ini")
    with open(config, "w") as f:
        f.write(MYPY_CONFIG)
    try:
        exts = mypycify(["--config-file", config] + paths, opt_level="3",
                        group_name="clans_env.engine._compiled")
    except (Exception, SystemExit) as e:        # mypy's errors end in SystemExit
        print(f"clans-env: compiled engine not built ({e!r}); the engine runs as pure Python", file=sys.stderr)
        return []
    return exts


class BuildExt(build_ext):
    """The compiled engine is built whole or not at all: each of its modules imports one shared
    library, so a failure removes what was built and leaves the pure-Python engine."""

    def build_extensions(self):
        engine = [e for e in self.extensions if e.name.startswith("clans_env.engine.")]
        self.extensions = [e for e in self.extensions if e not in engine]
        super().build_extensions()
        try:
            for ext in engine:
                self.build_extension(ext)
        except Exception as e:
            for ext in engine:
                path = self.get_ext_fullpath(ext.name)
                if os.path.exists(path):
                    os.remove(path)
            print(f"clans-env: compiled engine not built ({e!r}); the engine runs as pure Python", file=sys.stderr)
        else:
            self.extensions += engine


# pip asks for these before building (setuptools passes setup_requires on as build requirements)
wants_mypy = _on("CLANS_MYPYC") and not _on("CLANS_PURE_PYTHON")
try:
    import mypyc  # noqa: F401
    wants_mypy = False
except ImportError:
    pass

setup(ext_modules=[Extension("clans_env.encoding._fastobs", ["clans_env/encoding/_fastobs.c"],
                             extra_compile_args=["-O2"], optional=True)] + compiled_engine(),
      cmdclass={"build_ext": BuildExt},
      setup_requires=["mypy>=1.16"] if wants_mypy else [])
