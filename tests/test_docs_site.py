"""The documentation site (mkdocs.yml) builds in strict mode and lists every page of docs/."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mkdocs")
yaml = pytest.importorskip("yaml")  # PyYAML, a dependency of mkdocs

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "mkdocs.yml"
DOCS = ROOT / "docs"


def _nav_pages(nav) -> list[str]:
    """Every page path named in an mkdocs ``nav`` (nested sections included, external links not)."""
    if isinstance(nav, str):
        return [] if "://" in nav else [nav]
    if isinstance(nav, list):
        return [page for item in nav for page in _nav_pages(item)]
    if isinstance(nav, dict):
        return [page for value in nav.values() for page in _nav_pages(value)]
    return []


@pytest.mark.slow
@pytest.mark.subprocess
def test_site_builds_in_strict_mode(tmp_path):
    # run from elsewhere: every path in mkdocs.yml must be relative to the config file
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(CONFIG), "-d", str(tmp_path / "site")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stderr}\n{proc.stdout}"
    assert (tmp_path / "site" / "index.html").is_file()
    assert (tmp_path / "site" / "reference" / "cardgym" / "index.html").is_file()
    # the generated reference of the kit lists every name a game author may import from it
    import cardgym.kit

    kit = (tmp_path / "site" / "reference" / "kit" / "index.html").read_text()
    missing = [n for n in cardgym.kit.__all__ if f'id="cardgym.kit.{n}"' not in kit and f"<code>{n}</code>" not in kit]
    assert not missing, f"docs/reference/kit.md does not show {missing}"


def test_every_docs_page_is_in_the_nav():
    config = yaml.safe_load(CONFIG.read_text())
    nav = _nav_pages(config["nav"])
    assert len(nav) == len(set(nav)), f"pages listed twice in mkdocs.yml nav: {sorted(nav)}"
    pages = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
    missing = sorted(set(pages) - set(nav))
    assert not missing, f"docs pages missing from the nav of mkdocs.yml: {missing}"
    absent = sorted(set(nav) - set(pages))
    assert not absent, f"mkdocs.yml nav names pages that do not exist in docs/: {absent}"
