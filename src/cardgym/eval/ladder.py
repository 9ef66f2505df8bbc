"""The anchored ladder: one rating for any outside player, on a fixed scale, comparable across days.

A player (a bot name, a model file, a Python player, a text player) plays a fixed, versioned schedule
of duplicate deals against each anchor of the ladder; its rating is the Elo-scale rating that best
explains its results against the anchors' *fixed* ratings (a one-player Bradley-Terry fit, the anchors'
ratings held), with a 95% interval from the fit's curvature.

**The scale.** Elo points, ``random`` pinned at 0: a player rated ``R`` scores
``1 / (1 + 10 ** ((A - R) / 400))`` on average against an anchor rated ``A`` (a draw counts half a
point).

**The anchors, set by data.** Each game and format has a chain of anchors, weakest first: ``random``,
ε-random versions of ``greedy`` (`cardgym.eval.eps_bots`: ``greedy-eps0.6`` plays a random move in 60%
of its decisions) and the bots ``greedy`` and ``expert``, chosen so that every neighbouring pair scores
between 10% and 90% against each other: no rating rests on the fit's prior. Their ratings are a
Bradley-Terry fit (`cardgym.eval.stats.bradley_terry`) of `ANCHOR_GAMES` duplicate games per pair of
neighbours and of anchors two apart, on seeds away from the schedule's, measured with
``python -m cardgym.eval.ladder --measure --write --write-docs`` (which also rewrites every ladder figure
of the docs) and stored in the package (``ladder_anchors.json``) with the pairs' scores; a test pins
them. They change only with a new `LADDER_VERSION`.

**Formats** (`FORMATS`, ``cardgym ladder --format``): ``full``, the default rules; ``quick``, what a
model can afford: one Skyjo round (``episode="round"``), Skip-Bo with a stock of 10, Skip-Bo Junior as
it is. Each format has its own anchors.

**The schedule** (version `LADDER_VERSION`): two players, the format's rules, deals ``SEED_BASE + k`` for
``k = 0 .. deals - 1``, each deal played twice (both seat orders) against each anchor. A run of
``deals`` deals plays the first ``deals`` deals of the schedule, so two runs of the same length play
the very same cards.
"""

from __future__ import annotations

import json
import math
from importlib import resources

import numpy as np

from . import match
from .batch import _game
from .stats import bradley_terry

LADDER_VERSION = 2
#: the bots the anchors are made of (``search`` is left out: it costs milliseconds a decision); each
#: game's chain of anchors (`ladder_bots`) adds ε-random versions of them
LADDER_BOTS = ("random", "greedy", "expert")
#: the rule options of each format, per game (a game not named plays its default rules)
FORMATS = {
    "full": {},
    "quick": {"skyjo": {"episode": "round"}, "skipbo": {"stock_size": 10}},
}
DEFAULT_FORMAT = "full"
#: each format's chain of anchors, weakest first (measured into ``ladder_anchors.json``)
CHAINS = {
    "full": {
        "skyjo": ("random", "greedy-eps0.8", "greedy-eps0.6", "greedy-eps0.4", "greedy-eps0.3", "greedy-eps0.2",
                  "greedy-eps0.1", "greedy", "expert"),
        "skipbo": ("random", "greedy-eps0.7", "greedy-eps0.6", "greedy-eps0.5", "greedy-eps0.4", "greedy-eps0.3",
                   "greedy-eps0.2", "greedy-eps0.1", "greedy", "expert"),
        "skipbo_junior": ("random", "greedy", "expert"),
    },
    "quick": {
        "skyjo": ("random", "greedy-eps0.8", "greedy-eps0.6", "greedy-eps0.4", "greedy-eps0.2", "greedy", "expert"),
        "skipbo": ("random", "greedy-eps0.9", "greedy-eps0.8", "greedy-eps0.7", "greedy-eps0.6", "greedy-eps0.4",
                   "greedy-eps0.2", "greedy", "expert"),
        "skipbo_junior": ("random", "greedy", "expert"),
    },
}
#: the first deal seed of the schedule
SEED_BASE = 20_260_000
#: deals of a default run (each played twice against each anchor)
DEFAULT_DEALS = 10
#: most deals of a run
MAX_DEALS = 100_000
#: duplicate games per pair of the round robin that measured the anchors, and its first seed
ANCHOR_GAMES = 2000
ANCHOR_SEED = 1_000_000
#: the interval's z (95%)
Z95 = 1.959963984540054
_LN = math.log(10) / 400


def check_format(fmt) -> str:
    """``fmt`` if it is a ladder format; ``ValueError`` naming the formats otherwise."""
    if fmt not in FORMATS:
        raise ValueError(f"the ladder's formats are {', '.join(FORMATS)}, got {fmt!r}")
    return fmt


def format_rules(game, fmt: str = DEFAULT_FORMAT) -> dict:
    """The rule options of ``game`` in the format ``fmt`` (two players)."""
    return {"num_players": 2, **FORMATS[check_format(fmt)].get(_game(game).name, {})}


def anchor_file() -> dict:
    """The package's anchor file (``ladder_anchors.json``) as it is stored."""
    data = json.loads((resources.files("cardgym.eval") / "ladder_anchors.json").read_text())
    if data.get("version") != LADDER_VERSION:
        raise RuntimeError(f"ladder_anchors.json is for ladder version {data.get('version')}, this is "
                           f"version {LADDER_VERSION}")
    return data


def anchors(fmt: str = DEFAULT_FORMAT) -> dict:
    """``{game: {anchor: rating}}`` of the format ``fmt`` (``ladder_anchors.json``)."""
    return {g: dict(v["anchors"]) for g, v in anchor_file()["formats"][check_format(fmt)].items()}


def game_anchors(game, fmt: str = DEFAULT_FORMAT) -> dict:
    """The anchors of one game; ``ValueError`` naming the games that have some."""
    name = _game(game).name
    table = anchors(fmt)
    if name not in table:
        raise ValueError(f"the ladder has no anchors for {name!r}; games with anchors: {', '.join(sorted(table))}")
    return table[name]


def ladder_bots(game, fmt: str = DEFAULT_FORMAT) -> list:
    """The anchors a player meets in ``game``'s ladder of format ``fmt``, weakest first."""
    return list(game_anchors(game, fmt))


def expected(r: float, a: float) -> float:
    """Expected score of a player rated ``r`` against one rated ``a`` (Elo scale)."""
    return 1.0 / (1.0 + 10 ** ((a - r) / 400))


def fit_rating(results: dict, fixed: dict) -> dict:
    """The rating of one player from ``results[bot] = (points, games)`` against bots of ``fixed``
    ratings: the maximum-likelihood Elo rating with the prior of `bradley_terry` (one drawn game against a
    player rated at the anchors' mean, so a player who wins or loses every game stays finite), its
    standard error and 95% interval."""
    prior = float(np.mean(list(fixed.values())))
    games = [(fixed[b], float(p), float(n)) for b, (p, n) in results.items()] + [(prior, 0.5, 1.0)]

    def slope(r):  # d log-likelihood / dr, decreasing in r
        return sum(p - n * expected(r, a) for a, p, n in games)

    lo, hi = min(fixed.values()) - 4000.0, max(fixed.values()) + 4000.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if slope(mid) > 0:
            lo = mid
        else:
            hi = mid
    r = 0.5 * (lo + hi)
    info = sum(n * expected(r, a) * (1 - expected(r, a)) for a, p, n in games) * _LN * _LN
    se = 1.0 / math.sqrt(info)
    return {"rating": round(r, 1), "se": round(se, 1), "ci95": [round(r - Z95 * se, 1), round(r + Z95 * se, 1)]}


def ladder(game, player, deals: int = DEFAULT_DEALS, progress: bool = False, recorder=None,
           concurrency: int = 1, fmt: str = DEFAULT_FORMAT, seed_base: int = SEED_BASE) -> dict:
    """Rate ``player`` (anything `cardgym.eval.match` takes) on the ladder of ``game`` in the format
    ``fmt``; ``concurrency``: games of a text player in flight at once (`cardgym.eval.batch.play`).
    ``seed_base``: the first deal (another deal set than the schedule's, to check how much a rating
    depends on the deals; published ratings use the schedule's).

    Returns ``{"game", "version", "format", "rules", "scale", "player", "deals", "games", "rating", "se",
    "ci95", "anchors", "matches": {anchor: match result}, "seconds", "games_per_second"}`` and, for a
    text player, ``"text"``: its counts over the whole run (illegal-move rate, fallbacks, latency, tokens)."""
    from ..agents.text import is_text_player
    from .eps_bots import anchor_player
    from .text_games import Slots, add_counts, check_concurrency, game_copy

    spec = _game(game)
    fixed = game_anchors(spec, fmt)
    if isinstance(deals, bool) or not isinstance(deals, int) or not 1 <= deals <= MAX_DEALS:
        raise ValueError(f"deals must be an integer 1..{MAX_DEALS}, got {deals!r}")
    opts = format_rules(spec, fmt)
    rules = spec.make_rules(**opts)
    options = {k: v for k, v in opts.items() if k != "num_players"}
    text = is_text_player(player)
    before = dict(player.counts) if text else None
    check_concurrency(concurrency)

    def one(bot, who, slots):
        return match(spec, who, anchor_player(spec, bot, rules), num_players=2, games=2 * deals, seed=seed_base,
                     progress=progress, recorder=recorder, concurrency=slots, **options)

    if concurrency == 1 or not text:
        runs = {bot: one(bot, player, concurrency) for bot in fixed}
    else:
        # every anchor's match side by side, the games in flight shared: a match's last games do not hold
        # the others up. Each match plays a copy of the player (its own counts, added up afterwards).
        from concurrent.futures import ThreadPoolExecutor

        slots = Slots(concurrency)
        copies = {bot: game_copy(player, 0, 0) for bot in fixed}
        with ThreadPoolExecutor(max_workers=len(fixed), thread_name_prefix="cardgym-ladder") as pool:
            futures = {bot: pool.submit(one, bot, copies[bot], slots) for bot in fixed}
            runs = {bot: futures[bot].result() for bot in fixed}
        for c in copies.values():
            add_counts(player.counts, c.counts)
    matches, results, seconds = {}, {}, 0.0
    for bot in fixed:
        r = runs[bot]
        matches[bot] = r
        results[bot] = (r["wins"] + 0.5 * r["draws"], r["games"])
        seconds += r["seconds"]
    fit = fit_rating(results, fixed)
    total = sum(r["games"] for r in matches.values())
    out = {"game": spec.name, "version": LADDER_VERSION, "format": fmt, "rules": options, "scale": "Elo, random = 0",
           "player": str(player), "deals": deals, "seed_base": seed_base, "games": total, **fit, "anchors": dict(fixed),
           "matches": matches, "seconds": round(seconds, 3),
           "games_per_second": round(total / seconds, 2) if seconds > 0 else None}
    if before is not None:
        out["text"] = player.stats(since=before)
    return out


def anchor_pairs(chain) -> list:
    """The pairs of a chain the anchors are measured on: neighbours and anchors two apart."""
    return [(chain[i], chain[j]) for i in range(len(chain)) for j in (i + 1, i + 2) if j < len(chain)]


def measure_anchors(games: tuple = None, per_pair: int = ANCHOR_GAMES, fmt: str = DEFAULT_FORMAT,
                    seed: int = ANCHOR_SEED, progress: bool = False) -> dict:
    """The anchors of ``games`` (default: those of `CHAINS`) in the format ``fmt``: ``per_pair``
    duplicate games per pair of `anchor_pairs` from ``seed``, Bradley-Terry on the Elo scale with
    ``random`` at 0. Returns ``{game: {"rules", "anchors": {anchor: rating}, "pairs": [{"a", "b",
    "score", "games"}...]}}`` (``score``: ``b``'s share of the points against ``a``)."""
    from .eps_bots import anchor_player

    out = {}
    for name in games or CHAINS[check_format(fmt)]:
        chain = CHAINS[fmt][name]
        opts = format_rules(name, fmt)
        rules = _game(name).make_rules(**opts)
        options = {k: v for k, v in opts.items() if k != "num_players"}
        scores, pairs = {}, []
        for a, b in anchor_pairs(chain):
            r = match(name, anchor_player(name, b, rules), anchor_player(name, a, rules), num_players=2,
                      games=per_pair, seed=seed, progress=progress, **options)
            points = r["wins"] + 0.5 * r["draws"]
            scores[(b, a)] = (points, r["games"])
            pairs.append({"a": a, "b": b, "score": round(points / r["games"], 4), "games": r["games"]})
        out[name] = {"rules": options, "anchors": bradley_terry(list(chain), scores, anchor="random"), "pairs": pairs}
    return out


def neighbour_scores(game, fmt: str = DEFAULT_FORMAT) -> list:
    """``[(weaker, stronger, stronger's score)]`` of each neighbouring pair of anchors, from the anchor file."""
    data = anchor_file()["formats"][check_format(fmt)][_game(game).name]
    chain = list(data["anchors"])
    got = {(p["a"], p["b"]): p["score"] for p in data["pairs"]}
    return [(a, b, got[(a, b)]) for a, b in zip(chain, chain[1:])]


def measure_costs(fmt: str = DEFAULT_FORMAT, deals: int = 2, games: tuple = None, stand_in: str = "greedy") -> dict:
    """What a ladder run of format ``fmt`` asks of a language model, per game: ``{game: {"decisions",
    "prompt_chars", "games_per_run"}}``. The bot ``stand_in`` plays the model's seat over the first
    ``deals`` deals of the schedule against every anchor, through the text players' driver
    (`cardgym.eval.text_games.play_one`): its decisions per game (one call each, without rethinks) and
    the mean characters of the prompt a text player would have been given at each (a token is about four
    characters of English and JSON). ``games_per_run``: the games of a default run."""
    from ..agents.text import TextPlayer
    from .eps_bots import anchor_player
    from .text_games import play_one, raw_env

    out = {}
    for name in games or CHAINS[check_format(fmt)]:
        spec = _game(name)
        rules = spec.make_rules(**format_rules(name, fmt))
        env = raw_env(spec, rules)
        prompts = TextPlayer(spec, rules, lambda prompt: "", name="prompts")
        sizes = []

        class StandIn:
            """The bot's moves, with the size of the prompt a text player would get (a text player to the
            driver, so it is given the move log)."""

            text_player = True
            name = stand_in

            def decide(self, view, moves):
                sizes.append(len(prompts.prompt(view, moves)))
                return env.bot_action(stand_in), None

        played = 0
        for bot in game_anchors(name, fmt):
            other = anchor_player(spec, bot, rules)
            for d in range(deals):
                for row in ([StandIn(), other], [other, StandIn()]):
                    play_one(env, row, SEED_BASE + d)
                    played += 1
        out[name] = {"decisions": round(len(sizes) / played, 1), "prompt_chars": round(sum(sizes) / len(sizes)),
                     "games_per_run": 2 * DEFAULT_DEALS * len(game_anchors(name, fmt)), "stand_in": stand_in}
    return out


def main(argv=None):
    import argparse
    from pathlib import Path

    ap = argparse.ArgumentParser(prog="python -m cardgym.eval.ladder",
                                 description="measure the ladder's anchors (prints the anchor file) and rewrite "
                                             "the docs' ladder figures")
    ap.add_argument("--measure", action="store_true", help="measure the anchors of every format")
    ap.add_argument("--per-pair", type=int, default=ANCHOR_GAMES)
    ap.add_argument("--write", action="store_true", help="write the measured anchors into the package's "
                                                         "ladder_anchors.json (with --measure)")
    ap.add_argument("--write-docs", action="store_true", help="rewrite the ladder figures of docs/llm_agents.md, "
                                                              "docs/bots.md and docs/llm_real_models.md from the "
                                                              "anchor file (and the cost of each format's run)")
    args = ap.parse_args(argv)
    if not (args.measure or args.write_docs):
        ap.error("nothing to do: give --measure and/or --write-docs")
    if args.write and not args.measure:
        ap.error("argument --write: writes what --measure measured; give --measure too")
    if args.measure:
        data = {"version": LADDER_VERSION, "scale": "Elo, random = 0", "bots": list(LADDER_BOTS),
                "measured_with": f"python -m cardgym.eval.ladder --measure --per-pair {args.per_pair} --write",
                "per_pair": args.per_pair, "seed": ANCHOR_SEED,
                "formats": {fmt: measure_anchors(per_pair=args.per_pair, fmt=fmt) for fmt in FORMATS}}
        text = json.dumps(data, indent=2) + "\n"
        if args.write:
            path = Path(__file__).with_name("ladder_anchors.json")
            path.write_text(text)
            print(f"wrote {path}")
        else:
            print(text, end="")
    if args.write_docs:
        from . import ladder_docs

        costs = {fmt: measure_costs(fmt) for fmt in FORMATS}
        for path in ladder_docs.write_docs(anchor_file(), costs, DEFAULT_DEALS):
            print(f"wrote {path}")


__all__ = ["ANCHOR_GAMES", "CHAINS", "DEFAULT_DEALS", "DEFAULT_FORMAT", "FORMATS", "LADDER_BOTS", "LADDER_VERSION",
           "SEED_BASE", "anchor_file", "anchor_pairs", "anchors", "check_format", "expected", "fit_rating",
           "format_rules", "game_anchors", "ladder", "ladder_bots", "measure_anchors", "measure_costs",
           "neighbour_scores"]

if __name__ == "__main__":
    main()
