"""A typo inside a game's kernel names the game, its file, line and function and the unknown field,
instead of numba's traceback of hundreds of lines ending in a bare ``KeyError`` (numba's error stays
chained)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from numba import njit

from cardgym.core.compiled.binder import KernelTypingError, load_template

REPO = Path(__file__).resolve().parents[1]
CRAZY_EIGHTS = REPO / "tests" / "games" / "crazy_eights"

TEMPLATE = textwrap.dedent('''
    from cardgym.core.compiled.fastcall import tagged_jit

    TAG = globals().get("TAG", "")
    KERNEL = None


    @tagged_jit(TAG)
    def run(a):
        return KERNEL(a)
''')


def _toy(tmp_path, kernel, variant):
    template = tmp_path / "toy_template.py"
    template.write_text(TEMPLATE)
    return load_template(template, "toy", "toy", variant, {"KERNEL": kernel})


def test_an_unknown_record_field_names_the_game_file_function_and_the_fields(tmp_path):
    dtype = np.dtype([("stock", np.int64), ("turn", np.int64)])

    @njit
    def count(recs):
        return recs[0].stok + 1  # the typo

    mod = _toy(tmp_path, count, "field")
    with pytest.raises(KernelTypingError) as info:
        mod.run(np.zeros(1, dtype))
    msg = str(info.value)
    assert "game 'toy'" in msg and "run()" in msg
    assert f"{Path(__file__).name}, line" in msg and "function count()" in msg
    assert "no field 'stok'" in msg and "its fields: stock, turn" in msg
    assert isinstance(info.value.__cause__, KeyError)  # numba's own error, chained
    assert len(msg.splitlines()) <= 6


def test_an_unknown_attribute_is_named_from_numbas_typing_error(tmp_path):
    from numba.core.errors import TypingError

    @njit
    def size(a):
        return a.sizee  # the typo

    mod = _toy(tmp_path, size, "attr")
    with pytest.raises(KernelTypingError) as info:
        mod.run(np.zeros(3))
    msg = str(info.value)
    assert "game 'toy'" in msg and "unknown name 'sizee'" in msg
    assert f"{Path(__file__).name}, line" in msg and "function size()" in msg
    assert isinstance(info.value.__cause__, TypingError)


def test_a_kernel_that_types_compiles_and_runs_through_the_wrapped_entry(tmp_path):
    @njit
    def double(a):
        return a[0] * 2

    mod = _toy(tmp_path, double, "fine")
    assert mod.run(np.array([21])) == 42
    assert "compile" in vars(mod.run)  # the named entry is in place


@pytest.mark.slow
@pytest.mark.subprocess
def test_a_field_typo_in_a_game_kernel_names_the_game_and_its_file(tmp_path):
    """A copy of the Crazy Eights test game with ``s.hand`` misspelt in ``kernels.py``'s ``legal``, played
    in a subprocess: a short error naming the game, the file, the function and the field."""
    game = tmp_path / "games" / "crazy_eights"
    shutil.copytree(CRAZY_EIGHTS, game, ignore=shutil.ignore_patterns("__pycache__"))
    kernels = game / "kernels.py"
    text = kernels.read_text()
    typo = "        if s.hand[seat, c] and playable(s, c):\n            mask[c] = 1\n"
    assert typo in text
    kernels.write_text(text.replace(typo, typo.replace("s.hand", "s.hnd"), 1))
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), CARDGYM_GAMES=str(game.parent),
               NUMBA_CACHE_DIR=str(tmp_path / "nbcache"))
    code = "import cardgym\ne = cardgym.crazy_eights_v0.env()\ne.reset(seed=3)\n"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode != 0
    last = out.stderr[out.stderr.rindex("KernelTypingError"):]
    assert "game 'crazy_eights'" in last, last
    assert f"{kernels}, line" in last and "function legal()" in last, last
    assert "no field 'hnd'" in last and "hand" in last, last
    assert "direct cause" in out.stderr  # numba's error chained
