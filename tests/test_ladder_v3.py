"""Standard ladder version 3 (issue 33): Industria and 3-player formats with the per-configuration PPO
models among the opponents; format variants (``2p-industria``) play their games with the format's
GameConfig options. docs/leaderboard.md, "Standard ladder version 3"."""
from __future__ import annotations

import json

import pytest

from training import ladder as L

NEW_FORMATS = {"3p": (3, {}), "2p-industria": (2, {"industria": True}), "3p-industria": (3, {"industria": True}),
               "4p-industria": (4, {"industria": True})}
MODELS = {"ppo-3p": "3p", "ppo-4p": "4p", "ppo-industria-2p": "2p-industria", "ppo-industria-3p": "3p-industria",
          "ppo-industria-4p": "4p-industria"}


def test_standard_v3_loads_and_keeps_version_2_where_it_overlaps():
    v2, v3 = L.load_ladder("standard-v2"), L.load_ladder("standard-v3")
    assert v3.id == "standard-v3" and v3.seed == v2.seed and v3.anchors == v2.anchors
    for key, (players, options) in NEW_FORMATS.items():
        assert (v3.formats[key].players, v3.formats[key].options) == (players, options)
    for key in ("2p", "4p"):                       # same games and deals as version 2
        assert v3.formats[key] == v2.formats[key] and v3.formats[key].seed_parts == (v2.formats[key].players,)
    for o in v2.opponents:                         # version 2's opponents keep their specs and ratings
        new = v3.opponent(o.name)
        assert new.spec == o.spec and {f: r for f, r in new.ratings.items() if f in o.formats} == o.ratings
        assert set(o.formats) <= set(new.formats)
    for name in ("random", "heuristic"):           # the anchors are rated in every format
        assert v3.opponent(name).ratings == {f: v3.anchors[name] for f in v3.formats}
    for name, fmt in MODELS.items():               # each new model: its own format, not calibrated yet
        o = v3.opponent(name)
        assert o.formats == (fmt,) and o.ratings == {} and o.quick
    seeds = {f.seed_parts for f in v3.formats.values()}
    assert len(seeds) == len(v3.formats)           # every format has its own deals


def test_quick_smoke_plays_the_industria_and_3_player_formats(tmp_path):
    """A --quick run of standard-v3 on the new formats (a few games each): the Industria format's games
    are Industria games (its model opponent, which refuses any other configuration, plays without a
    forfeit), and the candidate is rated against the anchors."""
    res = L.run_ladder("heuristic", "standard-v3", quick=True, formats=["2p-industria", "3p"], solo=False,
                       workers=1, progress=False, out_dir=tmp_path, max_games={"2p-industria": 6, "3p": 3})
    block = res.formats["2p-industria"]
    assert block["options"] == {"industria": True} and block["games"] == 6 and not block["failures"]
    rows = {o["name"]: o for o in block["opponents"]}      # one deal per lineup, from both seats
    assert [rows[n]["games"] for n in ("random", "heuristic", "ppo-industria-2p")] == [2, 2, 2]
    assert rows["ppo-industria-2p"]["forfeits"] == 0 and rows["ppo-industria-2p"]["rating"] is None
    tournament = json.loads((tmp_path / "2p-industria-quick" / "results.json").read_text())
    assert tournament["params"]["config"]["industria"] is True
    assert res.formats["3p"]["players"] == 3 and res.formats["3p"]["games"] == 3
    assert res.rating is not None and res.ladder["partial"]


@pytest.mark.parametrize("edit, message", [
    (lambda t: t.replace("options = { industria = true }   # every", "# every"), "needs options"),
    (lambda t: t.replace("[formats.3p]\n", "[formats.3p]\noptions = { industria = true }\n"), "needs the suffix"),
    (lambda t: t.replace("options = { industria = true }   # every", "options = { industria = true, num_players = 3 } #"),
     "other than num_players and seed"),
    (lambda t: t.replace("options = { industria = true }   # every", "options = { industriaa = true } #"),
     "not a valid game"),
    (lambda t: t.replace("[formats.2p-industria]", "[formats.2p_Industria]"), "variant by a suffix"),
])
def test_bad_format_variants_are_named(tmp_path, edit, message):
    text = L.ladder_path("standard-v3").read_text(encoding="utf-8")
    edited = edit(text)
    assert edited != text
    path = tmp_path / "v3.toml"
    path.write_text(edited, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        L.load_ladder(path)


def test_cli_formats_selects_a_format_by_its_key(tmp_path, capsys):
    """``clans ladder --formats 2p-industria``: a format by its key (``--players`` only takes player counts);
    a key the ladder lacks is named with the ladder's formats."""
    from clans_cli.main import main
    assert main(["ladder", "random", "--ladder", "standard-v3", "--formats", "2p-nope", "--no-solo",
                 "--out", str(tmp_path / "r"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "no format '2p-nope'" in err and "2p-industria" in err
