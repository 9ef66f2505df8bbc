"""ε-random versions of the bots: anchors of the ladder between ``random`` and ``greedy`` (and between
``greedy`` and ``expert``), so that every neighbouring pair of anchors scores against each other.

``greedy-eps0.5`` plays ``random``'s move with probability 0.5 and ``greedy``'s otherwise, in every
decision. The coin is a hash of the decision's record (its bot generator's state after both bots drew,
`splitmix64`), so the same deal gives the same game in the batch, in the AEC env and at any number of games
in flight. A player is batched: both bots run compiled over the whole batch (`act_records`).
"""

from __future__ import annotations

import re

import numpy as np

from .batch import _game

_NAME = re.compile(r"^([a-z_][a-z0-9_]*)-eps(0\.\d*[1-9]|1(\.0+)?)$")


def splitmix64(x: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser of ``x`` (uint64), elementwise."""
    with np.errstate(over="ignore"):
        z = (np.asarray(x, np.uint64) + np.uint64(0x9E3779B97F4A7C15)).astype(np.uint64)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


class EpsBot:
    """The bot ``base`` of ``game`` playing ``random``'s move with probability ``eps`` in each decision."""

    def __init__(self, game, base: str, eps: float, rules=None):
        self.game = _game(game)
        if base not in self.game.bots or base == "random":
            raise ValueError(f"an ε-random bot is built on one of {sorted(b for b in self.game.bots if b != 'random')}, "
                             f"got {base!r}")
        if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not 0 < eps <= 1:
            raise ValueError(f"eps must be a probability in (0, 1], got {eps!r}")
        self.base, self.eps = base, float(eps)
        self.rules = rules if rules is not None else self.game.make_rules(num_players=2)
        self.params = self.rules.params()
        self.name = f"{base}-eps{self.eps:g}"
        self._threshold = np.uint64(min(int(self.eps * 2.0 ** 64), 2 ** 64 - 1))

    def __str__(self):
        return self.name

    def __repr__(self):
        return f"EpsBot({self.game.name!r}, {self.base!r}, {self.eps:g})"

    def _bot(self, name, records, masks):
        out = np.zeros(len(records), np.int64)
        self.game.compiled(bot=self.game.bot_index(name)).batch_bot(records, self.params, masks, 0, out)
        return out

    def act_records(self, records, masks) -> np.ndarray:
        masks = np.ascontiguousarray(masks, np.int8)
        base = self._bot(self.base, records, masks)
        rand = self._bot("random", records, masks)
        coin = splitmix64(records["bot_rng"] ^ (records["turn"].astype(np.uint64) if "turn" in records.dtype.names
                                                 else np.uint64(0)))
        return np.where(coin < self._threshold, rand, base)


def is_eps_name(name) -> bool:
    return isinstance(name, str) and _NAME.match(name) is not None


def eps_bot(game, name: str, rules=None) -> EpsBot:
    """The `EpsBot` named ``BOT-epsP`` (``greedy-eps0.5``); ``ValueError`` for another name."""
    m = _NAME.match(name) if isinstance(name, str) else None
    if m is None:
        raise ValueError(f"an ε-random bot is named BOT-epsP with P in (0, 1] (e.g. greedy-eps0.5), got {name!r}")
    return EpsBot(game, m.group(1), float(m.group(2)), rules)


def anchor_player(game, name: str, rules=None):
    """A ladder anchor by name: a bot's name as it is, ``BOT-epsP`` as its `EpsBot`."""
    return eps_bot(game, name, rules) if is_eps_name(name) else name


__all__ = ["EpsBot", "anchor_player", "eps_bot", "is_eps_name", "splitmix64"]
