"""The anchored ladder: one rating for any outside player, on a fixed scale, comparable across days.

A player (a bot name, a model file, a Python player, a text player) plays a fixed, versioned schedule
of duplicate deals against each bot of the ladder; its rating is the Elo-scale rating that best explains
its results against the bots' *fixed* anchor ratings (a one-player Bradley-Terry fit, the bots' ratings
held), with a 95% interval from the fit's curvature.

**The scale.** Elo points, ``random`` pinned at 0: a player rated ``R`` scores
``1 / (1 + 10 ** ((A - R) / 400))`` on average against a bot anchored at ``A`` (a draw counts half a
point). The anchors are the bots' Bradley-Terry ratings (`cardgym.eval.stats.bradley_terry`) from a
round robin of `ANCHOR_GAMES` duplicate games per pair on seeds away from the schedule's, measured once
with ``python -m cardgym.eval.ladder --measure`` and stored in the package (``ladder_anchors.json``);
a test pins them. They change only with a new `LADDER_VERSION`.

**The schedule** (version `LADDER_VERSION`): two players, default rules, deals ``SEED_BASE + k`` for
``k = 0 .. deals - 1``, each deal played twice (both seat orders) against each ladder bot. A run of
``deals`` deals plays the first ``deals`` deals of the schedule, so two runs of the same length play
the very same cards.
"""

from __future__ import annotations

import json
import math
from importlib import resources

import numpy as np

from . import match
from .batch import _game
from .stats import bradley_terry

LADDER_VERSION = 1
#: the bots a player meets, weakest first (``search`` is left out: it costs milliseconds a decision)
LADDER_BOTS = ("random", "greedy", "expert")
#: the first deal seed of the schedule
SEED_BASE = 20_260_000
#: deals of a default run (each played twice against each bot)
DEFAULT_DEALS = 20
#: most deals of a run
MAX_DEALS = 100_000
#: duplicate games per pair of the round robin that measured the anchors, and its first seed
ANCHOR_GAMES = 2000
ANCHOR_SEED = 1_000_000
#: the interval's z (95%)
Z95 = 1.959963984540054
_LN = math.log(10) / 400


def anchors() -> dict:
    """``{game: {bot: rating}}`` of the package's anchor file (``ladder_anchors.json``)."""
    data = json.loads((resources.files("cardgym.eval") / "ladder_anchors.json").read_text())
    if data.get("version") != LADDER_VERSION:
        raise RuntimeError(f"ladder_anchors.json is for ladder version {data.get('version')}, this is "
                           f"version {LADDER_VERSION}")
    return data["anchors"]


def game_anchors(game) -> dict:
    """The anchors of one game; ``ValueError`` naming the games that have some."""
    name = _game(game).name
    table = anchors()
    if name not in table:
        raise ValueError(f"the ladder has no anchors for {name!r}; games with anchors: {', '.join(sorted(table))}")
    return table[name]


def expected(r: float, a: float) -> float:
    """Expected score of a player rated ``r`` against one rated ``a`` (Elo scale)."""
    return 1.0 / (1.0 + 10 ** ((a - r) / 400))


def fit_rating(results: dict, fixed: dict) -> dict:
    """The rating of one player from ``results[bot] = (points, games)`` against bots of ``fixed``
    ratings: the maximum-likelihood Elo rating with the prior of `bradley_terry` (one drawn game against a
    player rated at the anchors' mean, so a player who wins or loses every game stays finite), its
    standard error and 95% interval."""
    prior = float(np.mean(list(fixed.values())))
    games = [(fixed[b], float(p), float(n)) for b, (p, n) in results.items()] + [(prior, 0.5, 1.0)]

    def slope(r):  # d log-likelihood / dr, decreasing in r
        return sum(p - n * expected(r, a) for a, p, n in games)

    lo, hi = min(fixed.values()) - 4000.0, max(fixed.values()) + 4000.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if slope(mid) > 0:
            lo = mid
        else:
            hi = mid
    r = 0.5 * (lo + hi)
    info = sum(n * expected(r, a) * (1 - expected(r, a)) for a, p, n in games) * _LN * _LN
    se = 1.0 / math.sqrt(info)
    return {"rating": round(r, 1), "se": round(se, 1), "ci95": [round(r - Z95 * se, 1), round(r + Z95 * se, 1)]}


def ladder(game, player, deals: int = DEFAULT_DEALS, progress: bool = False, recorder=None,
           concurrency: int = 1) -> dict:
    """Rate ``player`` (anything `cardgym.eval.match` takes) on the ladder of ``game``.

    Returns ``{"game", "version", "scale", "player", "deals", "games", "rating", "se", "ci95",
    "anchors", "matches": {bot: match result}, "seconds", "games_per_second"}`` and, for a text player,
    ``"text"``: its counts over the whole run (illegal-move rate, fallbacks, latency, tokens)."""
    from ..agents.text import is_text_player

    spec = _game(game)
    fixed = game_anchors(spec)
    if isinstance(deals, bool) or not isinstance(deals, int) or not 1 <= deals <= MAX_DEALS:
        raise ValueError(f"deals must be an integer 1..{MAX_DEALS}, got {deals!r}")
    before = dict(player.counts) if is_text_player(player) else None
    matches, results, seconds = {}, {}, 0.0
    for bot in LADDER_BOTS:
        r = match(spec, player, bot, num_players=2, games=2 * deals, seed=SEED_BASE, progress=progress,
                  recorder=recorder, concurrency=concurrency)
        matches[bot] = r
        results[bot] = (r["wins"] + 0.5 * r["draws"], r["games"])
        seconds += r["seconds"]
    fit = fit_rating(results, {b: fixed[b] for b in LADDER_BOTS})
    total = sum(r["games"] for r in matches.values())
    out = {"game": spec.name, "version": LADDER_VERSION, "scale": "Elo, random = 0", "player": str(player),
           "deals": deals, "games": total, **fit, "anchors": {b: fixed[b] for b in LADDER_BOTS},
           "matches": matches, "seconds": round(seconds, 3),
           "games_per_second": round(total / seconds, 2) if seconds > 0 else None}
    if before is not None:
        out["text"] = player.stats(since=before)
    return out


def measure_anchors(games: tuple = None, per_pair: int = ANCHOR_GAMES) -> dict:
    """The anchors of every built-in game: a round robin of `LADDER_BOTS` (``per_pair`` duplicate games
    per pair from seed `ANCHOR_SEED`), Bradley-Terry on the Elo scale with ``random`` at 0."""
    import itertools

    import cardgym

    out = {}
    for name in games or cardgym.registry.names(builtin=True):
        scores = {}
        for a, b in itertools.combinations(LADDER_BOTS, 2):
            r = match(name, a, b, num_players=2, games=per_pair, seed=ANCHOR_SEED)
            scores[(a, b)] = (r["wins"] + 0.5 * r["draws"], r["games"])
        out[name] = bradley_terry(list(LADDER_BOTS), scores, anchor="random")
    return out


def main(argv=None):
    import argparse

    ap = argparse.ArgumentParser(prog="python -m cardgym.eval.ladder",
                                 description="measure the ladder's anchors (prints the anchor file)")
    ap.add_argument("--measure", action="store_true", required=True)
    ap.add_argument("--per-pair", type=int, default=ANCHOR_GAMES)
    args = ap.parse_args(argv)
    data = {"version": LADDER_VERSION, "scale": "Elo, random = 0", "bots": list(LADDER_BOTS),
            "measured_with": f"python -m cardgym.eval.ladder --measure --per-pair {args.per_pair}",
            "per_pair": args.per_pair, "seed": ANCHOR_SEED, "anchors": measure_anchors(per_pair=args.per_pair)}
    print(json.dumps(data, indent=2))


__all__ = ["ANCHOR_GAMES", "DEFAULT_DEALS", "LADDER_BOTS", "LADDER_VERSION", "SEED_BASE", "anchors", "expected",
           "fit_rating", "game_anchors", "ladder", "measure_anchors"]

if __name__ == "__main__":
    main()
