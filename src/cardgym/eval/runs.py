"""The records folder of an evaluation with text players: game records, a run manifest and a journal of
finished games, so that an interrupted ``cardgym eval`` or ``cardgym ladder`` can be resumed.

``DIR/manifest.json`` says what the run is (`run_manifest`: the game, the players, the model and its
server's host, the prompt template's hash, the harness, ladder and cardgym versions, the seeds and the
options). ``DIR/results.ndjson`` gets one line per finished game (its key, the game record's name, the
seats' rewards, status and turns, and the text players' counts of that game), appended and flushed to
disk as each game ends. A resumed run (`RunFolder` with ``resume=True``) refuses a folder whose manifest
differs from its own (naming the field), skips the games of the journal with their stored results and
plays the rest: it ends with the table of an uninterrupted run.

Cost: `cost` turns token counts into US dollars from prices per million tokens.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from importlib import resources
from pathlib import Path

from ..app.game_records import RecordFolder

MANIFEST = "manifest.json"
JOURNAL = "results.ndjson"
#: manifest fields a resumed run may change (how fast or how dear the run is, not what it plays)
FREE_FIELDS = ("run",)


def harness_id() -> dict:
    """The text harness's identity: its version constant (when it has one) and the sha256 of its source
    (`cardgym.agents.text` and `cardgym.agents.llm_client`), so a run resumed with another harness is
    refused."""
    from ..agents import text

    h = hashlib.sha256()
    for name in ("text.py", "llm_client.py"):
        h.update((resources.files("cardgym.agents") / name).read_bytes())
    return {"version": getattr(text, "HARNESS_VERSION", None), "source_sha256": h.hexdigest()}


def player_manifest(player) -> dict:
    """What a run manifest says of one player: a bot's or a file's name; a text player's name, model,
    server host (never the key or the full URL's query), template hash, fallback, move listing and seed."""
    from urllib.parse import urlsplit

    from ..agents.text import is_text_player

    if not is_text_player(player):
        return {"name": str(player)}
    entry = player.record_entry().get("text", {}) if callable(getattr(player, "record_entry", None)) else {}
    info = dict(getattr(player, "info", {}) or {})
    url = info.get("base_url")
    return {"name": str(player), "model": info.get("model"), "server_host": urlsplit(url).netloc if url else None,
            "function": info.get("function"), "template_sha256": entry.get("template_sha256"),
            "fallback": entry.get("fallback"), "list_moves": entry.get("list_moves"), "history": entry.get("history"),
            "temperature": info.get("temperature"), "max_tokens": info.get("max_tokens"),
            "seed": getattr(player, "seed", None)}


def run_manifest(command: str, game, players: list, run: dict | None = None, **what) -> dict:
    """The manifest of a run of ``command`` (``"eval"`` or ``"ladder"``) of ``game`` by ``players``;
    ``what``: the seeds, games or deals, format and rule options (compared on resume); ``run``: settings a
    resumed run may change (concurrency, prices)."""
    import cardgym

    from .ladder import LADDER_VERSION

    return {"command": command, "game": game.name, "players": [player_manifest(p) for p in players],
            "harness": harness_id(), "ladder_version": LADDER_VERSION, "cardgym": cardgym.__version__,
            **what, "run": dict(run or {})}


def manifest_difference(old: dict, new: dict, where: str = "") -> str | None:
    """The first field (a dotted path) in which manifests ``old`` and ``new`` differ, with both values;
    ``None`` when they agree (`FREE_FIELDS` at the top level left out)."""
    keys = sorted(set(old) | set(new), key=str)
    for k in keys:
        if not where and k in FREE_FIELDS:
            continue
        path = f"{where}.{k}" if where else str(k)
        a, b = old.get(k, "(missing)"), new.get(k, "(missing)")
        if isinstance(a, dict) and isinstance(b, dict):
            found = manifest_difference(a, b, path)
            if found:
                return found
        elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            for i, (x, y) in enumerate(zip(a, b)):
                if isinstance(x, dict) and isinstance(y, dict):
                    found = manifest_difference(x, y, f"{path}[{i}]")
                    if found:
                        return found
                elif x != y:
                    return f"{path}[{i}]: the folder's run has {x!r}, this run {y!r}"
        elif a != b:
            return f"{path}: the folder's run has {a!r}, this run {b!r}"
    return None


class RunFolder(RecordFolder):
    """A `RecordFolder` with a run manifest and a journal of finished games (the ``recorder`` of
    `cardgym.eval.match` and `cardgym.eval.ladder.ladder`).

    ``resume=False``: a new run; a folder that already holds a run's manifest is refused (resume it, or
    choose another folder). ``resume=True``: the folder must hold a manifest equal to ``manifest`` (but
    for `FREE_FIELDS`); its journal's games are not played again."""

    def __init__(self, out_dir, manifest: dict, resume: bool = False):
        out = Path(out_dir)
        manifest = json.loads(json.dumps(manifest))  # as the file holds it (tuples as lists)
        mpath, jpath = out / MANIFEST, out / JOURNAL
        self.done_before: dict = {}
        if resume:
            if not mpath.is_file():
                raise ValueError(f"cannot resume {out}: it holds no {MANIFEST} (a run started with --record "
                                 f"{out} writes one)")
            try:
                old = json.loads(mpath.read_text())
            except (OSError, ValueError) as exc:
                raise ValueError(f"cannot resume {out}: its {MANIFEST} is not readable JSON ({exc})") from None
            diff = manifest_difference(old, manifest)
            if diff:
                raise ValueError(f"cannot resume {out}: its run differs from this one in {diff}; run the same "
                                 f"command, or record into a new folder")
            self.done_before = read_journal(jpath)
        elif mpath.exists():
            raise ValueError(f"{out} already holds a run ({MANIFEST}): continue it with --resume {out}, or record "
                             f"into a new folder")
        super().__init__(out)
        if not resume:
            mpath.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
        self.manifest = manifest
        self.journal_path = jpath
        self._jlock = threading.Lock()
        self.resumed = len(self.done_before)

    def finished(self, key: str):
        """The stored result of game ``key`` if an earlier run finished it (its record is then counted in
        `paths`), else ``None``."""
        got = self.done_before.get(key)
        if got is not None:
            path = self.out_dir / f"{key}.jsonl"
            if not path.is_file():  # the record is gone: play the game again
                return None
            with self._lock:
                self.paths.append(path)
        return got

    def write(self, key: str, result: dict):
        """Append game ``key``'s result to the journal and flush it to disk (after its record is written)."""
        line = json.dumps({"key": key, **result}, sort_keys=True) + "\n"
        with self._jlock, open(self.journal_path, "a", encoding="utf-8") as f:
            f.write(line)
            f.flush()
            os.fsync(f.fileno())


def read_journal(path) -> dict:
    """``{key: result}`` of a journal; a last line cut short by a kill is left out (that game is played
    again)."""
    out = {}
    path = Path(path)
    if not path.is_file():
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict) and isinstance(obj.get("key"), str):
            out[obj["key"]] = obj
    return out


def check_price(value, name: str) -> float | None:
    """A price in US dollars per million tokens (``None``: not given); ``ValueError`` naming ``name``."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 10_000:
        raise ValueError(f"{name} must be a price in US dollars per million tokens, 0..10000, got {value!r}")
    return float(value)


def cost(tokens_in, tokens_out, price_in=None, price_out=None, games: int = 1) -> dict | None:
    """The cost of ``tokens_in``/``tokens_out`` at ``price_in``/``price_out`` US dollars per million tokens:
    ``{"usd", "usd_per_game", "tokens_in", "tokens_out"}``; ``None`` without a price, ``usd`` ``None``
    when the server reported no tokens."""
    price_in, price_out = check_price(price_in, "price_in"), check_price(price_out, "price_out")
    if price_in is None and price_out is None:
        return None
    if tokens_in is None and tokens_out is None:
        return {"usd": None, "usd_per_game": None, "tokens_in": None, "tokens_out": None,
                "note": "the server reported no token counts"}
    usd = (tokens_in or 0) * (price_in or 0.0) / 1e6 + (tokens_out or 0) * (price_out or 0.0) / 1e6
    return {"usd": round(usd, 6), "usd_per_game": round(usd / max(1, games), 6), "tokens_in": tokens_in,
            "tokens_out": tokens_out, "price_in": price_in, "price_out": price_out}


__all__ = ["FREE_FIELDS", "JOURNAL", "MANIFEST", "RunFolder", "check_price", "cost", "harness_id",
           "manifest_difference", "player_manifest", "read_journal", "run_manifest"]
