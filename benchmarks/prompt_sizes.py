"""The largest prompt a text player is given in each game, in characters and tokens.

Whole games between two copies of the game's default bot (``greedy``) are played through the text
players' runner (`cardgym.eval.text_games.play_one`), each seat a `TextPlayer` whose every prompt is
built, measured and then answered with the bot's move, once with ``history="recent"`` and once with
``history="full"``. For each game and history it prints the decisions a seat makes in a game (mean) and
the largest prompt: characters, and tokens of OpenAI's ``o200k_base`` encoding when a tokenizer that
ships it is installed (``pip install bpe-openai``: its wheel holds the encoding, nothing is downloaded
at run time), else an estimate of characters / 4, marked ``~``.

    python benchmarks/prompt_sizes.py [--games N] [--players N] [--game NAME ...]
"""

from __future__ import annotations

import argparse
import importlib

import cardgym
from cardgym.agents.text import HISTORIES, TextPlayer
from cardgym.eval.text_games import play_one

#: label -> (game, options) measured by default (quick Skip-Bo: stocks of 10 cards)
FORMATS = {"skyjo": ("skyjo", {}), "skipbo": ("skipbo", {}), "skipbo-quick": ("skipbo", {"stock_size": 10}),
           "skipbo_junior": ("skipbo_junior", {})}


def tokenizer():
    """``(name, count)``: ``count(text) -> tokens`` of ``o200k_base`` from an installed tokenizer that
    ships it, else ``("chars/4", estimate)``."""
    try:
        import bpe_openai

        enc = bpe_openai.get_encoding("o200k_base")
        return "o200k_base (bpe-openai)", lambda text: len(enc.encode(text))
    except Exception:  # noqa: BLE001 - not installed, or without the encoding: the estimate
        return "chars/4", lambda text: -(-len(text) // 4)


class Measured(TextPlayer):
    """A text player whose prompts are built and kept (the largest), and whose move is its bot's."""

    def __init__(self, *a, bot="greedy", **kw):
        super().__init__(*a, ask=lambda prompt: "", **kw)
        self.bot, self.env, self.sizes, self.largest = bot, None, [], ""

    def decide(self, view, moves=None):
        text = self.prompt(view, moves)
        self.sizes.append(len(text))
        if len(text) > len(self.largest):
            self.largest = text
        return self.env.bot_action(self.bot), None


def measure(name: str, options: dict, history: str, games: int, players: int = 2, seed: int = 0) -> dict:
    """The prompts of ``games`` games of ``name`` (every seat a `Measured` player with ``history``):
    ``decisions`` (a seat's, mean per game), ``chars`` (the largest prompt) and ``prompt`` (its text)."""
    game = cardgym.get_game(name)
    env = importlib.import_module(cardgym.GAMES[name].module).raw_env(num_players=players, **options)
    seats = [Measured(game, env.rules, bot=game.default_bot, history=history, name=f"p{k}") for k in range(players)]
    for p in seats:
        p.env = env
    for g in range(games):
        play_one(env, seats, seed + g)
    largest = max((p.largest for p in seats), key=len)
    decisions = sum(len(p.sizes) for p in seats) / (games * players)
    return {"decisions": decisions, "chars": len(largest), "prompt": largest}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=20, help="games per game and history")
    ap.add_argument("--players", type=int, default=2, help="players in each game")
    ap.add_argument("--game", action="append", choices=sorted(FORMATS), help="only these (repeatable)")
    args = ap.parse_args(argv)
    if args.games < 1:
        ap.error(f"argument --games: must be at least 1, got {args.games}")
    which, count = tokenizer()
    print(f"largest prompt of {args.games} games, {args.players} players, every seat its game's default bot; "
          f"tokens: {which}")
    print(f"{'game':14} {'history':8} {'decisions/seat':>14} {'chars':>7} {'tokens':>8}")
    rows = []
    for label in args.game or list(FORMATS):
        name, options = FORMATS[label]
        for history in HISTORIES:
            got = measure(name, options, history, args.games, args.players)
            tokens = count(got["prompt"])
            mark = "~" if which == "chars/4" else ""
            print(f"{label:14} {history:8} {got['decisions']:14.1f} {got['chars']:7d} {mark + str(tokens):>8}")
            rows.append({"game": label, "history": history, **{k: got[k] for k in ("decisions", "chars")},
                         "tokens": tokens, "tokenizer": which})
    return rows


if __name__ == "__main__":
    main()
