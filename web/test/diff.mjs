// Browser test of the Diff tab (web/src/diff.js) against a running `traza serve`:
// with b open and a as the base, the first row is the injected change (bar, slower)
// with the numbers of `traza diff a b --json`; bar's frame of the differential flame
// graph is drawn red and a click zooms on it; a click on bar's time range selects
// that range in the timeline of b. Then each further trace against itself.
// usage: node diff.mjs URL SHOTS TRAZA TRACE[,TRACE...] (the first two: base, new)
// Prints PASS:/FAIL: lines (tests/lib.sh conventions).
import { execFileSync } from 'node:child_process';
import { check, withBrowser, openTrace } from './lib.mjs';

const [url, shots, traza, traceList] = process.argv.slice(2);
const [base, cur, ...others] = traceList.split(',');
const cli = (...args) => JSON.parse(execFileSync(traza, ['diff', ...args, '--json'], { encoding: 'utf8' }));

async function compare(page, baseName, by) {
  await page.click('#tabs button[data-tab=diff]');
  await page.waitForSelector('[data-testid=diff-base]');
  await page.selectOption('[data-testid=diff-by]', by);
  await page.selectOption('[data-testid=diff-base]', baseName);
  await page.waitForFunction(([b, y]) => { const t = document.querySelector('[data-testid=diff-table]'); return t.dataset.base === b && t.dataset.by === y; },
    [baseName, by], { timeout: 60000 });
}

// The pixel at the centre of the frame named name (the first drawn), as [r, g, b].
const framePixel = (page, name) => page.$eval('[data-testid=diff-flame]', (cv, n) => {
  const r = (cv._rects || []).find(x => x.name === n && !x.caller);
  if (!r) return null;
  const dpr = window.devicePixelRatio || 1;
  const px = cv.getContext('2d').getImageData(Math.round((r.x + Math.min(r.w / 2, 20)) * dpr), Math.round((r.y + 3) * dpr), 1, 1).data;
  return { rgb: [px[0], px[1], px[2]], fill: r.fill, x: r.x, y: r.y, w: r.w };
}, name);

await withBrowser(shots, async ({ page, errors, shot }) => {
  await page.goto(url);
  await page.waitForSelector('[data-testid=trace-item]', { timeout: 10000 });
  await openTrace(page, cur);

  // rows by function: the first is bar (its calls or its self time), slower, as the CLI
  await compare(page, base, 'function');
  const want = cli(base, cur, '--by', 'function').rows[0];
  const first = await page.$eval('[data-testid=diff-row]', r => ({ ...r.dataset, cells: [...r.cells].map(c => c.textContent) }));
  check(`the first row is the injected change, bar, slower (${first.name} ${first.kind} ${first.verdict})`,
    first.name === 'bar' && first.verdict === 'slower' && want.name === 'bar' && first.kind === want.kind, JSON.stringify({ first, want: [want.name, want.kind, want.verdict] }));
  check('its numbers are those of traza diff --json (counts, shift, adjusted p)',
    +first.countA === want.a.count && +first.countB === want.b.count && +first.shift === want.shift && +first.pAdj === want.p_adj,
    JSON.stringify({ ui: [first.countA, first.countB, first.shift, first.pAdj], cli: [want.a.count, want.b.count, want.shift, want.p_adj] }));
  const bg = await page.$eval('[data-testid=diff-row]', r => getComputedStyle(r.cells[0]).backgroundColor);
  check(`the slower row is on a red background (${bg})`, bg === 'rgb(251, 227, 227)', bg);

  // the flame graph: bar red, main grey; a click on bar zooms on it
  await page.$eval('[data-testid=diff-flame]', cv => cv.scrollIntoView());
  const bar = await framePixel(page, 'bar'), main = await framePixel(page, 'main');
  const red = p => p && p.rgb[0] > p.rgb[1] + 40 && p.rgb[0] > p.rgb[2] + 40;
  check(`bar's frame is drawn red (${bar && bar.rgb})`, red(bar), JSON.stringify(bar));
  check(`main's frame is neutral grey (${main && main.rgb})`, main && main.rgb[0] === main.rgb[1] && main.rgb[1] === main.rgb[2], JSON.stringify(main));
  await shot('diffweb-1-function');
  const box = await (await page.$('[data-testid=diff-flame]')).boundingBox();
  await page.mouse.click(box.x + bar.x + 10, box.y + bar.y + 5);
  const zoomed = await page.$eval('[data-testid=diff-flame]', cv => ({ focus: cv.dataset.focus, bar: cv._rects.find(r => r.name === 'bar'), w: cv.clientWidth }));
  check('a click on bar zooms the graph on it (full width)', zoomed.focus === 'bar' && Math.abs(zoomed.bar.w - zoomed.w) < 2, JSON.stringify(zoomed));
  await shot('diffweb-2-zoomed');

  // rows by type: bar's time range, then a click selects it in b's timeline
  await compare(page, base, 'type');
  const wantT = cli(base, cur, '--by', 'type', '--ranges');
  const g = wantT.ranges.find(x => x.row === 'bar');
  const rng = await page.$$eval('[data-testid=diff-range][data-row=bar]', xs => xs.map(x => ({ ...x.dataset, text: x.textContent })));
  check(`bar's one time range as the CLI's (${g && g.ranges.map(x => x.from + '-' + x.to)})`, g && g.ranges.length === 1 && rng.length === 1,
    JSON.stringify({ cli: g, ui: rng }));
  await shot('diffweb-3-type');
  if (rng.length) {
    const info = await page.evaluate(() => fetch('/api/trace?trace=' + document.querySelector('[data-testid=trace-item].open').dataset.name).then(r => r.json()));
    const scale = Math.pow(10, -info.info.time_unit), minTs = BigInt(info.info.min_ts);
    const from = (minTs + BigInt(Math.round(g.ranges[0].from * scale))).toString(), to = (minTs + BigInt(Math.round(g.ranges[0].to * scale))).toString();
    await page.click('[data-testid=diff-range][data-row=bar]');
    await page.waitForFunction(() => document.getElementById('tab-overview').classList.contains('on'), null, { timeout: 5000 });
    const sel = await page.$eval('[data-testid=range]', r => ({ from: r.dataset.from, to: r.dataset.to, text: r.textContent }));
    check(`a click on the range shows it in the timeline (${sel.text})`, sel.from === from && sel.to === to, JSON.stringify({ sel, from, to }));
    await page.waitForTimeout(800);
    await shot('diffweb-4-timeline');
  }

  // further traces (a real one) against themselves: every row same, the flame graph
  // grey, and a click on a frame zooms on it so that its callees become visible
  for (const name of others) {
    await openTrace(page, name);
    await compare(page, name, 'function');
    const verdicts = await page.$$eval('[data-testid=diff-row]', xs => xs.map(x => x.dataset.verdict));
    check(`${name} against itself: every row same (${verdicts.length} rows)`, verdicts.length > 0 && verdicts.every(v => v === 'same'), verdicts.filter(v => v !== 'same').join(','));
    const before = await page.$eval('[data-testid=diff-flame]', cv => cv._rects);
    check(`${name}: the flame graph is drawn, grey (${before.length} frames)`, before.length > 0 && before.every(r => r.fill === '#e8e8e8'), JSON.stringify(before.slice(0, 3)));
    await shot(`diffweb-5-${name}`);
    // zoom on the frame whose callees are narrowest for its width: the deepest drawn
    const deep = before.filter(r => r.w > 30).sort((a, b) => b.depth - a.depth || b.w - a.w)[0];
    await page.$eval('[data-testid=diff-flame]', cv => cv.scrollIntoView());
    const bx = await (await page.$('[data-testid=diff-flame]')).boundingBox();
    await page.mouse.click(bx.x + deep.x + 5, bx.y + deep.y + 5);
    const z = await page.$eval('[data-testid=diff-flame]', cv => ({ focus: cv.dataset.focus, n: cv._rects.length, depth: Math.max(...cv._rects.map(r => r.depth)) }));
    const maxBefore = Math.max(...before.map(r => r.depth));
    check(`${name}: a click on ${deep.name} zooms on it and draws deeper frames (depth ${maxBefore} -> ${z.depth}, ${before.length} -> ${z.n} frames)`,
      z.focus === deep.name && z.depth > maxBefore && z.n > before.length, JSON.stringify(z));
    await shot(`diffweb-6-${name}-zoomed`);
  }
  check('no error on the page', errors.length === 0, errors.join('\n'));
});
