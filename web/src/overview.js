// The overview tab: density chart with brush, Gantt timeline, statistics pies and
// the event table with virtual scrolling, regex column filters and CSV export.
import { state, api, apiUrl, changed, onChange, selection, span, setRange, rel, absTicks, fmtAt, fmtAbs, typeById, fitCanvas, el } from './state.js';
import { pie } from './charts.js';

const ROW_H = 22;

/* ---------------- density ---------------- */
let densityData = null, brush = null;
async function loadDensity() {
  if (!state.trace) return;
  const cv = document.getElementById('density');
  const slices = Math.max(10, Math.min(2000, Math.floor((cv.clientWidth || 800) / 2)));
  // the density shows the whole trace (within the result used as a filter); the
  // brush shows the selected range
  const p = { trace: state.trace.info.id, slices, result: state.result || undefined };
  densityData = await api('density', p);
  densityData.from = rel(densityData.from); densityData.to = rel(densityData.to);
  drawDensity();
}
function drawDensity() {
  const cv = document.getElementById('density');
  const { g, w, h } = fitCanvas(cv, 90);
  g.clearRect(0, 0, w, h);
  if (!densityData) return;
  const c = densityData.counts, max = Math.max(1, densityData.max), bw = w / c.length;
  g.fillStyle = '#4a7bd0';
  c.forEach((v, i) => { const bh = (h - 12) * v / max; g.fillRect(i * bw, h - 12 - bh, Math.max(1, bw - 0.3), bh); });
  const X = t => (t - densityData.from) / Math.max(1, densityData.to - densityData.from) * w;
  const [a, b] = brush ? brush : state.range ? [X(state.range.from), X(state.range.to)] : [null, null];
  if (a !== null) {
    g.fillStyle = 'rgba(255,160,0,0.25)'; g.fillRect(Math.min(a, b), 0, Math.abs(b - a), h - 12);
    g.strokeStyle = '#e08000'; g.strokeRect(Math.min(a, b), 0, Math.abs(b - a), h - 12);
  }
  const u = state.trace.info.time_unit;
  g.fillStyle = '#555'; g.font = '10px sans-serif';
  g.fillText(fmtAt(densityData.from, u), 2, h - 2);
  const t1 = fmtAt(densityData.to, u); g.fillText(t1, w - g.measureText(t1).width - 2, h - 2);
}
function setupDensity() {
  const cv = document.getElementById('density');
  let x0 = null;
  cv.addEventListener('mousedown', e => { x0 = e.offsetX; brush = [x0, x0]; drawDensity(); });
  cv.addEventListener('mousemove', e => { if (x0 !== null) { brush = [x0, e.offsetX]; drawDensity(); } });
  const end = e => {
    if (x0 === null) return;
    const w = cv.clientWidth, a = Math.min(x0, e.offsetX), b = Math.max(x0, e.offsetX);
    x0 = null; brush = null;
    if (b - a < 3) { drawDensity(); return; }
    const T = px => densityData.from + px / w * (densityData.to - densityData.from);
    setRange(T(a), T(b));
  };
  cv.addEventListener('mouseup', end);
  cv.addEventListener('mouseleave', e => { if (x0 !== null) end(e); });
  cv.addEventListener('dblclick', () => { state.range = null; changed('range'); });
}

/* ---------------- timeline ---------------- */
let tl = null; // last answer
let rows = []; // visible producer rows [{id, depth, hasKids}]
let rowOf = new Map(); // producer id -> row index (folded descendants map to the ancestor)
function buildRows() {
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
  for (const r of kids.get(-1) || []) walk(r, 0, null);
}
async function loadTimeline() {
  if (!state.trace) return;
  const cv = document.getElementById('timeline');
  const width = Math.max(50, Math.min(4096, cv.clientWidth || 800));
  const [from, to] = span();
  const p = selection({ width, from: absTicks(from), to: absTicks(to) });
  const t0 = performance.now();
  tl = await api('timeline', p);
  tl.ms = performance.now() - t0;
  tl.from = rel(tl.from); tl.to = rel(tl.to);
  if (tl.mode === 'detail') for (const e of tl.events) { e[0] = rel(e[0]); e[1] = rel(e[1]); }
  drawTimeline();
}
function drawTimeline() {
  const cv = document.getElementById('timeline'), lc = document.getElementById('timeline-labels');
  const rh = 18, h = Math.max(60, Math.min(600, rows.length * rh + 4));
  const { g, w } = fitCanvas(cv, h);
  const L = fitCanvas(lc, h);
  g.clearRect(0, 0, w, h); L.g.clearRect(0, 0, L.w, h);
  L.g.font = '11px sans-serif';
  rows.forEach((r, i) => {
    L.g.fillStyle = i % 2 ? '#f4f4f4' : '#fff'; L.g.fillRect(0, i * rh, L.w, rh);
    g.fillStyle = i % 2 ? '#f7f7f7' : '#fff'; g.fillRect(0, i * rh, w, rh);
    L.g.fillStyle = r.color; L.g.fillRect(2 + r.depth * 10, i * rh + 5, 6, 8);
    L.g.fillStyle = '#222';
    const mark = r.hasKids ? (state.folded.has(r.id) ? '▸ ' : '▾ ') : '  ';
    L.g.fillText(mark + r.name, 10 + r.depth * 10, i * rh + 13);
  });
  if (!tl) return;
  const { from, to } = tl;
  const X = t => (t - from) / Math.max(1, to - from) * w;
  const info = document.getElementById('timeline-info');
  if (tl.mode === 'detail') {
    const vars = new Map();
    for (const e of tl.events) {
      const [ts, end, type, prod, eprod, level, value] = e;
      const ty = typeById(type); const row = rowOf.get(prod); if (row === undefined || !ty) continue;
      const y = row * rh; g.fillStyle = ty.color; g.strokeStyle = ty.color;
      if (ty.category === 'state') {
        const inset = Math.min(6, level * 2);
        g.fillRect(X(ts), y + 2 + inset, Math.max(1, X(end) - X(ts)), rh - 4 - 2 * inset);
      } else if (ty.category === 'punctual') {
        g.fillRect(X(ts), y + 1, 1.5, rh - 2);
      } else if (ty.category === 'link') {
        const r2 = rowOf.get(eprod); if (r2 === undefined) continue;
        const xa = X(ts), ya = y + rh / 2, xb = X(end), yb = r2 * rh + rh / 2;
        g.beginPath(); g.moveTo(xa, ya); g.lineTo(xb, yb); g.stroke();
        const a = Math.atan2(yb - ya, xb - xa);
        g.beginPath(); g.moveTo(xb, yb); g.lineTo(xb - 6 * Math.cos(a - 0.4), yb - 6 * Math.sin(a - 0.4));
        g.lineTo(xb - 6 * Math.cos(a + 0.4), yb - 6 * Math.sin(a + 0.4)); g.closePath(); g.fill();
      } else if (ty.category === 'variable') {
        const key = prod + ':' + type; if (!vars.has(key)) vars.set(key, { row, color: ty.color, pts: [] });
        vars.get(key).pts.push([ts, end, value ?? 0]);
      }
    }
    for (const v of vars.values()) {
      const vals = v.pts.map(p => p[2]); const lo = Math.min(...vals), hi = Math.max(...vals);
      const Y = x => v.row * rh + rh - 2 - (rh - 4) * (hi > lo ? (x - lo) / (hi - lo) : 0.5);
      g.strokeStyle = v.color; g.beginPath();
      v.pts.forEach(([a, b, x], i) => { if (i) g.lineTo(X(a), Y(x)); else g.moveTo(X(a), Y(x)); g.lineTo(X(b), Y(x)); });
      g.stroke();
    }
    info.textContent = `${window_()} · ${tl.events.length} events drawn (${tl.count} start in the window${tl.truncated ? ', truncated' : ''}) · ${tl.ms.toFixed(0)} ms`;
  } else {
    const pxw = w / tl.width;
    for (const col of tl.columns) {
      for (const [prod, type, n] of col.cells) {
        const row = rowOf.get(prod), ty = typeById(type); if (row === undefined || !ty) continue;
        g.fillStyle = ty.color; g.globalAlpha = Math.min(1, 0.35 + n / 4);
        g.fillRect(col.x * pxw, row * rh + 2, Math.max(1, pxw), rh - 4);
      }
    }
    g.globalAlpha = 1;
    info.textContent = `${window_()} · level of detail: ${tl.count} events summarised per pixel (${tl.columns.length} columns) · ${tl.ms.toFixed(0)} ms`;
  }
  cv.dataset.mode = tl.mode;
}
function window_() { const u = state.trace.info.time_unit; return `${fmtAt(tl.from, u)} – ${fmtAt(tl.to, u)}`; }
function setupTimeline() {
  const cv = document.getElementById('timeline'), lc = document.getElementById('timeline-labels');
  cv.addEventListener('wheel', e => {
    e.preventDefault();
    const [a, b] = span(); const w = cv.clientWidth;
    const t = a + (b - a) * e.offsetX / w, k = e.deltaY > 0 ? 1.25 : 0.8;
    setRange(t - (t - a) * k, t + (b - t) * k);
  }, { passive: false });
  let drag = null;
  cv.addEventListener('mousedown', e => { drag = { x: e.offsetX, span: span() }; });
  window.addEventListener('mouseup', () => { drag = null; });
  cv.addEventListener('mousemove', e => {
    if (!drag) return;
    const [a, b] = drag.span, dt = (e.offsetX - drag.x) / cv.clientWidth * (b - a);
    if (a - dt < 0 || b - dt > state.trace.span) return;
    setRange(a - dt, b - dt);
  });
  lc.addEventListener('click', e => {
    const r = rows[Math.floor(e.offsetY / 18)]; if (!r || !r.hasKids) return;
    if (state.folded.has(r.id)) state.folded.delete(r.id); else state.folded.add(r.id);
    buildRows(); drawTimeline();
  });
}

/* ---------------- pies ---------------- */
async function loadStats() {
  if (!state.trace) return;
  const s = await api('stats', selection());
  const box = document.getElementById('pies'); box.replaceChildren();
  box.append(pie('Events per type', s.types.map(t => ({ label: t.name, value: t.count, color: t.color })), 'pie-types'));
  box.append(pie('Events per producer', s.producers.map(p => ({ label: p.name, value: p.count, color: p.color })), 'pie-producers'));
  const d = s.types.filter(t => t.duration > 0);
  box.append(pie('State/link durations', d.map(t => ({ label: t.name, value: t.duration, color: t.color })), 'pie-durations'));
  document.getElementById('stats-note').textContent = `${s.total} events${s.sampled ? ' (sampled)' : ''}${s.partial ? ` (partial: time budget reached, measured up to ${fmtAt(rel(s.covered_to), state.trace.info.time_unit)})` : ''}`;
}

/* ---------------- table ---------------- */
const COLS = [['id', 'id', 70], ['ts', 'ts', 190], ['end_ts', 'end', 190], ['type', 'type', 130], ['category', 'category', 80],
  ['producer', 'producer', 160], ['params', 'parameters', 260]];
const FILTERABLE = new Set(['ts', 'end_ts', 'type', 'category', 'producer']);
let total = 0, pageOffset = -1, pageReq = 0;
function setupTable() {
  const t = document.getElementById('table');
  const head = el('div', { class: 'thead' });
  const filt = el('div', { class: 'tfilters' });
  for (const [k, label, w] of COLS) {
    head.append(el('span', { style: `width:${w}px` }, label));
    if (FILTERABLE.has(k)) {
      const inp = el('input', { placeholder: 'regex', 'data-testid': 'filter-' + k, style: `width:${w - 6}px`, title: 'PCRE2 regular expression; !re negates' });
      let timer = null;
      inp.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(() => { state.filters[k] = inp.value; changed('filter'); }, 250); });
      filt.append(inp);
    } else if (k === 'params') {
      // one parameter column at a time: its name, then a regex over its values (re.NAME=)
      const name = el('input', { placeholder: 'param', 'data-testid': 'filter-param-name', style: 'width:80px', title: 'parameter name' });
      const inp = el('input', { placeholder: 'regex', 'data-testid': 'filter-param', style: `width:${w - 96}px`, title: 'PCRE2 regular expression over this parameter; !re negates' });
      let timer = null, prev = null;
      const upd = () => { clearTimeout(timer); timer = setTimeout(() => {
        if (prev) delete state.filters[prev];
        prev = name.value.trim() || null;
        if (prev) state.filters[prev] = inp.value;
        changed('filter'); }, 250); };
      name.addEventListener('input', upd); inp.addEventListener('input', upd);
      filt.append(el('span', { style: `width:${w}px`, class: 'pfilter' }, name, inp));
    } else filt.append(el('span', { style: `width:${w}px` }));
  }
  const vs = el('div', { class: 'vscroll', 'data-testid': 'vscroll' });
  const rowsBox = el('div', { class: 'rows' });
  const spacer = el('div', { class: 'spacer' });
  vs.append(rowsBox, spacer);
  t.append(head, filt, vs);
  vs.addEventListener('scroll', () => loadPage());
}
function filterParams() { return selection(); }
async function loadTable() {
  if (!state.trace) return;
  pageOffset = -1;
  const vs = document.querySelector('.vscroll');
  vs.scrollTop = 0;
  await loadPage(true);
  document.getElementById('csv').href = apiUrl('events.csv', Object.assign(filterParams(), { limit: 100000 }));
}
const MAX_SCROLL_ROWS = 500000; // beyond, scrolling maps proportionally onto the events
async function loadPage(force) {
  const vs = document.querySelector('.vscroll');
  const visible = Math.ceil(vs.clientHeight / ROW_H) + 2;
  const scrollRows = Math.min(total, MAX_SCROLL_ROWS);
  let offset = Math.floor(vs.scrollTop / ROW_H);
  if (total > MAX_SCROLL_ROWS && scrollRows > visible) offset = Math.floor(offset / (scrollRows - visible) * (total - visible));
  offset = Math.max(0, offset);
  if (!force && offset === pageOffset) return;
  pageOffset = offset;
  const my = ++pageReq;
  const p = Object.assign(filterParams(), { offset, limit: visible });
  let res;
  try { res = await api('events', p); } catch (e) { document.getElementById('table-count').textContent = 'error: ' + e.message; return; }
  if (my !== pageReq) return;
  total = res.total;
  document.getElementById('table-count').textContent = res.total_exact === false
    ? `about ${total} events in the selection (estimated: the count reached its time budget after ${res.scanned} matches)`
    : `${total} events in the selection`;
  document.getElementById('table').dataset.total = String(total);
  vs.querySelector('.spacer').style.height = Math.min(total, MAX_SCROLL_ROWS) * ROW_H + 'px';
  const box = vs.querySelector('.rows'); box.replaceChildren();
  for (const ev of res.events) {
    const r = el('div', { class: 'trow' });
    const ty = typeById(ev.type_id);
    const params = ev.params ? Object.entries(ev.params).map(([k, v]) => `${k}=${v}`).join(' ') : '';
    const u = state.trace.info.time_unit;
    const at = x => (x === undefined ? '' : fmtAt(rel(x), u));
    const vals = [ev.id, at(ev.ts), at(ev.end_ts), ev.type, ev.category, ev.producer + (ev.end_producer ? ' → ' + ev.end_producer : ''), params];
    COLS.forEach(([k, , w], i) => {
      const c = el('span', { style: `width:${w}px` }, vals[i]);
      // the exact stored ticks, whatever is shown
      if ((k === 'ts' || k === 'end_ts') && ev[k] !== undefined) { c.dataset.ts = ev[k]; c.title = fmtAbs(ev[k], u) + ` (${ev[k]} ticks)`; }
      if (k === 'type' && ty) c.prepend(el('i', { class: 'sw', style: 'background:' + ty.color }));
      r.append(c);
    });
    box.append(r);
  }
}

export function setupOverview() {
  setupDensity(); setupTimeline(); setupTable();
  onChange(async what => {
    if (!state.trace || !document.getElementById('tab-overview').classList.contains('on')) return;
    const jobs = [];
    if (what.has('trace')) { buildRows(); jobs.push(loadDensity()); }
    if (what.has('timefmt')) { drawDensity(); drawTimeline(); jobs.push(loadPage(true)); }
    if (what.has('range') || what.has('filter') || what.has('result') || what.has('trace') || what.has('tab')) {
      if (!what.has('trace')) drawDensity();
      if (what.has('tab') || what.has('result')) jobs.push(loadDensity());
      jobs.push(loadTimeline(), loadStats(), loadTable());
    }
    try { await Promise.all(jobs); } catch (e) { console.error(e); document.getElementById('timeline-info').textContent = 'error: ' + e.message; }
    document.body.dataset.ready = String(Date.now());
  });
  window.addEventListener('resize', () => { drawDensity(); drawTimeline(); });
}
