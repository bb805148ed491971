// Browser test of the Tools tab: a tool run from the UI saves a result that the
// explorer lists; "use as filter" narrows every view to it; delete removes it.
// usage: node uitools.mjs URL SCREENSHOT_DIR TRACE [REAL_TRACE REAL_TYPE]
// Prints PASS:/FAIL: lines; the shell part (tests/web/t_uitools.sh) then asks the
// CLI which results the workspace holds.
import { check, withBrowser, inked, openTrace } from './lib.mjs';

const [url, shots, traceName, realTrace, realType] = process.argv.slice(2);
const total = page => page.$eval('[data-testid=table]', x => +x.dataset.total);

// Runs tool with the given option values from the Tools tab; returns the saved result's name.
async function runTool(page, tool, opts) {
  await page.click('[data-testid=tab-tools]');
  await page.waitForSelector(`[data-testid=tool-item][data-name="${tool}"]`, { timeout: 10000 });
  await page.click(`[data-testid=tool-item][data-name="${tool}"]`);
  await page.waitForSelector('[data-testid=tool-run]');
  for (const [k, v] of Object.entries(opts)) {
    const sel = `[data-testid=tool-opt][data-name="${k}"]`;
    const tag = await page.$eval(sel, x => x.tagName + ':' + x.type);
    if (tag === 'SELECT:select-one') await page.selectOption(sel, v);
    else if (tag.endsWith(':checkbox')) await page.setChecked(sel, v === 'true');
    else await page.fill(sel, v);
  }
  await page.click('[data-testid=tool-run]');
  await page.waitForFunction(() => /^(done|failed|cancelled)/.test(document.querySelector('[data-testid=tool-status]').textContent), null, { timeout: 30000 });
  return page.$eval('[data-testid=tool-status]', x => ({ text: x.textContent, result: x.dataset.result || '' }));
}

await withBrowser(shots, async ({ page, errors, shot }) => {
  page.on('dialog', d => d.accept());
  await page.goto(url);
  await page.waitForSelector('[data-testid=trace-item]', { timeout: 10000 });
  await openTrace(page, traceName);
  const all = await total(page);

  // the Tools tab: the tool list and the form of the selected tool's typed options
  await page.click('[data-testid=tab-tools]');
  await page.waitForSelector('[data-testid=tool-item]', { timeout: 10000 });
  const names = await page.$$eval('[data-testid=tool-item]', xs => xs.map(x => x.dataset.name));
  check('the Tools tab lists the analyses', ['filter', 'anomaly', 'aggregate'].every(n => names.includes(n)) && !names.some(n => n.startsWith('import-')), names.join(','));
  await page.click('[data-testid=tool-item][data-name="anomaly"]');
  const form = await page.$$eval('[data-testid=tool-opt]', xs => Object.fromEntries(xs.map(x => [x.dataset.name, x.tagName + ':' + x.type])));
  check('the form has a control per option type', form.rule === 'SELECT:select-one' && form.k === 'INPUT:number' && form.subtree === 'INPUT:checkbox' && form.type === 'INPUT:text' && !form.svg,
    JSON.stringify(form));
  const rules = await page.$$eval('[data-testid=tool-opt][data-name=rule] option', xs => xs.map(x => x.value));
  check('a select offers the allowed values', rules.join(',') === 'mad,sigma,ci99', rules.join(','));
  await shot('uitools-1-form');

  // a run: progress to the end, the result in the explorer
  const r1 = await runTool(page, 'filter', { name: 'ui-state0', type: 'state0' });
  check('a run from the Tools tab ends done and names its result', r1.text.startsWith('done') && r1.result === 'ui-state0', r1.text);
  const prog = await page.$eval('[data-testid=tool-progress]', x => x.value);
  check('the progress bar reaches the end', prog === 1, 'progress ' + prog);
  await page.waitForSelector('[data-testid=result-item][data-name="ui-state0"]', { timeout: 10000 });
  const size = await page.$eval('[data-testid=result-item][data-name="ui-state0"]', x => +x.dataset.size);
  check('the explorer lists the new event set', size > 0 && size < all, `size ${size} of ${all}`);
  await shot('uitools-2-run');

  // use as filter: every view shows the set only
  await page.click('[data-testid=result-item][data-name="ui-state0"] [data-testid=result-filter]');
  await page.click('#tabs button[data-tab=overview]');
  await page.waitForFunction(n => +document.querySelector('[data-testid=table]').dataset.total === n, size, { timeout: 15000 });
  check('"use as filter": the table count is the set\'s size', (await total(page)) === size, `${await total(page)} vs ${size}`);
  await page.waitForFunction(n => document.querySelector('[data-testid=pie-types]') && +document.querySelector('[data-testid=pie-types]').dataset.total === n, size, { timeout: 15000 })
    .catch(() => {});
  const pie = await page.$eval('[data-testid=pie-types]', x => +x.dataset.total);
  check('"use as filter": the statistics count the set', pie === size, `pie ${pie} vs ${size}`);
  const types = await page.$$eval('.trow span:nth-child(4)', xs => [...new Set(xs.map(x => x.textContent))]);
  check('"use as filter": the table shows the set\'s events only', types.length === 1 && types[0] === 'state0', types.join(','));
  check('the density is drawn under the filter', (await inked(page, '[data-testid=density]')) > 100, 'density blank');
  const label = await page.$eval('[data-testid=result-item][data-name="ui-state0"] [data-testid=result-filter]', x => x.textContent);
  check('the active filter says how to stop it', label === 'stop filtering', label);
  await shot('uitools-3-filter');
  await page.click('[data-testid=result-item][data-name="ui-state0"] [data-testid=result-filter]');
  await page.waitForFunction(n => +document.querySelector('[data-testid=table]').dataset.total === n, all, { timeout: 15000 });
  check('stop filtering: the whole trace again', (await total(page)) === all, `${await total(page)} vs ${all}`);

  // a second result, deleted from the explorer (after confirm)
  const r2 = await runTool(page, 'anomaly', { type: 'state0', rule: 'sigma', k: '1', save: 'ui-gone' });
  check('a second tool runs', r2.result === 'ui-gone', r2.text);
  await page.waitForSelector('[data-testid=result-item][data-name="ui-gone"]', { timeout: 10000 });
  await page.click('[data-testid=result-item][data-name="ui-gone"] [data-testid=result-delete]');
  await page.waitForSelector('[data-testid=result-item][data-name="ui-gone"]', { state: 'detached', timeout: 10000 });
  check('delete removes the result from the explorer', !(await page.$('[data-testid=result-item][data-name="ui-gone"]')), 'still listed');

  // a failing run shows its error
  const r3 = await runTool(page, 'anomaly', { type: 'no-such-type' });
  check('a failing run shows the tool\'s error', r3.text.startsWith('failed') && r3.text.includes('no-such-type'), r3.text);
  await shot('uitools-4-error');

  // a real trace: a filter of its first type, used as a filter
  if (realTrace) {
    await page.click('#tabs button[data-tab=overview]');
    await openTrace(page, realTrace);
    const r4 = await runTool(page, 'filter', { name: 'ui-real', type: realType });
    check(`a run on ${realTrace}`, r4.result === 'ui-real', r4.text);
    await page.waitForSelector('[data-testid=result-item][data-name="ui-real"]', { timeout: 10000 });
    const rsize = await page.$eval('[data-testid=result-item][data-name="ui-real"]', x => +x.dataset.size);
    await page.click('[data-testid=result-item][data-name="ui-real"] [data-testid=result-filter]');
    await page.click('#tabs button[data-tab=overview]');
    await page.waitForFunction(n => +document.querySelector('[data-testid=table]').dataset.total === n, rsize, { timeout: 20000 });
    check(`"use as filter" on ${realTrace}: the table count is the set's size`, (await total(page)) === rsize && rsize > 0, `${await total(page)} vs ${rsize}`);
    await shot('uitools-5-real');
  }
  check('no page errors', errors.length === 0, errors.join('\n'));
});
