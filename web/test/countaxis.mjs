// Browser test of traces whose ticks are not seconds: 'cyc' (a Tarmac trace timed in
// cycles, span 500), and when TRAZA_ETM is set the ETM traces 'ptm' (no timestamps:
// the axis is executed instructions, span 192073) and 'TC2' (timed by its timestamps:
// timestamp counter ticks, span 52235). The metadata and the timeline's window read in
// those units, never in seconds; the go-to box takes a bare count and refuses a time.
// usage: node countaxis.mjs URL SCREENSHOT_DIR
import { check, withBrowser, openTrace } from './lib.mjs';

const [url, shots] = process.argv.slice(2);

const cases = [
  { name: 'cyc', unit: 'cycles', span: 500, start: '0 cycles', axis: 'cycles', shot: 'count-axis-cycles', go: 250 },
];
if (process.env.TRAZA_ETM) cases.push(
  { name: 'ptm', unit: 'instr', span: 192073, start: '0 instr', axis: 'executed instructions', shot: 'etm-axis', go: 100000 },
  { name: 'TC2', unit: 'ticks', span: 52235, start: '562536959293 ticks', axis: 'timestamp counter ticks', shot: 'etm-axis-ticks', go: 30000 },
);

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
    const ph = await page.$eval('[data-testid=tl-goto]', g => g.placeholder);
    check(`${c.name}: the go-to box asks for ${c.unit}`, ph.includes(c.unit), ph);
    // a time with a unit of seconds means nothing here: refused
    await page.fill('[data-testid=tl-goto]', '1ms');
    await page.press('[data-testid=tl-goto]', 'Enter');
    check(`${c.name}: go to 1ms is refused`, await page.$eval('[data-testid=tl-goto]', g => g.classList.contains('bad')), 'accepted');
    // a bare count is an offset in the axis's unit: the view is centred on it
    await page.fill('[data-testid=tl-goto]', String(c.go));
    await page.press('[data-testid=tl-goto]', 'Enter');
    await page.waitForTimeout(400);
    const [from, to] = await page.$eval('[data-testid=range]', r => [r.dataset.from, r.dataset.to]);
    const min = BigInt((await page.evaluate(n => fetch('/api/trace?trace=' + n).then(r => r.json()), c.name)).info.min_ts);
    const mid = (Number(BigInt(from) - min) + Number(BigInt(to) - min)) / 2;
    check(`${c.name}: go to ${c.go} centres the view on +${c.go} ${c.unit}`, Math.abs(mid - c.go) <= 2 || (c.go < (Number(BigInt(to) - BigInt(from))) / 2 && BigInt(from) === min),
      `${from}..${to} (min ${min}), centre ${mid}`);
    await shot(c.shot);
  }
  // the calls found in a Tarmac trace's instructions: the Call stack tab's profile
  await openTrace(page, 'calls');
  await page.click('#tabs button[data-tab=callstack]');
  await page.waitForSelector('[data-testid=cs-table] tr[data-name]', { timeout: 20000 });
  const prof = await page.$$eval('[data-testid=cs-table] tr[data-name]', xs => xs.map(x => [x.dataset.name, x.children[1].textContent, +x.dataset.total]).sort());
  check('calls: the profile lists the functions found, their calls and total cycles',
    JSON.stringify(prof) === JSON.stringify([['0x2000', '2', 7], ['0x3000', '1', 1], ['0x5000', '1', 2], ['0x6000', '1', 1], ['0x8000', '1', 0]]), JSON.stringify(prof));
  await shot('count-axis-calls');
  await page.click('#tabs button[data-tab=overview]');
  check('no page errors', errors.length === 0, errors.join('\n'));
});
