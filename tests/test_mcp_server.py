"""``cardgym mcp``, driven by the mcp SDK's own client over stdio: whole games of every game through the
tools, hostile arguments refused with tool errors, tokens that act and see for their own seat only."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

mcp = pytest.importorskip("mcp")

from mcp import Client, StdioServerParameters  # noqa: E402

from cardgym.app.game_records import parse_record, replay  # noqa: E402
from cardgym.cli.mcp_server import Games, Refused  # noqa: E402

SRC = str(Path(__file__).resolve().parents[1] / "src")


def _server(*flags):
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    return StdioServerParameters(command=sys.executable, args=["-c", "import sys; from cardgym.cli import main; sys.exit(main())", "mcp", *flags], env=env)


def _data(res):
    """A tool result's value (structured content, else the JSON of its text)."""
    assert not res.is_error, res.content
    if res.structured_content is not None:
        sc = res.structured_content
        return sc["result"] if isinstance(sc, dict) and set(sc) == {"result"} else sc
    return json.loads(res.content[0].text)


def _error(res) -> str:
    assert res.is_error, f"expected a tool error, got {res}"
    return " ".join(getattr(c, "text", "") for c in res.content)


#: rule options of the whole games (short stocks: shorter games, the same tools)
SHORT = {"skipbo": {"stock_size": 5}, "skipbo_junior": {"stock_size": 5}}


async def _whole_game(client, game: str, opponents=("greedy",), seed: int = 5) -> tuple:
    started = _data(await client.call_tool("new_game", {"game": game, "seat": 0, "opponents": list(opponents),
                                                        "seed": seed, "options": SHORT.get(game, {})}))
    gid, token = started["game_id"], started["token"]
    moves = 0
    while True:
        legal = _data(await client.call_tool("legal_actions", {"game_id": gid, "token": token}))
        if not legal["your_turn"]:
            res = _data(await client.call_tool("result", {"game_id": gid, "token": token}))
            assert res["over"], res
            break
        # alternate ids and words, to use both
        pick = legal["legal"][0]
        action = pick["action"] if moves % 2 == 0 else pick["text"]
        out = _data(await client.call_tool("play", {"game_id": gid, "token": token, "action": action}))
        assert out["played"] == pick["text"]
        moves += 1
        assert moves < 2000
    return gid, token, moves, res


@pytest.mark.slow
@pytest.mark.subprocess
def test_whole_games_of_every_game_over_stdio():
    async def main():
        async with Client(_server()) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            assert {"list_games", "new_game", "view", "legal_actions", "play", "result", "replay_record"} <= tools
            games = _data(await client.call_tool("list_games", {}))["games"]
            names = [g["name"] for g in games]
            for game in ("skipbo_junior", "skyjo", "skipbo"):
                assert game in names
                gid, token, moves, res = await _whole_game(client, game)
                assert moves > 0 and res["result"] is not None
                text = _data(await client.call_tool("replay_record", {"game_id": gid, "token": token}))
                rec = parse_record(text)
                steps = list(replay(rec))  # the record replays exactly (RecordError otherwise)
                assert len(steps) == len(rec.actions) + 1
                assert sum(a["seat"] == 0 for a in rec.actions) == moves

    asyncio.run(main())


@pytest.mark.slow
@pytest.mark.subprocess
def test_hostile_arguments_are_tool_errors_and_tokens_keep_to_their_seat():
    async def main():
        async with Client(_server("--max-games", "3")) as client:
            bad = [
                ({"game": "chess"}, "game must be one of"),
                ({"game": "skyjo", "seat": 5}, "seat must be an integer 0..1"),
                ({"game": "skyjo", "seat": -1}, "seat"),
                ({"game": "skyjo", "opponents": ["nobody"]}, "opponents"),
                ({"game": "skyjo", "opponents": []}, "opponents"),
                ({"game": "skyjo", "opponents": ["greedy"] * 20}, "opponents"),
                ({"game": "skyjo", "options": {"nope": 1}}, "not a rule option"),
                ({"game": "skyjo", "options": {"max_rounds": -5}}, "options"),
                ({"game": "skyjo", "seed": -1}, "seed"),
                ({"game": "skyjo", "seat": "zero"}, "seat"),
                ({"game": "skyjo", "seat": True}, "seat"),
                ({"game": "skyjo", "seed": "7"}, "seed"),
            ]
            for args, words in bad:
                assert words in _error(await client.call_tool("new_game", args)), args
            a = _data(await client.call_tool("new_game", {"game": "skipbo_junior", "opponents": ["open"], "seed": 1}))
            b = _data(await client.call_tool("new_game", {"game": "skipbo_junior", "opponents": ["greedy"], "seed": 2}))
            other = a["open_seat_tokens"]["1"]
            # a game id alone, a made-up token, another game's token: refused
            for gid, token in ((a["game_id"], ""), (a["game_id"], "x" * 32), (a["game_id"], b["token"]),
                               ("nope", a["token"])):
                for tool in ("view", "legal_actions", "result", "replay_record"):
                    _error(await client.call_tool(tool, {"game_id": gid, "token": token}))
                _error(await client.call_tool("play", {"game_id": gid, "token": token, "action": 0}))
            # seat 0 plays its turn; then it is the open seat's turn: seat 0's token cannot act for it
            legal = _data(await client.call_tool("legal_actions", {"game_id": a["game_id"], "token": a["token"]}))
            assert legal["your_turn"]
            for action in (10**9, -1, "fly to the moon", "x" * 10_000, True, 1.0, None, [0], {"action": 0}):
                _error(await client.call_tool("play", {"game_id": a["game_id"], "token": a["token"],
                                                       "action": action}))
            while True:
                legal = _data(await client.call_tool("legal_actions", {"game_id": a["game_id"], "token": a["token"]}))
                if not legal["your_turn"]:
                    break
                await client.call_tool("play", {"game_id": a["game_id"], "token": a["token"],
                                                "action": legal["legal"][0]["action"]})
            theirs = _data(await client.call_tool("legal_actions", {"game_id": a["game_id"], "token": other}))
            assert theirs["your_turn"] and theirs["legal"]
            msg = _error(await client.call_tool("play", {"game_id": a["game_id"], "token": a["token"],
                                                         "action": theirs["legal"][0]["action"]}))
            assert "player_1's turn" in msg
            # each token sees its own seat's view; the record (all the cards) only once the game is over
            v0 = _data(await client.call_tool("view", {"game_id": a["game_id"], "token": a["token"]}))["view"]
            v1 = _data(await client.call_tool("view", {"game_id": a["game_id"], "token": other}))["view"]
            assert (v0["viewer"], v1["viewer"]) == (0, 1) and not v0["legal"] and v1["legal"]
            assert "over" in _error(await client.call_tool("replay_record", {"game_id": a["game_id"],
                                                                            "token": a["token"]}))
            # bounded: a third game fits, a fourth does not
            await client.call_tool("new_game", {"game": "skyjo"})
            assert "limit of 3 games" in _error(await client.call_tool("new_game", {"game": "skyjo"}))

    asyncio.run(main())


def test_games_expire():
    now = [0.0]
    games = Games(max_games=1, expire=10.0, clock=lambda: now[0])
    g = games.new_game("skipbo_junior", seed=3)
    games.view(g["game_id"], g["token"])
    with pytest.raises(Refused, match="limit of 1 games"):
        games.new_game("skipbo_junior")
    now[0] = 11.0
    with pytest.raises(Refused, match="no game"):
        games.view(g["game_id"], g["token"])
    games.new_game("skipbo_junior")  # the expired game made room
