"""The engine and search speed benchmarks (issue 34) measure what they say: engine_speed's Industria row
plays full Industria games (``industria=True``: more decisions per game than the base game), and
mcts_speed's Industria row searches Industria positions with the configured simulations."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_engine_speed_times_base_and_industria_games():
    engine_speed = _load("engine_speed")
    base = engine_speed.measure(4, 2, 0)
    industria = engine_speed.measure(4, 2, 0, industria=True)
    for row in (base, industria):
        assert row["decisions"] > 100 and row["us_per_decision"] > 0 and row["clone_us"] > 0
        assert row["replay_us_per_decision"] > 0
    # the Industria games are other games: Farmers markets, Train decisions, Milestones
    assert industria["decisions_per_game"] != base["decisions_per_game"]


def test_mcts_speed_industria_row_searches_industria_positions(monkeypatch):
    mcts_speed = _load("mcts_speed")
    from agents import MCTSAgent

    seen = []
    act = MCTSAgent.act

    def spy(self, game):
        seen.append(game.config.industria)
        return act(self, game)

    monkeypatch.setattr(MCTSAgent, "act", spy)
    row = mcts_speed.measure_industria(positions=2, sims=4, reps=1)
    assert row["positions"] == 2 and row["sims"] == 4
    assert row["ours_random_sims_per_s"] > 0 and row["ours_shipped_sims_per_s"] > 0
    assert seen and all(seen)


def test_module_costs_switches_off_one_industria_module_at_a_time():
    """module_costs.py: each Industria configuration but the full one lacks exactly one module, and a
    module's share is (full Industria - Industria without it) / base."""
    module_costs = _load("module_costs")
    from clans_env import GameConfig
    from clans_env.engine.config import INDUSTRIA_MODULES

    configs = module_costs.configurations()
    full = set(GameConfig(num_players=2, industria=True).industria_modules)
    assert GameConfig(num_players=2, **configs["base game"]).industria_modules == ()
    assert set(GameConfig(num_players=2, **configs["industria"]).industria_modules) == full
    for name in INDUSTRIA_MODULES:
        options = configs[f"industria, {name}=False"]
        assert set(GameConfig(num_players=2, **options).industria_modules) == full - {name}
    medians = {name: 15.0 for name in configs}
    medians.update({"base game": 10.0, "industria, trains=False": 12.0})
    text = module_costs.report(2, medians)
    assert "x1.50 a base decision" in text
    trains = next(line for line in text.splitlines() if "trains=False" in line)
    assert trains.split()[-1] == "+0.30"


def test_cache_profile_counts_per_decision_of_the_games_alone(monkeypatch):
    """cache_profile.py: a figure per decision is (run that plays the games - run that only sets them up) /
    their decisions, so imports, warm-up games, first-use tables and setup drop out; the report gives
    Industria / base ratios."""
    cache_profile = _load("cache_profile")
    runs = {"False": ({"instructions": 1000, "I1 misses": 10, "D1 misses": 20, "LL misses": 5}, 0),
            "True": ({"instructions": 1800, "I1 misses": 30, "D1 misses": 60, "LL misses": 9}, 4)}
    # the call is play(players, games, warm, seed, options, played): the last argument says which run it is
    monkeypatch.setattr(cache_profile, "cachegrind_in",
                        lambda path, module, call, **kw: runs[call.rstrip(")").split(", ")[-1]])
    row = cache_profile.per_decision({}, 2, 4)
    assert row == {"instructions": 200, "I1 misses": 5, "D1 misses": 10, "LL misses": 1, "decisions": 4}
    doubled = {k: v * 2 for k, v in row.items()}
    text = cache_profile.report(2, row, doubled)
    assert text.splitlines()[1].split()[-1] == "2.00"
    # the cycle estimate: 0.4 * 200 + 12 * 5 + 12 * 10 + 200 * 1 = 460 a base decision, twice that doubled
    estimate = next(line for line in text.splitlines() if "estimated cycles" in line).split()
    assert estimate[-3:] == ["460", "920", "2.00"]
    shares = text.splitlines()[-1].split("):")[1]
    assert "instructions 17%" in shares and "LL misses 43%" in shares


def test_cache_profile_sets_up_the_same_games_in_both_runs(monkeypatch):
    """Setup stays out of the per-decision figure: the run that does not play still sets up every game (a
    base game builds a board for its random layout, about ten decisions' worth; counting it once made base
    and Industria decisions look alike)."""
    import clans_env
    cache_profile = _load("cache_profile")
    made = []
    real = clans_env.Game

    def counted(config):
        made.append((config.seed, config.industria))
        return real(config)

    monkeypatch.setattr(clans_env, "Game", counted)
    assert cache_profile.play(2, 2, 1, 900, {}, played=False) == 0
    without = list(made)
    made.clear()
    assert cache_profile.play(2, 2, 1, 900, {}, played=True) > 50
    assert made == without == [(cache_profile.WARM_SEEDS, False), (900, False), (901, False)]


def test_cache_profile_script_reads_a_game_count_under_valgrind():
    """One real cachegrind run, where valgrind is installed: the script's program plays the games asked."""
    import shutil
    if shutil.which("valgrind") is None:
        pytest.skip("valgrind is not installed")
    cache_profile = _load("cache_profile")
    counts, decisions = cache_profile.cachegrind_in(cache_profile.ROOT, "cache_profile", "play(2, 1, 0, 900, {})",
                                                    caches=True)
    assert decisions > 50 and counts["instructions"] > counts["I1 misses"] > 0


def test_engine_speed_times_clone_even_in_a_one_game_run():
    """A run too short to draw a mid-game snapshot (one game) still times clone, on a round-3 state (it
    failed on an empty list before)."""
    engine_speed = _load("engine_speed")
    for industria in (False, True):
        one = engine_speed.measure(1, 2, 100, industria=industria)
        assert one["clone_states"] >= 1 and one["clone_us"] > 0


@pytest.mark.parametrize("players", [2, 3])
def test_typed_state_probe_checks_the_same_train_action_as_the_engine(players):
    """typed_state_probe.py times a typed copy of the Train check against the engine's: the copy must answer
    as ``trains.can_take_train_action`` does at every main decision (R13.1-R13.8, R15.4 the Mini-train first),
    or the comparison would be about other work."""
    probe = _load("typed_state_probe")
    typed = probe.load_typed(str(BENCHMARKS / "typed_train_check.py"), "typed_train_check")
    from clans_env.engine.rules import trains as TR
    found = probe.positions(players, 6, 950 + players)
    answers = [TR.can_take_train_action(g, p) for g, p in found]
    assert [typed.can_take_train_action(probe.copy_position(typed, g, p), p) for g, p in found] == answers
    assert 100 < sum(answers) < len(answers) - 100


def test_check_costs_replays_the_same_games_with_the_checks_answered_from_a_record():
    """check_costs.py: the games replayed with a check answered from its record are the recorded games (a
    changed, missing or extra answer is an error, not a faster time), and the report gives each variant's
    time as a multiple of a base decision and what it saved."""
    check_costs = _load("check_costs")
    from clans_env.engine import COMPILED
    if COMPILED:
        pytest.skip("the checks are swapped as module attributes, which compiled code does not look up")
    sites = check_costs.check_sites("train")
    answers, digest = check_costs.record(sites, 2, 2, 700)
    assert answers and set(answers) == {True, False}
    seconds, decisions = check_costs.replay(sites, answers, 2, 2, 700, digest)
    assert seconds > 0 and decisions > 100
    flipped = [not a for a in answers]           # the Train action offered where it was not: other games
    for wrong in (flipped, answers[:-1], answers + [True]):
        with pytest.raises(RuntimeError, match="not the recorded ones"):
            check_costs.replay(sites, wrong, 2, 2, 700, digest)
    # the engine's own functions are back after each run
    from clans_env.engine.rules import trains
    assert trains.can_take_train_action is sites[0][0].can_take_train_action
    assert trains.can_take_train_action.__module__ == trains.__name__
    medians = check_costs.measure(2, 1, 700, ["claim+clans"], 1)
    assert set(medians) == {"base game", "industria", "claim+clans"}
    text = check_costs.report(2, {"base game": 10.0, "industria": 14.0, "train": 12.0})
    assert "x1.40 a base decision" in text
    assert text.splitlines()[-1].split() == ["train", "12.00", "1.20", "2.00"]
    with pytest.raises(ValueError, match="valid checks: train, claim, clans"):
        check_costs.check_sites("trains")


def test_check_costs_tracked_checks_run_where_what_they_read_changed(monkeypatch):
    """check_costs.py ``-tracked``: an answer comes from the record only where the check's state and answer are
    what they were at the player's previous call (a bound on change tracking); elsewhere the check runs. The
    replay plays the recorded games, and the saving is taken against the same replay running every check."""
    check_costs = _load("check_costs")
    from clans_env.engine import COMPILED
    if COMPILED:
        pytest.skip("the checks are swapped as module attributes, which compiled code does not look up")
    assert check_costs.check_sites("claim-tracked") == check_costs.check_sites("claim")
    with pytest.raises(ValueError, match="train-tracked, claim-tracked"):
        check_costs.check_sites("clans-tracked")
    sites = check_costs.check_sites("claim-tracked")
    tracked = [check_costs.tracked_state("claim-tracked")]
    answers, digest = check_costs.record(sites, 2, 3, 700, tracked)
    reusable = [r for _, r in answers]
    assert 0.1 < sum(reusable) / len(reusable) < 0.9
    # a reused answer is the one before it for that player (same arguments): never a first call
    plain, _ = check_costs.record(sites, 2, 3, 700)
    assert [a for a, _ in answers] == plain
    seconds, decisions = check_costs.replay(sites, answers, 2, 3, 700, digest, tracked=True)
    assert seconds > 0 and decisions > 100
    flipped = [(([] if a else [0]) if r else a, r) for a, r in answers]    # wrong where reused: other games
    with pytest.raises(RuntimeError, match="not the recorded ones"):
        check_costs.replay(sites, flipped, 2, 3, 700, digest, tracked=True)
    # where the state never changes, an answer is reused whenever it repeats: more often than with the state
    monkeypatch.setattr(check_costs, "_claim_state", lambda g, p: ())
    constant, _ = check_costs.record(sites, 2, 3, 700, [check_costs.tracked_state("claim-tracked")])
    assert sum(r for _, r in constant) > sum(reusable)
    reused: dict = {}
    medians = check_costs.measure(2, 1, 700, ["claim-tracked", "clans"], 1, reused)
    assert set(medians) == {"base game", "industria", "claim-tracked", "claim-tracked" + check_costs.ALWAYS_RUN,
                            "clans"}        # a plain check beside a tracked one replays its answers as they are
    assert 0 < reused["claim-tracked"] < 1
    text = check_costs.report(2, {"base game": 10.0, "industria": 14.0, "train-tracked": 13.5,
                                  "train-tracked" + check_costs.ALWAYS_RUN: 14.5}, reused={"train-tracked": 0.25})
    assert text.splitlines()[-1].split() == ["train-tracked", "13.00", "1.30", "1.00", "(from", "the", "record",
                                             "at", "25.0%", "of", "its", "calls)"]


def test_check_costs_input_reuse_counts_repeats_per_player(monkeypatch):
    """check_costs.input_reuse: the share of main decisions whose check inputs equal that player's at their
    previous main decision (inputs that never change: every main decision but each player's first; the
    real inputs: rarely)."""
    check_costs = _load("check_costs")
    real = check_costs.input_reuse(2, 2, 700)
    assert 0 <= real["train"] < 0.2 and 0 <= real["claim"] < 0.5
    monkeypatch.setattr(check_costs, "_train_inputs", lambda g, p: ())
    constant = check_costs.input_reuse(2, 2, 700)
    assert constant["claim"] == real["claim"]
    assert 0.95 < constant["train"] < 1          # two games x two players start without a previous decision
    text = check_costs.report(2, {"base game": 10.0, "industria": 14.0}, {"train": 0.021, "claim": 0.18})
    assert text.endswith("train check 2.1%, claim check 18.0%")


def test_az_speed_measures_three_ways_of_searching_and_keeps_each_best_round():
    """az_speed.py: simulations/s of one search at a time (batch-1 leaves, virtual-loss leaf batches) and of all
    searches stepped together, on the same positions; with several rounds each way's best round is kept."""
    pytest.importorskip("torch")
    az_speed = _load("az_speed")
    rows = az_speed.measure(az_speed.DEFAULT_MODEL, 2, 6, 2)
    assert list(rows) == ["sequential, batch-1 leaves", "sequential, leaf_batch=2", "2 searches together, leaf_batch=2"]
    for r in rows.values():
        assert r["sims_per_s"] > 0 and 0 < r["net_share"] < 1 and r["positions_per_pass"] >= 1
    assert rows["2 searches together, leaf_batch=2"]["positions_per_pass"] > 1     # the searches share passes
    slower = {k: dict(v, sims_per_s=v["sims_per_s"] / 2) for k, v in rows.items()}
    assert az_speed.best_of([slower, rows]) == rows
    text = az_speed.report(rows)
    assert len(text.splitlines()) == 3 and text.splitlines()[0].split("sims/s")[1].strip().startswith("(1.00 x)")
