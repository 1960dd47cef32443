"""The folders the web viewer serves: listing replays and tournaments, and resolving a file id
(``"<folder index>/<relative path>"``) to a file strictly inside one of them.

Only ``.json`` replays / results and ``.png`` pictures are ever opened; a path that leaves its
folder (``..``, an absolute path, a link pointing outside) is refused with ``FileAccessError``.
"""
from __future__ import annotations

import json
import os
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
        if not p.is_file():
            raise FileAccessError(f"no such file: {file_id}", 404)
        if p.stat().st_size > MAX_FILE_BYTES:
            raise FileAccessError(f"{file_id} is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB", 403)
        return p

    def _walk(self, root: Path):
        n = 0
        for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in sorted(filenames):
                if name.endswith(".json") and not name.startswith("."):
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
                    doc = json.loads(p.read_text(encoding="utf-8"))
                    row.update(agents=doc.get("agents"), num_players=doc.get("num_players"), mode=doc.get("mode"),
                               games=len(doc.get("games") or []))
                except (OSError, ValueError, AttributeError) as e:
                    row["error"] = f"unreadable results.json: {e}"
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
                        record, meta = read_game_file(p)
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
