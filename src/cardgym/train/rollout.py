"""Rollouts of the built-in trainer, through the public vector env.

The trainer's games are one `cardgym.core.envs.vector.CardGameVectorEnv` (``autoreset_mode="same_step"``)
whose opponents are the mixture's bots, the teacher bot (``--imitate``/``--teacher``) and the pool of the learner's
own snapshots, driven by the episode driver (`cardgym.core.envs.episodes.EpisodeDriver`: bots in compiled
calls, snapshots in batched forward passes). The env's ``new_episode`` hook is `RolloutMixin._draw`:
every episode start (and every re-deal of a game over before the learner's first decision) takes its
seed, learner seat and opponent from the run's generator, so a run is reproducible from its seed.
"""

from __future__ import annotations

import numpy as np

from ..agents import PolicyNet, TorchPolicy, mask_logits
from cardgym.core.envs.vector import CardGameVectorEnv
from .progress import Progress


class RolloutMixin:
    """Opponents, snapshots, episode starts and `collect` of `cardgym.train.ppo.Trainer`."""

    # ------------------------------------------------------------ opponents
    def _build_env(self):
        """The vector env and its opponents: the mixture's bots, the teacher, then the snapshot pool
        (opponent indices are the ``seat_player`` values of checkpoints, so this order is kept)."""
        cfg = self.cfg
        for k in self.kinds:
            if k != "self":
                self.game.bot_index(k)  # an unknown bot name is refused here, naming the game's bots
        opponents: list = []
        self.bot_pid = {}
        for k in self.kinds:
            if k != "self":
                opponents.append(k)
                self.bot_pid[k] = len(opponents) - 1
        name = cfg.imitate
        self.teacher_model = None  # the teacher as a loaded model (``--imitate model.pt``)
        if not name:
            self.teacher_pid = None
        elif name in self.bot_pid:
            self.teacher_pid = self.bot_pid[name]
        elif name in self.game.bots:
            opponents.append(name)
            self.teacher_pid = len(opponents) - 1
        else:
            self.teacher_model = self._teacher_model(name)
            self.teacher_pid = None
        self.teacher_agreement: list = []  # (learner steps, share of argmax == teacher) of every PPO rollout
        self.vec = None
        self._pending = opponents  # opponents added before the env exists (the first snapshot)
        self.pool_pids: list = []
        self.pool_states: list = []
        self.pool_next = 0
        # opponent id (the env's ``opponent_ids``, named by ``info["opponent_id"]`` of finished episodes)
        # -> index into ``kinds``; the bots' and teacher's ids are their indices (never replaced)
        self.opp_kind = {pid: self.kinds.index(k) for k, pid in self.bot_pid.items()}
        self.snaps: dict = {}  # opponent id -> (weights, seed) of every snapshot still playing
        self.opponent_stats: dict = {}  # opponent id -> [episodes, score]: finished episodes against it
        if "self" in self.kinds:
            self._snapshot()
        self.vec = CardGameVectorEnv(self.game, self.n, opponent=opponents, seat="random",
                                     observation=cfg.observation, autoreset_mode="same_step", copy=False,
                                     new_episode=self._draw, **cfg.rules)
        del self._pending
        self.seats = self.vec.driver.seats  # the learner's seat in every game (the env's own array)

    def _teacher_model(self, path):
        """``--imitate`` naming a saved model (model.pt or a checkpoint folder) of this game, rules and
        observation, or ``agent`` (the shipped one): it labels the learner's states with its argmax."""
        from pathlib import Path

        from ..agents import check_model_fits, load_policy
        from ..agents.pretrained import AGENT, load_agent

        if path == AGENT:
            return load_agent(self.game, self.rules, self.cfg.observation)
        if not Path(path).exists():
            raise ValueError(f"--imitate must be one of the game's bots {list(self.game.bots)}, {AGENT!r} or a saved "
                             f"model (model.pt or a checkpoint folder), got {path!r}")
        pol = load_policy(path, deterministic=True)
        check_model_fits(pol, self.game, self.rules, self.cfg.observation, where=str(path))
        if (pol.obs_size, pol.num_actions) != (self.obs_size, self.A):
            raise ValueError(f"--imitate model {str(path)!r} takes {pol.obs_size} observations and {pol.num_actions} "
                             f"actions; this run has {self.obs_size} and {self.A}")
        return pol

    def has_teacher(self) -> bool:
        return self.teacher_pid is not None or self.teacher_model is not None

    def teacher_actions(self, obs, masks) -> np.ndarray:
        """The teacher's choice in the learner's seat of every game: a bot in one compiled call over the
        batch's records (its own view of each), a model in one forward pass over ``obs``."""
        if self.teacher_model is not None:
            return self.teacher_model.act(obs, masks)
        return self.vec.bot_actions(self.cfg.imitate)

    def imitation_weight(self, steps: int | None = None) -> float:
        """The imitation loss weight now (or after ``steps`` learner steps): ``imitate_coef`` falling
        linearly to 0 at ``imitate_steps``."""
        cfg = self.cfg
        if not self.has_teacher() or cfg.imitate_coef <= 0:
            return 0.0
        if cfg.imitate_steps <= 0:
            return float(cfg.imitate_coef)
        steps = self.steps if steps is None else steps
        return float(cfg.imitate_coef) * max(0.0, 1.0 - steps / cfg.imitate_steps)

    def _policy_copy(self, seed, state=None):
        """A frozen, sampling copy of the current policy (or of the weights ``state``) for the pool."""
        net = PolicyNet(self.obs_size, self.A, tuple(self.cfg.hidden))
        net.load_state_dict(self.net.state_dict() if state is None else state)
        return TorchPolicy(net, {"game": self.cfg.game}, deterministic=False, seed=seed)

    def _snapshot(self, slot: int | None = None):
        """Copy the current policy into the pool: a new entry while the pool is not full, else over the
        oldest entry (or over entry ``slot``). A replaced entry plays on in the games it started (the
        env's `set_opponent` takes effect at each game's next episode)."""
        seed = int(self.rng.integers(2**62))
        pol = self._policy_copy(seed)
        state = {k: v.clone() for k, v in self.net.state_dict().items()}
        if slot is None and len(self.pool_pids) < self.cfg.pool_size:
            if self.vec is None:
                self._pending.append(pol)
                self.pool_pids.append(len(self._pending) - 1)
                oid = self.pool_pids[-1]  # the env's first opponents have ids 0, 1, ...
            else:
                self.pool_pids.append(self.vec.add_opponent(pol))
                oid = self.vec.opponent_ids[self.pool_pids[-1]]
            self.pool_states.append((state, seed))
        else:
            if slot is None:
                slot = self.pool_next % self.cfg.pool_size
                self.pool_next += 1
            oid = self.vec.set_opponent(self.pool_pids[slot], pol)
            self.pool_states[slot] = (state, seed)
        self.snaps[oid] = (state, seed)
        self.opp_kind[oid] = self.kinds.index("self")
        if self.vec is not None:  # forget the snapshots no game plays any more
            alive = set(self.vec._opponent_table()["pid_id"])
            self.snaps = {i: v for i, v in self.snaps.items() if i in alive}

    # ------------------------------------------------------------ episodes
    def _draw(self, idx):
        """The env's ``new_episode``: seeds, learner seats and opponents of new episodes in games ``idx``
        (the opponent kind from the mixture, a snapshot of the pool at random for ``self``)."""
        seeds = self.rng.integers(0, 2**62, size=idx.size)
        if self.seat_fixed >= 0:
            seats = np.full(idx.size, self.seat_fixed, np.int64)
        else:
            seats = self.rng.integers(0, self.np, size=idx.size)
        kinds = self.rng.choice(len(self.kinds), size=idx.size, p=self.mix_p)
        slots = self.rng.integers(0, max(1, len(self.pool_pids)), size=idx.size)
        pids = np.array([self.pool_pids[slots[j]] if self.kinds[kinds[j]] == "self" else self.bot_pid[self.kinds[kinds[j]]]
                         for j in range(idx.size)], np.int64)
        self.env_kind[idx] = kinds
        return seeds, seats, pids

    def _assign(self):
        """New episodes in every game (`_draw`), played up to the learner; their returns start at 0."""
        self.obs, _ = self.vec.reset()
        self.ep_ret[:] = 0
        self.ep_len[:] = 0

    def _episode_end(self, idx, rewards, seats, opponent_ids):
        """Outcome bookkeeping and the win bonus for games ``idx`` that just finished (``seats``: the
        learner seats of the finished episodes; ``opponent_ids``: the env's ``info["opponent_id"]``, the
        opponent each was played against). The outcomes go to the window of the opponent's kind and to
        ``opponent_stats`` (episodes and score per opponent id, e.g. per snapshot of the pool)."""
        cfg = self.cfg
        ret = self.ep_ret[idx, : self.np]
        me = ret[np.arange(idx.size), seats[idx]]
        best = ret.max(axis=1)
        ties = (ret == best[:, None]).sum(axis=1)
        score = np.where(me == best, 1.0 / ties, 0.0)
        if cfg.win_bonus:
            bonus = np.where(score == 1.0, 1.0, np.where(score == 0.0, -1.0, 0.0)) * cfg.win_bonus
            rewards[idx] += bonus.astype(np.float32)
        for j, i in enumerate(idx):
            oid = int(opponent_ids[i])
            w = self.window[self.kinds[self.opp_kind[oid]]]
            w.append(float(score[j]))
            st = self.opponent_stats.setdefault(oid, [0, 0.0])
            st[0] += 1
            st[1] += float(score[j])
            if len(w) > 2000:
                del w[: len(w) - 2000]
        self.episodes += idx.size

    # -------------------------------------------------------------- rollout
    def collect(self, T: int | None = None, teacher_plays: bool = False, progress: Progress | None = None):
        """Play ``T`` learner decisions in every game (``rollout`` by default) and return the batch with
        advantages and returns. With ``teacher_plays`` the teacher bot decides in the learner's seat (for
        behaviour cloning): no policy is run, values are 0, so the returns are Monte Carlo returns.
        ``progress`` (a `Progress` over ``T * num_envs`` decisions) is updated after every step."""
        torch, cfg, vec, n = self.torch, self.cfg, self.vec, self.n
        T = cfg.rollout if T is None else int(T)
        obs_b = np.zeros((T, n, self.obs_size), np.float32)
        mask_b = np.zeros((T, n, self.A), np.bool_)
        act_b = np.zeros((T, n), np.int64)
        logp_b = np.zeros((T, n), np.float32)
        val_b = np.zeros((T + 1, n), np.float32)
        rew_b = np.zeros((T, n), np.float32)
        done_b = np.zeros((T, n), np.float32)
        # labels only for an update that uses them (its weight is taken after this rollout's steps)
        teach = teacher_plays or self.imitation_weight(self.steps + n * T) > 0
        lab_b = np.zeros((T, n), np.int64) if teach else None
        ar = np.arange(n)
        d0 = vec.decisions
        agree = 0
        for t in range(T):
            if progress is not None:
                progress.update(t * n, "collecting the teacher's decisions")
            obs_b[t] = self.obs
            mask_b[t] = vec.action_masks()
            if teach:  # what the teacher would do in the learner's place (its own view only)
                lab_b[t] = self.teacher_actions(obs_b[t], mask_b[t])
            if teacher_plays:
                acts = act_b[t] = lab_b[t]
            else:
                with torch.no_grad():
                    logits, v = self.net(torch.from_numpy(obs_b[t]))
                    logits = mask_logits(logits, torch.from_numpy(mask_b[t]))
                    logp_all = torch.log_softmax(logits, -1)
                    a = torch.multinomial(logp_all.exp(), 1).squeeze(-1)
                    logp = logp_all.gather(1, a[:, None]).squeeze(-1)
                    if teach:  # the policy that plays these states: its argmax against the teacher's choice
                        agree += int((logits.argmax(-1).numpy() == lab_b[t]).sum())
                acts = a.numpy()
                act_b[t], logp_b[t], val_b[t] = acts, logp.numpy(), v.numpy()
            # the episodes that end in this step restart inside it (`_draw`): keep the learner's seats
            seats = self.seats.copy()
            self.obs, _, term, trunc, info = vec.step(acts)
            r_all = vec.seat_rewards[:, : self.np].astype(np.float64)
            self.ep_ret[:, : self.np] += r_all
            self.ep_len += 1
            r = r_all[ar, seats]
            if cfg.reward == "diff" and self.np > 1:
                r = r - (r_all.sum(axis=1) - r) / (self.np - 1)
            r = (r * cfg.reward_scale).astype(np.float32)
            done = term | trunc
            if done.any():
                idx = np.flatnonzero(done)
                self._episode_end(idx, r, seats, info["opponent_id"])
                self.ep_ret[idx] = 0
                self.ep_len[idx] = 0
            rew_b[t], done_b[t] = r, done
        if not teacher_plays:
            with torch.no_grad():
                val_b[T] = self.net(torch.from_numpy(self.obs))[1].numpy()
            self.steps += n * T
            self.decisions += vec.decisions - d0
            if teach:
                self.teacher_agreement.append([int(self.steps), round(agree / (n * T), 5)])
        # GAE (with the values all 0 and lambda 1: discounted Monte Carlo returns)
        lam = 1.0 if teacher_plays else cfg.lam
        adv = np.zeros((T, n), np.float32)
        last = np.zeros(n, np.float32)
        for t in range(T - 1, -1, -1):
            nonterm = 1.0 - done_b[t]
            delta = rew_b[t] + cfg.gamma * val_b[t + 1] * nonterm - val_b[t]
            last = delta + cfg.gamma * lam * nonterm * last
            adv[t] = last
        ret = adv + val_b[:T]
        out = dict(obs=obs_b.reshape(T * n, -1), mask=mask_b.reshape(T * n, -1), act=act_b.reshape(-1),
                   logp=logp_b.reshape(-1), adv=adv.reshape(-1), ret=ret.reshape(-1))
        if teach:
            out["label"] = lab_b.reshape(-1)
        return out
