"""``clans serve [FOLDER ...]``: the web viewer (clans_web) on a local port.

    clans serve                         # serves runs/ (or the current folder) on 127.0.0.1, a free port
    clans serve runs/t1 runs/play --port 8000

Replays (tournament replays, ``clans play --save`` records, saved states) and tournaments'
results.json under the folders are listed; games against bots are played in the browser.
Binds to 127.0.0.1 unless --host says otherwise (with a warning: the page lets anyone who
reaches it start games). Ctrl-C stops it. Needs the ``web`` extra: pip install -e ".[web]".
"""
from __future__ import annotations

import argparse
import ipaddress
import socket
import sys
from pathlib import Path

from .help_text import for_users

LOOPBACK_NAMES = ("localhost",)


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folders", nargs="*", metavar="FOLDER",
                        help="folders of replays and tournament results to serve (default: runs/ if it exists, "
                             "else the current folder); games saved from the browser go to FOLDER/web-games/")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=0, help="port (default 0: a free one)")
    parser.add_argument("--max-games", type=int, default=500, help="games kept in memory at once (default 500)")
    parser.add_argument("--log-level", default="warning", choices=("critical", "error", "warning", "info", "debug"),
                        help="how much the web server logs (default warning)")


def bind_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)                 # connections queue from now on, before the URL is printed
    sock.set_inheritable(True)
    return sock


def run(args) -> int:
    try:
        import uvicorn

        from clans_web.server import create_app
    except ImportError as e:
        print(f"error: clans serve needs the web extra ({e}); install it with: python3 -m pip install -e \".[web]\"",
              file=sys.stderr)
        return 2
    folders = args.folders or (["runs"] if Path("runs").is_dir() else ["."])
    missing = [f for f in folders if not Path(f).is_dir()]
    if missing:
        print(f"error: not a folder: {', '.join(missing)}", file=sys.stderr)
        return 2
    if not 0 <= args.port <= 65535:
        print("error: --port must be 0..65535", file=sys.stderr)
        return 2
    if not is_loopback(args.host):
        print(f"warning: binding to {args.host}: other machines can reach this server and start games on it; "
              f"use the default --host 127.0.0.1 to keep it local", file=sys.stderr)
    try:
        sock = bind_socket(args.host, args.port)
    except OSError as e:
        print(f"error: cannot bind {args.host}:{args.port}: {e}", file=sys.stderr)
        return 2
    app = create_app(folders, max_games=args.max_games)
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    where = ", ".join(str(Path(f).resolve()) for f in folders)
    print(f"Clans of Caledonia viewer: http://{shown}:{port}/  (serving {where}; Ctrl-C stops)", flush=True)
    # keep-alive connections live 75 s, not uvicorn's 5 s: on a busy machine the event loop can run the
    # idle timer before it reads a request that already arrived, and the client then sees its connection
    # closed mid-request (the 50-game load test did, with the whole test suite running beside it)
    config = uvicorn.Config(app, log_level=args.log_level, access_log=False, timeout_keep_alive=75)
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    print("stopped", flush=True)
    return 0


def add_serve_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("serve", help="web viewer: replays, tournaments, play in the browser",
                                   description=for_users(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    parser.set_defaults(func=run)
    return parser
