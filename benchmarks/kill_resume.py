"""Kill ``clans train ppo`` (or ``clans train az``) at random moments and at every write, resume it
each time, and check that the run still ends exactly where an uninterrupted run ends.

    python benchmarks/kill_resume.py                       # ~2 minutes: random kills + every write point
    python benchmarks/kill_resume.py --minutes 5 --updates 6
    python benchmarks/kill_resume.py --trainer az          # the AlphaZero trainer (steps are iterations)
    python benchmarks/kill_resume.py --exec                # every session a fresh interpreter (slow start)

A *trial* is one run folder driven to completion through a chain of sessions; every session is
the real command line (``clans_cli.train_cmd.main``: ``--resume`` once config.toml exists, the
full flags before), run in its own process and ended by SIGKILL:

* random kills: each session is SIGKILLed after a random delay (uniform over an uninterrupted
  run's duration) with probability 0.75, otherwise it runs to the end;
* write kills: the first session kills itself at write point N for every N of an uninterrupted
  run (``CLANS_KILL_AT_WRITE``, see ``training/loop.py``: inside each temporary file before its
  rename, after each rename, halfway through each log line, after each deletion), and half of
  the resumed sessions are killed again at one of their own first write points (the log
  rewrite, pool or buffer pruning and model.pt repair of a resume).

A session *fails* if it exits with an error (anything but success or our SIGKILL). A trial
fails if its final checkpoint differs from the uninterrupted run's (bit-identical weights and
Adam state, counters, pool list; AlphaZero: also the best network and the replay buffer's file),
if pool/ holds other files than the checkpoint lists (AlphaZero: any buffer file but the one the
checkpoint names), if a ``.tmp-*`` file is left, if model.pt lags the checkpoint, or if
log.jsonl differs in its update sequence. The figures printed at the end: kills, resumes (sessions after a kill) and failures.

Sessions are forked from a *launcher*: one fresh interpreter that imports the project once and
never runs torch itself, then forks a child per session (starting torch costs ~2 s here; a fork
costs milliseconds). ``--exec`` starts every session as ``python -m clans_cli.train_cmd``.
``tests/test_ppo_kill_resume.py`` and ``tests/test_az.py`` run short versions of the same loop.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def tiny_flags(updates: int, checkpoint_every: int = 2, pool_size: int = 2) -> list[str]:
    """A tiny run: one game (~100 learner decisions) per update, a snapshot every update,
    evaluation every 2 updates and a checkpoint every ``checkpoint_every`` (with 2, a kill can
    land between checkpoints; the evaluation games run inside the window between a snapshot
    leaving the pool and the next checkpoint, as with the shipped config)."""
    return ["--total-steps", str(100 * updates - 50), "--rollout-steps", "30", "--num-envs", "1",
            "--checkpoint-every", str(checkpoint_every), "--eval-every", "2", "--pool-size", str(pool_size),
            "--set", "pool_add_every=1",
            "--set", "hidden_sizes=[8]", "--set", "minibatch_size=32", "--set", "epochs=1",
            "--set", "eval_games_random=1", "--set", "eval_games_heuristic=0",
            "--set", "opponent_weights={current=0.4,pool=0.3,random=0.3}"]


def tiny_az_flags(iterations: int, checkpoint_every: int = 2) -> list[str]:
    """A tiny AlphaZero run: one self-play game of 3-simulation searches per iteration, a gate and
    a match against random every 2 iterations (a promotion changes the best network the checkpoint
    holds) and a checkpoint every ``checkpoint_every``."""
    return ["--iterations", str(iterations), "--games-per-iteration", "1", "--parallel-games", "1", "--sims", "3",
            "--checkpoint-every", str(checkpoint_every), "--eval-every", "2",
            "--set", "hidden_sizes=[8]", "--set", "fast_sims=2", "--set", "full_search_prob=0.3",
            "--set", "min_buffer=5", "--set", "train_steps=2", "--set", "batch_size=16", "--set", "leaf_batch=2",
            "--set", "eval_games=1", "--set", "eval_sims=2", "--set", "gate_games=1", "--set", "gate_threshold=0.0",
            "--set", 'eval_opponents=["random"]']


def session_argv(out: Path, flags: list[str], trainer: str = "ppo") -> list[str]:
    """The command line a user would type next: --resume once the run folder holds a run."""
    common = [trainer, "--out", str(out), "--no-progress", "--no-tensorboard"]
    if (out / "config.toml").exists():
        return [*common, "--resume"]
    return [*common, *flags]


# ------------------------------------------------------------------------------------------------
# running sessions
def _serve() -> None:
    """The launcher: read one JSON request per line, fork a child running the train command,
    answer {"pid"} at once and {"status"} when the child ends."""
    import clans_cli.train_cmd  # noqa: F401  (import the project once, before any fork)
    import torch._dynamo  # noqa: F401  (torch.optim imports it on first use: ~3 s here)
    import tqdm.auto  # noqa: F401
    import training.az  # noqa: F401
    import training.ppo  # noqa: F401
    out = sys.stdout
    out.write(json.dumps({"ready": True}) + "\n")
    out.flush()
    for line in sys.stdin:
        req = json.loads(line)
        pid = os.fork()
        if pid == 0:                                      # the session
            try:
                os.environ.update(req["env"])
                fd = os.open(req["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
                os.dup2(fd, 1)
                os.dup2(fd, 2)
                sys.stdout = os.fdopen(1, "w", buffering=1)
                sys.stderr = os.fdopen(2, "w", buffering=1)
                import warnings
                warnings.simplefilter("default")
                rc = clans_cli.train_cmd.main(req["argv"])
            except SystemExit as e:
                rc = e.code if isinstance(e.code, int) else 1
            except BaseException:
                import traceback
                traceback.print_exc()
                rc = 1
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(rc or 0)
        out.write(json.dumps({"pid": pid}) + "\n")
        out.flush()
        _, status = os.waitpid(pid, 0)
        out.write(json.dumps({"status": status}) + "\n")
        out.flush()


class Launcher:
    """Runs sessions forked from one preloaded interpreter (see the module docstring)."""

    def __init__(self):
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
        env.pop("CLANS_KILL_AT_WRITE", None)
        self.proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--serve"], cwd=str(ROOT),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True, bufsize=1)
        if not json.loads(self.proc.stdout.readline() or "{}").get("ready"):
            raise RuntimeError("the kill_resume launcher did not start")

    def run(self, argv, env: dict, log: Path, kill_after: float | None) -> tuple[int | None, bool]:
        """(exit code or None if killed by a signal, killed by us)."""
        self.proc.stdin.write(json.dumps({"argv": argv, "env": env, "log": str(log)}) + "\n")
        self.proc.stdin.flush()
        pid = json.loads(self.proc.stdout.readline())["pid"]
        killed = False
        if kill_after is not None:
            ready, _, _ = select.select([self.proc.stdout], [], [], kill_after)
            if not ready:
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed = True
                except ProcessLookupError:      # it ended (and was reaped) just as the time ran out
                    pass
        status = json.loads(self.proc.stdout.readline())["status"]
        if os.WIFSIGNALED(status):
            return None, killed or os.WTERMSIG(status) == signal.SIGKILL
        return os.WEXITSTATUS(status), False

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


class ExecLauncher:
    """Runs every session as a fresh ``python -m clans_cli.train_cmd`` process."""

    def run(self, argv, env: dict, log: Path, kill_after: float | None) -> tuple[int | None, bool]:
        full = {**os.environ, **env, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
        with open(log, "ab") as fh:
            p = subprocess.Popen([sys.executable, "-m", "clans_cli.train_cmd", *argv], cwd=str(ROOT), env=full,
                                 stdout=fh, stderr=fh)
            try:
                rc = p.wait(timeout=kill_after)
            except subprocess.TimeoutExpired:
                p.send_signal(signal.SIGKILL)
                p.wait()
                return None, True
        if rc < 0:
            return None, -rc == signal.SIGKILL
        return rc, False

    def close(self) -> None:
        pass


# ------------------------------------------------------------------------------------------------
# what a finished run looks like
def final_state(out: Path, trainer: str = "ppo") -> dict:
    """Everything a finished run must agree on with the uninterrupted run (timings excluded): the
    weights and Adam state (AlphaZero: also the best network and the replay buffer file's bytes),
    the counters, the files the checkpoint lists (PPO: the pool; AlphaZero: the buffer file) and
    those present, model.pt against the checkpoint, the log's step sequence, ``.tmp-*`` leftovers."""
    import numpy as np
    import torch
    from agents.ppo import read_checkpoint

    az = trainer == "az"
    step = "iteration" if az else "update"
    ckpt = read_checkpoint(out / "checkpoint.pt")
    h = hashlib.sha256()
    for part in ("model", "best_model") if az else ("model",):
        for k, v in sorted(ckpt[part].items()):
            h.update((f"{part}.{k}" if az else k).encode())
            h.update(v.numpy().tobytes())
    for i, st in sorted(ckpt["optimizer"]["state"].items()):
        for k in ("exp_avg", "exp_avg_sq"):
            h.update(st[k].numpy().tobytes())
    if az:
        listed = [ckpt["buffer"]] if ckpt["buffer"] else []
        present = sorted(p.name for p in out.glob("buffer_i*.npz"))
        for name in listed:
            with np.load(out / name) as d:
                for k in sorted(d.files):
                    h.update(d[k].tobytes())
        c = ckpt["counters"]
        counters = [c["iteration"], c["games"], c["samples_trained"], c["best_iteration"]]
    else:
        listed = list(ckpt["pool"])
        present = sorted(p.name for p in (out / "pool").glob("*"))
        c = ckpt["counters"]
        counters = [c["update"], c["global_step"], c["decisions"], c["games"]]
    model = read_checkpoint(out / "model.pt")
    model_ok = all(torch.equal(model["model"][k], ckpt["model"][k]) for k in ckpt["model"])
    rows = [json.loads(ln) for ln in (out / "log.jsonl").read_text().splitlines() if ln.strip()]
    leftovers = sorted(str(p.relative_to(out)) for p in out.rglob(".tmp-*"))
    return {"weights": h.hexdigest()[:16], "counters": counters, "pool": listed, "pool_files": present,
            "model.pt": [model.get("counters", {}).get(step), model_ok],
            "log": [(r.get("kind", step), r[step]) for r in rows], "leftovers": leftovers}


def _problems(state: dict, reference: dict) -> list[str]:
    out = [f"{k}: {state[k]!r} != {reference[k]!r}" for k in reference if state[k] != reference[k]]
    if state["pool_files"] != sorted(state["pool"]):
        out.append(f"the run folder holds {state['pool_files']} but the checkpoint lists {state['pool']}")
    return out


# ------------------------------------------------------------------------------------------------
# the loop
class KillLoop:
    def __init__(self, workdir: Path, launcher, updates: int = 4, seed: int = 0, verbose: bool = False,
                 checkpoint_every: int = 2, pool_size: int = 2, trainer: str = "ppo"):
        if trainer not in ("ppo", "az"):
            raise ValueError(f"trainer must be 'ppo' or 'az' (got {trainer!r})")
        self.work = Path(workdir)
        self.launcher = launcher
        self.updates = updates
        self.trainer = trainer
        self.flags = (tiny_az_flags(updates, checkpoint_every) if trainer == "az" else
                      tiny_flags(updates, checkpoint_every, pool_size))
        self.rng = random.Random(seed)
        self.verbose = verbose
        self.kills = self.resumes = self.restarts = self.sessions = self.trials = 0
        self.failures: list[str] = []
        self.by_kind = {"random": 0, "write": 0}
        self._n = 0
        self._after_kill: dict = {}
        self.reference, self.run_seconds, self.write_points = self._reference()

    def _session(self, out: Path, env: dict | None = None, kill_after: float | None = None) -> bool:
        """One session; True if it finished the run, False if killed; a failure is recorded."""
        self._n += 1
        log = self.work / f"session_{self._n:05d}.log"
        argv = session_argv(out, self.flags, self.trainer)
        rc, killed = self.launcher.run(argv, env or {}, log, kill_after)
        self.sessions += 1
        if self._after_kill.get(out):
            if "--resume" in argv:
                self.resumes += 1
            else:
                self.restarts += 1           # killed before config.toml existed: nothing to resume
        self._after_kill[out] = killed or rc is None
        if killed or rc is None:
            self.kills += 1
            return False
        if rc != 0:
            text = log.read_text(errors="replace")[-2000:]
            self.failures.append(f"{out.name}: session {self._n} exited {rc}: {text.strip().splitlines()[-1:]}")
            if self.verbose:
                print(text, file=sys.stderr)
            return True
        return True

    def _reference(self):
        out = self.work / "reference"
        trace = self.work / "reference_trace.txt"
        t = time.perf_counter()
        rc, _ = self.launcher.run(session_argv(out, self.flags, self.trainer),
                                  {"CLANS_KILL_TRACE": str(trace), "CLANS_KILL_AT_WRITE": "0"},
                                  self.work / "reference.log", None)
        seconds = time.perf_counter() - t
        if rc != 0:
            raise RuntimeError(f"the uninterrupted run failed: {(self.work / 'reference.log').read_text()[-3000:]}")
        points = trace.read_text().splitlines()
        return final_state(out, self.trainer), seconds, points

    def _finish(self, out: Path) -> None:
        """Resume without kills until the run completes, then compare it with the reference."""
        for _ in range(5):
            if self._session(out):
                break
        else:
            self.failures.append(f"{out.name}: did not finish")
            return
        self._check(out)

    def _check(self, out: Path) -> None:
        try:
            state = final_state(out, self.trainer)
        except Exception as e:           # an unreadable final state is a failure too
            self.failures.append(f"{out.name}: final state unreadable: {type(e).__name__}: {e}")
            return
        self.failures.extend(f"{out.name}: {p}" for p in _problems(state, self.reference))
        shutil.rmtree(out, ignore_errors=True)

    def random_trial(self, max_kills: int = 6) -> None:
        self.trials += 1
        out = self.work / f"random_{self.trials:04d}"
        for _ in range(max_kills):
            if self.rng.random() > 0.75:
                break
            if self._session(out, kill_after=self.rng.uniform(0.0, self.run_seconds)):
                return self._check(out)          # it finished before the kill came
            self.by_kind["random"] += 1
        self._finish(out)

    def write_trial(self, n: int) -> None:
        """Kill the first session at write point ``n``; maybe the next one early in its resume."""
        self.trials += 1
        out = self.work / f"write_{n:04d}_{self.trials:04d}"
        if self._session(out, {"CLANS_KILL_AT_WRITE": str(n)}):
            self.failures.append(f"{out.name}: write point {n} was never reached")
            return self._check(out)
        self.by_kind["write"] += 1
        if self.rng.random() < 0.5:
            if not self._session(out, {"CLANS_KILL_AT_WRITE": str(self.rng.randint(1, 3))}):
                self.by_kind["write"] += 1
        self._finish(out)

    def summary(self) -> str:
        steps = "iterations" if self.trainer == "az" else "updates"
        lines = [f"trainer: {self.trainer}; uninterrupted run: {self.reference['counters'][0]} {steps}, {len(self.write_points)} write points, "
                 f"{self.run_seconds:.2f} s",
                 f"trials: {self.trials}  sessions: {self.sessions}",
                 f"kills: {self.kills} (at a write point: {self.by_kind['write']}, at a random moment: "
                 f"{self.by_kind['random']})",
                 f"resumes: {self.resumes} (sessions started with --resume after a kill; after {self.restarts} "
                 f"kills before config.toml existed the run was started afresh)",
                 f"failures: {len(self.failures)}"]
        lines += [f"  {f}" for f in self.failures[:20]]
        return "\n".join(lines)


def short_loop(workdir: Path, trainer: str, updates: int, checkpoint_every: int, seed: int, pool_size: int = 2,
               min_random: int = 4, max_random: int = 12, seconds: float = 35.0) -> KillLoop:
    """The tests' version of the loop: a kill at every write point of a tiny run, then at least
    ``min_random`` random-moment trials (more, up to ``max_random``, while ``seconds`` last)."""
    t0 = time.perf_counter()
    launcher = Launcher()
    try:
        loop = KillLoop(workdir, launcher, updates=updates, checkpoint_every=checkpoint_every, pool_size=pool_size,
                        seed=seed, trainer=trainer)
        for n in range(1, len(loop.write_points) + 1):
            loop.write_trial(n)
        random_trials = 0
        while random_trials < min_random or (time.perf_counter() - t0 < seconds and random_trials < max_random):
            loop.random_trial()
            random_trials += 1
    finally:
        launcher.close()
    print(loop.summary())
    return loop


def main(argv=None) -> int:
    if argv is None and sys.argv[1:] == ["--serve"]:
        _serve()
        return 0
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=2.0, help="wall time for the random-kill trials (default 2)")
    ap.add_argument("--updates", type=int, default=4, help="updates (AlphaZero: iterations) of the tiny run (default 4)")
    ap.add_argument("--trainer", choices=["ppo", "az"], default="ppo", help="which trainer to kill (default ppo)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--exec", action="store_true", help="a fresh interpreter per session instead of forks")
    ap.add_argument("--write-points", type=int, default=None,
                    help="kill at only the first N write points (default: every one)")
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="kill_resume_"))
    launcher = ExecLauncher() if args.exec else Launcher()
    t0 = time.perf_counter()
    try:
        loop = KillLoop(work, launcher, updates=args.updates, seed=args.seed, trainer=args.trainer)
        last = len(loop.write_points) if args.write_points is None else min(args.write_points,
                                                                            len(loop.write_points))
        for n in range(1, last + 1):                              # every write point once
            loop.write_trial(n)
        while time.perf_counter() - t0 < 60 * args.minutes:      # then random moments
            loop.random_trial()
        print(f"command: python benchmarks/kill_resume.py {' '.join(sys.argv[1:] if argv is None else argv)}")
        print(loop.summary())
        print(f"wall time: {time.perf_counter() - t0:.0f} s")
        return 1 if loop.failures else 0
    finally:
        launcher.close()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"work folder: {work}")


if __name__ == "__main__":
    sys.exit(main())
