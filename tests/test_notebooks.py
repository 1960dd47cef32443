"""The tutorial notebooks (issue 7, "Notebooks"; issue 14, the Industria notebook): committed with outputs, in sync with their
generator ``notebooks/build_notebooks.py``, and executing without errors (nbclient, 600 s each).
"""
from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest

NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "notebooks"
sys.path.insert(0, str(NOTEBOOK_DIR))
import build_notebooks  # noqa: E402  (the generator lives next to the notebooks it writes)

NAMES = list(build_notebooks.NOTEBOOKS)


def test_the_notebooks_of_the_issues_exist():
    """Issue 7 names four notebooks: quickstart, search and tournament, training, strategy; issue 14 adds
    one on the Industria modules (full-expansion games)."""
    assert NAMES == ["01_quickstart.ipynb", "02_search_and_tournament.ipynb", "03_training.ipynb",
                     "04_strategy.ipynb", "05_industria.ipynb"]


@pytest.mark.parametrize("name", NAMES)
def test_committed_notebook_matches_its_generator_and_has_outputs(name):
    """The committed .ipynb has the generator's cells (so editing one without the other is caught)
    and was executed: every code cell ran, and the notebook holds at least one figure."""
    path = NOTEBOOK_DIR / name
    assert path.exists(), f"{name} missing: run python notebooks/build_notebooks.py --execute"
    committed = nbformat.read(path, as_version=4)
    expected = build_notebooks.build(name)
    assert [(c.cell_type, c.source) for c in committed.cells] == [(c.cell_type, c.source) for c in expected.cells], \
        f"{name} differs from notebooks/build_notebooks.py; rebuild it with --execute"
    code = [c for c in committed.cells if c.cell_type == "code"]
    assert all(c.get("execution_count") for c in code), f"{name} was not executed before committing"
    assert not any(o.get("output_type") == "error" for c in code for o in c.outputs)
    assert any("image/png" in o.get("data", {}) for c in code for o in c.outputs)


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_notebook_executes(name):
    """Each notebook runs top to bottom in a fresh kernel within the CI budget (600 s)."""
    nb = build_notebooks.build(name)
    build_notebooks.execute(nb, timeout=600)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count for c in code)
