"""The batched vector environment: every game of the batch stepped by one compiled call."""

from __future__ import annotations

import threading

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .actions import check_actions
from .aec import check_seed, entropy_seed
from .batch import check_penalty, illegal_penalty, new_batch, setup
from .episodes import EXTERNAL, EpisodeDriver
from .fastcall import entry
from .game import DictEncoder, GameSpec
from .opponents import check_learner_can_act, is_bot_name, resolve_opponent, resolve_seat

_MODES = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP}


#: batches at least this large are stepped on all of numba's threads (``numba.set_num_threads`` limits
#: them); smaller ones in one thread, where starting the threads would cost more than it saves
PARALLEL_MIN_ENVS = 256


class CardGameVectorEnv(VectorEnv):
    """``num_envs`` single-agent games of one cardgym game, stepped together.

    Each ``step(actions)`` applies every learner action, lets the compiled bots play every other
    seat up to the learner's next decision, encodes the observations and masks, and autoresets
    finished games, all in one compiled call. Masks are in ``info["action_mask"]`` (int8,
    ``(num_envs, num_actions)``) and ``action_masks()`` (bool).

    Args:
        game: a `cardgym.core.game.GameSpec`.
        num_envs: batch size.
        opponent: a bot name of the game (``"random"``, ``"greedy"``, ...), played inside the compiled
            step; or a saved model path / a policy (``(obs, mask) -> action``, batched ``act`` if it has
            one), whose decisions are taken in batches from Python between compiled calls (the episode
            driver, `cardgym.core.episodes.EpisodeDriver`); or a list of those, each env being played
            by one of them per episode: env ``i`` by ``opponent[i % len(opponent)]``, unless
            ``new_episode`` chooses. `add_opponent` / `set_opponent` change the list later.
        seat: the learner's seat in every game, or ``"random"`` (drawn per episode).
        observation: a flat encoder name (``"vector"``).
        autoreset_mode: ``"next_step"`` (Gymnasium's default: the step after the end resets that game
            and ignores its action) or ``"same_step"`` (reset at once; the last observation is in
            ``info["final_obs"]`` where ``info["_final_obs"]`` is true).
        illegal_penalty: reward of an illegal action (which ends that episode).
        copy: return copies of the batch arrays (default); ``False`` returns the env's own buffers,
            which the next call overwrites (fastest).
        new_episode: ``None``, or a callable ``new_episode(env_indices) -> (seeds, seats, opponents)``
            (three integer arrays as long as ``env_indices``) called whenever those envs start an
            episode (``reset()``, autoreset, and the replacement of a deal that ends before the
            learner's first decision): each env is dealt ``seeds[k]``, with the learner at ``seats[k]``
            (``-1``: drawn from the deal) against ``opponent[opponents[k]]``. Its seeds replace those of
            ``reset(seed=...)``. The built-in trainer draws its deals, seats and opponent mixture this
            way. Opponents are then driven from Python (bots still decide in compiled calls).
        **options: the game's rule options.

    With opponents driven from Python, ``seat_rewards`` (float32 ``(num_envs, max_players)``) holds
    every seat's reward of the last ``step()`` (before an autoreset of ``"same_step"``).
    """

    illegal_penalty = illegal_penalty  # held in the compiled step's Setup (core/batch.py)

    def __init__(
        self,
        game: GameSpec,
        num_envs: int,
        opponent: str = "random",
        seat=0,
        observation: str = "vector",
        autoreset_mode: str = "next_step",
        illegal_penalty: float = -1.0,
        copy: bool = True,
        new_episode=None,
        **options,
    ):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if new_episode is not None and not callable(new_episode):
            raise ValueError(f"new_episode must be None or a callable (env_indices) -> (seeds, seats, opponents), "
                             f"got {new_episode!r}")
        several = isinstance(opponent, (list, tuple))
        if several and not opponent:
            raise ValueError("opponent must be a bot name, a model path, a policy or a non-empty list of those")
        # a model path, a Python policy, several opponents or a caller choosing the deals: the episodes
        # are driven from Python (`EpisodeDriver`); a single bot name: all inside the compiled step
        self._python = several or new_episode is not None or not is_bot_name(game, opponent)
        self._opponents = [self._resolve(game, o, options, observation)
                           for o in (opponent if several else [opponent])] if self._python else []
        self._new_episode = new_episode
        if autoreset_mode not in _MODES:
            raise ValueError(f"autoreset_mode must be one of {sorted(_MODES)}, got {autoreset_mode!r}")
        self.game = game
        self.rules = game.make_rules(**options)
        self._params = self.rules.params()
        self._which_bot = 0 if self._python else game.bot_index(opponent)
        self.encoder = game.encoder(observation)
        self.encoder_name = observation
        self._which_obs = game.obs_index(observation)
        self._c = game.compiled(bot=self._which_bot, obs=self._which_obs)  # compiles only these
        if isinstance(self.encoder, DictEncoder):
            raise ValueError(
                f"the vector env needs a flat (compiled) encoder; {observation!r} is a dict encoder. "
                f"Flat encoders: {sorted(k for k, v in game.encoders.items() if not isinstance(v, DictEncoder))}"
            )
        self._seat_choice = resolve_seat(seat, self.rules.num_players)
        check_learner_can_act(self.rules, self._seat_choice)
        self._same_step = autoreset_mode == "same_step"
        self.copy = bool(copy)
        penalty = check_penalty(illegal_penalty)
        n = int(num_envs)
        self.num_envs = n
        low, high = self.encoder.bounds(self.rules)
        self.single_observation_space = spaces.Box(low, high, dtype=np.float32)
        self.single_action_space = spaces.Discrete(game.num_actions)
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)
        self.metadata = {"autoreset_mode": _MODES[autoreset_mode], "render_modes": []}
        self.render_mode = None
        b = self._batch = new_batch(game, n, low.shape[0])  # the compiled loops' arrays
        self._states, self._masks, self._obs, self._final = b.states, b.masks, b.obs, b.final_obs
        self._seats, self._rew, self._term, self._trunc = b.seats, b.rewards, b.terminated, b.truncated
        self._illegal, self._needs_reset, self._acts = b.illegal, b.needs_reset, b.actions
        self._setup = setup(
            self._seat_choice, self._which_bot, self._which_obs, self._same_step, penalty
        )
        self._f_step = None  # the compiled step, resolved on the first step (see _compiled_step)
        self._all = np.ones(n, np.bool_)
        self._ar = np.arange(n, dtype=np.int64)
        # one step/reset at a time: the batch arrays are shared, a second thread would interleave
        self._busy = threading.Lock()
        self._started = False
        self.decisions = 0  # every seat's decisions taken so far (benchmarks read it)
        self.seat_rewards = None
        if self._python:
            self._driver = EpisodeDriver(game, self.rules, n, observation, compiled=self._c)
            for o in self._opponents:
                self._driver.add_player(o)
            self._states, self._masks, self._seats = self._driver.states, self._driver.masks, self._driver.seats
            self.seat_rewards = np.zeros((n, game.max_players), np.float32)

    @staticmethod
    def _resolve(game, opponent, options, observation):
        """A bot name as is (the driver runs it compiled), else the policy a model path / callable gives."""
        if is_bot_name(game, opponent):
            return opponent
        return resolve_opponent(game, opponent, options, observation)[1]

    def add_opponent(self, opponent) -> int:
        """Append an opponent (bot name, model path or policy) to a Python-driven env's list; returns its
        index (for ``new_episode``). Envs already playing keep their opponent until their next episode."""
        self._need_python("add_opponent")
        o = self._resolve(self.game, opponent, self.rules, self.encoder_name)
        self._opponents.append(o)
        return self._driver.add_player(o)

    def set_opponent(self, index: int, opponent) -> None:
        """Replace opponent ``index`` of a Python-driven env (e.g. by a newer snapshot of a policy): the
        envs it plays continue their episodes against the new one."""
        self._need_python("set_opponent")
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not 0 <= index < len(self._opponents):
            raise ValueError(f"opponent index must be 0..{len(self._opponents) - 1}, got {index!r}")
        o = self._resolve(self.game, opponent, self.rules, self.encoder_name)
        self._opponents[index] = o
        self._driver.set_player(int(index), o)

    @property
    def opponents(self) -> list:
        """The opponents of a Python-driven env (bot names and policies), in index order."""
        return list(self._opponents)

    @property
    def driver(self):
        """The `cardgym.core.episodes.EpisodeDriver` of a Python-driven env (``None`` when every
        opponent is a compiled bot): its records, masks and seat assignment, for checkpoints."""
        return self._driver if self._python else None

    def _need_python(self, what):
        if not self._python:
            raise ValueError(f"{what}() needs opponents driven from Python: build the env with a list of "
                             f"opponents, a policy or new_episode=")

    def _out(self, arr):
        return arr.copy() if self.copy else arr

    def _seeds(self, seed):
        n = self.num_envs
        if seed is None:
            if self._started:
                return np.array([self._c.seedless(self._states, i) for i in range(n)], np.int64)
            base = entropy_seed()
            return (base + np.arange(n, dtype=np.int64)) % (2**63)
        if isinstance(seed, (list, tuple, np.ndarray)):
            if len(seed) != n:
                raise ValueError(f"got {len(seed)} seeds for {n} environments")
            return np.array([check_seed(s) for s in seed], np.int64)
        return np.array([(check_seed(seed) + i) % (2**63) for i in range(n)], np.int64)

    def _enter(self, what: str):
        if not self._busy.acquire(blocking=False):
            raise RuntimeError(
                f"{type(self).__name__}.{what}() called while another step()/reset() of this env is running "
                "(from another thread): a vector env is not thread-safe; give each thread its own env"
            )

    def reset(self, *, seed=None, options=None):
        self._enter("reset")
        try:
            return self._reset(seed, options)
        finally:
            self._busy.release()

    def _reset(self, seed, options):
        if options:
            raise ValueError(f"the vector env takes no reset options (got {sorted(options)}); stacked decks "
                             f"are for the single environments")
        seeds = self._seeds(seed) if self._new_episode is None else None
        if self._python:
            self._started = True
            self._policy_start(np.arange(self.num_envs), seeds)
            self._needs_reset[:] = False
            return self._out(self._obs), self._info()
        no_deck = np.empty(0, np.int8)
        self.decisions += self._c.vec_reset(self._batch, self._params, seeds, no_deck, 0, self._setup)
        self._needs_reset[:] = False
        self._started = True
        return self._out(self._obs), self._info()

    def _info(self):
        info = {
            "action_mask": self._out(self._masks),
            "_action_mask": self._all,
            "seat": self._out(self._seats),
            "_seat": self._all,
        }
        return info

    def step(self, actions):
        self._enter("step")
        try:
            return self._step(actions)
        finally:
            self._busy.release()

    def _step(self, actions):
        if not self._started:
            raise RuntimeError("step() called before reset()")
        check_actions(actions, self.num_envs, self._masks.shape[1], self._acts)
        if self._python:
            self._policy_step()
        else:
            self._compiled_step()
        info = self._info()
        if self._illegal.any():
            info["illegal_action"] = self._illegal.astype(bool)
            info["_illegal_action"] = self._illegal.astype(bool)
        if self._same_step:
            done = self._term | self._trunc
            if done.any():
                info["final_obs"] = self._final.copy()
                info["_final_obs"] = done.copy()
        return (
            self._out(self._obs), self._out(self._rew), self._out(self._term), self._out(self._trunc), info,
        )

    def _compiled_step(self):
        if self._f_step is None:  # resolved once for these argument types (a namedtuple is slow to type)
            step = self._c.vec_step_parallel if self.num_envs >= PARALLEL_MIN_ENVS else self._c.vec_step
            self._f_step = entry(step, self._batch, self._params, self._setup)
        self.decisions += self._f_step(self._batch, self._params, self._setup)

    # ---------------------------------------- opponents driven from Python (`EpisodeDriver`)
    def _draw(self, idx):
        """``(seeds, seats, opponents)`` of the new episodes of envs ``idx`` from ``new_episode``, checked."""
        out = self._new_episode(idx.copy())
        try:
            seeds, seats, players = (np.asarray(a) for a in out)
        except (TypeError, ValueError):
            raise ValueError(f"new_episode must return (seeds, seats, opponents), got {out!r}") from None
        n, k = self.rules.num_players, idx.size
        for name, a, lo, hi in (("seeds", seeds, 0, 2**63 - 1), ("seats", seats, -1, n - 1),
                                ("opponents", players, 0, len(self._opponents) - 1)):
            if a.shape != (k,) or a.dtype.kind not in "iu" or (k and (a.min() < lo or a.max() > hi)):
                raise ValueError(f"new_episode returned {name}={a!r}; expected {k} integers in {lo}..{hi}")
        return seeds.astype(np.int64), seats.astype(np.int64), players.astype(np.int64)

    def _policy_start(self, idx, seeds):
        """Start episodes in envs ``idx`` through the episode driver: reset (``seeds``, or those of
        ``new_episode``), learner seats, opponents up to the learner's first decision, re-deals."""
        drv = self._driver
        d0 = drv.decisions
        if self._new_episode is not None:
            seeds, seats, players = self._draw(idx)
            drv.start(idx, seeds, seats, players, redeal=self._draw)
        else:
            seats = np.full(idx.size, self._seat_choice, np.int64)
            drv.start(idx, seeds, seats, idx % len(self._opponents))
        self.decisions += drv.decisions - d0
        self._rew[idx] = drv.rewards[idx, self._seats[idx]]
        drv.rewards[idx] = 0
        self._obs[idx] = drv.observe(idx, self._seats[idx])
        self._term[idx] = False
        self._trunc[idx] = False

    def _seedless(self, idx):
        if self._new_episode is not None:
            return None
        return np.array([self._c.seedless(self._states, int(i)) for i in idx], np.int64)

    def _policy_step(self):
        drv, n, ar = self._driver, self.num_envs, self._ar
        self._illegal[:] = 0
        restart = np.flatnonzero(self._needs_reset)
        if restart.size:
            self._policy_start(restart, self._seedless(restart))
            self._needs_reset[restart] = False
        acts = self._acts
        inside = (acts >= 0) & (acts < self._masks.shape[1])
        legal = inside & (self._masks[ar, np.where(inside, acts, 0)] != 0)
        busy = np.zeros(n, np.bool_)
        busy[restart] = True
        bad = ~busy & ~legal
        every = not restart.size and not bad.any()  # the common case: every game steps
        go = ar if every else np.flatnonzero(~busy & legal)
        drv.rewards[:] = 0
        d0 = drv.decisions
        drv.apply(go, acts[go])
        drv.play()
        self.decisions += drv.decisions - d0
        status = self._states["status"]
        self.seat_rewards[:] = drv.rewards
        if every:
            self._rew[:] = drv.rewards[ar, self._seats]
            np.equal(status, 1, out=self._term)
            np.equal(status, 2, out=self._trunc)
            drv.observe(ar, self._seats, out=self._obs)
            stepped = self._all
        else:
            stepped = ~busy
            self._rew[stepped] = drv.rewards[ar, self._seats][stepped]
            self._term[stepped] = status[stepped] == 1
            self._trunc[stepped] = status[stepped] == 2
            if bad.any():
                self._rew[bad] = self.illegal_penalty
                self._term[bad] = True
                self._trunc[bad] = False
                self._illegal[bad] = 1
            self._obs[stepped] = drv.observe(np.flatnonzero(stepped), self._seats[stepped])
        drv.rewards[:] = 0
        done = np.flatnonzero(stepped & (self._term | self._trunc))
        if done.size:
            if self._same_step:
                self._final[done] = self._obs[done]
                term, trunc, rew = self._term[done].copy(), self._trunc[done].copy(), self._rew[done].copy()
                self._policy_start(done, self._seedless(done))
                self._term[done], self._trunc[done], self._rew[done] = term, trunc, rew
            else:
                self._needs_reset[done] = True
                self._masks[done] = 0

    def action_masks(self) -> np.ndarray:
        """Boolean masks ``(num_envs, num_actions)`` for the current observations."""
        return self._masks.astype(bool)

    def bot_actions(self, bot: str = "greedy") -> np.ndarray:
        """The named bot's action in every game of the batch, for the learner's seat (one compiled call)."""
        if not self._started:
            raise RuntimeError("bot_actions() called before reset()")
        out = np.zeros(self.num_envs, np.int64)
        c = self.game.compiled(bot=self.game.bot_index(bot), obs=self._which_obs)
        c.batch_bot(self._states, self._params, self._masks, 0, out)
        return out

    @property
    def states(self) -> np.ndarray:
        """The batch of state records (a view)."""
        return self._states

    def sample_worlds(self, seed, seats=None) -> np.ndarray:
        """One world per env in one compiled call: a new array of records, env ``i``'s hidden cards dealt
        again from what its learner's seat (or ``seats[i]``) has not seen, seeded ``seed + i`` (or
        ``seed[i]``). This env is unchanged. See `cardgym.core.worlds` and docs/hidden_information.md."""
        from .worlds import vector_sample_worlds

        return vector_sample_worlds(self, seed, seats)

    # ------------------------------------------------------------ saved states
    def state_dict(self) -> dict:
        """The batch's state as plain JSON-able data: one game record per env (`record_to_dict`, the
        AEC env's format), the learner's seat in each and which envs reset on the next step
        (``needs_reset``, the ``"next_step"`` autoreset)."""
        from .records import record_to_dict, state_header

        if not self._started:
            raise RuntimeError("state_dict() called before reset()")
        return {
            **state_header(self.game, self.rules, self.game.gym_id),
            "num_envs": self.num_envs,
            "records": [record_to_dict(r) for r in self._states],
            "seats": [int(x) for x in self._seats],
            "needs_reset": [bool(x) for x in self._needs_reset],
        }

    def load_state_dict(self, data: dict) -> None:
        """Restore a [`state_dict`][cardgym.core.vector.CardGameVectorEnv.state_dict] taken from a
        vector env with the same rules, ``num_envs`` (and fixed ``seat``, if it has one).

        Checked before anything changes (a refused state raises ``ValueError`` naming the env index
        and leaves this environment as it was): every record must be a state these rules can reach
        (`cardgym.core.game.GameSpec.validate_record`), every seat a seat of the game, and every env
        that does not reset on the next step must be running at its learner's decision. Masks and
        observations are recomputed from the records. See docs/api.md, "Saved states".
        """
        from .records import check_saved_flag, check_saved_seat, check_state_header, load_record

        check_state_header(self.game, self.rules, data, self.game.gym_id)
        missing = [k for k in ("num_envs", "records", "seats", "needs_reset") if k not in data]
        if missing:
            raise ValueError(f"state_dict misses {missing}")
        m, n = self.num_envs, self.rules.num_players
        if data["num_envs"] != m:
            raise ValueError(f"state_dict num_envs={data['num_envs']!r} differs from this environment's {m}")
        records, seats, resets = data["records"], data["seats"], data["needs_reset"]
        for key, value in (("records", records), ("seats", seats), ("needs_reset", resets)):
            if not isinstance(value, list) or len(value) != m:
                raise ValueError(f"state_dict {key} must be a list of {m} entries")
        arr = self.game.new_states(m)
        for i in range(m):
            try:
                arr[i] = load_record(self.game, self.rules, records[i])[0]
            except ValueError as exc:
                raise ValueError(f"state_dict records[{i}]: {exc}") from None
            seat, reset = seats[i], resets[i]
            check_saved_seat(f"seats[{i}]", seat, n, self._seat_choice)
            check_saved_flag(f"needs_reset[{i}]", reset)
            if not reset and (int(arr[i]["status"]) != 0 or int(arr[i]["current"]) != seat):
                raise ValueError(
                    f"state_dict records[{i}] (status={int(arr[i]['status'])}, current={int(arr[i]['current'])}) "
                    f"is not at learner {seat}'s decision and needs_reset[{i}] is False"
                )
        self._states[:] = arr
        self._seats[:] = seats
        self._needs_reset[:] = resets
        for k in (self._rew, self._term, self._trunc, self._illegal):
            k[:] = 0
        for i in range(m):
            if resets[i]:
                self._masks[i] = 0
            else:
                self._c.legal_one(self._states, i, self._params, self._masks[i])
            self._c.observe_one(self._states, i, self._params, seats[i], self._obs[i], self._which_obs)
        if self._python:  # each env keeps its opponent (the first one's before any episode started)
            drv = self._driver
            pid = drv.seat_player.max(axis=1)
            pid = np.where(pid >= 0, pid, np.arange(m) % len(self._opponents))
            drv.seat_player[:, :] = pid[:, None]
            drv.seat_player[np.arange(m), self._seats] = EXTERNAL
        self._started = True

    def load_records(self, states, seats, seat_player) -> np.ndarray:
        """Restore a Python-driven env from its raw arrays (a trainer checkpoint): the records, the learner
        seats and the driver's ``seat_player`` table, all already checked by the caller (compiled code
        reads them unchecked; `load_state_dict` is the checked, JSON-able way). Every env must be at its
        learner's decision. Masks and observations are recomputed; returns the observations."""
        self._need_python("load_records")
        drv = self._driver
        drv.states[:] = states
        drv.seats[:] = seats
        drv.seat_player[:] = seat_player
        self._c.batch_legal(drv.states, self._params, drv.masks)
        self._obs[:] = drv.observe(np.arange(self.num_envs), drv.seats)
        self._needs_reset[:] = False
        self._started = True
        return self._out(self._obs)

    def close_extras(self, **kwargs):
        pass
