"""The public top-level modules that moved into sub-packages (docs/api.md, "Layers") keep their old
import paths for now: importing one gives the new module and a DeprecationWarning naming it."""

from __future__ import annotations

import subprocess
import sys

import pytest

import cardgym

CASES = sorted(cardgym._MOVED.items())


@pytest.mark.parametrize("old,new", CASES)
@pytest.mark.subprocess
def test_old_path_imports_the_new_module_and_warns(old, new):
    code = (
        "import importlib, warnings\n"
        "warnings.simplefilter('error', DeprecationWarning)\n"
        "import cardgym\n"
        f"new = importlib.import_module({new!r})\n"
        "try:\n"
        f"    import cardgym.{old}\n"
        "except DeprecationWarning as w:\n"
        f"    assert {new!r} in str(w), w\n"
        "else:\n"
        "    raise SystemExit('no warning')\n"
        "warnings.simplefilter('ignore', DeprecationWarning)\n"
        f"import cardgym.{old} as old\n"
        "assert old is new, (old, new)\n"
        f"assert getattr(cardgym, {old!r}) is new\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:] + proc.stdout


@pytest.mark.subprocess
def test_from_old_path_import_a_name_warns():
    code = (
        "import warnings\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    from cardgym.cli_options import Parser\n"
        "from cardgym.app.options import Parser as P\n"
        "assert Parser is P\n"
        "msgs = [str(w.message) for w in caught if w.category is DeprecationWarning]\n"
        "assert any('cardgym.app.options' in m for m in msgs), msgs\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_an_unknown_module_is_still_an_error():
    with pytest.raises(ModuleNotFoundError):
        __import__("cardgym.no_such_module")
