"""cardgym serve in a real browser: headless Chromium (Debian's chromium and chromium-driver) driven by
selenium plays whole games by clicking the cards, on a laptop (1366x768) and a phone (390x844) screen,
opens a replay, watches bots, and runs the axe-core accessibility checker in the page.

Set CARDGYM_SCREENSHOTS=DIR to keep the screenshots (docs/img/web-*.png are made this way). axe-core is
read from CARDGYM_AXE_JS (a path to axe.min.js) or from the cache folder (~/.cache/cardgym-tests), where
it is fetched from the npm registry with ``npm pack`` the first time."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tarfile
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette", reason="cardgym serve needs the web extra: pip install 'cardgym[web]'")
uvicorn = pytest.importorskip("uvicorn", reason="cardgym serve needs the web extra: pip install 'cardgym[web]'")
webdriver = pytest.importorskip("selenium.webdriver", reason="the browser tests need selenium (the dev extra)")

from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

import cardgym  # noqa: E402
from cardgym.app.game_records import play_recorded, read_record, replay_states  # noqa: E402
from cardgym.render.view import view  # noqa: E402
from cardgym.web.app import create_app  # noqa: E402
from cardgym.web.tables import Tables  # noqa: E402

CHROMIUM = os.environ.get("CARDGYM_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CARDGYM_CHROMEDRIVER", "/usr/bin/chromedriver")
LAPTOP = (1366, 768)
PHONE = (390, 844)
SIZES = {"laptop": LAPTOP, "phone": PHONE}
AXE_VERSION = "4.10.3"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(
        not (shutil.which(CHROMIUM) and shutil.which(CHROMEDRIVER)),
        reason=f"no headless Chromium here ({CHROMIUM}, {CHROMEDRIVER}): apt-get install chromium chromium-driver",
    ),
]


@pytest.fixture(scope="module")
def server():
    tables = Tables(pace=0.0)
    # the bots' kernels compiled (or loaded from the cache) before the browser waits on any of them
    for game, seats, rules in (("skyjo", ["expert", "greedy"], {"max_rounds": "1"}),
                               ("skipbo", ["expert", "greedy"], {"stock_size": "3"}),
                               ("skipbo_junior", ["expert", "greedy"], {"stock_size": "3"})):
        gid = tables.create({"game": game, "num_players": 2, "seats": seats, "rules": rules, "seed": 0})["id"]
        tables.live[gid].advance()
        del tables.live[gid]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(create_app(tables), host="127.0.0.1", port=port, log_level="warning"))
    th = threading.Thread(target=srv.run, daemon=True)
    th.start()
    deadline = time.time() + 20
    while not srv.started:
        assert time.time() < deadline, "the server did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}", tables
    srv.should_exit = True
    th.join(5)


@pytest.fixture(scope="module")
def browser():
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              f"--window-size={LAPTOP[0]},{LAPTOP[1]}", "--hide-scrollbars"):
        opts.add_argument(a)
    drv = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    reduced_motion(drv, True)  # still screenshots (the motion itself is checked once, below)
    yield drv
    drv.quit()


def reduced_motion(drv, on):
    drv.execute_cdp_cmd("Emulation.setEmulatedMedia", {
        "features": [{"name": "prefers-reduced-motion", "value": "reduce" if on else "no-preference"}]})


def resize(drv, size):
    """Make the page's viewport exactly ``size``: a laptop's window, or a phone's screen (the device metrics
    of a mobile browser: the page's viewport meta tag applies)."""
    drv.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": size[0] < 800})
    if drv.current_url.startswith("http"):  # (a blank page has no viewport tag: a phone lays it out 980 px wide)
        assert drv.execute_script("return [window.innerWidth, window.innerHeight]") == list(size)


def wait(drv, js, timeout=15):
    """Wait until the JS expression is truthy; returns its value."""
    return WebDriverWait(drv, timeout, poll_frequency=0.02).until(lambda d: d.execute_script(f"return {js}"))


def start(drv, base, game, seats, rules=None, seed=None, pace=0):
    """Fill the new-game form of the front page and press Start (as a person would)."""
    drv.get(base + "/#/")
    wait(drv, "document.querySelector('#f-game').options.length > 0")
    drv.execute_script(
        "const [g, n, seats, rules, seed, pace] = arguments;"
        "const f = document.querySelector('#f-game'); f.value = g; f.dispatchEvent(new Event('change'));"
        "const p = document.querySelector('#f-players'); p.value = n; p.dispatchEvent(new Event('change'));"
        "seats.forEach((s, i) => { document.querySelector('#f-seat-' + i).value = s; });"
        "for (const [k, v] of Object.entries(rules)) document.querySelector(`#f-options input[name=${k}]`).value = v;"
        "document.querySelector('#f-seed').value = seed === null ? '' : seed;"
        "document.querySelector('#f-pace').value = pace === null ? '' : pace;",
        game, len(seats), seats, rules or {}, seed, pace)
    drv.find_element(By.ID, "f-start").click()
    wait(drv, "location.hash.startsWith('#/game/') && S.state && S.state.id === location.hash.split('/')[2]")
    w = drv.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssVisualViewport"]["clientWidth"]
    assert w == drv.execute_script("return window.innerWidth"), w
    return drv.execute_script("return S.id")


def element_for(drv, ref):
    """The DOM card a person clicks for a view id (a card, a value id or a pile's top card)."""
    found = drv.execute_script(
        "const r = arguments[0];"
        "return document.querySelector(`#table-area [data-card=\"${r}\"]`)"
        " || document.querySelector(`#table-area [data-key=\"${r}\"]`)"
        " || document.querySelector(`#table-area .pile[data-pile=\"${r}\"] .card.top`);", ref)
    assert found is not None, f"nothing to click for {ref!r} on the page"
    return found


def my_turn(drv, timeout=15):
    return wait(drv, "(S.state && !S.busy && (S.state.over || (S.state.to_act === S.state.viewer && "
                     "S.state.view.legal.length > 0))) ? (S.state.over ? 'over' : 'turn') : false", timeout)


OVERFLOW_JS = """
const w = document.documentElement.clientWidth;
const bad = [];
if (document.documentElement.scrollWidth > w) bad.push('the page scrolls sideways: ' + document.documentElement.scrollWidth);
for (const e of document.querySelectorAll('body *')) {
  const r = e.getBoundingClientRect();
  if (r.width && r.height && (r.right > w + 0.5 || r.left < -0.5) && getComputedStyle(e).visibility !== 'hidden')
    bad.push((e.id || e.className || e.tagName) + ' ' + Math.round(r.left) + '..' + Math.round(r.right));
}
return bad.slice(0, 5);
"""


def no_overflow(drv):
    """No element of the page reaches beyond the viewport's width (nothing to scroll sideways to)."""
    bad = drv.execute_script(OVERFLOW_JS)
    assert not bad, f"wider than the {drv.execute_script('return window.innerWidth')} px viewport: {bad}"


def outlined_target(drv, ref):
    """The card for ``ref`` is marked as a target and drawn with a dashed outline (the CSS really shows it)."""
    e = element_for(drv, ref)
    cls = e.get_attribute("class").split()
    assert "target" in cls, (ref, cls)
    assert drv.execute_script("return getComputedStyle(arguments[0]).outlineStyle", e) == "dashed", ref
    return e


def stacked(drv, ref):
    """Is ``ref`` a pile of two or more stacked cards (drawn with a count badge)?"""
    return bool(drv.execute_script(
        "return document.querySelector(`#table-area .pile.stack.deep[data-pile=\"${arguments[0]}\"]`)", ref))


def click_move(drv, choose, checks=None):
    """Make one move by clicking: ``choose(legal)`` picks an action of the page's legal list; its cards are
    clicked in order (a move without cards through its button in the list). After each click but the
    last, the next card of the move must be outlined as a target; ``checks`` counts those on stacked piles."""
    legal = drv.execute_script("return S.state.view.legal")
    step = drv.execute_script("return S.state.step")
    a = choose(legal)
    if a["refs"]:
        for i, ref in enumerate(a["refs"]):
            if i:
                outlined_target(drv, ref)
                if checks is not None and stacked(drv, ref):
                    checks["stacked_target"] += 1
            element_for(drv, ref).click()
    else:
        drv.find_element(By.CSS_SELECTOR, f"#actions button[data-action='{a['action']}']").click()
    wait(drv, f"S.state && S.state.step > {step} && !S.busy")
    return a


def check_screenshot(drv, name, tmp_path, min_cards=8):
    from PIL import Image

    out = Path(os.environ.get("CARDGYM_SCREENSHOTS", tmp_path))
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"web-{name}.png"
    drv.save_screenshot(str(path))
    with Image.open(path) as im:
        px = np.asarray(im.convert("RGB"))
    h, w = px.shape[:2]
    assert [w, h] == drv.execute_script("return [window.innerWidth, window.innerHeight]"), (w, h)
    assert px.std() > 20, "a blank screenshot"
    felt = np.all(np.abs(px.astype(int) - (20, 92, 56)) < 12, axis=-1).mean()
    assert 0.02 < felt < 0.95, f"the felt covers {felt:.0%} of the screenshot: not the table"
    assert len(drv.find_elements(By.CSS_SELECTOR, "#table-area .card")) >= min_cards
    return path


def page_cards(drv):
    return drv.execute_script(
        "return [...document.querySelectorAll('#table-area .card')].filter(c => !c.dataset.card.endsWith('#empty'))"
        ".map(c => [c.dataset.card, [...c.classList].filter(k => ['value','wild','back','empty'].includes(k))[0],"
        " (c.querySelector('.big') || {}).textContent || ''])")


def hidden_values_absent(drv, tables, gid, seat):
    """No card hidden from the seat is on the page: every card the page shows is in the seat's view."""
    t = tables.live[gid]
    v = view(t.env.game, t.env.record, t.env.rules, seat)
    allowed = {c["id"]: c for reg in [v["table"]] + v["players"] for row in reg["rows"] for p in row for c in p["cards"]}
    for cid, kind, _ in page_cards(drv):
        assert cid in allowed and allowed[cid]["kind"] == kind, (cid, kind)


def axe_source() -> str:
    """axe-core's axe.min.js: CARDGYM_AXE_JS, else the cache folder, else fetched with ``npm pack``."""
    given = os.environ.get("CARDGYM_AXE_JS")
    if given:
        return Path(given).read_text()
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "cardgym-tests" / f"axe-core-{AXE_VERSION}"
    js = cache / "axe.min.js"
    if not js.exists():
        npm = shutil.which("npm")
        if npm is None:
            pytest.skip(f"the accessibility check needs axe-core {AXE_VERSION}: install npm (it is fetched with "
                        f"npm pack) or set CARDGYM_AXE_JS to an axe.min.js")
        with tempfile.TemporaryDirectory() as tmp:
            done = subprocess.run([npm, "pack", f"axe-core@{AXE_VERSION}", "--pack-destination", tmp, "--silent"],
                                  capture_output=True, text=True, timeout=120)
            if done.returncode != 0:
                pytest.skip(f"npm pack axe-core@{AXE_VERSION} failed (offline?): {done.stderr.strip()[-300:]}")
            with tarfile.open(next(Path(tmp).glob("axe-core-*.tgz"))) as tar:
                data = tar.extractfile("package/axe.min.js").read()
        cache.mkdir(parents=True, exist_ok=True)
        js.write_bytes(data)
    return js.read_text()


def axe_violations(drv, source):
    """The serious and critical violations axe-core finds in the page as it is now."""
    if not drv.execute_script("return typeof window.axe !== 'undefined'"):
        drv.execute_script(source)
    drv.set_script_timeout(60)
    res = drv.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']}).then(r => done(r.violations.map(v =>"
        " ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map(n => n.target.join(' ') + ': ' + n.failureSummary)}))))"
        ".catch(e => done([{id: 'axe failed', impact: 'critical', help: String(e), nodes: []}]));")
    return [v for v in res if v["impact"] in ("serious", "critical")]


def _prefer(legal, checks, rng):
    """A move to click: onto a stacked pile where one can (so that its outline is checked), else a move
    with cards, at random."""
    onto = [a for a in legal if len(a["refs"]) > 1 and checks["deep"](a["refs"][-1])]
    with_cards = [a for a in legal if a["refs"]]
    pool = onto or with_cards or legal
    return pool[int(rng.integers(len(pool)))]


GAMES = {
    # game, seats, rules, seed: short games (Skyjo one round, small stocks)
    "skyjo": (["person", "expert"], {"max_rounds": "1"}, 12),
    "skipbo": (["person", "expert"], {"stock_size": "3"}, 5),
    "skipbo_junior": (["person", "expert"], {"stock_size": "3"}, 2),
}


@pytest.mark.parametrize("size", ["laptop", "phone"])
@pytest.mark.parametrize("game", list(GAMES))
def test_a_whole_game_by_clicking(server, browser, tmp_path, game, size):
    base, tables = server
    resize(browser, SIZES[size])
    seats, rules, seed = GAMES[game]
    gid = start(browser, base, game, seats, rules, seed=seed)
    phone = size == "phone"
    rng = np.random.default_rng(0)
    checks = {"stacked_target": 0, "stacked_can": 0, "last_move": 0, "deep": lambda ref: stacked(browser, ref)}
    moves = 0
    while my_turn(browser) == "turn":
        if phone:
            no_overflow(browser)
        # a stacked pile that starts a move is lit (the draw pile of Skyjo, a Skip-Bo stock)
        for e in browser.find_elements(By.CSS_SELECTOR, "#table-area .pile.stack.deep .card.top.can"):
            assert browser.execute_script("return getComputedStyle(arguments[0]).boxShadow", e) != "none"
            checks["stacked_can"] += 1
        log = browser.execute_script("return S.state.log")
        if log and log[-1]["seat"] == 1:
            # the expert's last move: told in words and its cards marked
            line = browser.find_element(By.ID, "last-move").text
            assert line.startswith("Last move: ") and "player_1 (expert)" in line, line
            if browser.find_elements(By.CSS_SELECTOR, "#table-area .card.moved"):
                checks["last_move"] += 1
                if checks["last_move"] == 1 and phone and game == "skyjo":
                    check_screenshot(browser, "phone-last-move", tmp_path)
        if moves == 3:
            check_screenshot(browser, f"{size}-{game}" if phone else game, tmp_path)
            hidden_values_absent(browser, tables, gid, 0)
        click_move(browser, lambda legal: _prefer(legal, checks, rng), checks)
        moves += 1
    t = tables.live[gid]
    assert int(t.env.record["status"]) != 0 and sum(e["seat"] == 0 for e in t.log) == moves
    assert moves >= 3 and checks["last_move"] >= 1, checks
    if game == "skyjo":
        assert checks["stacked_can"] >= 1, checks
    else:
        assert checks["stacked_target"] >= 1, checks
    # the game-over screen: the result in words, the seats by name, the score table, a rematch button
    res = browser.find_element(By.ID, "result")
    assert res.is_displayed()
    text = res.text
    won = 0 in t.env.result()["winners"]
    assert text.startswith("Game over. " + ("You won!" if won else "You lost: player_1 (expert) wins")), text
    assert "outcome" not in text and "{" not in text
    rows = [r.text for r in res.find_elements(By.CSS_SELECTOR, "table.scores tr")]
    assert rows[1].startswith("player_0 (you)") and rows[2].startswith("player_1 (expert)"), rows
    assert ("★ winner" in rows[1]) == won and ("★ winner" in rows[2]) != won
    assert browser.find_element(By.ID, "rematch").is_displayed()
    if phone:
        no_overflow(browser)
        browser.execute_script("window.scrollTo(0, 0)")
        if game == "skipbo_junior":
            check_screenshot(browser, "phone-game-over", tmp_path, min_cards=4)
    else:
        # a rematch with one click: the same seats and rules
        browser.find_element(By.ID, "rematch").click()
        # (a new deal: the expert may have made the first move already, the person none)
        wait(browser, f"S.state && S.state.id !== '{gid}' && S.state.log.every(e => e.seat !== 0)")
        assert browser.execute_script("return S.state.game") == game
        assert browser.execute_script("return S.state.seats.map(s => s.name)") == ["person", "expert"]
        assert tables.live[browser.execute_script("return S.id")].env.rules.as_dict() == t.env.rules.as_dict()


def test_a_skipbo_turn_that_plays_a_wild(server, browser, tmp_path):
    base, tables = server
    resize(browser, LAPTOP)
    gid = start(browser, base, "skipbo", ["person", "expert"], seed=3)  # seed 3: a SKIP-BO in the first hand
    assert my_turn(browser) == "turn"
    wild = browser.find_element(By.CSS_SELECTOR, "#table-area [data-key='p0.hand=W']")
    assert "SKIP" in wild.text and wild.get_attribute("aria-label").startswith("Skip-Bo card SKIP-BO, wild, face up")
    wild.click()
    assert browser.execute_script("return S.sel.length") == 1
    for b in range(4):  # every build pile is outlined, each with its next value
        outlined_target(browser, f"table.B{b}")
        cap = browser.find_element(By.CSS_SELECTOR, f"#table-area .pile[data-pile='table.B{b}'] .caption").text
        assert cap == f"B{b} · next 1", cap
    check_screenshot(browser, "skipbo", tmp_path)
    element_for(browser, "table.B2").click()
    wait(browser, "S.state.step === 1")
    t = tables.live[gid]
    assert int(t.env.record["bcounts"][2]) == 1 and "SKIP-BO" in t.log[0]["text"]
    assert browser.find_element(By.CSS_SELECTOR, "#table-area .pile[data-pile='table.B2'] .caption").text == "B2 · next 2 +1"
    b2 = element_for(browser, "table.B2")
    assert {"moved", "fresh"} <= set(b2.get_attribute("class").split())
    # the card that arrived slides in, unless the system asks for reduced motion
    assert browser.execute_script("return getComputedStyle(arguments[0]).animationName", b2) == "none"
    reduced_motion(browser, False)
    try:
        assert browser.execute_script("return getComputedStyle(arguments[0]).animationName", b2) == "arrive"
    finally:
        reduced_motion(browser, True)
    assert browser.find_element(By.ID, "last-move").text.startswith("Last move: player_0 (you) played a SKIP-BO")
    hidden_values_absent(browser, tables, gid, 0)
    # end the turn by discarding: a hand card, then a discard pile
    click_move(browser, lambda legal: next(a for a in legal if a["refs"] and ".D" in a["refs"][-1]))
    wait(browser, "S.state.to_act === 0 || S.state.over")
    assert any(e["seat"] == 1 for e in tables.live[gid].log)  # the expert played its turn


def test_cards_play_with_the_keyboard(server, browser):
    base, tables = server
    resize(browser, PHONE)
    gid = start(browser, base, "skipbo_junior", ["person", "expert"], {"stock_size": "3"}, seed=2)
    assert my_turn(browser) == "turn"
    body = browser.find_element(By.TAG_NAME, "body")
    body.click()
    # Tab reaches a card that can move; Enter picks it, focus goes to where it can go; Enter plays
    for _ in range(60):
        body = browser.switch_to.active_element
        if "can" in (body.get_attribute("class") or "").split():
            break
        body.send_keys(Keys.TAB)
    else:
        pytest.fail("Tab never reached a card that can move")
    assert body.get_attribute("role") == "button" and body.get_attribute("aria-label").endswith("(can move)")
    assert browser.execute_script("return getComputedStyle(document.activeElement).outlineStyle") == "solid"
    browser.execute_script("return refresh()")  # the page asks again (every few seconds): the focus stays
    assert browser.switch_to.active_element == body
    body.send_keys(Keys.ENTER)
    target = browser.switch_to.active_element
    assert "target" in target.get_attribute("class").split(), target.get_attribute("class")
    assert target.get_attribute("aria-label").endswith("(where it can go)")
    target.send_keys(Keys.ENTER)
    wait(browser, "S.state.step >= 1 && !S.busy")
    assert tables.live[gid].log[0]["seat"] == 0


def test_the_preparing_state_and_the_servers_pace(server, browser):
    base, tables = server
    resize(browser, LAPTOP)
    browser.get(base + "/#/")
    browser.refresh()  # a fresh page (the form keeps what earlier tests typed otherwise)
    wait(browser, "document.querySelectorAll('#watch-list button').length > 0")
    # the form's pace starts at the server's own (cardgym serve --pace, sent as the catalogue's pace)
    assert float(browser.find_element(By.ID, "f-pace").get_attribute("value")) == tables.pace
    # emptied, the game gets whatever the server's default is when it starts
    browser.execute_script("document.querySelector('#f-pace').value = '';")
    # a slow start (a first game compiles its kernels) says so while it waits
    browser.execute_script(
        "const real = window.fetch; window.fetch = (u, o) => (o && o.method === 'POST' && u === '/api/games') ?"
        " new Promise(r => setTimeout(r, 1500)).then(() => real(u, o)) : real(u, o);")
    old = tables.pace
    tables.pace = 0.25
    try:
        # picking a game not yet compiled starts its preparation on the server at once
        browser.execute_script(
            "window.__prep = []; const real2 = window.fetch; window.fetch = (u, o) => {"
            "  if (u === '/api/prepare') window.__prep.push(JSON.parse(o.body).game); return real2(u, o); };"
            "CAT.games.find(g => g.name === 'skyjo').status = 'cold';"
            "const f = document.querySelector('#f-game'); f.value = 'skyjo'; f.dispatchEvent(new Event('change'));"
            "document.querySelector('#f-seat-0').value = 'person';")
        assert wait(browser, "window.__prep.length && window.__prep") == ["skyjo"]
        browser.find_element(By.ID, "f-start").click()
        wait(browser, "!document.querySelector('#preparing').hidden")
        assert browser.find_element(By.ID, "preparing").text == \
            "preparing Skyjo (first use in this server: compiling, about 10-40 s)…"
        wait(browser, "S.state && S.state.kind === 'live'")
        assert not browser.find_element(By.ID, "preparing").is_displayed()
        assert tables.live[browser.execute_script("return S.id")].pace == 0.25
    finally:
        tables.pace = old
    # Watch keeps a pace of 0 (it was turned into 0.7)
    browser.get(base + "/#/")
    browser.refresh()
    wait(browser, "document.querySelectorAll('#watch-list button').length > 0")
    browser.find_element(By.ID, "f-pace").send_keys("0")
    next(b for b in browser.find_elements(By.CSS_SELECTOR, "#watch-list button")
         if b.text == "Skip-Bo Junior: expert vs greedy").click()
    wait(browser, "S.state && S.state.kind === 'live' && !S.token")
    assert tables.live[browser.execute_script("return S.id")].pace == 0


FAN_VALUES_JS = """
const [n, opp, keep] = arguments;
const p = {id: 'p0.S8', label: 'S8', note: '', layout: 'fan', count: n,
  cards: [...Array(n).keys()].map(i => i % 5 === 4
    ? {id: `p0.S8#${i}`, kind: 'wild', text: 'SB', value: 0, band: 'sb_wild', label: 'SB', highlight: false}
    : {id: `p0.S8#${i}`, kind: 'value', text: String(i % 12 + 1), value: i % 12 + 1,
       band: ['sb_blue', 'sb_green', 'sb_red'][Math.floor((i % 12) / 4)], label: String(i % 12 + 1), highlight: false})};
const reg = regionEl({id: 'p9', title: `player_9 (${n} cards${opp ? ', small' : ''})`, lines: [], rows: [[p]],
  active: false, you: false, team: null}, palette('skipbo'), 'Skip-Bo', opp);
document.querySelector('#table-area').prepend(reg); window.scrollTo(0, 0);
const out = [];
reg.querySelectorAll('.card').forEach((c, i) => {
  const v = [...c.querySelectorAll('.corner, .big')].find(e => getComputedStyle(e).display !== 'none'
    && getComputedStyle(e).visibility !== 'hidden');
  if (!v) { out.push([i, 'no value shown']); return; }
  const r = v.getBoundingClientRect(), cx = (r.left + r.right) / 2, cy = (r.top + r.bottom) / 2;
  for (const [x, y] of [[cx, r.top + 1], [cx, r.bottom - 1], [r.left + 1, cy], [r.right - 1, cy]]) {
    const e = document.elementFromPoint(x, y);
    if (!e || e.closest('.card') !== c) { out.push([i, v.textContent, x, y]); break; } }
  if (r.height < 8) out.push([i, 'too small', r.height]); });
if (!keep) reg.remove();
return out;
"""


def test_a_fan_of_any_size_can_be_clicked_and_a_long_log_keeps_its_numbers(server, browser, tmp_path):
    """Every card of a fanned pile shows a strip a click reaches, however many cards it holds."""
    base, tables = server
    resize(browser, PHONE)
    start(browser, base, "skipbo_junior", ["person", "expert"], {"stock_size": "3"}, seed=2)
    for n in (3, 12, 30):
        hit = browser.execute_script(
            "const n = arguments[0];"
            "const p = {id: 'p0.S9', label: 'S9', note: '', layout: 'fan', count: n,"
            "  cards: [...Array(n).keys()].map(i => ({id: `p0.S9#${i}`, kind: 'value', text: String(i % 10 + 1),"
            "  value: i % 10 + 1, band: 'sb_blue', label: String(i % 10 + 1), highlight: false}))};"
            "const reg = {title: 'player_0'};"
            "const box = pileEl(p, palette('skipbo_junior'), reg, 'Skip-Bo Junior');"
            "document.querySelector('#table-area').prepend(box);"
            "const out = [...box.querySelectorAll('.card')].map(c => { const r = c.getBoundingClientRect();"
            "  const e = document.elementFromPoint(r.left + r.width / 2, r.top + 2); return e && e.closest('.card') === c; });"
            "const h = box.getBoundingClientRect().height; box.remove(); return [out, h];", n)
        reached, height = hit
        assert all(reached), (n, reached)
        # about four cards tall, but never strips under 16 px (where a card's value would no longer show)
        assert height < max(5 * 62, 16 * (n - 1) + 62 + 20), (n, height)  # (+ its caption)
    # the value of every card of a fan reads: its value's box (the corner of an overlapped card, the middle
    # of the top one) is not covered by the next card, on one's own seat and on a small seat of another
    for size in (PHONE, (1280, 800)):
        resize(browser, size)
        for opp in (False, True):
            for n in (2, 4, 12, 30):
                covered = browser.execute_script(FAN_VALUES_JS, n, opp, n == 12)
                assert covered == [], (size, opp, n, covered[:5])
        # (the kept 12-card fans, own and small, in a screenshot: docs/img is not made from it)
        check_screenshot(browser, f"fans-{size[0]}x{size[1]}", tmp_path)
        browser.execute_script("document.querySelectorAll('#table-area .region[data-region=p9]').forEach(r => r.remove())")
    resize(browser, PHONE)
    # a long log keeps every digit of its move numbers (a list marker lost the first one from 100 up)
    nums = browser.execute_script(
        "const st = Object.assign({}, S.state, {log: [...Array(123).keys()].map(i => ({n: i, seat: i % 2, action: 0,"
        "  text: 'play the 5 from their hand stack 1 on build pile 3'}))});"
        "const keep = L.entries; L.entries = st.log; L.lo = null;"  # drawn anew
        "drawLog(st); const box = document.querySelector('#log-box').getBoundingClientRect();"
        "const out = [...document.querySelectorAll('#log li .n')].map(e => { const r = e.getBoundingClientRect();"
        "  return [e.textContent, r.left >= box.left - 0.5 && e.scrollWidth <= e.clientWidth + 0.5]; });"
        "L.entries = keep; L.lo = null; drawLog(S.state); return out;")
    assert [t for t, _ in nums] == [f"{i}." for i in range(1, 124)]
    assert all(ok for _, ok in nums), [t for t, ok in nums if not ok][:5]
    # a log of 1,000 moves draws its latest WINDOW lines (300), then appends and drops; a replay draws the
    # lines around its current move and re-marks only those between two steps
    got = browser.execute_script(
        "const mk = (k) => [...Array(k).keys()].map(i => ({n: i, seat: i % 2, action: 0, text: 'pass'}));"
        "const keep = L.entries, nums = () => [...document.querySelectorAll('#log li .n')].map(e => e.textContent);"
        "const out = {}; const st = Object.assign({}, S.state, {log: null});"
        "L.entries = mk(1000); L.lo = null; drawLog(st);"
        "out.live = [nums().length, nums()[0], nums().at(-1), document.querySelector('#log-gap').textContent];"
        # the box shows whole lines at its top (never the lower half of one) and the latest line whole
        "const box = document.querySelector('#log-box'), b = box.getBoundingClientRect(), t0 = b.top + box.clientTop;"
        "const lis = [...document.querySelectorAll('#log li')];"
        "const first = lis.find(li => li.getBoundingClientRect().bottom > t0 + 0.5);"
        "out.edges = [first.getBoundingClientRect().top >= t0 - 0.5,"
        "  lis.at(-1).getBoundingClientRect().bottom <= t0 + box.clientHeight + 0.5, box.scrollTop > 0];"
        "L.entries.push(...mk(5)); drawLog(st); out.more = [nums().length, nums()[0], nums().at(-1)];"
        "L.lo = null; drawLog(st, 500); out.replay = [nums().length, document.querySelector('#log li.now .n').textContent,"
        "  document.querySelectorAll('#log li.later').length];"
        "drawLog(st, 510); out.step = [document.querySelector('#log li.now .n').textContent,"
        "  document.querySelectorAll('#log li.now').length, document.querySelectorAll('#log li.later').length];"
        "L.entries = keep; L.lo = null; drawLog(S.state); return out;")
    assert got["live"] == [300, "701.", "1000.", "… 700 earlier moves"], got
    assert got["more"] == [300, "706.", "1005."], got
    assert got["edges"] == [True, True, True], got
    assert got["replay"][:2] == [300, "500."] and got["step"][:2] == ["510.", 1], got
    assert got["replay"][2] - got["step"][2] == 10, got


def _contrast(a, b):
    def lum(h):
        c = [int(h[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        c = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in c]
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]

    x, y = sorted((lum(a), lum(b)))
    return (y + 0.05) / (x + 0.05)


def test_card_text_reads_on_every_colour_of_every_game(server, browser):
    """Every colour band of every game's palette is drawn with text of at least 4.5:1 (the palettes'
    SKIP-BO card is 2.66:1 and Skyjo's green 3.29:1 as drawn in the pictures)."""
    base, tables = server
    browser.get(base + "/#/")
    wait(browser, "CAT !== null")
    drawn = browser.execute_script(
        "return CAT.games.map(g => Object.entries(g.palette.bands).map(([k, b]) => [g.name, k, readable(b)])).flat()")
    assert len(drawn) >= 3 * 9
    for game, band, (bg, ink) in drawn:
        assert _contrast(bg, ink) >= 4.5, (game, band, bg, ink, _contrast(bg, ink))
    assert _contrast("#f08214", "#ffffff") < 3  # the palette's own SKIP-BO card, for the record


def test_four_players_on_a_phone(server, browser, tmp_path):
    base, tables = server
    resize(browser, PHONE)
    start(browser, base, "skipbo", ["person", "expert", "expert", "expert"], {"stock_size": "5"}, seed=1)
    assert my_turn(browser) == "turn"
    no_overflow(browser)
    assert len(browser.find_elements(By.CSS_SELECTOR, "#table-area .region.opp")) == 3
    # the other seats are drawn small, yours full size
    small, big = browser.execute_script(
        "return [document.querySelector('.region.opp .card').offsetWidth, document.querySelector('.region.you .card').offsetWidth]")
    assert small < big
    check_screenshot(browser, "phone-skipbo-4", tmp_path)
    click_move(browser, lambda legal: next(a for a in legal if a["refs"] and ".D" in a["refs"][-1]))
    assert my_turn(browser) == "turn"
    no_overflow(browser)


def test_no_serious_accessibility_violations(server, browser, tmp_path):
    source = axe_source()
    base, tables = server
    for size in (LAPTOP, PHONE):
        resize(browser, size)
        browser.get(base + "/#/")
        wait(browser, "document.querySelectorAll('#watch-list button').length > 0")
        assert axe_violations(browser, source) == []
        for game in GAMES:
            seats, rules, seed = GAMES[game]
            start(browser, base, game, seats, rules, seed=seed)
            assert my_turn(browser) == "turn"
            # a card picked: the targets are marked too
            a = next((a for a in browser.execute_script("return S.state.view.legal") if len(a["refs"]) > 1), None)
            if a is not None:
                element_for(browser, a["refs"][0]).click()
            found = axe_violations(browser, source)
            assert found == [], (game, size, json.dumps(found, indent=1))
    # a replay on a phone
    resize(browser, PHONE)
    path = play_recorded("skipbo_junior", ["expert", "greedy"], seed=4).save(tmp_path / "r.jsonl")
    browser.get(base + "/#/")
    wait(browser, "CAT !== null && document.querySelector('#upload') !== null")
    browser.find_element(By.ID, "upload").send_keys(str(path))
    wait(browser, "S.kind === 'replay' && S.state && S.state.kind === 'replay'")
    browser.find_element(By.ID, "r-next").click()
    wait(browser, "S.state.step === 1")
    found = axe_violations(browser, source)
    assert found == [], json.dumps(found, indent=1)
    # the game-over screen
    resize(browser, PHONE)
    gid = start(browser, base, "skipbo_junior", ["expert", "greedy"], {"stock_size": "2"}, seed=1)
    wait(browser, "S.state && S.state.over")
    found = axe_violations(browser, source)
    assert found == [], json.dumps(found, indent=1)
    assert tables.live[gid].over


def test_open_a_replay_step_scrub_and_switch_views(server, browser, tmp_path):
    base, tables = server
    resize(browser, LAPTOP)
    rec = play_recorded("skipbo_junior", ["agent", "expert"], seed=4)
    path = rec.save(tmp_path / "agent-vs-expert.jsonl")
    browser.get(base + "/#/")
    wait(browser, "document.querySelector('#upload') !== null && CAT !== null")
    browser.find_element(By.ID, "upload").send_keys(str(path))
    wait(browser, "S.kind === 'replay' && S.state && S.state.kind === 'replay'")
    _, states = replay_states(read_record(path))
    game, rules = cardgym.get_game("skipbo_junior"), rec.raw.rules

    def shown_is(k, seat):
        wait(browser, f"S.state.step === {k} && S.state.viewer === {json.dumps(seat)}")
        v = view(game, states[k], rules, seat)
        want = [(c["id"], c["kind"]) for reg in [r for r in v["players"] if r["seat"] != seat] + [v["table"]] +
                [r for r in v["players"] if r["seat"] == seat] for row in reg["rows"] for p in row
                for c in (p["cards"][-1:] if p["layout"] == "stack" else p["cards"])]
        got = [(cid, kind) for cid, kind, _ in page_cards(browser)]
        assert got == [w for w in want if w[1] != "empty" or not w[0].endswith("#empty")], k

    shown_is(0, None)
    body = browser.find_element(By.TAG_NAME, "body")
    for _ in range(3):
        body.send_keys("\ue014")  # the right arrow: one move forward
    shown_is(3, None)
    n = len(rec.actions)
    browser.execute_script("const s = document.querySelector('#r-scrub'); s.value = arguments[0];"
                           "s.dispatchEvent(new Event('input'));", n // 2)
    shown_is(n // 2, None)
    sel = browser.find_element(By.ID, "seat-select")
    browser.execute_script("arguments[0].value = '0'; arguments[0].dispatchEvent(new Event('change'));", sel)
    shown_is(n // 2, 0)
    assert browser.find_element(By.ID, "r-step").text == f"move {n // 2} / {n}"
    check_screenshot(browser, "replay", tmp_path)
    browser.find_element(By.ID, "r-last").click()
    shown_is(n, 0)
    assert browser.find_element(By.ID, "result").is_displayed()
    assert "Game over." in browser.find_element(By.ID, "result").text
    # the same replay on a phone: one column, nothing wider than the screen, the last move told
    resize(browser, PHONE)
    browser.find_element(By.ID, "r-prev").click()
    shown_is(n - 1, 0)
    no_overflow(browser)
    assert browser.find_element(By.ID, "last-move").text.startswith("Last move: player_")
    assert browser.find_elements(By.CSS_SELECTOR, "#table-area .card.moved, #table-area .card.from")
    # ... its buttons on the screen without scrolling (fixed at its bottom), the table's top in sight too
    browser.execute_script("window.scrollTo(0, 0)")
    bar = browser.execute_script("const r = document.querySelector('#replay-bar').getBoundingClientRect();"
                                 "return [r.top, r.bottom, window.innerHeight];")
    assert 0 < bar[0] and bar[1] <= bar[2], bar
    check_screenshot(browser, "phone-replay", tmp_path)
    assert "(you)" not in browser.find_element(By.ID, "board").text  # a replay has no "you"


def test_watch_agent_against_expert_with_its_probabilities(server, browser, tmp_path):
    base, tables = server
    resize(browser, PHONE)
    browser.get(base + "/#/")
    browser.refresh()
    wait(browser, "document.querySelectorAll('#watch-list button').length > 0")
    no_overflow(browser)
    browser.find_element(By.ID, "f-pace").send_keys("0.05")  # the form's pace reaches the game
    # the Watch panel's one-click game: Skip-Bo, agent vs expert
    next(b for b in browser.find_elements(By.CSS_SELECTOR, "#watch-list button")
         if b.text == "Skip-Bo: agent vs expert").click()
    wait(browser, "S.state && S.state.kind === 'live' && !S.token")
    gid = browser.execute_script("return S.id")
    t = tables.live[gid]
    assert t.pace == 0.05
    browser.execute_script("const s = document.querySelector('#seat-select'); s.value = '0';"
                           "s.dispatchEvent(new Event('change'));")
    wait(browser, "S.state.viewer === 0 && S.state.log.filter(e => e.policy).length >= 3")
    assert browser.find_elements(By.CSS_SELECTOR, "#log .policy .bar-p")
    assert "(you)" not in browser.find_element(By.ID, "board").text  # a spectator of seat 0 is not "you"
    assert "value" in browser.find_element(By.CSS_SELECTOR, "#log .policy").text
    no_overflow(browser)
    resize(browser, LAPTOP)
    check_screenshot(browser, "watch", tmp_path)
    browser.execute_script("const s = document.querySelector('#seat-select'); s.value = 'table';"
                           "s.dispatchEvent(new Event('change'));")
    wait(browser, "S.state.viewer === null")
    assert not browser.find_elements(By.CSS_SELECTOR, "#log .policy")  # not in another seat's view
    assert all(kind in ("back", "empty") for cid, kind, _ in page_cards(browser) if ".hand#" in cid)


def test_a_replay_shows_a_text_players_answers_beside_its_moves(server, browser, tmp_path):
    """A record with a text player's telemetry: each of its moves in the log has its answers beside it,
    the rethought ones too (first a refusal, then a legal id)."""
    import importlib
    import re

    from cardgym.agents.text import TextPlayer
    from cardgym.eval.text_games import play_one
    from cardgym.app.game_records import GameRecorder

    base, tables = server
    resize(browser, PHONE)
    spec = cardgym.get_game("skipbo_junior")
    asked = []

    def ask(prompt):
        asked.append(prompt)
        if "rethink" in prompt.lower() or len(asked) % 2 == 0:
            part = prompt.split("# Your legal moves (id: move)", 1)[1]
            return re.search(r"^(\d+): ", part, re.M).group(1)
        return "I would rather not say."

    player = TextPlayer(spec, spec.make_rules(num_players=2), ask, name="text:scripted")
    raw = importlib.import_module(cardgym.GAMES["skipbo_junior"].module).raw_env()
    rec = GameRecorder(raw, [player.record_entry(), "greedy"])
    play_one(raw, [player, "greedy"], seed=3, recorder=rec)
    path = tmp_path / "text-vs-greedy.jsonl"
    path.write_text(rec.text())
    mine = [a for a in rec.actions if a["seat"] == 0]
    assert mine and all("telemetry" in a for a in mine)
    browser.get(base + "/#/")
    wait(browser, "document.querySelector('#upload') !== null && CAT !== null")
    browser.find_element(By.ID, "upload").send_keys(str(path))
    wait(browser, "S.kind === 'replay' && S.state && S.state.kind === 'replay'")
    boxes = browser.find_elements(By.CSS_SELECTOR, "#log details.answer")
    assert len(boxes) == len(mine)
    for box, a in zip(boxes, mine):
        tel = a["telemetry"]
        summary = box.find_element(By.TAG_NAME, "summary").text
        assert summary.startswith(f"the model's answer ({tel['attempts']} answer"), summary
        quotes = box.find_elements(By.TAG_NAME, "blockquote")
        assert [q.get_attribute("textContent") for q in quotes] == [str(x) for x in tel["answers"]]
    assert any(a["telemetry"]["attempts"] == 2 for a in mine)
    no_overflow(browser)
    browser.execute_script("const d = document.querySelector('#log details.answer'); d.open = true;"
                           "d.scrollIntoView();")
    check_screenshot(browser, "phone-answers", tmp_path, min_cards=0)


def test_forty_games_started_and_left_from_fresh_pages(server, browser):
    """Every page has its own id from its first request on, and a game its page leaves ends: 40 games
    started from fresh pages and left (by the front-page link, by New game, by loading another page) are
    all accepted, more than the server's bound of games in progress, and another browser (its own page
    id) is never refused meanwhile."""
    import urllib.request

    from cardgym.web.tables import GRACE

    base, tables = server
    resize(browser, LAPTOP)
    started, pages = [], []

    def other_browser():
        req = urllib.request.Request(base + "/api/games", method="POST", headers={
            "Content-Type": "application/json", "X-Page": "another-browser"},
            data=json.dumps({"game": "skyjo", "num_players": 2, "seats": ["person", "expert"]}).encode())
        with urllib.request.urlopen(req) as r:  # raises on a refusal (429)
            g = json.loads(r.read())
        tables.live[g["id"]].end("the test's other browser left")

    k = 0
    while len(started) < 40:
        browser.get("about:blank")  # so that start() loads a fresh page (not only a new #fragment)
        gid = start(browser, base, "skyjo", ["person", "expert"], seed=k)
        started.append(gid)
        assert browser.execute_script("return document.querySelector('#msg').textContent") == ""
        pages.append(tables.live[gid].client[1])  # the page's own id, sent with its first request
        how = k % 3
        if how == 0:  # the front-page link
            browser.find_element(By.CSS_SELECTOR, "a.brand").click()
            wait(browser, "!document.querySelector('#home').hidden")
        elif how == 1:  # New game: another game from this page, the first one left
            browser.find_element(By.ID, "new-same").click()
            wait(browser, f"S.state && S.state.id && S.state.id !== {json.dumps(gid)}")
            started.append(browser.execute_script("return S.id"))
        # how == 2: the next page load: this one goes away (its game ends GRACE s later)
        if k % 10 == 9:
            other_browser()
        k += 1
    assert len(set(started)) == len(started) >= 40 > tables.max_games
    assert all(pages) and len(set(pages)) == len(pages), pages
    time.sleep(GRACE + 0.5)
    browser.get(base + "/#/")
    wait(browser, "document.querySelector('#f-game').options.length > 0")
    ended = [tables.live[g].stopped for g in started[:-1]]
    assert all("left" in e or "closed" in e for e in ended), ended
    other_browser()


def test_a_stopped_game_says_why_and_a_target_outline_wins(server, browser, tmp_path):
    """A game ended before its end (here: its page left, as the server says) shows the game-over box
    with the reason; the record is offered once; a place a card can go keeps its outline on a pile that
    just lost a card."""
    base, tables = server
    for name, size in (("phone", PHONE), ("laptop", (1280, 800))):
        resize(browser, size)
        browser.get("about:blank")
        gid = start(browser, base, "skyjo", ["person", "expert"], seed=7)
        # a round's end is announced with its scores (in the status line, read out by screen readers)
        browser.execute_script("show(Object.assign({}, S.state, {log: [], log_from: S.state.step,"
                               " last_round: {round: 1, step: 40, scores: [12, 30], totals: [12, 30]}}))")
        assert browser.find_element(By.ID, "msg").text == \
            "Round 1 is over: player_0 (you) 12, player_1 (expert) 30; totals 12, 30"
        tables.live[gid].end("the game was ended: player_0 left")
        browser.execute_script("refresh()")
        wait(browser, "!document.querySelector('#result').hidden")
        text = browser.find_element(By.ID, "result").text
        assert "Game over: the game was ended: player_0 left" in text and "Download the record" in text
        assert browser.execute_script("return document.querySelector('#download').hidden")
        assert "to play" not in browser.find_element(By.ID, "table-area").text  # nobody is to play any more
        no_overflow(browser)
        check_screenshot(browser, f"stopped-{name}", tmp_path)
    style = browser.execute_script(
        "const d = document.createElement('div'); d.className = 'card target from';"
        "document.querySelector('#table-area').appendChild(d); const s = getComputedStyle(d).outlineStyle;"
        "d.remove(); return s;")
    assert style == "dashed"


def test_the_last_move_reads_in_the_past_and_stays_on_a_phones_screen(server, browser, tmp_path):
    """Every move text of every game is told in the last-move line in one tense (the past: no clause starts
    with a verb in the imperative), and on a phone that line stays on the screen while the table scrolls."""
    base, tables = server
    texts = set()
    for game, rules in (("skyjo", {"max_rounds": "1"}), ("skipbo", {"stock_size": "3"}),
                        ("skipbo_junior", {"stock_size": "3"})):
        for seed in range(2):
            gid = tables.create({"game": game, "num_players": 2, "seats": ["random", "greedy"], "rules": rules,
                                 "seed": seed})["id"]
            g = tables.live[gid]
            deadline = time.time() + 60
            while not g.over and time.time() < deadline:
                g.advance()
                time.sleep(0.001)
            assert g.over, (game, seed, len(g.log))
            texts.update(e["text"] for e in g.log)
            del tables.live[gid]
    texts.add("end turn")
    resize(browser, PHONE)
    start(browser, base, "skipbo", ["expert", "person", "greedy", "greedy"], {"stock_size": "3"}, seed=5)
    assert my_turn(browser) == "turn"
    bad = browser.execute_script(
        "const verbs = new Set(Object.keys(PAST).filter(k => PAST[k] !== k)); const bad = [];"
        "for (const t of arguments[0]) { const p = told(t);"
        "  if (p === null) { bad.push([t, 'not told']); continue; }"
        "  for (const c of p.split(/, |; | and | then /)) if (verbs.has(c.split(' ')[0])) { bad.push([t, p]); break; } }"
        "return bad;", sorted(texts))
    assert bad == [], bad[:5]
    assert len(texts) > 20, sorted(texts)
    # on a phone: the last move at the top of the screen with one's own seat scrolled into view under it
    for _ in range(6):  # moves until the expert has moved since this page's last move
        if browser.execute_script("return !document.querySelector('#last-move').hidden && S.lastLine.includes('expert')"):
            break
        browser.find_element(By.CSS_SELECTOR, "#actions button").click()
        assert my_turn(browser) == "turn"
    line = browser.execute_script("return document.querySelector('#last-move').textContent")
    assert line.startswith("Last move: player_") and "(expert) " in line, line
    got = browser.execute_script(
        "const mine = document.querySelector('#table-area .region.you');"
        "window.scrollBy(0, mine.getBoundingClientRect().top - window.innerHeight / 3);"
        "const lm = document.querySelector('#last-move').getBoundingClientRect();"
        "const cards = [...mine.querySelectorAll('.card')].filter(c => { const r = c.getBoundingClientRect();"
        "  const e = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2); return e && e.closest('#last-move'); });"
        "return [window.scrollY, lm.top, lm.bottom, window.innerHeight, cards.length];")
    scrolled, top, bottom, height, covered = got
    assert scrolled > 150 and abs(top) < 1 and bottom <= height / 4, got  # (its place on the page is above)
    assert covered == 0, got
    check_screenshot(browser, "phone-last-move-sticky", tmp_path)
    # a card reached with Tab from further down is scrolled to below the line, not under it
    got = browser.execute_script(
        "window.scrollTo(0, document.documentElement.scrollHeight);"
        "const c = document.querySelector('#table-area .region.you .card[tabindex]'); c.focus();"
        "return [document.activeElement === c, c.getBoundingClientRect().top,"
        "  document.querySelector('#last-move').getBoundingClientRect().bottom];")
    assert got[0] and got[1] >= got[2], got
    resize(browser, (1280, 800))
    check_screenshot(browser, "last-move-1280x800", tmp_path)
