// Browser test of a trace whose axis is executed instructions (an ETM import, trace
// 'TC2': span 9548 instructions): the metadata and the timeline's window say "instr".
// usage: node etmaxis.mjs URL SCREENSHOT_DIR
import { check, withBrowser, openTrace } from './lib.mjs';

const [url, shots] = process.argv.slice(2);

await withBrowser(shots, async ({ page, errors, shot }) => {
  await page.goto(url);
  await page.waitForSelector('[data-testid=trace-item]', { timeout: 10000 });
  await openTrace(page, 'TC2');
  const meta = await page.$eval('[data-testid=trace-meta]', d => {
    const o = {};
    const dt = [...d.querySelectorAll('dt')];
    for (const k of dt) o[k.textContent] = k.nextElementSibling.textContent;
    return o;
  });
  check('the span is 9548 instructions', meta.span === '9548 instr', JSON.stringify(meta));
  check('the start is instruction 0', meta.start === '0 instr', JSON.stringify(meta));
  check('the axis is named', meta['time axis'] === 'executed instructions', JSON.stringify(meta));
  const info = await page.$eval('[data-testid=timeline-info]', d => d.textContent);
  check('the timeline window reads in instructions', /^\+0 instr – \+9548 instr/.test(info), info);
  check('no seconds anywhere in the window', !/\d s\b/.test(info), info);
  await shot('etm-axis');
  check('no page errors', errors.length === 0, errors.join('\n'));
});
