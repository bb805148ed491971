// The screenshots of doc/viewer.md, taken on real traces (`make doc-images`): a
// throwaway workspace with the LTTng kernel trace and the uftrace sample of
// ../shared/data and two `traza gen` traces that differ, `traza serve` on it, then
// doc/img/timeline.png (the timeline, its ruler, an event's tooltip and details),
// doc/img/callstack.png (the uftrace sample's call stacks), doc/img/diff.png (the
// Diff tab), doc/img/diff-sides.png (its side-by-side timeline) and
// doc/img/variables.png (catapult's ChromeOS system trace: a process's 37 counters,
// one lane each) and doc/img/tarmac-calls.png (the calls found in the gem5 Tarmac
// sample's instructions, as flame chart and profile), each in a 1280x720 viewport.
// usage: node docshots.mjs TRAZA DATA_DIR OUT_DIR
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { check, withBrowser, openTrace } from './lib.mjs';

const [traza, data, out] = process.argv.slice(2);
const ws = mkdtempSync(join(tmpdir(), 'traza-docshots-'));
const env = { ...process.env, TRAZA_WORKSPACE: join(ws, 'ws') };
const run = (...args) => execFileSync(traza, args, { env, encoding: 'utf8' });

const lttng = join(data, 'babeltrace-ctf/lttng-tracefile-rotation/kernel');
const uftrace = join(data, 'uftrace-redisgraph-aarch64');
const chromeos = join(data, 'catapult/tracing-test_data/chromeos_system_trace.json');
const tarmac = join(data, 'tarmac/calculator-aarch64-gem5.tarmac');
for (const p of [lttng, uftrace, chromeos, tarmac]) if (!existsSync(p)) { console.error(`docshots: ${p} is absent`); process.exit(1); }
run('import', lttng, '--name', 'lttng', '-q');
run('import', uftrace, '--name', 'uftrace', '-q');
run('import', chromeos, '--name', 'chromeos', '-q');
run('import', tarmac, '--name', 'calculator', '-q');
// the same generator twice; the second's events come further apart, so its states last longer
run('gen', '--name', 'before', '--events', '20000', '--seed', '1', '-q');
run('gen', '--name', 'after', '--events', '20000', '--seed', '2', '--gap', '130', '-q');

const portFile = join(ws, 'port');
const server = spawn(traza, ['serve', '--listen', '127.0.0.1:0', '--port-file', portFile], { env, stdio: 'inherit' });
for (let i = 0; i < 100 && !(existsSync(portFile) && readFileSync(portFile, 'utf8').trim()); i++) await new Promise(r => setTimeout(r, 100));
const url = `http://127.0.0.1:${readFileSync(portFile, 'utf8').trim()}/`;
process.on('exit', () => { server.kill('SIGTERM'); rmSync(ws, { recursive: true, force: true }); });

const ZOOM_AT = +(process.env.ZOOM_AT || 0.5638), ZOOM_STEPS = +(process.env.ZOOM_STEPS || 28);
const tooltipShown = page => page.$eval('[data-testid=tooltip]', t => !t.hidden && getComputedStyle(t).display !== 'none' && t.textContent.trim().length > 0).catch(() => false);

await withBrowser(out, async ({ page }) => {
  // the viewport less its last 20 px, where the next section's heading starts
  const shot = name => page.screenshot({ path: join(out, name + '.png'), clip: { x: 0, y: 0, width: 1280, height: 700 } });
  await page.goto(url);
  await page.waitForSelector('[data-testid=trace-item]', { timeout: 10000 });

  // the timeline of the kernel trace: a click shows an event's details, a hover its tooltip
  await openTrace(page, 'lttng');
  const tl = await page.$('[data-testid=timeline]');
  await tl.scrollIntoViewIfNeeded();
  await page.waitForTimeout(800);
  const box = await tl.boundingBox();
  // zoomed in about 20 times, where the events of the four CPUs stand apart
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2);
  for (let i = 0; i < 14; i++) { await page.mouse.wheel(0, -100); await page.waitForTimeout(30); }
  await page.waitForTimeout(1500);
  let hovered = false;
  for (let y = box.y + 10; y < Math.min(box.y + box.height, 700) && !hovered; y += 6)
    for (let x = box.x + box.width * 0.3; x < box.x + box.width * 0.7 && !hovered; x += 7) {
      await page.mouse.move(x, y);
      if (await tooltipShown(page)) {
        hovered = true;
        await page.mouse.down(); await page.mouse.up();
      }
    }
  check('an event of the LTTng trace is hovered', hovered, 'no tooltip anywhere');
  await page.waitForTimeout(500);
  await shot('timeline');

  // the call stacks of the uftrace sample
  await page.mouse.move(0, 0);
  await openTrace(page, 'uftrace');
  await page.click('#tabs button[data-tab=callstack]');
  await page.waitForSelector('[data-testid=cs-table] tr[data-name]', { timeout: 20000 });
  // zoomed on the burst of calls that ends thread_do in the busiest thread, one call picked
  const lane = await page.$$('[data-testid=cs-lane]').then(ls => ls[2]);
  await lane.scrollIntoViewIfNeeded();
  const lb = await lane.boundingBox();
  await page.mouse.move(lb.x + ZOOM_AT * lb.width, lb.y + 10);
  for (let i = 0; i < ZOOM_STEPS; i++) { await page.mouse.wheel(0, -100); await page.waitForTimeout(30); }
  await page.waitForTimeout(1500);
  let picked = false;
  for (let x = lb.x + lb.width * 0.2; x < lb.x + lb.width * 0.8 && !picked; x += 9) {
    await page.mouse.click(x, lb.y + 16 * 3 + 8);
    picked = await page.$eval('[data-testid=call-details]', d => !!d.dataset.name);
  }
  check('a call of the uftrace sample is picked', picked, 'no call under the clicks');
  await page.mouse.move(0, 0);
  await page.waitForTimeout(500);
  await shot('callstack');

  // the Diff tab: after against before, by type
  await page.click('#tabs button[data-tab=overview]');
  await openTrace(page, 'after');
  await page.click('#tabs button[data-tab=diff]');
  await page.waitForSelector('[data-testid=diff-base]');
  await page.selectOption('[data-testid=diff-base]', 'before');
  await page.waitForFunction(() => document.querySelector('[data-testid=diff-table]')?.dataset.base === 'before', null, { timeout: 60000 });
  await page.waitForTimeout(800);
  await shot('diff');
  // its side-by-side timeline: the two runs on one relative axis, aligned at their starts
  await page.waitForFunction(() => document.querySelector('[data-testid=diff-tl-base]').dataset.trace === 'before' &&
    document.querySelector('[data-testid=diff-tl-open]').dataset.mode, null, { timeout: 20000 });
  await page.$eval('[data-testid=diff-timeline]', p => p.scrollIntoView());
  await page.waitForTimeout(500);
  await shot('diff-sides');

  // counters: the system stats of ChromeOS's browser process, a lane per variable
  await page.click('#tabs button[data-tab=overview]');
  await openTrace(page, 'chromeos');
  const tc = await page.$('[data-testid=timeline]');
  await tc.scrollIntoViewIfNeeded();
  await page.waitForTimeout(800);
  const lanes = await page.$eval('[data-testid=timeline]', cv => JSON.parse(cv.dataset.varLanes || '{}'));
  check('the ChromeOS trace\'s counters have their lanes', Object.values(lanes).some(v => v.length >= 30), JSON.stringify(lanes).slice(0, 200));
  await page.$eval('[data-testid=timeline-scroll]', s => { s.scrollTop = 120; });
  await page.waitForTimeout(500);
  await shot('variables');

  // the calls found in a Tarmac trace's instructions: the Call stack tab
  await openTrace(page, 'calculator');
  await page.click('#tabs button[data-tab=callstack]');
  await page.waitForSelector('[data-testid=cs-table] tr[data-name]', { timeout: 20000 });
  const nfunc = await page.$$eval('[data-testid=cs-table] tr[data-name]', xs => xs.length);
  check('the Tarmac trace\'s calls are profiled', nfunc >= 10, nfunc + ' functions');
  await page.$eval('#main', m => { m.scrollTop = 0; });
  await page.waitForTimeout(800);
  await shot('tarmac-calls');
}, { width: 1280, height: 720 });
