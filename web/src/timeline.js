// The timeline: a time ruler over one track per producer (the producer tree, foldable),
// virtualised vertically; in detail mode states nest in depth lanes, punctual events
// are markers, each variable a step chart in its own lane under its producer's states
// (named in the label column, its value range on the right), links arrows between tracks. Wheel zooms around
// the cursor, drag pans, shift-drag zooms to a range, W/S/A/D zoom (around the mouse
// when it is over the tracks) and pan, a box goes to a time. Clicking or hovering an
// event tells other views by window events:
//   traza:event {id, ts, end, producer, type, producerName, typeName}
//   traza:hover the same plus x, y (page coordinates), or null when leaving an event
// (ts, end: exact absolute ticks as decimal strings; producer, type: the API's ids).
import { state, api, onChange, selection, span, setRange, rel, absTicks, fmtAt, fmtTick, fmtTime, typeById, prodById, fitCanvas, countAxis } from './state.js';

const ROW_H = 18;        // a track without lanes
const LANE_H = 14;       // one depth lane of states
const MAX_LANES = 6;     // deeper nesting is drawn in the last lane
const VAR_H = 26;        // the lane of one variable's step chart
const VIEW_H = 480;      // the scrolled box of tracks
const RULER_H = 26;
const MIN_TICK_PX = 60;  // the least room between two ruler ticks

let tl = null;           // last answer; detail events [ts, end, type, prod, eprod, level, value, id] as offsets
let rows = [];           // shown producer rows [{id, name, depth, hasKids, color}]
let rowOf = new Map();   // producer id -> row index (folded descendants map to their ancestor)
let layout = null;       // {top: Float64Array(n + 1), lanes: [], deep: [], vars: []} per row
let items = [];          // per row: drawn events [{x0, x1, y0, y1, e}] for hit tests
let hovered = null, gotoAt = null, sel = null;
let pointerX = null;
let loads = 0;           // timeline requests made: only the latest answer is drawn     // the mouse over the tracks (css px): W/S zoom around it

const $ = id => document.getElementById(id);

export function buildRows() {
  const prods = state.trace.producers;
  const kids = new Map();
  for (const p of prods) { const k = p.parent; if (!kids.has(k)) kids.set(k, []); kids.get(k).push(p); }
  rows = []; rowOf = new Map();
  const walk = (p, depth, owner) => {
    let idx = owner;
    if (owner === null) { idx = rows.length; rows.push({ id: p.id, name: p.name, depth, hasKids: kids.has(p.id), color: p.color }); }
    rowOf.set(p.id, idx);
    const folded = owner !== null || state.folded.has(p.id);
    for (const c of kids.get(p.id) || []) walk(c, depth + 1, folded ? idx : null);
  };
  // roots: parent -1, or a parent the answer does not list (a truncated producer list)
  const known = new Set(prods.map(p => p.id));
  for (const p of prods) if (p.parent === -1 || !known.has(p.parent)) walk(p, 0, null);
  layoutRows();
}

// The detail events by track, so that a frame reads only the tracks in view: states and
// punctual events (byRow), each variable's points (varsOf: type -> events), the links.
// Depth lanes: per row, an interval that starts before the previous one of the same
// row ends goes one lane down (a stack of open ends, as nested calls).
function layoutRows() {
  const n = rows.length;
  const lanes = new Array(n).fill(0), vars = new Array(n).fill(0);
  const byRow = new Array(n), varsOf = new Array(n), links = [];
  if (tl && tl.mode === 'detail') {
    const open = new Map();
    for (const e of tl.events) {
      const ty = typeById(e[2]), row = rowOf.get(e[3]);
      if (row === undefined || !ty) continue;
      if (ty.category === 'link') { if (rowOf.get(e[4]) !== undefined) links.push(e); continue; }
      if (ty.category === 'variable') {
        const m = varsOf[row] || (varsOf[row] = new Map());
        if (!m.has(e[2])) m.set(e[2], []);
        m.get(e[2]).push(e); continue;
      }
      (byRow[row] || (byRow[row] = [])).push(e);
      if (ty.category !== 'state') continue;
      let st = open.get(row); if (!st) open.set(row, st = []);
      while (st.length && st[st.length - 1] <= e[0]) st.pop();
      e.lane = st.length; st.push(e[1]);
      if (st.length > lanes[row]) lanes[row] = st.length;
    }
  }
  // a track's variables in the order of their names, one lane each
  const varLanes = {};
  for (let i = 0; i < n; i++) {
    if (!varsOf[i]) continue;
    varsOf[i] = new Map([...varsOf[i]].sort((a, b) => typeById(a[0]).name.localeCompare(typeById(b[0]).name)));
    vars[i] = varsOf[i].size;
    if (Object.keys(varLanes).length < 1000) varLanes[rows[i].name] = [...varsOf[i].keys()].map(t => typeById(t).name);
  }
  const top = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) top[i + 1] = top[i] + rowHeight(lanes[i], vars[i]);
  layout = { top, lanes, vars, byRow, varsOf, links };
  const cv = $('timeline');
  cv.dataset.rows = String(n);
  let deepest = 0, k = 0;
  const named = {};
  for (let i = 0; i < n; i++) {
    if (lanes[i] > deepest) deepest = lanes[i];
    if (lanes[i] && k < 1000) { named[rows[i].name] = lanes[i]; k++; }
  }
  cv.dataset.maxLanes = String(deepest);
  cv.dataset.lanes = JSON.stringify(named);
  cv.dataset.varLanes = JSON.stringify(varLanes);
  $('tl-spacer').style.height = Math.max(0, top[n] - viewH()) + 'px';
}
// a track: its state lanes (one of ROW_H when they do not nest, holding its name), then
// one lane per variable
function stateBand(lanes) { return lanes > 1 ? Math.min(MAX_LANES, lanes) * LANE_H + 4 : ROW_H; }
function rowHeight(lanes, nvars) { return stateBand(lanes) + nvars * VAR_H; }
function viewH() { return Math.max(60, Math.min(VIEW_H, layout ? layout.top[rows.length] + 2 : VIEW_H)); }
// the first row whose bottom is below y (binary search on the row tops)
function rowAt(y) {
  let lo = 0, hi = rows.length;
  while (lo < hi) { const m = (lo + hi) >> 1; if (layout.top[m + 1] <= y) lo = m + 1; else hi = m; }
  return lo;
}

export async function loadTimeline() {
  if (!state.trace) return;
  const cv = $('timeline');
  const width = Math.max(50, Math.min(4096, cv.clientWidth || 800));
  const [from, to] = span();
  const p = selection({ width, from: absTicks(from), to: absTicks(to) });
  const t0 = performance.now(), my = ++loads;
  const answer = await api('timeline', p);
  if (my !== loads) return; // a later view was asked for meanwhile
  answer.ms = performance.now() - t0;
  answer.from = rel(answer.from); answer.to = rel(answer.to);
  if (answer.mode === 'detail') for (const e of answer.events) { e[0] = rel(e[0]); e[1] = rel(e[1]); }
  tl = answer;
  layoutRows();
  cv.dataset.trace = state.trace.info.name; // the trace whose events are drawn
  drawTimeline();
}

/* ---------------- drawing ---------------- */
// fitCanvas, but a canvas already of that size is only cleared (resizing reallocates it)
function fit(cv, h) {
  const dpr = window.devicePixelRatio || 1, w = cv.clientWidth || cv.parentElement.clientWidth || 600;
  if (cv.width !== Math.round(w * dpr) || cv.height !== Math.round(h * dpr)) return fitCanvas(cv, h);
  const g = cv.getContext('2d');
  g.setTransform(dpr, 0, 0, dpr, 0, 0); g.clearRect(0, 0, w, h);
  return { g, w, h };
}
let frame = 0;
function requestDraw() { if (!frame) frame = requestAnimationFrame(() => { frame = 0; drawTimeline(); }); }
export function drawTimeline() {
  if (!state.trace || !layout) return;
  const t0 = performance.now();
  draw();
  $('timeline').dataset.drawMs = (performance.now() - t0).toFixed(1);
}
function draw() {
  const ticks = drawRuler();
  const cv = $('timeline'), lc = $('timeline-labels'), scroll = $('tl-scroll');
  const h = viewH();
  scroll.style.height = h + 'px';
  const { g, w } = fit(cv, h);
  const L = fit(lc, h);
  const y0 = scroll.scrollTop, n = rows.length;
  const first = rowAt(y0), last = Math.min(n - 1, rowAt(y0 + h));
  L.g.font = '11px sans-serif';
  for (let i = first; i <= last; i++) {
    const r = rows[i], y = layout.top[i] - y0, rh = layout.top[i + 1] - layout.top[i];
    L.g.fillStyle = i % 2 ? '#f4f4f4' : '#fff'; L.g.fillRect(0, y, L.w, rh);
    g.fillStyle = i % 2 ? '#f7f7f7' : '#fff'; g.fillRect(0, y, w, rh);
    const ly = Math.max(y, Math.min(0, y + rh - ROW_H)); // a tall track's label stays in view
    L.g.fillStyle = r.color; L.g.fillRect(2 + r.depth * 10, ly + 5, 6, 8);
    L.g.fillStyle = '#222';
    const mark = r.hasKids ? (state.folded.has(r.id) ? '▸ ' : '▾ ') : '  ';
    const deep = layout.lanes[i] > MAX_LANES ? ` (${layout.lanes[i]} lanes)` : '';
    L.g.fillText(mark + r.name + deep, 10 + r.depth * 10, ly + 13, L.w - 12 - r.depth * 10);
    let k = 0;
    for (const type of (layout.varsOf[i] || new Map()).keys()) {
      const vy = y + stateBand(layout.lanes[i]) + VAR_H * k++;
      if (vy + VAR_H < 0 || vy > h) continue;
      L.g.fillStyle = typeById(type).color; L.g.fillRect(14 + r.depth * 10, vy + VAR_H / 2 - 1, 8, 2);
      L.g.fillStyle = '#444'; L.g.font = '10px sans-serif';
      L.g.fillText(fitTail(L.g, typeById(type).name, L.w - 28 - r.depth * 10), 26 + r.depth * 10, vy + VAR_H / 2 + 3);
      L.g.font = '11px sans-serif';
    }
  }
  // what is shown, for tests and tools: the rows in view as [name, top, height] (css px)
  const shown = [];
  for (let i = first; i <= last; i++) shown.push([rows[i].name, layout.top[i] - y0, layout.top[i + 1] - layout.top[i]]);
  cv.dataset.visible = JSON.stringify(shown);
  cv.dataset.firstRow = String(first); cv.dataset.lastRow = String(last);
  items = [];
  const [from, to] = span();
  const X = t => (t - from) / Math.max(1, to - from) * w;
  // the ruler's ticks as a faint grid over the tracks
  g.strokeStyle = 'rgba(0,0,0,0.07)';
  for (const { t } of ticks) { const x = Math.round(X(t)) + 0.5; g.beginPath(); g.moveTo(x, 0); g.lineTo(x, h); g.stroke(); }
  if (!tl) return;
  const info = $('timeline-info');
  const yOf = row => layout.top[row] - y0;
  if (tl.mode === 'detail') {
    for (let row = first; row <= last; row++) {
      const y = yOf(row), lanes = Math.min(MAX_LANES, layout.lanes[row]), lh = lanes > 1 ? LANE_H : ROW_H;
      for (const e of layout.byRow[row] || []) {
        const ty = typeById(e[2]);
        g.fillStyle = ty.color;
        if (ty.category === 'state') {
          const ly = y + 2 + Math.min(MAX_LANES - 1, e.lane || 0) * lh;
          const xa = X(e[0]), xb = X(e[1]);
          if (xb < 0 || xa > w) continue;
          const x0 = Math.max(-1, xa), x1 = Math.min(w + 1, Math.max(x0 + 1, xb));
          g.fillRect(x0, ly, x1 - x0, lh - 3);
          if (x1 - x0 > 40) {
            g.save(); g.fillStyle = '#fff'; g.font = '10px sans-serif'; g.beginPath(); g.rect(x0, ly, x1 - x0, lh - 3); g.clip();
            g.fillText(ty.name, Math.max(x0, 0) + 3, ly + lh - 6); g.restore();
          }
          add(row, { x0, x1, y0: ly, y1: ly + lh - 3, e });
        } else {
          // a punctual event: a small triangle at the top of its track
          const x = X(e[0]); if (x < -4 || x > w + 4) continue;
          g.beginPath(); g.moveTo(x - 3.5, y + 1); g.lineTo(x + 3.5, y + 1); g.lineTo(x, y + 8); g.closePath(); g.fill();
          g.fillRect(x - 0.5, y + 8, 1, 6);
          add(row, { x0: x - 4, x1: x + 4, y0: y, y1: y + 14, e });
        }
      }
    }
    // variables: a step chart per (track, type), each in its lane below the states
    for (let row = first; row <= last; row++) {
      let k = 0;
      for (const [type, pts] of layout.varsOf[row] || []) {
        const ty = typeById(type), vals = pts.map(p => p[6] ?? 0);
        const laneTop = yOf(row) + stateBand(layout.lanes[row]) + VAR_H * k++;
        if (laneTop + VAR_H < 0 || laneTop > h) continue;
        let lo = Infinity, hi = -Infinity;
        for (const x of vals) { if (x < lo) lo = x; if (x > hi) hi = x; }
        const bottom = laneTop + VAR_H - 3, band = VAR_H - 8;
        g.fillStyle = 'rgba(0,0,0,0.04)'; g.fillRect(0, laneTop, w, 1);
        const Y = x => bottom - band * (hi > lo ? (x - lo) / (hi - lo) : 0.5);
        g.strokeStyle = ty.color; g.lineWidth = 1.2; g.beginPath();
        pts.forEach((p, i) => {
          // a value holds until the next one (the last: until its end, or the view's)
          const yv = Y(vals[i]), a = X(p[0]), b = X(pts[i + 1] ? pts[i + 1][0] : p[1] > p[0] ? p[1] : to);
          if (i) g.lineTo(a, yv); else g.moveTo(a, yv);
          g.lineTo(b, yv);
          if (b >= 0 && a <= w) add(row, { x0: a - 2, x1: Math.max(a + 2, b), y0: bottom - band - 2, y1: bottom + 2, e: p });
        });
        g.stroke(); g.lineWidth = 1;
        g.font = '9px sans-serif';
        const txt = `${fmtNum(lo)} … ${fmtNum(hi)}`, tw = g.measureText(txt).width, ty0 = laneTop + 9;
        g.fillStyle = 'rgba(255,255,255,0.85)'; g.fillRect(w - tw - 6, ty0 - 8, tw + 4, 10);
        g.fillStyle = '#555'; g.fillText(txt, w - tw - 4, ty0);
      }
    }
    // links: arrows from the start producer's track to the end producer's, those with an
    // end in view (the others would only cross it), one path per colour
    const paths = new Map(), inView = r => r >= first && r <= last;
    for (const e of layout.links) {
      const ra = rowOf.get(e[3]), rb = rowOf.get(e[4]);
      if (!inView(ra) && !inView(rb)) continue;
      const xa = X(e[0]), xb = X(e[1]);
      if (Math.max(xa, xb) < 0 || Math.min(xa, xb) > w) continue;
      const c = typeById(e[2]).color;
      if (!paths.has(c)) paths.set(c, []);
      paths.get(c).push([xa, yOf(ra) + 9, xb, yOf(rb) + 9]);
      add(ra, { x0: xa - 3, x1: xa + 3, y0: yOf(ra) + 5, y1: yOf(ra) + 13, e });
    }
    for (const [c, segs] of paths) {
      g.strokeStyle = c; g.fillStyle = c;
      g.beginPath();
      for (const [xa, ya, xb, yb] of segs) { g.moveTo(xa, ya); g.lineTo(xb, yb); }
      g.stroke();
      g.beginPath();
      for (const [xa, ya, xb, yb] of segs) {
        const a = Math.atan2(yb - ya, xb - xa);
        g.moveTo(xb, yb); g.lineTo(xb - 6 * Math.cos(a - 0.4), yb - 6 * Math.sin(a - 0.4));
        g.lineTo(xb - 6 * Math.cos(a + 0.4), yb - 6 * Math.sin(a + 0.4)); g.closePath();
      }
      g.fill();
    }
    info.textContent = `${window_()} · ${tl.events.length} events drawn (${tl.count} start in the window${tl.truncated ? ', truncated' : ''}) · ${rows.length} tracks · ${tl.ms.toFixed(0)} ms`;
  } else {
    paintSummary(g, tl, X, yOf, rowOf, typeById, first, last);
    info.textContent = `${window_()} · level of detail: ${tl.count} events summarised per pixel (${tl.columns.length} columns${tl.rows ? '' : ', sampled'}) · ${rows.length} tracks · ${tl.ms.toFixed(0)} ms`;
  }
  // the go-to mark, the hovered event, the shift-drag selection
  if (gotoAt !== null) {
    const x = X(gotoAt); g.strokeStyle = '#d02020'; g.setLineDash([4, 3]);
    g.beginPath(); g.moveTo(x, 0); g.lineTo(x, h); g.stroke(); g.setLineDash([]);
  }
  if (hovered) { g.strokeStyle = '#000'; g.lineWidth = 1.5; g.strokeRect(hovered.x0, hovered.y0 - y0 + hovered.sy, hovered.x1 - hovered.x0, hovered.y1 - hovered.y0); g.lineWidth = 1; }
  if (sel) { g.fillStyle = 'rgba(255,160,0,0.25)'; g.fillRect(Math.min(sel[0], sel[1]), 0, Math.abs(sel[1] - sel[0]), h); }
  cv.dataset.mode = tl.mode;
  cv.dataset.summaryRows = tl.rows ? 'exact' : 'sampled'; // summary mode: what its tracks show
  function add(row, it) { (items[row] || (items[row] = [])).push(Object.assign(it, { sy: y0 })); }
}
// a value of a variable's range: integers whole (digits grouped), others with 4 significant digits
function fmtNum(x) {
  if (Number.isInteger(x) && Math.abs(x) < 1e15) return x.toLocaleString('en-US').replace(/,/g, '\u2009');
  return Math.abs(x) >= 1e5 || (Math.abs(x) < 1e-2 && x !== 0) ? x.toExponential(3) : String(+x.toPrecision(4));
}
// s, or its end after '…' that fits in w px (names of one family differ at their end)
function fitTail(g, s, w) {
  if (g.measureText(s).width <= w) return s;
  let lo = 0, hi = s.length;
  while (lo < hi) { const m = (lo + hi) >> 1; if (g.measureText('…' + s.slice(m)).width <= w) hi = m; else lo = m + 1; }
  return '…' + s.slice(lo);
}
// Paints a summary answer of /api/timeline (the level of detail) on g. Its columns were
// computed for the answer's window [tl.from, tl.to] (offsets, placed by X): the exact
// rows (runs of columns where a producer has an event or a state, in their dominant
// type), when the answer has them, with the types sampled per column over their lower
// half; else the sampled cells alone. rowOf: producer id -> row (a Map), yOf: a row's
// top, type: a type id -> {color}; the rows first..last are painted.
export function paintSummary(g, tl, X, yOf, rowOf, type, first, last) {
  const pxw = (X(tl.to) - X(tl.from)) / tl.width, x0 = X(tl.from);
  for (const { producer, runs } of tl.rows || []) {
    const row = rowOf.get(producer); if (row === undefined || row < first || row > last) continue;
    for (const [x, len, t] of runs) {
      const ty = type(t); if (!ty) continue;
      const a = Math.round(x0 + x * pxw), b = Math.round(x0 + (x + len) * pxw);
      g.fillStyle = ty.color; g.fillRect(a, yOf(row) + 2, Math.max(1, b - a), ROW_H - 4);
    }
  }
  const cy = tl.rows ? ROW_H / 2 + 1 : 2;
  for (const col of tl.columns) {
    for (const [prod, t, n] of col.cells) {
      const row = rowOf.get(prod), ty = type(t); if (row === undefined || !ty || row < first || row > last) continue;
      g.fillStyle = ty.color; g.globalAlpha = tl.rows ? 1 : Math.min(1, 0.35 + n / 4);
      g.fillRect(x0 + col.x * pxw, yOf(row) + cy, Math.max(1, pxw), ROW_H - 2 - cy);
    }
  }
  g.globalAlpha = 1;
}
function window_() { const u = state.trace.info.time_unit, [a, b] = span(); return `${fmtAt(a, u)} – ${fmtAt(b, u)}`; }

// The ruler: ticks every 1, 2 or 5 × 10^k ticks (of 10^u s), the least step whose labels
// fit; labels absolute (the open trace's ticks) or offsets.
export function rulerTicks(from, to, w, measure, u = state.trace.info.time_unit, absolute = state.absolute) {
  const d = Math.max(1, to - from);
  let step = 1;
  for (let k = 0; k < 400; k++) {
    step = [1, 2, 5][k % 3] * 10 ** Math.floor(k / 3);
    if (step / d * w < MIN_TICK_PX) continue;
    // absolute labels fall on round absolute ticks, relative ones on round offsets
    const base = absolute ? Number(BigInt(absTicks(0)) % BigInt(step)) : 0;
    const t0 = Math.ceil((from + base) / step) * step - base;
    const ticks = [];
    for (let t = t0; t <= to; t += step) ticks.push({ t, label: fmtTick(t, u, step, Math.max(Math.abs(from), Math.abs(to)), absolute) });
    const widest = Math.max(0, ...ticks.map(x => measure(x.label)));
    if (widest + 12 <= step / d * w) return { step, ticks };
  }
  return { step, ticks: [] };
}
function drawRuler() {
  const rc = $('timeline-ruler');
  rc.style.width = $('timeline').clientWidth + 'px'; // over the tracks, whatever the scroll bar takes
  const [from, to] = span();
  return paintRuler(rc, from, to, state.trace.info.time_unit, state.absolute);
}
// Draws a ruler of [from, to] (ticks of 10^unit s) on the canvas rc; its ticks also in
// its dataset (ticks: labels, tickTs: times, step). Returns the ticks.
export function paintRuler(rc, from, to, unit, absolute) {
  const { g, w, h } = fit(rc, RULER_H);
  g.clearRect(0, 0, w, h);
  g.font = '10px sans-serif';
  const { step, ticks } = rulerTicks(from, to, w, s => g.measureText(s).width, unit, absolute);
  const X = t => (t - from) / Math.max(1, to - from) * w;
  g.strokeStyle = '#999'; g.fillStyle = '#333';
  g.beginPath(); g.moveTo(0, h - 0.5); g.lineTo(w, h - 0.5); g.stroke();
  let end = -Infinity; // the right end of the last label drawn: a label kept inside the canvas may not reach it
  for (const { t, label } of ticks) {
    const x = Math.round(X(t)) + 0.5, lw = g.measureText(label).width;
    g.beginPath(); g.moveTo(x, h - 8); g.lineTo(x, h); g.stroke();
    for (let k = 1; k < 5; k++) { const xm = Math.round(X(t + step * k / 5)) + 0.5; g.beginPath(); g.moveTo(xm, h - 3); g.lineTo(xm, h); g.stroke(); }
    const lx = Math.min(w - lw - 1, Math.max(0, x - lw / 2));
    if (lx < end + 6) continue;
    g.fillText(label, lx, 11);
    end = lx + lw;
  }
  rc.dataset.ticks = JSON.stringify(ticks.map(x => x.label));
  rc.dataset.tickTs = JSON.stringify(ticks.map(x => x.t));
  rc.dataset.step = String(step);
  rc.title = `ticks every ${fmtTime(step, unit)}`;
  return ticks;
}

/* ---------------- interaction ---------------- */
function hit(px, py) {
  const scroll = $('tl-scroll'), y = py + scroll.scrollTop;
  const row = rowAt(y); if (row >= rows.length || !items[row]) return null;
  let best = null;
  for (const it of items[row]) {
    const iy0 = it.y0 + it.sy, iy1 = it.y1 + it.sy; // items are in the canvas of their draw, scrolled by sy
    if (px >= it.x0 - 1 && px <= it.x1 + 1 && y >= iy0 && y <= iy1) best = it; // the last drawn is on top
  }
  return best;
}
function eventDetail(e) {
  const ty = typeById(e[2]), pr = prodById(e[3]);
  return { id: e[7], ts: absTicks(e[0]), end: absTicks(e[1]), producer: e[3], type: e[2], producerName: pr ? pr.name : '', typeName: ty ? ty.name : '' };
}
// The tooltip itself is details.js's, shown on traza:hover (one tooltip for every view);
// a state drawn in the last lane though nested deeper says so in `note`.
function setHover(it, ev) {
  const same = it === hovered || (it && hovered && it.e === hovered.e);
  hovered = it;
  const d = it ? Object.assign(eventDetail(it.e), { x: ev.pageX, y: ev.pageY }) : null;
  if (d && (it.e.lane || 0) >= MAX_LANES) d.note = `nesting depth ${it.e.lane + 1}: drawn in lane ${MAX_LANES}`;
  window.dispatchEvent(new CustomEvent('traza:hover', { detail: d }));
  if (!same) requestDraw();
}

function zoom(k, at) {
  const [a, b] = span(); const t = at === undefined ? (a + b) / 2 : at;
  setRange(t - (t - a) * k, t + (b - t) * k);
}
function pan(frac) {
  const [a, b] = span(), d = (b - a) * frac, end = state.trace.span;
  const dd = Math.max(-a, Math.min(end - b, d));
  if (dd) setRange(a + dd, b + dd);
}

// A time typed in the go-to box: an offset from the trace's start with a unit (1.5ms,
// 20 us, 3s; a bare number is in ticks), or @TICKS, an absolute stored tick. On a
// count axis (cycles, instructions: time.axis) a number is a count, and a time in
// seconds means nothing (null).
export function parseTime(txt) {
  const s = txt.trim().replace(/^\+/, '');
  if (s.startsWith('@')) { if (!/^@-?\d+$/.test(s)) return null; return rel(s.slice(1)); }
  const m = /^(-?\d+(?:\.\d*)?(?:e-?\d+)?)\s*(s|ms|us|µs|ns|ps|fs|ticks?|cycles?|instr(?:uctions?)?)?$/i.exec(s);
  if (!m) return null;
  const exp = { s: 0, ms: -3, us: -6, 'µs': -6, ns: -9, ps: -12, fs: -15 }[(m[2] || '').toLowerCase()];
  if (countAxis()) return exp === undefined ? parseFloat(m[1]) : null;
  if (exp === undefined) return parseFloat(m[1]);
  return parseFloat(m[1]) * 10 ** (exp - state.trace.info.time_unit);
}
function goTo(t) {
  const [a, b] = span();
  let d = b - a;
  if (d >= state.trace.span) d = state.trace.span / 10;
  d = Math.max(2, d);
  // centred on t, or as near as the trace's ends allow: the view keeps its width
  const lo = Math.max(0, Math.min(t - d / 2, state.trace.span - d));
  gotoAt = t;
  setRange(lo, lo + d);
}

export function setupTimeline() {
  const cv = $('timeline'), lc = $('timeline-labels'), scroll = $('tl-scroll'), box = $('timeline-box');
  cv.addEventListener('wheel', e => {
    e.preventDefault();
    const [a, b] = span();
    zoom(e.deltaY > 0 ? 1.25 : 0.8, a + (b - a) * e.offsetX / cv.clientWidth);
  }, { passive: false });
  scroll.addEventListener('scroll', () => { hovered = null; requestDraw(); });
  let drag = null;
  cv.addEventListener('mousedown', e => {
    box.focus({ preventScroll: true });
    drag = { x: e.offsetX, span: span(), shift: e.shiftKey, moved: false };
    if (e.shiftKey) sel = [e.offsetX, e.offsetX];
  });
  window.addEventListener('mouseup', e => {
    if (!drag) return;
    const d = drag; drag = null;
    if (d.shift) {
      const s = sel; sel = null;
      const r = cv.getBoundingClientRect(), x = e.clientX - r.left;
      const [a, b] = d.span, T = px => a + (b - a) * px / cv.clientWidth;
      if (Math.abs(x - s[0]) >= 3) setRange(T(Math.min(s[0], x)), T(Math.max(s[0], x))); else drawTimeline();
      return;
    }
    if (!d.moved) {
      const it = hit(d.x, e.clientY - cv.getBoundingClientRect().top);
      if (it) window.dispatchEvent(new CustomEvent('traza:event', { detail: eventDetail(it.e) }));
    }
  });
  cv.addEventListener('mousemove', e => {
    pointerX = e.offsetX;
    if (!drag) { setHover(hit(e.offsetX, e.offsetY), e); return; }
    if (Math.abs(e.offsetX - drag.x) > 2) drag.moved = true;
    if (drag.shift) { sel = [sel[0], e.offsetX]; requestDraw(); return; }
    if (!drag.moved) return;
    const [a, b] = drag.span, dt = (e.offsetX - drag.x) / cv.clientWidth * (b - a);
    const dd = Math.max(a - state.trace.span + (b - a), Math.min(a, dt));
    if (dd) setRange(a - dd, b - dd);
  });
  cv.addEventListener('mouseleave', () => { pointerX = null; setHover(null); });
  lc.addEventListener('click', e => {
    const i = rowAt(e.offsetY + scroll.scrollTop), r = rows[i]; if (!r || !r.hasKids) return;
    if (state.folded.has(r.id)) state.folded.delete(r.id); else state.folded.add(r.id);
    buildRows(); drawTimeline();
  });
  lc.addEventListener('mousemove', e => {
    const i = rowAt(e.offsetY + scroll.scrollTop), r = rows[i];
    if (!r) { lc.title = ''; return; }
    const n = layout.lanes[i];
    const k = Math.floor((e.offsetY + scroll.scrollTop - layout.top[i] - stateBand(n)) / VAR_H);
    const v = k >= 0 && layout.varsOf[i] ? [...layout.varsOf[i].keys()][k] : undefined;
    if (v !== undefined) { lc.title = `${typeById(v).name}: a variable of ${r.name}`; return; }
    lc.title = r.name + (n > MAX_LANES ? `: states nest ${n} deep; lanes below ${MAX_LANES} are drawn in lane ${MAX_LANES}` : n > 1 ? `: states nest ${n} deep` : '') +
      (r.hasKids ? ' (click to fold or unfold)' : '');
  });
  // keyboard: W/S zoom, A/D pan, when the timeline has the focus or nothing typed into has
  window.addEventListener('keydown', e => {
    if (!state.trace || e.ctrlKey || e.metaKey || e.altKey || !$('tab-overview').classList.contains('on')) return;
    const a = document.activeElement;
    if (a && a !== box && (a.tagName === 'INPUT' || a.tagName === 'TEXTAREA' || a.tagName === 'SELECT' || a.isContentEditable)) return;
    const k = e.key.toLowerCase();
    const [a0, b0] = span(), at = pointerX === null ? undefined : a0 + (b0 - a0) * pointerX / $('timeline').clientWidth;
    if (k === 'w') zoom(0.8, at); else if (k === 's') zoom(1.25, at); else if (k === 'a') pan(-0.2); else if (k === 'd') pan(0.2); else return;
    e.preventDefault();
  });
  // the search (details.js) and other views centre the timeline on an event
  window.addEventListener('traza:goto', e => {
    if (state.trace && e.detail && e.detail.ts !== undefined) goTo(rel(e.detail.ts));
  });
  const go = $('tl-goto');
  go.addEventListener('keydown', e => {
    if (e.key !== 'Enter' || !state.trace) return;
    const t = parseTime(go.value);
    go.classList.toggle('bad', t === null || !(t >= 0 && t <= state.trace.span));
    if (t === null || !(t >= 0 && t <= state.trace.span)) { go.title = 'a time in the trace: 1.5ms from its start, or @TICKS'; return; }
    go.dataset.at = absTicks(t);
    goTo(t);
  });
  onChange(async what => {
    if (!state.trace || !$('tab-overview').classList.contains('on')) return;
    if (what.has('trace')) {
      tl = null; gotoAt = null; hovered = null; scroll.scrollTop = 0; buildRows();
      const axis = countAxis();
      go.placeholder = axis ? `go to 1000 ${axis === 'instructions' ? 'instr' : axis} or @ticks` : 'go to 1.5ms or @ticks';
    }
    else if (what.has('version')) { hovered = null; buildRows(); } // a new version of the trace: new producers, the rows kept
    drawTimeline(); // at once with the data in hand: the ruler and the tracks follow the view
    if (what.has('range') || what.has('filter') || what.has('result') || what.has('trace') || what.has('version') || what.has('tab')) {
      try { await loadTimeline(); } catch (e) { console.error(e); $('timeline-info').textContent = 'error: ' + e.message; }
    }
  });
  window.addEventListener('resize', () => drawTimeline());
}
