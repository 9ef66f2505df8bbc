"""A stable-baselines3 ``VecEnv`` backed by the compiled batch (no subprocesses, no per-env Python).

``make_vec_env("skipbo", 1024, opponent="greedy")`` steps 1024 games in one compiled call per step
(opponents included) and follows SB3's VecEnv contract: ``reset() -> obs``, ``step() -> (obs, rewards,
dones, infos)`` with automatic reset, ``infos[i]["terminal_observation"]`` and
``infos[i]["TimeLimit.truncated"]`` and ``infos[i]["opponent_id"]`` (the opponent the episode was played
against, see the vector env) for finished games, ``seed()`` applied at the next ``reset()``.
sb3-contrib's MaskablePPO finds the legal-action masks through ``env_method("action_masks")`` (also
available as ``action_masks()``, bool ``(num_envs, num_actions)``)::

    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor
    import cardgym.wrappers.sb3

    venv = VecMonitor(cardgym.wrappers.sb3.make_vec_env("skyjo", 256, opponent="greedy"))
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=4096, seed=0).learn(1_000_000)

Requires ``stable-baselines3`` (``pip install 'cardgym[train]'``).
"""

from __future__ import annotations

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

__all__ = ["CardGameSB3VecEnv", "make_vec_env"]


class CardGameSB3VecEnv(VecEnv):
    """SB3 view of a [`CardGameVectorEnv`][cardgym.core.envs.vector.CardGameVectorEnv] (same-step autoreset)."""

    def __init__(self, venv):
        self.venv = venv
        self.render_mode = None
        self._actions = np.zeros(venv.num_envs, np.int64)
        super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)

    # ----------------------------------------------------------------- VecEnv
    def reset(self):
        seeds = self._seeds
        if all(s is None for s in seeds):
            obs, _ = self.venv.reset()
        elif any(s is None for s in seeds):
            raise ValueError("seed() all environments or none")
        else:
            obs, _ = self.venv.reset(seed=[int(s) for s in seeds])
        self._reset_seeds()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return np.array(obs, copy=True)

    def step_async(self, actions):
        self._actions[:] = np.asarray(actions).reshape(-1)

    def step_wait(self):
        obs, rew, term, trunc, info = self.venv.step(self._actions)
        obs = np.array(obs, copy=True)
        dones = term | trunc
        infos = [{} for _ in range(self.num_envs)]
        if dones.any():
            final = info.get("final_obs")
            for i in np.flatnonzero(dones):
                infos[i]["terminal_observation"] = final[i].copy()
                infos[i]["TimeLimit.truncated"] = bool(trunc[i] and not term[i])
                infos[i]["opponent_id"] = int(info["opponent_id"][i])
        if "illegal_action" in info:
            for i in np.flatnonzero(info["illegal_action"]):
                infos[i]["illegal_action"] = True
        return obs, np.array(rew, np.float32, copy=True), dones.copy(), infos

    def close(self):
        self.venv.close()

    def action_masks(self) -> np.ndarray:
        """Boolean legal-action masks ``(num_envs, num_actions)`` of the current observations."""
        return self.venv.action_masks()

    def _indices(self, indices):
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def has_attr(self, attr_name: str) -> bool:
        return attr_name == "action_masks" or hasattr(self.venv, attr_name)

    def get_attr(self, attr_name, indices=None):
        if attr_name == "render_mode":
            return [None for _ in self._indices(indices)]
        value = getattr(self.venv, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name, value, indices=None):
        setattr(self.venv, attr_name, value)

    def env_method(self, method_name, *method_args, indices=None, **method_kwargs):
        idx = self._indices(indices)
        if method_name == "action_masks":
            masks = self.venv.action_masks()
            return [masks[i] for i in idx]
        result = getattr(self.venv, method_name)(*method_args, **method_kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False for _ in self._indices(indices)]

    def get_images(self):
        raise NotImplementedError("the compiled batch does not render; use the single-agent env")


def make_vec_env(game: str, num_envs: int, opponent="random", seat="random", **kwargs) -> CardGameSB3VecEnv:
    """An SB3 ``VecEnv`` of ``num_envs`` games of ``game`` against ``opponent`` (a bot name, a model
    path or a policy), the learner's ``seat`` fixed or ``"random"``. Other keyword arguments go to
    [`cardgym.make_vec`][cardgym.make_vec] (``observation``, ``illegal_penalty``, rule options)."""
    import cardgym

    kwargs.pop("autoreset_mode", None)
    venv = cardgym.make_vec(game, num_envs, opponent=opponent, seat=seat, autoreset_mode="same_step",
                            copy=False, **kwargs)
    return CardGameSB3VecEnv(venv)
