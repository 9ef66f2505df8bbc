"""The ``cardgym serve`` application (Starlette): a JSON API over `cardgym.web.tables` and the page.

Routes (every error is ``{"error": message}`` with a 4xx status, and changes nothing):

- ``GET /``: the page (``static/index.html``, plain JS and CSS shipped as package data);
- ``GET /api/games``: the games, their player counts, bots, rule options, agents and models;
- ``POST /api/games`` ``{game, num_players, seats, rules, seed, pace}``: a new table; answers its
  ``id`` and, if a seat is a person's, that seat and its ``token`` (sent back as ``X-Seat-Token``);
- ``GET /api/games/{id}`` (``?seat=K`` to watch a seat of a bots-only game): lets the bots move at
  their pace, then the state as the token's seat (or the public table) sees it;
- ``POST /api/games/{id}/move`` ``{action, step}``: the token's seat moves (``step``: the number of
  moves the page has seen, so a stale page cannot move); a token's requests carry the page's own
  ``X-Page`` id, and a second page using the same token is refused while the first one is open;
- ``POST /api/games/{id}/claim`` ``{seat}``: the token of a person seat nobody holds yet;
- ``GET /api/games/{id}/record``: the game record (JSON lines) once the game is over;
- ``GET /api/records``, ``POST /api/records`` (the record's text as the body): open a record;
  ``GET /api/records/{id}?step=K&seat=S``: its state at step K as seat S (or the table) sees it.
"""

from __future__ import annotations

import json
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .tables import Refused, Tables, game_catalogue

STATIC = Path(__file__).with_name("static")
MAX_BODY = 8 * 1024 * 1024  # bytes: a long record is a few hundred kB


def _error(exc: Refused) -> JSONResponse:
    return JSONResponse({"error": exc.message}, status_code=exc.status)


async def _body(request: Request, kind: str = "json"):
    data = await request.body()
    if len(data) > MAX_BODY:
        raise Refused(413, f"the body is {len(data)} bytes; the limit is {MAX_BODY}")
    if kind == "text":
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise Refused(400, "the body is not UTF-8 text (a game record is JSON lines)") from None
    try:
        return json.loads(data or b"null")
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise Refused(400, f"malformed JSON body: {exc}") from None


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


def create_app(tables: Tables | None = None) -> Starlette:
    """The application over ``tables`` (a fresh `Tables` if None)."""
    tables = tables if tables is not None else Tables()
    catalogue = game_catalogue(tables.models, tables.text_players)

    def handle(fn):
        async def endpoint(request: Request):
            try:
                return await fn(request)
            except Refused as exc:
                return _error(exc)

        return endpoint

    async def index(request):
        return FileResponse(STATIC / "index.html", media_type="text/html")

    async def games(request):
        if request.method == "POST":
            return JSONResponse(tables.create(await _body(request)), status_code=201)
        return JSONResponse({"games": catalogue, "records": tables.list_records()})

    def _token(request):
        return request.headers.get("x-seat-token")

    def _page(request):
        return request.headers.get("x-page", "")[:64]

    async def game_state(request):
        t = tables.get_live(request.path_params["gid"])
        with t.lock:
            viewer = t.viewer(_token(request), request.query_params.get("seat"), _page(request))
            t.advance()
            return JSONResponse(t.state(viewer))

    async def move(request):
        t = tables.get_live(request.path_params["gid"])
        body = _obj(await _body(request), "action", "step")
        with t.lock:
            t.act(_token(request), body["action"], body["step"], _page(request))
            t.advance()
            return JSONResponse(t.state(t.seat_of(_token(request))))

    async def claim(request):
        body = _obj(await _body(request), "seat")
        return JSONResponse(tables.claim(request.path_params["gid"], body["seat"]))

    async def game_record(request):
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
            return JSONResponse(tables.open_record(await _body(request, "text"), name), status_code=201)
        return JSONResponse({"records": tables.list_records()})

    async def record_state(request):
        r = tables.get_record(request.path_params["rid"])
        q = request.query_params
        return JSONResponse(r.state(q.get("step", "0"), q.get("seat")))

    routes = [
        Route("/", index),
        Route("/api/games", handle(games), methods=["GET", "POST"]),
        Route("/api/games/{gid}", handle(game_state)),
        Route("/api/games/{gid}/move", handle(move), methods=["POST"]),
        Route("/api/games/{gid}/claim", handle(claim), methods=["POST"]),
        Route("/api/games/{gid}/record", handle(game_record)),
        Route("/api/records", handle(records), methods=["GET", "POST"]),
        Route("/api/records/{rid}", handle(record_state)),
        Mount("/static", app=StaticFiles(directory=str(STATIC)), name="static"),
    ]
    app = Starlette(routes=routes)
    app.state.tables = tables
    return app
