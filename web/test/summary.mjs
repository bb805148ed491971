// Browser test of the timeline's summary mode (level of detail): per producer row, the
// pixel columns drawn are exactly those where it has an event or a state.
// usage: node summary.mjs URL SCREENSHOT_DIR   (trace 'sum' in the workspace: ticks
// 0..119999; "n0" has an event every 25 ticks, so one in every column at any width up
// to 4096, among 120000 events of "bulk"; "s0" one state over ticks 30000..41999)
import { check, withBrowser, openTrace } from './lib.mjs';

const [url, shots] = process.argv.slice(2);
const TL = '[data-testid=timeline]';

// the columns of the row named `name` with a pixel of ink (a channel below 200: the
// grid lines and the row backgrounds are lighter) on the row's middle line
const inkedColumns = (page, name) => page.$eval(TL, (cv, n) => {
  const row = JSON.parse(cv.dataset.visible).find(r => r[0] === n);
  if (!row) return -1;
  const dpr = window.devicePixelRatio || 1, y = Math.round((row[1] + row[2] / 2) * dpr);
  const d = cv.getContext('2d').getImageData(0, y, cv.width, 1).data;
  let k = 0;
  for (let x = 0; x < cv.width; x++) if (d[4 * x + 3] > 0 && Math.min(d[4 * x], d[4 * x + 1], d[4 * x + 2]) < 200) k++;
  return k;
}, name);

await withBrowser(shots, async ({ page, errors, shot }) => {
  await page.goto(url);
  await page.waitForSelector('[data-testid=trace-item]', { timeout: 10000 });
  await openTrace(page, 'sum');
  await page.waitForFunction(() => document.querySelector('[data-testid=timeline]').dataset.mode === 'summary', null, { timeout: 10000 });
  const rowsKind = await page.$eval(TL, cv => cv.dataset.summaryRows);
  check('the whole trace is drawn from the exact summary rows', rowsKind === 'exact', rowsKind);
  const w = await page.$eval(TL, cv => cv.width);
  // the columns of the request: width = the canvas's css width, window 0..119999
  const width = await page.$eval(TL, cv => Math.max(50, Math.min(4096, cv.clientWidth)));
  const span = 120000, col = t => Math.floor(((t + 1) * width - 1) / span);
  const n0 = await inkedColumns(page, 'n0');
  check('n0, with an event in every column, is drawn in every column', n0 === w && width === w, `${n0} of ${w} columns inked (request width ${width})`);
  const s0 = await inkedColumns(page, 's0'), want = col(41999) - col(30000) + 1;
  check('the state of s0 is drawn over its whole extent', s0 === want, `${s0} columns inked, want ${want}`);
  await shot('summary-whole');
  check('no page errors', errors.length === 0, errors.join('\n'));
});
