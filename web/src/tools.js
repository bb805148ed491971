// The Tools tab: the workspace's analyses (GET /api/tools) with a form built from
// each one's typed options; Run queues a job on the server (POST /api/run), whose
// progress is polled (/api/job) until its result is saved, and the explorer's
// result list is then fetched again.
import { state, api, post, changed, onChange, absTicks, columnFilters, el } from './state.js';

let tools = null;    // /api/tools answer
let current = null;  // name of the selected tool
let job = null;      // {id, timer} of the job being followed

// The input of one option, by its type (allowed values make a select).
function optionInput(o) {
  const id = 'opt-' + o.name;
  const attrs = { id, 'data-testid': 'tool-opt', 'data-name': o.name, 'data-type': o.type };
  if (o.type === 'bool') {
    const c = el('input', Object.assign(attrs, { type: 'checkbox' }));
    c.checked = o.default === 'true';
    return c;
  }
  if (o.allowed) {
    const s = el('select', attrs);
    for (const v of o.allowed) s.append(el('option', { value: v }, v));
    if (o.default) s.value = o.default;
    return s;
  }
  if (o.type === 'result') {
    const s = el('select', attrs, el('option', { value: '' }, '(none)'));
    for (const r of state.trace ? state.trace.results : []) s.append(el('option', { value: r.name }, `${r.name} (${r.kind})`));
    return s;
  }
  const num = o.type === 'int' || o.type === 'double';
  const i = el('input', Object.assign(attrs, { type: num ? 'number' : 'text', placeholder: o.default ?? (o.type === 'time' ? 'e.g. 1.5ms' : '') }));
  if (num) i.step = o.type === 'int' ? '1' : 'any';
  if (o.default && num) i.value = o.default;
  return i;
}

// A repeatable option: one input per value, and + adds another.
function repeatableInput(o) {
  const box = el('span', { class: 'multi', 'data-testid': 'tool-multi', 'data-name': o.name }, optionInput(o));
  const add = el('button', { type: 'button', 'data-testid': 'tool-opt-add', 'data-name': o.name, title: 'another value',
    onclick: () => { const i = optionInput(o); i.removeAttribute('id'); box.insertBefore(i, add); i.focus(); } }, '+');
  box.append(add);
  return box;
}

// The options the form sets: those that differ from their default (a repeatable
// option: the list of its non-empty values).
function formValues(tool) {
  const p = {};
  for (const o of tool.options) {
    const inps = [...document.querySelectorAll(`#tool-form [data-testid=tool-opt][data-name="${o.name}"]`)];
    const vs = inps.map(inp => o.type === 'bool' ? String(inp.checked) : inp.value.trim()).filter(v => v !== '' && v !== (o.default ?? ''));
    if (vs.length) p[o.name] = o.repeatable ? vs : vs[vs.length - 1];
  }
  return p;
}

// What the current selection is, in words ('' when there is none).
function selectionText() {
  const parts = [];
  if (state.range) parts.push('the selected range');
  if (state.result) parts.push(`the set '${state.result}'`);
  if (Object.values(state.filters).some(re => re)) parts.push("the table's column filters");
  return parts.join(' and ');
}

function showForm() {
  const box = document.getElementById('tool-form');
  const tool = tools.tools.find(t => t.name === current);
  if (!tool) { box.replaceChildren(el('p', {}, 'pick a tool')); return; }
  const grid = el('div', { class: 'tool-grid' });
  for (const o of tool.options) {
    grid.append(el('label', { for: 'opt-' + o.name }, o.name + (o.required ? ' *' : '')),
      o.repeatable && o.type !== 'bool' ? repeatableInput(o) : optionInput(o),
      el('small', {}, (o.help || '') + (o.repeatable && !/repeatable/.test(o.help || '') ? ' (repeatable)' : '')));
  }
  const ranged = el('input', { type: 'checkbox', id: 'tool-range', 'data-testid': 'tool-range' });
  ranged.disabled = !selectionText();
  box.replaceChildren(
    el('h3', {}, tool.name, ' ', el('small', {}, tool.summary || '')),
    tool.options.length ? grid : el('p', {}, 'no options'),
    el('div', { class: 'controls' },
      el('label', { 'data-testid': 'tool-selection' }, ranged, ' on ' + (selectionText() || 'the selection') + ' only'),
      el('button', { 'data-testid': 'tool-run', id: 'tool-run', onclick: () => run(tool) }, 'Run'),
      el('button', { 'data-testid': 'tool-cancel', id: 'tool-cancel', disabled: '', onclick: cancel }, 'Cancel'),
      el('progress', { 'data-testid': 'tool-progress', id: 'tool-progress', max: 1, value: 0 }),
      el('span', { 'data-testid': 'tool-status', id: 'tool-status' })),
    el('pre', { class: 'tool-out', 'data-testid': 'tool-output', id: 'tool-output' }));
}

function showList() {
  const ul = el('ul', { class: 'tool-list' });
  for (const t of tools.tools) {
    ul.append(el('li', { class: t.name === current ? 'on' : '', 'data-testid': 'tool-item', 'data-name': t.name, title: t.summary || '',
      onclick: () => { current = t.name; showList(); showForm(); } }, t.name, t.origin !== 'builtin' ? el('small', {}, ' plugin') : ''));
  }
  document.getElementById('tool-list').replaceChildren(ul);
}

async function render() {
  const s = document.getElementById('tab-tools');
  if (!tools) tools = await api('tools');
  if (!current && tools.tools.length) current = tools.tools[0].name;
  s.replaceChildren(el('div', { class: 'panel' },
    el('h3', {}, 'Tools ', el('small', {}, 'run an analysis on the open trace: its result is saved in the workspace and listed in the explorer')),
    state.trace ? el('div', { class: 'tools' }, el('div', { id: 'tool-list' }), el('div', { id: 'tool-form' }))
      : el('p', {}, 'open a trace first')));
  if (state.trace) { showList(); showForm(); }
}

function status(text, cls) {
  const st = document.getElementById('tool-status');
  if (st) { st.textContent = text; st.className = cls || ''; }
}

async function run(tool) {
  const p = Object.assign({ tool: tool.name, trace: state.trace.info.id }, formValues(tool));
  if (document.getElementById('tool-range').checked) {
    if (state.range) { p.from = absTicks(state.range.from); p.to = absTicks(state.range.to); }
    if (state.result) p.set = state.result;
    columnFilters(p);
  }
  document.getElementById('tool-output').textContent = '';
  document.getElementById('tool-progress').value = 0;
  let r;
  try { r = await post('run', p); } catch (e) { status('error: ' + e.message, 'err'); return; }
  follow(r.job);
}

function follow(id) {
  if (job) clearTimeout(job.timer);
  job = { id };
  document.getElementById('tool-run').disabled = true;
  document.getElementById('tool-cancel').disabled = false;
  status(`job ${id} queued`);
  const poll = async () => {
    let j;
    try { j = await api('job', { id }); } catch (e) { status('error: ' + e.message, 'err'); return; }
    if (!job || job.id !== id) return;
    const bar = document.getElementById('tool-progress');
    if (bar) bar.value = j.progress;
    if (j.state === 'queued' || j.state === 'running') {
      status(`job ${id} ${j.state} ${Math.round(j.progress * 100)}%`);
      job.timer = setTimeout(poll, 250);
      return;
    }
    job = null;
    const runBtn = document.getElementById('tool-run'), cancelBtn = document.getElementById('tool-cancel');
    if (runBtn) runBtn.disabled = false;
    if (cancelBtn) cancelBtn.disabled = true;
    const out = document.getElementById('tool-output');
    if (out) out.textContent = (j.output || '').slice(0, 20000);
    if (j.state === 'done') {
      status((j.result ? `done: saved '${j.result}'` : 'done (no result saved)') + (j.filter ? ` (on ${j.filter})` : ''), 'ok');
      document.getElementById('tool-status').dataset.result = j.result || '';
      document.getElementById('tool-status').dataset.filter = j.filter || '';
      changed('results');
    } else status(`${j.state}${j.error ? ': ' + j.error : ''}`, 'err');
  };
  poll();
}

async function cancel() {
  if (!job) return;
  try { await post('job/cancel', { id: job.id }); } catch (e) { status('error: ' + e.message, 'err'); }
}

export function setupTools() {
  if (!document.getElementById('tab-tools'))
    document.getElementById('main').append(el('section', { id: 'tab-tools', class: 'tab' }));
  onChange(async what => {
    if (!document.getElementById('tab-tools').classList.contains('on')) return;
    const box = document.getElementById('tool-range');
    if (box && (what.has('range') || what.has('result') || what.has('filter'))) {
      box.disabled = !selectionText();
      box.parentElement.lastChild.textContent = ' on ' + (selectionText() || 'the selection') + ' only';
    }
    if (!(what.has('tab') || what.has('trace'))) return;
    try { await render(); } catch (e) { console.error(e); document.getElementById('tab-tools').append(el('p', { class: 'err' }, 'error: ' + e.message)); }
    document.body.dataset.ready = String(Date.now());
  });
}
