"""The ``cardgym`` command: eval (JSON), rules, and play driven by keystrokes through a pseudo-terminal."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import time

import pytest

import cardgym
from cardgym.cli import main
from conftest import GAME_NAMES


def test_eval_json(capsys):
    main(["eval", "skipbo_junior", "--bots", "greedy,random", "--games", "40", "--seed", "3", "--json"])
    out = json.loads(capsys.readouterr().out)
    (pair,) = out["pairs"]
    assert {"a", "b", "games", "a_win_rate", "ci95", "draws"} <= set(pair)
    assert pair["games"] == 40 and pair["a"] == "greedy"
    lo, hi = pair["ci95"]
    assert 0 <= lo <= pair["a_win_rate"] <= hi <= 1
    assert set(out["ratings"]) == {"greedy", "random"}


@pytest.mark.parametrize("name", GAME_NAMES)
def test_eval_runs_on_every_game(name, capsys):
    main(["eval", name, "--bots", "greedy,random", "--games", "20", "--seed", "1", "--json"])
    (pair,) = json.loads(capsys.readouterr().out)["pairs"]
    # against the house a game counts deals, each played by both players (cardgym.eval.match)
    want = 10 if cardgym.get_game(name).utility == "house" else 20
    assert pair["games"] == want and pair["wins"] + pair["losses"] + pair["draws"] == want


def test_eval_is_reproducible_from_a_seed(capsys):
    args = ["eval", "skyjo", "--bots", "random,greedy", "--games", "20", "--seed", "5", "--json"]
    main(args)
    first = json.loads(capsys.readouterr().out)
    main(args)
    second = json.loads(capsys.readouterr().out)
    for p in first["pairs"] + second["pairs"]:
        p.pop("seconds"), p.pop("games_per_second")
    assert first == second


def test_eval_rule_options_and_errors(capsys):
    main(["eval", "skipbo_junior", "--bots", "greedy,random", "--games", "8", "--stock-size", "3", "--json"])
    assert json.loads(capsys.readouterr().out)["pairs"][0]["games"] == 8
    for argv, msg in ((["eval", "skipbo_junior", "--bots", "greedy,random", "--stock-sise", "3"], "unknown option --stock-sise"),
                      (["eval", "skyjo", "--bots", "greedy,nobody", "--games", "4"], "argument --bots: 'nobody' is neither a bot")):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2 and msg in capsys.readouterr().err


#: the games shipped with a page in cardgym/pages (a game added from outside has its docstring instead)
BUILTIN = cardgym.registry.names(builtin=True)


@pytest.mark.parametrize("name", BUILTIN)
def test_rules(name, capsys):
    main(["rules", name])
    assert len(capsys.readouterr().out) > 200


def _first_move(screen: str) -> str:
    """The first move number listed on the last screen of ``cardgym play`` ("  12  text" or "... 0→12")."""
    moves = screen.rsplit("Your moves", 1)[-1].split("your move>")[0]
    m = re.search(r"^\s+(\d+)  \S|[#:]:?\s+\S+→(\d+)", moves, re.M) or re.search(r"→(\d+)", moves)
    return next(g for g in m.groups() if g)


def _drive(argv, answers_for, timeout=240):
    """Run ``cardgym`` in a pseudo-terminal; answer each prompt with ``answers_for(prompt_count, output)``."""
    master, slave = pty.openpty()
    env = dict(os.environ, NO_COLOR="1", PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "cardgym.cli", *argv], stdin=slave, stdout=slave,
                            stderr=slave, env=env, close_fds=True)
    os.close(slave)
    out = b""
    prompts = 0
    deadline = time.time() + timeout
    try:
        while time.time() < deadline:
            ready, _, _ = select.select([master], [], [], 1.0)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                out += chunk
                while out.count(b"your move>") > prompts:
                    os.write(master, (answers_for(prompts, out.decode(errors="replace")) + "\n").encode())
                    prompts += 1
            elif proc.poll() is not None:
                break
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    return out.decode(errors="replace"), proc.returncode, prompts


@pytest.mark.parametrize("argv", [
    ["play", "skipbo_junior", "--vs", "greedy", "--seed", "1", "--stock-size", "3"],
    ["play", "skyjo", "--vs", "random", "--seed", "2", "--episode", "round"],
    ["play", "skipbo", "--vs", "greedy", "--seed", "3", "--stock-size", "2"],
])
@pytest.mark.slow
@pytest.mark.subprocess
def test_play_to_the_end_through_a_terminal(argv):
    def answer(k, screen):
        # first some bad input, the help key and a page of moves, then always the first listed move
        return {0: "banana", 1: "h", 2: "999", 3: "n"}.get(k) or _first_move(screen)

    out, code, prompts = _drive(argv, answer)
    assert code == 0, out[-2000:]
    assert "is not a move" in out  # bad input is asked again
    assert "Type the number of a move" in out  # the help text
    assert "Game over." in out and "result:" in out, out[-2000:]
    assert prompts >= 4


# ------------------------------------------------------------------ flags, help, rules pages, extras
HELPS = [["--help"], ["play", "--help"], ["eval", "--help"], ["rules", "--help"], ["train", "--help"]]
HELPS += [[cmd, name, "--help"] for cmd in ("play", "eval") for name in sorted(cardgym.GAMES)]


@pytest.mark.parametrize("argv", HELPS, ids=[" ".join(a) for a in HELPS])
def test_help_lists_defaults_bots_and_options_without_markup(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "``" not in out and "][" not in out  # docstring markup is rendered as plain text
    if argv[0] != "--help":
        assert "(default:" in out
    if len(argv) == 3:  # a game's own help: its bots and every rule option with its default
        game = cardgym.get_game(argv[1])
        assert all(b in out for b in game.bots)
        flat = " ".join(out.split())
        for opt in game.rules_cls.option_names():
            assert "--" + opt.replace("_", "-") in out, opt
        assert "--num-players N, --players N" in flat
    elif argv[0] in ("play", "eval"):  # no game: each game's bots and options in the epilog
        for name in cardgym.GAMES:
            assert f"  {name}: bots " in out


def test_num_players_has_one_spelling_and_an_alias(capsys):
    runs = []
    for spelling in ("--num-players", "--players"):
        main(["eval", "skyjo", "--bots", "greedy,random", "--games", "6", spelling, "3", "--json"])
        res = json.loads(capsys.readouterr().out)
        for p in res["pairs"]:
            p.pop("seconds"), p.pop("games_per_second")
        if res.get("multiplayer"):  # 3 seats: the line-up ratings carry a wall time too
            res["multiplayer"].pop("seconds")
        runs.append(res)
    assert runs[0] == runs[1] and runs[0]["pairs"][0]["games"] == 6
    with pytest.raises(SystemExit):  # the error lists the canonical spelling
        main(["eval", "skyjo", "--bots", "greedy,random", "--stock-size", "3"])
    assert "--num-players" in capsys.readouterr().err


def test_train_flags_match_play_and_eval():
    from cardgym.train.cli import config_from_args

    cfg, _ = config_from_args(["skipbo", "--num-players", "4", "--teams", "true", "--stock-size", "5",
                               "--rule", "reward=score"])
    assert cfg.rules == {"num_players": 4, "teams": True, "stock_size": 5, "reward": "score"}
    cfg, _ = config_from_args(["skyjo", "--players", "3", "--max-rounds", "none"])
    assert cfg.rules["num_players"] == 3 and cfg.rules["max_rounds"] is None


def test_eval_table_stays_aligned_with_long_names():
    from cardgym.cli import _table

    rows = [["runs/a/very/long/path/to/model.pt", "greedy", 2000, "55.0%"], ["random", "expert", 20, "1.0%"]]
    lines = _table(rows, ["a", "b", "games", "a win rate"], right=(2, 3)).splitlines()
    starts = {line.index(token) for line, token in zip(lines, ["b", "greedy", "expert"])}
    assert len(starts) == 1  # column b starts at the same offset on every line
    assert len({len(line) for line in lines}) == 1  # right-aligned last column ends together


def test_rules_are_rendered_not_raw_markdown(capsys):
    main(["rules", "skipbo"])
    out = capsys.readouterr().out
    assert "<!--" not in out and "|---" not in out and "``" not in out and "](" not in out
    assert "Skip-Bo" in out and len(out.splitlines()) > 100
    main(["rules", "skipbo", "--raw"])
    assert "|---" in capsys.readouterr().out


@pytest.mark.parametrize("name", BUILTIN)
def test_package_rules_page_equals_the_docs_page(name):
    from pathlib import Path

    from cardgym.app.pages import package_page

    docs = Path(__file__).resolve().parents[1] / "docs" / f"{name}.md"
    assert package_page(name).read_text() == docs.read_text(), (
        f"src/cardgym/pages/{name}.md differs from docs/{name}.md: run python -m cardgym.app.pages docs")


@pytest.mark.slow
@pytest.mark.subprocess
def test_wheel_ships_the_rules_pages(tmp_path):
    """A wheel built from the sources holds cardgym/pages/GAME.md (what cardgym rules reads)."""
    import shutil
    import zipfile
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    src = tmp_path / "src"
    shutil.copytree(root / "src", src, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "*.nbi", "*.nbc"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(root / name, tmp_path / name)
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                           "-w", str(tmp_path / "dist"), str(tmp_path)], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (wheel,) = (tmp_path / "dist").glob("cardgym-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for game in BUILTIN:
        assert f"cardgym/pages/{game}.md" in names


def _without(module: str, code: str):
    """Run ``code`` in a fresh interpreter where ``import module`` fails (as if it were not installed)."""
    prog = f"import sys\nsys.modules[{module!r}] = None\n{code}"
    return subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, timeout=300)


@pytest.mark.subprocess
def test_train_without_torch_names_the_extra():
    proc = _without("torch", "from cardgym.cli import main\nmain(['train', 'skyjo', '--steps', '1000'])")
    assert proc.returncode == 1
    assert proc.stderr.strip() == "cardgym train needs torch: pip install 'cardgym[train]'", proc.stderr


@pytest.mark.subprocess
def test_eval_of_a_model_without_torch_names_the_extra(tmp_path):
    model = tmp_path / "model.pt"
    model.write_bytes(b"not read")
    proc = _without("torch", f"from cardgym.cli import main\nmain(['eval', 'skyjo', '--bots', {str(model)!r} + ',greedy'])")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "pip install 'cardgym[train]'" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.slow
@pytest.mark.subprocess
def test_render_image_without_pillow_names_the_extra():
    proc = _without("PIL", """
from cardgym import render, skyjo_v0
e = skyjo_v0.raw_env(); e.reset(seed=0)
try:
    render.image(skyjo_v0.GAME, e.record, e.rules)
except ImportError as exc:
    print(exc)
""")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "cardgym.render.image needs Pillow: pip install 'cardgym[render]'"


# ------------------------------------------------------------------ play: what the human sees
def test_play_skyjo_shows_the_drawn_card_and_says_what_a_move_does():
    import io

    from cardgym.cli.play import play_terminal

    # two setup reveals, then draw from the draw pile, then quit
    inp, out = io.StringIO("0\n1\n24\nq\n"), io.StringIO()  # moves are action ids: reveal 0, 1; draw
    play_terminal(cardgym.get_game("skyjo"), vs="random", seed=4, inp=inp, out=out)
    text = out.getvalue()
    setup, _, turn = text.partition("draw from the draw pile\n")
    assert "reveal position 0 (row 0, col 0)\n" in setup and "drawn" not in setup  # no draw at setup
    assert "face-up sum 0, 12 face down" in setup  # labels say what they count
    assert " - holds " in turn and "held:[" in turn  # the table is shown again with the drawn card
    assert "discard the drawn " in turn and "replace position " in turn and ", with the drawn " in turn


def test_skyjo_describe_action_in_context():
    from cardgym import skyjo_v0
    from cardgym.games.skyjo.rules import A_DRAW, A_REPLACE, A_TAKE

    describe = skyjo_v0.GAME.describe_action
    e = skyjo_v0.raw_env(setup_reveal="random")
    e.reset(seed=3)
    top = int(e.record["discard"][int(e.record["discard_len"]) - 1])
    assert describe(e.record, e.rules, A_TAKE) == f"take the {top} from the discard pile"
    e.step(A_DRAW)
    held = int(e.record["held"])
    assert describe(e.record, e.rules, 5).startswith(f"discard the drawn {held} and reveal position 5")
    assert describe(e.record, e.rules, A_REPLACE + 5).endswith(f"with the drawn {held}")


@pytest.mark.subprocess
def test_plot_fallback_layout_without_matplotlib(tmp_path):
    """Pillow's learning curve: title centred on top, the y label turned in the left margin (not over
    the title), legend inside the plot."""
    proc = _without("matplotlib", f"""
from cardgym.train.plot import line_plot
line_plot({str(tmp_path / 'c.png')!r}, {{"vs random": ([0, 1, 2], [0.2, 0.5, 0.9]), "vs greedy": ([0, 1, 2], [0.1, 0.2, 0.4])}},
          title="skyjo: duplicate win rate of the argmax policy", xlabel="PPO learner steps", ylabel="win rate",
          ylim=(0, 1), hline=0.5)
""")
    assert proc.returncode == 0, proc.stderr[-2000:]
    import numpy as np
    from PIL import Image

    img = np.asarray(Image.open(tmp_path / "c.png").convert("L"))
    h, w = img.shape
    ink = img < 128
    assert not ink[:30, :200].any()  # the top-left corner (where the y label used to overprint the title) is empty
    assert ink[:30, w // 2 - 100: w // 2 + 100].any()  # the title, centred
    assert ink[h // 3: 2 * h // 3, :30].any()  # the turned y label in the left margin


@pytest.mark.subprocess
def test_rules_in_a_terminal_go_through_the_pager():
    """On a terminal, cardgym rules hands rich's rendering to $PAGER (here a sed that marks each line)."""
    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k != "MANPAGER"}
    env.update(PAGER="sed 's/^/PAGED:/'", TERM="xterm", COLUMNS="100", LINES="40")
    proc = subprocess.Popen([sys.executable, "-m", "cardgym.cli", "rules", "skipbo_junior"], stdin=slave,
                            stdout=slave, stderr=slave, env=env, close_fds=True)
    os.close(slave)
    out = b""
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 60)
            if not ready:
                break
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    text = out.decode(errors="replace")
    assert proc.returncode == 0, text[-2000:]
    assert text.count("PAGED:") > 100 and "<!--" not in text and "|---" not in text
    assert "\x1b[" in text  # styled for the terminal


@pytest.mark.slow
@pytest.mark.subprocess
def test_python_dash_m_cardgym_is_the_cardgym_command():
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "cardgym", "rules", "skyjo", "--width", "60"], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "Skyjo" in out.stdout
    bad = subprocess.run([sys.executable, "-m", "cardgym", "nosuchcommand"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "nosuchcommand" in bad.stderr


def test_no_help_shows_a_doubled_percent_sign():
    """Issue 42.7: ``cardgym eval --help`` printed "95%%" (a description is not %-formatted by argparse,
    a help string is: each gets exactly the escaping it needs)."""
    from cardgym.cli import build_parser

    parser = build_parser(["eval", "skyjo"])
    subs = next(a for a in parser._actions if a.dest == "command").choices
    helps = {name: sub.format_help() for name, sub in subs.items() if sub.add_help}
    assert "95% Wilson intervals" in helps["eval"]
    assert not [name for name, text in helps.items() if "%%" in text]
