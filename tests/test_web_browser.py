"""The web viewer in a real browser: headless Chromium from the system packages (``.ci/run``
installs it with apt-get) driven by Playwright, against the app under uvicorn on 127.0.0.1.

Skipped (with the reason) when Playwright or a Chromium binary is missing; set CLANS_CHROMIUM to
a browser binary to use another one. With CLANS_WEB_SCREENSHOTS=docs the screenshots of the
replay page and of a game in progress are written to docs/web-replay.png and docs/web-play.png
(the README shows them); otherwise to the test's temporary folder.
"""
from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed (pip install -e '.[web]')")
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[web]')")

from clans_env import Game, GameConfig  # noqa: E402

from web_support import build_served_folder, live_server, units_in  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def _chromium() -> str | None:
    for cand in (os.environ.get("CLANS_CHROMIUM"), shutil.which("chromium"), shutil.which("chromium-browser"),
                 shutil.which("google-chrome")):
        if cand and Path(cand).exists():
            return cand
    return None


CHROMIUM = _chromium()
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium binary (apt-get install chromium, or set "
                                                         "CLANS_CHROMIUM)")


def _shot_path(tmp_path, name: str) -> Path:
    if os.environ.get("CLANS_WEB_SCREENSHOTS") == "docs":
        return ROOT / "docs" / name
    return tmp_path / name


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("webb") / "served"
    info = build_served_folder(root)
    info["root"] = root
    with live_server([root]) as url:
        info["url"] = url
        yield info


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = ctx.new_page()
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    ctx.close()
    assert not errors, f"JavaScript errors: {errors}"


def _markers(page) -> int:
    return page.locator("#units .unit").count()


def test_replay_steps_and_unit_markers_match_public_state(page, served, tmp_path):
    game = served["record"]
    actions = game.history
    page.goto(served["url"] + "/replay?file=0/play/record.json")
    page.wait_for_selector("#board")
    g = Game(game.config)
    assert _markers(page) == units_in(g) == 0
    # forward with the arrow key and the button, checking the markers against public_state() each time
    states = [g.clone()]
    for i in range(40):
        if i % 2:
            page.keyboard.press("ArrowRight")
        else:
            page.click("#next")
        g.apply(actions[i])
        states.append(g.clone())
        assert page.evaluate("document.body.dataset.step") == str(i + 1)
        assert _markers(page) == units_in(g), f"after decision {i}"
    assert "#39" in page.inner_text("#move") and game.config.seed is not None
    for _ in range(15):                                      # and back
        page.keyboard.press("ArrowLeft")
    assert page.evaluate("document.body.dataset.step") == "25"
    assert _markers(page) == units_in(states[25])
    page.click("#nextround")                                 # round by round
    k = int(page.evaluate("document.body.dataset.step"))
    assert Game.replay(game.config, actions[:k]).round == Game.replay(game.config, actions[:k - 1]).round + 1
    page.fill("#slider", str(len(actions)))                  # the slider to the end: the final score sheet
    page.dispatch_event("#slider", "input")
    assert page.evaluate("document.body.dataset.step") == str(len(actions))
    assert _markers(page) == units_in(game)
    sheet = page.inner_text(".scores")
    assert "Final score sheet" in sheet
    totals = [r["total"] for r in game.final_scores()]
    assert f"total\t{totals[0]}\t{totals[1]}" in sheet
    page.keyboard.press("Home")
    assert _markers(page) == 0
    # speed: every state drawn so far, in the page
    timing = page.evaluate("window.clansTiming")
    print(f"\nrender: {timing['count']} states, mean {timing['total_ms'] / timing['count']:.2f} ms, "
          f"max {timing['max_ms']:.2f} ms")
    # the mean is the speed figure; one slow frame on a loaded 2-core machine is the scheduler, so the
    # single worst frame only has to stay well under half a second
    assert timing["total_ms"] / timing["count"] < 50
    assert timing["max_ms"] < 500
    page.goto(served["url"] + "/replay?file=0/t1/replays/game_00000.json#step=60")
    page.wait_for_selector("#board")
    page.screenshot(path=str(_shot_path(tmp_path, "web-replay.png")), full_page=False)


def start_from_the_form(page, url: str, opponents: str, seed: int) -> None:
    """A 2-player game started from the new-game form, its first decision on screen."""
    page.goto(url + "/")
    page.select_option("select[name=players]", "2")
    page.fill("input[name=opponents]", opponents)
    page.fill("input[name=seed]", str(seed))
    page.click("#start")
    page.wait_for_url("**/play/*")
    page.wait_for_selector("button.move")


def test_play_a_whole_game_by_clicking(page, served, tmp_path):
    t0 = time.monotonic()
    start_from_the_form(page, served["url"], "random", 7)
    clicked_space = expanding = shot = False
    for _ in range(1000):
        if page.evaluate("document.body.dataset.over") == "1":
            break
        version = page.evaluate("document.body.dataset.version")
        spaces = page.locator("button.move[data-space]")
        expand = page.locator("button.move", has_text="expand:")
        st = page.evaluate("window.clansPlay.state")
        if spaces.count() and (not clicked_space or (expanding and not shot)):
            # click a highlighted space on the map itself (the placement after the expansion: screenshot)
            if expanding:
                page.screenshot(path=str(_shot_path(tmp_path, "web-play.png")), full_page=False)
                shot = True
            sid = spaces.first.get_attribute("data-space")
            page.locator(f'#board .space[data-space="{sid}"]').dispatch_event("click")
            clicked_space = True
        elif not expanding and st["frame"]["round"] >= 2 and expand.count():
            expand.first.click()                # once, in round 2: deploy a unit (then place it on the map)
            expanding = True
        else:
            page.locator("button.move").first.click()       # otherwise the first listed option
        page.wait_for_function(f"document.body.dataset.version !== '{version}' && document.body.dataset.busy === '0'")
        st = page.evaluate("window.clansPlay.state")
        rec = page.request.get(f"{served['url']}/api/games/{st['id']}/record").json()   # the server's game
        assert len(rec["actions"]) == st["version"]
        game = Game.replay(GameConfig.from_dict(rec["config"]), rec["actions"])
        assert _markers(page) == units_in(game)
        if st["your_turn"]:       # each button shows the engine's record of its move, as `clans play` lists it
            shown = page.evaluate("[...document.querySelectorAll('button.move')].map((b) => b.textContent)")
            assert shown == [m.name + (" " + m.detail if m.detail else "") for m in game.describe_legal()]
    assert page.evaluate("document.body.dataset.over") == "1"
    assert clicked_space and shot
    assert "Game over" in page.inner_text("#turn")
    page.click("#save")
    page.wait_for_selector("#saved a")
    saved = page.get_attribute("#saved a", "href")
    page.goto(served["url"] + saved)
    page.wait_for_selector("#board")
    assert "decisions" in page.inner_text(".meta")
    elapsed = time.monotonic() - t0
    print(f"\nwhole game by clicking: {elapsed:.1f} s")
    assert elapsed < 120


def test_illegal_and_stale_requests_get_their_error(page, served):
    page.goto(served["url"] + "/")
    page.click("#start")
    page.wait_for_url("**/play/*")
    page.wait_for_selector("button.move")
    st = page.evaluate("window.clansPlay.state")
    legal = {m["action"] for m in st["legal"]}
    illegal = next(a for a in range(300) if a not in legal)
    res = page.evaluate("""async ([id, action, version]) => {
        const r = await fetch('/api/games/' + id + '/move', {method: 'POST', headers: {'Content-Type': 'application/json'},
                              body: JSON.stringify({action: action, version: version})});
        return [r.status, await r.json()];
    }""", [st["id"], illegal, st["version"]])
    assert res[0] == 400 and "illegal move" in res[1]["error"]
    # a move made elsewhere (another tab): the page's next click is stale, refused with its message
    other = page.request.post(f"{served['url']}/api/games/{st['id']}/move",
                              data={"action": st["legal"][0]["action"], "version": st["version"]})
    assert other.status == 200
    page.locator("button.move").first.click()
    page.wait_for_selector("#error:not([hidden])")
    assert "stale move" in page.inner_text("#error")
    page.wait_for_function(f"document.body.dataset.version === '{other.json()['version']}'")


def test_path_traversal_and_bad_files_show_an_error_page(page, served):
    for file_id in ("0/../outside.json", "0/t1/../../outside.json", "0//etc/passwd"):
        r = page.goto(served["url"] + "/replay?file=" + file_id)
        assert r.status == 403
        assert "refused" in page.inner_text("#page-error")
    r = page.goto(served["url"] + "/static/../../outside.json")
    assert r.status == 404
    r = page.goto(served["url"] + "/replay?file=0/broken.json")
    assert r.status == 422 and "not JSON" in page.inner_text("#page-error")
    assert "Traceback" not in page.content()


def test_lists_tournament_and_shared_html(page, served, tmp_path):
    page.goto(served["url"] + "/")
    page.wait_for_selector("#rlist table")
    listing = page.inner_text("#rlist")
    assert "play/record.json" in listing and "t1/replays/game_00001.json" in listing
    assert "broken.json" in listing and "not JSON" in listing
    page.click("#tlist a.open")
    page.wait_for_selector("table.standings")
    assert "heuristic" in page.inner_text("table.standings")
    assert page.locator("img.ratings-plot").count() == 1
    page.locator("table.games a.open").first.click()
    page.wait_for_selector("#board")
    assert page.locator("#log li").count() > 10
    # the shared replay opens from disk, with no server
    from clans_web.pages import replay_html

    out = replay_html(served["root"] / "play" / "record.json", tmp_path / "shared.html")
    page.goto(out.as_uri())
    page.wait_for_selector("#board")
    game = served["record"]
    for _ in range(30):
        page.keyboard.press("ArrowRight")
    assert _markers(page) == units_in(Game.replay(game.config, game.history[:30]))
    page.keyboard.press("End")
    assert _markers(page) == units_in(game)


@pytest.fixture(scope="module")
def automa_served(tmp_path_factory):
    """A served folder with one finished game against the Automa (level 3, Industria with the Train module)."""
    import random

    from clans_env.engine.records import write_record

    root = tmp_path_factory.mktemp("weba") / "served"
    (root / "play").mkdir(parents=True)
    g = Game(GameConfig(num_players=2, seed=11, automa={1: 3}, industria=True))
    rng = random.Random(11)
    while not g.is_terminal():
        g.apply(rng.choice(g.legal_actions()))
    write_record(root / "play" / "automa.json", g, players=["human", "automa:level=3"], human_seat=0)
    with live_server([root]) as url:
        yield {"url": url, "game": g}


def test_automa_game_replays_and_plays_with_its_cards_shown(page, automa_served, tmp_path):
    """Issue 20: the Automa's drawn card and resolved actions (the game record's lines, as render_text and
    clans play show them) appear with the decision inside which they were resolved, in a replay and in a
    game played in the browser; its player board shows its level and cards."""
    from clans_env.engine.rules.automa import log_lines

    g = automa_served["game"]
    url = automa_served["url"]

    def lines_of(k):                  # the Automa's lines resolved inside decision k
        before = log_lines(Game.replay(g.config, g.history[:k]))
        return log_lines(Game.replay(g.config, g.history[:k + 1]))[len(before):]

    k = next(k for k in range(len(g.history)) if any("draws card" in x for x in lines_of(k)))
    new = lines_of(k)
    page.goto(url + f"/replay?file=0/play/automa.json#step={k + 1}")
    page.wait_for_selector("#board")
    card_line = next(x for x in new if "draws card" in x)
    assert card_line in page.inner_text("#move")                          # "then the Automa: ..."
    assert page.locator("#log li.now .automa-lines li").count() == len(new)
    assert "Automa level 3 (Moderate)" in page.inner_text(".players")
    page.screenshot(path=str(_shot_path(tmp_path, "web-automa.png")), full_page=False)
    page.keyboard.press("End")
    assert log_lines(g)[-1] in page.inner_text("#log")
    # a game against the Automa started from the form: its card lines show in the decision log
    start_from_the_form(page, url, "automa:level=2", 5)
    for _ in range(60):
        if "draws card" in page.inner_text("#log") or page.evaluate("document.body.dataset.over") == "1":
            break
        version = page.evaluate("document.body.dataset.version")
        page.locator("button.move").first.click()
        page.wait_for_function(f"document.body.dataset.version !== '{version}' && document.body.dataset.busy === '0'")
    st = page.evaluate("window.clansPlay.state")
    rec = page.request.get(f"{url}/api/games/{st['id']}/record").json()
    played = Game.replay(GameConfig.from_dict(rec["config"]), rec["actions"])
    drawn = [x for x in log_lines(played) if "draws card" in x]
    assert drawn and drawn[-1] in page.inner_text("#log")
    assert page.locator("#log .automa-lines li").count() >= len(drawn)
    assert "Automa level 2 (Easy)" in page.inner_text(".players")
