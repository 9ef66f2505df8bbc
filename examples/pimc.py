"""A determinized search (PIMC) in plain Python over cardgym's public world-sampling calls.

    python examples/pimc.py [--game skyjo] [--rollouts 32] [--horizon 2] [--games 200]
    cardgym eval skyjo --bots examples/pimc.py:Player,expert --games 200

The player of docs/hidden_information.md, written to be read and changed: Perfect Information Monte
Carlo. For the seat to act, the candidates are the ``expert``'s action and every other legal action;
``rollouts`` worlds consistent with what the seat knows are drawn (`cardgym.core.contract.worlds.sample_worlds`:
its hidden cards dealt again from the cards it has not seen); every candidate is played in every world
(the same worlds for every candidate: common random numbers), then the game goes on with the rollout
bot for every seat for ``horizon`` turns, all candidates and worlds in two compiled calls
(`cardgym.core.contract.worlds.apply_actions`, `cardgym.core.contract.worlds.play_out`). A world is scored by the game's value (below); the expert's action
is kept unless another beats it by ``z`` standard errors of the paired differences.

With its defaults it is the algorithm of the compiled ``search`` bot (kit/search_loop.py), and
for Skyjo, handed the same seed, it makes the very same choices (tests/test_pimc.py); its cost is the
Python around a few compiled calls per decision. Information-set MCTS, belief models or another value
are changes to `Player.choose`.

Use it as an opponent (``cardgym.vector_env("skyjo", opponent=Player("skyjo"))``, any env's
``opponent=``), in ``cardgym.eval.match("skyjo", Player("skyjo"), "expert")`` or from the command line
as ``examples/pimc.py:Player``. It reads each game's record only through `sample_worlds` (what its seat
knows) and the rollouts it plays in the sampled worlds.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import cardgym
from cardgym.core.contract import worlds


# ------------------------------------------------------------------------------ the value of a rollout
def skyjo_value(starts, ends, rules, me):
    """The compiled search's Skyjo score: the smallest opposing estimate minus ``me``'s, an estimate being
    the game total plus, while the round runs, the points on the seat's grid (face-down cards at their
    value in the world)."""
    n = rules.num_players
    points = np.where(ends["up"][:, :n] != 2, ends["grid"][:, :n], 0).sum(axis=2)  # 2: a removed column
    running = (ends["status"] == 0) & (ends["round_no"] == starts["round_no"])
    est = ends["totals"][:, :n] + np.where(running[:, None], points, 0)
    others = np.delete(est, me, axis=1)
    return (others.min(axis=1) - est[:, me]).astype(np.float64)


def skipbo_value(starts, ends, rules, me):
    """The compiled search's Skip-Bo score: +-1000 for a hand won/lost by ``me``'s side (0 for a drawn
    one), otherwise the smallest opposing stock minus the smallest stock of ``me``'s side."""
    n = rules.num_players
    side = np.zeros(n, bool)
    side[me] = True
    if getattr(rules, "teams", False):
        side[(me + n // 2) % n] = True
    ended = (ends["status"] != 0) | (ends["hands"] != starts["hands"])
    win = ends["winner"]
    won = np.where(win >= 0, np.where(side[np.clip(win, 0, n - 1)], 1000.0, -1000.0), 0.0)
    stocks = ends["stock_len"][:, :n].astype(np.float64)
    diff = stocks[:, ~side].min(axis=1) - stocks[:, side].min(axis=1)
    return np.where(ended, won, diff)


#: a game's value of finished rollouts ``(records where they started, after the candidate action; end records;
#: rules; seat) -> scores``; games not
#: listed score the rewards the rollout paid ``me`` (with ``reward="win"``: who won)
VALUES = {"skyjo": skyjo_value, "skipbo": skipbo_value}
#: each game's compiled search budget (games/<game>/search.py): rollouts per candidate, horizon in turns
#: (0: to the end of the episode), rollout bot, the expert's margin z
BUDGETS = {"skyjo": (32, 2, "greedy", 2.0), "skipbo": (8, 8, "expert", 3.0)}


def confident_best(score, z):
    """Index of the chosen candidate in ``score`` (candidates x worlds; row 0 the expert's action): an
    alternative wins only if its mean gain over row 0, paired over the worlds, is at least ``z``
    standard errors; of those, the largest gain."""
    rollouts = score.shape[1]
    if rollouts < 2:
        return 0
    gain = score[1:] - score[0]
    mean = gain.mean(axis=1)
    var = gain.var(axis=1, ddof=1)
    ok = (mean > 0) & (mean * mean * rollouts > z * z * var)
    if not ok.any():
        return 0
    return 1 + int(np.argmax(np.where(ok, mean, -np.inf)))


class Player:
    """A PIMC player for one game and its rules.

    Args:
        game: a game name or `GameSpec`.
        rules: the game's ``Rules`` (``game.make_rules(**options)``); default rules if ``None``.
        rollouts, horizon, rollout_bot, z: the budget (default: the compiled search's, `BUDGETS`).
        value: ``(starts, ends, rules, seat) -> scores`` (default: `VALUES`, else the rollouts' rewards).
        seed: seeds the player's own generator (one seed per decision is drawn from it).
    """

    def __init__(self, game="skyjo", rules=None, rollouts=None, horizon=None, rollout_bot=None, z=None,
                 value=None, seed: int = 0):
        self.game = cardgym.get_game(game) if isinstance(game, str) else game
        self.rules = rules if rules is not None else self.game.make_rules()
        r, h, b, zz = BUDGETS.get(self.game.name, (32, 0, "greedy", 2.0))
        self.rollouts = r if rollouts is None else int(rollouts)
        self.horizon = h if horizon is None else int(horizon)
        self.rollout_bot = b if rollout_bot is None else rollout_bot
        self.z = zz if z is None else float(z)
        if self.rollouts < 1 or self.horizon < 0:
            raise ValueError(f"rollouts must be >= 1 and horizon >= 0, got {self.rollouts}, {self.horizon}")
        self.game.bot(self.rollout_bot)  # a clear error for an unknown bot
        self.value = value or VALUES.get(self.game.name)
        self.rng = np.random.default_rng(seed)
        self.decisions = 0
        self.seconds = 0.0

    def __repr__(self):
        return f"pimc(rollouts={self.rollouts}, horizon={self.horizon}, bot={self.rollout_bot})"

    def choose(self, record, seed=None) -> int:
        """The action for the seat to act in ``record`` (a running game). ``seed`` seeds the worlds; the
        expert's own randomness then comes from the record's bot generator, as in the compiled search.
        By default both are drawn from the player's generator."""
        game, rules = self.game, self.rules
        start = game.new_states(1)
        start[0] = record
        if seed is None:
            # the records a player is handed are copies: a bot called on one draws from a bot generator
            # that the real game never sees advance, so the next decision would draw the same numbers
            # again (the expert's random setup reveals would repeat). Give the copy our own generator.
            start[0]["bot_rng"] = int(self.rng.integers(1, 2**63))
            seed = int(self.rng.integers(0, 2**62))
        me = int(start[0]["current"])
        mask = worlds.legal_masks(game, rules, start)[0]
        first = int(worlds.bot_actions(game, rules, start, "expert")[0])  # advances start's bot generator
        if game.name == "skyjo" and int(start[0]["phase"]) == 0:
            return first  # Skyjo's setup reveals are left to the expert, as in the compiled search
        candidates = [first] + [a for a in np.flatnonzero(mask).tolist() if a != first]
        if len(candidates) == 1:
            return first
        r = self.rollouts
        sampled = worlds.sample_worlds(game, rules, start, me, seed, r, check=False)
        ends = np.tile(sampled, len(candidates))  # candidate i, world k at i * r + k
        paid = worlds.apply_actions(game, rules, ends, np.repeat(candidates, r))
        after = ends.copy()  # where each rollout starts: its value knows whether the round ended since
        paid += worlds.play_out(game, rules, ends, self.rollout_bot, self.horizon)
        if self.value is not None:
            score = self.value(after, ends, rules, me)
        else:
            score = paid[:, me]
        return candidates[confident_best(score.reshape(len(candidates), r), self.z)]

    # the policy protocols of cardgym's envs and evaluation
    def act_records(self, records, masks):
        """One action per record (what `cardgym.core.envs.episodes.EpisodeDriver` calls for a player with this
        method: eval, the envs' ``opponent=``)."""
        t = time.perf_counter()
        out = np.array([self.choose(rec) for rec in records], np.int64)
        self.seconds += time.perf_counter() - t
        self.decisions += len(records)
        return out

    def act(self, obs, masks):
        raise TypeError("the PIMC player needs the game records (act_records); it cannot act on observations")

    __call__ = act  # the envs take callables as opponents; cardgym's driver calls act_records instead


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="skyjo")
    ap.add_argument("--rollouts", type=int)
    ap.add_argument("--horizon", type=int)
    ap.add_argument("--games", type=int, default=200, help="duplicate games against the expert")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    from cardgym import eval as ev

    player = Player(args.game, rollouts=args.rollouts, horizon=args.horizon, seed=args.seed)
    t = time.perf_counter()
    r = ev.match(args.game, player, "expert", games=args.games, seed=args.seed)
    wall = time.perf_counter() - t
    lo, hi = r["ci95"]
    print(f"{player!r} vs expert, {r['games']} games: {100 * r['a_win_rate']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"
          f"; {1000 * player.seconds / max(player.decisions, 1):.2f} ms a decision "
          f"({player.decisions} decisions, {wall:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
