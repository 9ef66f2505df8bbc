"""cardgym serve's API through Starlette's TestClient: games, moves, refusals, records, limits, no leaks."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

pytest.importorskip("starlette", reason="cardgym serve needs the web extra: pip install 'cardgym[web]'")
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (the dev extra)")

import warnings  # noqa: E402

warnings.filterwarnings("ignore", message=".*httpx.*starlette.testclient.*")

from starlette.testclient import TestClient  # noqa: E402

import cardgym  # noqa: E402
from cardgym.app.game_records import parse_record, play_recorded, replay_states  # noqa: E402
from cardgym.render.view import dumps, view  # noqa: E402
from cardgym.web.app import create_app  # noqa: E402
from cardgym.web.tables import Tables  # noqa: E402
from redeal import redeal  # noqa: E402


def client(**kw):
    tables = Tables(**{"pace": 0, **kw})
    return TestClient(create_app(tables), base_url="http://127.0.0.1:8000"), tables


def start(c, game="skyjo", seats=("person", "expert"), headers=None, **extra):
    """A new table, once prepared (its kernels compiled in this process)."""
    r = c.post("/api/games", json={"game": game, "num_players": len(seats), "seats": list(seats), **extra},
               headers=headers)
    assert r.status_code == 201, r.text
    g = r.json()
    t = c.app.state.tables.live[g["id"]]
    for _ in range(600):
        if t.status != "preparing":
            break
        time.sleep(0.1)
    assert t.status == "playing", t.error
    return g


def play_out(c, gid, **kw):
    """Ask for a bots-only game's state until it is over (each request plays a bounded slice)."""
    for _ in range(1000):
        st = c.get(f"/api/games/{gid}", **kw).json()
        if st["over"]:
            return st
    raise AssertionError("the game did not end")


def hdr(token):
    return {"X-Seat-Token": token}


def test_front_page_static_files_and_catalogue():
    c, _ = client()
    assert "<title>cardgym</title>" in c.get("/").text
    assert "function clickCard" in c.get("/static/table.js").text
    assert c.get("/static/table.css").status_code == 200
    games = {g["name"]: g for g in c.get("/api/games").json()["games"]}
    assert set(games) == set(cardgym.registry.names())
    sk = games["skipbo"]
    assert {"name": "stock_size", "flag": "--stock-size", "default": "none"}.items() <= sk["options"][0].items()
    assert "expert" in sk["bots"] and 2 in sk["agents"]
    assert sk["palette"]["bands"]["sb_wild"]["fill"] == "#f08214"


def _same_view_after_redeal(t, seat, got):
    """The response's view is exactly seat's view, and re-dealing every card hidden from the seat
    changes no byte of it: nothing hidden reached the page."""
    env = t.env
    game, rules, rec = env.game, env.rules, env.record
    assert dumps(got) == dumps(json.loads(json.dumps(view(game, rec, rules, seat))))
    other = redeal(game, rules, rec, seat if seat is not None else 0, np.random.default_rng(len(t.log)))
    assert dumps(got) == dumps(view(game, other, rules, seat))


def test_a_whole_skyjo_game_against_expert_leaks_nothing():
    c, tables = client()
    g = start(c, rules={"max_rounds": "1"}, seed=5)
    gid, tok = g["id"], g["token"]
    t = tables.live[gid]
    st = c.get(f"/api/games/{gid}", headers=hdr(tok)).json()
    moves = 0
    while not st["over"]:
        assert st["to_act"] == 0 and st["viewer"] == 0
        _same_view_after_redeal(t, 0, st["view"])
        a = st["view"]["legal"][-1]["action"]
        st = c.post(f"/api/games/{gid}/move", json={"action": a, "step": st["step"]}, headers=hdr(tok)).json()
        moves += 1
    assert moves > 10 and st["view"]["result"]["winners"]
    assert st["last_round"]["round"] == 1 and st["last_round"]["totals"] == st["table"]["rounds"][-1]["totals"]
    log = c.get(f"/api/games/{gid}", headers=hdr(tok)).json()["log"]  # no since: the whole log
    assert len(log) == st["step"] and {e["seat"] for e in log} == {0, 1} and all("policy" not in e for e in log)
    watcher = c.get(f"/api/games/{gid}").json()  # a page without a token: the public table
    assert watcher["viewer"] is None and watcher["view"]["legal"] == []
    # the record, once over, replays to the same result
    rec = c.get(f"/api/games/{gid}/record")
    assert rec.status_code == 200 and "attachment" in rec.headers["content-disposition"]
    env, _ = replay_states(parse_record(rec.text))
    assert env.result() == t.env.result()


def test_bad_requests_get_a_4xx_and_change_nothing():
    c, tables = client()
    g = start(c, "skipbo", ("person", "person"), seed=3)
    gid, tok0 = g["id"], g["token"]
    tok1 = c.post(f"/api/games/{gid}/claim", json={"seat": 1}).json()["token"]
    t = tables.live[gid]
    before = (t.env.record.tobytes(), len(t.log))
    st = c.get(f"/api/games/{gid}", headers=hdr(tok0)).json()
    legal = [a["action"] for a in st["view"]["legal"]]
    illegal = next(a for a in range(145) if a not in legal)
    cases = [
        (c.post("/api/games/nope/move", json={"action": legal[0], "step": 0}, headers=hdr(tok0)), 404, "unknown game id"),
        (c.post(f"/api/games/{gid}/move", json={"action": legal[0], "step": 0}), 403, "seat token"),
        (c.post(f"/api/games/{gid}/move", json={"action": legal[0], "step": 0}, headers=hdr("forged")), 403, "does not belong"),
        (c.post(f"/api/games/{gid}/move", json={"action": legal[0], "step": 0}, headers=hdr(tok1)), 409, "not your turn"),
        (c.post(f"/api/games/{gid}/move", json={"action": illegal, "step": 0}, headers=hdr(tok0)), 422, "not legal"),
        (c.post(f"/api/games/{gid}/move", json={"action": legal[0], "step": 4}, headers=hdr(tok0)), 409, "at move 4"),
        (c.post(f"/api/games/{gid}/move", content=b"{not json", headers=hdr(tok0)), 400, "malformed JSON"),
        (c.post(f"/api/games/{gid}/move", json=[1], headers=hdr(tok0)), 400, "JSON object"),
        (c.post(f"/api/games/{gid}/move", json={"action": "1", "step": 0}, headers=hdr(tok0)), 400, "integer action"),
        (c.post(f"/api/games/{gid}/move", json={"action": 1}, headers=hdr(tok0)), 400, "missing field"),
        (c.post(f"/api/games/{gid}/move", json={"action": 1, "step": 0, "x": 1}, headers=hdr(tok0)), 400, "unknown field"),
        (c.post(f"/api/games/{gid}/claim", json={"seat": 1}), 409, "already taken by another page"),
        (c.post(f"/api/games/{gid}/claim", json={"seat": 5}), 400, "seat must be"),
        (c.get(f"/api/games/{gid}?seat=1", headers=hdr(tok0)), 403, "needs that seat's token"),
        (c.get(f"/api/games/{gid}?seat=x"), 400, "seat must be"),
        (c.get(f"/api/games/{gid}/record"), 409, "once it is over"),
    ]
    for resp, status, words in cases:
        assert resp.status_code == status, (resp.status_code, resp.text)
        assert words in resp.json()["error"], resp.json()
    assert (t.env.record.tobytes(), len(t.log)) == before
    ok = c.post(f"/api/games/{gid}/move", json={"action": legal[0], "step": 0}, headers=hdr(tok0))
    assert ok.status_code == 200 and ok.json()["step"] == 1


@pytest.mark.parametrize("body,words", [
    ({"game": "chess", "num_players": 2, "seats": ["person", "expert"]}, "unknown game"),
    ({"game": "skyjo", "num_players": 9, "seats": ["person"] * 9}, "num_players must be"),
    ({"game": "skyjo", "num_players": 2, "seats": ["person"]}, "seats must list 2"),
    ({"game": "skyjo", "num_players": 2, "seats": ["person", "deep-blue"]}, "is not 'person', a bot"),
    ({"game": "skyjo", "num_players": 2, "seats": ["person", "expert"], "rules": {"stock_size": "3"}}, "unknown rule option"),
    ({"game": "skyjo", "num_players": 2, "seats": ["person", "expert"], "rules": {"end_score": "lots"}}, "rules not accepted"),
    ({"game": "skyjo", "num_players": 2, "seats": ["person", "expert"], "seed": -1}, "seed must be"),
    ({"game": "skyjo", "num_players": 2, "seats": ["person", "expert"], "pace": 99}, "pace must be"),
    ({"game": "skyjo", "num_players": 3, "seats": ["person", "agent", "agent"]}, "no shipped 'agent'"),
    ({"game": "skyjo", "num_players": 2, "seats": ["person", "expert"], "colour": "red"}, "unknown field"),
])
def test_refused_new_games(body, words):
    c, tables = client()
    r = c.post("/api/games", json=body)
    assert r.status_code == 400 and words in r.json()["error"], r.text
    assert not tables.live


def test_rule_options_take_the_cli_names_and_values():
    c, tables = client()
    g = start(c, "skipbo", rules={"--stock-size": "7", "teams": "false"})
    assert tables.live[g["id"]].env.rules.stock_size == 7


def test_watching_an_agent_shows_its_probabilities_to_its_seat_only():
    c, tables = client()
    g = start(c, "skyjo", ("agent", "expert"), seed=1)
    assert g["token"] is None
    t = tables.live[g["id"]]
    table = play_out(c, g["id"])  # with pace 0 each request plays a bounded slice of the game
    assert table["over"] and all("policy" not in e for e in table["log"])
    mine = c.get(f"/api/games/{g['id']}?seat=0").json()
    pol = [e["policy"] for e in mine["log"] if e["seat"] == 0]
    assert pol and len(pol) == sum(1 for e in t.log if e["seat"] == 0)
    for p in pol:
        assert 0 < sum(x["p"] for x in p["top"]) <= 1.0001 and isinstance(p["value"], float)
        assert p["top"] == sorted(p["top"], key=lambda x: -x["p"])
    assert all(m["action"] == p["top"][0]["action"] for m, p in zip([e for e in mine["log"] if e["seat"] == 0], pol))


def test_bots_move_at_their_pace():
    c, tables = client(pace=5.0)
    g = start(c, "skipbo_junior", ("expert", "greedy"), pace=5.0)
    t = tables.live[g["id"]]
    assert c.get(f"/api/games/{g['id']}").json()["step"] == 0  # not yet: 5 s between bot moves
    t.last_move -= 5.0
    assert c.get(f"/api/games/{g['id']}").json()["step"] == 1  # one move per pace
    assert c.get(f"/api/games/{g['id']}").json()["step"] == 1


def test_live_games_are_bounded_and_abandoned_ones_expire():
    now = [0.0]
    c, tables = client(max_games=2, per_client=2, expire=60, clock=lambda: now[0])
    a = start(c)
    start(c)
    r = c.post("/api/games", json={"game": "skyjo", "num_players": 2, "seats": ["person", "expert"]})
    assert r.status_code == 429 and "limit of 2" in r.json()["error"]
    now[0] = 30
    assert c.get(f"/api/games/{a['id']}").status_code == 200  # touched at 30
    now[0] = 70  # the other one, untouched since 0, expired
    start(c)
    now[0] = 200
    r = c.get(f"/api/games/{a['id']}")
    assert r.status_code == 404 and "may have expired" in r.json()["error"]


def test_open_a_record_step_and_switch_views(tmp_path):
    c, tables = client()
    rec = play_recorded("skipbo", ["expert", "greedy"], seed=2, rules={"stock_size": 5})
    r = c.post("/api/records?name=g.jsonl", content=rec.text().encode())
    assert r.status_code == 201, r.text
    rid, steps = r.json()["id"], r.json()["steps"]
    assert steps == len(rec.actions)
    _, states = replay_states(parse_record(rec.text()))
    game = cardgym.get_game("skipbo")
    for k in (0, steps // 2, steps):
        for seat in (None, 0, 1):
            q = f"?step={k}" + ("" if seat is None else f"&seat={seat}")
            got = c.get(f"/api/records/{rid}{q}").json()
            assert got["step"] == k and got["steps"] == steps
            assert dumps(got["view"]) == dumps(json.loads(json.dumps(view(game, states[k], rec.raw.rules, seat))))
    assert c.get(f"/api/records/{rid}?step={steps + 1}").status_code == 400
    assert c.get(f"/api/records/{rid}?seat=7").status_code == 400
    assert c.get("/api/records/nope").status_code == 404
    assert [x["id"] for x in c.get("/api/games").json()["records"]] == [rid]
    lines = rec.text().splitlines()
    bad = c.post("/api/records", content=("\n".join(lines[:4] + ["{oops"] + lines[5:]) + "\n").encode())
    assert bad.status_code == 400 and "line 5: not JSON" in bad.json()["error"]
    assert c.post("/api/records", content=b"\xff\xfe").status_code == 400
    assert len(tables.records) == 1


def test_serve_command_checks_its_flags(tmp_path):
    from cardgym.cli import build_parser
    from cardgym.web import build_tables

    with pytest.raises(SystemExit) as exc:  # refused when parsed (tests/test_cli_flags.py tries every flag)
        build_parser(["serve"]).parse_args(["serve", "--port", "0"])
    assert exc.value.code == 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "header"}\n')
    args = build_parser(["serve"]).parse_args(["serve", "--record", str(bad)])
    with pytest.raises(SystemExit, match="line 1: not a cardgym game record"):
        build_tables(args)
    args = build_parser(["serve"]).parse_args(["serve", "--model", str(bad)])
    with pytest.raises(SystemExit, match="not a cardgym model"):
        build_tables(args)
    good = play_recorded("skyjo", ["random", "greedy"], seed=1).save(tmp_path / "good.jsonl")
    args = build_parser(["serve"]).parse_args(["serve", "--record", str(good), "--host", "127.0.0.1"])
    tables = build_tables(args)
    assert [r.record.where for r in tables.records.values()] == ["good.jsonl"]


def test_a_second_tab_cannot_act_for_a_seat_another_tab_holds():
    now = [0.0]
    c, tables = client(clock=lambda: now[0])
    g = start(c, "skyjo", ("person", "expert"))
    gid, tok = g["id"], g["token"]
    t = tables.live[gid]
    first = {"X-Seat-Token": tok, "X-Page": "tab-1"}
    second = {"X-Seat-Token": tok, "X-Page": "tab-2"}
    assert c.get(f"/api/games/{gid}", headers=first).status_code == 200
    r = c.get(f"/api/games/{gid}", headers=second)
    assert r.status_code == 409 and "another tab" in r.json()["error"]
    r = c.post(f"/api/games/{gid}/move", json={"action": 0, "step": 0}, headers=second)
    assert r.status_code == 409 and len(t.log) == 0
    now[0] = 5.0
    assert c.post(f"/api/games/{gid}/move", json={"action": 0, "step": 0}, headers=first).status_code == 200
    now[0] = 20.0  # the first tab closed long ago: the seat is free for the other one
    assert c.get(f"/api/games/{gid}", headers=second).status_code == 200
    assert c.get(f"/api/games/{gid}", headers=first).status_code == 409


def test_a_model_given_on_the_command_line_plays_a_seat(tmp_path):
    import hashlib
    import shutil
    from importlib import resources

    from cardgym.web import parse_models

    path = tmp_path / "mine.pt"
    with resources.as_file(resources.files("cardgym.agents").joinpath("pretrained_models", "skyjo-2p.pt")) as src:
        shutil.copy(src, path)
    models = parse_models([f"mine={path}"])
    assert models == {"mine": ("skyjo", str(path))}
    c, tables = client(models=models)
    assert c.get("/api/games").json()["games"][2]["models"] == ["mine"]
    g = start(c, "skyjo", ("mine", "expert"), seed=3)
    play_out(c, g["id"])
    t = tables.live[g["id"]]
    assert t.over and any("policy" in e for e in t.log if e["seat"] == 0)
    header = parse_record(c.get(f"/api/games/{g['id']}/record").text).header
    assert header["players"][0]["kind"] == "model"
    assert header["players"][0]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    r = c.post("/api/games", json={"game": "skipbo", "num_players": 2, "seats": ["person", "mine"]})
    assert r.status_code == 400 and "'mine'" in r.json()["error"]  # a Skyjo model plays no Skip-Bo seat


@pytest.mark.subprocess
def test_cardgym_serve_listens_on_localhost(tmp_path):
    import socket
    import subprocess
    import sys
    import time

    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "cardgym.cli", "serve", "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.time() + 60
        while True:
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/api/games", timeout=2)
                break
            except httpx.TransportError:
                assert proc.poll() is None and time.time() < deadline, proc.stdout.read() if proc.poll() else "timeout"
                time.sleep(0.2)
        assert r.status_code == 200 and r.json()["games"]
        assert "<title>cardgym</title>" in httpx.get(f"http://127.0.0.1:{port}/").text
    finally:
        proc.terminate()
        proc.wait(10)


def test_a_foreign_host_and_a_cross_site_origin_are_refused():
    tables = Tables(pace=0)
    app = create_app(tables, allowed_hosts=["cards.example"])
    body = {"game": "skyjo", "num_players": 2, "seats": ["person", "expert"]}
    evil = TestClient(app, base_url="http://rebind.example:8000")  # DNS rebinding: a foreign name, our address
    r = evil.get("/api/games")
    assert r.status_code == 400 and "Host 'rebind.example:8000'" in r.json()["error"] and "--allow-host" in r.json()["error"]
    assert evil.get("/").status_code == 400 and evil.get("/static/table.css").status_code == 400
    for base in ("http://localhost:8000", "http://[::1]:8000", "http://cards.example"):
        assert TestClient(app, base_url=base).get("/api/games").status_code == 200, base
    c = TestClient(app, base_url="http://127.0.0.1:8000")
    for headers in ({"Origin": "http://evil.example"}, {"Origin": "http://127.0.0.1:9999"}, {"Origin": "null"},
                    {"Sec-Fetch-Site": "cross-site"}):
        r = c.post("/api/games", json=body, headers={"Content-Type": "text/plain", **headers})
        assert r.status_code == 403 and "this server's own page" in r.json()["error"], (headers, r.text)
    assert not tables.live
    assert c.get("/api/games", headers={"Origin": "http://evil.example"}).status_code == 200  # reading is the browser's to refuse
    assert c.post("/api/games", json=body, headers={"Origin": "http://127.0.0.1:8000"}).status_code == 201
    assert c.post("/api/games", json=body).status_code == 201  # not a browser: no Origin
    tables.close()


def test_bodies_are_refused_as_soon_as_they_pass_their_limit():
    from cardgym.web import app as web_app

    c, tables = client()
    r = c.post("/api/records", content=b"x", headers={"Content-Length": str(web_app.MAX_BODY + 1)})
    assert r.status_code == 413 and "the limit is" in r.json()["error"]
    sent = []

    def chunks():  # no Content-Length: read as a stream and stopped at the limit
        for _ in range(64):
            sent.append(1)
            yield b"x" * (1 << 20)

    r = c.post("/api/records", content=chunks())
    assert r.status_code == 413 and "passes the limit" in r.json()["error"]
    r = c.post("/api/games", content=b"[" * 70_000)
    assert r.status_code == 413  # a JSON request is small: 64 KiB
    r = c.post("/api/games", content=b"[" * 60_000 + b"]" * 60_000)
    assert r.status_code == 413
    r = c.post("/api/games", content=b"[" * 30_000 + b"]" * 30_000)
    assert r.status_code == 400 and "malformed JSON" in r.json()["error"]  # too deep
    assert not tables.live and not tables.records


def test_finished_games_leave_the_bound_at_once_and_keep_their_records():
    c, tables = client(max_games=1)
    g = start(c, "skipbo_junior", ("expert", "greedy"), seed=4)
    r = c.post("/api/games", json={"game": "skyjo", "num_players": 2, "seats": ["person", "expert"]})
    assert r.status_code == 429 and "limit of 1 games in progress" in r.json()["error"]
    st = play_out(c, g["id"])
    assert st["status"] == "over" and tables.in_progress() == 0
    start(c, "skyjo")  # the finished game no longer counts
    rec = c.get(f"/api/games/{g['id']}/record")
    assert rec.status_code == 200 and parse_record(rec.text).end["finished"]


def test_one_page_cannot_fill_the_bound():
    c, tables = client(max_games=4)
    assert tables.per_client == 2
    a, b = {"X-Page": "page-a"}, {"X-Page": "page-b"}
    start(c, headers=a)
    start(c, headers=a)
    r = c.post("/api/games", json={"game": "skyjo", "num_players": 2, "seats": ["person", "expert"]}, headers=a)
    assert r.status_code == 429 and "this page already has 2 games in progress" in r.json()["error"]
    start(c, headers=b)
    limits = c.get("/api/games").json()["limits"]
    assert limits == {**limits, "max_games": 4, "per_client": 2, "in_progress": 3}


@pytest.mark.slow
def test_the_log_is_sent_from_what_the_page_holds():
    c, tables = client()
    endless = {"match_target": 10**6, "max_turns": 32_767}
    g = start(c, "skipbo", ("expert", "expert"), rules=endless, seed=1)
    whole = c.get(f"/api/games/{g['id']}").json()
    n = whole["step"]
    assert whole["log_from"] == 0 and len(whole["log"]) == n > 0
    nxt = c.get(f"/api/games/{g['id']}?since={n}").json()
    assert nxt["log_from"] == n and len(nxt["log"]) == nxt["step"] - n and nxt["log"][0]["n"] == n
    again = c.get(f"/api/games/{g['id']}?since=0").json()
    assert again["log"][:len(nxt["log"]) + n] == whole["log"] + nxt["log"]
    # a step's answer does not grow with the game: the same size at move 3,000 as near the start
    t = tables.live[g["id"]]
    small = len(c.get(f"/api/games/{g['id']}?since={len(t.log)}").content)
    t.advance(moves=3000, seconds=1e9)
    big = len(c.get(f"/api/games/{g['id']}?since={len(t.log)}").content)
    assert len(t.log) > 3000 and big < 1.5 * small + 4000, (small, big)
    for bad in ("-1", "x", str(10**6)):
        r = c.get(f"/api/games/{g['id']}?since={bad}")
        assert r.status_code == 400 and "since (the number of log entries" in r.json()["error"]
    # a move's answer starts at the step the page had seen
    p = start(c, "skyjo", ("person", "expert"), seed=3)
    st = c.get(f"/api/games/{p['id']}", headers=hdr(p["token"])).json()
    a = st["view"]["legal"][0]["action"]
    moved = c.post(f"/api/games/{p['id']}/move", json={"action": a, "step": st["step"]}, headers=hdr(p["token"])).json()
    assert moved["log_from"] == st["step"] and moved["log"][0]["action"] == a
    # a replay sends the log once: then one step's worth
    rec = play_recorded("skyjo", ["greedy", "greedy"], seed=2)
    rid = c.post("/api/records", content=rec.text().encode()).json()["id"]
    first = c.get(f"/api/records/{rid}?step=0").json()
    assert len(first["log"]) == len(rec.actions) and first["log_from"] == 0
    step = c.get(f"/api/records/{rid}?step=5&since={len(rec.actions)}").json()
    assert step["log"] == [] and step["step"] == 5
    assert c.get(f"/api/records/{rid}?step=5&since={len(rec.actions) + 1}").status_code == 400


@pytest.mark.slow
def test_an_opened_records_cost_is_counted_high():
    """`record_cost` counts at least what tracemalloc sees a record's replay hold (with a text player's
    long answers too), and not more than twice that."""
    import gc
    import tracemalloc

    from cardgym.web.tables import record_cost

    for name, tele in (("skipbo", False), ("skyjo", False), ("skyjo", True)):
        lines = play_recorded(name, ["greedy", "greedy"], seed=3).text().splitlines()
        if tele:
            lines = [json.dumps({**d, "telemetry": {"answers": ["I take the discard, it lowers my row " * 8] * 3,
                                                    "attempts": 3, "latency_ms": 120.5, "tokens_in": 900}})
                     if d["type"] == "action" else json.dumps(d) for d in map(json.loads, lines)]
        text = "\n".join(lines) + "\n"
        gc.collect()
        tracemalloc.start()
        rec = parse_record(text)
        held = replay_states(rec)
        gc.collect()
        used = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        del held
        need = record_cost(cardgym.get_game(name), len(rec.actions), len(text))
        assert used <= need <= 2 * used + 512 * 1024, (name, tele, used, need)


def test_uploads_are_listed_for_their_page_and_a_byte_order_mark_is_no_damage(tmp_path):
    from cardgym.cli import build_parser
    from cardgym.web import build_tables, check_host, url

    good = play_recorded("skyjo", ["random", "greedy"], seed=1).save(tmp_path / "good.jsonl")
    tables = build_tables(build_parser(["serve"]).parse_args(["serve", "--record", str(good)]))
    c = TestClient(create_app(tables), base_url="http://127.0.0.1:8000")
    text = (tmp_path / "good.jsonl").read_text()
    r = c.post("/api/records?name=mine.jsonl", content=("\ufeff" + text).encode(), headers={"X-Page": "page-a"})
    assert r.status_code == 201, r.text
    mine = {x["name"] for x in c.get("/api/games", headers={"X-Page": "page-a"}).json()["records"]}
    theirs = {x["name"] for x in c.get("/api/games", headers={"X-Page": "page-b"}).json()["records"]}
    assert mine == {"good.jsonl", "mine.jsonl"} and theirs == {"good.jsonl"}
    # the URL printed answers: another loopback address is allowed, an IPv6 one is in brackets
    args = build_parser(["serve"]).parse_args(["serve", "--host", "127.0.0.2"])
    assert "127.0.0.2" in check_host(args) and url("127.0.0.2", 8000) == "http://127.0.0.2:8000/"
    assert url("::1", 8000) == "http://[::1]:8000/"
    c2 = TestClient(create_app(Tables(), allowed_hosts=check_host(args)), base_url="http://127.0.0.2:8000")
    assert c2.get("/api/games").status_code == 200


def test_left_and_idle_games_end_and_free_their_slot():
    from cardgym.web.tables import GRACE

    now = [0.0]
    c, tables = client(max_games=3, per_client=3, idle=100, clock=lambda: now[0])
    pa = {"X-Page": "page-a"}
    g = start(c, headers=pa)
    me = {**hdr(g["token"]), **pa}
    # a spectator (no token) cannot end it; bad bodies are refused
    r = c.post(f"/api/games/{g['id']}/leave", json={"soon": False}, headers={"X-Page": "page-b"})
    assert r.status_code == 403 and "spectator" in r.json()["error"]
    assert c.post(f"/api/games/{g['id']}/leave", json={"soon": 1}, headers=me).status_code == 400
    assert tables.in_progress() == 1
    # the page leaves it: it ends at once, says why, and its record (unfinished) stays
    r = c.post(f"/api/games/{g['id']}/leave", json={"soon": False}, headers=me)
    assert r.status_code == 200 and r.json()["status"] == "stopped" and tables.in_progress() == 0
    st = c.get(f"/api/games/{g['id']}", headers=me).json()
    assert st["status"] == "stopped" and st["outcome"] == "the game was ended: player_0 left"
    assert parse_record(c.get(f"/api/games/{g['id']}/record").text).end["finished"] is False
    # a page going away (soon): a reload (a new page id, same token) takes the seat back and keeps it
    g = start(c, headers=pa)
    c.post(f"/api/games/{g['id']}/leave", json={"soon": True}, headers={**hdr(g["token"]), **pa})
    now[0] += 1
    assert c.get(f"/api/games/{g['id']}", headers={**hdr(g["token"]), "X-Page": "page-a2"}).status_code == 200
    now[0] += 2 * GRACE
    assert c.get(f"/api/games/{g['id']}", headers={**hdr(g["token"]), "X-Page": "page-a2"}).json()["status"] == "playing"
    # ... a closed tab does not come back: the game ends GRACE seconds later
    c.post(f"/api/games/{g['id']}/leave", json={"soon": True}, headers={**hdr(g["token"]), "X-Page": "page-a2"})
    now[0] += GRACE + 0.5
    assert tables.in_progress() == 1 and c.get("/api/games").status_code == 200 and tables.in_progress() == 0
    # a bots-only game ends when the page that started it leaves; a game nobody asks for ends after `idle`
    w = start(c, "skipbo_junior", ("expert", "greedy"), headers={"X-Page": "page-w"}, pace=5.0)
    assert c.post(f"/api/games/{w['id']}/leave", json={"soon": False}, headers=pa).status_code == 403
    assert c.post(f"/api/games/{w['id']}/leave", json={"soon": False}, headers={"X-Page": "page-w"}).json()["status"] == "stopped"
    g = start(c, headers=pa)
    now[0] += 99
    c.get("/api/games")
    assert tables.in_progress() == 1
    now[0] += 2
    start(c, headers={"X-Page": "page-c"})
    assert tables.in_progress() == 1
    st = c.get(f"/api/games/{g['id']}", headers={**hdr(g["token"]), **pa}).json()
    assert st["status"] == "stopped" and "nobody asked for it in 100 s" in st["outcome"]


def test_refusals_name_the_bound_that_was_reached():
    c, tables = client(max_games=3, per_client=1)
    start(c, headers={"X-Page": "page-a"})
    r = c.post("/api/games", json={"game": "skyjo", "num_players": 2, "seats": ["person", "expert"]},
               headers={"X-Page": "page-a"})
    assert r.status_code == 429 and r.json()["error"].startswith("this page already has 1 game in progress")
    start(c)
    r = c.post("/api/games", json={"game": "skyjo", "num_players": 2, "seats": ["person", "expert"]})
    assert r.status_code == 429 and r.json()["error"].startswith("this client (address testclient, no X-Page id)")
    start(c, headers={"X-Page": "page-b"})
    r = c.post("/api/games", json={"game": "skyjo", "num_players": 2, "seats": ["person", "expert"]},
               headers={"X-Page": "page-c"})
    assert r.status_code == 429 and "limit of 3 games in progress (all pages together)" in r.json()["error"]


def test_a_bots_only_game_advances_in_bounded_slices_and_stops_at_the_move_limit():
    from cardgym.web.tables import STEP_MOVES

    c, tables = client(max_moves=3 * STEP_MOVES)
    endless = {"match_target": 10**6, "max_turns": 32_767}  # allowed rules of a game that does not end soon
    g = start(c, "skipbo", ("expert", "expert"), rules=endless, seed=1)
    steps = [c.get(f"/api/games/{g['id']}").json()["step"] for _ in range(3)]
    assert 0 < steps[0] <= STEP_MOVES and all(0 < b - a <= STEP_MOVES for a, b in zip([0] + steps, steps))
    st = play_out(c, g["id"])
    assert st["status"] == "stopped" and st["step"] == 3 * STEP_MOVES and "stopped" in st["outcome"]
    assert tables.in_progress() == 0
    rec = parse_record(c.get(f"/api/games/{g['id']}/record").text)
    assert rec.end["finished"] is False and len(rec.actions) == 3 * STEP_MOVES
    replay_states(rec)  # and it replays


def test_a_table_is_prepared_before_it_opens():
    import threading

    from cardgym.web.tables import warm_kernels

    gate = threading.Event()

    def slow_warm(game, bots):  # a first use: the compile takes until the gate opens
        gate.wait(30)
        warm_kernels(game, bots)

    tables = Tables(pace=0, warm=slow_warm)
    c = TestClient(create_app(tables, settle=0.2), base_url="http://127.0.0.1:8000")
    assert {g["name"]: g["status"] for g in c.get("/api/games").json()["games"]}["skyjo"] == "cold"
    assert c.get("/api/games").json()["pace"] == 0
    r = c.post("/api/games", json={"game": "skyjo", "num_players": 2, "seats": ["person", "greedy"]})
    g = r.json()
    assert r.status_code == 201 and g["status"] == "preparing" and "preparing Skyjo" in g["message"]
    st = c.get(f"/api/games/{g['id']}", headers=hdr(g["token"])).json()
    assert st["status"] == "preparing" and st["preparing"] is True and st["view"] is None and st["log"] == []
    assert "Skyjo" in st["message"]
    assert {x["name"]: x["status"] for x in c.get("/api/games").json()["games"]}["skyjo"] == "preparing"
    r = c.post(f"/api/games/{g['id']}/move", json={"action": 0, "step": 0}, headers=hdr(g["token"]))
    assert r.status_code == 409 and "being prepared" in r.json()["error"]
    p = c.post("/api/prepare", json={"game": "skipbo_junior", "seats": ["expert"]}).json()
    assert p["status"] == "preparing"
    gate.set()
    for _ in range(600):
        st = c.get(f"/api/games/{g['id']}", headers=hdr(g["token"])).json()
        if st["status"] != "preparing":
            break
        time.sleep(0.1)
    assert st["status"] == "playing" and st["preparing"] is False and st["view"]["legal"]
    for _ in range(600):
        if c.post("/api/prepare", json={"game": "skipbo_junior", "seats": ["expert"]}).json()["status"] == "ready":
            break
        time.sleep(0.1)
    assert tables.kernels_ready(cardgym.get_game("skipbo_junior"), ["expert"])
    assert c.post("/api/prepare", json={"game": "chess"}).status_code == 400
    tables.close()


def test_a_table_whose_preparation_fails_says_why():
    def broken(game, bots):
        raise OSError("no space left for numba's cache")

    tables = Tables(pace=0, warm=broken)
    c = TestClient(create_app(tables, settle=2.0), base_url="http://127.0.0.1:8000")
    g = c.post("/api/games", json={"game": "skyjo", "num_players": 2, "seats": ["person", "greedy"]}).json()
    assert g["status"] == "failed" and "no space left" in g["message"]
    r = c.get(f"/api/games/{g['id']}", headers=hdr(g["token"]))
    assert r.status_code == 500 and "could not be prepared: OSError: no space left" in r.json()["error"]
    assert tables.in_progress() == 0  # a failed table holds no place
    tables.close()


def test_a_table_opens_within_the_settle_time_when_its_kernels_load_quickly():
    import threading

    from cardgym.web.tables import warm_kernels

    def quick_warm(game, bots):  # numba's cache on disk: the kernels load in a moment
        threading.Event().wait(0.3)
        warm_kernels(game, bots)

    tables = Tables(pace=0, warm=quick_warm)
    c = TestClient(create_app(tables), base_url="http://127.0.0.1:8000")
    r = c.post("/api/games", json={"game": "skipbo_junior", "num_players": 2, "seats": ["person", "greedy"]})
    assert r.status_code == 201 and r.json()["status"] == "playing" and r.json()["message"] == ""
    assert c.get(f"/api/games/{r.json()['id']}", headers=hdr(r.json()["token"])).json()["view"]["legal"]
    tables.close()


def test_serving_beyond_loopback_needs_public_and_warns(capsys):
    from cardgym.cli import build_parser
    from cardgym.web import check_host, is_loopback

    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost") and is_loopback("127.1.2.3")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5") and not is_loopback("mybox.local")

    def args(*argv):
        return build_parser(["serve"]).parse_args(["serve", *argv])

    assert check_host(args()) == [] and check_host(args("--allow-host", "cards.example")) == ["cards.example"]
    with pytest.raises(SystemExit) as exc:
        check_host(args("--host", "0.0.0.0"))
    assert exc.value.code == 2 and "add --public" in capsys.readouterr().err
    assert check_host(args("--host", "0.0.0.0", "--public")) == []
    assert "warning: listening on 0.0.0.0" in capsys.readouterr().err
    assert check_host(args("--host", "192.168.1.5", "--public", "--allow-host", "mybox")) == ["mybox", "192.168.1.5"]


def test_the_last_move_and_the_end_in_words():
    c, tables = client()
    g = start(c, "skipbo_junior", ("person", "expert"), seed=2)
    gid, tok = g["id"], g["token"]
    st = c.get(f"/api/games/{gid}", headers=hdr(tok)).json()
    while not st["over"]:
        a = st["view"]["legal"][0]["action"]
        st = c.post(f"/api/games/{gid}/move", json={"action": a, "step": st["step"]}, headers=hdr(tok)).json()
        e = st["log"][-1]
        assert st["last"]["sentence"] == f"player_{e['seat']} ({e['who']}): {e['text']}"
    winners = st["view"]["result"]["winners"]
    assert st["outcome"] == ("you won" if winners == [0] else "you lost: player_1 (expert) won")
    assert [r["name"] for r in st["table"]["rows"]] == ["person", "expert"]
    assert [r["winner"] for r in st["table"]["rows"]] == [0 in winners, 1 in winners]
    assert "stock_left" in st["table"]["columns"]
    assert c.get(f"/api/games/{gid}").json()["outcome"].endswith("won")  # the public table: no "you"
    assert [s["label"] for s in st["seats"]] == ["player_0 (person)", "player_1 (expert)"]
    sk = start(c, "skyjo", ("greedy", "expert"), rules={"max_rounds": "2"}, seed=1)
    st = play_out(c, sk["id"])
    assert len(st["table"]["rounds"]) == 2 and st["table"]["rounds"][-1]["totals"] == st["view"]["result"]["totals"]
