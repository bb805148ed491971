// Shared state of every view: the open trace, the selected time range and the
// column filters. A change is broadcast to all views (they stay synchronised).
export const state = {
  traces: [],
  trace: null,        // /api/trace answer
  range: null,        // {from, to} or null (whole trace)
  filters: {},        // column -> regex
  folded: new Set(),  // producer ids whose subtree is folded in the timeline
};

const listeners = [];
export function onChange(fn) { listeners.push(fn); }
let pending = null;
export function changed(what) {
  // coalesce bursts (wheel zoom, brushing) into one refresh per frame
  if (pending) { pending.add(what); return; }
  pending = new Set([what]);
  requestAnimationFrame(() => {
    const w = pending; pending = null;
    for (const fn of listeners) fn(w);
  });
}

export async function api(path, params = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, v);
  const url = '/api/' + path + (q.toString() ? '?' + q.toString().replace(/\+/g, '%20') : '');
  const r = await fetch(url);
  const body = await r.json().catch(() => ({ error: 'bad answer' }));
  if (!r.ok) throw new Error(body.error || ('HTTP ' + r.status));
  return body;
}

export function apiUrl(path, params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, v);
  return '/api/' + path + '?' + q.toString().replace(/\+/g, '%20');
}

// Parameters of the current selection (range + regex filters), for every endpoint.
export function selection(extra = {}) {
  const p = { trace: state.trace ? state.trace.info.id : undefined };
  if (state.range) { p.from = state.range.from; p.to = state.range.to; }
  for (const [c, re] of Object.entries(state.filters)) {
    if (!re) continue;
    if (re.startsWith('!')) p['nre.' + c] = re.slice(1); else p['re.' + c] = re;
  }
  return Object.assign(p, extra);
}

export function span() {
  const i = state.trace.info;
  return state.range ? [state.range.from, state.range.to] : [i.min_ts, i.max_ts];
}

export function setRange(from, to) {
  const i = state.trace.info;
  from = Math.max(i.min_ts, Math.round(from)); to = Math.min(i.max_ts, Math.round(to));
  if (to - from < 2) to = from + 2;
  state.range = (from <= i.min_ts && to >= i.max_ts) ? null : { from, to };
  changed('range');
}

export function fmtTime(ticks, unit) {
  const s = ticks * Math.pow(10, unit);
  const a = Math.abs(s);
  if (a === 0) return '0';
  if (a >= 1) return s.toFixed(3) + ' s';
  if (a >= 1e-3) return (s * 1e3).toFixed(3) + ' ms';
  if (a >= 1e-6) return (s * 1e6).toFixed(3) + ' µs';
  return (s * 1e9).toFixed(1) + ' ns';
}

export function typeById(id) { return state.trace.typeMap.get(id); }
export function prodById(id) { return state.trace.prodMap.get(id); }

// Canvas sized to its CSS box at the device pixel ratio.
export function fitCanvas(cv, h) {
  const dpr = window.devicePixelRatio || 1;
  const w = cv.clientWidth || cv.parentElement.clientWidth || 600;
  if (h) cv.style.height = h + 'px';
  const hh = h || cv.clientHeight || 100;
  cv.width = Math.round(w * dpr); cv.height = Math.round(hh * dpr);
  const g = cv.getContext('2d');
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  return { g, w, h: hh };
}

export function el(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return e;
}
