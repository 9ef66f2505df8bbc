"""Policies: the interface every player of cardgym follows, and trained models saved as plain data.

A *policy* is anything usable as

- a Python callable ``policy(obs, mask) -> action`` (one observation, its int8/bool mask), and
- a batched ``policy.act(obs_batch, mask_batch) -> actions`` (``(B, obs_size)``, ``(B, num_actions)``).

[`load_policy`][cardgym.agents.load_policy] turns a saved model file into such an object. Model files are written by
[`save_policy`][cardgym.agents.save_policy] (the built-in trainer, ``cardgym train``) and hold only tensors, numbers and a JSON
string: they load with ``torch.load(weights_only=True)``, so loading a model never unpickles arbitrary
objects. Checkpoints of the trainer (``checkpoint.pt``) load as well (their policy part is used).

The metadata stored with a model (``policy.meta``) names the game, the rule options it was trained
with, the observation encoder and the network shape, so ``opponent="path/to/model.pt"`` can check it
is given observations of the right size.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .runner import BatchRunner, as_batched  # noqa: F401  (re-exported)

FORMAT = "cardgym-policy-v1"

__all__ = ["PolicyNet", "TorchPolicy", "load_policy", "save_policy", "mask_logits", "BatchRunner", "as_batched",
           "FORMAT", "MASKED_LOGIT"]

#: the logit every policy of cardgym gives an illegal action: finite (no inf - inf = NaN anywhere), and
#: its softmax probability is exactly 0.0 in float32 next to any ordinary logit
MASKED_LOGIT = -1e9


def _torch():
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError(
            "trained policies need torch: pip install 'cardgym[train]' (or torch's CPU wheel)"
        ) from exc
    return torch


def mask_logits(logits, legal):
    """``logits`` (a torch tensor) with every action whose ``legal`` entry (bool tensor of the same
    shape) is False set to ``MASKED_LOGIT``."""
    return logits.masked_fill(~legal, MASKED_LOGIT)


def PolicyNet(obs_size: int, num_actions: int, hidden=(256, 256)):
    """The actor-critic MLP of the built-in trainer: a shared ReLU trunk, a policy head (logits over
    every action; illegal ones are masked by the caller) and a value head. ``forward(obs)`` returns
    ``(logits, value)``."""
    torch = _torch()
    nn = torch.nn

    class _Net(nn.Module):
        def __init__(self):
            super().__init__()
            layers, last = [], obs_size
            for h in hidden:
                layers += [nn.Linear(last, h), nn.ReLU()]
                last = h
            self.trunk = nn.Sequential(*layers)
            self.pi = nn.Linear(last, num_actions)
            self.v = nn.Linear(last, 1)
            for m in self.trunk:
                if isinstance(m, nn.Linear):
                    nn.init.orthogonal_(m.weight, 2**0.5)
                    nn.init.zeros_(m.bias)
            nn.init.orthogonal_(self.pi.weight, 0.01)
            nn.init.zeros_(self.pi.bias)
            nn.init.orthogonal_(self.v.weight, 1.0)
            nn.init.zeros_(self.v.bias)

        def forward(self, x):
            z = self.trunk(x)
            return self.pi(z), self.v(z).squeeze(-1)

    net = _Net()
    net.obs_size, net.num_actions, net.hidden = int(obs_size), int(num_actions), tuple(int(h) for h in hidden)
    return net


def save_policy(path, net, meta: dict | None = None) -> Path:
    """Write ``net`` (a [`PolicyNet`][cardgym.agents.PolicyNet]) and JSON-able ``meta`` to ``path`` as plain tensors."""
    torch = _torch()
    meta = dict(meta or {})
    meta.update(obs_size=net.obs_size, num_actions=net.num_actions, hidden=list(net.hidden))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().cpu().clone() for k, v in net.state_dict().items()}
    torch.save({"format": FORMAT, "meta_json": json.dumps(meta, sort_keys=True), "state_dict": state}, path)
    return path


class TorchPolicy:
    """A loaded model as a policy: ``policy(obs, mask) -> int`` and ``policy.act(obs, masks) -> array``.

    Args:
        net: a [`PolicyNet`][cardgym.agents.PolicyNet].
        meta: the model's metadata (``game``, ``rules``, ``observation``, ``obs_size``...).
        deterministic: pick the most likely legal action (default) instead of sampling.
        seed: seed of the sampling generator (with ``deterministic=False``).
    """

    def __init__(self, net, meta: dict, deterministic: bool = True, seed: int = 0):
        torch = _torch()
        self.net = net.eval()
        self.meta = dict(meta)
        self.deterministic = bool(deterministic)
        self.obs_size = int(net.obs_size)
        self.num_actions = int(net.num_actions)
        self._gen = torch.Generator().manual_seed(int(seed))

    def __repr__(self):
        return f"TorchPolicy(game={self.meta.get('game')!r}, hidden={list(self.net.hidden)}, obs={self.obs_size})"

    def act(self, obs, masks, deterministic: bool | None = None) -> np.ndarray:
        torch = _torch()
        obs = np.asarray(obs, np.float32)
        masks = np.asarray(masks)
        if obs.ndim != 2 or obs.shape[1] != self.obs_size:
            raise ValueError(
                f"this policy takes observations of size {self.obs_size} (game {self.meta.get('game')!r}, "
                f"rules {self.meta.get('rules')}), got shape {obs.shape}"
            )
        if masks.shape != (obs.shape[0], self.num_actions):
            raise ValueError(f"masks must have shape ({obs.shape[0]}, {self.num_actions}), got {masks.shape}")
        det = self.deterministic if deterministic is None else deterministic
        with torch.no_grad():
            logits, _ = self.net(torch.from_numpy(obs))
            legal = torch.from_numpy(masks.astype(bool))
            logits = mask_logits(logits, legal)
            if det:
                a = logits.argmax(-1)
            else:
                a = torch.multinomial(torch.softmax(logits, -1), 1, generator=self._gen).squeeze(-1)
        return a.numpy().astype(np.int64)

    def __call__(self, obs, mask) -> int:
        return int(self.act(np.asarray(obs, np.float32)[None], np.asarray(mask)[None])[0])


def load_policy(path, deterministic: bool = True, seed: int = 0) -> TorchPolicy:
    """Load a model saved by [`save_policy`][cardgym.agents.save_policy] or a trainer checkpoint, with ``weights_only=True``."""
    torch = _torch()
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no model file at {str(path)!r}")
    data = torch.load(path, map_location="cpu", weights_only=True)
    if isinstance(data, dict) and "policy" in data and isinstance(data["policy"], dict):
        data = data["policy"]  # a trainer checkpoint
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{str(path)!r} is not a cardgym model (expected format {FORMAT!r})")
    meta = json.loads(data["meta_json"])
    net = PolicyNet(meta["obs_size"], meta["num_actions"], tuple(meta["hidden"]))
    net.load_state_dict(data["state_dict"])
    return TorchPolicy(net, meta, deterministic=deterministic, seed=seed)
