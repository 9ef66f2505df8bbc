"""``cardgym mcp``, driven by the mcp SDK's own client (in process, over stdio and over streamable HTTP):
whole games of every game through the tools, the published schemas and annotations, hostile arguments
refused with tool errors, tokens that act and see for their own seat only, slots freed by finished games,
``wait_turn``, and the HTTP transport's Host, Origin and size guards. tests/test_mcp_clients.py drives it
with clients written elsewhere (the protocol's conformance suite, the MCP Inspector)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

mcp = pytest.importorskip("mcp")
jsonschema = pytest.importorskip("jsonschema")

from mcp import Client, StdioServerParameters  # noqa: E402

from cardgym.app.game_records import parse_record, replay  # noqa: E402
from cardgym.cli.mcp_server import (  # noqa: E402
    Games, Refused, build_server, call_tool, compact, tool_specs)

SRC = str(Path(__file__).resolve().parents[1] / "src")
MAIN = "import sys; from cardgym.cli import main; sys.exit(main())"


def server_env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _server(*flags):
    return StdioServerParameters(command=sys.executable, args=["-c", MAIN, "mcp", *flags], env=server_env())


class Checked:
    """An SDK client whose every tool result is checked against the tool's published outputSchema, with
    its text the compact JSON of its structured content."""

    def __init__(self, client):
        self.client, self.schemas = client, {}

    async def list_tools(self):
        tools = (await self.client.list_tools()).tools
        self.schemas = {t.name: t.output_schema for t in tools}
        return tools

    async def call(self, tool, args) -> dict:
        if not self.schemas:
            await self.list_tools()
        res = await self.client.call_tool(tool, args)
        assert not res.is_error, res.content
        data = res.structured_content
        jsonschema.Draft202012Validator(self.schemas[tool]).validate(data)
        assert res.content[0].text == compact(data)
        return data

    async def error(self, tool, args) -> str:
        res = await self.client.call_tool(tool, args)
        assert res.is_error, f"expected a tool error, got {res}"
        return " ".join(getattr(c, "text", "") for c in res.content)


#: rule options of the whole games (short stocks: shorter games, the same tools)
SHORT = {"skipbo": {"stock_size": 5}, "skipbo_junior": {"stock_size": 5}}


async def _whole_game(c: Checked, game: str, opponents=("greedy",), seed: int = 5) -> tuple:
    started = await c.call("new_game", {"game": game, "seat": 0, "opponents": list(opponents), "seed": seed,
                                        "options": SHORT.get(game, {})})
    gid, token = started["game_id"], started["token"]
    moves = 0
    while True:
        legal = await c.call("legal_actions", {"game_id": gid, "token": token})
        if not legal["your_turn"]:
            res = await c.call("result", {"game_id": gid, "token": token})
            assert res["over"], res
            break
        # alternate ids and words, to use both
        pick = legal["legal"][0]
        action = pick["action"] if moves % 2 == 0 else pick["text"]
        out = await c.call("play", {"game_id": gid, "token": token, "action": action})
        assert out["played"] == pick["text"]
        moves += 1
        assert moves < 2000
    return gid, token, moves, res


@pytest.mark.slow
@pytest.mark.subprocess
def test_whole_games_of_every_game_over_stdio():
    async def main():
        async with Client(_server()) as client:
            c = Checked(client)
            tools = {t.name for t in await c.list_tools()}
            assert {"list_games", "rules", "new_game", "view", "legal_actions", "play", "wait_turn", "result",
                    "replay_record"} == tools
            names = [g["name"] for g in (await c.call("list_games", {}))["games"]]
            for game in ("skipbo_junior", "skyjo", "skipbo"):
                assert game in names
                gid, token, moves, res = await _whole_game(c, game)
                assert moves > 0 and res["result"] is not None and res["seed"] == 5
                rec = parse_record((await c.call("replay_record", {"game_id": gid, "token": token}))["record"])
                steps = list(replay(rec))  # the record replays exactly (RecordError otherwise)
                assert len(steps) == len(rec.actions) + 1
                assert sum(a["seat"] == 0 for a in rec.actions) == moves

    asyncio.run(main())


def test_every_tool_has_described_bounded_arguments_structured_results_and_true_annotations():
    async def main():
        async with Client(build_server(Games())) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
        changes = {"new_game", "play"}
        for name, t in tools.items():
            for schema in (t.input_schema, t.output_schema):
                assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
                jsonschema.Draft202012Validator.check_schema(schema)
                assert schema["type"] == "object"
            assert t.input_schema["additionalProperties"] is False
            for prop, s in t.input_schema["properties"].items():
                assert s.get("description"), (name, prop)
                assert "null" not in json.dumps(s.get("type")) and "anyOf" not in s or prop == "action", (name, prop)
            a = t.annotations
            assert a.title and t.title == a.title
            assert (a.read_only_hint, a.idempotent_hint) == ((False, False) if name in changes else (True, True)), name
            assert a.destructive_hint is False and a.open_world_hint is False, name
        ng = tools["new_game"].input_schema["properties"]
        assert set(ng["game"]["enum"]) >= {"skyjo", "skipbo", "skipbo_junior"}
        assert set(ng["opponents"]["items"]["enum"]) >= {"greedy", "random", "open"}
        assert ng["seat"]["minimum"] == 0 and ng["seat"]["maximum"] >= 1 and ng["seat"]["default"] == 0
        assert ng["seed"]["type"] == "integer" and ng["seed"]["minimum"] == 0
        assert tools["wait_turn"].input_schema["properties"]["timeout"]["maximum"] == 60

    asyncio.run(main())


@pytest.mark.slow
def test_unknown_and_bad_arguments_are_tool_errors_naming_the_field():
    async def main():
        async with Client(build_server(Games(max_games=3))) as client:
            c = Checked(client)
            bad = [
                ("new_game", {"game": "skyjo", "seeed": 3}, "unknown argument 'seeed'"),
                ("list_games", {"x": 1, "y": 2}, "unknown arguments 'x', 'y'"),
                ("new_game", {}, "'game' is a required property"),
                ("new_game", {"game": "chess"}, "game: 'chess' is not one of"),
                ("new_game", {"game": "skyjo", "seat": 5}, "seat must be an integer 0..1"),
                ("new_game", {"game": "skyjo", "seat": -1}, "seat: -1 is less than the minimum of 0"),
                ("new_game", {"game": "skyjo", "opponents": ["nobody"]}, "opponents.0: 'nobody' is not one of"),
                ("new_game", {"game": "skyjo", "opponents": []}, "opponents: skyjo seats 2..8 players"),
                ("new_game", {"game": "skyjo", "opponents": ["greedy"] * 20}, "opponents: "),
                ("new_game", {"game": "skyjo", "options": {"nope": 1}}, "'nope' is not a rule option of skyjo"),
                ("new_game", {"game": "skyjo", "options": {"max_rounds": -5}}, "options: "),
                ("new_game", {"game": "skyjo", "options": {"max_rounds": [1]}}, "options.max_rounds: "),
                ("new_game", {"game": "skyjo", "seed": -1}, "seed: -1 is less than the minimum"),
                ("new_game", {"game": "skyjo", "seat": "zero"}, "seat: 'zero' is not of type 'integer'"),
                ("new_game", {"game": "skyjo", "seat": True}, "seat: True is not of type 'integer'"),
                ("new_game", {"game": "skyjo", "seed": "7"}, "seed: '7' is not of type 'integer'"),
                ("rules", {"game": "go"}, "game: 'go' is not one of"),
                ("view", {"game_id": "x", "token": "y", "seat": 1}, "unknown argument 'seat'"),
                ("wait_turn", {"game_id": "x", "token": "y", "timeout": 61}, "timeout: 61 is greater than"),
                ("nope", {}, "no tool 'nope'"),
            ]
            for tool, args, words in bad:
                assert words in await c.error(tool, args), (tool, args)
            rules = await c.call("rules", {"game": "skyjo"})
            assert rules["title"] == "Skyjo" and len(rules["rules"]) > 200
            a = await c.call("new_game", {"game": "skipbo_junior", "opponents": ["open"], "seed": 1})
            b = await c.call("new_game", {"game": "skipbo_junior", "opponents": ["greedy"], "seed": 2})
            other = a["open_seat_tokens"]["1"]
            # a game id alone, a made-up token, another game's token: refused
            for gid, token in ((a["game_id"], ""), (a["game_id"], "x" * 32), (a["game_id"], b["token"]),
                               ("nope", a["token"])):
                for tool in ("view", "legal_actions", "result", "replay_record", "wait_turn"):
                    await c.error(tool, {"game_id": gid, "token": token})
                await c.error("play", {"game_id": gid, "token": token, "action": 0})
            assert "it never was here" in await c.error("view", {"game_id": "nope", "token": a["token"]})
            mine = {"game_id": a["game_id"], "token": a["token"]}
            assert (await c.call("legal_actions", mine))["your_turn"]
            for action in (10**9, -1, "fly to the moon", "x" * 10_000, True, 1.0, None, [0], {"action": 0}):
                await c.error("play", {**mine, "action": action})
            while (legal := await c.call("legal_actions", mine))["your_turn"]:
                await c.call("play", {**mine, "action": legal["legal"][0]["action"]})
            # the open seat's turn: seat 0's token cannot act for it
            theirs = await c.call("legal_actions", {"game_id": a["game_id"], "token": other})
            assert theirs["your_turn"] and theirs["legal"]
            msg = await c.error("play", {**mine, "action": theirs["legal"][0]["action"]})
            assert "player_1's turn" in msg
            # each token sees its own seat's view; the record (all the cards) only once the game is over
            v0 = (await c.call("view", mine))["view"]
            v1 = (await c.call("view", {"game_id": a["game_id"], "token": other}))["view"]
            assert (v0["viewer"], v1["viewer"]) == (0, 1) and not v0["legal"] and v1["legal"]
            assert "over" in await c.error("replay_record", mine)
            # bounded: a third game in progress fits, a fourth does not
            await c.call("new_game", {"game": "skyjo"})
            assert "limit of 3 games in progress" in await c.error("new_game", {"game": "skyjo"})

    asyncio.run(main())


def _play_out(games: Games, started: dict) -> dict:
    """Play a game to its end through `call_tool` (the first legal move each turn); its result."""
    specs = {s.name: s for s in tool_specs()}
    mine = {"game_id": started["game_id"], "token": started["token"]}
    while (legal := call_tool(games, specs["legal_actions"], mine))["your_turn"]:
        call_tool(games, specs["play"], {**mine, "action": legal["legal"][0]["action"]})
    return call_tool(games, specs["result"], mine)


@pytest.mark.slow
def test_fifty_games_in_a_row_on_a_sixteen_game_server_are_all_accepted():
    async def main():
        games = Games(max_games=16)
        async with Client(build_server(games)) as client:
            c = Checked(client)
            done = []
            for i in range(50):
                started = await c.call("new_game", {"game": "skipbo_junior", "seed": i,
                                                    "options": {"stock_size": 2}})
                done.append(started)
                mine = {"game_id": started["game_id"], "token": started["token"]}
                while (legal := await c.call("legal_actions", mine))["your_turn"]:
                    await c.call("play", {**mine, "action": legal["legal"][0]["action"]})
                assert (await c.call("result", mine))["over"]
            # every finished game stays readable
            for started in done:
                res = await c.call("result", {"game_id": started["game_id"], "token": started["token"]})
                assert res["over"] and res["seed"] == started["seed"]
            assert games.in_progress() == 0 and len(games.games) == 50

    asyncio.run(main())


def test_finished_games_free_their_slot_and_stay_readable_within_their_own_bound():
    now = [0.0]
    games = Games(max_games=1, expire=100.0, keep_finished=2, clock=lambda: now[0])
    specs = {s.name: s for s in tool_specs()}
    first = games.new_game("skipbo_junior", seed=3, options={"stock_size": 1})
    with pytest.raises(Refused, match="limit of 1 games in progress .*finish one"):
        games.new_game("skipbo_junior")
    finished = [first]
    _play_out(games, first)
    for seed in (4, 5):
        now[0] += 1
        g = games.new_game("skipbo_junior", seed=seed, options={"stock_size": 1})  # the finished game made room
        _play_out(games, g)
        finished.append(g)
    # three finished games, two kept: the one touched longest ago is dropped, and the message says why
    with pytest.raises(Refused, match="keeps the 2 finished games touched last \\(--keep-finished\\)"):
        games.view(first["game_id"], first["token"])
    for g in finished[1:]:
        assert call_tool(games, specs["replay_record"], {"game_id": g["game_id"], "token": g["token"]})["record"]
    now[0] += 101
    with pytest.raises(Refused, match="untouched for 100 s \\(--expire\\)"):
        games.view(finished[2]["game_id"], finished[2]["token"])


def test_wait_turn_returns_when_the_other_agent_has_moved_or_the_time_is_up():
    games = Games()
    specs = {s.name: s for s in tool_specs()}
    a = games.new_game("skipbo_junior", opponents=["open"], seed=1)
    mine = {"game_id": a["game_id"], "token": a["token"]}
    theirs = {"game_id": a["game_id"], "token": a["open_seat_tokens"]["1"]}
    assert a["your_turn"]
    t0 = time.monotonic()
    out = call_tool(games, specs["wait_turn"], {**theirs, "timeout": 0.2})
    assert out["timed_out"] and not out["your_turn"] and 0.15 < out["waited"] and time.monotonic() - t0 < 5
    assert call_tool(games, specs["wait_turn"], {**mine, "timeout": 0})["your_turn"]  # ready: no wait
    got = {}
    waiter = threading.Thread(target=lambda: got.update(call_tool(games, specs["wait_turn"], {**theirs, "timeout": 30})))
    waiter.start()
    time.sleep(0.2)
    assert waiter.is_alive()  # seat 1 waits while seat 0 is to act
    while (legal := call_tool(games, specs["legal_actions"], mine))["your_turn"]:
        call_tool(games, specs["play"], {**mine, "action": legal["legal"][0]["action"]})
    waiter.join(10)
    assert not waiter.is_alive() and got["your_turn"] and not got["timed_out"] and got["waited"] < 10
    assert got["moves_since_your_turn"]


def test_an_unseeded_game_reports_its_seed_and_the_seed_deals_it_again():
    games = Games()
    g = games.new_game("skyjo")
    again = games.new_game("skyjo", seed=g["seed"])
    assert games.view(g["game_id"], g["token"])["view"] == games.view(again["game_id"], again["token"])["view"]


# --------------------------------------------------------------------------------------- streamable HTTP


class HttpServer:
    """``cardgym mcp --http --port 0`` in a subprocess; ``url`` once it listens."""

    def __init__(self, *flags):
        self.proc = subprocess.Popen([sys.executable, "-c", MAIN, "mcp", "--http", "--port", "0", *flags],
                                     env=server_env(), stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        line = ""
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            m = re.search(r"(http://127\.0\.0\.1:(\d+)/mcp)", line)
            if m:
                self.url, self.port = m.group(1), int(m.group(2))
                return
            if not line and self.proc.poll() is not None:
                break
        self.close()
        raise AssertionError(f"cardgym mcp --http did not start: {line!r}")

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture(scope="module")
def http_server():
    server = HttpServer("--max-games", "16")
    yield server
    server.close()


def _post(url, body: bytes, headers: dict) -> tuple:
    req = urllib.request.Request(url, data=body, method="POST", headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


INIT = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}).encode()


@pytest.mark.slow
@pytest.mark.subprocess
def test_http_plays_a_game_and_refuses_foreign_hosts_origins_and_big_bodies(http_server):
    status, body = _post(http_server.url, INIT, {})
    assert status == 200 and '"serverInfo"' in body
    status, body = _post(http_server.url, INIT, {"Host": "evil.example:80"})
    assert status == 400 and "does not answer to Host" in body and "cardgym mcp --http --allow-host" in body
    status, body = _post(http_server.url, INIT, {"Origin": "http://evil.example"})
    assert status == 403 and "Origin" in body
    status, body = _post(http_server.url, b" " * (64 * 1024 + 1), {})
    assert status == 413

    async def main():
        async with Client(http_server.url) as client:
            c = Checked(client)
            gid, token, moves, res = await _whole_game(c, "skipbo_junior")
            assert moves > 0 and res["over"]
        # the game id and token are the handles: a second session (another client) reads the same game
        async with Client(http_server.url) as client:
            assert (await Checked(client).call("result", {"game_id": gid, "token": token}))["over"]

    asyncio.run(main())


@pytest.mark.slow
@pytest.mark.subprocess
def test_http_flags_need_http_and_a_public_host_needs_public():
    for flags, words in ((["--port", "9"], "--port go with --http"),
                         (["--http", "--host", "0.0.0.0"], "add --public")):
        done = subprocess.run([sys.executable, "-c", MAIN, "mcp", *flags], env=server_env(), capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 2 and words in done.stderr, done.stderr


def test_play_reads_text_moves_with_the_text_players_parser():
    """``play``'s text actions are read by `cardgym.agents.answers.read_answer`, the harness's one parser:
    a fenced id, emphasis, case and spacing and a listed line copied whole play the move; a move only
    mentioned beside another, an id not legal now and words of no legal move are refused."""
    games = Games()
    g = games.new_game("skyjo", seed=3)
    gid, tok = g["game_id"], g["token"]
    legal = games.legal_actions(gid, tok)["legal"]
    first, second = legal[0], legal[1]
    with pytest.raises(Refused, match="not a legal move now"):
        games.play(gid, tok, f"Move {first['action']} looks good but move {second['action']} is better.")
    with pytest.raises(Refused, match="not a legal move now"):
        games.play(gid, tok, "99")
    with pytest.raises(Refused, match="not a legal move now"):
        games.play(gid, tok, "draw from the moon")
    played = games.play(gid, tok, "**" + "  ".join(second["text"].upper().split()) + "**")["played"]
    assert played == second["text"]
    now = games.legal_actions(gid, tok)
    if now["your_turn"]:
        x = now["legal"][-1]
        assert games.play(gid, tok, f"```\n{x['action']}\n```")["played"] == x["text"]
