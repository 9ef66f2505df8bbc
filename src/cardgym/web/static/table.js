// cardgym's web table: plain JS, no build step. The page draws what the server sends (a seat's view,
// cardgym.render.view) and sends back action ids; it never holds a card the seat cannot see.
"use strict";

const $ = (s) => document.querySelector(s);
const KEYS = "1234567890abcdefghijklmopqrstuvwxyz".split("");  // action keys (n is left out)
let CAT = null;   // /api/games: the games
const PAGE = Math.random().toString(36).slice(2) + Date.now().toString(36);  // this tab, this load
const S = { kind: null, id: null, token: null, seat: null, watch: null, state: null, sel: [], timer: null,
            step: 0, playing: null, busy: false, prev: null, moved: null, fresh: false, lastLine: "" };

function say(text, ok) {
  const m = $("#msg");
  m.textContent = text || "";
  m.className = ok ? "ok" : "";
}

// a request that takes long (the first game of a kind compiles its kernels): say so, don't stay silent
let PREP = null;
function preparing(text) {
  const b = $("#preparing");
  b.textContent = text || "";
  b.hidden = !text;
}

async function slow(promise, text, after) {
  // shown at once when it already shows (a table still preparing): no gap between two requests
  const t = setTimeout(() => preparing(text), !$("#preparing").hidden ? 0 : after === undefined ? 600 : after);
  try { return await promise; } finally { clearTimeout(t); preparing(""); }
}

function gameTitle(name) {
  const g = CAT && CAT.games.find((x) => x.name === name);
  return g ? g.title : name;
}

function prepText(name) { return `preparing ${gameTitle(name)} (first use in this server: compiling, about 10-40 s)…`; }

// every request says which page it comes from (the server's bounds are per page, not per machine)
function apiOpts(method, headers) {
  const opts = { method, headers: Object.assign({ "X-Page": PAGE }, headers || {}) };
  if (S.token) opts.headers["X-Seat-Token"] = S.token;
  return opts;
}

async function api(method, url, body, headers) {
  const opts = apiOpts(method, headers);
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

// a game picked in the form starts compiling its kernels (and its bots') on the server at once
function prepareGame() {
  const cfg = gameConfig();
  const g = CAT && CAT.games.find((x) => x.name === cfg.game);
  if (!g || g.status === "ready") return;
  api("POST", "/api/prepare", { game: cfg.game, seats: cfg.seats }).then((r) => {
    if (r.status === "ready") g.status = "ready";
  }).catch(() => {});
}

function gameConfig() {
  const n = +$("#f-players").value;
  const rules = {};
  for (const inp of document.querySelectorAll("#f-options input")) if (inp.value.trim()) rules[inp.dataset.rule] = inp.value.trim();
  const cfg = { game: $("#f-game").value, num_players: n, rules,
                seats: [...Array(n).keys()].map((i) => $(`#f-seat-${i}`).value) };
  const pace = paceValue();
  if (pace !== undefined) cfg.pace = pace;
  const seed = $("#f-seed").value;
  if (seed !== "") cfg.seed = +seed;
  return cfg;
}

// the form's pace; empty: the server's own default (cardgym serve --pace)
function paceValue() {
  const v = $("#f-pace").value.trim();
  return v === "" ? undefined : +v;
}

// the games this page started (a bots-only one ends when its page leaves it)
const STARTED = new Set();

// leaving a game from the page ends it (its slot is freed at once); a page going away (closed, reloaded)
// ends it a few seconds later unless it comes back
function leaveGame(soon) {
  const st = S.state;
  if (S.kind !== "live" || !S.id || !st || st.id !== S.id || st.over || !(S.token || STARTED.has(S.id))) return;
  const opts = apiOpts("POST", { "Content-Type": "application/json" });
  opts.body = JSON.stringify({ soon });
  opts.keepalive = true;
  fetch(`/api/games/${S.id}/leave`, opts).catch(() => {});
}

async function startGame(cfg) {
  try {
    const r = await slow(api("POST", "/api/games", cfg), prepText(cfg.game));
    STARTED.add(r.id);
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
    const pace = $("#f-pace");
    if (typeof data.pace === "number") pace.value = data.pace;  // the server's --pace, where it tells it
    else pace.placeholder = "server default";
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
      btn.onclick = () => {
        const cfg = { game: g.name, num_players: 2, seats: [a, b], rules: {} };
        const pace = paceValue();
        if (pace !== undefined) cfg.pace = pace;
        startGame(cfg);
      };
      watch.appendChild(btn);
    }
  }
  const recs = $("#record-list");
  recs.innerHTML = "";
  for (const r of data.records) {
    const li = el("li");
    const a = el("a", null, `${r.name}: ${r.title}, ${r.steps} move${r.steps === 1 ? "" : "s"}`);
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

// card text at least 4.5:1 against its card (WCAG AA), whatever a game's palette says
function luminance(hex) {
  const c = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
    .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
  return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
}

function contrast(a, b) {
  const x = luminance(a), y = luminance(b);
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
}

function darker(hex, f) {
  return "#" + [1, 3, 5].map((i) => Math.round(parseInt(hex.slice(i, i + 2), 16) * f).toString(16).padStart(2, "0")).join("");
}

const FACE = "#fcfaf2";
const READ = {};
/** [background, text] of a face-up card: the palette's colours, the fill a little darker (at most 20 %)
 * where its ink does not read, else black or white ink, else a darker fill; ink bands (white cards with a
 * coloured number) get a darker number where needed. */
function readable(band) {
  const k = `${band.fill}|${band.ink}`;
  if (READ[k]) return READ[k];
  let out;
  if (band.ink === null) {
    let ink = band.fill;
    for (let f = 0.95; contrast(ink, FACE) < 4.5 && f > 0.2; f -= 0.05) ink = darker(band.fill, f);
    out = [FACE, ink];
  } else {
    let fill = band.fill;
    for (let f = 0.95; contrast(band.ink, fill) < 4.5 && f > 0.79; f -= 0.05) fill = darker(band.fill, f);
    if (contrast(band.ink, fill) >= 4.5) out = [fill, band.ink];
    else {
      const ink = contrast("#111111", band.fill) >= contrast("#ffffff", band.fill) ? "#111111" : "#ffffff";
      fill = band.fill;
      for (let f = 0.95; contrast(ink, fill) < 4.5 && f > 0.2; f -= 0.05) fill = darker(band.fill, f);
      out = [fill, ink];
    }
  }
  READ[k] = out;
  return out;
}

function cardName(c, pal, title) {
  if (c.kind === "back") return "face-down card";
  if (c.kind === "empty") return "empty place";
  if (c.kind === "wild") return `${title} card ${pal.wild_label}, wild, face up`;
  return `${title} card ${c.text}, face up`;
}

function cardEl(c, pal, title) {
  const d = el("div", `card ${c.kind}`);
  d.dataset.card = c.id;
  d.setAttribute("role", "img");
  d.setAttribute("aria-label", cardName(c, pal, title));
  if (c.kind === "back") d.style.backgroundColor = pal.back;
  if (c.kind === "value" || c.kind === "wild") {
    const band = pal.bands[c.band];
    const [bg, ink] = readable(band);
    d.style.background = bg; d.style.color = ink;
    if (band.ink === null) d.style.borderColor = band.fill;  // an "ink" band: a white card, coloured number and frame
    d.appendChild(el("span", "corner", c.label));
    if (c.kind === "wild") {
      const big = el("span", "big");
      const lab = pal.wild_label;
      const cut = lab.indexOf("-");
      if (cut > 0) { big.appendChild(document.createTextNode(lab.slice(0, cut))); big.appendChild(el("br")); big.appendChild(document.createTextNode(lab.slice(cut))); }
      else big.textContent = pal.wild_short;
      d.appendChild(big);
    } else d.appendChild(el("span", "big", c.suit ? String(c.value) : c.label));
    if (c.suit) {  // a suited card: its suit (or colour) mark under the number
      const suit = el("span", "suit", c.suit);
      suit.style.cssText = "position:absolute;left:0;right:0;bottom:2px;text-align:center;font-size:12px;font-weight:700";
      d.appendChild(suit);
    }
  }
  for (const n of d.children) n.setAttribute("aria-hidden", "true");
  if (c.highlight) d.classList.add("hl");
  return d;
}

function pileName(p, reg) {
  const what = p.label || (p.layout === "row" ? `row ${+(p.id.match(/row(\d+)_/) || [0, 0])[1] + 1}` : "pile");
  return `${reg.title}: ${what}, ${p.count} card${p.count === 1 ? "" : "s"}${p.note && p.note !== String(p.count) ? `, ${p.note}` : ""}`;
}

function pileEl(p, pal, reg, title) {
  const box = el("div", `pile ${p.layout}`);
  box.dataset.pile = p.id;
  box.setAttribute("role", "group");
  box.setAttribute("aria-label", pileName(p, reg));
  const cards = el("div", "cards");
  // a stack shows its top card; a row or a fan every card (a fan of any size stays clickable, see below)
  const shown = p.layout === "stack" ? p.cards.slice(-1) : p.cards;
  if (!shown.length) {
    box.classList.add("empty-pile");
    const e = cardEl({ id: `${p.id}#empty`, kind: "empty" }, pal, title);
    e.dataset.pile = p.id;
    e.classList.add("top");
    cards.appendChild(e);
  }
  shown.forEach((c, i) => {
    const ce = cardEl(c, pal, title);
    ce.dataset.pile = p.id;
    if (c.kind === "value" || c.kind === "wild") ce.dataset.key = `${p.id}=${c.kind === "wild" ? "W" : c.text}`;
    if (i === shown.length - 1) ce.classList.add("top");
    cards.appendChild(ce);
  });
  // the empty places at the end of a row (a Skip-Bo hand's unused slots): left out of a small seat
  for (let i = shown.length - 1; i >= 0 && shown[i].kind === "empty" && p.layout === "row"; i--) cards.children[i].classList.add("trail");
  // a fan's strips get thinner so that it is at most about four cards tall, down to 16 px: the strip that
  // still shows each card's value in its corner
  if (p.layout === "fan" && shown.length > 4) cards.style.setProperty("--step", `max(16px, calc(3 * (var(--ch) - 8px) / ${shown.length - 1}))`);
  if (p.layout === "stack" && p.count > 1) {
    box.classList.add("deep");
    cards.style.setProperty("--edge", p.cards.length && p.cards[p.cards.length - 1].kind === "back" ? pal.back : "#d7d4c8");
    const b = el("span", "badge", p.count);
    b.setAttribute("aria-hidden", "true");
    cards.appendChild(b);
  }
  box.appendChild(cards);
  // the caption: the label and the note (a build pile's "next N"; a stack's note that is only its count
  // is the badge already)
  const note = p.layout === "stack" && p.note === String(p.count) ? "" : p.note;
  const cap = el("div", "caption");
  if (p.label) cap.appendChild(el("span", "lbl", p.label));
  if (p.label && note) cap.appendChild(el("span", "sep", " · "));
  if (note) cap.appendChild(el("span", "note", note));
  const delta = S.moved && S.moved.delta[p.id];
  if (delta) {
    const dl = el("span", `delta ${delta > 0 ? "plus" : "minus"}`, delta > 0 ? ` +${delta}` : ` −${-delta}`);
    dl.title = `${delta > 0 ? "+" : "−"}${Math.abs(delta)} card${Math.abs(delta) === 1 ? "" : "s"} in the last move`;
    cap.appendChild(dl);
  }
  if (cap.textContent) box.appendChild(cap);
  return box;
}

function regionEl(r, pal, title, opp) {
  const box = el("section", "region");
  box.dataset.region = r.id;
  const active = r.active && !(S.state && S.state.over);  // a stopped game has nobody to play
  if (active) box.classList.add("active");
  if (r.you) box.classList.add("you");
  if (opp) box.classList.add("opp");
  if (r.team !== null && r.team !== undefined) box.classList.add(`team${r.team}`);
  const h = el("h4", null, S.token ? r.title : r.title.replace(" (you)", ""));
  if (active) h.appendChild(el("span", "tag", "to play"));
  if (r.team !== null && r.team !== undefined) h.appendChild(el("span", "tag", `team ${"ABCDEFGH"[r.team] || r.team}`));
  box.setAttribute("aria-label", h.textContent);
  box.appendChild(h);
  for (const line of r.lines) box.appendChild(el("div", "rline", line));
  for (const row of r.rows) {
    const re = el("div", "row");
    for (const p of row) re.appendChild(pileEl(p, pal, r, title));
    box.appendChild(re);
  }
  return box;
}

function seatName(st, i) {
  const s = (st.seats || [])[i];
  if (S.kind === "live" && S.token && st.view.viewer === i) return `player_${i} (you)`;
  return `player_${i}` + (s && s.name ? ` (${s.name})` : "");
}

// the log speaks in the imperative ("draw from the draw pile"); the last move is told in the past
const PAST = { draw: "drew", take: "took", replace: "replaced", reveal: "revealed", play: "played", discard: "discarded",
  end: "ended", pass: "passed", flip: "flipped", keep: "kept", put: "put", swap: "swapped", move: "moved", pick: "picked",
  stand: "stood", hit: "hit", call: "called", fold: "folded", knock: "knocked", bid: "bid", choose: "chose", turn: "turned" };

function told(text) {
  if (text === "end turn") return "ended the turn";
  const m = text.match(/^([a-z]+)\b([\s\S]*)$/);
  // every verb of the move in the past: "discard the drawn 5 and reveal ..." -> "discarded ... and revealed ..."
  return m && PAST[m[1]] ? PAST[m[1]] + m[2].replace(/\b(and|then) ([a-z]+)\b/g, (w, c, v) => PAST[v] ? `${c} ${PAST[v]}` : w) : null;
}

function moveLine(st, from, to) {
  // the moves from..to-1 of the log, grouped by seat: "player_1 (expert) drew ...; then replaced ..."; a
  // person's own moves are left out when others moved after them (they know what they did)
  const me = S.kind === "live" && S.token ? st.view.viewer : null;
  let mine = -1;
  for (let i = from; i < to; i++) if (st.log[i].seat === me) mine = i;
  if (mine >= 0 && mine < to - 1) from = mine + 1;
  const log = st.log.slice(Math.max(from, to - 6), to);
  if (!log.length) return "";
  const parts = [];
  let seat = null;
  for (const e of log) {
    const t = told(e.text);
    if (e.seat !== seat) { parts.push(t ? `${seatName(st, e.seat)} ${t}` : `${seatName(st, e.seat)}: ${e.text}`); seat = e.seat; }
    else parts[parts.length - 1] += `; then ${t || e.text}`;
  }
  const skipped = to - from - log.length;
  return (skipped > 0 ? `(${skipped} earlier move${skipped === 1 ? "" : "s"}) ` : "") + parts.join(". ");
}

function drawTable(st) {
  const v = st.view;
  const pal = palette(st.game);
  const title = gameTitle(st.game);
  const status = $("#status");
  status.innerHTML = "";
  status.appendChild(el("span", "title", v.title));
  for (const l of v.lines) status.appendChild(el("span", "line", S.token ? l : l.replace(" (you)", "")));
  const last = $("#last-move");
  last.hidden = !S.lastLine;
  last.textContent = S.lastLine ? `Last move: ${S.lastLine}` : "";
  const area = $("#table-area");
  area.innerHTML = "";
  // the other seats, the shared table, then the viewer's own seat, wrapping as the width allows; on a
  // narrow screen the other seats are drawn small (opponents of a seat; every seat of a table of 3+)
  const all = el("div", "players");
  const n = v.players.length;
  for (const r of v.players) if (v.viewer !== r.seat) all.appendChild(regionEl(r, pal, title, v.viewer !== null || n > 2));
  const t = regionEl(v.table, pal, title, false);
  t.classList.add("shared");
  all.appendChild(t);
  for (const r of v.players) if (v.viewer === r.seat) all.appendChild(regionEl(r, pal, title, false));
  area.appendChild(all);
  if (S.moved) {
    for (const node of area.querySelectorAll(".card")) {
      const id = node.dataset.card;
      if (S.moved.to.has(id)) node.classList.add("moved");
      else if (S.moved.from.has(id)) node.classList.add("from");
      if (S.fresh && S.moved.to.has(id)) node.classList.add("fresh");
    }
  }
  drawResult(st);
}

const LABELS = { totals: "total", stock_left: "stock left", scores: "score", points: "points" };

function drawResult(st) {
  const v = st.view;
  const res = $("#result");
  res.innerHTML = "";
  if (!v.result && st.kind === "live" && st.over) {  // stopped (the move limit, its page left): why, in words
    res.hidden = false;
    res.appendChild(el("h2", null, `Game over: ${st.outcome || "the game was stopped"}`));
    res.appendChild(resultBar(st));
    return;
  }
  if (!v.result) { res.hidden = true; return; }
  res.hidden = false;
  const r = v.result;
  const n = v.players.length;
  const w = Array.isArray(r.winners) ? r.winners : [];
  const names = w.map((i) => seatName(st, i));
  let head = w.length ? `${names.join(" and ")} ${w.length > 1 ? "win" : "wins"}` :
    (r.truncated ? "No winner: the game stopped at its turn limit" : "A draw: nobody wins");
  const me = S.kind === "live" && S.token ? v.viewer : null;
  if (me !== null && w.includes(me)) head = w.length > 1 ? `You share the win: ${head}` : "You won!";
  else if (me !== null && w.length) head = `You lost: ${head}`;
  const h = el("h2", null, "Game over. " + head);
  res.appendChild(h);
  let rule = v.lines.slice(1).join("; ");
  if (typeof r.end === "string" && !["game over", "running"].includes(r.end)) rule = `${rule ? rule + "; " : ""}ended: ${r.end}`;
  const scal = [];
  for (const k of ["rounds", "hands", "turns"]) if (typeof r[k] === "number") scal.push(`${r[k]} ${r[k] === 1 ? k.replace(/s$/, "") : k}`);
  if (rule || scal.length) res.appendChild(el("p", null, [rule, scal.join(", ")].filter(Boolean).join(". ")));
  // the score table: one row per seat, one column per per-seat number of the result
  let keys = Object.keys(r).filter((k) => k !== "winners" && Array.isArray(r[k]) && r[k].length === n &&
    r[k].every((x) => typeof x === "number"));
  if (keys.includes("scores") && keys.includes("totals") && r.scores.every((x, i) => x === r.totals[i])) keys = keys.filter((k) => k !== "scores");
  const several = (r.rounds || r.hands || 1) > 1;
  const table = el("table", "scores");
  const cap = el("caption", null, "Scores");
  table.appendChild(cap);
  const hr = el("tr");
  hr.appendChild(el("th", null, "seat"));
  for (const k of keys) hr.appendChild(el("th", null, k === "scores" && several ? `last ${r.rounds ? "round" : "hand"}` : (LABELS[k] || k.replace(/_/g, " "))));
  hr.appendChild(el("th", null, "result"));
  for (const c of hr.children) c.setAttribute("scope", "col");
  table.appendChild(hr);
  for (let i = 0; i < n; i++) {
    const tr = el("tr", w.includes(i) ? "won" : "");
    const th = el("th", null, seatName(st, i));
    th.setAttribute("scope", "row");
    tr.appendChild(th);
    for (const k of keys) tr.appendChild(el("td", null, r[k][i]));
    tr.appendChild(el("td", null, w.includes(i) ? "★ winner" : (w.length ? "lost" : "draw")));
    table.appendChild(tr);
  }
  res.appendChild(table);
  res.appendChild(resultBar(st));
}

// the game-over box's buttons: a rematch, the record, the front page
function resultBar(st) {
  const bar = el("div", "bar");
  if (st.kind === "live" && sessionStorage.getItem(`cfg:${st.id}`)) {
    const b = el("button", null, "Rematch");
    b.id = "rematch";
    b.title = "a new game with the same seats and rules";
    b.onclick = () => $("#new-same").click();
    bar.appendChild(b);
  }
  if (st.kind === "live") {
    const a = el("a", "button", "Download the record");
    a.href = `/api/games/${st.id}/record`;
    bar.appendChild(a);
  }
  const home = el("a", "button", "Front page");
  home.href = "#/";
  bar.appendChild(home);
  return bar;
}

// the log the page holds (the entries 0..n-1 of the game or record it shows) and the lines of it drawn
// (lo..hi-1): the server sends only the entries the page does not hold yet, the page appends them, and
// at most WINDOW lines are drawn (the latest ones, or in a replay those around the current move), so a
// step costs the same at move 20,000 as at move 1
const WINDOW = 300;
const L = { key: null, entries: [], lo: null, hi: 0, upto: null };

function logKey() { return `${S.kind}|${S.id}|${S.token ? "" : S.watch}`; }

function since() { return L.key === logKey() ? L.entries.length : 0; }

// a response's log (the entries from log_from on) added to the page's; the state then holds the whole
// log. False when the response leaves a gap (it answers an older request): the page asks again, whole.
function mergeLog(st) {
  const key = logKey();
  if (L.key !== key) { L.key = key; L.entries = []; L.lo = null; }
  const from = st.log_from || 0;
  if (from > L.entries.length) { L.key = null; return false; }
  if (from < L.entries.length) { L.entries.length = from; L.lo = null; }
  for (const e of st.log) L.entries.push(e);
  st.log = L.entries;
  return true;
}

function logItem(st, e, i, upto) {
  const li = el("li", e.seat === st.view.viewer ? "mine" : "");
  if (upto !== undefined) { if (i >= upto) li.classList.add("later"); if (i === upto - 1) li.classList.add("now"); }
  // the move's number written out (a list marker loses digits from 100 up)
  li.appendChild(el("span", "n", `${i + 1}.`));
  li.appendChild(el("span", "t", `${seatName(st, e.seat)}: ${e.text}`));
  if (e.telemetry && Array.isArray(e.telemetry.answers)) li.appendChild(answerBox(e.telemetry));
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
  return li;
}

// the log: the lines lo..hi-1 of it; a live game's new entries are appended (the oldest lines beyond
// WINDOW dropped), a replay's step re-marks only the lines between the old and the new move (later / now),
// and the window is drawn anew only when the current move leaves it
function drawLog(st, upto) {
  const log = $("#log");
  const n = L.entries.length;
  const live = upto === undefined;
  let lo = live ? Math.max(0, n - WINDOW) : Math.max(0, Math.min(upto - WINDOW / 2, n - WINDOW));
  const drawn = L.lo !== null && log.children.length === L.hi - L.lo;
  const inside = drawn && (live ? L.upto === null && n >= L.hi : L.upto !== null &&
    (L.lo === 0 || upto - 1 >= L.lo + 20) && (L.hi === n || upto - 1 < L.hi - 20));
  if (!inside) {
    log.innerHTML = "";
    L.lo = L.hi = lo;
    L.upto = live ? null : upto;
  } else if (!live && L.upto !== upto) {
    const items = log.children, a = Math.min(L.upto, upto), b = Math.max(L.upto, upto);
    for (let i = a; i < b; i++) if (i >= L.lo && i < L.hi) items[i - L.lo].classList.toggle("later", i >= upto);
    if (L.upto > L.lo && L.upto - 1 < L.hi) items[L.upto - 1 - L.lo].classList.remove("now");
    if (upto > L.lo && upto - 1 < L.hi) items[upto - 1 - L.lo].classList.add("now");
    L.upto = upto;
  }
  const frag = document.createDocumentFragment();
  const hi = live ? n : inside ? L.hi : Math.min(n, lo + WINDOW);
  for (let i = L.hi; i < hi; i++) frag.appendChild(logItem(st, L.entries[i], i, upto));
  log.appendChild(frag);
  L.hi = hi;
  if (live) for (; L.lo < lo; L.lo++) log.firstElementChild.remove();  // the oldest lines beyond WINDOW
  const nw = `${String(n).length + 1}ch`;  // the widest move number (set only when it grows: it restyles every line)
  if (log.style.getPropertyValue("--nw") !== nw) log.style.setProperty("--nw", nw);
  const gap = $("#log-gap");
  gap.hidden = L.lo === 0;
  gap.textContent = L.lo ? `… ${L.lo} earlier move${L.lo === 1 ? "" : "s"}${live ? "" : " (the slider reaches them)"}` : "";
  log.start = L.lo + 1;
  // keep the latest move in sight at the bottom (in a replay, the current one in the middle), scrolling
  // the log box only, to the top of a line: the box never shows half of its top line
  const now = live ? log.lastElementChild : (upto > L.lo ? log.children[upto - 1 - L.lo] : null);
  const box = $("#log-box");
  if (now) {
    log.style.paddingBottom = "";
    const origin = box.getBoundingClientRect().top + box.clientTop - box.scrollTop;
    const rel = (e) => e.getBoundingClientRect().top - origin;
    const top = Math.max(0, live ? rel(now) + now.offsetHeight - box.clientHeight : rel(now) - box.clientHeight / 2);
    const line = [...log.children].find((li) => rel(li) >= top - 0.5);
    const want = line ? rel(line) : top;
    const room = box.scrollHeight - box.clientHeight;  // at the end: a little space below the last line
    if (want > room) log.style.paddingBottom = `${Math.ceil(want - room)}px`;
    box.scrollTop = want;
  } else if (upto === 0 || upto <= L.lo) box.scrollTop = 0;
}

// a text player's answers to this move's prompt (from the record's telemetry), beside the move
function answerBox(t) {
  const box = el("details", "answer");
  const bits = [`${t.attempts} ${t.attempts === 1 ? "answer" : "answers"}`];
  if (t.parse_errors) bits.push(`${t.parse_errors} unparsed`);
  if (t.illegal) bits.push(`${t.illegal} illegal`);
  if (t.fallback) bits.push(`fallback: ${t.fallback}`);
  if (t.error) bits.push(`failed request`);
  if (typeof t.latency_ms === "number") bits.push(`${Math.round(t.latency_ms)} ms`);
  if (t.tokens_in !== null && t.tokens_in !== undefined) bits.push(`${t.tokens_in} tokens in, ${t.tokens_out} out`);
  box.appendChild(el("summary", null, `the model's answer (${bits.join(", ")})`));
  t.answers.forEach((a, k) => {
    const q = el("blockquote", null, String(a));
    if (t.reasons && t.reasons[k]) q.title = t.reasons[k];
    box.appendChild(q);
  });
  if (t.answers.length) box.lastElementChild.classList.add("final");
  return box;
}

// what changed between two views: the cards that arrived or changed face ("to") and the top cards of the
// piles cards left ("from"), with each pile's change of count
function snapshot(v) {
  const cards = {}, piles = {};
  for (const reg of [v.table, ...v.players]) for (const row of reg.rows) for (const p of row) {
    const shown = p.layout === "stack" ? p.cards.slice(-1) : p.cards;
    piles[p.id] = { count: p.count, layout: p.layout, ids: shown.map((c) => c.id) };
    for (const c of shown) cards[c.id] = `${c.kind}:${c.text}`;
  }
  return { cards, piles };
}

function changes(a, b) {
  const out = { to: new Set(), from: new Set(), delta: {} };
  for (const [pid, p] of Object.entries(b.piles)) {
    const q = a.piles[pid];
    if (!q) continue;
    const d = p.count - q.count;
    if (d) out.delta[pid] = d;
    const changed = p.ids.filter((id) => a.cards[id] !== b.cards[id]);
    if (d < 0) {
      if (p.layout === "stack") for (const id of p.ids) out.from.add(id);
      else if (!p.ids.length) out.from.add(`${pid}#empty`);
    } else for (const id of changed) out.to.add(id);
    if (!p.ids.length && d < 0) out.from.add(`${pid}#empty`);
  }
  return out;
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
  const live = myMoves().length > 0;
  for (const node of document.querySelectorAll("#table-area .card")) {
    node.classList.remove("can", "target", "picked", "clickable");
    const d = describe(node);
    // a pile's top card (or its empty place) answers for the pile itself when an action names the pile
    const pileHit = node.classList.contains("top") && cands.some((a) => a.refs[k] === d.pile);
    if (S.sel.some((s) => s.card === d.card)) node.classList.add("picked");
    const hit = pileHit || cands.some((a) => a.refs[k] === d.card || (d.key && a.refs[k] === d.key));
    if (hit) node.classList.add(k ? "target" : "can", "clickable");
    const picked = node.classList.contains("picked");
    if (live && (hit || picked)) {
      node.setAttribute("role", "button");
      node.tabIndex = 0;
      const base = node.getAttribute("aria-label").replace(/ \((can move|where it can go|picked)\)$/, "");
      node.setAttribute("aria-label", `${base} (${picked ? "picked" : k ? "where it can go" : "can move"})`);
    } else {
      node.setAttribute("role", "img");
      node.removeAttribute("tabindex");
      node.setAttribute("aria-label", node.getAttribute("aria-label").replace(/ \((can move|where it can go|picked)\)$/, ""));
    }
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
    if (!mergeLog(st)) { await refresh(); return; }
    show(st);
  } catch (e) { say(e.message); await refresh(); }
  finally { S.busy = false; }
}

// ---------------------------------------------------------------------------------- the pages
function show(st) {
  // a half-made move (a card picked) survives a refresh that changed nothing
  const same = S.state && S.state.id === st.id && S.state.step === st.step && S.state.viewer === st.viewer &&
    S.state.over === st.over;
  S.state = st;
  if (!same) S.sel = [];
  // the last move: what changed since the state this page showed last (same game, same seat's view)
  const key = `${st.kind}|${st.id}|${st.view.viewer}`;
  const snap = snapshot(st.view);
  S.fresh = false;
  if (S.prev && S.prev.key === key && S.prev.step !== st.step) {
    S.moved = changes(S.prev.snap, snap);
    S.fresh = true;
    S.lastLine = st.step > S.prev.step ? moveLine(st, S.prev.step, st.step) : moveLine(st, st.step - 1, st.step);
  } else if (!S.prev || S.prev.key !== key) {
    S.moved = null;
    S.lastLine = st.step > 0 ? moveLine(st, st.step - 1, st.step) : "";
  }
  // a round or hand that just ended is announced with its scores (the status line is read out)
  const r = st.last_round || null;
  const round = r ? r.round : 0;
  if (S.prev && S.prev.key === key && round > (S.prev.round || 0)) {
    const who = r.scores.map((x, i) => `${seatName(st, i)} ${x}`).join(", ");
    say(`Round ${r.round} is over: ${who}; totals ${r.totals.join(", ")}`, true);
  }
  S.prev = { key, step: st.step, snap, round };
  // a refresh that changed nothing leaves the table as it is (a focused card keeps the focus)
  if (!same || !$("#table-area").children.length) {
    drawTable(st);
    drawActions(st);
    drawLog(st, st.kind === "replay" ? st.step : undefined);
  }
  mark();
  $("#download").hidden = true;  // the game-over box offers the record
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
      const q = `?since=${since()}` + (S.watch !== null && !S.token ? `&seat=${S.watch}` : "");
      const cfg = JSON.parse(sessionStorage.getItem(`cfg:${S.id}`) || "{}");
      const game = (S.state && S.state.id === S.id) ? S.state.game : cfg.game;
      const first = !S.state || S.state.id !== S.id || S.state.step === 0;
      const st = await slow(api("GET", `/api/games/${S.id}${q}`), !first ? "waiting for the server…" :
        game ? prepText(game) : "preparing the game (first use, ~10 s)…");
      if (st.preparing) {  // a server that compiles in the background says so: ask again soon
        preparing(prepText(st.game));
        S.timer = setTimeout(refresh, 500);
        return;
      }
      if (!mergeLog(st)) { S.timer = setTimeout(refresh, 0); return; }
      show(st);
    } else {
      const q = `?step=${S.step}&since=${since()}` + (S.watch !== null ? `&seat=${S.watch}` : "");
      const st = await api("GET", `/api/records/${S.id}${q}`);
      if (!mergeLog(st)) { S.timer = setTimeout(refresh, 0); return; }
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
  if (!(h[0] === "game" && h[1] === S.id)) { leaveGame(false); S.kind = null; S.id = null; S.state = null; }
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
  $("#f-game").onchange = () => { fillGame(); prepareGame(); };
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
  // a focused card (Tab reaches the cards that can move, then the places a picked card can go) plays
  // with Enter or Space, as a click would
  $("#table-area").addEventListener("keydown", (ev) => {
    const node = ev.target.closest(".card");
    if (!node || (ev.key !== "Enter" && ev.key !== " ")) return;
    ev.preventDefault();
    ev.stopPropagation();
    const id = node.dataset.card;
    clickCard(node);
    const again = document.querySelector(`#table-area .card[data-card="${id}"]`);
    const next = document.querySelector("#table-area .card.target") || again;
    if (next && next.tabIndex === 0) next.focus();
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
    if (ev.key.toLowerCase() === "n" && !ev.ctrlKey && !ev.metaKey && !ev.altKey && !$("#play").hidden && !$("#new-same").hidden) {
      ev.preventDefault(); $("#new-same").click(); return;
    }
    const i = KEYS.indexOf(ev.key.toLowerCase());
    const moves = myMoves();
    if (i >= 0 && i < moves.length) { ev.preventDefault(); play(moves[i].action); }
  });
  window.addEventListener("hashchange", route);
  window.addEventListener("pagehide", () => leaveGame(true));
  route();
}

init();
