"""Statistics for matches between agents: Wilson intervals for win rates, normal intervals for
mean scores, and OpenSkill (Plackett-Luce) ratings from finishing orders."""
from __future__ import annotations

import math
from statistics import fmean, stdev

Z95 = 1.959963984540054


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion (95% by default); ``successes`` may be fractional
    (a shared first place counts as a part win)."""
    if n <= 0:
        return 0.0, 1.0
    p = min(max(successes / n, 0.0), 1.0)
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_interval(values, z: float = Z95) -> tuple[float, float, float]:
    """(mean, low, high): the mean with a normal-approximation 95% interval."""
    values = list(values)
    if not values:
        return float("nan"), float("nan"), float("nan")
    m = fmean(values)
    if len(values) < 2:
        return m, m, m
    half = z * stdev(values) / math.sqrt(len(values))
    return m, m - half, m + half


class RatingTable:
    """OpenSkill Plackett-Luce ratings, updated one game at a time in a fixed order (so the
    ratings are reproducible); keeps the history of (mu, sigma) after every game."""

    def __init__(self, names):
        from openskill.models import PlackettLuce
        self.model = PlackettLuce()
        self.names = list(names)
        self.ratings = {name: self.model.rating(name=name) for name in self.names}
        self.history: list[dict] = []

    def update(self, players: list[str], ranks: list[int]) -> None:
        """One game: ``players[i]`` finished at ``ranks[i]`` (1 = best; equal ranks are ties)."""
        teams = [[self.ratings[p]] for p in players]
        new = self.model.rate(teams, ranks=list(ranks))
        for p, (r,) in zip(players, new):
            self.ratings[p] = r
        self.history.append({p: (self.ratings[p].mu, self.ratings[p].sigma) for p in self.names})

    def table(self) -> dict:
        """name -> {mu, sigma, ordinal (mu - 3 sigma, a conservative skill estimate)}."""
        return {p: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()} for p, r in self.ratings.items()}

    def win_probability(self, a: str, b: str) -> float:
        """Predicted chance that ``a`` finishes ahead of ``b`` in a 2-player game."""
        return self.model.predict_win([[self.ratings[a]], [self.ratings[b]]])[0]
