"""What core calls but does not import: the services of the layers above it, plugged in from above.

``cardgym.core`` is the bottom layer (docs/api.md, "Layers"): it imports no game, no
`cardgym.render`, no `cardgym.agents` and not the `cardgym` package itself. The few services it needs
from them are looked up here by slot name; ``cardgym/__init__.py`` plugs the package's own in
(`cardgym.wiring`). A slot holds a *loader*, a no-argument callable returning the implementation,
called on first use only, so ``import cardgym`` loads neither Pillow nor torch.
"""

from __future__ import annotations

from typing import Any, Callable

#: slot name -> what the implementation is
SLOTS = {
    "rgb_array": "the table as a picture: (game, record, rules, viewer=None) -> uint8 array (H, W, 3)",
    "view": "a seat's view as data: (game, record, rules, viewer=None, mask=None) -> JSON-able dict",
    "model_opponent": "a saved model as an opponent: (game, path, rules, observation) -> policy with .act",
}

_loaders: dict[str, Callable[[], Any]] = {}
_loaded: dict[str, Any] = {}


def plug(slot: str, loader: Callable[[], Any]) -> None:
    """Fill ``slot`` with ``loader`` (a no-argument callable returning the implementation; called on the
    first `get`). Plugging a slot again replaces what it held."""
    if slot not in SLOTS:
        raise ValueError(f"unknown plug-in slot {slot!r}; slots: {sorted(SLOTS)}")
    if not callable(loader):
        raise TypeError(f"the loader of slot {slot!r} must be a no-argument callable, got {loader!r}")
    _loaders[slot] = loader
    _loaded.pop(slot, None)


def get(slot: str) -> Any:
    """The implementation plugged into ``slot`` (loaded on first use)."""
    if slot not in _loaded:
        if slot not in _loaders:
            if slot not in SLOTS:
                raise ValueError(f"unknown plug-in slot {slot!r}; slots: {sorted(SLOTS)}")
            raise RuntimeError(f"nothing is plugged into core slot {slot!r} ({SLOTS[slot]}); "
                               "`import cardgym` plugs the package's own in")
        _loaded[slot] = _loaders[slot]()
    return _loaded[slot]
