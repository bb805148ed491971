// A trace being recorded (traza record --target --refresh: trace parameter
// rt.recording=1). Its information is read again every second, by name: each version
// the recorder imports is a new trace (a new id) in the store. A new version replaces
// the open trace in every view (change 'version'): the view stays where it was, or,
// when it reached the end of the trace, moves with the end (it follows the end).
// Panning away from the end stops following; the "follow the end" button, or the view
// brought back to the end, resumes it. Shown in the header: "recording… (N events)".
import { state, api, changed, onChange, prepareTrace, rel, absTicks, setRange } from './state.js';

const POLL_MS = 1000;
let timer = null;
let following = true;

export const isRecording = t => !!t && t.info.params && t.info.params['rt.recording'] === '1';

// The view shows the end of the trace (the whole trace, or a range that ends there).
function atEnd() {
  if (!state.range) return true;
  const { from, to } = state.range;
  return to >= state.trace.span - Math.max(1, (to - from) / 1000);
}

function render() {
  const mark = document.getElementById('live'), btn = document.getElementById('live-follow');
  const on = isRecording(state.trace);
  mark.hidden = !on;
  btn.hidden = !on || following;
  mark.textContent = on ? `recording… (${state.trace.info.events} events)` : '';
  mark.dataset.events = on ? String(state.trace.info.events) : '';
  mark.dataset.following = on && following ? '1' : '0';
}

function schedule() {
  clearTimeout(timer);
  timer = isRecording(state.trace) ? setTimeout(poll, POLL_MS) : null;
}

// The new version t of the open trace in its place; the view kept, or moved to the end.
function replace(t) {
  const keep = state.range ? { from: absTicks(state.range.from), to: absTicks(state.range.to) } : null;
  state.trace = prepareTrace(t);
  if (keep) {
    let from = rel(keep.from), to = rel(keep.to);
    if (following) { const w = to - from; to = t.span; from = to - w; }
    from = Math.max(0, from); to = Math.min(t.span, to);
    state.range = to - from >= 2 && (from > 0 || to < t.span) ? { from, to } : null;
  }
  const entry = state.traces.find(x => x.name === t.info.name);
  if (entry) { entry.id = t.info.id; entry.events = t.info.events; }
  changed('version');
}

async function poll() {
  timer = null;
  const open = state.trace;
  if (!isRecording(open)) return;
  let t = null;
  try { t = await api('trace', { trace: open.info.name }); } catch (e) { console.error(e); }
  if (state.trace !== open) return; // another trace (or version) was opened meanwhile: it polls for itself
  if (t && t.info.id !== open.info.id) replace(t);
  render();
  schedule();
}

export function setupLive() {
  document.getElementById('live-follow').addEventListener('click', () => {
    following = true;
    if (state.range) { const w = state.range.to - state.range.from; setRange(state.trace.span - w, state.trace.span); }
    render();
  });
  onChange(what => {
    if (what.has('trace')) { following = true; schedule(); }
    else if (what.has('range') && state.trace) following = atEnd();
    render();
  });
}
