"""Small adapters between cardgym's environments and RL libraries.

- [`rllib_keys`][cardgym.wrappers.rllib_keys]: RLlib's action-masking RLModules want
  ``{"observations": ..., "action_mask": float}``; cardgym's AEC envs use PettingZoo's classic
  ``{"observation": ..., "action_mask": int8}``.
- ``cardgym.wrappers.rllib_module.MaskedMLPModule``: an RLlib (new API stack) PPO module that reads
  that Dict and gives illegal actions zero probability. It imports Ray, so it is not imported here:
  ``from cardgym.wrappers.rllib_module import MaskedMLPModule``.
"""

from __future__ import annotations

from .rllib import RLlibKeys, rllib_keys

__all__ = ["rllib_keys", "RLlibKeys"]
