"""Thousands of seeded random games per player count with random clans and variants: every
state is checked against the engine invariants (``clans_env.engine.invariants``), every game
is saved/loaded once and replayed from its record, and the mean final score per clan is
reported per player count (solo games also get the result band distribution).

    python benchmarks/clan_stats.py                    # 1000 games for each of 1, 2, 3, 4 players
    python benchmarks/clan_stats.py --games 200 --players 2 4 --workers 2
    python benchmarks/clan_stats.py --industria 0.5    # each Industria module on with probability 0.5

With ``--industria P`` every game also switches each Industria module on with probability P (1 =
all of them; 0 = the base game, the default); ``--industria-cycle`` instead plays each module alone
and all of them together in turn. The report then adds per module how many games used it, the mean
of each final score line, how often the Industria decisions came up, and how often each Industria
Port tile was used and each Industria Scoring tile was in play.

The policy is uniformly random over the legal actions except that Pass is taken only with
probability ``--pass-prob`` when something else is legal, so that games go deep (a uniform
policy passes early and leaves most rules unexercised). Scores of random play say nothing about
clan strength; they show every clan's rules run to the end and score sensibly.

``--all-clans`` (issue 13) draws the clans from all nineteen (the base eight, MacEwen and the nine
Industria clans; 70% of the games fixed random clans, the rest the configuration's draft or
auction with the Industria clans in the pool); ``--policy heuristic`` plays every seat with the
heuristic agent (``agents/heuristic.py``, slower) instead of random moves. The per-clan means are a
first look at balance only: few games, one policy, clans mixed with random modules and opponents.

    python benchmarks/clan_stats.py --all-clans --industria 0.5 --games 500
    python benchmarks/clan_stats.py --all-clans --industria 0.5 --games 40 --policy heuristic
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import random
import statistics
import sys
import time
import traceback
from collections import Counter, defaultdict

from training.progress import Progress

#: the decision kinds only Industria modules make pending (state.DECISION_KINDS after the base ones)
INDUSTRIA_KINDS = ("market_place", "market_sell", "bonus_menu", "port_ignore", "port_field", "port_tech",
                   "port_discard4", "port_deploy", "port_fulfil", "stack", "move")


def play_one(job: tuple) -> dict:
    """Play one checked game; returns its scores or the error."""
    n, seed, pass_prob, industria, all_clans, policy = job
    from clans_env.engine.config import INDUSTRIA_MODULES
    if industria == "cycle":
        modules = [m for m in INDUSTRIA_MODULES if m != "alt_two_player_scoring" or n == 2]
        k = seed % (len(modules) + 1)
        industria = tuple(modules) if k == len(modules) else (modules[k],)
    from clans_env import Game
    from clans_env.engine.actions import PASS
    from clans_env.engine.invariants import check_invariants, random_config

    rng = random.Random(seed * 7919 + n)
    cfg = random_config(rng, n, seed, industria=industria)
    if all_clans:
        cfg = all_clans_config(rng, cfg)
    agents = None
    if policy == "heuristic":
        from agents.heuristic import HeuristicAgent
        agents = [HeuristicAgent(seed=seed * 31 + q) for q in range(n)]
    steps = 0
    decisions: Counter = Counter()
    try:
        g = Game(cfg)
        check_invariants(g)
        save_at = rng.randrange(1, 400)
        while not g.is_terminal():
            decisions[g.decision_kind] += 1
            if agents is not None:
                g.apply(agents[g.current_player].act(g))
            else:
                legal = g.legal_actions()
                if len(legal) > 1 and PASS in legal and rng.random() >= pass_prob:
                    legal = [a for a in legal if a != PASS]
                g.apply(rng.choice(legal))
            steps += 1
            check_invariants(g)
            if steps == save_at:
                copy = Game.from_json(g.to_json())
                if copy.to_json() != g.to_json() or copy.legal_actions() != g.legal_actions():
                    raise AssertionError("save/load round trip changed the game")
        rows = g.final_scores()
        record = g.record()
        if Game.replay(record["config"], record["actions"]).final_scores() != rows:
            raise AssertionError("replay did not reproduce the final scores")
        return {"n": n, "seed": seed, "steps": steps, "clans": [pl.clan for pl in g.players],
                "totals": [r["total"] for r in rows], "bids": [pl.vp_bid for pl in g.players],
                "band": rows[0].get("band"), "selection": "fixed" if cfg.clans else cfg.clan_selection,
                "modules": list(cfg.industria_modules), "lines": rows, "decisions": dict(decisions),
                "ports_used": [t for pl in g.players for k, t in enumerate(g.port_tiles) if t >= 10
                               and pl.ports_used >> k & 1],
                "scoring_tiles": [t for t in g.scoring_tiles if t >= 10]}
    except Exception as e:  # report, never hide: the summary lists every failing seed
        return {"n": n, "seed": seed, "steps": steps, "error": f"{type(e).__name__}: {e}",
                "trace": traceback.format_exc(limit=6), "config": cfg.to_dict()}


def all_clans_config(rng: random.Random, cfg):
    """``cfg`` with the Industria clans in the pool; 70% of the time fixed random clans from all nineteen."""
    from dataclasses import replace

    from clans_env.engine.clans import clan_names
    if rng.random() < 0.7:
        clans = tuple(rng.sample(clan_names(kickstarter=True, industria_clans=True), cfg.num_players))
        return replace(cfg, industria_clans=True, clans=clans, clan_selection="draft",
                       kickstarter=cfg.kickstarter or "macewen" in clans)
    return replace(cfg, industria_clans=True,
                   clan_selection="draft" if cfg.clan_selection == "none" else cfg.clan_selection)


def summarize(results: list[dict], players: list[int]) -> str:
    out = []
    for n in players:
        rs = [r for r in results if r["n"] == n]
        ok = [r for r in rs if "error" not in r]
        bad = [r for r in rs if "error" in r]
        steps = sum(r["steps"] for r in rs)
        out.append(f"\n== {n} player{'s' if n > 1 else ''}: {len(rs)} games, {len(ok)} finished, "
                   f"{len(bad)} errors, {steps} actions (invariants checked after each), "
                   f"{steps / max(1, len(rs)):.0f} actions/game")
        sel = Counter(r["selection"] for r in ok)
        out.append("   clan selection: " + ", ".join(f"{k} {v}" for k, v in sorted(sel.items())))
        per_clan: dict[str, list[int]] = defaultdict(list)
        for r in ok:
            for clan, total in zip(r["clans"], r["totals"]):
                per_clan[clan or "(no clan)"].append(total)
        out.append(f"   {'clan':<12} {'seats':>6} {'mean VP':>8} {'sd':>6} {'min':>5} {'max':>5}")
        for clan in sorted(per_clan, key=lambda c: -statistics.mean(per_clan[c])):
            v = per_clan[clan]
            sd = statistics.pstdev(v) if len(v) > 1 else 0.0
            out.append(f"   {clan:<12} {len(v):>6} {statistics.mean(v):>8.1f} {sd:>6.1f} {min(v):>5} {max(v):>5}")
        bids = [b for r in ok if r["selection"] == "auction" for b in r["bids"]]
        if bids and n > 1:
            out.append(f"   auction bids: mean {statistics.mean(bids):.1f} VP per seat ({len(bids)} seats)")
        modules = Counter(m for r in ok for m in r["modules"])
        if modules:
            out.append("   Industria modules (games): " + ", ".join(f"{k} {v}" for k, v in sorted(modules.items())))
            kinds = Counter()
            for r in ok:
                kinds.update(r["decisions"])
            out.append("   Industria decisions: " + ", ".join(
                f"{k} {kinds[k]}" for k in sorted(kinds) if k in INDUSTRIA_KINDS))
            used = Counter(t for r in ok for t in r["ports_used"])
            shown = Counter(t for r in ok for t in r["scoring_tiles"])
            if used or shown:
                out.append("   Industria Port tiles used (player-uses): " +
                           ", ".join(f"{t}: {used[t]}" for t in range(10, 19)))
                out.append("   Industria Scoring tiles in play (games): " +
                           ", ".join(f"{t}: {shown[t]}" for t in range(10, 19)))
        lines = Counter()
        seats = 0
        for r in ok:
            for row in r["lines"]:
                seats += 1
                for k, v in row.items():
                    if k not in ("total", "money_left", "rank", "band"):
                        lines[k] += v
        if seats:
            out.append("   mean VP per score line: " + ", ".join(
                f"{k} {v / seats:.1f}" for k, v in sorted(lines.items())))
        if n == 1:
            bands = Counter(r["band"] for r in ok)
            out.append("   solo bands: " + ", ".join(f"{k} {v}" for k, v in bands.most_common()))
        for r in bad[:5]:
            out.append(f"   ERROR seed {r['seed']}: {r['error']}\n{r['trace']}   config {r['config']}")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=1000, help="games per player count")
    ap.add_argument("--players", type=int, nargs="+", default=[1, 2, 3, 4])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0, help="first game seed")
    ap.add_argument("--pass-prob", type=float, default=0.15)
    ap.add_argument("--industria", type=float, default=0.0,
                    help="probability that each Industria module is on in a game (default 0: base game)")
    ap.add_argument("--industria-cycle", action="store_true",
                    help="each Industria module alone, then all of them together, in turn")
    ap.add_argument("--all-clans", action="store_true",
                    help="clans from all nineteen (base, MacEwen, the nine Industria clans)")
    ap.add_argument("--policy", choices=("random", "heuristic"), default="random",
                    help="random moves (default) or the heuristic agent on every seat")
    args = ap.parse_args(argv)
    mode = "cycle" if args.industria_cycle else args.industria
    jobs = [(n, args.seed + i, args.pass_prob, mode, args.all_clans, args.policy)
            for n in args.players for i in range(args.games)]
    t0 = time.perf_counter()
    results = []
    with mp.get_context("spawn").Pool(args.workers) as pool:
        with Progress(len(jobs), "random games", "games") as bar:
            for r in pool.imap_unordered(play_one, jobs, chunksize=8):
                results.append(r)
                bar.update()
    wall = time.perf_counter() - t0
    print(f"policy: {args.policy}" + ("; per-clan means are a first look at balance only" if args.all_clans else ""))
    print(summarize(results, args.players))
    errors = sum(1 for r in results if "error" in r)
    print(f"\n{len(results)} games in {wall:.0f} s with {args.workers} workers; {errors} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
