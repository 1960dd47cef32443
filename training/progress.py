"""The one progress display of every long job: tournaments, benchmarks and the ladder (games), the
PPO and AlphaZero trainers (learner steps, iterations, self-play games).

On a terminal it is a tqdm bar. Where the output is not a terminal (a pipe, a log file, CI) a bar
can only redraw itself with carriage returns, which a log keeps as one long line, and a fixed width
squashes its columns (``eta 0:00:…``); there ``Progress`` prints a plain line every ``PLAIN_EVERY``
seconds instead, and one when it closes::

    tournament: 12/40 games, 0:00:35 elapsed, eta 0:01:30, leader: heuristic (5 wins)

A Jupyter kernel's output is not a terminal either but is drawn live: there it stays a tqdm bar
(``tqdm.auto``: the notebook widget where ipywidgets is installed).
"""
from __future__ import annotations

import sys
import time

from tqdm import tqdm
from tqdm.auto import tqdm as live_tqdm

#: seconds between two plain progress lines where the output is not a terminal
PLAIN_EVERY = 10.0


def _drawn_live(stream) -> bool:
    """True where a bar can redraw itself: a terminal, or a Jupyter kernel's output."""
    try:
        if stream.isatty():
            return True
    except (AttributeError, ValueError):       # no isatty, or a closed stream
        return False
    return type(stream).__module__.startswith("ipykernel")


def clock(seconds: float) -> str:
    """``h:mm:ss``."""
    h, rest = divmod(int(max(0.0, seconds)), 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}"


class Progress:
    """Progress of ``total`` units (``n`` done so far, from ``initial``), labelled ``label``.

    ``update(k, text)`` adds ``k`` units and sets the text shown after the counts (e.g. the
    current leader); ``set_text`` sets that text alone; ``write`` prints a line above the bar;
    ``close`` (or leaving a ``with`` block) ends it. ``enabled=False`` shows nothing.
    ``leave=False``: a bar inside another (one iteration's self-play games) that leaves no line
    behind. ``file``: where it goes (default ``sys.stderr``)."""

    def __init__(self, total: int, label: str, unit: str = "", *, enabled: bool = True, initial: int = 0,
                 leave: bool = True, file=None, every: float = PLAIN_EVERY):
        self.total, self.label, self.unit = total, label, unit
        self.n = initial
        self.enabled, self.leave, self.every = enabled, leave, every
        self.file = file if file is not None else sys.stderr
        self.text = ""
        self._bar = None
        self._closed = False
        if enabled and _drawn_live(self.file):
            self._bar = live_tqdm(total=total, initial=initial, desc=label, unit=unit or "it", leave=leave,
                             dynamic_ncols=True, file=self.file)
        self._start = self._last_line = time.monotonic()
        self._start_n = initial
        self._lined = None                       # (n, text) of the last plain line

    @property
    def plain(self) -> bool:
        """True when this shows plain lines (enabled, output not drawn live)."""
        return self.enabled and self._bar is None

    def update(self, k: int = 1, text: str | None = None) -> None:
        self.n += k
        if text is not None:
            self.set_text(text, refresh=False)
        if self._bar is not None:
            self._bar.update(k)
        elif self.plain:
            now = time.monotonic()
            if now - self._last_line >= self.every:
                self._line(now)

    def set_text(self, text: str, refresh: bool = True) -> None:
        self.text = text
        if self._bar is not None:
            self._bar.set_postfix_str(text, refresh=refresh)

    def write(self, text: str) -> None:
        """A line above the bar (shown even when the bar is disabled)."""
        if self._bar is not None:
            self._bar.write(text, file=self.file)
        else:
            print(text, file=self.file, flush=True)

    def line(self, now: float | None = None) -> str:
        """The plain progress line."""
        now = time.monotonic() if now is None else now
        elapsed = now - self._start
        parts = [f"{self.label}: {self.n}/{self.total}{' ' + self.unit if self.unit else ''}",
                 f"{clock(elapsed)} elapsed"]
        done_here = self.n - self._start_n
        if 0 < done_here and self.n < self.total:
            parts.append(f"eta {clock(elapsed / done_here * (self.total - self.n))}")
        if self.text:
            parts.append(self.text)
        return ", ".join(parts)

    def _line(self, now: float) -> None:
        print(self.line(now), file=self.file, flush=True)
        self._last_line = now
        self._lined = (self.n, self.text)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._bar is not None:
            self._bar.close()
        elif self.plain and self.leave and self._lined != (self.n, self.text):
            self._line(time.monotonic())          # where it ended (finished or interrupted)

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> bool:
        self.close()
        return False


def say(text: str) -> None:
    """A line on stderr, above any progress bar on the terminal."""
    tqdm.write(text, file=sys.stderr)
