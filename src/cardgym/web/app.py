"""The ``cardgym serve`` application (Starlette): a JSON API over `cardgym.web.tables` and the page.

Routes (every error is ``{"error": message}`` with a 4xx status, and changes nothing; a table whose
preparation failed answers 500 with the reason):

- ``GET /``: the page (``static/index.html``, plain JS and CSS shipped as package data);
- ``GET /api/games``: the games, their player counts, bots, rule options, agents and models, each
  game's kernel ``status`` (ready | preparing | cold), the server's default ``pace`` and its ``limits``;
- ``POST /api/prepare`` ``{game, seats?}``: start compiling a game's (and its bots') kernels ahead;
- ``POST /api/games`` ``{game, num_players, seats, rules, seed, pace}``: a new table; answers its
  ``id``, its ``status`` (``preparing`` while the game's kernels compile on first use, then
  ``playing``) and, if a seat is a person's, that seat and its ``token`` (sent back as ``X-Seat-Token``);
- ``GET /api/games/{id}`` (``?seat=K`` to watch a seat of a bots-only game; ``?since=N``: the log from
  entry N on, the entries the page does not hold yet, as ``log_from`` and ``log``): lets the bots move at
  their pace (at pace 0 a bounded slice of moves per request), then the state as the token's seat
  (or the public table) sees it: ``status``, ``view``, ``log``, ``last`` (the last move in words) and,
  once over, ``outcome`` (the result in words) and ``table`` (scores, totals, rounds);
- ``POST /api/games/{id}/move`` ``{action, step}``: the token's seat moves (``step``: the number of
  moves the page has seen, so a stale page cannot move); the answer's log starts at ``step``; a token's requests carry the page's own
  ``X-Page`` id, and a second page using the same token is refused while the first one is open;
- ``POST /api/games/{id}/claim`` ``{seat}``: the token of a person seat nobody holds yet;
- ``POST /api/games/{id}/leave`` ``{soon}``: the page playing a seat (or that started a bots-only game)
  leaves: the game ends now, or with ``soon`` (the page is closing or reloading) a few seconds later
  unless that page comes back;
- ``GET /api/games/{id}/record``: the game record (JSON lines) once the game is over;
- ``GET /api/records``, ``POST /api/records`` (the record's text as the body): open a record;
  ``GET /api/records/{id}?step=K&seat=S&since=N``: its state at step K as seat S (or the table) sees
  it, with the log from entry N on (a page that holds the log gets one step's worth).

Every game step, bot move, compile and replay runs in a worker thread, never on the event loop.
Requests must name an allowed ``Host`` (loopback names, plus ``cardgym serve --allow-host``), and a
state-changing request from a browser must come from the same origin (``Origin``/``Sec-Fetch-Site``).
Bodies are read as a stream and refused (413) as soon as they pass their limit.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

import cardgym

from .tables import Refused, Tables, game_catalogue

STATIC = Path(__file__).with_name("static")
MAX_BODY = 8 * 1024 * 1024  # bytes of an uploaded record: a long record is a few hundred kB
MAX_JSON = 64 * 1024  # bytes of a JSON request (a new game, a move, a claim)
#: the names a request's Host may have by default: loopback only (a foreign name is DNS rebinding)
LOOPBACK = ("127.0.0.1", "localhost", "::1")
UNSAFE = ("POST", "PUT", "PATCH", "DELETE")
#: seconds a request for a table being prepared waits (asleep, on the event loop) before it answers
#: ``preparing``: with numba's cache on disk, a game's kernels load within it
SETTLE = 3.0


def _error(exc: Refused) -> JSONResponse:
    return JSONResponse({"error": exc.message}, status_code=exc.status)


def _host_name(value: str) -> str:
    """The host of a ``Host`` header or an origin's netloc, without its port, lowercased."""
    value = value.strip().lower()
    if value.startswith("["):  # [::1]:8000
        return value[1:value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


class GuardMiddleware:
    """Refuses (JSON 4xx) a request whose ``Host`` is not an allowed name (400), and a state-changing
    request a browser sends from another site (403: an ``Origin`` other than this server's own, or
    ``Sec-Fetch-Site: cross-site``). Plain ASGI, so it wraps the whole app, static files included."""

    def __init__(self, app, allowed_hosts=(), command: str = "cardgym serve"):
        self.app, self.command = app, command
        self.allowed = {h.lower().strip("[]") for h in (*LOOPBACK, *allowed_hosts)}

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        problem = None
        if _host_name(host) not in self.allowed:
            problem = (400, f"this server does not answer to Host {host!r}; allowed: {sorted(self.allowed)} "
                            f"(add a name with {self.command} --allow-host NAME)")
        elif scope["method"] in UNSAFE:
            origin = headers.get("origin")
            if origin is not None:
                parts = urlsplit(origin)
                if origin == "null" or parts.scheme not in ("http", "https") or parts.netloc.lower() != host.lower():
                    problem = (403, f"a request that changes something must come from this server's own page; "
                                    f"its Origin is {origin!r}, this server is {host!r}")
            if problem is None and headers.get("sec-fetch-site") == "cross-site":
                problem = (403, "a request that changes something must come from this server's own page "
                                "(Sec-Fetch-Site: cross-site)")
        if problem is not None:
            return await JSONResponse({"error": problem[1]}, status_code=problem[0])(scope, receive, send)
        return await self.app(scope, receive, send)


async def read_body(request: Request, limit: int) -> bytes:
    """The body, read as a stream: refused (413) from its ``Content-Length`` before reading, and as
    soon as more than ``limit`` bytes arrive."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise Refused(400, f"Content-Length must be a number of bytes, got {declared[:40]!r}")
        if int(declared) > limit:
            raise Refused(413, f"the body is {declared} bytes; the limit is {limit}")
    chunks, size = [], 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise Refused(413, f"the body passes the limit of {limit} bytes")
            chunks.append(chunk)
    except ClientDisconnect:
        raise Refused(400, "the client left before sending its whole body") from None
    return b"".join(chunks)


async def _body(request: Request, kind: str = "json"):
    data = await read_body(request, MAX_BODY if kind == "text" else MAX_JSON)
    if kind == "text":
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise Refused(400, "the body is not UTF-8 text (a game record is JSON lines)") from None
    try:
        return json.loads(data or b"null")
    except (ValueError, RecursionError) as exc:
        raise Refused(400, f"malformed JSON body: {str(exc)[:200]}") from None


def _obj(body, *keys):
    if not isinstance(body, dict):
        raise Refused(400, f"the body must be a JSON object with {', '.join(keys)}, got {type(body).__name__}")
    extra = sorted(set(body) - set(keys))
    if extra:
        raise Refused(400, f"unknown field(s) {extra}; allowed: {', '.join(keys)}")
    missing = [k for k in keys if k not in body]
    if missing:
        raise Refused(400, f"missing field(s) {missing}")
    return body


def create_app(tables: Tables | None = None, allowed_hosts=(), settle: float = SETTLE) -> Starlette:
    """The application over ``tables`` (a fresh `Tables` if None), answering the loopback names and
    ``allowed_hosts``; a request for a table being prepared waits up to ``settle`` seconds for it."""
    tables = tables if tables is not None else Tables()
    catalogue = game_catalogue(tables.models, tables.text_players)

    def handle(fn):
        async def endpoint(request: Request):
            try:
                return await fn(request)
            except Refused as exc:
                return _error(exc)
            except cardgym.registry.BrokenGame as exc:  # a game that fails to load, asked for by name
                return _error(Refused(400, str(exc)))

        return endpoint

    def off_loop(fn):
        """``fn(request, *args)`` in a worker thread, its `Refused` as the error response."""
        async def run(request, *args):
            return await run_in_threadpool(fn, request, *args)

        return run

    async def index(request):
        return FileResponse(STATIC / "index.html", media_type="text/html")

    def _client(request):
        page = request.headers.get("x-page", "")[:64]
        return (request.client.host if request.client else "", page)

    def catalogue_now():
        status = tables.catalogue_status()
        return [{**g, "status": status.get(g["name"], "cold")} for g in catalogue]

    async def settled(gid):
        """Wait (without holding a thread) until the table ``gid`` is prepared, at most `SETTLE` s."""
        t = tables.live.get(gid)
        end = time.monotonic() + settle
        while t is not None and t.status == "preparing" and time.monotonic() < end:
            await asyncio.sleep(0.05)
        return t

    async def games(request):
        if request.method == "POST":
            body = await _body(request)
            out = await run_in_threadpool(tables.create, body, _client(request))
            t = await settled(out["id"])
            if t is not None and t.status != out["status"]:
                out = {**out, "status": t.status, "message": "" if t.ready else f"the table could not be prepared: {t.error}"}
            return JSONResponse(out, status_code=201)
        return JSONResponse({"games": catalogue_now(), "records": tables.list_records(_page(request)), "pace": tables.pace,
                             "limits": {"max_games": tables.max_games, "per_client": tables.per_client,
                                        "in_progress": tables.in_progress(), "max_moves": tables.max_moves,
                                        "record_bytes": MAX_BODY}})

    async def prepare(request):
        body = await _body(request)
        if not isinstance(body, dict) or not set(body) <= {"game", "seats"} or "game" not in body:
            raise Refused(400, "the body must be a JSON object {game, seats?}")
        name = body["game"]
        if not isinstance(name, str) or name not in cardgym.GAMES:
            raise Refused(400, f"unknown game {name!r}; games: {cardgym.registry.names()}")
        seats = body.get("seats", [])
        if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats) or len(seats) > 16:
            raise Refused(400, f"seats must be a list of at most 16 player names, got {seats!r}")
        game = cardgym.get_game(name)
        tables.prepare(game, seats)
        ready = tables.kernels_ready(game, seats)
        return JSONResponse({"game": name, "status": "ready" if ready else "preparing",
                             "message": "" if ready else tables.preparing_message(game)})

    def _token(request):
        return request.headers.get("x-seat-token")

    def _page(request):
        return request.headers.get("x-page", "")[:64]

    def queue(gid) -> asyncio.Lock:
        """The table's turn on the event loop: requests for one table wait here, asleep, instead of
        each holding a worker thread while another one plays its slice."""
        t = tables.live.get(gid)
        if t is None:
            return asyncio.Lock()  # an unknown id: the worker answers 404
        lock = getattr(t, "queue", None)
        if lock is None:
            lock = t.queue = asyncio.Lock()
        return lock

    async def game_state(request):
        await settled(request.path_params["gid"])
        async with queue(request.path_params["gid"]):
            return await run_in_threadpool(_game_state, request)

    def _game_state(request):
        t = tables.get_live(request.path_params["gid"])
        with t.lock:
            viewer = t.viewer(_token(request), request.query_params.get("seat"), _page(request))
            t.advance()
            return JSONResponse(t.state(viewer, request.query_params.get("since")))

    async def move(request):
        body = _obj(await _body(request), "action", "step")
        async with queue(request.path_params["gid"]):
            return await run_in_threadpool(_move, request, body)

    def _move(request, body):
        t = tables.get_live(request.path_params["gid"])
        with t.lock:
            t.act(_token(request), body["action"], body["step"], _page(request))
            t.advance()
            return JSONResponse(t.state(t.seat_of(_token(request)), body["step"]))  # the page held `step` moves

    async def leave(request):
        body = _obj(await _body(request), "soon")
        if not isinstance(body["soon"], bool):
            raise Refused(400, f"'soon' must be true (the page is going away) or false (end the game now), got {body['soon']!r}")
        return JSONResponse(await run_in_threadpool(tables.leave, request.path_params["gid"], _token(request),
                                                    _client(request), body["soon"]))

    async def claim(request):
        body = _obj(await _body(request), "seat")
        return JSONResponse(await run_in_threadpool(tables.claim, request.path_params["gid"], body["seat"]))

    @off_loop
    def game_record(request):
        t = tables.get_live(request.path_params["gid"])
        with t.lock:
            if not t.over:
                raise Refused(409, "the record of a game is given once it is over (it holds the deal's seed, "
                                   "which would show every hidden card)")
            return PlainTextResponse(t.recorder.text(), media_type="application/x-ndjson", headers={
                "content-disposition": f'attachment; filename="{t.game.name}-{t.id}.jsonl"'})

    async def records(request):
        if request.method == "POST":
            name = request.query_params.get("name", "upload")[:200]
            text = await _body(request, "text")
            return JSONResponse(await run_in_threadpool(tables.open_record, text, name, False, _page(request)),
                                status_code=201)
        return JSONResponse({"records": tables.list_records(_page(request))})

    @off_loop
    def record_state(request):
        r = tables.get_record(request.path_params["rid"])
        q = request.query_params
        return JSONResponse(r.state(q.get("step", "0"), q.get("seat"), q.get("since")))

    routes = [
        Route("/", index),
        Route("/api/games", handle(games), methods=["GET", "POST"]),
        Route("/api/prepare", handle(prepare), methods=["POST"]),
        Route("/api/games/{gid}", handle(game_state)),
        Route("/api/games/{gid}/move", handle(move), methods=["POST"]),
        Route("/api/games/{gid}/claim", handle(claim), methods=["POST"]),
        Route("/api/games/{gid}/leave", handle(leave), methods=["POST"]),
        Route("/api/games/{gid}/record", handle(game_record)),
        Route("/api/records", handle(records), methods=["GET", "POST"]),
        Route("/api/records/{rid}", handle(record_state)),
        Mount("/static", app=StaticFiles(directory=str(STATIC)), name="static"),
    ]
    app = Starlette(routes=routes)
    app.add_middleware(GuardMiddleware, allowed_hosts=tuple(allowed_hosts))
    app.state.tables = tables
    return app
