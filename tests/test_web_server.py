"""cardgym serve under load, on a real uvicorn server (a subprocess on 127.0.0.1) reached with httpx:
a cold first game, an endless bots-only game and large uploads do not hold up another client, and
stalled connections are closed."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import textwrap
import threading
import time

import pytest

pytest.importorskip("starlette", reason="cardgym serve needs the web extra: pip install 'cardgym[web]'")
pytest.importorskip("uvicorn", reason="cardgym serve needs the web extra: pip install 'cardgym[web]'")
httpx = pytest.importorskip("httpx", reason="the server tests talk to it with httpx (the dev extra)")

#: the server: the first use of Skip-Bo Junior compiles for two CPU-seconds of pure Python (as numba's
#: typing does, holding the interpreter), its other games are ready, and a request for a table being
#: prepared waits only half a second (less than the compile) before it answers "preparing"
SERVER = textwrap.dedent("""
    import sys, time
    import uvicorn
    import cardgym.web as web
    from cardgym.web.app import create_app
    from cardgym.web.tables import Tables, warm_kernels

    def slow_warm(game, bots):
        if game.name == "skipbo_junior" and not bots:
            end = time.process_time() + 2.0
            x = 0
            while time.process_time() < end:
                x = (x * 31 + 7) % 1000003
        warm_kernels(game, bots)

    web.HEADER_TIMEOUT, web.BODY_TIMEOUT = 1.0, 5.0
    tables = Tables(pace=0, warm=slow_warm)
    for name, bots in (("skyjo", ["expert"]), ("skipbo", ["expert"])):
        for f in tables.prepare(cardgym.get_game(name), bots):
            f.result()
    print("ready", flush=True)
    web.run(create_app(tables, settle=0.5), "127.0.0.1", int(sys.argv[1]))  # cardgym serve's own settings
""").replace("import cardgym.web as web", "import cardgym, cardgym.web as web")


@pytest.fixture(scope="module")
def server():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-c", SERVER, str(port)], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)  # not a pipe nobody reads: it could fill
    base = f"http://127.0.0.1:{port}"
    try:
        assert proc.stdout.readline().strip() == "ready", proc.stdout.read()
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(base + "/api/games", timeout=2)
                break
            except httpx.TransportError:
                assert proc.poll() is None and time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)
        yield base, port
    finally:
        proc.terminate()
        proc.wait(10)


def _record_of(moves: int) -> bytes:
    """A record of ``moves`` action lines (about 8 MB for 80,000): read whole before it is refused."""
    header = {"type": "header", "format": "cardgym-game-record", "version": 1, "game": "skyjo", "env": "skyjo_v0",
              "cardgym": "0", "rules": {"num_players": 2}, "seed": 1, "deck": None,
              "players": [{"seat": 0, "kind": "bot", "name": "random"}, {"seat": 1, "kind": "bot", "name": "random"}]}
    lines = [json.dumps(header)] + [json.dumps({"type": "action", "step": k, "seat": 0, "action": 0,
                                                "text": "reveal position 0 (row 0, col 0)"}) for k in range(moves)]
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.subprocess
def test_nothing_holds_up_another_clients_requests(server):
    base, _ = server
    me = httpx.Client(base_url=base, timeout=30)
    r = me.post("/api/games", json={"game": "skyjo", "num_players": 2, "seats": ["person", "expert"], "seed": 1})
    assert r.status_code == 201 and r.json()["status"] == "playing", r.text  # its kernels are ready
    mine, tok = r.json()["id"], r.json()["token"]
    busy = threading.Event()
    busy.set()
    outcomes = {}

    endless_id = []

    def endless():  # a bots-only game that never ends, asked for as fast as possible
        with httpx.Client(base_url=base, timeout=30) as c:
            g = c.post("/api/games", json={"game": "skipbo", "num_players": 2, "seats": ["expert", "expert"], "pace": 0,
                                           "rules": {"match_target": 10**6, "max_turns": 32_767}},
                       headers={"X-Page": "endless"}).json()
            endless_id.append(g["id"])
            steps = []
            while busy.is_set():
                steps.append(c.get(f"/api/games/{g['id']}").json()["step"])
            outcomes["endless"] = steps

    def flood():  # and 8 more requests at once for the same table, again and again
        while busy.is_set() and not endless_id:
            time.sleep(0.01)
        with httpx.Client(base_url=base, timeout=60) as c:
            while busy.is_set():
                c.get(f"/api/games/{endless_id[0]}")

    def cold():  # the first game of Skip-Bo Junior: its kernels compile first
        with httpx.Client(base_url=base, timeout=30) as c:
            g = c.post("/api/games", json={"game": "skipbo_junior", "num_players": 2, "seats": ["person", "greedy"]},
                       headers={"X-Page": "cold"}).json()
            seen = [g["status"]]
            while busy.is_set() and seen[-1] == "preparing":
                seen.append(c.get(f"/api/games/{g['id']}", headers={"X-Seat-Token": g["token"]}).json()["status"])
                time.sleep(0.05)
            outcomes["cold"] = seen

    def uploads():  # a record of 8 MB (over the move limit) and a 20 MB body (over the size limit)
        with httpx.Client(base_url=base, timeout=60) as c:
            big = _record_of(78_000)
            assert len(big) < 8 * 2**20
            r1 = c.post("/api/records", content=big)

            def stream():
                for _ in range(20):
                    yield b"x" * 2**20

            r2 = c.post("/api/records", content=stream())
            outcomes["uploads"] = (r1.status_code, r1.json()["error"], r2.status_code)

    threads = [threading.Thread(target=f) for f in (endless, cold, uploads, *[flood] * 8)]
    for t in threads:
        t.start()
    waits = []
    t0 = time.monotonic()
    try:
        while time.monotonic() - t0 < 60 and ("cold" not in outcomes or "uploads" not in outcomes
                                              or time.monotonic() - t0 < 5):
            for path in (f"/api/games/{mine}", "/static/table.css"):
                s = time.perf_counter()
                r = me.get(path, headers={"X-Seat-Token": tok})
                waits.append((time.perf_counter() - s, path))
                assert r.status_code == 200
            time.sleep(0.02)
    finally:
        busy.clear()
        for t in threads:
            t.join(60)
    assert outcomes["cold"][0] == "preparing" and outcomes["cold"][-1] == "playing", outcomes["cold"]
    assert outcomes["uploads"][0] == 400 and "more than" in outcomes["uploads"][1] and outcomes["uploads"][2] == 413
    steps = outcomes["endless"]
    assert len(steps) > 3 and steps == sorted(steps) and steps[-1] > steps[0]
    worst = max(waits)
    assert worst[0] < 1.0, f"a request waited {worst[0]:.2f} s ({worst[1]}) of {len(waits)}"
    print(f"worst wait {worst[0]:.3f} s ({worst[1]}) of {len(waits)} requests")


@pytest.mark.slow
@pytest.mark.subprocess
def test_stalled_connections_are_closed(server):
    _, port = server
    socks = []
    for partial in (b"", b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n", STALLED_BODY):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(partial)
        s.settimeout(15)
        socks.append(s)
    t0 = time.monotonic()
    for s in socks:  # the server closes them (headers not sent within 1 s, a body within 5 s): recv sees the end
        assert s.recv(100) == b""
        s.close()
    assert time.monotonic() - t0 < 12
    # a refused body (1 GiB announced) is answered and the connection closed, not read to its end
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"POST /api/records HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1073741824\r\n\r\n" + b"x" * 65536)
    s.settimeout(10)
    t0, got = time.monotonic(), b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        got += chunk
    s.close()
    assert got.startswith(b"HTTP/1.1 413") and time.monotonic() - t0 < 3, got[:200]  # LINGER is 1 s


#: a request announcing a 100-byte body and sending none
STALLED_BODY = b"POST /api/records HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n"


@pytest.mark.slow
@pytest.mark.subprocess
def test_a_flood_of_stalled_bodies_does_not_lock_out_other_clients(server):
    """As many connections as the server holds (`MAX_CONNECTIONS`), each announcing a body and sending
    none, reopened as soon as the server closes one: another client is still answered within a second."""
    import select

    from cardgym.web import MAX_CONNECTIONS

    _, port = server
    base = f"http://127.0.0.1:{port}"
    busy, opened = threading.Event(), [0]
    busy.set()

    def stalled():
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(STALLED_BODY)
        opened[0] += 1
        return s

    socks = [stalled() for _ in range(MAX_CONNECTIONS - 1)]

    def flood():
        while busy.is_set():
            closed, _, _ = select.select(socks, [], [], 0.05)
            for s in closed:
                socks.remove(s)
                s.close()
                socks.append(stalled())

    t = threading.Thread(target=flood)
    t.start()
    waits = []
    try:
        time.sleep(0.5)
        for _ in range(30):  # a new connection each time, as another browser's would be
            s = time.perf_counter()
            r = httpx.get(base + "/api/games", timeout=10)
            waits.append(time.perf_counter() - s)
            assert r.status_code == 200, r.text
            time.sleep(0.05)
    finally:
        busy.clear()
        t.join(30)
        for s in socks:
            s.close()
    assert opened[0] > MAX_CONNECTIONS and max(waits) < 1.0, (opened[0], max(waits))
    print(f"{opened[0]} stalled connections opened; waits {sorted(round(w, 3) for w in waits)}")
