"""Seeded games of bots and policies played in batches: what matches (`cardgym.eval`) and line-ups
(`cardgym.eval.ratings`) are made of."""

from __future__ import annotations

import sys
import time

import numpy as np

from cardgym.core.contract.game import GameSpec


def _game(game) -> GameSpec:
    if isinstance(game, GameSpec):
        return game
    import cardgym

    return cardgym.get_game(game)


def _resolve(game: GameSpec, player, rules=None):
    """A bot name stays a name; a model path loads a policy (refused when trained on other ``rules`` or
    another observation than the flat ``vector`` one the matches use); a policy object is used as it is."""
    from cardgym.core.envs.opponents import is_bot_name, load_model_opponent

    if is_bot_name(game, player):
        return player
    if isinstance(player, str) and ":" in player and not player.endswith((".pt", ".pth")):
        return load_python_player(game, player, rules)
    if isinstance(player, str):
        return load_model_opponent(game, player, rules, "vector")
    if hasattr(player, "act") or hasattr(player, "act_records") or callable(player):
        return player
    raise ValueError(f"player must be a bot name {sorted(game.bots)}, a saved model path or a policy, got {player!r}")


def load_python_player(game: GameSpec, spec: str, rules=None):
    """A Python player named ``FILE.py:NAME`` or ``module:NAME``: ``NAME`` is a class (instantiated as
    ``NAME(game, rules)``) or a policy object/callable used as it is (docs/hidden_information.md)."""
    import importlib
    import importlib.util
    from pathlib import Path

    where, _, attr = spec.rpartition(":")
    if not where or not attr.isidentifier():
        raise ValueError(f"a Python player is FILE.py:NAME or module:NAME, got {spec!r}")
    if where.endswith(".py"):
        path = Path(where)
        if not path.is_file():
            raise ValueError(f"Python player {spec!r}: no file {where}")
        mspec = importlib.util.spec_from_file_location(f"cardgym_player_{path.stem}", path)
        mod = importlib.util.module_from_spec(mspec)
        sys.modules[mspec.name] = mod
        mspec.loader.exec_module(mod)
    else:
        try:
            mod = importlib.import_module(where)
        except ImportError as exc:
            raise ValueError(f"Python player {spec!r}: cannot import {where}: {exc}") from None
    if not hasattr(mod, attr):
        raise ValueError(f"Python player {spec!r}: {where} defines no {attr}")
    obj = getattr(mod, attr)
    if isinstance(obj, type):
        obj = obj(game, rules if rules is not None else game.make_rules())
    if not (hasattr(obj, "act") or hasattr(obj, "act_records") or callable(obj)):
        raise ValueError(f"Python player {spec!r} is not a policy (act, act_records or a callable)")
    return obj


def play(game, rules, seeds: np.ndarray, seat_players: list, chunk: int = 2048, progress=None,
         records: bool = False, recorder=None, concurrency: int = 1):
    """Play one game per seed; ``seat_players[g][seat]`` is a bot name or a policy.

    Games whose seats are all bots run whole inside one compiled call (``play_games``); games with
    policies run through [`cardgym.agents.runner.BatchRunner`][cardgym.agents.runner.BatchRunner] (bots compiled, each policy acting
    on a batch). Returns (rewards ``(games, num_players)``, status ``(games,)``, turns ``(games,)``), and
    with ``records=True`` also the final state records ``(games,)`` (for ``game.result``).

    Games in which a text player sits (`cardgym.agents.text.TextPlayer`) are played one at a time
    through the AEC env (`cardgym.eval.text_games`), the text players given the public moves since their
    last turn; ``recorder(env, row, k)`` may then return a game recorder of game ``k`` (its telemetry
    included). A forfeited game has status 3. ``concurrency`` such games are in flight at once (threads;
    the results are those of one at a time).
    """
    from ..agents.runner import BatchRunner
    from .text_games import play_games, text_players

    game = _game(game)
    if text_players(seat_players):
        return play_games(game, rules, seeds, seat_players, recorder=recorder, progress=progress, records=records,
                          concurrency=concurrency)
    # bind the compiled dispatch to the bots that play (compiling a bot nobody uses, e.g. `search`, costs
    # seconds on first use)
    used = {game.bot_index(p) for row in seat_players for p in row if isinstance(p, str)}
    c = game.compiled(bots=tuple(used)) if used else None
    params = rules.params()
    n = rules.num_players
    g_total = len(seeds)
    rewards = np.zeros((g_total, n), np.float64)
    status = np.zeros(g_total, np.int8)
    turns = np.zeros(g_total, np.int32)
    finals = game.new_states(g_total) if records else None
    for start in range(0, g_total, chunk):
        stop = min(start + chunk, g_total)
        k = stop - start
        rows = seat_players[start:stop]
        if all(isinstance(p, str) for row in rows for p in row):
            bots = np.array([[c.BOT_SLOTS[game.bot_index(p)] for p in row] for row in rows], np.int64)
            states = game.new_states(k)
            masks = np.zeros((k, game.num_actions), np.int8)
            rew = np.zeros((k, n), np.float64)
            st = np.zeros(k, np.int8)
            tu = np.zeros(k, np.int32)
            c.play_games(states, params, seeds[start:stop], bots, masks, rew, st, tu, 10**9)
            rewards[start:stop], status[start:stop], turns[start:stop] = rew, st, tu
            if records:
                finals[start:stop] = states
        else:
            run = BatchRunner(game, rules, k)
            ids = {}
            for i, row in enumerate(rows):
                for seat, p in enumerate(row):
                    if id(p) not in ids:
                        ids[id(p)] = run.add_player(p)
                    run.seat_player[i, seat] = ids[id(p)]
            run.reset(seeds[start:stop])
            run.play()
            rewards[start:stop] = run.rewards[:, :n]
            status[start:stop] = run.status
            turns[start:stop] = run.states["turn"]
            if records:
                finals[start:stop] = run.states
        if progress is not None:
            progress(k)
    if records:
        return rewards, status, turns, finals
    return rewards, status, turns


class _Progress:
    def __init__(self, total, label, enabled):
        self.total, self.done, self.label, self.enabled = total, 0, label, enabled
        self.t0 = time.perf_counter()
        self.bar = None
        if enabled:
            try:
                from tqdm import tqdm

                self.bar = tqdm(total=total, desc=label, unit="game", file=sys.stderr, leave=False)
            except ImportError:
                self.bar = None

    def __call__(self, k):
        self.done += k
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.update(k)
        else:
            print(f"\r{self.label}: {self.done}/{self.total} games", end="", file=sys.stderr)

    def close(self):
        if self.bar is not None:
            self.bar.close()
        elif self.enabled:
            print(file=sys.stderr)
