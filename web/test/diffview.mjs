// Browser test of the Diff tab's structure panel and side-by-side timeline (web/src/diff.js,
// web/src/difftime.js) against a running `traza serve` holding the traces of
// tests/web/t_diffview.sh: with b open and a as the base, the structure panel lists
// main;foo;baz as only in b and init, main;qux as only in a; both timelines are drawn;
// "align at main" moves the base by its 100 us of init; the wheel zooms and a drag pans
// both runs at once. Then two generated traces, and real ones against themselves
// (aligned at a function), side by side.
// usage: node diffview.mjs URL SHOTS BASE,OPEN[,BASE2+OPEN2|TRACE...] (then further
// pairs, or traces against themselves). Prints PASS:/FAIL: lines (tests/lib.sh
// conventions).
import { check, withBrowser, openTrace, inked } from './lib.mjs';

const [url, shots, traceList] = process.argv.slice(2);
const [base, cur, ...others] = traceList.split(',');

async function compare(page, open, baseName) {
  await page.click('#tabs button[data-tab=overview]');
  await openTrace(page, open);
  await page.click('#tabs button[data-tab=diff]');
  await page.waitForSelector('[data-testid=diff-base]');
  await page.selectOption('[data-testid=diff-base]', baseName);
  await page.waitForFunction(b => document.querySelector('[data-testid=diff-table]').dataset.base === b &&
    document.querySelector('[data-testid=diff-structure]').childElementCount > 0, baseName, { timeout: 60000 });
  await sidesDrawn(page, baseName, open);
}
// both runs of the side-by-side timeline drawn from their answers, aligned at the
// first event of the type named at ('' for their starts)
const sidesDrawn = (page, b, o, at = '') => page.waitForFunction(([b, o, at]) => {
  const x = document.querySelector('[data-testid=diff-tl-base]').dataset, y = document.querySelector('[data-testid=diff-tl-open]').dataset;
  return x.trace === b && y.trace === o && x.mode !== 'none' && y.mode !== 'none' && x.mode && y.mode && x.alignAt === at && y.alignAt === at;
}, [b, o, at], { timeout: 20000 });
const sides = page => page.evaluate(() => ['base', 'open'].map(r => ({ ...document.querySelector(`[data-testid=diff-tl-${r}]`).dataset })));
const view = page => page.$eval('[data-testid=diff-tl-ruler]', r => JSON.parse(r.dataset.view));

await withBrowser(shots, async ({ page, errors, shot }) => {
  await page.goto(url);
  await page.waitForSelector('[data-testid=trace-item]', { timeout: 10000 });
  await compare(page, cur, base);

  // the structure panel: each run's own paths by name, with their calls
  const paths = await page.$$eval('[data-testid=diff-path]', xs => xs.map(x => `${x.dataset.side} ${x.dataset.path} ${x.dataset.calls} [${x.textContent}]`).sort());
  check(`the structure panel lists main;foo;baz as only in ${cur}, init and main;qux as only in ${base} (${paths.join(', ')})`,
    paths.join('|') === 'base init 1 [init1]|base main;qux 600 [main;qux600]|new main;foo;baz 600 [main;foo;baz600]', paths.join('|'));
  const heads = await page.$$eval('[data-testid=diff-structure] h4', xs => xs.map(x => x.textContent));
  check(`its headings count them (${heads.join(' / ')})`, heads[0] === 'only in the base: 2 paths' && heads[1] === 'only in the open trace: 1 path', heads.join(' / '));
  const pats = await page.$$eval('[data-testid=diff-pattern]', xs => xs.map(x => x.dataset.pattern + ' ' + x.dataset.verdict));
  check(`the changed patterns: bar > baz new, bar > qux gone (${pats.join(', ')})`, pats.includes('bar > baz new') && pats.includes('bar > qux gone'), pats.join(', '));

  // both timelines drawn, aligned at their starts
  await page.$eval('[data-testid=diff-timeline]', p => p.scrollIntoView());
  const inkA = await inked(page, '[data-testid=diff-tl-base]'), inkB = await inked(page, '[data-testid=diff-tl-open]');
  check(`both runs are drawn (ink: base ${inkA}, open ${inkB})`, inkA > 1000 && inkB > 1000, `${inkA} ${inkB}`);
  let [sa, sb] = await sides(page);
  check(`aligned at their starts (align ${sa.align}, ${sb.align}; x of the starts ${sa.x0}, ${sb.x0})`,
    sa.align === '0' && sb.align === '0' && +sa.x0 === 0 && +sb.x0 === 0, JSON.stringify([sa, sb]));
  const ticks = await page.$eval('[data-testid=diff-tl-ruler]', r => JSON.parse(r.dataset.ticks));
  check(`the ruler reads relative time (${ticks.slice(0, 3).join(', ')})`, ticks.length >= 4 && ticks[0] === '+0 µs', ticks.join(', '));
  const nr = await page.evaluate(([a, b]) => fetch(`/api/diff?base=${a}&trace=${b}&tree=0`).then(r => r.json())
    .then(d => d.ranges.reduce((n, g) => n + g.ranges.length, 0)), [base, cur]);
  const marks = await page.$eval('[data-testid=diff-tl-open]', c => c.dataset.marks);
  check(`the open run shades the ${nr} time ranges of Where in time (${marks})`, nr > 0 && +marks === nr, `${marks} ${nr}`);
  await shot('diffview-1-starts');

  // align at main: the base's first main is 100 us after its start (its init), b's at 0
  const w0 = await view(page);
  await page.fill('[data-testid=diff-align]', 'main');
  await page.$eval('[data-testid=diff-align]', x => x.dispatchEvent(new Event('change')));
  await sidesDrawn(page, base, cur, 'main');
  [sa, sb] = await sides(page);
  const v = await view(page), W = await page.$eval('[data-testid=diff-tl-base]', c => c.clientWidth);
  const X = t => (t - v[0]) / (v[1] - v[0]) * W; // the base's start is 100 us before the alignment point, b's at it
  check(`align at main moves the base by its 100 us of init (align ${sa.align} and ${sb.align} ticks; starts at x ${sa.x0} and ${sb.x0}, want ${X(-100000).toFixed(1)} and ${X(0).toFixed(1)})`,
    sa.align === '100000' && sb.align === '0' && Math.abs(+sa.x0 - X(-100000)) < 0.1 && Math.abs(+sb.x0 - X(0)) < 0.1 && +sb.x0 - +sa.x0 > 100,
    JSON.stringify({ sa, sb, v }));
  check(`the whole runs stay whole: the axis from the base's start to b's end (${v})`, v[0] === -100000 && v[1] === +w0[1], JSON.stringify({ v, w0 }));
  const title = await page.$eval('[data-testid=diff-tl-title-base]', t => t.textContent);
  check(`the base's title says where it is aligned (${title})`, title.includes('aligned at its first main, 100.000 µs after its start'), title);
  check('the base is still drawn', await inked(page, '[data-testid=diff-tl-base]') > 1000, '');
  await shot('diffview-2-aligned');

  // align at main #3: each run at its third main, as /api/events gives it
  await page.fill('[data-testid=diff-align]', 'main #3');
  await page.$eval('[data-testid=diff-align]', x => x.dispatchEvent(new Event('change')));
  await sidesDrawn(page, base, cur, 'main #3');
  const third = await page.evaluate(async ([b, o]) => Promise.all([b, o].map(async n => {
    const t = await (await fetch(`/api/trace?trace=${n}`)).json();
    const ty = t.types.find(x => x.name === 'main');
    const r = await (await fetch(`/api/events?trace=${n}&types=${ty.id}&offset=2&limit=1&total=0`)).json();
    return String(BigInt(r.events[0].ts) - BigInt(t.info.min_ts));
  })), [base, cur]);
  [sa, sb] = await sides(page);
  const t3 = await page.$eval('[data-testid=diff-tl-title-base]', t => t.textContent);
  check(`align at "main #3" aligns each run at its third main (align ${sa.align} and ${sb.align}, want ${third}; ${t3})`,
    sa.align === third[0] && sb.align === third[1] && +third[0] > 100000 && t3.includes('aligned at its main #3, '), JSON.stringify({ sa, sb, third }));
  await shot('diffview-2b-third-main');
  await page.fill('[data-testid=diff-align]', 'main');
  await page.$eval('[data-testid=diff-align]', x => x.dispatchEvent(new Event('change')));
  await sidesDrawn(page, base, cur, 'main');

  // the wheel over the base zooms both; a drag over the open trace pans both
  const box = await (await page.$('[data-testid=diff-tl-base]')).boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + 10);
  for (let k = 0; k < 6; k++) await page.mouse.wheel(0, -100);
  await page.waitForTimeout(600);
  const z = await view(page);
  check(`the wheel zooms the shared axis (${(v[1] - v[0]).toFixed(0)} -> ${(z[1] - z[0]).toFixed(0)} ticks)`, z[1] - z[0] < (v[1] - v[0]) * 0.5, JSON.stringify(z));
  const ob = await (await page.$('[data-testid=diff-tl-open]')).boundingBox();
  await page.mouse.move(ob.x + 400, ob.y + 10); await page.mouse.down(); await page.mouse.move(ob.x + 200, ob.y + 10, { steps: 5 }); await page.mouse.up();
  await page.waitForTimeout(600);
  const p = await view(page), shift = (p[0] - z[0]) / (z[1] - z[0]) * ob.width;
  check(`a drag over the open trace pans both by 200 px (${shift.toFixed(1)} px)`, Math.abs(shift - 200) < 2 && Math.abs((p[1] - p[0]) - (z[1] - z[0])) < 1e-6 * (z[1] - z[0]), JSON.stringify({ z, p }));
  [sa, sb] = await sides(page);
  check(`both runs are drawn in the zoomed window (${sa.view} / ${sb.view})`, sa.view === sb.view && sa.view === JSON.stringify(p) &&
    await inked(page, '[data-testid=diff-tl-base]') > 500 && await inked(page, '[data-testid=diff-tl-open]') > 500, JSON.stringify([sa.view, sb.view, p]));
  await shot('diffview-3-zoomed');

  // zoomed in until the events are drawn one by one: nested calls in depth lanes, and a
  // click on a main of the open run aligns both runs at that main (its Nth in each)
  const ob2 = await (await page.$('[data-testid=diff-tl-open]')).boundingBox();
  for (let k = 0; k < 40 && (await sides(page))[1].mode !== 'detail'; k++) {
    await page.mouse.move(ob2.x + ob2.width / 2, ob2.y + 4);
    for (let j = 0; j < 3; j++) await page.mouse.wheel(0, -100);
    await page.waitForTimeout(400);
  }
  const lanes = await page.$eval('[data-testid=diff-tl-open]', x => +x.dataset.lanes);
  check(`nested calls are drawn in depth lanes (main > foo > bar: ${lanes} lanes)`, lanes >= 2, String(lanes));
  // the top lane of each track in turn (a track may have no call in this window)
  for (let row = 0; row < +(await sides(page))[1].tracks; row++) {
    await page.mouse.click(ob2.x + ob2.width / 2, ob2.y + 18 * row + 3);
    const ok = await page.waitForFunction(() => /^main #\d+$/.test(document.querySelector('[data-testid=diff-align]').value), null, { timeout: 3000 })
      .then(() => true, () => false);
    if (ok) break;
  }
  const picked = await page.$eval('[data-testid=diff-align]', x => x.value);
  await sidesDrawn(page, base, cur, picked).catch(() => {});
  [sa, sb] = await sides(page);
  const nth = +(/#(\d+)$/.exec(picked) || [0, 1])[1];
  const nthTs = async tr => { const t = await (await fetch(`${url}api/trace?trace=${tr}`)).json();
    const ty = t.types.find(x => x.name === 'main').id;
    const e = await (await fetch(`${url}api/events?trace=${tr}&types=${ty}&offset=${nth - 1}&limit=1&ticks=string`)).json();
    return Number(BigInt(e.events[0].ts) - BigInt(t.info.min_ts)); };
  const [wa, wb] = [await nthTs(base), await nthTs(cur)];
  check(`a click on a main of the open run aligns both at that main (${picked}: align ${sa.align} and ${sb.align}, want ${wa} and ${wb})`,
    nth > 1 && +sa.align === wa && +sb.align === wb && sa.alignAt === picked && sb.alignAt === picked, JSON.stringify({ picked, sa, sb }));
  await shot('diffview-3b-picked');

  // several runs per side: g1 and g3 against g2 and g4, the rows of traza diff --base g1 g3 --new g2 g4
  if (process.env.DIFF_RUNS_ROWS) {
    await compare(page, 'g2', 'g1');
    await page.selectOption('[data-testid=diff-more-base]', ['g3']);
    await page.waitForFunction(() => /one run per side, or at least two on each: now 2 and 1/.test(document.querySelector('[data-testid=diff-note]').textContent), null, { timeout: 60000 });
    check('two base runs against one: the note asks for two on each side', true, '');
    await page.selectOption('[data-testid=diff-more-new]', ['g4']);
    await page.waitForFunction(() => document.querySelector('[data-testid=diff-table]').dataset.runs === JSON.stringify([['g1', 'g3'], ['g2', 'g4']]), null, { timeout: 60000 });
    const rows = await page.$$eval('[data-testid=diff-row]', xs => xs.map(x => x.dataset.name).join(' '));
    check(`two runs per side in the UI: the rows of traza diff --base g1 g3 --new g2 g4 (${rows})`, rows === process.env.DIFF_RUNS_ROWS,
      `ui:  ${rows}\n  cli: ${process.env.DIFF_RUNS_ROWS}`);
    const note = await page.$eval('[data-testid=diff-note]', x => x.textContent);
    check(`the note says how many runs each side has (${note})`, note.includes('2 base runs against 2'), note);
    const cmd = await page.$eval('[data-testid=diff-cmd]', x => x.textContent);
    check(`the header names the command line of the comparison (${cmd})`, cmd.includes('(traza diff --base g1 g3 --new g2 g4)'), cmd);
    await shot('diffview-runs');
  }

  // further pairs: generated traces, then the uftrace sample against itself aligned at a function
  for (const item of others) {
    const [b0, o0 = b0] = item.split('+');
    await compare(page, o0, b0);
    await page.$eval('[data-testid=diff-timeline]', p => p.scrollIntoView());
    const ia = await inked(page, '[data-testid=diff-tl-base]'), ib = await inked(page, '[data-testid=diff-tl-open]');
    const s = await sides(page);
    check(`${o0} against ${b0}: both runs drawn (ink ${ia}, ${ib}; ${s[0].tracks} and ${s[1].tracks} tracks)`, ia > 500 && ib > 500, JSON.stringify(s));
    if (b0 === o0) {
      // a function of the run, late in it: both sides move alike
      const fn = await page.evaluate(async n => {
        const t = await (await fetch('/api/trace?trace=' + n)).json();
        return t.types.find(x => x.name === 'fclose') ? 'fclose' : t.types[t.types.length - 1].name;
      }, b0);
      await page.fill('[data-testid=diff-align]', fn);
      await page.$eval('[data-testid=diff-align]', x => x.dispatchEvent(new Event('change')));
      await sidesDrawn(page, b0, o0, fn);
      const t = await sides(page);
      check(`${b0} against itself aligned at ${fn}: both moved alike (align ${t[0].align})`, t[0].align === t[1].align && t[0].x0 === t[1].x0, JSON.stringify(t));
    }
    await shot(`diffview-4-${o0.replace(/[^\w-]/g, '_')}`);
  }
  check('no error on the page', errors.length === 0, errors.join('\n'));
});
