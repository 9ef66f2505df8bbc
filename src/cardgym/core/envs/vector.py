"""The batched vector environment: every game of the batch stepped by one compiled call."""

from __future__ import annotations

import threading

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from cardgym.core.state.actions import check_actions, terminal_mask
from cardgym.core.compiled.batch import check_penalty, illegal_penalty, new_batch, setup
from cardgym.core.envs.copies import CopiesThroughState
from cardgym.core.envs.episodes import EXTERNAL
from cardgym.core.envs.vector_engines import CompiledEngine, DriverEngine
from cardgym.core.contract.game import DictEncoder, GameSpec
from cardgym.core.state.status import RUNNING
from cardgym.core.envs.opponents import (check_learner_can_act, is_bot_name, opponent_raised,
                                        refuse_if_opponent_raised, resolve_opponent, resolve_seat)
from cardgym.core.envs.resets import check_seed, entropy_seed
from cardgym.core.envs.state_io import check_vector_copy, parse_vector_state

_MODES = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP}


#: the largest batch: 2**18 = 262,144 games. Throughput stops growing near 4096 envs (docs/benchmarks.md),
#: and a batch of the built-in games costs 2.7-8.4 kB per env (records, observations, masks; the largest
#: record is 5.7 kB), so 2**18 envs of that game already take 2.2 GB; beyond it a
#: typo (``10**9``) would try to allocate terabytes (or overflow) instead of failing at once
MAX_NUM_ENVS = 2**18


def _check_arguments(num_envs, new_episode, opponent) -> bool:
    """Refuse a batch size out of 1..`MAX_NUM_ENVS`, a ``new_episode`` that is not callable and an empty
    list of opponents; returns whether ``opponent`` is a list of several."""
    if (isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer))
            or not 1 <= num_envs <= MAX_NUM_ENVS):
        raise ValueError(f"num_envs must be an integer in 1..{MAX_NUM_ENVS:,} (MAX_NUM_ENVS), got {num_envs!r}")
    if new_episode is not None and not callable(new_episode):
        raise ValueError(f"new_episode must be None or a callable (env_indices) -> (seeds, seats, opponents), "
                         f"got {new_episode!r}")
    several = isinstance(opponent, (list, tuple))
    if several and not opponent:
        raise ValueError("opponent must be a bot name, a model path, a policy or a non-empty list of those")
    return several


class CardGameVectorEnv(CopiesThroughState, VectorEnv):
    """``num_envs`` single-agent games of one cardgym game, stepped together.

    Each ``step(actions)`` applies every learner action, lets the compiled bots play every other
    seat up to the learner's next decision, encodes the observations and masks, and autoresets
    finished games, all in one compiled call. Masks are in ``info["action_mask"]`` (int8,
    ``(num_envs, num_actions)``) and ``action_masks()`` (bool).

    Args:
        game: a `cardgym.core.contract.game.GameSpec`.
        num_envs: batch size.
        opponent: a bot name of the game (``"random"``, ``"greedy"``, ...), played inside the compiled
            step; or a saved model path / a policy (``(obs, mask) -> action``, batched ``act`` if it has
            one), whose decisions are taken in batches from Python between compiled calls (the episode
            driver, `cardgym.core.envs.episodes.EpisodeDriver`); or a list of those, each env being played
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

    ``copy.deepcopy``, ``pickle`` and cloudpickle copy the batch in progress (`cardgym.core.envs.copies`);
    ``clone()`` is ``copy.deepcopy``.
    """

    illegal_penalty = illegal_penalty  # held in the compiled step's Setup (core/compiled/batch.py)

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
        several = _check_arguments(num_envs, new_episode, opponent)
        self._set_opponents(game, opponent, several, new_episode, options, observation)
        self._options, self._autoreset_mode = dict(options), autoreset_mode
        if autoreset_mode not in _MODES:
            raise ValueError(f"autoreset_mode must be one of {sorted(_MODES)}, got {autoreset_mode!r}")
        self._set_game(game, opponent, observation, options)
        self._seat_choice = resolve_seat(seat, self.rules.num_players)
        check_learner_can_act(self.rules, self._seat_choice)
        self._same_step = autoreset_mode == "same_step"
        self.copy = bool(copy)
        penalty = check_penalty(illegal_penalty)
        low = self._set_spaces(int(num_envs), autoreset_mode)
        self._set_batch(low, penalty)
        self._set_engine(observation)

    def _set_opponents(self, game, opponent, several, new_episode, options, observation) -> None:
        """Whether the episodes are driven from Python (`EpisodeDriver`), and the opponents it plays with
        their ids (none when a single bot plays inside the compiled step)."""
        # a model path, a Python policy, several opponents or a caller choosing the deals: the episodes
        # are driven from Python (`EpisodeDriver`); a single bot name: all inside the compiled step
        self._python = several or new_episode is not None or not is_bot_name(game, opponent)
        self._opponents = [self._resolve(game, o, options, observation)
                           for o in (opponent if several else [opponent])] if self._python else []
        # opponent index -> the driver's player that starts new episodes for it; driver player -> the
        # opponent id it plays (-1: free). `set_opponent` gives an index a new player while games started
        # against the old one are running, so an opponent changes only at each game's next episode.
        self._index_pid = list(range(len(self._opponents)))
        self._pid_id = list(range(len(self._opponents)))
        self._next_id = max(1, len(self._opponents))
        self._new_episode = new_episode

    def _set_game(self, game, opponent, observation, options) -> None:
        """The game, its rules, the compiled bot and encoder (only these are compiled); the encoder must be
        flat."""
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

    def _set_spaces(self, n: int, autoreset_mode: str):
        """The batch size, the Gymnasium spaces and metadata; returns the observation's lower bounds."""
        self.num_envs = n
        low, high = self.encoder.bounds(self.rules)
        self.single_observation_space = spaces.Box(low, high, dtype=np.float32)
        self.single_action_space = spaces.Discrete(self.game.num_actions)
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)
        self.metadata = {"autoreset_mode": _MODES[autoreset_mode], "render_modes": []}
        self.render_mode = None
        return low

    def _set_batch(self, low, penalty) -> None:
        """The compiled loops' arrays (`new_batch`), the compiled step's `setup` and the step bookkeeping."""
        n = self.num_envs
        b = self._batch = new_batch(self.game, n, low.shape[0])  # the compiled loops' arrays
        self._states, self._masks, self._obs, self._final = b.states, b.masks, b.obs, b.final_obs
        self._seats, self._rew, self._term, self._trunc = b.seats, b.rewards, b.terminated, b.truncated
        self._illegal, self._needs_reset, self._acts = b.illegal, b.needs_reset, b.actions
        self._setup = setup(
            self._seat_choice, self._which_bot, self._which_obs, self._same_step, penalty
        )
        self._all = np.ones(n, np.bool_)
        self._ar = np.arange(n, dtype=np.int64)
        # one step/reset at a time: the batch arrays are shared, a second thread would interleave
        self._busy = threading.Lock()
        self._started = False
        self.decisions = 0  # every seat's decisions taken so far (benchmarks read it)
        self.seat_rewards = None

    def _set_engine(self, observation) -> None:
        """The engine that plays the opponents (core/envs/vector_engines.py); its records, masks and seats
        are the env's."""
        self._engine = (DriverEngine(self, observation) if self._python else CompiledEngine(self))
        self._driver = self._engine.driver
        self._states, self._masks, self._seats = self._engine.states, self._engine.masks, self._engine.seats
        if self._python:
            self.seat_rewards = np.zeros((self.num_envs, self.game.max_players), np.float32)

    @staticmethod
    def _resolve(game, opponent, options, observation):
        """A bot name as is (the driver runs it compiled), else the policy a model path / callable gives."""
        if is_bot_name(game, opponent):
            return opponent
        return resolve_opponent(game, opponent, options, observation)[1]

    def add_opponent(self, opponent) -> int:
        """Append an opponent (bot name, model path or policy) to a Python-driven env's list; returns its
        index (for ``new_episode``). Envs already playing keep their opponent until their next episode;
        the new opponent's id is ``opponent_ids[index]``."""
        self._need_python("add_opponent")
        o = self._resolve(self.game, opponent, self.rules, self.encoder_name)
        pid = self._new_pid(o)
        self._opponents.append(o)
        self._index_pid.append(pid)
        return len(self._opponents) - 1

    def set_opponent(self, index: int, opponent) -> int:
        """Replace opponent ``index`` of a Python-driven env (e.g. by a newer snapshot of a policy) from
        each game's next episode on: games in progress finish against the opponent they started with
        (the trainer's snapshot refresh relies on it). Returns the new opponent's id (finished episodes
        name their opponent's id in ``info["opponent_id"]``)."""
        self._need_python("set_opponent")
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not 0 <= index < len(self._opponents):
            raise ValueError(f"opponent index must be 0..{len(self._opponents) - 1}, got {index!r}")
        o = self._resolve(self.game, opponent, self.rules, self.encoder_name)
        index = int(index)
        old = self._index_pid[index]
        self._index_pid[index] = -1  # (not kept alive by its index any more)
        if old in self._pids_playing():
            self._index_pid[index] = self._new_pid(o)  # the old player finishes the games it plays
        else:
            self._index_pid[index] = old
            self._pid_id[old] = self._take_id()
            self._driver.set_player(old, o)
        self._opponents[index] = o
        return self._pid_id[self._index_pid[index]]

    def _take_id(self) -> int:
        self._next_id += 1
        return self._next_id - 1

    def _pids_playing(self) -> set:
        """The driver players of the games in progress (a finished game waiting for its autoreset plays
        no one)."""
        drv = self._driver
        if not self._started:
            return set()
        live = (drv.states["status"] == RUNNING) & ~self._needs_reset
        return set(np.unique(drv.seat_player[live]).tolist()) - {EXTERNAL}

    def _new_pid(self, player) -> int:
        """A driver player for a new opponent: a free one (no index and no game in progress uses it; its
        old player is dropped) or a new one."""
        drv = self._driver
        self._drop_idle_players()
        free = [pid for pid in range(len(drv.players)) if self._pid_id[pid] < 0]
        if free:
            pid = free[0]
            drv.set_player(pid, player)
        else:
            pid = drv.add_player(player)
            self._pid_id.append(-1)
        self._pid_id[pid] = self._take_id()
        return pid

    def _drop_idle_players(self) -> None:
        """Forget the driver players that no opponent index and no game in progress uses any more."""
        used = self._pids_playing() | set(self._index_pid)
        for pid in range(len(self._driver.players)):
            if pid not in used and self._pid_id[pid] >= 0:
                self._driver.drop_player(pid)
                self._pid_id[pid] = -1

    @property
    def opponent_ids(self) -> list:
        """The id of each opponent of a Python-driven env, in index order: ``0..k-1`` for the ``k``
        opponents it was built with, then a new id at every `add_opponent` / `set_opponent` (so an index
        replaced by a new snapshot gets a new id). ``info["opponent_id"]`` names finished episodes'."""
        self._need_python("opponent_ids")
        return [self._pid_id[p] for p in self._index_pid]

    def _episode_opponents(self, idx) -> np.ndarray:
        """The opponent id of the episodes in progress (or just finished) in envs ``idx``."""
        if not self._python:
            return np.zeros(len(idx), np.int64)
        pid = self._driver.seat_player[idx].max(axis=1)
        return np.asarray(self._pid_id, np.int64)[pid]

    @property
    def opponents(self) -> list:
        """The opponents of a Python-driven env (bot names and policies), in index order."""
        return list(self._opponents)

    @property
    def driver(self):
        """The `cardgym.core.envs.episodes.EpisodeDriver` of a Python-driven env (``None`` when every
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
            base = entropy_seed()  # (Python ints: 2**63 does not fit an int64 array's arithmetic)
            return np.array([(base + i) % (2**63) for i in range(n)], np.int64)
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
        self._started = True
        self._opponent_raised = None
        try:
            self._engine.reset(seeds)
        except Exception as exc:
            opponent_raised(self, exc)
            raise
        self._needs_reset[:] = False
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
        refuse_if_opponent_raised(self, "step")
        check_actions(actions, self.num_envs, self._masks.shape[1], self._acts)
        try:
            self._engine.step()
        except Exception as exc:  # a game stopped mid-turn: refuse further steps until reset()
            opponent_raised(self, exc)
            raise
        info = self._info()
        done = self._term | self._trunc
        if done.any():  # the opponent each finished episode was played against, from start to end
            info["opponent_id"] = self._engine.ended_opponents(done)
            info["_opponent_id"] = done.copy()
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

    def action_masks(self) -> np.ndarray:
        """Boolean masks ``(num_envs, num_actions)`` for the current observations."""
        return self._masks.astype(bool)

    def bot_actions(self, bot: str = "greedy") -> np.ndarray:
        """The named bot's action in every game of the batch, for the learner's seat (one compiled call)."""
        if not self._started:
            raise RuntimeError("bot_actions() called before reset()")
        out = np.zeros(self.num_envs, np.int64)
        c = self.game.compiled(bot=self.game.bot_index(bot), obs=self._which_obs)
        masks = self._masks
        if self._needs_reset.any():  # finished games: TERMINAL_ACTION (0), no bot asked
            masks = masks.copy()
            masks[self._needs_reset] = 0
        c.batch_bot(self._states, self._params, masks, 0, out)
        return out

    @property
    def states(self) -> np.ndarray:
        """The batch of state records (a view)."""
        return self._states

    def sample_worlds(self, seed, seats=None) -> np.ndarray:
        """One world per env in one compiled call: a new array of records, env ``i``'s hidden cards dealt
        again from what its learner's seat (or ``seats[i]``) has not seen, seeded ``seed + i`` (or
        ``seed[i]``). This env is unchanged. See `cardgym.core.contract.worlds` and docs/hidden_information.md."""
        from cardgym.core.contract.worlds import vector_sample_worlds

        return vector_sample_worlds(self, seed, seats)

    # ------------------------------------------------------------ saved states
    def state_dict(self) -> dict:
        """The batch's state as plain JSON-able data: one game record per env (`record_to_dict`, the
        AEC env's format), the learner's seat in each and which envs reset on the next step
        (``needs_reset``, the ``"next_step"`` autoreset)."""
        from cardgym.core.state.dicts import record_to_dict, state_header

        if not self._started:
            raise RuntimeError("state_dict() called before reset()")
        refuse_if_opponent_raised(self, "state_dict")
        return {
            **state_header(self.game, self.rules, self.game.gym_id),
            "num_envs": self.num_envs,
            "records": [record_to_dict(r) for r in self._states],
            "seats": [int(x) for x in self._seats],
            "needs_reset": [bool(x) for x in self._needs_reset],
        }

    def load_state_dict(self, data: dict) -> None:
        """Restore a [`state_dict`][cardgym.core.envs.vector.CardGameVectorEnv.state_dict] taken from a
        vector env with the same rules, ``num_envs`` (and fixed ``seat``, if it has one).

        Checked before anything changes (a refused state raises ``ValueError`` naming the env index
        and leaves this environment as it was): every record must be a state these rules can reach
        (`cardgym.core.contract.game.GameSpec.validate_record`), every seat a seat of the game, and every env
        that does not reset on the next step must be running at its learner's decision. Masks and
        observations are recomputed from the records. See docs/api.md, "Saved states".
        """
        arr, seats, resets = parse_vector_state(self, data)
        m = self.num_envs
        self._states[:] = arr
        self._seats[:] = seats
        self._needs_reset[:] = resets
        for k in (self._rew, self._term, self._trunc, self._illegal):
            k[:] = 0
        for i in range(m):
            if resets[i]:
                terminal_mask(self._masks[i])
            else:
                self._c.legal_one(self._states, i, self._params, self._masks[i])
            self._c.observe_one(self._states, i, self._params, seats[i], self._obs[i], self._which_obs)
        if self._python:  # each env keeps its opponent (the first one's before any episode started)
            drv = self._driver
            pid = drv.seat_player.max(axis=1)
            pid = np.where(pid >= 0, pid, np.asarray(self._index_pid)[np.arange(m) % len(self._opponents)])
            drv.seat_player[:, :] = pid[:, None]
            drv.seat_player[np.arange(m), self._seats] = EXTERNAL
        self._started = True
        self._opponent_raised = None

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
        self._opponent_raised = None
        return self._out(self._obs)

    # ------------------------------------------------------------------ copies (core/envs/copies.py)
    def _init_kwargs(self) -> dict:
        opponent = list(self._opponents) if self._python else list(self.game.bots)[self._which_bot]
        seat = "random" if self._seat_choice < 0 else self._seat_choice
        return {"game": self.game, "num_envs": self.num_envs, "opponent": opponent, "seat": seat,
                "observation": self.encoder_name, "autoreset_mode": self._autoreset_mode,
                "illegal_penalty": self.illegal_penalty, "copy": self.copy, "new_episode": self._new_episode,
                **self._options}

    def _python_parts(self):
        parts = [("opponent", o) for o in self._opponents if not isinstance(o, str)]
        parts += [("opponent", o) for o in self._driver.players if o is not None and not isinstance(o, str)
                  and not any(o is x for x in self._opponents)] if self._python else []
        return parts + ([("new_episode", self._new_episode)] if self._new_episode is not None else [])

    def _arrays(self) -> dict:
        """Every array that carries the batch from one step to the next (the learner's records, seats,
        masks, observations, last results and, when opponents are driven from Python, who plays which
        seat): what a copy takes over."""
        b = self._batch
        out = {"states": self._states, "seats": self._seats, "masks": self._masks, "obs": self._obs,
               "final_obs": self._final, "rewards": self._rew, "terminated": self._term,
               "truncated": self._trunc, "illegal": self._illegal, "needs_reset": self._needs_reset,
               "actions": b.actions}
        if self._python:
            out.update(seat_player=self._driver.seat_player, seat_rewards=self.seat_rewards,
                       driver_rewards=self._driver.rewards)
        return out

    def _snapshot(self):
        if not self._started:
            return None
        refuse_if_opponent_raised(self, "copy")
        drv = self._driver.decisions if self._python else 0
        out = {"arrays": {k: v.copy() for k, v in self._arrays().items()}, "decisions": (self.decisions, drv)}
        if self._python:
            out["opponents"] = self._opponent_table()
        return out

    def _opponent_table(self) -> dict:
        """Who plays what in a Python-driven env: the driver's players (bot names, policies, ``None`` when
        free; an opponent replaced by `set_opponent` stays until its games end), each opponent index's
        player, each player's opponent id and the next id. ``seat_player`` values index ``players``."""
        self._drop_idle_players()
        return {"players": list(self._driver.players), "index_pid": list(self._index_pid),
                "pid_id": list(self._pid_id), "next_id": self._next_id}

    def _load_opponent_table(self, table: dict, seat_player=None) -> None:
        """Restore an `_opponent_table` (of a copy or a trainer checkpoint; ``seat_player`` is checked to
        name only players it holds). ``ValueError`` when it does not fit this env."""
        players, index_pid, pid_id = list(table["players"]), list(table["index_pid"]), list(table["pid_id"])
        next_id = table["next_id"]
        k = len(players)
        ok = (len(index_pid) == len(self._opponents) and len(pid_id) == k
              and all(isinstance(p, (int, np.integer)) and 0 <= p < k and players[p] is not None for p in index_pid)
              and all(isinstance(x, (int, np.integer)) and -1 <= x < next_id for x in pid_id)
              and all((players[p] is None) == (pid_id[p] < 0) for p in range(k)))
        if ok and seat_player is not None:
            sp = np.asarray(seat_player)
            used = np.unique(sp[sp != EXTERNAL])
            ok = bool(used.size == 0 or (used.min() >= 0 and used.max() < k
                                         and all(players[int(p)] is not None for p in used)))
        if not ok:
            raise ValueError(f"an opponent table that does not fit this env ({len(self._opponents)} opponents): "
                             f"index_pid={index_pid!r}, pid_id={pid_id!r}, next_id={next_id!r}")
        drv = self._driver
        del drv.players[:], drv._kinds[:]
        for p in players:
            if p is None:
                drv.players.append(None)
                drv._kinds.append(None)
            else:
                drv.add_player(p)
        self._index_pid, self._pid_id, self._next_id = [int(p) for p in index_pid], [int(x) for x in pid_id], int(next_id)
        self._opponents = [players[p] for p in self._index_pid]

    def _restore(self, snapshot) -> None:
        if snapshot is None:
            return
        mine, theirs = self._arrays(), snapshot["arrays"]
        if self._python and "opponents" in snapshot:  # (copies of older versions: one player per opponent)
            self._load_opponent_table(snapshot["opponents"], theirs.get("seat_player"))
        check_vector_copy(self, mine, theirs)
        for k, a in theirs.items():
            mine[k][...] = a
        self.decisions, drv = snapshot["decisions"]
        if self._python:
            self._driver.decisions = drv
        self._started = True
        self._opponent_raised = None

    def close_extras(self, **kwargs):
        pass
