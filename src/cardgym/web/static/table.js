// cardgym's web table: plain JS, no build step. The page draws what the server sends (a seat's view,
// cardgym.render.view) and sends back action ids; it never holds a card the seat cannot see.
"use strict";

const $ = (s) => document.querySelector(s);
const KEYS = "1234567890abcdefghijklmopqrstuvwxyz".split("");  // action keys (n is left out)
let CAT = null;   // /api/games: the games
const PAGE = Math.random().toString(36).slice(2) + Date.now().toString(36);  // this tab, this load
const S = { kind: null, id: null, token: null, seat: null, watch: null, state: null, sel: [], timer: null,
            step: 0, playing: null, busy: false };

function say(text, ok) {
  const m = $("#msg");
  m.textContent = text || "";
  m.className = ok ? "ok" : "";
}

async function api(method, url, body, headers) {
  const opts = { method, headers: Object.assign({}, headers || {}) };
  if (S.token) { opts.headers["X-Seat-Token"] = S.token; opts.headers["X-Page"] = PAGE; }
  if (body !== undefined) {
    opts.body = typeof body === "string" ? body : JSON.stringify(body);
    opts.headers["Content-Type"] = typeof body === "string" ? "text/plain" : "application/json";
  }
  const r = await fetch(url, opts);
  let data = null;
  try { data = await r.json(); } catch (e) { data = { error: `${r.status} ${r.statusText}` }; }
  if (!r.ok) throw new Error(data.error || `${r.status} ${r.statusText}`);
  return data;
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = text;
  return e;
}

// ------------------------------------------------------------------------------------------ home
function seatChoices(g, n) {
  const out = [["person", "person (you)"]];
  for (const b of g.bots) out.push([b, `bot: ${b}`]);
  if (g.agents.includes(n)) out.push(["agent", "agent (shipped, trained)"]);
  for (const m of g.models) out.push([m, `model: ${m}`]);
  return out;
}

function fillSeats() {
  const g = CAT.games.find((x) => x.name === $("#f-game").value);
  const n = +$("#f-players").value;
  const box = $("#f-seats");
  const old = [...box.querySelectorAll("select")].map((s) => s.value);
  box.innerHTML = "";
  const choices = seatChoices(g, n);
  for (let i = 0; i < n; i++) {
    const lab = el("label", null, `player_${i} `);
    const sel = el("select");
    sel.id = `f-seat-${i}`;
    for (const [v, t] of choices) { const o = el("option", null, t); o.value = v; sel.appendChild(o); }
    const want = old[i] || (i === 0 ? "person" : (g.bots.includes("expert") ? "expert" : g.bots[0]));
    sel.value = choices.some(([v]) => v === want) ? want : choices[1][0];
    lab.appendChild(sel);
    box.appendChild(lab);
  }
}

function fillGame() {
  const g = CAT.games.find((x) => x.name === $("#f-game").value);
  const p = $("#f-players");
  p.innerHTML = "";
  for (let n = g.min_players; n <= g.max_players; n++) { const o = el("option", null, n); o.value = n; p.appendChild(o); }
  p.value = g.min_players;
  const box = $("#f-options");
  box.innerHTML = "";
  for (const o of g.options) {
    const lab = el("label");
    lab.title = o.help;
    lab.appendChild(el("span", null, o.flag));
    const inp = el("input");
    inp.name = o.name; inp.placeholder = o.default; inp.dataset.rule = o.name;
    lab.appendChild(inp);
    box.appendChild(lab);
  }
  fillSeats();
}

function gameConfig() {
  const n = +$("#f-players").value;
  const rules = {};
  for (const inp of document.querySelectorAll("#f-options input")) if (inp.value.trim()) rules[inp.dataset.rule] = inp.value.trim();
  const cfg = { game: $("#f-game").value, num_players: n, rules,
                seats: [...Array(n).keys()].map((i) => $(`#f-seat-${i}`).value) };
  const pace = $("#f-pace").value;
  if (pace !== "") cfg.pace = +pace;
  const seed = $("#f-seed").value;
  if (seed !== "") cfg.seed = +seed;
  return cfg;
}

async function startGame(cfg) {
  try {
    const r = await api("POST", "/api/games", cfg);
    if (r.token) sessionStorage.setItem(`tok:${r.id}`, JSON.stringify({ token: r.token, seat: r.seat }));
    const again = Object.assign({}, cfg);
    delete again.seed;
    sessionStorage.setItem(`cfg:${r.id}`, JSON.stringify(again));
    location.hash = `#/game/${r.id}`;
  } catch (e) { say(e.message); }
}

async function showHome() {
  $("#home").hidden = false; $("#play").hidden = true;
  $("#where").textContent = "";
  const data = await api("GET", "/api/games");
  CAT = data;
  const sel = $("#f-game");
  if (!sel.options.length) {
    for (const g of data.games) { const o = el("option", null, g.title); o.value = g.name; sel.appendChild(o); }
    fillGame();
  }
  const cards = $("#game-cards");
  cards.innerHTML = "";
  for (const g of data.games) {
    const li = el("li");
    li.appendChild(el("b", null, g.title));
    li.appendChild(document.createTextNode(` (${g.name}): ${g.min_players}-${g.max_players} players; bots ${g.bots.join(", ")}` +
      (g.agents.length ? `; shipped agent for ${g.agents.join(", ")} players` : "")));
    cards.appendChild(li);
  }
  const watch = $("#watch-list");
  watch.innerHTML = "";
  for (const g of data.games) {
    const pairs = [];
    if (g.agents.includes(2) && g.bots.includes("expert")) pairs.push(["agent", "expert"]);
    if (g.bots.includes("expert")) pairs.push(["expert", g.bots.includes("greedy") ? "greedy" : g.bots[0]]);
    else pairs.push([g.bots[0], g.bots[g.bots.length - 1]]);
    for (const [a, b] of pairs) {
      const btn = el("button", null, `${g.title}: ${a} vs ${b}`);
      btn.onclick = () => startGame({ game: g.name, num_players: 2, seats: [a, b], rules: {}, pace: +$("#f-pace").value || 0.7 });
      watch.appendChild(btn);
    }
  }
  const recs = $("#record-list");
  recs.innerHTML = "";
  for (const r of data.records) {
    const li = el("li");
    const a = el("a", null, `${r.name}: ${r.title}, ${r.steps} moves`);
    a.href = `#/record/${r.id}`;
    li.appendChild(a);
    recs.appendChild(li);
  }
  if (!data.records.length) recs.appendChild(el("li", null, "none open: upload one, or start cardgym serve --record FILE"));
}

// ----------------------------------------------------------------------------------- drawing
function palette(game) {
  return CAT.games.find((g) => g.name === game).palette;
}

function cardEl(c, pal) {
  const d = el("div", `card ${c.kind}`);
  d.dataset.card = c.id;
  if (c.kind === "back") d.style.backgroundColor = pal.back;
  if (c.kind === "value" || c.kind === "wild") {
    const band = pal.bands[c.band];
    if (band.ink === null) {  // an "ink" band: a white card, coloured number and frame
      d.style.background = "var(--face)"; d.style.color = band.fill; d.style.borderColor = band.fill;
    } else {
      d.style.background = band.fill; d.style.color = band.ink;
    }
    d.appendChild(el("span", "corner", c.label));
    if (c.kind === "wild") {
      const big = el("span", "big");
      const lab = pal.wild_label;
      const cut = lab.indexOf("-");
      big.innerHTML = "";
      if (cut > 0) { big.appendChild(document.createTextNode(lab.slice(0, cut))); big.appendChild(el("br")); big.appendChild(document.createTextNode(lab.slice(cut))); }
      else big.textContent = pal.wild_short;
      d.appendChild(big);
    } else d.appendChild(el("span", "big", c.label));
  }
  if (c.highlight) d.classList.add("hl");
  return d;
}

function pileEl(p, pal) {
  const box = el("div", `pile ${p.layout}`);
  box.dataset.pile = p.id;
  const cards = el("div", "cards");
  let shown = p.cards;
  if (p.layout === "stack") shown = p.cards.length ? [p.cards[p.cards.length - 1]] : [];
  if (p.layout === "fan" && shown.length > 8) {
    cards.appendChild(el("div", "more", `+${shown.length - 7}`));
    shown = shown.slice(shown.length - 7);
  }
  if (!shown.length) {
    box.classList.add("empty-pile");
    cards.appendChild(cardEl({ id: `${p.id}#empty`, kind: "empty" }, pal));
  }
  for (const c of shown) {
    const ce = cardEl(c, pal);
    ce.dataset.pile = p.id;
    if (c.kind === "value" || c.kind === "wild") ce.dataset.key = `${p.id}=${c.kind === "wild" ? "W" : c.text}`;
    cards.appendChild(ce);
  }
  if (p.layout === "stack" && p.count > 1) {
    box.classList.add("deep");
    cards.style.setProperty("--edge", p.cards.length && p.cards[p.cards.length - 1].kind === "back" ? pal.back : "#d7d4c8");
    cards.appendChild(el("span", "badge", p.count));
  }
  box.appendChild(cards);
  const cap = [p.label, p.layout === "stack" ? "" : p.note].filter(Boolean).join(" ");
  if (cap) box.appendChild(el("div", "caption", cap));
  return box;
}

function regionEl(r, pal) {
  const box = el("section", "region");
  box.dataset.region = r.id;
  if (r.active) box.classList.add("active");
  if (r.you) box.classList.add("you");
  if (r.team !== null && r.team !== undefined) box.classList.add(`team${r.team}`);
  box.appendChild(el("h4", null, r.title));
  for (const line of r.lines) box.appendChild(el("div", "rline", line));
  for (const row of r.rows) {
    const re = el("div", "row");
    for (const p of row) re.appendChild(pileEl(p, pal));
    box.appendChild(re);
  }
  return box;
}

function drawTable(st) {
  const v = st.view;
  const pal = palette(st.game);
  const status = $("#status");
  status.innerHTML = "";
  status.appendChild(el("span", "title", v.title));
  for (const l of v.lines) status.appendChild(el("span", "line", l));
  const area = $("#table-area");
  area.innerHTML = "";
  // the other seats, the shared table, then the viewer's own seat, wrapping as the width allows
  const all = el("div", "players");
  for (const r of v.players) if (v.viewer !== r.seat) all.appendChild(regionEl(r, pal));
  const t = regionEl(v.table, pal);
  t.classList.add("shared");
  all.appendChild(t);
  for (const r of v.players) if (v.viewer === r.seat) all.appendChild(regionEl(r, pal));
  area.appendChild(all);
  const res = $("#result");
  if (v.result) {
    res.hidden = false;
    res.innerHTML = "";
    const w = v.result.winners || [];
    let head = w.length ? `${w.map((i) => `player_${i}`).join(", ")} ${w.length > 1 ? "win" : "wins"}` : "No winner (a draw)";
    if (v.viewer !== null && w.includes(v.viewer)) head = "You won!";
    else if (v.viewer !== null && w.length && S.kind === "live" && S.token) head = `You lost: ${head}`;
    res.appendChild(el("b", null, head));
    const nums = Object.entries(v.result).filter(([k, x]) => k !== "winners" && (typeof x !== "object" || Array.isArray(x)));
    res.appendChild(el("div", null, nums.map(([k, x]) => `${k}: ${Array.isArray(x) ? x.join(" / ") : x}`).join("   ")));
  } else res.hidden = true;
}

function drawLog(st, upto) {
  const log = $("#log");
  log.innerHTML = "";
  const names = (st.seats || []).map((s) => s.name);
  st.log.forEach((e, i) => {
    const li = el("li", e.seat === st.view.viewer ? "mine" : "");
    li.value = i + 1;
    if (upto !== undefined) { if (i >= upto) li.style.opacity = 0.45; if (i === upto - 1) li.classList.add("now"); }
    const who = `player_${e.seat}` + (names[e.seat] ? ` (${names[e.seat]})` : "");
    li.appendChild(document.createTextNode(`${who}: ${e.text}`));
    if (e.policy) {
      const pol = el("div", "policy");
      pol.appendChild(el("div", null, `value ${e.policy.value >= 0 ? "+" : ""}${e.policy.value.toFixed(3)}`));
      for (const t of e.policy.top) {
        const row = el("div");
        const bar = el("span", "bar-p");
        bar.style.width = `${Math.round(60 * t.p)}px`;
        row.appendChild(bar);
        row.appendChild(document.createTextNode(`${(100 * t.p).toFixed(1)}% ${t.text}`));
        pol.appendChild(row);
      }
      li.appendChild(pol);
    }
    log.appendChild(li);
  });
  // keep the latest (or, in a replay, the current) move in sight, scrolling the log box only
  const now = log.querySelector(".now") || (upto === undefined ? log.lastElementChild : null);
  const box = $("#log-box");
  if (now) box.scrollTop = Math.max(0, now.offsetTop - box.offsetTop - box.clientHeight / 2);
  else if (upto === 0) box.scrollTop = 0;
}

// ------------------------------------------------------------------------------ clicking cards
function myMoves() {
  const st = S.state;
  if (!st || st.kind !== "live" || !S.token || st.over || st.to_act !== st.viewer) return [];
  return st.view.legal;
}

function matches(ref, d) { return ref === d.card || ref === d.pile || (d.key && ref === d.key); }

function describe(node) {
  return { card: node.dataset.card, pile: node.dataset.pile || node.closest("[data-pile]").dataset.pile, key: node.dataset.key };
}

function candidates() {
  const k = S.sel.length;
  return myMoves().filter((a) => a.refs.length > k && S.sel.every((d, i) => matches(a.refs[i], d)));
}

function mark() {
  const cands = candidates();
  const k = S.sel.length;
  for (const node of document.querySelectorAll("#table-area .card, #table-area .pile")) {
    node.classList.remove("can", "target", "picked", "clickable");
    const d = node.classList.contains("pile") ? { pile: node.dataset.pile } : describe(node);
    if (node.classList.contains("pile") && !node.classList.contains("empty-pile")) {
      // a pile with cards is marked through its top card when an action names the pile itself
      if (cands.some((a) => a.refs[k] === d.pile)) node.classList.add(k ? "target" : "can", "clickable");
      continue;
    }
    if (node.classList.contains("pile")) continue;
    if (S.sel.some((s) => s.card === d.card)) node.classList.add("picked");
    if (cands.some((a) => a.refs[k] === d.card || (d.key && a.refs[k] === d.key) ||
        (node.closest(".empty-pile") && a.refs[k] === d.pile))) node.classList.add(k ? "target" : "can", "clickable");
  }
  const ids = new Set(cands.map((a) => a.action));
  for (const b of document.querySelectorAll("#actions button")) b.classList.toggle("target", k > 0 && ids.has(+b.dataset.action));
}

function clickCard(node) {
  if (!myMoves().length) return;
  const d = describe(node);
  let c = candidates().filter((a) => matches(a.refs[S.sel.length], d));
  if (!c.length && S.sel.length) { S.sel = []; c = candidates().filter((a) => matches(a.refs[0], d)); }
  if (!c.length) { say("no move starts with that card; the lit cards can move (or use the list)"); mark(); return; }
  const done = c.filter((a) => a.refs.length === S.sel.length + 1);
  if (done.length && done.length === c.length) { play(done[0].action); return; }
  S.sel.push(d);
  say(`${c.length} moves: click where it goes (Esc cancels)`, true);
  mark();
}

function drawActions(st) {
  const box = $("#actions");
  box.innerHTML = "";
  $("#moves-h").hidden = box.hidden = st.kind === "replay";
  $("#moves-h").textContent = S.token ? "Your moves" : "Whose turn";
  const moves = myMoves();
  if (!moves.length) {
    let why = "";
    if (st.over) why = "the game is over";
    else if (st.kind === "replay") why = "a replay: step through it with the bar above (arrow keys)";
    else if (!S.token) why = `watching; player_${st.to_act} is to act`;
    else why = `waiting for player_${st.to_act} (${st.seats[st.to_act].name})`;
    box.appendChild(el("li", "rline", why));
    return;
  }
  moves.forEach((a, i) => {
    const li = el("li");
    const b = el("button");
    b.dataset.action = a.action;
    if (i < KEYS.length) b.appendChild(el("kbd", null, KEYS[i]));
    b.appendChild(document.createTextNode(a.text));
    b.onclick = () => play(a.action);
    li.appendChild(b);
    box.appendChild(li);
  });
}

async function play(action) {
  if (S.busy) return;
  S.busy = true;
  S.sel = [];
  try {
    const st = await api("POST", `/api/games/${S.id}/move`, { action, step: S.state.step });
    say("");
    show(st);
  } catch (e) { say(e.message); await refresh(); }
  finally { S.busy = false; }
}

// ---------------------------------------------------------------------------------- the pages
function show(st) {
  // a half-made move (a card picked) survives a refresh that changed nothing
  const same = S.state && S.state.id === st.id && S.state.step === st.step && S.state.viewer === st.viewer;
  S.state = st;
  if (!same) S.sel = [];
  drawTable(st);
  drawActions(st);
  drawLog(st, st.kind === "replay" ? st.step : undefined);
  mark();
  const dl = $("#download");
  dl.hidden = !(st.kind === "live" && st.over);
  if (st.kind === "live") dl.href = `/api/games/${st.id}/record`;
  $("#where").textContent = st.kind === "replay" ? `${st.title}: replay` :
    `${st.title}: ${S.token ? `you are player_${st.viewer}` : "watching"}`;
  const inv = $("#invite");
  const open = st.kind === "live" && S.token ? st.seats.filter((s) => s.kind === "person" && !s.claimed) : [];
  inv.hidden = !open.length;
  inv.innerHTML = "";
  for (const s of open) {
    const a = el("a", null, `player_${s.seat}: ${location.origin}/#/game/${st.id}/seat/${s.seat}`);
    a.href = `#/game/${st.id}/seat/${s.seat}`;
    a.target = "_blank";
    inv.appendChild(el("div", "rline", "Another person's seat, open it in their tab:"));
    inv.appendChild(a);
  }
  clearTimeout(S.timer);
  // ask again: soon while others move; every 3 s on your own turn (the page keeps its seat so)
  if (st.kind === "live" && !st.over) S.timer = setTimeout(refresh, myMoves().length ? 3000 : (st.waiting === "bot" ? 150 : 800));
}

function seatPicker(n, current) {
  const sel = $("#seat-select");
  sel.innerHTML = "";
  const o = el("option", null, "whole table"); o.value = "table"; sel.appendChild(o);
  for (let i = 0; i < n; i++) { const p = el("option", null, `player_${i}'s view`); p.value = i; sel.appendChild(p); }
  sel.value = current === null || current === undefined ? "table" : String(current);
  $("#seat-pick").hidden = false;
}

async function refresh() {
  clearTimeout(S.timer);
  try {
    if (S.kind === "live") {
      const q = S.watch !== null && !S.token ? `?seat=${S.watch}` : "";
      show(await api("GET", `/api/games/${S.id}${q}`));
    } else {
      const q = `?step=${S.step}` + (S.watch !== null ? `&seat=${S.watch}` : "");
      const st = await api("GET", `/api/records/${S.id}${q}`);
      show(st);
      $("#r-scrub").max = st.steps; $("#r-scrub").value = st.step;
      $("#r-step").textContent = `move ${st.step} / ${st.steps}`;
    }
  } catch (e) { say(e.message); }
}

async function openLive(id, claimSeat) {
  Object.assign(S, { kind: "live", id, token: null, seat: null, watch: null, step: 0 });
  const saved = sessionStorage.getItem(`tok:${id}`);
  if (saved && (claimSeat === undefined || JSON.parse(saved).seat === +claimSeat)) Object.assign(S, JSON.parse(saved));
  else if (claimSeat !== undefined) {
    try {
      const r = await api("POST", `/api/games/${id}/claim`, { seat: +claimSeat });
      sessionStorage.setItem(`tok:${id}`, JSON.stringify({ token: r.token, seat: r.seat }));
      Object.assign(S, { token: r.token, seat: r.seat });
    } catch (e) { say(`${e.message} (watching instead)`); }
  }
  $("#replay-bar").hidden = true;
  $("#new-same").hidden = !sessionStorage.getItem(`cfg:${id}`);
  await refresh();
  const st = S.state;
  if (st && !S.token && st.seats.every((s) => s.kind !== "person")) seatPicker(st.seats.length, null);
  else $("#seat-pick").hidden = true;
}

async function openRecord(id) {
  Object.assign(S, { kind: "replay", id, token: null, seat: null, watch: null, step: 0 });
  $("#replay-bar").hidden = false;
  $("#new-same").hidden = true;
  await refresh();
  if (S.state) seatPicker(S.state.seats.length, null);
}

function goStep(k) {
  if (S.kind !== "replay" || !S.state) return;
  S.step = Math.max(0, Math.min(S.state.steps, k));
  refresh();
}

async function route() {
  clearTimeout(S.timer);
  clearInterval(S.playing); S.playing = null;
  say("");
  const h = location.hash.replace(/^#\/?/, "").split("/");
  try {
    if (!CAT) CAT = await api("GET", "/api/games");
    if (h[0] === "game" && h[1]) {
      $("#home").hidden = true; $("#play").hidden = false;
      await openLive(h[1], h[2] === "seat" ? h[3] : undefined);
    } else if (h[0] === "record" && h[1]) {
      $("#home").hidden = true; $("#play").hidden = false;
      await openRecord(h[1]);
    } else await showHome();
  } catch (e) { say(e.message); }
}

function init() {
  $("#f-game").onchange = fillGame;
  $("#f-players").onchange = fillSeats;
  $("#new-game").onsubmit = (ev) => { ev.preventDefault(); startGame(gameConfig()); };
  $("#new-same").onclick = () => { const c = sessionStorage.getItem(`cfg:${S.id}`); if (c) startGame(JSON.parse(c)); };
  $("#seat-select").onchange = (ev) => { S.watch = ev.target.value === "table" ? null : +ev.target.value; refresh(); };
  $("#upload").onchange = async (ev) => {
    const f = ev.target.files[0];
    if (!f) return;
    try {
      const r = await api("POST", `/api/records?name=${encodeURIComponent(f.name)}`, await f.text());
      location.hash = `#/record/${r.id}`;
    } catch (e) { say(e.message); }
    ev.target.value = "";
  };
  $("#r-first").onclick = () => goStep(0);
  $("#r-prev").onclick = () => goStep(S.step - 1);
  $("#r-next").onclick = () => goStep(S.step + 1);
  $("#r-last").onclick = () => goStep(S.state ? S.state.steps : 0);
  $("#r-scrub").oninput = (ev) => goStep(+ev.target.value);
  $("#r-play").onclick = () => {
    if (S.playing) { clearInterval(S.playing); S.playing = null; return; }
    S.playing = setInterval(() => { if (!S.state || S.step >= S.state.steps) { clearInterval(S.playing); S.playing = null; } else goStep(S.step + 1); }, 500);
  };
  $("#table-area").addEventListener("click", (ev) => {
    const node = ev.target.closest(".card");
    if (node) clickCard(node);
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.target.tagName === "INPUT" || ev.target.tagName === "SELECT") return;
    if (ev.key === "Escape") { S.sel = []; mark(); say(""); return; }
    if (S.kind === "replay") {
      const k = { ArrowLeft: S.step - 1, ArrowRight: S.step + 1, Home: 0, End: S.state ? S.state.steps : 0 }[ev.key];
      if (k !== undefined) { ev.preventDefault(); goStep(k); }
      if (ev.key === " ") { ev.preventDefault(); $("#r-play").click(); }
      return;
    }
    const i = KEYS.indexOf(ev.key.toLowerCase());
    const moves = myMoves();
    if (i >= 0 && i < moves.length) { ev.preventDefault(); play(moves[i].action); }
  });
  window.addEventListener("hashchange", route);
  route();
}

init();
