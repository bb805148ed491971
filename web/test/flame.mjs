// Browser test of the call-stack tab (web/src/callstack.js) against a running
// `traza serve`: every thread labelled and reachable, a clicked call's function with
// the CLI's self/total, the flat profile sorted as the CLI sorts it, zoom, and the
// notice of a partial answer. The expected numbers come from `traza callstack --json`
// (run here, for the whole trace and for the zoomed range).
// usage: node flame.mjs URL SHOTS TRAZA TRACE[,TRACE...] PARTIAL_TRACE
// Prints PASS:/FAIL: lines (tests/lib.sh conventions).
import { execFileSync } from 'node:child_process';
import { check, withBrowser, inked, openTrace } from './lib.mjs';

const [url, shots, traza, traceList, partialTrace] = process.argv.slice(2);
const cli = (...args) => JSON.parse(execFileSync(traza, ['callstack', ...args, '--json'], { encoding: 'utf8' }));
const byName = prof => new Map(prof.map(f => [f.name, f]));

async function openCallstack(page, name) {
  await openTrace(page, name);
  await page.click('#tabs button[data-tab=callstack]');
  await page.waitForSelector('[data-testid=cs-table] tr[data-name]', { timeout: 20000 });
}

await withBrowser(shots, async ({ page, errors, shot }) => {
  for (const name of traceList.split(',')) {
    const want = cli(name);
    const prof = byName(want.profile);
    await page.goto(url);
    await page.waitForSelector('[data-testid=trace-item]', { timeout: 10000 });
    await openCallstack(page, name);

    // every thread has its label, in a header row of its own above its lanes
    const threads = await page.evaluate(() => fetch('/api/callstack?trace=' + document.querySelector('[data-testid=trace-item].open').dataset.name + '&max=1')
      .then(r => r.json()).then(j => j.threads.map(t => t.name)));
    const labels = await page.$$eval('[data-testid=cs-thread-label]', xs => xs.map(x => x.dataset.name));
    check(`${name}: every thread's label is shown (${threads.length})`, threads.length > 0 && JSON.stringify(labels) === JSON.stringify(threads),
      `api: ${threads.join(',')}\n  ui: ${labels.join(',')}`);
    const overlap = await page.$$eval('.cs-thread', xs => xs.filter(s => {
      const l = s.querySelector('.cs-thead').getBoundingClientRect(), c = s.querySelector('canvas').getBoundingClientRect();
      return l.bottom > c.top + 0.5;
    }).length);
    check(`${name}: no label is drawn over calls`, overlap === 0, `${overlap} labels overlap their lanes`);
    await shot(`flame-${name}-1-top`);

    // the last thread is reachable by scrolling the list, and drawn
    await page.$eval('[data-testid=cs-thread-label]:last-of-type', x => x);
    const last = await page.evaluate(() => {
      const box = document.getElementById('cs-threads'), secs = box.querySelectorAll('.cs-thread'), s = secs[secs.length - 1];
      s.scrollIntoView({ block: 'end' });
      const b = box.getBoundingClientRect(), r = s.getBoundingClientRect();
      return { inside: r.top >= b.top - 1 && r.bottom <= b.bottom + 1, scrolled: box.scrollTop, name: s.querySelector('.cs-thead').dataset.name };
    });
    check(`${name}: the last thread (${last.name}) is reachable by scrolling`, last.inside && last.name === threads[threads.length - 1], JSON.stringify(last));
    const lastInk = await inked(page, '.cs-thread:last-of-type canvas');
    check(`${name}: the last thread's lane is drawn`, lastInk > 0, 'coloured pixels: ' + lastInk);
    await shot(`flame-${name}-2-last`);
    await page.evaluate(() => { document.getElementById('cs-threads').scrollTop = 0; });

    // a click on a call (the widest box of depth 1, else of depth 0, found in the
    // lanes' pixels): its function with the CLI's numbers
    const spot = await page.evaluate(() => {
      const dpr = window.devicePixelRatio || 1;
      let best = null;
      for (const level of [1, 0]) {
        document.querySelectorAll('.cs-thread canvas').forEach((cv, i) => {
          if (cv.height < (level + 1) * 16 * dpr) return;
          const row = cv.getContext('2d').getImageData(0, Math.round((level * 16 + 8) * dpr), cv.width, 1).data;
          let run = 0;
          for (let x = 0; x <= cv.width; x++) {
            const o = x * 4, ink = x < cv.width && row[o + 3] > 0 && !(row[o] > 240 && row[o + 1] > 240 && row[o + 2] > 240);
            if (ink) run++;
            else { if (run && (!best || run > best.run)) best = { i, level, run, x: (x - run / 2) / dpr }; run = 0; }
          }
        });
        if (best && best.run > 6) break;
      }
      return best;
    });
    let shown = null;
    if (spot) {
      const lane = (await page.$$('.cs-thread canvas'))[spot.i];
      await lane.scrollIntoViewIfNeeded();
      const lb = await lane.boundingBox();
      await page.mouse.click(lb.x + spot.x, lb.y + spot.level * 16 + 8);
      shown = await page.$eval('[data-testid=call-details]', x => x.dataset.name || null);
    }
    await page.evaluate(() => { document.getElementById('cs-threads').scrollTop = 0; });
    const bb = await (await page.$('.cs-thread canvas')).boundingBox();
    const cd = await page.evaluate(() => ({
      self: document.querySelector('[data-testid=cd-self]')?.dataset.ticks, total: document.querySelector('[data-testid=cd-total]')?.dataset.ticks,
      callers: document.querySelectorAll('[data-testid=cd-callers] li').length, text: document.querySelector('[data-testid=call-details]').textContent }));
    const f = prof.get(shown);
    check(`${name}: a clicked call shows its function (${shown}) with the CLI's self and total time`,
      f && +cd.self === f.exclusive && +cd.total === f.inclusive, `ui self ${cd.self} total ${cd.total}; cli ${JSON.stringify(f)}`);
    check(`${name}: the details list callers (the chain up to depth 0) and callees`, /callers/.test(cd.text) && /callees/.test(cd.text) && cd.callers === Math.max(1, spot.level), cd.text.slice(0, 300));
    await shot(`flame-${name}-3-details`);

    // the flat profile sorted by self time is the CLI's order
    await page.click('[data-testid=cs-table] th[data-key=calls]');
    await page.click('[data-testid=cs-table] th[data-key=exclusive]');
    const rows = await page.$$eval('[data-testid=cs-table] tr[data-name]', xs => xs.map(x => [x.dataset.name, +x.dataset.self]));
    const sort = await page.$eval('[data-testid=cs-table]', x => x.dataset.sort);
    const cliOrder = want.profile.slice(0, rows.length).map(x => [x.name, x.exclusive]);
    check(`${name}: the flat profile sorted by self time (${sort}) is the CLI's order`, sort === 'exclusive desc' && JSON.stringify(rows) === JSON.stringify(cliOrder),
      `ui:  ${JSON.stringify(rows.slice(0, 8))}\n  cli: ${JSON.stringify(cliOrder.slice(0, 8))}`);
    await page.click('[data-testid=cs-table] th[data-key=name]');
    const byFn = await page.$$eval('[data-testid=cs-table] tr[data-name]', xs => xs.map(x => x.dataset.name));
    check(`${name}: a click on 'function' sorts by name`, JSON.stringify(byFn) === JSON.stringify([...byFn].sort((a, b) => a.localeCompare(b))), byFn.join(','));
    const graph = await inked(page, '[data-testid=cs-graph]');
    check(`${name}: the flame graph of the range is drawn`, graph > 500, 'coloured pixels: ' + graph);

    // zoom: the wheel narrows the view of every thread; at rest it becomes the range,
    // whose profile is the CLI's for that range
    const before = await page.$eval('[data-testid=cs-axis]', x => +x.dataset.to - +x.dataset.from);
    await page.mouse.move(bb.x + bb.width / 2, bb.y + 8);
    for (let i = 0; i < 4; i++) await page.mouse.wheel(0, -100);
    await page.waitForFunction(() => document.querySelector('[data-testid=range]').dataset.from, null, { timeout: 10000 });
    await page.waitForFunction(() => { const t = document.querySelector('[data-testid=cs-axis]'); return t && +t.dataset.to - +t.dataset.from > 0; });
    await page.waitForTimeout(800);
    const after = await page.$eval('[data-testid=cs-axis]', x => +x.dataset.to - +x.dataset.from);
    check(`${name}: the wheel zooms in (view ${before} -> ${after} ticks)`, after < before * 0.7, `${before} -> ${after}`);
    const [from, to] = await page.$eval('[data-testid=range]', x => [x.dataset.from, x.dataset.to]);
    const ranged = byName(cli(name, '--from', from, '--to', to).profile);
    const uiRows = await page.$$eval('[data-testid=cs-table] tr[data-name]', xs => xs.map(x => [x.dataset.name, +x.dataset.self, +x.dataset.total]));
    const bad = uiRows.filter(([n, s, t]) => !ranged.has(n) || ranged.get(n).exclusive !== s || ranged.get(n).inclusive !== t);
    check(`${name}: the profile of the zoomed range is the CLI's (--from ${from} --to ${to})`, uiRows.length > 0 && uiRows.length === Math.min(ranged.size, 500) && !bad.length,
      `${uiRows.length} rows, ${ranged.size} in the CLI; differing: ${JSON.stringify(bad.slice(0, 4))}`);
    // the threads with calls in the range, each lane drawn: no empty band
    const zoomed = await page.$$eval('[data-testid=cs-thread-label]', xs => xs.map(x => x.dataset.name));
    const inRange = await page.evaluate(([n, f, t]) => fetch(`/api/callstack?trace=${n}&from=${f}&to=${t}&max=1`)
      .then(r => r.json()).then(j => j.threads.filter(x => x.calls > 0).map(x => x.name)), [name, from, to]);
    check(`${name}: after the zoom, the threads with calls in the range (${zoomed.length} of ${threads.length})`,
      zoomed.length > 0 && JSON.stringify(zoomed) === JSON.stringify(inRange), `ui: ${zoomed.join(',')}\n  api: ${inRange.join(',')}`);
    let laneInk = 0, empty = 0;
    for (let i = 1; i <= zoomed.length; i++) {
      const k = await inked(page, `.cs-thread:nth-of-type(${i}) canvas`);
      laneInk += k;
      empty += k === 0;
    }
    check(`${name}: the lanes are drawn after the zoom`, laneInk > 200, 'coloured pixels: ' + laneInk);
    check(`${name}: no empty lane after the zoom`, empty === 0, `${empty} of ${zoomed.length} lanes blank`);
    await shot(`flame-${name}-4-zoom`);
    // a drag pans every lane: the view moves back in time by what was dragged
    const [f0, t0] = await page.$eval('[data-testid=cs-axis]', x => [+x.dataset.from, +x.dataset.to]);
    const lane0 = await (await page.$('.cs-thread canvas')).boundingBox();
    await page.mouse.move(lane0.x + lane0.width / 2, lane0.y + 8);
    await page.mouse.down();
    await page.mouse.move(lane0.x + lane0.width / 2 + 100, lane0.y + 8, { steps: 5 });
    await page.mouse.up();
    const [f1, t1] = await page.$eval('[data-testid=cs-axis]', x => [+x.dataset.from, +x.dataset.to]);
    const want0 = Math.max(0, f0 - 100 / lane0.width * (t0 - f0));
    check(`${name}: a drag pans the view (${f0} -> ${f1})`, Math.abs(f1 - want0) <= Math.max(2, (t0 - f0) / lane0.width * 2) && Math.abs((t1 - f1) - (t0 - f0)) <= 2,
      `from ${f0} -> ${f1} (expected ${want0}), width ${t0 - f0} -> ${t1 - f1}`);
    const notice = await page.$eval('[data-testid=callstack-partial]', x => !x.hidden);
    check(`${name}: a complete answer shows no partial notice`, !notice, 'the notice is shown');
  }

  // the view's filter reaches the tab: a column filter typed in the event table keeps
  // the calls of one thread, as `traza callstack --regex` keeps them
  {
    const name = traceList.split(',')[0];
    const want = cli(name, '--regex', 'producer~thread-3$');
    await page.goto(url);
    await page.waitForSelector('[data-testid=trace-item]', { timeout: 10000 });
    await openTrace(page, name);
    const all = await page.$eval('[data-testid=table]', x => +x.dataset.total);
    await page.fill('[data-testid=filter-producer]', 'thread-3$');
    await page.waitForFunction(n => +document.querySelector('[data-testid=table]').dataset.total !== n, all, { timeout: 15000 });
    await page.click('#tabs button[data-tab=callstack]');
    await page.waitForSelector('[data-testid=cs-table] tr[data-name]', { timeout: 20000 });
    const labels = await page.$$eval('[data-testid=cs-thread-label]', xs => xs.map(x => x.dataset.name));
    check(`${name}: with the table's producer filter, one thread is drawn`, JSON.stringify(labels) === JSON.stringify(['thread-3']), labels.join(','));
    const rows = await page.$$eval('[data-testid=cs-table] tr[data-name]', xs => xs.map(x => x.dataset.name));
    const wantRows = want.profile.map(f => f.name);
    check(`${name}: its flat profile is that of callstack --regex 'producer~thread-3$' (${want.calls} calls)`,
      JSON.stringify(rows.slice().sort()) === JSON.stringify(wantRows.slice().sort()), `ui: ${rows.join(',')}\n  cli: ${wantRows.join(',')}`);
    const info = await page.$eval('#cs-info', x => x.textContent);
    check(`${name}: the tab says the calls are filtered`, info.includes('filtered: producer thread-3$'), info);
    await shot('flame-filtered');
  }

  // a tiny budget on a big trace: the answer is partial and the tab says up to when,
  // then fills in by itself (the server reads on in the background, the tab asks
  // again) until it is the whole profile, that of `traza callstack`
  await page.goto(url + '?budget=10');
  await page.waitForSelector('[data-testid=trace-item]', { timeout: 10000 });
  await openTrace(page, partialTrace);
  await page.click('#tabs button[data-tab=callstack]');
  await page.waitForFunction(() => { const p = document.querySelector('[data-testid=callstack-partial]'); return p && !p.hidden && p.dataset.coveredTo; }, null, { timeout: 20000 });
  const p = await page.$eval('[data-testid=callstack-partial]', x => ({ text: x.textContent, to: x.dataset.coveredTo, progress: x.dataset.progress, h: x.getBoundingClientRect().height }));
  check('a partial answer shows a visible notice with the time it covers and the progress', p.h > 10 && /Partial answer/.test(p.text) && /up to \+[0-9]/.test(p.text) && p.to &&
    /[0-9]+ % of the recording/.test(p.text) && Number(p.progress) >= 0 && Number(p.progress) < 1, JSON.stringify(p));
  await shot('flame-partial');
  const filled = await page.waitForFunction(() => document.querySelector('[data-testid=callstack-partial]').hidden, null, { timeout: 180000 }).then(() => true, () => false);
  check('the partial view fills in by itself until complete: the notice goes', filled, 'still partial after 180 s');
  const whole = cli(partialTrace);
  const got = await page.$$eval('[data-testid=cs-table] tr[data-name]', xs => xs.map(x => [x.dataset.name, Number(x.dataset.self), Number(x.dataset.total)]));
  const wantRows = whole.profile.slice(0, got.length).map(f => [f.name, f.exclusive, f.inclusive]);
  const key = r => r.join(' ');
  check(`once complete the flat profile is that of traza callstack ${partialTrace}`, got.length === Math.min(500, whole.profile.length) &&
    JSON.stringify(got.map(key).sort()) === JSON.stringify(wantRows.map(key).sort()), `ui: ${JSON.stringify(got)}\n  cli: ${JSON.stringify(wantRows)}`);
  await shot('flame-filled');
  check('no page errors', errors.length === 0, errors.join('\n'));
});
