// traza web UI: the trace explorer, tabs, and the shared range shown in the header.
import './style.css';
import { state, api, post, changed, onChange, fmtTime, fmtAt, fmtAbs, countAxis, prepareTrace, absTicks, el } from './state.js';
import { setupOverview } from './overview.js';
import { setupViews } from './views.js';
import { setupDetails } from './details.js';
import { setupTools } from './tools.js';
import { setupLive } from './live.js';

async function openTrace(id) {
  const t = prepareTrace(await api('trace', { trace: id }));
  state.trace = t; state.range = null; state.folded = new Set(); state.result = null; state.during = null;
  showTitle();
  renderExplorer();
  changed('trace');
}

function showTitle() {
  const i = state.trace.info;
  document.getElementById('trace-title').textContent = `${i.name} (${i.format}, ${i.events} events)`;
}

function renderExplorer() {
  const box = document.getElementById('explorer');
  box.replaceChildren(el('h3', {}, 'Traces'));
  const groups = new Map();
  for (const t of state.traces) { if (!groups.has(t.format)) groups.set(t.format, []); groups.get(t.format).push(t); }
  for (const [fmt, list] of [...groups].sort()) {
    const ul = el('ul', {});
    for (const t of list) {
      const open = state.trace && state.trace.info.id === t.id;
      ul.append(el('li', { class: 'trace' + (open ? ' open' : ''), 'data-testid': 'trace-item', 'data-name': t.name, onclick: () => openTrace(t.id) },
        t.name, el('small', {}, ` ${t.events} ev`)));
    }
    box.append(el('details', { open: '' }, el('summary', {}, `${fmt} (${list.length})`), ul));
  }
  if (!state.traces.length) box.append(el('p', {}, 'The workspace has no trace: traza import FILE'));
  if (state.trace) {
    const i = state.trace.info;
    const meta = el('dl', { class: 'meta', 'data-testid': 'trace-meta' });
    const add = (k, v) => meta.append(el('dt', {}, k), el('dd', {}, v));
    add('name', i.name); add('format', i.format); add('events', i.events); add('producers', i.producers);
    add('event types', i.event_types); add('span', fmtTime(state.trace.span, i.time_unit));
    add('start', fmtAbs(i.min_ts, i.time_unit));
    const axisWords = { instructions: 'executed instructions', ticks: 'timestamp counter ticks' };
    add(countAxis() ? 'time axis' : 'time unit', countAxis() ? axisWords[countAxis()] || countAxis() : `10^${i.time_unit} s`);
    for (const s of i.sources) add('source', s);
    for (const [k, v] of Object.entries(i.params)) add(k, v);
    box.append(el('h3', {}, 'Metadata'), meta);
    const res = el('ul', { class: 'results', 'data-testid': 'results' });
    for (const r of state.trace.results) res.append(resultItem(r));
    if (!state.trace.results.length) res.append(el('li', {}, el('small', {}, 'no saved results')));
    box.append(el('h3', {}, 'Results'), res);
  }
}

// A saved result: an event set, producer set or group can filter every view, and so
// can the time ranges of annotations (an aggregation's parts, anomalies); any can be deleted.
function resultItem(r) {
  const on = state.result === r.name || state.during === r.name;
  const acts = el('span', { class: 'ractions' });
  if (r.kind === 'event_set' || r.kind === 'producer_set' || r.kind === 'group') {
    acts.append(el('button', { 'data-testid': 'result-filter', title: 'show only this set in every view',
      onclick: () => { state.result = on ? null : r.name; renderExplorer(); changed('result'); } }, on ? 'stop filtering' : 'use as filter'));
  } else if (r.kind === 'annotation') {
    acts.append(el('button', { 'data-testid': 'result-during', title: 'show only the events during its time ranges in every view',
      onclick: () => { state.during = on ? null : r.name; renderExplorer(); changed('result'); } }, on ? 'stop filtering' : 'use its time ranges'));
  }
  acts.append(el('button', { 'data-testid': 'result-delete', title: 'delete this result from the workspace', onclick: async () => {
    if (!confirm(`Delete the result '${r.name}' of ${state.trace.info.name}?`)) return;
    try { await post('results/delete', { trace: state.trace.info.id, name: r.name }); } catch (e) { alert('delete failed: ' + e.message); }
    if (on) { state.result = state.during = null; changed('result'); }
    changed('results');
  } }, 'delete'));
  return el('li', { class: on ? 'on' : '', 'data-testid': 'result-item', 'data-name': r.name, 'data-kind': r.kind, 'data-size': r.size },
    el('span', { class: 'rname' }, r.name), ' ', el('small', {}, `${r.kind}, ${r.size}, ${r.tool}`), acts);
}

// The results of the open trace, fetched again after a tool run or a delete.
async function refreshResults() {
  if (!state.trace) return;
  const id = state.trace.info.id;
  const r = await api('results', { trace: id });
  if (!state.trace || state.trace.info.id !== id) return;
  state.trace.results = r.results;
  if (state.result && !r.results.some(x => x.name === state.result)) { state.result = null; changed('result'); }
  if (state.during && !r.results.some(x => x.name === state.during)) { state.during = null; changed('result'); }
  renderExplorer();
}

function showRange() {
  const r = document.getElementById('range');
  if (!state.trace) { r.textContent = ''; return; }
  const u = state.trace.info.time_unit, [a, b] = state.range ? [state.range.from, state.range.to] : [0, state.trace.span];
  r.textContent = `${state.range ? 'range' : 'whole trace'} ${fmtAt(a, u)} – ${fmtAt(b, u)}` + (state.result ? ` · only '${state.result}'` : '');
  r.dataset.result = state.result || '';
  r.dataset.from = state.range ? absTicks(state.range.from) : '';
  r.dataset.to = state.range ? absTicks(state.range.to) : '';
}

async function main() {
  for (const b of document.querySelectorAll('#tabs button')) {
    b.addEventListener('click', () => {
      document.querySelectorAll('#tabs button').forEach(x => x.classList.toggle('on', x === b));
      document.querySelectorAll('.tab').forEach(x => x.classList.toggle('on', x.id === 'tab-' + b.dataset.tab));
      changed('tab');
    });
  }
  document.getElementById('reset-range').addEventListener('click', () => { state.range = null; changed('range'); });
  const mode = document.getElementById('time-mode');
  mode.addEventListener('click', () => {
    state.absolute = !state.absolute;
    mode.textContent = state.absolute ? 'absolute time' : 'relative time';
    mode.dataset.mode = state.absolute ? 'absolute' : 'relative';
    changed('timefmt');
  });
  onChange(showRange);
  onChange(what => { if (what.has('results')) refreshResults().catch(e => console.error(e)); });
  onChange(what => { if (what.has('version')) { showTitle(); renderExplorer(); } }); // a trace being recorded grew (live.js)
  setupOverview();
  setupViews();
  setupDetails();
  setupTools();
  setupLive();
  const list = await api('traces');
  state.traces = list.traces;
  renderExplorer();
  document.body.dataset.loaded = '1';
}
main().catch(e => { document.getElementById('explorer').append(el('p', { class: 'err' }, 'error: ' + e.message)); });
