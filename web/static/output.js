"use strict";
// This browser as the web hub's output (protocol.md, "The browser as an
// output"). The page reports only what its <audio> element really does;
// the hub turns those reports, and nothing else, into the group's output
// reports.
const outp = {
  hub: false,      // the device serving this page is a web hub
  page: Math.random().toString(36).slice(2) + Date.now().toString(36), // this page load
  opened: false,   // this page was chosen as the output
  fresh: true,     // no output_open sent since this page loaded
  token: 0, seq: 0, track: 0, content: "", pending: "",
  el: null, tapping: false,
  cmds: [], ignored: 0, lastError: "", // what the hub asked and refused, for the tests
  trace: [],       // [what, wall ms] of the last steps to sound (make bench-web prints them)
};

function outTrace(what) {
  outp.trace.push([what, Date.now()]);
  if (outp.trace.length > 64) outp.trace.shift();
}

function outEl(follows) {
  if (outp.el) return outp.el;
  const el = new Audio(); el.preload = "auto"; outp.el = el;
  outRoute(el, follows);
  outSession(el);
  for (const e of ["loadstart", "loadedmetadata", "canplay", "seeked"]) el.addEventListener(e, () => outTrace(e));
  el.addEventListener("playing", () => {
    outTrace("playing");
    if (!outp.started) outp.startedAt = el.currentTime; // where this track began here (the tests read it)
    outReport(outp.started ? "playing" : "started"); outp.started = true;
  });
  el.addEventListener("pause", () => { outIdle(); if (!el.ended && outp.track) outReport("paused"); });
  el.addEventListener("ended", () => outReport("ended"));
  el.addEventListener("waiting", () => outReport("stalled"));
  el.addEventListener("stalled", () => { if (!el.paused && el.readyState < 3) outReport("stalled"); });
  el.addEventListener("error", () => { if (outp.track && !outFallback(el)) outReport("error", el.error ? "The browser cannot play this track (" + (el.error.message || "code " + el.error.code) + ")." : ""); });
  return el;
}

// outReport sends one report of the element's state (raw: no toast when
// the hub ignores it). Before the hub's token arrives it is kept.
function outReport(kind, err) {
  if (!outp.opened) return;
  if (!outp.token) { outp.pending = kind; return; }
  if (!ws || ws.readyState !== WebSocket.OPEN) return;
  const el = outp.el;
  outp.seq++;
  const m = { id: nextID++, op: "output_report", page: outp.page, token: outp.token, seq: outp.seq, kind,
    content: outp.content, track: outp.track, ms: el ? Math.round(outHeard(el) * 1000) : 0 };
  if (err) m.err = err;
  waiting.set(m.id, (r) => { outp.ignored = r.ok ? outp.ignored : (outp.ignored || 0) + 1; if (!r.ok) outp.lastError = r.error; });
  ws.send(JSON.stringify(m));
}

// The element's state as a report, for the page's own heartbeat while it
// is the output: the endpoint reports what it does, as a local device's
// audio output does.
function outState() {
  const el = outp.el;
  if (!el || !outp.track) return "paused";
  if (el.error) return "error";
  if (outp.tapping) return "blocked";
  if (el.paused) return el.ended ? "ended" : "paused";
  return el.readyState >= 3 ? "playing" : "stalled";
}
setInterval(() => { if (outp.opened && outp.token) outReport(outState()); }, 500);

function outTap(show) {
  outp.tapping = show;
  const b = $("tapplay"); if (b) b.hidden = !show;
}

function outPlay() {
  const el = outEl(), src = el.src;
  outp.wantPlay = true;
  if (el.routed && outp.warm.state !== "running") { outResume(el, src); return; }
  el.play().then(() => outTap(false)).catch((e) => {
    if (el.src !== src) return; // refused for a source given up since (outFallback)
    if (e && e.name === "NotAllowedError") { outTap(true); outReport("blocked"); }
    else if (e && e.name !== "AbortError") outReport("error", "The browser cannot play this track: " + e.message);
  });
}

// outResume plays a routed element once the page's AudioContext runs
// again (it is heard only through it). A browser that does not let it run
// within 80 ms (no tap on the page yet) is refused like autoplay.
function outResume(el, src) {
  let refused = false;
  const t = setTimeout(() => { refused = true; if (el.src === src && outp.wantPlay) { outTap(true); outReport("blocked"); } }, 80);
  outp.warm.resume().then(() => {
    clearTimeout(t);
    if (!refused && el.src === src && outp.wantPlay && outp.warm.state === "running") outPlay();
  }, () => {});
}

// outCmd runs a command of the hub for its output.
function outCmd(m) {
  if (!outp.opened) return;
  outp.cmds.push(m.cmd); outTrace("cmd " + m.cmd);
  let el = outEl();
  outLevel(el, m);
  switch (m.cmd) {
    case "play": case "pause": case "resume": {
      const fresh = m.track !== outp.track;
      const spare = outp.spare && outp.spare.m.track === m.track;
      if (fresh && !spare && !el.routed && outCanRoute()) el = outRenew(el, m);
      if (fresh && spare && outAdvance()) {
        // the prepared track, already begun or now begun
      } else if (fresh) {
        outDropSpare();
        outp.track = m.track; outp.content = m.content; outp.started = false;
        const url = outPick(el, m);
        if (!url) {
          outReport("error", "This browser cannot play " + (m.mime || "this format") + ".");
          toast("This browser cannot play this track's format.");
          return;
        }
        el.src = url;
        el.currentTime = (m.ms || 0) / 1000;
        outMeta(m);
      }
      if (m.cmd === "pause" || m.paused) { outp.wantPlay = false; el.pause(); outTap(false); } else outPlay();
      break;
    }
    case "seek":
      if (m.track === outp.track) el.currentTime = (m.ms || 0) / 1000;
      break;
    case "next": outPrepare(m); break;
    case "clearnext": outDropSpare(); break;
    case "stop":
      outDropSpare();
      outp.track = 0; outp.content = ""; outTap(false);
      el.pause(); outCut(el); el.removeAttribute("src"); el.load();
      outReport("paused");
      break;
  }
}

// outPick is the address the element loads for play command m: the
// original file when the browser says it may play its type, else the hub's
// decoding of it (a WAV of PCM, which seeks anywhere). "" when neither.
function outPick(el, m) {
  outp.decoded = false; outp.dec = m.dec || ""; outp.pickMS = m.ms || 0;
  if (m.mime && el.canPlayType(m.mime) !== "") return m.url;
  outp.decoded = true;
  return m.dec || "";
}

// outFallback: the element refused the original file (canPlayType said
// "maybe", as for an MP4 that holds ALAC): load the hub's decoding at the
// same place instead of reporting an error. False when there is none.
function outFallback(el) {
  if (el !== outp.el) return true; // the spare: outAdvance sees its error
  const code = el.error && el.error.code;
  if (outp.decoded || !outp.dec || (code !== 3 && code !== 4)) return false;
  const at = el.currentTime > 0 ? el.currentTime : outp.pickMS / 1000, play = outp.wantPlay;
  outp.decoded = true;
  el.src = outp.dec;
  el.currentTime = at;
  if (play) outPlay();
  return true;
}

// Gapless: the hub's "next" is loaded ahead in a second element (the
// spare), wired like the first; when the current element ends the spare
// starts at once and becomes the output's element.
outp.spare = null; // {el, m, url, decoded}

function outPrepare(m) {
  outDropSpare();
  const cur = outp.el; outp.el = null;
  const el = outEl(cur); // a new element with the output's listeners
  outp.el = cur;
  const keep = [outp.decoded, outp.dec, outp.pickMS];
  const url = outPick(el, Object.assign({}, m, { ms: 0 }));
  outp.spare = { el, m, url, decoded: outp.decoded };
  [outp.decoded, outp.dec, outp.pickMS] = keep;
  if (!url) return;
  el.volume = cur ? cur.volume : el.volume;
  el.src = url; el.load();
  for (const e of [cur, el]) {
    if (e && !e.gapless) {
      e.gapless = true;
      e.addEventListener("ended", () => { if (e === outp.el) outAdvance(); });
      e.addEventListener("timeupdate", () => { if (e === outp.el) (e.routed && el.routed ? outSeam : outEarly)(e); });
    }
  }
}

// outLead is how long before the current element's end the spare is
// started: a started element is heard that much later (measured on the
// recorded sink, see TestWebHubPlaysTheNextTrackWithoutAGap).
outp.lead = 0.09;

// outEarly starts the spare outp.lead before el ends, so that its first
// sound follows el's last; outAdvance then makes it the output's element.
function outEarly(el) {
  const s = outp.spare, left = el.duration - el.currentTime;
  if (!s || !s.url || s.early || el.paused || !(left < 0.35) || s.el.readyState < 3) return;
  s.early = true;
  const lead = outp.lead;
  // Two steps: a timer to shortly before the moment, then one from a
  // fresh reading of the element's clock (timeupdate's is older by the
  // time it is handled).
  const fire = () => {
    if (outp.spare !== s || outp.el !== el || el.paused) return;
    const rest = el.duration - el.currentTime - lead;
    if (rest > 0.004) { setTimeout(fire, rest > 0.06 ? (rest - 0.05) * 1000 : rest * 1000); return; }
    outTrace("spare");
    s.el.play().catch(() => {});
  };
  fire();
}

// The seam, for elements routed through the page's AudioContext: each
// plays into a delay line (outRoute) and an analyser that sees its
// frames as they enter. The spare is started as the first is about to
// end and held back in its delay line; once both are seen, the first's
// last sound and the spare's first, its delay is set so that it is heard
// the frame after the first ends: sample-exact, whatever the browser's
// timers and audio periods do. It costs seamDelay of latency.
outp.seamDelay = 0.08;

function outSeam(el) {
  const s = outp.spare;
  if (!s || !s.url || s.early || el.paused || s.el.readyState < 3 || !(el.duration - el.currentTime < 0.6)) return;
  s.early = true;
  // Started seamDelay before the first is heard to end (its delay line
  // holds that much), so that the spare's delay comes out as seamDelay
  // again rather than growing from seam to seam. On the context's clock:
  // the element's stops when its last frame went in.
  const ctx = outp.warm, at = ctx.currentTime + el.duration - el.currentTime + el.routed.delay.delayTime.value - outp.seamDelay - 0.01;
  const fire = () => {
    if (s.dropped || (outp.el === el && el.paused)) return;
    const rest = at - ctx.currentTime;
    if (rest > 0.004) { setTimeout(fire, rest > 0.06 ? (rest - 0.05) * 1000 : rest * 1000); return; }
    outTrace("seam spare");
    s.el.play().catch(() => {});
    s.startedAt = performance.now();
    s.poll = setInterval(() => outSeamPoll(el, s), 4);
  };
  fire();
}

// outSeamPoll looks for the first element's end and the spare's start in
// their analysers (read together, so both stand in the same frames) and
// sets the spare's delay once both are there.
function outSeamPoll(a, s) {
  const b = s.el, ctx = outp.warm;
  // outAdvance makes the spare the element when the first ends (and
  // empties the first): the seam goes on.
  const current = outp.el === a;
  if (s.dropped || (current && a.paused && !a.ended) || !a.routed || !b.routed) { clearInterval(s.poll); return; }
  // Not placed in time (a busy page): the spare follows with the first's
  // delay, as close as the timers put it.
  if (performance.now() - s.startedAt > 250) { clearInterval(s.poll); outDelay(b, a.routed.delay.delayTime.value); outTrace("seam late"); return; }
  const n = a.routed.an.fftSize;
  const xa = outp.seamA || (outp.seamA = new Float32Array(n)), xb = outp.seamB || (outp.seamB = new Float32Array(n));
  const t0 = ctx.currentTime;
  a.routed.an.getFloatTimeDomainData(xa); b.routed.an.getFloatTimeDomainData(xb);
  if (ctx.currentTime !== t0) return; // a render quantum between the reads: next time
  const sr = ctx.sampleRate, end = Math.round(t0 * sr), first = end - n; // frame of x[0]
  // The first has ended when its element is at its end and its input has
  // been silent for 5 ms: it ended after its last sound.
  const quiet = Math.round(0.005 * sr);
  if (current && !(a.ended || a.currentTime >= a.duration - 0.05)) return;
  let la = n - 1;
  while (la >= 0 && xa[la] === 0) la--;
  if (n - 1 - la < quiet) return;
  // The spare has begun with its first sound (a silent start is heard as
  // silence either way: its clock places it then).
  let fb = 0;
  while (fb < n && xb[fb] === 0) fb++;
  if (fb === n && !(b.currentTime > 0.03)) return;
  clearInterval(s.poll);
  const ea = first + la + 1, heardEnd = ea + Math.round(a.routed.delay.delayTime.value * sr);
  const fbFrame = fb < n ? first + fb : end - Math.round(b.currentTime * sr);
  // Never ask for a frame already heard: late, the spare follows now.
  const d = Math.max(heardEnd, end + 128) - fbFrame;
  outDelay(b, Math.min(0.95, d / sr));
  outTrace("seam, late " + Math.round((d - (heardEnd - fbFrame)) / sr * 1000) + " ms, delay " + Math.round(d / sr * 1000) + " ms");
}

function outDropSpare() {
  const s = outp.spare; outp.spare = null;
  if (s) { s.dropped = true; clearInterval(s.poll); s.el.removeAttribute("src"); s.el.load(); outUnroute(s.el); }
}

// outHeard is the position heard from el: its clock less the delay it
// plays into.
function outHeard(el) {
  return Math.max(0, el.currentTime - (el.routed ? el.routed.delay.delayTime.value : 0));
}

// outAdvance makes the spare the output's element and starts it; false
// when there is none to start.
function outAdvance() {
  const s = outp.spare;
  if (!s || !s.url || (s.el.error && s.decoded)) return false;
  outp.spare = null;
  const old = outp.el;
  outp.el = s.el;
  outp.track = s.m.track; outp.content = s.m.content; outp.started = false;
  outp.decoded = s.decoded; outp.dec = s.m.dec || ""; outp.pickMS = 0;
  // The prepared track's own ReplayGain (sent with "next"), at the hub's volume.
  outp.gain = { track: s.m.track, db: s.m.gain || 0 };
  outLevel(s.el, {});
  // Held back for a seam that did not run (a skip, a pause): it plays
  // with the delay of the element it follows.
  if (s.el.paused && s.el.routed) outDelay(s.el, old && old.routed ? old.routed.delay.delayTime.value : outp.seamDelay);
  if (s.el.error) { outFallback(s.el); }
  else if (!s.el.paused) { outp.started = true; outp.startedAt = s.el.currentTime; outp.wantPlay = true; outReport("started"); } // begun by outEarly or outSeam
  else outPlay();
  outMeta(s.m);
  if (old) { old.removeAttribute("src"); old.load(); outUnroute(old); }
  return true;
}

function outMeta(m) {
  if (!("mediaSession" in navigator)) return;
  const t = state && state.track;
  try {
    navigator.mediaSession.metadata = new MediaMetadata({ title: (t && t.title) || m.title || "", artist: (t && t.artist) || "", album: (t && t.album) || "",
      artwork: t ? [{ src: "/cover/" + encodeURIComponent(m.content) }] : [] });
  } catch (e) { /* an old browser */ }
}
if ("mediaSession" in navigator) {
  const ms = navigator.mediaSession;
  const h = (a, f) => { try { ms.setActionHandler(a, f); } catch (e) { /* not supported */ } };
  // play and pause say what to end in: a toggle only when the room is
  // not in it already (a headset's pause must never start the music).
  h("play", () => { if (!state || !state.playing) send("toggle"); });
  h("pause", () => { if (state && state.playing) send("toggle"); });
  h("nexttrack", () => send("next")); h("previoustrack", () => send("prev"));
  h("seekto", (d) => send("seek", { ms: Math.round(d.seekTime * 1000) }));
}

// outLevel sets the element's volume: the hub's volume and the track's
// ReplayGain (m.gain, dB, as on the hub's device) scale it; a gain above
// unity is capped there (an element's volume cannot exceed 1).
function outLevel(el, m) {
  if (typeof m.volume === "number") outp.volume = Math.max(0, Math.min(100, m.volume));
  const forTrack = m.cmd === "play" || m.cmd === "pause" || m.cmd === "resume";
  if (forTrack && m.track) outp.gain = { track: m.track, db: m.gain || 0 };
  const t = forTrack ? m.track : outp.track;
  const db = outp.gain && outp.gain.track === t ? outp.gain.db : 0;
  const v = (typeof outp.volume === "number" ? outp.volume : 100) / 100;
  el.volume = Math.max(0, Math.min(1, v * Math.pow(10, db / 20)));
}

// outSession keeps the lock screen's and headset's view of el right
// (Media Session): the playback state and setPositionState on play,
// pause, seek and track change, from what the element does.
function outSession(el) {
  if (!("mediaSession" in navigator)) return;
  for (const e of ["playing", "pause", "seeked", "durationchange", "ratechange", "loadedmetadata", "ended", "emptied"]) el.addEventListener(e, outPosState);
}

function outPosState() {
  const ms = navigator.mediaSession, el = outp.el;
  try {
    if (!el || !outp.track) { ms.playbackState = "none"; ms.setPositionState(); return; }
    ms.playbackState = el.paused ? "paused" : "playing";
    let d = el.duration;
    if (!isFinite(d) || d <= 0) d = state && state.track ? state.track.duration_ms / 1000 : 0;
    if (!(d > 0)) return;
    ms.setPositionState({ duration: d, position: Math.min(d, Math.max(0, el.currentTime)), playbackRate: el.playbackRate || 1 });
  } catch (e) { /* an old browser */ }
}

// outOpen asks the hub to make this page its output; here: the user chose
// it ("Play on this browser"), else a reconnect of the output page.
async function outOpen(here) {
  outp.opened = true;
  const fresh = outp.fresh; outp.fresh = false;
  outp.token = 0;
  outTrace("open");
  const r = await send("output_open", { page: outp.page, fresh, here: here || undefined });
  outTrace("opened");
  if (!r) { if (here) outp.opened = false; return; }
  outp.token = r.token;
  const k = outp.pending || outState(); outp.pending = "";
  outReport(k);
}

function outConnected() { if (outp.opened) outOpen(false); }

function outHello(m) {
  outp.hub = !!m.hub;
  if (outp.hub) outWarm();
}

// outWarm readies the browser's audio path before it is first needed: a
// browser's first sound waits for its audio output to open (about 250 ms
// in Chromium on PulseAudio), once per page. An AudioContext made now
// opens it (suspended until the browser lets it run: no sound).
function outWarm() {
  if (outp.warm || !window.AudioContext) return;
  try { outp.warm = new AudioContext(); outTrace("warm"); } catch (e) { outp.warm = null; return; }
  // Taken away while a routed element plays (another app, the system):
  // say so, as for a refused autoplay; a tap resumes.
  outp.warm.onstatechange = () => {
    const el = outp.el;
    if (outp.warm.state !== "running" && el && el.routed && !el.paused && outp.wantPlay) { outTap(true); outReport("blocked"); }
  };
}

// outRoute plays el through the page's AudioContext when it runs: the
// elements then meet in one audio graph, where the spare's start lands
// within about 10 ms of the first's end (gapless) rather than on the
// separate outputs' own 20 ms periods. A spare follows the element it
// continues: both routed or neither, so that one lead fits.
function outRoute(el, follows) {
  if (!outCanRoute() || (follows && !follows.routed)) return;
  const ctx = outp.warm;
  try {
    const src = ctx.createMediaElementSource(el);
    // A spare waits in its line until the seam places it (outSeamPoll).
    const delay = new DelayNode(ctx, { maxDelayTime: 1, delayTime: follows ? 0.95 : outp.seamDelay });
    const an = new AnalyserNode(ctx, { fftSize: 32768 });
    const gate = new GainNode(ctx);
    src.connect(delay).connect(gate).connect(ctx.destination);
    src.connect(an);
    el.routed = { src, delay, an, gate };
    outDelay(el, follows ? 0.95 : outp.seamDelay);
  } catch (e) { /* plays on its own */ }
}

// outDelay sets el's delay as an event of its timeline: a plain value
// would glide there (Chromium smooths a delay without events), and the
// spare would come out at no exact frame, its pitch bent meanwhile.
function outDelay(el, d) {
  const p = el.routed.delay.delayTime;
  p.cancelScheduledValues(0);
  p.setValueAtTime(d, outp.warm.currentTime);
}

// outUnroute frees el's nodes once what its delay line holds was heard.
function outUnroute(el) {
  const r = el.routed;
  if (r) setTimeout(() => { r.src.disconnect(); r.delay.disconnect(); r.gate.disconnect(); }, 2000);
}

// outCut silences what el's delay line still holds: the music went to
// another device, the browser stops now, not a delay later.
function outCut(el) {
  const r = el.routed;
  if (!r) return;
  const g = r.gate.gain, now = outp.warm.currentTime;
  g.cancelScheduledValues(0);
  g.setValueAtTime(0, now);
  g.setValueAtTime(1, now + r.delay.delayTime.value + 0.02);
}

function outCanRoute() { return !!outp.warm && outp.warm.state === "running"; }

// outRenew replaces an element that plays on its own by a routed one for
// a new track (the page's AudioContext runs now; it did not when el was
// made).
function outRenew(el, m) {
  outDropSpare();
  el.pause(); el.removeAttribute("src"); el.load(); outUnroute(el);
  outp.el = null;
  const n = outEl();
  outLevel(n, m);
  return n;
}

// outIdle lets the AudioContext rest while nothing plays (a running one
// renders silence, and a phone's battery pays for it); outPlay wakes it.
function outIdle() {
  clearTimeout(outp.idleTimer);
  outp.idleTimer = setTimeout(() => {
    const el = outp.el, ctx = outp.warm;
    if (ctx && ctx.state === "running" && (!el || el.paused)) ctx.suspend().catch(() => {});
  }, 10000);
}

// outWake resolves once the page's AudioContext runs, or after 50 ms when
// the browser does not let it (the elements then play on their own).
function outWake() {
  const ctx = outp.warm;
  if (!ctx || ctx.state === "running") return Promise.resolve();
  return Promise.race([ctx.resume().catch(() => {}), new Promise((r) => setTimeout(r, 50))]);
}

// The entry in the devices dialog.
function outDeviceRow(ul) {
  if (!outp.hub) return;
  const li = document.createElement("li");
  const here = outp.opened && state && state.owner === state.device.id;
  li.innerHTML = `<button class="rowmain devrow" id="playhere" role="menuitemradio" aria-checked="${here}"><span class="ico">${icon("speaker")}</span><span class="rowtext"><span>Play on this browser</span><span class="sub">${here ? "Playing here" : ""}</span></span></button>`;
  li.querySelector("button").onclick = () => {
    $("devices").close(); toast("Playing on this browser…");
    outWake().then(() => { outEl(); outOpen(true); });
  };
  ul.prepend(li);
}
$("tapplay").onclick = () => { outTap(false); outPlay(); };
