"""``cardgym serve``: play, watch and replay games in the browser (``pip install 'cardgym[web]'``).

One process, one port: a Starlette application (`cardgym.web.app`) run by uvicorn, bound to
127.0.0.1 unless ``--host`` says otherwise (an address beyond loopback needs ``--public`` and prints a
warning). Requests must name a loopback ``Host`` or one given to ``--allow-host``; idle and stalled
connections are closed after a few seconds (`TimedH11Protocol`). The server holds every env (`cardgym.web.tables`); a page
only ever receives its seat's view (`cardgym.render.view`). The page is plain HTML, JS and CSS shipped
in ``cardgym/web/static/`` (no build step). docs/web.md describes it.
"""

from __future__ import annotations

import ipaddress
import sys
from pathlib import Path

#: seconds a connection may stay idle between requests, and may take to send a request's headers
KEEP_ALIVE = 5
HEADER_TIMEOUT = 10
#: most connections at once (more get 503 until some close)
MAX_CONNECTIONS = 512


def _need_web():
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise SystemExit("cardgym serve needs the web extra: pip install 'cardgym[web]'") from None


def parse_models(specs) -> dict:
    """``--model [NAME=]PATH`` values as ``{name: (game, path)}``; the game is read from the model file."""
    out = {}
    for spec in specs or []:
        name, sep, path = spec.partition("=")
        if not sep:
            name, path = Path(spec).stem, spec
        if not name or name in ("person", "agent"):
            raise SystemExit(f"cardgym serve: --model {spec!r}: a model's name must not be empty, 'person' or 'agent'")
        if name in out:
            raise SystemExit(f"cardgym serve: two models are named {name!r}; name them: --model NAME=PATH")
        try:
            from ..agents import read_model_file

            meta, _ = read_model_file(path)
        except (ValueError, FileNotFoundError, ImportError) as exc:
            raise SystemExit(f"cardgym serve: --model {spec!r}: {exc}") from None
        game = meta.get("game")
        import cardgym

        if game not in cardgym.GAMES:
            raise SystemExit(f"cardgym serve: --model {spec!r}: the file names no game of this cardgym ({game!r})")
        out[name] = (game, str(path))
    return out


def build_tables(args):
    from .tables import Refused, Tables

    if args.max_games < 1:
        raise SystemExit(f"cardgym serve: --max-games must be at least 1, got {args.max_games}")
    if args.expire <= 0:
        raise SystemExit(f"cardgym serve: --expire must be a positive number of seconds, got {args.expire}")
    if not 0 <= args.pace <= 10:
        raise SystemExit(f"cardgym serve: --pace must be 0..10 seconds, got {args.pace}")
    models = parse_models(args.model)
    texts = {}
    if getattr(args, "text_player", None) is not None:
        if "llm" in models:
            raise SystemExit("cardgym serve: a model is named 'llm', the name of the language-model seat; name it "
                             "otherwise: --model NAME=PATH")
        texts["llm"] = args.text_player
    tables = Tables(models, max_games=args.max_games, expire=args.expire, pace=args.pace, text_players=texts,
                    idle=args.idle)
    for f in args.record or []:
        p = Path(f)
        if not p.is_file():
            raise SystemExit(f"cardgym serve: --record {f!r}: no such file")
        try:
            tables.open_record(p.read_text(), p.name, pinned=True)
        except (Refused, UnicodeDecodeError) as exc:
            raise SystemExit(f"cardgym serve: --record {f!r}: {getattr(exc, 'message', exc)}") from None
    return tables


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` serves this machine only (127.0.0.0/8, ::1, localhost)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_host(args) -> list:
    """The Host names the server answers to: the loopback names, ``--allow-host`` and a non-loopback
    ``--host`` itself. Binding beyond loopback without ``--public`` ends the command (exit 2)."""
    allowed = list(args.allow_host or [])
    if not is_loopback(args.host):
        if not args.public:
            print(f"cardgym serve: --host {args.host} serves other machines too: the web table has no "
                  "accounts and no encryption; add --public to do it anyway (and --allow-host NAME for the "
                  "name other machines use to reach it)", file=sys.stderr)
            raise SystemExit(2)
        print(f"cardgym serve: warning: listening on {args.host}, beyond this machine: anyone who can reach "
              f"it can start games; requests must name one of the allowed hosts", file=sys.stderr)
        try:
            if not ipaddress.ip_address(args.host.strip("[]")).is_unspecified:
                allowed.append(args.host)
        except ValueError:
            allowed.append(args.host)
    return allowed


def timed_protocol():
    """uvicorn's h11 protocol that also closes a connection which has not sent a whole request's
    headers ``HEADER_TIMEOUT`` seconds after it opened or after its last response (uvicorn's own
    keep-alive timeout only starts after a response, and a byte resets it)."""
    from uvicorn.protocols.http.h11_impl import H11Protocol, h11

    class TimedH11Protocol(H11Protocol):
        _header_timer = None

        def _arm(self):
            self._disarm()
            self._header_timer = self.loop.call_later(HEADER_TIMEOUT, self._header_timeout)

        def _disarm(self):
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _header_timeout(self):
            self._header_timer = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self.transport.close()

        def connection_made(self, transport):
            super().connection_made(transport)
            self._arm()

        def data_received(self, data):
            super().data_received(data)
            if self.conn.their_state is not h11.IDLE:
                self._disarm()

        def on_response_complete(self):
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()

        def connection_lost(self, exc):
            self._disarm()
            super().connection_lost(exc)

    return TimedH11Protocol


def cmd_serve(args, extra):
    if extra:
        raise SystemExit(f"cardgym serve: unexpected argument {extra[0]!r}")
    _need_web()
    import uvicorn

    from .app import create_app

    allowed = check_host(args)
    tables = build_tables(args)
    app = create_app(tables, allowed_hosts=allowed)
    print(f"cardgym serve: http://{args.host}:{args.port}/  (Ctrl-C stops it)")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", http=timed_protocol(),
                timeout_keep_alive=KEEP_ALIVE, limit_concurrency=MAX_CONNECTIONS, timeout_graceful_shutdown=5)
    tables.close()


__all__ = ["build_tables", "check_host", "cmd_serve", "is_loopback", "parse_models", "timed_protocol"]
