"""The built-in trainer (``cardgym train GAME``): masked PPO in torch on a compiled batch of games,
self-play against a pool of past snapshots mixed with the game's bots. See docs/training.md."""

from __future__ import annotations


def main(argv=None) -> int:
    """Entry point of ``cardgym train``: ``main(["skyjo", "--steps", "1e6"])``."""
    import os

    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    from .ppo import build_parser, main as _main

    args = list(argv) if argv is not None else None
    if not ({"-h", "--help"} & set(args or [])):  # the help needs no torch
        try:
            import torch  # noqa: F401
        except ImportError:
            build_parser().parse_args(args)  # bad flags are reported first
            raise SystemExit("cardgym train needs torch: pip install 'cardgym[train]'") from None
    return _main(args)


__all__ = ["main"]
