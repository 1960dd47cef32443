"""Agent strength benchmark (issue 5): Heuristic vs Random, MCTS vs Heuristic (2 players) and
solo means with the rulebook result bands. Prints games played and 95% intervals.

    python benchmarks/agent_strength.py                              # 100 / 40 / 50 games
    python benchmarks/agent_strength.py --games 20 --mcts-games 10 --solo-games 10 --workers 2

Same as ``clans benchmark strength``.
"""
from __future__ import annotations

import sys

from clans_cli.main import main

if __name__ == "__main__":
    sys.exit(main(["benchmark", "strength", *sys.argv[1:]]))
