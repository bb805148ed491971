// Browser test: a tool launched on the selection reads the events the table shows.
// Column filters (regexes) typed in the event table reach the tool (POST /api/run
// re.COLUMN= nre.COLUMN=, the filter tool's regex option): the set the filter tool
// saves has as many events as the table counts, aggregate aggregates them, seqsearch
// searches them; a tool that takes no regex is refused rather than run on other events.
// usage: node toolfilter.mjs URL SCREENSHOT_DIR TRACE [REAL_TRACE REAL_REGEX]
// Prints PASS:/FAIL: lines; tests/web/t_toolfilter.sh then checks the saved sets
// against `traza query --regex --count`.
import { check, withBrowser, openTrace } from './lib.mjs';

const [url, shots, traceName, realTrace, realRegex] = process.argv.slice(2);
const total = page => page.$eval('[data-testid=table]', x => +x.dataset.total);

// Sets a column filter of the table and waits for its count to change from prev.
async function filterColumn(page, testid, re, prev) {
  await page.fill(`[data-testid=${testid}]`, re);
  await page.waitForFunction(p => +document.querySelector('[data-testid=table]').dataset.total !== p, prev, { timeout: 15000 });
  return total(page);
}

// Runs tool from the Tools tab on the selection; the status, the saved result and the
// filter the job used, and the size the tool printed.
async function runOnSelection(page, tool, opts) {
  await page.click('[data-testid=tab-tools]');
  await page.waitForSelector(`[data-testid=tool-item][data-name="${tool}"]`, { timeout: 10000 });
  await page.click(`[data-testid=tool-item][data-name="${tool}"]`);
  await page.waitForSelector('[data-testid=tool-run]');
  for (const [k, v] of Object.entries(opts)) await page.fill(`[data-testid=tool-opt][data-name="${k}"]`, v);
  await page.setChecked('[data-testid=tool-range]', true);
  const label = await page.$eval('[data-testid=tool-selection]', x => x.textContent);
  await page.click('[data-testid=tool-run]');
  await page.waitForFunction(() => /^(done|failed|cancelled|error)/.test(document.querySelector('[data-testid=tool-status]').textContent), null, { timeout: 30000 });
  const st = await page.$eval('[data-testid=tool-status]', x => ({ text: x.textContent, result: x.dataset.result || '', filter: x.dataset.filter || '' }));
  const out = await page.$eval('[data-testid=tool-output]', x => x.textContent);
  const m = /"size":(\d+)/.exec(out);
  return Object.assign(st, { label, size: m ? +m[1] : -1 });
}

await withBrowser(shots, async ({ page, errors, shot }) => {
  await page.goto(url);
  await page.waitForSelector('[data-testid=trace-item]', { timeout: 10000 });
  await openTrace(page, traceName);
  const all = await total(page);

  // two column filters: a type regex and a negated one on a parameter
  const byType = await filterColumn(page, 'filter-type', '^state', all);
  await page.fill('[data-testid=filter-param-name]', 'p0');
  const shown = await filterColumn(page, 'filter-param', '!^1', byType);
  check('the column filters narrow the table', shown > 0 && shown < byType && byType < all, `${all} -> ${byType} -> ${shown}`);
  await shot('viewer-toolfilter-1-table');

  const r = await runOnSelection(page, 'filter', { name: 'ui-regex' });
  check('the Tools tab says the column filters are part of the selection', r.label.includes("the table's column filters"), r.label);
  check('the filter tool run on the selection ends done', r.text.startsWith('done') && r.result === 'ui-regex', r.text);
  check('the job used the table\'s column filters', r.filter.includes('regex=type~^state') && r.filter.includes('regex=p0!~^1'), r.filter);
  check('the tool saved as many events as the table shows', r.size === shown, `tool ${r.size}, table ${shown}`);
  await shot('viewer-toolfilter-2-run');

  // aggregate takes the same filter: it aggregates the events the table shows
  const g = await runOnSelection(page, 'aggregate', { slices: '1', p: '0' });
  check('aggregate run on the selection ends done, named after its filter',
    g.text.startsWith('done') && g.result === 'aggregate:occurrences:1:regex=type~^state:regex=p0!~^1', `${g.text} ${g.result}`);
  check('aggregate used the table\'s column filters', g.filter.includes('regex=type~^state') && g.filter.includes('regex=p0!~^1'), g.filter);
  const gt = await page.$eval('[data-testid=tool-output]', x => x.textContent);
  check('its one part holds the events the table shows', new RegExp(`"total": ${shown}[,}]`).test(gt), gt.slice(0, 200));

  // seqsearch takes the filter too: its search is named after it (the job names the
  // last result it saved, the exceptions' group)
  const q = await runOnSelection(page, 'seqsearch', { pattern: 'state0,state1' });
  check('seqsearch run on the selection ends done, named after its filter',
    q.text.startsWith('done') && q.result === 'seq:state0,state1:regex=type~^state:regex=p0!~^1:exceptions', `${q.text} ${q.result}`);

  // a tool without a regex option is refused, not run on other events
  const a = await runOnSelection(page, 'producer-activity', { name: 'ui-active' });
  check('a tool that takes no regex is refused on a filtered selection', /^error: .*takes no regular expression/.test(a.text), a.text);
  await shot('viewer-toolfilter-3-refused');

  if (realTrace) {
    await page.click('#tabs button[data-tab=overview]');
    await page.fill('[data-testid=filter-param]', '');
    await page.fill('[data-testid=filter-param-name]', '');
    await page.fill('[data-testid=filter-type]', '');
    await page.waitForFunction(n => +document.querySelector('[data-testid=table]').dataset.total === n, all, { timeout: 15000 });
    await openTrace(page, realTrace);
    const allR = await total(page);
    const shownR = await filterColumn(page, 'filter-type', realRegex, allR);
    const rr = await runOnSelection(page, 'filter', { name: 'ui-regex-real' });
    check(`on ${realTrace}: the tool saved as many events as the table shows`, rr.text.startsWith('done') && rr.size === shownR && shownR > 0,
      `${rr.text}: tool ${rr.size}, table ${shownR} of ${allR}`);
    await page.click('#tabs button[data-tab=overview]');
    await shot('viewer-toolfilter-4-real');
  }
  // the browser logs the refused run's answer (400); nothing else may fail
  const unexpected = errors.filter(e => !/status of 400/.test(e));
  check('no page errors but the refused run', unexpected.length === 0 && errors.length === 1, errors.join('\n'));
});
