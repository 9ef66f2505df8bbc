"""The core reads as it works: no function of ``cardgym.core`` is longer than `MAX_LINES` lines (its
signature, docstring and body), so each one is a step a reader takes in at once; a longer one is split
into named steps (private helpers with docstrings)."""

from __future__ import annotations

import ast
from pathlib import Path

import cardgym

#: the longest a function of cardgym.core may be, in source lines from its ``def`` to its last line
MAX_LINES = 60
CORE = Path(cardgym.__file__).resolve().parent / "core"


def _long_functions(folder: Path, limit: int) -> list:
    """``"path:line name (N lines)"`` of every function (methods and nested ones included) under ``folder``
    longer than ``limit`` lines."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > limit:
                    rel = path.relative_to(folder.parent).as_posix()
                    found.append(f"{rel}:{node.lineno} {node.name} ({lines} lines)")
    return found


def test_no_core_function_is_over_the_limit():
    long = _long_functions(CORE, MAX_LINES)
    assert not long, (f"functions of cardgym.core over {MAX_LINES} lines (split them into named steps):\n"
                      + "\n".join(long))


def test_the_check_names_a_long_function(tmp_path):
    folder = tmp_path / "core"
    folder.mkdir()
    body = "".join(f"        x{k} = {k}\n" for k in range(MAX_LINES))
    (folder / "long.py").write_text(f"def short():\n    return 1\n\n\nclass C:\n    def long(self):\n{body}")
    assert _long_functions(folder, MAX_LINES) == [f"core/long.py:6 long ({MAX_LINES + 1} lines)"]
