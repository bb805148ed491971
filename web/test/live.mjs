// Browser test of a trace being recorded (trace parameter rt.recording=1, web/src/live.js):
// the page reads it again every second and a new version imported in its place
// replaces the open trace. The header says "recording… (N events)"; a view at the end
// follows the end, one panned away stays where it is, "follow the end" takes it back;
// a version without the mark ends the reading.
// usage: node live.mjs URL SCREENSHOT_DIR TRAZA V400 V600 V800 V1000 (CSV files; the
// workspace holds 'live', 200 events, marked)
import { execFileSync } from 'node:child_process';
import { check, withBrowser, openTrace } from './lib.mjs';

const [url, shots, traza, v400, v600, v800, v1000] = process.argv.slice(2);
// the next version of 'live' in the store, as `traza record --target --refresh` imports it
const next = (file, marked) =>
  execFileSync(traza, ['import', file, '--name', 'live', '--replace', '-q', ...(marked ? ['--meta', 'rt.recording=1'] : [])]);
const mark = page => page.$eval('[data-testid=live-mark]', m => ({ hidden: m.hidden, text: m.textContent, following: m.dataset.following }));
const buttonShown = page => page.$eval('[data-testid=live-follow]', b => !b.hidden);
const range = page => page.$eval('[data-testid=range]', r => [r.dataset.from, r.dataset.to]);
const title = page => page.$eval('[data-testid=trace-title]', t => t.textContent);
const stored = page => page.evaluate(() => fetch('/api/trace?trace=live&ticks=string').then(r => r.json()).then(t => t.info));
const shown = (page, n) => page.waitForFunction(n => document.querySelector('[data-testid=trace-title]').textContent.includes(`, ${n} events)`),
  n, { timeout: 15000 });
const key = async (page, k) => {
  await page.evaluate(() => document.activeElement && document.activeElement.blur());
  const before = await range(page);
  await page.keyboard.press(k);
  await page.waitForFunction(b => { const r = document.querySelector('[data-testid=range]').dataset; return r.from !== b[0] || r.to !== b[1]; },
    before, { timeout: 5000 });
};
const width = ([a, b]) => BigInt(b) - BigInt(a);

await withBrowser(shots, async ({ page, errors, requests, shot }) => {
  await page.goto(url);
  await page.waitForSelector('[data-testid=trace-item]', { timeout: 10000 });
  await openTrace(page, 'live');
  let m = await mark(page);
  check('a trace being recorded: the header says so, with its events', !m.hidden && m.text === 'recording… (200 events)', JSON.stringify(m));
  check('  the whole trace in view follows the end: no "follow the end" button', m.following === '1' && !(await buttonShown(page)),
    JSON.stringify(m));

  // 1. a new version: it replaces the open trace; the whole trace stays in view
  next(v400, true);
  await shown(page, 400);
  m = await mark(page);
  check('a new version (400 events) replaces the open one within seconds', m.text === 'recording… (400 events)', JSON.stringify(m));
  check('  the view still shows the whole trace', (await range(page)).join() === ',', JSON.stringify(await range(page)));
  const item = await page.$eval('[data-testid=trace-item][data-name=live]', li => li.textContent);
  check('  the explorer counts the new events', /400 ev/.test(item), item);
  await page.waitForFunction(() => /^400 events in the selection/.test(document.querySelector('[data-testid=table-count]').textContent),
    null, { timeout: 10000 }).catch(() => {});
  const count = await page.$eval('[data-testid=table-count]', t => t.textContent);
  check('  the event table reads the new version', /^400 events in the selection/.test(count), count);

  // 2. zoomed in: the view leaves the end; "follow the end" brings it there, and the
  // next version moves it with the end, its width kept
  await key(page, 'w');
  m = await mark(page);
  check('zoomed in around the centre: no longer following, the button shown', m.following === '0' && await buttonShown(page), JSON.stringify(m));
  await page.click('[data-testid=live-follow]');
  let info = await stored(page);
  let r = await range(page);
  check('"follow the end" moves the view to the end', r[1] === info.max_ts && m && (await mark(page)).following === '1',
    `${r} max ${info.max_ts}`);
  check('  and hides itself', !(await buttonShown(page)), 'shown');
  const w = width(r);
  next(v600, true);
  await shown(page, 600);
  info = await stored(page);
  r = await range(page);
  check('a new version (600 events): the view moves with the end', r[1] === info.max_ts && BigInt(info.max_ts) > BigInt(r[0]),
    `${r} max ${info.max_ts}`);
  check('  keeping its width', width(r) === w, `${width(r)} vs ${w}`);
  await shot('live-following');

  // 3. panned away from the end: the next version leaves the view where it is
  await key(page, 'a');
  const away = await range(page);
  check('panned left: no longer following, the button shown', (await mark(page)).following === '0' && await buttonShown(page),
    JSON.stringify(await mark(page)));
  next(v800, true);
  await shown(page, 800);
  check('a new version (800 events): the view panned away stays', (await range(page)).join() === away.join(),
    `${await range(page)} vs ${away}`);
  check('  the header counts 800 events', (await mark(page)).text === 'recording… (800 events)', JSON.stringify(await mark(page)));

  // 4. the last version, without the mark: the mark goes, the page stops reading
  next(v1000, false);
  await shown(page, 1000);
  m = await mark(page);
  check('the final version (1000 events, unmarked): the recording mark is gone', m.hidden && !(await buttonShown(page)), JSON.stringify(m));
  check('  the title counts its events', /live \(csv, 1000 events\)/.test(await title(page)), await title(page));
  const asked = requests.filter(u => /\/api\/trace\?/.test(u)).length;
  await page.waitForTimeout(2500);
  check('  no more reading of the trace', requests.filter(u => /\/api\/trace\?/.test(u)).length === asked,
    `${requests.filter(u => /\/api\/trace\?/.test(u)).length - asked} more`);
  check('no page errors', errors.length === 0, errors.join('\n'));
});
