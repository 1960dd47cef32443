"""``clans serve [FOLDER ...]``: the web viewer (clans_web) on a local port.

    clans serve                         # serves runs/ (or the current folder) on 127.0.0.1, a free port
    clans serve runs/t1 runs/play --port 8000

Replays (tournament replays, ``clans play --save`` records, saved states) and tournaments'
results.json under the folders are listed; games against bots are played in the browser.
Binds to 127.0.0.1 unless --host says otherwise (with a warning: the page lets anyone who
reaches it start games). Answers only to the host names it was started for (127.0.0.1, localhost,
[::1], --host, --allow-host); the page's games may use the built-in agent kinds and those allowed
with --allow-agent. Ctrl-C or SIGTERM stops it within a few seconds. Needs the ``web`` extra: pip install -e ".[web]".
"""
from __future__ import annotations

import argparse
import ipaddress
import os
import socket
import sys
import threading
import time
from pathlib import Path

from .help_text import for_users

LOOPBACK_NAMES = ("localhost",)
WILDCARD_HOSTS = ("0.0.0.0", "::", "")
#: seconds a stopping server gives running requests before it cancels them and exits
SHUTDOWN_SECONDS = 2


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
    parser.add_argument("--allow-agent", action="append", default=[], metavar="NAME",
                        help="let the page's games use this agent kind besides the built-in ones (an installed "
                             "entry point name, or module:Class / ./file.py:Class exactly as a spec names it); "
                             "repeat for more. Requests can never name code you did not allow here")
    parser.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                        help="a host name the server answers to besides 127.0.0.1, localhost, [::1] and --host "
                             "(e.g. the machine's name when --host 0.0.0.0); other Host headers are refused")
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
    from agents.registry import load_check
    for name in args.allow_agent:        # the operator names code here: loading it now finds typos early
        try:
            load_check(name)
        except ValueError as e:
            print(f"error: --allow-agent {name}: {e}", file=sys.stderr)
            return 2
    hosts = [*args.allow_host, *([] if args.host in WILDCARD_HOSTS else [args.host])]
    app = create_app(folders, max_games=args.max_games, allowed_hosts=hosts,
                     allowed_agents=[a.strip() for a in args.allow_agent])
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    where = ", ".join(str(Path(f).resolve()) for f in folders)
    print(f"Clans of Caledonia viewer: http://{shown}:{port}/  (serving {where}; Ctrl-C stops)", flush=True)
    # keep-alive connections live 75 s, not uvicorn's 5 s: on a busy machine the event loop can run the
    # idle timer before it reads a request that already arrived, and the client then sees its connection
    # closed mid-request (the 50-game load test did, with the whole test suite running beside it)
    # a request still running at shutdown (a bot thinking: at most MAX_MOVE_SECONDS a move) is
    # cancelled after SHUTDOWN_SECONDS instead of holding SIGTERM / Ctrl-C off for as long as it runs
    config = uvicorn.Config(app, log_level=args.log_level, access_log=False, timeout_keep_alive=75,
                            timeout_graceful_shutdown=SHUTDOWN_SECONDS)
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    print("stopped", flush=True)
    if _busy_threads(SHUTDOWN_SECONDS):
        # a bot's move is still running in a worker thread, which Python cannot interrupt and would
        # otherwise wait for at exit; nothing is left to save (games live in memory only)
        sys.stderr.flush()
        os._exit(0)
    return 0


def _busy_threads(wait: float) -> bool:
    """Whether non-daemon threads other than this one are still running after ``wait`` seconds."""
    deadline = time.monotonic() + wait
    for t in threading.enumerate():
        if t is not threading.current_thread() and not t.daemon:
            t.join(max(0.0, deadline - time.monotonic()))
    return any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.current_thread())


def add_serve_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("serve", help="web viewer: replays, tournaments, play in the browser",
                                   description=for_users(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    parser.set_defaults(func=run)
    return parser
