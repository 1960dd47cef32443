"""Issue 15, "What a new user stumbled on": the ``--help`` texts are written for users. Every option of
every ``clans`` subcommand has a description, and no help text carries developer notes (function names
such as ``add_<name>_parser``, "file helpers here ... are shared", reST markup)."""
from __future__ import annotations

import argparse
import re

from clans_cli.main import build_parser

#: what a user's help text must not contain: developer notes and reST / docstring markup
DEVELOPER_NOTES = re.compile(r"add_<?\w*>?_parser|_parser\(|helpers here|are shared|\bfunc\b|``|:func:|:class:")


def _all_parsers(parser: argparse.ArgumentParser, path=("clans",)):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                if sub is not parser:
                    yield from _all_parsers(sub, path + (name,))


def test_every_option_of_every_subcommand_is_described():
    missing = []
    for path, parser in _all_parsers(build_parser()):
        for action in parser._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            if not (action.help or "").strip() or action.help == argparse.SUPPRESS:
                missing.append(f"{' '.join(path)} {'/'.join(action.option_strings) or action.dest}")
    assert not missing, "options without a description:\n" + "\n".join(missing)


def test_help_texts_carry_no_developer_notes():
    found = []
    for path, parser in _all_parsers(build_parser()):
        text = parser.format_help()
        for m in DEVELOPER_NOTES.finditer(text):
            found.append(f"{' '.join(path)}: ...{text[max(0, m.start() - 40):m.end() + 20]!r}...")
    assert not found, "developer notes in --help:\n" + "\n".join(found)


def test_replay_help_does_not_promise_stepping_that_out_does_not_do():
    """`clans replay --out` prints each round as text and writes a PNG per round; the help says
    that, and names --html / clans serve for stepping through a game decision by decision."""
    top = build_parser()
    parser = dict(_all_parsers(top))[("clans", "replay")]
    commands = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    summary = next(c.help for c in commands._choices_actions if c.dest == "replay").lower()
    assert "step" not in summary and "text" in summary and "png" in summary, summary
    text = " ".join(parser.format_help().split())
    assert "--html or clans serve" in text and "step through a saved game" not in text
