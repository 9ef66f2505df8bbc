"""Monte Carlo rollout search for Skip-Bo Junior (compiled): the player of the ceiling study
(``studies/skipbo_junior_ceiling.py``, ``docs/results.md``) and, at the end of this module, the
registered bot ``search`` (`bot_search`, docs/bots.md).

For every distinct legal play, the search copies the game, applies the play and plays the game out
``rollouts`` times: the searching seat with ``greedy`` (or ``expert``), the others with ``random``, the
model of the opponent it is measured against. It picks the play that won most often. Every play is
tried on the same copies (common random numbers). With ``fair`` set, before each rollout the cards
nobody sees (the draw pile and every stock under its top) are reshuffled among their places and the
game generators are reseeded, so the search uses only what its seat sees; without it the rollouts keep
the true deck (an "oracle" that knows every hidden card, a bound on what knowing the cards is worth).

Records are cloned by copying rows of their byte view: ``play_vs_random`` takes ``recs`` (one row of
4 records per game: the game, two scratch records and the search's own generator in ``rng``) and
``raw``, the ``uint8`` view of ``recs``.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ...kit import bind_search, budget_bot, next_seed, pick_legal, seed_record, shuffle
from .observe import _deal_back, resample_seen
from .bots import bot_greedy
from .expert import bot_expert
from .kernels import apply, legal, reset
from .rules import NUM_ACTIONS, STATE_DTYPE

#: who plays the measured seat in ``play_vs_random``
MC, EXPERT, GREEDY = 0, 1, 2



@njit(cache=True)
def _resample(s, g, buf):
    """Reshuffle what nobody sees in record ``s`` (the draw pile and every stock under its top) with
    the game generator of record ``g``."""
    m = 0
    for i in range(s.draw_len):
        buf[m] = s.draw[i]
        m += 1
    for j in range(s.num_players):
        for i in range(s.stock_len[j] - 1):
            buf[m] = s.stock[j, i]
            m += 1
    shuffle(g, buf, m)
    _deal_back(s, buf)


@njit(cache=True)
def _playout(s, p, me, mask, strong):
    """Play to the end: ``me`` with greedy (``strong``: expert), the others random. 1 if ``me`` wins."""
    while s.status == 0:
        legal(s, p, mask)
        if s.current == me:
            a = bot_expert(s, p, mask) if strong else bot_greedy(s, p, mask)
        else:
            a = pick_legal(s, mask)  # the random bot
        apply(s, p, a)
    return 1 if s.winner == me else 0


@njit(cache=True)
def mc_choice(recs, raw, p, mask, rollouts, fair, strong, buf):
    """Best play for the seat to act in record ``recs[0]``; ``recs[1]``, ``recs[2]`` are scratch,
    ``recs[3]`` holds the search's own generator (its game generator ``rng``) and ``raw`` is the byte view of
    ``recs`` (row copies clone a game)."""
    st = recs[0]
    seat = st.current
    legal(st, p, mask)
    acts = np.empty(NUM_ACTIONS, np.int64)
    na = 0
    seen_src = np.zeros(64, np.int8)
    for a in range(NUM_ACTIONS):
        if mask[a]:
            # plays of the same card onto piles of equal height are the same play
            src = a >> 2
            h = st.heights[a & 3] if a < 16 else 15
            key = src * 16 + h
            if seen_src[key] == 0:
                seen_src[key] = 1
                acts[na] = a
                na += 1
    if na == 1:
        return acts[0]
    best = acts[0]
    best_w = -1
    m2 = np.zeros(NUM_ACTIONS, np.int8)
    wins = np.zeros(na, np.int64)
    for r in range(rollouts):
        # one determinisation per rollout index, shared by every action (common random numbers)
        raw[1, :] = raw[0, :]
        base = recs[1]
        if fair:
            _resample(base, recs[3], buf)
        # fresh generators: future reshuffles and the opponent's choices are not known in advance
        seed_record(base, next_seed(recs[3]))
        for i in range(na):
            raw[2, :] = raw[1, :]
            t = recs[2]
            apply(t, p, acts[i])
            wins[i] += _playout(t, p, seat, m2, strong)
    for i in range(na):
        if wins[i] > best_w:
            best_w = wins[i]
            best = acts[i]
    return best


@njit(cache=True, parallel=True)
def play_vs_random(p, seeds, mc_seat, player, rollouts, fair, strong, recs, raw):
    """Play one game per seed: ``player`` (``MC``, ``EXPERT`` or ``GREEDY``) at ``mc_seat`` against random.
    Returns 1 (win), 0 (loss) or -1 (draw/truncated) per game and the decisions taken by the player."""
    n = seeds.shape[0]
    out = np.zeros(n, np.int64)
    dec = np.zeros(n, np.int64)
    for g in prange(n):
        s = recs[g, 0]
        mask = np.zeros(NUM_ACTIONS, np.int8)
        buf = np.zeros(128, np.int8)
        reset(s, p, seeds[g], np.zeros(1, np.int8), 0)
        seed_record(recs[g, 3], seeds[g] + 7_777_777_777)
        while s.status == 0:
            legal(s, p, mask)
            if s.current == mc_seat:
                dec[g] += 1
                if player == MC:
                    a = mc_choice(recs[g], raw[g], p, mask, rollouts, fair, strong, buf)
                elif player == EXPERT:
                    a = bot_expert(s, p, mask)
                else:
                    a = bot_greedy(s, p, mask)
            else:
                a = pick_legal(s, mask)  # the random bot
            apply(s, p, a)
        if s.winner == mc_seat:
            out[g] = 1
        elif s.winner >= 0:
            out[g] = 0
        else:
            out[g] = -1
    return out, dec



def games_vs_random(rules, seeds, seat: int, player: int, rollouts: int = 0, fair: bool = True,
                    rollout_bot: str = "greedy"):
    """Play one game per seed (``rules``: a ``JuniorRules``) with ``player`` (``MC``, ``EXPERT`` or
    ``GREEDY``) in ``seat`` against ``random``. Returns ``(outcome, decisions)`` per game: 1 win,
    0 loss, -1 draw or truncation; and the decisions the player took."""
    if rollout_bot not in ("greedy", "expert"):
        raise ValueError(f"rollout_bot must be 'greedy' or 'expert', got {rollout_bot!r}")
    if player == MC and rollouts < 1:
        raise ValueError(f"the search needs rollouts >= 1, got {rollouts!r}")
    seeds = np.asarray(seeds, np.int64)
    recs = np.zeros((len(seeds), 4), STATE_DTYPE)
    raw = recs.view(np.uint8).reshape(len(seeds), 4, STATE_DTYPE.itemsize)
    return play_vs_random(rules.params(), seeds, int(seat), int(player), int(rollouts), bool(fair),
                          rollout_bot == "expert", recs, raw)


# -- the registered bot ``search`` ---------------------------------------------------------------
# For every distinct legal play, ``ROLLOUTS`` copies of the game are dealt again from what the seat to
# act sees (the draw pile and every stock under its top, pooled by counts and reshuffled with a
# generator seeded from the record's ``bot_rng``), the play is applied and the game is played to its
# end by greedy for every seat, on the same deals for every play (common random numbers). The expert's
# play is kept unless another wins more often by at least ``Z`` standard errors of the paired
# difference. The record's game generator ``rng`` is never used. See docs/bots.md.

#: default budget of the registered ``search`` bot: rollouts per distinct legal play
ROLLOUTS = 128
ROLLOUT_BOT = "greedy"  # the rollout player: "greedy" (the expert costs ~40x more) or "expert"
_DECK = 200  # larger than any pool of hidden cards
#: the search overrules the expert's choice only when its mean gain over it (paired over the same
#: deals) is at least Z standard errors: small budgets play like the expert, not like noise
Z = 2.0


@njit(cache=True)
def _value(t, p, me, ended):
    """A rollout is played to the end of the game: 1 won, 0.5 drawn, 0 lost."""
    if t.winner == me:
        return 1.0
    if t.winner < 0:
        return 0.5
    return 0.0


@njit(cache=True)
def _distinct(s, p, a):
    """Plays of the same card onto piles of equal height are the same play."""
    h = s.heights[a & 3] if a < 16 else 15
    return (a >> 2) * 16 + h


#: ``search(s, p, mask, rollouts, horizon, player)`` and the registered ``bot_search(s, p, mask)``: the
#: rollout loop bound to Skip-Bo Junior's parts
#: (``horizon`` 0: every rollout is played to the end of the game)
search, bot_search = bind_search(
    __name__, dtype=STATE_DTYPE, apply=apply, legal=legal, expert=bot_expert, greedy=bot_greedy,
    resample=resample_seen, value=_value, distinct=_distinct, num_keys=256, num_actions=NUM_ACTIONS,
    pool=_DECK, z=Z,
    rollouts=ROLLOUTS, horizon=0, rollout_bot=ROLLOUT_BOT,
)


def make_search_bot(rollouts: int = ROLLOUTS, rollout_bot: str = ROLLOUT_BOT):
    """A ``search`` bot with another budget: ``rollouts`` per distinct legal play (0: the expert's
    choice), played to the end of the game by ``rollout_bot`` (``"greedy"`` or ``"expert"``). The result
    is an njit ``bot(s, p, mask) -> action`` like the registered bots (compiled on its first call, not
    cached on disk); to play it in the environments, put it in a copy of the game's spec:
    ``cardgym.core.contract.game.replace(GAME, bots={**GAME.bots, "search": bot})``."""
    return budget_bot(search, rollouts, 0, rollout_bot)


BOTS = {"search": bot_search}
