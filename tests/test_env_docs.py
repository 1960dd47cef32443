"""Documentation of the environment (issue 4: "Document the table of action ranges in docs/";
the observation layout is documented): docs/action-space.md is generated from the code by
docs/make_action_table.py and must match it."""
from __future__ import annotations

import importlib.util
from pathlib import Path

from clans_env.encoding import ObservationEncoder
from clans_env.engine import actions as A

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_action_space_doc_lists_every_section_with_its_indices():
    """Every action section appears with its index range and size, as in actions.SECTIONS."""
    text = (DOCS / "action-space.md").read_text(encoding="utf-8")
    assert f"**{A.NUM_ACTIONS} actions**" in text
    for name, start, size in A.SECTIONS:
        span = f"{start}" if size == 1 else f"{start}-{start + size - 1}"
        assert f"| `{name}` | {span} | {size} |" in text, f"section {name} is missing or stale: rerun " \
                                                         "python docs/make_action_table.py"


def test_action_space_doc_has_the_current_observation_layout():
    """The observation layout table in the docs is the encoder's layout (regenerate after changes)."""
    text = (DOCS / "action-space.md").read_text(encoding="utf-8")
    assert ObservationEncoder(2).markdown_table() in text, "stale layout: rerun python docs/make_action_table.py"
    for n in (1, 2, 3, 4):
        enc = ObservationEncoder(n)
        assert f"| {n} | {enc.size} | {enc.num_map_planes} |" in text


def test_generator_measures_section_use():
    """The generator records which sections each decision kind really uses (here: two games)."""
    spec = importlib.util.spec_from_file_location("make_action_table", DOCS / "make_action_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    seen = module.observed_sections(games=2)
    assert "trade" in seen["main"] and seen["place"] == {"space"}
