"""Small adapters between cardgym's environments and RL libraries.

- [`rllib_keys`][cardgym.wrappers.rllib_keys]: RLlib's action-masking RLModules want
  ``{"observations": ..., "action_mask": float}``; cardgym's AEC envs use PettingZoo's classic
  ``{"observation": ..., "action_mask": int8}``.
- ``cardgym.wrappers.rllib_module.MaskedMLPModule``: an RLlib (new API stack) PPO module that reads
  that Dict and gives illegal actions zero probability. It imports Ray, so it is not imported here:
  ``from cardgym.wrappers.rllib_module import MaskedMLPModule``.
- [`RLlibVectorEnv`][cardgym.wrappers.rllib_vector.RLlibVectorEnv] and
  [`rllib_vector_env`][cardgym.wrappers.rllib_vector.rllib_vector_env]: the compiled vector env with
  that Dict for RLlib's single-agent EnvRunners (``gym_env_vectorize_mode="vector_entry_point"``),
  the batch split over one or more opponents. No Ray import.
- ``cardgym.wrappers.rllib_selfplay.SelfPlayBatch``: every seat of a compiled batch played from outside
  and cut into per-seat trajectories (batched self-play; no Ray import), driven by
  ``cardgym.wrappers.rllib_runner.SelfPlayEnvRunner``, an RLlib EnvRunner (imports Ray, so it is not
  imported here either): ``examples/rllib_selfplay_batched.py``.
- ``cardgym.wrappers.rllib_tools``: what the RLlib examples share (an RLModule as a cardgym policy,
  starting Ray, the training loop's rows and lines, the evaluation against the bots; no Ray import at
  module level, not imported here).
"""

from __future__ import annotations

from .rllib import RLlibKeys, rllib_keys
from .rllib_selfplay import SeatChunk, SelfPlayBatch
from .rllib_vector import PolicySlot, RLlibVectorEnv, rllib_vector_env

__all__ = ["rllib_keys", "RLlibKeys", "RLlibVectorEnv", "rllib_vector_env", "PolicySlot", "SelfPlayBatch",
           "SeatChunk"]
