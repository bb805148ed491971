// The analysis tabs: aggregation, anomalies and correlation, grammars; the call stack
// (callstack.js) is dispatched from here.
import { state, api, onChange, span, setRange, fmtAt, rel, absTicks, fitCanvas, el } from './state.js';
import { pie, plot, plot2, bars } from './charts.js';
import { callstackChanged } from './callstack.js';
import { diffChanged } from './diff.js';

const PART_COLORS = ['#e6e6e6', '#cfd8e6'];

/* ---------------- aggregation ---------------- */
let agg = null;
function aggregateTab() {
  const s = document.getElementById('tab-aggregate');
  s.replaceChildren(
    el('div', { class: 'panel' },
      el('h3', {}, 'Best-cut-partition aggregation ', el('small', {}, 'parts of the selected range; p trades gain against loss')),
      el('div', { class: 'controls' },
        el('label', {}, 'slices ', el('input', { id: 'agg-slices', type: 'number', value: 30, min: 2, max: 200, style: 'width:60px' })),
        el('label', {}, ' model ', (() => { const x = el('select', { id: 'agg-model' }); for (const m of ['occurrences', 'duration', 'avg-duration', 'avg-value']) x.append(el('option', {}, m)); return x; })()),
        el('button', { onclick: loadAggregate }, 'compute'),
        el('label', {}, ' p ', el('input', { id: 'agg-slider', 'data-testid': 'agg-slider', type: 'range', min: 0, max: 0, value: 0, step: 1 })),
        el('span', { id: 'agg-p', 'data-testid': 'agg-p' })),
      el('canvas', { id: 'agg-parts', 'data-testid': 'agg-parts' }),
      el('h4', {}, 'gain / loss over p ', el('small', {}, 'click the curve to pick p')),
      el('canvas', { id: 'agg-curve', 'data-testid': 'agg-curve' }),
      el('div', { id: 'agg-legend', class: 'legend-row' })));
  document.getElementById('agg-slider').addEventListener('input', drawAggregate);
  document.getElementById('agg-curve').addEventListener('click', e => {
    if (!agg || !agg.curve) return;
    const p = agg.curve.invX(e.offsetX);
    let best = 0;
    agg.p_list.forEach((x, i) => { if (Math.abs(x.p - p) < Math.abs(agg.p_list[best].p - p)) best = i; });
    document.getElementById('agg-slider').value = best; drawAggregate();
  });
}
async function loadAggregate() {
  if (!state.trace) return;
  const [from, to] = span();
  agg = await api('aggregate', { trace: state.trace.info.id, from: absTicks(from), to: absTicks(to), slices: document.getElementById('agg-slices').value, model: document.getElementById('agg-model').value, during: state.during || undefined });
  const sl = document.getElementById('agg-slider');
  sl.max = String(agg.p_list.length - 1); sl.value = String(agg.proposed);
  drawAggregate();
}
function drawAggregate() {
  if (!agg) return;
  const i = +document.getElementById('agg-slider').value, pe = agg.p_list[i];
  document.getElementById('agg-p').textContent = `p = ${pe.p.toFixed(4)} · ${pe.nparts} parts · gain ${pe.gain.toPrecision(4)} · loss ${pe.loss.toPrecision(4)}` +
    (agg.sampled ? ' · sampled' : '') + (agg.partial ? ' · partial (time budget reached)' : '');
  const cv = document.getElementById('agg-parts');
  cv.dataset.nparts = String(pe.nparts);
  const { g, w, h } = fitCanvas(cv, 140);
  g.clearRect(0, 0, w, h);
  const n = agg.slices, sw = w / n;
  // parts: consecutive slices with one id; inside a block, the proportion of each type
  let k = 0;
  while (k < n) {
    let e = k; while (e + 1 < n && pe.parts[e + 1] === pe.parts[k]) e++;
    const tot = agg.types.map(t => t.values.slice(k, e + 1).reduce((a, b) => a + b, 0));
    const sum = tot.reduce((a, b) => a + b, 0) || 1;
    let y = 4;
    agg.types.forEach((t, j) => { const hh = (h - 8) * tot[j] / sum; g.fillStyle = t.color; g.fillRect(k * sw + 1, y, (e - k + 1) * sw - 2, hh); y += hh; });
    g.strokeStyle = '#222'; g.lineWidth = 1.5; g.strokeRect(k * sw + 1, 4, (e - k + 1) * sw - 2, h - 8);
    k = e + 1;
  }
  const curve = document.getElementById('agg-curve');
  agg.curve = plot(curve, 140, [
    { color: '#2a8a2a', points: agg.p_list.map(x => [x.p, x.gain]) },
    { color: '#c03030', points: agg.p_list.map(x => [x.p, x.loss]) }], { vline: pe.p, x0: 0, x1: 1 });
  const lg = document.getElementById('agg-legend'); lg.replaceChildren(el('span', {}, 'gain (green), loss (red) · types: '));
  for (const t of agg.types) lg.append(el('span', { class: 'sw', style: 'background:' + t.color }), el('span', {}, t.name + ' '));
}

/* ---------------- anomalies and correlation ---------------- */
function anomalyTab() {
  const s = document.getElementById('tab-anomaly');
  const sel = el('select', { id: 'an-series', 'data-testid': 'an-series' });
  const ts = state.trace ? [...state.trace.types].sort((a, b) => (a.category !== 'state') - (b.category !== 'state')) : [];
  for (const t of ts) sel.append(el('option', { value: t.name }, `${t.name} (${t.category})`));
  const metric = el('select', { id: 'an-metric' }); for (const m of ['duration', 'period']) metric.append(el('option', {}, m));
  // the defaults of traza correlate --anomalies-of: duration, mad, k 3, regular
  const rule = el('select', { id: 'an-rule', 'data-testid': 'an-rule' }); for (const m of ['mad', 'sigma', 'ci99']) rule.append(el('option', {}, m));
  const k = el('input', { id: 'an-k', type: 'number', value: 3, min: 0.1, max: 100, step: 0.5, style: 'width:50px' });
  const method = el('select', { id: 'an-method', 'data-testid': 'an-method' }); for (const m of ['regular', 'irregular']) method.append(el('option', {}, m));
  const prods = el('datalist', { id: 'an-prods' });
  if (state.trace) for (const p of state.trace.producers) prods.append(el('option', { value: p.name }));
  const prod = el('input', { id: 'an-producer', 'data-testid': 'an-producer', list: 'an-prods', placeholder: 'every producer', style: 'width:120px' });
  s.replaceChildren(el('div', { class: 'panel' },
    el('h3', {}, 'Anomalies ', el('small', {}, 'a series (one event type) over time, anomalous values in red')),
    el('div', { class: 'controls' }, 'series ', sel, ' producer ', prod, prods, ' metric ', metric, ' rule ', rule, ' k ', k, ' correlation ', method,
      el('button', { onclick: loadAnomaly, 'data-testid': 'an-run' }, 'detect')),
    el('canvas', { id: 'an-series-cv', 'data-testid': 'an-plot' }), el('div', { id: 'an-info' }),
    el('h4', {}, 'density of the values'), el('canvas', { id: 'an-hist' }),
    el('h4', {}, 'probable causes of the anomalies ', el('small', {}, 'every other (type, producer) series ranked by its temporal correlation with the anomalies, as traza correlate --anomalies-of --rank')),
    el('div', { id: 'an-causes', 'data-testid': 'an-causes' }),
    el('h4', {}, 'the series against a cause over time ', el('small', {}, 'x = time; y = cumulative event count, each series on its own scale: the series on the left axis, the cause on the right (click a cause to compare)')),
    el('canvas', { id: 'an-corr', 'data-testid': 'an-corr' }), el('div', { id: 'an-corr-legend', class: 'legend-row' })));
}
async function loadAnomaly() {
  const id = state.trace.info.id, type = document.getElementById('an-series').value;
  const producer = document.getElementById('an-producer').value.trim();
  const opts = { metric: document.getElementById('an-metric').value, rule: document.getElementById('an-rule').value, k: document.getElementById('an-k').value };
  const series = producer ? `${type}@${producer}` : type;
  const a = await api('anomaly', Object.assign({ trace: id, series, subtree: 0 }, opts));
  for (const p of a.points) p[0] = rel(p[0]);
  for (const x of a.anomalies) x.ts = rel(x.ts);
  const info = state.trace.info, fmtX = x => fmtAt(x, info.time_unit);
  const p = plot(document.getElementById('an-series-cv'), 180, [{ color: '#4a7bd0', dots: true, points: a.points }], {
    marks: a.anomalies.map(x => ({ x: x.ts, y: x.value, color: '#d01010', r: 3 })),
    bands: [{ lo: a.lo, hi: a.hi, color: 'rgba(40,160,40,0.15)' }], fmtX });
  const [f, t] = span(); if (p && state.range) { const g = document.getElementById('an-series-cv').getContext('2d'); g.fillStyle = 'rgba(255,160,0,0.15)'; g.fillRect(p.X(f), 0, p.X(t) - p.X(f), p.h); }
  document.getElementById('an-info').textContent = `${a.n} values, ${a.count} anomalies outside [${a.lo.toPrecision(4)}, ${a.hi.toPrecision(4)}] (${a.rule}, ${a.metric}; time unit 10^${info.time_unit} s)`;
  bars(document.getElementById('an-hist'), 80, a.histogram.counts, '#7a5bd0');
  const box = document.getElementById('an-causes'); box.textContent = 'ranking…';
  if (!a.count) { // nothing to rank: said here rather than asked of the server (a 422)
    box.textContent = `no anomalies of ${series} with rule ${a.rule}: nothing to rank (another rule, or a smaller k, may flag some)`;
    return;
  }
  try {
    const c = await api('correlate', Object.assign({ trace: id, anomalies_of: type, producer, method: document.getElementById('an-method').value, top: 15 }, opts));
    const tb = el('table', { class: 'list' }, el('tr', {}, el('th', {}, 'rank'), el('th', {}, 'type'), el('th', {}, 'producer'), el('th', {}, 'events'), el('th', {}, 'r')));
    c.causes.forEach((x, i) => tb.append(el('tr', { class: 'cause', style: 'cursor:pointer', 'data-type': x.type_name, 'data-producer': x.producer_name, 'data-r': String(x.r), onclick: () => plotCorrelation(a, x) },
      el('td', {}, i + 1), el('td', {}, el('i', { class: 'sw', style: 'background:' + x.color }), x.type_name), el('td', {}, x.producer_name), el('td', {}, x.n), el('td', {}, x.r.toFixed(3)))));
    box.replaceChildren(el('p', {}, `${c.events} anomalies (${c.series}), ${c.total} candidate series, ${c.method} correlation${c.partial ? ' · partial (time budget reached)' : ''}`), tb);
    box.dataset.series = c.series;
    if (c.causes.length) await plotCorrelation(a, c.causes[0]);
  } catch (e) { box.textContent = 'correlation: ' + e.message; }
}
// The analysed series and one cause as cumulative event counts over time (the
// points are every step-th event: y = index).
async function plotCorrelation(a, cause) {
  const id = state.trace.info.id;
  let b;
  try { b = await api('anomaly', { trace: id, series: `${cause.type_name}@${cause.producer_name}`, metric: 'period' }); }
  catch (e) { b = await api('anomaly', { trace: id, series: cause.type_name, metric: 'period' }); }
  for (const p of b.points) p[0] = rel(p[0]);
  const idx = (x, first) => x.points.map((p, k) => [p[0], first + k * x.step]);
  const cv = document.getElementById('an-corr');
  // the anomalies (what the causes are ranked against) when there are two or more
  const many = a.anomalies.length > 1;
  const sa = { color: '#4a7bd0', points: many ? a.anomalies.map((x, k) => [x.ts, k]) : idx(a, a.metric === 'period' ? 1 : 0) }, sb = { color: cause.color, points: idx(b, 1) };
  plot2(cv, 180, sa, sb, x => fmtAt(x, state.trace.info.time_unit));
  cv.dataset.points = String(sa.points.length + sb.points.length);
  document.getElementById('an-corr-legend').replaceChildren(
    el('span', { class: 'sw', style: 'background:#4a7bd0' }), el('span', {}, many ? `the ${a.anomalies.length} anomalies of ${a.series} (left axis) ` : `${a.series} (${a.n} events, left axis) `),
    el('span', { class: 'sw', style: 'background:' + cause.color }), el('span', {}, `${cause.type_name} @ ${cause.producer_name} (${b.n} events, right axis), r = ${cause.r.toFixed(3)}`));
}

/* ---------------- grammars ---------------- */
async function grammarTab() {
  const s = document.getElementById('tab-grammar');
  const list = await api('grammars');
  const sel = el('select', { id: 'gr-sel' });
  for (const g of list.grammars) sel.append(el('option', { value: g.id }, `${g.name} (${g.bytes} bytes)`));
  s.replaceChildren(el('div', { class: 'panel' },
    el('h3', {}, 'Grammars ', el('small', {}, '.tzg files given to traza serve --grammar or found in the workspace directory')),
    list.grammars.length ? el('div', { class: 'controls' }, sel, el('button', { onclick: loadGrammar }, 'open')) : el('p', {}, 'no .tzg grammar: start traza serve with --grammar FILE.tzg'),
    el('div', { id: 'gr-body' })));
  if (list.grammars.length) loadGrammar();
}
async function loadGrammar() {
  const g = await api('grammar', { id: document.getElementById('gr-sel').value, rules: 100 });
  const body = document.getElementById('gr-body');
  const colors = i => `hsl(${(i * 137.5) % 360} 60% 55%)`;
  body.replaceChildren(el('p', {}, `${g.algo}: ${g.rules} rules, |w| = ${g.length}, size ${g.size}, compression ${(g.compression * 100).toFixed(2)}%, depth ${g.depth}, loop header ${g.loop_header ?? 'none'}, ${g.distinct_cycles} distinct cycles`));
  if (g.cycles.length) {
    body.append(pie('Cycles (occurrences)', g.cycles.map(c => ({ label: `#${c.id} (${c.length} sym)`, value: c.count, color: colors(c.id) })), 'gr-pie'));
    body.append(el('h4', {}, 'cycles in time', g.runs_sampled ? el('small', {}, ` (sampled: ${g.runs.length} runs from ${g.cycles_total} cycles)`) : ''));
    const cv = el('canvas', { 'data-testid': 'gr-strip' }); body.append(cv);
    requestAnimationFrame(() => {
      const { g: ctx, w, h } = fitCanvas(cv, 40);
      const L = Math.max(1, g.length);
      for (const [cyc, rep, pos] of g.runs) {
        const len = g.cycles[cyc] ? g.cycles[cyc].length * rep : 1;
        ctx.fillStyle = colors(cyc); ctx.fillRect(pos / L * w, 0, Math.max(1, len / L * w), h);
      }
    });
  }
  const tb = el('table', { class: 'list' }, el('tr', {}, el('th', {}, 'rule'), el('th', {}, 'expands to'), el('th', {}, 'body')));
  for (const r of g.rule_list) {
    const bodyText = r.body.map(([isr, v, rep]) => (isr ? v : v) + (rep > 1 ? '^' + rep : '')).join(' ') + (r.nbody > r.body.length ? ' …' : '');
    tb.append(el('tr', {}, el('td', {}, (r.id === 0 ? 'S' : 'R' + r.id.toString(16)) + (r.cycle ? ' (cycle)' : '')), el('td', {}, r.len), el('td', { class: 'mono' }, bodyText)));
  }
  body.append(el('h4', {}, 'rules'), tb);
}

export function setupViews() {
  onChange(async what => {
    if (!state.trace) return;
    const tab = document.querySelector('.tab.on').id;
    try {
      if (tab === 'tab-aggregate') { if (what.has('trace') || what.has('tab') || !document.getElementById('agg-slider')) aggregateTab(); await loadAggregate(); }
      else if (tab === 'tab-anomaly') { if (what.has('trace') || what.has('tab')) anomalyTab(); if (what.has('trace') || what.has('version') || what.has('tab') || what.has('range') || what.has('timefmt')) await loadAnomaly(); }
      else if (tab === 'tab-grammar') { if (what.has('tab')) await grammarTab(); }
      else if (tab === 'tab-callstack') await callstackChanged(what);
      else if (tab === 'tab-diff') await diffChanged(what);
    } catch (e) { console.error(e); document.getElementById(tab).append(el('p', { class: 'err' }, 'error: ' + e.message)); }
    document.body.dataset.ready = String(Date.now());
  });
  void setRange;
}
