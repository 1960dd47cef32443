"""The benchmark ladder (training/ladder.py, clans ladder; docs/leaderboard.md): a tiny ladder end to
end, the anchored rating scale, the result JSON, and clear errors for bad ladder files and bad specs."""
from __future__ import annotations

import json
import math
import textwrap

import pytest

from training import ladder as L

TINY = """
[ladder]
name = "tiny"
version = 1
seed = 3
anchors = { random = 0, heuristic = 1000 }

[formats.2p]
players = 2
games = 2
quick_games = 2

[formats.4p]
players = 4
games = 4
quick_games = 4

[solo]
games = 2
quick_games = 1

[[opponent]]
name = "random"
spec = "random"
formats = ["2p", "4p"]
rating = { 2p = 0, 4p = 0 }
quick = true

[[opponent]]
name = "heuristic"
spec = "heuristic"
formats = ["2p", "4p"]
rating = { 2p = 1000, 4p = 1000 }
quick = true

[[opponent]]
name = "noisy"
spec = "heuristic:noise=3"
formats = ["2p", "4p"]
quick = true
"""


def write(tmp_path, text, name="ladder.toml"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return p


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    d = tmp_path_factory.mktemp("ladder")
    path = write(d, TINY)
    res = L.run_ladder("random", str(path), workers=1, out_dir=d / "out", progress=False)
    return path, d / "out", res


# ------------------------------------------------------------------------------------------------
# the ladder on a tiny definition
def test_tiny_ladder_plays_every_format_and_solo(tiny_run):
    path, out, res = tiny_run
    assert res.ladder["id"] == "tiny-v1" and res.candidate["spec"] == "random"
    two, four = res.formats["2p"], res.formats["4p"]
    # 2p: a gauntlet, 2 games (one deal from both seats) against each of the 3 opponents
    assert two["games"] == 6 and [r["games"] for r in two["opponents"]] == [2, 2, 2]
    # 4p: the one lineup of 3 opponents in its 4 seatings; each game gives 3 pairs
    assert four["games"] == 4 and [r["games"] for r in four["opponents"]] == [4, 4, 4]
    assert len(res.pairs) == 6 + 4 * 3
    # the candidate random never finishes ahead of heuristic
    assert next(r for r in two["opponents"] if r["name"] == "heuristic")["score"] == 0
    assert res.solo["games"] == 2 and res.solo["band_of_mean"] in ("Newbie", "Rookie", "Average", "Expert", "Genius!")
    # the uncalibrated opponent is played and reported but left out of the rating
    assert res.rating["pairs"] == 6 + 4 * 3 - 2 - 4
    assert any("noisy" in n for n in res.notes)
    lo, hi = res.rating["ci95"]
    assert lo <= res.rating["value"] <= hi
    assert (out / "ladder.json").is_file() and (out / "2p" / "results.json").is_file()


def test_tiny_ladder_is_reproducible(tiny_run, tmp_path):
    path, _, res = tiny_run
    again = L.run_ladder("random", str(path), formats=["2p"], solo=False, workers=2, progress=False)
    assert again.pairs == [p for p in res.pairs if p[0] == "2p"]
    assert again.formats["2p"]["opponents"] == res.formats["2p"]["opponents"]
    assert again.ratings_by_format["2p"] == res.ratings_by_format["2p"]


def test_result_json_round_trip(tiny_run, tmp_path):
    _, out, res = tiny_run
    loaded = L.LadderResult.load(out / "ladder.json")
    assert loaded == res
    doc = json.loads((out / "ladder.json").read_text())
    for key in ("ladder", "candidate", "package", "rating", "formats", "solo", "pairs"):
        assert key in doc
    assert doc["format"] == "clans-ladder-result" and doc["package"]["name"] == "clans-env"
    assert doc["ladder"]["version"] == 1 and len(doc["ladder"]["sha256"]) == 64
    assert L.LadderResult.from_dict(json.loads(json.dumps(res.to_dict()))) == res
    with pytest.raises(ValueError, match="not a ladder result"):
        L.LadderResult.from_dict({"format": "clans-of-caledonia-replay"})
    broken = res.to_dict()
    del broken["pairs"]
    with pytest.raises(ValueError, match="lacks pairs"):
        L.LadderResult.from_dict(broken)


def test_rerate_uses_new_fixed_ratings_without_replaying(tiny_run, tmp_path):
    _, _, res = tiny_run
    calibrated = write(tmp_path, TINY.replace('spec = "heuristic:noise=3"\nformats = ["2p", "4p"]',
                                              'spec = "heuristic:noise=3"\nformats = ["2p", "4p"]\n'
                                              'rating = { 2p = 800, 4p = 800 }'))
    lad = L.load_ladder(calibrated)
    new = L.rerate(res, lad)
    assert new.rating["pairs"] == len(res.pairs) and new.pairs == res.pairs
    assert not any("noisy" in n for n in new.notes)
    assert new.ladder["sha256"] == lad.sha256 != res.ladder["sha256"]


def test_max_games_marks_the_result_partial(tiny_run):
    path, _, _ = tiny_run
    res = L.run_ladder("random", str(path), formats=["2p"], solo=False, workers=1, progress=False, max_games=2)
    assert res.formats["2p"]["games"] == 2 and res.ladder["partial"] == {"2p": "2 of 6 games"}
    assert any(n.startswith("partial: 2p") for n in res.notes)
    res = L.run_ladder("random", str(path), solo=False, workers=1, progress=False, max_games={"2p": 4})
    assert res.formats["2p"]["games"] == 4 and res.formats["4p"]["games"] == 4
    assert res.ladder["partial"] == {"2p": "4 of 6 games"}


def test_forfeits_count_as_losses(tmp_path):
    bot = tmp_path / "crashbot.py"
    bot.write_text("from agents import Agent\n\nclass Crash(Agent):\n    def act(self, game):\n"
                   "        raise RuntimeError('boom')\n")
    path = write(tmp_path, TINY)
    res = L.run_ladder(f"{bot}:Crash", str(path), formats=["2p"], solo=False, workers=1, progress=False)
    b = res.formats["2p"]
    assert b["forfeits"] == 6 and b["games"] == 6
    assert all(y == 0.0 for *_, y in res.pairs) and len(res.pairs) == 6
    assert res.rating["bound"] == "upper"          # behind everyone in every game: an upper bound


# ------------------------------------------------------------------------------------------------
# the anchored scale
def test_standard_ladder_anchors_random_zero_heuristic_1000():
    lad = L.load_ladder()
    assert lad.id == "standard-v1" and lad.anchors == {"random": 0.0, "heuristic": 1000.0}
    for f in lad.formats:
        assert lad.opponent("random").ratings[f] == 0.0
        assert lad.opponent("heuristic").ratings[f] == 1000.0
    assert set(lad.formats) == {"2p", "4p"} and lad.solo_games > 0


def test_rating_is_exact_at_the_anchors():
    # even results against random only: rating 0; against heuristic only: 1000 (the fixed numbers)
    assert L.fit_rating([0.0] * 10, [1, 0] * 5) == (pytest.approx(0.0, abs=1e-6), None)
    assert L.fit_rating([1000.0] * 8, [1, 0, 0.5, 0.5] * 2) == (pytest.approx(1000.0, abs=1e-6), None)
    # a 75% score against a 1000-rated opponent is 400*log10(3) = 190.8 above it (the Elo curve)
    r, _ = L.fit_rating([1000.0] * 4, [1, 1, 1, 0])
    assert r == pytest.approx(1000 + 400 * math.log10(3), abs=1e-6)
    # symmetric results around the anchors land in the middle
    r, _ = L.fit_rating([0.0, 1000.0] * 6, [1, 0] * 6)
    assert r == pytest.approx(500.0, abs=1e-6)


def test_only_wins_gives_the_one_sided_bound():
    opp = [0.0, 1000.0, 1000.0]
    r, bound = L.fit_rating(opp, [1, 1, 1])
    assert bound == "lower"
    p_all = math.prod(1 / (1 + 10 ** ((o - r) / 400)) for o in opp)
    assert p_all == pytest.approx(0.05, rel=1e-6)


def test_calibrate_pins_the_anchors_and_fits_the_rest(tiny_run):
    path, _, _ = tiny_run
    lad = L.load_ladder(path)
    # synthetic reference results: heuristic scores 1/4 against noisy, random 0 against it
    def result(spec, games):
        return L.LadderResult(ladder={"id": lad.id}, candidate={"spec": spec}, package={}, rating=None,
                              ratings_by_format={}, formats={}, solo=None, pairs=games)
    heur = result("heuristic", [["2p", "n", i, "noisy", 1.0 if i % 4 == 0 else 0.0] for i in range(40)]
                  + [["2p", "r", i, "random", 1.0] for i in range(40)])
    rand = result("random", [["2p", "n", i, "noisy", 0.0] for i in range(40)])
    cal = L.calibrate([heur, rand], lad)
    assert cal["2p"]["random"] == 0.0 and cal["2p"]["heuristic"] == 1000.0
    assert cal["2p"]["noisy"] == pytest.approx(1000 + 400 * math.log10(3), abs=5)
    assert cal["4p"] == {"random": 0.0, "heuristic": 1000.0}      # no 4-player data: anchors only


def test_bootstrap_interval_narrows_with_more_deals():
    lad = L.load_ladder()
    few = [["2p", "heuristic", d, "heuristic", float(d % 2)] for d in range(8)]
    many = [["2p", "heuristic", d, "heuristic", float(d % 2)] for d in range(200)]
    a, b = L.rate_pairs(few, lad, samples=300), L.rate_pairs(many, lad, samples=300)
    assert a["value"] == pytest.approx(1000, abs=1e-6) and b["value"] == pytest.approx(1000, abs=1e-6)
    assert (b["ci95"][1] - b["ci95"][0]) < 0.5 * (a["ci95"][1] - a["ci95"][0])


# ------------------------------------------------------------------------------------------------
# versioned definitions: a bad file names what is wrong
BAD = [
    (lambda t: t.replace("[ladder]", "[ladders]"), "unknown key 'ladders'"),
    (lambda t: t.replace("version = 1", 'version = "one"'), "version must be an integer"),
    (lambda t: t.replace("version = 1\n", ""), "missing key 'version'"),
    (lambda t: t.replace("heuristic = 1000 }", "heuristic = 900 }", 1), "anchor 'heuristic' must be rated 900"),
    (lambda t: t.replace('name = "noisy"', 'name = "random"'), "opponent 'random': the name is used twice"),
    (lambda t: t.replace('spec = "heuristic:noise=3"', 'spec = "muzero:sims=10"'),
     "opponent 'noisy': its spec 'muzero:sims=10' cannot be built here: unknown agent kind 'muzero'"),
    (lambda t: t.replace("[formats.4p]\nplayers = 4", "[formats.4p]\nplayers = 3"), "players must be 4"),
    (lambda t: t.replace('spec = "heuristic:noise=3"\nformats = ["2p", "4p"]',
                         'spec = "heuristic:noise=3"\nformats = ["3p"]'), "formats must list some of"),
    (lambda t: t.replace("games = 2\nquick_games = 2", "games = 0\nquick_games = 2"), "games must be an integer >= 1"),
    (lambda t: t + "\n[[opponent]]\nname = \"x\"\nspec = \"random\"\nformats = [\"2p\"]\nratting = { 2p = 3 }\n",
     "unknown key 'ratting'"),
    (lambda t: t.replace("[ladder]", "[ladder"), "not valid TOML"),
    (lambda t: t.replace('spec = "heuristic:noise=3"', 'spec = "ppo:path={root}/models/none/model.pt"'),
     "names the file"),
]


@pytest.mark.parametrize("edit,message", BAD, ids=[m for _, m in BAD])
def test_bad_ladder_file_names_the_problem(tmp_path, edit, message):
    path = write(tmp_path, edit(TINY))
    with pytest.raises(ValueError) as e:
        L.load_ladder(path)
    assert message in str(e.value) and str(path) in str(e.value)


def test_unknown_ladder_name_lists_the_shipped_ones():
    with pytest.raises(ValueError, match="standard-v1"):
        L.load_ladder("standard-v99")


# ------------------------------------------------------------------------------------------------
# bad specs and the command line
def test_bad_spec_is_named(tmp_path):
    path = write(tmp_path, TINY)
    with pytest.raises(ValueError, match="unknown agent kind 'foo'"):
        L.run_ladder("foo", str(path), progress=False)
    with pytest.raises(ValueError, match="unknown option 'simz'"):
        L.run_ladder("mcts:simz=3", str(path), progress=False)
    with pytest.raises(ValueError, match="no format '3p'"):
        L.run_ladder("random", str(path), formats=["3p"], progress=False)


def test_cli_bad_spec_and_list(capsys):
    from clans_cli.main import main
    assert main(["ladder", "foo", "--quick"]) == 2
    err = capsys.readouterr().err
    assert "unknown agent kind 'foo'" in err and "valid kinds" in err
    assert main(["ladder", "--list"]) == 0
    out = capsys.readouterr().out
    assert "standard-v1" in out and "mcts:sims=100" in out and "random = 0, heuristic = 1000" in out


def test_cli_runs_a_ladder_and_makes_a_leaderboard(tmp_path, capsys):
    from clans_cli.main import main
    path = write(tmp_path, TINY)
    out = tmp_path / "run"
    assert main(["ladder", "heuristic", "--ladder", str(path), "--players", "2", "--no-solo", "--workers", "1",
                 "--out", str(out), "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "rating on tiny-v1" in text and (out / "ladder.json").is_file()
    plot = tmp_path / "board.png"
    assert main(["ladder", "--leaderboard", str(out / "ladder.json"), "--plot", str(plot)]) == 0
    table = capsys.readouterr().out
    assert "| `heuristic` | tiny-v1 |" in table and plot.stat().st_size > 1000


def test_an_agent_that_cannot_play_solo_gets_the_error_not_a_crash(tmp_path):
    bot = tmp_path / "duobot.py"
    bot.write_text("from agents import RandomAgent\n\nclass Duo(RandomAgent):\n    def act(self, game):\n"
                   "        if game.num_players == 1:\n            raise ValueError('2-player policy')\n"
                   "        return super().act(game)\n")
    res = L.run_ladder(f"{bot}:Duo", str(write(tmp_path, TINY)), formats=[], workers=1, progress=False)
    assert res.solo["games"] == 0 and "2-player policy" in res.solo["error"] and res.rating is None


# ------------------------------------------------------------------------------------------------
# the published results (docs/leaderboard.md) stay true to the shipped ladder
def _close(a, b, rel: float = 1e-9) -> bool:
    """Equal structures whose floats agree to ``rel`` (everything else exactly)."""
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, (int, float)) and isinstance(b, (int, float)) and math.isclose(a, b, rel_tol=rel, abs_tol=1e-12)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_close(a[k], b[k], rel) for k in a)
    if isinstance(a, (list, tuple)):
        return isinstance(b, (list, tuple)) and len(a) == len(b) and all(_close(x, y, rel) for x, y in zip(a, b))
    return a == b


def test_published_results_are_on_the_shipped_ladder_and_in_the_doc():
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    lad = L.load_ladder()
    files = sorted((root / "docs" / "leaderboard").glob("*.json"))
    assert files
    results = [L.LadderResult.load(f) for f in files]
    for f, r in zip(files, results):
        # a published ladder file never changes: editing standard-v1.toml needs a new version
        assert r.ladder["id"] == lad.id and r.ladder["sha256"] == lad.sha256, \
            f"{f.name} was rated on another {lad.id} file: make a new ladder version instead of editing it"
        # its rating is the fit of its own games (to float rounding: numpy's summation order
        # differs between versions and CPUs in the last bits)
        assert _close(r.rating, L.rerate(r, lad).rating), f"{f.name}'s rating is not the fit of its games"
    doc = (root / "docs" / "leaderboard.md").read_text(encoding="utf-8")
    assert L.leaderboard_markdown(results) in doc, "docs/leaderboard.md's table is stale: regenerate it"


def test_standard_v2_has_the_automa_levels_and_a_ladder_plays_an_automa_seat(tmp_path):
    """Issue 20: the ladder includes the Automa at levels 1, 3 and 5 (standard-v2); an Automa opponent
    is a seat of the game, played and reported (unrated opponents are left out of the rating)."""
    lad = L.load_ladder("standard-v2")
    automa = {o.name: o.spec for o in lad.opponents if o.spec.startswith("automa:")}
    assert automa == {"automa-1": "automa:level=1", "automa-3": "automa:level=3", "automa-5": "automa:level=5"}
    text = TINY.replace('spec = "heuristic:noise=3"', 'spec = "automa:level=1"').replace('name = "noisy"', 'name = "automa-1"')
    res = L.run_ladder("heuristic", str(write(tmp_path, text)), formats=["2p"], solo=False, progress=False)
    rows = {o["name"]: o for o in res.formats["2p"]["opponents"]}
    assert rows["automa-1"]["games"] == 2 and rows["automa-1"]["rating"] is None
    assert rows["automa-1"]["opponent_mean_vp"] > 0
    assert any("automa-1" in note for note in res.notes)


def test_calibrate_knows_a_model_opponent_by_its_file(monkeypatch):
    """A reference model run as a candidate from the project folder (``ppo:path=models/...``, as the
    README's commands write it) is the ladder's ``ppo:path={root}/models/...`` opponent, so calibration
    fits it; another file is another agent."""
    lad = L.load_ladder("standard-v3")
    monkeypatch.chdir(L.ROOT)

    def result(spec):
        pairs = ([["2p-industria", "h", i, "heuristic", 1.0 if i % 4 else 0.0] for i in range(40)]
                 + [["2p-industria", "r", i, "random", 1.0] for i in range(40)])
        return L.LadderResult(ladder={"id": lad.id}, candidate={"spec": spec}, package={}, rating=None,
                              ratings_by_format={}, formats={}, solo=None, pairs=pairs)
    cal = L.calibrate([result("ppo:path=models/ppo_industria_2p/model.pt")], lad)
    assert cal["2p-industria"]["ppo-industria-2p"] == pytest.approx(1000 + 400 * math.log10(3), abs=10)
    assert L.same_agent_key("ppo:path=./models/ppo_3p/model.pt") == L.same_agent_key(
        "ppo:path={root}/models/ppo_3p/model.pt")
    other = L.calibrate([result("ppo:path=models/ppo_3p/model.pt")], lad)
    assert "ppo-industria-2p" not in other["2p-industria"]
