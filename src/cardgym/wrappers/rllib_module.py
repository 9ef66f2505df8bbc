"""An action-masking MLP RLModule for RLlib's new API stack (PPO and other value-based algorithms).

`MaskedMLPModule` is a `TorchRLModule` with the `ValueFunctionAPI` for the observations made by
`cardgym.wrappers.rllib_keys`: a Dict `{"observations": Box, "action_mask": Box(0, 1, (n,))}` with a
Discrete(n) action space. It is built with that Dict observation space; only the `observations` part
feeds the network, flattened to its size, and the mask decides which actions can be taken:

- an MLP trunk (`hidden` sizes, `activation` after each layer) maps the observations to features;
- a linear policy head gives one logit per action, and the logits of illegal actions (mask 0) are
  replaced by `cardgym.agents.MASKED_LOGIT` (-1e9, the rule of every cardgym policy) by
  `cardgym.agents.mask_logits`. Replacing rather than adding `log(mask)` keeps every logit finite:
  the softmax gives illegal actions exactly zero probability,
  and entropies, log-probabilities and KL terms stay free of inf and NaN (an all-zero mask, which
  RLlib's `PettingZooEnv` never produces, gives a uniform distribution instead of NaN);
- a value head (`compute_values`) reads the same trunk (`vf_share_layers=True`) or its own MLP trunk
  of the same sizes (`vf_share_layers=False`, the default, as in RLlib's PPO).

`_forward` (inference and exploration) returns the masked logits as `action_dist_inputs`;
`_forward_train` also returns the value features as `embeddings`, which PPO's loss passes back to
`compute_values` so that they are computed once. On EnvRunners (`inference_only=True`) the value
trunk and head are dropped (`InferenceOnlyAPI`), and only the policy weights are synced to them.

`model_config` keys: `hidden` (list of layer sizes, default `[256, 256]`), `activation` (`"tanh"`,
the default, or `"relu"`) and `vf_share_layers` (default False). RLlib's `fcnet_hiddens` and
`fcnet_activation` are read when `hidden` and `activation` are not given.

`init` (a path) warm-starts the module from a model file of cardgym's trainer (`cardgym train`'s
`model.pt`, a trainer checkpoint, or a shipped agent: `cardgym.agents.pretrained.agent_path`): the
network takes that model's shape (its hidden sizes, ReLU, the value head on the shared trunk) and its
weights, loaded by `cardgym.agents.load_policy` (`torch.load(weights_only=True)` after its checks). The
file's observation size and action count must match the spaces; `hidden`, `activation` or
`vf_share_layers` given next to `init` must agree with the file (a `ValueError` names the difference).
Every copy of the module (learner and EnvRunners) loads the same file, so the path must be readable on
every node. `init_model_config` builds this `model_config` from a path.

Usage (see `examples/rllib_multiagent.py`):

    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from cardgym.wrappers.rllib_module import MaskedMLPModule

    spec = RLModuleSpec(module_class=MaskedMLPModule, model_config={"hidden": [256, 256]})

This file imports Ray and torch at the top: import it only where RLlib is installed. Importing
`cardgym` or `cardgym.wrappers` does not import it (Ray stays an optional dependency).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import InferenceOnlyAPI, ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule
from torch import nn

from ..agents import MASKED_LOGIT, mask_logits

__all__ = ["MaskedMLPModule", "DEFAULT_HIDDEN", "MASKED_LOGIT", "init_model_config"]

DEFAULT_HIDDEN = (256, 256)
_ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}
OBS_KEY = "observations"
MASK_KEY = "action_mask"


def _mlp(in_size: int, hidden, activation) -> tuple[nn.Sequential, int]:
    layers = []
    for size in hidden:
        linear = nn.Linear(in_size, int(size))
        nn.init.orthogonal_(linear.weight, gain=float(np.sqrt(2)))
        nn.init.zeros_(linear.bias)
        layers += [linear, activation()]
        in_size = int(size)
    return nn.Sequential(*layers), in_size


def _init_config(policy, path) -> dict:
    """The network settings a loaded cardgym model ``policy`` (from ``path``) imposes on the module."""
    return {"init": str(path), "hidden": list(policy.net.hidden), "activation": "relu", "vf_share_layers": True}


def init_model_config(path) -> dict:
    """The `model_config` of a `MaskedMLPModule` warm-started from the cardgym model file ``path``:
    ``{"init": path, "hidden": its hidden sizes, "activation": "relu", "vf_share_layers": True}``."""
    from ..agents import load_policy

    return _init_config(load_policy(path), path)


def _init_policy(path, cfg: dict, obs_size: int, num_actions: int):
    """The cardgym model of ``path``, loaded once and checked against ``cfg`` (the settings given next to
    ``init``) and the module's spaces; and the `model_config` it imposes."""
    from ..agents import load_policy

    policy = load_policy(path)
    want = _init_config(policy, path)
    given = {k: (list(cfg[k]) if k == "hidden" else cfg[k]) for k in ("hidden", "activation", "vf_share_layers")
             if k in cfg}
    diff = {k: (v, want[k]) for k, v in given.items() if v != want[k]}
    if diff:
        detail = ", ".join(f"{k}={v!r} (the file needs {w!r})" for k, (v, w) in diff.items())
        raise ValueError(f"MaskedMLPModule model_config does not fit init={str(path)!r}: {detail}")
    if policy.obs_size != obs_size or policy.num_actions != num_actions:
        raise ValueError(f"init={str(path)!r} has {policy.obs_size} observations and {policy.num_actions} actions "
                         f"(game {policy.meta.get('game')!r}), this module's spaces {obs_size} and {num_actions}")
    return policy, want


def _copy_weights(module: "MaskedMLPModule", policy) -> None:
    """Copy a cardgym `PolicyNet`'s weights into ``module`` (trunk, policy head, value head)."""
    target = {"trunk": "_pi_trunk", "pi": "_pi_head", "v": "_vf_head"}
    mapped = {}
    for key, value in policy.net.state_dict().items():
        head, _, rest = key.partition(".")
        mapped[f"{target[head]}.{rest}"] = value
    module.load_state_dict(mapped, strict=True)


def _head(in_size: int, out_size: int, gain: float) -> nn.Linear:
    linear = nn.Linear(in_size, out_size)
    nn.init.orthogonal_(linear.weight, gain=gain)
    nn.init.zeros_(linear.bias)
    return linear


class MaskedMLPModule(TorchRLModule, ValueFunctionAPI, InferenceOnlyAPI):
    """Masked-logit MLP policy and value function over `{"observations", "action_mask"}` (see the
    module docstring)."""

    def setup(self):
        space = self.observation_space
        if not isinstance(space, gym.spaces.Dict) or OBS_KEY not in space.spaces or MASK_KEY not in space.spaces:
            raise ValueError(
                f"MaskedMLPModule needs a Dict observation space with {OBS_KEY!r} and {MASK_KEY!r} "
                f"(wrap the env with cardgym.wrappers.rllib_keys), got {space}"
            )
        obs_space = space[OBS_KEY]
        if not isinstance(obs_space, gym.spaces.Box):
            raise ValueError(
                f"MaskedMLPModule needs a Box {OBS_KEY!r} space (a flat encoder such as "
                f"observation='vector'), got {obs_space}"
            )
        if not isinstance(self.action_space, gym.spaces.Discrete):
            raise ValueError(f"MaskedMLPModule needs a Discrete action space, got {self.action_space}")
        num_actions = int(self.action_space.n)
        if space[MASK_KEY].shape != (num_actions,):
            raise ValueError(f"{MASK_KEY!r} space {space[MASK_KEY]} does not match {self.action_space}")

        cfg = self.model_config or {}
        if dataclasses.is_dataclass(cfg):
            cfg = dataclasses.asdict(cfg)
        self._obs_shape = tuple(obs_space.shape)
        self._obs_size = int(np.prod(self._obs_shape))
        init_policy = None
        if cfg.get("init"):
            init_policy, imposed = _init_policy(cfg["init"], cfg, self._obs_size, num_actions)
            cfg = {**cfg, **imposed}
        hidden = cfg.get("hidden", cfg.get("fcnet_hiddens", DEFAULT_HIDDEN))
        act_name = cfg.get("activation", cfg.get("fcnet_activation", "tanh"))
        if act_name not in _ACTIVATIONS:
            raise ValueError(f"activation must be one of {sorted(_ACTIVATIONS)}, got {act_name!r}")
        activation = _ACTIVATIONS[act_name]
        self.vf_share_layers = bool(cfg.get("vf_share_layers", False))

        self._pi_trunk, width = _mlp(self._obs_size, hidden, activation)
        self._pi_head = _head(width, num_actions, gain=0.01)  # near-uniform initial policy
        if not self.vf_share_layers:
            self._vf_trunk, width = _mlp(self._obs_size, hidden, activation)
        self._vf_head = _head(width, 1, gain=1.0)
        if init_policy is not None:
            _copy_weights(self, init_policy)

    # ------------------------------------------------------------------------------------ helpers
    def _observations(self, batch: dict[str, Any]) -> torch.Tensor:
        """The `observations` tensor of `batch["obs"]`, flattened to (..., obs_size), float32."""
        obs = batch[Columns.OBS]
        if not isinstance(obs, dict) or OBS_KEY not in obs or MASK_KEY not in obs:
            raise ValueError(
                f"MaskedMLPModule expects batch['obs'] to be a dict with {OBS_KEY!r} and {MASK_KEY!r}"
            )
        x = obs[OBS_KEY].float()
        lead = x.shape[: x.dim() - len(self._obs_shape)]
        return x.reshape(*lead, self._obs_size)

    def _value_features(self, x: torch.Tensor, pi_features: torch.Tensor | None = None) -> torch.Tensor:
        if self.vf_share_layers:
            return self._pi_trunk(x) if pi_features is None else pi_features
        return self._vf_trunk(x)

    def _masked_logits(self, batch: dict[str, Any], features: torch.Tensor) -> torch.Tensor:
        return mask_logits(self._pi_head(features), batch[Columns.OBS][MASK_KEY] > 0)

    # ----------------------------------------------------------------------------- RLModule API
    def _forward(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        features = self._pi_trunk(self._observations(batch))
        return {Columns.ACTION_DIST_INPUTS: self._masked_logits(batch, features)}

    def _forward_train(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        x = self._observations(batch)
        features = self._pi_trunk(x)
        return {
            Columns.ACTION_DIST_INPUTS: self._masked_logits(batch, features),
            Columns.EMBEDDINGS: self._value_features(x, features),
        }

    def compute_values(self, batch: dict[str, Any], embeddings: Any | None = None) -> torch.Tensor:
        """Value estimates of shape (B,) (or (B, T)): from `embeddings` (the `embeddings` output of
        `_forward_train`) when given, else from `batch["obs"]`."""
        if embeddings is None:
            embeddings = self._value_features(self._observations(batch))
        return self._vf_head(embeddings).squeeze(-1)

    def get_non_inference_attributes(self) -> list[str]:
        return ["_vf_head"] if self.vf_share_layers else ["_vf_trunk", "_vf_head"]
