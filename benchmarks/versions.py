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
import re
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


def _call(path: str, module: str, call: str) -> str:
    """The program that prints ``module.<call>`` as JSON, importing ``clans_env`` from ``path``."""
    return (f"import sys, json; sys.path.insert(0, {path!r}); sys.path.insert(0, {BENCHMARKS!r});"
            f"import {module} as m; print(json.dumps(m.{call}))")


def measure_in(path: str, module: str, call: str, env: dict | None = None):
    """``module.<call>`` (a benchmark module of this folder) evaluated in a fresh process that imports
    ``clans_env`` from the checkout at ``path`` (with ``env`` added to the environment); its result
    must be JSON."""
    env = dict(os.environ, PYTHONPATH=path, **(env or {}))
    out = subprocess.run([sys.executable, "-c", _call(path, module, call)], env=env, cwd=path, capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


#: cachegrind's summary lines -> the names ``cachegrind_in`` gives their counts
CACHEGRIND_COUNTS = {"I   refs": "instructions", "I1  misses": "I1 misses", "D1  misses": "D1 misses",
                     "LL misses": "LL misses"}


def cachegrind_in(path: str, module: str, call: str, caches: bool = False, ll: int = 1 << 20) -> tuple[dict, object]:
    """``measure_in``'s call run under valgrind's cachegrind, the hash seed fixed so that the counts repeat:
    (counts by ``CACHEGRIND_COUNTS`` name, the call's result). Without ``caches`` only instructions are
    counted; with it the caches are simulated (L1 the host's, the last level ``ll`` bytes) for the misses."""
    env = dict(os.environ, PYTHONPATH=path, PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1")
    simulate = ["--cache-sim=yes", f"--LL={ll},16,64"] if caches else ["--cache-sim=no"]
    out = subprocess.run(["valgrind", "--tool=cachegrind", *simulate, "--cachegrind-out-file=/dev/null",
                          sys.executable, "-c", _call(path, module, call)],
                         env=env, cwd=path, capture_output=True, text=True, check=True)
    counts = {}
    for label, name in CACHEGRIND_COUNTS.items():
        m = re.search(re.escape(label) + r":\s+([\d,]+)", out.stderr)
        if m:
            counts[name] = int(m.group(1).replace(",", ""))
    if "instructions" not in counts:  # pragma: no cover - valgrind output format
        raise RuntimeError(f"could not read valgrind's counts:\n{out.stderr[-2000:]}")
    return counts, json.loads(out.stdout.strip().splitlines()[-1])
