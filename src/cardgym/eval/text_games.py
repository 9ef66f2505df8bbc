"""Games with text players, one at a time through the AEC env: each text player is given its seat's view
and the public moves since its last turn, its telemetry can go into a game record, and a forfeit ends
the game.

`cardgym.eval.batch.play` sends every batch of games in which a text player sits
(`cardgym.agents.text.is_text_player`) here; bots, models and other Python players play their seats as
they do in the batch (the same deals, the same bot generators: an all-bot game gives the batch's result).
"""

from __future__ import annotations

import importlib

import numpy as np

from ..agents.runner import as_batched
from ..agents.text import is_text_player, moves_for, theirs

#: ``status`` of a game a text player forfeited (besides 1 terminated and 2 truncated)
FORFEIT = 3


def raw_env(game, rules):
    """A raw AEC env of ``game`` with ``rules`` (a ``Rules`` object)."""
    import cardgym

    mod = importlib.import_module(cardgym.GAMES[game.name].module)
    return mod.raw_env(**rules.as_dict())


def player_label(p) -> str:
    return p if isinstance(p, str) else str(getattr(p, "name", None) or getattr(p, "__name__", None)
                                             or type(p).__name__)


def play_one(env, row: list, seed: int, recorder=None):
    """Play one game of ``env`` (a raw AEC env) with ``row[seat]`` (bot names and players) from deal
    ``seed``. Returns ``(rewards, status, turns, record)``; ``status`` is `FORFEIT` when a text player
    forfeited (its seat's reward -1, every other seat's +1, the game stopped there).

    ``recorder``: a `cardgym.app.game_records.GameRecorder` of ``env`` (or anything with its ``reset``,
    ``step(action, telemetry=None)`` and an ``end_extra`` dict), given every decision and the text
    players' telemetry."""
    n = env.num_players
    driver = recorder if recorder is not None else env
    driver.reset(seed=int(seed))
    index = {a: i for i, a in enumerate(env.possible_agents)}
    rewards = np.zeros(n, np.float64)
    for a, r in env.rewards.items():
        rewards[index[a]] += r
    history: list = []
    since = [0] * n
    describe = env.game.describe_action
    forfeit = None
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            driver.step(None)
            continue
        seat = index[agent]
        p = row[seat]
        tel = None
        if isinstance(p, str):
            a = env.bot_action(p)
        elif is_text_player(p):
            a, tel = p.decide(env.view(seat), moves_for(p, history, since[seat]))
            if a is None:
                forfeit = seat
                if recorder is not None:
                    recorder.end_extra["forfeit"] = {"seat": seat, "step": len(recorder.actions),
                                                     "telemetry": tel}
                break
        elif hasattr(p, "act_records"):
            rec = np.array([env.record], dtype=env.record.dtype)
            a = int(np.asarray(p.act_records(rec, env.action_mask()[None]))[0])
        else:
            obs = env.observe(agent)
            a = int(as_batched(p).act(obs["observation"][None], obs["action_mask"][None])[0])
        text = describe(env.record, env.rules, a) if describe else env.game.action_to_str(a)
        if recorder is not None:
            recorder.step(a, telemetry=tel)
        else:
            env.step(a)
        history.append(f"player_{seat}: {theirs(text)}")
        since[seat] = len(history)
        for ag, r in env.rewards.items():
            rewards[index[ag]] += r
    if forfeit is not None:
        rewards[:] = 1.0
        rewards[forfeit] = -1.0
        status = FORFEIT
    else:
        status = int(env.record["status"])
    return rewards, status, int(env.record["turn"]) if "turn" in env.record.dtype.names else 0, env.record.copy()


def play_games(game, rules, seeds, seat_players: list, recorder=None, progress=None, records: bool = False):
    """`cardgym.eval.batch.play` for games with text players: one game at a time (see `play_one`);
    ``recorder(env, row, k)`` makes the recorder of game ``k`` (or returns ``None``) and is closed with
    ``recorder_done(rec)`` when it has one."""
    g_total = len(seeds)
    n = rules.num_players
    rewards = np.zeros((g_total, n), np.float64)
    status = np.zeros(g_total, np.int8)
    turns = np.zeros(g_total, np.int32)
    finals = game.new_states(g_total) if records else None
    env = raw_env(game, rules)
    for k in range(g_total):
        rec = recorder(env, seat_players[k], k) if recorder is not None else None
        r, s, t, final = play_one(env, seat_players[k], int(seeds[k]), rec)
        rewards[k], status[k], turns[k] = r, s, t
        if records:
            finals[k] = final
        if rec is not None and callable(getattr(rec, "done", None)):
            rec.done()
        if progress is not None:
            progress(1)
    if records:
        return rewards, status, turns, finals
    return rewards, status, turns


def text_players(seat_players: list) -> list:
    """The distinct text players among ``seat_players`` (rows of seats), in order of first seat."""
    out, seen = [], set()
    for row in seat_players:
        for p in row:
            if is_text_player(p) and id(p) not in seen:
                seen.add(id(p))
                out.append(p)
    return out


__all__ = ["FORFEIT", "play_games", "play_one", "player_label", "raw_env", "text_players"]
