"""``cardgym play`` in an 80x24 terminal: the table and the moves on one screen (moves grouped, paged
when the table leaves too little room), move numbers = action ids (from 0, like positions and piles)."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest

import cardgym
from cardgym import render
from cardgym.cli.play import HEIGHT, WIDTH, _visible, group_moves, play_terminal, screen

BUILTIN = cardgym.registry.names(builtin=True)


def _busiest(name, num_players=2, seed=3, turns=400):
    """A mid-game position of ``name`` with the most legal moves met in a random game (for Skyjo, a
    drawn card in hand): ``(table text, [(id, description)])``."""
    game = cardgym.get_game(name)
    mod = __import__(cardgym.GAMES[name].module, fromlist=["raw_env"])
    env = mod.raw_env(num_players=num_players)
    env.reset(seed=seed)
    best = None
    for _ in range(turns):
        if not env.agents:
            break
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        legal = np.flatnonzero(env.action_mask()).tolist()
        if best is None or len(legal) > len(best[1]):
            seat = env.possible_agents.index(agent)
            table = render.ansi(game, env.record, env.rules, viewer=seat, color=True)
            say = game.describe_action
            moves = [(a, say(env.record, env.rules, a) if say else env.action_to_str(a)) for a in legal]
            best = (table, moves)
        env.step(env.bot_action("random"))
    return best


def _ids(lines):
    """The move numbers shown on a screen's move lines."""
    ids = []
    for line in lines:
        plain = _visible(line) and re.sub(r"\033\[[0-9;]*m", "", line)
        ids += [int(x) for x in re.findall(r"→(\d+)\b", plain)]
        ids += [int(x) for x in re.findall(r"(?:^|   )\s*(\d+)  \S", plain) if "→" not in plain]
    return ids


@pytest.mark.parametrize("name", BUILTIN)
def test_every_page_fits_80x24_and_the_pages_hold_every_move_once(name):
    table, moves = _busiest(name)
    assert len(moves) >= 6
    lines, pages = screen(table, moves)
    shown = []
    for page in range(pages):
        lines, _ = screen(table, moves, page)
        assert len(lines) + 1 <= HEIGHT  # + the prompt line
        assert max(_visible(line) for line in lines) <= WIDTH
        head = next(k for k, line in enumerate(lines) if line.startswith("Your moves"))
        assert head >= 5  # the table is on the screen, above the moves
        shown += _ids(lines[head + 1:])
        if len(lines) > head + 1:  # a page starts with a row, never with the wrapped end of one
            assert not re.match(r"      \S", lines[head + 1]), lines[head + 1]
    assert sorted(shown) == sorted(a for a, _ in moves), (shown, moves)
    described = dict(moves)
    for label, cells in group_moves(moves):
        if cells[0][0] is None:  # a move alone is shown with its own description
            assert described[cells[0][1]] == label
        else:  # a row: its label with the cell's value in place of # is the move's description, details aside
            for v, a in cells:
                want = re.sub(r"\s*\([^)]*\)", "", described[a])
                assert re.fullmatch(re.escape(label).replace("…", ".+?").replace("\\#", "#").replace("#", re.escape(v)), want)


def test_skyjo_moves_are_grouped_and_numbered_by_action_id():
    table, moves = _busiest("skyjo")
    rows = dict(group_moves(moves))
    reveal = next(cells for label, cells in rows.items() if "reveal position #" in label)
    assert all(int(v) == a for v, a in reveal)  # reveal position p is move p: one origin for both
    replace = next(cells for label, cells in rows.items() if label.startswith("replace position #"))
    assert all(a == 12 + int(v) for v, a in replace)
    lines, pages = screen(table, moves)
    assert pages <= 2 and "held:[" in "\n".join(lines)  # the held card stays on the screen


def test_play_pages_reprints_and_shows_the_rules(monkeypatch):
    # Skip-Bo of four (the README's example) leaves room for a few rows of moves: n pages on, t shows table and moves again
    monkeypatch.setattr("shutil.get_terminal_size", lambda fallback=None: __import__("os").terminal_size((80, 24)))
    inp, out = io.StringIO("n\nt\nr\n999\nq\n"), io.StringIO()
    play_terminal(cardgym.get_game("skipbo"), vs="random", seed=3, inp=inp, out=out, num_players=4, teams=True)
    text = out.getvalue()
    assert "page 1/" in text and "page 2/" in text  # n: the next page of moves
    assert text.count("Build piles") >= 3  # first screen, the page, and t reprint the table with the moves
    assert "Skip-Bo" in text and "stock" in text.split("your move> ")[3]  # r: the rules (no pager off a terminal)
    assert "'999' is not a move" in text and "you left the game" in text


def test_a_listed_number_plays_that_action():
    inp, out = io.StringIO("3\nq\n"), io.StringIO()  # at Skyjo's setup, move 3 reveals position 3
    play_terminal(cardgym.get_game("skyjo"), vs="random", seed=4, inp=inp, out=out)
    assert "you: reveal position 3 (row 0, col 3)" in out.getvalue()


def _configs():
    """Every game at every player count it takes, and the README's Skip-Bo of four in teams."""
    out = []
    for name in BUILTIN:
        game = cardgym.get_game(name)
        out += [(name, n, {}) for n in range(game.min_players, game.max_players + 1)]
    return out + [("skipbo", 4, {"teams": True})]


@pytest.mark.slow
@pytest.mark.parametrize("name,n,rules", _configs(), ids=lambda x: str(x).replace(" ", ""))
def test_the_whole_table_and_the_moves_fit_80x24(name, n, rules):
    """At 80x24, mid-game: the acting seat's whole region (its hand), the shared piles it plays to and
    its moves are on the one screen, nothing wider than 80 columns, the moves listed in the order of
    their numbers."""
    from cardgym.render.draw_text import region_block, terminal

    game = cardgym.get_game(name)
    mod = __import__(cardgym.GAMES[name].module, fromlist=["raw_env"])
    env = mod.raw_env(num_players=n, **rules)
    env.reset(seed=5)
    for turn in range(60):  # a position some way into the game
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        if turn >= 4 * n:
            break
        env.step(env.bot_action("random"))
    seat = env.possible_agents.index(env.agent_selection)
    scene = render.table_scene(game, env.record, env.rules, seat)
    legal = np.flatnonzero(env.action_mask()).tolist()
    moves = [(a, game.describe_action(env.record, env.rules, a)) for a in legal]
    lines, pages = screen("\n".join(terminal(scene)), moves)
    plain = [re.sub(r"\033\[[0-9;]*m", "", x) for x in lines]
    assert len(lines) + 1 <= HEIGHT and max(map(len, plain)) <= WIDTH, (len(lines), plain)
    mine = next(r for r in scene.players if "(you)" in r.title)
    for region in (mine, scene.table):  # drawn whole, packed or tight: every line of it on the screen
        ways = [render.draw_text.region_lines(region, scene.palette, False),
                region_block(region, scene.palette, False, WIDTH),
                region_block(region, scene.palette, False, WIDTH, tight=True)]
        assert any(all(x in plain for x in blk) for blk in ways), (region.title, ways, plain)
    head = next(k for k, x in enumerate(plain) if x.startswith("Your moves"))
    from cardgym.cli.play import move_blocks

    assert len(plain) - head - 1 >= min(2, len(move_blocks(moves)))  # moves under the table
    rows = []  # one order in every game: rows by their first number, rising; in a row, rising
    for x in plain[head + 1:]:
        if re.match(r"      \S", x):
            rows[-1] += _ids([x])
        elif "→" in x or x.rstrip().endswith(":") or not _ids([x]):
            rows.append(_ids([x]))
        else:
            rows += [[i] for i in _ids([x])]
    rows = [r for r in rows if r]
    assert rows and [r[0] for r in rows] == sorted(r[0] for r in rows), rows
    assert all(r == sorted(r) for r in rows), rows
