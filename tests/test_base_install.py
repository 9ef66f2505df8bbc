"""Issue 42.4: every command works on the base install (the dependencies of ``pip install cardgym``,
no extra) or says in one line which extra it needs. The extras' modules are hidden by a finder on
``sys.meta_path`` installed by a ``sitecustomize`` module, so that the processes a command spawns
(``cardgym warmup``'s workers) miss them too."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"

#: the top-level modules of the extras (pyproject.toml, [project.optional-dependencies]) and of what
#: they pull in; none is a dependency of the base install
EXTRAS = ("torch", "stable_baselines3", "sb3_contrib", "PIL", "tqdm", "starlette", "uvicorn", "openai", "mcp",
          "httpx", "ray", "torchrl", "pydantic", "selenium", "platformdirs", "matplotlib", "pandas")

BLOCKER = f"""
import importlib.abc, sys

class _Hidden(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in {set(EXTRAS)!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}} (hidden: not in the base install)", name=name)

sys.meta_path.insert(0, _Hidden())
"""

COMMANDS = r"""
import contextlib, io, json, sys
from cardgym.cli import main

def run(argv, stdin=""):
    out, err = io.StringIO(), io.StringIO()
    sys.stdin = io.StringIO(stdin)
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(argv)
        except SystemExit as exc:
            code = exc.code
    return [code if code is None or isinstance(code, int) else str(code), out.getvalue(), err.getvalue()]

res = {}
for argv, stdin in json.loads(sys.argv[1]):
    res[" ".join(argv)] = run(argv, stdin)
print(json.dumps(res))
"""

#: command -> None (works) or the extra its one-line refusal names
CASES = {
    "rules skyjo --no-pager": None,
    "play skyjo --seed 1": None,
    "play skyjo --vs agent": "train",
    "eval skyjo --bots random,greedy --games 2 --record REC": None,
    "eval skyjo --bots random,agent --games 2": "train",
    "replay REC/random-vs-greedy-0.jsonl": None,
    "replay REC/random-vs-greedy-0.jsonl --gif OUT.gif": "render",
    "ladder skyjo --player random --deals 1 --json": None,
    "new-game tiny --dir NEW": None,
    "bench --help": None,
    "serve": "web",
    "mcp": "llm",
    "train skyjo --steps 64": "train",
    "warmup skipbo_junior --no-progress": None,
}


@pytest.mark.slow
@pytest.mark.subprocess
def test_every_command_works_on_the_base_install_or_names_its_extra(tmp_path):
    (tmp_path / "sitecustomize.py").write_text(BLOCKER)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SRC), str(tmp_path)]))
    env.pop("PYTHONSTARTUP", None)
    argvs = [[c.replace("REC", str(tmp_path / "rec")).replace("NEW", str(tmp_path / "new"))
              .replace("OUT", str(tmp_path / "out")).split(), "q\n" if c.startswith("play") else ""] for c in CASES]
    proc = subprocess.run([sys.executable, "-c", COMMANDS, json.dumps(argvs)], capture_output=True, text=True,
                          env=env, timeout=900, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads(proc.stdout.splitlines()[-1])
    for (cmd, extra), (argv, _) in zip(CASES.items(), argvs):
        code, out, err = res[" ".join(argv)]
        if extra is None:
            assert code in (0, None), (cmd, code, err[-2000:])
            assert "Traceback" not in err, (cmd, err[-2000:])
        else:  # one line naming the extra, no traceback
            line = code if isinstance(code, str) else err.strip()
            assert code not in (0, None) and "Traceback" not in err, (cmd, code, err[-2000:])
            assert "\n" not in line and re.search(rf"pip install 'cardgym\[{extra}\]'", line), (cmd, line)
    assert "cardgym warmup: " in res["warmup skipbo_junior --no-progress"][2]
    assert json.loads(res["ladder skyjo --player random --deals 1 --json"][1])["player"] == "random"
