/* A diff as JSON: the rows with every statistic, and the time ranges of changes. */
#include "traza/analysis.h"
#include "traza/diff.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>

static void json_side(tz_buf *b, const traza_diff_side *s)
{
    tz_buf_printf(b, "{\"runs\":%zu,\"count\":%lld,\"rate\":", s->runs, (long long)s->count);
    tz_json_num(b, s->rate);
    tz_buf_printf(b, ",\"durations\":%lld,\"samples\":%zu,\"median\":", (long long)s->ndur, s->nsamples);
    tz_json_num(b, s->median);
    tz_buf_puts(b, ",\"p90\":");
    tz_json_num(b, s->p90);
    tz_buf_puts(b, ",\"p99\":");
    tz_json_num(b, s->p99);
    tz_buf_puts(b, ",\"total\":");
    tz_json_num(b, s->total);
    tz_buf_putc(b, '}');
}

static void json_field(tz_buf *b, const char *name, double v)
{
    tz_buf_printf(b, ",\"%s\":", name);
    tz_json_num(b, v);
}

static void json_names(tz_buf *b, traza_trace *const *t, size_t n)
{
    tz_buf_putc(b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            tz_buf_putc(b, ',');
        tz_json_str(b, traza_trace_info_of(t[i])->name);
    }
    tz_buf_putc(b, ']');
}

/* Passes what o holds to fn and frees o: 0, -1 when out of memory, or fn's nonzero return. */
static int pass(tz_buf *o, traza_write_fn fn, void *arg)
{
    int rc = o->oom ? -1 : fn(arg, o->s ? o->s : "", o->len);
    tz_buf_free(o);
    return rc;
}

/* pass, with err set when it fails. */
static int pass_err(tz_buf *o, traza_write_fn fn, void *arg, traza_err *err)
{
    int oom = o->oom;
    if (pass(o, fn, arg) == 0)
        return 0;
    return oom ? traza_err_set(err, TRAZA_E_NOMEM, "out of memory") : traza_err_set(err, TRAZA_E_IO, "writing the JSON failed");
}

int traza_diff_json_fields(traza_write_fn fn, void *arg, traza_trace *const *ta, traza_trace *const *tb, const traza_diff *d,
                           const unsigned char *failed)
{
    tz_buf o;
    tz_buf_init(&o);
    tz_buf *b = &o;
    tz_buf_puts(b, "\"a\":");
    json_names(b, ta, d->runs_a);
    tz_buf_puts(b, ",\"b\":");
    json_names(b, tb, d->runs_b);
    tz_buf_printf(b, ",\"by\":\"%s\",\"correction\":\"%s\",\"alpha\":",
                  d->opts.by == TRAZA_DIFF_BY_PRODUCER ? "producer" : d->opts.by == TRAZA_DIFF_BY_FUNCTION ? "function" : "type",
                  d->opts.correction == TRAZA_DIFF_BH ? "bh" : "holm");
    tz_json_num(b, d->opts.alpha);
    json_field(b, "span_a", d->span_a);
    json_field(b, "span_b", d->span_b);
    tz_buf_printf(b, ",\"tests\":%zu,\"rows\":[", d->ntests);
    for (size_t i = 0; i < d->nrows; i++) {
        const traza_diff_row *r = &d->rows[i];
        tz_buf_puts(b, i ? ",{\"name\":" : "{\"name\":");
        tz_json_str(b, r->name);
        tz_buf_printf(b, ",\"kind\":\"%s\",\"a\":", traza_diff_kind_name(r->kind));
        json_side(b, &r->a);
        tz_buf_puts(b, ",\"b\":");
        json_side(b, &r->b);
        json_field(b, "count_ratio", r->count_ratio);
        json_field(b, "shift", r->shift);
        json_field(b, "shift_lo", r->shift_lo);
        json_field(b, "shift_hi", r->shift_hi);
        json_field(b, "rel_shift", r->rel_shift);
        tz_buf_printf(b, ",\"subsampled\":%s", r->subsampled ? "true" : "false");
        tz_buf_printf(b, ",\"test\":\"%s\"", traza_diff_test_name(r->test));
        json_field(b, "stat", r->stat);
        json_field(b, "df", r->df);
        json_field(b, "p", r->p);
        json_field(b, "p_holm", r->p_holm);
        json_field(b, "q", r->q);
        tz_buf_printf(b, ",\"rate_test\":\"%s\"", traza_diff_test_name(r->rate_test));
        json_field(b, "rate_stat", r->rate_stat);
        json_field(b, "rate_df", r->rate_df);
        json_field(b, "rate_p", r->rate_p);
        json_field(b, "rate_p_holm", r->rate_p_holm);
        json_field(b, "rate_q", r->rate_q);
        json_field(b, "p_adj", r->p_adj);
        tz_buf_printf(b, ",\"verdict\":\"%s\",\"failed\":%s}", traza_diff_verdict_name(r->verdict),
                      failed && failed[i] ? "true" : "false");
    }
    tz_buf_puts(b, "],\"failed\":[");
    for (size_t i = 0, k = 0; failed && i < d->nrows; i++)
        if (failed[i]) {
            if (k++)
                tz_buf_putc(b, ',');
            tz_json_str(b, d->rows[i].name);
        }
    tz_buf_putc(b, ']');
    return pass(&o, fn, arg);
}

int traza_diff_each_ranges(traza_trace *const *a, size_t na, traza_trace *const *b, size_t nb, const traza_diff *d,
                           traza_diff_ranges_fn each, void *ctx, traza_err *err)
{
    /* the slower and faster rows of durations, each run of B read once for all */
    traza_diff_range_row *rows = malloc((d->nrows ? d->nrows : 1) * sizeof *rows);
    size_t *idx = malloc((d->nrows ? d->nrows : 1) * sizeof *idx), n = 0;
    traza_diff_ranges_of *got = NULL;
    int rc = rows && idx ? 0 : traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && i < d->nrows; i++) {
        const traza_diff_row *r = &d->rows[i];
        if (r->kind == TRAZA_DIFF_PATH || (r->verdict != TRAZA_DIFF_SLOWER && r->verdict != TRAZA_DIFF_FASTER))
            continue;
        rows[n] = (traza_diff_range_row){r->kind, r->name};
        idx[n++] = i;
    }
    if (rc == 0 && n && !(got = calloc(n * nb, sizeof *got)))
        rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    for (size_t run = 0; rc == 0 && n && run < nb; run++)
        rc = traza_diff_ranges_rows(a, na, b[run], d->opts.by, rows, n, TRAZA_DIFF_RANGE_SLICES, TRAZA_RULE_MAD, 3, got + run * n, err);
    for (size_t k = 0; rc == 0 && k < n; k++) /* by row, then by run */
        for (size_t run = 0; run < nb; run++) {
            const traza_diff_ranges_of *g = &got[run * n + k];
            each(ctx, &d->rows[idx[k]], nb > 1 ? (int)run : -1, g->ranges, g->n, g->lo, g->hi);
        }
    for (size_t i = 0; got && i < n * nb; i++)
        free(got[i].ranges);
    free(got);
    free(rows);
    free(idx);
    return rc;
}

struct json_ctx {
    tz_buf *o;
    size_t nrow;
};

static void json_row_ranges(void *ctx, const traza_diff_row *r, int run, const traza_diff_range *g, size_t n, double lo, double hi)
{
    struct json_ctx *c = ctx;
    tz_buf *o = c->o;
    tz_buf_puts(o, c->nrow++ ? ",{\"row\":" : "{\"row\":");
    tz_json_str(o, r->name);
    tz_buf_printf(o, ",\"kind\":\"%s\"", traza_diff_kind_name(r->kind));
    if (run >= 0)
        tz_buf_printf(o, ",\"run\":%d", run);
    json_field(o, "lo", lo);
    json_field(o, "hi", hi);
    tz_buf_puts(o, ",\"ranges\":[");
    for (size_t k = 0; k < n; k++) {
        tz_buf_puts(o, k ? ",{\"from\":" : "{\"from\":");
        tz_json_num(o, g[k].from);
        json_field(o, "to", g[k].to);
        tz_buf_printf(o, ",\"events\":%lld", (long long)g[k].events);
        json_field(o, "median", g[k].median);
        tz_buf_printf(o, ",\"direction\":\"%s\"}", g[k].slower ? "slower" : "faster");
    }
    tz_buf_puts(o, "]}");
}

int traza_diff_json_ranges(traza_write_fn fn, void *arg, traza_trace *const *a, size_t na, traza_trace *const *b, size_t nb,
                           const traza_diff *d, traza_err *err)
{
    tz_buf o;
    tz_buf_init(&o);
    struct json_ctx c = {&o, 0};
    tz_buf_putc(&o, '[');
    if (traza_diff_each_ranges(a, na, b, nb, d, json_row_ranges, &c, err) < 0) {
        tz_buf_free(&o);
        return -1;
    }
    tz_buf_putc(&o, ']');
    return pass_err(&o, fn, arg, err);
}

/* A share with 9 significant digits, null when it is not finite (JSON has no NaN). */
static void share(tz_buf *b, const char *key, double v)
{
    tz_buf_printf(b, ",\"%s\":", key);
    if (isfinite(v))
        tz_buf_printf(b, "%.9g", v);
    else
        tz_buf_puts(b, "null");
}

static void json_counts(tz_buf *b, const traza_diff_counts *c)
{
    tz_buf_putc(b, '[');
    for (size_t i = 0; i < c->nrows; i++) {
        const traza_diff_count *r = &c->rows[i];
        tz_buf_puts(b, i ? ",{" : "{");
        if (r->name) {
            tz_buf_puts(b, "\"pattern\":");
            tz_json_str(b, r->name);
            tz_buf_printf(b, ",\"length\":%llu", (unsigned long long)r->length);
            share(b, "rate_a", r->share_a);
            share(b, "rate_b", r->share_b);
        } else {
            tz_buf_printf(b, "\"cycle_a\":%zu,\"cycle_b\":%zu,\"hash\":\"%016llx\",\"length\":%llu", r->index_a, r->index_b,
                          (unsigned long long)r->hash, (unsigned long long)r->length);
            share(b, "share_a", r->share_a);
            share(b, "share_b", r->share_b);
        }
        tz_buf_printf(b, ",\"count_a\":%lld,\"count_b\":%lld,", (long long)r->count_a, (long long)r->count_b);
        tz_buf_printf(b, !isfinite(r->p) ? "\"p\":null," : "\"p\":%.6g,", r->p);
        tz_buf_printf(b, !isfinite(r->p_adj) ? "\"p_adj\":null," : "\"p_adj\":%.6g,", r->p_adj);
        tz_buf_printf(b, "\"verdict\":\"%s\"}", traza_diff_verdict_name(r->verdict));
    }
    tz_buf_putc(b, ']');
}

int traza_diff_json_counts(traza_write_fn fn, void *arg, const traza_diff_counts *c)
{
    tz_buf o;
    tz_buf_init(&o);
    json_counts(&o, c);
    return pass(&o, fn, arg);
}

int traza_diff_json_structure(traza_write_fn fn, void *arg, traza_trace *a, traza_trace *b, const traza_diff *by_fn,
                              traza_err *err)
{
    traza_diff_counts c;
    if (traza_diff_patterns(a, b, NULL, 0, TRAZA_DIFF_AUTO_PAIRS, 1, by_fn->opts.correction, by_fn->opts.alpha, &c, err) < 0)
        return -1;
    tz_buf out;
    tz_buf_init(&out);
    tz_buf *o = &out;
    tz_buf_puts(o, "{\"paths\":[");
    for (size_t i = 0, k = 0; i < by_fn->nrows; i++) {
        const traza_diff_row *r = &by_fn->rows[i];
        if (r->kind != TRAZA_DIFF_PATH)
            continue;
        tz_buf_puts(o, k++ ? ",{\"path\":" : "{\"path\":");
        tz_json_str(o, r->name);
        tz_buf_printf(o, ",\"side\":\"%s\",\"calls\":%lld}", r->a.count ? "base" : "new",
                      (long long)(r->a.count ? r->a.count : r->b.count));
    }
    tz_buf_puts(o, "],\"patterns\":");
    json_counts(o, &c);
    tz_buf_printf(o, ",\"patterns_changed\":%zu}", c.changed);
    traza_diff_counts_free(&c);
    return pass_err(&out, fn, arg, err);
}
