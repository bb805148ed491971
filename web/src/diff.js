// The Diff tab: what changed from a base trace to the open one (GET /api/diff, the
// numbers of `traza diff BASE OPEN --json --ranges`): the ranked rows coloured by
// verdict, the structure (call paths of one run only, sequence patterns whose counts
// changed), the two runs side by side (difftime.js), the time ranges where a change
// shows (a click selects the range in the timeline of the open trace) and the
// differential flame graph (widths: the open trace's total times; fills: the server's,
// red slower, blue faster, purple new), zoomed on a clicked frame.
import { state, api, setRange, el, fitCanvas, fmtTime } from './state.js';
import { diffTimelinePanel, show as showSides, redraw as redrawSides, markRanges } from './difftime.js';

const RH = 16;        // a frame's height, px
let d = null;         // the /api/diff answer
let kids = [];        // the frames' callees, by frame index ('roots' at -1 in rootKids)
let rootKids = [];
let focus = -1;       // the frame the flame graph is zoomed on, -1 for none
let rects = [];       // the frames drawn: {i, x, y, w}
let sidesOf = '';     // the base the side-by-side timeline shows

// A time in seconds with a unit.
const secs = s => (s === null || s === undefined || Number.isNaN(s)) ? '–' : fmtTime(s, 0);
const pct = x => (x === null || x === undefined || Number.isNaN(x)) ? '–' : (x >= 0 ? '+' : '') + (x * 100).toFixed(1) + ' %';
const pval = p => (p === null || p === undefined) ? '–' : p === 0 ? '0' : p < 1e-3 ? p.toExponential(1) : p.toPrecision(2);

function build() {
  const s = document.getElementById('tab-diff');
  const base = el('select', { id: 'diff-base', 'data-testid': 'diff-base' }, el('option', { value: '' }, '(pick a base trace)'));
  for (const t of state.traces) base.append(el('option', { value: t.name }, t.id === state.trace.info.id ? t.name + ' (itself: an A/A check)' : t.name));
  const by = el('select', { id: 'diff-by', 'data-testid': 'diff-by' });
  for (const b of ['type', 'producer', 'function']) by.append(el('option', { value: b }, b));
  const metric = el('select', { id: 'diff-metric', 'data-testid': 'diff-metric' });
  for (const m of ['self', 'total']) metric.append(el('option', { value: m }, m + ' time'));
  // more runs per side: run-to-run variance enters the tests (traza diff --base A1 A2 --new B1 B2)
  const runs = (id, title) => {
    const m = el('select', { id, 'data-testid': id, multiple: true, size: 3, title, class: 'diff-runs' });
    for (const t of state.traces) if (t.id !== state.trace.info.id) m.append(el('option', { value: t.name }, t.name));
    return m;
  };
  const moreBase = runs('diff-more-base', 'more runs of the base side (ctrl-click to pick several)');
  const moreNew = runs('diff-more-new', `more runs beside ${state.trace.info.name} (ctrl-click to pick several)`);
  for (const x of [base, by, metric, moreBase, moreNew]) x.addEventListener('change', () => load().catch(showErr));
  s.replaceChildren(
    el('div', { class: 'panel' },
      el('h3', {}, 'Diff ', el('small', { id: 'diff-cmd', 'data-testid': 'diff-cmd' }, `what changed from a base run to ${state.trace.info.name} (traza diff BASE ${state.trace.info.name})`)),
      el('div', { class: 'controls' }, el('label', {}, 'base ', base), el('label', {}, ' + runs ', moreBase),
        el('label', {}, ` ${state.trace.info.name} + runs `, moreNew), el('label', {}, ' rows by ', by),
        el('label', {}, ' flame colour by ', metric), el('span', { id: 'diff-note', 'data-testid': 'diff-note', class: 'hint' })),
      el('div', { id: 'diff-table', 'data-testid': 'diff-table', class: 'diff-table' })),
    el('div', { class: 'panel' }, el('h3', {}, 'Structure ', el('small', {}, 'call paths (root;…;function) that run in one of the two runs only, and the sequence patterns (the most frequent pairs of consecutive event types, per producer) whose counts changed')),
      el('div', { id: 'diff-structure', 'data-testid': 'diff-structure', class: 'diff-structure' })),
    diffTimelinePanel(),
    el('div', { class: 'panel' }, el('h3', {}, 'Where in time ', el('small', {}, 'slices of the open trace whose median duration is outside the base\'s interval (median ± 3 MAD); click to show a range in the timeline')),
      el('div', { id: 'diff-ranges', 'data-testid': 'diff-ranges' })),
    el('div', { class: 'panel' }, el('h3', {}, 'Differential flame graph ',
      el('small', {}, 'width: the open trace\'s total time; red slower, blue faster, purple new; click a frame to zoom, double-click or '),
      el('button', { 'data-testid': 'diff-flame-reset', onclick: () => { focus = -1; drawFlame(); } }, 'whole graph')),
      el('div', { id: 'diff-flame-info', 'data-testid': 'diff-flame-info', class: 'cs-info' }),
      el('div', { class: 'diff-flame-box' }, el('canvas', { id: 'diff-flame', 'data-testid': 'diff-flame' })),
      el('div', { id: 'diff-gone', 'data-testid': 'diff-gone', class: 'cs-info' })));
  const cv = document.getElementById('diff-flame');
  cv.addEventListener('click', e => { const r = hit(e); if (r) { focus = r.i; drawFlame(); } });
  cv.addEventListener('dblclick', () => { focus = -1; drawFlame(); });
  cv.addEventListener('mousemove', e => { const r = hit(e); document.getElementById('diff-flame-info').textContent = r ? frameText(r.i) : ''; });
  d = null; sidesOf = '';
}

function showErr(e) {
  console.error(e);
  document.getElementById('diff-note').textContent = 'error: ' + e.message;
}

async function load() {
  const base = document.getElementById('diff-base').value;
  if (!base) return;
  const note = document.getElementById('diff-note');
  note.textContent = 'comparing…';
  const trace = state.trace.info.name;
  if (sidesOf !== base) { sidesOf = base; showSides(base, trace).catch(showErr); }
  const picked = id => [...document.getElementById(id).selectedOptions].map(o => o.value);
  const bases = [base, ...picked('diff-more-base').filter(n => n !== base)], news = picked('diff-more-new');
  if ((bases.length > 1) !== (news.length > 0)) { // the spread of each side is measured: two runs or more on each
    note.textContent = `one run per side, or at least two on each: now ${bases.length} and ${1 + news.length}`;
    return;
  }
  const r = await api('diff', { base: bases, trace, new: news, by: document.getElementById('diff-by').value, metric: document.getElementById('diff-metric').value, structure: 1 });
  if (!state.trace || state.trace.info.name !== trace) return;
  d = r; focus = -1;
  kids = d.tree ? d.tree.frames.map(() => []) : [];
  rootKids = [];
  if (d.tree) d.tree.frames.forEach((f, i) => (f[1] < 0 ? rootKids : kids[f[1]]).push(i));
  const several = bases.length > 1 || news.length;
  const by = document.getElementById('diff-by').value;
  document.getElementById('diff-cmd').textContent = `what changed from ${bases.join(', ')} to ${[trace, ...news].join(', ')} (` +
    (several ? `traza diff --base ${bases.join(' ')} --new ${[trace, ...news].join(' ')}` : `traza diff ${base} ${trace}`) +
    (by !== 'type' ? ` --by ${by}` : '') + ')';
  note.textContent = `${d.rows.length} rows · ${d.tests} tests, ${d.correction} correction, α ${d.alpha}` +
    (several ? ` · ${bases.length} base run${bases.length > 1 ? 's' : ''} against ${1 + news.length} (run-to-run variance in the tests; the structure, the flame graph and the side by side compare ${base} with ${trace})` : '');
  const tb = document.getElementById('diff-table');
  tb.dataset.base = base; tb.dataset.by = d.by;
  tb.dataset.runs = JSON.stringify([bases, [trace, ...news]]);
  renderTable(); renderStructure(); renderRanges(); drawFlame();
  markRanges(d.ranges, d.b_time_unit);
}

// The call paths of one run only, by run, then the patterns whose counts changed.
function renderStructure() {
  const s = d.structure, box = document.getElementById('diff-structure');
  const paths = side => {
    const ps = s.paths.filter(p => p.side === side);
    return el('div', { class: 'diff-paths', 'data-testid': 'diff-paths-' + side, 'data-count': ps.length },
      el('h4', {}, `only in ${side === 'base' ? 'the base' : 'the open trace'}: ${ps.length} path${ps.length === 1 ? '' : 's'}`),
      ps.length ? el('table', { class: 'list diff' }, el('tr', {}, el('th', {}, 'call path'), el('th', {}, 'calls')),
        ...ps.slice(0, 200).map(p => el('tr', { class: side === 'base' ? 'v-gone' : 'v-new', 'data-testid': 'diff-path', 'data-side': side, 'data-path': p.path, 'data-calls': p.calls },
          el('td', { class: 'name' }, p.path), el('td', {}, p.calls))))
        : el('p', { class: 'hint' }, 'none'),
      ps.length > 200 ? el('p', { class: 'hint' }, `${ps.length - 200} more: traza diff --by function`) : '');
  };
  const changed = s.patterns.filter(p => p.verdict !== 'same');
  const pats = el('div', { class: 'diff-patterns', 'data-testid': 'diff-patterns' },
    el('h4', {}, `sequence patterns: ${changed.length} of ${s.patterns.length} changed`),
    changed.length ? el('table', { class: 'list diff' }, el('tr', {}, ...['pattern', 'count A', 'count B', 'p adj.', 'verdict'].map(h => el('th', {}, h))),
      ...changed.map(p => el('tr', { class: 'v-' + p.verdict, 'data-testid': 'diff-pattern', 'data-pattern': p.pattern, 'data-verdict': p.verdict },
        el('td', { class: 'name' }, p.pattern), el('td', {}, p.count_a), el('td', {}, p.count_b), el('td', {}, pval(p.p_adj)), el('td', { class: 'verdict' }, p.verdict))))
      : el('p', { class: 'hint' }, 'no pattern changed'));
  box.replaceChildren(paths('base'), paths('new'), pats);
}

function renderTable() {
  const t = el('table', { class: 'list diff' }, el('tr', {}, ...['#', 'row', 'kind', 'count A', 'count B', 'rate B/A', 'median A', 'median B',
    'shift [95 % CI]', 'rel. shift', 'p adj.', 'verdict'].map(h => el('th', {}, h))));
  d.rows.slice(0, 300).forEach((r, i) => {
    t.append(el('tr', { class: 'v-' + r.verdict.replace(' ', '-'), 'data-testid': 'diff-row', 'data-name': r.name, 'data-kind': r.kind,
      'data-verdict': r.verdict, 'data-shift': r.shift ?? '', 'data-p-adj': r.p_adj ?? '', 'data-count-a': r.a.count, 'data-count-b': r.b.count },
    el('td', {}, i + 1), el('td', { class: 'name' }, r.kind === 'self' ? r.name + ' (self)' : r.name), el('td', {}, r.kind),
    el('td', {}, r.a.count), el('td', {}, r.b.count), el('td', {}, r.count_ratio === null ? '–' : r.count_ratio.toPrecision(3)),
    el('td', {}, secs(r.a.median)), el('td', {}, secs(r.b.median)),
    el('td', {}, r.shift === null ? '–' : `${secs(r.shift)} [${secs(r.shift_lo)}, ${secs(r.shift_hi)}]`),
    el('td', {}, pct(r.rel_shift)), el('td', {}, pval(r.p_adj)), el('td', { class: 'verdict' }, r.verdict)));
  });
  const box = document.getElementById('diff-table');
  box.replaceChildren(t);
  if (d.rows.length > 300) box.append(el('p', { class: 'hint' }, `${d.rows.length - 300} more rows: traza diff --json`));
}

function renderRanges() {
  const box = document.getElementById('diff-ranges');
  box.replaceChildren();
  const scale = Math.pow(10, -d.b_time_unit); // ticks of the open trace per second
  for (const g of d.ranges) {
    const line = el('div', { class: 'diff-range-row' }, el('b', {}, g.row + (g.kind === 'self' ? ' (self)' : '')), ` (base interval ${secs(g.lo)} – ${secs(g.hi)}): `);
    for (const x of g.ranges) {
      const from = Math.round(x.from * scale), to = Math.round(x.to * scale);
      line.append(el('button', { class: 'diff-range ' + x.direction, 'data-testid': 'diff-range', 'data-row': g.row, 'data-from': from, 'data-to': to,
        title: 'show this range in the timeline', onclick: () => {
          setRange(from, to);
          document.querySelector('#tabs button[data-tab=overview]').click();
        } }, `${secs(x.from)} – ${secs(x.to)} ${x.direction}, ${x.events} events, median ${secs(x.median)}`), ' ');
    }
    if (!g.ranges.length) line.append(el('span', { class: 'hint' }, 'no slice outside it'));
    box.append(line);
  }
  if (!d.ranges.length) box.append(el('p', { class: 'hint' }, 'no slower or faster row'));
}

const F = i => d.tree.frames[i]; // [name, parent, depth, calls_a, calls_b, total_a, total_b, self_a, self_b, fill]

function frameText(i) {
  const f = F(i), m = d.tree.metric === 'total' ? [f[5], f[6]] : [f[7], f[8]];
  const path = [];
  for (let k = i; k >= 0; k = F(k)[1]) path.unshift(F(k)[0]);
  return `${path.join(' → ')} · calls A ${f[3]}, B ${f[4]} · total A ${secs(f[5])}, B ${secs(f[6])} · self A ${secs(f[7])}, B ${secs(f[8])}` +
    (m[0] > 0 ? ` · ${d.tree.metric} ${pct((m[1] - m[0]) / m[0])}` : f[3] === 0 ? ' · only in B' : '');
}

// The frames drawn: the focused frame's callers full width above it, the focused
// frame (or the roots) across the width, each callee a share of its caller's width.
function layout(W) {
  rects = [];
  let depth = 0, top;
  if (focus >= 0) {
    const chain = [];
    for (let k = F(focus)[1]; k >= 0; k = F(k)[1]) chain.unshift(k);
    for (const k of chain) rects.push({ i: k, x: 0, y: depth++ * RH, w: W, caller: true });
    top = [focus];
  } else top = rootKids;
  const sum = top.reduce((a, i) => a + F(i)[6], 0) || 1;
  const place = (i, x, w, dep) => {
    if (w < 0.3) return;
    rects.push({ i, x, y: dep * RH, w });
    const tot = F(i)[6] || 1;
    let cx = x;
    for (const k of kids[i]) { const kw = w * F(k)[6] / tot; place(k, cx, kw, dep + 1); cx += kw; }
  };
  let x = 0;
  for (const i of top) { const w = W * F(i)[6] / sum; place(i, x, w, depth); x += w; }
}

function drawFlame() {
  const cv = document.getElementById('diff-flame');
  if (!d || !d.tree || !d.tree.frames.length) {
    cv.hidden = true;
    document.getElementById('diff-gone').textContent = d ? 'no calls in these traces (a call-stack trace has nested states)' : '';
    return;
  }
  cv.hidden = false;
  const W = cv.parentElement.clientWidth || 800;
  layout(W);
  const rows = rects.reduce((a, r) => Math.max(a, r.y / RH + 1), 1);
  const { g } = fitCanvas(cv, rows * RH);
  g.clearRect(0, 0, W, rows * RH);
  g.font = '11px sans-serif'; g.textBaseline = 'middle';
  for (const r of rects) {
    const f = F(r.i);
    g.fillStyle = f[9];
    g.globalAlpha = r.caller ? 0.6 : 1;
    g.fillRect(r.x, r.y, Math.max(0.5, r.w - 0.5), RH - 1);
    g.globalAlpha = 1;
    if (r.w > 28) {
      g.save(); g.beginPath(); g.rect(r.x, r.y, r.w - 2, RH); g.clip();
      g.fillStyle = '#111'; g.fillText(f[0], r.x + 3, r.y + RH / 2);
      g.restore();
    }
  }
  cv.dataset.focus = focus >= 0 ? F(focus)[0] : '';
  cv.dataset.frames = String(rects.length);
  cv._rects = rects.map(r => ({ name: F(r.i)[0], depth: F(r.i)[2], fill: F(r.i)[9], x: r.x, y: r.y, w: r.w, caller: !!r.caller }));
  const gone = d.structure.paths.filter(p => p.side === 'base').length;
  document.getElementById('diff-gone').textContent = gone ? `${gone} call paths only in the base are not drawn: see Structure` : '';
  document.getElementById('diff-flame-info').textContent = `${d.tree.frames.length} call paths${d.tree.truncated ? ` (of ${d.tree.frames_total})` : ''} · colour by ${d.tree.metric} time · hover a frame for its numbers`;
}

function hit(e) {
  const x = e.offsetX, y = e.offsetY;
  for (let k = rects.length - 1; k >= 0; k--) { const r = rects[k]; if (x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + RH) return r; }
  return null;
}

let builtFor = null;  // the open trace the tab was built for: {name, id}
export async function diffChanged(what) {
  const i = state.trace.info;
  // a new version of a trace being recorded (live.js) keeps the tab; another trace rebuilds it
  const same = builtFor && builtFor.name === i.name && (builtFor.id === i.id || what.has('version'));
  if (!same) build();
  builtFor = { name: i.name, id: i.id };
  if (same && what.has('tab') && d) { drawFlame(); redrawSides(); }
}
