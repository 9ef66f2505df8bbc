"""Policies: the interface every player of cardgym follows, and trained models saved as plain data.

A *policy* is anything usable as

- a Python callable ``policy(obs, mask) -> action`` (one observation, its int8/bool mask), and
- a batched ``policy.act(obs_batch, mask_batch) -> actions`` (``(B, obs_size)``, ``(B, num_actions)``).

[`load_policy`][cardgym.agents.load_policy] turns a saved model file into such an object. Model files are written by
[`save_policy`][cardgym.agents.save_policy] (the built-in trainer, ``cardgym train``) and hold only tensors, numbers and a JSON
string: they load with ``torch.load(weights_only=True)``, so loading a model never unpickles arbitrary
objects, and every size in a file's metadata is checked against its weight tensors before a network is
built (an unusable file raises ``ValueError("not a cardgym model: PATH: REASON")``). Checkpoints of the
trainer (the folder ``OUT/checkpoint/`` or its ``state.pt``) load as well (their policy part is used).

The metadata stored with a model (``policy.meta``) names the game, the rule options it was trained
with, the observation encoder and the network shape, so ``opponent="path/to/model.pt"`` can check it
is given observations of the right size.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from .runner import BatchRunner, as_batched  # noqa: F401  (re-exported)

FORMAT = "cardgym-policy-v1"

__all__ = ["PolicyNet", "TorchPolicy", "load_policy", "read_model_file", "check_model_fits", "save_policy",
           "mask_logits", "BatchRunner", "as_batched", "FORMAT", "MASKED_LOGIT"]

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
    # written whole under a temporary name, then renamed over ``path``; through a Python file object, so a
    # full disk raises OSError(ENOSPC) rather than a torch RuntimeError
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            torch.save({"format": FORMAT, "meta_json": json.dumps(meta, sort_keys=True), "state_dict": state}, f)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
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

    def __reduce__(self):
        # PolicyNet's class is local to a function (torch is imported lazily), so pickle the weights, the
        # metadata and the sampling generator's state instead: the copy acts exactly like this policy
        # (env copies carry their model opponents this way, core/envs/copies.py)
        state = {k: v.detach().clone() for k, v in self.net.state_dict().items()}
        return (_policy_from_state, (self.meta, (self.obs_size, self.num_actions, tuple(self.net.hidden)), state,
                                     self.deterministic, self._gen.get_state()))

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


#: the files of a trainer checkpoint folder (``OUT/checkpoint/``) that ``load_policy`` reads its policy from
CHECKPOINT_STATE = "state.pt"


def _policy_from_state(meta, shape, state, deterministic, gen_state) -> "TorchPolicy":
    """The `TorchPolicy` that ``TorchPolicy.__reduce__`` describes."""
    net = PolicyNet(*shape[:2], shape[2])
    net.load_state_dict(state)
    policy = TorchPolicy(net, meta, deterministic=deterministic)
    policy._gen.set_state(gen_state)
    return policy


def _bad(path, reason: str) -> ValueError:
    return ValueError(f"not a cardgym model: {path}: {reason}")


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def archive_damage(path) -> str | None:
    """What is wrong with the zip archive at ``path`` (``torch.save``'s format) as a short reason, or
    ``None`` when every member reads back with the CRC-32 the archive recorded for it. ``torch.load``
    never checks those CRCs, so a flipped bit in the weights would otherwise load as another network."""
    import zipfile

    try:
        with zipfile.ZipFile(path) as z:
            for info in z.infolist():
                if info.compress_type != zipfile.ZIP_STORED:
                    return f"archive member {info.filename!r} is compressed (torch.save never compresses)"
            bad = z.testzip()  # reads every member and compares its CRC-32
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as exc:
        return f"not a readable torch.save archive ({type(exc).__name__}: {exc})"
    if bad is not None:
        return f"archive member {bad!r} fails its CRC-32 check (the file is damaged)"
    return None


def _check_zip(path: Path, size: int):
    """torch.save writes an uncompressed zip archive: refuse anything else, any archive whose members
    claim more bytes than the file holds, and any member whose bytes fail their CRC-32, before torch
    reads a byte of it."""
    import zipfile

    try:
        with zipfile.ZipFile(path) as z:
            infos = z.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise _bad(path, f"not a torch.save archive ({type(exc).__name__}: {exc})") from None
    if not infos:
        raise _bad(path, "an empty zip archive")
    claimed = sum(info.file_size for info in infos)
    if claimed > size:
        raise _bad(path, f"its archive members claim {claimed} bytes but the file holds {size}")
    damage = archive_damage(path)
    if damage is not None:
        raise _bad(path, damage)


def _expected_shapes(obs_size: int, num_actions: int, hidden) -> dict:
    """The state_dict key -> shape of ``PolicyNet(obs_size, num_actions, hidden)``, computed without
    building it."""
    shapes, last = {}, obs_size
    for i, h in enumerate(hidden):
        shapes[f"trunk.{2 * i}.weight"] = (h, last)
        shapes[f"trunk.{2 * i}.bias"] = (h,)
        last = h
    shapes.update({"pi.weight": (num_actions, last), "pi.bias": (num_actions,), "v.weight": (1, last),
                   "v.bias": (1,)})
    return shapes


def read_model_file(path) -> tuple:
    """``(meta, state_dict)`` of a model file, checked through and through before anything is built.

    Accepts a file of [`save_policy`][cardgym.agents.save_policy], a trainer checkpoint's state file
    and a trainer checkpoint folder (``OUT/checkpoint/``). The file is read with
    ``torch.load(weights_only=True)`` (after checking it is an uncompressed zip archive whose members fit
    in the file); then the format marker, the metadata (JSON object with ``obs_size``, ``num_actions``
    and ``hidden`` as positive integers; ``game``/``observation`` strings and ``rules`` an object when
    present), the weight names, every weight's shape against the metadata's sizes, float dtypes, finite
    values, and a parameter count no larger than the file could hold. Raises
    ``ValueError("not a cardgym model: PATH: REASON")`` for every unusable file and
    ``FileNotFoundError`` when there is nothing at ``path``.
    """
    torch = _torch()
    path = Path(path)
    if path.is_dir() and (path / CHECKPOINT_STATE).is_file():
        path = path / CHECKPOINT_STATE  # a trainer checkpoint folder
    if not path.is_file():
        raise FileNotFoundError(f"no model file at {str(path)!r}")
    size = path.stat().st_size
    if size == 0:
        raise _bad(path, "the file is empty")
    _check_zip(path, size)
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many types here (UnpicklingError, RuntimeError, KeyError...)
        first = (str(exc).strip().splitlines() or [""])[0][:200]
        raise _bad(path, f"torch.load(weights_only=True) refused it ({type(exc).__name__}: {first})") from None
    if isinstance(data, dict) and isinstance(data.get("policy"), dict):
        data = data["policy"]  # a trainer checkpoint
    if not isinstance(data, dict):
        raise _bad(path, f"holds a {type(data).__name__}, not a dict with format {FORMAT!r}")
    if data.get("format") != FORMAT:
        raise _bad(path, f"format marker is {data.get('format')!r}, expected {FORMAT!r}")
    missing = sorted({"meta_json", "state_dict"} - set(data))
    if missing:
        raise _bad(path, f"missing {missing}")
    if not isinstance(data["meta_json"], str):
        raise _bad(path, "meta_json is not a string")
    try:
        meta = json.loads(data["meta_json"])
    except ValueError as exc:
        raise _bad(path, f"meta_json is not JSON ({exc})") from None
    except RecursionError:
        raise _bad(path, "meta_json is nested too deeply to be a model's metadata") from None
    if not isinstance(meta, dict):
        raise _bad(path, "the metadata is not a JSON object")
    for key in ("obs_size", "num_actions"):
        if not _is_int(meta.get(key)) or meta[key] < 1:
            raise _bad(path, f"metadata {key} must be a positive integer, got {meta.get(key)!r}")
    hidden = meta.get("hidden")
    if not isinstance(hidden, list) or not all(_is_int(h) and h >= 1 for h in hidden):
        raise _bad(path, f"metadata hidden must be a list of positive integers, got {hidden!r}")
    for key, kind in (("game", str), ("observation", str), ("rules", dict)):
        if key in meta and not isinstance(meta[key], kind):
            raise _bad(path, f"metadata {key} must be a {kind.__name__}, got {meta[key]!r}")
    state = data["state_dict"]
    if not isinstance(state, dict) or not all(isinstance(k, str) and isinstance(v, torch.Tensor)
                                              for k, v in state.items()):
        raise _bad(path, "state_dict is not a dict of named tensors")
    want = _expected_shapes(meta["obs_size"], meta["num_actions"], hidden)
    if set(state) != set(want):
        extra, lost = sorted(set(state) - set(want)), sorted(set(want) - set(state))
        raise _bad(path, f"the weights do not match the metadata's network (hidden={hidden}): "
                         f"unexpected {extra[:6]}, missing {lost[:6]}")
    total = 0
    for k, shape in want.items():
        t = state[k]
        if tuple(t.shape) != shape:
            raise _bad(path, f"weight {k} has shape {tuple(t.shape)}, the metadata (obs_size={meta['obs_size']}, "
                             f"num_actions={meta['num_actions']}, hidden={hidden}) needs {shape}")
        if not t.dtype.is_floating_point:
            raise _bad(path, f"weight {k} has dtype {t.dtype}, not a float dtype")
        total += t.numel() * t.element_size()
    if total > size:
        raise _bad(path, f"its weights take {total} bytes but the file holds {size} (tensors sharing or "
                         "repeating storage)")
    for k, t in state.items():
        if not bool(torch.isfinite(t).all()):
            raise _bad(path, f"weight {k} holds NaN or infinite values")
    return meta, state


def load_policy(path, deterministic: bool = True, seed: int = 0) -> TorchPolicy:
    """Load a model saved by [`save_policy`][cardgym.agents.save_policy] or a trainer checkpoint, with
    ``torch.load(weights_only=True)``. The file is checked by
    [`read_model_file`][cardgym.agents.read_model_file] before the network is built: every unusable file
    raises ``ValueError("not a cardgym model: PATH: REASON")``."""
    meta, state = read_model_file(path)
    net = PolicyNet(meta["obs_size"], meta["num_actions"], tuple(meta["hidden"]))
    net.load_state_dict(state)
    return TorchPolicy(net, meta, deterministic=deterministic, seed=seed)


def check_model_fits(policy, game, rules=None, observation: str | None = None, where: str = "") -> None:
    """Raise ``ValueError`` when a loaded model's recorded game, rules or observation encoder differ
    from those it is about to play with (``game`` a GameSpec or name; ``rules`` the env's ``Rules`` object
    or option dict; ``observation`` the encoder name). Rule options that only change rewards
    (``reward``) are not compared; metadata a model does not record is not compared."""
    meta = getattr(policy, "meta", None) or {}
    name = getattr(game, "name", game)
    label = f"model {where!r}" if where else "the model"
    trained_on = meta.get("game")
    if trained_on is not None and trained_on != name:
        raise ValueError(f"{label} was trained on {trained_on!r}, not {name!r}")
    if observation is not None and meta.get("observation") is not None and meta["observation"] != observation:
        raise ValueError(f"{label} was trained on the {meta['observation']!r} observation, this env encodes "
                         f"{observation!r}; make the env with observation={meta['observation']!r}")
    if rules is not None and meta.get("rules") is not None and not isinstance(game, str):
        try:
            saved = game.make_rules(**meta["rules"]).as_dict()
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{label} records rules {meta['rules']} that {name} does not accept: {exc}") from None
        now = (game.make_rules(**rules) if isinstance(rules, dict) else rules).as_dict()
        diff = {k: (saved.get(k), now.get(k)) for k in sorted(set(saved) | set(now))
                if k != "reward" and saved.get(k) != now.get(k)}
        if diff:
            detail = ", ".join(f"{k}: model {a!r}, env {b!r}" for k, (a, b) in diff.items())
            raise ValueError(f"{label} was trained with other rules than this env's ({detail})")
