"""A person plays against bots in the terminal (``cardgym play GAME``)."""

from __future__ import annotations

import os
import sys

import numpy as np

HELP = """Type the number of a move and press Enter.
  h or ?   this help        t   show the table again
  r        the rules        q   quit the game
Your seat is marked "(you)". You see what a player at the table sees: your own hand, every face-up card,
and the backs of hidden cards."""


def _color(enabled):
    def paint(text, code):
        return f"\033[{code}m{text}\033[0m" if enabled else text

    return paint


def _ask(prompt, inp, out):
    out.write(prompt)
    out.flush()
    line = inp.readline()
    if not line:
        raise EOFError
    return line.strip()


def play_terminal(game, vs="greedy", num_players=2, seat=0, seed=None, inp=None, out=None, **options):
    """Run one interactive episode. ``inp``/``out`` default to the terminal."""
    import cardgym

    inp = inp or sys.stdin
    out = out or sys.stdout
    paint = _color(out.isatty() and "NO_COLOR" not in os.environ)
    mod = __import__(cardgym.GAMES[game.name][0], fromlist=["raw_env"])
    env = mod.raw_env(num_players=num_players, **options)
    if not isinstance(seat, int) or not 0 <= seat < num_players:
        raise ValueError(f"seat must be 0..{num_players - 1}, got {seat!r}")
    if vs not in game.bots:
        from .core.opponents import load_model_opponent

        policy = load_model_opponent(game, vs, dict(num_players=num_players, **options), "vector")
    else:
        policy = None
    env.reset(seed=seed)
    me = env.possible_agents[seat]
    from . import render

    # a game may describe an action in its state ("discard the drawn 7 and reveal position 3") where its
    # action_to_str only knows the id
    in_context = game.describe_action

    def say(a):
        return in_context(env.record, env.rules, a) if in_context is not None else env.action_to_str(a)

    def show():
        out.write("\n" + render.ansi(game, env.record, env.rules, viewer=seat, color=out.isatty() and
                                      "NO_COLOR" not in os.environ) + "\n")

    out.write(paint(f"{game.title}: you are {me} against {vs}. Type h for help.\n", "1"))
    last_shown = None
    steps = 0
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        if agent != me:
            if policy is None:
                a = env.bot_action(vs)
            else:
                obs = env.observe(agent)
                a = int(policy.act(obs["observation"][None], obs["action_mask"][None])[0])
            out.write(paint(f"{agent}: {say(a)}\n", "36"))
            env.step(a)
            steps += 1
            continue
        if last_shown != steps:  # the table as it is now, before each of your decisions
            show()
            last_shown = steps
        legal = np.flatnonzero(env.action_mask()).tolist()
        out.write(paint("Your moves:\n", "1"))
        for k, a in enumerate(legal, 1):
            out.write(f"  {k:>3}. {say(a)}\n")
        while True:
            try:
                text = _ask(paint("your move> ", "33"), inp, out)
            except EOFError:
                out.write("\nbye\n")
                return None
            if text in ("h", "?", "help"):
                out.write(HELP + "\n")
                continue
            if text == "t":
                show()
                continue
            if text == "r":
                import shutil

                from .docs_pages import rules_text

                out.write(rules_text(game, width=min(100, shutil.get_terminal_size().columns)) + "\n")
                continue
            if text == "q":
                out.write("you left the game\n")
                return None
            if text.isdigit() and 1 <= int(text) <= len(legal):
                break
            out.write(paint(f"'{text}' is not a move: type a number from 1 to {len(legal)}, or h for help\n", "31"))
        a = legal[int(text) - 1]
        out.write(f"you: {say(a)}\n")
        env.step(a)
        steps += 1
    show()
    result = env.result()
    # what a result means is the game's to say (GameSpec.utility): against the house, no winner is no draw
    verdict = {"win": "You won!", "draw": "Draw.", "loss": "You lost."}[game.outcome(result, seat)]
    out.write(paint(f"Game over. {verdict}\n", "1"))
    out.write(f"result: {result}\n")
    return result
