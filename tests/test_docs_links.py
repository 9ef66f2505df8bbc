"""User docs stay inside the repository and talk about the package, not about how it was built.

Checked: docs/*.md, README.md, the pages shipped in src/cardgym/pages/ (copies of docs/<game>.md, so
their links are resolved from docs/), and the docstrings of examples/*.py. Every Markdown link is an
external http(s) link or resolves to a file of the repository (and its ``#anchor`` to a heading of that
file); no text names a folder outside the repository or the way the project was made."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

#: (file, the folder its relative links start from)
PAGES = ([(p, p.parent) for p in sorted(DOCS.glob("*.md"))] + [(ROOT / "README.md", ROOT)]
         + [(p, DOCS) for p in sorted((ROOT / "src" / "cardgym" / "pages").glob("*.md"))])

#: wording that belongs to the project's own workflow, not to its users' docs
INTERNAL = [
    (r"(?<![\w_])shared/", "a path of the development machine (shared/...)"),
    (r"/work/|/root/|/home/", "a developer's absolute path"),
    (r"seed doc", "the project's seed documents"),
    (r"(?<!server-)\bsessions?\b", "the sessions the project was built in"),
    (r"\bissues? #?\d+", "an issue of the project's tracker"),
    (r"PRIOR_ART|RULES\.md|DESIGN\.md|ECOSYSTEM\.md", "a planning document outside the repository"),
    (r"dev(elopment)? machine|shared with other jobs", "the development machine"),
    (r"publisher source", "the sources the rules were written from"),
    (r"\bthe lead\b|\bhelpers? (?:session|agent)", "the people or agents who built it"),
]

_LINK = re.compile(r"(?<!!)\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|!\[[^\]]*\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    """The anchor of a heading, as Python-Markdown's ``toc`` extension (mkdocs) makes it."""
    text = re.sub(r"`|\*\*|\*|\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def _anchors(path: Path) -> set:
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)
    return {_slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.*?)\s*#*\s*$", text, re.M)}


def _links(text: str) -> list:
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # code blocks hold code, not links
    text = re.sub(r"`[^`\n]*`", "", text)
    return [m.group(1) or m.group(2) for m in _LINK.finditer(text)]


@pytest.mark.parametrize("page, base", PAGES, ids=[str(p.relative_to(ROOT)) for p, _ in PAGES])
def test_every_link_resolves_inside_the_repository(page, base):
    bad = []
    for target in _links(page.read_text()):
        if re.match(r"https?://", target):
            continue
        if re.match(r"\w+:", target) or target.startswith("/"):
            bad.append(f"{target}: only relative links and http(s) links")
            continue
        path, _, anchor = target.partition("#")
        dest = (base / path).resolve() if path else page
        if not dest.exists() or ROOT not in (dest, *dest.parents):
            bad.append(f"{target}: no such file in the repository")
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
            bad.append(f"{target}: no heading #{anchor} in {dest.relative_to(ROOT)}")
    assert not bad, f"{page.relative_to(ROOT)}:\n  " + "\n  ".join(bad)


def _user_texts():
    out = [(str(p.relative_to(ROOT)), p.read_text()) for p, _ in PAGES]
    for p in sorted((ROOT / "examples").glob("*.py")):
        out.append((str(p.relative_to(ROOT)), p.read_text()))
    return out


@pytest.mark.parametrize("name, text", _user_texts(), ids=[n for n, _ in _user_texts()])
def test_no_internal_wording(name, text):
    found = []
    for pattern, what in INTERNAL:
        for m in re.finditer(pattern, text, re.I):
            line = text.count("\n", 0, m.start()) + 1
            found.append(f"line {line}: {m.group(0)!r} ({what})")
    assert not found, f"{name}:\n  " + "\n  ".join(found)


def test_the_checks_catch_what_they_look_for(tmp_path):
    """The link and wording checks are not vacuous: a broken link, a wrong anchor and internal text fail."""
    page = tmp_path / "p.md"
    page.write_text("# A title\n\n[ok](p.md#a-title) [bad](p.md#nope) [gone](nothing.md) `[code](x.md)`\n")
    assert _links(page.read_text()) == ["p.md#a-title", "p.md#nope", "nothing.md"]
    assert _anchors(page) == {"a-title"}
    assert _slug("The `search` bot: **fast**, 2-player (v0)") == "the-search-bot-fast-2-player-v0"
    text = "see shared/seeds/004.txt and issue 14, built in the previous session"
    hits = [p for p, _ in INTERNAL if re.search(p, text, re.I)]
    assert len(hits) == 3
    assert not re.search(INTERNAL[0][0], "games/_shared/layout.py")
