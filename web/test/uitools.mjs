// Browser test of the Tools tab: a tool run from the UI saves a result that the
// explorer lists; "use as filter" narrows every view to it; delete removes it.
// A long run on a large trace moves the progress bar through intermediate values
// and Cancel stops it; the selection (a saved set used as filter) is passed to a
// run; a repeatable option takes several values.
// usage: node uitools.mjs URL SCREENSHOT_DIR TRACE BIG_TRACE [REAL_TRACE REAL_TYPE]
// Prints PASS:/FAIL: lines; the shell part (tests/web/t_uitools.sh) then asks the
// CLI which results the workspace holds.
import { check, withBrowser, inked, openTrace } from './lib.mjs';

const [url, shots, traceName, bigTrace, realTrace, realType] = process.argv.slice(2);
const total = page => page.$eval('[data-testid=table]', x => +x.dataset.total);

// Opens the form of tool in the Tools tab and fills it (a list: a repeatable option's values).
async function fillTool(page, tool, opts) {
  await page.click('[data-testid=tab-tools]');
  await page.waitForSelector(`[data-testid=tool-item][data-name="${tool}"]`, { timeout: 10000 });
  await page.click(`[data-testid=tool-item][data-name="${tool}"]`);
  await page.waitForSelector('[data-testid=tool-run]');
  for (const [k, v] of Object.entries(opts)) {
    const sel = `[data-testid=tool-opt][data-name="${k}"]`;
    const tag = await page.$eval(sel, x => x.tagName + ':' + x.type);
    const vs = Array.isArray(v) ? v : [v];
    for (let i = 0; i < vs.length; i++) {
      if (i > 0) await page.click(`[data-testid=tool-opt-add][data-name="${k}"]`);
      const nth = `${sel} >> nth=${i}`;
      if (tag === 'SELECT:select-one') await page.selectOption(nth, vs[i]);
      else if (tag.endsWith(':checkbox')) await page.setChecked(nth, vs[i] === 'true');
      else await page.fill(nth, vs[i]);
    }
  }
}

// Runs tool with the given option values from the Tools tab (on the selection when
// onSelection); returns the status text, the saved result's name and the filter used.
async function runTool(page, tool, opts, onSelection = false) {
  await fillTool(page, tool, opts);
  await page.setChecked('[data-testid=tool-range]', onSelection);
  await page.click('[data-testid=tool-run]');
  await page.waitForFunction(() => /^(done|failed|cancelled)/.test(document.querySelector('[data-testid=tool-status]').textContent), null, { timeout: 30000 });
  return page.$eval('[data-testid=tool-status]', x => ({ text: x.textContent, result: x.dataset.result || '', filter: x.dataset.filter || '' }));
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

  // annotations as a time filter: the table and statistics hold the events during
  // their ranges, as `traza query --during` counts them
  const during = +process.env.DURING_COUNT;
  await page.click('[data-testid=result-item][data-name="ui-parts"] [data-testid=result-during]');
  await page.waitForFunction(n => +document.querySelector('[data-testid=table]').dataset.total === n, during, { timeout: 15000 }).catch(() => {});
  check('"use its time ranges": the table count is query --during\'s', (await total(page)) === during && during > 0 && during < all, `${await total(page)} vs ${during}`);
  const dlabel = await page.$eval('[data-testid=result-item][data-name="ui-parts"] [data-testid=result-during]', x => x.textContent);
  check('the active time filter says how to stop it', dlabel === 'stop filtering', dlabel);
  await shot('uitools-3b-during');
  await page.click('[data-testid=result-item][data-name="ui-parts"] [data-testid=result-during]');
  await page.waitForFunction(n => +document.querySelector('[data-testid=table]').dataset.total === n, all, { timeout: 15000 });
  check('stop the time filter: the whole trace again', (await total(page)) === all, `${await total(page)} vs ${all}`);

  // the selection passed to a run: anomaly on the saved set the views are filtered by
  await page.click('[data-testid=result-item][data-name="ui-state0"] [data-testid=result-filter]');
  const rs = await runTool(page, 'anomaly', { save: 'ui-sel' }, true);
  check('a run on the selection gets the selected set as its series', rs.result === 'ui-sel' && rs.filter === 'series=ui-state0', `${rs.text} [${rs.filter}]`);
  check('the run says which selection it used', rs.text.includes('(on series=ui-state0)'), rs.text);
  await shot('progress-3-selection');
  await page.click('[data-testid=result-item][data-name="ui-state0"] [data-testid=result-filter]');

  // a repeatable option: two types in one filter run
  const rr = await runTool(page, 'filter', { name: 'ui-two', type: ['state0', 'state1'] });
  check('a repeatable option takes several values', rr.result === 'ui-two', rr.text);
  const inputs = await page.$$eval('[data-testid=tool-opt][data-name=type]', xs => xs.length);
  check('the form shows one input per value', inputs === 2, `${inputs} inputs`);
  await shot('progress-4-repeatable');

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

  // progress and cancel: a long run on the large trace
  await page.click('#tabs button[data-tab=overview]');
  await openTrace(page, bigTrace);
  await fillTool(page, 'correlate', { series: 'punctual0', rank: 'true', save: 'ui-rank' });
  await page.click('[data-testid=tool-run]');
  const seen = [];
  for (let i = 0; i < 60 && seen.filter(v => v > 0 && v < 1).length < 3; i++) {
    await page.waitForTimeout(250);
    const v = await page.$eval('[data-testid=tool-progress]', x => x.value);
    if (!seen.includes(v)) seen.push(v);
  }
  const mid = seen.filter(v => v > 0 && v < 1);
  check('the progress bar moves through intermediate values', mid.length >= 2 && mid.every((v, i) => i === 0 || v > mid[i - 1]), seen.join(' '));
  await shot('progress-1-running');
  const t0 = Date.now();
  await page.click('[data-testid=tool-cancel]');
  await page.waitForFunction(() => /^(done|failed|cancelled)/.test(document.querySelector('[data-testid=tool-status]').textContent), null, { timeout: 30000 });
  const st = await page.$eval('[data-testid=tool-status]', x => x.textContent);
  check('Cancel stops the job', st.startsWith('cancelled') && Date.now() - t0 < 5000, `${st} after ${Date.now() - t0} ms`);
  check('a cancelled run saves nothing', !(await page.$('[data-testid=result-item][data-name="ui-rank"]')), 'ui-rank listed');
  await shot('progress-2-cancelled');

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
