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


def _commented_commands(readme: str) -> dict[str, str]:
    """Each command of the README's bash blocks with its comment (a comment-only line continues
    the comment of the command above it)."""
    out: dict[str, str] = {}
    last = None
    for block in readme.split("```bash\n")[1:]:
        for line in block.split("```", 1)[0].splitlines():
            command, _, comment = line.partition("#")
            if command.strip():
                last = command.strip()
                out[last] = comment.strip()
            elif last is not None and comment.strip():
                out[last] += " " + comment.strip()
    return out


def test_readme_says_what_clans_replay_out_writes_and_where_to_step():
    """A first-hour stumble: the README said `clans replay ... --out` steps through a game; it prints
    a text summary of each round and writes a map PNG per round. Stepping through a game is the
    web page (`--html`) or the web viewer (`clans serve`), and the README says so."""
    commands = _commented_commands((ROOT / "README.md").read_text(encoding="utf-8"))
    out = [c for c in commands if c.startswith("clans replay") and " --out " in f"{c} "]
    assert out, "the README shows `clans replay ... --out`"
    for c in out:
        said = commands[c].lower()
        assert "step" not in said, f"`{c}` does not step through a game: {commands[c]!r}"
        assert "text" in said and "png" in said and "round" in said, commands[c]
    steppers = [c for c, said in commands.items() if "step through" in said.lower()]
    assert any(c.startswith("clans replay") and "--html" in c for c in steppers), steppers
    assert any(c.startswith("clans serve") for c in steppers), steppers
