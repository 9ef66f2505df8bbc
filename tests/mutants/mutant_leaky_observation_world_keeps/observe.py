"""Crazy Eights leaking the draw pile's top card with a WORLD that re-deals nothing."""

from __future__ import annotations

from mutant_leaky_observation.observe import ENCODERS, state_size  # noqa: F401
from mutant_world_keeps.observe import WORLD  # noqa: F401
