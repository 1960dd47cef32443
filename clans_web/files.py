"""The folders the web viewer serves: listing replays and tournaments, and resolving a file id
(``"<folder index>/<relative path>"``) to a file strictly inside one of them.

Only ``.json`` replays / results and ``.png`` pictures are ever opened; a path that leaves its
folder (``..``, an absolute path, a link pointing outside) is refused with ``FileAccessError``.
"""
from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from clans_env.engine.records import GameFileError, read_game_file

#: files above this size are not opened (a replay of a long 4-player game is well under 1 MB)
MAX_FILE_BYTES = 32 * 1024 * 1024
#: files listed per folder at most (a listing stays fast on a big runs/ folder)
MAX_LISTED = 5000


class FileAccessError(ValueError):
    """A file id that does not name an allowed file inside the served folders (status: 403 or 404)."""

    def __init__(self, message: str, status: int = 404):
        super().__init__(message)
        self.status = status


def read_text(path: Path, limit: int = MAX_FILE_BYTES) -> str:
    """The text of the regular file ``path``, read without blocking and at most ``limit`` bytes: a FIFO,
    a device or a socket named like a replay is refused instead of hanging the request that opens it."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise GameFileError(f"cannot read {path.name}: {e.strerror or e}") from None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise GameFileError(f"{path.name} is not a regular file")
        data = f.read(limit + 1)
    if len(data) > limit:
        raise GameFileError(f"{path.name} is larger than {limit // (1024 * 1024)} MB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise GameFileError(f"cannot read {path.name}: {e}") from None


def _list_of(doc: dict, key: str, kind, what: str, optional: bool = False) -> list:
    value = doc.get(key)
    if value is None and optional:
        return []
    if not isinstance(value, list) or not all(isinstance(x, kind) and not isinstance(x, bool) for x in value):
        raise GameFileError(f"'{key}' must be a list of {what} (got {type(value).__name__})")
    return value


def check_results(doc) -> dict:
    """``doc`` if it has the shape of a tournament's results.json (training.tournament.save_results);
    GameFileError naming the first field that is wrong otherwise, so that a damaged file is shown as
    damaged rather than as a different tournament."""
    if not isinstance(doc, dict):
        raise GameFileError(f"results.json holds a JSON {type(doc).__name__}, not an object")
    agents = _list_of(doc, "agents", str, "agent names")
    n = doc.get("num_players")
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 4:
        raise GameFileError(f"'num_players' must be 1..4 (got {n!r})")
    _list_of(doc, "standings", dict, "rows")
    for k, g in enumerate(_list_of(doc, "games", dict, "game rows")):
        names = _list_of(g, "names", str, "agent names")
        if not set(names) <= set(agents):
            raise GameFileError(f"game {k}: names {names} are not among the agents {agents}")
        for key, kind, what in (("totals", (int, float), "numbers"), ("ranks", int, "ranks")):
            values = _list_of(g, key, kind, what, optional=True)
            if values and len(values) != len(names):
                raise GameFileError(f"game {k}: {len(values)} {key} for {len(names)} seats")
        if not isinstance(g.get("index", 0), int):
            raise GameFileError(f"game {k}: 'index' must be an integer")
    return doc


def is_regular_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return False


class Folders:
    """The served folders, in the order given (a file id starts with the folder's index)."""

    def __init__(self, folders):
        self.roots = [Path(f).resolve() for f in folders]
        for r in self.roots:
            if not r.is_dir():
                raise ValueError(f"not a folder: {r}")
        self._summaries: dict = {}

    def file_id(self, path: Path) -> str | None:
        """The id of ``path`` (absolute or relative to the working directory), None when outside."""
        p = Path(path).resolve()
        for k, root in enumerate(self.roots):
            if p.is_relative_to(root):
                return f"{k}/{p.relative_to(root).as_posix()}"
        return None

    def resolve(self, file_id: str, suffixes=(".json",)) -> Path:
        if not isinstance(file_id, str) or not file_id or len(file_id) > 1000 or "\x00" in file_id:
            raise FileAccessError("a file id is '<folder>/<path>' as the replay list gives it", 400)
        head, sep, rel = file_id.partition("/")
        if not sep or not head.isdigit() or int(head) >= len(self.roots):
            raise FileAccessError(f"unknown folder in file id {file_id!r}: ids start with a served folder's "
                                  f"number (0..{len(self.roots) - 1})", 404)
        root = self.roots[int(head)]
        rel_path = Path(rel)
        if rel_path.is_absolute() or "\\" in rel or any(part == ".." for part in rel_path.parts):
            raise FileAccessError(f"refused: {file_id!r} leaves the served folder", 403)
        p = (root / rel_path).resolve()
        if not p.is_relative_to(root):
            raise FileAccessError(f"refused: {file_id!r} leaves the served folder", 403)
        if p.suffix.lower() not in suffixes:
            raise FileAccessError(f"refused: only {', '.join(suffixes)} files are served", 403)
        if not is_regular_file(p):
            raise FileAccessError(f"no such file: {file_id}", 404)
        if p.stat().st_size > MAX_FILE_BYTES:
            raise FileAccessError(f"{file_id} is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB", 403)
        return p

    def _walk(self, root: Path):
        n = 0
        for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in sorted(filenames):
                if name.endswith(".json") and not name.startswith(".") and is_regular_file(Path(dirpath) / name):
                    n += 1
                    if n > MAX_LISTED:
                        return
                    yield Path(dirpath) / name

    def tournaments(self) -> list[dict]:
        out = []
        for k, root in enumerate(self.roots):
            for p in self._walk(root):
                if p.name != "results.json":
                    continue
                fid = f"{k}/{p.relative_to(root).as_posix()}"
                row = {"id": fid, "folder": str(p.parent.relative_to(root)) or "."}
                try:
                    doc = check_results(json.loads(read_text(p)))
                    row.update(agents=doc["agents"], num_players=doc["num_players"], mode=doc.get("mode"),
                               games=len(doc["games"]))
                except (GameFileError, ValueError) as e:
                    row["error"] = f"damaged results.json: {e}"
                out.append(row)
        return out

    def replays(self) -> list[dict]:
        """One row per game file (records, tournament replays, saved states); broken files are listed
        with an ``error`` so that the page can say what is wrong with them."""
        from .views import replay_summary

        out = []
        for k, root in enumerate(self.roots):
            for p in self._walk(root):
                if p.name == "results.json":
                    continue
                try:
                    st = p.stat()
                except OSError:
                    continue
                key = (str(p), st.st_mtime_ns, st.st_size)
                row = self._summaries.get(key)
                if row is None:
                    row = {"id": f"{k}/{p.relative_to(root).as_posix()}", "name": p.name,
                           "folder": str(p.parent.relative_to(root)) or ".", "mtime": st.st_mtime}
                    try:
                        if st.st_size > MAX_FILE_BYTES:
                            raise GameFileError("file too large")
                        record, meta = read_game_file(p, read_text(p))
                        row.update(replay_summary(record, meta))
                    except GameFileError as e:
                        msg = str(e)
                        if "is not a Clans of Caledonia game file" in msg or "holds a JSON" in msg:
                            row = None             # some other JSON file (a config, a log): not listed
                        else:
                            row["error"] = msg.replace(str(p), p.name)
                    except Exception as e:          # a record that does not replay
                        row["error"] = f"{p.name}: cannot rebuild the game: {type(e).__name__}: {e}"
                    self._summaries[key] = row
                if row is not None:
                    out.append(row)
        return out
