"""``cardgym mcp`` driven by clients written elsewhere, fetched pinned from the npm registry (once, into
~/.cache/cardgym-tests; skipped, with the reason, where npm is absent or the registry unreachable):

- the protocol's own conformance suite (``@modelcontextprotocol/conformance``): the server scenarios that
  apply to a tool server, against ``cardgym mcp --http``;
- the MCP Inspector's command line (``@modelcontextprotocol/inspector --cli``, the TypeScript SDK): the tool
  list checked for portability (``--strict``) and a seeded game over stdio, and a whole seeded game over
  streamable HTTP, each call a new client session, with ``tools/call`` only.

Both need Node.js 22 or later: an older ``node`` on the PATH is replaced by the npm registry's ``node``
package (pinned too). docs/testing.md lists the versions and the scenarios."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from cardgym.app.game_records import parse_record, replay  # noqa: E402
from test_mcp_server import MAIN, HttpServer, server_env  # noqa: E402

CONFORMANCE = ("@modelcontextprotocol/conformance", "0.2.0-alpha.12")
INSPECTOR = ("@modelcontextprotocol/inspector", "2.12.0")
NODE = ("node", "22.23.3")
#: the oldest Node.js both run on (the Inspector's "engines"; the suite needs fs.globSync, Node 22)
NODE_MIN = (22, 19)

#: the conformance suite's server scenarios that apply to a server of tools over streamable HTTP. The
#: others need the suite's fixture tools (test_simple_text, json_schema_2020_12_tool, ...), prompts,
#: resources, completions, logging, sampling or elicitation, which cardgym mcp does not offer.
SCENARIOS = ("server-initialize", "server-session-lifecycle", "ping", "tools-list", "dns-rebinding-protection",
             "server-sse-multiple-streams", "server-stateless", "http-header-validation")
#: checks of those scenarios that call a fixture tool of the suite's own (a tool needing the client's
#: sampling capability): expected to fail; the suite itself fails the run if one of them passes (stale)
BASELINE = ("server-stateless:sep-2575-server-rejects-undeclared-capability",
            "server-stateless:sep-2575-missing-capability-http-400")


def _cache() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "cardgym-tests"


def npm_package(name: str, version: str) -> Path:
    """The folder of ``name@version`` installed with ``npm install`` into the cache folder (once)."""
    prefix = _cache() / f"npm-{name.replace('/', '-').lstrip('@')}-{version}"
    if not (prefix / ".installed").exists():
        npm = shutil.which("npm")
        if npm is None:
            pytest.skip(f"needs {name}@{version} from the npm registry: install npm")
        done = subprocess.run([npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--loglevel=error",
                               f"{name}@{version}"], capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            pytest.skip(f"npm install {name}@{version} failed (offline?): {done.stderr.strip()[-300:]}")
        (prefix / ".installed").write_text(f"{name}@{version}\n")
    return prefix / "node_modules" / name


def node() -> str:
    """A Node.js of at least `NODE_MIN`: the PATH's, else the npm registry's ``node`` package."""
    found = shutil.which("node")
    if found:
        out = subprocess.run([found, "--version"], capture_output=True, text=True, timeout=60).stdout
        m = re.match(r"v(\d+)\.(\d+)", out.strip())
        if m and (int(m.group(1)), int(m.group(2))) >= NODE_MIN:
            return found
    exe = npm_package(*NODE) / "bin" / "node"
    if not exe.exists():
        pytest.skip(f"the npm package node@{NODE[1]} has no bin/node (its install script did not run)")
    return str(exe)


@pytest.fixture(scope="module")
def http_server():
    server = HttpServer()
    yield server
    server.close()


@pytest.mark.slow
@pytest.mark.subprocess
def test_the_conformance_suites_applicable_server_scenarios_pass(http_server, tmp_path):
    suite = npm_package(*CONFORMANCE) / "dist" / "index.js"
    exe = node()
    baseline = tmp_path / "baseline.yml"
    baseline.write_text("server:\n" + "".join(f"  - {c}\n" for c in BASELINE))
    for scenario in SCENARIOS:
        flags = ["--expected-failures", str(baseline)] if any(c.startswith(scenario + ":") for c in BASELINE) else []
        done = subprocess.run([exe, str(suite), "server", "--url", http_server.url, "--scenario", scenario, *flags],
                              capture_output=True, text=True, timeout=300)
        out = re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + done.stderr)
        assert done.returncode == 0, f"{scenario}:\n{out[-3000:]}"
        passed = re.search(r"Passed: (\d+)/(\d+), (\d+) failed", out)
        assert passed and int(passed.group(1)) > 0, f"{scenario}:\n{out[-3000:]}"
        assert int(passed.group(3)) == sum(c.startswith(scenario + ":") for c in BASELINE), f"{scenario}:\n{out[-3000:]}"


class Inspector:
    """The Inspector's command line: one process, one client session, per call."""

    def __init__(self, target: list):
        self.cmd = [node(), str(npm_package(*INSPECTOR) / "clients" / "launcher" / "build" / "index.js"), "--cli",
                    *target]

    def run(self, *args) -> subprocess.CompletedProcess:
        return subprocess.run([*self.cmd, *args], capture_output=True, text=True, timeout=300, env=server_env())

    def call(self, tool: str, **args) -> dict:
        pairs = [f"{k}={json.dumps(v) if isinstance(v, (dict, list)) else v}" for k, v in args.items()]
        done = self.run("--method", "tools/call", "--tool-name", tool, *(["--tool-arg", *pairs] if pairs else []))
        assert done.returncode == 0, done.stderr[-2000:]
        res = json.loads(done.stdout)
        assert not res.get("isError"), res
        return res["structuredContent"]


@pytest.mark.slow
@pytest.mark.subprocess
def test_the_inspector_cli_lists_portable_tools_and_starts_a_seeded_game_over_stdio():
    # the Inspector starts the server with its own environment and the -e variables
    inspector = Inspector(["-e", f"PYTHONPATH={server_env()['PYTHONPATH']}", sys.executable, "-c", MAIN, "mcp"])
    done = inspector.run("--method", "tools/list", "--strict")
    assert done.returncode == 0, done.stderr[-2000:]
    # --strict prints each schema portability problem (none here) and exits 6 on an error-severity one
    assert "Schema portability" not in done.stderr and "Warning: tool" not in done.stderr, done.stderr[-2000:]
    names = {t["name"] for t in json.loads(done.stdout)["tools"]}
    assert {"new_game", "play", "wait_turn", "rules"} <= names
    started = inspector.call("new_game", game="skipbo_junior", seed=7)
    assert started["seed"] == 7 and started["seats"] == ["you", "greedy"]


@pytest.mark.slow
@pytest.mark.subprocess
def test_the_inspector_cli_plays_a_whole_seeded_game_over_http(http_server):
    inspector = Inspector([http_server.url])
    started = inspector.call("new_game", game="skipbo_junior", seed=2, opponents=["greedy"],
                             options={"stock_size": 1})
    assert started["seed"] == 2
    mine = {"game_id": started["game_id"], "token": started["token"]}
    moves = 0
    while (legal := inspector.call("legal_actions", **mine))["your_turn"]:
        pick = legal["legal"][0]
        # an id, then the move's words
        out = inspector.call("play", **mine, action=pick["action"] if moves % 2 == 0 else pick["text"])
        assert out["played"] == pick["text"]
        moves += 1
        assert moves < 100
    res = inspector.call("result", **mine)
    assert res["over"] and res["result"]["winners"] and moves > 0
    rec = parse_record(inspector.call("replay_record", **mine)["record"])
    assert len(list(replay(rec))) == len(rec.actions) + 1 and rec.header["seed"] == 2
