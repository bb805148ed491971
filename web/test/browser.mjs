// Browser test of the traza web UI: drives Debian's chromium headless through
// playwright-core against a running `traza serve`.
// usage: node browser.mjs URL SCREENSHOT_DIR TRACE_NAME
// Prints PASS:/FAIL: lines (tests/lib.sh conventions); exit 0 unless it crashed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pass, fail, check, withBrowser, inked as inkedOn } from './lib.mjs';

const [url, shots, traceName, withGrammar] = process.argv.slice(2);
await withBrowser(shots, async ({ page, errors, requests }) => {
  const inked = sel => inkedOn(page, sel);

  // 1. the page loads and lists the traces
  const t0 = Date.now();
  await page.goto(url);
  await page.waitForSelector('[data-testid=trace-item]', { timeout: 10000 });
  const firstPaintMs = Date.now() - t0;
  const names = await page.$$eval('[data-testid=trace-item]', xs => xs.map(x => x.dataset.name));
  check('page loads and lists the traces', names.includes(traceName) && names.length >= 2, 'traces: ' + names.join(','));
  console.log(`# first paint with the trace list: ${firstPaintMs} ms`);
  await page.screenshot({ path: join(shots, '1-list.png') });

  // 2. open one: metadata, density and timeline canvases drawn
  await page.click(`[data-testid=trace-item][data-name="${traceName}"]`);
  await page.waitForFunction(() => /events in the selection/.test(document.querySelector('[data-testid=table-count]').textContent), null, { timeout: 15000 });
  await page.waitForFunction(() => document.querySelector('[data-testid=timeline]').dataset.mode, null, { timeout: 15000 });
  const meta = await page.textContent('[data-testid=trace-meta]');
  check('opening a trace shows its metadata', meta.includes(traceName), meta.slice(0, 200));
  const dens = await inked('[data-testid=density]'), tl = await inked('[data-testid=timeline]');
  check('density canvas has drawn pixels', dens > 500, 'coloured pixels: ' + dens);
  check('timeline canvas has drawn pixels', tl > 500, 'coloured pixels: ' + tl);
  const pieTypes0 = await page.$eval('[data-testid=pie-types]', x => +x.dataset.total);
  const total0 = await page.$eval('[data-testid=table]', x => +x.dataset.total);
  check('table and pie agree on the whole trace', total0 > 0 && pieTypes0 === total0, `table ${total0}, pie ${pieTypes0}`);
  const rows0 = await page.$$eval('.trow', xs => xs.length);
  check('the table shows a page of rows', rows0 > 5, 'rows: ' + rows0);
  await page.screenshot({ path: join(shots, '2-open.png'), fullPage: true });

  // 3. a regex filter narrows the table
  const waitTotalChange = async prev => page.waitForFunction(p => +document.querySelector('[data-testid=table]').dataset.total !== p, prev, { timeout: 15000 });
  await page.fill('[data-testid=filter-type]', '^state');
  await waitTotalChange(total0);
  const total1 = await page.$eval('[data-testid=table]', x => +x.dataset.total);
  const types1 = await page.$$eval('.trow span:nth-child(4)', xs => xs.map(x => x.textContent));
  check('a regex filter narrows the table', total1 > 0 && total1 < total0 && types1.every(t => t.startsWith('state')), `${total0} -> ${total1}: ${types1.slice(0, 5)}`);
  await page.screenshot({ path: join(shots, '3-filter.png') });
  // virtual scrolling: jump to the middle, another page of rows is fetched
  const firstId = await page.$eval('.trow span', x => x.textContent);
  await page.$eval('[data-testid=vscroll]', v => { v.scrollTop = v.scrollHeight / 2; });
  await page.waitForFunction(id => document.querySelector('.trow span').textContent !== id, firstId, { timeout: 10000 });
  pass('virtual scrolling loads the rows at the scroll position');
  const csvHref = await page.getAttribute('[data-testid=csv]', 'href');
  check('CSV export link carries the selection', csvHref.includes('re.type=') && csvHref.includes('events.csv'), csvHref);
  const csv = await page.evaluate(h => fetch(h).then(r => r.text()), csvHref);
  const csvLines = csv.trim().split('\n');
  check('CSV export has the selected rows', csvLines.length - 1 === Math.min(total1, 100000) && csvLines[0].startsWith('id,ts'), `${csvLines.length - 1} lines vs ${total1}`);
  await page.fill('[data-testid=filter-type]', '');
  await waitTotalChange(total1);
  // a regex over one parameter column (re.p0=)
  await page.fill('[data-testid=filter-param-name]', 'p0');
  await page.fill('[data-testid=filter-param]', '^1');
  await waitTotalChange(total0);
  const totalP = await page.$eval('[data-testid=table]', x => +x.dataset.total);
  const paramsP = await page.$$eval('.trow span:nth-child(7)', xs => xs.map(x => x.textContent));
  check('a parameter regex filter narrows the table', totalP > 0 && totalP < total0 && paramsP.every(t => /(^| )p0=1/.test(t)), `${total0} -> ${totalP}: ${paramsP.slice(0, 3)}`);
  await page.fill('[data-testid=filter-param]', '');
  await page.fill('[data-testid=filter-param-name]', '');
  await waitTotalChange(totalP);

  // 4. a brushed range updates the table and the pie chart
  await page.$eval('[data-testid=density]', e => e.scrollIntoView());
  const box = await page.$('[data-testid=density]').then(e => e.boundingBox());
  await page.mouse.move(box.x + box.width * 0.3, box.y + 30);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.45, box.y + 30, { steps: 5 });
  await page.mouse.up();
  await waitTotalChange(total0);
  await page.waitForFunction(t => +document.querySelector('[data-testid=pie-types]').dataset.total !== t, pieTypes0, { timeout: 15000 });
  const total2 = await page.$eval('[data-testid=table]', x => +x.dataset.total);
  const pie2 = await page.$eval('[data-testid=pie-types]', x => +x.dataset.total);
  const range = await page.$eval('[data-testid=range]', x => x.dataset.from);
  check('a brushed range narrows the table', total2 > 0 && total2 < total0 && range !== '', `${total0} -> ${total2}`);
  check('a brushed range updates the pie chart', pie2 < pieTypes0 && pie2 > 0, `${pieTypes0} -> ${pie2}`);
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(shots, '4-brush.png'), fullPage: true });

  // timeline zoom: the wheel narrows the range; all views follow
  await page.$eval('[data-testid=timeline]', e => e.scrollIntoView());
  const tbox = await page.$('[data-testid=timeline]').then(e => e.boundingBox());
  await page.mouse.move(tbox.x + tbox.width / 2, tbox.y + 20);
  for (let i = 0; i < 8; i++) await page.mouse.wheel(0, -200);
  await waitTotalChange(total2);
  const total3 = await page.$eval('[data-testid=table]', x => +x.dataset.total);
  check('zooming the timeline narrows every view', total3 < total2, `${total2} -> ${total3}`);
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(shots, '5-zoom.png') });
  await page.click('[data-testid=reset-range]');
  await waitTotalChange(total3);

  // 5. the aggregation slider changes the parts
  await page.click('#tabs button[data-tab=aggregate]');
  await page.waitForFunction(() => document.querySelector('[data-testid=agg-parts]') && document.querySelector('[data-testid=agg-parts]').dataset.nparts, null, { timeout: 20000 });
  const max = +(await page.getAttribute('[data-testid=agg-slider]', 'max'));
  const partsAt = async v => {
    await page.$eval('[data-testid=agg-slider]', (s, x) => { s.value = String(x); s.dispatchEvent(new Event('input')); }, v);
    return page.$eval('[data-testid=agg-parts]', c => +c.dataset.nparts);
  };
  const pLow = await partsAt(0), pHigh = await partsAt(max);
  check('the aggregation slider changes the parts', max > 0 && pLow !== pHigh, `p index 0: ${pLow} parts, ${max}: ${pHigh} parts`);
  await partsAt(Math.floor(max / 2));
  await page.screenshot({ path: join(shots, '6-aggregate.png'), fullPage: true });

  // anomalies, call stack: drawn without errors
  await page.click('#tabs button[data-tab=anomaly]');
  // the default rule (mad) finds no outlier in the generated trace's uniform durations,
  // and the panel says so; ci99 (the paper's rule) flags values there
  await page.waitForFunction(() => { const b = document.querySelector('[data-testid=an-causes]'); return b && b.textContent && b.textContent !== 'ranking…'; }, null, { timeout: 20000 });
  await page.selectOption('[data-testid=an-rule]', 'ci99');
  await page.click('[data-testid=an-run]');
  await page.waitForFunction(() => document.querySelector('[data-testid=an-causes] table'), null, { timeout: 20000 });
  pass('the anomaly view ranks probable causes');
  if (process.env.TRAZA_CAUSES) {
    // the panel's order and r values are the CLI's (traza correlate --anomalies-of --rank --json)
    const cli = JSON.parse(readFileSync(process.env.TRAZA_CAUSES, 'utf8')).ranking;
    const shown = await page.$$eval('[data-testid=an-causes] tr.cause', xs => xs.map(x => [x.dataset.type, x.dataset.producer, x.dataset.r]));
    const series = await page.$eval('[data-testid=an-causes]', x => x.dataset.series);
    const want = cli.slice(0, shown.length);
    const same = shown.length === Math.min(15, cli.length) && shown.every(([t, p, r], i) => t === want[i].type && p === want[i].producer && Number(r) === want[i].r);
    check('the probable causes panel shows the CLI\'s order and r values', same && series === 'anomalies:state0:duration',
      `${series}\n  panel: ${JSON.stringify(shown.slice(0, 4))}\n  cli:   ${JSON.stringify(want.slice(0, 4))}`);
  }
  const anInk = await inked('[data-testid=an-plot]');
  const anMarks = await page.$eval('[data-testid=an-plot]', cv => cv.dataset.marks || '');
  check('the anomaly view plots the series over time', anInk > 200, 'coloured pixels: ' + anInk + ' marks ' + anMarks);
  await page.waitForFunction(() => +(document.querySelector('[data-testid=an-corr]').dataset.points || 0) > 0, null, { timeout: 20000 });
  const corrInk = await inked('[data-testid=an-corr]');
  check('the correlation view plots the two series over time', corrInk > 200, 'coloured pixels: ' + corrInk);
  // each series on its own y scale: both curves span most of the plot's height (with
  // one shared axis, the smaller series drew nearly flat)
  const extent = await page.$eval('[data-testid=an-corr]', cv => {
    const cols = JSON.parse(cv.dataset.colors || '[]').map(c => [1, 3, 5].map(k => parseInt(c.slice(k, k + 2), 16)));
    const d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
    // the plot area between the two axes (44 css px each side), so axis lines do not count
    const dpr = cv.width / cv.clientWidth, x0 = Math.ceil(50 * dpr), x1 = Math.floor(cv.width - 50 * dpr);
    return cols.map(c => {
      let rows = 0;
      for (let y = 0; y < cv.height; y++) {
        for (let x = x0; x < x1; x++) {
          const i = (y * cv.width + x) * 4;
          if (d[i + 3] > 200 && Math.abs(d[i] - c[0]) + Math.abs(d[i + 1] - c[1]) + Math.abs(d[i + 2] - c[2]) < 60) { rows++; break; }
        }
      }
      return rows / cv.height;
    });
  });
  check('both correlated series have their own vertical extent', extent.length === 2 && extent.every(f => f > 0.5),
    'fraction of rows covered per series: ' + extent.map(f => f.toFixed(2)).join(', '));
  await page.screenshot({ path: join(shots, '7-anomaly.png'), fullPage: true });
  await page.click('#tabs button[data-tab=callstack]');
  await page.waitForSelector('[data-testid=cs-table]', { timeout: 20000 });
  pass('the call-stack view shows a flat profile');
  await page.screenshot({ path: join(shots, '8-callstack.png'), fullPage: true });
  await page.click('#tabs button[data-tab=grammar]');
  if (withGrammar) {
    await page.waitForSelector('[data-testid=gr-pie]', { timeout: 10000 });
    const slices = await page.$eval('[data-testid=gr-pie]', x => +x.dataset.slices);
    check('the grammar view draws the cycle pie', slices === 2, 'cycles in the pie: ' + slices);
  }
  await page.screenshot({ path: join(shots, '9-grammar.png'), fullPage: true });

  // traces in epoch nanoseconds: relative times from +0 by default, the exact stored
  // tick on the absolute toggle (a double would round it to a multiple of 256 ns)
  const exactTicks = async (name, want, nEvents, spanRe) => {
    await page.click('#tabs button[data-tab=overview]');
    await page.click(`[data-testid=trace-item][data-name="${name}"]`);
    await page.waitForFunction(n => document.querySelector('[data-testid=table-count]').textContent.startsWith(n + ' events in the selection'), nEvents, { timeout: 15000 });
    await page.waitForFunction(re => new RegExp(re).test(document.querySelector('[data-testid=range]').textContent), spanRe.source, { timeout: 5000 })
      .then(() => pass(`${name}: the header shows the range relative to the trace start, from +0`),
        async () => fail(`${name}: the header shows the range relative to the trace start, from +0`, await page.textContent('[data-testid=range]')));
    const cell = () => page.$eval('.trow span:nth-child(2)', x => [x.textContent, x.dataset.ts]);
    const [relText, relTs] = await cell();
    check(`${name}: the table shows relative times`, relText === '+0 ns' && relTs === want, `${relText} (${relTs})`);
    await page.click('[data-testid=time-mode]');
    await page.waitForFunction(() => !document.querySelector('[data-testid=range]').textContent.includes('+'), null, { timeout: 5000 });
    await page.waitForFunction(() => !document.querySelector('.trow span:nth-child(2)').textContent.startsWith('+'), null, { timeout: 5000 });
    const [absText, absTs] = await cell();
    const header = await page.textContent('[data-testid=range]');
    check(`${name}: the absolute time of an event equals the stored tick exactly`, absTs === want && absText.replace(/[^0-9]/g, '') === want,
      `shown ${absText} (${absTs}), stored ${want}`);
    const wantHead = `whole trace ${want.slice(0, -9)}.${want.slice(-9).match(/.../g).join(' ')} s – `;
    check(`${name}: the header shows the absolute range on the toggle`, header.startsWith(wantHead), `${header} vs ${wantHead}`);
    await page.screenshot({ path: join(shots, `10-${name}-absolute.png`) });
    await page.click('[data-testid=time-mode]');
  };
  if (process.env.TRAZA_EPOCH_TS) await exactTicks('epoch', process.env.TRAZA_EPOCH_TS, 300, /^whole trace \+0 ns – \+299\.000 897 ms$/);
  if (process.env.TRAZA_LTTNG_TS) await exactTicks('lttng', process.env.TRAZA_LTTNG_TS, +process.env.TRAZA_LTTNG_EVENTS, /^whole trace \+0 ns – \+\d/);

  const external = requests.filter(u => !u.startsWith(url.replace(/\/$/, '')) && !u.startsWith('data:'));
  check('the UI makes no request outside the server', external.length === 0, external.join(' '));
  check('no error in the page', errors.length === 0, errors.join(' | '));
});
