"""The public top-level modules that moved into sub-packages (docs/api.md, "Layers") keep their old
import paths for now: importing one gives the new module and a DeprecationWarning naming it."""

from __future__ import annotations

import subprocess
import sys

import pytest

import cardgym

CASES = sorted(cardgym._MOVED.items())


def run_fresh(code: str) -> None:
    """Run ``code`` in a fresh interpreter (nothing of cardgym imported yet); fail with its output."""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:] + proc.stdout


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
    run_fresh(code)


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
    run_fresh(code)


def test_an_unknown_module_is_still_an_error():
    with pytest.raises(ModuleNotFoundError):
        __import__("cardgym.no_such_module")


@pytest.mark.subprocess
def test_old_paths_of_the_earlier_docs_warn_naming_their_successor():
    """Every module path the docs of earlier releases showed a game author (cardgym._MOVED_INSIDE):
    importing it warns, naming cardgym.kit where a game now imports its names, and gives the new
    module's objects (a module that also held names now kept elsewhere reads those too)."""
    code = (
        "import importlib, warnings\n"
        "import cardgym\n"
        "for old, (new, kit, also) in cardgym._MOVED_INSIDE.items():\n"
        "    with warnings.catch_warnings(record=True) as caught:\n"
        "        warnings.simplefilter('always')\n"
        "        mod = importlib.import_module('cardgym.' + old)\n"
        "    msgs = [str(w.message) for w in caught if w.category is DeprecationWarning]\n"
        "    assert any(m.startswith(f'cardgym.{old} moved to {new};') for m in msgs), (old, msgs)\n"
        "    if kit:\n"
        "        assert any(f'from {kit}' in m for m in msgs), (old, msgs)\n"
        "    target = importlib.import_module(new)\n"
        "    public = [n for n in vars(target) if not n.startswith('_')]\n"
        "    assert public and all(getattr(mod, n) is getattr(target, n) for n in public), old\n"
        "    for other in also:\n"
        "        o = importlib.import_module(other)\n"
        "        assert all(getattr(mod, n) is getattr(o, n) for n in vars(o) if n[:1] != '_' and not hasattr(target, n))\n"
        "from cardgym.core.game import GameSpec, TERMINATED\n"
        "from cardgym.kit import GameSpec as G, TERMINATED as T\n"
        "assert GameSpec is G and TERMINATED == T\n"
        "import cardgym.core.game as g\n"
        "try:\n"
        "    g.no_such_name\n"
        "except AttributeError as e:\n"
        "    assert 'now cardgym.core.contract.game' in str(e), e\n"
        "else:\n"
        "    raise SystemExit('no AttributeError')\n"
    )
    run_fresh(code)


@pytest.mark.subprocess
def test_the_old_contract_package_path_warns_and_gives_the_same_objects():
    """``cardgym.core.spec`` is now ``cardgym.core.contract``: a first import of an old path (nothing of
    it imported under that name before) warns naming the new module and gives its very classes, and a
    pickle that names the old module (a class pickled before the rename) still loads."""
    code = (
        "import pickle, warnings\n"
        "import cardgym\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    import cardgym.core.spec.game as old\n"
        "    from cardgym.core.spec.worlds import Hidden, sample_worlds\n"
        "msgs = [str(w.message) for w in caught if w.category is DeprecationWarning]\n"
        "assert any(m.startswith('cardgym.core.spec.game moved to cardgym.core.contract.game;') for m in msgs), msgs\n"
        "assert any(m.startswith('cardgym.core.spec.worlds moved to cardgym.core.contract.worlds;') for m in msgs), msgs\n"
        "import cardgym.core.contract.game as new, cardgym.core.contract.worlds as worlds, cardgym.kit as kit\n"
        "assert old is new and old.GameSpec is new.GameSpec is kit.GameSpec, (old, new)\n"
        "assert Hidden is worlds.Hidden is kit.Hidden and sample_worlds is worlds.sample_worlds\n"
        "assert type(cardgym.get_game('skyjo')) is old.GameSpec\n"
        "data = pickle.dumps(new.Standing('points'), protocol=0)\n"
        "assert b'cardgym.core.contract.game' in data\n"
        "with warnings.catch_warnings():\n"
        "    warnings.simplefilter('ignore', DeprecationWarning)\n"
        "    loaded = pickle.loads(data.replace(b'cardgym.core.contract.game', b'cardgym.core.spec.game'))\n"
        "assert loaded == new.Standing('points') and type(loaded) is new.Standing\n"
    )
    run_fresh(code)
