"""Build the tutorial notebooks from the cell sources below (plain .ipynb, no jupytext).

    python notebooks/build_notebooks.py                 # write the notebooks without outputs
    python notebooks/build_notebooks.py --execute       # write them, then run each and store its outputs
    python notebooks/build_notebooks.py --execute 01    # only the notebooks whose name contains "01"

The notebooks are committed with their outputs; ``tests/test_notebooks.py`` executes them again
with nbclient so they cannot go stale. Budgets are small so each runs in well under two
minutes on two cores.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent
TIMEOUT = 600


def md(text: str):
    return new_markdown_cell(text.strip("\n"))


def code(text: str):
    return new_code_cell(text.strip("\n"))


# ---------------------------------------------------------------------------------------------
QUICKSTART = [
    md("""
# 01 · Quickstart: the environment, agents, the map and the score sheet

This notebook plays Clans of Caledonia through the **PettingZoo AEC environment** with a random and a
heuristic agent, draws the map, looks at the public state and the score sheet, and finishes with the
**Gymnasium** single-agent wrapper. Everything here runs in a few seconds.

* Environment reference: `docs/api/environment.md`; engine reference: `docs/api/engine.md`.
* Play a game yourself in the terminal: `clans play --opponents heuristic`.
"""),
    code("""
%matplotlib inline
import json
import time

import matplotlib.pyplot as plt
import numpy as np

import agents
import clans_env
from clans_env.engine import data as D

env = clans_env.env(num_players=2, render_mode="rgb_array")
env.reset(seed=7)
obs, reward, terminated, truncated, info = env.last()
print("agents:", env.agents)
print("observation vector:", obs["observation"].shape, obs["observation"].dtype)
print("action space:", env.action_space(env.agent_selection), "- legal now:", int(obs["action_mask"].sum()))
print("first decision:", env.unwrapped.game.decision_text())
"""),
    md("""
Every decision of the game is one step of the deciding agent: main actions, "which space", bonus purchases,
production choices and setup picks. The action space is the engine's flat table of 325 actions, and the
legal ones are given as `action_mask`. The observation is a flat float vector with named slices:
"""),
    code("""
layout = env.unwrapped.observation_layout
for part in layout[:6] + layout[-4:]:
    print(f"{part.name:26s} [{part.start:5d}:{part.start + part.length:5d}]  {part.description}")
print(f"... {len(layout)} named slices, {sum(p.length for p in layout)} numbers in all")
"""),
    md("""
## Play one game: heuristic (player_0) against random (player_1)

Agents from `agents.make(spec)` act on the engine state (`env.unwrapped.game`); the environment applies
their action like any other policy's.
"""),
    code("""
bots = {"player_0": agents.make("heuristic", seed=0), "player_1": agents.make("random", seed=1)}
env.reset(seed=7)
steps, moves, final_reward = 0, [], {}
start = time.perf_counter()
for agent in env.agent_iter():
    obs, reward, terminated, truncated, info = env.last()
    if terminated or truncated:
        final_reward[agent] = reward
        action = None
    else:
        action = bots[agent].act(env.unwrapped.game)
        assert obs["action_mask"][action]
        moves.append((agent, env.unwrapped.game.action_to_string(action)))
    env.step(action)
    steps += 1
print(f"{steps} steps in {time.perf_counter() - start:.1f} s; final rewards: {final_reward}")
print("first moves:", moves[:6])
print("last moves:", moves[-4:])
"""),
    md("## The map at the end of the game (`render_mode=\"rgb_array\"`)"),
    code("""
image = env.render()
fig, ax = plt.subplots(figsize=(11, 6.5), dpi=72)
ax.imshow(image)
ax.axis("off")
ax.set_title("End of the game: player_0 = heuristic, player_1 = random (the legend under the map: colours, VP)")
plt.show()
"""),
    md("""
## The public state

`game.public_state()` is a JSON-serialisable dictionary of everything on the table (schema in
`docs/public-state.md`); `str(game)` is the same information as text.
"""),
    code("""
game = env.unwrapped.game
state = game.public_state()
print(sorted(state))
print("market:", {good: row["price"] for good, row in state["market"].items()})
me = state["players"][0]
print(json.dumps({k: me[k] for k in ("clan", "money", "goods", "shipping_name", "glory", "fulfilled_contracts",
                                     "connected_settlements")}, indent=1))
"""),
    code("""
print(str(game).split("\\n")[0])
print("\\n".join(str(game).split("\\n")[-12:]))
"""),
    md("## The score sheet"),
    code("""
scores = game.final_scores()
lines = [k for k in scores[0] if k not in ("total", "money_left", "rank") and isinstance(scores[0][k], (int, float))]
print(f"{'':18s}" + "".join(f"{'player_' + str(p):>12s}" for p in range(len(scores))))
for k in lines + ["total", "rank"]:
    print(f"{k:18s}" + "".join(f"{row[k]:>12}" for row in scores))

fig, ax = plt.subplots(figsize=(7, 3.2))
left = np.zeros(len(scores))
for k in lines:
    values = np.array([row[k] for row in scores], dtype=float)
    ax.barh([f"player_{p}" for p in range(len(scores))], values, left=left, label=k.replace("_", " "))
    left += values
ax.set_xlabel("victory points")
ax.legend(ncol=4, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.25))
ax.set_title("Where the points came from")
plt.show()
"""),
    md("""
## Gymnasium: one learner against fixed opponents

`clans_env.wrappers.SingleAgentEnv` plays the other seats with any agent (here the heuristic) and exposes
`action_masks()` for maskable algorithms such as sb3-contrib's `MaskablePPO`.
"""),
    code("""
from clans_env.wrappers import SingleAgentEnv

single = SingleAgentEnv(num_players=2, opponents=agents.make("heuristic", seed=3))
obs, info = single.reset(seed=11)
rng = np.random.default_rng(0)
total_reward, steps, done = 0.0, 0, False
while not done:
    legal = np.flatnonzero(single.action_masks())
    obs, reward, terminated, truncated, info = single.step(int(rng.choice(legal)))
    total_reward += reward
    steps += 1
    done = terminated or truncated
print(f"a random learner took {steps} decisions; final reward {total_reward:+.1f}")
print("observation space:", single.observation_space.shape, "action space:", single.action_space)
"""),
    md("""
Next: `02_search_and_tournament.ipynb` (MCTS and ratings), `03_training.ipynb` (PPO),
`04_strategy.ipynb` (what wins).
"""),
]

# ---------------------------------------------------------------------------------------------
TOURNAMENT = [
    md("""
# 02 · Search and a small tournament

A look at the Monte Carlo tree search agent on one position, then a round-robin tournament between the
random, heuristic and MCTS agents with OpenSkill ratings and win rates with 95% Wilson intervals.
The same tournament runs from the shell with `clans tournament random heuristic mcts:sims=30`.
Budget: about half a minute on two cores.
"""),
    code("""
%matplotlib inline
import time
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

import agents
from clans_env import Game, GameConfig
from training.tournament import report_table, run_tournament
"""),
    md("## One decision, three agents"),
    code("""
game = Game(GameConfig(num_players=2, seed=3))
heuristic = agents.make("heuristic", seed=0)
while game.round < 2 or game.decision_kind != "main":        # play into round 2 with the heuristic
    game.apply(heuristic.act(game))
print(f"round {game.round}, player {game.current_player}: {game.decision_text()}")
print(f"{len(game.legal_actions())} legal actions")
ROOT = Path.cwd().parent if Path.cwd().name == "notebooks" else Path.cwd()
model = ROOT / "models/ppo_2p/model.pt"       # the shipped PPO policy as the search's prior (PUCT)
for spec in ("random", "heuristic", "mcts:sims=100", f"mcts:sims=100,policy={model}"):
    bot = agents.make(spec, seed=1)
    start = time.perf_counter()
    action = bot.act(game)
    label = spec.replace(str(ROOT) + "/", "")
    print(f"{label:46s} -> {game.action_to_string(action):28s} ({1000 * (time.perf_counter() - start):.0f} ms)")
"""),
    md("""
With `policy=` the search selects by PUCT with a trained policy's probabilities (AlphaZero's rule) instead of
the heuristic ordering; over 30 games at 100 simulations it beat the plain search 77% of the time
(docs/agents.md).
"""),
    md("""
## A round-robin tournament

Seats are rotated on shared deals (every lineup plays the same game seeds from every seat), games run in
two worker processes, and every game updates the OpenSkill ratings.
"""),
    code("""
result = run_tournament(["random", "heuristic", "mcts:sims=30"], num_players=2, games_per_pairing=6,
                        seed=0, workers=2, progress=False)
print(f"{len(result.games)} games in {result.seconds:.0f} s")
from rich.console import Console
Console(width=120).print(report_table(result))
"""),
    code("""
fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 4))
xs = np.arange(1, len(result.rating_history) + 1)
for name in result.agents:
    mu = np.array([h[name][0] for h in result.rating_history])
    sd = np.array([h[name][1] for h in result.rating_history])
    line, = ax.plot(xs, mu, label=name)
    ax.fill_between(xs, mu - sd, mu + sd, color=line.get_color(), alpha=0.15)
ax.set_xlabel("games played")
ax.set_ylabel("OpenSkill mu (band: ± sigma)")
ax.set_title("Ratings during the tournament")
ax.legend()

rows = result.standings
names = [r["agent"] for r in rows]
rates = np.array([r["win_rate"] for r in rows])
lo = np.array([r["win_rate_ci95"][0] for r in rows])
hi = np.array([r["win_rate_ci95"][1] for r in rows])
bx.bar(names, rates, yerr=np.clip([rates - lo, hi - rates], 0, None), capsize=6, color="tab:blue")
bx.set_ylim(0, 1)
bx.set_ylabel("win rate (95% Wilson interval)")
bx.set_title(f"Win rates ({rows[0]['games']} games each)")
plt.tight_layout()
plt.show()
"""),
    md("## Head to head: how often the row agent finished ahead of the column agent"),
    code("""
names = result.agents
matrix = np.full((len(names), len(names)), np.nan)
for i, a in enumerate(names):
    for j, b in enumerate(names):
        if b in result.head_to_head.get(a, {}):
            matrix[i, j] = result.head_to_head[a][b]["rate"]
fig, ax = plt.subplots(figsize=(4.8, 4))
im = ax.imshow(matrix, vmin=0, vmax=1, cmap="RdBu")
ax.set_xticks(range(len(names)), names, rotation=20)
ax.set_yticks(range(len(names)), names)
for i in range(len(names)):
    for j in range(len(names)):
        if not np.isnan(matrix[i, j]):
            ax.text(j, i, f"{matrix[i, j]:.0%}", ha="center", va="center")
fig.colorbar(im, ax=ax, fraction=0.046)
plt.show()
"""),
    md("""
Six games per pairing is a smoke-sized sample: the intervals above are wide. For real comparisons run
`clans tournament ... --games-per-pairing 100 --out runs/NAME` (results.json, standings.csv, ratings.png and
one replay per game, which `clans replay` steps through).
"""),
]

# ---------------------------------------------------------------------------------------------
TRAINING = [
    md("""
# 03 · Training: a short PPO run, learning curves, evaluation, and the shipped checkpoint

Masked PPO with self-play (`training/ppo.py`; the recipe and its options are in `docs/training.md`). The run
here is deliberately tiny (about a minute): it shows the workflow — train, read the log, evaluate the
checkpoint as an agent — and then loads the checkpoint shipped in `models/ppo_2p/`, which was trained with
the same code for much longer. The same run from the shell:
`clans train ppo --config training/configs/ppo_2p.toml --out runs/my_run --max-updates 8`.
"""),
    code("""
%matplotlib inline
import json
import tempfile
import time
import warnings
from pathlib import Path

import matplotlib.pyplot as plt
from tqdm import TqdmWarning

warnings.filterwarnings("ignore", category=TqdmWarning)   # no ipywidgets here: plain progress bars are fine

import agents
from training.config import PPOConfig
from training.ppo import run as train_ppo
from training.tournament import run_tournament

ROOT = Path.cwd().parent if Path.cwd().name == "notebooks" else Path.cwd()
run_dir = Path(tempfile.mkdtemp(prefix="ppo_notebook_"))
"""),
    code("""
config = PPOConfig.load(ROOT / "training/configs/ppo_2p.toml").replace(**NOTEBOOK_OVERRIDES)
start = time.perf_counter()
trainer = train_ppo(config, run_dir, max_updates=NOTEBOOK_UPDATES, progress=False, tensorboard=False)
print(f"{trainer.update} updates, {trainer.global_step} learner decisions in {time.perf_counter() - start:.0f} s")
print("run directory:", sorted(p.name for p in run_dir.iterdir()))
"""),
    md("## Learning curves (from the run's `log.jsonl`)"),
    code("""
def read_log(path):
    rows = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    return [r for r in rows if r.get("kind") != "eval"], [r for r in rows if r.get("kind") == "eval"]


def plot_log(path, title):
    updates, evals = read_log(path)
    panels = [("train/mean_score", "mean VP of the learner"), ("policy_loss", "policy loss"),
              ("value_loss", "value loss"), ("entropy", "policy entropy"),
              ("explained_variance", "explained variance")]
    fig, axes = plt.subplots(2, 3, figsize=(13, 6))
    axes = axes.ravel()
    xs = [r["global_step"] for r in updates]
    for ax, (key, label) in zip(axes, panels):
        ax.plot(xs, [r.get(key, float("nan")) for r in updates])
        ax.set_title(label)
        ax.set_xlabel("learner decisions")
    ax = axes[-1]
    for opponent in ("random", "heuristic"):
        pts = [(r["global_step"], r["results"][opponent]["win_rate"]) for r in evals if opponent in r["results"]]
        if pts:
            ax.plot(*zip(*pts), marker="o", label=f"vs {opponent}")
    ax.set_ylim(-0.05, 1.05)
    ax.set_title("evaluation win rate")
    ax.legend(fontsize=8)
    fig.suptitle(title)
    plt.tight_layout()
    plt.show()


plot_log(run_dir / "log.jsonl", f"this notebook's run ({trainer.update} updates)")
"""),
    md("## Evaluate the new checkpoint as an agent (`ppo:path=...`) against random and heuristic"),
    code("""
model = run_dir / "model.pt"
result = run_tournament([f"ppo:path={model}", "random", "heuristic"], num_players=2, games_per_pairing=2,
                        mode="gauntlet", seed=1, workers=1, progress=False)
for row in result.standings:
    name = "ppo (this run)" if row["agent"].startswith("ppo") else row["agent"]
    print(f"{name:>16s}: win rate {row['win_rate']:.0%} over {row['games']} games, mean VP {row['mean_score']:.0f}")
"""),
    md("## The shipped checkpoint (`models/ppo_2p/`)"),
    code("""
shipped = ROOT / "models/ppo_2p/model.pt"
if shipped.exists():
    bot = agents.make(f"ppo:path={shipped}", seed=0)
    print("loaded", bot)
    shipped_log = next((shipped.with_name(n) for n in ("training_log.jsonl", "log.jsonl")
                        if shipped.with_name(n).exists()), None)
    if shipped_log is not None:
        plot_log(shipped_log, "the shipped run")
    report = shipped.with_name("eval.json")
    if report.exists():
        evaluation = json.loads(report.read_text())
        for opponent, r in evaluation["results"].items():
            lo, hi = r["ci95"]
            print(f"shipped evaluation vs {opponent}: win rate {r['win_rate']:.0%} [{lo:.0%}, {hi:.0%}] over "
                  f"{r['games']} games, mean margin {r['margin']['mean']:+.1f} VP")
    print("a few fresh games:")
    result = run_tournament([f"ppo:path={shipped}", "random", "heuristic"], num_players=2, games_per_pairing=4,
                            mode="gauntlet", seed=2, workers=2, progress=False)
    for row in result.standings:
        name = "ppo (shipped)" if row["agent"].startswith("ppo") else row["agent"]
        print(f"{name:>16s}: win rate {row['win_rate']:.0%} over {row['games']} games, "
              f"mean VP {row['mean_score']:.0f}")
else:
    print(f"No shipped checkpoint at {shipped.relative_to(ROOT)} yet: this cell is skipped. "
          "Train one with `clans train ppo --config training/configs/ppo_2p.toml --out models/ppo_2p`.")
"""),
]

#: the tiny training budget used by the notebook (merged into the shipped config)
TRAINING_SETUP = """
NOTEBOOK_UPDATES = 8
NOTEBOOK_OVERRIDES = dict(rollout_steps=512, num_envs=8, minibatch_size=256, eval_every=4, eval_games_random=4,
                          eval_games_heuristic=4, checkpoint_every=4)
"""

# ---------------------------------------------------------------------------------------------
STRATEGY = [
    md("""
# 04 · Strategy: what correlates with winning?

We play a few hundred fast two-player games between noisy heuristic agents (the noise makes the games
differ) with **random clans**, record what each player did, and ask which clans, scoring tiles and action
types go with winning. Budget: about a minute on two cores; raise `N_GAMES` for firmer answers.

These are correlations in games between one particular (greedy) policy, not proofs of strategy: the
heuristic's own preferences shape which actions appear at all.
"""),
    code("""
%matplotlib inline
import multiprocessing as mp
import random
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor

import matplotlib.pyplot as plt
import numpy as np
from tqdm import tqdm

import agents
from clans_env import Game, GameConfig
from clans_env.engine import actions as A
from clans_env.engine import data as D
from training.ratings import wilson_interval

N_GAMES = 160
WORKERS = 2
SPEC = "heuristic:noise=1.5"
"""),
    code("""
def action_type(game, action):
    \"\"\"A coarse action category: the main actions by kind, Expand by unit type.\"\"\"
    name, offset = A.section_of(action)
    if name == "expand" and game.decision_kind == "main":
        return "expand:" + D.UNITS[offset]
    if name == "trade" and game.decision_kind == "main":
        return "trade:" + A.DIRECTIONS[A.decode_trade(action)[1]]
    if game.decision_kind == "main" and name in ("take_contract", "upgrade_shipping", "upgrade_tech",
                                                 "hire_merchant", "fulfil", "use_port", "pass"):
        return name
    return None


def play(seed):
    rng = random.Random(seed)
    clans = tuple(rng.sample(D.CLANS_BASE, 2))
    game = Game(GameConfig(num_players=2, seed=seed, clans=clans))
    bots = [agents.make(SPEC, seed=seed * 2 + p) for p in range(2)]
    counts = [Counter(), Counter()]
    tile_glory = [defaultdict(int), defaultdict(int)]
    glory_before, round_before = [0, 0], game.round
    while not game.is_terminal():
        p = game.current_player
        action = bots[p].act(game)
        kind = action_type(game, action)
        if kind:
            counts[p][kind] += 1
        game.apply(action)
        if game.round != round_before or game.is_terminal():   # a round was scored
            tile = game.scoring_tiles[round_before - 1]
            for q in range(2):
                tile_glory[q][tile] += game.players[q].glory - glory_before[q]
            glory_before = [pl.glory for pl in game.players]
            round_before = game.round
    scores = game.final_scores()
    return {"seed": seed, "clans": clans, "tiles": list(game.scoring_tiles), "ranks": [s["rank"] for s in scores],
            "totals": [s["total"] for s in scores], "counts": [dict(c) for c in counts],
            "tile_glory": [dict(t) for t in tile_glory]}


with ProcessPoolExecutor(WORKERS, mp_context=mp.get_context("fork")) as pool:
    games = list(tqdm(pool.map(play, range(N_GAMES)), total=N_GAMES, desc="games", mininterval=10))
print(f"{len(games)} games; mean winning score {np.mean([max(g['totals']) for g in games]):.0f} VP")
"""),
    md("""
## Clans

Win share of each clan (a tie counts half) with 95% Wilson intervals. Clans are dealt at random, so each
clan meets a random opponent clan.
"""),
    code("""
wins, played, vp = Counter(), Counter(), defaultdict(list)
for g in games:
    for p in range(2):
        clan = g["clans"][p]
        played[clan] += 1
        vp[clan].append(g["totals"][p])
        wins[clan] += 1.0 if g["ranks"][p] == 1 and g["ranks"][1 - p] != 1 else (0.5 if g["ranks"][0] == g["ranks"][1] else 0)
clans = sorted(played, key=lambda c: -wins[c] / played[c])
rate = np.array([wins[c] / played[c] for c in clans])
ci = np.array([wilson_interval(wins[c], played[c]) for c in clans])
fig, (ax, bx) = plt.subplots(1, 2, figsize=(13, 4))
ax.bar(clans, rate, yerr=np.clip([rate - ci[:, 0], ci[:, 1] - rate], 0, None), capsize=4, color="tab:green")
ax.axhline(0.5, color="grey", lw=1, ls="--")
ax.set_ylabel("win share")
ax.set_title("Win share by clan (95% interval)")
ax.tick_params(axis="x", rotation=30)
bx.boxplot([vp[c] for c in clans])
bx.set_xticks(range(1, len(clans) + 1), clans)
bx.set_ylabel("final VP")
bx.set_title("Final score by clan")
bx.tick_params(axis="x", rotation=30)
plt.tight_layout()
plt.show()
for c in clans:
    print(f"{c:12s} {played[c]:4d} seats  win share {wins[c] / played[c]:.2f}  mean VP {np.mean(vp[c]):.0f}")
"""),
    md("""
## Scoring tiles

Both players face the same five tiles, so a tile cannot favour a seat by itself; what matters is who makes
the most of it. For each tile: the mean Glory a player took from it, and how often the player who took more
Glory from that tile won the game.
"""),
    code("""
lead_wins, lead_games, glory = Counter(), Counter(), defaultdict(list)
for g in games:
    winner = g["ranks"].index(1) if g["ranks"].count(1) == 1 else None
    for tile in g["tiles"]:
        a, b = (g["tile_glory"][p].get(tile, 0) for p in range(2))
        glory[tile] += [a, b]
        if a != b and winner is not None:
            lead_games[tile] += 1
            lead_wins[tile] += (a > b) == (winner == 0)
tiles = sorted(glory)
fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 3.8))
ax.bar([f"#{t}" for t in tiles], [np.mean(glory[t]) for t in tiles], color="tab:purple")
ax.set_ylabel("mean Glory per player")
ax.set_title("Glory taken from each scoring tile")
r = np.array([lead_wins[t] / lead_games[t] if lead_games[t] else np.nan for t in tiles])
ci = np.array([wilson_interval(lead_wins[t], lead_games[t]) if lead_games[t] else (np.nan, np.nan) for t in tiles])
bx.bar([f"#{t}" for t in tiles], r, yerr=np.clip([r - ci[:, 0], ci[:, 1] - r], 0, None), capsize=4,
       color="tab:orange")
bx.axhline(0.5, color="grey", lw=1, ls="--")
bx.set_ylim(0, 1)
bx.set_ylabel("P(win | more Glory from the tile)")
bx.set_title("Does winning the tile win the game?")
plt.tight_layout()
plt.show()
"""),
    md("""
## Action types

Mean number of each kind of main action per game, for the winner and the loser, and the difference.
"""),
    code("""
kinds = sorted({k for g in games for c in g["counts"] for k in c})
winner_counts, loser_counts = defaultdict(list), defaultdict(list)
for g in games:
    if g["ranks"].count(1) != 1:
        continue
    w = g["ranks"].index(1)
    for k in kinds:
        winner_counts[k].append(g["counts"][w].get(k, 0))
        loser_counts[k].append(g["counts"][1 - w].get(k, 0))
diff = {k: np.mean(winner_counts[k]) - np.mean(loser_counts[k]) for k in kinds}
order = sorted(kinds, key=lambda k: diff[k])
fig, (ax, bx) = plt.subplots(1, 2, figsize=(13, 5))
y = np.arange(len(order))
ax.barh(y - 0.2, [np.mean(winner_counts[k]) for k in order], height=0.4, label="winner")
ax.barh(y + 0.2, [np.mean(loser_counts[k]) for k in order], height=0.4, label="loser")
ax.set_yticks(y, order)
ax.set_xlabel("actions per game")
ax.legend()
ax.set_title("Main actions per game")
bx.barh(y, [diff[k] for k in order], color=["tab:red" if diff[k] < 0 else "tab:blue" for k in order])
bx.set_yticks(y, order)
bx.axvline(0, color="black", lw=0.8)
bx.set_xlabel("winner minus loser (actions per game)")
bx.set_title("What winners do more of")
plt.tight_layout()
plt.show()
"""),
    md("""
To dig further: every game here can be rebuilt with `Game(GameConfig(num_players=2, seed=seed, clans=clans))`
and the agents' seeds, or saved with `game.record()` and stepped through with `clans replay`.
"""),
]


# ---------------------------------------------------------------------------------------------
INDUSTRIA = [
    md("""
# 05 · Industria: what the modules do to the game

Full-expansion games (`GameConfig(num_players=3, industria=True)`: Farmers' markets, Awards, the refill
board, the Industria Port and Scoring tiles, variable prices, the Industria clans and the **Train module**
with its Delivery bonuses and Milestones) against base games and games with one module at a time. We look
at the score sheet line by line, then at which Delivery bonuses, Milestones, Port tiles and Scoring tiles go
with winning, and end with the train map of a finished game.

**The sample is small** so that the notebook runs in well under a minute on two cores: a few hundred
*random* games (a random player is cheap, about 10 ms a game) and a handful of heuristic games. Random play
says what the rules make easy to reach, not what a good player should do, and the intervals below are wide.
For firmer figures raise `N_RANDOM` / `N_HEURISTIC` below, or run
`python benchmarks/train_soak.py --games 250` (random) and `... --heuristic` (docs/industria-figures.md).
"""),
    code("""
%matplotlib inline
import multiprocessing as mp
import random
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

import matplotlib.pyplot as plt
import numpy as np

import agents
from clans_env import Game, GameConfig
from clans_env.engine import trainmap as TM
from clans_env.engine.actions import DONE
from clans_env.engine.config import INDUSTRIA_MODULES
from clans_env.engine.state import K_DELIVERY
from training.ratings import wilson_interval

PLAYERS = 3
N_RANDOM = 300       # random full-expansion games for the "what goes with winning" sections
N_MODULE = 40        # random games per configuration for the score lines per module
N_HEURISTIC = 4      # heuristic games (base and full expansion) for the score lines under better play
HEURISTIC = "heuristic:noise=1.5"
WORKERS = 2
"""),
    code("""
def play(job):
    \"\"\"One game: random play (seeded) or the noisy heuristic in every seat; what each player did.\"\"\"
    seed, config, spec = job
    g = Game(GameConfig(num_players=PLAYERS, seed=seed, **config))
    trains = g.modstate.get("trains")                     # the Train module's record (docs/architecture.md)
    bonus_tiles = [t for t in (trains.bonus if trains else None) or [] if t]     # drawn onto the train map (R1.9)
    rng = random.Random(seed)
    bots = None if spec == "random" else [agents.make(spec, seed=seed * 10 + p) for p in range(PLAYERS)]
    bonuses = [Counter() for _ in range(PLAYERS)]        # Delivery bonus parts taken, by tile
    tile_glory = [Counter() for _ in range(PLAYERS)]     # Glory from each round's Scoring tile
    glory, rnd = [0] * PLAYERS, g.round
    while not g.is_terminal():
        action = rng.choice(g.legal_actions()) if bots is None else bots[g.current_player].act(g)
        frame = g.stack[-1]
        if frame[0] == K_DELIVERY and action != DONE:    # a part of the Delivery bonus taken (R13.10)
            bonuses[frame[1]][frame[2]] += 1
        g.apply(action)
        if g.round != rnd or g.is_terminal():            # the round's Scoring tile was scored
            for p in range(PLAYERS):
                tile_glory[p][g.scoring_tiles[rnd - 1]] += g.players[p].glory - glory[p]
            glory, rnd = [pl.glory for pl in g.players], g.round
    scores = g.final_scores()
    claims = [[] for _ in range(PLAYERS)]
    milestone_tiles = list((trains.ms if trains else None) or [])
    for spot, tile in enumerate(milestone_tiles):                      # Milestones claimed (R13.19)
        for p in range(PLAYERS):
            if trains.claims[spot * PLAYERS + p]:
                claims[p].append(tile)
    return {"seed": seed, "scores": scores, "winner": [row["rank"] == 1 for row in scores],
            "bonuses": bonuses, "bonus_tiles": bonus_tiles, "milestones": claims,
            "milestone_tiles": milestone_tiles, "port_tiles": list(g.port_tiles),
            "ports_used": [[t for k, t in enumerate(g.port_tiles) if pl.ports_used >> k & 1] for pl in g.players],
            "scoring_tiles": list(g.scoring_tiles), "tile_glory": tile_glory, "history": list(g.history)}


def run(jobs):
    with ProcessPoolExecutor(WORKERS, mp_context=mp.get_context("fork")) as pool:
        return list(pool.map(play, jobs, chunksize=8))


CONFIGS = {"base": {}}
CONFIGS.update({m: {m: True} for m in INDUSTRIA_MODULES if m != "alt_two_player_scoring"})   # 2 players only
CONFIGS["full"] = {"industria": True}
by_config = {name: run([(s, cfg, "random") for s in range(N_MODULE)]) for name, cfg in CONFIGS.items()}
full = run([(10_000 + s, {"industria": True}, "random") for s in range(N_RANDOM)])
heuristic = {name: run([(s, CONFIGS[name], HEURISTIC) for s in range(N_HEURISTIC)]) for name in ("base", "full")}
print(f"{sum(map(len, by_config.values()))} random games over {len(CONFIGS)} configurations, "
      f"{len(full)} random full-expansion games, {sum(map(len, heuristic.values()))} heuristic games")
print("one score sheet row:", full[0]["scores"][0])
"""),
    md("""
## Score lines per module

`Game.final_scores()` gives one row per player: the base lines (Glory, Goods, money, hops, imports, Export
and Settlement bonuses), `award` (the Awards module), and with the Train module `delivery_track`
(2/5/9/14/20 VP for the Delivery track) and `milestones` (8/4/2 VP by claim order). Mean VP per line and
player, random play, each module alone and all together; the right panel is the difference to the base game.
(`alt_two_player_scoring` exists in 2-player games only and is left out of this 3-player table.)
"""),
    code("""
LINES = [k for k in full[0]["scores"][0] if k not in ("total", "money_left", "rank")]


def mean_lines(games):
    return np.array([np.mean([row.get(k, 0) for g in games for row in g["scores"]]) for k in LINES])


table = np.array([mean_lines(by_config[name]) for name in CONFIGS])
totals = [np.mean([row["total"] for g in by_config[name] for row in g["scores"]]) for name in CONFIGS]
fig, (ax, bx) = plt.subplots(1, 2, figsize=(14, 5))
for axis, values, title, cmap in ((ax, table, "mean VP per line (random play)", "viridis"),
                                  (bx, table - table[0], "difference to the base game", "RdBu")):
    lim = np.abs(values).max()
    im = axis.imshow(values, cmap=cmap, vmin=-lim if cmap == "RdBu" else 0, vmax=lim, aspect="auto")
    axis.set_xticks(range(len(LINES)), [k.replace("_", " ") for k in LINES], rotation=40, ha="right")
    axis.set_yticks(range(len(CONFIGS)), [f"{n} ({t:.0f} VP)" for n, t in zip(CONFIGS, totals)])
    for i in range(len(CONFIGS)):
        for j in range(len(LINES)):
            axis.text(j, i, f"{values[i, j]:.1f}", ha="center", va="center", fontsize=7,
                      color="white" if cmap == "viridis" and values[i, j] < lim / 2 else "black")
    axis.set_title(title)
    fig.colorbar(im, ax=axis, fraction=0.03)
plt.tight_layout()
plt.show()
"""),
    md("""
The same lines under better play: the noisy heuristic agent in every seat, base game against the full
expansion (a handful of games: the heuristic plans deliveries and Milestone claims, and takes about a
second a game with the Train module).
"""),
    code("""
x = np.arange(len(LINES))
fig, ax = plt.subplots(figsize=(12, 3.8))
for k, (name, games) in enumerate(heuristic.items()):
    ax.bar(x + (k - 0.5) * 0.4, mean_lines(games), width=0.4, label=f"{name} ({len(games)} games)")
ax.set_xticks(x, [k.replace("_", " ") for k in LINES], rotation=30, ha="right")
ax.set_ylabel("mean VP per player")
ax.set_title(f"Score lines under heuristic play ({HEURISTIC}), {PLAYERS} players")
ax.legend()
plt.tight_layout()
plt.show()
for name, games in heuristic.items():
    print(f"{name:5s} mean total {np.mean([r['total'] for g in games for r in g['scores']]):.0f} VP, "
          f"winner {np.mean([max(r['total'] for r in g['scores']) for g in games]):.0f} VP")
"""),
    md("""
## What goes with winning (random full-expansion games)

For each tile, among the games where it was in play: the share of winners and of the other players who took
it (at least one part of a Delivery bonus, a Milestone claim, a Port tile used), with 95% Wilson intervals. A tile taken far more often by
winners is one that pays, or one that a leading player reaches more easily; with random play and a few
hundred games, only large gaps mean anything.
"""),
    code("""
def rates(games, in_play, took):
    \"\"\"tile -> [[winners who took it, winners], [others who took it, others]] over the games with the tile
    in play; in_play(game) -> tiles, took(game, p) -> the tiles player p took.\"\"\"
    out = {}
    for g in games:
        for tile in set(in_play(g)):
            counts = out.setdefault(tile, [[0, 0], [0, 0]])
            for p, won in enumerate(g["winner"]):
                counts[0 if won else 1][0] += tile in took(g, p)
                counts[0 if won else 1][1] += 1
    return out


def plot_rates(ax, table, title, label=str):
    tiles = sorted(table)
    y = np.arange(len(tiles))
    for k, (who, colour) in enumerate((("winners", "tab:green"), ("others", "tab:grey"))):
        r = np.array([table[t][k][0] / max(1, table[t][k][1]) for t in tiles])
        ci = np.array([wilson_interval(table[t][k][0], max(1, table[t][k][1])) for t in tiles])
        ax.barh(y + (0.2 if k else -0.2), r, height=0.4, color=colour, label=who,
                xerr=np.clip([r - ci[:, 0], ci[:, 1] - r], 0, None), error_kw={"lw": 0.8})
    ax.set_yticks(y, [label(t) for t in tiles], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("share of the players (tile in play) who took it")
    ax.set_title(title)
    ax.legend(fontsize=8)


bonus_rates = rates(full, lambda g: g["bonus_tiles"], lambda g, p: g["bonuses"][p])
milestone_rates = rates(full, lambda g: g["milestone_tiles"], lambda g, p: g["milestones"][p])
short = lambda text: text if len(text) < 48 else text[:45] + "..."
fig, (ax, bx) = plt.subplots(1, 2, figsize=(15, 8))
plot_rates(ax, bonus_rates, "Delivery bonuses taken", lambda t: f"{t}: {short(TM.DELIVERY_TEXT[t])}")
plot_rates(bx, milestone_rates, "Milestones claimed", lambda t: f"{t}: {short(TM.MILESTONE_TEXT[t])}")
plt.tight_layout()
plt.show()
gap = {t: v[0][0] / max(1, v[0][1]) - v[1][0] / max(1, v[1][1]) for t, v in bonus_rates.items()}
print("Delivery bonuses most over-represented among winners:",
      ", ".join(f"{t} ({100 * gap[t]:+.0f} points)" for t in sorted(gap, key=gap.get, reverse=True)[:4]))
gap = {t: v[0][0] / max(1, v[0][1]) - v[1][0] / max(1, v[1][1]) for t, v in milestone_rates.items()}
print("Milestones most over-represented among winners:",
      ", ".join(f"{t} ({100 * gap[t]:+.0f} points)" for t in sorted(gap, key=gap.get, reverse=True)[:4]))
"""),
    md("""
How much the Train module's lines weigh in a win: the winners' and the others' `delivery_track` and
`milestones` VP.
"""),
    code("""
fig, axes = plt.subplots(1, 2, figsize=(11, 3.5))
for ax, line in zip(axes, ("delivery_track", "milestones")):
    won = [row[line] for g in full for row, w in zip(g["scores"], g["winner"]) if w]
    lost = [row[line] for g in full for row, w in zip(g["scores"], g["winner"]) if not w]
    values = sorted(set(won) | set(lost))
    ax.bar(np.arange(len(values)) - 0.2, [won.count(v) / len(won) for v in values], width=0.4, label="winners",
           color="tab:green")
    ax.bar(np.arange(len(values)) + 0.2, [lost.count(v) / len(lost) for v in values], width=0.4, label="others",
           color="tab:grey")
    ax.set_xticks(range(len(values)), values)
    ax.set_xlabel(f"{line} VP")
    ax.set_ylabel("share of players")
    ax.set_title(f"{line}: winners {np.mean(won):.1f} VP, others {np.mean(lost):.1f} VP")
    ax.legend()
plt.tight_layout()
plt.show()
"""),
    md("""
## Port tiles and Scoring tiles

Port tiles are shared, so what can go with winning is *using* one (a player with a Port in reach uses it
once per game); Scoring tiles are the same for everybody, so what matters is who takes the most Glory from
one. Left: use rates of each Port tile in play (10-18 are the Industria tiles; 16 and 17 have their Train
halves with the Train module). Right: for each Scoring tile, how often the player who took the most Glory
from it (alone) won the game.
"""),
    code("""
port_rates = rates(full, lambda g: g["port_tiles"], lambda g, p: g["ports_used"][p])
lead_wins, lead_games, shown = Counter(), Counter(), Counter()
for g in full:
    for tile in g["scoring_tiles"]:
        shown[tile] += 1
        glory = [g["tile_glory"][p][tile] for p in range(PLAYERS)]
        if glory.count(max(glory)) == 1 and max(glory) > 0:
            lead_games[tile] += 1
            lead_wins[tile] += g["winner"][glory.index(max(glory))]
fig, (ax, bx) = plt.subplots(1, 2, figsize=(14, 4.5))
plot_rates(ax, port_rates, "Port tiles used", lambda t: f"Port tile {t}")
tiles = sorted(lead_games)
r = np.array([lead_wins[t] / lead_games[t] for t in tiles])
ci = np.array([wilson_interval(lead_wins[t], lead_games[t]) for t in tiles])
bx.bar([str(t) for t in tiles], r, yerr=np.clip([r - ci[:, 0], ci[:, 1] - r], 0, None), capsize=3,
       color=["tab:orange" if t >= 10 else "tab:purple" for t in tiles])
bx.axhline(1 / PLAYERS, color="grey", lw=1, ls="--", label="chance (1 in 3)")
bx.set_ylim(0, 1)
bx.set_xlabel("Scoring tile (orange: Industria 10-18)")
bx.set_ylabel("P(win | most Glory from it)")
bx.set_title("Does winning a Scoring tile win the game?")
bx.legend()
plt.tight_layout()
plt.show()
print("Scoring tiles in play (games):", dict(sorted(shown.items())))
"""),
    md("""
## The train map of a finished game

`clans_env.render.train_map` draws the Train map side in play (a stand-in design, docs/train-map.md) with
each player's Train (upright ▲ / tilted ▶), the Demand tile (D, Goods) and Delivery bonus tile (B) left on
each location. Here: the last heuristic full-expansion game, rebuilt from its configuration and action history
(`Game.replay`; the same seed and actions give the same game).
"""),
    code("""
from clans_env.render.train_map import draw_side

last = heuristic["full"][-1]
seed = last["seed"]
game = Game.replay(GameConfig(num_players=PLAYERS, seed=seed, industria=True), last["history"])
assert game.is_terminal() and game.final_scores() == last["scores"]
fig, ax = plt.subplots(figsize=(10, 7))
draw_side(TM.side_for(PLAYERS), ax, game)
ax.set_title(f"Train map at the end of heuristic game {seed} (red, blue, green: players 0, 1, 2)")
plt.show()
for p, row in enumerate(game.final_scores()):
    print(f"player {p}: {game.modstate['trains'].deliv[p]} deliveries, delivery_track {row['delivery_track']} VP, "
          f"milestones {row['milestones']} VP, total {row['total']} VP (rank {row['rank']})")
print("Milestones on the map:", {t: TM.MILESTONE_TEXT[t] for t in game.modstate["trains"].ms})
"""),
    md("""
To look at one game move by move: `game.record()` saves it and `clans replay` steps through it;
`game.action_to_string(a)` names each action of `game.history`. For other player counts set `PLAYERS` (2
adds `alt_two_player_scoring` and the Mini-trains; 1 plays the solo Train rules).
"""),
]


NOTEBOOKS = {
    "01_quickstart.ipynb": QUICKSTART,
    "02_search_and_tournament.ipynb": TOURNAMENT,
    "03_training.ipynb": TRAINING,
    "04_strategy.ipynb": STRATEGY,
    "05_industria.ipynb": INDUSTRIA,
}


def build(name: str) -> nbformat.NotebookNode:
    cells = list(NOTEBOOKS[name])
    if name == "03_training.ipynb":
        cells.insert(2, code(TRAINING_SETUP))
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    return nb


def execute(nb: nbformat.NotebookNode, timeout: int = TIMEOUT) -> nbformat.NotebookNode:
    from nbclient import NotebookClient

    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(HERE)}})
    client.execute()
    return nb


def write(nb: nbformat.NotebookNode, path: Path) -> None:
    from clans_env.engine.game import atomic_write_text

    atomic_write_text(path, nbformat.writes(nb) + "\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("only", nargs="*", help="build only notebooks whose file name contains one of these")
    parser.add_argument("--execute", action="store_true", help="run each notebook and store its outputs")
    args = parser.parse_args(argv)
    for name in NOTEBOOKS:
        if args.only and not any(o in name for o in args.only):
            continue
        nb = build(name)
        if args.execute:
            start = time.perf_counter()
            execute(nb)
            print(f"{name}: executed in {time.perf_counter() - start:.0f} s")
        write(nb, HERE / name)
        print(f"wrote notebooks/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
