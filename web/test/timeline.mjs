// Browser test of the timeline: the ruler, scrolling to every producer, depth lanes,
// zoom by key, go to a time, and the hover/click events other views listen to.
// usage: node timeline.mjs URL SCREENSHOT_DIR   (traces 'nest' and 'many' in the
// workspace; 'lttng.processed' too when TRAZA_LTTNG is set)
import { check, withBrowser, openTrace, inked } from './lib.mjs';

const [url, shots] = process.argv.slice(2);
const TL = '[data-testid=timeline]';
const get = (page, path) => page.evaluate(p => fetch(p).then(r => r.json()), path);

// the producers in the order of the timeline's rows: depth first, children in list order
function treeOrder(prods) {
  const kids = new Map(), known = new Set(prods.map(p => p.id)), out = [];
  for (const p of prods) { if (!kids.has(p.parent)) kids.set(p.parent, []); kids.get(p.parent).push(p); }
  const walk = p => { out.push(p.name); for (const c of kids.get(p.id) || []) walk(c); };
  for (const p of prods) if (p.parent === -1 || !known.has(p.parent)) walk(p);
  return out;
}
// opens a trace and waits until the timeline has drawn its events
const open = openTrace;
const visible = page => page.$eval(TL, cv => JSON.parse(cv.dataset.visible || '[]'));
const headerSpan = async (page, min, span) => {
  const [f, t] = await page.$eval('[data-testid=range]', r => [r.dataset.from, r.dataset.to]);
  return f ? [Number(BigInt(f) - BigInt(min)), Number(BigInt(t) - BigInt(min))] : [0, span];
};

await withBrowser(shots, async ({ page, errors, shot }) => {
  await page.goto(url);
  await page.waitForSelector('[data-testid=trace-item]', { timeout: 10000 });

  // 1. the ruler: increasing ticks labelled with a unit, redrawn on zoom
  await open(page, 'nest');
  const ruler = () => page.$eval('[data-testid=timeline-ruler]', r => [JSON.parse(r.dataset.ticks || '[]'), JSON.parse(r.dataset.tickTs || '[]')]);
  const [labels, ts] = await ruler();
  check('the ruler has labelled ticks', labels.length >= 4, JSON.stringify(labels));
  check('the ruler ticks increase', ts.every((t, i) => i === 0 || t > ts[i - 1]), JSON.stringify(ts));
  check('the ruler labels carry a unit and read as the relative times', labels.every(l => /^\+\d+(\.[\d ]+)? (s|ms|µs|ns)$/.test(l)) && /^\+0(\.0+)? /.test(labels[0]),
    JSON.stringify(labels));
  check('the ruler steps 1/2/5', ts.length > 1 && /^[125]0*$/.test(String(ts[1] - ts[0])), JSON.stringify(ts));

  // 2. depth lanes: cpu0 nests 7 deep (drawn in 6 lanes), cpu1 does not nest
  const lanes = await page.$eval(TL, cv => JSON.parse(cv.dataset.lanes));
  check('the nesting depth of each producer is counted', lanes.cpu0 === 7 && lanes.cpu1 === 1 && lanes.cpu2 === 1, JSON.stringify(lanes));
  const rows = await visible(page);
  const h = Object.fromEntries(rows.map(([n, , hh]) => [n, hh]));
  check('a track grows with its lanes, up to 6, and a lane per variable', h.cpu0 === 6 * 14 + 4 && h.cpu1 === 18 && h.cpu2 === 18 + 2 * 26, JSON.stringify(rows));
  const pieSlices = await page.$eval('[data-testid=pie-durations]', p => +p.dataset.slices);
  check('the duration pie holds the 9 state and link types, not the held time of a variable', pieSlices === 9, pieSlices + ' slices');
  const varLanes = await page.$eval(TL, cv => JSON.parse(cv.dataset.varLanes));
  check('each variable has its own lane, in the order of the names', JSON.stringify(varLanes) === '{"cpu2":["load","mem"]}', JSON.stringify(varLanes));
  // hovering the second lane at +500 ns finds mem's point of +400 (4000), not load's
  {
    const bb = await page.$(TL).then(e => e.boundingBox()), c2 = rows.find(r => r[0] === 'cpu2');
    const got = await page.evaluate(([x, y]) => new Promise(res => {
      const on = e => { if (e.detail) { window.removeEventListener('traza:hover', on); res(e.detail); } };
      window.addEventListener('traza:hover', on);
      setTimeout(() => res(null), 3000);
      const cv = document.querySelector('[data-testid=timeline]'), r = cv.getBoundingClientRect();
      cv.dispatchEvent(new MouseEvent('mousemove', { clientX: r.left + x, clientY: r.top + y, bubbles: true }));
    }), [bb.width * 0.5, c2[1] + 18 + 26 + 13]);
    check('hovering the second variable lane finds that variable\'s value', got && got.typeName === 'mem', JSON.stringify(got));
    await page.waitForFunction(() => { const v = document.querySelector('[data-testid=tooltip-value]'); return v && v.textContent; }, null, { timeout: 5000 }).catch(() => {});
    const tv = await page.$eval('[data-testid=tooltip]', t => t.textContent);
    check('the tooltip of a variable gives its value and how long it held', /value4000/.test(tv) && /held500 ns/.test(tv) && !/duration/.test(tv), tv);
    const ltip = await page.evaluate(y => {
      const lc = document.querySelector('[data-testid=timeline-labels]'), r = lc.getBoundingClientRect();
      lc.dispatchEvent(new MouseEvent('mousemove', { clientX: r.left + 40, clientY: r.top + y, bubbles: true }));
      return lc.title;
    }, c2[1] + 18 + 26 + 13);
    check('the label column names the variable of a lane', ltip === 'mem: a variable of cpu2', ltip);
  }
  const tip = await page.evaluate(() => {
    const lc = document.querySelector('[data-testid=timeline-labels]'), r = lc.getBoundingClientRect();
    lc.dispatchEvent(new MouseEvent('mousemove', { clientX: r.left + 20, clientY: r.top + 10, bubbles: true }));
    return lc.title;
  });
  check('a track deeper than its lanes says so in a tooltip', /nest 7 deep.*lane 6/.test(tip), tip);
  await shot('timeline-lanes');

  // 3. hover and click dispatch the event's id; leaving dispatches null
  const want = (await get(page, '/api/events?trace=nest&re.type=%5Eouter%24&re.producer=%5Ecpu1%24')).events[0];
  await page.evaluate(() => {
    window.__got = [];
    for (const k of ['traza:hover', 'traza:event']) window.addEventListener(k, e => window.__got.push([k, e.detail]));
  });
  const box = await page.$(TL).then(e => e.boundingBox());
  const cpu1 = rows.find(r => r[0] === 'cpu1');
  const px = box.x + box.width * 0.7, py = box.y + cpu1[1] + cpu1[2] / 2; // +700 ns, past cpu1's markers
  await page.mouse.move(px, py);
  await page.waitForFunction(() => window.__got.length > 0, null, { timeout: 5000 });
  await shot('timeline-hover');
  await page.waitForFunction(() => /duration\s*\d/.test(document.querySelector('[data-testid=tooltip]').textContent), null, { timeout: 5000 }).catch(() => {});
  const tipText = await page.innerText('[data-testid=tooltip]');
  await page.mouse.down(); await page.mouse.up();
  await page.mouse.move(box.x + box.width * 0.7, box.y + box.height + 40);
  await page.waitForFunction(() => window.__got.some(([k, d]) => k === 'traza:hover' && d === null), null, { timeout: 5000 }).catch(() => {});
  const got = await page.evaluate(() => window.__got);
  const hov = got.find(([k, d]) => k === 'traza:hover' && d), clk = got.find(([k]) => k === 'traza:event');
  check('hovering an event dispatches traza:hover with its id and page position',
    hov && hov[1].id === want.id && hov[1].typeName === 'outer' && hov[1].producerName === 'cpu1' && Math.abs(hov[1].x - px) < 2 && Math.abs(hov[1].y - py) < 2,
    JSON.stringify(hov) + ' want id ' + want.id);
  check('the tooltip names the type, producer, start and duration', /outer/.test(tipText) && /cpu1/.test(tipText) && /start\s*\+50 ns/.test(tipText) && /duration\s*900/.test(tipText), tipText);
  check('clicking an event dispatches traza:event with its id and exact start', clk && clk[1].id === want.id && clk[1].ts === String(want.ts), JSON.stringify(clk));
  check('leaving the event dispatches traza:hover null', got.some(([k, d]) => k === 'traza:hover' && d === null), JSON.stringify(got.map(x => x[0] + ':' + (x[1] && x[1].id))));

  // 4. many producers: the last one is reachable by scrolling the tracks
  const many = await get(page, '/api/trace?trace=many');
  const order = treeOrder(many.producers);
  await open(page, 'many');
  const nrows = await page.$eval(TL, cv => +cv.dataset.rows);
  check('every producer has a track', nrows === order.length && order.length > 400, `${nrows} rows, ${order.length} producers`);
  await page.$eval('[data-testid=timeline-scroll]', s => { s.scrollTop = s.scrollHeight; });
  await page.waitForFunction(n => { const v = JSON.parse(document.querySelector('[data-testid=timeline]').dataset.visible); return v.length && v[v.length - 1][0] === n; }, order[order.length - 1], { timeout: 5000 })
    .catch(() => {});
  const vis = await visible(page);
  const lastShown = vis[vis.length - 1];
  const sbox = await page.$('[data-testid=timeline-scroll]').then(e => e.boundingBox());
  check('scrolling down shows the last producer, whole', lastShown && lastShown[0] === order[order.length - 1] && lastShown[1] + lastShown[2] <= sbox.height + 1,
    JSON.stringify(lastShown) + ' want ' + order[order.length - 1] + ' in ' + sbox.height);
  check('only the rows in view are drawn', vis.length < 40, vis.length + ' rows drawn');
  check('the scrolled tracks are drawn', await inked(page, TL) > 500, 'ink');
  await shot('timeline-scrolled');

  // 5. W zooms: the range in the header narrows; S widens it again
  const info = many.info, span = Number(BigInt(info.max_ts) - BigInt(info.min_ts));
  await page.$eval('[data-testid=timeline-scroll]', s => { s.scrollTop = 0; });
  await page.evaluate(() => document.activeElement && document.activeElement.blur());
  const [a0, b0] = await headerSpan(page, info.min_ts, span);
  await page.keyboard.press('w');
  await page.waitForFunction(() => document.querySelector('[data-testid=range]').dataset.from, null, { timeout: 5000 }).catch(() => {});
  const [a1, b1] = await headerSpan(page, info.min_ts, span);
  check('W zooms in: the header range narrows around the centre', b1 - a1 < (b0 - a0) * 0.85 && Math.abs((a1 + b1) / 2 - (a0 + b0) / 2) < span / 100,
    `${a0}..${b0} -> ${a1}..${b1}`);
  await page.keyboard.press('d');
  await page.waitForFunction(a => document.querySelector('[data-testid=range]').dataset.from !== a, String(BigInt(info.min_ts) + BigInt(a1)), { timeout: 5000 }).catch(() => {});
  const [a2, b2] = await headerSpan(page, info.min_ts, span);
  check('D pans right by a part of the view', a2 > a1 && Math.abs((b2 - a2) - (b1 - a1)) <= 2, `${a1}..${b1} -> ${a2}..${b2}`);
  const [, ts2] = await ruler();
  check('the ruler follows the view', ts2[0] >= a2 && ts2[ts2.length - 1] <= b2, `${JSON.stringify(ts2)} in ${a2}..${b2}`);

  // 6. go to a time: the view is centred on it
  await page.fill('[data-testid=tl-goto]', '1ms');
  await page.press('[data-testid=tl-goto]', 'Enter');
  await page.waitForFunction(() => { const r = document.querySelector('[data-testid=range]'); return r.dataset.from; }, null, { timeout: 5000 });
  await page.waitForTimeout(200);
  const [a3, b3] = await headerSpan(page, info.min_ts, span);
  const centre = 1e-3 / 10 ** info.time_unit;
  check('go to 1ms centres the view on +1 ms', Math.abs((a3 + b3) / 2 - centre) <= 2 && b3 - a3 < span, `${a3}..${b3}, centre ${(a3 + b3) / 2} want ${centre}`);
  const [l3] = await ruler();
  check('the ruler reads around 1 ms', l3.some(l => / ms$/.test(l)), JSON.stringify(l3));
  await page.fill('[data-testid=tl-goto]', '@' + (BigInt(info.min_ts) + 500000n).toString());
  await page.press('[data-testid=tl-goto]', 'Enter');
  await page.waitForTimeout(300);
  const [a4, b4] = await headerSpan(page, info.min_ts, span);
  // the view keeps its width: centred on the tick, or against the trace's start when
  // the tick is nearer to it than half the width
  const want4 = Math.max(0, 500000 - (b3 - a3) / 2);
  check('go to @TICKS shows that absolute tick, centred as far as the trace start allows',
    a4 <= 500000 && 500000 <= b4 && Math.abs(a4 - want4) <= 2 && Math.abs((b4 - a4) - (b3 - a3)) <= 2, `${a4}..${b4}, want from ${want4}`);
  await shot('timeline-goto');

  // absolute time on the ruler: round absolute ticks, no '+'
  await page.click('[data-testid=time-mode]');
  await page.waitForFunction(() => !JSON.parse(document.querySelector('[data-testid=timeline-ruler]').dataset.ticks || '["+"]').some(l => l.startsWith('+')), null, { timeout: 5000 }).catch(() => {});
  const [la] = await ruler();
  check('absolute time: the ruler reads seconds', la.length > 1 && la.every(l => /^\d+(\.[\d ]+)? s$/.test(l)), JSON.stringify(la));
  await page.click('[data-testid=time-mode]');

  // 7. shift-drag zooms to the selected range
  const [a5, b5] = await headerSpan(page, info.min_ts, span);
  const tb = await page.$(TL).then(e => e.boundingBox());
  await page.keyboard.down('Shift');
  await page.mouse.move(tb.x + tb.width * 0.25, tb.y + 30);
  await page.mouse.down();
  await page.mouse.move(tb.x + tb.width * 0.5, tb.y + 30, { steps: 4 });
  await page.mouse.up();
  await page.keyboard.up('Shift');
  await page.waitForTimeout(300);
  const [a6, b6] = await headerSpan(page, info.min_ts, span);
  const d5 = b5 - a5;
  check('shift-drag zooms to the selected quarter', Math.abs(a6 - (a5 + d5 * 0.25)) < d5 * 0.02 && Math.abs(b6 - (a5 + d5 * 0.5)) < d5 * 0.02, `${a5}..${b5} -> ${a6}..${b6}`);

  // 8. the LTTng kernel trace: every one of its producers reachable
  if (process.env.TRAZA_LTTNG) {
    const lt = await get(page, '/api/trace?trace=lttng.processed');
    const lorder = treeOrder(lt.producers);
    await open(page, 'lttng.processed');
    await page.$eval('[data-testid=timeline-scroll]', s => { s.scrollTop = s.scrollHeight; });
    await page.waitForTimeout(300);
    const lv = await visible(page);
    check(`LTTng: the last of its ${lorder.length} producers is reachable by scrolling`, lv.length && lv[lv.length - 1][0] === lorder[lorder.length - 1],
      JSON.stringify(lv.slice(-2)) + ' want ' + lorder[lorder.length - 1]);
    await shot('timeline-lttng');
  }
  check('no error in the page', errors.length === 0, errors.join(' | '));
});
