"""The checks of `cardgym.testing.check_game`, one function each, in the order they run."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib
import io
import json
import math
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np


class Skip(Exception):
    """Raised by a check that does not apply to a game (the reason is reported)."""


class GameCheckError(AssertionError):
    """Every failure of a `check_game` run: ``failures`` is a list of ``(check, config id, message)``."""

    def __init__(self, name: str, failures: list):
        self.failures = failures
        lines = [f"{len(failures)} check(s) of game {name!r} failed:"]
        lines += [f"- {check} [{cfg}]: {msg}" for check, cfg, msg in failures]
        super().__init__("\n".join(lines))


@dataclass(frozen=True)
class Check:
    """One named check: ``fn(ctx)`` raises on failure (`Skip` when it does not apply)."""

    name: str
    fn: Callable[["Context"], Any]
    doc: str


#: name -> `Check`, in the order `check_game` runs them
CHECKS: dict = {}


def register(name: str, fn: Callable | None = None, *, doc: str | None = None, replace: bool = False):
    """Add a check named ``name`` (``fn(ctx)``, a `Context`) to `CHECKS`; usable as a decorator
    (``@register("my_check")``). A name already registered is an error unless ``replace=True``."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"a check's name must be an identifier, got {name!r}")

    def add(f):
        if not callable(f):
            raise TypeError(f"check {name!r} must be a callable taking a Context, got {f!r}")
        if name in CHECKS and not replace:
            raise ValueError(f"a check named {name!r} is already registered (pass replace=True to replace it)")
        CHECKS[name] = Check(name, f, doc if doc is not None else (f.__doc__ or "").strip().split("\n")[0])
        return f

    return add if fn is None else add(fn)


def config_id(options: dict) -> str:
    """A short name of a rule configuration (``"num_players=2-hand_size=7"``; ``"defaults"`` for ``{}``)."""
    return "-".join(f"{k}={v}" for k, v in options.items()) or "defaults"


@dataclass
class Context:
    """One game under one rule configuration, as a check sees it."""

    game: Any  # the GameSpec
    options: dict
    seed: int = 0
    steps: int = 200  # decisions a random walk plays (over as many episodes as that takes)
    reference: Callable | None = None  # (record, rules) -> set of legal action ids
    golden_dir: Path | None = None
    notes: list = field(default_factory=list)  # what a check wants reported (e.g. "golden file written")

    @property
    def name(self) -> str:
        return self.game.name

    @functools.cached_property
    def mod(self):
        """The game's PettingZoo module ``cardgym.<game>_vN``."""
        import cardgym

        return importlib.import_module(cardgym.GAMES[self.name].module)

    @functools.cached_property
    def rules(self):
        return self.game.make_rules(**self.options)

    @property
    def num_players(self) -> int:
        return int(self.rules.num_players)

    def raw(self, **kw):
        return self.mod.raw_env(**self.options, **kw)

    def rng(self, salt: int = 0):
        return np.random.default_rng([self.seed, salt])


def random_walk(raw, rng, steps: int, visit=None) -> int:
    """Play ``steps`` random legal decisions on a raw AEC env (resetting it without a seed when an
    episode ends, also an episode that ends inside ``reset()``); ``visit(raw)`` before each decision.
    Returns the number of episodes finished."""
    done = 0
    idle = 0  # loop turns since the last decision (resets, dead agents' None steps)
    while steps > 0:
        idle += 1
        if idle > 1000:
            raise AssertionError("the env makes no progress: episodes end without a decision, again and again")
        if not raw.agents:
            done += 1
            raw.reset()
            continue
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            raw.step(None)
            continue
        if visit is not None:
            visit(raw)
        mask = raw.action_mask()
        legal = np.flatnonzero(mask)
        assert legal.size, f"{agent} is to act in a running game but has no legal action"
        raw.step(int(rng.choice(legal)))
        steps -= 1
        idle = 0
    return done


def check_game(name: str, configs=None, *, checks=None, skip=(), seed: int = 0, steps: int = 200,
               reference: Callable | None = None, golden_dir=None) -> dict:
    """Run the generic suite on the registered game ``name``.

    ``configs``: rule-option dicts (default: the game's ``GameSpec.test_configs``). ``checks``: names of
    `CHECKS` to run (default all), ``skip``: names to leave out. ``seed`` seeds every random walk;
    ``steps`` is the length of each. ``reference``: ``(record, rules) -> set of legal action ids``, a
    plain reading of the rules to hold the compiled masks against (default: ``legal`` of the game
    package's ``reference`` module, if it has one). ``golden_dir``: where the golden playthroughs are
    kept (``<game>__<config>.txt``): a missing file is written, an existing one must match.

    Raises `GameCheckError` naming every failed check and configuration; returns the report
    ``{(check, config id): "passed" | "skipped: ..." | "passed (...)"}``."""
    import cardgym

    game = cardgym.get_game(name)
    configs = [dict(c) for c in (game.test_configs if configs is None else configs)]
    if not configs:
        raise ValueError("configs must hold at least one rule-option dict")
    names = list(CHECKS) if checks is None else list(checks)
    unknown = [c for c in [*names, *skip] if c not in CHECKS]
    if unknown:
        raise ValueError(f"unknown check(s) {unknown}; checks: {list(CHECKS)}")
    if reference is None:
        reference = _package_reference(game)
    report, failures = {}, []
    for options in configs:
        cid = config_id(options)
        for check_name in names:
            if check_name in skip:
                continue
            ctx = Context(game, options, seed=seed, steps=steps, reference=reference,
                          golden_dir=Path(golden_dir) if golden_dir is not None else None)
            try:
                CHECKS[check_name].fn(ctx)
            except Skip as why:
                report[(check_name, cid)] = f"skipped: {why}"
            except Exception as exc:  # a failed check: reported with the others
                failures.append((check_name, cid, f"{type(exc).__name__}: {exc}"))
                report[(check_name, cid)] = "failed"
            else:
                report[(check_name, cid)] = "passed" + (f" ({'; '.join(ctx.notes)})" if ctx.notes else "")
    if failures:
        raise GameCheckError(name, failures)
    return report


def run_check(name: str, check: str, **kw) -> dict:
    """One check of `check_game` as a pytest test (``kw`` as `check_game` takes them): a failure raises
    `GameCheckError`, and a check that skips on every configuration (the game lacks what it checks, e.g.
    a ``WORLD``) calls ``pytest.skip`` with its reason, so the run reports it. Returns the report."""
    report = check_game(name, checks=[check], **kw)
    reasons = sorted({v for v in report.values() if v.startswith("skipped: ")})
    if reasons and len(reasons) == len(set(report.values())):
        import pytest

        pytest.skip(f"{check}: " + "; ".join(r[len('skipped: '):] for r in reasons))
    return report


def _package_reference(game):
    module = f"{game.package}.reference"
    try:
        found = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if found is None:
        return None
    return getattr(importlib.import_module(module), "legal", None)


# ---------------------------------------------------------------------------------------- the checks
# why a check is skipped for a game without an optional ability (docs/api.md, "The game contract")
_NO_WORLD = "world checks (the game has no WORLD in its observe.py)"
_NO_SCENE = "the game has no scene (scene.py)"
_NO_CHECK_STATE = "saved-state checks (the game has no check_state in its invariants.py, so it loads no state)"

@register("spec")
def check_spec(ctx: Context) -> None:
    """The spec's declarations hold: the configuration's rules have every required option and a player
    count within the game's limits, and the game's page has the sections its contract requires
    (`PAGE_SECTIONS`; one added since the contract the game states: a warning) and a version history
    naming its version."""
    from cardgym.core.contract.game import REQUIRED_OPTIONS
    from ..registry import page

    game, rules = ctx.game, ctx.rules
    assert game.min_players <= ctx.num_players <= game.max_players, (
        f"num_players={ctx.num_players} outside {game.min_players}..{game.max_players}")
    for option in REQUIRED_OPTIONS:
        assert option in rules.as_dict(), f"the rules have no {option!r} option"
    text = page(game.name)
    for heading, since in PAGE_SECTIONS.items():
        if re.search(rf"^{re.escape(heading)}\s*$", text, flags=re.M | re.I):
            continue
        why = f" ({PAGE_SECTION_WHY[heading]})" if heading in PAGE_SECTION_WHY else ""
        if game.contract >= since:
            raise AssertionError(f"the page of {game.name} has no {heading!r} section{why}; required since game "
                                 f"contract {since}, and the game states contract {game.contract}")
        page_section_warning(ctx, heading, since, why)
    if "version history" in text.lower():
        assert f"v{game.version}" in text, f"the page's version history does not name v{game.version}"


class PageSectionWarning(UserWarning):
    """A section the game's page lacks that the contract added after the version the game declares:
    reported by `check_game` (``"passed (warning: ...)"``) and warned, not failed (docs/api.md)."""


#: a section of a game's page (its heading line) -> the game contract version that requires it. A game
#: that declares an older contract (one that declares none is version 1) passes without it, with a warning
PAGE_SECTIONS = {"## Version history": 2, "## The rules in plain words": 2}
#: why a section is required (said in the error and the warning)
PAGE_SECTION_WHY = {
    "## Version history": "what each version of the game changed, naming the current one",
    "## The rules in plain words": "the rules, in words a player reads, that a text player's prompt holds; "
                                   "docs/api.md, 'Adding a game'",
}


def page_section_warning(ctx: Context, heading: str, since: int, why: str = "") -> None:
    """Report (``ctx.notes``) and warn that the page lacks the section ``heading``, required from contract
    ``since``."""
    msg = (f"warning: the page of {ctx.name} has no {heading!r} section{why}, required since game contract "
           f"{since}: a warning only, the game states contract {ctx.game.contract} (add the section and "
           f"from_package(..., contract={since}))")
    ctx.notes.append(msg)
    warnings.warn(msg[len("warning: "):], PageSectionWarning, stacklevel=2)


@register("pettingzoo_api")
def check_pettingzoo(ctx: Context) -> None:
    """PettingZoo's own ``api_test`` and ``seed_test``, on every observation encoder."""
    from pettingzoo.test import api_test, seed_test
    from pettingzoo.utils.env_logger import EnvLogger

    EnvLogger.suppress_output()
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        for enc in ctx.game.encoders:
            api_test(ctx.mod.env(observation=enc, **ctx.options), num_cycles=ctx.steps)
        seed_test(functools.partial(ctx.mod.env, **ctx.options), num_cycles=ctx.steps)


@register("gymnasium_api")
def check_gymnasium(ctx: Context) -> None:
    """Gymnasium's ``check_env`` on the single-agent env (``gymnasium.make``), random and seat-random."""
    import gymnasium as gym
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        for kw in ({"opponent": "random"}, {"opponent": ctx.game.default_bot, "seat": "random"}):
            env = gym.make(ctx.game.gym_id, **kw, **ctx.options)
            # no scene: no rgb_array frames to check (the `render` check holds the text, and says so)
            check_env(env.unwrapped, skip_render_check=ctx.game.scene is None)
            env.close()


@register("seeding")
def check_seeding(ctx: Context) -> None:
    """A seeded run replays exactly: observations and the final state_dict of two envs agree."""
    trails = []
    for _ in range(2):
        raw = ctx.raw()
        raw.reset(seed=ctx.seed)
        trail = []
        random_walk(raw, ctx.rng(1), ctx.steps,
                    lambda r: trail.append(r.observe(r.agent_selection)["observation"].tobytes()))
        trail.append(json.dumps(raw.state_dict(), sort_keys=True))
        trails.append(trail)
    assert trails[0] == trails[1], "two runs from one seed differ"


@register("masks")
def check_masks(ctx: Context) -> None:
    """Every decision of a running game offers a legal action in an int8 mask of ``num_actions``, and
    the game's every bot picks a legal action."""
    raw = ctx.raw()
    raw.reset(seed=ctx.seed)
    order = [b for b in ctx.game.bots if b != "search"]
    seen = [0]

    def visit(r):
        mask = r.action_mask()
        assert mask.dtype == np.int8 and mask.shape == (ctx.game.num_actions,), (mask.dtype, mask.shape)
        assert set(np.unique(mask).tolist()) <= {0, 1}
        k = seen[0]
        seen[0] += 1
        # the search bot costs milliseconds a decision: it plays the first three
        bot = "search" if "search" in ctx.game.bots and k < 3 else order[k % len(order)]
        a = r.bot_action(bot)
        assert mask[a] == 1, f"bot {bot!r} chose the illegal action {a}"

    random_walk(raw, ctx.rng(2), ctx.steps, visit)


@register("conservation")
def check_conservation(ctx: Context) -> None:
    """Cards are conserved (``cards_of`` is a permutation of the deck in every state reached) and the
    states reached pass ``validate_record`` (what ``load_state_dict`` accepts)."""
    game = ctx.game
    if game.cards_of is None:
        raise Skip("card-conservation checks (the game has no cards_of in its invariants.py)")
    raw = ctx.raw()
    raw.reset(seed=ctx.seed)
    want = np.sort(game.deck.astype(np.int64))
    count = [0]

    def visit(r):
        cards = np.sort(np.asarray(game.cards_of(r.record, r.rules), np.int64))
        assert cards.shape == want.shape and np.array_equal(cards, want), "the cards are not the deck"
        if count[0] % 10 == 0 and game.check_state is not None:
            game.validate_record(r.record, r.rules)
        count[0] += 1

    random_walk(raw, ctx.rng(3), ctx.steps, visit)


@register("reference_legality")
def check_reference(ctx: Context) -> None:
    """The compiled mask equals a plain reading of the rules (the game package's ``reference.legal``,
    or the ``reference`` given to `check_game`)."""
    if ctx.reference is None:
        raise Skip("the game has no reference legality (reference.py with legal(record, rules))")
    raw = ctx.raw()
    raw.reset(seed=ctx.seed)

    def visit(r):
        want = set(ctx.reference(r.record, r.rules))
        got = set(np.flatnonzero(r.action_mask()).tolist())
        assert got == want, f"mask {sorted(got)} != reference {sorted(want)}"

    random_walk(raw, ctx.rng(4), ctx.steps, visit)


@register("hidden_information")
def check_hidden(ctx: Context) -> None:
    """Nothing a seat cannot see reaches its observations, and the game's WORLD re-deals all of it:
    re-dealing its hidden cards, by the game's ``WORLD`` (`cardgym.core.contract.worlds.sample_world`) and by
    the check's own re-deal (`cardgym.core.contract.worlds.hidden_places`, `honest_redeal`: the declared
    places that hold a card the seat does not observe), changes none of its observations under every
    encoder; and the WORLD moves the card of every such place (`check_redeals_every_hidden_place`)."""
    from cardgym.core.contract.worlds import (card_places, check_redeals_every_hidden_place, hidden_places, honest_redeal,
                                          sample_world, sample_worlds)

    game = ctx.game
    if game.world is None:
        raise Skip(_NO_WORLD)
    raws = {enc: ctx.raw(observation=enc) for enc in game.encoders}
    for e in raws.values():
        e.reset(seed=ctx.seed)
    main = ctx.raw()
    main.reset(seed=ctx.seed)
    rng = ctx.rng(5)

    def observed(enc, record, seat):
        e = raws[enc]
        e._states[0] = record
        obs = e.observe(e.possible_agents[seat])["observation"]
        return {k: np.array(v) for k, v in obs.items()} if isinstance(obs, dict) else {"": np.array(obs)}

    def same(record, other, seat, how):
        for enc in game.encoders:
            before, after = observed(enc, record, seat), observed(enc, other, seat)
            for key in before:
                np.testing.assert_array_equal(before[key], after[key],
                                              err_msg=f"{enc} observation {key!r} leaks hidden cards to seat {seat} "
                                                      f"(they were re-dealt by {how})")

    visits = [0]
    own = ctx.rng(6)

    def visit(r):
        visits[0] += 1
        honest = visits[0] % 10 == 1  # the checks' own re-deal, on every tenth decision (it probes each place)
        live = card_places(game, r.rules, r.record) if honest else None
        for seat in range(ctx.num_players):
            other = sample_world(game, r.rules, r.record, seat, int(rng.integers(2**63)), check=False)
            same(r.record, other, seat, "the game's WORLD")
            if live is None:
                continue
            places = hidden_places(game, r.rules, r.record, seat, live)
            same(r.record, honest_redeal(r.record, places, own), seat,
                 f"the check's own re-deal of {places.describe() or 'nothing'}")
            worlds = sample_worlds(game, r.rules, r.record, seat, int(rng.integers(2**63)), 48, check=False)
            check_redeals_every_hidden_place(r.record, seat, places, worlds, f"decision {visits[0]}")

    random_walk(main, rng, max(1, ctx.steps // 2), visit)
    if game.cards_of is None:
        ctx.notes.append("the check's own re-deal not run: the game has no cards_of, so which places hold a card "
                         "is unknown; only the WORLD's re-deal was checked")


@register("seat_views")
def check_seat_views(ctx: Context) -> None:
    """``view(seat)`` and ``view(None)`` are JSON and leak nothing: re-dealing the cards hidden from a seat
    changes no byte of its view (`cardgym.testing.viewcheck.check_view`)."""
    from cardgym.testing.viewcheck import check_view

    if ctx.game.scene is None:
        raise Skip(_NO_SCENE)
    if ctx.game.world is None:
        raise Skip(_NO_WORLD)
    check_view(ctx.game.name, dict(ctx.options), games=2, seed=ctx.seed, every=2, max_steps=120)


@register("sample_world")
def check_world(ctx: Context) -> None:
    """``sample_world`` keeps what each seat knows and nothing more: same observations and masks, valid
    states, no dependence on the true hidden cards, unseen cards dealt uniformly (a chi-square test)
    (`cardgym.core.contract.worlds.check_sample_world`)."""
    from cardgym.core.contract.worlds import check_sample_world

    if ctx.game.world is None:
        raise Skip(_NO_WORLD)
    check_sample_world(ctx.game, dict(ctx.options), seed=ctx.seed)


@register("clone_state_dict")
def check_clone(ctx: Context) -> None:
    """A clone and an env loaded from the JSON of a ``state_dict`` continue exactly as the original."""
    if ctx.game.check_state is None:
        raise Skip(_NO_CHECK_STATE)
    raw = ctx.raw()
    raw.reset(seed=ctx.seed)
    random_walk(raw, ctx.rng(6), ctx.steps // 3)
    twin = raw.clone()
    loaded = ctx.raw()
    loaded.load_state_dict(json.loads(json.dumps(raw.state_dict())))
    runs = []
    for e in (raw, twin, loaded):
        trail = []
        random_walk(e, ctx.rng(7), ctx.steps // 2,
                    lambda r: trail.append(r.observe(r.agent_selection)["observation"].tobytes()))
        trail.append(json.dumps(e.state_dict(), sort_keys=True))
        runs.append(trail)
    assert runs[0] == runs[1], "a clone plays on differently"
    assert runs[0] == runs[2], "an env loaded from state_dict plays on differently"


@register("tamper")
def check_tamper(ctx: Context) -> None:
    """Tampered records are refused with a ``ValueError`` (``validate_record``, run by
    ``load_state_dict``): a broken header, and every integer field of the game's own set to its
    largest value."""
    game = ctx.game
    if game.check_state is None:
        raise Skip(_NO_CHECK_STATE)
    raw = ctx.raw()
    raw.reset(seed=ctx.seed)
    random_walk(raw, ctx.rng(8), min(5, ctx.steps))
    if not raw.agents:
        raw.reset(seed=ctx.seed + 1)
    base = raw.record.copy()
    game.validate_record(base, raw.rules)
    n = ctx.num_players
    cases = {
        "num_players": lambda r: r.__setitem__("num_players", n + 1 if n < 127 else n - 1),
        "current": lambda r: r.__setitem__("current", n),
        "status": lambda r: r.__setitem__("status", 3),
        "turn": lambda r: r.__setitem__("turn", int(raw.rules.max_turns) + 1),
        "rng": lambda r: r.__setitem__("rng", 0),
        "reward": lambda r: r["reward"].__setitem__(0, np.nan),
    }
    header = set(game.state_dtype.names[:8])

    def own_max(r):
        for key in game.state_dtype.names:
            if key in header or key.startswith("_"):
                continue
            dt = game.state_dtype[key].base
            if np.issubdtype(dt, np.integer):
                r[key] = np.iinfo(dt).max
    cases["own fields"] = own_max
    for what, tamper in cases.items():
        bad = base.copy()
        tamper(bad)
        try:
            game.validate_record(bad, raw.rules)
        except ValueError:
            continue
        raise AssertionError(f"a record with its {what} tampered with was accepted")


@register("vector_aec")
def check_vector(ctx: Context) -> None:
    """The batched vector env (``cardgym.make_vec``) plays the trajectories of the AEC env: same seed,
    same learner actions, opponents the same bot, for the first and the last seat."""
    for seat in sorted({0, ctx.num_players - 1}):
        a = aec_trajectory(ctx.name, ctx.options, ctx.seed + 1000, seat, "random", _policy(ctx), episodes=2)
        b = vec_trajectory(ctx.name, ctx.options, ctx.seed + 1000, seat, "random", _policy(ctx), episodes=2)
        assert len(a) == len(b), f"seat {seat}: {len(a)} AEC learner steps, {len(b)} vector ones"
        for i, (x, y) in enumerate(zip(a, b)):
            assert x == y, f"seat {seat}: trajectories differ at learner step {i}: {x[:1]} vs {y[:1]}"


def _policy(ctx):
    rng = ctx.rng(9)
    return lambda k, mask: int(rng.choice(np.flatnonzero(mask)))


def aec_trajectory(name: str, options: dict, seed: int, seat: int, bot: str, learner_actions, episodes: int) -> list:
    """The learner's steps in an AEC env of ``name`` seeded ``seed`` whose other seats play ``bot`` on the
    env's own record: ``("obs", observation bytes, mask bytes, reward since the last)`` per decision of
    seat ``seat`` (``learner_actions(k, mask)`` chooses) and ``("end", reward, terminated, truncated)``
    per episode, over ``episodes`` episodes in which the learner decided."""
    import cardgym

    raw = importlib.import_module(cardgym.GAMES[name].module).raw_env(**options)
    out, k, ep, reward, moved = [], 0, 0, 0.0, False
    raw.reset(seed=seed)
    learner = raw.possible_agents[seat]
    guard = 0
    while ep < episodes:
        guard += 1
        assert guard < 100_000, "the AEC env never finished its episodes"
        if not raw.agents:
            # the vector env re-deals an episode that ends before the learner's first decision (from the
            # record's own generator, as a seedless reset does): such an episode is not counted
            raw.reset()
            ep += moved
            moved = False
            continue
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            raw.step(None)
            continue
        mask = raw.action_mask()
        if agent == learner:
            out.append(("obs", raw.observe(agent)["observation"].tobytes(), mask.tobytes(), round(reward, 5)))
            reward, moved = 0.0, True
            a = learner_actions(k, mask)
            k += 1
        else:
            a = raw.bot_action(bot)
        raw.step(a)
        reward += raw.rewards[learner]
        if not any(raw.terminations.values()) and not any(raw.truncations.values()):
            continue
        if moved:
            out.append(("end", round(reward, 5), bool(raw.terminations[learner]), bool(raw.truncations[learner])))
        reward = 0.0
        while raw.agents:
            raw.step(None)
    return out


def vec_trajectory(name: str, options: dict, seed: int, seat: int, bot: str, learner_actions, episodes: int,
                   num_envs: int = 2, env_index: int = 1) -> list:
    """`aec_trajectory` played by env ``env_index`` of a ``cardgym.make_vec`` batch of ``num_envs``
    (seeded so that this env's seed is ``seed``; the other envs play their first legal action)."""
    import cardgym

    v = cardgym.make_vec(name, num_envs, opponent=bot, seat=seat, **options)
    obs, info = v.reset(seed=seed - env_index)
    out, k, ep, pending = [], 0, 0, 0.0
    guard = 0
    while ep < episodes:
        guard += 1
        assert guard < 100_000, "the vector env never finished its episodes"
        mask = info["action_mask"][env_index]
        out.append(("obs", obs[env_index].tobytes(), mask.tobytes(), round(pending, 5)))
        acts = np.array([int(np.flatnonzero(m)[0]) if m.any() else 0 for m in info["action_mask"]])
        acts[env_index] = learner_actions(k, mask)
        k += 1
        obs, rew, term, trunc, info = v.step(acts)
        pending = float(rew[env_index])
        if term[env_index] or trunc[env_index]:
            out.append(("end", round(pending, 5), bool(term[env_index]), bool(trunc[env_index])))
            pending = 0.0
            ep += 1
            acts[:] = 0
            obs, rew, term, trunc, info = v.step(acts)  # next-step autoreset
            pending = float(rew[env_index])
    v.close()
    return out


@register("results")
def check_results(ctx: Context) -> None:
    """Every finished game's ``result()`` is JSON, holds the keys the utility requires (and the
    standing's), names seats that exist, and gives every seat one outcome."""
    game = ctx.game
    raw = ctx.raw()
    raw.reset(seed=ctx.seed)
    n = ctx.num_players
    ends = [0]

    def finished(r):
        res = game.result(r.record, r.rules)
        json.dumps(res)
        for key in game.required_result_keys():
            assert key in res, f"result() has no {key!r}: {sorted(res)}"
        winners = [int(w) for w in res["winners"]]
        assert all(0 <= w < n for w in winners), f"winners {winners} are not seats 0..{n - 1}"
        if game.utility == "house":
            pushes = [int(w) for w in res["pushes"]]
            assert all(0 <= w < n for w in pushes) and not set(pushes) & set(winners), (winners, pushes)
        if game.standing is not None:
            values = res[game.standing.key]
            assert len(values) == n and all(math.isfinite(float(v)) for v in values), values
        assert all(game.outcome(res, s) in ("win", "draw", "loss") for s in range(n))
        ends[0] += 1

    rng = ctx.rng(10)
    for _ in range(3):
        raw.reset(seed=int(rng.integers(2**31)))
        guard = 0
        while raw.agents and int(raw.record["status"]) == 0:
            guard += 1
            assert guard < 100_000, "an episode that never ends"
            raw.step(int(rng.choice(np.flatnonzero(raw.action_mask()))))
        finished(raw)
    assert ends[0] == 3


@register("render")
def check_render(ctx: Context) -> None:
    """``render_mode="ansi"`` gives text and ``"rgb_array"`` uint8 frames ``(H, W, 3)`` of one size over
    a whole game, for a spectator and for the seat to act."""
    raw = ctx.raw(render_mode="ansi")
    raw.reset(seed=ctx.seed)
    assert isinstance(raw.render(), str) and raw.render()
    if ctx.game.scene is None:
        raise Skip("pictures (rgb_array): " + _NO_SCENE)
    try:
        import PIL  # noqa: F401
    except ImportError:
        raise Skip("pictures need Pillow (pip install 'cardgym[render]')") from None
    from .. import render

    raw = ctx.raw(render_mode="rgb_array")
    raw.reset(seed=ctx.seed)
    rng = ctx.rng(11)
    first = []  # (shape, scene, what) of the first frame

    def same_size(shape, viewer, what):
        scene = render.table_scene(ctx.game, raw.record, raw.rules, viewer)
        if not first:
            first.append((shape, scene, what))
        elif shape != first[0][0]:
            why = render.size_change(first[0][1], scene) or "no pile, row or text line changed in number or size"
            raise AssertionError(f"frames of one game change size: {first[0][0]} ({first[0][2]}) then {shape} "
                                 f"({what}): {why}")

    guard = 0
    while raw.agents and guard < ctx.steps:
        guard += 1
        frame = raw.render()
        assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
        same_size(frame.shape, None, f"the public view at step {guard}")
        seat = int(raw.record["current"])
        same_size(render.rgb_array(ctx.game, raw.record, raw.rules, viewer=seat).shape, seat,
                  f"seat {seat}'s view at step {guard}")
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            raw.step(None)
            continue
        raw.step(int(rng.choice(np.flatnonzero(raw.action_mask()))))
    same_size(raw.render().shape, None, "the public view at the end")


def golden_text(name: str, options: dict, seed: int = 0, decisions: int = 60) -> str:
    """A seeded playthrough of ``name`` as text: the table, then per decision the agent, its legal
    actions, the action (chosen by a generator seeded with ``seed``), the rewards and a hash of every
    agent's observation; the end's result. Everything in it is deterministic."""
    import cardgym

    game = cardgym.get_game(name)
    mod = importlib.import_module(cardgym.GAMES[name].module)
    raw = mod.raw_env(render_mode="ansi", **options)
    raw.reset(seed=seed)
    rng = np.random.default_rng(seed)
    lines = [f"# {game.env_name} {json.dumps(options, sort_keys=True)} seed={seed}", raw.render(), ""]
    k = 0
    while raw.agents and k < decisions:
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            raw.step(None)
            continue
        legal = np.flatnonzero(raw.action_mask()).tolist()
        obs = b"".join(np.round(raw.observe(a)["observation"], 4).tobytes() for a in raw.possible_agents)
        a = int(rng.choice(legal))
        raw.step(a)
        rewards = {ag: round(float(r), 4) for ag, r in raw.rewards.items() if r}
        lines.append(f"{k:4d} {agent} legal={legal} -> {a} {game.action_to_str(a)!r} rewards={rewards} "
                     f"obs={hashlib.sha256(obs).hexdigest()[:12]}")
        k += 1
    lines += ["", raw.render(), f"result: {json.dumps(game.result(raw.record, raw.rules), sort_keys=True)}", ""]
    return "\n".join(lines)


@register("golden")
def check_golden(ctx: Context) -> None:
    """A seeded playthrough (`golden_text`) is the same twice, and the same as the golden file kept in
    ``golden_dir`` (written when missing)."""
    text = golden_text(ctx.name, ctx.options, ctx.seed)
    assert text == golden_text(ctx.name, ctx.options, ctx.seed), "a seeded playthrough differs from itself"
    if ctx.golden_dir is None:
        return
    path = ctx.golden_dir / f"{ctx.name}__{config_id(ctx.options)}.txt"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        ctx.notes.append(f"golden file {path.name} written")
        return
    want = path.read_text(encoding="utf-8")
    if want != text:
        for i, (x, y) in enumerate(zip(want.splitlines(), text.splitlines())):
            if x != y:
                raise AssertionError(f"{path} differs at line {i + 1}:\n  kept: {x}\n  now:  {y}\n"
                                     "(delete the file to accept a change of behaviour, and bump the version)")
        raise AssertionError(f"{path} differs in length from the playthrough")
