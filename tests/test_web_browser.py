"""cardgym serve in a real browser: headless Chromium (Debian's chromium and chromium-driver) driven by
selenium plays by clicking the cards, opens a replay, and saves screenshots checked to be the table.

Set CARDGYM_SCREENSHOTS=DIR to keep the screenshots (docs/img/web-*.png are made this way)."""

from __future__ import annotations

import json
import os
import shutil
import socket
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
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

import cardgym  # noqa: E402
from cardgym.game_records import play_recorded, read_record, replay_states  # noqa: E402
from cardgym.render.view import view  # noqa: E402
from cardgym.web.app import create_app  # noqa: E402
from cardgym.web.tables import Tables  # noqa: E402

CHROMIUM = os.environ.get("CARDGYM_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CARDGYM_CHROMEDRIVER", "/usr/bin/chromedriver")
SIZE = (1400, 950)

pytestmark = pytest.mark.skipif(
    not (shutil.which(CHROMIUM) and shutil.which(CHROMEDRIVER)),
    reason=f"no headless Chromium here ({CHROMIUM}, {CHROMEDRIVER}): apt-get install chromium chromium-driver",
)


@pytest.fixture(scope="module")
def server():
    tables = Tables(pace=0.0)
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
              f"--window-size={SIZE[0]},{SIZE[1]}", "--hide-scrollbars"):
        opts.add_argument(a)
    drv = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    drv.set_window_size(*SIZE)
    yield drv
    drv.quit()


def wait(drv, js, timeout=10):
    """Wait until the JS expression is truthy; returns its value."""
    return WebDriverWait(drv, timeout, poll_frequency=0.02).until(lambda d: d.execute_script(f"return {js}"))


def start(drv, base, game, seats, rules=None, seed=None):
    """Fill the new-game form of the front page and press Start (as a person would)."""
    drv.get(base + "/#/")
    wait(drv, "document.querySelector('#f-game').options.length > 0")
    drv.execute_script(
        "const [g, n, seats, rules, seed] = arguments;"
        "const f = document.querySelector('#f-game'); f.value = g; f.dispatchEvent(new Event('change'));"
        "const p = document.querySelector('#f-players'); p.value = n; p.dispatchEvent(new Event('change'));"
        "seats.forEach((s, i) => { document.querySelector('#f-seat-' + i).value = s; });"
        "for (const [k, v] of Object.entries(rules)) document.querySelector(`#f-options input[name=${k}]`).value = v;"
        "document.querySelector('#f-seed').value = seed === null ? '' : seed;"
        "document.querySelector('#f-pace').value = 0;",
        game, len(seats), seats, rules or {}, seed)
    drv.find_element(By.ID, "f-start").click()
    wait(drv, "location.hash.startsWith('#/game/') && S.state && S.state.id === location.hash.split('/')[2]")
    return drv.execute_script("return S.id")


def element_for(drv, ref):
    """The DOM card a person clicks for a view id (a card, a value id or a pile's top card)."""
    found = drv.execute_script(
        "const r = arguments[0];"
        "return document.querySelector(`#table-area [data-card=\"${r}\"]`)"
        " || document.querySelector(`#table-area [data-key=\"${r}\"]`)"
        " || [...document.querySelectorAll(`#table-area .pile[data-pile=\"${r}\"] .card`)].pop();", ref)
    assert found is not None, f"nothing to click for {ref!r} on the page"
    return found


def my_turn(drv):
    return wait(drv, "(S.state && !S.busy && (S.state.over || (S.state.to_act === S.state.viewer && "
                     "S.state.view.legal.length > 0))) ? (S.state.over ? 'over' : 'turn') : false")


def click_move(drv, choose):
    """Make one move by clicking: ``choose(legal)`` picks an action of the page's legal list; its cards are
    clicked in order (a move without cards through its button in the list)."""
    legal = drv.execute_script("return S.state.view.legal")
    step = drv.execute_script("return S.state.step")
    a = choose(legal)
    if a["refs"]:
        for ref in a["refs"]:
            element_for(drv, ref).click()
    else:
        drv.find_element(By.CSS_SELECTOR, f"#actions button[data-action='{a['action']}']").click()
    wait(drv, f"S.state && S.state.step > {step} && !S.busy")
    return a


def check_screenshot(drv, name, tmp_path):
    from PIL import Image

    out = Path(os.environ.get("CARDGYM_SCREENSHOTS", tmp_path))
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"web-{name}.png"
    drv.save_screenshot(str(path))
    with Image.open(path) as im:
        px = np.asarray(im.convert("RGB"))
    h, w = px.shape[:2]
    assert [w, h] == drv.execute_script("return [window.innerWidth, window.innerHeight]") and w >= 1000, (w, h)
    assert px.std() > 20, "a blank screenshot"
    felt = np.all(np.abs(px.astype(int) - (20, 92, 56)) < 12, axis=-1).mean()
    assert 0.05 < felt < 0.95, f"the felt covers {felt:.0%} of the screenshot: not the table"
    assert len(drv.find_elements(By.CSS_SELECTOR, "#table-area .card")) >= 8
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


def test_a_whole_skyjo_game_against_expert_by_clicking(server, browser, tmp_path):
    base, tables = server
    gid = start(browser, base, "skyjo", ["person", "expert"], {"max_rounds": "1"}, seed=12)
    moves = 0
    rng = np.random.default_rng(0)
    while my_turn(browser) == "turn":
        if moves == 3:
            check_screenshot(browser, "skyjo", tmp_path)
            hidden_values_absent(browser, tables, gid, 0)
        click_move(browser, lambda legal: legal[int(rng.integers(len(legal)))])
        moves += 1
    assert moves > 10
    assert browser.find_element(By.ID, "result").is_displayed()
    t = tables.live[gid]
    assert int(t.env.record["status"]) != 0 and sum(e["seat"] == 0 for e in t.log) == moves
    assert "wins" in browser.find_element(By.ID, "result").text or "won" in browser.find_element(By.ID, "result").text
    assert browser.find_element(By.ID, "download").is_displayed()
    # a new game with one click, same seats and rules
    browser.find_element(By.ID, "new-same").click()
    wait(browser, f"S.state && S.state.id !== '{gid}' && S.state.step === 0")
    assert browser.execute_script("return S.state.game") == "skyjo"


def test_a_skipbo_turn_that_plays_a_wild(server, browser, tmp_path):
    base, tables = server
    gid = start(browser, base, "skipbo", ["person", "expert"], seed=3)  # seed 3: a SKIP-BO in the first hand
    assert my_turn(browser) == "turn"
    wild = browser.find_element(By.CSS_SELECTOR, "#table-area [data-key='p0.hand=W']")
    assert "SKIP" in wild.text
    wild.click()
    assert browser.execute_script("return S.sel.length") == 1
    assert browser.find_elements(By.CSS_SELECTOR, "#table-area .target")  # where it can go is lit
    check_screenshot(browser, "skipbo", tmp_path)
    element_for(browser, "table.B2").click()
    wait(browser, "S.state.step === 1")
    t = tables.live[gid]
    assert int(t.env.record["bcounts"][2]) == 1 and "SKIP-BO" in t.log[0]["text"]
    hidden_values_absent(browser, tables, gid, 0)
    # end the turn by discarding: a hand card, then a discard pile
    click_move(browser, lambda legal: next(a for a in legal if a["refs"] and ".D" in a["refs"][-1]))
    wait(browser, "S.state.to_act === 0 || S.state.over")
    assert any(e["seat"] == 1 for e in tables.live[gid].log)  # the expert played its turn


def test_a_junior_game_by_clicking(server, browser, tmp_path):
    base, tables = server
    gid = start(browser, base, "skipbo_junior", ["person", "greedy"], {"stock_size": "4"}, seed=2)
    moves = 0
    shot = False
    while my_turn(browser) == "turn":
        if not shot and browser.execute_script("return S.state.view.legal.some(a => a.refs.length)"):
            check_screenshot(browser, "skipbo_junior", tmp_path)
            shot = True
        # play onto a build pile when possible (cards clicked), else end the turn (the button)
        click_move(browser, lambda legal: next((a for a in legal if a["refs"]), legal[0]))
        moves += 1
    assert moves > 3 and shot
    assert int(tables.live[gid].env.record["status"]) != 0
    assert browser.find_element(By.ID, "result").is_displayed()


def test_open_a_replay_step_scrub_and_switch_views(server, browser, tmp_path):
    base, tables = server
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
                for c in (p["cards"][-1:] if p["layout"] == "stack" else p["cards"][-7:] if len(p["cards"]) > 8 else p["cards"])]
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


def test_watch_agent_against_expert_with_its_probabilities(server, browser, tmp_path):
    base, tables = server
    browser.get(base + "/#/")
    wait(browser, "document.querySelectorAll('#watch-list button').length > 0")
    # the Watch panel's one-click game: Skip-Bo, agent vs expert
    next(b for b in browser.find_elements(By.CSS_SELECTOR, "#watch-list button")
         if b.text == "Skip-Bo: agent vs expert").click()
    wait(browser, "S.state && S.state.kind === 'live' && !S.token")
    gid = browser.execute_script("return S.id")
    t = tables.live[gid]
    t.pace = 0.05  # the panel's pace is the form's; keep the test short
    browser.execute_script("const s = document.querySelector('#seat-select'); s.value = '0';"
                           "s.dispatchEvent(new Event('change'));")
    wait(browser, "S.state.viewer === 0 && S.state.log.filter(e => e.policy).length >= 3")
    assert browser.find_elements(By.CSS_SELECTOR, "#log .policy .bar-p")
    assert "value" in browser.find_element(By.CSS_SELECTOR, "#log .policy").text
    check_screenshot(browser, "watch", tmp_path)
    browser.execute_script("const s = document.querySelector('#seat-select'); s.value = 'table';"
                           "s.dispatchEvent(new Event('change'));")
    wait(browser, "S.state.viewer === null")
    assert not browser.find_elements(By.CSS_SELECTOR, "#log .policy")  # not in another seat's view
    assert all(kind in ("back", "empty") for cid, kind, _ in page_cards(browser) if ".hand#" in cid)
