"""Agent strength and speed benchmarks (``clans benchmark ...`` and ``benchmarks/*.py``).

Every figure comes with the number of games played and a 95% interval:

* ``strength``: Heuristic vs Random and MCTS vs Heuristic in 2-player games (seat-rotated
  tournaments on shared deals), and solo means with the rulebook result bands.
* ``vs_openspiel``: our ``MCTSAgent`` against OpenSpiel's ``MCTSBot`` (random-rollout evaluator)
  at the same number of simulations per decision: win rate and simulations per second of each,
  measured in the same games.
* ``speed``: engine steps/s, clone cost, heuristic decision time and MCTS simulations/s, with
  ratios against the random-playout step measured in the same run.
"""
from __future__ import annotations

import random
import time

from agents.threads import core_sharing_pool
from clans_env.engine import Game, GameConfig

from .progress import Progress
from .ratings import mean_interval, wilson_interval
from .tournament import _derive_seed, play_game, run_tournament


# ------------------------------------------------------------------------------------------------
# strength
def head_to_head(spec_a: str, spec_b: str, games: int, seed: int = 0, workers: int = 2, progress: bool = True) -> dict:
    """``spec_a`` against ``spec_b`` over ``games`` 2-player games (each deal played from both
    seats): A's win rate with a 95% Wilson interval and both mean scores."""
    res = run_tournament([spec_a, spec_b], num_players=2, games_per_pairing=games, seed=seed, workers=workers,
                         progress=progress)
    a, b = res.agents
    rows = {s["agent"]: s for s in res.standings}
    h = res.head_to_head[a][b]
    return {"a": a, "b": b, "games": h["games"], "a_win_rate": h["rate"], "a_win_rate_ci95": h["ci95"],
            "a_mean_score": rows[a]["mean_score"], "a_mean_score_ci95": rows[a]["mean_score_ci95"],
            "b_mean_score": rows[b]["mean_score"], "b_mean_score_ci95": rows[b]["mean_score_ci95"],
            "a_ms_per_decision": rows[a]["ms_per_decision"], "b_ms_per_decision": rows[b]["ms_per_decision"],
            "seconds": res.seconds}


def decision_seconds(spec: str, num_players: int = 2, samples: int = 6, seed: int = 0) -> float:
    """Seconds ``spec`` takes per decision on this machine, timed on ``samples`` positions spread over a
    game of random moves (late positions cost more than early ones); for estimating a benchmark's length."""
    import random as _random
    import time

    from agents import make
    agent = make(spec, seed=seed)
    rng = _random.Random(seed)
    game = Game(GameConfig(num_players=num_players, seed=seed))
    every = max(1, int(decisions_per_player(num_players, seed) * num_players) // samples)
    spent, timed, moves = 0.0, 0, 0
    try:
        while not game.is_terminal():
            if moves % every == 0:
                start = time.perf_counter()
                agent.act(game)
                spent += time.perf_counter() - start
                timed += 1
            game.apply(rng.choice(game.legal_actions()))
            moves += 1
    finally:
        close = getattr(agent, "close", None)
        if close:
            close()
    return spent / max(timed, 1)


def decisions_per_player(num_players: int = 2, seed: int = 0) -> float:
    """Decisions a seat makes in a game (counted over one game of random moves)."""
    import random as _random
    rng = _random.Random(seed)
    game = Game(GameConfig(num_players=num_players, seed=seed))
    moves = 0
    while not game.is_terminal():
        game.apply(rng.choice(game.legal_actions()))
        moves += 1
    return moves / num_players


def estimate_seconds(lineup: list[str], games: int, workers: int = 2, seed: int = 0) -> float:
    """A rough duration of ``games`` games between the specs of ``lineup`` (one per seat; one spec for a
    solo game) on ``workers`` processes: each spec's timed seconds per decision times the decisions a seat
    makes in a game."""
    n = len(lineup)
    per_game = decisions_per_player(n, seed) * sum(decision_seconds(spec, n, seed=seed) for spec in lineup)
    return games * per_game / max(1, min(workers, games))


def _solo_job(args):
    spec, game_seed, agent_seed = args
    from agents import make
    agent = make(spec, seed=agent_seed)
    game, _, seconds = play_game([agent], GameConfig(num_players=1, seed=game_seed))
    row = game.final_scores()[0]
    close = getattr(agent, "close", None)
    if close:
        close()
    return row["total"], row.get("band"), seconds[0]


def solo(spec: str, games: int, seed: int = 0, workers: int = 2, progress: bool = True) -> dict:
    """Mean final score (95% interval) and result-band counts of ``spec`` in solo games.
    Raises ValueError if this engine has no solo game."""
    try:
        Game(GameConfig(num_players=1, seed=0))
    except Exception as e:  # noqa: BLE001 - any failure means: no solo game to benchmark
        raise ValueError(f"the solo game is not available in this engine ({type(e).__name__}: {e})") from None
    jobs = [(spec, _derive_seed(seed, i, 1), _derive_seed(seed, i, 2)) for i in range(games)]
    out = []
    with Progress(games, "solo games", "games", enabled=progress) as bar:
        if workers <= 1:
            for j in jobs:
                out.append(_solo_job(j))
                bar.update(text=spec)
        else:
            with core_sharing_pool(workers) as pool:
                for r in pool.map(_solo_job, jobs):
                    out.append(r)
                    bar.update(text=spec)
    totals = [t for t, _, _ in out]
    bands: dict[str, int] = {}
    for _, band, _ in out:
        bands[band] = bands.get(band, 0) + 1
    mean, lo, hi = mean_interval(totals)
    return {"agent": spec, "games": games, "mean_score": mean, "mean_score_ci95": [lo, hi], "bands": bands,
            "band_of_mean": _band(mean)}


def _band(total: float) -> str:
    from clans_env.engine.rules.scoring import solo_band
    return solo_band(int(total))


def format_head_to_head(r: dict) -> str:
    lo, hi = r["a_win_rate_ci95"]
    alo, ahi = r["a_mean_score_ci95"]
    blo, bhi = r["b_mean_score_ci95"]
    return (f"{r['a']} vs {r['b']}: {r['games']} games, {r['a']} wins {r['a_win_rate']:.1%} "
            f"(95% CI {lo:.1%}-{hi:.1%}); mean VP {r['a_mean_score']:.1f} ({alo:.1f}-{ahi:.1f}) vs "
            f"{r['b_mean_score']:.1f} ({blo:.1f}-{bhi:.1f}); ms/decision {r['a_ms_per_decision']:.1f} vs "
            f"{r['b_ms_per_decision']:.1f}; {r['seconds']:.0f} s")


def format_solo(r: dict) -> str:
    lo, hi = r["mean_score_ci95"]
    bands = ", ".join(f"{k}: {v}" for k, v in sorted(r["bands"].items(), key=lambda kv: -kv[1]))
    return (f"solo {r['agent']}: {r['games']} games, mean VP {r['mean_score']:.1f} (95% CI {lo:.1f}-{hi:.1f}) = "
            f"{r['band_of_mean']}; bands {bands}")


# ------------------------------------------------------------------------------------------------
# against OpenSpiel's MCTSBot
#: our MCTSAgent's two configurations against OpenSpiel's MCTSBot (same game, same deals and seeds,
#: same simulation count per decision)
OPENSPIEL_CONFIGS = {
    # the agent as shipped: each new leaf valued by the heuristic's estimated final VP (no rollout),
    # heuristic move ordering and progressive widening
    "heuristic": {},
    # like MCTSBot's RandomRolloutEvaluator(1): one uniformly random rollout to the end of the game
    # per simulation, valued by the final score; no widening (root ordering still by the heuristic)
    "random": {"rollout": "random", "depth": 10 ** 6, "widen": 0.0},
}


def _openspiel_game_job(args):
    """One game: our MCTSAgent in seat ``our_seat`` against OpenSpiel's MCTSBot, same sims."""
    index, sims, our_seat, chance_outcome, seed, uct_c_ours, uct_c_theirs, config = args
    import numpy as np
    from open_spiel.python.algorithms import mcts as os_mcts

    from agents import MCTSAgent
    from clans_env.interop import openspiel_game

    game = openspiel_game.load(num_players=2)
    state = game.new_initial_state()
    state.apply_action(chance_outcome)
    ours = MCTSAgent(sims=sims, c=uct_c_ours, seed=_derive_seed(seed, index, 11), **OPENSPIEL_CONFIGS[config])
    bot = os_mcts.MCTSBot(game, uct_c=uct_c_theirs, max_simulations=sims,
                          evaluator=os_mcts.RandomRolloutEvaluator(
                              1, np.random.RandomState(_derive_seed(seed, index, 12))),
                          solve=False, random_state=np.random.RandomState(_derive_seed(seed, index, 13)))
    time_ours = time_theirs = 0.0
    searches_ours = searches_theirs = 0
    perf = time.perf_counter
    while not state.is_terminal():
        legal = state.legal_actions()
        if len(legal) == 1:                # neither side searches a forced move
            state.apply_action(legal[0])
            continue
        if state.current_player() == our_seat:
            t = perf()
            a = ours.act(state.engine)
            time_ours += perf() - t
            searches_ours += 1
        else:
            t = perf()
            a = bot.step(state)
            time_theirs += perf() - t
            searches_theirs += 1
        state.apply_action(a)
    returns = state.returns()
    totals = [r["total"] for r in state.engine.final_scores()]
    return {"index": index, "our_seat": our_seat, "our_return": returns[our_seat], "totals": totals,
            "searches_ours": searches_ours, "searches_theirs": searches_theirs,
            "time_ours": time_ours, "time_theirs": time_theirs}


def vs_openspiel(games: int, sims: int = 100, seed: int = 0, workers: int = 2, progress: bool = True,
                 uct_c_theirs: float = 2.0, uct_c_ours: float = 0.2, config: str = "heuristic") -> dict:
    """Our MCTSAgent (``config``: a key of OPENSPIEL_CONFIGS) vs OpenSpiel's MCTSBot
    (RandomRolloutEvaluator, one rollout to the end) at ``sims`` simulations per decision in 2-player
    games; each deal is played from both seats."""
    if config not in OPENSPIEL_CONFIGS:
        raise ValueError(f"config must be one of {sorted(OPENSPIEL_CONFIGS)} (got {config!r})")
    jobs = []
    for i in range(games):
        deal = i // 2
        jobs.append((i, sims, i % 2, _derive_seed(seed, deal) % 1000, seed, uct_c_ours, uct_c_theirs, config))
    results = []
    with Progress(games, f"vs OpenSpiel ({config})", "games", enabled=progress) as bar:
        if workers <= 1:
            for j in jobs:
                results.append(_openspiel_game_job(j))
                bar.update(text="ours vs OpenSpiel MCTSBot")
        else:
            with core_sharing_pool(workers) as pool:
                for r in pool.map(_openspiel_game_job, jobs):
                    results.append(r)
                    bar.update(text="ours vs OpenSpiel MCTSBot")
    wins = sum(1.0 if r["our_return"] > 0 else (0.5 if r["our_return"] == 0 else 0.0) for r in results)
    lo, hi = wilson_interval(wins, len(results))
    ours_rate = sum(r["searches_ours"] for r in results) * sims / max(sum(r["time_ours"] for r in results), 1e-9)
    theirs_rate = sum(r["searches_theirs"] for r in results) * sims / max(sum(r["time_theirs"] for r in results),
                                                                          1e-9)
    margins = [r["totals"][r["our_seat"]] - r["totals"][1 - r["our_seat"]] for r in results]
    m, mlo, mhi = mean_interval(margins)
    return {"games": len(results), "sims": sims, "win_rate": wins / len(results), "win_rate_ci95": [lo, hi],
            "mean_margin": m, "mean_margin_ci95": [mlo, mhi], "ours_sims_per_s": ours_rate,
            "openspiel_sims_per_s": theirs_rate,
            "speed_ratio": ours_rate / theirs_rate if theirs_rate else float("inf"),
            "uct_c_ours": uct_c_ours, "uct_c_openspiel": uct_c_theirs, "config": config}


def format_vs_openspiel(r: dict) -> str:
    lo, hi = r["win_rate_ci95"]
    mlo, mhi = r["mean_margin_ci95"]
    what = {"heuristic": "heuristic leaf evaluation (as shipped)",
            "random": "random rollouts to the end (as MCTSBot)"}[r.get("config", "heuristic")]
    return (f"MCTSAgent [{what}] vs OpenSpiel MCTSBot [random rollouts] at {r['sims']} simulations/decision: "
            f"{r['games']} games, our win rate "
            f"{r['win_rate']:.1%} (95% CI {lo:.1%}-{hi:.1%}), mean VP margin {r['mean_margin']:+.1f} "
            f"({mlo:+.1f} to {mhi:+.1f}); simulations/s ours {r['ours_sims_per_s']:.0f} vs OpenSpiel "
            f"{r['openspiel_sims_per_s']:.0f} = {r['speed_ratio']:.1f}x")


# ------------------------------------------------------------------------------------------------
# speed
def speed(seconds: float = 3.0, seed: int = 0) -> dict:
    """Engine and agent speed on 2-player games, each as a rate and as a ratio to the random
    playout step measured in this same run."""
    from agents import HeuristicAgent, MCTSAgent

    rng = random.Random(seed)
    perf = time.perf_counter
    # random playouts
    steps, t0, i = 0, perf(), 0
    positions = []
    while perf() - t0 < seconds:
        g = Game(GameConfig(num_players=2, seed=seed + i))
        i += 1
        while not g.is_terminal():
            legal = g.legal_actions()
            if len(legal) > 1 and rng.random() < 0.05:
                positions.append(g.clone())
            g.apply(legal[rng.randrange(len(legal))])
            steps += 1
    step_us = (perf() - t0) / steps * 1e6
    # clone
    n = 0
    t0 = perf()
    while perf() - t0 < seconds / 3:
        for p in positions[:200]:
            p.clone()
            n += 1
    clone_us = (perf() - t0) / n * 1e6
    # heuristic decisions
    h = HeuristicAgent(seed=seed)
    n, t0 = 0, perf()
    while perf() - t0 < seconds:
        h.act(positions[n % len(positions)])
        n += 1
    heur_ms = (perf() - t0) / n * 1e3
    # mcts
    m = MCTSAgent(sims=100, seed=seed, reuse=False)
    sims, t0, k = 0, perf(), 0
    while perf() - t0 < seconds:
        m.act(positions[k % len(positions)])
        sims += m.last_stats.get("simulations", 0)
        k += 1
    sims_per_s = sims / (perf() - t0)
    return {"random_step_us": step_us, "random_steps_per_s": 1e6 / step_us, "clone_us": clone_us,
            "clone_in_steps": clone_us / step_us, "heuristic_ms_per_decision": heur_ms,
            "heuristic_decision_in_steps": heur_ms * 1000 / step_us, "mcts_sims_per_s": sims_per_s,
            "mcts_sim_in_steps": (1e6 / sims_per_s) / step_us if sims_per_s else float("inf"),
            "positions": len(positions)}


def format_speed(r: dict) -> str:
    return (f"random playout step {r['random_step_us']:.1f} us ({r['random_steps_per_s']:.0f} steps/s); "
            f"clone {r['clone_us']:.1f} us = {r['clone_in_steps']:.2f} steps; heuristic decision "
            f"{r['heuristic_ms_per_decision']:.2f} ms = {r['heuristic_decision_in_steps']:.0f} steps; MCTS "
            f"{r['mcts_sims_per_s']:.0f} simulations/s = {r['mcts_sim_in_steps']:.1f} steps per simulation "
            f"({r['positions']} sampled positions)")
