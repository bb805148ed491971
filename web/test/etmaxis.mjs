// Browser test of ETM traces whose ticks are not seconds: 'ptm' (no timestamps: the
// axis is executed instructions, span 192073) and 'TC2' (timed by its timestamps: the
// axis is timestamp counter ticks, span 52235). The metadata and the timeline's window
// read in those units, never in seconds.
// usage: node etmaxis.mjs URL SCREENSHOT_DIR
import { check, withBrowser, openTrace } from './lib.mjs';

const [url, shots] = process.argv.slice(2);

const cases = [
  { name: 'ptm', unit: 'instr', span: 192073, start: '0 instr', axis: 'executed instructions', shot: 'etm-axis' },
  { name: 'TC2', unit: 'ticks', span: 52235, start: '562536959293 ticks', axis: 'timestamp counter ticks', shot: 'etm-axis-ticks' },
];

await withBrowser(shots, async ({ page, errors, shot }) => {
  await page.goto(url);
  await page.waitForSelector('[data-testid=trace-item]', { timeout: 10000 });
  for (const c of cases) {
    await openTrace(page, c.name);
    const meta = await page.$eval('[data-testid=trace-meta]', d => {
      const o = {};
      const dt = [...d.querySelectorAll('dt')];
      for (const k of dt) o[k.textContent] = k.nextElementSibling.textContent;
      return o;
    });
    check(`${c.name}: the span is ${c.span} ${c.unit}`, meta.span === `${c.span} ${c.unit}`, JSON.stringify(meta));
    check(`${c.name}: the start`, meta.start === c.start, JSON.stringify(meta));
    check(`${c.name}: the axis is named`, meta['time axis'] === c.axis, JSON.stringify(meta));
    const info = await page.$eval('[data-testid=timeline-info]', d => d.textContent);
    check(`${c.name}: the timeline window reads in ${c.unit}`, info.startsWith(`+0 ${c.unit} – +${c.span} ${c.unit}`), info);
    check(`${c.name}: no seconds anywhere in the window`, !/\d s\b/.test(info), info);
    await shot(c.shot);
  }
  check('no page errors', errors.length === 0, errors.join('\n'));
});
