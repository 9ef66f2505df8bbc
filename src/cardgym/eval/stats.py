"""Confidence intervals and ratings."""

from __future__ import annotations

import math

import numpy as np


def wilson(successes: float, n: int, z: float = 1.959963984540054) -> tuple:
    """Wilson score interval of a proportion (95% by default). ``successes`` may be fractional
    (a draw counts one half)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def bradley_terry(names: list, scores: dict, iters: int = 2000, anchor: str | None = "random") -> dict:
    """Elo-scaled Bradley-Terry ratings from pairwise results.

    ``scores[(a, b)] = (points of a against b, games)`` with a draw worth half a point to each. The
    fit is the classic MM iteration with a tiny prior (one drawn game against an average player) so
    that unbeaten players stay finite. Ratings are ``400 * log10(strength)``, shifted so that
    ``anchor`` (if present) is 0, else so that the mean is 0.
    """
    k = len(names)
    index = {n: i for i, n in enumerate(names)}
    wins = np.zeros((k, k))
    for (a, b), (pts, games) in scores.items():
        wins[index[a], index[b]] += pts
        wins[index[b], index[a]] += games - pts
    games = wins + wins.T
    strength = np.ones(k)
    for _ in range(iters):
        new = np.empty(k)
        for i in range(k):
            num = wins[i].sum() + 0.5
            den = sum(games[i, j] / (strength[i] + strength[j]) for j in range(k) if j != i) + 1.0 / (strength[i] + 1)
            new[i] = num / den
        new /= np.exp(np.mean(np.log(new)))
        if np.allclose(new, strength, rtol=1e-10, atol=0):
            strength = new
            break
        strength = new
    elo = 400 * np.log10(strength)
    shift = elo[index[anchor]] if anchor in index else elo.mean()
    return {n: round(float(elo[index[n]] - shift), 1) for n in names}
