"""Golden playthroughs: seeded games written out move by move, to pin the current behaviour.

Like OpenSpiel's ``playthroughs/``: every game and every documented variant is played once, seeded, by
the bots through the public APIs, and written to a reviewable text file in this folder. ``tests/
test_golden.py`` regenerates every file in memory and compares it with the stored one, so any change of
the deal, the rules, the observations, the masks, the rewards, the rendering, the bots or the RNG streams
shows up as a line diff.

Regenerate after an intended change (then review the diff with ``git diff tests/golden``)::

    python -m tests.golden.generate            # or: python tests/golden/generate.py
    python -m tests.golden.generate --check    # compare only; exit status 1 and a diff on a mismatch
    python -m tests.golden.generate --only skyjo__classic_2p   # some files (name or prefix)

Files (``<game>__<variant>.txt``):

- AEC playthroughs (``cardgym.<game>_v0.raw_env(render_mode="ansi")``, every seat played by a bot, the
  seats cycling through ``SEAT_BOTS`` unless the variant names its own bots). The first
  ``DETAILED`` decisions (fewer for a variant with a large table) are written in full: the acting agent and its bot, the rendered table, every
  agent's ``vector`` observation (nonzero entries as ``index:value``), the legal action ids, the action
  and its ``action_to_str``, the rewards of the step. The ``dict`` observation of the agent to act is
  written for the first ``DICT_DECISIONS`` decisions and the full-information ``state()`` vector at the
  decisions in ``STATE_AT``, at the last detailed decision and at the end. Every later decision is one line (agent, action, its text,
  nonzero rewards and a short hash of every agent's observation and the mask), and the end of the game
  is written in full again (table, observations, rewards, terminations, ``result()``).
- ``<game>__gym.txt``: seeded single-agent Gymnasium episodes (``gymnasium.make``), the learner played
  by a bot; per step the action, reward, flags and hashes of the observation and the mask.
- ``<game>__vector.txt``: seeded ``cardgym.make_vec`` batches (8 envs, 50 steps), the actions chosen by
  a bot; per step hashes of the observation, mask and final-observation arrays, and the rewards and flags.

Everything is deterministic: floats are written with a fixed format (``FLOAT_FMT``) and
hashed after rounding to ``HASH_DECIMALS`` decimals (so that a last-bit difference of a platform's
arithmetic cannot change a file), dicts are written in a fixed order, and nothing reads the clock.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
#: the command that rewrites the files (shown by the test on a mismatch)
REGENERATE = "python -m tests.golden.generate"

#: decisions written in full at the start of every AEC playthrough
DETAILED = 40
#: decisions whose ``dict`` observation (of the agent to act) is written
DICT_DECISIONS = 3
#: decisions at which the full-information ``state()`` vector is written (also at the last detailed
#: decision and at the end)
STATE_AT = (0,)
#: bots of the seats, cycled (seat i plays SEAT_BOTS[i % 3]) unless a variant names its own
SEAT_BOTS = ("greedy", "expert", "random")
#: safety cap on the decisions of one AEC playthrough (every game here ends long before)
MAX_DECISIONS = 20_000
FLOAT_FMT = ".6g"
HASH_DECIMALS = 6
#: vector-env batches: environments and steps
VEC_ENVS = 8
VEC_STEPS = 50

GAMES = ("skyjo", "skipbo", "skipbo_junior")


@dataclass(frozen=True)
class Variant:
    """One AEC playthrough: a game, its rule options, a seed and (optionally) the seats' bots."""

    game: str
    name: str
    options: dict
    seed: int
    bots: tuple = ()
    detailed: int = DETAILED  # fewer for the largest tables, to keep the file small

    @property
    def filename(self) -> str:
        return f"{self.game}__{self.name}.txt"

    def bot_of(self, seat: int) -> str:
        bots = self.bots or SEAT_BOTS
        return bots[seat % len(bots)]


@dataclass(frozen=True)
class SingleRun:
    """One seeded Gymnasium episode of ``<game>__gym.txt``."""

    options: dict
    seed: int
    opponent: str
    seat: object
    learner: str


@dataclass(frozen=True)
class VecRun:
    """One seeded make_vec batch of ``<game>__vector.txt``."""

    options: dict
    seed: int
    opponent: str
    seat: object
    chooser: str
    autoreset_mode: str = "next_step"


# Every documented variant (RULES.md, each game's Rules class and docs/<game>.md), two player counts
# per game, and a few variants whose seed takes the game to an edge (draw pile exhausted, recycling, a
# stall draw, a truncation). Seeds are fixed; no game here ends inside reset().
VARIANTS = (
    # ---- Skyjo
    Variant("skyjo", "classic_2p", {}, 1),
    Variant("skyjo", "classic_5p", {"num_players": 5}, 2),
    Variant("skyjo", "short_end_score_50", {"end_score": 50}, 3),
    Variant("skyjo", "max_rounds_2", {"max_rounds": 2}, 4),
    Variant("skyjo", "episode_round", {"episode": "round"}, 5),
    Variant("skyjo", "setup_random", {"setup_reveal": "random"}, 6, ("random", "greedy")),
    # 6 players: the draw pile runs out (twice) and is rebuilt
    Variant("skyjo", "reshuffle_all_but_top_flip_6p", {"num_players": 6, "reshuffle": "all_but_top_flip"}, 16,
            detailed=20),
    Variant("skyjo", "reward_score", {"reward": "score"}, 8),
    Variant("skyjo", "truncated_max_turns_30", {"max_turns": 30}, 9),
    # ---- Skip-Bo
    Variant("skipbo", "classic_2p", {}, 1),
    Variant("skipbo", "classic_5p", {"num_players": 5}, 2),  # recycles the build piles once
    Variant("skipbo", "teams_4p", {"num_players": 4, "teams": True}, 3),
    Variant("skipbo", "quick_stock_10", {"stock_size": 10}, 4),
    Variant("skipbo", "match_target_150", {"stock_size": 10, "match_target": 150, "reward": "score"}, 5),
    Variant("skipbo", "no_stock_points", {"stock_size": 10, "match_target": 60, "stock_points": False}, 6),
    Variant("skipbo", "wild_must_be_covered", {"wild_must_be_covered": True, "stock_size": 15}, 7),
    Variant("skipbo", "two_up_two_down", {"build_directions": "two_up_two_down", "stock_size": 15}, 8),
    Variant(
        "skipbo", "recycle_immediately_random_first",
        {"recycle": "immediately", "first_player": "random", "recycle_build_piles": False, "stock_size": 15},
        9, ("random", "greedy"),
    ),
    # 156 of the 162 cards in the stocks: the draw pile runs dry, the players pass, the hand is a stall draw
    Variant("skipbo", "stall_draw_stock_78",
            {"stock_size": 78, "recycle": "immediately", "recycle_build_piles": False}, 1),
    # ---- Skip-Bo Junior
    Variant("skipbo_junior", "classic_2p", {}, 1),
    Variant("skipbo_junior", "classic_3p", {"num_players": 3}, 2),
    Variant("skipbo_junior", "classic_4p", {"num_players": 4}, 3),
    Variant("skipbo_junior", "must_play_off", {"must_play": False}, 4, ("random", "greedy")),
    # the draw pile and the completed stack run dry: the build piles are recycled (twice)
    Variant("skipbo_junior", "stock_28_recycle_builds_3p",
            {"num_players": 3, "stock_size": 28, "recycle_build_piles": True}, 5),
    Variant("skipbo_junior", "first_player_random", {"first_player": "random", "num_players": 3}, 6),
)

GYM_RUNS = {
    "skyjo": (
        SingleRun({}, 11, "greedy", 0, "expert"),
        SingleRun({"num_players": 3}, 12, "random", "random", "greedy"),
    ),
    "skipbo": (
        SingleRun({"stock_size": 10}, 11, "greedy", 0, "expert"),
        SingleRun({"num_players": 4, "teams": True, "stock_size": 10}, 12, "random", "random", "greedy"),
    ),
    "skipbo_junior": (
        SingleRun({}, 11, "greedy", 0, "expert"),
        SingleRun({"num_players": 4}, 12, "random", "random", "greedy"),
    ),
}

VEC_RUNS = {
    "skyjo": (
        VecRun({}, 21, "greedy", 0, "random"),
        VecRun({"num_players": 4, "episode": "round"}, 22, "random", "random", "greedy", "same_step"),
    ),
    "skipbo": (
        VecRun({"stock_size": 5}, 21, "greedy", 0, "random"),
        VecRun({"num_players": 4, "teams": True, "stock_size": 3}, 22, "random", "random", "greedy", "same_step"),
    ),
    "skipbo_junior": (
        VecRun({}, 21, "greedy", 0, "random"),
        VecRun({"num_players": 3, "stock_size": 4}, 22, "random", "random", "greedy", "same_step"),
    ),
}


# ------------------------------------------------------------------ formatting
def fnum(x) -> str:
    """A number, written the same way on every machine (integers without a decimal point)."""
    v = float(x)
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return format(v, FLOAT_FMT)


def nonzero(vec) -> str:
    """``index:value`` of every nonzero entry of a flat vector."""
    vec = np.asarray(vec).ravel()
    return " ".join(f"{i}:{fnum(vec[i])}" for i in np.flatnonzero(vec))


def wrap(text: str, width: int = 110, indent: str = "   ") -> list[str]:
    """Split a long space-separated line into lines of at most ``width`` characters."""
    out, line = [], ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > width:
            out.append(indent + line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line or not out:
        out.append(indent + line)
    return out


def digest(*arrays) -> str:
    """A short sha256 of arrays, rounded to ``HASH_DECIMALS`` decimals (stable across platforms)."""
    h = hashlib.sha256()
    for a in arrays:
        a = np.asarray(a)
        if a.dtype.kind == "f":
            a = np.round(a.astype(np.float64), HASH_DECIMALS) + 0.0  # + 0.0 turns -0.0 into 0.0
            a = a.astype("<f8")
        elif a.dtype.kind == "b":
            a = a.astype("u1")
        else:
            a = a.astype("<i8")
        h.update(str(a.shape).encode())
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def dump_json(obj) -> str:
    return json.dumps(to_plain(obj), sort_keys=True)


def to_plain(obj):
    """JSON-able copy with numbers written by ``fnum`` (as JSON numbers)."""
    if isinstance(obj, dict):
        return {str(k): to_plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_plain(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_plain(obj.tolist())
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return json.loads(fnum(obj))
    return obj


def dict_obs_lines(obs: dict) -> list[str]:
    lines = []
    for key in sorted(obs):
        value = obs[key]
        if isinstance(value, dict):
            lines += [f"   {key}.{line.strip()}" for line in dict_obs_lines(value)]
            continue
        arr = np.asarray(value)
        flat = " ".join(fnum(v) for v in arr.ravel())
        lines += wrap(f"{key} {list(arr.shape)}: {flat}")
    return lines


def header(title: str, lines: list[str]) -> list[str]:
    return [
        f"# {title}",
        "# Generated by tests/golden/generate.py; do not edit. Regenerate after an intended change with",
        f"#   {REGENERATE}",
        "# and review the diff (tests/test_golden.py compares every file with a fresh run).",
        *lines,
        "",
    ]


# ------------------------------------------------------------------ AEC playthroughs
def aec_module(game: str):
    import importlib

    import cardgym

    return importlib.import_module(cardgym.GAMES[game].module)


def playthrough(v: Variant) -> str:
    """The text of one AEC playthrough."""
    mod = aec_module(v.game)
    env = mod.raw_env(render_mode="ansi", **v.options)
    denv = mod.raw_env(observation="dict", **v.options) if "dict" in mod.GAME.encoders else None
    env.reset(seed=v.seed)
    agents = list(env.possible_agents)
    seats = {a: i for i, a in enumerate(agents)}
    out = header(
        f"{v.game} playthrough, variant {v.name}",
        [
            f"game: {v.game}",
            f"variant: {v.name}",
            f"options: {dump_json(v.options)}",
            f"rules: {dump_json(env.rules.as_dict())}",
            f"seed: {v.seed}",
            "bots: " + " ".join(f"{a}={v.bot_of(i)}" for i, a in enumerate(agents)),
            f"observation: vector ({env.observation_space(agents[0])['observation'].shape[0]} values), "
            f"state: {env.state_space.shape[0]} values, actions: {mod.GAME.num_actions}",
            f"detailed decisions: {v.detailed} (then one line per decision: agent, action, rewards, "
            "hash of every observation and the mask)",
        ],
    )

    def over() -> bool:
        return any(env.terminations.values()) or any(env.truncations.values())

    def write_obs(lines):
        for a in agents:
            o = env.observe(a)["observation"]
            lines.append(f"obs {a} ({int(np.count_nonzero(o))} nonzero):")
            lines += wrap(nonzero(o))

    def write_state(lines):
        s = env.state()
        lines.append(f"state ({int(np.count_nonzero(s))} nonzero):")
        lines += wrap(nonzero(s))

    k = 0
    while not over():
        if k >= MAX_DECISIONS:
            raise RuntimeError(f"{v.filename}: no end after {MAX_DECISIONS} decisions")
        agent = env.agent_selection
        seat = seats[agent]
        bot = v.bot_of(seat)
        mask = env.action_mask()
        legal = np.flatnonzero(mask).tolist()
        if k < v.detailed:
            out.append("")
            out.append(f"== decision {k}: {agent} ({bot})")
            out.append("table:")
            out += ["   " + line for line in env.render().splitlines()]
            write_obs(out)
            if denv is not None and k < DICT_DECISIONS:
                denv.load_state_dict(env.state_dict())
                out.append(f"dict obs {agent}:")
                out += dict_obs_lines(denv.observe(agent)["observation"])
            if k in STATE_AT or k == v.detailed - 1:
                write_state(out)
            out.append(f"legal: {' '.join(map(str, legal))}")
        else:
            if k == v.detailed:
                out.append("")
                out.append(f"== decisions {v.detailed}.. (one line each)")
            obs_hash = digest(*[env.observe(a)["observation"] for a in agents], mask)
        action = env.bot_action(bot)
        text = env.action_to_str(action)
        env.step(action)
        rewards = " ".join(f"{a}={fnum(env.rewards[a])}" for a in agents)
        if k < v.detailed:
            out.append(f"action: {action} ({text})")
            out.append(f"rewards: {rewards}")
        else:
            paid = " ".join(f"{a}={fnum(env.rewards[a])}" for a in agents if env.rewards[a] != 0)
            out.append(
                f"{k} {agent} {bot} {action} ({text}) legal={len(legal)} obs={obs_hash}"
                + (f" rewards: {paid}" if paid else "")
            )
        k += 1
    out.append("")
    out.append(f"== end after {k} decisions")
    out.append("table:")
    out += ["   " + line for line in env.render().splitlines()]
    write_obs(out)
    write_state(out)
    out.append("rewards: " + " ".join(f"{a}={fnum(env.rewards[a])}" for a in agents))
    out.append("cumulative: " + " ".join(f"{a}={fnum(env._cumulative_rewards[a])}" for a in agents))
    out.append("terminations: " + " ".join(f"{a}={env.terminations[a]}" for a in agents))
    out.append("truncations: " + " ".join(f"{a}={env.truncations[a]}" for a in agents))
    out.append(f"result: {dump_json(env.result())}")
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------ Gymnasium and vector envs
def gym_text(game: str) -> str:
    import gymnasium as gym

    import cardgym

    gym_id = cardgym.GAMES[game].gym_id
    out = header(f"{game} single-agent Gymnasium episodes ({gym_id})", [
        "per step: learner action, reward, terminated, truncated, sha256[:16] of the "
        f"observation (rounded to {HASH_DECIMALS} decimals) and of info['action_mask']",
    ])
    for r, run in enumerate(GYM_RUNS[game]):
        env = gym.make(gym_id, opponent=run.opponent, seat=run.seat, **run.options)
        obs, info = env.reset(seed=run.seed)
        out.append(
            f"== episode {r}: options {dump_json(run.options)} seed {run.seed} opponent {run.opponent} "
            f"seat {run.seat} learner {run.learner}"
        )
        out.append(f"reset seat={info.get('seat')} obs={digest(obs)} mask={digest(info['action_mask'])} "
                   f"legal={' '.join(map(str, np.flatnonzero(info['action_mask'])))}")
        done, t = False, 0
        while not done:
            if t >= MAX_DECISIONS:
                raise RuntimeError(f"{game} gym episode {r}: no end after {MAX_DECISIONS} steps")
            action = env.unwrapped.bot_action(run.learner)
            obs, reward, term, trunc, info = env.step(action)
            done = term or trunc
            out.append(
                f"{t} a={action} r={fnum(reward)} term={int(term)} trunc={int(trunc)} "
                f"obs={digest(obs)} mask={digest(info['action_mask'])}"
            )
            t += 1
        if "result" in info:
            out.append(f"result: {dump_json(info['result'])}")
        out.append("")
        env.close()
    return "\n".join(out)


def vector_text(game: str) -> str:
    import cardgym

    out = header(f"{game} vector env batches (cardgym.make_vec, {VEC_ENVS} envs, {VEC_STEPS} steps)", [
        "per step: the actions (chosen by a bot), rewards, terminated, truncated, and sha256[:16] of the "
        f"observation batch (rounded to {HASH_DECIMALS} decimals), of info['action_mask'] and (same_step) "
        "of info['final_obs'] where present",
    ])
    for r, run in enumerate(VEC_RUNS[game]):
        vec = cardgym.make_vec(
            game, VEC_ENVS, opponent=run.opponent, seat=run.seat, autoreset_mode=run.autoreset_mode,
            **run.options,
        )
        obs, info = vec.reset(seed=run.seed)
        out.append(
            f"== batch {r}: options {dump_json(run.options)} seed {run.seed} opponent {run.opponent} "
            f"seat {run.seat} actions {run.chooser} autoreset {run.autoreset_mode}"
        )
        out.append(f"reset obs={digest(obs)} mask={digest(info['action_mask'])}")
        for t in range(VEC_STEPS):
            actions = np.asarray(vec.bot_actions(run.chooser))
            obs, rew, term, trunc, info = vec.step(actions)
            line = (
                f"{t} a={','.join(map(str, actions.tolist()))} r={','.join(fnum(x) for x in rew)} "
                f"term={''.join(str(int(x)) for x in term)} trunc={''.join(str(int(x)) for x in trunc)} "
                f"obs={digest(obs)} mask={digest(info['action_mask'])}"
            )
            if "_final_obs" in info and np.any(info["_final_obs"]):
                idx = np.flatnonzero(info["_final_obs"])
                line += f" final[{','.join(map(str, idx))}]={digest(np.stack([info['final_obs'][i] for i in idx]))}"
            out.append(line)
        out.append("")
        vec.close()
    return "\n".join(out)


# ------------------------------------------------------------------ driver
def all_files() -> dict:
    """File name -> a function producing its text, in a fixed order."""
    files = {}
    for v in VARIANTS:
        files[v.filename] = (lambda v=v: playthrough(v))
    for game in GAMES:
        files[f"{game}__gym.txt"] = (lambda g=game: gym_text(g))
        files[f"{game}__vector.txt"] = (lambda g=game: vector_text(g))
    return files


def first_difference(expected: str, actual: str, name: str, context: int = 3, max_lines: int = 40) -> str:
    """A short unified diff of two texts (stored vs regenerated), or ``""`` if they are equal."""
    if expected == actual:
        return ""
    diff = list(difflib.unified_diff(
        expected.splitlines(), actual.splitlines(), f"stored {name}", f"regenerated {name}",
        n=context, lineterm="",
    ))
    shown = diff[:max_lines]
    if len(diff) > max_lines:
        shown.append(f"... ({len(diff) - max_lines} more diff lines)")
    return "\n".join(shown)


def mismatch_message(name: str, diff: str) -> str:
    return (
        f"golden file tests/golden/{name} differs from a fresh run (first differences below).\n"
        f"If the change of behaviour is intended, regenerate with `{REGENERATE} --only {name}` "
        f"(or `{REGENERATE}` for every file) and review `git diff tests/golden`.\n{diff}"
    )


def select(names, only) -> list:
    if not only:
        return list(names)
    chosen = [n for n in names if any(n == o or n.startswith(o) for o in only)]
    if not chosen:
        raise SystemExit(f"--only {only} matches no golden file; files: {list(names)}")
    return chosen


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the stored files, write nothing")
    parser.add_argument("--only", nargs="*", default=None, help="file names or prefixes (e.g. skyjo__)")
    parser.add_argument("--dir", type=Path, default=HERE, help="folder of the golden files")
    args = parser.parse_args(argv)
    files = all_files()
    bad = 0
    for name in select(files, args.only):
        text = files[name]()
        path = args.dir / name
        if args.check:
            stored = path.read_text() if path.exists() else ""
            diff = first_difference(stored, text, name)
            if diff:
                bad += 1
                print(mismatch_message(name, diff), file=sys.stderr)
            else:
                print(f"ok {name}")
        else:
            path.write_text(text)
            print(f"wrote {name} ({len(text.encode())} bytes)")
    if args.check and not args.only:
        stale = sorted(p.name for p in args.dir.glob("*.txt") if p.name not in files)
        if stale:
            bad += 1
            print(f"stale golden files (no generator entry): {stale}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
