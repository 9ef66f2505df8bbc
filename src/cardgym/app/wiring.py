"""Moved to `cardgym.wiring` (below the registry, so that ``import cardgym`` imports nothing from the
layers above it); this alias warns and will be removed."""

from __future__ import annotations

import warnings

from cardgym.wiring import load_model_opponent, plug_in  # noqa: F401

warnings.warn("cardgym.app.wiring moved to cardgym.wiring; import cardgym.wiring instead (cardgym.app.wiring will "
              "be removed)", DeprecationWarning, stacklevel=2)
