"""How much sooner the ladder of a language model ends with games in flight (``--concurrency``), and what
the harness itself costs per decision.

A fake OpenAI-compatible server on 127.0.0.1, in a process of its own (this script with ``--serve``), answers every chat completion
after ``--latency`` seconds (0.5 by default) with the first legal move its prompt lists, and counts
tokens as a quarter of the characters. The ``llm`` player (`cardgym.agents.llm_client.OpenAIChat` in a
`cardgym.agents.text.TextPlayer`) then plays the ladder (`cardgym.eval.ladder.ladder`) of ``--game``:

1. at ``--concurrency`` games in flight, the whole run (``--deals`` deals, by default those of the
   default ladder: 10, each twice against each of Skyjo's 9 anchors, 180 games): wall time, measured;
2. at one game at a time, the first ``--sequential-games`` games of the same schedule, one by one: wall
   time per game, and the whole run extrapolated from it (a sequential run's time grows with its games:
   the games' decisions are answered one after another), and, with ``--sequential-full``, measured whole;
3. CPU per decision: the process time of the client process over the concurrent run's decisions (the
   server's time is in its own process), split into the openai client's (the thread time inside its
   calls) and the harness's own (envs, bots, views, prompts, parsing, telemetry, the threads).

    python benchmarks/llm_concurrency.py [--game skyjo] [--deals 10] [--concurrency 32] [--latency 0.5]
                                         [--sequential-games 2] [--sequential-full]

The speed-up it prints is the ratio of the two wall times of the same run (extrapolated for the sequential
one unless ``--sequential-full``).
"""

from __future__ import annotations

import argparse
import json
import re
import socket
import threading
import subprocess
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cardgym.eval.ladder import DEFAULT_DEALS


def _serve(port: int, latency: float):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out at once: no 40 ms delayed-ACK stall

        def log_message(self, *args):  # quiet
            pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
            prompt = body["messages"][0]["content"]
            time.sleep(latency)
            found = re.search(r"^(\d+): ", prompt, re.M)
            text = found.group(1) if found else "0"
            out = json.dumps({
                "id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": len(prompt) // 4, "completion_tokens": 1,
                          "total_tokens": len(prompt) // 4 + 1}}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

    ThreadingHTTPServer.daemon_threads = True
    ThreadingHTTPServer.request_queue_size = 256
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.serve_forever()


class FakeServer:
    """The fake server in a process of its own (``with FakeServer(0.5) as url: ...``)."""

    def __init__(self, latency: float):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.latency = latency

    def __enter__(self):
        self.proc = subprocess.Popen([sys.executable, __file__, "--serve", str(self.port), str(self.latency)])
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return f"http://127.0.0.1:{self.port}/v1"
            except OSError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.05)
        self.proc.kill()
        raise RuntimeError("the fake server did not start")

    def __exit__(self, *exc):
        self.proc.terminate()
        self.proc.wait(10)


class TimedChat:
    """An `OpenAIChat` whose calls' CPU time is added up (``time.thread_time`` of the calling thread: the
    openai client's own work, apart from the harness's)."""

    def __init__(self, inner):
        self.inner, self.cpu, self.calls = inner, 0.0, 0
        self.lock = threading.Lock()

    def chat(self, messages):
        t = time.thread_time()
        try:
            return self.inner.chat(messages)
        finally:
            spent = time.thread_time() - t
            with self.lock:
                self.cpu += spent
                self.calls += 1

    def info(self):
        return self.inner.info()


def llm_player(game: str, url: str, timeout: float = 60.0):
    import cardgym
    from cardgym.agents.llm_client import OpenAIChat
    from cardgym.agents.text import TextPlayer

    spec = cardgym.get_game(game)
    ask = TimedChat(OpenAIChat(url, "fake", timeout=timeout, max_retries=0))
    return TextPlayer(spec, spec.make_rules(num_players=2), ask, name="llm", fallback="first", info=ask.info())


def run(game="skyjo", deals=DEFAULT_DEALS, concurrency=32, latency=0.5, sequential_games=2, sequential_full=False) -> dict:
    """The measurements (a dict); see the module's doc."""
    from cardgym import eval as ev
    from cardgym.eval.ladder import SEED_BASE, ladder_bots, ladder

    bots = ladder_bots(game)
    games = 2 * deals * len(bots)
    with FakeServer(latency) as url:
        p = llm_player(game, url)
        ev.match(game, p, "random", games=2, seed=SEED_BASE, concurrency=2)  # warm: kernels, the client
        p.reset_stats()
        p.ask.cpu = 0.0
        t0, c0 = time.perf_counter(), time.process_time()
        r = ladder(game, p, deals=deals, concurrency=concurrency)
        wall_c, cpu_c = time.perf_counter() - t0, time.process_time() - c0
        st = r["text"]
        client = p.ask.cpu
        out = {"game": game, "deals": deals, "games": games, "latency_s": latency, "concurrency": concurrency,
               "decisions": st["decisions"], "requests": st["answers"], "errors": st["errors"],
               "wall_concurrent_s": round(wall_c, 2), "cpu_ms_per_decision": round(1000 * cpu_c / st["decisions"], 3),
               "client_cpu_ms_per_call": round(1000 * client / max(1, st["answers"]), 3),
               "harness_cpu_ms_per_decision": round(1000 * (cpu_c - client) / st["decisions"], 3),
               "tokens_in": st["tokens_in"], "tokens_out": st["tokens_out"]}
        # one game at a time: the first games of the schedule (the first deal against the first bot)
        q = llm_player(game, url)
        t0 = time.perf_counter()
        if sequential_full:
            ladder(game, q, deals=deals, concurrency=1)
            wall_1 = time.perf_counter() - t0
            out["wall_sequential_s"] = round(wall_1, 2)
            out["sequential"] = "measured"
        else:
            m = ev.match(game, q, bots[0], games=sequential_games, seed=SEED_BASE, concurrency=1)
            per_game = (time.perf_counter() - t0) / m["games"]
            per_decision = (time.perf_counter() - t0) / q.stats()["decisions"]
            wall_1 = per_decision * st["decisions"]
            out["sequential"] = (f"extrapolated from {m['games']} games ({q.stats()['decisions']} decisions, "
                                 f"{per_game:.1f} s a game): seconds per decision x the run's decisions")
            out["wall_sequential_s"] = round(wall_1, 1)
        out["speedup"] = round(wall_1 / wall_c, 1)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="skyjo")
    ap.add_argument("--deals", type=int, default=DEFAULT_DEALS, help=f"deals of the ladder run ({DEFAULT_DEALS}: the default ladder)")
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--latency", type=float, default=0.5, help="seconds the fake server takes per answer")
    ap.add_argument("--sequential-games", type=int, default=2, help="games measured one at a time")
    ap.add_argument("--sequential-full", action="store_true", help="measure the whole run one game at a time")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    r = run(args.game, args.deals, args.concurrency, args.latency, args.sequential_games, args.sequential_full)
    if args.json:
        print(json.dumps(r, indent=2))
        return r
    print(f"{r['game']} ladder, {r['deals']} deals ({r['games']} games, {r['decisions']} decisions, "
          f"{r['requests']} requests, {r['errors']} failed), fake server answering after {r['latency_s']:g} s")
    print(f"  concurrency {r['concurrency']:>3}: {r['wall_concurrent_s']:,.1f} s (measured)")
    print(f"  concurrency   1: {r['wall_sequential_s']:,.1f} s ({r['sequential']})")
    print(f"  speed-up: {r['speedup']:.1f}x")
    print(f"  CPU per decision in the client process (process time): {r['cpu_ms_per_decision']:.3f} ms, of which the "
          f"openai client {r['client_cpu_ms_per_call']:.3f} ms a call and the harness (envs, bots, views, prompts, "
          f"parsing, telemetry, threads) {r['harness_cpu_ms_per_decision']:.3f} ms")
    return r


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:  # the fake server's own process
        _serve(int(sys.argv[2]), float(sys.argv[3]))
    else:
        main()
