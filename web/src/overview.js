// The overview tab: density chart with brush, the timeline (timeline.js), statistics
// pies and the event table with virtual scrolling, regex column filters and CSV export.
import { state, api, apiUrl, changed, onChange, selection, setRange, rel, fmtAt, fmtAbs, typeById, fitCanvas, el } from './state.js';
import { pie } from './charts.js';
import { setupTimeline } from './timeline.js';

const ROW_H = 22;

/* ---------------- density ---------------- */
let densityData = null, brush = null;
async function loadDensity() {
  if (!state.trace) return;
  const cv = document.getElementById('density');
  const slices = Math.max(10, Math.min(2000, Math.floor((cv.clientWidth || 800) / 2)));
  // the density shows the whole trace (within the result used as a filter); the
  // brush shows the selected range
  const p = { trace: state.trace.info.id, slices, result: state.result || undefined, during: state.during || undefined };
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

/* ---------------- pies ---------------- */
async function loadStats() {
  if (!state.trace) return;
  const s = await api('stats', selection());
  const box = document.getElementById('pies'); box.replaceChildren();
  box.append(pie('Events per type', s.types.map(t => ({ label: t.name, value: t.count, color: t.color })), 'pie-types'));
  box.append(pie('Events per producer', s.producers.map(p => ({ label: p.name, value: p.count, color: p.color })), 'pie-producers'));
  // a variable's duration is the time its values held: not a state's or a link's
  const d = s.types.filter(t => t.duration > 0 && (t.category === 'state' || t.category === 'link'));
  box.append(pie('State/link durations', d.map(t => ({ label: t.name, value: t.duration, color: t.color })), 'pie-durations'));
  document.getElementById('stats-note').textContent = `${s.total} events${state.range ? ' overlapping the range' : ''}${s.sampled ? ' (sampled)' : ''}${s.partial ? ` (partial: time budget reached, measured up to ${fmtAt(rel(s.covered_to), state.trace.info.time_unit)})` : ''}`;
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
  document.getElementById('table-count').textContent = (res.total_exact === false
    ? `about ${total} events in the selection (estimated: the count reached its time budget after ${res.scanned} matches)`
    : `${total} events in the selection`) + (res.page_partial ? ' · this page is partial: the search reached its time budget' : '');
  document.getElementById('table').dataset.total = String(total);
  document.getElementById('table').dataset.trace = state.trace.info.name; // whose rows these are
  vs.querySelector('.spacer').style.height = Math.min(total, MAX_SCROLL_ROWS) * ROW_H + 'px';
  const box = vs.querySelector('.rows'); box.replaceChildren();
  for (const ev of res.events) {
    const r = el('div', { class: 'trow' + (ev.id === state.selected ? ' sel' : ''), 'data-id': ev.id });
    r.addEventListener('click', () => window.dispatchEvent(new CustomEvent('traza:event', { detail: { id: ev.id, ts: ev.ts, source: 'table' } })));
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

// Scrolls the table to the event of rank `offset` in the selection (the rows then load).
export function showInTable(offset) {
  const vs = document.querySelector('.vscroll');
  const visible = Math.ceil(vs.clientHeight / ROW_H) + 2, scrollRows = Math.min(total, MAX_SCROLL_ROWS);
  let row = offset;
  if (total > MAX_SCROLL_ROWS && scrollRows > visible) row = Math.round(offset / (total - visible) * (scrollRows - visible));
  const top = Math.max(0, row * ROW_H);
  if (Math.abs(vs.scrollTop - top) < 1) loadPage(true); else vs.scrollTop = top; // the scroll handler loads the page
}
function markSelected() {
  for (const r of document.querySelectorAll('.trow')) r.classList.toggle('sel', Number(r.dataset.id) === state.selected);
}

export function setupOverview() {
  setupDensity(); setupTimeline(); setupTable();
  onChange(async what => {
    if (!state.trace || !document.getElementById('tab-overview').classList.contains('on')) return;
    const jobs = [];
    if (what.has('trace') || what.has('version')) jobs.push(loadDensity());
    if (what.has('timefmt')) { drawDensity(); jobs.push(loadPage(true)); }
    if (what.has('selected')) markSelected();
    if (what.has('range') || what.has('filter') || what.has('result') || what.has('trace') || what.has('version') || what.has('tab')) {
      if (!what.has('trace') && !what.has('version')) drawDensity();
      if (what.has('tab') || what.has('result')) jobs.push(loadDensity());
      jobs.push(loadStats(), loadTable());
    }
    try { await Promise.all(jobs); } catch (e) { console.error(e); document.getElementById('stats-note').textContent = 'error: ' + e.message; }
    document.body.dataset.ready = String(Date.now());
  });
  window.addEventListener('resize', () => drawDensity());
}
