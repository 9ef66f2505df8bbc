"""The RLlib key adapter for cardgym's PettingZoo AEC environments."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo.utils import BaseWrapper


class RLlibKeys(BaseWrapper):
    """An AEC wrapper renaming ``observation`` to ``observations`` and casting ``action_mask`` to
    float32 (RLlib's masking module takes ``log(mask)``). Everything else passes through; the
    observation spaces are built once per agent (the same object every call)."""

    def __init__(self, env):
        super().__init__(env)
        self._spaces = {}
        for agent in self.env.possible_agents:
            sp = self.env.observation_space(agent)
            if not isinstance(sp, spaces.Dict) or "observation" not in sp.spaces or "action_mask" not in sp.spaces:
                raise ValueError(
                    "rllib_keys needs the classic {'observation', 'action_mask'} Dict observation "
                    f"(a flat encoder such as observation='vector'), got {sp}"
                )
            n = sp["action_mask"].shape[0]
            self._spaces[agent] = spaces.Dict(
                {
                    "observations": sp["observation"],
                    "action_mask": spaces.Box(0.0, 1.0, (n,), np.float32),
                }
            )

    def observation_space(self, agent):
        return self._spaces[agent]

    def observe(self, agent):
        obs = self.env.observe(agent)
        if obs is None:
            return None
        return {
            "observations": obs["observation"],
            "action_mask": np.asarray(obs["action_mask"], np.float32),
        }

    def __str__(self):
        return str(self.env)


def rllib_keys(env) -> RLlibKeys:
    """Wrap a cardgym AEC env (``cardgym.skyjo_v0.env()``) for RLlib's action-masking RLModule:
    ``{"observations": float32, "action_mask": float32}``."""
    return RLlibKeys(env)
