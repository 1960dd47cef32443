"""What the main decision's Industria checks cost in play, as a bound on what making them faster can save
(issue 34: a full Industria decision against a base one).

    python benchmarks/check_costs.py                        # 2 players, 20 games x 3 rounds
    python benchmarks/check_costs.py --players 2 3 4 --checks train claim clans train+claim
    python benchmarks/check_costs.py --checks train-tracked+claim-tracked train+claim

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

``train-tracked`` and ``claim-tracked`` bound change tracking instead (answers kept up to date as the state
changes, so a check runs only when what it reads has changed): the check answers from the record only where
what it reads (``_train_state`` / ``_claim_state``) and its answer are what they were at the same player's
previous call, and runs as usual elsewhere. The tracking itself is free here, and the Train check's money is
left out of what it reads, so no real tracking can do better.

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
#: the suffix of a check answered from the record only where a perfect change tracking could (module docstring)
TRACKED = "-tracked"
#: the name of a ``-tracked`` variant's companion run: the same replay with every check run (``measure``)
ALWAYS_RUN = " (always run)"


def check_sites(name: str) -> list:
    """(owner, attribute) of each function that answers check ``name`` (``-tracked``: the same functions)."""
    from clans_env.engine.clans import CLANS, Clan
    from clans_env.engine.rules import milestones, trains
    if name in ("train" + TRACKED, "claim" + TRACKED):
        name = name[:-len(TRACKED)]
    if name == "train":
        return [(trains, "can_take_train_action")]
    if name == "claim":
        return [(milestones, "claimable")]
    if name == "clans":
        owners = {next(k for k in type(c).__mro__ if "main_actions" in k.__dict__) for c in CLANS.values()}
        return sorted(((k, "main_actions") for k in owners if k is not Clan), key=lambda site: site[0].__name__)
    raise ValueError(f"unknown check {name!r}; valid checks: {', '.join(CHECKS)}, train{TRACKED}, claim{TRACKED} "
                     f"(joined with '+')")


def tracked_state(name: str):
    """What check ``name`` reads, as a function of (game, player), for a ``-tracked`` check; None otherwise."""
    return {"train" + TRACKED: _train_state, "claim" + TRACKED: _claim_state}.get(name)


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
    """Within ``with``: the functions of ``sites`` replaced by ``make(original, index of the site)``."""

    def __init__(self, sites: list, make):
        self.sites = sites
        self.make = make
        self.saved: list = []

    def __enter__(self):
        for index, (owner, attr) in enumerate(self.sites):
            original = owner.__dict__[attr] if isinstance(owner, type) else getattr(owner, attr)
            self.saved.append((owner, attr, original))
            setattr(owner, attr, self.make(original, index))
        return self

    def __exit__(self, *exc):
        for owner, attr, original in reversed(self.saved):
            setattr(owner, attr, original)
        self.saved.clear()


def record(sites: list, players: int, games: int, seed: int, tracked: list | None = None) -> tuple[list, str]:
    """Play the Industria games, keeping every answer the checks at ``sites`` give (in call order). With
    ``tracked`` (per site, ``tracked_state``'s function or None), each answer is kept as (answer, reusable):
    reusable when the site's state and answer are what they were at that player's previous call with the same
    arguments (a site without a state function: always)."""
    answers: list = []
    last: dict = {}

    def recording(original, index):
        state = tracked[index] if tracked else None

        def answer(*args, **kwargs):
            out = original(*args, **kwargs)
            if tracked is None:
                answers.append(out)
                return out
            reusable = True
            if state is not None:
                key = (index, args[1:], tuple(sorted(kwargs.items())))
                now = (state(args[0], args[1]), out)
                reusable = last.get(key) == now
                last[key] = now
            answers.append((out, reusable))
            return out
        return answer

    with Swapped(sites, recording):
        _, _, digest = play(players, games, seed, True)
    return answers, digest


def replay(sites: list, answers: list, players: int, games: int, seed: int, digest: str,
           tracked: bool = False) -> tuple[float, int]:
    """Play the same games with the checks at ``sites`` answering from ``answers``; (seconds, decisions).
    ``tracked``: the answers were recorded with ``tracked``, as (answer, reusable), and the check runs as usual
    where not reusable.
    Raises if the games differ or an answer is left over (a check the engine did not call through its
    module attribute, as compiled code does)."""
    remaining = iter(answers)
    given = remaining.__next__

    def replaying(original, index):
        return lambda *args, **kwargs: given()

    def replaying_tracked(original, index):
        def answer(*args, **kwargs):
            out, reusable = given()
            return out if reusable else original(*args, **kwargs)
        return answer

    try:
        with Swapped(sites, replaying_tracked if tracked else replaying):
            seconds, decisions, played = play(players, games, seed, True)
    except StopIteration:                   # the engine asked more often than it did when recorded
        played = None
    left = sum(1 for _ in remaining)
    if played != digest or left:
        raise RuntimeError(f"the replayed games are not the recorded ones ({left} answers unused): the checks "
                           f"must be module attributes the engine looks up (pure Python: CLANS_PURE_PYTHON=1)")
    return seconds, decisions


def measure(players: int, games: int, seed: int, variants: list[str], rounds: int,
            reused: dict | None = None) -> dict:
    """Microseconds per decision (median of ``rounds``, the variants alternating in each) of base games,
    Industria games, and Industria games with each variant's checks answered from a record. ``reused``, if
    given, receives per variant with a ``-tracked`` check the share of its calls answered from the record.
    Such a variant's replay calls a wrapper at every check (to run it where the answer may not be reused):
    it is timed again with every check run (key ``variant + ALWAYS_RUN``), so that the wrapper's cost,
    which perfect tracking would not pay, can be taken out of the saving (``report``)."""
    sites: dict = {}
    tracked: dict = {}
    for v in variants:
        sites[v], tracked[v] = [], []
        for name in v.split("+"):
            for site in check_sites(name):
                sites[v].append(site)
                tracked[v].append(tracked_state(name))
    recorded = {v: record(sites[v], players, games, seed, tracked[v] if any(tracked[v]) else None)
                for v in variants}
    for v in variants:
        answers, digest = recorded[v]
        if any(tracked[v]):
            if reused is not None:
                reused[v] = sum(r for _, r in answers) / len(answers)
            # the same replay with every check run, to take the replay's own call out of the saving
            recorded[v + ALWAYS_RUN] = [(a, False) for a, _ in answers], digest
    times: dict = {"base game": [], "industria": []}
    times.update({v: [] for v in recorded})
    for _ in range(rounds):
        s, n, _ = play(players, games, seed, False)
        times["base game"].append(s / n * 1e6)
        s, n, _ = play(players, games, seed, True)
        times["industria"].append(s / n * 1e6)
        for v, (answers, digest) in recorded.items():
            name = v.removesuffix(ALWAYS_RUN)
            s, n = replay(sites[name], answers, players, games, seed, digest, any(tracked[name]))
            times[v].append(s / n * 1e6)
    return {name: statistics.median(ts) for name, ts in times.items()}


def _train_state(g, p: int) -> tuple:
    """Everything the Train check reads but p's money: p's Train and Mini-train, tilt, claims and Goods (and
    Port tile 16's use, R13.9: whether p reaches its Port), every player's pieces (fees), the Demand tiles and
    the solo game's deliveries. Money changes at almost every turn and matters only where p cannot pay every
    fee: left out, so that the bound is generous (the recorded answer must still be the previous one)."""
    ts = g.modstate["trains"]
    pl = g.players[p]
    n = g.num_players
    return (ts.at[p], ts.tilt[p], tuple(ts.claims[p::n]), tuple(pl.goods), pl.ports_used, pl.spaces, pl.shipping,
            tuple(ts.at), tuple(ts.mini or ()), tuple(ts.demand), tuple(ts.solo_done or ()))


def _claim_state(g, p: int) -> tuple:
    """Everything the Milestone check reads (R13.19-R13.25): p's units on the map and in supply, spaces, second
    units, station, contracts, imports, Port tiles used, upgrades, claims and markers; p's Goods only where
    Milestone 4 (Goods in stock) is out, and money only in the variants (R16.3/R16.4)."""
    from clans_env.engine.rules.common import second_units, station_space
    from clans_env.engine.rules.scoring import basic_in_stock, upgrades_count
    ts = g.modstate["trains"]
    pl = g.players[p]
    n = g.num_players
    return (tuple(pl.units_left), tuple(pl.units_total), pl.spaces, tuple(second_units(g)), station_space(g, p),
            tuple(pl.done_contracts), tuple(pl.imports), pl.ports_used, upgrades_count(g, p),
            tuple(ts.claims[p::n]), (ts.markers or ())[p:p + 1], tuple(ts.ms),
            basic_in_stock(g, p) if 4 in ts.ms else None,
            (pl.money, tuple(pl.goods), tuple(ts.demand or ())) if g.config.milestones else None)


def _train_inputs(g, p: int) -> tuple:
    """Everything the Train check reads (``_train_state`` and p's money): an answer kept per these values could
    be reused only when they repeat."""
    return _train_state(g, p) + (g.players[p].money,)


def _claim_inputs(g, p: int) -> tuple:
    """Everything the Milestone check reads, p's Goods whole (``_claim_state`` keeps them only where a tile
    reads them)."""
    return _claim_state(g, p) + (tuple(g.players[p].goods),)


def input_reuse(players: int, games: int, seed: int) -> dict:
    """Share of main decisions at which a check's inputs (``_train_inputs``, ``_claim_inputs``) are what they
    were at the same player's previous main decision: how often an answer remembered by value could be
    reused."""
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


def report(players: int, medians: dict, reuse: dict | None = None, reused: dict | None = None) -> str:
    base = medians["base game"]
    full = medians["industria"]
    lines = [f"{players} players: base {base:.2f} us a decision, Industria {full:.2f} us (x{full / base:.2f} "
             f"a base decision)",
             f"  {'checks answered from a record':32} {'us/decision':>11} {'x base':>7} {'saved':>7}"]
    for name, us in medians.items():
        if name in ("base game", "industria") or name.endswith(ALWAYS_RUN):
            continue
        saved = full - us
        if name + ALWAYS_RUN in medians:        # tracked: the saving against the same replay running every check
            saved = medians[name + ALWAYS_RUN] - us
            us = full - saved
        lines.append(f"  {name:32} {us:11.2f} {us / base:7.2f} {saved:7.2f}"
                     + (f"  (from the record at {reused[name]:.1%} of its calls)" if reused and name in reused else ""))
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
                    help=f"checks to answer from a record ({', '.join(CHECKS)}, train{TRACKED}, claim{TRACKED}; "
                         "several joined with '+')")
    args = ap.parse_args(argv)
    for v in args.checks:
        for name in v.split("+"):
            check_sites(name)                 # a clear error for an unknown name before any game is played
    from clans_env.engine import COMPILED
    if COMPILED:
        sys.exit("check_costs.py swaps the checks as module attributes, which compiled code does not look up: "
                 "run it with CLANS_PURE_PYTHON=1")
    for players in args.players:
        reused: dict = {}
        medians = measure(players, args.games, args.seed, args.checks, args.rounds, reused)
        print(report(players, medians, input_reuse(players, args.games, args.seed), reused), flush=True)


if __name__ == "__main__":
    main()
