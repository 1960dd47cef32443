"""A bounded local load test of the web server: many games at once, each making moves.

    python3 -m clans_web.loadtest --games 50 --moves 20         # starts `clans serve` on 127.0.0.1
    python3 -m clans_web.loadtest --url http://127.0.0.1:8000   # against a running server

Every game is created (``POST /api/games``, 2 players against ``random``) and then plays the
first listed move ``--moves`` times (fewer if it ends) all concurrently; afterwards each game's
state is fetched and checked: its decision count must equal the last one the client saw and its
record must hold that many actions (nothing lost, nothing applied twice). Only loopback
addresses are accepted.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlparse


def _percentile(xs, q):
    if not xs:
        return float("nan")
    xs = sorted(xs)
    k = min(len(xs) - 1, max(0, int(round(q / 100 * (len(xs) - 1)))))
    return xs[k]


async def _run(url: str, games: int, moves: int, opponent: str, timeout: float) -> dict:
    import httpx

    latencies: list[float] = []
    by_kind: dict[str, list[float]] = {"create": [], "move": []}
    errors: list[str] = []
    limits = httpx.Limits(max_connections=games, max_keepalive_connections=games)
    async with httpx.AsyncClient(base_url=url, timeout=timeout, limits=limits) as client:

        async def call(method, path, body=None):
            t = time.perf_counter()
            kind = "move" if path.endswith("/move") else "create"
            try:
                r = await client.request(method, path, json=body)
            except httpx.HTTPError as e:
                latencies.append(time.perf_counter() - t)
                errors.append(f"{method} {path}: {type(e).__name__}: {e}")
                return None
            latencies.append(time.perf_counter() - t)
            by_kind[kind].append(latencies[-1])
            if r.status_code >= 400:
                errors.append(f"{method} {path}: {r.status_code} {r.text[:200]}")
                return None
            return r.json()

        async def one(k: int):
            st = await call("POST", "/api/games", {"players": 2, "opponents": [opponent], "seed": k})
            if st is None:
                return None
            made = 0
            while made < moves and st["legal"]:
                nxt = await call("POST", f"/api/games/{st['id']}/move",
                                 {"action": st["legal"][0]["action"], "version": st["version"]})
                if nxt is None:
                    return None
                if nxt["version"] <= st["version"]:
                    errors.append(f"game {st['id']}: version went from {st['version']} to {nxt['version']}")
                st = nxt
                made += 1
            return st["id"], st["version"], made

        t0 = time.perf_counter()
        results = await asyncio.gather(*(one(k) for k in range(games)))
        wall = time.perf_counter() - t0
        lost = 0
        for res in results:
            if res is None:
                continue
            gid, version, _ = res
            r = await client.get(f"/api/games/{gid}/record")
            final = await client.get(f"/api/games/{gid}")
            if r.status_code != 200 or final.status_code != 200:
                lost += 1
                continue
            if final.json()["version"] != version or len(r.json()["actions"]) != version:
                lost += 1
    moves_made = sum(res[2] for res in results if res)
    return {"games": games, "moves_per_game": moves, "requests": len(latencies), "moves": moves_made,
            "errors": len(errors), "error_samples": errors[:3], "lost": lost, "wall_s": round(wall, 3),
            "requests_per_s": round(len(latencies) / wall, 1) if wall else None,
            "latency_ms": {q: round(1000 * _percentile(latencies, q), 1) for q in (50, 90, 99, 100)},
            "create_ms": {q: round(1000 * _percentile(by_kind["create"], q), 1) for q in (50, 99)},
            "move_ms": {q: round(1000 * _percentile(by_kind["move"], q), 1) for q in (50, 99)}}


def run_load(url: str, games: int = 50, moves: int = 20, opponent: str = "random", timeout: float = 60.0) -> dict:
    """Run the load test against ``url`` (a loopback address only) and return the figures."""
    host = urlparse(url).hostname
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise ValueError(f"the load test only runs against this machine (127.0.0.1), not {host!r}")
    if not (1 <= games <= 500 and 0 <= moves <= 1000):
        raise ValueError("bounded load test: 1..500 games, 0..1000 moves each")
    return asyncio.run(_run(url, games, moves, opponent, timeout))


def start_server(folder: str, extra_env=None) -> tuple[subprocess.Popen, str]:
    """``clans serve FOLDER`` in a subprocess on 127.0.0.1 and a free port; returns it and its URL.
    Its stderr goes to a temporary file (``proc.stderr_path``), never to an unread pipe."""
    import tempfile

    env = {**os.environ, **(extra_env or {})}
    err = tempfile.NamedTemporaryFile("w+", prefix="clans-serve-", suffix=".log", delete=False)
    proc = subprocess.Popen([sys.executable, "-m", "clans_cli.main", "serve", folder, "--port", "0"],
                            stdout=subprocess.PIPE, stderr=err, text=True, env=env)
    err.close()
    proc.stderr_path = err.name
    line = proc.stdout.readline()
    if "http://" not in line:
        proc.kill()
        proc.wait()
        raise RuntimeError(f"clans serve did not start: {line}{Path(err.name).read_text()}")
    url = line.split("http://", 1)[1].split()[0].rstrip("/")
    return proc, "http://" + url


def format_load(res: dict) -> str:
    lat = res["latency_ms"]
    return (f"{res['games']} concurrent games x up to {res['moves_per_game']} moves: {res['requests']} requests "
            f"({res['moves']} moves) in {res['wall_s']} s = {res['requests_per_s']} req/s; errors {res['errors']}, "
            f"lost {res['lost']}; latency ms p50 {lat[50]} p90 {lat[90]} p99 {lat[99]} max {lat[100]} (game creation "
            f"p50 {res['create_ms'][50]} p99 {res['create_ms'][99]}; moves p50 {res['move_ms'][50]} p99 "
            f"{res['move_ms'][99]})")


def main(argv=None) -> int:
    import tempfile

    ap = argparse.ArgumentParser(prog="python3 -m clans_web.loadtest", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", default=None, help="a running server (default: start clans serve on 127.0.0.1)")
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--moves", type=int, default=20)
    ap.add_argument("--opponent", default="random")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)
    proc = None
    with tempfile.TemporaryDirectory() as tmp:
        url = args.url
        if url is None:
            proc, url = start_server(tmp)
        try:
            res = run_load(url, args.games, args.moves, args.opponent)
        finally:
            if proc is not None:
                proc.terminate()
                proc.wait(timeout=20)
                Path(proc.stderr_path).unlink(missing_ok=True)
    print(json.dumps(res) if args.json else format_load(res))
    return 0 if res["errors"] == 0 and res["lost"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
