// First paint of the traza UI on localhost: time from navigation to the trace list,
// and from a click on a trace to its density and timeline drawn.
// usage: node firstpaint.mjs URL TRACE_NAME
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [url, traceName] = process.argv.slice(2);
const profile = mkdtempSync(join(tmpdir(), 'traza-chromium-'));
const ctx = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, viewport: { width: 1400, height: 900 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
try {
  const page = ctx.pages()[0] || await ctx.newPage();
  for (let run = 0; run < 3; run++) {
    const t0 = Date.now();
    await page.goto(url);
    await page.waitForSelector('[data-testid=trace-item]');
    const list = Date.now() - t0;
    const t1 = Date.now();
    await page.click(`[data-testid=trace-item][data-name="${traceName}"]`);
    await page.waitForFunction(() => document.querySelector('[data-testid=timeline]').dataset.mode && /events in the selection/.test(document.querySelector('[data-testid=table-count]').textContent));
    const open = Date.now() - t1;
    const info = await page.textContent('[data-testid=timeline-info]');
    console.log(`run ${run}: first paint (trace list) ${list} ms; open ${traceName} (density + timeline + table + pies) ${open} ms; ${info}`);
  }
} finally {
  await ctx.close();
  rmSync(profile, { recursive: true, force: true });
}
