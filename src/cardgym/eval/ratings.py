"""Ratings of any number of players per game (3-8 seats) from finishing orders, with openskill's
Plackett-Luce model.

A 2-player tournament fits Bradley-Terry on head-to-head results (`cardgym.eval.stats.bradley_terry`).
With more seats, a game is a *finishing order* of its seats: winners first, then the others by the
game's standing (e.g. a total score, lower first, or the cards left in a stock, fewer first); equal
standings tie, and a game without a winner (a stall draw, a truncation) ties every seat. The standing
is the game's own (``GameSpec.standing``, a `cardgym.core.contract.game.Standing` declared in the game's
``__init__.py``): a game without one ties every seat after the winners. Games against the house
(``GameSpec.utility == "house"``) have no finishing order between seats and are not rated this way.
These orders are rated with openskill's Plackett-Luce model (the Weng-Lin Bayesian approximation),
which takes rankings of any number of entrants and ties.

The games are *line-ups*: with ``k`` players and ``n`` seats, ``k >= n`` seats ``n`` distinct players per
game (cycling through every combination), ``k < n`` seats every player once on a *rated* seat and fills
the ``n - k`` other seats with players in turn (their placings are left out of the ranking: a
Plackett-Luce order of some entrants is the same model restricted to them). Every deal is played once
per cyclic rotation of the line-up over the seats (duplicate play), so each rated seat meets every seat
position on the same cards.

Intervals are ``mu +- 1.96 sigma`` of the posterior after all games, with no dynamics between games
(``tau=0``: bots and frozen policies do not change). They are the model's credible intervals: they
shrink like ``1/sqrt(games)`` and do not cover the line-up design or how well Plackett-Luce fits the
game.
"""

from __future__ import annotations

import itertools
import time

import numpy as np

from .batch import _game, _Progress, _resolve, play

Z95 = 1.959963984540054


def finishing_ranks(game, rules, records: np.ndarray) -> np.ndarray:
    """Finishing ranks ``(games, num_players)`` of final state records: 1 for the winners, then by the
    game's ``standing`` (equal standings share the lower rank, as in "1, 2, 2, 4"); every seat 1 in a
    game without a winner."""
    n = rules.num_players
    standing = game.standing
    out = np.ones((len(records), n), np.int64)
    for g in range(len(records)):
        res = game.result(records[g], rules)
        winners = set(res.get("winners", []))
        if not winners:
            continue
        key = [(0 if s in winners else 1, 0 if s in winners or standing is None else standing.value(res, s))
               for s in range(n)]
        for s in range(n):
            out[g, s] = 1 + sum(1 for t in range(n) if key[t] < key[s])
    return out


def lineups(num_entrants: int, num_seats: int) -> list:
    """Line-ups of entrants ``0..k-1`` on ``n`` seats: ``(entrant per position, number of rated
    positions)``; the rated positions come first (one per entrant when ``k <= n``)."""
    k, n = num_entrants, num_seats
    if k >= n:
        return [(list(c), n) for c in itertools.combinations(range(k), n)]
    return [(list(range(k)) + [(j + e) % k for e in range(n - k)], k) for j in range(k)]


def plackett_luce(names: list, games, mu: float = 25.0, sigma: float = 25.0 / 3) -> dict:
    """openskill Plackett-Luce ratings from finishing orders.

    ``games`` yields ``(entrant names, ranks)`` per game (rank 1 is best; equal ranks tie; every name
    at most once per game). Returns ``{name: {"mu", "sigma", "ci95": [mu - 1.96 sigma, mu + 1.96
    sigma], "games"}}``; the model has no dynamics between games (``tau=0``).
    """
    try:
        from openskill.models import PlackettLuce
    except ImportError:  # pragma: no cover - openskill is a core dependency
        raise ImportError("multi-player ratings need openskill: pip install 'openskill>=6'") from None
    model = PlackettLuce(mu=mu, sigma=sigma, tau=0.0)
    ratings = {p: model.rating(name=str(p)) for p in names}
    played = dict.fromkeys(names, 0)
    for entrants, ranks in games:
        if len(set(entrants)) != len(entrants):
            raise ValueError(f"a player may enter a rated game once, got {list(entrants)}")
        new = model.rate([[ratings[p]] for p in entrants], ranks=[int(r) for r in ranks])
        for p, team in zip(entrants, new):
            ratings[p] = team[0]
            played[p] += 1
    out = {}
    for p in names:
        r = ratings[p]
        out[p] = {
            "mu": round(float(r.mu), 3), "sigma": round(float(r.sigma), 3),
            "ci95": [round(float(r.mu - Z95 * r.sigma), 3), round(float(r.mu + Z95 * r.sigma), 3)],
            "games": played[p],
        }
    return out


def free_for_all(game, players: list, num_players: int, games: int = 2000, seed: int = 0,
                 progress: bool = False, **options) -> dict:
    """Play line-ups of ``players`` on ``num_players`` seats (`lineups`, every deal in every cyclic
    rotation: ``games`` is rounded up to a multiple of ``num_players``) and rate them with
    `plackett_luce`. Deal ``d`` uses seed ``seed + d``.

    Returns ``{"model": "plackett-luce", "games", "ratings": {player: {"mu", "sigma", "ci95",
    "games"}}, "mean_rank": {player: mean finishing rank among the rated seats}, "seconds"}``.
    """
    game = _game(game)
    if game.utility == "house":
        raise ValueError(f"{game.name} is played against the house: its seats have no finishing order to rate "
                         "(compare players with cardgym.eval.match)")
    rules = game.make_rules(num_players=num_players, **options)
    n = rules.num_players
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be a positive integer, got {games!r}")
    if len(players) < 2:
        raise ValueError(f"ratings need at least two players, got {players}")
    names = [str(p) for p in players]
    if len(set(names)) != len(names):
        raise ValueError(f"players must be distinct, got {names}")
    resolved = [_resolve(game, p, rules) for p in players]  # a model is checked against these rules
    ups = lineups(len(players), n)
    deals = -(-games // n)
    seeds, seat_players, rated = [], [], []
    for d in range(deals):
        order, num_rated = ups[d % len(ups)]
        for r in range(n):
            # cyclic rotation r: position i sits at seat (i + r) % n
            seat_of = [(i + r) % n for i in range(n)]
            row = [None] * n
            for i, who in enumerate(order):
                row[seat_of[i]] = resolved[who]
            seeds.append(seed + d)
            seat_players.append(row)
            rated.append([(order[i], seat_of[i]) for i in range(num_rated)])
    bar = _Progress(len(seeds), "line-ups", progress)
    t0 = time.perf_counter()
    _, _, _, finals = play(game, rules, np.array(seeds, np.int64), seat_players, progress=bar, records=True)
    bar.close()
    ranks = finishing_ranks(game, rules, finals)

    def orders():
        for g, entries in enumerate(rated):
            rk = [int(ranks[g, seat]) for _, seat in entries]
            # ranks among the rated seats only (fillers are left out)
            yield [names[who] for who, _ in entries], [1 + sum(x < y for x in rk) for y in rk]

    rows = list(orders())
    ratings = plackett_luce(names, rows)
    rank_sum = dict.fromkeys(names, 0.0)
    count = dict.fromkeys(names, 0)
    for entrants, rk in rows:
        for p, x in zip(entrants, rk):
            rank_sum[p] += x
            count[p] += 1
    return {
        "model": "plackett-luce", "games": len(seeds), "ratings": ratings,
        "mean_rank": {p: round(rank_sum[p] / max(1, count[p]), 3) for p in names},
        "seconds": round(time.perf_counter() - t0, 3),
    }
