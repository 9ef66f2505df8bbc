"""The two engines behind `cardgym.core.envs.vector.CardGameVectorEnv`, one small interface (the single-agent
`cardgym.core.envs.single.CardGameEnv` plays compiled opponents on `CompiledEngine` too, a batch of one).

- `CompiledEngine`: every opponent a compiled bot; ``step()`` is one compiled call over the batch
  (``vec_step`` of `cardgym.core.compiled.bound`: learner actions, bots, observations, masks, autoreset).
- `DriverEngine`: opponents driven from Python (model files, policies, a list of opponents, a caller's
  ``new_episode``) through the episode driver, `cardgym.core.envs.episodes.EpisodeDriver` (bots still decide
  in compiled calls, each policy in one batched ``act`` per round).

Both expose ``states``, ``masks`` and ``seats`` (the arrays the env reads and returns), ``driver`` (the
`EpisodeDriver`, or ``None``), ``reset(seeds)`` (every env starts an episode; ``seeds`` is ``None``
when ``new_episode`` chooses them) and ``step()`` (play the actions in the batch's ``actions`` row and
write observations, rewards, flags and masks into the env's batch arrays). The env does the rest
(checks, seeds, infos, saved states) the same way over either engine.
"""

from __future__ import annotations

import numpy as np

from cardgym.core.state.actions import TERMINAL_ACTION
from cardgym.core.envs.episodes import EpisodeDriver
from cardgym.core.compiled.fastcall import entry

#: batches at least this large are stepped on all of numba's threads (``numba.set_num_threads`` limits
#: them); smaller ones in one thread, where starting the threads would cost more than it saves
PARALLEL_MIN_ENVS = 256

_NO_DECK = np.empty(0, np.int8)


class CompiledEngine:
    """Every opponent a compiled bot: the whole step in one compiled call."""

    driver = None

    def __init__(self, env):
        self.env = env
        b = env._batch
        self.states, self.masks, self.seats = b.states, b.masks, b.seats
        self._f_step = None  # the compiled step, resolved on the first step

    def reset(self, seeds, deck=None) -> None:
        """Start an episode in every env from ``seeds`` (``deck``: a stacked deck for all of them, int8
        card codes, or None)."""
        env = self.env
        deck = _NO_DECK if deck is None else deck
        env.decisions += env._c.vec_reset(env._batch, env._params, seeds, deck, len(deck), env._setup)

    def step(self) -> None:
        env = self.env
        if self._f_step is None:  # resolved once for these argument types (a namedtuple is slow to type)
            parallel = len(self.states) >= PARALLEL_MIN_ENVS
            step = env._c.vec_step_parallel if parallel else env._c.vec_step
            self._f_step = entry(step, env._batch, env._params, env._setup)
        env.decisions += self._f_step(env._batch, env._params, env._setup)

    def ended_opponents(self, done) -> np.ndarray:
        """The opponent id of the episodes that ended in the last step (``-1`` where ``done`` is false):
        the one compiled bot, id 0."""
        return np.where(done, 0, -1).astype(np.int64)


class DriverEngine:
    """Opponents driven from Python by an `EpisodeDriver` over the env's records."""

    def __init__(self, env, observation: str, opponents=None, reward_dtype=np.float32, per_record: bool = False):
        """``opponents``: the players (default ``env._opponents``); ``reward_dtype`` and ``per_record``
        are the `EpisodeDriver`'s (the single-agent env: float64 rewards, its callable called itself)."""
        self.env = env
        n = len(env._batch.states)
        self.driver = EpisodeDriver(env.game, env.rules, n, observation, compiled=env._c, reward_dtype=reward_dtype)
        for o in (env._opponents if opponents is None else opponents):
            self.driver.add_player(o, per_record=per_record)
        self.states, self.masks, self.seats = self.driver.states, self.driver.masks, self.driver.seats
        self._ended = np.full(n, -1, np.int64)  # opponent id of the episodes the last step ended

    def begin(self, idx, seeds, seats, players, **start) -> np.ndarray:
        """`EpisodeDriver.start` (``start``: its ``deck``/``redeal``), its decisions counted in the env's;
        returns the records whose episode ended before the learner's first decision."""
        drv = self.driver
        d0 = drv.decisions
        over = drv.start(idx, seeds, seats, players, **start)
        self.env.decisions += drv.decisions - d0
        return over

    def advance(self, idx, actions) -> None:
        """Play the learner's legal ``actions`` in records ``idx``, then the opponents up to the learners'
        next decisions, into fresh ``driver.rewards``; decisions counted in the env's."""
        drv = self.driver
        drv.rewards[:] = 0
        d0 = drv.decisions
        drv.apply(idx, actions)
        drv.play()
        self.env.decisions += drv.decisions - d0

    def ended_opponents(self, done) -> np.ndarray:
        """The opponent id of the episodes that ended in the last step (``-1`` where ``done`` is false)."""
        return np.where(done, self._ended, -1)

    def reset(self, seeds) -> None:
        self.start(np.arange(self.env.num_envs), seeds)

    def draw(self, idx):
        """``(seeds, seats, opponents)`` of the new episodes of envs ``idx`` from ``new_episode``, checked."""
        env = self.env
        out = env._new_episode(idx.copy())
        try:
            seeds, seats, players = (np.asarray(a) for a in out)
        except (TypeError, ValueError):
            raise ValueError(f"new_episode must return (seeds, seats, opponents), got {out!r}") from None
        n, k = env.rules.num_players, idx.size
        for name, a, lo, hi in (("seeds", seeds, 0, 2**63 - 1), ("seats", seats, -1, n - 1),
                                ("opponents", players, 0, len(env._opponents) - 1)):
            if a.shape != (k,) or a.dtype.kind not in "iu" or (k and (a.min() < lo or a.max() > hi)):
                raise ValueError(f"new_episode returned {name}={a!r}; expected {k} integers in {lo}..{hi}")
        return seeds.astype(np.int64), seats.astype(np.int64), self.players_of(players)

    def players_of(self, index) -> np.ndarray:
        """The driver players that start new episodes for opponent indices ``index``."""
        return np.asarray(self.env._index_pid, np.int64)[np.asarray(index, np.int64)]

    def start(self, idx, seeds):
        """Start episodes in envs ``idx`` through the episode driver: reset (``seeds``, or those of
        ``new_episode``), learner seats, opponents up to the learner's first decision, re-deals."""
        env = self.env
        drv = self.driver
        if env._new_episode is not None:
            seeds, seats, players = self.draw(idx)
            self.begin(idx, seeds, seats, players, redeal=self.draw)
        else:
            seats = np.full(idx.size, env._seat_choice, np.int64)
            self.begin(idx, seeds, seats, self.players_of(idx % len(env._opponents)))
        env._rew[idx] = drv.rewards[idx, env._seats[idx]]
        drv.rewards[idx] = 0
        env._obs[idx] = drv.observe(idx, env._seats[idx])
        env._term[idx] = False
        env._trunc[idx] = False

    def seedless(self, idx):
        env = self.env
        if env._new_episode is not None:
            return None
        return np.array([env._c.seedless(env._states, int(i)) for i in idx], np.int64)

    def step(self):
        env = self.env
        drv, n, ar = self.driver, env.num_envs, env._ar
        env._illegal[:] = 0
        restart = np.flatnonzero(env._needs_reset)
        if restart.size:
            self.start(restart, self.seedless(restart))
            env._needs_reset[restart] = False
        acts = env._acts
        inside = (acts >= 0) & (acts < env._masks.shape[1])
        legal = inside & (env._masks[ar, np.where(inside, acts, 0)] != 0)
        busy = np.zeros(n, np.bool_)
        busy[restart] = True
        bad = ~busy & ~legal
        every = not restart.size and not bad.any()  # the common case: every game steps
        go = ar if every else np.flatnonzero(~busy & legal)
        self.advance(go, acts[go])
        status = env._states["status"]
        env.seat_rewards[:] = drv.rewards
        if every:
            env._rew[:] = drv.rewards[ar, env._seats]
            np.equal(status, 1, out=env._term)
            np.equal(status, 2, out=env._trunc)
            drv.observe(ar, env._seats, out=env._obs)
            stepped = env._all
        else:
            stepped = ~busy
            env._rew[stepped] = drv.rewards[ar, env._seats][stepped]
            env._term[stepped] = status[stepped] == 1
            env._trunc[stepped] = status[stepped] == 2
            if bad.any():
                env._rew[bad] = env.illegal_penalty
                env._term[bad] = True
                env._trunc[bad] = False
                env._illegal[bad] = 1
            env._obs[stepped] = drv.observe(np.flatnonzero(stepped), env._seats[stepped])
        drv.rewards[:] = 0
        done = np.flatnonzero(stepped & (env._term | env._trunc))
        if done.size:
            self._ended[done] = env._episode_opponents(done)  # (before a same-step restart replaces them)
            if env._same_step:
                env._final[done] = env._obs[done]
                term, trunc, rew = env._term[done].copy(), env._trunc[done].copy(), env._rew[done].copy()
                self.start(done, self.seedless(done))
                env._term[done], env._trunc[done], env._rew[done] = term, trunc, rew
            else:
                env._needs_reset[done] = True
                env._masks[done] = 0
                env._masks[done, TERMINAL_ACTION] = 1  # the terminal mask (core/state/actions.py)
