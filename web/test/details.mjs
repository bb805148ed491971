// Browser test of the details panel, the hover tooltip, the event search and the
// statistics of a range, against `traza serve` and the CLI's answers.
// usage: node details.mjs URL SCREENSHOT_DIR EXPECT_JSON
//   EXPECT_JSON (tests/web/t_details.sh): {"trace", "events": [traza query --json],
//   "search": [{"col", "re", "text", "count", "hits": [first ids]}], "lttng"?: {...}}
// $TRAZA is the CLI, run for `traza stats` of the range the UI selects.
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { check, withBrowser, openTrace } from './lib.mjs';

const [url, shots, expectFile] = process.argv.slice(2);
const X = JSON.parse(readFileSync(expectFile, 'utf8'));
const byId = new Map(X.events.map(e => [e.id, e]));
const shotName = n => `details-${n}`;

await withBrowser(shots, async ({ page, errors, shot }) => {
  await page.goto(url);
  await page.waitForSelector('[data-testid=trace-item]', { timeout: 10000 });
  // every traza:goto the search sends
  await page.evaluate(() => { window.gotos = []; window.addEventListener('traza:goto', e => window.gotos.push(e.detail)); });
  await openTrace(page, X.trace);

  const shownId = () => page.$eval('[data-testid=details]', d => (d.hidden ? null : +d.dataset.id));
  const waitShown = id => page.waitForFunction(i => { const d = document.querySelector('[data-testid=details]'); return !d.hidden && +d.dataset.id === i; }, id, { timeout: 10000 });
  const text = sel => page.$eval(sel, x => x.textContent);
  // the panel against the CLI's JSON of the same event
  async function checkPanel(what, id) {
    const ev = byId.get(id);
    const got = {
      type: await text('[data-testid=details-type]'),
      producer: await text('[data-testid=details-producer]'),
      duration: ev.end_ts !== undefined ? await text('[data-testid=details-duration]') : null,
      endProducer: ev.end_producer ? await text('[data-testid=details-end-producer]') : null,
      params: await page.$$eval('[data-testid=details-param]', xs => Object.fromEntries(xs.map(x => [x.dataset.name, x.textContent]))),
    };
    const wantParams = Object.fromEntries(Object.entries(ev.params || {}).map(([k, v]) => [k, String(v)]));
    const dur = ev.end_ts !== undefined ? `(${ev.end_ts - ev.ts} ticks)` : null;
    check(`${what}: the panel shows event ${id}'s type, producer path, duration and parameters as 'traza query --json'`,
      got.type === ev.type && got.producer === ev.producer && (dur === null || got.duration.endsWith(dur)) &&
      (got.endProducer === null || got.endProducer === ev.end_producer) && JSON.stringify(got.params) === JSON.stringify(wantParams),
      `got ${JSON.stringify(got)}, want ${JSON.stringify(ev)}`);
  }

  // 1. a row of the table
  const rowId = X.row;
  await page.$eval(`.trow[data-id="${rowId}"]`, r => r.scrollIntoView({ block: 'center' }));
  await page.click(`.trow[data-id="${rowId}"]`);
  await waitShown(rowId);
  await checkPanel('a click on a table row', rowId);
  const dur = await text('[data-testid=details-duration]');
  check('the duration reads in a unit, every digit, and in ticks', dur === `${X.row_duration} (${byId.get(rowId).end_ts - byId.get(rowId).ts} ticks)`, dur);
  check('the clicked row is marked', await page.$eval(`.trow[data-id="${rowId}"]`, r => r.classList.contains('sel')), 'no .sel');
  const sets = await page.$$eval('[data-testid=details-results] li', xs => xs.map(x => x.textContent));
  check('the panel lists the saved event sets that hold the event', JSON.stringify(sets) === JSON.stringify(X.row_sets), JSON.stringify(sets));
  const start = await text('[data-testid=details-start]');
  check('start time relative to the trace start', start === X.row_start_rel, start);
  await page.click('[data-testid=time-mode]');
  await page.waitForFunction(s => document.querySelector('[data-testid=details-start]').textContent !== s, start, { timeout: 5000 });
  const abs = await text('[data-testid=details-start]');
  check('the time toggle shows the start as absolute', abs === X.row_start_abs, abs);
  await page.click('[data-testid=time-mode]');
  await shot(shotName('1-row'));

  // 2. the timeline's traza:event
  await page.evaluate(id => window.dispatchEvent(new CustomEvent('traza:event', { detail: { id } })), X.dispatch);
  await waitShown(X.dispatch);
  await checkPanel('traza:event', X.dispatch);
  await page.evaluate(() => window.dispatchEvent(new CustomEvent('traza:event', { detail: { id: 99999999 } })));
  await page.waitForSelector('[data-testid=details-error]', { timeout: 5000 });
  check('an unknown id says so in the panel', /no event 99999999/.test(await text('[data-testid=details-error]')), await text('[data-testid=details-error]'));

  // 3. the tooltip: beside the pointer, never under it
  const hv = byId.get(rowId);
  for (const [x, y, where] of [[400, 300, 'middle'], [1390, 990, 'bottom-right corner']]) {
    await page.evaluate(d => window.dispatchEvent(new CustomEvent('traza:hover', { detail: d })),
      { id: rowId, ts: String(hv.ts), producer: X.row_producer_id, type: X.row_type_id, x, y });
    await page.waitForFunction(() => { const t = document.querySelector('[data-testid=tooltip]'); return !t.hidden && !/…/.test(t.textContent); }, null, { timeout: 5000 });
    const box = await page.$eval('[data-testid=tooltip]', t => { const r = t.getBoundingClientRect(); return { l: r.left, t: r.top, r: r.right, b: r.bottom }; });
    const tt = await text('[data-testid=tooltip]');
    check(`tooltip (${where}): type, producer, start and duration`, tt.includes(hv.type) && tt.includes(hv.producer) &&
      (await text('[data-testid=tooltip-start]')) === X.row_start_rel && (await text('[data-testid=tooltip-duration]')) === X.row_duration, tt);
    check(`tooltip (${where}) does not cover the cursor and stays on screen`,
      !(x >= box.l && x <= box.r && y >= box.t && y <= box.b) && box.l >= 0 && box.t >= 0 && box.r <= 1400 && box.b <= 1000, JSON.stringify(box));
    if (where === 'middle') await shot(shotName('2-tooltip'));
  }
  await page.evaluate(() => window.dispatchEvent(new CustomEvent('traza:hover', { detail: null })));
  check('traza:hover null hides the tooltip', await page.$eval('[data-testid=tooltip]', t => t.hidden), 'still shown');

  // 4. the search: "1 of N" with the CLI's count, next and previous
  for (const s of X.search) {
    await page.selectOption('[data-testid=search-col]', s.col);
    await page.fill('[data-testid=search]', s.text);
    const want1 = `1 of ${s.count}`;
    await page.waitForFunction(w => document.querySelector('[data-testid=search-count]').textContent === w, want1, { timeout: 10000 })
      .catch(() => {});
    check(`search '${s.text}' (${s.col}): "${want1}" as 'traza query --regex ${s.col}~${s.re} --count'`, (await text('[data-testid=search-count]')) === want1, await text('[data-testid=search-count]'));
    await waitShown(s.hits[0]).catch(() => {});
    check(`search '${s.text}': hit 1 (event ${s.hits[0]}) in the details panel and marked in the table`,
      (await shownId()) === s.hits[0] && await page.$eval(`.trow[data-id="${s.hits[0]}"]`, r => r.classList.contains('sel')).catch(() => false),
      `panel ${await shownId()}`);
    const g = await page.evaluate(() => window.gotos[window.gotos.length - 1]);
    check(`search '${s.text}': traza:goto carries hit 1's exact start`, g && g.ts === String(byId.get(s.hits[0]).ts), JSON.stringify(g));
    if (s.hits.length < 2) continue;
    await page.click('[data-testid=search-next]');
    const want2 = `2 of ${s.count}`;
    await page.waitForFunction(w => document.querySelector('[data-testid=search-count]').textContent === w, want2, { timeout: 10000 }).catch(() => {});
    await waitShown(s.hits[1]).catch(() => {});
    check(`search '${s.text}': next moves to hit 2 (event ${s.hits[1]})`, (await text('[data-testid=search-count]')) === want2 && (await shownId()) === s.hits[1],
      `${await text('[data-testid=search-count]')}, panel ${await shownId()}`);
    await checkPanel(`search hit 2`, s.hits[1]);
    if (s === X.search[0]) await shot(shotName('3-search'));
    await page.click('[data-testid=search-prev]');
    await waitShown(s.hits[0]).catch(() => {});
    check(`search '${s.text}': previous goes back to hit 1`, (await text('[data-testid=search-count]')) === want1 && (await shownId()) === s.hits[0], await text('[data-testid=search-count]'));
  }
  await page.fill('[data-testid=search]', '');

  // 5. the statistics of a brushed range equal `traza stats --from --to` of that range
  await page.$eval('[data-testid=density]', e => e.scrollIntoView());
  const box = await page.$('[data-testid=density]').then(e => e.boundingBox());
  const statsAnswer = page.waitForResponse(r => r.url().includes('/api/stats') && r.url().includes('from='), { timeout: 15000 });
  await page.mouse.move(box.x + box.width * 0.27, box.y + 30);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.52, box.y + 30, { steps: 5 });
  await page.mouse.up();
  const st = await (await statsAnswer).json();
  await page.waitForFunction(t => +document.querySelector('[data-testid=pie-types]').dataset.total === t, st.total, { timeout: 10000 }).catch(() => {});
  const from = await page.$eval('[data-testid=range]', x => x.dataset.from), to = await page.$eval('[data-testid=range]', x => x.dataset.to);
  const cli = JSON.parse(execFileSync(process.env.TRAZA, ['stats', X.trace, '--from', from, '--to', to, '--json'], { encoding: 'utf8' }));
  const norm = a => JSON.stringify(a.map(t => [t.name, t.count, t.duration]).sort());
  const pieTotal = await page.$eval('[data-testid=pie-types]', x => +x.dataset.total);
  check(`the range [${from}, ${to}]: the pies and /api/stats equal 'traza stats --from --to' (total ${cli.total}, every type and producer)`,
    pieTotal === cli.total && st.total === cli.total && norm(st.types) === norm(cli.types) && norm(st.producers) === norm(cli.producers),
    `pie ${pieTotal}, api ${JSON.stringify(st).slice(0, 300)}, cli ${JSON.stringify(cli).slice(0, 300)}`);
  await page.waitForTimeout(200);
  await shot(shotName('4-range'));

  // 6. a real trace (LTTng kernel), when the shell test imported it
  if (X.lttng) {
    await openTrace(page, X.lttng.trace);
    const id = await page.$eval('.trow', r => +r.dataset.id);
    await page.click(`.trow[data-id="${id}"]`);
    await waitShown(id);
    const ty = await text('[data-testid=details-type]'), pr = await text('[data-testid=details-producer]');
    check('LTTng: a row click shows its event in the panel', id === X.lttng.first.id && ty === X.lttng.first.type && pr === X.lttng.first.producer, `${id} ${ty} ${pr}`);
    await page.selectOption('[data-testid=search-col]', 'type');
    await page.fill('[data-testid=search]', X.lttng.re);
    const want = `1 of ${X.lttng.count}`;
    await page.waitForFunction(w => document.querySelector('[data-testid=search-count]').textContent === w, want, { timeout: 15000 }).catch(() => {});
    check(`LTTng: search '${X.lttng.re}' shows "${want}"`, (await text('[data-testid=search-count]')) === want, await text('[data-testid=search-count]'));
    await page.waitForTimeout(300);
    await shot(shotName('5-lttng'));
  }
  // the one 404 is the unknown id's answer (section 2), which the browser logs
  const other = errors.filter(e => !/status of 404/.test(e));
  check('no page errors (but the unknown id\'s 404)', other.length === 0 && errors.length - other.length <= 1, errors.join('\n'));
});
