// Small canvas charts: pie with legend, line/curve plots, bars.
import { el, fitCanvas } from './state.js';

export function pie(title, items, testid) {
  const box = el('div', { class: 'pie', 'data-testid': testid });
  box.append(el('h4', {}, title));
  const cv = el('canvas', { width: 160, height: 160 });
  box.append(cv);
  const total = items.reduce((a, x) => a + x.value, 0);
  const g = cv.getContext('2d');
  let a0 = -Math.PI / 2;
  const shown = items.filter(x => x.value > 0).sort((a, b) => b.value - a.value);
  for (const it of shown) {
    const a1 = a0 + (total ? it.value / total : 0) * 2 * Math.PI;
    g.beginPath(); g.moveTo(80, 80); g.arc(80, 80, 76, a0, a1); g.closePath();
    g.fillStyle = it.color; g.fill();
    a0 = a1;
  }
  const legend = el('ul', { class: 'legend' });
  for (const it of shown.slice(0, 12)) {
    // a long name keeps its end, where names of one family differ (the whole in the title)
    const label = it.label.length > 20 ? '…' + it.label.slice(-19) : it.label;
    legend.append(el('li', { title: it.label }, el('span', { class: 'sw', style: 'background:' + it.color }),
      `${label} ${total ? (100 * it.value / total).toFixed(1) : 0}%`));
  }
  if (shown.length > 12) legend.append(el('li', {}, `… ${shown.length - 12} more`));
  if (!shown.length) legend.append(el('li', {}, 'nothing in the selection'));
  box.append(legend);
  box.dataset.slices = String(shown.length);
  box.dataset.total = String(total);
  return box;
}

const num = x => String(+x.toPrecision(4));

// y values over x in [x0, x1]; marks: [{x, y, color}]; opts.fmtX labels the x axis
export function plot(cv, height, series, opts = {}) {
  const { g, w, h } = fitCanvas(cv, height);
  g.clearRect(0, 0, w, h);
  let xs = [], ys = [];
  for (const s of series) for (const [x, y] of s.points) { xs.push(x); ys.push(y); }
  if (opts.marks) for (const m of opts.marks) { xs.push(m.x); ys.push(m.y); }
  if (!xs.length) return null;
  const x0 = opts.x0 ?? Math.min(...xs), x1 = opts.x1 ?? Math.max(...xs);
  const y0 = opts.y0 ?? Math.min(0, ...ys), y1 = opts.y1 ?? Math.max(...ys);
  const X = x => 30 + (w - 40) * (x1 > x0 ? (x - x0) / (x1 - x0) : 0.5);
  const Y = y => h - 14 - (h - 24) * (y1 > y0 ? (y - y0) / (y1 - y0) : 0.5);
  g.strokeStyle = '#999'; g.beginPath(); g.moveTo(30, h - 14); g.lineTo(w - 10, h - 14); g.moveTo(30, 6); g.lineTo(30, h - 14); g.stroke();
  for (const s of series) {
    g.strokeStyle = s.color; g.fillStyle = s.color; g.lineWidth = 1.5;
    if (s.dots) { for (const [x, y] of s.points) g.fillRect(X(x) - 1, Y(y) - 1, 2, 2); continue; }
    g.beginPath();
    s.points.forEach(([x, y], i) => (i ? g.lineTo(X(x), Y(y)) : g.moveTo(X(x), Y(y))));
    g.stroke();
  }
  if (opts.bands) for (const b of opts.bands) {
    g.fillStyle = b.color; g.fillRect(30, Y(b.hi), w - 40, Math.max(1, Y(b.lo) - Y(b.hi)));
  }
  if (opts.marks) for (const m of opts.marks) {
    g.fillStyle = m.color; g.beginPath(); g.arc(X(m.x), Y(m.y), m.r || 3, 0, 2 * Math.PI); g.fill();
  }
  if (opts.vline !== undefined) { g.strokeStyle = '#d22'; g.beginPath(); g.moveTo(X(opts.vline), 6); g.lineTo(X(opts.vline), h - 14); g.stroke(); }
  g.fillStyle = '#555'; g.font = '10px sans-serif';
  const fx = opts.fmtX || num;
  g.fillText(String(+y1.toPrecision(3)), 2, 12); g.fillText(fx(x0), 30, h - 2);
  const lbl = fx(x1); g.fillText(lbl, w - 10 - g.measureText(lbl).width, h - 2);
  return { X, Y, x0, x1, w, h, invX: px => x0 + (px - 30) / (w - 40) * (x1 - x0) };
}

export function bars(cv, height, counts, color = '#4a7bd0') {
  const { g, w, h } = fitCanvas(cv, height);
  g.clearRect(0, 0, w, h);
  const max = Math.max(1, ...counts);
  const bw = w / counts.length;
  g.fillStyle = color;
  counts.forEach((c, i) => { const bh = (h - 4) * c / max; g.fillRect(i * bw, h - bh, Math.max(1, bw - 0.5), bh); });
  return { g, w, h };
}

// Two series over a shared x axis, each on its own y scale: a on the left axis, b on
// the right one, both drawn over the full plot height (a small series beside a large
// one would otherwise draw flat). a, b: {color, label, points: [[x, y]]}; fmtX labels x.
export function plot2(cv, height, a, b, fmtX = num) {
  const { g, w, h } = fitCanvas(cv, height);
  g.clearRect(0, 0, w, h);
  const all = [...a.points, ...b.points];
  if (!all.length) return null;
  const L = 44, R = 44, T = 8, B = 14;
  let x0 = Infinity, x1 = -Infinity;
  for (const [x] of all) { if (x < x0) x0 = x; if (x > x1) x1 = x; }
  const X = x => L + (w - L - R) * (x1 > x0 ? (x - x0) / (x1 - x0) : 0.5);
  const yr = s => { let lo = Infinity, hi = -Infinity; for (const [, y] of s.points) { if (y < lo) lo = y; if (y > hi) hi = y; } return [Math.min(0, lo), hi]; };
  const Yof = ([lo, hi]) => y => h - B - (h - B - T) * (hi > lo ? (y - lo) / (hi - lo) : 0.5);
  g.strokeStyle = '#999'; g.lineWidth = 1;
  g.beginPath(); g.moveTo(L, h - B); g.lineTo(w - R, h - B); g.stroke();
  g.font = '10px sans-serif';
  const axis = (s, x, right) => {
    const r = yr(s);
    g.strokeStyle = s.color; g.lineWidth = 2; g.beginPath(); g.moveTo(x, T); g.lineTo(x, h - B); g.stroke();
    g.fillStyle = s.color;
    const top = String(+r[1].toPrecision(3)), bot = String(+r[0].toPrecision(3));
    const tx = t => (right ? x + 3 : x - 3 - g.measureText(t).width);
    g.fillText(top, tx(top), T + 8); g.fillText(bot, tx(bot), h - B);
    return Yof(r);
  };
  const YA = axis(a, L, false), YB = axis(b, w - R, true);
  for (const [s, Y] of [[a, YA], [b, YB]]) {
    g.strokeStyle = s.color; g.lineWidth = 1.5; g.beginPath();
    s.points.forEach(([x, y], i) => (i ? g.lineTo(X(x), Y(y)) : g.moveTo(X(x), Y(y))));
    g.stroke();
  }
  g.fillStyle = '#555';
  g.fillText(fmtX(x0), L, h - 2);
  const lbl = fmtX(x1); g.fillText(lbl, w - R - g.measureText(lbl).width, h - 2);
  cv.dataset.colors = JSON.stringify([a.color, b.color]);
  return { X, YA, YB, x0, x1, w, h };
}
