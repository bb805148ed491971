// The call-stack tab: a flame chart per thread (time to the right, depth downward),
// the details of a clicked call, the flat profile of the range and the flame graph
// of the range merged by call path. Zoom (wheel) and pan (drag) move a view shared by
// every thread; once it rests, it becomes the selected range of every tab.
import { state, api, selection, span, setRange, fmtTime, fmtAt, rel, absTicks, typeById, prodById, fitCanvas, el } from './state.js';

const RH = 16;            // a depth lane's height, px
const SETTLE_MS = 350;    // a zoom or pan at rest this long becomes the selected range
let cs = null;            // the /api/callstack answer, times as offsets from the start
let threads = [];         // [{id, name, maxLevel, levels: [[call]] by level, sorted by ts}]
let idle = 0;             // threads with calls, none of them in the range
let view = [0, 1];        // the shown time window (offsets)
let picked = null;        // the clicked call
let sortKey = 'exclusive', sortDesc = true;
let settle = 0;
// While the server builds the profile in the background (a partial answer with
// building), the tab asks again, so that the view fills in by itself: soon at first
// (the first pieces come within milliseconds; a build of a few million calls may end
// within a second), then at most every POLL_MS.
const POLL_MS = 1000, POLL_FIRST_MS = 100;
let poll = 0, pollMs = POLL_FIRST_MS;
let seq = 0;              // loads started: an answer to an older one is dropped

const unit = () => state.trace.info.time_unit;
const fname = c => { const t = typeById(c.type); return t ? t.name : String(c.type); };
const fcolor = c => { const t = typeById(c.type); return t ? t.color : '#999'; };

// Budget of the requests: the page's ?budget= (ms) when given, else the server's default.
const budget = () => new URLSearchParams(location.search).get('budget') || undefined;

function build() {
  const s = document.getElementById('tab-callstack');
  s.replaceChildren(el('div', { class: 'panel' },
    el('h3', {}, 'Call stack ', el('small', {}, 'one flame chart per thread; wheel to zoom, drag to pan, click a call for its details')),
    el('div', { id: 'cs-partial', class: 'notice', 'data-testid': 'callstack-partial', hidden: '' }),
    el('div', { id: 'cs-info', 'data-testid': 'cs-info', class: 'cs-info' }),
    el('div', { class: 'cs-body' },
      el('div', { class: 'cs-left' },
        el('canvas', { id: 'cs-axis', 'data-testid': 'cs-axis' }),
        el('div', { id: 'cs-threads', class: 'cs-threads', 'data-testid': 'cs-threads' })),
      el('aside', { id: 'cs-details', class: 'cs-details', 'data-testid': 'call-details' }, el('p', { class: 'hint' }, 'click a call')))),
  el('div', { class: 'panel' }, el('h3', {}, 'Flat profile ', el('small', { id: 'cs-prof-note' }, 'click a header to sort')), el('div', { id: 'cs-profile', class: 'cs-profile' })),
  el('div', { class: 'panel' }, el('h3', {}, 'Flame graph ', el('small', { id: 'cs-graph-note' }, 'the range merged by call path; width = total time')),
    el('canvas', { id: 'cs-graph', 'data-testid': 'cs-graph' })));
}

async function load(again = false) {
  clearTimeout(poll);
  pollMs = again ? Math.min(POLL_MS, pollMs * 2) : POLL_FIRST_MS;
  const my = ++seq, at = state.trace;
  const [from, to] = span();
  // the view's filter (its saved set, the table's column filters, during=) chooses the calls
  const c = await api('callstack', selection({ from: absTicks(from), to: absTicks(to), max: 20000, top: 500, budget: budget() }));
  if (my !== seq || at !== state.trace) return; // another load started meanwhile
  c.calls = c.calls.map(([ts, end, type, producer, level]) => ({ ts: rel(ts), end: rel(end), type, producer, level }));
  // the clicked call stays picked when a refill (same range) still has it
  const was = picked && view[0] === from && view[1] === to ? picked : null;
  cs = c; view = [from, to];
  picked = was && c.calls.find(k => k.ts === was.ts && k.end === was.end && k.producer === was.producer && k.level === was.level) || null;
  const by = new Map();
  // the threads with calls in the range: one without would be an empty band
  threads = c.threads.filter(t => t.calls > 0).map(t => { const x = { id: t.producer, name: t.name, maxLevel: t.max_level, n: t.calls, levels: [] }; by.set(t.producer, x); return x; });
  idle = c.threads.length - threads.length;
  for (const k of c.calls) {
    const t = by.get(k.producer); if (!t) continue;
    (t.levels[k.level] ||= []).push(k);
  }
  for (const t of threads) for (const l of t.levels) if (l) l.sort((x, y) => x.ts - y.ts);
  renderThreads(); showPartial(); drawAll(); renderProfile(); drawGraph(); renderDetails();
  if (c.partial && c.building) poll = setTimeout(refill, pollMs);
}

// Asks again while the profile is being built: only with this tab shown and no drag
// under way (a reload would move the view under the mouse); else later.
function refill() {
  if (!document.getElementById('cs-threads') || document.querySelector('.tab.on')?.id !== 'tab-callstack') return;
  if (drag) { poll = setTimeout(refill, pollMs); return; }
  load(true).catch(e => { console.error(e); });
}

function showPartial() {
  // the view's filter, when one chose the calls
  const f = Object.entries(state.filters).filter(([, re]) => re).map(([c, re]) => `${c} ${re}`);
  if (state.result) f.push(`set ${state.result}`);
  document.getElementById('cs-info').textContent = `${cs.calls.length} calls drawn${cs.truncated ? ' (the longest ones in the range)' : ''} · ${cs.functions} functions · ${threads.length} threads${idle ? ` (${idle} more without calls in the range)` : ''}${f.length ? ' · filtered: ' + f.join(', ') : ''}`;
  const p = document.getElementById('cs-partial');
  if (!cs.partial) { p.hidden = true; p.textContent = ''; delete p.dataset.coveredTo; delete p.dataset.progress; return; }
  const u = unit();
  p.hidden = false;
  p.dataset.coveredTo = cs.covered_to || '';
  p.dataset.progress = String(cs.progress ?? '');
  const pct = `${Math.floor((cs.progress || 0) * 100)} % of the recording`;
  p.textContent = cs.covered_to
    ? `Partial answer, filling in: the server reads the calls in the background and has those that start up to ${fmtAt(rel(cs.covered_to), u)} so far (${pct}; the range ends at ${fmtAt(span()[1], u)}); the profile and the charts cover those calls only, and are asked for again until they are complete.`
    : 'Partial answer, filling in: the server has started reading the calls in the background; the tab asks again until they are complete.';
}

function renderThreads() {
  const box = document.getElementById('cs-threads');
  box.replaceChildren();
  for (const t of threads) {
    const pr = prodById(t.id);
    const label = el('div', { class: 'cs-thead', 'data-testid': 'cs-thread-label', 'data-producer': String(t.id), 'data-name': t.name },
      el('b', {}, t.name), el('small', {}, ` ${t.n} calls in the range · depth ${t.maxLevel + 1}${pr && pr.name !== t.name ? ' · ' + pr.name : ''}`));
    const cv = el('canvas', { class: 'cs-lane', 'data-testid': 'cs-lane', 'data-producer': String(t.id) });
    t.cv = cv;
    box.append(el('section', { class: 'cs-thread' }, label, cv));
    hookLane(cv, t);
  }
  if (!threads.length) box.append(el('p', {}, 'no nested states (function calls) in this trace'));
}

const X = (t, w) => (t - view[0]) / Math.max(1e-9, view[1] - view[0]) * w;
const T = (x, w) => view[0] + x / w * (view[1] - view[0]);

// text fitted into px pixels: whole, or cut with an ellipsis, or '' when not even one
// character and the ellipsis fit
function fit(g, text, px) {
  if (px < 12) return '';
  if (g.measureText(text).width <= px) return text;
  let lo = 0, hi = text.length;
  while (lo < hi) { const m = (lo + hi + 1) >> 1; if (g.measureText(text.slice(0, m) + '…').width <= px) lo = m; else hi = m - 1; }
  return lo ? text.slice(0, lo) + '…' : '';
}

function drawLane(t) {
  const { g, w } = fitCanvas(t.cv, (t.maxLevel + 1) * RH + 2);
  g.clearRect(0, 0, w, (t.maxLevel + 1) * RH + 2);
  g.font = '11px system-ui, sans-serif'; g.textBaseline = 'middle';
  if (cs.partial) { // past what a partial answer read: greyed
    const x = cs.covered_to ? Math.max(0, X(rel(cs.covered_to), w)) : 0;
    if (x < w) { g.fillStyle = '#ececec'; g.fillRect(x, 0, w - x, (t.maxLevel + 1) * RH + 2); }
  }
  t.levels.forEach((calls, level) => {
    if (!calls) return;
    const y = level * RH;
    let lastX = -1;
    for (const c of calls) {
      if (c.end < view[0] || c.ts > view[1]) continue;
      const x0 = Math.max(0, X(c.ts, w)), x1 = Math.min(w, X(c.end, w));
      if (x1 < lastX) continue; // under a pixel already drawn
      const bw = Math.max(1, x1 - x0);
      g.fillStyle = fcolor(c); g.fillRect(x0, y + 1, bw, RH - 2);
      if (picked === c) { g.strokeStyle = '#000'; g.lineWidth = 2; g.strokeRect(x0 + 1, y + 2, bw - 2, RH - 4); }
      else if (bw > 3) { g.strokeStyle = 'rgba(255,255,255,0.7)'; g.lineWidth = 1; g.strokeRect(x0 + 0.5, y + 1.5, bw - 1, RH - 3); }
      const txt = fit(g, fname(c), bw - 6);
      if (txt) { g.fillStyle = '#111'; g.fillText(txt, x0 + 3, y + RH / 2 + 0.5); }
      lastX = x0 + (bw < 1 ? 1 : 0.5);
    }
  });
}

function drawAxis() {
  const cv = document.getElementById('cs-axis');
  const { g, w, h } = fitCanvas(cv, 20);
  g.clearRect(0, 0, w, h);
  g.font = '10px system-ui, sans-serif'; g.fillStyle = '#444'; g.strokeStyle = '#bbb';
  const n = Math.max(2, Math.floor(w / 170));
  for (let i = 0; i <= n; i++) {
    const x = i / n * w, lbl = fmtAt(T(x, w), unit());
    g.beginPath(); g.moveTo(x + 0.5, 12); g.lineTo(x + 0.5, h); g.stroke();
    const tw = g.measureText(lbl).width;
    g.fillText(lbl, Math.min(Math.max(0, x - tw / 2), w - tw), 10);
  }
  cv.dataset.from = String(view[0]); cv.dataset.to = String(view[1]);
}

function drawAll() { drawAxis(); for (const t of threads) drawLane(t); }

// The call of thread t under (x, y) of its lane, or null.
function hit(t, x, y) {
  const level = Math.floor(y / RH), calls = t.levels[level];
  if (!calls) return null;
  const w = t.cv.clientWidth, tt = T(x, w), tol = (view[1] - view[0]) / w * 2;
  let lo = 0, hi = calls.length - 1, best = null;
  while (lo <= hi) { const m = (lo + hi) >> 1; if (calls[m].ts <= tt + tol) { best = m; lo = m + 1; } else hi = m - 1; }
  for (let i = best; i !== null && i >= 0 && i > best - 64; i--) if (calls[i].end >= tt - tol && calls[i].ts <= tt + tol) return calls[i];
  return null;
}

function hookLane(cv, t) {
  cv.addEventListener('wheel', e => {
    e.preventDefault();
    const w = cv.clientWidth, at = T(e.offsetX, w), k = Math.pow(1.25, Math.sign(e.deltaY));
    const [a, b] = view, lo = 0, hi = state.trace.span;
    let na = at - (at - a) * k, nb = at + (b - at) * k;
    if (nb - na < 2) { na = at - 1; nb = at + 1; }
    view = [Math.max(lo, na), Math.min(hi, nb)];
    drawAll(); rest();
  }, { passive: false });
  cv.addEventListener('mousedown', e => { drag = { cv, t, x: e.clientX, view: [...view], moved: false }; });
}

// A drag in a lane pans every lane; a press and release without a move is a click.
// (Listened to on the window once: a drag may end outside the lane.)
let drag = null;
window.addEventListener('mousemove', e => {
  if (!drag) return;
  const dx = e.clientX - drag.x;
  if (Math.abs(dx) > 3) drag.moved = true;
  if (!drag.moved) return;
  const dt = dx / drag.cv.clientWidth * (drag.view[1] - drag.view[0]);
  let a = drag.view[0] - dt, b = drag.view[1] - dt;
  if (a < 0) { b -= a; a = 0; }
  if (b > state.trace.span) { a -= b - state.trace.span; b = state.trace.span; }
  view = [a, b]; drawAll();
});
window.addEventListener('mouseup', e => {
  if (!drag) return;
  const d = drag; drag = null;
  if (d.moved) { rest(); return; }
  if (e.target !== d.cv) return;
  const r = d.cv.getBoundingClientRect();
  picked = hit(d.t, e.clientX - r.left, e.clientY - r.top);
  drawAll(); renderDetails();
});

// The view at rest becomes the selected range (every tab follows; this one reloads).
function rest() {
  clearTimeout(settle);
  settle = setTimeout(() => setRange(view[0], view[1]), SETTLE_MS);
}

/* ---- details of a call ---- */
const threadOf = c => threads.find(t => t.id === c.producer);
function parentOf(c) {
  const t = threadOf(c), calls = c.level > 0 && t ? t.levels[c.level - 1] : null;
  if (!calls) return null;
  let lo = 0, hi = calls.length - 1, best = -1;
  while (lo <= hi) { const m = (lo + hi) >> 1; if (calls[m].ts <= c.ts) { best = m; lo = m + 1; } else hi = m - 1; }
  return best >= 0 && calls[best].end >= c.end ? calls[best] : null;
}
function childrenOf(c) {
  const t = threadOf(c), calls = t ? t.levels[c.level + 1] : null;
  if (!calls) return [];
  let lo = 0, hi = calls.length;
  while (lo < hi) { const m = (lo + hi) >> 1; if (calls[m].ts < c.ts) lo = m + 1; else hi = m; }
  const out = [];
  for (let i = lo; i < calls.length && calls[i].ts <= c.end; i++) if (calls[i].end <= c.end) out.push(calls[i]);
  return out;
}

function renderDetails() {
  const box = document.getElementById('cs-details');
  if (!picked) { box.replaceChildren(el('p', { class: 'hint' }, 'click a call for its function, self and total time, callers and callees')); delete box.dataset.name; return; }
  const c = picked, u = unit(), name = fname(c), dur = c.end - c.ts;
  const kids = childrenOf(c), kidTime = kids.reduce((s, k) => s + (k.end - k.ts), 0);
  const f = cs.profile.find(p => p.type === c.type);
  const chain = []; for (let p = parentOf(c); p; p = parentOf(p)) chain.push(p);
  const callees = new Map();
  for (const k of kids) { const n = fname(k); const x = callees.get(n) || { n: 0, total: 0, color: fcolor(k) }; x.n++; x.total += k.end - k.ts; callees.set(n, x); }
  const dl = el('dl', { class: 'meta' });
  const add = (k, v, attrs = {}) => dl.append(el('dt', {}, k), el('dd', attrs, v));
  add('function', name, { 'data-testid': 'cd-name' });
  add('thread', threadOf(c).name);
  add('start', fmtAt(c.ts, u)); add('duration', fmtTime(dur, u), { 'data-ticks': String(dur) });
  add('self (this call)', fmtTime(dur - kidTime, u), { 'data-ticks': String(dur - kidTime) });
  add('depth', String(c.level));
  if (f) {
    add('function total (range)', fmtTime(f.inclusive, u), { 'data-testid': 'cd-total', 'data-ticks': String(f.inclusive) });
    add('function self (range)', fmtTime(f.exclusive, u), { 'data-testid': 'cd-self', 'data-ticks': String(f.exclusive) });
    add('function calls (range)', String(f.calls));
  }
  const callers = el('ol', { class: 'cs-chain', 'data-testid': 'cd-callers' });
  for (const p of chain) callers.append(el('li', {}, el('i', { class: 'sw', style: 'background:' + fcolor(p) }), fname(p), el('small', {}, ' ' + fmtTime(p.end - p.ts, u))));
  if (!chain.length) callers.append(el('li', {}, el('small', {}, 'none: a root call')));
  const ce = el('table', { class: 'list', 'data-testid': 'cd-callees' }, el('tr', {}, el('th', {}, 'callee'), el('th', {}, 'calls'), el('th', {}, 'total')));
  for (const [n, x] of [...callees].sort((a, b) => b[1].total - a[1].total))
    ce.append(el('tr', { 'data-name': n }, el('td', {}, el('i', { class: 'sw', style: 'background:' + x.color }), n), el('td', {}, x.n), el('td', {}, fmtTime(x.total, u))));
  box.replaceChildren(el('h4', {}, name), dl, el('h4', {}, 'callers ', el('small', {}, '(the chain up)')), callers,
    el('h4', {}, 'callees'), kids.length ? ce : el('p', {}, el('small', {}, 'none')),
    cs.truncated ? el('p', {}, el('small', {}, 'only the longest calls of the range are loaded: zoom in for every callee')) : '');
  box.dataset.name = name;
}

/* ---- flat profile ---- */
const COLS = [['name', 'function'], ['calls', 'calls'], ['inclusive', 'total'], ['exclusive', 'self'], ['mean', 'mean']];
function renderProfile() {
  const u = unit();
  const rows = cs.profile.map(f => Object.assign({ mean: f.calls ? f.inclusive / f.calls : 0 }, f));
  rows.sort((a, b) => {
    const x = a[sortKey], y = b[sortKey];
    const r = typeof x === 'string' ? x.localeCompare(y) : x - y;
    return (sortDesc ? -r : r) || a.type - b.type; // ties as the CLI orders them
  });
  const head = el('tr', {});
  for (const [k, label] of COLS)
    head.append(el('th', { 'data-key': k, class: 'sortable' + (k === sortKey ? ' on' : ''), onclick: () => { sortDesc = k === sortKey ? !sortDesc : k !== 'name'; sortKey = k; renderProfile(); } },
      label + (k === sortKey ? (sortDesc ? ' ▼' : ' ▲') : '')));
  const tb = el('table', { class: 'list', 'data-testid': 'cs-table', 'data-sort': sortKey + (sortDesc ? ' desc' : ' asc') }, head);
  for (const f of rows)
    tb.append(el('tr', { 'data-name': f.name, 'data-self': String(f.exclusive), 'data-total': String(f.inclusive) },
      el('td', {}, el('i', { class: 'sw', style: 'background:' + f.color }), f.name), el('td', { class: 'num' }, f.calls),
      el('td', { class: 'num' }, fmtTime(f.inclusive, u)), el('td', { class: 'num' }, fmtTime(f.exclusive, u)), el('td', { class: 'num' }, fmtTime(f.mean, u))));
  document.getElementById('cs-profile').replaceChildren(tb);
  document.getElementById('cs-prof-note').textContent = `${cs.functions} functions over ${fmtAt(span()[0], u)} – ${fmtAt(span()[1], u)}, each call counted for its part in the range${cs.functions > rows.length ? `; the ${rows.length} with the most self time` : ''} · click a header to sort`;
}

/* ---- flame graph merged by call path ---- */
function mergeTree() {
  const [a, b] = span();
  const root = { name: 'all', total: 0, kids: new Map() };
  for (const t of threads) {
    // the calls of the thread in (ts, level) order, each under the open call one level up
    const calls = t.levels.flatMap(l => l || []).sort((x, y) => x.ts - y.ts || x.level - y.level);
    const stack = []; // the open call of each level: {node, end}
    for (const c of calls) {
      let parent = root;
      if (c.level > 0) {
        const p = stack[c.level - 1];
        if (!p || p.end < c.end) { stack[c.level] = null; continue; } // its caller is not loaded
        parent = p.node;
      }
      const dur = Math.min(c.end, b) - Math.max(c.ts, a), n = fname(c);
      let node = parent.kids.get(n);
      if (!node) { node = { name: n, color: fcolor(c), total: 0, kids: new Map() }; parent.kids.set(n, node); }
      node.total += dur;
      if (c.level === 0) root.total += dur;
      stack[c.level] = { node, end: c.end };
    }
  }
  return root;
}

function drawGraph() {
  const root = mergeTree();
  let depth = 0;
  const measure = (n, d) => { depth = Math.max(depth, d); for (const k of n.kids.values()) measure(k, d + 1); };
  measure(root, 0);
  const cv = document.getElementById('cs-graph');
  const { g, w, h } = fitCanvas(cv, (depth + 1) * RH + 4);
  g.clearRect(0, 0, w, h);
  g.font = '11px system-ui, sans-serif'; g.textBaseline = 'middle';
  const u = unit();
  const draw = (n, x, bw, d) => {
    if (bw < 0.5) return;
    g.fillStyle = n === root ? '#c8c8c8' : n.color; g.fillRect(x, d * RH + 1, bw, RH - 2);
    if (bw > 3) { g.strokeStyle = 'rgba(255,255,255,0.8)'; g.strokeRect(x + 0.5, d * RH + 1.5, bw - 1, RH - 3); }
    const txt = fit(g, n === root ? `all threads (${fmtTime(n.total, u)})` : n.name, bw - 6);
    if (txt) { g.fillStyle = '#111'; g.fillText(txt, x + 3, d * RH + RH / 2 + 0.5); }
    let cx = x;
    for (const k of [...n.kids.values()].sort((p, q) => q.total - p.total)) {
      const kw = n.total ? bw * k.total / n.total : 0;
      draw(k, cx, kw, d + 1); cx += kw;
    }
  };
  draw(root, 0, w, 0);
  cv.dataset.paths = String(countNodes(root) - 1);
  document.getElementById('cs-graph-note').textContent = `the range merged by call path (${cv.dataset.paths} paths); width = total time${cs.truncated ? '; from the longest calls loaded only' : ''}`;
}
const countNodes = n => 1 + [...n.kids.values()].reduce((s, k) => s + countNodes(k), 0);

// Called by the views on every change while this tab is shown.
export async function callstackChanged(what) {
  if (what.has('trace') || what.has('tab') || !document.getElementById('cs-threads')) build();
  if (what.has('trace') || what.has('version') || what.has('tab') || what.has('range') || what.has('result') || what.has('filter') || !cs) await load();
  else if (what.has('timefmt')) { drawAll(); renderDetails(); renderProfile(); showPartial(); }
}
