"""The built-in trainer (``cardgym train GAME``): masked PPO in torch on a compiled batch of games,
self-play against a pool of past snapshots mixed with the game's bots. See docs/training.md."""

from __future__ import annotations


def main(argv=None) -> int:
    """Entry point of ``cardgym train``: ``main(["skyjo", "--steps", "1e6"])``."""
    import os

    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    from .cli import build_parser, main as _main

    args = list(argv) if argv is not None else None
    if not ({"-h", "--help"} & set(args or [])):  # the help needs no torch
        try:
            import torch  # noqa: F401
        except ImportError:
            build_parser().parse_args(args)  # bad flags are reported first
            raise SystemExit("cardgym train needs torch: pip install 'cardgym[train]'") from None
    return _main(args)


def __getattr__(name):
    # the trainer's public names, imported on first use (they need torch; ``cardgym train --help`` does not)
    if name in ("Config", "game_preset", "presets"):
        from . import config

        return getattr(config, name)
    if name == "Trainer":
        from . import ppo

        return ppo.Trainer
    if name in ("CheckpointError", "OutputError"):
        from . import checkpoints

        return getattr(checkpoints, name)
    if name in ("build_parser", "config_from_args"):
        from . import cli

        return getattr(cli, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["main", "Config", "Trainer", "CheckpointError", "OutputError", "build_parser", "config_from_args",
           "game_preset", "presets"]
