"""The trainer's settings: `Config`, the opponent mixture spec and the games' presets.

A game's preset (``GameSpec.train_preset``, in the game's folder) holds the defaults of ``cardgym train
GAME``: `Config` fields, and ``rules`` (rule options); every command-line flag overrides them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

@dataclass
class Config:
    game: str = "skyjo"
    rules: dict = field(default_factory=dict)  # rule options of the game (num_players defaults to 2)
    out: str = "runs/skyjo"
    seed: int = 0
    total_steps: int = 10_000_000  # learner decisions
    num_envs: int = 1024
    rollout: int = 64  # steps per env per iteration
    epochs: int = 3
    minibatch: int = 8192
    lr: float = 3e-4
    anneal_lr: bool = True
    gamma: float = 0.997
    lam: float = 0.95
    clip: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: tuple = (256, 256)
    opponents: str = "greedy:0.5,random:0.1,self:0.4"  # bot names, "self" = snapshot pool
    pool_size: int = 8
    snapshot_every: int = 10  # iterations
    seat: str = "random"  # learner seat: "random" or a seat number
    reward: str = "env"  # "env": the game's reward; "diff": own reward minus the others' mean
    reward_scale: float = 1.0
    win_bonus: float = 0.0  # +b / -b at the end for strictly best / not best total reward (0 on a tie)
    observation: str = "vector"
    imitate: str = ""  # a bot whose choices the policy also learns (cross-entropy on the learner's states)
    imitate_coef: float = 1.0  # weight of that imitation loss at the start
    imitate_steps: int = 0  # learner steps over which the weight falls linearly to 0 (0: never falls)
    init: str = ""  # a saved model (model.pt or a checkpoint folder) to start from instead of random weights
    pretrain_steps: int = 0  # teacher decisions to clone before PPO starts (needs ``imitate``)
    pretrain_epochs: int = 8
    pretrain_lr: float = 1e-3
    pretrain_minibatch: int = 4096
    pretrain_anneal: bool = False  # the cloning learning rate falls linearly to 0 over all cloning updates
    eval_every: int = 10  # iterations (0: never during training)
    eval_first: bool = False  # also evaluate before the first PPO iteration (the curve's starting point)
    eval_games: int = 400
    final_eval_games: int = 2000
    eval_seed: int = 1_000_000
    checkpoint_every: int = 10
    threads: int = 2
    progress: bool = True


def parse_spec(spec: str) -> list:
    out = []
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        name, _, w = part.partition(":")
        try:
            weight = float(w) if w else 1.0
        except ValueError:
            weight = math.nan
        out.append((name.strip(), weight))
    if (not out or any(not n or not math.isfinite(w) or w < 0 for n, w in out)
            or sum(w for _, w in out) <= 0):
        raise ValueError(f"--opponents must look like 'greedy:0.5,random:0.1,self:0.4', got {spec!r}")
    return out


def game_preset(game) -> dict:
    """The training preset of ``game`` (a name or a `cardgym.core.contract.game.GameSpec`): a copy of its
    ``train_preset`` (empty for a game that has none)."""
    if isinstance(game, str):
        import cardgym

        game = cardgym.get_game(game)
    return dict(game.train_preset)


def presets() -> dict:
    """Every registered game's preset by game name (those that have one and load), in name order."""
    import cardgym

    return {g: game_preset(g) for g in cardgym.registry.loadable(sorted(cardgym.GAMES)) if game_preset(g)}
