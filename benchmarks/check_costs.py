"""What the main decision's Industria checks cost in play, as a bound on what making them faster can save
(issue 34: a full Industria decision against a base one).

    python benchmarks/check_costs.py                        # 2 players, 20 games x 3 rounds
    python benchmarks/check_costs.py --players 2 3 4 --checks train claim clans train+claim

The same random Industria games are played first with the engine as it is, recording every answer of the
named checks, then again with those checks answering from the record (a list read, no rules): the games
are the same decision for decision (each replay's game records and scores are compared with the first
play's, and every recorded answer must be used), so the difference in time per decision is what the
checks cost where they run, their cold caches included, and no faster version of them can save more.
Base games of the same seeds and Industria as it is are timed in the same rounds, so each row is also a
multiple of a base decision. The last line says how often part of each check's inputs repeats from the player's
previous main decision: the most an answer remembered by value could be reused. Checks:

- ``train``: the main decision's Train action check (``trains.can_take_train_action``, R13.1/R13.8);
- ``claim``: Claim a Milestone's (``milestones.claimable``, R13.19);
- ``clans``: every clan's own main actions (``Clan.main_actions``: Railroad Reach, MacDonald's ...).

The checks are swapped as module attributes, which the compiled engine (setup.py) does not look up:
run this with the pure-Python engine (``CLANS_PURE_PYTHON=1`` where a compiled one is built).
"""
from __future__ import annotations

import argparse
import hashlib
import os
import random
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

CHECKS = ("train", "claim", "clans")


def check_sites(name: str) -> list:
    """(owner, attribute) of each function that answers check ``name``."""
    from clans_env.engine.clans import CLANS, Clan
    from clans_env.engine.rules import milestones, trains
    if name == "train":
        return [(trains, "can_take_train_action")]
    if name == "claim":
        return [(milestones, "claimable")]
    if name == "clans":
        owners = {next(k for k in type(c).__mro__ if "main_actions" in k.__dict__) for c in CLANS.values()}
        return sorted(((k, "main_actions") for k in owners if k is not Clan), key=lambda site: site[0].__name__)
    raise ValueError(f"unknown check {name!r}; valid checks: {', '.join(CHECKS)} (joined with '+')")


def play(players: int, games: int, seed: int, industria: bool) -> tuple[float, int, str]:
    """Random games (seed ``seed + i``): (seconds, decisions, a digest of their records and scores)."""
    from clans_env import Game, GameConfig
    options = {"industria": True} if industria else {}
    rng = random.Random(seed)
    made = [Game(GameConfig(num_players=players, seed=seed + i, **options)) for i in range(games)]
    decisions = 0
    perf = time.perf_counter
    t0 = perf()
    for g in made:
        while not g.is_terminal():
            legal = g.legal_actions()
            g.apply(legal[int(rng.random() * len(legal))])
            decisions += 1
    seconds = perf() - t0
    digest = hashlib.sha256(repr([(g.history, g.final_scores()) for g in made]).encode()).hexdigest()
    return seconds, decisions, digest


class Swapped:
    """Within ``with``: the functions of ``sites`` replaced by ``make(original)``."""

    def __init__(self, sites: list, make):
        self.sites = sites
        self.make = make
        self.saved: list = []

    def __enter__(self):
        for owner, attr in self.sites:
            original = owner.__dict__[attr] if isinstance(owner, type) else getattr(owner, attr)
            self.saved.append((owner, attr, original))
            setattr(owner, attr, self.make(original))
        return self

    def __exit__(self, *exc):
        for owner, attr, original in reversed(self.saved):
            setattr(owner, attr, original)
        self.saved.clear()


def record(sites: list, players: int, games: int, seed: int) -> tuple[list, str]:
    """Play the Industria games, keeping every answer the checks at ``sites`` give (in call order)."""
    answers: list = []

    def recording(original):
        def answer(*args, **kwargs):
            out = original(*args, **kwargs)
            answers.append(out)
            return out
        return answer

    with Swapped(sites, recording):
        _, _, digest = play(players, games, seed, True)
    return answers, digest


def replay(sites: list, answers: list, players: int, games: int, seed: int, digest: str) -> tuple[float, int]:
    """Play the same games with the checks at ``sites`` answering from ``answers``; (seconds, decisions).
    Raises if the games differ or an answer is left over (a check the engine did not call through its
    module attribute, as compiled code does)."""
    remaining = iter(answers)
    given = remaining.__next__

    def replaying(original):
        return lambda *args, **kwargs: given()

    try:
        with Swapped(sites, replaying):
            seconds, decisions, played = play(players, games, seed, True)
    except StopIteration:                   # the engine asked more often than it did when recorded
        played = None
    left = sum(1 for _ in remaining)
    if played != digest or left:
        raise RuntimeError(f"the replayed games are not the recorded ones ({left} answers unused): the checks "
                           f"must be module attributes the engine looks up (pure Python: CLANS_PURE_PYTHON=1)")
    return seconds, decisions


def measure(players: int, games: int, seed: int, variants: list[str], rounds: int) -> dict:
    """Microseconds per decision (median of ``rounds``, the variants alternating in each) of base games,
    Industria games, and Industria games with each variant's checks answered from a record."""
    sites = {v: [site for name in v.split("+") for site in check_sites(name)] for v in variants}
    recorded = {v: record(sites[v], players, games, seed) for v in variants}
    times: dict = {"base game": [], "industria": []}
    times.update({v: [] for v in variants})
    for _ in range(rounds):
        s, n, _ = play(players, games, seed, False)
        times["base game"].append(s / n * 1e6)
        s, n, _ = play(players, games, seed, True)
        times["industria"].append(s / n * 1e6)
        for v in variants:
            answers, digest = recorded[v]
            s, n = replay(sites[v], answers, players, games, seed, digest)
            times[v].append(s / n * 1e6)
    return {name: statistics.median(ts) for name, ts in times.items()}


def _train_inputs(g, p: int) -> tuple:
    """Part of what the Train check reads (p's Goods and money; the Trains, Mini-trains, tilts, claims and
    Demand tiles): an answer kept per these values could be reused at most when they repeat."""
    ts = g.modstate["trains"]
    return (tuple(g.players[p].goods), g.players[p].money, tuple(ts.at), tuple(ts.mini or ()), tuple(ts.tilt),
            tuple(ts.claims), tuple(ts.demand))


def _claim_inputs(g, p: int) -> tuple:
    """Part of what the Milestone check reads (p's Goods, units, spaces, contracts, imports, Port tiles used;
    the claims and markers)."""
    pl = g.players[p]
    ts = g.modstate["trains"]
    return (tuple(pl.goods), tuple(pl.units_left), pl.spaces, len(pl.done_contracts), tuple(pl.imports),
            pl.ports_used, tuple(ts.claims), tuple(ts.markers))


def input_reuse(players: int, games: int, seed: int) -> dict:
    """Share of main decisions at which part of a check's inputs (``_train_inputs``, ``_claim_inputs``) is what
    it was at the same player's previous main decision: a bound from above on how often an answer
    remembered by value could be reused (the parts left out can only make it rarer)."""
    from clans_env import Game, GameConfig
    from clans_env.engine.state import K_MAIN
    rng = random.Random(seed)
    same = {"train": 0, "claim": 0}
    mains = 0
    for i in range(games):
        g = Game(GameConfig(num_players=players, seed=seed + i, industria=True))
        last: dict = {}
        while not g.is_terminal():
            frame = g.stack[-1]
            if frame[0] == K_MAIN:
                p = frame[1]
                mains += 1
                for name, inputs in (("train", _train_inputs), ("claim", _claim_inputs)):
                    now = inputs(g, p)
                    same[name] += last.get((name, p)) == now
                    last[(name, p)] = now
            legal = g.legal_actions()
            g.apply(legal[int(rng.random() * len(legal))])
    return {name: n / mains for name, n in same.items()}


def report(players: int, medians: dict, reuse: dict | None = None) -> str:
    base = medians["base game"]
    full = medians["industria"]
    lines = [f"{players} players: base {base:.2f} us a decision, Industria {full:.2f} us (x{full / base:.2f} "
             f"a base decision)",
             f"  {'checks answered from a record':32} {'us/decision':>11} {'x base':>7} {'saved':>7}"]
    for name, us in medians.items():
        if name in ("base game", "industria"):
            continue
        lines.append(f"  {name:32} {us:11.2f} {us / base:7.2f} {full - us:7.2f}")
    if reuse:
        lines.append("  inputs as at the player's previous main decision (an answer remembered by value reused at "
                     "most): " + ", ".join(f"{name} check {share:.1%}" for name, share in reuse.items()))
    return "\n".join(lines)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, nargs="+", default=[2])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=700)
    ap.add_argument("--checks", nargs="+", default=["train", "claim", "clans", "train+claim"],
                    help=f"checks to answer from a record ({', '.join(CHECKS)}; several joined with '+')")
    args = ap.parse_args(argv)
    for v in args.checks:
        for name in v.split("+"):
            check_sites(name)                 # a clear error for an unknown name before any game is played
    from clans_env.engine import COMPILED
    if COMPILED:
        sys.exit("check_costs.py swaps the checks as module attributes, which compiled code does not look up: "
                 "run it with CLANS_PURE_PYTHON=1")
    for players in args.players:
        medians = measure(players, args.games, args.seed, args.checks, args.rounds)
        print(report(players, medians, input_reuse(players, args.games, args.seed)), flush=True)


if __name__ == "__main__":
    main()
