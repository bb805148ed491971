// The side-by-side timeline of the Diff tab: the base trace above the open one on one
// axis of time relative to each run's alignment point (its first event, or the first
// event of a type picked in "align at": a function of a call-stack trace), each run
// drawn from its own /api/timeline summary by the timeline's painter, under one ruler
// of relative time. The wheel zooms both around the cursor, a drag pans both, a
// double click shows both whole, a click on an event aligns both runs at it (its type's
// Nth event in each); the cursor's time is marked across both, and the ranges where a
// change shows (Where in time) are shaded over the open run. Nested states are drawn
// in depth lanes inside their track.
import { api, el, fmtTime, fmtRel } from './state.js';
import { paintSummary, paintRuler } from './timeline.js';

const ROW_H = 18;        // a track (the timeline's summary rows)
const MAX_ROWS = 12;     // tracks in view per run; more scroll
const MAX_TRACKS = 400;  // tracks drawn per run
const LANES = 7;         // depth lanes a track shows at most (deeper levels share the last)
let sides = [];          // per run: {role, name, info, typeMap, rows, rowOf, k, span, origin, align, alignAt, tl}
let U = -9;              // the axis's unit, 10^U s: the finer of the two runs'
let view = null;         // the window on the axis, [from, to] in 10^U s from the alignment points
let extent = [0, 1];     // the axis from the earliest start to the latest end
let loads = 0;           // only the latest answers are drawn
let frame = 0;
let cursor = null;       // the mouse's x over either run (css px): a line through both
let marks = [];          // the open run's time ranges of a change: {from, to, slower} in its ticks

const $ = id => document.getElementById(id);

// The panel, empty until show() is given the two runs.
export function diffTimelinePanel() {
  sides = []; view = null; marks = []; loads++;
  const align = el('input', { id: 'dt-align', 'data-testid': 'diff-align', list: 'dt-types', placeholder: 'start', size: 24,
    title: 'an event type (a function) of both runs: each run is aligned at its first event of that type, or its Nth with "TYPE #N" (an iteration of a loop); empty: at its start' });
  align.addEventListener('change', () => realign(align.value.trim()).catch(showErr));
  const side = role => el('div', { class: 'dt-side' },
    el('div', { class: 'dt-title', id: `dt-title-${role}`, 'data-testid': `diff-tl-title-${role}` }),
    el('div', { class: 'dt-box', id: `dt-box-${role}` },
      el('canvas', { class: 'dt-labels', id: `dt-labels-${role}` }),
      el('canvas', { class: 'dt-tracks', id: `dt-${role}`, 'data-testid': `diff-tl-${role}` })));
  const p = el('div', { class: 'panel', id: 'dt-panel', 'data-testid': 'diff-timeline' },
    el('h3', {}, 'Side by side ', el('small', {}, 'the base above the open trace, in time from each one\'s alignment point (red line), the ranges of Where in time shaded; wheel: zoom both, drag: pan both, click an event: align both at it, double-click: whole runs')),
    el('div', { class: 'controls' }, el('label', {}, 'align at ', align), el('datalist', { id: 'dt-types' }),
      el('button', { 'data-testid': 'diff-align-start', onclick: () => { align.value = ''; realign('').catch(showErr); } }, 'starts'),
      el('span', { id: 'dt-note', 'data-testid': 'diff-tl-note', class: 'hint' }), ' ', el('span', { id: 'dt-cursor', class: 'hint' })),
    el('div', { class: 'dt-ruler-row' }, el('div', { class: 'dt-gutter' }), el('canvas', { id: 'dt-ruler', 'data-testid': 'diff-tl-ruler' })),
    side('base'), side('open'));
  for (const role of ['base', 'open']) setupCanvas(p.querySelector(`#dt-${role}`));
  return p;
}

function showErr(e) { console.error(e); $('dt-note').textContent = 'error: ' + e.message; }

// One run: its producers as tracks (the leaves, in the answer's order), its types by id.
async function loadSide(role, name) {
  const t = await api('trace', { trace: name });
  const parents = new Set(t.producers.map(p => p.parent));
  const leaves = t.producers.filter(p => !parents.has(p.id)), rows = leaves.slice(0, MAX_TRACKS);
  return {
    role, name, info: t.info, rows, rowOf: new Map(rows.map((p, i) => [p.id, i])),
    typeMap: new Map(t.types.map(x => [x.id, x])), typeByName: new Map(t.types.map(x => [x.name, x])), tracks: leaves.length,
    origin: BigInt(t.info.min_ts), span: Number(BigInt(t.info.max_ts) - BigInt(t.info.min_ts)), align: 0, alignAt: '', tl: null,
  };
}

// Shows base above open, aligned at their starts.
export async function show(base, open) {
  const my = ++loads;
  const [a, b] = await Promise.all([loadSide('base', base), loadSide('open', open)]);
  if (my !== loads) return;
  sides = [a, b];
  U = Math.min(a.info.time_unit, b.info.time_unit);
  for (const s of sides) s.k = 10 ** (s.info.time_unit - U);
  // the types of both runs first, then those of one: what "align at" offers
  const names = [...a.typeByName.keys()].filter(n => b.typeByName.has(n)).sort();
  $('dt-types').replaceChildren(...names.slice(0, 2000).map(n => el('option', { value: n })));
  $('dt-align').value = '';
  for (const s of sides) {
    const h = Math.max(1, Math.min(MAX_ROWS, s.rows.length)) * ROW_H;
    $(`dt-box-${s.role}`).style.height = h + 'px';
  }
  place();
  view = extent.slice();
  await reload();
}

// The axis's extent from the runs' spans and alignment points.
function place() {
  extent = [Math.min(...sides.map(s => -s.align * s.k)), Math.max(...sides.map(s => (s.span - s.align) * s.k))];
  if (extent[1] - extent[0] < 2) extent[1] = extent[0] + 2;
}

// "TYPE" or "TYPE #N" (N >= 1): the type's name and which of its events.
function alignSpec(text) {
  const m = /^(.*?)\s*#\s*(\d+)$/.exec(text);
  return m && +m[2] >= 1 ? { name: m[1], nth: +m[2] } : { name: text, nth: 1 };
}

// Each run aligned at the Nth event of the type of spec (at its start for '').
async function realign(spec) {
  if (!sides.length) return;
  const note = $('dt-note');
  const { name, nth } = alignSpec(spec);
  const at = [];
  for (const s of sides) {
    if (!name) { at.push(0); continue; }
    const ty = s.typeByName.get(name);
    if (!ty) { note.textContent = `${s.name} has no event of type ${name}: the runs stay aligned as they were`; return; }
    const r = await api('events', { trace: s.name, types: ty.id, offset: nth - 1, limit: 1, total: 0 });
    if (!r.events.length) { note.textContent = `${s.name} has no event #${nth} of type ${name}: the runs stay aligned as they were`; return; }
    at.push(Number(BigInt(r.events[0].ts) - s.origin));
  }
  // the whole runs stay whole; a zoomed window keeps its width, centred on the alignment point
  const whole = view[0] <= extent[0] && view[1] >= extent[1], w = view[1] - view[0];
  sides.forEach((s, i) => { s.align = at[i]; s.alignAt = name ? (nth > 1 ? `${name} #${nth}` : name) : ''; });
  place();
  view = whole || w >= extent[1] - extent[0] ? extent.slice() : [-w / 2, w / 2];
  note.textContent = '';
  await reload();
}

// Each run's answer for the window in view (a summary: one column per pixel).
async function reload() {
  const my = ++loads;
  const cv = $('dt-open'), W = Math.max(50, cv.clientWidth || 800);
  const [v0, v1] = view;
  const answers = await Promise.all(sides.map(async s => {
    const a = Math.max(0, Math.floor(v0 / s.k + s.align)), b = Math.min(s.span, Math.ceil(v1 / s.k + s.align));
    if (b <= a) return null;
    const width = Math.max(1, Math.min(4096, Math.round((b - a) * s.k / (v1 - v0) * W)));
    const r = await api('timeline', { trace: s.name, from: (s.origin + BigInt(a)).toString(), to: (s.origin + BigInt(b)).toString(), width, max: 1 });
    r.from = Number(BigInt(r.from) - s.origin); r.to = Number(BigInt(r.to) - s.origin);
    if (r.mode === 'detail') for (const e of r.events) { e[0] = Number(BigInt(e[0]) - s.origin); e[1] = Number(BigInt(e[1]) - s.origin); }
    return r;
  }));
  if (my !== loads) return;
  sides.forEach((s, i) => { s.tl = answers[i]; });
  draw();
}

function requestDraw() { if (!frame) frame = requestAnimationFrame(() => { frame = 0; draw(); }); }

function draw() {
  if (!sides.length || !view) return;
  const [v0, v1] = view, d = Math.max(1, v1 - v0);
  const rc = $('dt-ruler');
  rc.style.width = $('dt-open').clientWidth + 'px';
  const ticks = paintRuler(rc, v0, v1, U, false);
  rc.dataset.view = JSON.stringify(view);
  for (const s of sides) {
    const cv = $(`dt-${s.role}`), lc = $(`dt-labels-${s.role}`);
    const h = Math.max(1, s.rows.length) * ROW_H;
    const dpr = window.devicePixelRatio || 1, w = cv.clientWidth || 800;
    for (const c of [cv, lc]) { c.style.height = h + 'px'; c.width = Math.round((c.clientWidth || w) * dpr); c.height = Math.round(h * dpr); }
    const g = cv.getContext('2d'), L = lc.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0); L.setTransform(dpr, 0, 0, dpr, 0, 0);
    const X = t => ((t - s.align) * s.k - v0) / d * w, lw = lc.clientWidth;
    L.font = '11px sans-serif';
    s.rows.forEach((p, i) => {
      L.fillStyle = i % 2 ? '#f4f4f4' : '#fff'; L.fillRect(0, i * ROW_H, lw, ROW_H);
      g.fillStyle = i % 2 ? '#f7f7f7' : '#fff'; g.fillRect(0, i * ROW_H, w, ROW_H);
      L.fillStyle = p.color; L.fillRect(2, i * ROW_H + 5, 6, 8);
      L.fillStyle = '#222'; L.fillText(p.name, 12, i * ROW_H + 13, lw - 14);
    });
    // outside the run: hatched grey
    g.fillStyle = 'rgba(0,0,0,0.06)';
    const xs = X(0), xe = X(s.span);
    if (xs > 0) g.fillRect(0, 0, xs, h);
    if (xe < w) g.fillRect(xe, 0, w - xe, h);
    if (s.role === 'open') for (const m of marks) {
      g.fillStyle = m.slower ? 'rgba(224,40,40,0.18)' : 'rgba(40,96,224,0.18)';
      g.fillRect(X(m.from), 0, Math.max(1, X(m.to) - X(m.from)), h);
    }
    g.strokeStyle = 'rgba(0,0,0,0.07)';
    for (const { t } of ticks) { const x = Math.round((t - v0) / d * w) + 0.5; g.beginPath(); g.moveTo(x, 0); g.lineTo(x, h); g.stroke(); }
    const tl = s.tl, last = s.rows.length - 1, type = id => s.typeMap.get(id);
    if (tl && tl.mode === 'summary') paintSummary(g, tl, X, r => r * ROW_H, s.rowOf, type, 0, last);
    else if (tl) {
      // nested states in depth lanes inside their track: a track's height shared by the
      // levels it shows in the window (level 0 on top), as the call-stack tab stacks them
      const depth = new Map();
      for (const e of tl.events) { const row = s.rowOf.get(e[3]); if (row !== undefined) depth.set(row, Math.max(depth.get(row) || 1, (e[5] || 0) + 1)); }
      for (const e of tl.events) {
        const row = s.rowOf.get(e[3]), ty = type(e[2]); if (row === undefined || !ty) continue;
        const lanes = Math.min(depth.get(row), LANES), lh = (ROW_H - 4) / lanes, lane = Math.min(e[5] || 0, lanes - 1);
        const x0 = X(e[0]);
        g.fillStyle = ty.color; g.fillRect(x0, row * ROW_H + 2 + lane * lh, Math.max(1.5, X(e[1]) - x0), Math.max(1, lh - (lanes > 1 ? 0.5 : 0)));
      }
      s.depth = depth;
      cv.dataset.lanes = String(Math.max(0, ...depth.values()));
    }
    if (cursor !== null) { g.fillStyle = 'rgba(0,0,0,0.45)'; g.fillRect(Math.round(cursor), 0, 1, h); }
    // the alignment point
    const xa = Math.round(-v0 / d * w) + 0.5;
    g.strokeStyle = '#d02020'; g.setLineDash([4, 3]); g.beginPath(); g.moveTo(xa, 0); g.lineTo(xa, h); g.stroke(); g.setLineDash([]);
    Object.assign(cv.dataset, { trace: s.name, align: String(s.align), alignAt: s.alignAt, x0: xs.toFixed(1), tracks: String(s.rows.length), view: JSON.stringify(view),
      marks: String(s.role === 'open' ? marks.length : 0),
      mode: tl ? tl.mode : 'none' });
    const u = s.info.time_unit;
    $(`dt-title-${s.role}`).textContent = `${s.role === 'base' ? 'base' : 'open'}: ${s.name} · span ${fmtTime(s.span, u)}` +
      (s.alignAt ? ` · aligned at its ${/#\d+$/.test(s.alignAt) ? '' : 'first '}${s.alignAt}, ${s.align ? fmtTime(s.align, u) + ' after' : 'at'} its start` : ' · aligned at its start') +
      (s.tracks > s.rows.length ? ` · ${s.rows.length} of ${s.tracks} tracks` : '');
  }
}

function setupCanvas(cv) {
  const at = x => view[0] + (view[1] - view[0]) * x / (cv.clientWidth || 1);
  const set = (a, b) => {
    const w = Math.max(2, Math.min(b - a, extent[1] - extent[0]));
    a = Math.max(extent[0], Math.min(a, extent[1] - w));
    view = [a, a + w];
    requestDraw();
    clearTimeout(cv._t); cv._t = setTimeout(() => reload().catch(showErr), 120);
  };
  cv.addEventListener('wheel', e => {
    if (!view) return;
    e.preventDefault();
    const t = at(e.offsetX), k = e.deltaY > 0 ? 1.25 : 0.8;
    set(t - (t - view[0]) * k, t + (view[1] - t) * k);
  }, { passive: false });
  let drag = null;
  cv.addEventListener('mousedown', e => {
    if (!view) return;
    drag = { x: e.offsetX, view: view.slice() };
    const x0 = e.offsetX, y0 = e.offsetY;
    window.addEventListener('mouseup', u => {
      drag = null;
      // a click, not a drag nor the first of a double click: align both runs at the event under it
      clearTimeout(cv._click);
      if (u.target === cv && Math.abs(u.offsetX - x0) < 3 && u.detail < 2)
        cv._click = setTimeout(() => alignAtEvent(cv, x0, y0).catch(showErr), 300);
    }, { once: true });
  });
  cv.addEventListener('mousemove', e => {
    cursor = e.offsetX;
    $('dt-cursor').textContent = `cursor at ${fmtRel(at(e.offsetX), U)} from the alignment point`;
    if (!drag) { requestDraw(); return; }
    const dt = (e.offsetX - drag.x) / (cv.clientWidth || 1) * (drag.view[1] - drag.view[0]);
    set(drag.view[0] - dt, drag.view[1] - dt);
  });
  cv.addEventListener('mouseleave', () => { cursor = null; $('dt-cursor').textContent = ''; requestDraw(); });
  cv.addEventListener('dblclick', () => { clearTimeout(cv._click); if (view) set(extent[0], extent[1]); });
}

// The event drawn under (x, y) of a run's canvas (in the depth lane under y), or null.
function eventAt(s, cv, x, y) {
  const tl = s.tl; if (!tl || tl.mode !== 'detail' || !view) return null;
  const [v0, v1] = view, w = cv.clientWidth || 800, t = (v0 + (v1 - v0) * x / w) / s.k + s.align, px = (v1 - v0) / w / s.k;
  const row = Math.floor(y / ROW_H), lanes = Math.min((s.depth && s.depth.get(row)) || 1, LANES);
  const lane = Math.max(0, Math.min(lanes - 1, Math.floor((y - row * ROW_H - 2) / ((ROW_H - 4) / lanes))));
  let best = null;
  for (const e of tl.events) {
    if (s.rowOf.get(e[3]) !== row || !s.typeMap.get(e[2]) || Math.min(e[5] || 0, lanes - 1) !== lane) continue;
    const d = e[0] <= t && t <= Math.max(e[1], e[0]) ? 0 : Math.min(Math.abs(t - e[0]), Math.abs(t - e[1]));
    if (d <= 2 * px && (!best || d < best.d)) best = { e, d };
  }
  return best && best.e;
}

// Aligns both runs at the event clicked in one of them: its type, and its rank among
// that type's events in its run (the other run at its event of the same rank).
async function alignAtEvent(cv, x, y) {
  const s = sides.find(r => `dt-${r.role}` === cv.id);
  const note = $('dt-note');
  if (!s) return;
  if (!s.tl || s.tl.mode !== 'detail') { note.textContent = 'zoom in until the events are drawn one by one to pick one'; return; }
  const e = eventAt(s, cv, x, y);
  if (!e) return;
  const ty = s.typeMap.get(e[2]);
  const r = await api('events', { trace: s.name, types: ty.id, to: (s.origin + BigInt(e[0])).toString(), limit: 1 });
  const spec = r.total > 1 ? `${ty.name} #${r.total}` : ty.name;
  $('dt-align').value = spec;
  await realign(spec);
}

// Shades the time ranges where a change shows (the Diff answer's ranges: seconds from the
// open run's first timestamp, its ticks of 10^unit s) over the open run.
export function markRanges(ranges, unit) {
  const k = 10 ** -unit;
  marks = ranges.flatMap(g => g.ranges.map(x => ({ from: x.from * k, to: x.to * k, slower: x.direction === 'slower' })));
  requestDraw();
}

// Redraws at the tab's width (the tab was hidden, or the window resized).
export function redraw() { if (sides.length) { draw(); reload().catch(showErr); } }
