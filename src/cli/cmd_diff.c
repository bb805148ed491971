/* traza diff A B | --base A1 A2 .. --new B1 B2 .. [--by type|producer|function] [--top N]
 *                [--alpha P] [--correction holm|bh] [--fail-on EXPR] [--json]
 *                [--flame OUT.svg [--flame-by self|total]] [--patterns] [--pattern P]..
 *   traza diff A.tzg B.tzg [--grammar] [--loop-header ADDR|auto] [--elf A.elf --elf B.elf] */
#include "cli/cli.h"
#include "util/util.h"
#include "cli/diff_structure.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The exit status when a row matches --fail-on. */
enum { EXIT_DIFF_FAILED = 3 };

const char cmd_diff_usage[] =
    "usage: traza diff A B [--by type|producer|function] [--top N] [--alpha P]\n"
    "                  [--correction holm|bh] [--fail-on EXPR] [--json]\n"
    "                  [--flame OUT.svg [--flame-by self|total]] [--ranges]\n"
    "                  [--patterns] [--pattern A,B[,C..]]..\n"
    "       traza diff --base A1 A2 [A3..] --new B1 B2 [B3..] [options]\n"
    "       traza diff A.tzg B.tzg [--grammar] [--loop-header ADDR|auto] [--elf A.elf --elf B.elf]\n"
    "                  [--top N] [--alpha P] [--json]\n"
    "\n"
    "What changed from trace A (the base) to trace B (the new run), per row: counts,\n"
    "rates, duration median/p90/p99/total; a Mann-Whitney U test on the durations, a\n"
    "binomial test on the counts given the spans, the Hodges-Lehmann shift of the\n"
    "durations with a 95 % bootstrap interval; p values corrected for the number of\n"
    "tests. Rows are ranked by corrected p, then by |relative shift|. With several runs\n"
    "per side the runs are the units: Welch's t on the runs' medians and rates, and a\n"
    "bootstrap of runs for the interval. See doc/diff.md.\n"
    "  --base A1 A2 ..     the base runs (two or more); the traces up to --new\n"
    "  --new B1 B2 ..      the new runs (two or more); the traces after it\n"
    "  --by K              rows: type (event type, the default), producer (event type on\n"
    "                      each producer) or function (per function of a call-stack trace,\n"
    "                      calls with their total times and self times; call paths found\n"
    "                      on one side only as 'new path' / 'gone path' rows)\n"
    "  --top N             at most N rows in the text table (default 20)\n"
    "  --alpha P           corrected p below which a row's verdict is a change (default 0.01)\n"
    "  --correction C      holm (family-wise, the default) or bh (Benjamini-Hochberg q)\n"
    "  --fail-on EXPR      exit with status 3 when a row matches EXPR, e.g.\n"
    "                      'shift > 5% and p < 0.01': conditions FIELD OP VALUE joined by and/or\n"
    "                      (and binds first), OP one of < <= > >=; fields: shift (relative, %),\n"
    "                      abs_shift (a time: 2us), p, p_holm, q (durations), rate_p, rate_q\n"
    "                      (counts), count_ratio (rate of B / rate of A)\n"
    "  --json              {\"a\", \"b\", \"tests\", \"rows\": [every row, every field], \"failed\"}\n"
    "  --flame OUT.svg     also write a differential flame graph of the calls (A B only):\n"
    "                      B's call tree, each frame red when slower than in A, blue when\n"
    "                      faster (intensity: the relative change, full at 100 %), purple\n"
    "                      when only in B; its tooltip the times of A and B, the change\n"
    "  --flame-by M        the time that colours a frame: self (the default) or total\n"
    "  --ranges            where in time each slower/faster row (a function's calls or self\n"
    "                      time with --by function) shows, in B or in each run of --new: the\n"
    "                      slices (1/20 of B's span) whose median duration is outside A's\n"
    "                      median +- 3 MAD, merged, from B's start (JSON: \"ranges\")\n"
    "  --patterns          also the sequence-search patterns whose instance counts changed (A B):\n"
    "                      the 20 most frequent pairs of consecutive event types on a producer\n"
    "                      of each side, searched on both; a rate test per pattern, corrected\n"
    "                      over the patterns (JSON: \"patterns\")\n"
    "  --pattern A,B[,C..] a pattern of event types to search instead (repeatable; implies --patterns)\n"
    "  --grammar           A and B are grammars (.tzg of PC traces; implied when both names end in\n"
    "                      .tzg): the cycle types only in A (gone), only in B (new), and those whose\n"
    "                      count changed (a rate test on the counts given each side's number of\n"
    "                      cycles, corrected), ranked by the change of their share of the trace;\n"
    "                      read from the grammars without decompressing them\n"
    "  --loop-header ADDR  the loop header that cuts both sequences into cycles, an address of A\n"
    "                      or auto (chosen on A: traza grammar compress --loop-header auto);\n"
    "                      default: each file's stored one (B: A's when it has none)\n"
    "  --elf A.elf --elf B.elf  the two programs: addresses compared as function + offset, so\n"
    "                      that a function moved by another's change keeps its cycle types; the\n"
    "                      loop header is A's, carried to B by function + offset\n";

/* --flame, --flame-by, --ranges and the structure options */
typedef struct flame_opts {
    const char *out;
    traza_diff_metric metric;
    int ranges;
    int grammar, patterns;
    const char *loop_header;
    const char *elf[2];   /* --elf: A's program, then B's */
    int nelf;
    const char **pattern; /* the --pattern specs */
    size_t npattern;
} flame_opts;

/* ---- --fail-on ------------------------------------------------------------------- */

enum { F_SHIFT, F_ABS_SHIFT, F_P, F_P_HOLM, F_Q, F_RATE_P, F_RATE_Q, F_COUNT_RATIO };
static const char *const field_names[] = {"shift", "abs_shift", "p", "p_holm", "q", "rate_p", "rate_q", "count_ratio"};
enum { OP_LT, OP_LE, OP_GT, OP_GE };

typedef struct fail_cond {
    int field, op;
    double value;
    int group; /* conditions of one group are and-ed; groups are or-ed */
} fail_cond;

typedef struct fail_expr {
    fail_cond c[32];
    size_t n;
} fail_expr;

/* The next word of s at *pos: a name, an operator, or a value (up to a blank or an
 * operator character). */
static size_t next_word(const char *s, size_t *pos, const char **w)
{
    while (isspace((unsigned char)s[*pos]))
        (*pos)++;
    *w = s + *pos;
    size_t n = 0;
    if (strchr("<>=!", s[*pos]) && s[*pos])
        while (s[*pos + n] && strchr("<>=!", s[*pos + n]))
            n++;
    else
        while (s[*pos + n] && !isspace((unsigned char)s[*pos + n]) && !strchr("<>=!", s[*pos + n]))
            n++;
    *pos += n;
    return n;
}

static int parse_fail_on(const char *s, fail_expr *e)
{
    memset(e, 0, sizeof *e);
    size_t pos = 0, n;
    const char *w;
    int group = 0;
    for (;;) {
        if (e->n == sizeof e->c / sizeof *e->c)
            return cli_usage_error("diff", "--fail-on: more than %zu conditions", sizeof e->c / sizeof *e->c);
        fail_cond *c = &e->c[e->n];
        c->group = group;
        n = next_word(s, &pos, &w);
        c->field = -1;
        for (int k = 0; k < (int)(sizeof field_names / sizeof *field_names); k++)
            if (strlen(field_names[k]) == n && strncmp(w, field_names[k], n) == 0)
                c->field = k;
        if (c->field < 0)
            return cli_usage_error("diff", "--fail-on: expected a field (shift, abs_shift, p, p_holm, q, rate_p, rate_q, "
                                           "count_ratio) at offset %zu, found '%.*s'", (size_t)(w - s), (int)n, w);
        n = next_word(s, &pos, &w);
        if (n == 1 && *w == '<') c->op = OP_LT;
        else if (n == 2 && !strncmp(w, "<=", 2)) c->op = OP_LE;
        else if (n == 1 && *w == '>') c->op = OP_GT;
        else if (n == 2 && !strncmp(w, ">=", 2)) c->op = OP_GE;
        else
            return cli_usage_error("diff", "--fail-on: expected <, <=, > or >= after %s at offset %zu, found '%.*s'",
                                   field_names[c->field], (size_t)(w - s), (int)n, w);
        n = next_word(s, &pos, &w);
        char val[64];
        if (n == 0 || n >= sizeof val)
            return cli_usage_error("diff", "--fail-on: expected a value after %s at offset %zu", field_names[c->field], (size_t)(w - s));
        memcpy(val, w, n);
        val[n] = 0;
        int ok;
        if (c->field == F_ABS_SHIFT) {
            int64_t ps;
            traza_err err;
            ok = !isdigit((unsigned char)val[n - 1]) && traza_time_parse(val, -12, &ps, &err) == 0;
            c->value = (double)ps * 1e-12;
        } else if (c->field == F_SHIFT && val[n - 1] == '%') {
            ok = tz_parse_double(val, n - 1, &c->value) == 0;
            c->value /= 100;
        } else {
            ok = tz_parse_double(val, n, &c->value) == 0;
        }
        if (!ok)
            return cli_usage_error("diff", "--fail-on: %s expects %s, found '%s'", field_names[c->field],
                                   c->field == F_ABS_SHIFT ? "a time with its unit (2us, 1.5ms)"
                                   : c->field == F_SHIFT  ? "a percentage (5%) or a fraction (0.05)"
                                                          : "a number",
                                   val);
        e->n++;
        n = next_word(s, &pos, &w);
        if (n == 0)
            return 0;
        if (n == 3 && !strncmp(w, "and", 3))
            continue;
        if (n == 2 && !strncmp(w, "or", 2)) {
            group++;
            continue;
        }
        return cli_usage_error("diff", "--fail-on: expected 'and', 'or' or the end at offset %zu, found '%.*s'", (size_t)(w - s),
                               (int)n, w);
    }
}

static double field_of(const traza_diff_row *r, int f)
{
    switch (f) {
    case F_SHIFT: return r->rel_shift;
    case F_ABS_SHIFT: return r->shift;
    case F_P: return r->p;
    case F_P_HOLM: return r->p_holm;
    case F_Q: return r->q;
    case F_RATE_P: return r->rate_p;
    case F_RATE_Q: return r->rate_q;
    default: return r->count_ratio;
    }
}

/* Whether the row matches: a condition on a value the row has not (NaN) is false. */
static int fail_match(const fail_expr *e, const traza_diff_row *r)
{
    for (size_t i = 0; i < e->n;) {
        int all = 1, g = e->c[i].group;
        for (; i < e->n && e->c[i].group == g; i++) {
            double v = field_of(r, e->c[i].field), x = e->c[i].value;
            int ok = e->c[i].op == OP_LT ? v < x : e->c[i].op == OP_LE ? v <= x : e->c[i].op == OP_GT ? v > x : v >= x;
            all &= ok;
        }
        if (all)
            return 1;
    }
    return 0;
}

/* ---- output -------------------------------------------------------------------- */

static void print_json(tz_buf *b, traza_trace *const *ta, traza_trace *const *tb, const traza_diff *d, const unsigned char *failed,
                       const char *ranges, const char *patterns)
{
    tz_buf_putc(b, '{');
    if (traza_diff_json_fields(tz_buf_sink, b, ta, tb, d, failed) != 0)
        b->oom = 1;
    if (ranges)
        tz_buf_printf(b, ",\"ranges\":%s", ranges);
    if (patterns)
        tz_buf_printf(b, ",\"patterns\":%s", patterns);
    tz_buf_puts(b, "}\n");
}

/* A side's name: the trace, or the first and how many runs. */
static const char *side_name(traza_trace *const *t, size_t n, char *buf, size_t size)
{
    if (n == 1)
        snprintf(buf, size, "%s", traza_trace_info_of(t[0])->name);
    else
        snprintf(buf, size, "%s +%zu runs", traza_trace_info_of(t[0])->name, n - 1);
    return buf;
}

/* A row's label: the name, "(self)" after a function's self-time row. */
static const char *row_label(const traza_diff_row *r, char *buf, size_t size)
{
    snprintf(buf, size, r->kind == TRAZA_DIFF_SELF ? "%s (self)" : "%s", r->name);
    return buf;
}

static void print_text(tz_buf *b, traza_trace *const *ta, traza_trace *const *tb, const traza_diff *d, long top,
                       const unsigned char *failed)
{
    char x[32], y[32], z[32], lo[32], hi[32], na[300], nb[300], label[600];
    int subsampled = 0;
    tz_buf_printf(b, "A: %s (%s)  B: %s (%s)  %zu rows, %zu tests, %s-corrected p < %g is a change\n",
                  side_name(ta, d->runs_a, na, sizeof na), tz_secs_str(d->span_a, x, sizeof x), side_name(tb, d->runs_b, nb, sizeof nb),
                  tz_secs_str(d->span_b, y, sizeof y), d->nrows, d->ntests, d->opts.correction == TRAZA_DIFF_BH ? "BH" : "Holm",
                  d->opts.alpha);
    tz_buf_printf(b, "%s\n", d->runs_a > 1 ? "(several runs: Welch's t on the runs' medians and rates; counts and medians of every run pooled)"
                                          : "");
    tz_buf_printf(b, "%-28s %9s %9s %7s %10s %10s %10s %23s %8s %9s  %s\n", "row", "count A", "count B", "rate x", "median A",
                  "median B", "shift", "95% interval", "rel", "p adj", "verdict");
    for (size_t i = 0; i < d->nrows && (long)i < top; i++) {
        const traza_diff_row *r = &d->rows[i];
        char ratio[32], rel[32], interval[64];
        snprintf(ratio, sizeof ratio, isfinite(r->count_ratio) ? "%.3g" : "-", r->count_ratio);
        snprintf(rel, sizeof rel, isnan(r->rel_shift) ? "-" : "%+.1f%%", r->rel_shift * 100);
        if (isnan(r->shift_lo))
            snprintf(interval, sizeof interval, "-");
        else
            snprintf(interval, sizeof interval, "[%s, %s]", tz_secs_str(r->shift_lo, lo, sizeof lo), tz_secs_str(r->shift_hi, hi, sizeof hi));
        tz_buf_printf(b, "%-28s %9lld %9lld %7s %10s %10s %10s %23s %8s %9.2g  %s%s\n", row_label(r, label, sizeof label),
                      (long long)r->a.count, (long long)r->b.count, ratio, tz_secs_str(r->a.median, x, sizeof x),
                      tz_secs_str(r->b.median, y, sizeof y), tz_secs_str(r->shift, z, sizeof z), interval, rel, r->p_adj,
                      traza_diff_verdict_name(r->verdict), failed && failed[i] ? "  FAIL" : "");
        subsampled |= r->subsampled;
    }
    if (subsampled)
        tz_buf_printf(b, "(shifts of rows with more than %zu durations on a side are estimated on %zu quantiles of each side)\n",
                      d->opts.hl_cap, d->opts.hl_cap);
    if (d->nrows > (size_t)top)
        tz_buf_printf(b, "(%zu more rows: --top or --json)\n", d->nrows - (size_t)top);
}

/* One row of the text of --ranges. */
static void text_row_ranges(void *ctx, const traza_diff_row *r, int run, const traza_diff_range *g, size_t n, double lo, double hi)
{
    tz_buf *o = ctx;
    char x[32], y[32], z[32], rn[32] = "";
    if (run >= 0)
        snprintf(rn, sizeof rn, " in B's run %d", run + 1);
    tz_buf_printf(o, "  %s%s%s (A's interval [%s, %s]):", r->name, r->kind == TRAZA_DIFF_SELF ? " (self)" : "", rn,
                  tz_secs_str(lo, x, sizeof x), tz_secs_str(hi, y, sizeof y));
    for (size_t k = 0; k < n; k++)
        tz_buf_printf(o, "%s %s", k ? "," : "", tz_secs_str(g[k].from, x, sizeof x)),
            tz_buf_printf(o, " - %s %s (%lld events, median %s)", tz_secs_str(g[k].to, y, sizeof y), g[k].slower ? "slower" : "faster",
                          (long long)g[k].events, tz_secs_str(g[k].median, z, sizeof z));
    tz_buf_puts(o, n ? "\n" : " no slice outside it\n");
}

/* Where in time each slower or faster row of durations shows (--ranges): as
 * the JSON of traza_diff_json_ranges when json, else text lines. NULL when out of memory
 * or err set. */
static char *where_in_time(traza_trace *const *a, size_t na, traza_trace *const *b, size_t nb, const traza_diff *d, int json,
                           traza_err *err)
{
    tz_buf o;
    tz_buf_init(&o);
    int rc;
    if (json) {
        rc = traza_diff_json_ranges(tz_buf_sink, &o, a, na, b, nb, d, err);
    } else {
        tz_buf_printf(&o, "\nwhere in time (B's slices of 1/%d of its span whose median is outside A's interval, median +- 3 MAD%s):\n",
                      TRAZA_DIFF_RANGE_SLICES, na > 1 ? ", A's runs pooled" : "");
        rc = traza_diff_each_ranges(a, na, b, nb, d, text_row_ranges, &o, err);
    }
    char *s = rc < 0 ? NULL : tz_buf_take(&o);
    if (rc < 0)
        tz_buf_free(&o);
    else if (!s)
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    return s;
}

/* Opens n traces into t; 0, or -1 (the opened ones closed again). */
static int open_traces(traza_cli *cli, const char **names, size_t n, traza_trace **t)
{
    for (size_t i = 0; i < n; i++)
        if (!(t[i] = cli_trace(cli, names[i], TRAZA_OPEN_READ))) {
            while (i-- > 0)
                traza_trace_close(t[i]);
            return -1;
        }
    return 0;
}

static int run_diff(traza_cli *cli, traza_trace *const *ta, size_t na, traza_trace *const *tb, size_t nb,
                    const traza_diff_opts *o, long top, const char *fail_on, const fail_expr *fe, const flame_opts *fl)
{
    traza_err err;
    traza_err_clear(&err);
    traza_diff d;
    if (traza_diff_compute_runs(ta, na, tb, nb, o, &d, &err) < 0)
        return cli_fail(cli, &err);
    int rc = EXIT_OK;
    unsigned char *failed = NULL;
    size_t nfailed = 0;
    if (fail_on) {
        failed = calloc(d.nrows ? d.nrows : 1, 1);
        if (!failed) {
            fputs("traza: out of memory\n", stderr);
            traza_diff_free(&d);
            return EXIT_FAIL;
        }
        for (size_t i = 0; i < d.nrows; i++)
            nfailed += failed[i] = (unsigned char)fail_match(fe, &d.rows[i]);
    }
    char *where = NULL, *pats = NULL;
    if ((fl->ranges && !(where = where_in_time(ta, na, tb, nb, &d, cli->json, &err))) ||
        (fl->patterns && !(pats = diff_patterns_section(ta[0], tb[0], fl->pattern, fl->npattern, o, cli->json, top, &err)))) {
        free(where);
        free(failed);
        traza_diff_free(&d);
        return cli_fail(cli, &err);
    }
    tz_buf b;
    tz_buf_init(&b);
    if (cli->json) {
        print_json(&b, ta, tb, &d, failed, where, pats);
    } else {
        print_text(&b, ta, tb, &d, top, failed);
        if (fail_on) {
            char label[600];
            tz_buf_printf(&b, "\n--fail-on '%s': %zu row%s failed%s", fail_on, nfailed, nfailed == 1 ? "" : "s", nfailed ? ":" : "");
            for (size_t i = 0, k = 0; i < d.nrows; i++)
                if (failed[i])
                    tz_buf_printf(&b, "%s %s", k++ ? "," : "", row_label(&d.rows[i], label, sizeof label));
            tz_buf_putc(&b, '\n');
        }
        if (where)
            tz_buf_puts(&b, where);
        if (pats)
            tz_buf_puts(&b, pats);
    }
    free(where);
    free(pats);
    fputs(b.s ? b.s : "", stdout);
    tz_buf_free(&b);
    if (nfailed)
        rc = EXIT_DIFF_FAILED;
    free(failed);
    traza_diff_free(&d);
    return rc;
}

/* Whether a name is a grammar file's. */
static int is_tzg(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && strcmp(name + n - 4, ".tzg") == 0;
}

/* The options into o, top, fail_on and fe; the trace names in order into names[0]
 * (A B), names[1] (after --base) and names[2] (after --new): getopt returns each as 1.
 * EXIT_OK to go on, 1 + an exit status to stop with it. */
static int parse_args(traza_cli *cli, int argc, char **argv, traza_diff_opts *o, long *top, const char **fail_on, fail_expr *fe,
                      const char ***names, size_t *nnames, flame_opts *fl)
{
    enum { O_BY = OPT_FIRST_FREE, O_TOP, O_ALPHA, O_CORR, O_FAIL, O_BASE, O_NEW, O_FLAME, O_FLAME_BY, O_RANGES, O_GRAMMAR, O_LH,
           O_PATTERNS, O_PATTERN, O_ELF };
    static const struct option longopts[] = {
        CLI_COMMON_LONGOPTS,
        {"by", required_argument, NULL, O_BY},
        {"top", required_argument, NULL, O_TOP},
        {"alpha", required_argument, NULL, O_ALPHA},
        {"correction", required_argument, NULL, O_CORR},
        {"fail-on", required_argument, NULL, O_FAIL},
        {"base", no_argument, NULL, O_BASE},
        {"new", no_argument, NULL, O_NEW},
        {"flame", required_argument, NULL, O_FLAME},
        {"flame-by", required_argument, NULL, O_FLAME_BY},
        {"ranges", no_argument, NULL, O_RANGES},
        {"grammar", no_argument, NULL, O_GRAMMAR},
        {"loop-header", required_argument, NULL, O_LH},
        {"elf", required_argument, NULL, O_ELF},
        {"patterns", no_argument, NULL, O_PATTERNS},
        {"pattern", required_argument, NULL, O_PATTERN},
        {NULL, 0, NULL, 0},
    };
    int side = 0, c;
    while ((c = cli_getopt(cli, argc, argv, "-:hqw:", longopts)) != -1) {
        char *end;
        switch (c) {
        case 1: names[side][nnames[side]++] = optarg; break;
        case O_BASE: side = 1; break;
        case O_NEW: side = 2; break;
        case O_BY:
            if (!strcmp(optarg, "type")) o->by = TRAZA_DIFF_BY_TYPE;
            else if (!strcmp(optarg, "producer")) o->by = TRAZA_DIFF_BY_PRODUCER;
            else if (!strcmp(optarg, "function")) o->by = TRAZA_DIFF_BY_FUNCTION;
            else return 1 + cli_usage_error("diff", "--by expects type, producer or function, got '%s'", optarg);
            break;
        case O_TOP:
            *top = strtol(optarg, &end, 10);
            if (*end || *top <= 0)
                return 1 + cli_usage_error("diff", "--top wants a positive number, got '%s'", optarg);
            break;
        case O_ALPHA:
            if (tz_parse_double(optarg, strlen(optarg), &o->alpha) < 0 || !(o->alpha > 0 && o->alpha < 1))
                return 1 + cli_usage_error("diff", "--alpha wants a number between 0 and 1, got '%s'", optarg);
            break;
        case O_CORR:
            if (!strcmp(optarg, "holm")) o->correction = TRAZA_DIFF_HOLM;
            else if (!strcmp(optarg, "bh")) o->correction = TRAZA_DIFF_BH;
            else return 1 + cli_usage_error("diff", "--correction expects holm or bh, got '%s'", optarg);
            break;
        case O_FLAME: fl->out = optarg; break;
        case O_RANGES: fl->ranges = 1; break;
        case O_GRAMMAR: fl->grammar = 1; break;
        case O_LH: fl->loop_header = optarg; break;
        case O_ELF:
            if (fl->nelf == 2)
                return 1 + cli_usage_error("diff", "--elf is given twice at most: A's program, then B's");
            fl->elf[fl->nelf++] = optarg;
            break;
        case O_PATTERNS: fl->patterns = 1; break;
        case O_PATTERN:
            fl->patterns = 1;
            fl->pattern[fl->npattern++] = optarg;
            break;
        case O_FLAME_BY:
            if (!strcmp(optarg, "self")) fl->metric = TRAZA_DIFF_METRIC_SELF;
            else if (!strcmp(optarg, "total")) fl->metric = TRAZA_DIFF_METRIC_TOTAL;
            else return 1 + cli_usage_error("diff", "--flame-by expects self or total, got '%s'", optarg);
            break;
        case O_FAIL:
            *fail_on = optarg;
            if (parse_fail_on(optarg, fe) != 0)
                return 1 + EXIT_USAGE;
            break;
        default: {
            int k = cli_common_opt(cli, "diff", c);
            if (k == -1) return 1 + EXIT_OK;
            if (k <= 0) return 1 + EXIT_USAGE;
        }
        }
    }
    if (nnames[1] || nnames[2] ? nnames[0] || nnames[1] < 2 || nnames[2] < 2 : nnames[0] != 2)
        return 1 + cli_usage_error("diff", nnames[1] || nnames[2]
                                               ? "--base and --new want two or more traces each and no other trace name"
                                               : "expected two trace names, A (the base) and B (the new run)");
    if (nnames[0] == 2 && is_tzg(names[0][0]) && is_tzg(names[0][1]))
        fl->grammar = 1;
    if (fl->grammar && (!nnames[0] || fl->ranges || fl->out || fl->patterns || *fail_on))
        return 1 + cli_usage_error("diff", "--grammar compares two .tzg files, A B, without --ranges, --flame, --patterns "
                                           "or --fail-on");
    if (fl->loop_header && !fl->grammar)
        return 1 + cli_usage_error("diff", "--loop-header is for grammars (.tzg files, --grammar)");
    if (fl->nelf && !fl->grammar)
        return 1 + cli_usage_error("diff", "--elf is for grammars (.tzg files, --grammar)");
    if (fl->nelf == 1)
        return 1 + cli_usage_error("diff", "--elf names A's program, then B's: give it twice");
    if (fl->patterns && !nnames[0])
        return 1 + cli_usage_error("diff", "--patterns is for two traces, A B");
    if (fl->out && !nnames[0])
        return 1 + cli_usage_error("diff", "--flame draws two traces, A B, not --base / --new sets");
    return EXIT_OK;
}

/* The differential flame graph of A and B into fl->out. */
static int write_flame(traza_cli *cli, traza_trace *a, traza_trace *b, const char *name_a, const char *name_b, const flame_opts *fl)
{
    traza_err err;
    traza_err_clear(&err);
    traza_diff_tree tree;
    if (traza_diff_tree_compute(a, b, &tree, &err) < 0)
        return cli_fail(cli, &err);
    char *title = tz_asprintf("%s against %s: differential flame graph", name_b, name_a);
    char *svg = title ? traza_diff_flame_svg(&tree, fl->metric, title) : NULL;
    int rc = EXIT_OK;
    if (!svg) {
        fputs("traza: out of memory\n", stderr);
        rc = EXIT_FAIL;
    } else if (cli_write_file(fl->out, svg, strlen(svg)) != 0) {
        rc = EXIT_FAIL;
    }
    free(svg);
    free(title);
    traza_diff_tree_free(&tree);
    return rc;
}

int cmd_diff(traza_cli *cli, int argc, char **argv)
{
    flame_opts fl = {NULL, TRAZA_DIFF_METRIC_SELF, 0, 0, 0, NULL, {NULL, NULL}, 0, NULL, 0};
    traza_diff_opts o;
    traza_diff_opts_init(&o);
    long top = 20;
    const char *fail_on = NULL;
    fail_expr fe;
    const char **names[3] = {NULL, NULL, NULL};
    size_t nnames[3] = {0, 0, 0};
    traza_trace **t = malloc((size_t)argc * sizeof *t);
    int rc = EXIT_FAIL;
    for (int k = 0; k < 3; k++)
        names[k] = malloc((size_t)argc * sizeof *names[k]);
    fl.pattern = malloc((size_t)argc * sizeof *fl.pattern);
    if (!t || !names[0] || !names[1] || !names[2] || !fl.pattern)
        fputs("traza: out of memory\n", stderr);
    else if ((rc = parse_args(cli, argc, argv, &o, &top, &fail_on, &fe, names, nnames, &fl)) != EXIT_OK)
        rc--;
    else if (fl.grammar)
        rc = diff_grammars(cli, names[0][0], names[0][1], fl.loop_header, fl.nelf ? fl.elf : NULL, &o, top);
    else {
        /* A B, or the base runs then the new ones */
        size_t na = nnames[0] ? 1 : nnames[1], nb = nnames[0] ? 1 : nnames[2];
        rc = EXIT_FAIL;
        if (open_traces(cli, nnames[0] ? names[0] : names[1], na, t) == 0) {
            if (open_traces(cli, nnames[0] ? names[0] + 1 : names[2], nb, t + na) == 0) {
                rc = run_diff(cli, t, na, t + na, nb, &o, top, fail_on, &fe, &fl);
                if (fl.out && rc != EXIT_FAIL) {
                    int frc = write_flame(cli, t[0], t[1], names[0][0], names[0][1], &fl);
                    rc = frc != EXIT_OK ? frc : rc;
                }
                for (size_t i = 0; i < nb; i++)
                    traza_trace_close(t[na + i]);
            }
            for (size_t i = 0; i < na; i++)
                traza_trace_close(t[i]);
        }
    }
    for (int k = 0; k < 3; k++)
        free(names[k]);
    free(fl.pattern);
    free(t);
    return rc;
}
