"""``cardgym serve``: play, watch and replay games in the browser (``pip install 'cardgym[web]'``).

One process, one port: a Starlette application (`cardgym.web.app`) run by uvicorn, bound to
127.0.0.1 unless ``--host`` says otherwise (an address beyond loopback needs ``--public`` and prints a
warning). Requests must name a loopback ``Host`` or one given to ``--allow-host``; idle and stalled
connections are closed after a few seconds, and stalled ones make room for others (`timed_protocol`). The server holds every env (`cardgym.web.tables`); a page
only ever receives its seat's view (`cardgym.render.view`). The page is plain HTML, JS and CSS shipped
in ``cardgym/web/static/`` (no build step). docs/web.md describes it.
"""

from __future__ import annotations

from pathlib import Path
from cardgym.app.listen import allowed_hosts, is_loopback

#: seconds a connection may stay idle between requests, and may take to send a request's headers
KEEP_ALIVE = 5
HEADER_TIMEOUT = 10
#: seconds a request's body may take to arrive after its headers (an 8 MiB record: 280 kB/s at least)
BODY_TIMEOUT = 30
#: seconds a connection that was answered before its body arrived (a refused body) stays open, dropping
#: what arrives, so that its client reads the answer
LINGER = 1.0
#: most connections at once: at the cap a new one closes a stalled one (`timed_protocol`), else gets 503
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


def check_host(args) -> list:
    """The Host names the server answers to: the loopback names, ``--allow-host`` and a non-loopback
    ``--host`` itself. Binding beyond loopback without ``--public`` ends the command (exit 2)
    (`cardgym.app.listen.allowed_hosts`, shared with ``cardgym mcp --http``)."""
    return allowed_hosts(args.host, args.public, args.allow_host, "cardgym serve", "the web table")


def timed_protocol():
    """uvicorn's h11 protocol with every wait on the client bounded in time (uvicorn 0.55 offers a
    keep-alive timeout and a connection cap, and times neither a request's headers nor its body):

    - a connection must send a whole request's headers within ``HEADER_TIMEOUT`` seconds of opening
      or of its last response, and the request's body within ``BODY_TIMEOUT`` seconds of its headers;
      otherwise it is closed;
    - a response sent before its request's body has arrived (a refused body, 413) closes the connection
      instead of reading the rest: the sending side at once, the connection `LINGER` seconds later (what
      arrives meanwhile is dropped, so that the client can read the refusal);
    - when the server holds `MAX_CONNECTIONS` connections, a new one closes a connection that waits on
      its client (for headers or a body): of the address holding the most of them, the one waiting
      longest. Stalled requests of one client so never fill the cap for the others."""
    from uvicorn.protocols.http.h11_impl import H11Protocol, h11

    class TimedH11Protocol(H11Protocol):
        _timer = None
        _since = 0.0  # when this connection began waiting on its client
        _draining = False

        def _arm(self, seconds):
            self._disarm()
            self._since = self.loop.time()
            self._timer = self.loop.call_later(seconds, self._timeout)

        def _disarm(self):
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

        def _timeout(self):
            self._timer = None
            if self.waiting_on_client() and not self.transport.is_closing():
                self.transport.close()

        def waiting_on_client(self) -> bool:
            """Whether the connection waits for its client: for a request's headers or its body."""
            return self._draining or self.conn.their_state in (h11.IDLE, h11.SEND_BODY)

        def _evict(self):
            """At the cap: close the longest-waiting stalled connection of the address holding most."""
            stalled = [p for p in self.connections if p is not self and isinstance(p, TimedH11Protocol)
                       and p.waiting_on_client() and not p.transport.is_closing()]
            if not stalled:
                return
            host = {}
            for p in stalled:
                h = p.client[0] if p.client else None
                host[h] = host.get(h, 0) + 1
            victim = min(stalled, key=lambda p: (-host[p.client[0] if p.client else None], p._since))
            victim._disarm()
            victim.transport.close()

        def connection_made(self, transport):
            super().connection_made(transport)
            self._arm(HEADER_TIMEOUT)
            if self.limit_concurrency is not None and len(self.connections) >= self.limit_concurrency:
                self._evict()

        def data_received(self, data):
            if self._draining:  # the rest of a refused body: dropped
                return
            before = self.conn.their_state
            super().data_received(data)
            state = self.conn.their_state
            if state is h11.SEND_BODY and before is not h11.SEND_BODY:
                self._arm(BODY_TIMEOUT)
            elif state not in (h11.IDLE, h11.SEND_BODY):
                self._disarm()

        def on_response_complete(self):
            if self.conn.their_state is h11.SEND_BODY and not self.transport.is_closing():
                # answered before the body arrived (refused): do not read the rest
                self._draining = True
                self.flow.resume_reading()
                self.server_state.total_requests += 1
                if self.transport.can_write_eof():
                    self.transport.write_eof()
                self._disarm()
                self._timer = self.loop.call_later(LINGER, self.transport.close)
                return
            super().on_response_complete()
            if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
                self._arm(HEADER_TIMEOUT)

        def connection_lost(self, exc):
            self._disarm()
            super().connection_lost(exc)

    return TimedH11Protocol


def run(app, host: str, port: int) -> None:
    """Serve ``app`` with uvicorn and every bound of `timed_protocol` (what ``cardgym serve`` runs)."""
    import uvicorn

    uvicorn.run(app, host=host, port=port, log_level="warning", http=timed_protocol(),
                timeout_keep_alive=KEEP_ALIVE, limit_concurrency=MAX_CONNECTIONS, timeout_graceful_shutdown=5)


def url(host: str, port: int) -> str:
    """The address to open: an IPv6 address in brackets (``http://[::1]:8000/``)."""
    h = host.strip("[]")
    return f"http://[{h}]:{port}/" if ":" in h else f"http://{h}:{port}/"


def cmd_serve(args, extra):
    if extra:
        raise SystemExit(f"cardgym serve: unexpected argument {extra[0]!r}")
    _need_web()
    from .app import create_app

    allowed = check_host(args)
    tables = build_tables(args)
    app = create_app(tables, allowed_hosts=allowed)
    print(f"cardgym serve: {url(args.host, args.port)}  (Ctrl-C stops it)")
    run(app, args.host, args.port)
    tables.close()


__all__ = ["build_tables", "check_host", "cmd_serve", "is_loopback", "parse_models", "run", "timed_protocol", "url"]
