"""What the speed benchmarks share to compare this checkout with a git revision in the same run:
a temporary worktree of the revision (its C extension built in place, as an install would), and a
measurement run in a fresh process that imports ``clans_env`` from a given checkout. With
``pure_baseline`` the baseline is this checkout's pure-Python engine (``CLANS_PURE_PYTHON=1``, see
setup.py) against its compiled build, measured the same way."""
from __future__ import annotations

import contextlib
import glob
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCHMARKS = os.path.join(ROOT, "benchmarks")


@contextlib.contextmanager
def checkouts(baseline: str | None, prefix: str = "clans-baseline-", pure_baseline: bool = False):
    """``{"current": ROOT}``, or with a ``baseline`` revision ``{"baseline": <worktree>, "current": ROOT}``;
    the worktree is removed afterwards. ``pure_baseline``: ``{"baseline": ROOT, "current": ROOT}``, the
    baseline to be measured with ``env=PURE`` (``measure_in``)."""
    if pure_baseline:
        yield {"baseline": ROOT, "current": ROOT}
        return
    if not baseline:
        yield {"current": ROOT}
        return
    tmp = tempfile.mkdtemp(prefix=prefix)
    subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", tmp, baseline], check=True,
                   capture_output=True)
    if os.path.exists(os.path.join(tmp, "setup.py")):
        # compiled parts (the observation encoder) as an install would build them; a revision whose
        # build fails is measured with its pure-Python fallback, as an install without a compiler
        # like for like: the baseline's engine is compiled (setup.py, mypyc) only where this checkout's is
        env = dict(os.environ)
        if not glob.glob(os.path.join(ROOT, "clans_env", "engine", "_compiled__mypyc*")):
            env["CLANS_PURE_PYTHON"] = "1"
        subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=tmp, env=env, capture_output=True)
    try:
        yield {"baseline": tmp, "current": ROOT}
    finally:
        subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", tmp], capture_output=True)


#: the environment that makes a checkout run its engine as pure Python even where it was compiled
PURE = {"CLANS_PURE_PYTHON": "1"}


def measure_in(path: str, module: str, call: str, env: dict | None = None):
    """``module.<call>`` (a benchmark module of this folder) evaluated in a fresh process that imports
    ``clans_env`` from the checkout at ``path`` (with ``env`` added to the environment); its result
    must be JSON."""
    env = dict(os.environ, PYTHONPATH=path, **(env or {}))
    code = (f"import sys, json; sys.path.insert(0, {path!r}); sys.path.insert(0, {BENCHMARKS!r});"
            f"import {module} as m; print(json.dumps(m.{call}))")
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=path, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])
