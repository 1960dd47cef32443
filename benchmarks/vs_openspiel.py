"""Our MCTSAgent against OpenSpiel's MCTSBot (open_spiel.python.algorithms.mcts with a
RandomRolloutEvaluator) at the same number of simulations per decision, in 2-player games on
the registered OpenSpiel game: win rate with a 95% interval and simulations per second of each.

    python benchmarks/vs_openspiel.py --games 20 --sims 50 --workers 2

Same as ``clans benchmark openspiel``.
"""
from __future__ import annotations

import sys

from clans_cli.main import main

if __name__ == "__main__":
    sys.exit(main(["benchmark", "openspiel", *sys.argv[1:]]))
