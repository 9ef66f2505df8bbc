"""What a text player's prompt holds (docs/llm_agents.md, "What the prompt holds"): every game's rules in
words a player reads (never code, API or layout text), the options in play, a table whose piles say
which end is their top and count what they show, Skyjo's round, and the whole public history on request,
compacted so that a long game's prompt stays bounded. `check_game` fails a page without its rules."""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest

import cardgym
from cardgym.agents.text import (MAX_HISTORY_CHARS, TABLE_GUIDE, History, TextPlayer, game_rules_text,
                                 history_text, moves_for, options_text, rules_summary, table_json)
from cardgym.eval.text_games import play_one
from cardgym.testing import GameCheckError, check_game

from conftest import GAME_NAMES

#: what code, API or layout text looks like in a prompt: a rules section must hold none of it
CODE_MARKS = [
    ("a code span", re.compile(r"`")),
    ("numpy", re.compile(r"\bnp\.")),
    ("a dtype", re.compile(r"\b(?:float|int|uint)(?:8|16|32|64)\b")),
    ("an observation", re.compile(r"\bobs(?:ervation)?\[|\bobservation space|\"vector\"")),
    ("a mask", re.compile(r"action_mask|\bmask\b")),
    ("a space", re.compile(r"\b(?:Discrete|Box|MultiDiscrete)\(")),
    ("an import", re.compile(r"\bimport\b|\bfrom cardgym\b")),
    ("a call", re.compile(r"\b(?:env|reset|step|make|gymnasium)\s*[.(]")),
    ("a keyword argument", re.compile(r"\b[a-z]+_[a-z_]+\s*=")),
    ("a source path", re.compile(r"\bsrc/|\.py\b")),
    ("a table row", re.compile(r"^\s*\|.*\|\s*$", re.M)),
]


def code_in(text: str) -> list:
    """The kinds of code, API or layout text found in ``text`` (with what matched)."""
    return [f"{what}: {m.group(0)!r}" for what, rx in CODE_MARKS for m in [rx.search(text)] if m]


def _env(name, **options):
    return importlib.import_module(cardgym.GAMES[name].module).raw_env(**options)


def _a_prompt(name, list_moves=True, **kw):
    """A prompt of the seat to act after a few random moves of ``name``'s default game."""
    game = cardgym.get_game(name)
    env = _env(name)
    env.reset(seed=5)
    for _ in range(3):
        if int(env.record["status"]) != 0:
            env.reset(seed=6)
        env.step(env.bot_action("random"))
    seat = int(env.record["current"])
    p = TextPlayer(game, env.rules, lambda q: "0", list_moves=list_moves, **kw)
    return p.prompt(env.view(seat), ["player_1: a public move"])


# ---------------------------------------------------------------------------------- rules, not code
@pytest.mark.parametrize("name", GAME_NAMES)
def test_every_game_prompt_holds_its_rules_and_no_code(name):
    """Every registered game (plugins included) has "The rules in plain words", the prompt holds that
    section (never the page's intro) and no code, API or layout text; with the moves hidden it does not
    tell the player to copy a listed move."""
    game = cardgym.get_game(name)
    page = cardgym.registry.page(name)
    section = re.search(r"^## The rules in plain words\s*$(.*?)(?=^## |\Z)", page, flags=re.S | re.M)
    assert section, f"{name}: the page has no '## The rules in plain words' section"
    rules = game_rules_text(game)
    first = section.group(1).strip().splitlines()[0]
    assert rules.startswith(first), f"{name}: the prompt's rules are not the section"
    for list_moves in (True, False):
        prompt = _a_prompt(name, list_moves=list_moves)
        assert rules in prompt
        assert not code_in(prompt), f"{name} (list_moves={list_moves}): {code_in(prompt)}"
        if not list_moves:
            assert "as listed" not in prompt


def test_the_code_check_catches_a_page_intro_and_a_spaces_table():
    """The mutant: a page without the section gives its intro to the prompt (Skyjo's names the source
    files, Skip-Bo's is a table of spaces): the check must see code in both."""
    for name, expect in (("skyjo", "a source path"), ("skipbo", "a table row")):
        page = cardgym.registry.page(name)
        mutant = re.sub(r"^## The rules in plain words\s*$.*?(?=^## )", "", page, flags=re.S | re.M)
        assert "plain words" not in mutant
        found = code_in(rules_summary(mutant))
        assert any(f.startswith(expect) for f in found), (name, found)
    assert not code_in(rules_summary(cardgym.registry.page("skyjo")))


def test_check_game_fails_a_page_without_the_rules_in_plain_words(monkeypatch):
    """A contract-2 game whose page lacks the section fails `check_game`'s spec check, naming it."""
    real = cardgym.registry.page

    def mutant(name):
        return re.sub(r"^## The rules in plain words\s*$.*?(?=^## )", "", real(name), flags=re.S | re.M)

    assert check_game("skipbo_junior", checks=["spec"])
    monkeypatch.setattr(cardgym.registry, "page", mutant)
    assert cardgym.get_game("skipbo_junior").contract >= 2
    with pytest.raises(GameCheckError, match="no '## The rules in plain words' section"):
        check_game("skipbo_junior", checks=["spec"])


def test_a_contract_1_game_without_the_section_gets_a_warning():
    compat = Path(__file__).with_name("compat")
    cardgym.registry.add(compat)
    try:
        assert cardgym.get_game("compat_blackjack_v1").contract == 1
        with pytest.warns(UserWarning, match="no '## The rules in plain words' section.*contract 1"):
            report = check_game("compat_blackjack_v1", checks=["spec"])
        assert all(v.startswith("passed (warning: ") for v in report.values()), report
    finally:
        for name in ("compat_blackjack_v1", "compat_blackjack_docs"):  # every game of the folder
            cardgym.registry.remove(name)


def test_the_prompt_names_the_players_and_the_options_in_play():
    game = cardgym.get_game("skipbo")
    assert options_text(game.make_rules(num_players=2)) == "This game: 2 players, the rules above without variants."
    rules = game.make_rules(num_players=4, stock_size=10, teams=True, build_directions="two_up_two_down",
                            reward="score")
    text = options_text(rules)
    assert text == ("This game: 4 players; options that differ from the rules above: stock size 10; teams on; "
                    "build directions two up two down.")
    p = TextPlayer(game, rules, lambda q: "0")
    assert p.rules_text.endswith(text) and not code_in(p.rules_text)
    assert TextPlayer(game, rules, lambda q: "0", rules_text="mine").rules_text == "mine"


# ---------------------------------------------------------------------------------------- the table
def _views(name, options, games=2, steps=80):
    """Views of every seat along random games."""
    game = cardgym.get_game(name)
    env = _env(name, **options)
    for g in range(games):
        env.reset(seed=20 + g)
        for _ in range(steps):
            if int(env.record["status"]) != 0:
                break
            for seat in range(env.num_players):
                yield game, env, env.view(seat)
            env.step(env.bot_action("random"))


@pytest.mark.parametrize("name", GAME_NAMES)
def test_every_pile_counts_at_least_what_it_lists_and_lists_no_empty_slot(name):
    """In every prompt table a pile's ``count`` is at least its cards listed, a named pile lists no empty
    slot ("--") and a pile that shows all its cards counts exactly those (Skyjo's held card was count 0;
    Skip-Bo's opponent hand listed 5 places with count 4)."""
    checked = 0
    for _, _, v in _views(name, {}, games=1, steps=40):
        data = json.loads(table_json(v, False))
        for reg in [data["table"]] + data["players"]:
            for pile in reg["piles"]:
                assert pile["count"] >= len(pile["cards"]), (name, pile)
                if not pile["pile"].startswith("row "):
                    assert "--" not in pile["cards"], (name, pile)
                checked += 1
    assert checked


def test_skyjo_held_card_round_and_grid_rows():
    seen_held = seen_round2 = 0
    for _, env, v in _views("skyjo", {}, games=2, steps=400):
        data = json.loads(table_json(v, False))
        assert re.match(r"Skyjo - round \d+ - turn \d+$", data["title"])
        held = next(p for p in data["table"]["piles"] if p["pile"] == "held")
        assert held["count"] == len(held["cards"]) <= 1
        seen_held += len(held["cards"])
        seen_round2 += data["title"].startswith("Skyjo - round 2")
        me = data["players"][v["viewer"]]
        assert [p["pile"] for p in me["piles"]] == ["row 0", "row 1", "row 2"]
        assert all(len(p["cards"]) == 4 for p in me["piles"])  # removed columns stay as "--"
    assert seen_held and seen_round2


def test_skipbo_hands_list_their_cards_only():
    for _, _, v in _views("skipbo", {}, games=1, steps=60):
        data = json.loads(table_json(v, False))
        for reg in data["players"]:
            hand = next(p for p in reg["piles"] if p["pile"] == "hand")
            assert len(hand["cards"]) == hand["count"], hand


def test_the_prompt_says_which_end_of_a_pile_is_its_top():
    prompt = _a_prompt("skipbo_junior")
    assert TABLE_GUIDE in prompt and "the last card listed is its top" in TABLE_GUIDE


# -------------------------------------------------------------------------------------- the history
def test_full_history_is_compacted_and_bounded():
    moves = [f"player_{k % 2}: move number {k} of a long game" for k in range(5000)]
    text = history_text(History(moves, since=4990))
    assert len(text) <= MAX_HISTORY_CHARS + 200
    assert text.startswith("(the first ") and "are left out" in text
    assert "- player_0: move number 4998 of a long game" in text.splitlines()
    recent = text.split("Since your last turn:\n", 1)[1].splitlines()
    assert recent == [f"- {m}" for m in moves[4990:]]
    short = history_text(History(["player_0: a", "player_0: b", "player_1: c", "player_0: d"], since=3))
    assert short == ("Earlier turns (one line a turn, oldest first):\n- player_0: a; b\n- player_1: c\n"
                     "Since your last turn:\n- player_0: d")
    with pytest.raises(ValueError, match="since must be 0..2"):
        History(["a", "b"], since=3)
    with pytest.raises(ValueError, match="history must be one of recent, full"):
        TextPlayer(cardgym.get_game("skipbo_junior"), cardgym.get_game("skipbo_junior").make_rules(), print,
                   history="all")


def test_a_full_history_player_sees_the_whole_game_and_a_recent_one_its_last_turn():
    """Through the runner (`play_one`): with ``history="full"`` the last prompt holds the first move of
    the game; with ``"recent"`` it does not, and its moves are those since the seat's last turn."""
    game = cardgym.get_game("skipbo_junior")
    env = _env("skipbo_junior")
    prompts = {"full": [], "recent": []}
    for mode in prompts:
        p = TextPlayer(game, env.rules, lambda q, m=mode: prompts[m].append(q) or "0", fallback="first",
                       history=mode, name=mode)
        play_one(env, [p, "greedy"], 3)
    first = prompts["full"][1].split("# The game so far (public moves)\n", 1)[1].split("\n# ", 1)[0]
    assert "Earlier turns" in first or "Since your last turn" in first
    opening = re.search(r"^- (player_\d: [^;\n]+)", first, re.M).group(1).split("; ")[0]
    assert opening in prompts["full"][-1]
    assert "# Moves since your last turn" in prompts["recent"][-1]
    assert len(prompts["full"][-1]) > len(prompts["recent"][-1])
    assert moves_for(p, ["a", "b", "c"], 2) == ["c"]


def test_the_llm_history_flag_reaches_the_player(tmp_path):
    from cardgym import cli

    script = tmp_path / "answer.py"
    out = tmp_path / "headings.txt"
    script.write_text("def answer(prompt):\n"
                      f"    open({str(out)!r}, 'a').write(prompt.split(chr(10) + '# ', 2)[2].split(chr(10))[0] + chr(10))\n"
                      "    return '0'\n")
    cli.main(["eval", "skipbo_junior", "--bots", f"text:{script}:answer,greedy", "--games", "1",
              "--llm-history", "full", "--llm-fallback", "first"])
    assert set(out.read_text().splitlines()) == {"The game so far (public moves)"}


def test_the_new_game_template_has_the_rules_in_plain_words():
    """A game made by ``cardgym new-game`` starts with the section, and its prompt rules hold no code
    (the writing note is an HTML comment, left out of the prompt)."""
    import cardgym.kit

    tmpl = Path(cardgym.kit.__file__).with_name("template") / "game" / "__init__.py.tmpl"
    page = re.sub(r"\{\{\w+\}\}", "Game", tmpl.read_text().split('"""')[1])
    assert re.search(r"^## The rules in plain words\s*$", page, re.M)
    rules = rules_summary(page)
    assert rules.startswith("- **Goal.**") and not code_in(rules), code_in(rules)
