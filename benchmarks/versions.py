"""What the speed benchmarks share to compare this checkout with a git revision in the same run:
a temporary worktree of the revision (its C extension built in place, as an install would), and a
measurement run in a fresh process that imports ``clans_env`` from a given checkout."""
from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCHMARKS = os.path.join(ROOT, "benchmarks")


@contextlib.contextmanager
def checkouts(baseline: str | None, prefix: str = "clans-baseline-"):
    """``{"current": ROOT}``, or with a ``baseline`` revision ``{"baseline": <worktree>, "current": ROOT}``;
    the worktree is removed afterwards."""
    if not baseline:
        yield {"current": ROOT}
        return
    tmp = tempfile.mkdtemp(prefix=prefix)
    subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", tmp, baseline], check=True,
                   capture_output=True)
    if os.path.exists(os.path.join(tmp, "setup.py")):
        # compiled parts (the observation encoder) as an install would build them; a revision whose
        # build fails is measured with its pure-Python fallback, as an install without a compiler
        subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=tmp, capture_output=True)
    try:
        yield {"baseline": tmp, "current": ROOT}
    finally:
        subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", tmp], capture_output=True)


def measure_in(path: str, module: str, call: str):
    """``module.<call>`` (a benchmark module of this folder) evaluated in a fresh process that imports
    ``clans_env`` from the checkout at ``path``; its result must be JSON."""
    env = dict(os.environ, PYTHONPATH=path)
    code = (f"import sys, json; sys.path.insert(0, {path!r}); sys.path.insert(0, {BENCHMARKS!r});"
            f"import {module} as m; print(json.dumps(m.{call}))")
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=path, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])
