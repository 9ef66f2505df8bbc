"""Hostile values at the edges the issue listed (illegal_penalty, num_envs, the RLlib examples without
Ray): each is refused with one clear error; those that could crash or exhaust the machine run in a
child process under an address-space limit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import cardgym
from cardgym.core.envs.vector import MAX_NUM_ENVS

ROOT = Path(__file__).resolve().parents[1]
SRC = str(ROOT / "src")
BAD_PENALTIES = [float("nan"), float("inf"), -float("inf"), np.float32("nan"), "1", "-1.0", True, False,
                 np.bool_(True), None, 10**400, 1 + 2j, [1.0], b"1"]


def _child_env():
    return {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}


@pytest.mark.parametrize("value", BAD_PENALTIES, ids=repr)
def test_illegal_penalty_must_be_a_finite_real(value):
    import gymnasium as gym

    pattern = r"illegal_penalty must be a finite real number, got "
    with pytest.raises(ValueError, match=pattern):
        gym.make("cardgym/Skyjo-v0", illegal_penalty=value)
    with pytest.raises(ValueError, match=pattern):
        cardgym.make_vec("skyjo", 2, illegal_penalty=value)
    env = gym.make("cardgym/Skyjo-v0").unwrapped
    vec = cardgym.make_vec("skyjo", 2)
    for e in (env, vec):
        with pytest.raises(ValueError, match=pattern):
            e.illegal_penalty = value
        assert e.illegal_penalty == -1.0  # unchanged


@pytest.mark.parametrize("value", [-1e39, 1e300, -(2**200), np.float64(-3.5e38)], ids=repr)
def test_a_penalty_beyond_float32_is_refused(value):
    """Issue 42.8: the vector env's rewards are float32, where such a penalty was an infinite reward."""
    import gymnasium as gym

    pattern = r"illegal_penalty must be within \+-3\.40282e\+38 \(float32, the vector env's rewards\), got "
    with pytest.raises(ValueError, match=pattern):
        gym.make("cardgym/Skyjo-v0", illegal_penalty=value)
    vec = cardgym.make_vec("skyjo", 2)
    with pytest.raises(ValueError, match=pattern):
        vec.illegal_penalty = value
    vec.illegal_penalty = -float(np.finfo(np.float32).max)  # the largest allowed pays a finite reward
    vec.reset(seed=0)
    illegal = [int(np.flatnonzero(m == 0)[0]) for m in vec.action_masks()]
    rewards = vec.step(np.array(illegal))[1]
    assert np.all(np.isfinite(rewards)) and rewards[0] == -np.finfo(np.float32).max


@pytest.mark.parametrize("value", [-1, 0, 2.5, np.float32(-0.5), np.int8(-2), np.float64(-1e30)], ids=repr)
def test_finite_reals_are_accepted_as_penalties(value):
    import gymnasium as gym

    env = gym.make("cardgym/Skyjo-v0", illegal_penalty=value).unwrapped
    assert env.illegal_penalty == float(value) and type(env.illegal_penalty) is float
    env.reset(seed=0)
    illegal = int(np.flatnonzero(env.action_masks() == 0)[0])
    assert env.step(illegal)[1] == float(value)


_HUGE = r"""
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (4 * 2**30, 4 * 2**30))
import numpy as np, cardgym
out = {}
for n in (2**63, 10**9, 2**18 + 1, np.int64(2**40), 2**64):
    try:
        cardgym.make_vec("skyjo", n)
        out[str(n)] = ["built", ""]
    except BaseException as exc:
        out[str(n)] = [type(exc).__name__, str(exc)]
print(json.dumps(out))
"""


@pytest.mark.subprocess
def test_a_huge_num_envs_is_a_clear_value_error_not_an_allocation():
    """Under a 4 GB address-space limit: without the bound, 10**9 envs fail with MemoryError and 2**63
    with OverflowError instead of the ValueError naming the allowed range."""
    proc = subprocess.run([sys.executable, "-c", _HUGE], capture_output=True, text=True, env=_child_env(),
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    for n, (kind, msg) in out.items():
        assert kind == "ValueError", (n, kind, msg)
        assert f"num_envs must be an integer in 1..{MAX_NUM_ENVS:,}" in msg, (n, msg)


def test_gymnasium_make_vec_takes_the_same_bound():
    import gymnasium as gym

    with pytest.raises(ValueError, match="num_envs must be an integer in 1..262,144"):
        gym.make_vec("cardgym/Skyjo-v0", num_envs=10**9)


_NO_RAY = r"""
import runpy, sys
for name in ("ray", "ray.rllib"):
    sys.modules[name] = None  # as if Ray were not installed
path = sys.argv[1]
sys.argv = [path, "--iterations", "1"]
runpy.run_path(path, run_name="__main__")
"""


@pytest.mark.subprocess
@pytest.mark.parametrize("example", sorted(p.name for p in (ROOT / "examples").glob("rllib_*.py")))
def test_rllib_examples_without_ray_say_what_to_install(example):
    path = ROOT / "examples" / example
    proc = subprocess.run([sys.executable, "-c", _NO_RAY, str(path)], capture_output=True, text=True,
                          env=_child_env(), timeout=300, cwd=ROOT)
    assert proc.returncode == 1, (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert "pip install 'cardgym[rllib]'" in proc.stderr
    assert "/work/" not in path.read_text() and "/home/" not in path.read_text()
