"""A person plays against bots in the terminal (``cardgym play GAME``)."""

from __future__ import annotations

import os
import pydoc
import re
import shutil
import sys
import textwrap

import numpy as np

HELP = """Type the number of a move and press Enter: the number before a move
("12  replace position 0 ..."), or in a row of like moves the number after the
arrow ("on build pile #:  0→52  1→53": 52 plays on pile 0). A move's number
is its action id: the same move has the same number every turn.
  h or ?   this help                      t   the table and your moves again
  n / p    next / previous page of moves  r   the rules (in a pager)
  q        quit the game
Your seat is marked "(you)". You see what a player at the table sees: your own
hand, every face-up card, and the backs of hidden cards."""

#: the terminal the screen is laid out for (the table and your moves on one screen)
WIDTH, HEIGHT = 80, 24

_ANSI = re.compile(r"\033\[[0-9;]*m")
#: the varying parts of move descriptions: numbers and card names written in capitals
_NUM = re.compile(r"\d+|\b[A-Z][A-Z-]*\b")


def _visible(text: str) -> int:
    return len(_ANSI.sub("", text))


def compact_table(table: str, width: int = WIDTH) -> list:
    """The rendered table as screen lines: blank lines dropped, lines wider than ``width`` wrapped."""
    out = []
    for line in table.splitlines():
        if not line.strip():
            continue
        while _visible(line) > width and "   " in line:  # first close up the columns' wide gaps
            line = line.replace("   ", "  ", 1)
        if _visible(line) <= width:
            out.append(line)
        else:
            out += textwrap.wrap(_ANSI.sub("", line), width, subsequent_indent="    ")
    return out


def group_moves(moves: list) -> list:
    """Moves ``[(id, description)]`` as rows ``[(label, [(value, id)])]``.

    Descriptions that differ only in their numbers (parenthesised details aside) share a row: the last
    number that varies becomes ``#`` in the label, and each cell pairs its value with the move's id
    ("play a WILD from your hand on build pile #: 0→52 1→53 ..."); when two numbers vary, the first
    one splits the rows and any other becomes ``…``. A move alone keeps its full description (value
    ``None``)."""
    groups: dict = {}
    for a, text in moves:
        short = re.sub(r"\s*\([^)]*\)", "", text)
        parts, nums = _NUM.split(short), _NUM.findall(short)
        groups.setdefault("#".join(parts), []).append((a, text, parts, nums))
    rows: dict = {}
    for members in groups.values():
        k = len(members[0][3])
        varying = [i for i in range(k) if len({m[3][i] for m in members}) > 1]
        if len(members) < 2 or not varying:
            for a, text, _, _ in members:
                rows[(text, a)] = [(None, a, text)]
            continue
        col, split = varying[-1], (varying[0] if len(varying) > 1 else None)
        for a, text, parts, nums in members:
            shown = [n if i not in varying or i == split else ("#" if i == col else "…") for i, n in enumerate(nums)]
            label = "".join(p + (shown[i] if i < len(shown) else "") for i, p in enumerate(parts))
            rows.setdefault(label, []).append((nums[col], a, text))
    out = []
    for label, cells in rows.items():
        if isinstance(label, tuple) or len(cells) == 1:  # a move alone: its own full description
            out.append((label[0] if isinstance(label, tuple) else cells[0][2], [(None, cells[0][1])]))
        else:
            out.append((label, [(v, a) for v, a, _ in cells]))
    return out


def move_blocks(moves: list, width: int = WIDTH) -> list:
    """The lines of the move list (`group_moves`): a row per group of moves with their numbers, single
    moves in as many columns as fit ``width``; in blocks that a page keeps together (a row and its
    wrapped continuation lines)."""
    digits = len(str(max(a for a, _ in moves))) if moves else 1
    lines, singles = [], []

    def flush():
        if not singles:
            return
        labels = [f"{a:>{digits}}  {t}" for t, a in singles]
        cell = max(len(x) for x in labels) + 3
        cols = max(1, (width - 2 + 3) // cell)
        nrows = -(-len(labels) // cols)
        for r in range(nrows):
            line = "  " + "".join(labels[r + c * nrows].ljust(cell) for c in range(cols) if r + c * nrows < len(labels))
            line = line.rstrip()
            lines.append([line if len(line) <= width else line[: width - 1] + "…"])
        singles.clear()

    for label, cells in group_moves(moves):
        if cells[0][0] is None:
            singles.append((label, cells[0][1]))
            continue
        flush()
        text = f"{label}:  " + "  ".join(f"{v}→{a}" for v, a in cells)
        lines.append(textwrap.wrap(text, width, initial_indent="  ", subsequent_indent="      ",
                                   break_on_hyphens=False))
    flush()
    return lines


def screen(table: str, moves: list, page: int = 0, width: int = WIDTH, height: int = HEIGHT) -> tuple:
    """``(lines, pages)``: the table and page ``page`` of your moves, within ``width`` x ``height`` with
    the prompt line below (the moves are paged when the table leaves too little room)."""
    top = compact_table(table, width)
    # a header line above the moves, the prompt below (a table taller than the terminal, with many
    # players, still gets two rows of moves under it)
    rows = max(2, height - len(top) - 2)
    chunks = [[]]  # pages of whole blocks (a block longer than a page is cut)
    for block in move_blocks(moves, width):
        while block:
            room = rows - len(chunks[-1])
            if room < len(block) and chunks[-1]:
                chunks.append([])
                continue
            chunks[-1] += block[:rows]
            block = block[rows:]
    pages = len(chunks)
    page = min(max(0, page), pages - 1)
    more = f"; page {page + 1}/{pages} (n/p)" if pages > 1 else ""
    header = f"Your moves: type a number (in a row, the one after →){more}; h: help"
    return top + [header] + chunks[page], pages


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


def _start_game(game, vs, num_players, seat, seed, record, options) -> tuple:
    """``(env, policy, recorder, step)`` of a new terminal game: the raw AEC env dealt with ``seed``, the
    opponents' policy (None for a bot), the game recorder when ``record`` is given (None otherwise) and
    the step function that records."""
    import cardgym

    mod = __import__(cardgym.GAMES[game.name].module, fromlist=["raw_env"])
    env = mod.raw_env(num_players=num_players, **options)
    if not isinstance(seat, int) or not 0 <= seat < num_players:
        raise ValueError(f"seat must be 0..{num_players - 1}, got {seat!r}")
    if vs not in game.bots:
        from cardgym.core.envs.opponents import load_model_opponent

        policy = load_model_opponent(game, vs, dict(num_players=num_players, **options), "vector")
    else:
        policy = None
    if record is None:
        env.reset(seed=seed)
        return env, policy, None, env.step
    from cardgym.app.game_records import GameRecorder

    recorder = GameRecorder(env, [vs if i != seat else "person" for i in range(num_players)])
    recorder.reset(seed=seed)
    return env, policy, recorder, recorder.step


def _screen(game, env, seat, inp, out) -> tuple:
    """``(say, show, rules)`` of a terminal game: an action in words, the table (with a page of moves)
    fitted to the terminal, the rules (in a pager on a terminal)."""
    from cardgym import render

    # a game may describe an action in its state ("discard the drawn 7 and reveal position 3") where its
    # action_to_str only knows the id
    in_context = game.describe_action

    def say(a):
        return in_context(env.record, env.rules, a) if in_context is not None else env.action_to_str(a)

    def table(width=WIDTH, height=HEIGHT):
        if game.scene is None:  # a game without a scene (optional): its own text of the table
            return game.render_ansi(env.record, env.rules)
        from cardgym.render.draw_text import terminal

        # as compact as it takes to leave room for moves: regions packed, other seats side by side
        return "\n".join(terminal(render.table_scene(game, env.record, env.rules, seat),
                                  color=out.isatty() and "NO_COLOR" not in os.environ, width=width, height=height))

    def show(moves=None, page=0) -> int:
        """The table, with ``moves`` and page ``page`` of them, fitted to the terminal (at least 80x24);
        returns the number of pages of moves."""
        if moves is None:
            out.write("\n" + table() + "\n")
            return 1
        cols, rows = shutil.get_terminal_size((WIDTH, HEIGHT))
        width, height = max(WIDTH, min(cols, 120)), max(HEIGHT, rows)
        lines, pages = screen(table(width, height), moves, page, width=width, height=height)
        body = "\n".join(lines)
        out.write(body + "\n")
        return pages

    def rules():
        from cardgym.app.pages import rules_text

        text = rules_text(game, width=min(100, shutil.get_terminal_size().columns))
        if out is sys.stdout and out.isatty() and inp is sys.stdin:
            pydoc.pager(text)  # the terminal's pager ($PAGER, else less or more)
        else:
            out.write(text + "\n")

    return say, show, rules


def _your_move(legal: list, moves: list, show, rules, paint, inp, out):
    """Ask for the player's move until it is one of ``legal`` (the table and ``moves`` shown, paged with
    t/n/p; h help, r the rules); None when the player leaves (q, or the end of the input)."""
    page = 0
    pages = show(moves, page)  # the table as it is now and your moves, on one screen
    while True:
        try:
            text = _ask(paint("your move> ", "33"), inp, out)
        except EOFError:
            out.write("\nbye\n")
            return None
        if text in ("h", "?", "help"):
            out.write(HELP + "\n")
            continue
        if text in ("t", "n", "p"):
            page = 0 if text == "t" else (page + (1 if text == "n" else -1)) % pages
            pages = show(moves, page)
            continue
        if text == "r":
            rules()
            continue
        if text == "q":
            out.write("you left the game\n")
            return None
        if text.isdigit() and int(text) in legal:
            return int(text)
        out.write(paint(f"'{text}' is not a move: type one of the numbers listed ({legal[0]}"
                        f"{', ...' if len(legal) > 2 else ''}{', ' + str(legal[-1]) if len(legal) > 1 else ''}),"
                        f" or h for help\n", "31"))


def play_terminal(game, vs=None, num_players=2, seat=0, seed=None, inp=None, out=None, record=None, **options):
    """Run one interactive episode. ``inp``/``out`` default to the terminal; ``record``: a file to write
    the game record to (`cardgym.app.game_records`), also when the game is left before its end. ``vs``
    defaults to the game's `cardgym.core.contract.game.GameSpec.default_bot` (greedy when it has one)."""
    vs = game.default_bot if vs is None else vs
    inp = inp or sys.stdin
    out = out or sys.stdout
    paint = _color(out.isatty() and "NO_COLOR" not in os.environ)
    env, policy, recorder, step = _start_game(game, vs, num_players, seat, seed, record, options)
    me = env.possible_agents[seat]
    say, show, rules = _screen(game, env, seat, inp, out)

    out.write(paint(f"{game.title}: you are {me} against {vs}. Type h for help.\n", "1"))
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            step(None)
            continue
        if agent != me:
            if policy is None:
                a = env.bot_action(vs)
            else:
                obs = env.observe(agent)
                a = int(policy.act(obs["observation"][None], obs["action_mask"][None])[0])
            out.write(paint(f"{agent}: {say(a)}\n", "36"))
            step(a)
            continue
        legal = np.flatnonzero(env.action_mask()).tolist()
        a = _your_move(legal, [(a, say(a)) for a in legal], show, rules, paint, inp, out)
        if a is None:  # left the game (q, or the end of the input)
            if recorder is not None:
                recorder.save(record)
            return None
        out.write(f"you: {say(a)}\n")
        step(a)
    show()
    if recorder is not None:
        out.write(f"record: {recorder.save(record)}\n")
    result = env.result()
    # what a result means is the game's to say (GameSpec.utility): against the house, no winner is no draw
    verdict = {"win": "You won!", "draw": "Draw.", "loss": "You lost."}[game.outcome(result, seat)]
    out.write(paint(f"Game over. {verdict}\n", "1"))
    out.write(f"result: {result}\n")
    return result
