"""Standard ladder version 4 (issue 33): version 3 with the per-configuration PPO models rated by their own
version-3 ladder runs (docs/leaderboard/v3/*.json). docs/leaderboard.md, "Standard ladder version 4"."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from training import ladder as L

RESULTS = Path(__file__).resolve().parent.parent / "docs" / "leaderboard" / "v3"
MODELS = {"ppo-3p": ("3p", "ppo_3p"), "ppo-4p": ("4p", "ppo_4p"),
          "ppo-industria-2p": ("2p-industria", "ppo_industria_2p"),
          "ppo-industria-3p": ("3p-industria", "ppo_industria_3p"),
          "ppo-industria-4p": ("4p-industria", "ppo_industria_4p")}


def test_standard_v4_is_version_3_with_the_models_rated():
    v3, v4 = L.load_ladder("standard-v3"), L.load_ladder("standard-v4")
    assert v4.id == "standard-v4" and (v4.seed, v4.anchors, v4.formats) == (v3.seed, v3.anchors, v3.formats)
    assert [o.name for o in v4.opponents] == [o.name for o in v3.opponents]
    for old in v3.opponents:
        new = v4.opponent(old.name)
        assert (new.spec, new.formats, new.quick) == (old.spec, old.formats, old.quick)
        if old.name not in MODELS:
            assert new.ratings == old.ratings, old.name
    for name, (fmt, _) in MODELS.items():
        assert set(v4.opponent(name).ratings) == {fmt}


@pytest.mark.parametrize("name", list(MODELS))
def test_each_model_rating_is_its_published_version_3_result(name):
    """The number in the file is the published run's rating (rounded), on the model's own format, and the
    run is of that model."""
    fmt, folder = MODELS[name]
    result = json.loads((RESULTS / f"{folder}.json").read_text())
    assert result["ladder"]["id"] == "standard-v3"
    assert result["candidate"]["spec"] == f"ppo:path=models/{folder}/model.pt"
    assert L.load_ladder("standard-v4").opponent(name).spec == f"ppo:path={{root}}/models/{folder}/model.pt"
    assert L.load_ladder("standard-v4").opponent(name).ratings[fmt] == round(result["ratings_by_format"][fmt]["value"])
