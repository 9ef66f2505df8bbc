"""Where the gap between the in-game `search` bot and the Python search comes from (docs/hidden_information.md).

    python studies/pimc_seed_source.py XOR DEALS

Plays ``DEALS`` Skyjo deals from both seats: examples/pimc.py against the ``expert``, in a plain loop over
one record, the searching seat drawing its seed exactly as the compiled search does (the expert's choice
on the real record, then two draws from the record's shared bot generator) and XOR-ing it with ``XOR``.
``XOR`` 0 replays the in-game compiled search decision for decision (the same games); another ``XOR``
gives other worlds but still advances the record's bot generator like the compiled search. Prints the
win rate (a draw counts half).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
from numba import njit

import cardgym
from cardgym.core.contract import worlds
from cardgym.core.compiled.rng import bot_below

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("pimc_example", ROOT / "examples" / "pimc.py")
pimc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pimc)


@njit(cache=True)
def search_seed(states):
    """The seed the compiled search loop draws from the record's bot generator."""
    s = states[0]
    return bot_below(s, 1 << 31) * (1 << 31) + bot_below(s, 1 << 31)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    xor, deals = int(argv[0]), int(argv[1])
    game = cardgym.get_game("skyjo")
    rules = game.make_rules()
    params = rules.params()
    player = pimc.Player("skyjo", rules)
    ce = game.compiled(bot=game.bot_index("expert"), obs=0)
    states = game.new_states(1)
    mask = np.zeros(game.num_actions, np.int8)
    points = 0.0
    n = 0
    for d in range(deals):
        for me in (0, 1):
            ce.reset_one(states, 0, params, d, np.empty(0, np.int8), 0, mask)
            rew = np.zeros(2)
            while states[0]["status"] == 0:
                if int(states[0]["current"]) == me:
                    a = int(worlds.bot_actions(game, rules, states, "expert")[0])  # advances the real bot_rng
                    if states[0]["phase"] != 0 and mask.sum() > 1:
                        a = player.choose(states[0], seed=int(search_seed(states)) ^ xor)
                else:
                    a = int(ce.bot_one(states, 0, params, mask, 0))
                ce.apply_one(states, 0, params, a, mask)
                rew += states[0]["reward"][:2]
            won, lost = rew[me] > 0, rew[1 - me] > 0
            points += 1.0 if (won and not lost) else (0.0 if (lost and not won) else 0.5)
            n += 1
    print(f"xor {xor}: {n} games, win rate {points / n:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
