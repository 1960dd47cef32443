"""``clans ladder SPEC``: rate an agent on the standard benchmark ladder (training/ladder.py,
docs/leaderboard.md).

    clans ladder ./mybot.py:Greedy --quick          # a rough rating in a couple of minutes
    clans ladder mcts:sims=50                       # the full ladder (see docs/leaderboard.md for its cost)
    clans ladder "ppo:path=runs/ppo/model.pt" --players 2 --no-solo
    clans ladder --list                             # the ladder's opponents and their fixed ratings
    clans ladder --leaderboard runs/ladder/*/ladder.json --plot docs/leaderboard.png
    clans ladder --calibrate runs/ladder/*/ladder.json --ladder my-ladder-v2.toml
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

EXAMPLES = __doc__.split("\n\n", 1)[1].rsplit('"""', 1)[0]


def add_ladder_parser(subparsers) -> argparse.ArgumentParser:
    from training.ladder import DEFAULT_LADDER

    p = subparsers.add_parser(
        "ladder", help="rate an agent against the fixed reference opponents of a versioned ladder",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Plays the agent against the ladder's reference opponents (random, heuristic, MCTS at several "
                    "budgets, the shipped PPO policy) on the ladder's fixed deals, seats rotated, in 2- and "
                    "4-player games, then solo games. Prints a rating on the ladder's fixed Elo scale (random = 0, "
                    "heuristic = 1000) with a 95% interval, per-opponent results, and the solo score and band; "
                    "writes the result as JSON to publish and compare.",
        epilog="examples:\n" + EXAMPLES)
    p.add_argument("spec", nargs="?", metavar="SPEC",
                   help="the agent to rate: any agent spec (heuristic, mcts:sims=50, ./mybot.py:Greedy, "
                        "mypkg.bots:Greedy:depth=2, an installed entry point name)")
    p.add_argument("--ladder", default=DEFAULT_LADDER, metavar="NAME|FILE",
                   help=f"the ladder: a shipped one by name or a .toml file (default {DEFAULT_LADDER})")
    p.add_argument("--quick", action="store_true",
                   help="fewer games and only the cheap opponents: a rough rating in a couple of minutes on 2 "
                        "cores, with intervals about 2-3 times wider than the full ladder's")
    p.add_argument("--players", default=None, metavar="2,4",
                   help="play only these formats (player counts, comma-separated; default: all of the ladder's); "
                        "e.g. 2 for a 2-player-only policy")
    p.add_argument("--formats", default=None, metavar="2p-industria,3p",
                   help="play only these formats, by their keys as --list shows them (e.g. 2p-industria); "
                        "with --players, the union of both")
    p.add_argument("--no-solo", action="store_true", help="skip the solo games")
    p.add_argument("--workers", type=int, default=2, help="parallel game processes (default 2)")
    p.add_argument("--out", default=None,
                   help="output folder: ladder.json and each format's tournament (default runs/ladder/<SPEC>)")
    p.add_argument("--resume", action="store_true",
                   help="continue an interrupted ladder run in --out: only the missing games are played")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument("--list", action="store_true", help="show the ladder's opponents, formats and games, and exit")
    p.add_argument("--leaderboard", nargs="+", default=None, metavar="RESULT.json",
                   help="print a markdown table of these ladder results (no games are played)")
    p.add_argument("--plot", default=None, metavar="FILE.png", help="with --leaderboard: also draw the ratings")
    p.add_argument("--calibrate", nargs="+", default=None, metavar="RESULT.json",
                   help="fit the ladder's opponents' ratings (anchors held) from the reference agents' own ladder "
                        "results, and print them as rating lines for a new version of the ladder file")
    p.set_defaults(func=run_ladder_cmd)
    return p


def run_ladder_cmd(args) -> int:
    from training import ladder as L

    try:
        if args.leaderboard:
            results = [L.LadderResult.load(f) for f in args.leaderboard]
            print(L.leaderboard_markdown(results))
            if args.plot:
                print(f"plot: {L.plot_leaderboard(results, args.plot)}")
            return 0
        lad = L.load_ladder(args.ladder)
        if args.calibrate:
            cal = L.calibrate([L.LadderResult.load(f) for f in args.calibrate], lad)
            for o in lad.opponents:
                cells = ", ".join(f"{f} = {cal[f][o.name]:g}" for f in o.formats if o.name in cal.get(f, {}))
                print(f"{o.name:<12} rating = {{ {cells} }}" if cells else f"{o.name:<12} (no games: not calibrated)")
            return 0
        if args.list:
            print(describe(lad))
            return 0
        if not args.spec:
            print("error: give the agent spec to rate (e.g. clans ladder heuristic --quick), or --list",
                  file=sys.stderr)
            return 2
        formats = None
        if args.players or args.formats:
            formats = [f"{x.strip().rstrip('p')}p" for x in (args.players or "").split(",") if x.strip()]
            formats += [x.strip() for x in (args.formats or "").split(",") if x.strip() and x.strip() not in formats]
        out = args.out or str(Path("runs") / "ladder" / (L.slug(args.spec) + ("-quick" if args.quick else "")))
        res = L.run_ladder(args.spec, lad, quick=args.quick, formats=formats, solo=not args.no_solo,
                           workers=args.workers, out_dir=out, progress=not args.no_progress, resume=args.resume)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: the games played so far are kept; continue with the same command and --resume",
              file=sys.stderr)
        return 130
    L.report(res)
    print(f"result: {Path(out) / 'ladder.json'}")
    return 0


def describe(lad) -> str:
    lines = [f"ladder {lad.id} ({lad.path}; sha256 {lad.sha256[:12]}), seed {lad.seed}, anchors "
             + ", ".join(f"{k} = {v:g}" for k, v in lad.anchors.items())]
    for key, f in lad.formats.items():
        lines.append(f"  {key}: {f.games} games per lineup ({f.quick_games} with --quick)")
    lines.append(f"  solo: {lad.solo_games} games ({lad.solo_quick_games} with --quick)")
    for o in lad.opponents:
        rating = ", ".join(f"{k} {o.ratings[k]:g}" if k in o.ratings else f"{k} not calibrated" for k in o.formats)
        lines.append(f"  {o.name:<12} {o.spec:<44} {rating}{'  [quick]' if o.quick else ''}")
    return "\n".join(lines)
