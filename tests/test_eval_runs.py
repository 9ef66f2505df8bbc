"""Evaluations of text players at a model's scale (cardgym.eval.runs, ``--concurrency``, ``--resume``,
``--price-in``/``--price-out``): games in flight give the results of one at a time, a run killed mid-way
and resumed ends with the table of an uninterrupted one, a folder of another run is refused naming the
field that differs, and the cost follows the tokens."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
import time

import pytest

import cardgym
from cardgym import cli
from cardgym import eval as ev
from cardgym.agents.text import Reply, TextPlayer
from cardgym.eval import runs
from cardgym.eval.text_games import add_counts, check_concurrency

JUNIOR = "skipbo_junior"

PLAYERS = r'''
import re, time

def _ids(prompt):
    return re.findall(r"^(\d+): ", prompt, re.M)

def picky(prompt):
    """A legal id from the prompt's list, or an unparsable answer (again in the rethink), decided by the
    list of legal moves alone."""
    ids = _ids(prompt)
    h = sum(map(ord, "".join(re.findall(r"^\d+: .*$", prompt, re.M))))
    return "banana" if h % 4 == 0 or not ids else ids[h % len(ids)]

def slow(prompt):
    time.sleep(0.01)
    return picky(prompt)
'''


def _cli(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        cli.main(argv)
    return out.getvalue(), err.getvalue()


@pytest.fixture
def players_file(tmp_path):
    f = tmp_path / "players.py"
    f.write_text(PLAYERS)
    return f


def _picky(prompt):
    ids = re.findall(r"^(\d+): ", prompt, re.M)
    h = sum(map(ord, "".join(re.findall(r"^\d+: .*$", prompt, re.M))))
    return "banana" if h % 4 == 0 or not ids else ids[h % len(ids)]


def _text_player(ask=_picky, fallback="random", seed=5, name="picky"):
    spec = cardgym.get_game(JUNIOR)
    return TextPlayer(spec, spec.make_rules(num_players=2), ask, fallback=fallback, seed=seed, name=name)


def _same(m1, m2):
    keys = ("games", "wins", "draws", "losses", "a_win_rate", "a_mean_reward", "mean_turns", "forfeits")
    return {k: m1[k] for k in keys} == {k: m2[k] for k in keys}


@pytest.mark.slow
def test_games_in_flight_give_the_results_of_one_at_a_time():
    # unparsable answers every fourth prompt: rethinks, and random fallbacks drawn from each game's generator
    m1 = ev.match(JUNIOR, _text_player(), "greedy", games=8, seed=3)
    m4 = ev.match(JUNIOR, _text_player(), "greedy", games=8, seed=3, concurrency=4)
    assert _same(m1, m4), (m1, m4)
    t1, t4 = m1["text"]["picky"], m4["text"]["picky"]
    assert t1["fallbacks"] > 0 and t1["parse_errors"] > 0
    for k in ("decisions", "answers", "parse_errors", "illegal", "rethinks", "fallbacks", "forfeits", "errors"):
        assert t1[k] == t4[k], k
    with pytest.raises(ValueError, match=r"concurrency must be an integer 1\.\.1024"):
        ev.match(JUNIOR, _text_player(), "greedy", games=2, concurrency=0)
    with pytest.raises(ValueError, match="concurrency"):
        check_concurrency(True)


def test_counts_add_up_key_by_key_and_nested():
    into = {"a": 1, "x": {"ok": 2}}
    before = dict(into)
    add_counts(into, {"a": 2, "b": 0.5, "x": {"ok": 1, "empty": 3}, "flag": True})
    assert into == {"a": 3, "b": 0.5, "x": {"ok": 3, "empty": 3}}
    assert before["x"] == {"ok": 2}  # a shallow copy taken before keeps its counts


def test_cost_from_prices_per_million_tokens():
    c = runs.cost(2_000_000, 500_000, price_in=0.5, price_out=2.0, games=10)
    assert c["usd"] == pytest.approx(2.0) and c["usd_per_game"] == pytest.approx(0.2)
    assert runs.cost(100, 100) is None
    assert runs.cost(None, None, price_in=1.0)["usd"] is None
    with pytest.raises(ValueError, match="price_out must be a price in US dollars per million tokens"):
        runs.cost(1, 1, price_in=1.0, price_out=-1)


def test_a_run_folder_is_resumed_only_by_the_same_run(tmp_path, players_file):
    rec = tmp_path / "run"
    argv = ["ladder", JUNIOR, "--player", f"text:{players_file}:picky", "--deals", "1", "--record", str(rec)]
    out, _ = _cli(argv)
    manifest = json.loads((rec / runs.MANIFEST).read_text())
    assert manifest["command"] == "ladder" and manifest["game"] == JUNIOR and manifest["deals"] == 1
    assert manifest["players"][0]["template_sha256"] and manifest["harness"]["source_sha256"]
    assert manifest["cardgym"] == cardgym.__version__ and manifest["seed"] == 20_260_000
    assert len(runs.read_journal(rec / runs.JOURNAL)) == 6 and len(list(rec.glob("*.jsonl"))) == 6
    # the same folder again without --resume: refused
    with pytest.raises(SystemExit, match="already holds a run"):
        _cli(argv)
    # another run: refused, naming the field
    resume = argv[:-2] + ["--resume", str(rec)]
    with pytest.raises(SystemExit, match=r"differs from this one in deals: the folder's run has 1, this run 2"):
        _cli([x if x != "1" else "2" for x in resume])
    other = tmp_path / "template.txt"
    other.write_text("{title} {legal} {answer_format}")
    with pytest.raises(SystemExit, match=r"players\[0\]\.template_sha256"):
        _cli(resume + ["--llm-template", str(other)])
    # everything finished: the resumed run plays nothing and prints the same table; a faster run may resume
    again, err = _cli(resume + ["--concurrency", "3"])
    assert again == out and "resumed: 6 games" in err
    for argv, said in ((["--player", "greedy", "--concurrency", "2"], "argument --concurrency: applies to runs with a text"),
                       (["--player", f"text:{players_file}:picky", "--move-quality"], "argument --move-quality: reads"),
                       (["--player", f"text:{players_file}:picky", "--record", str(rec), "--resume", str(rec)],
                        "give --resume DIR in place of --record DIR")):
        err = io.StringIO()
        with pytest.raises(SystemExit) as exc, contextlib.redirect_stderr(err):
            cli.main(["ladder", JUNIOR, *argv])
        assert exc.value.code == 2 and said in err.getvalue()


def test_price_flags_print_the_cost_of_a_run_with_token_counts(tmp_path):
    class Counted:
        def chat(self, messages):
            return Reply(_picky(messages[0]["content"]), tokens_in=1000, tokens_out=10)

    p = _text_player(ask=Counted(), name="counted")
    r = ev.match(JUNIOR, p, "random", games=2, seed=1)
    st = r["text"]["counted"]
    c = runs.cost(st["tokens_in"], st["tokens_out"], 1.0, 4.0, games=2)
    assert st["tokens_in"] == 1000 * st["answers"]
    assert c["usd"] == pytest.approx((1000 * st["answers"] * 1.0 + 10 * st["answers"] * 4.0) / 1e6)


@pytest.mark.slow
@pytest.mark.subprocess
def test_a_killed_ladder_run_resumed_ends_with_the_uninterrupted_table(tmp_path, players_file):
    player = f"text:{players_file}:slow"
    base = ["ladder", JUNIOR, "--player", player, "--deals", "3", "--json"]
    whole, _ = _cli(base + ["--record", str(tmp_path / "whole")])
    folder = tmp_path / "killed"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    proc = subprocess.Popen([sys.executable, "-m", "cardgym", *base, "--record", str(folder), "--concurrency", "2"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    journal = folder / runs.JOURNAL
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if journal.is_file() and len(runs.read_journal(journal)) >= 4:
                break
            time.sleep(0.05)
    finally:
        proc.kill()
        proc.wait(30)
    done = len(runs.read_journal(journal))
    assert 4 <= done < 18, f"the run was not killed mid-way ({done} games finished)"
    resumed, err = _cli(base + ["--resume", str(folder), "--concurrency", "3"])
    assert f"resumed: {done} games" in err
    a, b = json.loads(whole), json.loads(resumed)
    for k in ("rating", "se", "ci95", "games"):
        assert a[k] == b[k], k
    for bot in a["matches"]:
        assert _same(a["matches"][bot], b["matches"][bot]), bot
    for k in ("decisions", "answers", "parse_errors", "rethinks", "fallbacks"):
        assert a["text"][k] == b["text"][k], k
    assert len(list(folder.glob("*.jsonl"))) == 18


@pytest.mark.slow
@pytest.mark.subprocess
def test_the_concurrency_benchmark_runs_against_its_fake_server():
    from pathlib import Path

    from conftest import load_file

    bench = load_file(Path(__file__).resolve().parents[1] / "benchmarks" / "llm_concurrency.py", "llm_concurrency")
    r = bench.run("skipbo_junior", deals=1, concurrency=4, latency=0.01, sequential_games=2)
    assert r["games"] == 6 and r["errors"] == 0 and r["requests"] == r["decisions"] > 0
    assert r["tokens_in"] > 0 and r["wall_concurrent_s"] > 0 and r["cpu_ms_per_decision"] > 0
