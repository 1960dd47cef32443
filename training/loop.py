"""What the PPO and AlphaZero trainers share: the training schedule (progress bar, evaluation and
checkpoint cadence, budget stops, Ctrl-C), the log-line writer, and the crash test's write points.

A trainer mixes in ``TrainingLoop`` and answers its few questions (how far the run is, one step,
what the bar shows); the loop decides when to evaluate, when to checkpoint and what to do on an
interrupt, the same way for both, so a crash-safety fix lands in one place.

Crash test hook: with ``CLANS_KILL_AT_WRITE=N`` in the environment the process SIGKILLs itself at
the N-th write point (1-based): inside a temporary file before its rename, after each rename,
halfway through a log line, after each deletion. Used by ``tests/test_ppo_kill_resume.py``,
``tests/test_az.py`` and ``benchmarks/kill_resume.py``; ``CLANS_KILL_TRACE=FILE`` appends the
label of every point passed.
"""
from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

from clans_env.engine.game import atomic_write_text

from .progress import Progress

#: the files of a run folder, the same for both trainers
CHECKPOINT_NAME = "checkpoint.pt"
MODEL_NAME = "model.pt"
LOG_NAME = "log.jsonl"
CONFIG_NAME = "config.toml"
POOL_DIR = "pool"
TMP_PREFIX = ".tmp-"          # the prefix atomic_write gives its temporary files

_write_points = 0


def write_point(label: str) -> None:
    """One point at which the crash test may kill this process (see the module docstring)."""
    global _write_points
    _write_points += 1
    trace = os.environ.get("CLANS_KILL_TRACE")
    if trace:
        with open(trace, "a", encoding="utf-8") as fh:
            fh.write(f"{_write_points} {label}\n")
    at = os.environ.get("CLANS_KILL_AT_WRITE")
    if at and int(at) == _write_points:
        os.kill(os.getpid(), signal.SIGKILL)


def append_log_line(path: Path, row: dict) -> None:
    """Append ``row`` as one JSON line. Under the crash test a kill may land halfway through the
    line; resuming drops a torn last line (each trainer's ``_restore``)."""
    line = json.dumps(row) + "\n"
    with open(path, "a", encoding="utf-8") as fh:
        if os.environ.get("CLANS_KILL_AT_WRITE"):
            fh.write(line[:len(line) // 2])
            fh.flush()
            write_point(f"halfway through a {path.name} line")
            fh.write(line[len(line) // 2:])
        else:
            fh.write(line)
    write_point(f"after a {path.name} line")


def remove_leftovers(out_dir) -> list[str]:
    """Delete the ``.tmp-*`` files a killed write left in a run folder (and its pool/); returns
    their names."""
    out = Path(out_dir)
    removed = []
    for folder in (out, out / POOL_DIR):
        if not folder.is_dir():
            continue
        for f in folder.iterdir():
            if f.name.startswith(TMP_PREFIX) and f.is_file():
                try:
                    f.unlink()
                    removed.append(str(f.relative_to(out)))
                except FileNotFoundError:
                    pass
    return removed


def resume_overrides(config, overrides: dict | None, mutable) -> object:
    """``config`` with the ``overrides`` a resumed run may take: those that differ must all be among
    ``mutable`` (fields that do not change what the run computes), else ValueError names them."""
    overrides = {k: v for k, v in (overrides or {}).items() if v is not None and getattr(config, k) != v}
    fixed = sorted(k for k in overrides if k not in mutable)
    if fixed:
        raise ValueError(f"cannot change {fixed} when resuming (the run would no longer be the same run); "
                         f"fields that may change: {list(mutable)}")
    return config.replace(**overrides)


class TrainingLoop:
    """The schedule of a training run; ``PPOTrainer`` (steps = updates, progress in learner samples)
    and ``AZTrainer`` (steps = iterations) fill in the hooks below."""

    #: the word for one step, in the progress bar's description and the interrupt message
    step_name = "step"
    #: the progress bar's unit and label
    progress_unit = "steps"
    progress_desc = "train"
    progress: bool

    # ---- the hooks -----------------------------------------------------------------------------------
    def _steps_done(self) -> int:
        """Steps taken so far (what ``eval_every`` and ``checkpoint_every`` count)."""
        raise NotImplementedError

    def _progress_now_and_total(self) -> tuple[int, int]:
        """Where the run is and where it ends, in progress units."""
        raise NotImplementedError

    def _schedule(self) -> tuple[int, int]:
        """(eval_every, checkpoint_every), from the trainer's config."""
        return self.config.eval_every, self.config.checkpoint_every

    def _one_step(self, bar) -> dict:
        """Take one step (updating ``bar``, a ``training.progress.Progress``, as it goes) and return its log
        row."""
        raise NotImplementedError

    def _postfix(self, row: dict) -> dict:
        return {}

    def _mid_step(self) -> bool:
        """True while a step has changed state that its counters do not show yet (a checkpoint then
        would not be a consistent one)."""
        raise NotImplementedError

    def _last_saved(self):
        """The step count of the last checkpoint written (None: none yet)."""
        raise NotImplementedError

    def _stopped_by_budget(self, steps_here: int) -> dict | None:
        """Called when a step or time budget ends the session before the run's end; may evaluate
        (returns the evaluation) or do nothing (None)."""
        return None

    def _eval_and_log(self) -> dict:
        raise NotImplementedError

    def save(self):
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    # ---- the loop ------------------------------------------------------------------------------------
    def _open_run_folder(self, resume_ckpt, prune) -> None:
        """Make ``self.out`` ready: a resumed run drops the temporary files of the attempt that was
        killed and restores ``resume_ckpt``; a new run refuses a folder that holds a run, clears what
        an attempt killed before its first checkpoint left (``prune()`` its snapshots or buffers) and
        writes its config.toml first (a run is a function of its config, so that file is enough to
        start it again) and an empty log."""
        self.out.mkdir(parents=True, exist_ok=True)
        if resume_ckpt is not None:
            remove_leftovers(self.out)
            self._restore(resume_ckpt)
            return
        if (self.out / CHECKPOINT_NAME).exists():
            raise FileExistsError(f"{str(self.out)!r} already holds a run ({CHECKPOINT_NAME}); pass --resume to "
                                  f"continue it or choose another --out")
        remove_leftovers(self.out)
        prune()
        atomic_write_text(self.out / CONFIG_NAME, self.config.to_toml())
        write_point(f"after {CONFIG_NAME}")
        if (self.out / LOG_NAME).exists():
            (self.out / LOG_NAME).unlink()

    def _run_loop(self, max_steps: int | None = None, max_seconds: float | None = None) -> dict:
        """Step until the run's end (or ``max_steps`` more steps / ``max_seconds``), evaluating and
        checkpointing on schedule and at the end; on Ctrl-C write a checkpoint (unless mid-step)
        and re-raise. Returns the last evaluation."""
        start = time.perf_counter()
        steps_here = 0
        last_eval: dict = {}
        now, total = self._progress_now_and_total()
        bar = Progress(total, self.progress_desc, self.progress_unit, enabled=self.progress, initial=min(now, total))
        postfix: dict = {}
        eval_every, checkpoint_every = self._schedule()
        try:
            while self._progress_now_and_total()[0] < total:
                if max_steps is not None and steps_here >= max_steps:
                    break
                if max_seconds is not None and time.perf_counter() - start >= max_seconds:
                    break
                row = self._one_step(bar)
                steps_here += 1
                bar.update(min(self._progress_now_and_total()[0], total) - bar.n)
                postfix.update(self._postfix(row))
                done = self._steps_done()
                finished = self._progress_now_and_total()[0] >= total
                if done % eval_every == 0 or finished:
                    last_eval = self._eval_and_log()
                    for opp, res in last_eval.items():
                        postfix[f"vs_{opp.split(':')[0][:6]}"] = f"{res['win_rate']:.2f}"
                bar.set_text(", ".join(f"{k}={v}" for k, v in postfix.items()))
                if done % checkpoint_every == 0 or finished:
                    self.save()
            if steps_here and self._steps_done() % eval_every != 0 and self._progress_now_and_total()[0] < total:
                budget_eval = self._stopped_by_budget(steps_here)
                if budget_eval is not None:
                    last_eval = budget_eval
            if self._last_saved() != self._steps_done():
                self.save()
        except KeyboardInterrupt:
            if not self._mid_step():
                self.save()
                bar.write(f"interrupted: checkpoint written at {self.step_name} {self._steps_done()}; "
                          f"continue with --resume")
            raise
        finally:
            bar.close()
            self.close()
        return last_eval
