"""Beside a rating: how good a player's single moves are, and whether a prompt change made a difference.

- `move_quality`: from a run's game records, how often the text player's move is the one ``expert`` (or
  ``search``) would play in the same position, per decision, with a 95% Wilson interval. A decision with
  one legal move is left out (there was nothing to choose).
- `ablation`: the same player under two prompt templates (or any two players) on the same seat-swapped
  deals against the same opponent, and a paired test of the difference of their scores, deal by deal. A
  byte-identical template must show none (the test suite checks it with a scripted player).
"""

from __future__ import annotations

import math

import numpy as np

from .batch import _game
from .stats import wilson

Z95 = 1.959963984540054


def move_quality(paths, bots=("expert", "search"), players=None) -> dict:
    """``{bot: {"same", "decisions", "rate", "ci95"}}`` over the decisions of the text players' seats (the
    header's players with a ``text`` entry; ``players``: the seats of the players of these names instead)
    in the game records ``paths``:
    how often the recorded move is the one ``bot`` chooses in that position (on a copy of the state: the
    game is not changed)."""
    from ..app.game_records import read_record, replay
    from ..core.state.actions import bot_choice

    same = dict.fromkeys(bots, 0)
    total = 0
    for path in paths:
        rec = read_record(path)
        mine = {p["seat"] for p in rec.header["players"]
                if ("text" in p if players is None else p.get("name") in players)}
        if not mine:
            continue
        game = None
        for k, (_, env) in enumerate(replay(rec)):
            if k >= len(rec.actions):
                break
            act = rec.actions[k]
            if act["seat"] not in mine:
                continue
            game = env.game
            mask = env.action_mask()
            if int(mask.sum()) < 2:
                continue
            total += 1
            state = np.array([env.record], dtype=env.record.dtype)
            params = env.rules.params()
            for b in bots:
                if b not in game.bots:
                    raise ValueError(f"{game.name} has no bot {b!r}; bots: {', '.join(game.bots)}")
                if bot_choice(game, b, state.copy(), params, mask[None, :]) == act["action"]:
                    same[b] += 1
    out = {}
    for b in bots:
        lo, hi = wilson(same[b], total)
        out[b] = {"same": same[b], "decisions": total, "rate": round(same[b] / total, 4) if total else None,
                  "ci95": [round(lo, 4), round(hi, 4)]}
    return out


def paired_difference(a, b) -> dict:
    """The paired test of ``a - b`` (one score per deal each, same deals): mean difference, its 95%
    interval (normal approximation of the mean), the deals where they differ, and the two-sided p-value of
    a sign test over those deals (exact binomial). Equal lists give a difference of 0 with interval
    ``[0, 0]`` and p = 1."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if a.shape != b.shape or a.ndim != 1 or len(a) == 0:
        raise ValueError(f"paired scores must be two lists of the same length >= 1, got {a.shape} and {b.shape}")
    d = a - b
    n = len(d)
    mean = float(d.mean())
    se = float(d.std(ddof=1) / math.sqrt(n)) if n > 1 else 0.0
    up, down = int(np.sum(d > 0)), int(np.sum(d < 0))
    m = up + down
    if m == 0:
        p = 1.0
    else:
        k = min(up, down)
        p = min(1.0, 2 * sum(math.comb(m, i) for i in range(k + 1)) / 2 ** m)
    return {"deals": n, "mean_difference": round(mean, 4), "se": round(se, 4),
            "ci95": [round(mean - Z95 * se, 4), round(mean + Z95 * se, 4)], "deals_differing": m,
            "a_better": up, "b_better": down, "sign_test_p": round(p, 6)}


def deal_scores(game, player, opponent, deals: int, seed: int, **options) -> np.ndarray:
    """``player``'s points on each deal (both seat orders: 0, 0.5, 1 per game, summed) against
    ``opponent``: deal ``d`` is seed ``seed + d``."""
    from .batch import _resolve, play

    spec = _game(game)
    rules = spec.make_rules(num_players=2, **options)
    pa, pb = _resolve(spec, player, rules), _resolve(spec, opponent, rules)
    seeds = np.repeat(np.arange(seed, seed + deals, dtype=np.int64), 2)
    rows = [[pa, pb] if k % 2 == 0 else [pb, pa] for k in range(2 * deals)]
    rewards, _, _ = play(spec, rules, seeds, rows)
    mine = np.array([rewards[k, 0 if k % 2 == 0 else 1] for k in range(2 * deals)])
    theirs = np.array([rewards[k, 1 if k % 2 == 0 else 0] for k in range(2 * deals)])
    points = np.where(mine > theirs, 1.0, np.where(mine < theirs, 0.0, 0.5))
    return points.reshape(deals, 2).sum(axis=1)


def ablation(game, a, b, opponent="greedy", deals: int = 50, seed: int = 30_000_000, **options) -> dict:
    """Players ``a`` and ``b`` (the same model under two templates, say) on the same seat-swapped
    ``deals`` against ``opponent``: each one's score and `paired_difference` of ``a - b`` per deal."""
    sa = deal_scores(game, a, opponent, deals, seed, **options)
    sb = deal_scores(game, b, opponent, deals, seed, **options)
    return {"a": str(a), "b": str(b), "opponent": str(opponent), "a_score": round(float(sa.mean()) / 2, 4),
            "b_score": round(float(sb.mean()) / 2, 4), **paired_difference(sa, sb)}


__all__ = ["ablation", "deal_scores", "move_quality", "paired_difference"]
