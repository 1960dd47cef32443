"""Tournaments (issue 5): schedules rotate seats, a tiny tournament runs end to end and writes
its files, results are reproducible from the seed whatever the worker count, replays replay."""
from __future__ import annotations

import csv
import json
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
