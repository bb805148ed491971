/* The "aggregate" tool: best-cut-partition time-slice aggregation (temporal, or
 * spatio-temporal with --spatial); parts saved as annotations. */
#include "analysis/tool_util.h"
#include "tools/tool_filter.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const traza_tool_option aggregate_opts[] = {
    {"slices", TRAZA_OPT_INT, "20", "number of time slices", 0, 0},
    {"model", TRAZA_OPT_STRING, "occurrences", "occurrences, duration, avg-duration or avg-value", 0, 0},
    {"p", TRAZA_OPT_DOUBLE, NULL, "trade-off between gain and loss in [0, 1] (default: the proposed p)", 0, 0},
    {"list-p", TRAZA_OPT_BOOL, "false", "list the meaningful p values and their partitions", 0, 0},
    {"threshold", TRAZA_OPT_DOUBLE, "0.001", "bisection threshold of the p list", 0, 0},
    {"producers", TRAZA_OPT_RESULT, NULL, "a saved producer set, group or event set: its producers restrict the analysis", 0, 0},
    TZ_FILTER_OPTIONS,
    {"from", TRAZA_OPT_TIME, NULL, "window start (default: trace start)", 0, 0},
    {"to", TRAZA_OPT_TIME, NULL, "window end (default: trace end)", 0, 0},
    {"normalize", TRAZA_OPT_BOOL, "false", "divide every (producer, type) series by its maximum", 0, 0},
    {"spatial", TRAZA_OPT_BOOL, "false", "spatio-temporal: parts are producer subtrees over intervals", 0, 0},
    {"save", TRAZA_OPT_STRING, NULL, "name of the saved annotations", 0, 0},
    TZ_OPT_REPLACE,
    {"svg", TRAZA_OPT_STRING, NULL, "draw the parts, type proportions and the gain/loss curve", 0, 0},
    {"micro-out", TRAZA_OPT_STRING, NULL, "a file to write the microscopic model that is aggregated to (one line per series)", 0, 0},
};

/* The microscopic model as text, for another implementation to aggregate the same
 * values: "slices N series S", then per series "producer type" and its N values. */
static int write_micro(const char *path, const traza_agg_micro *m, traza_err *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return traza_err_set(err, TRAZA_E_IO, "%s: cannot write: %s", path, strerror(errno));
    int bad = fprintf(f, "slices %zu series %zu\n", m->nslices, m->nseries) < 0;
    for (size_t s = 0; s < m->nseries && !bad; s++) {
        bad |= fprintf(f, "%ld %ld", (long)m->producer[s], (long)m->type[s]) < 0;
        for (size_t k = 0; k < m->nslices && !bad; k++)
            bad |= fprintf(f, " %.17g", m->v[s * m->nslices + k]) < 0;
        bad |= fputc('\n', f) == EOF;
    }
    if (fclose(f) != 0 || bad)
        return traza_err_set(err, TRAZA_E_IO, "%s: write failed", path);
    return 0;
}

/* The first slice of unit k of the qualities q. */
#define UNIT(k) (q.unit ? q.unit[k] : (k))

static int64_t slice_ts(const traza_agg_micro *m, size_t k)
{
    if (k >= m->nslices)
        return m->t1;
    return m->t0 + (int64_t)floor(((double)m->t1 - (double)m->t0) * (double)k / (double)m->nslices);
}

static void json_plist(tz_buf *b, const traza_agg_pentry *l, size_t n, size_t ns)
{
    tz_buf_puts(b, "{\"p_list\": [");
    for (size_t i = 0; i < n; i++) {
        tz_buf_puts(b, i ? ", {\"p\": " : "{\"p\": ");
        tz_json_num(b, l[i].p);
        tz_buf_puts(b, ", \"gain\": ");
        tz_json_num(b, l[i].gain);
        tz_buf_puts(b, ", \"loss\": ");
        tz_json_num(b, l[i].loss);
        tz_buf_puts(b, ", \"parts\": [");
        for (size_t k = 0; k < ns; k++)
            tz_buf_printf(b, "%s%d", k ? ", " : "", l[i].parts[k]);
        tz_buf_puts(b, "]}");
    }
    tz_buf_puts(b, "]}\n");
}

static int draw(const char *path, traza_trace *t, const traza_agg_micro *m, const int *parts, size_t np,
                const traza_agg_pentry *l, size_t nl, double p, traza_err *err)
{
    tz_buf b;
    tz_buf_init(&b);
    size_t n = m->nslices;
    int32_t maxt = 0;
    for (size_t s = 0; s < m->nseries; s++)
        if (m->type[s] > maxt) maxt = m->type[s];
    double *prop = calloc(np * ((size_t)maxt + 1), sizeof *prop);
    if (!prop)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    for (size_t s = 0; s < m->nseries; s++)
        for (size_t k = 0; k < n; k++)
            prop[(size_t)parts[k] * ((size_t)maxt + 1) + (size_t)m->type[s]] += m->v[s * n + k];
    char title[128];
    snprintf(title, sizeof title, "best cut partition at p = %.4f: %zu parts", p, np);
    tz_svg_begin(&b, 900, 620, title);
    tz_plot p1 = {70, 40, 800, 220, (double)m->t0, (double)m->t1, 0, 1};
    tz_svg_frame(&b, &p1, title, "timestamp", "type proportion");
    size_t first = 0;
    for (size_t k = 0; k <= n; k++) {
        if (k < n && parts[k] == parts[first])
            continue;
        size_t part = (size_t)parts[first];
        double x0 = tz_px(&p1, (double)slice_ts(m, first)), x1 = tz_px(&p1, (double)slice_ts(m, k));
        double tot = 0, acc = 0;
        for (int32_t ty = 0; ty <= maxt; ty++)
            tot += prop[part * ((size_t)maxt + 1) + (size_t)ty];
        for (int32_t ty = 0; ty <= maxt && tot > 0; ty++) {
            double f = prop[part * ((size_t)maxt + 1) + (size_t)ty] / tot;
            if (f <= 0)
                continue;
            const traza_event_type *et = traza_trace_event_type(t, ty);
            double ya = tz_py(&p1, acc + f), yb = tz_py(&p1, acc);
            tz_buf_printf(&b, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"><title>%s %.1f%%</title></rect>\n",
                          x0, ya, x1 - x0, yb - ya, et && et->color ? et->color : tz_svg_color((size_t)ty),
                          et ? et->name : "?", f * 100);
            acc += f;
        }
        tz_buf_printf(&b, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"none\" stroke=\"#000\" stroke-width=\"1.5\"/>\n",
                      x0, p1.y, x1 - x0, p1.h);
        first = k;
    }
    for (int32_t ty = 0, row = 0; ty <= maxt; ty++) {
        const traza_event_type *et = traza_trace_event_type(t, ty);
        double any = 0;
        for (size_t q = 0; q < np; q++)
            any += prop[q * ((size_t)maxt + 1) + (size_t)ty];
        if (!et || any <= 0)
            continue;
        tz_buf_printf(&b, "<rect x=\"%d\" y=\"290\" width=\"10\" height=\"10\" fill=\"%s\"/>", 70 + 110 * row,
                      et->color ? et->color : tz_svg_color((size_t)ty));
        tz_svg_text(&b, 84 + 110 * row, 299, "start", et->name);
        row++;
    }
    /* Gain and loss over p. */
    double gmax = 1;
    for (size_t i = 0; i < nl; i++) {
        if (l[i].gain > gmax) gmax = l[i].gain;
        if (l[i].loss > gmax) gmax = l[i].loss;
    }
    tz_plot p2 = {70, 350, 800, 220, 0, 1, 0, gmax};
    tz_svg_frame(&b, &p2, "gain (blue) and loss (red) of the best partition over p", "p", "");
    for (int c = 0; c < 2; c++) {
        tz_buf_printf(&b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", c ? "#d62728" : "#1f77b4");
        for (size_t i = 0; i < nl; i++) {
            double pe = i + 1 < nl ? l[i + 1].p : 1.0;
            double y = tz_py(&p2, c ? l[i].loss : l[i].gain);
            tz_buf_printf(&b, "%.1f,%.1f %.1f,%.1f ", tz_px(&p2, l[i].p), y, tz_px(&p2, pe), y);
        }
        tz_buf_puts(&b, "\"/>\n");
    }
    tz_buf_printf(&b, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#555\" stroke-dasharray=\"4 3\"/>\n",
                  tz_px(&p2, p), tz_px(&p2, p), p2.y, p2.y + p2.h);
    tz_svg_end(&b);
    free(prop);
    int rc = tz_write_file(path, &b, err);
    tz_buf_free(&b);
    return rc;
}

/* Producers in depth-first preorder: row[id] = position, size[id] = rows of its
 * subtree (a subtree is the contiguous rows [row, row + size)). */
static int producer_rows(traza_trace *t, size_t **row_out, size_t **size_out, int32_t **order_out, size_t *nrows)
{
    const traza_producer *pr;
    size_t np = traza_trace_producers(t, &pr);
    int32_t maxp = 0;
    for (size_t i = 0; i < np; i++)
        if (pr[i].id > maxp) maxp = pr[i].id;
    size_t nid = (size_t)maxp + 2; /* slot maxp + 1: the roots */
    size_t *row = calloc(nid, sizeof *row), *size = calloc(nid, sizeof *size), *off = calloc(nid + 1, sizeof *off);
    size_t *fill = malloc(nid * sizeof *fill), *kids = malloc((np ? np : 1) * sizeof *kids);
    size_t *stack = malloc((np + 1) * sizeof *stack), *next = calloc(nid, sizeof *next);
    int32_t *order = malloc((np ? np : 1) * sizeof *order);
    int rc = -1;
    if (!row || !size || !off || !fill || !kids || !stack || !next || !order)
        goto done;
    for (size_t i = 0; i < np; i++) {
        int32_t par = pr[i].parent;
        off[(par >= 0 && par <= maxp ? (size_t)par : nid - 1) + 1]++;
    }
    for (size_t k = 0; k < nid; k++)
        off[k + 1] += off[k];
    memcpy(fill, off, nid * sizeof *fill);
    for (size_t i = 0; i < np; i++) {
        int32_t par = pr[i].parent;
        kids[fill[par >= 0 && par <= maxp ? (size_t)par : nid - 1]++] = (size_t)pr[i].id;
    }
    size_t no = 0, sp = 0;
    stack[sp++] = nid - 1;
    while (sp) {
        size_t u = stack[sp - 1];
        if (next[u] < off[u + 1] - off[u] && sp <= np) {
            size_t v = kids[off[u] + next[u]++];
            row[v] = no;
            order[no++] = (int32_t)v;
            stack[sp++] = v;
        } else {
            sp--;
            if (u != nid - 1)
                size[u] = no - row[u];
        }
    }
    *nrows = no;
    *row_out = row;
    *size_out = size;
    *order_out = order;
    row = size = NULL;
    order = NULL;
    rc = 0;
done:
    free(row); free(size); free(off); free(fill); free(kids); free(stack); free(next); free(order);
    return rc;
}

/* The sum of the values of every series over slices [first, end): with the model
 * occurrences, the events of those slices. */
static double part_total(const traza_agg_micro *m, size_t first, size_t end)
{
    double sum = 0;
    for (size_t s = 0; s < m->nseries; s++)
        for (size_t k = first; k < end; k++)
            sum += m->v[s * m->nslices + k];
    return sum;
}

/* The saved results an aggregation reads, one a line (NULL: none). */
static const char *agg_inputs(const traza_tool *tool, const traza_tool_call *call, char *buf, size_t size)
{
    const char *in[] = {tz_targ(tool, call, "producers"), tz_targ(tool, call, "set"), tz_targ(tool, call, "during")};
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < 3; i++)
        if (in[i] && len < size)
            len += (size_t)snprintf(buf + len, size - len, "%s%.200s", len ? "\n" : "", in[i]);
    return len ? buf : NULL;
}

/* The spatio-temporal parts as blocks over producers (rows, depth-first) x time. */
static int draw_spatial(const char *path, traza_trace *t, const traza_agg_micro *m, const traza_agg_stpart *parts, size_t np,
                        char **keys, double p, traza_err *err)
{
    size_t *row, *size, nrows;
    int32_t *order;
    if (producer_rows(t, &row, &size, &order, &nrows) < 0)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    if (nrows == 0)
        nrows = 1;
    tz_buf b;
    tz_buf_init(&b);
    double rh = 480.0 / (double)nrows;
    if (rh > 24) rh = 24;
    if (rh < 1) rh = 1;
    double ph = rh * (double)nrows;
    char title[160];
    snprintf(title, sizeof title, "spatio-temporal best cut partition at p = %.4f: %zu parts", p, np);
    tz_svg_begin(&b, 1000, (int)(ph + 100), title);
    tz_plot pl = {170, 40, 800, ph, (double)m->t0, (double)m->t1, 0, (double)nrows};
    tz_svg_frame(&b, &pl, title, "timestamp", "");
    if (nrows <= 60)
        for (size_t r = 0; r < nrows && order; r++) {
            char pp[512];
            if (traza_trace_producer_path(t, order[r], pp, sizeof pp))
                tz_svg_text(&b, 165, pl.y + ((double)r + 0.5) * rh + 4, "end", pp);
        }
    for (size_t i = 0; i < np; i++) {
        size_t r0 = 0, nr = nrows;
        if (parts[i].node >= 0) {
            r0 = row[parts[i].node];
            nr = parts[i].own ? 1 : size[parts[i].node];
        }
        double x0 = tz_px(&pl, (double)slice_ts(m, parts[i].first)), x1 = tz_px(&pl, (double)slice_ts(m, parts[i].last + 1));
        double y0 = pl.y + (double)r0 * rh, y1 = pl.y + (double)(r0 + nr) * rh; /* row 0 on top */
        tz_buf_printf(&b, "<rect class=\"stpart\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\" "
                          "fill-opacity=\"0.8\" stroke=\"#000\" stroke-width=\"1\"><title>",
                      x0, y0, x1 - x0, y1 - y0, tz_svg_color(i));
        tz_xml_esc(&b, keys[i]);
        tz_buf_printf(&b, "%s: slices %zu-%zu, gain %.6g, loss %.6g</title></rect>\n", parts[i].own ? " (own)" : "",
                      parts[i].first, parts[i].last, parts[i].gain, parts[i].loss);
    }
    tz_svg_end(&b);
    free(row);
    free(size);
    free(order);
    int rc = b.oom ? traza_err_set(err, TRAZA_E_NOMEM, "out of memory") : tz_write_file(path, &b, err);
    tz_buf_free(&b);
    return rc;
}

static int run_spatial(const traza_tool *tool, const traza_tool_call *call, traza_trace *t, const traza_agg_micro *m,
                       double p, const char *name, const char *params, traza_err *err)
{
    traza_agg_stpart *parts;
    size_t np, nl = 0, prop = 0;
    double g, l;
    traza_agg_stentry *pl = NULL;
    size_t cut, nodes;
    int cutting = traza_agg_spatial_depth_limit(t, m, &cut, &nodes, err);
    if (cutting < 0)
        return -1;
    traza_warnings warn = {0};
    if (cutting)
        traza_warnings_add(&warn, "the producer tree is too large to search over %zu slices: producers deeper than level %zu "
                                  "count in their ancestor at that level (%zu nodes searched; roots are level 0)",
                           m->nslices, cut, nodes);
    /* p < 0: the proposed p of the spatio-temporal list */
    if ((p < 0 || tz_targ_bool(tool, call, "list-p")) &&
        traza_agg_spatial_plist(t, m, tz_targ_double(tool, call, "threshold", 0.001), &pl, &nl, &prop, err) < 0)
        return -1;
    if (p < 0)
        p = pl[prop].p;
    if (traza_agg_spatial(t, m, p, &parts, &np, &g, &l, err) < 0) {
        free(pl);
        return -1;
    }
    int rc = -1;
    traza_annotation *ann = calloc(np ? np : 1, sizeof *ann);
    char **keys = calloc(np ? np : 1, sizeof *keys);
    tz_buf b;
    tz_buf_init(&b);
    char path[1024];
    if (!ann || !keys)
        goto oom;
    for (size_t i = 0; i < np; i++) {
        if (parts[i].node < 0)
            snprintf(path, sizeof path, "*");
        else
            traza_trace_producer_path(t, parts[i].node, path, sizeof path);
        if (!(keys[i] = tz_strdup(path)))
            goto oom;
        ann[i].key = keys[i];
        ann[i].value.kind = TRAZA_PT_INT;
        ann[i].value.i = (int64_t)i;
        ann[i].has_range = 1;
        ann[i].from = slice_ts(m, parts[i].first);
        ann[i].to = slice_ts(m, parts[i].last + 1);
    }
    char inputs[420];
    traza_result_meta meta = {name, tool->name, params, tz_targ_bool(tool, call, "replace"), agg_inputs(tool, call, inputs, sizeof inputs)};
    if (traza_result_save_annotations(t, &meta, ann, np, err) < 0)
        goto done;
    if (tz_targ_bool(tool, call, "list-p")) {
        if (call->json)
            tz_buf_puts(&b, "{\"p_list\": [");
        else
            tz_buf_printf(&b, "%zu meaningful p values (spatio-temporal, %zu slices); proposed p = %.4f\n%10s %14s %14s %6s\n", nl,
                          m->nslices, pl[prop].p, "p", "gain", "loss", "parts");
        for (size_t i = 0; i < nl; i++) {
            if (!call->json) {
                tz_buf_printf(&b, "%10.4f %14.6g %14.6g %6zu\n", pl[i].p, pl[i].gain, pl[i].loss, pl[i].nparts);
                continue;
            }
            tz_buf_puts(&b, i ? ", {\"p\": " : "{\"p\": ");
            tz_json_num(&b, pl[i].p);
            tz_buf_puts(&b, ", \"gain\": ");
            tz_json_num(&b, pl[i].gain);
            tz_buf_puts(&b, ", \"loss\": ");
            tz_json_num(&b, pl[i].loss);
            tz_buf_printf(&b, ", \"nparts\": %zu}", pl[i].nparts);
        }
        if (call->json)
            tz_buf_printf(&b, "], \"proposed\": %zu}\n", prop);
    } else if (call->json) {
        tz_buf_puts(&b, "{\"p\": ");
        tz_json_num(&b, p);
        tz_buf_puts(&b, ", \"gain\": ");
        tz_json_num(&b, g);
        tz_buf_puts(&b, ", \"loss\": ");
        tz_json_num(&b, l);
        tz_buf_puts(&b, ", \"parts\": [");
        for (size_t i = 0; i < np; i++) {
            tz_buf_puts(&b, i ? ", {\"producer\": " : "{\"producer\": ");
            tz_json_str(&b, keys[i]);
            tz_buf_printf(&b, ", \"first\": %zu, \"last\": %zu, \"from\": %lld, \"to\": %lld, \"gain\": ", parts[i].first,
                          parts[i].last, (long long)ann[i].from, (long long)ann[i].to);
            tz_json_num(&b, parts[i].gain);
            tz_buf_puts(&b, ", \"loss\": ");
            tz_json_num(&b, parts[i].loss);
            tz_buf_puts(&b, parts[i].own ? ", \"own\": true}" : ", \"own\": false}");
        }
        tz_buf_putc(&b, ']');
        if (cutting)
            tz_buf_printf(&b, ", \"depth_limit\": %zu", cut);
        tz_json_warnings(&b, &warn);
        tz_buf_puts(&b, "}\n");
    } else {
        tz_buf_printf(&b, "spatio-temporal partition at p = %.4f: %zu parts, gain %.6g, loss %.6g, saved as '%s'\n", p, np, g, l, name);
        tz_buf_printf(&b, "%-30s %7s %20s %20s %12s %12s\n", "producer subtree", "slices", "from", "to", "gain", "loss");
        for (size_t i = 0; i < np; i++)
            tz_buf_printf(&b, "%-30s %3zu-%-3zu %20lld %20lld %12.6g %12.6g\n", keys[i], parts[i].first, parts[i].last,
                          (long long)ann[i].from, (long long)ann[i].to, parts[i].gain, parts[i].loss);
    }
    if (b.oom)
        goto oom;
    tz_warnings_show(call, &warn);
    traza_tool_printf(call, "%s", b.s ? b.s : "");
    const char *svg = tz_targ(tool, call, "svg");
    if (svg && draw_spatial(svg, t, m, parts, np, keys, p, err) < 0)
        goto done;
    rc = 0;
    goto done;
oom:
    traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
done:
    tz_buf_free(&b);
    if (keys)
        for (size_t i = 0; i < np; i++)
            free(keys[i]);
    free(keys);
    free(ann);
    free(parts);
    free(pl);
    return rc;
}

static int run_aggregate(const traza_tool *tool, const traza_tool_call *call, traza_err *err)
{
    int model = traza_agg_model_parse(tz_targ(tool, call, "model"));
    if (model < 0)
        return traza_err_set(err, TRAZA_E_USAGE, "option 'model' must be occurrences, duration, avg-duration or avg-value, not '%s'",
                             tz_targ(tool, call, "model"));
    double slices = tz_targ_double(tool, call, "slices", 20);
    if (!(slices >= 1 && slices <= 100000))
        return traza_err_set(err, TRAZA_E_USAGE, "option 'slices' must be between 1 and 100000");
    const char *ps = tz_targ(tool, call, "p");
    double p = tz_targ_double(tool, call, "p", 0);
    if (ps && !(p >= 0 && p <= 1))
        return traza_err_set(err, TRAZA_E_USAGE, "option 'p' must be between 0 and 1 (got %s)", ps);
    traza_trace *t = traza_trace_open(call->ws, call->trace, TRAZA_OPEN_WRITE, err);
    if (!t)
        return -1;
    int rc = -1;
    int32_t *prods = NULL;
    size_t nprods = 0;
    traza_agg_micro m;
    traza_agg_quality q;
    traza_agg_pentry *l = NULL;
    size_t nl = 0, prop = 0;
    int *parts = NULL;
    traza_annotation *ann = NULL;
    tz_buf b, fname, fparams;
    tz_buf_init(&b);
    tz_buf_init(&fname);
    tz_buf_init(&fparams);
    tz_filter_args tf;
    tz_filter_args_init(&tf);
    memset(&m, 0, sizeof m);
    memset(&q, 0, sizeof q);
    int64_t from = 0, to = 0;
    int hf = tz_targ_instant(tool, call, t, "from", &from, err), ht = tz_targ_instant(tool, call, t, "to", &to, err);
    if (hf < 0 || ht < 0)
        goto done;
    if (!hf)
        from = traza_trace_info_of(t)->min_ts;
    if (!ht)
        to = traza_trace_info_of(t)->max_ts;
    const char *pset = tz_targ(tool, call, "producers");
    if (pset && traza_result_producer_ids(t, pset, &prods, &nprods, err) < 0)
        goto done;
    tf.f.has_from = tf.f.has_to = 1;
    tf.f.from = from;
    tf.f.to = to;
    if (tz_filter_args_read(tool, call, t, prods, nprods, &tf, err) < 0)
        goto done;
    if (traza_agg_micro_build(t, &tf.f, (size_t)slices, (traza_agg_model)model, &m, err) < 0)
        goto done;
    if (tz_targ_bool(tool, call, "normalize"))
        traza_agg_micro_normalize(&m);
    const char *micro_out = tz_targ(tool, call, "micro-out");
    if (micro_out && write_micro(micro_out, &m, err) < 0)
        goto done;
    char name[300], params[300];
    const char *save = tz_targ(tool, call, "save");
    /* the default name tells the inputs that shape the result (the producer set and
     * the filter too); the params hold every one, so that the same run again is told
     * from another */
    tz_filter_args_text(call, ":", NULL, &fname);
    tz_filter_args_text(call, " ", NULL, &fparams);
    if (fname.oom || fparams.oom) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        goto done;
    }
    snprintf(name, sizeof name, "aggregate%s:%s:%zu%s%.100s%.150s", tz_targ_bool(tool, call, "spatial") ? ":spatial" : "",
             traza_agg_model_name((traza_agg_model)model), m.nslices, pset ? ":" : "", pset ? pset : "", fname.s ? fname.s : "");
    if (save)
        snprintf(name, sizeof name, "%s", save);
    snprintf(params, sizeof params, "slices=%zu model=%s from=%lld to=%lld normalize=%d spatial=%d%s%.100s%.150s", m.nslices,
             traza_agg_model_name((traza_agg_model)model), (long long)from, (long long)to, tz_targ_bool(tool, call, "normalize"),
             tz_targ_bool(tool, call, "spatial"), pset ? " producers=" : "", pset ? pset : "", fparams.s ? fparams.s : "");
    if (tz_targ_bool(tool, call, "spatial")) {
        rc = run_spatial(tool, call, t, &m, ps ? p : -1, name, params, err);
        goto done;
    }
    if (traza_agg_qualities_bounded(&m, TRAZA_AGG_MAX_UNITS, &q, err) < 0)
        goto done;
    /* one p asked (and no list to print or draw): no list */
    if ((!ps || tz_targ_bool(tool, call, "list-p") || tz_targ(tool, call, "svg")) &&
        traza_agg_plist(&q, tz_targ_double(tool, call, "threshold", 0.001), &l, &nl, &prop, err) < 0)
        goto done;
    if (!ps)
        p = l[prop].p;
    size_t n = q.n; /* units (q.unit: groups of slices) */
    parts = malloc(m.nslices * sizeof *parts);
    if (!parts) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        goto done;
    }
    double g, lo;
    size_t np = traza_agg_best(&q, p, parts, &g, &lo);
    ann = calloc(np, sizeof *ann);
    if (!ann) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        goto done;
    }
    size_t first = 0, pi = 0;
    size_t *pf = malloc(np * 2 * sizeof *pf);
    if (!pf) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        goto done;
    }
    for (size_t k = 1; k <= n; k++)
        if (k == n || parts[k] != parts[first]) {
            pf[2 * pi] = first;
            pf[2 * pi + 1] = k - 1;
            ann[pi].key = "part";
            ann[pi].value.kind = TRAZA_PT_INT;
            ann[pi].value.i = (int64_t)pi;
            ann[pi].has_range = 1;
            ann[pi].from = slice_ts(&m, UNIT(first));
            ann[pi].to = slice_ts(&m, UNIT(k));
            pi++;
            first = k;
        }
    char inputs[420];
    traza_result_meta meta = {name, tool->name, params, tz_targ_bool(tool, call, "replace"), agg_inputs(tool, call, inputs, sizeof inputs)};
    if (traza_result_save_annotations(t, &meta, ann, np, err) < 0) {
        free(pf);
        goto done;
    }
    if (q.unit && !call->json)
        tz_buf_printf(&b, "note: %zu slices searched in %zu units of %zu-%zu consecutive slices (parts cut only between "
                          "units; qualities exact): the search grows as units^2 in memory and units^3 in time\n",
                      m.nslices, n, m.nslices / n, (m.nslices + n - 1) / n);
    if (tz_targ_bool(tool, call, "list-p")) {
        if (call->json) {
            json_plist(&b, l, nl, n);
        } else {
            tz_buf_printf(&b, "%zu meaningful p values (%zu slices, model %s, %zu series); proposed p = %.4f\n", nl, n,
                          traza_agg_model_name((traza_agg_model)model), m.nseries, l[prop].p);
            tz_buf_printf(&b, "%10s %14s %14s %6s  partition\n", "p", "gain", "loss", "parts");
            for (size_t i = 0; i < nl; i++) {
                tz_buf_printf(&b, "%10.4f %14.6g %14.6g %6zu  ", l[i].p, l[i].gain, l[i].loss, l[i].nparts);
                for (size_t k = 0; k < n && k < 64; k++)
                    tz_buf_printf(&b, "%s%d", k ? " " : "", l[i].parts[k]);
                tz_buf_puts(&b, n > 64 ? " ...\n" : "\n");
            }
        }
    } else if (call->json) {
        tz_buf_puts(&b, "{\"p\": ");
        tz_json_num(&b, p);
        if (q.unit)
            tz_buf_printf(&b, ", \"units\": %zu", n);
        tz_buf_puts(&b, ", \"gain\": ");
        tz_json_num(&b, g);
        tz_buf_puts(&b, ", \"loss\": ");
        tz_json_num(&b, lo);
        tz_buf_puts(&b, ", \"parts\": [");
        for (size_t i = 0; i < np; i++) {
            size_t a = pf[2 * i], z = pf[2 * i + 1];
            tz_buf_printf(&b, "%s{\"first\": %zu, \"last\": %zu, \"from\": %lld, \"to\": %lld, \"gain\": ", i ? ", " : "", UNIT(a), UNIT(z + 1) - 1,
                          (long long)ann[i].from, (long long)ann[i].to);
            tz_json_num(&b, q.gain[a * n + z]);
            tz_buf_puts(&b, ", \"loss\": ");
            tz_json_num(&b, q.loss[a * n + z]);
            tz_buf_puts(&b, ", \"total\": ");
            tz_json_num(&b, part_total(&m, UNIT(a), UNIT(z + 1)));
            tz_buf_putc(&b, '}');
        }
        tz_buf_puts(&b, "]}\n");
    } else {
        tz_buf_printf(&b, "%zu slices of [%lld, %lld], model %s, %zu series\n", m.nslices, (long long)m.t0, (long long)m.t1,
                      traza_agg_model_name((traza_agg_model)model), m.nseries);
        tz_buf_printf(&b, "p = %.4f%s: %zu parts, gain %.6g, loss %.6g, saved as '%s'\n", p, ps ? "" : " (proposed)", np, g, lo, name);
        tz_buf_printf(&b, "%5s %8s %20s %20s %14s %14s\n", "part", "slices", "from", "to", "gain", "loss");
        for (size_t i = 0; i < np; i++) {
            size_t a = pf[2 * i], z = pf[2 * i + 1];
            tz_buf_printf(&b, "%5zu %3zu-%-4zu %20lld %20lld %14.6g %14.6g\n", i, UNIT(a), UNIT(z + 1) - 1, (long long)ann[i].from,
                          (long long)ann[i].to, q.gain[a * n + z], q.loss[a * n + z]);
        }
    }
    free(pf);
    if (b.oom) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        goto done;
    }
    traza_tool_printf(call, "%s", b.s ? b.s : "");
    const char *svg = tz_targ(tool, call, "svg");
    for (size_t k = n; k-- > 0;) /* per slice, for the drawing */
        for (size_t f = UNIT(k + 1); f-- > UNIT(k);)
            parts[f] = parts[k];
    if (svg && draw(svg, t, &m, parts, np, l, nl, p, err) < 0)
        goto done;
    rc = 0;
done:
    tz_buf_free(&b);
    tz_buf_free(&fname);
    tz_buf_free(&fparams);
    tz_filter_args_free(&tf);
    free(ann);
    free(parts);
    free(prods);
    traza_agg_plist_free(l, nl);
    traza_agg_quality_free(&q);
    traza_agg_micro_free(&m);
    traza_trace_close(t);
    return rc;
}

const traza_tool tz_tool_aggregate = {
    "aggregate", "best-cut-partition time-slice aggregation (FrameSoC/Ocelotl), temporal or spatio-temporal",
    TRAZA_TOOL_ANALYSIS, aggregate_opts, sizeof aggregate_opts / sizeof aggregate_opts[0], run_aggregate, NULL, "builtin",
};
