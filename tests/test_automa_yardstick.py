"""The Automa yardstick benchmark (issue 20, "As a yardstick"): a tiny run of benchmarks/automa_yardstick.py
and the markdown table docs/automa.md is made from."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def load_benchmark():
    spec = importlib.util.spec_from_file_location("automa_yardstick", ROOT / "benchmarks" / "automa_yardstick.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_cell_plays_seeded_games_with_the_seats_alternated_and_the_table_reports_them(tmp_path, capsys):
    yardstick = load_benchmark()
    low = yardstick.cell("random", 1, 2, seed=7, workers=1, progress=False)
    high = yardstick.cell("random", 5, 2, seed=7, workers=1, progress=False)
    assert low["games"] == 2 and low["failed"] == 0
    lo, hi = low["win_rate_ci95"]
    assert 0.0 <= lo <= low["win_rate"] <= hi <= 1.0
    # the Automa outscores random play, and level 5 starts richer and ends with more fixed Glory than level 1
    assert low["automa_mean_score"] > low["agent_mean_score"]
    assert high["automa_mean_score"] > low["automa_mean_score"]

    saved = tmp_path / "cells.json"
    saved.write_text(json.dumps({"cells": [low, high]}))
    assert yardstick.main(["--table", str(saved)]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0] == "| agent | games per level | L1 | L5 |"
    assert table[2].startswith("| `random` | 2 | ")
    assert table[-1].startswith("| the Automa's mean VP")
    assert f"{high['automa_mean_score']:.1f}" in table[-1]
