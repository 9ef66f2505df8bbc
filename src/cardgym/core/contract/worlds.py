"""Worlds consistent with what one seat knows: the public sampling call for imperfect-information search.

A *world* for ``seat`` is a copy of a game's state record whose hidden cards (what ``seat`` has not
seen) are dealt again, uniformly, from the cards ``seat`` has not seen, while everything ``seat`` has
seen stays where it saw it. Every game says what it hides in its ``observe.py`` (``WORLD``, a
`Hidden`; `cardgym.core.contract.game.GameSpec.world`): a compiled ``resample(t, seat, g, buf)`` that re-deals
record ``t`` in place with the game generator of the scratch record ``g``, rebuilding the pool from the
hidden cards' counts (so the result depends only on *which* cards are hidden, never on where they
were), and the record fields that hold the re-dealt cards (the tests' frequency check reads them).

The calls, all seeded (a seed replays exactly):

- `sample_worlds` ``(game, rules, record, seat, seed, count)``: ``count`` worlds drawn in turn from one
  generator seeded by ``seed``; world ``k`` is exactly the deal of rollout ``k`` of the compiled
  ``search`` bot given that seed (the loop of ``kit/search_loop.py`` calls the same kernel
  the same way). `sample_world` is the first of them.
- `sample_batch` ``(game, rules, records, seats, seeds)``: one world per record, in one compiled call
  (what the vector env's ``sample_worlds`` uses).
- `play_out` ``(game, rules, records, bot, turns, first)``: play batches of worlds on with a bot for
  every seat (after a first action each), for rollouts in one compiled call; `apply_actions`.
- `check_sample_world` ``(game, options)``: the leak and bias checks of docs/hidden_information.md,
  raising ``AssertionError``.

A sampled world's generators (``rng``, ``bot_rng``) are reseeded from the sample's generator, so a
world never carries the real game's future shuffles. See docs/hidden_information.md.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from cardgym.core.compiled.binder import load_template
from cardgym.core.state.status import RUNNING


@dataclass(frozen=True)
class Hidden:
    """What a game hides from a seat (``observe.py``'s ``WORLD``).

    - ``resample``: njit ``(t, seat, g, buf)``: re-deal in record ``t``, in place, every card ``seat`` has
      not seen, uniformly among the places those cards are in, with the game generator of record ``g``;
      ``buf`` is int8 scratch as long as the deck. It must read nothing but which cards are hidden (never
      where they were) and clear any scratch field that could hold a hidden card.
    - ``positions``: record fields whose re-dealt elements each hold one card code (grids, stocks, piles).
    - ``counts``: record fields ``(seat, code)`` whose re-dealt rows count the cards of each code a
      seat holds (hands kept as counts or 0/1 flags).
    - ``seen``: in words, what a seat sees (the docs' table).
    - ``possible``: optional Python ``(record, rules) -> bool``, for a game whose rules constrain where
      hidden cards may be (Go Fish: no hidden hand holds a complete book): whether a deal of the hidden
      cards is a world at all. ``resample`` must then deal uniformly among the possible worlds, and the
      frequency check of `check_sample_world` compares with uniform deals that ``possible`` keeps.
    """

    resample: Any
    positions: tuple = ()
    counts: tuple = ()
    seen: str = ""
    possible: Callable | None = None


# ---------------------------------------------------------------------------------------------- kernels

_TEMPLATE = Path(__file__).with_name("worlds_loop.py")


def _kernels(game, bot: str | None = None):
    """``worlds_loop.py`` bound to ``game``'s kernels (and ``bot``, for `play_out`/`bot_actions`): the
    module ``cardgym.games.<game>._worlds[_<bot>]`` (`cardgym.core.compiled.binder.load_template`)."""

    def values():
        kernel = game.bot(bot) if bot is not None else game.bots[next(iter(game.bots))]
        return {"RESAMPLE": _world(game).resample, "APPLY": game.apply, "LEGAL": game.legal, "BOT": kernel}

    return load_template(_TEMPLATE, game, "worlds", "" if bot is None else re.sub(r"\W", "_", bot), values)


# ---------------------------------------------------------------------------------------------- checks


def _world(game) -> Hidden:
    w = getattr(game, "world", None)
    if not isinstance(w, Hidden):
        raise NotImplementedError(
            f"sampling worlds is not available for {game.name}: the game declares no WORLD in its observe.py "
            "(an optional ability, a cardgym.kit.Hidden; docs/hidden_information.md)")
    return w


def _seat(rules, seat) -> int:
    n = rules.num_players
    if isinstance(seat, str) and seat.startswith("player_") and seat[7:].isdigit():
        seat = int(seat[7:])
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
        raise ValueError(f"seat must be a seat 0..{n - 1} (or its agent name 'player_k'), got {seat!r}")
    return int(seat)


def _seed(seed, what: str = "seed") -> np.uint64:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) < 2**64:
        raise ValueError(f"{what} must be an integer in 0..2**64-1, got {seed!r}")
    return np.uint64(int(seed))


def _count(count) -> int:
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or not 1 <= count <= 10_000_000:
        raise ValueError(f"count must be an integer in 1..10000000 (worlds to draw), got {count!r}")
    return int(count)


def _one(game, rules, record, check: bool) -> np.ndarray:
    """``record`` as a 1-record array of the game's states (validated if ``check``)."""
    if check:
        game.validate_record(record, rules)
    src = game.new_states(1)
    src[0] = record[()] if isinstance(record, np.ndarray) else record
    return src


def _buffers(game):
    return game.new_states(1), np.zeros(max(len(game.deck), 1), np.int8)


# ------------------------------------------------------------------------------------------- public calls


def sample_worlds(game, rules, record, seat, seed: int, count: int = 1, *, check: bool = True) -> np.ndarray:
    """``count`` worlds consistent with what ``seat`` knows in ``record`` (a 1-d array of the game's
    records), drawn in turn from one generator seeded by ``seed``: world ``k`` is the deal of rollout
    ``k`` of the compiled ``search`` bot seeded with ``seed``. ``record`` is validated first
    (`GameSpec.validate_record`) unless ``check=False`` (records the environments made)."""
    _world(game)
    seat, seed, count = _seat(rules, seat), _seed(seed), _count(count)
    src = _one(game, rules, record, check)
    dst = game.new_states(count)
    g, buf = _buffers(game)
    _kernels(game).stream(src, dst, seat, seed, g, buf)
    return dst


def sample_world(game, rules, record, seat, seed: int, *, check: bool = True):
    """One world for ``seat`` (the first of `sample_worlds`): a record of the game's dtype."""
    return sample_worlds(game, rules, record, seat, seed, 1, check=check)[0]


def sample_batch(game, rules, records: np.ndarray, seats, seeds, *, check: bool = True) -> np.ndarray:
    """One world per record, in one compiled call: ``records[i]`` re-dealt for ``seats[i]`` (an int: the
    same seat everywhere) with a generator seeded by ``seeds[i]`` (an int ``s``: ``s + i``); world ``i``
    equals ``sample_world(game, rules, records[i], seats[i], seeds[i])``."""
    _world(game)
    if check:
        game.validate_records(records, rules)
    elif not isinstance(records, np.ndarray) or records.dtype != game.state_dtype or records.ndim != 1:
        raise ValueError(f"records must be a 1-d array of {game.name} records")
    m = records.shape[0]
    if isinstance(seats, (int, np.integer)) and not isinstance(seats, bool):
        seats = [seats] * m
    seats = np.asarray([_seat(rules, int(s)) for s in np.asarray(seats).reshape(-1).tolist()], np.int64)
    if seats.shape[0] != m:
        raise ValueError(f"seats must be one seat or {m} seats, got {seats.shape[0]}")
    if isinstance(seeds, (int, np.integer)) and not isinstance(seeds, bool):
        base = int(_seed(seeds))
        seeds = [(base + i) % 2**64 for i in range(m)]
    seeds = list(np.asarray(seeds, dtype=object).reshape(-1))
    if len(seeds) != m:
        raise ValueError(f"seeds must be one seed or {m} seeds, got {len(seeds)}")
    seeds = np.asarray([_seed(s, "every seed") for s in seeds], np.uint64)
    src = game.new_states(m)
    src[:] = records
    dst = game.new_states(m)
    g, buf = _buffers(game)
    _kernels(game).each(src, dst, seats, seeds, g, buf)
    return dst


def bot_actions(game, rules, records: np.ndarray, bot: str) -> np.ndarray:
    """The action bot ``bot`` takes for the seat to act in each record (-1 where the game is over), in
    one compiled call. Bots draw from each record's ``bot_rng``, which this advances."""
    game.bot(bot)
    _check_batch(game, records)
    masks = np.zeros((records.shape[0], game.num_actions), np.int8)
    out = np.zeros(records.shape[0], np.int64)
    _kernels(game, bot).legal_bot(records, rules.params(), masks, out, True)
    return out


def legal_masks(game, rules, records: np.ndarray) -> np.ndarray:
    """The int8 legal-action mask of each record's seat to act (zeros where the game is over)."""
    _check_batch(game, records)
    masks = np.zeros((records.shape[0], game.num_actions), np.int8)
    _kernels(game).legal_bot(records, rules.params(), masks, np.zeros(records.shape[0], np.int64), False)
    return masks


def play_out(game, rules, records: np.ndarray, bot: str = "greedy", turns: int = 0, first=None) -> np.ndarray:
    """Play every record of ``records`` on, in place and in one compiled call: first the action
    ``first[i]`` (a legal action of its seat to act, or -1: none), then ``bot`` for every seat for
    ``turns`` turns (0: to the end of the episode; -1: none, see `apply_actions`). Returns every seat's
    summed rewards,
    float64 ``(len(records), num_players)``."""
    game.bot(bot)
    _check_batch(game, records)
    m = records.shape[0]
    if isinstance(turns, bool) or not isinstance(turns, (int, np.integer)) or not -1 <= turns <= 1_000_000:
        raise ValueError(f"turns must be an integer in 0..1000000 (0: to the end; -1: the first actions only), "
                         f"got {turns!r}")
    params = rules.params()
    masks = np.zeros((m, game.num_actions), np.int8)
    first = np.full(m, -1, np.int64) if first is None else np.asarray(first, np.int64).reshape(-1)
    if first.shape[0] != m:
        raise ValueError(f"first must hold one action per record ({m}), got {first.shape[0]}")
    played = first >= 0
    if played.any():  # compiled kernels do no bounds checks: every first action must be legal
        if (first >= game.num_actions).any():
            raise ValueError(f"first actions must be -1 or 0..{game.num_actions - 1}")
        legal = legal_masks(game, rules, records)
        bad = played & ((records["status"] != RUNNING) | (legal[np.arange(m), np.where(played, first, 0)] == 0))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"first[{i}]={int(first[i])} is not a legal action of record {i}")
    rewards = np.zeros((m, rules.num_players), np.float64)
    _kernels(game, bot).play_out(records, params, first, int(turns), masks, rewards)
    return rewards


def apply_actions(game, rules, records: np.ndarray, actions) -> np.ndarray:
    """Apply ``actions[i]`` (a legal action of its seat to act, or -1: none) to record ``i``, in place and
    in one compiled call; returns every seat's rewards of those actions, float64 ``(len(records),
    num_players)``."""
    return play_out(game, rules, records, first=actions, turns=-1)


def _check_batch(game, records):
    if not isinstance(records, np.ndarray) or records.dtype != game.state_dtype or records.ndim != 1:
        raise ValueError(f"records must be a 1-d array of {game.name} records (e.g. from sample_worlds)")


# ---------------------------------------------------------------------------- the environments' methods


def env_sample_world(env, seat, seed: int):
    """``raw_env.sample_world(seat, seed)``: a clone of the AEC env ``env`` whose record is a world for
    ``seat`` (the episode's bookkeeping kept; the mask recomputed for the sampled record)."""
    if not env._started:
        raise RuntimeError(f"{env.game.env_name}: sample_world() called before reset()")
    rec = sample_world(env.game, env.rules, env._states[0], seat, seed, check=False)
    other = env.clone()
    other._states[0] = rec
    other._c.legal_one(other._states, 0, other._params, other._mask)
    other._next_obs_seat = -1
    return other


def vector_sample_worlds(vec, seed, seats=None) -> np.ndarray:
    """``vec.sample_worlds(seed, seats=None)``: one world per env of the vector env ``vec`` for its
    learner's seat (or ``seats``), env ``i`` seeded ``seed + i`` (or ``seed[i]``); a new array of
    records, the env unchanged."""
    if not vec._started:
        raise RuntimeError("sample_worlds() called before reset()")
    states = vec.states
    seats = np.asarray(vec._seats, np.int64) if seats is None else seats
    return sample_batch(vec.game, vec.rules, states, seats, seed, check=False)


# -------------------------------------------------------------------------------------- the leak checks


def chi2_sf(x: float, df: int) -> float:
    """The chi-square upper tail ``P(X > x)`` with ``df`` degrees of freedom: the regularized upper
    incomplete gamma function ``Q(df/2, x/2)``, by its series below ``a + 1`` and its continued fraction
    above (Numerical Recipes, 6.2). Hand-written so the checks need no scipy (not a dependency); the test
    suite holds it against scipy where scipy is installed."""
    a, x = df / 2.0, x / 2.0
    if x <= 0:
        return 1.0
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:  # P(a, x) by its series
        term = total = 1.0 / a
        ap = a
        for _ in range(10_000):
            ap += 1
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    b = x + 1 - a  # Q(a, x) by Lentz's continued fraction
    c, d = 1e300, 1.0 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1e-300 if abs(d) < 1e-300 else d
        c = b + an / c
        c = 1e-300 if abs(c) < 1e-300 else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return math.exp(log_front) * h


def chi2_quantile(p_upper: float, df: int) -> float:
    """The ``x`` with ``chi2_sf(x, df) == p_upper`` (bisection to double precision)."""
    lo, hi = 0.0, float(df)
    while chi2_sf(hi, df) > p_upper:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if chi2_sf(mid, df) > p_upper:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def _fields_equal(a, b, skip=()) -> str | None:
    """The first field (and index) where records ``a`` and ``b`` differ, or None."""
    for name in a.dtype.names:
        if name in skip or name.startswith("_pad"):
            continue
        x, y = np.asarray(a[name]), np.asarray(b[name])
        if not np.array_equal(x, y):
            where = np.argwhere(x != y)
            return f"{name}{tuple(where[0].tolist()) if where.size else ''}"
    return None


def _observations(game, rules, rec, seat):
    """Every encoder's observation of ``seat`` in record ``rec``, and the legal mask of the seat to act."""
    states = game.new_states(1)
    states[0] = rec
    params = rules.params()
    out = {}
    for k, name in enumerate(game.flat_encoders()):
        c = game.compiled(obs=k)
        buf = np.zeros(game.encoders[name].size(rules), np.float32)
        c.observe_one(states, 0, params, seat, buf, k)
        out[name] = buf
    for name, enc in game.encoders.items():
        if name not in out:
            out[name] = enc.encode(states[0], rules, seat)
    mask = np.zeros(game.num_actions, np.int8)
    if int(states[0]["status"]) == RUNNING and int(states[0]["current"]) == seat:
        game.compiled(obs=0).legal_one(states, 0, params, mask)
    out["action_mask"] = mask
    return out


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return np.array_equal(np.asarray(a), np.asarray(b))


def _game_states(game, rules, seed: int, want: int):
    """``want`` states reached by random legal play: each seeded episode is stopped at a random step."""
    c = game.compiled(obs=0)
    params = rules.params()
    states = game.new_states(1)
    mask = np.zeros(game.num_actions, np.int8)
    rng = np.random.default_rng(seed)
    out = []
    for episode in range(100 * want):
        if len(out) == want:
            break
        c.reset_one(states, 0, params, seed * 1000 + episode, np.empty(0, np.int8), 0, mask)
        stop = int(rng.integers(0, 300))
        # an episode that ends before its stop gives one of its running states instead (games of very
        # short episodes, a hand against the house), picked by a generator of its own so that the
        # episodes that do reach their stop are the same as without it
        running = []
        for _ in range(stop):
            if int(states[0]["status"]) != RUNNING:
                break
            running.append(states[0].copy())
            c.apply_one(states, 0, params, int(rng.choice(np.flatnonzero(mask))), mask)
        if int(states[0]["status"]) == RUNNING:
            out.append(states[0].copy())
        elif running:
            out.append(running[int(np.random.default_rng((seed, episode)).integers(len(running)))])
    return out


# ---------------------------------------------------------------- the checks' own re-deal (not the WORLD's)


@dataclass(frozen=True)
class Places:
    """The places of one record that hold a card, in the fields a game's ``WORLD`` declares, split by
    what one seat sees (`hidden_places`). ``hidden``/``visible``: ``(field, index)`` elements of
    ``WORLD.positions`` fields; ``hidden_rows``/``visible_rows``: ``(field, seat row)`` rows of
    ``WORLD.counts`` fields (a hand kept as counts by code)."""

    hidden: tuple
    visible: tuple
    hidden_rows: tuple
    visible_rows: tuple

    def cards(self, record) -> np.ndarray:
        """The unseen cards: the codes at the hidden places, each hidden row's cards once per count."""
        out = [int(record[f].reshape(-1)[e]) for f, e in self.hidden]
        for f, j in self.hidden_rows:
            row = np.asarray(record[f][j], np.int64)
            out += np.repeat(np.arange(row.shape[0]), np.maximum(row, 0)).tolist()
        return np.asarray(out, np.int64)

    def describe(self) -> str:
        def name(f, e):
            return f"{f}[{e}]"

        return ", ".join([name(*p) for p in self.hidden] + [f"{f} row {j}" for f, j in self.hidden_rows])


def _probe_codes(deck: np.ndarray, code: int) -> list:
    """Two card codes of the deck other than ``code`` (its smallest and largest), to put in its place."""
    others = deck[deck != code]
    return sorted({int(others[0]), int(others[-1])}) if others.size else []


def _flat_views(game, rules, states, i: int, seat: int, bufs, mask) -> bytes:
    """What ``seat`` observes of record ``states[i]`` through every encoder (flat and dict), and its legal
    mask when it acts: bytes, for comparison."""
    params = rules.params()
    parts = []
    for k, buf in enumerate(bufs):
        buf[:] = 0
        game.compiled(obs=k).observe_one(states, i, params, seat, buf, k)
        parts.append(buf.tobytes())
    mask[:] = 0
    if int(states[i]["status"]) == RUNNING and int(states[i]["current"]) == seat:
        game.compiled(obs=0).legal_one(states, i, params, mask)
    parts.append(mask.tobytes())
    for name, enc in game.encoders.items():
        if name not in game.flat_encoders():
            obs = enc.encode(states[i], rules, seat)
            items = sorted(obs.items()) if isinstance(obs, dict) else [("", obs)]
            parts += [np.asarray(v).tobytes() for _, v in items]
    return b"|".join(parts)


def card_places(game, rules, record):
    """The elements of the declared fields that hold a card of the record: changing one changes the
    record's cards (``cards_of``). ``(positions, rows)``; None without ``cards_of``.

    Counted in groups: every element of a group is set to one code ``t`` it does not hold, and the
    growth of ``t``'s count in ``cards_of`` is the number of the group's elements that hold a card; a
    group of all or none is settled, another is halved (a pile's cards fill a prefix of its field)."""
    w = _world(game)
    if game.cards_of is None:
        return None
    deck = np.unique(game.deck.astype(np.int64))
    if deck.size < 2:
        return [], []
    probe = game.new_states(1)

    def count(rec, t) -> int:
        return int((np.asarray(game.cards_of(rec, rules), np.int64) == t).sum())

    pos, rows = [], []

    def split(group, t, before) -> None:
        probe[0] = record
        for f, e in group:
            probe[0][f].reshape(-1)[e] = t
        held = count(probe[0], t) - before
        if held == len(group):
            pos.extend(group)
        elif held > 0:
            half = len(group) // 2
            split(group[:half], t, before)
            split(group[half:], t, before)

    z, z2 = int(deck[0]), int(deck[-1])
    before = {z: count(record, z), z2: count(record, z2)}
    for f in w.positions:
        flat = np.asarray(record[f]).reshape(-1)
        elements = [(f, e) for e in range(flat.shape[0])]
        for t, group in ((z, [x for x in elements if flat[x[1]] != z]), (z2, [x for x in elements if flat[x[1]] == z])):
            if group:
                split(group, t, before[t])
    pos.sort(key=lambda x: (w.positions.index(x[0]), x[1]))
    for f in w.counts:
        field = np.asarray(record[f])
        for j in range(min(field.shape[0], rules.num_players)):
            if field[j].sum() > 0:
                rows.append((f, j))
    return pos, rows


def hidden_places(game, rules, record, seat: int, live=None) -> Places | None:
    """Which places of ``record`` hold a card that ``seat`` has not seen, found without the game's
    ``WORLD.resample``: among the declared fields' elements that hold a card (``live``, `card_places`:
    changing one changes ``cards_of``), those whose card, replaced by another code, changes nothing the
    seat observes (every encoder, and its legal mask when it acts) are hidden; the rest it sees (so a
    card a seat sees must reach an encoder from its place: a copy of it kept in another field does not
    make the place seen). The places are probed in groups, halved while a group changes what the seat
    observes (few places are seen); a counts row is probed by moving one of its cards to another code.
    None when the game has no ``cards_of`` (what holds a card is then unknown)."""
    live = card_places(game, rules, record) if live is None else live
    if live is None:
        return None
    pos, rows = live
    deck = np.unique(game.deck.astype(np.int64))
    states = game.new_states(2)
    states[0] = record
    bufs = [np.zeros(game.encoders[name].size(rules), np.float32) for name in game.flat_encoders()]
    mask = np.zeros(game.num_actions, np.int8)
    base = _flat_views(game, rules, states, 0, seat, bufs, mask)
    hidden, visible, hidden_rows, visible_rows = [], [], [], []

    alts = {(f, e): _probe_codes(deck, int(np.asarray(record[f]).reshape(-1)[e])) for f, e in pos}
    views = {f: states[1][f].reshape(-1) for f in dict.fromkeys(f for f, _ in pos)}  # views into the probe record

    def unseen(group) -> bool:  # every card of the group replaced at once (by its first, then its second probe code)
        for which in (0, -1):
            states[1] = record
            for p in group:
                views[p[0]][p[1]] = alts[p][which]
            if _flat_views(game, rules, states, 1, seat, bufs, mask) != base:
                return False
        return True

    def split(group) -> None:  # group testing: the seen places are few, the hidden ones many
        if unseen(group):
            hidden.extend(group)
        elif len(group) == 1:
            visible.extend(group)
        else:
            split(group[: len(group) // 2])
            split(group[len(group) // 2:])

    for f in dict.fromkeys(f for f, _ in pos):
        split([p for p in pos if p[0] == f])
    for f, j in rows:
        row = np.asarray(record[f][j])
        have = int(np.flatnonzero(row > 0)[0])
        seen = False
        for alt in _probe_codes(deck[(deck >= 0) & (deck < row.shape[0])], have):
            states[1] = record
            states[1][f][j][have] -= 1
            states[1][f][j][alt] += 1
            if _flat_views(game, rules, states, 1, seat, bufs, mask) != base:
                seen = True
                break
        (visible_rows if seen else hidden_rows).append((f, j))
    return Places(tuple(hidden), tuple(visible), tuple(hidden_rows), tuple(visible_rows))


def honest_redeal(record, places: Places, rng) -> np.ndarray:
    """A copy of ``record`` whose unseen cards (`Places.cards`) are dealt again, uniformly, over the hidden
    places and rows (a row gets as many cards as it held): the checks' own re-deal, independent of the
    game's ``WORLD``. ``rng``: a ``numpy.random.Generator``."""
    out = np.zeros(1, record.dtype)
    out[0] = record
    t = out[0]
    deal = rng.permutation(places.cards(record))
    for i, (f, e) in enumerate(places.hidden):
        t[f].reshape(-1)[e] = deal[i]
    at = len(places.hidden)
    for f, j in places.hidden_rows:
        size = int(np.asarray(record[f][j]).sum())
        t[f][j] = np.bincount(deal[at: at + size], minlength=t[f].shape[1])[: t[f].shape[1]]
        at += size
    return out[0]


def check_redeals_every_hidden_place(record, seat: int, places: Places, worlds, where: str) -> None:
    """Raise ``AssertionError`` unless the worlds (records the game's ``WORLD`` dealt for ``seat``) move
    the card of every hidden place that the unseen cards allow to change: a place is held to it when no
    code makes up more than 3/4 of the unseen cards (then ``len(worlds)`` >= 48 uniform deals leave it
    unchanged with probability below 1e-6)."""
    cards = places.cards(record)
    if cards.size < 2:
        return
    share = np.bincount(cards - cards.min()).max() / cards.size
    if share > 0.75:
        return
    for f, e in places.hidden:
        real = int(np.asarray(record[f]).reshape(-1)[e])
        got = worlds[f].reshape(worlds.shape[0], -1)[:, e]
        assert (got != real).any(), (
            f"{where}: WORLD does not re-deal {f}[{e}], a card seat {seat} has not seen (its observations do "
            f"not change with it): it holds {real} in all {worlds.shape[0]} worlds")
    for f, j in places.hidden_rows:
        real = np.asarray(record[f][j])
        got = worlds[f][:, j]
        assert (got != real).any(), (
            f"{where}: WORLD does not re-deal {f} row {j}, cards seat {seat} has not seen: the row is the same "
            f"in all {worlds.shape[0]} worlds")


def _hidden_elements(game, samples, w: Hidden):
    """``(positions, rows)``: the elements of ``w.positions`` fields that change across ``samples``
    ((field, index) pairs) and the rows of ``w.counts`` fields that do ((field, seat))."""
    pos, rows = [], []
    for f in w.positions:
        vals = samples[f].reshape(samples.shape[0], -1)
        for e in np.flatnonzero((vals != vals[:1]).any(axis=0)).tolist():
            pos.append((f, e))
    for f in w.counts:
        vals = samples[f]
        for j in range(vals.shape[1]):
            if (vals[:, j] != vals[:1, j]).any():
                rows.append((f, j))
    return pos, rows


def _chi2(observed: np.ndarray, expected: np.ndarray) -> tuple:
    """Pearson's statistic and its degrees of freedom, categories expecting under 5 pooled into one."""
    small = expected < 5
    o = np.append(observed[~small], observed[small].sum())
    e = np.append(expected[~small], expected[small].sum())
    keep = e > 0
    o, e = o[keep], e[keep]
    return float(((o - e) ** 2 / e).sum()), int(len(e) - 1)


_BINS = 512  # card codes -128..383 (int8 codes, and count columns up to 383)


def _chi2_two(a: np.ndarray, b: np.ndarray) -> tuple:
    """Pearson's statistic of homogeneity of two count vectors over the same categories (a 2 x K table)
    and its degrees of freedom; categories expecting under 5 in either row pooled into one."""
    a, b = a.astype(float), b.astype(float)
    col = a + b
    ea, eb = col * a.sum() / col.sum(), col * b.sum() / col.sum()
    small = (ea < 5) | (eb < 5)
    rows = []
    for o, e in ((a, ea), (b, eb)):
        rows.append((np.append(o[~small], o[small].sum()), np.append(e[~small], e[small].sum())))
    keep = (rows[0][1] > 0) & (rows[1][1] > 0)
    stat = sum((((o[keep] - e[keep]) ** 2) / e[keep]).sum() for o, e in rows)
    return float(stat), int(keep.sum() - 1)


def _possible_tests(rules, real, worlds, ref, pos, rows, possible, where: str, seed: int) -> list:
    """The frequency tests of `check_sample_world` for a game whose ``WORLD.possible`` constrains the
    deal: the unseen cards dealt uniformly over the same places in Python, the deals ``possible`` refuses
    dropped (rejection: so the deals kept are uniform over the possible worlds), and each re-dealt place
    (and hand's code counts) of ``worlds`` compared with those deals by a two-sample chi-square."""
    samples = worlds.shape[0]
    cards = [int(ref[f].reshape(ref.shape[0], -1)[0, e]) for f, e in pos]
    sizes = []
    for f, j in rows:
        row = ref[f][0, j].astype(np.int64)
        cards += np.repeat(np.arange(row.shape[0]), row).tolist()
        sizes.append(int(row.sum()))
    cards = np.asarray(cards, np.int64)
    rng = np.random.default_rng(seed)
    want, kept, tries = 4 * samples, [], 0
    rec = np.zeros(1, real.dtype)
    while len(kept) < want:
        tries += 1
        if tries > 200 * want:
            raise AssertionError(f"{where}: WORLD.possible accepts {len(kept)} of {tries} uniform deals of the "
                                 "unseen cards: too few to check the worlds' frequencies")
        deal = rng.permutation(cards)
        rec[0] = real
        t = rec[0]
        for i, (f, e) in enumerate(pos):
            t[f].reshape(-1)[e] = deal[i]
        at = len(pos)
        for (f, j), size in zip(rows, sizes):
            t[f][j] = np.bincount(deal[at: at + size], minlength=t[f].shape[1])[: t[f].shape[1]]
            at += size
        if possible(t, rules):
            kept.append(rec.copy())
    deals = np.concatenate(kept)
    tests = []
    for f, e in pos:
        a = np.bincount(worlds[f].reshape(samples, -1)[:, e].astype(np.int64) + 128, minlength=_BINS)
        b = np.bincount(deals[f].reshape(want, -1)[:, e].astype(np.int64) + 128, minlength=_BINS)
        stat, df = _chi2_two(a, b)
        tests.append((f"{where}: {f}{e} (possible worlds)", stat, df))
    for f, j in rows:
        a = worlds[f][:, j].astype(np.int64).sum(axis=0)
        b = deals[f][:, j].astype(np.int64).sum(axis=0)
        stat, df = _chi2_two(a, b)
        tests.append((f"{where}: {f}[{j}] counts (possible worlds)", stat, df))
    return tests


def check_sample_world(game, options: dict | None = None, *, states: int = 4, samples: int = 600,
                       seed: int = 0, sampler: Callable | None = None, alpha: float = 1e-3) -> dict:
    """Raise ``AssertionError`` unless the game's worlds keep what each seat knows and nothing more.

    On ``states`` states reached by seeded random play, for every seat (``sampler(game, rules, record,
    seat, seed, count) -> records`` is the call under test, `sample_worlds` by default):

    1. the seat's observation under every encoder, and the legal mask when it acts, are the same in a
       world as in the real game;
    2. a world passes the game's invariants (`GameSpec.validate_record`) and holds every card of the deck
       (``cards_of``);
    3. two real games that look the same to the seat (the real one and a world of it, whose hidden cards
       differ) give the same world for the same seed, field for field: a world depends only on what the
       seat knows;
    4. over ``samples`` worlds drawn from one seed, every hidden place holds the cards of the unseen
       multiset with their frequencies: Pearson's chi-square at each re-dealt position (and for each
       re-dealt hand's code counts) below the ``1 - alpha / tests`` quantile (Bonferroni over the tests
       of the call; `chi2_quantile`). The hidden places are found by the check, not by the game's
       ``resample`` (`hidden_places`: the places of ``WORLD.positions``/``WORLD.counts`` that hold a card
       the seat does not observe), so a re-deal that leaves one of them alone fails; only a game without
       ``cards_of`` is tested over the places its own ``resample`` changes.
       When the game's ``WORLD.possible`` constrains the deal, the frequencies expected are those of
       uniform deals that ``possible`` keeps (a two-sample test against them), not of the unseen cards.

    ``game`` is a `GameSpec` or a registered game's name; ``options`` its rule options. Returns
    ``{"states", "seats", "tests", "min_p"}``: what was checked and the smallest chi-square p-value.
    """
    if isinstance(game, str):
        import sys

        game = sys.modules["cardgym"].get_game(game)  # the package is loaded before any of its modules
    rules = game.make_rules(**(options or {}))
    w = _world(game)
    check = game.check_state is not None  # the records are the game's own: checked when the game can
    sampler = sampler or (lambda g, r, rec, seat, sd, count: sample_worlds(g, r, rec, seat, sd, count, check=check))
    deck = np.sort(game.deck.astype(np.int64))
    n = rules.num_players
    label = f"{game.name} {options or {}}"
    tests = []  # (label, statistic, df)
    reals = _game_states(game, rules, seed, states)
    assert len(reals) == states, f"{label}: random play reached only {len(reals)} running states"
    for k, real in enumerate(reals):
        for seat in range(n):
            where = f"{label} state {k} seat {seat}"
            base = _observations(game, rules, real, seat)
            worlds = sampler(game, rules, real, seat, seed + 7919 * k + seat, samples)
            _check_worlds_look_the_same(game, rules, seat, base, worlds, min(samples, 8), deck, where)
            _check_worlds_ignore_the_hidden(game, rules, real, seat, sampler,
                                            10**9 + 31 * k + seat, check, where)
            tests += _frequency_tests(game, rules, real, seat, worlds, samples, w,
                                      (seed + 1, seed + 13 * k + seat), check, where)
    tests = [t for t in tests if t[2] >= 1]
    min_p = _check_frequencies(tests, samples, alpha)
    return {"states": len(reals), "seats": n, "tests": len(tests), "min_p": min_p}


def _check_worlds_look_the_same(game, rules, seat: int, base: dict, worlds, count: int, deck, where: str) -> None:
    """Checks 1 and 2 of `check_sample_world` on the first ``count`` worlds: each gives ``seat`` the
    observations ``base`` of the real game (and the same legal mask), passes the game's invariants and holds
    every card of ``deck``."""
    for i in range(count):
        got = _observations(game, rules, worlds[i], seat)
        for name in base:
            assert _same(base[name], got[name]), f"{where}: the {name!r} observation differs in world {i}"
        try:
            if game.check_state is not None:  # invariants are optional (then nothing to check)
                game.validate_record(worlds[i], rules)
        except ValueError as exc:
            raise AssertionError(f"{where}: world {i} is not a valid state: {exc}") from None
        if game.cards_of is not None:
            cards = np.sort(np.asarray(game.cards_of(worlds[i], rules), np.int64))
            assert np.array_equal(cards, deck), f"{where}: world {i} does not hold the deck's cards"


def _check_worlds_ignore_the_hidden(game, rules, real, seat: int, sampler, other_seed: int, check: bool,
                                    where: str) -> None:
    """Check 3 of `check_sample_world`: another real game the seat cannot tell apart (a world of ``real``
    drawn from ``other_seed``: its hidden cards dealt otherwise) gives the same worlds, seed for seed."""
    other = sample_world(game, rules, real, seat, other_seed, check=check)
    for sd in (1, 2, 3):
        a = sampler(game, rules, real, seat, sd, 1)[0]
        b = sampler(game, rules, other, seat, sd, 1)[0]
        diff = _fields_equal(a, b)
        assert diff is None, (
            f"{where}: two games that look the same to the seat give different worlds for seed {sd} "
            f"(field {diff}): the world depends on the true hidden cards")


def _frequency_tests(game, rules, real, seat: int, worlds, samples: int, w: Hidden, seeds: tuple, check: bool,
                     where: str) -> list:
    """The chi-square tests of check 4 of `check_sample_world`, ``[(label, statistic, df)]``: over every
    place that holds a card ``seat`` has not seen, found by the check itself (`hidden_places`), not by what
    the game's re-deal happens to change (a game without ``cards_of``: the places its own re-deal changes,
    in worlds drawn from ``seeds[0]``), the frequencies of the cards in ``worlds`` against the unseen
    multiset's; against uniform deals among the possible worlds (drawn from ``seeds[1]``) when
    ``WORLD.possible`` constrains the deal."""
    places = hidden_places(game, rules, real, seat)
    if places is not None:
        ref = real[None]
        pos, rows = list(places.hidden), list(places.hidden_rows)
    else:
        ref = sample_worlds(game, rules, real, seat, seeds[0], samples, check=check)
        pos, rows = _hidden_elements(game, ref, w)
    if not pos and not rows:
        return []
    # the unseen multiset by code (bin = code + 128: a card code may be negative, e.g. a card worth -2)
    pool = np.zeros(_BINS, np.int64)
    for f, e in pos:
        pool[int(ref[f].reshape(ref.shape[0], -1)[0, e]) + 128] += 1
    for f, j in rows:
        pool[128: 128 + ref[f].shape[2]] += ref[f][0, j].astype(np.int64)
    total = pool.sum()
    if w.possible is not None:  # constrained rules: compare with uniform deals among possible worlds
        return _possible_tests(rules, real, worlds, ref, pos, rows, w.possible, where, seeds[1])
    tests = []
    for f, e in pos:
        obs = np.bincount(worlds[f].reshape(samples, -1)[:, e].astype(np.int64) + 128, minlength=_BINS)
        stat, df = _chi2(obs[:_BINS].astype(float), samples * pool / total)
        tests.append((f"{where}: {f}{e}", stat, df))
    for f, j in rows:
        got = worlds[f][:, j].astype(np.int64).sum(axis=0)
        size = int(ref[f][0, j].sum())
        stat, df = _chi2(got.astype(float), samples * size * pool[128: 128 + got.shape[0]] / total)
        tests.append((f"{where}: {f}[{j}] counts", stat, df))
    return tests


def _check_frequencies(tests: list, samples: int, alpha: float) -> float:
    """Every test's statistic below the ``1 - alpha / len(tests)`` chi-square quantile (Bonferroni over the
    tests); returns the smallest p-value (1.0 with no test)."""
    min_p = 1.0
    for name, stat, df in tests:
        limit = chi2_quantile(alpha / len(tests), df)
        assert stat <= limit, (
            f"{name}: the cards' frequencies over {samples} worlds are not those of the unseen cards "
            f"(chi-square {stat:.1f} > {limit:.1f}, df {df}, alpha {alpha} over {len(tests)} tests)")
        min_p = min(min_p, chi2_sf(stat, df))
    return min_p
