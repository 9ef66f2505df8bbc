"""Issue 42.8: the 16-bit counters of the state records never wrap at any allowed option. Each counter's
options are bounded by what its field holds, with a clear error beyond; games played at the largest
allowed options end with the counter in range and a record that passes the game's own checks (so the env
can still be copied and saved); a loaded state at the top of the counter's accepted range plays on
without wrapping. The bounds (docs/skyjo.md, docs/skipbo.md, docs/skipbo_junior.md):

- Skyjo's ``round_no``: ``max_rounds`` and ``max_turns`` at most 32,767 (a round takes a turn or more);
- Skip-Bo's ``hands``: ``max_turns`` at most 32,767 when ``match_target`` is set (a hand takes a turn);
- Skip-Bo Junior's ``recycles``: ``max_turns`` at most 10,921 (a turn draws three cards, each at most
  one recycle), and a loaded state holds at most three recycles per turn played.
"""

from __future__ import annotations

import numpy as np
import pytest

import cardgym
from cardgym.core.state.status import RUNNING

INT16_MAX = int(np.iinfo(np.int16).max)


@pytest.mark.parametrize("game, options, option", [
    ("skyjo", {"max_rounds": INT16_MAX + 1}, "max_rounds"),
    ("skyjo", {"max_turns": INT16_MAX + 1}, "max_turns"),
    ("skipbo", {"match_target": 500, "max_turns": INT16_MAX + 1}, "max_turns"),
    ("skipbo_junior", {"max_turns": 10_922}, "max_turns"),
])
def test_options_beyond_what_the_counter_holds_are_refused(game, options, option):
    with pytest.raises(ValueError, match=rf"option {option}=\d+ is out of range.*allowed: 1\.\."):
        cardgym.get_game(game).make_rules(num_players=2, **options)


def _play_out(game, rules, record=None, seed=0):
    """Play one game (from ``record`` when given) to its end with random legal moves, kernel by kernel;
    the final record."""
    p = rules.params()
    st = game.new_states(1)
    if record is None:
        game.reset(st[0], p, seed, np.zeros(0, np.int8), 0)
    else:
        st[0] = record
    mask = np.zeros(game.num_actions, np.int8)
    rng = np.random.default_rng(seed)
    while st[0]["status"] == RUNNING:
        game.legal(st[0], p, mask)
        game.apply(st[0], p, int(rng.choice(np.flatnonzero(mask))))
    return st[0]


@pytest.mark.slow
@pytest.mark.parametrize("game, options, field", [
    ("skyjo", {"max_rounds": INT16_MAX, "max_turns": INT16_MAX, "stall_rounds": None}, "round_no"),
    ("skyjo", {"end_score": 1_000_000, "max_turns": INT16_MAX, "stall_rounds": None}, "round_no"),
    ("skipbo", {"match_target": 1_000_000, "max_turns": INT16_MAX, "stock_size": 1, "stall_rounds": None}, "hands"),
    ("skipbo_junior", {"max_turns": 10_921, "stock_size": 40, "recycle_build_piles": True}, "recycles"),
])
def test_games_at_the_largest_allowed_options_keep_their_counters(game, options, field):
    """Whole games with the bots, compiled, at the largest options: the counter ends in range and the
    final record passes the game's checks."""
    from cardgym.eval.batch import play

    spec = cardgym.get_game(game)
    rules = spec.make_rules(num_players=2, **options)
    _, status, turns, finals = play(spec, rules, np.arange(2, dtype=np.int64), [["greedy", "random"]] * 2,
                                    records=True)
    for rec in finals:
        assert 0 <= int(rec[field]) <= INT16_MAX, (field, int(rec[field]))
        spec.validate_record(rec, rules)  # the env's own checks: it can still be copied and saved
    assert max(int(r[field]) for r in finals) > 0


@pytest.mark.slow
def test_junior_recycles_from_the_top_of_the_accepted_range_do_not_wrap():
    """A loaded state with as many recycles as it may hold plays on to the turn cap without wrapping;
    one recycle more than three per turn played is refused on load."""
    spec = cardgym.get_game("skipbo_junior")
    rules = spec.make_rules(num_players=2, max_turns=10_921, stock_size=40, recycle_build_piles=True)
    p = rules.params()
    st = spec.new_states(1)
    spec.reset(st[0], p, 1, np.zeros(0, np.int8), 0)
    mask = np.zeros(spec.num_actions, np.int8)
    rng = np.random.default_rng(1)
    while int(st[0]["turn"]) < 40:  # a few turns in, still running
        spec.legal(st[0], p, mask)
        spec.apply(st[0], p, int(rng.choice(np.flatnonzero(mask))))
    assert st[0]["status"] == RUNNING
    top = 3 * (int(st[0]["turn"]) + 1)
    st[0]["recycles"] = top + 1
    with pytest.raises(ValueError, match="recycles"):
        spec.validate_record(st[0], rules)
    st[0]["recycles"] = top
    spec.validate_record(st[0], rules)
    end = _play_out(spec, rules, st[0], seed=2)
    assert top <= int(end["recycles"]) <= INT16_MAX
    spec.validate_record(end, rules)
