"""The ladder's figures in the docs, made from the package's anchor file (`cardgym.eval.ladder.anchor_file`)
and a measured cost per format (`cardgym.eval.ladder.measure_costs`): ``python -m cardgym.eval.ladder
--write-docs`` rewrites the blocks between ``<!-- ladder:NAME -->`` and ``<!-- /ladder:NAME -->`` of the
pages of `PAGES`; a test keeps the anchor blocks equal to the file. (It takes them as arguments: the
ladder imports this module, not the other way round.)"""

from __future__ import annotations

import re
from pathlib import Path


#: the block names each page holds
PAGES = {"llm_agents.md": ("anchors",), "bots.md": ("pairs",), "llm_real_models.md": ("costs",)}
TITLES = {"skyjo": "Skyjo", "skipbo": "Skip-Bo", "skipbo_junior": "Skip-Bo Junior"}
#: seconds a call takes in the cost table's time columns (a mid-sized model on a busy server)
CALL_SECONDS = 3.0
#: games in flight in the cost table's concurrent time column
CONCURRENCY = 32


def _rules(opts: dict) -> str:
    return ", ".join(f"`{k}={v!r}`" for k, v in opts.items()) or "default"


def anchors_block(data: dict) -> str:
    """One table per format of the anchor file ``data``: each game's anchors (weakest first, Elo, random
    = 0) and the range of the neighbouring pairs' scores."""
    out = []
    for fmt in data["formats"]:
        out += [f"**Format `{fmt}`**", "", "| game | rules | anchors, weakest first (Elo) | neighbours score |",
                "|---|---|---|---|"]
        for game, v in data["formats"][fmt].items():
            chain = list(v["anchors"])
            got = {(p["a"], p["b"]): p["score"] for p in v["pairs"]}
            near = [got[(a, b)] for a, b in zip(chain, chain[1:])]
            cells = ", ".join(f"{a} {r:.0f}" for a, r in v["anchors"].items())
            out.append(f"| {TITLES.get(game, game)} | {_rules(v['rules'])} | {cells} | "
                       f"{min(near):.0%} to {max(near):.0%} |")
        out.append("")
    out.append(f"Measured with `{data['measured_with']}` ({data['per_pair']} duplicate games per pair of "
               f"neighbours and of anchors two apart, seeds from {data['seed']}).")
    return "\n".join(out)


def pairs_block(data: dict) -> str:
    """Every measured pair of anchors of the anchor file ``data``: the stronger's score against the weaker."""
    out = []
    for fmt in data["formats"]:
        for game, v in data["formats"][fmt].items():
            out += [f"**{TITLES.get(game, game)}, format `{fmt}`** ({_rules(v['rules'])}):", "",
                    "| weaker | stronger | stronger's score | games |", "|---|---|---:|---:|"]
            out += [f"| {p['a']} | {p['b']} | {p['score']:.1%} | {p['games']} |" for p in v["pairs"]]
            out.append("")
    out.append(f"Measured with `{data['measured_with']}`.")
    return "\n".join(out)


def costs_block(costs: dict, deals: int) -> str:
    """What a default run (``deals`` deals) of each format asks of a model: ``costs`` is
    ``{format: cardgym.eval.ladder.measure_costs(format)}``."""
    out = [f"| format | game | games a run (`--deals {deals}`) | calls a game | calls a run | prompt tokens a call | "
           f"prompt tokens a run | a run at {CALL_SECONDS:g} s a call | at `--concurrency {CONCURRENCY}` |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for fmt in costs:
        for game, c in costs[fmt].items():
            calls = c["decisions"] * c["games_per_run"]
            tokens = c["prompt_chars"] / 4
            waves = -(-c["games_per_run"] // CONCURRENCY)
            out.append(f"| {fmt} | {TITLES.get(game, game)} | {c['games_per_run']} | {c['decisions']:.0f} | "
                       f"{calls:,.0f} | {tokens:,.0f} | {calls * tokens / 1e6:,.1f} M | "
                       f"{_hours(calls * CALL_SECONDS)} | {_hours(waves * c['decisions'] * CALL_SECONDS)} |")
    return "\n".join(out)


def _hours(seconds: float) -> str:
    return f"{seconds / 3600:.1f} h" if seconds >= 3600 else f"{seconds / 60:.0f} min"


def docs_dir() -> Path:
    path = Path(__file__).resolve().parents[3] / "docs"
    if not path.is_dir():
        raise RuntimeError("--write-docs rewrites the docs of a source checkout; no docs/ folder here")
    return path


def replace_block(text: str, name: str, body: str) -> str:
    """``text`` with the block ``name`` holding ``body``; ``ValueError`` when the page has no such block."""
    pat = re.compile(rf"(<!-- ladder:{name} -->\n)(?:.*?\n)?(<!-- /ladder:{name} -->)", re.S)
    if not pat.search(text):
        raise ValueError(f"no <!-- ladder:{name} --> ... <!-- /ladder:{name} --> block")
    return pat.sub(lambda m: m.group(1) + body + "\n" + m.group(2), text, count=1)


def block(text: str, name: str) -> str:
    """The body of the block ``name`` of a page's ``text``."""
    m = re.search(rf"<!-- ladder:{name} -->\n(?:(.*?)\n)?<!-- /ladder:{name} -->", text, re.S)
    if m is None:
        raise ValueError(f"no <!-- ladder:{name} --> block")
    return m.group(1) or ""


def write_docs(data: dict, costs: dict, deals: int) -> list:
    """Rewrite every block of `PAGES` from the anchor file ``data`` and the ``costs`` of a run of ``deals``
    deals; returns the paths written."""
    bodies = {"anchors": anchors_block(data), "pairs": pairs_block(data), "costs": costs_block(costs, deals)}
    written = []
    for page, names in PAGES.items():
        path = docs_dir() / page
        text = path.read_text()
        for name in names:
            text = replace_block(text, name, bodies[name])
        path.write_text(text)
        written.append(path)
    return written


__all__ = ["PAGES", "anchors_block", "block", "costs_block", "pairs_block", "replace_block", "write_docs"]
