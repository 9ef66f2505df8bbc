"""Trained agents shipped inside the package: the opponent / bot name ``"agent"``.

Each shipped agent is a model file of the built-in trainer (``cardgym train``, see docs/results.md for
the command that re-creates it) kept as package data in ``cardgym/agents/pretrained_models/``, named
``<game>-<N>p.pt`` (``skyjo-2p.pt``: Skyjo, 2 players). The name ``"agent"`` works wherever a model path
does (``opponent="agent"`` of the Gymnasium and vector envs, ``cardgym play --vs agent``,
``cardgym eval --bots agent,expert``): it loads the shipped file for the game and player count through
[`load_policy`][cardgym.agents.load_policy] (``torch.load(weights_only=True)`` after every check of
[`read_model_file`][cardgym.agents.read_model_file]) and checks that the rules and observation it was
trained with (recorded in the file) are those it is about to play with. Under other rules, another
player count or another observation, a ``ValueError`` names the agents that exist.
"""

from __future__ import annotations

import re
from importlib import resources

#: the opponent / bot name of the shipped agents
AGENT = "agent"
#: the package-data folder (inside ``cardgym.agents``) holding the shipped model files
FOLDER = "pretrained_models"
_NAME = re.compile(r"^([a-z_]+)-(\d+)p\.pt$")

__all__ = ["AGENT", "FOLDER", "shipped", "agent_path", "load_agent"]


def _folder():
    return resources.files("cardgym.agents").joinpath(FOLDER)


def shipped() -> dict:
    """``{(game, num_players): file name}`` of every agent shipped with this install."""
    out = {}
    folder = _folder()
    if not folder.is_dir():
        return out
    for entry in folder.iterdir():
        m = _NAME.match(entry.name)
        if m and entry.is_file():
            out[(m.group(1), int(m.group(2)))] = entry.name
    return dict(sorted(out.items()))


def _describe() -> str:
    have = shipped()
    if not have:
        return "no agent is shipped with this install"
    by_game: dict = {}
    for (game, n), _ in have.items():
        by_game.setdefault(game, []).append(n)
    return "shipped agents: " + "; ".join(
        f"{game} with {', '.join(map(str, ns))} players (default rules, 'vector' observation)"
        for game, ns in by_game.items()
    )


def _num_players(rules) -> int:
    if rules is None:
        return 2
    if isinstance(rules, dict):
        return int(rules.get("num_players", 2))
    return int(rules.num_players)


def agent_path(game: str, num_players: int = 2):
    """The shipped model file (an ``importlib.resources`` Traversable) of ``game`` with ``num_players``
    players; ``ValueError`` naming the shipped agents when there is none."""
    name = shipped().get((game, int(num_players)))
    if name is None:
        raise ValueError(f"no shipped 'agent' for {game} with {num_players} players; {_describe()}. "
                         "Train one with `cardgym train GAME` and pass its model.pt path instead")
    return _folder().joinpath(name)


def load_agent(game, rules=None, observation: str | None = None, deterministic: bool = True, seed: int = 0):
    """The shipped agent of ``game`` (a GameSpec or name) as a [`TorchPolicy`][cardgym.agents.TorchPolicy],
    checked against ``rules`` (a ``Rules`` object or option dict; ``None``: the default 2-player rules)
    and ``observation`` as any model opponent is. Raises ``ValueError`` naming the shipped agents when none
    fits."""
    from . import check_model_fits, load_policy

    name = getattr(game, "name", game)
    ref = agent_path(name, _num_players(rules))
    with resources.as_file(ref) as path:
        policy = load_policy(path, deterministic=deterministic, seed=seed)
    try:
        check_model_fits(policy, game, rules, observation, where=f"{AGENT} ({ref.name})")
    except ValueError as exc:
        raise ValueError(f"{exc}; {_describe()}") from None
    return policy
