"""Documentation helpers: tables generated from the code, which the docs embed and tests compare."""

from __future__ import annotations

from .game import DictEncoder, GameSpec


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


def main(argv=None):  # pragma: no cover - a maintenance command
    """``python -m cardgym.core.docs [DOCS_DIR]``: refresh the generated tables of every game page, then
    copy each page into the package (``cardgym/pages``, shipped in wheels for ``cardgym rules``)."""
    import sys
    from pathlib import Path

    import cardgym

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
