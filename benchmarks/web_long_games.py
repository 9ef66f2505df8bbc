"""Long games in the web table: the cost of one step at move 20,000, in headless Chromium.

A real server (uvicorn, `cardgym.web.run`'s settings) holds

- a 20,000-move record (two ``expert`` bots of Skip-Bo under rules that never end the game, stopped at
  the move limit), opened in the page; the benchmark presses the right arrow ``--steps`` times and times
  each step from the key press to the table and log drawn (the fetch, the server, the JSON, the drawing
  and the next frame painted); the peers in the same run: a 200-move record, and a few steps of the page
  asking for the whole log each time (``since`` forced to 0: the server's answer and the page's merge
  of 20,000 entries; the page before also drew every line anew, 10-17 s a step on the loaded machine
  of the figures in docs/web.md);
- a live bots-only game of the same kind played to move 20,000 (the server's move limit raised by a
  few dozen moves), watched by the page at a pace of one bot move per request: the bytes of each state
  response (``PerformanceResourceTiming.encodedBodySize``) and the time the page takes to show it.

``python benchmarks/web_long_games.py [--moves 20000] [--steps 30] [--size 1280x800]``. Needs the web
extra, selenium, and Debian's ``chromium`` and ``chromedriver``. Timings are wall-clock milliseconds
in the browser (``performance.now``), medians and worst of the steps: they depend on the machine and on
what else it runs.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import threading
import time
import urllib.request

ENDLESS = {"match_target": 10**6, "max_turns": 2**31 - 1}


def long_table(tables, moves: int, pace: float):
    """A bots-only Skip-Bo table played to ``moves`` moves in this process."""
    g = tables.create({"game": "skipbo", "num_players": 2, "seats": ["expert", "expert"], "rules": ENDLESS,
                       "seed": 1, "pace": 0})
    t = tables.live[g["id"]]
    while t.status == "preparing":
        time.sleep(0.05)
    while len(t.log) < moves:
        t.advance(moves=moves - len(t.log), seconds=1e9)
    t.pace = pace
    return t


def serve(app):
    import uvicorn

    import cardgym.web as web

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                        http=web.timed_protocol(), timeout_keep_alive=web.KEEP_ALIVE,
                                        limit_concurrency=web.MAX_CONNECTIONS))
    threading.Thread(target=srv.run, daemon=True).start()
    while not srv.started:
        time.sleep(0.02)
    return f"http://127.0.0.1:{port}", srv


def browser(size):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              f"--window-size={size[0]},{size[1]}"):
        opts.add_argument(a)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)


# each show() timed from the key press to the next frame painted after the table and log are drawn
TIMED_SHOW = """
window.__shown = [];
const orig = show;
show = function (st) { const r = orig(st);
  requestAnimationFrame(() => setTimeout(() => window.__shown.push({step: st.step, at: performance.now()}), 0));
  return r; };
"""

STEP = """
const [k, done] = [arguments[0], arguments[arguments.length - 1]];
const t0 = performance.now();
document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight', bubbles: true}));
const poll = () => { const s = window.__shown.find(x => x.step === k);
  if (s) done(s.at - t0); else setTimeout(poll, 1); };
poll();
"""


def cpu_seconds(drv) -> float:
    """CPU seconds used so far by this process (the server, selenium) and every process of the browser
    (chromedriver and its descendants): what a step costs whatever else the machine runs."""
    tick = os.sysconf("SC_CLK_TCK")
    parent = {}
    used = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                parts = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parent[int(d)] = int(parts[1])
        used[int(d)] = (int(parts[11]) + int(parts[12])) / tick
    root = drv.service.process.pid
    total = 0.0
    for pid, t in used.items():
        p = pid
        while p in parent and p != root and p > 1:
            p = parent[p]
        if p == root:
            total += t
    me = os.times()
    return total + me.user + me.system


def wait(drv, js, timeout=120):
    end = time.time() + timeout
    while time.time() < end:
        v = drv.execute_script(f"return {js}")
        if v:
            return v
        time.sleep(0.02)
    raise TimeoutError(js)


def replay_steps(drv, steps: int, whole: bool) -> list:
    if whole:  # the peer: the page asks for the whole log every step and draws it anew
        drv.execute_script("since = () => 0;")
    drv.execute_script(TIMED_SHOW)
    out = []
    c0 = cpu_seconds(drv)
    for _ in range(steps):
        k = drv.execute_script("return S.step") + 1
        out.append(drv.execute_async_script(STEP, k))
    return out, 1000 * (cpu_seconds(drv) - c0) / steps


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moves", type=int, default=20_000)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--peer-steps", type=int, default=3, help="steps of the whole-log peer (each is slow)")
    ap.add_argument("--size", default="1280x800")
    args = ap.parse_args(argv)
    size = tuple(int(x) for x in args.size.split("x"))

    from cardgym.web.app import create_app
    from cardgym.web.tables import Tables

    tables = Tables(pace=0, max_moves=args.moves + 10 * args.steps)
    t0 = time.process_time()
    rec_table = long_table(tables, args.moves, 0)
    text = rec_table.recorder.text()
    short = long_table(tables, 200, 0).recorder.text()
    live = long_table(tables, args.moves, 0.02)
    print(f"two {args.moves}-move Skip-Bo games played in {time.process_time() - t0:.1f} CPU s; "
          f"record {len(text) / 1e6:.2f} MB")
    base, srv = serve(create_app(tables))
    req = urllib.request.Request(base + "/api/records?name=long.jsonl", data=text.encode(), method="POST",
                                 headers={"Content-Type": "text/plain"})
    rid = json.loads(urllib.request.urlopen(req).read())["id"]
    req = urllib.request.Request(base + "/api/records?name=short.jsonl", data=short.encode(), method="POST",
                                 headers={"Content-Type": "text/plain"})
    short_id = json.loads(urllib.request.urlopen(req).read())["id"]
    drv = browser(size)
    try:
        results = {}
        for name, record, moves, whole in (("200 moves", short_id, 200, False),
                                           (f"{args.moves} moves", rid, args.moves, False),
                                           (f"{args.moves}, whole log sent", rid, args.moves, True)):
            drv.get("about:blank")
            drv.get(f"{base}/#/record/{record}")
            wait(drv, f"S.state && S.state.steps === {moves} && L.entries.length === {moves}")
            results[name] = replay_steps(drv, args.steps if not whole else args.peer_steps, whole)
        print(f"\nreplay at {size[0]}x{size[1]}: one step (key press to the next frame painted); CPU ms of "
              "the browser, the server and this script together (selenium's calls included), and wall ms")
        for name, (ms, cpu) in results.items():
            print(f"  {name:24s} CPU {cpu:8.1f} a step; wall median {statistics.median(ms):8.1f}, worst "
                  f"{max(ms):8.1f} ({len(ms)} steps)")
        small, big, whole = (results[k][1] for k in results)
        print(f"  CPU a step at {args.moves} moves / at 200 moves: {big / small:.2f}; with the whole log sent "
              f"each step: {whole / big:.0f}x")

        drv.get("about:blank")
        drv.execute_cdp_cmd("Network.enable", {})
        drv.get(f"{base}/#/game/{live.id}")
        wait(drv, f"S.state && S.state.step >= {args.moves} && L.entries.length >= {args.moves}")
        drv.execute_script(TIMED_SHOW + "performance.clearResourceTimings(); performance.setResourceTimingBufferSize(10000);")
        target = args.moves + args.steps
        c0, s0 = cpu_seconds(drv), drv.execute_script("return S.state.step")
        wait(drv, f"S.state && S.state.step >= {target}", timeout=300)
        cpu = 1000 * (cpu_seconds(drv) - c0) / (drv.execute_script("return S.state.step") - s0)
        sizes = drv.execute_script(
            f"return performance.getEntriesByType('resource').filter(e => e.name.includes('/api/games/{live.id}'))"
            ".map(e => e.encodedBodySize)")
        steps = drv.execute_script("return window.__shown.map(s => s.step)")
        moved = max(steps) - min(steps) + 1 if steps else 0
        print(f"\nwatching a live game from move {args.moves}: {len(sizes)} state responses for {moved} moves")
        print(f"  bytes per response: median {statistics.median(sizes):.0f}, largest {max(sizes)}; "
              f"CPU {cpu:.1f} ms a move (browser, server and script; the page asks every 150 ms meanwhile)")
        first = drv.execute_script(f"return fetch('/api/games/{live.id}?since=0', {{headers: {{'X-Page': 'bench'}}}})"
                                   ".then(r => r.text()).then(t => t.length)")
        print(f"  the whole log's response (before: every step): {first} bytes, {first / max(sizes):.0f}x the largest")
        print(f"\nload average while measuring: {os.getloadavg()[0]:.1f} ({os.cpu_count()} CPUs)")
    finally:
        drv.quit()
        srv.should_exit = True


if __name__ == "__main__":
    main()
