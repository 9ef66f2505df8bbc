"""An RLlib EnvRunner for batched self-play: every seat of ``num_envs_per_env_runner`` compiled games
played by one shared RLModule (new API stack; imports Ray and torch, so import it by name only).

Why a custom EnvRunner: Ray 2.60's ``MultiAgentEnvRunner`` vectorises multi-agent envs only with
``SyncVectorMultiAgentEnv`` (``gym_env_vectorize_mode="sync"``: one Python ``MultiAgentEnv`` per game,
each decision added to a ``MultiAgentEpisode`` one by one; ``"vector_entry_point"`` raises), so it
steps one Python env per decision however many envs it holds. `SelfPlayEnvRunner` is a
``SingleAgentEnvRunner`` whose env is a `cardgym.wrappers.rllib_selfplay.SelfPlayBatch`: per step,
one forward pass of the module over the seat to act in every game, one sampled action per game
(the module's exploration distribution, as RLlib's ``GetActions`` connector does), one compiled call
that plays them; at the end of ``sample()`` the batch is cut into one ``SingleAgentEpisode`` per
(game, seat) chunk, built from numpy arrays at once. That is what RLlib's multi-agent runner gives
its learner for a policy shared by all agents (one ``SingleAgentEpisode`` per agent), so the usual
single-agent PPO learner (module ``default_policy``) trains on every seat's decisions.

Use::

    from cardgym.wrappers.rllib_runner import SelfPlayEnvRunner, selfplay_env_creator

    register_env("cardgym_selfplay", selfplay_env_creator)
    config.environment("cardgym_selfplay", env_config={"game": "skyjo", "num_players": 2})
    config.env_runners(env_runner_cls=SelfPlayEnvRunner, num_envs_per_env_runner=512)

``env_config``: ``game``, ``observation`` (a flat encoder, default ``"vector"``) and the game's rule
options. Env steps count decisions (every seat's); an episode is a game.

Limits (documented in docs/training.md): the runner calls the module directly, so custom
env-to-module / module-to-env connectors are not run (the learner's connectors are); models need the
``{"observations", "action_mask"}`` Dict (``MaskedMLPModule``); every seat maps to the one module; the
decision still open in each running game when ``sample()`` returns opens that seat's next chunk (its
log-probability is from the weights of that earlier call, which PPO's ratio accounts for).
"""

from __future__ import annotations

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner
from ray.rllib.env.single_agent_episode import SingleAgentEpisode
from ray.rllib.env.utils.infinite_lookback_buffer import InfiniteLookbackBuffer
from ray.rllib.utils.metrics import (
    EPISODE_LEN_MAX,
    EPISODE_LEN_MEAN,
    EPISODE_LEN_MIN,
    EPISODE_RETURN_MAX,
    EPISODE_RETURN_MEAN,
    EPISODE_RETURN_MIN,
    WEIGHTS_SEQ_NO,
)

from ..agents import MASKED_LOGIT
from .rllib_selfplay import MASK_KEY, OBS_KEY, SelfPlayBatch

__all__ = ["SelfPlayEnvRunner", "selfplay_env_creator", "chunk_to_episode"]


def selfplay_env_creator(config) -> SelfPlayBatch:
    """RLlib env creator for `SelfPlayEnvRunner` (``register_env(name, selfplay_env_creator)``): a
    `SelfPlayBatch` from an ``env_config`` with ``"game"``, optional ``"num_envs"`` (default 1),
    ``"seed"``, ``"observation"`` and rule options."""
    cfg = dict(config)
    if "game" not in cfg:
        raise ValueError("env_config needs 'game' (one of 'skyjo', 'skipbo', 'skipbo_junior')")
    return SelfPlayBatch(cfg.pop("game"), cfg.pop("num_envs", 1), **cfg)


def chunk_to_episode(chunk, observation_space, action_space, id_prefix: str = "") -> SingleAgentEpisode:
    """A numpy'ized ``SingleAgentEpisode`` holding one `SeatChunk` (no per-step work)."""
    n = len(chunk)
    return SingleAgentEpisode(
        id_=f"{id_prefix}{chunk.episode}-{chunk.seat}",
        observations=InfiniteLookbackBuffer({OBS_KEY: chunk.obs, MASK_KEY: chunk.masks}),
        infos=InfiniteLookbackBuffer([{}] * (n + 1)),
        actions=InfiniteLookbackBuffer(chunk.actions),
        rewards=InfiniteLookbackBuffer(chunk.rewards),
        extra_model_outputs={k: InfiniteLookbackBuffer(v) for k, v in chunk.extras.items()},
        observation_space=observation_space,
        action_space=action_space,
        terminated=bool(chunk.terminated),
        truncated=bool(chunk.truncated),
        t_started=chunk.t0,
        len_lookback_buffer=0,
    )


class SelfPlayEnvRunner(SingleAgentEnvRunner):
    """RLlib EnvRunner over a `SelfPlayBatch` (see the module docstring). ``sample(num_timesteps=n)``
    plays at least ``n`` decisions (whole steps of the batch); ``sample(num_episodes=k)`` plays until
    ``k`` games have finished."""

    def make_env(self) -> None:
        cfg = dict(self.config.env_config)
        cfg["num_envs"] = self.config.num_envs_per_env_runner
        self.env = selfplay_env_creator(cfg)
        self.num_envs = self.env.num_envs
        self._needs_initial_reset = True
        self._finished_games: list = []
        self._id_prefix = f"w{self.worker_index or 0}-"

    def _actions(self, obs, explore: bool, random_actions: bool):
        masks = obs[MASK_KEY]
        if random_actions or self.module is None:
            logits = np.where(masks > 0, 0.0, MASKED_LOGIT).astype(np.float32)
            gumbel = -np.log(-np.log(np.random.random(logits.shape)))
            actions = (logits + gumbel).argmax(axis=1)
            logp = -np.log(masks.sum(axis=1)).astype(np.float32)
            return actions, {Columns.ACTION_LOGP: logp, Columns.ACTION_DIST_INPUTS: logits}
        batch = {Columns.OBS: {k: torch.from_numpy(v) for k, v in obs.items()}}
        with torch.no_grad():
            if explore:
                out = self.module.forward_exploration(batch, t=self.num_env_steps_sampled_lifetime)
                dist_cls = self.module.get_exploration_action_dist_cls()
            else:
                out = self.module.forward_inference(batch)
                dist_cls = self.module.get_inference_action_dist_cls()
            logits = out[Columns.ACTION_DIST_INPUTS]
            dist = dist_cls.from_logits(logits)
            if not explore:
                dist = dist.to_deterministic()
            actions = dist.sample()
            logp = dist.logp(actions)
        return actions.numpy(), {Columns.ACTION_LOGP: logp.numpy().astype(np.float32),
                                 Columns.ACTION_DIST_INPUTS: logits.numpy()}

    def _sample(self, *, num_timesteps=None, num_episodes=None, explore: bool, random_actions: bool = False,
                force_reset: bool = False):
        env = self.env
        if force_reset or self._needs_initial_reset:
            env.reset(seed=self._seed if self._needs_initial_reset else None)
            self._needs_initial_reset = False
        ts = 0
        games = 0
        seq = np.full(env.num_envs, self._weights_seq_no, np.int64)
        while (ts < num_timesteps) if num_timesteps is not None else (games < num_episodes):
            obs = env.observe()
            actions, extras = self._actions(obs, explore, random_actions)
            extras[WEIGHTS_SEQ_NO] = seq
            games += env.step(actions, extras)
            ts += env.num_envs
        space = env.single_observation_space
        episodes = [chunk_to_episode(c, space, env.single_action_space, self._id_prefix) for c in env.harvest()]
        finished = env.pop_finished()
        self._finished_games.extend(finished)
        self._log_env_steps(metric=self._metrics_num_env_steps_sampled, num_steps=ts)
        self._increase_sampled_metrics(ts, len(finished))
        return episodes

    def get_metrics(self):
        win = max(1, int(np.ceil(self.config.metrics_num_episodes_for_smoothing / (self.config.num_env_runners or 1))))
        for decisions, returns, status in self._finished_games:
            mean_ret = float(np.mean(returns))
            self.metrics.log_value(EPISODE_LEN_MEAN, decisions, window=win)
            self.metrics.log_value(EPISODE_LEN_MIN, decisions, reduce="min", window=win)
            self.metrics.log_value(EPISODE_LEN_MAX, decisions, reduce="max", window=win)
            # a game's return: the mean over its seats (0 for zero-sum rewards); per seat below
            self.metrics.log_value(EPISODE_RETURN_MEAN, mean_ret, window=win)
            self.metrics.log_value(EPISODE_RETURN_MIN, mean_ret, reduce="min", window=win)
            self.metrics.log_value(EPISODE_RETURN_MAX, mean_ret, reduce="max", window=win)
            for k, r in enumerate(returns):
                self.metrics.log_value(("agent_episode_return_mean", f"seat_{k}"), float(r), window=win)
            self.metrics.log_value("games_truncated_fraction", float(status == 2), window=win)
        self._finished_games.clear()
        return self.metrics.reduce()
