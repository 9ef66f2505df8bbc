"""The built-in trainer (``cardgym train GAME``): masked PPO in torch on a compiled batch of games,
self-play against a pool of past snapshots mixed with the game's bots. See docs/training.md."""

from __future__ import annotations


def main(argv=None) -> int:
    """Entry point of ``cardgym train``: ``main(["skyjo", "--steps", "1e6"])``."""
    import os

    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    from .ppo import main as _main

    return _main(argv)


__all__ = ["main"]
