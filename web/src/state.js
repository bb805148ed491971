// Shared state of every view: the open trace, the selected time range and the
// column filters. A change is broadcast to all views (they stay synchronised).
export const state = {
  traces: [],
  trace: null,        // /api/trace answer
  range: null,        // {from, to} or null (whole trace)
  filters: {},        // column -> regex
  folded: new Set(),  // producer ids whose subtree is folded in the timeline
  absolute: false,    // times shown as absolute ticks instead of offsets from the start
  selected: null,     // id of the event in the details panel (its table row is marked)
  result: null,       // name of the saved event or producer set every view is filtered by
  during: null,       // name of saved annotations whose time ranges filter every view
};

// Times. The API sends ticks as strings (ticks=string): epoch nanoseconds are beyond
// 2^53 and a double would round them. The UI works in offsets from the trace's first
// tick (Numbers, exact up to 2^53 ticks: 104 days in ns) and turns them back into
// exact absolute ticks for requests and for display.
let origin = 0n;
export function setOrigin(minTs) { origin = BigInt(minTs); }
// An absolute tick (string or number from the API) as an offset from the start.
export function rel(ticks) { return Number(BigInt(ticks) - origin); }
// An offset as the exact absolute tick, a decimal string.
export function absTicks(offset) { return (origin + BigInt(Math.round(offset))).toString(); }

const UNITS = [[0, 's'], [-3, 'ms'], [-6, 'µs'], [-9, 'ns'], [-12, 'ps'], [-15, 'fs']];
// n ticks (BigInt) of 10^unit s as a decimal in the unit of exponent e, every digit
// kept; the fraction grouped by three (and its zero groups dropped when trim).
function decimal(n, unit, e, trim) {
  const neg = n < 0n; if (neg) n = -n;
  const shift = e - unit;
  let txt;
  if (shift <= 0) txt = (n * 10n ** BigInt(-shift)).toString();
  else {
    const p = 10n ** BigInt(shift);
    let frac = (n % p).toString().padStart(shift, '0');
    frac = frac.padEnd(Math.ceil(shift / 3) * 3, '0').match(/.../g).join(' ');
    if (trim) frac = frac.replace(/( ?000)+$/, '');
    txt = (n / p).toString() + (frac ? '.' + frac : '');
  }
  return (neg ? '-' : '') + txt;
}
// A trace whose ticks are not seconds (trace parameter time.axis, ETM imports): executed
// instructions ("instructions") or timestamp counter ticks ("ticks"); every time reads
// as a count, "+9548 instr", "+120 ticks".
export const countAxis = () => state.trace?.info?.params?.['time.axis'] || null;
const fmtInstr = (ticks, sign) => (sign && ticks >= 0 ? '+' : '') + String(BigInt(Math.round(Number(ticks)))) + ' ' +
  (countAxis() === 'instructions' ? 'instr' : countAxis());
// An offset from the start in adaptive units: +1.234 567 s, +850 ns, +0 s.
export function fmtRel(offset, unit) {
  if (countAxis()) return fmtInstr(offset, true);
  const n = BigInt(Math.round(offset));
  const a = n < 0n ? -n : n;
  let [e, name] = UNITS[UNITS.length - 1];
  for (const [ue, un] of UNITS) { if (ue <= unit) { [e, name] = [ue, un]; break; } if (a >= 10n ** BigInt(ue - unit)) { [e, name] = [ue, un]; break; } }
  return (n < 0n ? '' : '+') + decimal(n, unit, e, true) + ' ' + name;
}
// A ruler tick at offset, as fmtAt shows it but with the fraction cut to the digits a
// step of `step` ticks needs: +1.2 ms, 1571261796.553 2 s. The unit of a relative
// label is the one fmtRel gives to ref (the largest offset on the ruler), so every
// label of a ruler reads in one unit. absolute: the open trace's ticks, else offsets.
export function fmtTick(offset, unit, step, ref, absolute = state.absolute) {
  if (countAxis()) return fmtInstr(absolute ? absTicks(offset) : offset, !absolute);
  const stepDigits = String(Math.max(1, Math.round(step))).length - 1; // trailing zeros of a 1/2/5 step
  let n, e, name;
  if (absolute) { n = BigInt(absTicks(offset)); [e, name] = [0, 's']; } else {
    n = BigInt(Math.round(offset));
    const a = BigInt(Math.round(Math.abs(ref)));
    [e, name] = UNITS[UNITS.length - 1];
    for (const [ue, un] of UNITS) { if (ue <= unit || a >= 10n ** BigInt(ue - unit)) { [e, name] = [ue, un]; break; } }
  }
  const shift = e - unit, keep = Math.max(0, shift - stepDigits);
  let txt = decimal(n, unit, e, false);
  const dot = txt.indexOf('.');
  if (dot >= 0) {
    const frac = txt.slice(dot + 1).replace(/ /g, '').slice(0, keep);
    txt = txt.slice(0, dot) + (frac ? '.' + frac.match(/.{1,3}/g).join(' ') : '');
  }
  return (absolute || n < 0n ? '' : '+') + txt + ' ' + name;
}
// An absolute tick in seconds with every digit: 1571261796.553 123 457 s.
export function fmtAbs(ticks, unit) { if (countAxis()) return fmtInstr(ticks, false); return decimal(BigInt(ticks), unit, 0, false) + ' s'; }
// An offset as shown: relative by default, absolute when the toggle says so.
export function fmtAt(offset, unit) { return state.absolute ? fmtAbs(absTicks(offset), unit) : fmtRel(offset, unit); }

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
  for (const [k, v] of Object.entries(params))  // an array: the parameter given once per value
    for (const x of Array.isArray(v) ? v : [v]) if (x !== undefined && x !== null && x !== '') q.append(k, x);
  q.set('ticks', 'string');
  const url = '/api/' + path + (q.toString() ? '?' + q.toString().replace(/\+/g, '%20') : '');
  const r = await fetch(url);
  const body = await r.json().catch(() => ({ error: 'bad answer' }));
  if (!r.ok) throw new Error(body.error || ('HTTP ' + r.status));
  return body;
}

// A request that changes the workspace: POST with the page's token (the server
// refuses a POST without it, so another site's page cannot make one).
export async function post(path, params = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params))  // an array: the option given once per value
    for (const x of Array.isArray(v) ? v : [v]) if (x !== undefined && x !== null && x !== '') q.append(k, x);
  const meta = document.querySelector('meta[name="traza-token"]');
  const r = await fetch('/api/' + path + '?' + q.toString().replace(/\+/g, '%20'),
    { method: 'POST', headers: { 'X-Traza-Token': meta ? meta.content : '' } });
  const body = await r.json().catch(() => ({ error: 'bad answer' }));
  if (!r.ok) throw new Error(body.error || ('HTTP ' + r.status));
  return body;
}

export function apiUrl(path, params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, v);
  return '/api/' + path + '?' + q.toString().replace(/\+/g, '%20');
}

// The table's column filters as request parameters: re.COLUMN=REGEX, or
// nre.COLUMN=REGEX for a regex written !REGEX (the column does not match).
export function columnFilters(p = {}) {
  for (const [c, re] of Object.entries(state.filters)) {
    if (!re) continue;
    if (re.startsWith('!')) p['nre.' + c] = re.slice(1); else p['re.' + c] = re;
  }
  return p;
}

// Parameters of the current selection (range, regex filters, the result used as a
// filter), for every endpoint.
export function selection(extra = {}) {
  const p = { trace: state.trace ? state.trace.info.id : undefined, result: state.result || undefined, during: state.during || undefined };
  if (state.range) { p.from = absTicks(state.range.from); p.to = absTicks(state.range.to); }
  return Object.assign(columnFilters(p), extra);
}

// The shown window as offsets from the start.
export function span() {
  return state.range ? [state.range.from, state.range.to] : [0, state.trace.span];
}

export function setRange(from, to) {
  const end = state.trace.span;
  from = Math.max(0, Math.round(from)); to = Math.min(end, Math.round(to));
  if (to - from < 2) to = from + 2;
  state.range = (from <= 0 && to >= end) ? null : { from, to };
  changed('range');
}

// A duration in ticks, rounded to 4 digits.
export function fmtTime(ticks, unit) {
  if (countAxis()) return fmtInstr(ticks, false);
  const s = ticks * Math.pow(10, unit);
  const a = Math.abs(s);
  if (a === 0) return '0';
  if (a >= 1) return s.toFixed(3) + ' s';
  if (a >= 1e-3) return (s * 1e3).toFixed(3) + ' ms';
  if (a >= 1e-6) return (s * 1e6).toFixed(3) + ' µs';
  return (s * 1e9).toFixed(1) + ' ns';
}

// A trace as /api/trace answers it, made ready to be the open one: its maps by id, the
// time origin at its start, its span from there.
export function prepareTrace(t) {
  t.typeMap = new Map(t.types.map(x => [x.id, x]));
  t.prodMap = new Map(t.producers.map(x => [x.id, x]));
  setOrigin(t.info.min_ts);
  t.span = rel(t.info.max_ts);
  return t;
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
