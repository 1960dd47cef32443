"""docs/rules-index.md, the project's index of rule ids (its "Id schemes" table documents every form).

Two checks over the code (clans_env, agents, training, clans_cli, clans_web), the tests, the docs and the
README: every rule id they cite is an entry of the index, and none of them sends readers to the reference
notes outside the repository (``shared/reference/...``), whose ids the index replaces.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
INDEX = ROOT / "docs" / "rules-index.md"
SCANNED = ("clans_env", "agents", "training", "clans_cli", "clans_web", "tests", "docs", "README.md")
SUFFIXES = {".py", ".md", ".toml", ".js", ".html", ".c", ".css", ".txt"}
# no file of the repository may send readers to the reference notes (ids are only checked in SCANNED)
LEAK_SCANNED = SCANNED + ("benchmarks", "examples", "notebooks", "setup.py", "pyproject.toml")
# the index defines the ids, and this file spells out fakes to show the checks fail
NOT_SCANNED = {INDEX, Path(__file__).resolve()}

# ---- citation forms (see the index's "Id schemes") -------------------------------------------------------
_START = r"(?<![\w.\-])"                       # not inside a word, a dotted name or a range's tail
_END = r"(?![\w*]|\.\w)"                       # not followed by more word, a wildcard, or ".<word>" (A3.4, A1.toml)
# any R<n>(.<part>)* is read whole, so an unknown spelling (R13.26.16) fails instead of passing unseen
R_ID = re.compile(r"(?<![\w.])R(\d{1,2})((?:\.[A-Za-z0-9]+)*)(?![\w])"
                  r"(?:-(?:R\1\.)?((?!R)[A-Z]{0,2}\d{1,2})\b)?")
# one letter, or C-<clan code>, and a number: Q, M, I, B, T, A and C- ids
SIMPLE = re.compile(_START + r"([QMIBTA]|C-[A-Z]{1,2})(\d+)" + _END)
RANGE_TAIL = re.compile(r"-(?:[A-Z](?:-[A-Z]{1,2})?)?(\d+)\b")   # "-A18", "-T17", "-C-MF4" after a simple id
SECTION = re.compile(r"§\s?(\d+(?:\.\d+)?)")
OPEN_POINT = re.compile(r"\bop (\d+)(?:-(\d+))?\b")
BASE_ENTRY = re.compile(r"\b(?:CoC-RI ?|base entry )(\d+)\b")
CLANS_ENTRY = re.compile(r"\bclans entry (\d+)\b")

# look-alikes that are data labels, not citations (see the index): quoted labels such as "T13" or
# 'A1 B2 C1 D2' (no lower-case letter inside), and lists of map module sides such as A1, A2, B1
QUOTED_LABEL = re.compile(r"([\"'])[^\"'\na-z]{1,60}\1")
MAP_SIDES = re.compile(r"\b[A-D][12](?:(?:, | |, and )[A-D][12]\b)+")
FIRST_AID_LINE = 25      # the player aid's rules start on its line 25; A1..A24 are Automa readings

LEAK = re.compile(r"shared/reference|(?<![\w/\-])(?:industria|components|design-notes)\.md"
                  r"|(?<![\w/\-])automa\.md(?=\s*§)")


def _expand(prefix: str, first: str, last: str | None) -> list[str]:
    """``R18.S4-S6`` and ``A14-A18``: every id of the range (same prefix, numbers first..last)."""
    if last is None:
        return [prefix + first]
    lo, hi = int(first), int(last)
    if hi <= lo or hi - lo > 60:
        return [prefix + first, prefix + last]
    return [prefix + str(n) for n in range(lo, hi + 1)]


def cited_ids(text: str) -> set[str]:
    """The rule ids a text cites, in the index's spelling (``R13.26``, ``Q23``, ``§6.3``, ``op 7``, ``A308``)."""
    text = MAP_SIDES.sub(" ", QUOTED_LABEL.sub(" ", text))
    out: set[str] = set()
    for m in R_ID.finditer(text):
        sec, parts, tail = m.group(1), m.group(2), m.group(3)
        if not parts:
            out.add(f"R{sec}")
            continue
        head = re.fullmatch(r"\.([A-Z]*)(\d*)", parts)
        if head and tail is not None and head.group(2) and re.fullmatch(head.group(1) + r"\d+", tail):
            letters = head.group(1)
            out.update(_expand(f"R{sec}.{letters}", head.group(2), tail[len(letters):]))
        else:
            out.add(f"R{sec}{parts}")
    for m in SIMPLE.finditer(text):
        tail = RANGE_TAIL.match(text, m.end())
        out.update(_expand(m.group(1), m.group(2), tail.group(1) if tail else None))
    out.update("§" + m.group(1) for m in SECTION.finditer(text))
    for m in OPEN_POINT.finditer(text):
        out.update(_expand("op ", m.group(1), m.group(2)))
    out.update(f"CoC-RI {m.group(1)}" for m in BASE_ENTRY.finditer(text))
    out.update(f"clans entry {m.group(1)}" for m in CLANS_ENTRY.finditer(text))
    return out


def index_entries() -> tuple[set[str], list[tuple[int, int]]]:
    """The ids the index defines (entry rows and section headings) and its player-aid line ranges."""
    text = INDEX.read_text(encoding="utf-8")
    ids = set(re.findall(r'<a id="[^"]+"></a>\*\*([^*]+)\*\*', text))
    ids |= set(re.findall(r'<a id="r[\w-]+"></a>(R[\w.]+):', text))
    ranges = [(int(a), int(b)) for a, b in re.findall(r'<a id="aid-\d+"></a>A(\d+)–A(\d+) \|', text)]
    return ids, ranges


def known(cid: str, ids: set[str], ranges: list[tuple[int, int]]) -> bool:
    m = re.fullmatch(r"A(\d+)", cid)
    if m and int(m.group(1)) >= FIRST_AID_LINE:
        return any(a <= int(m.group(1)) <= b for a, b in ranges)
    return cid in ids


def scanned_files(tops=SCANNED, suffixes=SUFFIXES):
    for top in tops:
        path = ROOT / top
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for f in files:
            if f.suffix in suffixes and f.resolve() not in NOT_SCANNED and "__pycache__" not in f.parts:
                yield f


def unknown_citations() -> list[str]:
    ids, ranges = index_entries()
    bad = []
    for f in scanned_files():
        for cid in sorted(cited_ids(f.read_text(encoding="utf-8", errors="replace"))):
            if not known(cid, ids, ranges):
                bad.append(f"{f.relative_to(ROOT)}: {cid}")
    return bad


# ---- the regexes ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, ids", [
    ("R13.26 and R18.MI1 (R4; R18.MF*)", {"R13.26", "R18.MI1", "R4", "R18.MF"}),
    ("rules R18.S4-S6 and R13.2-R13.4", {"R18.S4", "R18.S5", "R18.S6", "R13.2", "R13.3", "R13.4"}),
    ("R13.26.16 is no index spelling; R12.10-R12.11.", {"R13.26.16", "R12.10", "R12.11"}),
    ("the Train rules R1.8-R17.5", {"R1.8", "R17.5"}),
    ("readings A14-A16, Q23 (M1/M2), C-S5, T13, I7, B8, C-MF2-C-MF3", {"A14", "A15", "A16", "Q23", "M1", "M2", "C-S5",
                                                         "T13", "I7", "B8", "C-MF2", "C-MF3"}),
    ("(A579-A581) automa §6.3 / §4, op 3-5", {"A579", "A580", "A581", "§6.3", "§4", "op 3", "op 4", "op 5"}),
    ('CoC-RI 7, base entry 2, clans entry 8', {"CoC-RI 7", "CoC-RI 2", "clans entry 8"}),
])
def test_citations_are_read_in_the_index_spelling(text, ids):
    assert cited_ids(text) == ids


@pytest.mark.parametrize("text", [
    'sides "A1, A2, B1, B2, C1, C2, D1, D2"', "the sides A1 B1 C1 D1", "space A3.4 and B4.0-C0.0",
    'loc(g, "T13")', "maps/A1.toml", "QUIT R2D2 PB1 sha256 x86 T1000x HTTP/1.1 RFC-2119", "USER_T1",
])
def test_look_alikes_are_not_citations(text):
    assert cited_ids(text) == set()


# ---- the index ------------------------------------------------------------------------------------------

def test_index_has_every_scheme_and_the_aid_ranges():
    ids, ranges = index_entries()
    for must in ("R1", "R1.1", "R13.26", "R18.MI1", "R18.S12", "R19.6", "R18.MF", "Q1", "Q57", "M18",
                 "§1.2", "§6.3", "op 1", "op 20", "CoC-RI 21", "B11", "clans entry 28", "I14", "C-S6",
                 "C-X1", "A18", "T17"):
        assert must in ids, must
    assert ranges and ranges[0][0] == FIRST_AID_LINE
    assert all(a <= b and b + 1 == c for (a, b), (c, _) in zip(ranges, ranges[1:])), "gaps in aid lines"


def test_every_cited_rule_id_is_an_entry_of_the_index():
    bad = unknown_citations()
    assert not bad, ("rule ids cited but missing from docs/rules-index.md (add an entry, or fix the id):\n"
                     + "\n".join(bad))


def test_a_citation_missing_from_the_index_is_reported(tmp_path, monkeypatch):
    """The check can fail: a fake rule id, a fake reading and an aid line past the end are all caught."""
    ids, ranges = index_entries()
    fakes = {"R" + "13.99", "Q" + "99", "T" + "99", "C-" + "S99", "A" + "9999", "§" + "9.9"}
    assert not any(known(c, ids, ranges) for c in cited_ids(" ".join(sorted(fakes))))
    fake = tmp_path / "fake.py"
    fake.write_text('"""Checks ' + "R" + "13.99" + ' and the reading T' + '99."""\n', encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "scanned_files", lambda: iter([fake]))
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert sorted(unknown_citations()) == ["fake.py: R13.99", "fake.py: T99"]


def _anchors(text: str) -> set[str]:
    """Explicit ``<a id>`` anchors and GitHub's heading slugs of a markdown text."""
    out = set(re.findall(r'<a id="([^"]+)"></a>', text))
    for h in re.findall(r"^#+ (.*)$", text, re.M):
        h = re.sub(r"<[^>]+>", "", h).strip().lower()
        out.add(re.sub(r"[^\w\- ]", "", h).replace(" ", "-"))
    return out


def test_links_to_index_entries_resolve():
    """Links inside the index, and from the docs into it (``rules-index.md#r18-mi1``), name real anchors."""
    anchors = _anchors(INDEX.read_text(encoding="utf-8"))
    bad = [f"docs/rules-index.md: #{a}" for a in re.findall(r"\]\(#([^)]+)\)", INDEX.read_text(encoding="utf-8"))
           if a not in anchors]
    for f in scanned_files(("README.md", "docs"), {".md"}):
        for a in re.findall(r"rules-index\.md#([\w\-]+)", f.read_text(encoding="utf-8")):
            if a not in anchors:
                bad.append(f"{f.relative_to(ROOT)}: #{a}")
    assert not bad, "\n".join(bad)


def test_no_file_sends_readers_to_the_reference_notes_outside_the_repository():
    hits = []
    for f in scanned_files(LEAK_SCANNED, SUFFIXES | {".ipynb", ".cfg", ".yml", ".yaml", ".json"}):
        for n, line in enumerate(f.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if LEAK.search(line):
                hits.append(f"{f.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not hits, "cite docs/rules-index.md (or the data files) instead:\n" + "\n".join(hits)


def test_the_reference_check_catches_a_leak():
    assert LEAK.search("see shared/reference/industria.md")
    assert LEAK.search("brackets: components.md")
    assert LEAK.search("(automa.md §6.3)")
    assert not LEAK.search("docs/automa.md and docs/rules-index.md")
