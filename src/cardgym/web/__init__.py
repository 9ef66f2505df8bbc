"""``cardgym serve``: play, watch and replay games in the browser (``pip install 'cardgym[web]'``).

One process, one port: a Starlette application (`cardgym.web.app`) run by uvicorn, bound to
127.0.0.1 unless ``--host`` says otherwise. The server holds every env (`cardgym.web.tables`); a page
only ever receives its seat's view (`cardgym.render.view`). The page is plain HTML, JS and CSS shipped
in ``cardgym/web/static/`` (no build step). docs/web.md describes it.
"""

from __future__ import annotations

from pathlib import Path


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
    tables = Tables(models, max_games=args.max_games, expire=args.expire, pace=args.pace, text_players=texts)
    for f in args.record or []:
        p = Path(f)
        if not p.is_file():
            raise SystemExit(f"cardgym serve: --record {f!r}: no such file")
        try:
            tables.open_record(p.read_text(), p.name, pinned=True)
        except (Refused, UnicodeDecodeError) as exc:
            raise SystemExit(f"cardgym serve: --record {f!r}: {getattr(exc, 'message', exc)}") from None
    return tables


def cmd_serve(args, extra):
    if extra:
        raise SystemExit(f"cardgym serve: unexpected argument {extra[0]!r}")
    _need_web()
    import uvicorn

    from .app import create_app

    app = create_app(build_tables(args))
    print(f"cardgym serve: http://{args.host}:{args.port}/  (Ctrl-C stops it)")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")


__all__ = ["build_tables", "cmd_serve", "parse_models"]
