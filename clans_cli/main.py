"""``clans``: the command line of the Clans of Caledonia research environment.

    clans tournament --quick                       # the README's main job (a few minutes on 2 cores)
    clans tournament random heuristic mcts:sims=200 --games-per-pairing 10 --out runs/t1
    clans tournament mcts:sims=200 heuristic random --mode gauntlet --players 3
    clans benchmark strength --games 100
    clans benchmark openspiel --games 20 --sims 50
    clans benchmark speed
    clans ladder heuristic --quick                 # a rating on the standard ladder (docs/leaderboard.md)
    clans serve runs                               # web viewer: replays, tournaments, play in the browser

Run `clans COMMAND --help` for the options of a command.
"""
# Each subcommand lives in a function add_<name>_parser(subparsers) that registers its parser and sets
# func (called with the parsed arguments, returns the exit status).
from __future__ import annotations

import argparse
import sys


# ------------------------------------------------------------------------------------------------
# Ray (optional extra .[ray]; docs/ray.md)
def add_ray_arguments(p, what: str) -> None:
    """``--ray`` and ``--address`` on a subcommand that can run on Ray."""
    p.add_argument("--ray", action="store_true",
                   help=f"{what}; needs the optional extra: pip install -e \".[ray]\" (docs/ray.md)")
    p.add_argument("--address", default=None,
                   help="with --ray: an existing Ray cluster (auto, HOST:6379 or ray://HOST:10001; default: "
                        "RAY_ADDRESS if set, else a local Ray on this machine)")


# ------------------------------------------------------------------------------------------------
# clans tournament
def add_tournament_parser(subparsers) -> argparse.ArgumentParser:
    from agents.registry import describe_kinds
    from training.tournament import DEFAULT_MOVE_TIME_LIMIT, MODES, QUICK_AGENTS, QUICK_GAMES_PER_PAIRING

    p = subparsers.add_parser(
        "tournament", help="play agents against each other and rate them",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Round-robin or gauntlet tournament between agent specs: seats rotated on shared deals, games "
                    "in parallel processes, win rates with 95% Wilson intervals, mean scores, OpenSkill ratings; "
                    "results.json, standings.csv, games.csv, ratings.png and replays/ under --out.\n\n"
                    "agent kinds:\n" + describe_kinds())
    p.add_argument("agents", nargs="*", metavar="AGENT",
                   help="agent specs, e.g. random heuristic mcts:sims=200,c=0.7 ppo:path=FILE")
    p.add_argument("--quick", action="store_true",
                   help=f"the short default tournament: {' vs '.join(QUICK_AGENTS)}, "
                        f"{QUICK_GAMES_PER_PAIRING} games per pairing, 2 players")
    p.add_argument("--players", type=int, default=2, choices=(2, 3, 4), help="players per game (default 2)")
    p.add_argument("--games-per-pairing", type=int, default=None,
                   help="games per lineup, rounded up to a multiple of --players (default 2; --quick: "
                        f"{QUICK_GAMES_PER_PAIRING})")
    p.add_argument("--mode", choices=MODES, default="round-robin",
                   help="round-robin (every lineup) or gauntlet (the first agent against the others)")
    p.add_argument("--seed", type=int, default=0, help="tournament seed (fixes every deal and agent seed)")
    p.add_argument("--workers", type=int, default=2, help="parallel game processes (default 2)")
    p.add_argument("--out", default=None,
                   help="output folder (default runs/tournament; --quick: runs/tournament-quick)")
    p.add_argument("--clan-selection", choices=("none", "draft", "auction"), default=None,
                   help="GameConfig.clan_selection for every game")
    p.add_argument("--industria", action="store_true",
                   help="play with every Industria module the engine has (GameConfig(industria=True))")
    p.add_argument("--option", action="append", default=[], metavar="FIELD=VALUE", type=_game_option,
                   help="any other GameConfig field for every game, e.g. --option awards=false "
                        "--option static_imports=true (repeatable)")
    p.add_argument("--max-games", type=int, default=None, help="stop after this many games")
    p.add_argument("--move-time-limit", type=_limit, default=DEFAULT_MOVE_TIME_LIMIT, metavar="SECONDS",
                   help=f"seconds an agent may think about one move before it forfeits the game (default "
                        f"{DEFAULT_MOVE_TIME_LIMIT:g}; 'none' = no limit)")
    p.add_argument("--resume", action="store_true",
                   help="continue the interrupted tournament in --out from its results.json (same agents and "
                        "options): only the missing games are played")
    p.add_argument("--retry-failed", action="store_true", help="with --resume, play the failed games again")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_ray_arguments(p, "play the games as Ray tasks (--workers at a time, 0 = one per Ray CPU; a local Ray unless "
                         "--address)")
    p.set_defaults(func=run_tournament_cmd)
    return p


def _game_option(text: str) -> tuple[str, object]:
    """FIELD=VALUE for a GameConfig field: true/false, an int, or a string."""
    field, sep, value = text.partition("=")
    if not sep or not field.strip():
        raise argparse.ArgumentTypeError(f"expected FIELD=VALUE, e.g. awards=false (got {text!r})")
    v = value.strip()
    parsed: object = {"true": True, "false": False}.get(v.lower(), v)
    if isinstance(parsed, str) and v.lstrip("-").isdigit():
        parsed = int(v)
    return field.strip(), parsed


def _limit(text: str) -> float | None:
    if text.strip().lower() in ("none", "off", "0"):
        return None
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds or 'none' (got {text!r})")
    return value


def run_tournament_cmd(args) -> int:
    from training.tournament import QUICK_AGENTS, QUICK_GAMES_PER_PAIRING, print_report, run_tournament

    agents = list(args.agents)
    if args.quick:
        if agents:
            print("error: --quick plays its own agents; give either --quick or agent specs", file=sys.stderr)
            return 2
        agents = list(QUICK_AGENTS)
    from agents.registry import load_check
    for spec in agents:                 # a bad spec is named before anything else is said about it
        try:
            load_check(spec)
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
    if len(agents) < 2:
        print("error: give at least two agent specs (e.g. random heuristic mcts:sims=100) or --quick",
              file=sys.stderr)
        return 2
    games = args.games_per_pairing or (QUICK_GAMES_PER_PAIRING if args.quick else 2)
    out = args.out or ("runs/tournament-quick" if args.quick else "runs/tournament")
    config = {"clan_selection": args.clan_selection} if args.clan_selection else {}
    if args.industria:
        config["industria"] = True
    config.update(dict(args.option))
    config = config or None
    if args.retry_failed and not args.resume:
        print("error: --retry-failed goes with --resume", file=sys.stderr)
        return 2
    executor = None
    try:
        if args.ray:
            from training.ray_backend import TournamentExecutor
            executor = TournamentExecutor(workers=args.workers, address=args.address)
        result = run_tournament(agents, num_players=args.players, games_per_pairing=games, mode=args.mode,
                                seed=args.seed, workers=args.workers, out_dir=out, progress=not args.no_progress,
                                config=config, max_games=args.max_games, move_time_limit=args.move_time_limit,
                                resume=args.resume, retry_failed=args.retry_failed, executor=executor)
    except RuntimeError as e:
        if type(e).__name__ != "RayUnavailable":
            raise
        print(f"error: {e}", file=sys.stderr)
        return 2
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"interrupted: the games played so far are in {out}/results.json; continue with the same command "
              f"and --resume", file=sys.stderr)
        return 130
    print_report(result)
    return 1 if result.failures else 0


# ------------------------------------------------------------------------------------------------
# clans benchmark
def add_benchmark_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("benchmark", help="agent strength and speed benchmarks",
                              description="Agent strength and speed benchmarks; every figure comes with the games "
                                          "played and a 95% interval (see docs/agents.md).")
    which = p.add_subparsers(dest="benchmark", metavar="BENCHMARK")
    which.required = True
    s = which.add_parser("strength", help="heuristic vs random, mcts vs heuristic (2 players) and solo means")
    s.add_argument("--games", type=int, default=100, help="heuristic vs random games (default 100; 0 = skip)")
    s.add_argument("--mcts-games", type=int, default=40, help="mcts vs heuristic games (default 40; 0 = skip)")
    s.add_argument("--mcts", default="mcts:sims=200", help="the MCTS spec (default mcts:sims=200)")
    s.add_argument("--solo-games", type=int, default=50, help="solo games per agent (default 50; 0 = skip)")
    s.add_argument("--solo-agents", default="random;heuristic;mcts:sims=200",
                   help="agent specs for the solo means, separated by ';' (default random;heuristic;mcts:sims=200)")
    s.add_argument("--seed", type=int, default=0, help="seed of the deals and agents (default 0)")
    s.add_argument("--workers", type=int, default=2, help="parallel game processes (default 2)")
    s.set_defaults(func=run_strength_cmd)
    o = which.add_parser("openspiel", help="our MCTSAgent vs OpenSpiel's MCTSBot at equal simulations")
    o.add_argument("--games", type=int, default=20, help="games (each deal from both seats; default 20)")
    o.add_argument("--sims", type=int, default=50, help="simulations per decision for both (default 50)")
    o.add_argument("--seed", type=int, default=0, help="seed of the deals and bots (default 0)")
    o.add_argument("--workers", type=int, default=2, help="parallel game processes (default 2)")
    o.add_argument("--config", choices=["both", "heuristic", "random"], default="both",
                   help="our MCTS configuration: heuristic leaf evaluation (as shipped), random rollouts to the "
                        "end (as MCTSBot), or both side by side on the same deals (default both)")
    o.set_defaults(func=run_openspiel_cmd)
    sp = which.add_parser("speed", help="engine steps/s, clone, heuristic and MCTS speed")
    sp.add_argument("--seconds", type=float, default=3.0, help="measuring time per item (default 3)")
    sp.add_argument("--seed", type=int, default=0, help="seed of the games played while measuring (default 0)")
    sp.set_defaults(func=run_speed_cmd)
    return p


def split_specs(text: str) -> list[str]:
    """Agent specs from one argument, separated by ';' (a spec's options use ',')."""
    return [s.strip() for s in text.split(";") if s.strip()]


def run_strength_cmd(args) -> int:
    from agents.registry import load_check
    from training import benchmarks as B

    solo_specs = split_specs(args.solo_agents) if args.solo_games else []
    try:                                    # fail before the long matches start
        for spec in [args.mcts, *solo_specs]:
            load_check(spec)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    import time
    parts = []                          # (label, lineup, games, run)
    if args.games:
        parts.append(("heuristic vs random", ["heuristic", "random"], args.games, lambda: B.format_head_to_head(
            B.head_to_head("heuristic", "random", args.games, args.seed, args.workers))))
    if args.mcts_games:
        parts.append((f"{args.mcts} vs heuristic", [args.mcts, "heuristic"], args.mcts_games,
                      lambda: B.format_head_to_head(B.head_to_head(args.mcts, "heuristic", args.mcts_games,
                                                                   args.seed + 1, args.workers))))
    for spec in solo_specs:
        parts.append((f"solo {spec}", [spec], args.solo_games,
                      lambda spec=spec: B.format_solo(B.solo(spec, args.solo_games, args.seed + 2, args.workers))))
    # say up front how long it will take: each agent's time per decision, timed here on a few decisions
    estimates = [B.estimate_seconds(lineup, games, args.workers, args.seed) for _, lineup, games, _ in parts]
    print(f"clans benchmark strength: {len(parts)} parts, about {_duration(sum(estimates))} in all on "
          f"{args.workers} worker(s) (estimated from each agent's time per decision on this machine; fewer "
          f"games: --games, --mcts-games, --solo-games; Ctrl-C stops)", flush=True)
    start = time.perf_counter()
    for k, ((label, _, games, run), estimate) in enumerate(zip(parts, estimates), 1):
        print(f"[{k}/{len(parts)}] {label}: {games} games, about {_duration(estimate)}", flush=True)
        try:
            print(run())
        except ValueError as e:
            print(f"{label}: skipped: {e}")
            if label.startswith("solo"):
                break
    print(f"done in {_duration(time.perf_counter() - start)}")
    return 0


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 5400:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


def run_openspiel_cmd(args) -> int:
    from training import benchmarks as B

    configs = ["heuristic", "random"] if args.config == "both" else [args.config]
    for config in configs:
        print(B.format_vs_openspiel(B.vs_openspiel(args.games, args.sims, args.seed, args.workers, config=config)))
    return 0


def run_speed_cmd(args) -> int:
    from training import benchmarks as B

    print(B.format_speed(B.speed(args.seconds, args.seed)))
    return 0


# ------------------------------------------------------------------------------------------------
# the dispatcher
def build_parser() -> argparse.ArgumentParser:
    from .help_text import for_users
    parser = argparse.ArgumentParser(prog="clans", description="Clans of Caledonia research environment",
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=for_users(__doc__))
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    # ---- tournaments and benchmarks (agents) ----
    add_tournament_parser(subparsers)
    add_benchmark_parser(subparsers)
    # ---- training (clans_cli/train_cmd.py) ----
    from .train_cmd import add_train_parser
    add_train_parser(subparsers)
    # ---- play and replay in the terminal (clans_cli/play.py, clans_cli/replay.py) ----
    from .play import add_play_parser
    from .replay import add_replay_parser
    add_play_parser(subparsers)
    add_replay_parser(subparsers)
    # ---- the benchmark ladder (clans_cli/ladder_cmd.py -> training/ladder.py) ----
    from .ladder_cmd import add_ladder_parser
    add_ladder_parser(subparsers)
    # ---- the web viewer (clans_cli/serve.py -> clans_web) ----
    from .serve import add_serve_parser
    add_serve_parser(subparsers)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
