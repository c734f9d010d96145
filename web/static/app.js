// furudesk web player: pairing, then one WebSocket that pushes the
// group's state and carries this page's commands (see protocol.md).
"use strict";

const $ = (id) => document.getElementById(id);
const ICONS = {
  play: "M8 5v14l11-7z", pause: "M6 5h4v14H6zm8 0h4v14h-4z", next: "M6 18l8.5-6L6 6v12zm10-12v12h2V6h-2z",
  prev: "M6 6h2v12H6zm3.5 6l8.5 6V6z", shuffle: "M10.6 9.2 5.4 4 4 5.4l5.2 5.2 1.4-1.4zM14.5 4l2 2L4 18.6 5.4 20 18 7.5l2 2V4h-5.5zm.3 9.4-1.4 1.4 3.1 3.1-2 2.1H20v-5.5l-2 2-3.2-3.1z",
  repeat: "M7 7h10v3l4-4-4-4v3H5v6h2V7zm10 10H7v-3l-4 4 4 4v-3h12v-6h-2v4z", repeat1: "M7 7h10v3l4-4-4-4v3H5v6h2V7zm10 10H7v-3l-4 4 4 4v-3h12v-6h-2v4zm-4-2V9h-1l-2 1v1h1.5v4H13z",
  heart: "M12 21.4 10.6 20C5.4 15.4 2 12.3 2 8.5 2 5.4 4.4 3 7.5 3c1.7 0 3.4.8 4.5 2.1C13.1 3.8 14.8 3 16.5 3 19.6 3 22 5.4 22 8.5c0 3.8-3.4 6.9-8.6 11.5L12 21.4z",
  heartO: "M16.5 3c-1.7 0-3.4.8-4.5 2.1C10.9 3.8 9.2 3 7.5 3 4.4 3 2 5.4 2 8.5c0 3.8 3.4 6.9 8.6 11.5l1.4 1.3 1.4-1.3C18.6 15.4 22 12.3 22 8.5 22 5.4 19.6 3 16.5 3zm-4.4 15.6-.1.1-.1-.1C7.1 14.2 4 11.4 4 8.5 4 6.5 5.5 5 7.5 5c1.5 0 3 1 3.6 2.4h1.9C13.5 6 15 5 16.5 5c2 0 3.5 1.5 3.5 3.5 0 2.9-3.1 5.7-7.9 10.1z",
  speaker: "M17 2H7a2 2 0 0 0-2 2v16a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V4a2 2 0 0 0-2-2zm-5 2a2 2 0 1 1 0 4 2 2 0 0 1 0-4zm0 16a5 5 0 1 1 0-10 5 5 0 0 1 0 10zm0-8a3 3 0 1 0 0 6 3 3 0 0 0 0-6z",
  disc: "M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20zm0 14.5a4.5 4.5 0 1 1 0-9 4.5 4.5 0 0 1 0 9zm0-5.5a1 1 0 1 0 0 2 1 1 0 0 0 0-2z",
  list: "M3 13h2v-2H3v2zm0 4h2v-2H3v2zm0-8h2V7H3v2zm4 4h14v-2H7v2zm0 4h14v-2H7v2zM7 7v2h14V7H7z",
  library: "M4 6H2v14a2 2 0 0 0 2 2h14v-2H4V6zm16-4H8a2 2 0 0 0-2 2v12a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2V4a2 2 0 0 0-2-2zm-2 5h-3v5.5a2.5 2.5 0 1 1-1-2V5h4v2z",
  volume: "M3 9v6h4l5 5V4L7 9H3zm13.5 3A4.5 4.5 0 0 0 14 8v8a4.5 4.5 0 0 0 2.5-4z", back: "M20 11H7.8l5.6-5.6L12 4l-8 8 8 8 1.4-1.4L7.8 13H20v-2z",
  more: "M12 8a2 2 0 1 0 0-4 2 2 0 0 0 0 4zm0 2a2 2 0 1 0 0 4 2 2 0 0 0 0-4zm0 6a2 2 0 1 0 0 4 2 2 0 0 0 0-4z",
  playnext: "M3 10h11v2H3zm0-4h11v2H3zm0 8h7v2H3zm13-1v8l6-4z",
  up: "M7.4 15.4 12 10.8l4.6 4.6L18 14l-6-6-6 6z", down: "M7.4 8.6 12 13.2l4.6-4.6L18 10l-6 6-6-6z", close: "M19 6.4 17.6 5 12 10.6 6.4 5 5 6.4 10.6 12 5 17.6 6.4 19 12 13.4 17.6 19 19 17.6 13.4 12z",
};
function icon(name) { return `<svg viewBox="0 0 24 24" aria-hidden="true"><path d="${ICONS[name]}"/></svg>`; }
function setIcon(el, name) { const s = el.querySelector(".ico") || el; s.innerHTML = icon(name); }
function paintIcons(root) { root.querySelectorAll(".ico[data-icon]").forEach((e) => { e.innerHTML = icon(e.dataset.icon); }); }
function esc(s) { return String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c])); }
function fmt(ms) { ms = Math.max(0, Math.floor(ms / 1000)); const h = Math.floor(ms / 3600), m = Math.floor((ms % 3600) / 60), s = ms % 60; return (h ? h + ":" + String(m).padStart(2, "0") : m) + ":" + String(s).padStart(2, "0"); }
function artistsOf(t) { return (t.artists || t.a || []).join(", "); }

// ---- state ----
let ws = null, nextID = 1, waiting = new Map(), state = null, stateAt = 0;
let library = [], libByID = new Map(), libVersion = -1, plVersion = -1, playlists = [], liked = new Set();
let retry = 0, everConnected = false, deviceName = "", page = "now";
// Optimistic values shown until the state confirms them, a reply refuses
// them or they time out, as the window does.
const pending = {};
const PENDING_MS = 3000;

function optimistic(field, value) { pending[field] = { value, until: performance.now() + PENDING_MS }; render(); }
function shown(field) {
  const p = pending[field];
  if (p && performance.now() < p.until) return p.value;
  delete pending[field];
  return state ? state[field] : undefined;
}

function toast(text) {
  const t = $("toast"); t.textContent = text; t.hidden = false;
  clearTimeout(toast.timer); toast.timer = setTimeout(() => { t.hidden = true; }, 4000);
}
function banner(text) { const b = $("banner"); b.textContent = text || ""; b.hidden = !text; }

function send(op, args, withdraw) {
  if (!ws || ws.readyState !== WebSocket.OPEN) { toast("Not connected: reconnecting…"); if (withdraw) withdraw(); return Promise.resolve(null); }
  const id = nextID++;
  ws.send(JSON.stringify(Object.assign({ id, op }, args || {})));
  return new Promise((resolve) => { waiting.set(id, (r) => { if (!r.ok) { if (withdraw) withdraw(); toast(r.error || "That did not work."); resolve(null); } else resolve(r.data === undefined ? true : r.data); }); });
}

// ---- pairing ----
async function session() {
  try { const r = await fetch("/api/session", { cache: "no-store" }); return await r.json(); } catch (e) { return null; }
}
function showPair(msg) {
  if (ws) { const w = ws; ws = null; w.onclose = null; w.close(); }
  $("player").hidden = true; $("pair").hidden = false; banner("");
  $("pairerr").textContent = msg || "";
  $("code").focus();
}
$("pairform").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const btn = $("pairbtn"); btn.disabled = true; $("pairerr").textContent = "";
  try {
    const r = await fetch("/api/pair", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ code: $("code").value }) });
    const a = await r.json();
    if (a.ok) { $("code").value = ""; start(); } else { $("pairerr").textContent = a.error || "Pairing failed."; }
  } catch (e) { $("pairerr").textContent = "The device does not answer: is furudesk still running?"; }
  btn.disabled = false;
});

async function start() {
  const s = await session();
  if (!s) { banner("Cannot reach furudesk: retrying…"); setTimeout(start, 2000); return; }
  deviceName = s.device || "";
  if (!s.paired) { showPair(s.error); return; }
  $("pair").hidden = true; $("player").hidden = false;
  connect();
}

function connect() {
  const w = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
  ws = w;
  w.onopen = () => { retry = 0; everConnected = true; banner(""); };
  w.onmessage = (ev) => {
    let m; try { m = JSON.parse(ev.data); } catch (e) { return; }
    if (m.t === "state") { onState(m.state); }
    else if (m.t === "out") { outCmd(m); }
    else if (m.t === "hello") { outHello(m); outConnected(); }
    else if (m.t === "reply") { const f = waiting.get(m.id); waiting.delete(m.id); if (f) f(m); }
    else if (m.t === "bye") { showPair(m.message); }
  };
  w.onclose = (ev) => {
    if (ws !== w) return;
    ws = null;
    for (const f of waiting.values()) f({ ok: false, error: "The connection was lost before furudesk answered." });
    waiting.clear();
    if (ev.code === 4001) { showPair("This browser was removed from the group: pair it again with a code."); return; }
    reconnect();
  };
}

// reconnect tries again, a little later each time (at most every 3 s),
// until the device answers; a browser revoked meanwhile gets the pairing
// page.
function reconnect() {
  banner((deviceName || "furudesk") + " does not answer: reconnecting…");
  retry = Math.min(retry + 1, 6);
  setTimeout(async () => {
    const s = await session();
    if (!s) { reconnect(); return; }
    if (!s.paired) { showPair(s.error); return; }
    connect();
  }, 500 * retry);
}

function onState(s) {
  state = s; stateAt = performance.now(); deviceName = s.device.name;
  for (const f of Object.keys(pending)) if (pending[f] && s[f] === pending[f].value) delete pending[f];
  if (s.library_version !== libVersion) { libVersion = s.library_version; loadLibrary(); }
  if (s.playlists_version !== plVersion) { plVersion = s.playlists_version; loadPlaylists(); }
  render();
}

function position() {
  if (!state) return 0;
  if (pending.position_ms && performance.now() < pending.position_ms.until) return pending.position_ms.value + (shown("playing") ? performance.now() - pending.position_ms.at : 0);
  let p = state.position_ms + (shown("playing") && state.playing ? performance.now() - stateAt : 0);
  const d = state.track ? state.track.duration_ms : 0;
  return d ? Math.min(p, d) : p;
}

// ---- rendering ----
let coverID = null, seeking = false, volDragging = false;
function render() {
  if (!state) return;
  const s = state, t = s.track, playing = shown("playing");
  $("title").textContent = t ? t.title : "Nothing is playing";
  $("artists").textContent = t ? artistsOf(t) : "";
  $("album").textContent = t ? t.album || "" : "";
  const owner = s.devices.find((d) => d.owner);
  $("devname").textContent = owner ? owner.name : (s.owner_name || "No device");
  $("devbtn").setAttribute("aria-label", "Where the music plays: " + (owner ? owner.name : "no device") + ". Choose a device");
  $("notice").textContent = s.owner_gone ? (s.owner_name || "The playing device") + " stopped responding." : (s.owner_notice || "");
  const id = t ? t.id : null;
  if (id !== coverID) {
    coverID = id; const img = $("cover");
    img.hidden = true; $("nocover").hidden = false;
    if (id) { img.onload = () => { img.hidden = false; $("nocover").hidden = true; }; img.onerror = () => {}; img.src = "/cover/" + encodeURIComponent(id); img.alt = "Cover of " + (t.album || t.title); }
  }
  for (const b of [$("play"), $("miniplay")]) { setIcon(b, playing ? "pause" : "play"); b.setAttribute("aria-label", playing ? "Pause" : "Play"); b.disabled = !t; }
  $("prev").disabled = $("next").disabled = !t;
  const sh = shown("shuffle"); $("shuffle").setAttribute("aria-pressed", String(!!sh));
  const rp = shown("repeat") || "off"; setIcon($("repeat"), rp === "one" ? "repeat1" : "repeat");
  $("repeat").classList.toggle("on", rp !== "off"); $("repeat").setAttribute("aria-label", "Repeat: " + rp);
  const lk = shown("liked"); setIcon($("like"), lk ? "heart" : "heartO"); $("like").setAttribute("aria-pressed", String(!!lk)); $("like").disabled = !t;
  if (!volDragging) $("volume").value = shown("volume");
  $("volume").setAttribute("aria-valuetext", shown("volume") + " percent");
  $("minititle").textContent = t ? t.title : "Nothing is playing"; $("miniartist").textContent = t ? artistsOf(t) : "";
  $("mini").hidden = page === "now";
  tick();
  renderQueue(); renderDevices();
}
function tick() {
  if (!state) return;
  const d = state.track ? state.track.duration_ms : 0, p = position();
  $("pos").textContent = fmt(p); $("dur").textContent = fmt(d);
  if (!seeking) { $("seek").max = Math.max(1, d); $("seek").value = p; }
  $("seek").setAttribute("aria-valuetext", fmt(p) + " of " + fmt(d));
}
setInterval(tick, 250); // the shown clock only: the state itself is pushed

function renderQueue() {
  const s = state, ol = $("queue");
  const order = s.shuffle && s.order && s.order.length ? s.order : s.queue.map((_, i) => i);
  $("queueempty").hidden = s.queue.length > 0;
  const key = JSON.stringify([s.queue.map((q) => q.id), order, s.index]);
  if (ol.dataset.key === key) return;
  ol.dataset.key = key;
  ol.innerHTML = "";
  const curPos = order.indexOf(s.index);
  order.forEach((qi, pos) => {
    const q = s.queue[qi]; if (!q) return;
    const li = document.createElement("li");
    if (qi === s.index) li.className = "current";
    li.innerHTML = `<button class="rowmain" aria-label="Play ${esc(q.title)}"><span class="rowtext"><span>${esc(q.title)}</span><span class="sub">${esc(artistsOf(q))}</span></span></button>` +
      (pos > curPos + 1 ? `<button class="icon" data-a="next" aria-label="Play ${esc(q.title)} next">${icon("playnext")}</button>` : "") +
      `<button class="icon" data-a="up" aria-label="Move ${esc(q.title)} up" ${pos === 0 ? "disabled" : ""}>${icon("up")}</button>` +
      `<button class="icon" data-a="down" aria-label="Move ${esc(q.title)} down" ${pos === order.length - 1 ? "disabled" : ""}>${icon("down")}</button>` +
      `<button class="icon" data-a="remove" aria-label="Remove ${esc(q.title)} from the queue">${icon("close")}</button>`;
    if (qi === s.index) li.querySelector(".rowmain").setAttribute("aria-current", "true");
    li.querySelector(".rowmain").onclick = () => send("jump", { index: qi });
    if (pos > curPos + 1) li.querySelector('[data-a="next"]').onclick = () => send("move", { index: qi, to: order[curPos + 1] });
    li.querySelector('[data-a="up"]').onclick = () => send("move", { index: qi, to: order[pos - 1] });
    li.querySelector('[data-a="down"]').onclick = () => send("move", { index: qi, to: order[pos + 1] });
    li.querySelector('[data-a="remove"]').onclick = () => send("remove", { index: qi });
    ol.appendChild(li);
  });
}

function renderDevices() {
  const ul = $("devlist"); ul.innerHTML = "";
  for (const d of state.devices) {
    const li = document.createElement("li");
    const label = d.name + (d.self ? " (serves this page)" : "") + (d.online ? "" : " · offline");
    li.innerHTML = `<button class="rowmain devrow" role="menuitemradio" aria-checked="${d.owner}" ${d.selectable ? "" : "disabled"}><span class="ico">${icon("speaker")}</span><span class="rowtext"><span>${esc(label)}</span><span class="sub">${d.owner ? "Playing here" : ""}</span></span></button>`;
    li.querySelector("button").onclick = () => { $("devices").close(); if (!d.owner) { toast("Handing over to " + d.name + "…"); send("transfer", { device: d.id }); } };
    ul.appendChild(li);
  }
  outDeviceRow(ul);
}

// ---- controls ----
$("play").onclick = $("miniplay").onclick = () => { const was = shown("playing"); optimistic("playing", !was); send("toggle", null, () => delete pending.playing); };
$("next").onclick = () => send("next");
$("prev").onclick = () => send("prev");
$("shuffle").onclick = () => { const v = !shown("shuffle"); optimistic("shuffle", v); send("shuffle", { on: v }, () => { delete pending.shuffle; render(); }); };
$("repeat").onclick = () => { const v = { off: "all", all: "one", one: "off" }[shown("repeat") || "off"]; optimistic("repeat", v); send("repeat", { mode: v }, () => { delete pending.repeat; render(); }); };
$("like").onclick = () => { if (!state.track) return; const v = !shown("liked"); optimistic("liked", v); send("like", { ids: [state.track.id], on: v }, () => { delete pending.liked; render(); }); };
$("seek").addEventListener("input", () => { seeking = true; $("pos").textContent = fmt(+$("seek").value); });
$("seek").addEventListener("change", () => {
  seeking = false; const ms = +$("seek").value;
  pending.position_ms = { value: ms, at: performance.now(), until: performance.now() + PENDING_MS };
  send("seek", { ms }, () => { delete pending.position_ms; tick(); });
});
$("volume").addEventListener("input", () => { volDragging = true; });
$("volume").addEventListener("change", () => { volDragging = false; const v = +$("volume").value; optimistic("volume", v); send("volume", { value: v }, () => { delete pending.volume; render(); }); });
$("devbtn").onclick = () => { renderDevices(); $("devices").showModal(); };
$("minimeta").onclick = () => showPage("now");
$("forget").onclick = async () => {
  if (!confirm("Forget this browser? It will need a new code to control the group.")) return;
  await fetch("/api/forget", { method: "POST" }); showPair("This browser was forgotten.");
};
document.addEventListener("keydown", (e) => {
  if (e.target.closest("input, dialog") || e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key === " ") { e.preventDefault(); $("play").click(); }
});

function showPage(p) {
  page = p;
  document.querySelectorAll(".tabs button").forEach((b) => { if (b.dataset.page === p) b.setAttribute("aria-current", "page"); else b.removeAttribute("aria-current"); });
  document.querySelectorAll(".page").forEach((s) => { s.hidden = s.id !== "page-" + p; });
  $("mini").hidden = p === "now";
  if (p === "library") renderLib();
  if (p === "playlists") renderPlaylists();
}
document.querySelectorAll(".tabs button").forEach((b) => { b.onclick = () => showPage(b.dataset.page); });

// ---- library ----
let libMode = "artists", libSel = null, searchIDs = null, searchSeq = 0;
async function loadLibrary() {
  const data = await send("library");
  if (!data) return;
  library = data; libByID = new Map(library.map((t) => [t.id, t]));
  renderLib();
}
function albumArtist(t) { return t.aa || (t.a && t.a[0]) || "Unknown artist"; }
function groups(keyOf, tracks) {
  const m = new Map();
  for (const t of tracks) for (const k of keyOf(t)) { if (!m.has(k)) m.set(k, []); m.get(k).push(t); }
  return [...m.entries()].sort((a, b) => collator.compare(a[0], b[0]));
}
function byAlbumOrder(a, b) { return (a.d || 0) - (b.d || 0) || (a.n || 0) - (b.n || 0) || a.t.localeCompare(b.t); }

// noBrokenCover keeps a row's place for a cover that does not load (a
// handler set here: the page's CSP forbids inline ones, and a row's image
// may fail before the row is in the document).
function noBrokenCover(li) {
  const img = li.querySelector("img");
  if (img) img.onerror = () => { img.style.visibility = "hidden"; };
}

function trackRow(t, list, i) {
  const li = document.createElement("li");
  if (!t.p) li.className = "unplayable";
  li.innerHTML = `<button class="rowmain" aria-label="Play ${esc(t.t)}${t.p ? "" : " (no device has it now)"}"><img alt="" loading="lazy" src="/cover/${encodeURIComponent(t.id)}"><span class="rowtext"><span>${esc(t.t)}</span><span class="sub">${esc((t.a || []).join(", "))}${t.al ? " · " + esc(t.al) : ""}</span></span></button>` +
    `<button class="icon" aria-label="More for ${esc(t.t)}" aria-haspopup="dialog">${icon("more")}</button>`;
  noBrokenCover(li);
  li.querySelector(".rowmain").onclick = () => send("play", { ids: list.map((x) => x.id), index: i });
  li.querySelectorAll("button")[1].onclick = () => trackActions(t);
  return li;
}
function groupRow(name, sub, coverOf, onclick) {
  const li = document.createElement("li");
  li.innerHTML = `<button class="rowmain"><img alt="" loading="lazy" src="/cover/${encodeURIComponent(coverOf)}"><span class="rowtext"><span>${esc(name)}</span><span class="sub">${esc(sub)}</span></span></button>`;
  noBrokenCover(li);
  li.querySelector("button").onclick = onclick;
  return li;
}
// fillRows shows items in ul a chunk at a time: the next chunk when the
// end of the list comes into view, so 10,000 tracks list at once.
const CHUNK = 200;
let rowsObserver = null;
function fillRows(ul, items, makeRow) {
  if (rowsObserver) { rowsObserver.disconnect(); rowsObserver = null; }
  let shown = 0;
  const more = () => {
    const frag = document.createDocumentFragment();
    for (const end = Math.min(items.length, shown + CHUNK); shown < end; shown++) frag.appendChild(makeRow(items[shown], shown));
    ul.appendChild(frag);
    if (shown < items.length) {
      const last = ul.lastElementChild;
      rowsObserver = new IntersectionObserver((es) => { if (es.some((e) => e.isIntersecting)) { rowsObserver.disconnect(); rowsObserver = null; more(); } }, { rootMargin: "600px" });
      rowsObserver.observe(last);
    }
  };
  more();
}

function renderLib() {
  const ul = $("lib"); ul.innerHTML = "";
  let tracks = null, title = "";
  $("libempty").hidden = true;
  if (searchIDs) { tracks = searchIDs.map((id) => libByID.get(id)).filter(Boolean); title = "Search"; }
  else if (libSel) { tracks = libSel.tracks; title = libSel.name; }
  $("libhead").hidden = !(libSel && !searchIDs);
  $("libtitle").textContent = title;
  if (!library.length) { $("libempty").hidden = false; $("libempty").textContent = "The group's library is empty."; return; }
  if (tracks) {
    fillRows(ul, tracks, (t, i) => trackRow(t, tracks, i));
    if (!tracks.length) { $("libempty").hidden = false; $("libempty").textContent = "Nothing found."; }
  } else if (libMode === "artists") {
    fillRows(ul, groups((t) => [albumArtist(t)], library), ([name, ts]) => {
      const albums = new Set(ts.map((t) => t.al)).size;
      return groupRow(name, albums + (albums === 1 ? " album" : " albums"), ts[0].id, () => { libSel = { name, tracks: ts.slice().sort((a, b) => (a.al || "").localeCompare(b.al || "") || byAlbumOrder(a, b)) }; renderLib(); });
    });
  } else if (libMode === "albums") {
    fillRows(ul, groups((t) => [(t.al || "Unknown album") + "\u0000" + albumArtist(t)], library), ([key, ts]) => {
      const [name, artist] = key.split("\u0000");
      return groupRow(name, artist, ts[0].id, () => { libSel = { name, tracks: ts.slice().sort(byAlbumOrder) }; renderLib(); });
    });
  } else {
    const all = sortedTracks();
    fillRows(ul, all, (t, i) => trackRow(t, all, i));
  }
}
// sortedTracks is the library by title, sorted once per library.
let sortedCache = null;
function sortedTracks() {
  if (!sortedCache || sortedCache.lib !== library) sortedCache = { lib: library, all: library.slice().sort((a, b) => collator.compare(a.t, b.t)) };
  return sortedCache.all;
}
const collator = new Intl.Collator(undefined, { sensitivity: "base", numeric: true });
document.querySelectorAll(".seg button").forEach((b) => {
  b.onclick = () => { libMode = b.dataset.lib; libSel = null; document.querySelectorAll(".seg button").forEach((x) => x.setAttribute("aria-selected", String(x === b))); renderLib(); };
});
$("libback").onclick = () => { libSel = null; renderLib(); };
$("libplay").onclick = () => { const ts = libSel ? libSel.tracks : []; if (ts.length) send("play", { ids: ts.map((t) => t.id), index: 0 }); };
$("search").addEventListener("input", () => {
  clearTimeout(renderLib.timer);
  const q = $("search").value.trim();
  if (!q) { searchIDs = null; renderLib(); return; }
  renderLib.timer = setTimeout(async () => {
    const seq = ++searchSeq;
    const ids = await send("search", { query: q });
    if (seq !== searchSeq || ids === null) return;
    searchIDs = ids; renderLib();
  }, 150);
});

function trackActions(t) {
  $("acth").textContent = t.t || t.title;
  const box = $("actlist"); box.innerHTML = "";
  const add = (label, fn) => { const b = document.createElement("button"); b.textContent = label; b.onclick = () => { $("actions").close(); fn(); }; box.appendChild(b); };
  add("Play next", () => send("enqueue", { ids: [t.id], next: true }).then((r) => r && toast("Plays next: " + t.t)));
  add("Add to queue", () => send("enqueue", { ids: [t.id] }).then((r) => r && toast("Added to the queue: " + t.t)));
  const isLiked = liked.has(t.id);
  add(isLiked ? "Unlike" : "Like", () => send("like", { ids: [t.id], on: !isLiked }));
  for (const p of playlists.filter((p) => p.kind === "playlist")) add("Add to " + p.name, () => send("playlist_add", { playlist: p.id, ids: [t.id] }).then((r) => r && toast("Added to " + p.name)));
  $("actions").showModal();
}

// ---- playlists ----
let plSel = null;
async function loadPlaylists() {
  const ps = await send("playlists");
  if (!ps) return;
  playlists = ps;
  const lk = ps.find((p) => p.kind === "liked");
  if (lk) { const v = await send("playlist", { playlist: lk.id }); if (v) liked = new Set(v.entries.map((e) => e.id)); }
  if (plSel) { const v = await send("playlist", { playlist: plSel.id }); plSel = v || null; }
  renderPlaylists();
}
function renderPlaylists() {
  const ul = $("pl"); ul.innerHTML = "";
  $("plhead").hidden = !plSel; $("plh").hidden = !!plSel;
  $("plempty").hidden = true;
  if (plSel) {
    $("pltitle").textContent = plSel.name;
    plSel.entries.forEach((e, i) => {
      const t = libByID.get(e.id) || { id: e.id, t: e.title, a: e.artists, al: e.album, p: e.playable };
      const li = trackRow(t, [], i);
      li.querySelector(".rowmain").onclick = () => send("playlist_play", { playlist: plSel.id, index: i });
      ul.appendChild(li);
    });
    if (!plSel.entries.length) { $("plempty").hidden = false; $("plempty").textContent = "This list is empty."; }
    return;
  }
  for (const p of playlists) {
    const li = document.createElement("li");
    li.innerHTML = `<button class="rowmain"><span class="ico">${icon(p.kind === "liked" ? "heart" : "list")}</span><span class="rowtext"><span>${esc(p.name)}</span><span class="sub">${p.tracks} tracks · ${fmt(p.duration_ms)}</span></span></button>`;
    li.querySelector("button").onclick = async () => { const v = await send("playlist", { playlist: p.id }); if (v) { plSel = v; renderPlaylists(); } };
    ul.appendChild(li);
  }
  if (!playlists.length) { $("plempty").hidden = false; $("plempty").textContent = "No playlists yet."; }
}
$("plback").onclick = () => { plSel = null; renderPlaylists(); };
$("plplay").onclick = () => { if (plSel) send("playlist_play", { playlist: plSel.id, index: 0 }); };

paintIcons(document);
start();
