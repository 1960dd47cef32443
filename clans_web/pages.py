"""HTML pages: one shell (``static/page.html``) with the page's data embedded as JSON; the
served pages link ``/static/app.js`` and ``app.css``, the shared replay (``clans replay --html``)
inlines them so that it opens from disk without a server."""
from __future__ import annotations

import json
from html import escape
from importlib import resources
from pathlib import Path

STATIC = Path(__file__).resolve().parent / "static"


def static_text(name: str) -> str:
    return resources.files("clans_web").joinpath("static", name).read_text(encoding="utf-8")


def _json_for_script(data) -> str:
    # inside <script type="application/json">: no "</script>" or "<!--" may appear
    return (json.dumps(data, separators=(",", ":"), allow_nan=False)
            .replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def render_page(page: str, data=None, title: str = "Clans of Caledonia", inline: bool = False,
                status_message: str = "") -> str:
    shell = static_text("page.html")
    if inline:
        head = f"<style>{static_text('app.css')}</style>"
        script = f"<script>{static_text('app.js')}</script>"
    else:
        head = '<link rel="stylesheet" href="/static/app.css">'
        script = '<script src="/static/app.js"></script>'
    return (shell.replace("{{title}}", escape(title)).replace("{{head}}", head).replace("{{page}}", escape(page))
            .replace("{{standalone}}", "1" if inline else "0")
            .replace("{{message}}", escape(status_message))
            .replace("{{data}}", _json_for_script(data)).replace("{{script}}", script))


def error_page(message: str, title: str = "Error") -> str:
    return render_page("error", {"error": message}, title=f"{title} - Clans of Caledonia", status_message=message)


def replay_html(path, out) -> Path:
    """Write the replay in ``path`` as one self-contained HTML file ``out`` (no server needed)."""
    from clans_env.engine.game import atomic_write_text
    from clans_env.engine.records import read_game_file

    from .views import replay_data

    record, meta = read_game_file(path)
    data = replay_data(record, meta, source=Path(path).name)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out, render_page("replay", data, title=f"Replay {Path(path).name} - Clans of Caledonia",
                                       inline=True))
    return out
