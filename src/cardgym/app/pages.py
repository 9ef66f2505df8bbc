"""The game pages: ``docs/GAME.md``, its tables generated from the code, and the copy the package ships.

- ``python -m cardgym.app.pages docs`` refreshes the generated tables of every game page (between the
  `MARKERS`; tests compare them with the code) and copies each page into ``cardgym/pages/`` (shipped in
  wheels), which `rules_markdown` reads and `rules_text` draws for a terminal (``cardgym rules``, the
  ``r`` key of ``cardgym play``).
"""

from __future__ import annotations

import re

from cardgym.core.contract.game import DictEncoder, GameSpec


def layout_table(game: GameSpec, encoder: str = "vector", **options) -> str:
    """The markdown table of a flat encoder's layout for the given rule options."""
    enc = game.encoder(encoder)
    if isinstance(enc, DictEncoder):
        raise ValueError(f"{encoder!r} is a dict encoder; it has no flat layout")
    rules = game.make_rules(**options)
    rows = ["| # | field | size | range | meaning |", "|---|---|---|---|---|"]
    at = 0
    for f in enc.layout(rules):
        span = f"{at}" if f.size == 1 else f"{at}-{at + f.size - 1}"
        rows.append(f"| {span} | `{f.name}` | {f.size} | {_num(f.low)}..{_num(f.high)} | {f.doc} |")
        at += f.size
    rows.append(f"| | **total** | **{at}** | | |")
    return "\n".join(rows)


def action_table(game: GameSpec) -> str:
    """The markdown table of every action id in words."""
    rows = ["| id | action |", "|---|---|"]
    for a in range(game.num_actions):
        rows.append(f"| {a} | {game.action_to_str(a)} |")
    return "\n".join(rows)


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


MARKERS = {
    "layout": ("<!-- generated: vector layout, 2 players -->", "<!-- end generated layout -->"),
    "actions": ("<!-- generated: action table -->", "<!-- end generated actions -->"),
}


def refresh(text: str, game: GameSpec) -> str:
    """Replace the generated blocks of a doc page (between the MARKERS) with fresh tables."""
    tables = {"layout": layout_table(game, "vector", num_players=2), "actions": action_table(game)}
    for key, (start, end) in MARKERS.items():
        if start not in text or end not in text:
            continue
        head, rest = text.split(start, 1)
        _, tail = rest.split(end, 1)
        text = f"{head}{start}\n{tables[key]}\n{end}{tail}"
    return text


def package_page(name: str):
    """Where the package keeps its copy of ``docs/NAME.md`` (what ``cardgym rules NAME`` shows)."""
    from pathlib import Path

    return Path(__file__).resolve().parents[1] / "pages" / f"{name}.md"


# ------------------------------------------------------------------ the shipped pages, for a terminal
def rules_markdown(game) -> str:
    """The game's documentation page (rules as implemented, options, spaces) as Markdown: the registry's
    `cardgym.registry.page`. A built-in game's page ships inside the package (``cardgym/pages/GAME.md``,
    copies of ``docs/GAME.md`` kept equal by ``python -m cardgym.app.pages`` and a test), so this works
    from a wheel; a game from outside cardgym (an entry point, ``CARDGYM_GAMES``) has its package's
    docstring as its page."""
    import importlib

    from cardgym import registry

    if game.name in registry.discover():
        return registry.page(game.name)
    return importlib.import_module(game.package).__doc__ or f"# {game.title}\n"


def clean_markdown(text: str) -> str:
    """The page without its HTML comments (the markers of the generated blocks)."""
    return re.sub(r"<!--.*?-->\n?", "", text, flags=re.S)


def render_markdown(text: str, width: int | None = None, color: bool = False) -> str:
    """Markdown as terminal text (rich): tables drawn, links as their text, HTML comments dropped."""
    import io

    from rich.console import Console
    from rich.markdown import Markdown

    buf = io.StringIO()
    console = Console(file=buf, width=width or 100, force_terminal=color, no_color=not color,
                      color_system="standard" if color else None, highlight=False)
    console.print(Markdown(clean_markdown(text), hyperlinks=False))
    return "\n".join(line.rstrip() for line in buf.getvalue().splitlines()) + "\n"


def rules_text(game, width: int | None = None, color: bool = False) -> str:
    """The rules page of ``game`` rendered for a terminal."""
    return render_markdown(rules_markdown(game), width=width, color=color)


def main(argv=None):  # pragma: no cover - a maintenance command
    """``python -m cardgym.app.pages [DOCS_DIR]``: refresh the generated tables of every game page, then
    copy each page into the package (``cardgym/pages``, shipped in wheels for ``cardgym rules``)."""
    import sys
    from pathlib import Path

    import cardgym  # the game registry (this module is above core: docs/api.md, "Layers")

    root = Path((argv or sys.argv[1:] or ["docs"])[0])
    for name in cardgym.GAMES:
        page = root / f"{name}.md"
        if page.exists():
            text = page.read_text()
            new = refresh(text, cardgym.get_game(name))
            if new != text:
                page.write_text(new)
                print(f"updated {page}")
            copy = package_page(name)
            if not copy.exists() or copy.read_text() != new:
                copy.write_text(new)
                print(f"updated {copy}")


if __name__ == "__main__":  # pragma: no cover
    main()
