// What every browser test of the web UI shares: Debian's chromium headless through
// playwright-core with a fresh profile, PASS:/FAIL: lines (tests/lib.sh conventions),
// the page's errors and requests, and a count of the pixels a canvas has drawn.
import { chromium } from 'playwright-core';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let failed = 0;
export const pass = n => console.log('PASS: ' + n);
export const fail = (n, why) => { failed++; console.log('FAIL: ' + n + '\n  ' + why); };
export const check = (n, ok, why) => (ok ? pass(n) : fail(n, why));

// Runs body({ page, errors, requests, shot }) in a fresh browser; shot(name) saves a
// screenshot in dir. Exits the process: 1 when a check failed or body threw.
export async function withBrowser(dir, body, viewport = { width: 1400, height: 1000 }) {
  mkdirSync(dir, { recursive: true });
  const profile = mkdtempSync(join(tmpdir(), 'traza-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = browser.pages()[0] || await browser.newPage();
    const errors = [], requests = [];
    page.on('pageerror', e => errors.push(String(e)));
    page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('request', r => requests.push(r.url()));
    await body({ page, errors, requests, shot: name => page.screenshot({ path: join(dir, name + '.png') }) });
  } catch (e) {
    fail('browser test ran to the end', e.stack || String(e));
  } finally {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
  }
  process.exit(failed ? 1 : 0);
}

// The number of non-white, non-transparent pixels of the canvas matching sel.
export const inked = (page, sel) => page.$eval(sel, cv => {
  const g = cv.getContext('2d'); const d = g.getImageData(0, 0, cv.width, cv.height).data;
  let n = 0;
  for (let i = 0; i < d.length; i += 4) {
    const [r, gg, b, a] = [d[i], d[i + 1], d[i + 2], d[i + 3]];
    if (a > 0 && !(r > 240 && gg > 240 && b > 240)) n++;
  }
  return n;
});

// Opens the trace named name from the explorer and waits until its views are drawn.
// (the table and the timeline name the trace they show: a view of the trace open before
// is not taken for this one's).
export async function openTrace(page, name) {
  await page.click(`[data-testid=trace-item][data-name="${name}"]`);
  await page.waitForFunction(n => document.querySelector('[data-testid=table]').dataset.trace === n &&
    /events in the selection/.test(document.querySelector('[data-testid=table-count]').textContent), name, { timeout: 15000 });
  await page.waitForFunction(n => document.querySelector('[data-testid=timeline]').dataset.trace === n, name, { timeout: 15000 });
}
