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
