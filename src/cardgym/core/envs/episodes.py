"""The Python-side episode driver: start episodes and let the opponents play up to the learner.

The compiled loops of ``core/compiled/bound.py`` (``start_episode``, ``step_env``) drive games whose opponents
are compiled bots. Opponents that are Python policies (a saved model, a callable, the trainer's own
snapshots) cannot be called from compiled code, so games with such players are driven from here, in
batches: every round, the records whose seat to act belongs to a player are grouped by player, a bot
decides for its group in one compiled call (``batch_bot``), a policy for its group in one batched
forward pass (``batch_observe`` then ``policy.act``), and every chosen action is applied in one
compiled call (``batch_apply``). Seats marked `EXTERNAL` are left to the caller (the learner).

One driver serves the single-agent env (one record), the vector env with Python opponents (or several
opponents assigned per env) and, through the vector env, the built-in trainer; `cardgym.eval.play`
plays whole games with it (every seat a player). `EpisodeDriver.start` is the Python twin of the
compiled ``start_episode``: reset, draw the learner's seat if it is random, play the opponents up to
the learner's first decision, and replace a deal that ends before that decision.
"""

from __future__ import annotations

import numpy as np

from cardgym.core.contract.game import DictEncoder
from cardgym.core.state.status import RUNNING
from cardgym.core.compiled.rng import fork_bot_streams

#: ``seat_player`` of a seat the caller plays (the learner)
EXTERNAL = -1

_EMPTY_DECK = np.empty(0, np.int8)


class _Batched:
    """A plain ``(obs, mask) -> action`` callable made batched (one call per record)."""

    def __init__(self, fn):
        self.fn = fn

    def act(self, obs, masks):
        out = np.zeros(len(masks), np.int64)
        for k, (o, m) in enumerate(zip(obs, masks)):
            action = self.fn(o, m)
            try:
                out[k] = int(action)
            except (TypeError, ValueError, OverflowError):
                raise ValueError(f"opponent {self.fn!r} returned {action!r}, not an action id") from None
        return out

    def __call__(self, obs, mask):
        return int(self.fn(obs, mask))


def as_batched(policy, per_record: bool = False):
    """``policy`` if it has a batched ``act``, else a wrapper that loops the callable.

    ``per_record=True`` always loops ``policy(obs, mask)`` one record at a time (what the single-agent
    env does: a policy's ``__call__`` and its ``act`` on a batch of one may draw its generator apart)."""
    if hasattr(policy, "act_records") or (not per_record and hasattr(policy, "act") and callable(policy.act)):
        return policy  # ``act_records(records, masks)``: a search, given the records (see `EpisodeDriver.decide`)
    if callable(policy):
        return _Batched(policy)
    raise ValueError(f"a policy must be a callable (obs, mask) -> action or have act(obs, masks), got {policy!r}")


class EpisodeDriver:
    """``num_envs`` records of one game and who plays each seat.

    Args:
        game: a `cardgym.core.contract.game.GameSpec`.
        rules: the game's ``Rules`` (``game.make_rules(**options)``).
        num_envs: batch size.
        observation: the encoder policies observe (``"vector"``; a dict encoder gives each policy call
            a dict observation, built in Python).
        compiled: the caller's binding of the compiled template (``game.compiled(...)``) if it has one,
            else one bound to ``observation`` is made.
        reward_dtype: dtype of the ``rewards`` accumulator.

    ``players`` is a list of bot names and policies; ``seat_player[i, seat]`` is an index into it or
    `EXTERNAL`. ``rewards[i, seat]`` accumulates every reward paid since the caller last zeroed it;
    ``seats[i]`` is the learner's seat that `start` chose for record ``i``; ``decisions`` counts every
    action applied.
    """

    def __init__(self, game, rules, num_envs: int, observation: str = "vector", compiled=None,
                 reward_dtype=np.float32):
        self.game, self.rules = game, rules
        self.params = rules.params()
        self.n = int(num_envs)
        self.num_players = int(rules.num_players)
        self.encoder = game.encoder(observation)
        self.which_obs = game.obs_index(observation)
        self.flat = not isinstance(self.encoder, DictEncoder)
        # each bot acts through its own binding (`decide`), so only the bots that play are compiled
        self.c = game.compiled(obs=self.which_obs) if compiled is None else compiled
        self.obs_size = int(self.encoder.size(rules)) if self.flat else None
        self._space = None if self.flat else self.encoder.space(rules)
        self.states = game.new_states(self.n)
        self.masks = np.zeros((self.n, game.num_actions), np.int8)
        self.rewards = np.zeros((self.n, game.max_players), reward_dtype)
        self.seat_player = np.full((self.n, game.max_players), EXTERNAL, np.int64)
        self.seats = np.zeros(self.n, np.int64)
        self._rows = np.arange(self.n)
        self.players: list = []
        self._kinds: list = []  # ("bot", which) or ("policy", batched policy)
        self._bot_masks = np.zeros_like(self.masks)
        self._bot_out = np.zeros(self.n, np.int64)
        self.decisions = 0

    # ----------------------------------------------------------------- players
    def add_player(self, player, per_record: bool = False) -> int:
        """Register a bot name or a policy; returns its player index."""
        self.players.append(None)
        self._kinds.append(None)
        self.set_player(len(self.players) - 1, player, per_record)
        return len(self.players) - 1

    def set_player(self, pid: int, player, per_record: bool = False):
        """Replace player ``pid`` (e.g. by a new snapshot of a policy)."""
        if isinstance(player, str):
            kind = ("bot", self.game.bot_index(player))
        else:
            kind = ("policy", as_batched(player, per_record))
        self.players[pid] = player
        self._kinds[pid] = kind

    set_policy = set_player

    def drop_player(self, pid: int):
        """Forget player ``pid`` (no record may still be played by it); `set_player` can reuse its index."""
        self.players[pid] = None
        self._kinds[pid] = None

    # ------------------------------------------------------------------ records
    def reset(self, seeds, idx=None, deck=None):
        """Reset every record (``idx=None``) or records ``idx`` with ``seeds`` (a stacked ``deck`` if
        given); zeroes their rewards."""
        seeds = np.asarray(seeds, np.int64)
        deck = _EMPTY_DECK if deck is None else deck
        if idx is None:
            self.c.batch_reset(self.states, self.params, seeds, self.masks, deck, len(deck))
            self.rewards[:] = 0
            return
        for k, i in enumerate(np.asarray(idx)):
            self.c.reset_one(self.states, int(i), self.params, int(seeds[k]), deck, len(deck), self.masks[i])
            self.rewards[i] = 0

    @property
    def status(self) -> np.ndarray:
        return self.states["status"]

    @property
    def current(self) -> np.ndarray:
        return self.states["current"].astype(np.int64)

    def observe(self, idx, seats, out=None):
        """Observations of ``seats[k]`` in records ``idx[k]``: float32 ``(len(idx), obs_size)`` for a
        flat encoder, a list of dicts for a dict encoder."""
        idx = np.asarray(idx, np.int64)
        seats = np.asarray(seats, np.int64)
        if not self.flat:
            return [self.encoder.observe(self.states[i], self.rules, int(s), self._space) for i, s in zip(idx, seats)]
        if out is None:
            out = np.zeros((idx.shape[0], self.obs_size), np.float32)
        self.c.batch_observe(self.states, self.params, idx, seats, out, self.which_obs)
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
        if hasattr(what, "act_records"):  # a search: it reads the records through cardgym.core.contract.worlds only
            acts = np.asarray(what.act_records(self.copies(idx), self.masks[idx].copy()), np.int64)
        else:
            acts = np.asarray(what.act(self.observe(idx, seats), self.masks[idx]), np.int64)
        if acts.shape != idx.shape:
            raise ValueError(f"player {self.players[pid]!r} returned actions of shape {acts.shape} for {idx.size} "
                             f"observations")
        inside = (acts >= 0) & (acts < self.masks.shape[1])
        legal = inside & (self.masks[idx, np.where(inside, acts, 0)] != 0)  # (np.clip costs more on ints)
        if not legal.all():
            bad = int(np.flatnonzero(~legal)[0])
            raise ValueError(
                f"player {self.players[pid]!r} for seat {int(np.asarray(seats)[bad])} chose an illegal action "
                f"{int(acts[bad])} (legal: {np.flatnonzero(self.masks[idx[bad]]).tolist()})"
            )
        return acts

    def copies(self, idx) -> np.ndarray:
        """Copies of records ``idx`` for a Python player's ``act_records``. Each copy gets a fresh bot
        generator, seeded from one step of its record's ``bot_rng``, which this advances (as a bot
        deciding inside the game advances it): a bot or search run on the copy never draws the numbers of
        an earlier decision, and the same seeds still replay the same game. The player cannot change the
        real records through its copies."""
        out = self.states[idx].copy()
        advanced, fresh = fork_bot_streams(out["bot_rng"])
        self.states["bot_rng"][idx] = advanced
        out["bot_rng"] = fresh
        return out

    def play(self, max_rounds: int = 1_000_000) -> int:
        """Let the players act until, in every record, the game is over or the seat to act is external.
        Returns the number of decisions taken."""
        total = 0
        rows = self._rows
        for _ in range(max_rounds):
            cur = self.current
            pid = self.seat_player[rows, cur]
            need = (self.status == RUNNING) & (pid != EXTERNAL)
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

    # ----------------------------------------------------------------- episodes
    def start(self, idx, seeds, seats, players, deck=None, redeal=True) -> np.ndarray:
        """Start an episode in records ``idx`` and play the opponents up to the learner's first decision.

        Record ``idx[k]`` is reset with ``seeds[k]`` (and the stacked ``deck``, if given); the learner
        sits at ``seats[k]`` (``-1``: a seat drawn from the record's bot generator, as the compiled
        ``start_episode`` does); every other seat is played by player ``players[k]``. The rewards the
        opening paid stay in ``rewards[idx]`` (the last deal's, when deals were replaced).

        A deal that ends before the learner's first decision is replaced: with ``redeal=True`` by the
        next deal of the record's own generator (same seat choice and player, no stacked deck), like the
        compiled ``start_episode``; with a callable, by ``redeal(idx_over) -> (seeds, seats, players)``;
        with ``redeal=False`` it is left over and its index returned. Returns the indices left over
        (empty unless ``redeal=False``).
        """
        idx = np.asarray(idx, np.int64)
        seeds = np.asarray(seeds, np.int64)
        seats = np.asarray(seats, np.int64)
        players = np.asarray(players, np.int64)
        while idx.size:
            self.reset(seeds, idx, deck)
            for k, i in enumerate(idx):
                seat = int(seats[k]) if seats[k] >= 0 else int(self.c.draw_seat(self.states, int(i)))
                self.seats[i] = seat
                self.seat_player[i, :] = players[k]
                self.seat_player[i, seat] = EXTERNAL
            self.play()
            over = self.status[idx] != RUNNING
            if not over.any() or redeal is False:
                return idx[over]
            idx = idx[over]
            if callable(redeal):
                seeds, seats, players = (np.asarray(a, np.int64) for a in redeal(idx))
            else:
                seeds = np.array([self.c.seedless(self.states, int(i)) for i in idx], np.int64)
                seats, players, deck = seats[over], players[over], None
        return idx
