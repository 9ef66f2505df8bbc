"""``cardgym new-game NAME``: write an out-of-tree game package that installs and passes at once.

The package (``cardgym-NAME``) holds a ``pyproject.toml`` declaring the game through the
``cardgym.games`` entry point, the game folder ``src/cardgym_NAME/NAME/`` in the fixed shape
(docs/api.md, "Adding a game": a small trick-taking game written with `cardgym.kit`, to be replaced by
the author's rules) and ``tests/`` calling `cardgym.testing.check_game`. The files come from the
templates in ``cardgym/kit/template/`` (``*.tmpl``), with ``{{name}}``, ``{{title}}``, ``{{Class}}``
and ``{{dist}}`` filled in.
"""

from __future__ import annotations

import keyword
import re
from pathlib import Path

TEMPLATE = Path(__file__).with_name("template")
NAME_RE = re.compile(r"[a-z][a-z0-9_]*\Z")


def check_name(name: str) -> str:
    """``name`` if it can name a game (a lowercase Python identifier, not a keyword), else ValueError."""
    if not isinstance(name, str) or not NAME_RE.match(name) or keyword.iskeyword(name) or name.endswith("_"):
        raise ValueError(f"a game name is a lowercase Python identifier (letters, digits, '_', starting with a "
                         f"letter, not a keyword), like 'crazy_eights'; got {name!r}")
    return name


def new_game(name: str, directory=None, title: str | None = None) -> Path:
    """Write the package of a new game ``name`` into ``directory`` (default ``./cardgym-<name>``, which
    must not exist or be empty) and return that folder. ``title`` defaults to the name in words."""
    name = check_name(name)
    out = Path(directory) if directory is not None else Path.cwd() / f"cardgym-{name.replace('_', '-')}"
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ValueError(f"{out} already exists and is not an empty folder: choose another --dir")
    words = title or " ".join(w.capitalize() for w in name.split("_") if w)
    fill = {"name": name, "title": words, "Class": "".join(w.capitalize() for w in name.split("_") if w),
            "dist": name.replace("_", "-")}
    plan = {
        "pyproject.toml.tmpl": Path("pyproject.toml"),
        "README.md.tmpl": Path("README.md"),
        "tests/test_game.py.tmpl": Path("tests") / f"test_{name}.py",
    }
    for path in sorted((TEMPLATE / "game").glob("*.py.tmpl")):
        plan[f"game/{path.name}"] = Path("src") / f"cardgym_{name}" / name / path.name[: -len(".tmpl")]
    files = {}
    for src, dst in plan.items():
        text = (TEMPLATE / src).read_text(encoding="utf-8")
        for key, value in fill.items():
            text = text.replace("{{" + key + "}}", value)
        if "{{" in text:
            raise RuntimeError(f"template {src} holds an unknown placeholder")  # pragma: no cover
        files[dst] = text
    files[Path("src") / f"cardgym_{name}" / "__init__.py"] = f'"""The {words} game for cardgym (`cardgym_{name}.{name}`)."""\n'
    for dst, text in files.items():
        path = out / dst
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return out


def code_lines(text: str) -> int:
    """Lines of Python code in ``text``: not blank, not a comment, not inside a docstring (a string
    expression statement: a module's, class's or function's docstring, or a bare string)."""
    import ast
    import io
    import tokenize

    doc = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            doc.update(range(node.lineno, node.end_lineno + 1))
    code = set()
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                        tokenize.ENDMARKER):
            continue
        code.update(line for line in range(tok.start[0], tok.end[0] + 1) if line not in doc)
    return len(code)


def measure_template() -> dict:
    """The size of the game folder ``cardgym new-game`` writes (docs/api.md, "Adding a game"): its
    ``files`` (the ``game/*.py.tmpl`` templates), their ``code_lines`` (`code_lines`) and the contract's
    ``required_exports`` (the names of `cardgym.core.contract.game.EXPORTS`). Run it with
    ``python -c "from cardgym.kit.new_game import measure_template; print(measure_template())"``."""
    from cardgym.core.contract.game import EXPORTS

    files = sorted((TEMPLATE / "game").glob("*.py.tmpl"))
    fill = {"{{name}}": "game", "{{title}}": "Game", "{{Class}}": "Game", "{{dist}}": "game"}

    def filled(path):
        text = path.read_text(encoding="utf-8")
        for key, value in fill.items():
            text = text.replace(key, value)
        return text

    return {
        "files": len(files),
        "code_lines": sum(code_lines(filled(f)) for f in files),
        "required_exports": sum(len(names) for names in EXPORTS.values()),
    }
