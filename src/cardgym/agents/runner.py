"""Batched games whose seats are played by compiled bots, Python policies, or left to the caller.

The compiled loops of ``core/bound.py`` cannot call torch, so games with policy players are driven
from Python in batches: every round, the records whose seat to act belongs to a player are grouped by
player, a bot decides for its group in one compiled call (``batch_bot``), a policy for its group in one
batched forward pass (``batch_observe`` then ``policy.act``), and every chosen action is applied in one
compiled call (``batch_apply``). Seats marked external (player ``-1``) are left to the caller: the
trainer's learner, or the learner of the vector environment.
"""

from __future__ import annotations

import numpy as np

EXTERNAL = -1


class _Batched:
    """A plain ``(obs, mask) -> action`` callable made batched."""

    def __init__(self, fn):
        self.fn = fn

    def act(self, obs, masks):
        return np.array([int(self.fn(o, m)) for o, m in zip(obs, masks)], np.int64)

    def __call__(self, obs, mask):
        return int(self.fn(obs, mask))


def as_batched(policy):
    """``policy`` if it has a batched ``act``, else a wrapper that loops the callable."""
    if hasattr(policy, "act") and callable(policy.act):
        return policy
    if callable(policy):
        return _Batched(policy)
    raise ValueError(f"a policy must be a callable (obs, mask) -> action or have act(obs, masks), got {policy!r}")


class BatchRunner:
    """``num_envs`` records of one game and who plays each seat.

    Args:
        game: a `cardgym.core.game.GameSpec`.
        rules: the game's ``Rules`` (``game.make_rules(**options)``).
        num_envs: batch size.
        observation: the flat encoder policies observe (``"vector"``).

    ``players`` is a list of bot names and policies; ``seat_player[i, seat]`` is an index into it or
    `EXTERNAL`. ``rewards[i, seat]`` accumulates every reward paid since the caller last zeroed it.
    """

    def __init__(self, game, rules, num_envs: int, observation: str = "vector"):
        self.game, self.rules = game, rules
        self.params = rules.params()
        self.n = int(num_envs)
        self.num_players = int(rules.num_players)
        self.which_obs = game.obs_index(observation)
        if self.which_obs < 0:
            raise ValueError(f"policies need a flat encoder; {observation!r} is a dict encoder")
        # bound to the one encoder; each bot acts through its own binding (`_bot_call`), so only the
        # bots that play are compiled
        self.c = game.compiled(obs=self.which_obs)
        self.obs_size = int(game.encoder(observation).size(rules))
        self.states = np.zeros(self.n, game.state_dtype)
        self.masks = np.zeros((self.n, game.num_actions), np.int8)
        self.rewards = np.zeros((self.n, game.max_players), np.float32)
        self.seat_player = np.full((self.n, game.max_players), EXTERNAL, np.int64)
        self.players: list = []
        self._kinds: list = []  # ("bot", which) or ("policy", batched policy)
        self._empty = np.empty(0, np.int8)
        self._bot_masks = np.zeros_like(self.masks)
        self._bot_out = np.zeros(self.n, np.int64)
        self.decisions = 0

    # ----------------------------------------------------------------- players
    def add_player(self, player) -> int:
        """Register a bot name or a policy; returns its player index."""
        if isinstance(player, str):
            kind = ("bot", self.game.bot_index(player))
        else:
            kind = ("policy", as_batched(player))
        self.players.append(player)
        self._kinds.append(kind)
        return len(self.players) - 1

    def set_policy(self, pid: int, policy):
        """Replace the policy of player ``pid`` (e.g. a new snapshot)."""
        self.players[pid] = policy
        self._kinds[pid] = ("policy", as_batched(policy))

    # ------------------------------------------------------------------ records
    def reset(self, seeds, idx=None):
        """Reset every record (``idx=None``) or records ``idx`` with ``seeds``; zeroes their rewards."""
        seeds = np.asarray(seeds, np.int64)
        if idx is None:
            self.c.batch_reset(self.states, self.params, seeds, self.masks, self._empty, 0)
            self.rewards[:] = 0
            return
        for k, i in enumerate(np.asarray(idx)):
            self.c.reset_one(self.states, int(i), self.params, int(seeds[k]), self._empty, 0, self.masks[i])
            self.rewards[i] = 0

    @property
    def status(self) -> np.ndarray:
        return self.states["status"]

    @property
    def current(self) -> np.ndarray:
        return self.states["current"].astype(np.int64)

    def observe(self, idx, seats, out=None) -> np.ndarray:
        """Observations of ``seats[k]`` in records ``idx[k]`` (float32 ``(len(idx), obs_size)``)."""
        idx = np.asarray(idx, np.int64)
        if out is None:
            out = np.zeros((idx.shape[0], self.obs_size), np.float32)
        self.c.batch_observe(self.states, self.params, idx, np.asarray(seats, np.int64), out, self.which_obs)
        return out

    def apply(self, idx, actions):
        """Apply legal ``actions[k]`` to records ``idx[k]`` (seat to act), adding to ``rewards``."""
        idx = np.asarray(idx, np.int64)
        self.c.batch_apply(self.states, self.params, idx, np.asarray(actions, np.int64), self.masks, self.rewards)
        self.decisions += idx.shape[0]

    def decide(self, pid: int, idx, seats) -> np.ndarray:
        """Actions of player ``pid`` for the seats to act in records ``idx``."""
        kind, what = self._kinds[pid]
        if kind == "bot":
            bm = self._bot_masks
            bm[:] = 0
            bm[idx] = self.masks[idx]
            self.game.compiled(bot=what, obs=self.which_obs).batch_bot(self.states, self.params, bm, what,
                                                                        self._bot_out)
            return self._bot_out[idx].copy()
        obs = self.observe(idx, seats)
        acts = np.asarray(what.act(obs, self.masks[idx]), np.int64)
        legal = self.masks[idx, np.clip(acts, 0, self.masks.shape[1] - 1)]
        if acts.shape != idx.shape or (legal == 0).any() or (acts < 0).any():
            bad = int(np.flatnonzero((legal == 0) | (acts < 0))[0]) if acts.shape == idx.shape else 0
            raise ValueError(
                f"player {self.players[pid]!r} chose an illegal action {acts[bad] if acts.size else acts} "
                f"(legal: {np.flatnonzero(self.masks[idx[bad]]).tolist()})"
            )
        return acts

    def play(self, max_rounds: int = 1_000_000) -> int:
        """Let the players act until, in every record, the game is over or the seat to act is external.
        Returns the number of decisions taken."""
        total = 0
        for _ in range(max_rounds):
            cur = self.current
            running = self.status == 0
            pid = self.seat_player[np.arange(self.n), cur]
            need = running & (pid != EXTERNAL)
            if not need.any():
                break
            idx_all = np.flatnonzero(need)
            p_all = pid[idx_all]
            for p in np.unique(p_all):
                idx = idx_all[p_all == p]
                acts = self.decide(int(p), idx, cur[idx])
                self.apply(idx, acts)
                total += idx.shape[0]
        return total
