"""Games with text players, one at a time through the AEC env: each text player is given its seat's view
and the public moves since its last turn, its telemetry can go into a game record, and a forfeit ends
the game.

`cardgym.eval.batch.play` sends every batch of games in which a text player sits
(`cardgym.agents.text.is_text_player`) here; bots, models and other Python players play their seats as
they do in the batch (the same deals, the same bot generators: an all-bot game gives the batch's result).
"""

from __future__ import annotations

import copy
import importlib
import json
import threading

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


def play_games(game, rules, seeds, seat_players: list, recorder=None, progress=None, records: bool = False,
               concurrency: int = 1):
    """`cardgym.eval.batch.play` for games with text players (see `play_one`), ``concurrency`` games in
    flight at once (threads, each game on an env no other game is using; a `Slots` shares the games in
    flight with other runs). Each game plays with its own copy of every text player (`game_copy`: the
    player's counts are added up after the game, its random fallback drawn from a generator of the
    player's seed and the game's deal and seat), so a run gives the same results at any ``concurrency``,
    and a resumed run the results of an uninterrupted one.

    ``recorder``: a `cardgym.app.game_records.RecordFolder` (or a `cardgym.eval.runs.RunFolder`, whose
    journal also skips the games an interrupted run finished), or any ``recorder(env, row, k)`` that
    makes the recorder of game ``k`` (or returns ``None``), closed with ``rec.done()`` when it has one."""
    from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

    slots = concurrency if isinstance(concurrency, Slots) else None
    workers = slots.n if slots is not None else check_concurrency(concurrency)
    g_total = len(seeds)
    n = rules.num_players
    rewards = np.zeros((g_total, n), np.float64)
    status = np.zeros(g_total, np.int8)
    turns = np.zeros(g_total, np.int32)
    finals = game.new_states(g_total) if records else None
    # names of the games' records claimed in schedule order (the same at any concurrency)
    keys = [recorder.claim(row) for row in seat_players] if hasattr(recorder, "claim") else None
    journal = getattr(recorder, "finished", None)
    lock = threading.Lock()

    def one(k):
        if slots is None:
            return game_k(k)
        with slots.semaphore:
            return game_k(k)

    def game_k(k):
        key, env = take_env(game, rules)
        try:
            return play_k(k, env)
        finally:
            give_env(key, env)

    def play_k(k, env):
        row, seed = seat_players[k], int(seeds[k])
        copies = [game_copy(p, seed, seat) if is_text_player(p) else p for seat, p in enumerate(row)]
        if keys is not None:
            rec = recorder.open(env, copies, keys[k])
        else:
            with lock:  # a plain recorder callable may count games
                rec = recorder(env, copies, k) if recorder is not None else None
        try:
            r, s, t, final = play_one(env, copies, seed, rec)
        except BaseException:  # a stopped run (ServerFailures, a fatal ask) still counts what this game asked
            add_back(row, copies)
            raise
        counts = {}
        for p, c in zip(row, copies):
            if c is not p:
                add_counts(counts.setdefault(player_label(p), {}), c.counts)
        if rec is not None and callable(getattr(rec, "done", None)):
            rec.done()
        if keys is not None and callable(getattr(recorder, "write", None)):
            recorder.write(keys[k], {"seed": seed, "rewards": r.tolist(), "status": int(s), "turns": int(t),
                                     "counts": counts})
        add_back(row, copies)
        return k, r, s, t, final

    def add_back(row, copies):
        with lock:
            for p, c in zip(row, copies):
                if c is not p:
                    add_counts(p.counts, c.counts)

    todo = []
    for k in range(g_total):
        done = journal(keys[k]) if keys is not None and journal is not None else None
        if done is None:
            todo.append(k)
            continue
        if records:
            raise ValueError("a resumed run cannot return final states (records=True)")
        rewards[k], status[k], turns[k] = done["rewards"], done["status"], done["turns"]
        for p in {id(p): p for p in seat_players[k] if is_text_player(p)}.values():
            add_counts(p.counts, done["counts"].get(player_label(p), {}))
        if progress is not None:
            progress(1)

    def keep(k, r, s, t, final):
        rewards[k], status[k], turns[k] = r, s, t
        if records:
            finals[k] = final
        if progress is not None:
            progress(1)

    if workers == 1:
        for k in todo:
            keep(*one(k))
    else:
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="cardgym-game") as pool:
            pending = {pool.submit(one, k) for k in todo}
            try:
                while pending:
                    finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for f in finished:
                        keep(*f.result())
            except BaseException:
                for f in pending:
                    f.cancel()
                raise
    if records:
        return rewards, status, turns, finals
    return rewards, status, turns


#: most games in flight at once
MAX_CONCURRENCY = 1024
#: envs of finished games, kept for the next ones: ``{(game, rules): [env, ...]}`` (making an env costs
#: milliseconds; a ladder at ``--concurrency 32`` plays its nine matches side by side)
_ENVS: dict = {}
_ENVS_LOCK = threading.Lock()


def take_env(game, rules):
    """``(key, env)``: a raw AEC env of ``game`` with ``rules`` that no game is using (one of `_ENVS` or a
    new one); give it back with `give_env` when the game is over."""
    key = (id(game), game.name, json.dumps(rules.as_dict(), sort_keys=True, default=str))
    with _ENVS_LOCK:
        free = _ENVS.get(key)
        if free:
            return key, free.pop()
    return key, raw_env(game, rules)


def give_env(key, env):
    with _ENVS_LOCK:
        free = _ENVS.setdefault(key, [])
        if len(free) < MAX_CONCURRENCY:
            free.append(env)


class Slots:
    """At most ``n`` games in flight across several runs at once (the ladder's matches, played side by
    side): give the same `Slots` as the ``concurrency`` of each."""

    def __init__(self, n: int):
        self.n = check_concurrency(n)
        self.semaphore = threading.BoundedSemaphore(self.n)


def check_concurrency(concurrency) -> int:
    """``concurrency`` if it is an integer 1..`MAX_CONCURRENCY`; ``ValueError`` naming it otherwise."""
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or not 1 <= concurrency <= MAX_CONCURRENCY:
        raise ValueError(f"concurrency must be an integer 1..{MAX_CONCURRENCY} (games in flight), got {concurrency!r}")
    return concurrency


def game_copy(player, seed: int, seat: int):
    """A copy of the text player ``player`` for one game: the same ``ask`` and setup, its own counts
    (zeroed; `play_games` adds them to the player's after the game) and, when it has one, its own
    random-fallback generator seeded by the player's seed, the deal's ``seed`` and the ``seat``."""
    c = copy.copy(player)
    c.reset_stats()
    if hasattr(c, "_rng"):
        c._rng = np.random.default_rng([int(getattr(player, "seed", 0)), int(seed), int(seat)])
    return c


def add_counts(into: dict, more: dict) -> dict:
    """Add the numbers of ``more`` into ``into`` (nested dicts added key by key); returns ``into``."""
    for key, v in more.items():
        if isinstance(v, dict):  # a new dict: a shallow copy of ``into`` taken earlier keeps its own
            into[key] = add_counts(dict(into.get(key) or {}), v)
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            into[key] = into.get(key, 0) + v
    return into


def text_players(seat_players: list) -> list:
    """The distinct text players among ``seat_players`` (rows of seats), in order of first seat."""
    out, seen = [], set()
    for row in seat_players:
        for p in row:
            if is_text_player(p) and id(p) not in seen:
                seen.add(id(p))
                out.append(p)
    return out


__all__ = ["FORFEIT", "MAX_CONCURRENCY", "add_counts", "Slots", "check_concurrency", "game_copy",
           "give_env", "play_games", "play_one", "player_label", "raw_env", "take_env", "text_players"]
