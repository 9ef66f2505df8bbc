"""Issue 42.3: a broken game is contained. With a plugin installed whose game fails at import, and one
whose game fails the contract (``GameSpec.from_package`` refuses it), every command, the web table and
the MCP server work; the broken games are listed with their error in one line (game, package, error)
and refused only where they are asked for."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import cardgym
from cardgym import registry

SRC = Path(__file__).resolve().parents[1] / "src"

#: game -> the error its load must name
BROKEN = {"badimport": "ModuleNotFoundError: No module named 'cardgym.core.no_such_module'",
          "badcontract": "TypeError: game folder brokengames.badcontract: has no rules.py"}


def _broken_games(root: Path, dist: bool = True) -> Path:
    """Two broken games in ``root/brokengames`` (read without import: their names are literals), and,
    with ``dist``, a ``broken_games`` distribution declaring them as ``cardgym.games`` entry points."""
    pkg = root / "brokengames"
    for name, body in (("badimport", "from cardgym.core.no_such_module import GameSpec"),
                       ("badcontract", "from cardgym.kit import GameSpec")):
        (pkg / name).mkdir(parents=True)
        (pkg / name / "__init__.py").write_text(
            f'"""# {name}\n\nA broken game."""\n{body}\n'
            f'GAME = GameSpec.from_package(__name__, title="{name.title()}", gym_name="{name.title()}")\n')
    (pkg / "__init__.py").write_text("")
    if dist:
        info = root / "broken_games-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-games\nVersion: 1.0\n")
        (info / "entry_points.txt").write_text("[cardgym.games]\nbadimport = brokengames.badimport\n"
                                               "badcontract = brokengames.badcontract:GAME\n")
    return root


def _env(root: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k != registry.PATH_VARIABLE}
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), str(root)])
    return env


def test_a_broken_game_is_refused_by_name_and_left_out_of_lists(tmp_path):
    """In process, through `registry.add` (the same entries as a plugin): `get` raises `BrokenGame`
    (a ValueError) with one line naming game, package and error; `loadable` leaves it out, warning once."""
    _broken_games(tmp_path, dist=False)
    sys.path.insert(0, str(tmp_path))
    try:
        for name in BROKEN:  # read without import: the names are literals
            assert registry.add(f"brokengames.{name}")[0].name == name
        for name, error in BROKEN.items():
            with pytest.raises(registry.BrokenGame) as info:
                cardgym.get_game(name)
            line = str(info.value)
            assert "\n" not in line and isinstance(info.value, ValueError)
            assert line.startswith(f"game {name!r} (package brokengames.{name}, add()) cannot be loaded: ") and error in line
            assert registry.broken()[name] == line
        with pytest.warns(RuntimeWarning) as warned:
            usable = registry.loadable()
        assert sorted(str(w.message).split("'")[1] for w in warned) == sorted(BROKEN)
        assert "skyjo" in usable and not set(BROKEN) & set(usable)
        assert registry.loadable(["skyjo", "badimport"]) == ["skyjo"]  # warned once per game: no warning now
    finally:
        for name in set(BROKEN) & set(cardgym.GAMES):
            registry.remove(name)
        sys.path.remove(str(tmp_path))
    assert not set(BROKEN) & set(registry.broken())


_COMMANDS = r"""
import contextlib, io, json, sys, warnings
warnings.simplefilter("ignore")
from cardgym.cli import main

def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(list(argv))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (exc.code and str(exc.code))
    return [code, out.getvalue(), err.getvalue()]

res = {" ".join(a): run(*a) for a in (["--help"], ["eval", "--help"], ["play", "--help"], ["new-game", "--help"],
                                      ["rules", "--help"], ["warmup", "--help"], ["rules", "skyjo", "--raw"],
                                      ["eval", "skyjo", "--bots", "random,greedy", "--games", "2", "--json"],
                                      ["eval", "badimport", "--bots", "random,greedy"], ["rules", "badcontract"],
                                      ["train", "--help"], ["train", "badimport"])}
from starlette.testclient import TestClient
from cardgym.web.app import create_app
from cardgym.web.tables import Tables
c = TestClient(create_app(Tables(pace=0)), base_url="http://127.0.0.1:8000")
games = c.get("/api/games")
made = c.post("/api/games", json={"game": "badimport", "num_players": 2, "seats": ["person", "random"]})
res["web"] = [games.status_code, [g["name"] for g in games.json()["games"]], made.status_code, made.json()]
print(json.dumps(res))
"""


@pytest.mark.slow
@pytest.mark.subprocess
def test_commands_and_the_web_table_work_with_broken_plugins_installed(tmp_path):
    pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (the dev extra)")
    proc = subprocess.run([sys.executable, "-c", _COMMANDS], capture_output=True, text=True,
                          env=_env(_broken_games(tmp_path)), timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads(proc.stdout.splitlines()[-1])
    for cmd in ("--help", "eval --help", "play --help", "new-game --help", "rules --help", "warmup --help",
                "train --help"):
        code, out, err = res[cmd]
        assert code == 0 and "usage: cardgym" in out and "Traceback" not in err, (cmd, err[-2000:])
    for cmd in ("eval --help", "play --help", "rules --help"):  # the games' list names each broken one
        out = res[cmd][1].replace("\n", " ")
        for name, error in BROKEN.items():
            assert f"{name}: broken, {error.split(':')[0]}" in " ".join(out.split()), (cmd, out[-1500:])
        assert "skyjo: bots" in out
    assert res["rules skyjo --raw"][0] == 0 and "Skyjo" in res["rules skyjo --raw"][1]
    code, out, err = res["eval skyjo --bots random,greedy --games 2 --json"]
    assert code == 0 and json.loads(out)["pairs"][0]["games"] == 2, err[-2000:]
    for cmd, name in (("eval badimport --bots random,greedy", "badimport"), ("rules badcontract", "badcontract")):
        code, out, err = res[cmd]  # refused where asked for: one line naming the game, its package, the error
        assert code != 0 and code.count("\n") == 0, (cmd, code)
        assert f"game {name!r} (package brokengames.{name}, entry point {name} (broken-games))" in code
        assert BROKEN[name] in code
    code, out, err = res["train badimport"]
    assert code == 2 and "Traceback" not in err and BROKEN["badimport"] in err.strip().splitlines()[-1]
    status, names, made, body = res["web"]
    assert status == 200 and "skyjo" in names and not set(BROKEN) & set(names)
    assert made == 400 and BROKEN["badimport"] in body["error"]


@pytest.mark.slow
@pytest.mark.subprocess
def test_the_mcp_server_works_with_broken_plugins_installed(tmp_path):
    pytest.importorskip("mcp")
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=sys.executable, env=_env(_broken_games(tmp_path)), args=[
        "-c", "import sys; from cardgym.cli import main; sys.exit(main())", "mcp"])

    async def main():
        async with Client(params) as client:
            games = await client.call_tool("list_games", {})
            bad = await client.call_tool("new_game", {"game": "badimport"})
            good = await client.call_tool("new_game", {"game": "skyjo", "opponents": ["random"], "seed": 1})
            return games, bad, good

    games, bad, good = asyncio.run(main())
    assert not games.is_error, games.content
    listed = games.structured_content or json.loads(games.content[0].text)
    names = [g["name"] for g in listed.get("result", listed)["games"]]
    assert "skyjo" in names and not set(BROKEN) & set(names)
    assert bad.is_error and BROKEN["badimport"] in bad.content[0].text
    assert not good.is_error, good.content
