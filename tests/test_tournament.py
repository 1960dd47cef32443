"""Tournaments (issue 5): schedules rotate seats, a tiny tournament runs end to end and writes
its files, results are reproducible from the seed whatever the worker count, replays replay."""
from __future__ import annotations

import csv
import json
import re
from collections import Counter

import pytest

from clans_env import Game
from training.ratings import RatingTable, mean_interval, wilson_interval
from training.tournament import run_tournament, schedule, unique_names, win_shares

TINY = ["random", "heuristic", "mcts:sims=5"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = tmp_path_factory.mktemp("tournament")
    return run_tournament(TINY, num_players=2, games_per_pairing=2, seed=3, workers=2, out_dir=out,
                          progress=False), out


def test_round_robin_rotates_every_agent_through_every_seat():
    """Issue 5: seats rotated so every agent plays every position, on the same deal."""
    for n, agents in ((2, 3), (3, 4), (4, 4)):
        plan = schedule(agents, n, "round-robin", games_per_pairing=n)
        seats = Counter((a, seat) for _, lineup in plan for seat, a in enumerate(lineup))
        assert len(set(seats.values())) == 1 and len(seats) == agents * n
        by_deal: dict = {}
        for deal, lineup in plan:
            by_deal.setdefault(deal, []).append(lineup)
        for lineups in by_deal.values():          # one deal = one lineup in all cyclic seatings
            assert len(lineups) == n and all(sorted(x) == sorted(lineups[0]) for x in lineups)


def test_gauntlet_puts_the_challenger_in_every_game():
    plan = schedule(4, 2, "gauntlet", games_per_pairing=4)
    assert all(0 in lineup for _, lineup in plan)
    assert Counter(frozenset(lineup) for _, lineup in plan) == {frozenset({0, k}): 4 for k in (1, 2, 3)}
    with pytest.raises(ValueError, match="round-robin"):
        schedule(3, 2, "swiss", 2)
    with pytest.raises(ValueError, match="at least"):
        schedule(2, 3, "round-robin", 3)


def test_tiny_tournament_runs_and_writes_results(tiny):
    """Issue 5 (Tests): a tiny tournament runs in the suite: table rows, JSON, CSV, the ratings
    plot and one replay file per game."""
    result, out = tiny
    assert len(result.games) == 6                       # 3 pairings x 2 seatings
    assert {s["agent"] for s in result.standings} == set(TINY)
    for s in result.standings:
        lo, hi = s["win_rate_ci95"]
        assert s["games"] == 4 and 0.0 <= lo <= s["win_rate"] <= hi <= 1.0
        assert s["mean_score_ci95"][0] <= s["mean_score"] <= s["mean_score_ci95"][1]
    assert sum(s["wins"] for s in result.standings) == pytest.approx(len(result.games))
    doc = json.loads((out / "results.json").read_text())
    assert doc["agents"] == TINY and len(doc["games"]) == 6 and set(doc["ratings"]) == set(TINY)
    rows = list(csv.DictReader((out / "standings.csv").open()))
    assert [r["agent"] for r in rows] == [s["agent"] for s in result.standings]
    assert len(list(csv.DictReader((out / "games.csv").open()))) == 12
    assert (out / "ratings.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(list((out / "replays").glob("game_*.json"))) == 6


def test_replay_files_replay_to_the_same_scores(tiny):
    """Replay files are game records (config + actions) that rebuild the exact game."""
    result, out = tiny
    for g in result.games:
        doc = json.loads(open(g.replay_path).read())
        replayed = Game.replay(doc["record"]["config"], doc["record"]["actions"])
        assert replayed.is_terminal()
        assert [r["total"] for r in replayed.final_scores()] == g.totals == [r["total"] for r in doc["final_scores"]]
        assert doc["agents"] == [dict(zip(result.agents, TINY))[n] for n in g.names]


def test_tournaments_are_reproducible_from_the_seed(tiny):
    """Issue 5 (Tests): tournaments are reproducible from their seed, with any worker count."""
    first, _ = tiny
    again = run_tournament(TINY, num_players=2, games_per_pairing=2, seed=3, workers=1, progress=False)

    def key(r):
        return [(g.game_seed, g.names, g.totals, g.ranks, g.num_actions) for g in r.games]
    assert key(again) == key(first)
    assert again.ratings == first.ratings
    other = run_tournament(TINY[:2], num_players=2, games_per_pairing=2, seed=4, workers=1, progress=False)
    assert other.games[0].game_seed != first.games[0].game_seed


def test_three_player_gauntlet_runs():
    r = run_tournament(["heuristic", "random", "random"], num_players=3, games_per_pairing=3, mode="gauntlet",
                       seed=1, workers=1, progress=False)
    assert len(r.games) == 3 and [s["agent"] for s in r.standings][0] == "heuristic"
    assert {s["agent"] for s in r.standings} == {"heuristic", "random", "random#2"}


def test_bad_input_fails_before_any_game():
    with pytest.raises(ValueError, match="valid kinds"):
        run_tournament(["random", "alphago"], progress=False)
    with pytest.raises(ValueError, match="num_players"):
        run_tournament(["random", "heuristic"], num_players=5, progress=False)


def test_statistics_helpers():
    """Win rates carry 95% Wilson intervals; shared first places split the win."""
    lo, hi = wilson_interval(95, 100)
    assert 0.88 < lo < 0.95 < hi < 0.99
    assert wilson_interval(0, 0) == (0.0, 1.0)
    m, mlo, mhi = mean_interval([1.0, 2.0, 3.0])
    assert mlo < m == 2.0 < mhi
    assert win_shares([1, 2]) == [1.0, 0.0] and win_shares([1, 1, 3]) == [0.5, 0.5, 0.0]
    assert unique_names(["a", "b", "a"]) == ["a", "b", "a#2"]
    t = RatingTable(["x", "y"])
    for _ in range(5):
        t.update(["x", "y"], [1, 2])
    assert t.table()["x"]["mu"] > t.table()["y"]["mu"] and t.win_probability("x", "y") > 0.5
    assert len(t.history) == 5


def test_cli_tournament(tmp_path, capsys):
    """``clans tournament`` prints the table and writes the files."""
    from clans_cli.main import main
    out = tmp_path / "t"
    assert main(["tournament", "random", "heuristic", "--games-per-pairing", "2", "--out", str(out), "--workers", "1",
                 "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "win rate" in text and "heuristic" in text
    assert (out / "results.json").exists() and (out / "ratings.png").exists()
    assert main(["tournament", "random"]) == 2
    assert main(["tournament", "random", "nonsense"]) == 2


def test_too_few_agents_for_the_players_says_how_to_seat_copies(tmp_path, capsys):
    """A first-hour stumble: `clans tournament random heuristic --players 3` said it needs 3 agents
    but not how to get them. The error names the way (an agent listed twice), and the command it
    suggests runs."""
    from clans_cli.main import main
    for mode in ("round-robin", "gauntlet"):
        assert main(["tournament", "random", "heuristic", "--players", "3", "--mode", mode]) == 2
        err = capsys.readouterr().err
        suggested = re.search(r"e\.g\. (clans tournament [^(\n]*?)(?: \(|$)", err.strip())
        assert suggested, err
        argv = suggested.group(1).split()[1:]
        assert argv[:4] == ["tournament", "random", "heuristic", "heuristic"] and "--players" in argv, argv
        assert main([*argv, "--max-games", "1", "--workers", "1", "--no-progress",
                     "--out", str(tmp_path / mode)]) == 0


def test_cli_benchmarks_print_games_and_intervals(capsys):
    """``clans benchmark strength`` / ``speed`` report games played and 95% intervals (tiny sizes)."""
    from clans_cli.main import main
    assert main(["benchmark", "strength", "--games", "2", "--mcts-games", "0", "--solo-games", "2",
                 "--solo-agents", "random", "--workers", "1"]) == 0
    text = capsys.readouterr().out
    assert "heuristic vs random: 2 games" in text and "95% CI" in text
    assert "solo random: 2 games" in text
    assert main(["benchmark", "strength", "--mcts", "mcts:bogus=1"]) == 2
    from training.benchmarks import speed
    r = speed(seconds=0.2)
    assert r["random_steps_per_s"] > 0 and r["mcts_sims_per_s"] > 0 and r["clone_in_steps"] > 0


# ------------------------------------------------------------------------------------------------
# issue 18: tournaments that lose everything
import os  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

from agents import registry  # noqa: E402
from agents.base import Agent  # noqa: E402


class _BadAgent(Agent):
    """Plays random moves, then misbehaves at its ``at``-th decision."""

    def __init__(self, mode: str, at: int = 3, seed=None):
        super().__init__(seed)
        self.mode, self.at, self.n = mode, at, 0

    def act(self, game):
        self.n += 1
        if self.n == self.at:
            if self.mode == "raise":
                raise RuntimeError("boom from the test agent")
            if self.mode == "illegal":
                return 10 ** 6
            if self.mode == "hang":
                time.sleep(3600)
            if self.mode == "hard_hang":              # the alarm cannot reach it: only a kill stops it
                signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
                time.sleep(3600)
            if self.mode == "exit":
                os._exit(3)
        legal = game.legal_actions()
        return legal[self.rng.randrange(len(legal))]


@pytest.fixture
def bad_agents(monkeypatch):
    """Agent kinds raiser, illegal, hanger, hard_hanger, exiter (worker processes are forked, so
    they know them too)."""
    for kind, mode in (("raiser", "raise"), ("illegal", "illegal"), ("hanger", "hang"), ("hard_hanger", "hard_hang"),
                       ("exiter", "exit")):
        monkeypatch.setitem(registry.KINDS, kind, registry.AgentKind(
            kind, f"test agent: {mode}", {"seed": (int, "seed")}, lambda mode=mode, **kw: _BadAgent(mode, **kw)))


def test_failing_agents_forfeit_their_games_and_the_rest_is_played(tmp_path, bad_agents):
    """Issue 18: an agent that raises, returns an illegal action or whose worker dies (os._exit)
    forfeits that game; the failure names the agent, the game, the error and the seeds; the other
    games are played and results.json / standings.csv / games.csv are written."""
    out = tmp_path / "t"
    specs = ["random", "random", "raiser", "illegal", "exiter"]
    result = run_tournament(specs, num_players=2, games_per_pairing=2, seed=5, workers=2, out_dir=out,
                            progress=False)
    assert len(result.games) == 20 and result.complete
    ok = [g for g in result.games if g.ok]
    assert [sorted(g.names) for g in ok] == [["random", "random#2"]] * 2
    assert len(result.failures) == 18
    kinds = {"raiser": "exception", "illegal": "illegal action", "exiter": "worker died"}
    for f in result.failures:
        assert f["agent"] in kinds and f["kind"] == kinds[f["agent"]]
        assert f["message"].startswith(f"game {f['game']} (game seed {f['game_seed']}")
        assert repr(f["agent"]) in f["message"] and f["seat"] is not None
        g = result.games[f["game"]]
        assert g.status == "failed" and g.names[f["seat"]] == f["agent"] and f["game_seed"] == g.game_seed
    by_agent = {f["agent"]: f for f in result.failures}
    assert "boom from the test agent" in by_agent["raiser"]["error"]
    assert "1000000" in by_agent["illegal"]["error"]
    assert "exit code 3" in by_agent["exiter"]["error"]
    standings = {s["agent"]: s for s in result.standings}
    assert standings["random"]["games"] == 2 and standings["raiser"]["games"] == 0
    assert sum(s["forfeits"] for s in result.standings) == 18
    doc = json.loads((out / "results.json").read_text())
    assert len(doc["failures"]) == 18 and doc["complete"] and doc["games_total"] == 20
    assert {r["agent"]: int(r["forfeits"]) for r in csv.DictReader((out / "standings.csv").open())}["random"] == 0
    rows = list(csv.DictReader((out / "games.csv").open()))
    assert sum(r["status"] == "forfeit" for r in rows) == 18 and sum(r["status"] == "ok" for r in rows) == 4
    # the recorded seeds reproduce the failure in this process
    from training.tournament import GameJob, run_job
    f = by_agent["raiser"]
    again = run_job(GameJob(index=f["game"], game_seed=f["game_seed"], specs=f["specs"],
                            names=result.games[f["game"]].names, agent_seeds=f["agent_seeds"],
                            config={"num_players": 2}, replay_path=None))
    assert again.failure["kind"] == "exception" and again.failure["seat"] == f["seat"]


def test_hanging_agents_forfeit_by_the_move_time_limit(tmp_path, bad_agents):
    """Issue 18: a hanging agent forfeits after the per-move time limit: by the alarm in this
    process and in a worker, and by the parent killing the worker when the alarm cannot reach it;
    the tournament goes on and ends."""
    t = time.perf_counter()
    r = run_tournament(["random", "hanger"], games_per_pairing=2, seed=1, workers=1, progress=False,
                       move_time_limit=0.3)
    assert [f["kind"] for f in r.failures] == ["timeout", "timeout"]
    assert all(f["agent"] == "hanger" and "0.3 s" in f["error"] for f in r.failures)
    r = run_tournament(["random", "hard_hanger", "random"], games_per_pairing=2, seed=1, workers=2,
                       progress=False, move_time_limit=0.3, out_dir=tmp_path / "h")
    assert len(r.failures) == 4 and all(f["agent"] == "hard_hanger" and f["kind"] == "timeout" for f in r.failures)
    assert all("worker killed" in f["error"] for f in r.failures)
    assert sum(g.ok for g in r.games) == 2 and (tmp_path / "h" / "standings.csv").exists()
    assert time.perf_counter() - t < 40


_INTERRUPTED = """
import sys
from training.tournament import run_tournament
run_tournament(["random", "heuristic", "random"], games_per_pairing=4, seed=9, workers=1, out_dir=sys.argv[1],
               progress=False)
"""


def test_results_are_written_as_games_finish_and_resume_completes_identically(tmp_path):
    """Issue 18: a tournament process SIGKILLed mid-schedule has already written the games it
    finished to results.json (and standings.csv); --resume plays only the missing games and
    ends with the results of an uninterrupted run with the same seed."""
    out = tmp_path / "t"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    p = subprocess.Popen([sys.executable, "-c", _INTERRUPTED, str(out)], env=env)
    deadline = time.time() + 120
    done = 0
    while time.time() < deadline and p.poll() is None:
        try:
            done = len(json.loads((out / "results.json").read_text())["games"])
        except (OSError, ValueError):
            done = 0
        if done >= 3:
            break
        time.sleep(0.05)
    p.send_signal(signal.SIGKILL)
    p.wait()
    doc = json.loads((out / "results.json").read_text())
    assert 3 <= len(doc["games"]) < 12 and not doc["complete"] and doc["games_total"] == 12
    assert (out / "standings.csv").exists()
    played = {g["index"] for g in doc["games"]}
    (out / ".tmp-123results.json").write_text("{")          # a write the kill interrupted
    resumed = run_tournament(["random", "heuristic", "random"], games_per_pairing=4, seed=9, workers=2, out_dir=out,
                             progress=False, resume=True)
    straight = run_tournament(["random", "heuristic", "random"], games_per_pairing=4, seed=9, workers=1,
                              progress=False)

    def key(r):
        return [(g.index, g.game_seed, g.names, g.totals, g.ranks, g.num_actions) for g in r.games]
    assert resumed.complete and key(resumed) == key(straight)
    assert resumed.ratings == straight.ratings
    strip = [{k: v for k, v in s.items() if k != "ms_per_decision"} for s in straight.standings]
    assert [{k: v for k, v in s.items() if k != "ms_per_decision"} for s in resumed.standings] == strip
    assert {g["index"] for g in json.loads((out / "results.json").read_text())["games"]} >= played
    assert not list(out.rglob(".tmp-*"))
    with pytest.raises(ValueError, match="another tournament.*seed"):
        run_tournament(["random", "heuristic", "random"], games_per_pairing=4, seed=10, out_dir=out, progress=False,
                       resume=True)
    with pytest.raises(ValueError, match="does not exist"):
        run_tournament(["random", "heuristic"], out_dir=tmp_path / "none", progress=False, resume=True)


def test_cli_tournament_with_a_failing_agent_and_resume(tmp_path, capsys, bad_agents):
    """The command names the failing agent and game, still writes the files (exit status 1), and
    --resume on a finished tournament plays nothing more."""
    from clans_cli.main import main
    out = tmp_path / "t"
    assert main(["tournament", "random", "raiser", "--games-per-pairing", "2", "--out", str(out), "--workers", "1",
                 "--no-progress", "--move-time-limit", "none"]) == 1
    captured = capsys.readouterr()
    assert "agent 'raiser' (seat" in captured.err and "game 0 (game seed" in captured.err
    assert "2 failed game(s)" in captured.out
    assert (out / "results.json").exists() and (out / "standings.csv").exists()
    before = (out / "results.json").read_text()
    assert main(["tournament", "random", "raiser", "--games-per-pairing", "2", "--out", str(out), "--workers", "1",
                 "--no-progress", "--resume"]) == 1
    assert json.loads(before)["games"] == json.loads((out / "results.json").read_text())["games"]
    assert main(["tournament", "random", "heuristic", "--out", str(out), "--resume", "--no-progress"]) == 2
    assert "another tournament" in capsys.readouterr().err


_ORPHANS = """
import sys
from training.tournament import run_tournament
run_tournament(["random", "random"], games_per_pairing=400, seed=5, workers=2, out_dir=sys.argv[1],
               progress=False)
"""


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry))
    return out


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads the process table from /proc")
def test_workers_end_when_the_tournament_process_is_killed(tmp_path):
    """A tournament killed with SIGKILL must not leave its worker processes behind: with the fork
    start method each worker held the parent's ends of the pipes, never saw EOF and waited for a
    job forever (re-parented, for good)."""
    out = tmp_path / "t"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    p = subprocess.Popen([sys.executable, "-c", _ORPHANS, str(out)], env=env)
    workers: list[int] = []
    try:
        deadline = time.time() + 60
        while time.time() < deadline and p.poll() is None:
            workers = _children(p.pid)
            if len(workers) >= 2 and (out / "results.json").exists():
                break
            time.sleep(0.05)
        assert len(workers) >= 2, "the tournament did not start its workers"
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
    deadline = time.time() + 5
    while time.time() < deadline and any(_running(w) for w in workers):
        time.sleep(0.05)
    alive = [w for w in workers if _running(w)]
    for w in alive:                                   # don't leave them to the next test
        os.kill(w, signal.SIGKILL)
    assert not alive, f"worker processes {alive} outlived their killed parent"


def test_resume_refuses_rows_that_contradict_their_replays(tmp_path):
    """An edited results.json (a game's totals and ranks changed, marked incomplete) must not
    give wrong standings on --resume: every kept row is checked against its replay, and the
    edited game is named. A row whose replay is gone is played again. An edited top-level seed is
    refused, not overwritten."""
    out = tmp_path / "t"
    kw = dict(games_per_pairing=2, seed=4, workers=1, progress=False)
    straight = run_tournament(["random", "random"], out_dir=out, **kw)
    path = out / "results.json"
    original = path.read_text()
    doc = json.loads(original)
    doc["complete"] = False
    doc["games"][1]["totals"], doc["games"][1]["ranks"] = [999, 0], [1, 2]
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="game 1's row does not match its replay.*totals"):
        run_tournament(["random", "random"], out_dir=out, resume=True, **kw)

    doc = json.loads(original)
    doc["seed"] = 77
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="seed is 77 but params.seed is 4"):
        run_tournament(["random", "random"], out_dir=out, resume=True, **kw)
    assert json.loads(path.read_text())["seed"] == 77          # refused, not overwritten

    doc = json.loads(original)
    doc["complete"] = False
    doc["games"][0]["totals"] = [999, 0]
    path.write_text(json.dumps(doc))
    (out / "replays" / "game_00000.json").unlink()
    resumed = run_tournament(["random", "random"], out_dir=out, resume=True, **kw)
    assert [g.totals for g in resumed.games] == [g.totals for g in straight.games]
