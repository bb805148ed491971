// The details of one event (a side panel), the hover tooltip and the event search.
// The events between the views (traza:event, traza:hover, traza:goto) and their
// fields: doc/api.md, "Events between the UI's views".
import { state, api, changed, onChange, selection, rel, fmtAt, fmtAbs, fmtRel, typeById, prodById, el } from './state.js';
import { showInTable } from './overview.js';

const unit = () => state.trace.info.time_unit;

// A duration in ticks with every digit, in an adaptive unit: 1.1 ms.
const fmtDur = ticks => fmtRel(Number(ticks), unit()).replace(/^\+/, '');

/* ---------------- the details panel ---------------- */
let shown = null;   // the /api/event answer on display
let req = 0;
export async function showEvent(id) {
  if (!state.trace || id === undefined || id === null) return;
  const my = ++req;
  const box = document.getElementById('details');
  let ev;
  try { ev = await api('event', { trace: state.trace.info.id, id }); } catch (e) {
    if (my !== req) return;
    box.hidden = false;
    box.replaceChildren(header(`Event ${id}`), el('p', { class: 'err', 'data-testid': 'details-error' }, e.message));
    return;
  }
  if (my !== req) return;
  shown = ev;
  state.selected = ev.id;
  render();
  changed('selected');
}

function header(title) {
  return el('h3', {}, title, el('button', { class: 'close', title: 'close', 'data-testid': 'details-close', onclick: hide }, '×'));
}
function hide() {
  shown = null; state.selected = null;
  const box = document.getElementById('details'); box.hidden = true; box.replaceChildren();
  changed('selected');
  window.dispatchEvent(new Event('resize'));
}

function render() {
  const box = document.getElementById('details');
  if (!shown || !state.trace) return;
  const ev = shown, u = unit();
  const wasHidden = box.hidden;
  box.hidden = false;
  const dl = el('dl', { class: 'meta' });
  const add = (k, v, testid, title) => {
    const dd = el('dd', testid ? { 'data-testid': 'details-' + testid } : {}, v);
    if (title) dd.title = title;
    dl.append(el('dt', {}, k), dd);
    return dd;
  };
  const ty = typeById(ev.type_id);
  const tdd = add('type', ev.type, 'type', `event type ${ev.type_id}`);
  if (ty) tdd.prepend(el('i', { class: 'sw', style: 'background:' + ty.color }));
  add('category', ev.category, 'category');
  add('producer', ev.producer, 'producer', `producer ${ev.producer_id}: ${ev.producer_name}`);
  if (ev.end_producer !== undefined) add('to producer', ev.end_producer, 'end-producer', `producer ${ev.end_producer_id}`);
  const at = t => fmtAt(rel(t), u);
  // the other form in the title: absolute when relative times are shown, and back
  const other = t => (state.absolute ? fmtRel(rel(t), u) : fmtAbs(t, u)) + ` (${t} ticks)`;
  add('start', at(ev.ts), 'start', other(ev.ts)).dataset.ts = ev.ts;
  if (ev.end_ts !== undefined) {
    add('end', at(ev.end_ts), 'end', other(ev.end_ts)).dataset.ts = ev.end_ts;
    add('duration', `${fmtDur(ev.duration)} (${ev.duration} ticks)`, 'duration').dataset.ticks = ev.duration;
  }
  if (ev.value !== undefined) add('value', String(ev.value), 'value');
  if (ev.level !== undefined) add('level', String(ev.level), 'level');
  if (ev.cpu !== undefined) add('cpu', String(ev.cpu), 'cpu');
  const params = el('dl', { class: 'meta', 'data-testid': 'details-params' });
  for (const [k, v] of Object.entries(ev.params || {}))
    params.append(el('dt', {}, k), el('dd', { 'data-testid': 'details-param', 'data-name': k }, String(v)));
  const res = el('ul', { class: 'results', 'data-testid': 'details-results' });
  for (const r of ev.results) res.append(el('li', { 'data-id': r.id }, r.name));
  box.replaceChildren(header(`Event ${ev.id}`), dl,
    el('h4', {}, 'Parameters'), Object.keys(ev.params || {}).length ? params : el('p', {}, el('small', {}, 'none')),
    el('h4', {}, 'In saved event sets'), ev.results.length ? res : el('p', {}, el('small', {}, 'none')));
  box.dataset.id = String(ev.id);
  if (wasHidden) window.dispatchEvent(new Event('resize')); // the views beside it got narrower
}

/* ---------------- the tooltip ---------------- */
const hoverCache = new Map(); // id -> /api/event answer (the last few)
let hoverAt = null;
function nameOf(v, byId, key) {
  if (typeof v === 'number') { const x = byId(v); return x ? x[key] : String(v); }
  return v === undefined || v === null ? '' : String(v);
}
function prodPath(id) {
  const parts = [];
  for (let p = prodById(id); p; p = p.parent >= 0 ? prodById(p.parent) : null) parts.unshift(p.name);
  return parts.join('/');
}
function place(tip, x, y) {
  // beside the pointer, never under it: below-right, flipped near the edges
  const gap = 14, w = tip.offsetWidth, h = tip.offsetHeight;
  let left = x + gap, top = y + gap;
  if (left + w > window.innerWidth - 4) left = x - gap - w;
  if (top + h > window.innerHeight - 4) top = y - gap - h;
  tip.style.left = Math.max(0, left) + 'px'; tip.style.top = Math.max(0, top) + 'px';
}
function fillTip(d, ev) {
  const tip = document.getElementById('tooltip'), u = unit();
  const type = ev ? ev.type : nameOf(d.type, typeById, 'name');
  const prod = ev ? ev.producer : typeof d.producer === 'number' ? prodPath(d.producer) : nameOf(d.producer);
  const ts = ev ? ev.ts : d.ts;
  const rows = [['type', type, 'tooltip-type'], ['producer', prod, 'tooltip-producer']];
  if (ts !== undefined && ts !== null) rows.push(['start', fmtAt(rel(ts), u), 'tooltip-start']);
  if (ev && ev.value !== undefined) rows.push(['value', String(ev.value), 'tooltip-value']);
  // a variable's value holds for its duration (when it has one)
  if (ev && ev.duration !== undefined && ev.category === 'variable') { if (Number(ev.duration)) rows.push(['held', fmtDur(ev.duration), 'tooltip-duration']); }
  else if (ev && ev.duration !== undefined) rows.push(['duration', fmtDur(ev.duration), 'tooltip-duration']);
  else if (!ev && d.id !== undefined) rows.push(['duration', '…', 'tooltip-duration']);
  if (d.note) rows.push(['', d.note, 'tooltip-note']);
  tip.replaceChildren(...rows.map(([k, v, t]) => el('div', {}, el('span', { class: 'k' }, k), el('span', { 'data-testid': t }, v))));
  tip.hidden = false;
  place(tip, d.x, d.y);
}
async function hover(d) {
  const tip = document.getElementById('tooltip');
  hoverAt = d;
  if (!d || !state.trace) { tip.hidden = true; return; }
  const cached = d.id !== undefined ? hoverCache.get(d.id) : null;
  fillTip(d, cached);
  if (cached || d.id === undefined) return;
  let ev;
  try { ev = await api('event', { trace: state.trace.info.id, id: d.id }); } catch { return; }
  hoverCache.set(d.id, ev);
  if (hoverCache.size > 64) hoverCache.delete(hoverCache.keys().next().value);
  if (hoverAt && hoverAt.id === d.id) fillTip(hoverAt, ev);
}

/* ---------------- the search ---------------- */
let hits = { col: null, re: null, total: 0, exact: true, at: -1 };
function searchTerms() {
  const text = document.getElementById('search').value;
  const col = document.getElementById('search-col').value;
  // COLUMN~RE picks the column in the text, as `traza query --regex`
  const m = /^([A-Za-z_][\w.:-]*)~(.*)$/.exec(text);
  return m ? { col: m[1], re: m[2] } : { col, re: text };
}
async function goHit(k) {
  const { col, re } = hits;
  const out = document.getElementById('search-count');
  // the hits are those of the whole trace under the table's column filters: going to
  // one moves the timeline (and so the range), which must not change the list
  const p = Object.assign({}, hits.base, { ['re.' + col]: re, offset: k, limit: 1 });
  let res;
  try { res = await api('events', p); } catch (e) { out.textContent = 'error: ' + e.message; out.dataset.total = ''; return; }
  hits.total = res.total; hits.exact = res.total_exact !== false;
  out.dataset.total = String(res.total);
  if (!res.events.length) { hits.at = -1; out.textContent = res.total ? `${k + 1}?` : 'no match'; return; }
  hits.at = k;
  out.textContent = `${k + 1} of ${hits.exact ? '' : 'about '}${res.total}`;
  const ev = res.events[0];
  window.dispatchEvent(new CustomEvent('traza:goto', { detail: { ts: ev.ts, id: ev.id } }));
  // its row: the events of the selection that start before it, then its ties by id
  const before = BigInt(ev.ts) - 1n, from = selection().from;
  let pos = 0;
  if (from === undefined || before >= BigInt(from)) {
    const b = await api('events', selection({ to: before.toString(), limit: 1 })).catch(() => null);
    if (b) pos = b.total;
  }
  state.selected = ev.id;
  showInTable(pos);
  await showEvent(ev.id);
}
async function search() {
  const t = searchTerms();
  const out = document.getElementById('search-count');
  if (!t.re || !state.trace) { hits = { col: null, re: null, total: 0, exact: true, at: -1 }; out.textContent = ''; out.dataset.total = ''; return; }
  const base = selection({});
  delete base.from; delete base.to;
  hits = { col: t.col, re: t.re, total: 0, exact: true, at: -1, base };
  await goHit(0);
}
function step(d) {
  if (!hits.re || !hits.total) return;
  goHit((hits.at + d + hits.total) % hits.total);
}
function searchColumns() {
  const sel = document.getElementById('search-col'), keep = sel.value;
  const names = ['type', 'producer', ...new Set((state.trace ? state.trace.param_defs : []).map(p => p.name))];
  sel.replaceChildren(...names.map(n => el('option', { value: n }, n === 'type' || n === 'producer' ? n : 'param ' + n)));
  if (names.includes(keep)) sel.value = keep;
}

export function setupDetails() {
  const bar = document.getElementById('search-bar');
  const inp = el('input', { id: 'search', 'data-testid': 'search', placeholder: 'search: regex (or COLUMN~regex)', title: 'PCRE2 regular expression over the chosen column: type, producer path or a parameter; Enter: next hit' });
  const col = el('select', { id: 'search-col', 'data-testid': 'search-col', title: 'the column searched' });
  const prev = el('button', { 'data-testid': 'search-prev', title: 'previous hit (Shift+Enter)', onclick: () => step(-1) }, '◀');
  const next = el('button', { 'data-testid': 'search-next', title: 'next hit (Enter)', onclick: () => step(1) }, '▶');
  const out = el('span', { id: 'search-count', 'data-testid': 'search-count' });
  bar.append(col, inp, prev, next, out);
  let timer = null;
  inp.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(search, 300); });
  col.addEventListener('change', search);
  inp.addEventListener('keydown', e => {
    if (e.key !== 'Enter') return;
    clearTimeout(timer);
    const t = searchTerms();
    if (t.re !== hits.re || t.col !== hits.col) search(); else step(e.shiftKey ? -1 : 1);
  });
  const tip = el('div', { id: 'tooltip', 'data-testid': 'tooltip', class: 'tooltip' });
  tip.hidden = true;
  document.body.append(tip);
  window.addEventListener('traza:event', e => { if (e.detail && e.detail.id !== undefined) showEvent(e.detail.id); });
  window.addEventListener('traza:hover', e => hover(e.detail));
  onChange(what => {
    if (what.has('trace')) { hoverCache.clear(); searchColumns(); hide(); inp.value = ''; search(); }
    else if (what.has('version')) hoverCache.clear(); // event ids of a new version are its own
    if (what.has('timefmt')) render();
    if (what.has('filter') && hits.re) search(); // the hits are the whole trace's: a range change keeps them
  });
}
