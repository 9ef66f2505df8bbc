"""Duplicate evaluation of a trained policy (or any player) against another, for the trainer and the
examples: a thin adapter over [`cardgym.eval.match`][cardgym.eval.match]."""

from __future__ import annotations

from ..eval import match


def duplicate_eval(game, player, opponent, games: int = 2000, seed: int = 0, **rules) -> dict:
    """Win rate of ``player`` against ``opponent`` over ``games`` duplicate games
    ([`cardgym.eval.match`][cardgym.eval.match]: every deal once per seat rotation, a draw counts half, 95% Wilson
    interval). Players are bot names, model paths or policies; ``rules`` are the game's options."""
    num_players = rules.pop("num_players", 2)
    r = match(game, player, opponent, num_players=num_players, games=games, seed=seed, **rules)
    return {
        "games": r["games"], "win_rate": r["a_win_rate"], "ci95": r["ci95"], "wins": r["wins"],
        "draws": r["draws"], "losses": r["losses"], "mean_return": r["a_mean_reward"],
        "opponent_mean_return": r["b_mean_reward"], "truncated": r["truncated"],
    }


def format_result(name: str, res: dict) -> str:
    lo, hi = res["ci95"]
    return (f"vs {name:<8} win rate {100 * res['win_rate']:5.1f}%  (95% CI {100 * lo:.1f}-{100 * hi:.1f}, "
            f"{res['games']} duplicate games: {res['wins']} W / {res['draws']} D / {res['losses']} L)")
