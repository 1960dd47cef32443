"""End-of-game rewards shared by the PettingZoo environment and the Gymnasium wrapper.

Rewards are paid once, when the game ends (Final Scoring), from the engine's score sheet
(``Game.final_scores``: ``total`` VP, ``money_left`` as the rulebook tie-breaker, ``rank``).
"""
from __future__ import annotations

REWARD_KINDS = ("win", "rank", "score", "win+score")
#: default divisor of the score margin: a 100 VP margin is worth 1.0
DEFAULT_SCORE_SCALE = 100.0


def check_reward(reward: str | None, num_players: int) -> str:
    """The reward kind to use; None picks "win" (multiplayer) or "score" (solo)."""
    if reward is None:
        return "win" if num_players > 1 else "score"
    if reward not in REWARD_KINDS:
        raise ValueError(f"reward must be one of {REWARD_KINDS} (got {reward!r})")
    if num_players == 1 and reward != "score":
        raise ValueError(f"reward={reward!r} needs opponents; a solo game (num_players=1) supports reward='score'")
    return reward


def place_values(reward: str, num_players: int) -> list[float]:
    """Value of finishing 1st, 2nd, ... for the placing rewards."""
    if num_players == 1:
        return [0.0]
    if reward == "win":
        return [1.0] + [-1.0] * (num_players - 1)
    return [1.0 - 2.0 * i / (num_players - 1) for i in range(num_players)]


def final_rewards(rows: list[dict], reward: str, score_scale: float = DEFAULT_SCORE_SCALE) -> list[float]:
    """Per-seat rewards from the final score sheet.

    win:   1 for the winner, -1 for everyone else; players tied on VP and money share the
           places they cover (a two-player tie gives 0 to both).
    rank:  linear in the finishing place, 1 for first down to -1 for last; ties share likewise.
    score: (own VP - best opponent VP) / score_scale; solo: own VP / score_scale.
    win+score: the mean of win and score (a win signal that still rewards bigger margins; the
           trainers' default and the AlphaZero search's terminal value).
    """
    if reward == "win+score":
        return [0.5 * (w + s) for w, s in zip(final_rewards(rows, "win"), final_rewards(rows, "score", score_scale))]
    n = len(rows)
    totals = [float(r["total"]) for r in rows]
    if reward == "score":
        if n == 1:
            return [totals[0] / score_scale]
        return [(totals[p] - max(totals[q] for q in range(n) if q != p)) / score_scale for p in range(n)]
    values = place_values(reward, n)
    out = []
    for row in rows:
        first = row["rank"] - 1                                   # places before this player
        tied = sum(1 for other in rows if other["rank"] == row["rank"])
        out.append(sum(values[first:first + tied]) / tied)
    return out
