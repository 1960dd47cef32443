"""The web application (FastAPI): replays, tournaments and games against bots in the browser.

    from clans_web.server import create_app
    app = create_app(["runs"])            # then: uvicorn, or clans serve runs

Pages: ``/`` (replay and tournament lists, new game form), ``/replay?file=ID``,
``/tournament?file=ID``, ``/play/GAME``. JSON API under ``/api`` (see docs/web.md). Every
request is validated (pydantic models, file ids resolved strictly inside the served folders,
agent specs checked on their text against the allowed kinds); nothing a request sends is imported,
executed or unpickled; a request whose Host is not one the server was started for, or a
state-changing one from another site's page (Origin), is refused; errors are JSON ``{"error": ...}``
for the API and an error page for the pages, never a traceback.
"""
from __future__ import annotations

import contextlib
import json
import logging
from urllib.parse import urlsplit

import anyio
from pathlib import Path

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.gzip import GZipMiddleware
from starlette.middleware.trustedhost import TrustedHostMiddleware

from clans_env.engine import actions as A
from clans_env.engine.config import CLAN_SELECTIONS
from clans_env.engine.records import GameFileError, read_game_file

from .files import FileAccessError, Folders, check_results, read_text
from .games import GameStore, MoveError
from .pages import STATIC, error_page, render_page
from .views import replay_data

log = logging.getLogger("clans_web")
ROOT = Path(__file__).resolve().parent.parent
#: the host names a local server answers to (a page on another site that rebinds its own name to
#: 127.0.0.1 sends its own name as Host, and is refused)
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
#: methods that change the server's state: their Origin must be the server's own
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class SameOriginMiddleware:
    """Refuses a state-changing request sent by a page of another origin.

    Browsers send ``Origin`` with every cross-origin request and with same-origin POSTs; a request
    without one comes from a program (curl, a test client), which Host checking already limits. A
    cross-site request that hides its Origin still sends ``Sec-Fetch-Site: cross-site``, refused too.
    CORS (Starlette's CORSMiddleware) only decides what a page may read, not what it may send, so it
    does not serve here."""

    def __init__(self, app, allowed_hosts):
        self.app = app
        self.allowed_hosts = {h.lower().strip("[]") for h in allowed_hosts}

    def _allowed_origin(self, origin: str, server_port: int | None) -> bool:
        try:
            u = urlsplit(origin)
            port = u.port or {"http": 80, "https": 443}.get(u.scheme)
        except ValueError:
            return False
        return (u.scheme in ("http", "https") and (u.hostname or "").lower() in self.allowed_hosts
                and (server_port is None or port == server_port))

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["method"] in UNSAFE_METHODS:
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
            origin = headers.get("origin")
            server = scope.get("server")
            port = server[1] if server else None
            refused = None
            if origin is not None and not self._allowed_origin(origin, port):
                refused = f"refused: a {scope['method']} from the page of another site (Origin {origin!r})"
            elif origin is None and headers.get("sec-fetch-site") == "cross-site":
                refused = f"refused: a cross-site {scope['method']} (Sec-Fetch-Site: cross-site)"
            if refused:
                await JSONResponse({"error": refused}, status_code=403)(scope, receive, send)
                return
        await self.app(scope, receive, send)


class NewGame(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    players: int = Field(2, ge=1, le=4)
    seat: int = Field(0, ge=0, le=3)
    opponents: list[str] = Field(default_factory=lambda: ["random"], min_length=1, max_length=3)
    seed: int = Field(0, ge=0, le=2 ** 31 - 1)
    clan_selection: str | None = Field(None, pattern="^(" + "|".join(CLAN_SELECTIONS) + ")$")
    tighter_map: bool = False
    static_imports: bool = False


class Move(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    action: int = Field(ge=0, lt=A.NUM_ACTIONS)
    version: int = Field(ge=0)


class Version(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    version: int = Field(ge=0)


def _error(message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def create_app(folders, max_games: int = 500, save_dir=None, worker_threads: int = 4, allowed_hosts=(),
               allowed_agents=()) -> FastAPI:
    """The application serving ``folders`` (replays, tournament results; the first one also receives
    the games saved from the browser, under ``web-games/``, unless ``save_dir`` is given).

    allowed_hosts: host names the server answers to besides 127.0.0.1, localhost and ::1 (the name or
        address it was started on when that is not a loopback one).
    allowed_agents: agent kinds a request may name besides the built-in ones (``check_spec``)."""
    served = Folders(folders)
    model_dirs = [*served.roots, ROOT / "models"]
    store = GameStore(max_games=max_games, model_dirs=model_dirs, allowed_agents=allowed_agents)
    hosts = [*LOOPBACK_HOSTS, *(h.strip("[]") for h in allowed_hosts)]
    save_to = Path(save_dir) if save_dir is not None else served.roots[0] / "web-games"
    @contextlib.asynccontextmanager
    async def lifespan(app):
        # few worker threads: requests are short and CPU-bound, so more threads only contend for the GIL
        # and make the slowest answers slower (measured with clans_web.loadtest)
        anyio.to_thread.current_default_thread_limiter().total_tokens = worker_threads
        yield

    app = FastAPI(title="Clans of Caledonia viewer", docs_url=None, redoc_url=None, openapi_url=None,
                  lifespan=lifespan)
    app.state.folders = served
    app.state.games = store
    app.add_middleware(GZipMiddleware, minimum_size=2000)
    app.add_middleware(SameOriginMiddleware, allowed_hosts=hosts)
    app.add_middleware(TrustedHostMiddleware,                           # outermost: checked first
                       allowed_hosts=[f"[{h}]" if ":" in h else h for h in hosts])
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    def wants_html(request: Request) -> bool:
        return not request.url.path.startswith("/api/")

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException):
        msg = exc.detail if isinstance(exc.detail, str) else "request refused"
        if exc.status_code == 404:
            msg = f"not found: {request.url.path}"
        if wants_html(request):
            return HTMLResponse(error_page(msg), status_code=exc.status_code)
        return _error(msg, exc.status_code)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError):
        parts = []
        for e in exc.errors()[:5]:
            where = ".".join(str(x) for x in e.get("loc", ()) if x != "body")
            parts.append(f"{where or 'body'}: {e.get('msg')}")
        msg = "bad request: " + "; ".join(parts)
        if wants_html(request):
            return HTMLResponse(error_page(msg), status_code=422)
        return _error(msg, 422)

    @app.exception_handler(FileAccessError)
    async def file_error(request: Request, exc: FileAccessError):
        if wants_html(request):
            return HTMLResponse(error_page(str(exc), "File refused"), status_code=exc.status)
        return _error(str(exc), exc.status)

    @app.exception_handler(MoveError)
    async def move_error(request: Request, exc: MoveError):
        return _error(str(exc), exc.status)

    @app.exception_handler(GameFileError)
    async def game_file_error(request: Request, exc: GameFileError):
        msg = str(exc)
        for root in served.roots:
            msg = msg.replace(str(root) + "/", "")
        if wants_html(request):
            return HTMLResponse(error_page(msg, "Bad game file"), status_code=422)
        return _error(msg, 422)

    @app.exception_handler(Exception)
    async def internal_error(request: Request, exc: Exception):
        log.exception("internal error on %s", request.url.path)
        msg = f"internal error ({type(exc).__name__}); the server log has the details"
        if wants_html(request):
            return HTMLResponse(error_page(msg), status_code=500)
        return _error(msg, 500)

    # ---------------------------------------------------------------- data
    def load_replay(file: str) -> dict:
        path = served.resolve(file)
        record, meta = read_game_file(path, read_text(path))
        data = replay_data(record, meta, source=file)
        data["file"] = file
        return data

    def load_tournament(file: str) -> dict:
        path = served.resolve(file)
        try:
            doc = check_results(json.loads(read_text(path)))
        except (GameFileError, ValueError) as e:
            raise GameFileError(f"{file} is a damaged results.json: {e}") from None
        games = []
        for g in doc["games"]:
            row = {k: g.get(k) for k in ("index", "game_seed", "names", "totals", "ranks", "num_actions")}
            rp = g.get("replay_path")
            fid = None
            if isinstance(rp, str) and rp:
                for cand in (path.parent / "replays" / Path(rp).name, Path(rp)):
                    try:
                        if cand.is_file():
                            fid = served.file_id(cand)
                    except OSError:
                        fid = None
                    if fid:
                        break
            row["replay"] = fid
            games.append(row)
        plot = path.parent / "ratings.png"
        return {"kind": "tournament", "file": file, "agents": doc.get("agents"), "specs": doc.get("specs"),
                "num_players": doc.get("num_players"), "mode": doc.get("mode"), "seed": doc.get("seed"),
                "seconds": doc.get("seconds"), "standings": doc["standings"],
                "head_to_head": doc.get("head_to_head"), "rating_history": doc.get("rating_history"),
                "games": games, "plot": served.file_id(plot) if plot.is_file() else None}

    # ---------------------------------------------------------------- pages
    @app.get("/favicon.ico", include_in_schema=False)
    def favicon():
        return Response(status_code=204)

    @app.get("/", response_class=HTMLResponse)
    def home():
        return render_page("home", {"folders": [str(r) for r in served.roots]}, title="Clans of Caledonia viewer")

    @app.get("/replay", response_class=HTMLResponse)
    def replay_page(file: str = Query(..., max_length=1000)):
        data = load_replay(file)
        return render_page("replay", data, title=f"Replay {file} - Clans of Caledonia")

    @app.get("/tournament", response_class=HTMLResponse)
    def tournament_page(file: str = Query(..., max_length=1000)):
        return render_page("tournament", load_tournament(file), title=f"Tournament {file} - Clans of Caledonia")

    @app.get("/play/{gid}", response_class=HTMLResponse)
    def play_page(gid: str):
        try:
            game = store.get(gid)
        except MoveError as e:
            return HTMLResponse(error_page(str(e), "No such game"), status_code=404)
        with game.lock:
            return render_page("play", game.state(with_map=True), title="Play - Clans of Caledonia")

    # ---------------------------------------------------------------- API: files
    @app.get("/api/replays")
    def api_replays():
        return {"folders": [str(r) for r in served.roots], "replays": served.replays()}

    @app.get("/api/tournaments")
    def api_tournaments():
        return {"tournaments": served.tournaments()}

    @app.get("/api/replay")
    def api_replay(file: str = Query(..., max_length=1000)):
        return load_replay(file)

    @app.get("/api/tournament")
    def api_tournament(file: str = Query(..., max_length=1000)):
        return load_tournament(file)

    @app.get("/api/image")
    def api_image(file: str = Query(..., max_length=1000)):
        return FileResponse(served.resolve(file, suffixes=(".png",)), media_type="image/png")

    @app.get("/api/agents")
    def api_agents():
        from agents.registry import KINDS
        return {"kinds": [{"name": k.name, "summary": k.summary, "options": list(k.options)} for k in KINDS.values()]}

    # ---------------------------------------------------------------- API: games
    @app.post("/api/games", status_code=201)
    def api_new_game(req: NewGame):
        variants = {"tighter_map": req.tighter_map, "static_imports": req.static_imports}
        game = store.create(req.players, req.seat, req.opponents, req.seed, req.clan_selection, variants)
        with game.lock:
            return game.state(with_map=True)

    @app.get("/api/games")
    def api_games():
        return {"games": store.list()}

    @app.get("/api/games/{gid}")
    def api_game(gid: str, map: bool = False):
        game = store.get(gid)
        with game.lock:
            return game.state(with_map=map)

    @app.post("/api/games/{gid}/move")
    def api_move(gid: str, req: Move):
        game = store.get(gid)
        with game.lock:
            game.move(req.action, req.version)
            return game.state()

    @app.post("/api/games/{gid}/undo")
    def api_undo(gid: str, req: Version):
        game = store.get(gid)
        with game.lock:
            n = game.undo(req.version)
            out = game.state()
            out["undone"] = n
            return out

    @app.post("/api/games/{gid}/save")
    def api_save(gid: str):
        game = store.get(gid)
        with game.lock:
            path = game.save(save_to)
            fid = served.file_id(path)
            game.saved_as = fid
            return {"file": fid, "path": str(path)}

    @app.get("/api/games/{gid}/record")
    def api_record(gid: str):
        game = store.get(gid)
        with game.lock:
            body = json.dumps(game.record_doc(), indent=1)
        return Response(body, media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="clans-{gid}.json"'})

    return app
