"""The README stays true: its "Rules fidelity" section lists every stand-in value of the data
files (the data files keep every stand-in, and the README's Rules fidelity section lists them), and CI runs the
README's test command (developers' guide, "The README keeps two commands at its top")."""
from __future__ import annotations

import re
from pathlib import Path

from clans_env.engine import data

ROOT = Path(__file__).resolve().parent.parent


def test_every_stand_in_is_listed_in_the_readme():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    fidelity = readme.split("## Rules fidelity", 1)[1].split("\n## ", 1)[0]
    missing = [path for path in data.stand_ins() if f"`{path}`" not in fidelity]
    assert not missing, f"stand-ins missing from README's Rules fidelity section: {missing}"
    assert "maps/A1.toml" in fidelity
    listed = re.findall(r"^\| `([a-z_.0-9]+)` \|", fidelity, flags=re.M)
    stale = [path for path in listed if path not in data.stand_ins()]
    assert not stale, f"README lists values as stand-ins that components.toml no longer marks so: {stale}"


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = [b.split("```", 1)[0].strip() for b in readme.split("```bash\n")[1:3]]
    main_job, tests = blocks
    assert "clans tournament" in main_job
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert tests in ci, f"CI must run the README's test command:\n{tests}"
