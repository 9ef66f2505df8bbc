"""Self-play on the compiled batch for RLlib: every seat of every game played by one shared policy,
cut into per-seat trajectories (no Ray import here).

RLlib's own multi-agent path steps one Python env per decision: in Ray 2.60, ``MultiAgentEnvRunner``
vectorises a ``MultiAgentEnv`` only as ``SyncVectorMultiAgentEnv`` (``gym_env_vectorize_mode="sync"``,
one Python env and one ``MultiAgentEpisode`` per game, every decision added one by one), and refuses
``"vector_entry_point"``. `SelfPlayBatch` instead keeps ``num_envs`` game records in one
`cardgym.agents.runner.BatchRunner`: each `step` applies one action in every game (the seat to act
in each game, whichever it is) in one compiled call, and `harvest` cuts what was played into one
trajectory per (game, seat), in numpy arrays: the data RLlib's multi-agent runner would hand its
learner for a policy shared by all seats (one ``SingleAgentEpisode`` per agent). The EnvRunner that
drives it from an RLModule is ``cardgym.wrappers.rllib_runner.SelfPlayEnvRunner`` (imports Ray).

What a seat's trajectory holds (PettingZoo AEC semantics, as ``PettingZooEnv`` reports them): its own
observations and actions at its own decisions; the reward of a decision is everything paid to that seat
from that decision up to its next decision (or the end of the game); the trajectory ends
``terminated``/``truncated`` with the seat's observation of the finished game. A seat whose game is
still running when `harvest` is called returns the decisions it has closed, ending on the observation
of its open decision (for bootstrapping, as RLlib cuts episodes), and that open decision (already
played) opens its next chunk: its action and model outputs were taken with the weights of the earlier
call, as PPO's importance ratio allows.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import batch_space

from ..agents.runner import BatchRunner
from cardgym.core.state.status import RUNNING, TERMINATED, TRUNCATED

OBS_KEY = "observations"
MASK_KEY = "action_mask"


class SeatChunk:
    """One (game, seat) trajectory chunk, in numpy arrays of ``n = len(actions)`` decisions.

    Attributes: ``game`` (index in the batch), ``seat``, ``episode`` (a counter of the batch's games,
    shared by every seat and chunk of one game), ``seed`` (the deal's seed), ``obs`` ``(n + 1, D)`` and
    ``masks`` ``(n + 1, A)`` float32 (the last row is the observation after the last decision),
    ``actions`` ``(n,)`` int64, ``rewards`` ``(n,)`` float32, ``extras`` (name -> ``(n, ...)`` array:
    the model outputs given to `SelfPlayBatch.step`), ``terminated``, ``truncated``, ``first`` (the chunk
    starts at the game's first decision of this seat), ``t0`` (the seat's decisions in this game before the
    chunk)."""

    __slots__ = ("game", "seat", "episode", "seed", "obs", "masks", "actions", "rewards", "extras",
                 "terminated", "truncated", "first", "t0")

    def __init__(self, **kw):
        for k in self.__slots__:
            setattr(self, k, kw[k])

    def __len__(self):
        return int(self.actions.shape[0])

    @property
    def done(self) -> bool:
        return bool(self.terminated or self.truncated)

    def __repr__(self):
        end = "terminated" if self.terminated else "truncated" if self.truncated else "open"
        return f"SeatChunk(game={self.game}, episode={self.episode}, seat={self.seat}, len={len(self)}, {end})"


class SelfPlayBatch:
    """``num_envs`` games of one cardgym game in which every seat is played from outside.

    Args:
        game: game name (``"skyjo"``, ``"skipbo"``, ``"skipbo_junior"``).
        num_envs: games in the batch.
        observation: a flat encoder (``"vector"``).
        seed: seeds the deals (each game's seeds are drawn from ``numpy.random.default_rng(seed)``).
        **options: the game's rule options (``num_players``, ``reward``, ...).

    Loop: ``obs = batch.observe()`` gives ``{"observations", "action_mask"}`` of the seat to act in
    every game; ``batch.step(actions, extras)`` plays them (``extras``: per-game model outputs to keep
    with each decision, e.g. log-probabilities); ``batch.harvest()`` returns the `SeatChunk` s played
    since the last harvest. Finished games are re-dealt inside `step`.
    """

    def __init__(self, game: str, num_envs: int, observation: str = "vector", seed: int | None = None, **options):
        import cardgym

        if game not in cardgym.GAMES:
            raise ValueError(f"unknown game {game!r}; games: {sorted(cardgym.GAMES)}")
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.game = cardgym.get_game(game)
        self.rules = self.game.make_rules(**options)
        self.runner = BatchRunner(self.game, self.rules, int(num_envs), observation)  # every seat external
        self.num_envs = int(num_envs)
        self.num_players = int(self.rules.num_players)
        num_actions = int(self.game.num_actions)
        lo, hi = self.game.encoder(observation).bounds(self.rules)
        self.single_observation_space = spaces.Dict({
            OBS_KEY: spaces.Box(lo, hi, dtype=np.float32),
            MASK_KEY: spaces.Box(0.0, 1.0, (num_actions,), np.float32),
        })
        self.single_action_space = spaces.Discrete(num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.metadata = {}
        self.render_mode = None
        self._rng = np.random.default_rng(seed)
        self._all = np.arange(self.num_envs, dtype=np.int64)
        self._started = False
        #: games finished since construction, and their lengths (decisions) and per-seat returns, since
        #: the last `pop_finished` (for metrics)
        self.games_finished = 0
        self._finished: list = []

    # ---------------------------------------------------------------- gymnasium-like helpers
    @property
    def unwrapped(self):
        return self

    def close(self, **kwargs):
        pass

    # -------------------------------------------------------------------------- playing
    def _new_seeds(self, n):
        return self._rng.integers(0, 2**63 - 1, n, dtype=np.int64)

    def reset(self, seed: int | None = None) -> dict:
        """Deal every game anew (dropping everything not harvested); returns `observe`."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        n, p = self.num_envs, self.num_players
        self.seeds = self._new_seeds(n)
        self.runner.reset(self.seeds)
        self.episode = np.arange(n, dtype=np.int64)
        self._next_episode = n
        self._ep_decisions = np.zeros(n, np.int64)
        self._ep_return = np.zeros((n, p), np.float64)
        # per (game, seat): the open decision carried over from the last harvest
        d, a = self.runner.obs_size, int(self.game.num_actions)
        self._p_has = np.zeros((n, p), bool)
        self._p_first = np.zeros((n, p), bool)
        self._p_t = np.zeros((n, p), np.int64)  # closed decisions of the seat in its current game
        self._p_obs = np.zeros((n, p, d), np.float32)
        self._p_mask = np.zeros((n, p, a), np.float32)
        self._p_action = np.zeros((n, p), np.int64)
        self._p_reward = np.zeros((n, p), np.float32)
        self._p_extras: dict = {}
        self._hist = []  # per step: (seat, obs, mask, action, paid, status, extras)
        self._finals = {}  # step -> (games, seeds, episodes, obs (k, P, D), statuses)
        self._started = True
        self._obs = None
        return self.observe()

    def observe(self) -> dict:
        """``{"observations": (N, D), "action_mask": (N, A)}`` float32 of the seat to act in every game."""
        if not self._started:
            raise RuntimeError("observe() before reset()")
        cur = self.runner.current
        obs = self.runner.observe(self._all, cur)
        self._obs, self._cur = obs, cur
        return {OBS_KEY: obs, MASK_KEY: self.runner.masks.astype(np.float32)}

    @property
    def current(self) -> np.ndarray:
        """The seat to act in every game."""
        return self.runner.current

    def step(self, actions, extras: dict | None = None) -> int:
        """Play ``actions[i]`` for the seat to act in game ``i`` (legal: checked), keep ``extras`` (name
        -> per-game array) with each decision, re-deal finished games. Returns the games finished."""
        if not self._started:
            raise RuntimeError("step() before reset()")
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or not np.issubdtype(acts.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_envs} integers, got {acts.dtype} {acts.shape}")
        acts = acts.astype(np.int64)
        if self._obs is None:  # step() twice without observe(): the seats to act are read now
            self.observe()
        masks = self.runner.masks
        if ((acts < 0) | (acts >= masks.shape[1])).any() or not masks[self._all, np.clip(acts, 0, masks.shape[1] - 1)].all():
            bad = int(np.flatnonzero((acts < 0) | (acts >= masks.shape[1])
                                     | ~masks[self._all, np.clip(acts, 0, masks.shape[1] - 1)].astype(bool))[0])
            raise ValueError(f"game {bad}: action {int(acts[bad])} is not legal for seat {int(self._cur[bad])} "
                             f"(legal: {np.flatnonzero(masks[bad]).tolist()})")
        extras = {k: np.asarray(v) for k, v in (extras or {}).items()}
        for k, v in extras.items():
            if v.shape[:1] != (self.num_envs,):
                raise ValueError(f"extras[{k!r}] must have {self.num_envs} rows, got shape {v.shape}")
        mask_f = masks.astype(np.float32)
        cur, obs = self._cur, self._obs
        r = self.runner
        r.rewards[:] = 0
        r.apply(self._all, acts)
        paid = r.rewards[:, : self.num_players].copy()
        status = r.status.copy()
        self._ep_decisions += 1
        self._ep_return += paid
        self._hist.append((cur, obs, mask_f, acts, paid, status, extras))
        done = np.flatnonzero(status != RUNNING)
        if done.size:
            p = self.num_players
            gi = np.repeat(done, p)
            final = r.observe(gi, np.tile(np.arange(p), done.size)).reshape(done.size, p, -1)
            self._finals[len(self._hist) - 1] = (done, final, self.episode[done].copy(), self.seeds[done].copy())
            for i in done:
                self._finished.append((int(self._ep_decisions[i]), self._ep_return[i].copy(), int(status[i])))
            seeds = self._new_seeds(done.size)
            r.reset(seeds, done)
            self.seeds[done] = seeds
            self.episode[done] = self._next_episode + np.arange(done.size)
            self._next_episode += done.size
            self._ep_decisions[done] = 0
            self._ep_return[done] = 0
            self.games_finished += done.size
        self._obs = None
        return int(done.size)

    def pop_finished(self) -> list:
        """``(decisions, per-seat returns, status)`` of every game finished since the last call."""
        out, self._finished = self._finished, []
        return out

    # -------------------------------------------------------------------------- harvest
    def harvest(self) -> list:
        """Every `SeatChunk` closed since the last harvest (see the module docstring); the step history
        is cleared. Decisions still open stay with the batch for the next harvest."""
        if not self._started:
            raise RuntimeError("harvest() before reset()")
        hist, finals = self._hist, self._finals
        self._hist, self._finals = [], {}
        if not hist:
            return []
        T, n, p = len(hist), self.num_envs, self.num_players
        seat = np.stack([h[0] for h in hist])  # (T, N)
        obs = np.stack([h[1] for h in hist])  # (T, N, D)
        mask = np.stack([h[2] for h in hist])  # (T, N, A)
        act = np.stack([h[3] for h in hist])  # (T, N)
        paid = np.stack([h[4] for h in hist])  # (T, N, P)
        status = np.stack([h[5] for h in hist])  # (T, N)
        keys = sorted(hist[0][6])
        if any(sorted(h[6]) != keys for h in hist):
            raise ValueError("every step() between two harvests must give the same extras keys")
        extras = {k: np.stack([h[6][k] for h in hist]) for k in keys}
        if self._p_has.any() and sorted(self._p_extras) != keys:
            raise ValueError(f"extras keys changed between harvests ({sorted(self._p_extras)} -> {keys})")
        if not self._p_has.any() or any(self._p_extras[k].shape[2:] != v.shape[2:] for k, v in extras.items()):
            self._p_extras = {k: np.zeros((n, p) + v.shape[2:], v.dtype) for k, v in extras.items()}
        final_row = {}  # (step, game) -> (final obs (P, D), episode id, seed) of a game that ended there
        for t, (games, f, eps, seeds) in finals.items():
            for k, g in enumerate(games):
                final_row[(t, int(g))] = (f[k], int(eps[k]), int(seeds[k]))
        ended = status != RUNNING  # (T, N)
        chunks = []
        for i in range(n):
            ends = np.flatnonzero(ended[:, i])
            bounds = list(ends) + ([T - 1] if not ends.size or ends[-1] != T - 1 else [])
            start = 0
            for part, e in enumerate(bounds):
                is_end = bool(ended[e, i])
                if is_end:
                    fin_obs, ep, seed = final_row[(e, i)]
                else:  # the game still running
                    ep, seed = int(self.episode[i]), int(self.seeds[i])
                seats_part = seat[start:e + 1, i]
                for s in range(p):
                    ts = start + np.flatnonzero(seats_part == s)
                    has_p = bool(self._p_has[i, s]) and part == 0
                    n_dec = ts.size + int(has_p)
                    if n_dec == 0:
                        continue
                    # rewards: paid to s from each decision up to the next one (or the part's end)
                    col = paid[start:e + 1, i, s].astype(np.float64)
                    cum = np.concatenate([[0.0], np.cumsum(col)])
                    starts = ts - start  # relative step of each new decision
                    nxt = np.concatenate([starts[1:], [e + 1 - start]])
                    rew_new = (cum[nxt] - cum[starts]).astype(np.float32)
                    if has_p:
                        pre = np.float32(self._p_reward[i, s] + (cum[starts[0]] if ts.size else cum[-1]))
                        rewards = np.concatenate([[pre], rew_new]).astype(np.float32)
                    else:
                        rewards = rew_new
                    d_obs = obs[ts, i]
                    d_mask = mask[ts, i]
                    d_act = act[ts, i]
                    d_ext = {k: v[ts, i] for k, v in extras.items()}
                    if has_p:
                        d_obs = np.concatenate([self._p_obs[i, s][None], d_obs])
                        d_mask = np.concatenate([self._p_mask[i, s][None], d_mask])
                        d_act = np.concatenate([[self._p_action[i, s]], d_act])
                        d_ext = {k: np.concatenate([self._p_extras[k][i, s][None], v]) for k, v in d_ext.items()}
                    # without an open decision carried over, this is the seat's first decision of the game
                    first = bool(self._p_first[i, s]) if has_p else True
                    t0 = int(self._p_t[i, s]) if has_p else 0
                    if is_end:
                        fin = fin_obs[s]
                        chunks.append(SeatChunk(
                            game=i, seat=s, episode=ep, seed=seed, first=first, t0=t0,
                            obs=np.concatenate([d_obs, fin[None]]),
                            masks=np.concatenate([d_mask, np.zeros((1, d_mask.shape[1]), np.float32)]),
                            actions=d_act, rewards=rewards, extras=d_ext,
                            terminated=int(status[e, i]) == TERMINATED, truncated=int(status[e, i]) == TRUNCATED))
                        self._p_has[i, s] = False
                        self._p_t[i, s] = 0
                    else:
                        # the last decision stays open: it is carried over with what it has been paid
                        self._p_has[i, s] = True
                        self._p_first[i, s] = first if n_dec == 1 else False
                        self._p_obs[i, s] = d_obs[-1]
                        self._p_mask[i, s] = d_mask[-1]
                        self._p_action[i, s] = d_act[-1]
                        self._p_reward[i, s] = rewards[-1]
                        self._p_t[i, s] = t0 + n_dec - 1
                        for k, v in d_ext.items():
                            self._p_extras[k][i, s] = v[-1]
                        if n_dec > 1:
                            chunks.append(SeatChunk(
                                game=i, seat=s, episode=ep, seed=seed, first=first, t0=t0,
                                obs=d_obs, masks=d_mask, actions=d_act[:-1], rewards=rewards[:-1],
                                extras={k: v[:-1] for k, v in d_ext.items()},
                                terminated=False, truncated=False))
                if is_end:
                    self._p_has[i] = False
                    self._p_t[i] = 0
                start = e + 1
        return chunks
