"""Small adapters between cardgym's environments and RL libraries.

- :func:`rllib_keys`: RLlib's action-masking RLModule (``ActionMaskingTorchRLModule``) wants
  ``{"observations": ..., "action_mask": float}``; cardgym's AEC envs use PettingZoo's classic
  ``{"observation": ..., "action_mask": int8}``.
"""

from __future__ import annotations

from .rllib import RLlibKeys, rllib_keys

__all__ = ["rllib_keys", "RLlibKeys"]
