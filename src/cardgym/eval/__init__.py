"""Fair evaluation of bots and trained policies.

- [`match`][cardgym.eval.match]: a duplicate match between two players: every deal is played once per seat
  rotation, so the luck of the deal cancels out. With ``num_players > 2`` player ``a`` takes one seat
  and ``b`` every other seat ("a against the field"), rotated through all seats.
- [`tournament`][cardgym.eval.tournament]: a round robin of any players with a Bradley-Terry rating fit (Elo scale)
  for 2 players, and Plackett-Luce ratings (openskill) from the finishing orders of line-ups of all the
  players for 3-8 seats ([`cardgym.eval.ratings`][cardgym.eval.ratings]).

Players are bot names (``"random"``, ``"greedy"``, ...; played inside the compiled batch), paths to
saved policies, or objects with ``act(obs_batch, mask_batch) -> actions``. A game's outcome for ``a``
is a win when a seat of ``a`` wins and no seat of ``b`` does, a loss in the reverse case, and a draw
otherwise (stall draws, truncations, shared wins). ``a_win_rate`` scores a draw as half a win, so 50%
is parity, and comes with a 95% Wilson interval.

A game against the house (``GameSpec.utility == "house"``, any number of seats, one included) has no
seat to beat: every deal is played once with ``a`` on every seat and once with ``b`` on every seat, and
``a`` wins the deal when its seats' rewards add up to more than ``b``'s on the same cards.
"""

from __future__ import annotations

import itertools
import time

import numpy as np

from .batch import _game, _Progress, _resolve, play
from .ratings import free_for_all, plackett_luce
from .stats import bradley_terry, wilson

__all__ = ["match", "tournament", "wilson", "bradley_terry", "play", "seat_rotations", "free_for_all",
           "plackett_luce"]


def seat_rotations(num_players: int) -> list:
    """Seat layouts of a duplicate deal: ``layout[seat]`` is 0 for player a and 1 for player b."""
    if num_players == 2:
        return [[0, 1], [1, 0]]
    return [[0 if seat == r else 1 for seat in range(num_players)] for r in range(num_players)]


#: the bots training runs and examples measure against; the `search` bot is left out (it costs
#: milliseconds a decision: measure against it with ``cardgym eval GAME --bots MODEL,search``)
BASELINE_BOTS = ("random", "greedy", "expert")


def baseline_bots(game) -> list:
    """The game's bots among `BASELINE_BOTS`, in the game's order."""
    return [b for b in _game(game).bots if b in BASELINE_BOTS]


def match(game, a, b, num_players: int = 2, games: int = 2000, seed: int = 0, progress: bool = False,
          recorder=None, concurrency: int = 1, **options) -> dict:
    """Duplicate match of ``a`` against ``b`` (``games`` games in all, a multiple of the rotations).

    Returns ``{"a", "b", "games", "wins", "losses", "draws", "a_win_rate", "ci95", "a_mean_reward",
    "mean_turns", "seconds", "games_per_second"}``, and with text players (`cardgym.agents.text`)
    ``"text"``: each text player's counts over this match (`TextPlayer.stats`) and ``"forfeits"``, the
    games a text player forfeited (lost by its seat). ``recorder`` and ``concurrency`` (games of text
    players in flight at once): see `cardgym.eval.batch.play`.
    """
    game = _game(game)
    rules = game.make_rules(num_players=num_players, **options)
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be a positive integer, got {games!r}")
    if game.utility == "house":
        return _house_match(game, rules, a, b, games, seed, progress, recorder, concurrency)
    if rules.num_players < 2:
        raise ValueError(f"a match of {game.name} ({game.utility.replace('_', '-')}) needs at least 2 players, got "
                         f"num_players={rules.num_players}")
    rotations = seat_rotations(num_players)
    deals = max(1, -(-games // len(rotations)))
    pa, pb = _resolve(game, a, rules), _resolve(game, b, rules)
    seeds, layouts, seat_players = [], [], []
    for d in range(deals):
        for layout in rotations:
            seeds.append(seed + d)
            layouts.append(layout)
            seat_players.append([pa if who == 0 else pb for who in layout])
    seeds = np.array(seeds, np.int64)
    layouts = np.array(layouts, np.int8)
    label = f"{a} vs {b}"
    bar = _Progress(len(seeds), label, progress)
    t0 = time.perf_counter()
    before = _text_counts(pa, pb)
    rewards, status, turns = play(game, rules, seeds, seat_players, progress=bar, recorder=recorder,
                                  concurrency=concurrency)
    bar.close()
    dt = time.perf_counter() - t0
    won = rewards > 0
    a_won = (won & (layouts == 0)).any(axis=1)
    b_won = (won & (layouts == 1)).any(axis=1)
    wins = int(np.sum(a_won & ~b_won))
    losses = int(np.sum(b_won & ~a_won))
    n = len(seeds)
    draws = n - wins - losses
    points = wins + 0.5 * draws
    lo, hi = wilson(points, n)
    a_mean = float(np.mean(np.sum(np.where(layouts == 0, rewards, 0.0), axis=1) / np.maximum(1, (layouts == 0).sum(1))))
    b_mean = float(np.mean(np.sum(np.where(layouts == 1, rewards, 0.0), axis=1) / np.maximum(1, (layouts == 1).sum(1))))
    return _with_text(before, status, {
        "a": str(a), "b": str(b), "games": n, "wins": wins, "losses": losses, "draws": draws,
        "a_win_rate": round(points / n, 4), "ci95": [round(lo, 4), round(hi, 4)],
        "a_mean_reward": round(a_mean, 4), "b_mean_reward": round(b_mean, 4),
        "truncated": int(np.sum(status == 2)), "mean_turns": round(float(turns.mean()), 2),
        "seconds": round(dt, 3), "games_per_second": round(n / dt, 1) if dt > 0 else None,
    })


def _text_counts(*players) -> dict:
    """The counts of the text players among ``players`` now (to report a match's own counts)."""
    from ..agents.text import is_text_player

    return {id(p): (p, dict(p.counts)) for p in players if is_text_player(p)}


def _with_text(before: dict, status, result: dict) -> dict:
    """``result`` with the text players' counts since ``before`` and the forfeited games."""
    if not before:
        return result
    from .text_games import FORFEIT, player_label

    result["forfeits"] = int(np.sum(status == FORFEIT))
    result["text"] = {player_label(p): p.stats(since=counts) for p, counts in before.values()}
    return result


def _house_match(game, rules, a, b, games: int, seed: int, progress: bool, recorder=None, concurrency: int = 1) -> dict:
    """`match` of a game against the house: each deal played by ``a`` on every seat, then by ``b``."""
    n = rules.num_players
    deals = max(1, -(-games // 2))
    pa, pb = _resolve(game, a, rules), _resolve(game, b, rules)
    seeds = np.repeat(np.arange(seed, seed + deals, dtype=np.int64), 2)
    seat_players = [[pa] * n if k % 2 == 0 else [pb] * n for k in range(2 * deals)]
    bar = _Progress(len(seeds), f"{a} vs {b}", progress)
    t0 = time.perf_counter()
    before = _text_counts(pa, pb)
    rewards, status, turns = play(game, rules, seeds, seat_players, progress=bar, recorder=recorder,
                                  concurrency=concurrency)
    bar.close()
    dt = time.perf_counter() - t0
    a_total, b_total = rewards[0::2].sum(axis=1), rewards[1::2].sum(axis=1)
    wins, losses = int(np.sum(a_total > b_total)), int(np.sum(a_total < b_total))
    draws = deals - wins - losses
    points = wins + 0.5 * draws
    lo, hi = wilson(points, deals)
    return _with_text(before, status, {
        "a": str(a), "b": str(b), "games": deals, "wins": wins, "losses": losses, "draws": draws,
        "a_win_rate": round(points / deals, 4), "ci95": [round(lo, 4), round(hi, 4)],
        "a_mean_reward": round(float(a_total.mean()) / n, 4), "b_mean_reward": round(float(b_total.mean()) / n, 4),
        "truncated": int(np.sum(status == 2)), "mean_turns": round(float(turns.mean()), 2),
        "seconds": round(dt, 3), "games_per_second": round(2 * deals / dt, 1) if dt > 0 else None,
    })


def tournament(game, players: list, num_players: int = 2, games: int = 2000, seed: int = 0,
               progress: bool = False, recorder=None, concurrency: int = 1, **options) -> dict:
    """Round robin of every pair of ``players`` (duplicate matches) and their ratings.

    Returns ``{"game", "num_players", "pairs": [match results...], "ratings": {player: elo},
    "multiplayer": ...}``. ``ratings`` (Bradley-Terry, Elo scale) are fit for 2-player matches only
    and for games against the house (``None`` otherwise: with more players each match is one seat against
    the field, which is not a head-to-head result). With 3 or more seats, ``multiplayer`` holds the Plackett-Luce ratings
    (openskill, ``mu``, ``sigma``, 95% interval ``mu +- 1.96 sigma``) of ``games`` more games of line-ups
    of all the players ([`free_for_all`][cardgym.eval.ratings.free_for_all]); ``None`` for 2 seats.
    """
    if len(players) < 2:
        raise ValueError(f"a tournament needs at least two players, got {players}")
    if len(set(players)) != len(players):
        raise ValueError(f"players must be distinct, got {players}")
    pairs = []
    scores = {}
    for a, b in itertools.combinations(players, 2):
        r = match(game, a, b, num_players=num_players, games=games, seed=seed, progress=progress,
                  recorder=recorder, concurrency=concurrency, **options)
        pairs.append(r)
        scores[(str(a), str(b))] = (r["wins"] + 0.5 * r["draws"], r["games"])
    # a Bradley-Terry fit needs head-to-head results; "one seat against the field" scores are not (the
    # deal-by-deal comparisons of a game against the house are)
    house = _game(game).utility == "house"
    ratings = bradley_terry([str(p) for p in players], scores) if num_players == 2 or house else None
    multiplayer = None
    if num_players > 2 and not house:
        multiplayer = free_for_all(game, players, num_players, games=games, seed=seed, progress=progress,
                                   **options)
    return {"game": _game(game).name, "num_players": num_players, "pairs": pairs, "ratings": ratings,
            "multiplayer": multiplayer}
