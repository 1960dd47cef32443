"""Progress displays where the output is not a terminal (a first-hour stumble: piped to a file or
run in CI, the rich bar of a tournament came out once, at the end, squashed to ``eta 0:00:…``).
There ``training.progress.Progress``, the one progress display of the project, prints a plain line
every few seconds instead; on a terminal it is a tqdm bar."""
from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

from training import progress as P
from training.tournament import run_tournament

ROOT = Path(__file__).resolve().parent.parent


class FakeClock:
    def __init__(self):
        self.now = 1000.0

    def monotonic(self):
        return self.now


@pytest.fixture
def clock(monkeypatch):
    fake = FakeClock()
    monkeypatch.setattr(P, "time", fake)
    return fake


def test_plain_lines_every_few_seconds_where_the_output_is_not_a_terminal(clock):
    out = io.StringIO()
    with P.Progress(40, "tournament", "games", file=out) as bar:
        assert bar.plain and P.PLAIN_EVERY == 10
        bar.update()
        clock.now += 3
        bar.update(text="leader: random (1 wins)")
        assert out.getvalue() == ""                          # nothing before PLAIN_EVERY seconds
        for _ in range(10):                                  # a game every 3 s up to 33 s
            clock.now += 3
            bar.update(text="leader: heuristic (5 wins)")
        clock.now += 2
    assert "\r" not in out.getvalue() and "…" not in out.getvalue()
    assert out.getvalue().splitlines() == [
        "tournament: 5/40 games, 0:00:12 elapsed, eta 0:01:24, leader: heuristic (5 wins)",
        "tournament: 9/40 games, 0:00:24 elapsed, eta 0:01:22, leader: heuristic (5 wins)",
        "tournament: 12/40 games, 0:00:35 elapsed, eta 0:01:21, leader: heuristic (5 wins)",   # on closing
    ]


def test_the_closing_line_and_the_options(clock):
    out = io.StringIO()
    with P.Progress(3, "solo games", "games", file=out) as bar:
        for _ in range(3):
            clock.now += 1
            bar.update()
    assert out.getvalue() == "solo games: 3/3 games, 0:00:03 elapsed\n"     # finished: no eta
    resumed = io.StringIO()
    with P.Progress(100, "ppo", "steps", initial=40, file=resumed, every=0) as bar:
        clock.now += 10
        bar.update(20)
        bar.set_text("upd=3, sps=2")
    assert resumed.getvalue().splitlines() == [                 # the eta counts this session's rate only
        "ppo: 60/100 steps, 0:00:10 elapsed, eta 0:00:20", "ppo: 60/100 steps, 0:00:10 elapsed, eta 0:00:20, upd=3, sps=2"]
    for quiet in (P.Progress(5, "self-play 1", "games", file=io.StringIO(), leave=False),
                  P.Progress(5, "x", file=io.StringIO(), enabled=False)):
        with quiet as bar:
            bar.update(5)
        assert quiet.file.getvalue() == "" and quiet.n == 5
    off = io.StringIO()
    P.Progress(5, "x", file=off, enabled=False).write("interrupted: ...")
    assert off.getvalue() == "interrupted: ...\n"


def test_a_tournament_with_its_output_captured_prints_plain_lines(capsys):
    run_tournament(["random", "random"], games_per_pairing=2, seed=1, workers=1, progress=True)
    captured = capsys.readouterr()
    assert re.search(r"^tournament: 2/2 games, \d:\d\d:\d\d elapsed, leader: random", captured.err, re.M), captured.err
    assert "\r" not in captured.err and "…" not in captured.err + captured.out
    assert "tournament" not in captured.out


def test_clans_tournament_piped(tmp_path):
    """The command itself with stdout and stderr going to pipes."""
    run = subprocess.run([sys.executable, "-m", "clans_cli.main", "tournament", "random", "random", "--workers", "1",
                          "--out", str(tmp_path / "t")], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert re.search(r"^tournament: 2/2 games, \d:\d\d:\d\d elapsed, leader: random", run.stderr, re.M), run.stderr
    assert "eta 0:00:…" not in run.stdout + run.stderr and "\r" not in run.stderr


def test_every_progress_display_goes_through_the_one_helper():
    """No other module draws its own bar (tqdm, rich.progress): they all use training.progress."""
    own = re.compile(r"^\s*(from tqdm|import tqdm|from rich\.progress)", re.M)
    offenders = []
    for folder in ("training", "clans_cli", "agents", "benchmarks", "docs", "examples", "clans_env"):
        for path in (ROOT / folder).rglob("*.py"):
            if path == ROOT / "training" / "progress.py" or path.name == "kill_resume.py":
                continue                   # kill_resume only preloads tqdm before it forks trainers
            if own.search(path.read_text(encoding="utf-8")):
                offenders.append(str(path.relative_to(ROOT)))
    assert not offenders, offenders
