"""The ``cardgym`` command: eval (JSON), rules, and play driven by keystrokes through a pseudo-terminal."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time

import pytest

import cardgym
from cardgym.cli import main


def test_eval_json(capsys):
    main(["eval", "skipbo_junior", "--bots", "greedy,random", "--games", "40", "--seed", "3", "--json"])
    out = json.loads(capsys.readouterr().out)
    (pair,) = out["pairs"]
    assert {"a", "b", "games", "a_win_rate", "ci95", "draws"} <= set(pair)
    assert pair["games"] == 40 and pair["a"] == "greedy"
    lo, hi = pair["ci95"]
    assert 0 <= lo <= pair["a_win_rate"] <= hi <= 1
    assert set(out["ratings"]) == {"greedy", "random"}


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
    with pytest.raises(SystemExit, match="unknown option --stock-sise"):
        main(["eval", "skipbo_junior", "--bots", "greedy,random", "--stock-sise", "3"])
    with pytest.raises(SystemExit, match="neither a bot"):
        main(["eval", "skyjo", "--bots", "greedy,nobody", "--games", "4"])


@pytest.mark.parametrize("name", sorted(cardgym.GAMES))
def test_rules(name, capsys):
    main(["rules", name])
    assert len(capsys.readouterr().out) > 200


def _drive(argv, answers_for, timeout=240):
    """Run ``cardgym`` in a pseudo-terminal; answer each prompt with ``answers_for(prompt_count)``."""
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
                    os.write(master, (answers_for(prompts) + "\n").encode())
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
def test_play_to_the_end_through_a_terminal(argv):
    def answer(k):
        # first some bad input and the help key, then always the first listed move
        return {0: "banana", 1: "h", 2: "99"}.get(k, "1")

    out, code, prompts = _drive(argv, answer)
    assert code == 0, out[-2000:]
    assert "is not a move" in out  # bad input is asked again
    assert "Type the number of a move" in out  # the help text
    assert "Game over." in out and "result:" in out, out[-2000:]
    assert prompts >= 4
