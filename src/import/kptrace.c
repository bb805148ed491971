/* KPTrace CSV, as FrameSoC reads it.
 *
 * A header line, then one event per line:
 *   col 0  start timestamp, in seconds ("12.345678901"), stored exactly in the trace
 *          unit (default ns, -9; --time-unit E changes it; more digits than the unit
 *          holds is an error, never a silent rounding)
 *   col 1  end timestamp: present -> a state (or the end of a link), empty -> punctual
 *   col 2, 3  ignored
 *   col 4  event type          col 5  producer
 *   col 6  second producer: present -> a link from col 5 to col 6
 *   col 7  CPU (integer, may be empty)
 *   col 8+ parameters, named by the header; matched by header name on every row;
 *          an empty value means "absent". The parameter's type (int, hex, double,
 *          string) is fixed by its first value; a later value of another type is an
 *          error naming the line and column.
 * Unlike FrameSoC, a type used with two categories is an error naming the line, and
 * timestamps must not go backwards. */
#include "import/csvutil.h"
#include "import/importers.h"
#include "util/input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define KP_FIXED 8

static const char *const kp_names[KP_FIXED] = {"start", "end", "", "", "type", "producer", "producer2", "cpu"};

static int is_time(const char *s, size_t n) { return tz_frac_digits(s, n) >= 0 && n > 0 && s[0] != '-'; }

static int kptrace_detect(const char *path, const unsigned char *head, size_t len)
{
    (void)path;
    const char *ls[64];
    size_t ll[64];
    size_t n = tz_head_lines(head, len, ls, ll, 64);
    if (n < 2)
        return 0;
    char sep = tz_guess_sep(ls[0], ll[0]);
    if (sep != ',')
        return 0;
    tz_fields r = {0};
    char buf[8192];
    int ok = 0, bad = 0, named = 0;
    size_t hdrn = 0;
    for (size_t i = 0; i < n; i++) {
        if (ll[i] >= sizeof buf)
            return 0;
        memcpy(buf, ls[i], ll[i]);
        buf[ll[i]] = '\0';
        if (tz_fields_split(&r, buf, ll[i], ',', "", 0, NULL) < 0) {
            bad++;
            continue;
        }
        if (i == 0) {
            hdrn = r.n;
            if (r.n < KP_FIXED || is_time(r.f[0], r.len[0])) {
                tz_fields_free(&r);
                return 0;
            }
            if (strcasestr(r.f[0], "time") || strcasestr(r.f[0], "start"))
                named++;
            if (strcasestr(r.f[4], "type") || strcasestr(r.f[4], "event"))
                named++;
            if (strcasestr(r.f[7], "cpu"))
                named++;
            continue;
        }
        int64_t v;
        if (r.n >= 6 && r.n <= hdrn && is_time(r.f[0], r.len[0]) && (r.len[1] == 0 || is_time(r.f[1], r.len[1])) &&
            r.len[4] > 0 && r.len[5] > 0 && (r.n < 8 || r.len[7] == 0 || tz_parse_int(r.f[7], r.len[7], &v) == 0))
            ok++;
        else
            bad++;
    }
    tz_fields_free(&r);
    if (bad || !ok)
        return 0;
    return named >= 2 ? 85 : 55;
}

typedef struct kp_state {
    const char *path;
    traza_writer *w;
    tz_namecache producers, types;
    int32_t *defs;          /* [type * nparams + k] parameter definition, -1 = none yet */
    traza_ptype *ptypes;
    size_t ntypes_cap;
    size_t nparams;         /* header columns beyond the fixed ones */
    char **pnames;
    traza_param *pbuf;
} kp_state;

static int ensure_type_slots(kp_state *s, int32_t t, traza_err *err)
{
    if ((size_t)t < s->ntypes_cap)
        return 0;
    size_t ncap = s->ntypes_cap ? s->ntypes_cap * 2 : 16;
    while (ncap <= (size_t)t)
        ncap *= 2;
    size_t np = s->nparams ? s->nparams : 1;
    int32_t *d = realloc(s->defs, ncap * np * sizeof *d);
    if (!d)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    s->defs = d;
    traza_ptype *p = realloc(s->ptypes, ncap * np * sizeof *p);
    if (!p)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    s->ptypes = p;
    for (size_t i = s->ntypes_cap * np; i < ncap * np; i++)
        s->defs[i] = -1;
    s->ntypes_cap = ncap;
    return 0;
}

static int ts_err(traza_err *err, const char *path, long line, size_t col, const char *name, const char *f, size_t n, int rc, int unit)
{
    if (rc == -2)
        return tz_field_err(err, path, line, col, name, "a timestamp in seconds that fits in 64 bits at the trace's unit", f, n);
    if (rc == -3) {
        char ex[96];
        snprintf(ex, sizeof ex, "at most %d decimals (the trace unit is 1e%d s; give a finer --time-unit)", -unit, unit);
        return tz_field_err(err, path, line, col, name, ex, f, n);
    }
    return tz_field_err(err, path, line, col, name, "a timestamp in seconds (e.g. 12.345678)", f, n);
}

static int kp_file(traza_ctx *ctx, kp_state *s, const char *path, int unit, int64_t *last_ts, long *evno, traza_err *err)
{
    tz_lines lr;
    if (tz_lines_open(&lr, path, err) < 0)
        return -1;
    tz_fields r = {0};
    int rc = -1;
    char *line;
    size_t len;
    int got = tz_lines_next(&lr, &line, &len, err);
    if (got < 0)
        goto out;
    if (got == 0) {
        traza_err_set(err, TRAZA_E_PARSE, "%s: empty file: expected a KPTrace CSV header line", path);
        goto out;
    }
    if (tz_check_terminated(&lr, line, len, path, err) < 0 || tz_check_utf8(line, len, path, 1, err) < 0 ||
        tz_fields_split(&r, line, len, ',', path, 1, err) < 0)
        goto out;
    if (r.n < KP_FIXED) {
        traza_err_set(err, TRAZA_E_PARSE, "%s:1: expected a header of at least 8 columns (start, end, 2 ignored, type, producer, producer2, cpu), found %zu",
                      path, r.n);
        goto out;
    }
    size_t np = r.n - KP_FIXED;
    if (s->pnames) { /* a second file: same parameter columns required */
        int same = np == s->nparams;
        for (size_t k = 0; same && k < np; k++)
            same = strcmp(s->pnames[k], r.f[KP_FIXED + k]) == 0;
        if (!same) {
            traza_err_set(err, TRAZA_E_PARSE, "%s:1: the parameter columns differ from the first file's header", path);
            goto out;
        }
    } else {
        s->nparams = np;
        s->pnames = calloc(np + 1, sizeof *s->pnames);
        s->pbuf = calloc(np + 1, sizeof *s->pbuf);
        if (!s->pnames || !s->pbuf) {
            traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            goto out;
        }
        for (size_t k = 0; k < np; k++) {
            const char *nm = r.f[KP_FIXED + k];
            if (!*nm) {
                traza_err_set(err, TRAZA_E_PARSE, "%s:1: column %zu: expected a parameter name in the header, found an empty field", path, KP_FIXED + k + 1);
                goto out;
            }
            for (size_t j = 0; j < k; j++)
                if (strcmp(s->pnames[j], nm) == 0) {
                    traza_err_set(err, TRAZA_E_PARSE, "%s:1: column %zu: parameter name '%s' is already column %zu", path, KP_FIXED + k + 1, nm, KP_FIXED + j + 1);
                    goto out;
                }
            if (!(s->pnames[k] = tz_strdup(nm))) {
                traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
                goto out;
            }
        }
    }
    size_t ncols = KP_FIXED + np;
    int shift = -unit;
    while ((got = tz_lines_next(&lr, &line, &len, err)) == 1) {
        long ln = lr.lineno;
        if (len == 0)
            continue;
        if (tz_check_terminated(&lr, line, len, path, err) < 0 || tz_check_utf8(line, len, path, ln, err) < 0 || tz_fields_split(&r, line, len, ',', path, ln, err) < 0)
            goto out;
        if (r.n > ncols) {
            char b[100];
            traza_err_set(err, TRAZA_E_PARSE, "%s:%ld: column %zu: expected at most %zu fields (the header's), found an unknown extra column '%s'",
                          path, ln, ncols + 1, ncols, tz_shorten(r.f[ncols], r.len[ncols], b, sizeof b));
            goto out;
        }
        if (r.n < 6) {
            tz_field_err(err, path, ln, r.n, kp_names[r.n], r.n == 4 ? "an event type" : r.n == 5 ? "a producer" : "more fields (at least 6)", NULL, 0);
            goto out;
        }
        traza_event ev;
        memset(&ev, 0, sizeof ev);
        int prc = tz_parse_fixed(r.f[0], r.len[0], shift, &ev.ts);
        if (prc < 0 || ev.ts < 0) {
            ts_err(err, path, ln, 0, "start", r.f[0], r.len[0], prc < 0 ? prc : -1, unit);
            goto out;
        }
        if (ev.ts < *last_ts) {
            char b1[40], b2[40];
            traza_err_set(err, TRAZA_E_PARSE, "%s:%ld: column 1 (start): time goes backwards: expected a timestamp >= %s (the previous line's), found %s",
                          path, ln, traza_time_format(*last_ts, unit, b1, sizeof b1), traza_time_format(ev.ts, unit, b2, sizeof b2));
            goto out;
        }
        *last_ts = ev.ts;
        traza_category cat = TRAZA_PUNCTUAL;
        if (r.len[1]) {
            prc = tz_parse_fixed(r.f[1], r.len[1], shift, &ev.end_ts);
            if (prc < 0) {
                ts_err(err, path, ln, 1, "end", r.f[1], r.len[1], prc, unit);
                goto out;
            }
            if (ev.end_ts < ev.ts) {
                tz_field_err(err, path, ln, 1, "end", "an end timestamp not before the start", r.f[1], r.len[1]);
                goto out;
            }
            ev.has |= TRAZA_HAS_END;
            cat = TRAZA_STATE;
        }
        if (!r.len[4]) {
            tz_field_err(err, path, ln, 4, "type", "an event type name", "", 0);
            goto out;
        }
        if (!r.len[5]) {
            tz_field_err(err, path, ln, 5, "producer", "a producer name", "", 0);
            goto out;
        }
        if ((ev.producer = tz_cached_producer(&s->producers, s->w, -1, r.f[5], r.len[5], NULL, err)) < 0)
            goto out;
        if (r.n > 6 && r.len[6]) {
            if ((ev.end_producer = tz_cached_producer(&s->producers, s->w, -1, r.f[6], r.len[6], NULL, err)) < 0)
                goto out;
            ev.has |= TRAZA_HAS_END_PRODUCER;
            if (!(ev.has & TRAZA_HAS_END)) {
                ev.end_ts = ev.ts;
                ev.has |= TRAZA_HAS_END;
            }
            cat = TRAZA_LINK;
        }
        if (r.n > 7 && r.len[7]) {
            int64_t cpu;
            if (tz_parse_int(r.f[7], r.len[7], &cpu) < 0 || cpu < 0 || cpu > INT32_MAX) {
                tz_field_err(err, path, ln, 7, "cpu", "a CPU number (0 to 2^31-1)", r.f[7], r.len[7]);
                goto out;
            }
            ev.cpu = (int32_t)cpu;
            ev.has |= TRAZA_HAS_CPU;
        }
        if ((ev.type = tz_cached_type(&s->types, s->w, r.f[4], r.len[4], cat, path, ln, err)) < 0)
            goto out;
        if (ensure_type_slots(s, ev.type, err) < 0)
            goto out;
        uint32_t npar = 0;
        for (size_t k = 0; k + KP_FIXED < r.n; k++) {
            const char *f = r.f[KP_FIXED + k];
            size_t fl = r.len[KP_FIXED + k];
            if (!fl)
                continue;
            size_t slot = (size_t)ev.type * np + k;
            if (s->defs[slot] < 0) {
                traza_ptype pt = tz_guess_ptype(f, fl);
                int32_t d = traza_writer_param_def(s->w, ev.type, s->pnames[k], pt, err);
                if (d < 0)
                    goto out;
                s->defs[slot] = d;
                s->ptypes[slot] = pt;
            }
            traza_param *p = &s->pbuf[npar];
            p->def = s->defs[slot];
            if (tz_parse_value(s->ptypes[slot], f, fl, &p->v) < 0) {
                char ex[160];
                snprintf(ex, sizeof ex, "a %s value (parameter '%s' of type '%s' took that type from its first value)",
                         traza_ptype_name(s->ptypes[slot]), s->pnames[k], r.f[4]);
                tz_field_err(err, path, ln, KP_FIXED + k, s->pnames[k], ex, f, fl);
                goto out;
            }
            npar++;
        }
        ev.params = s->pbuf;
        ev.nparams = npar;
        if (tz_import_emit(ctx, s->w, &ev, lr.in, path, ln, evno, err) < 0)
            goto out;
    }
    if (got < 0)
        goto out;
    rc = 0;
out:
    tz_fields_free(&r);
    tz_lines_close(&lr);
    return rc;
}

static int kptrace_read(traza_ctx *ctx, traza_writer *w, const char *const *paths, size_t npaths, const traza_import_opts *opts,
                        traza_err *err)
{
    kp_state s;
    memset(&s, 0, sizeof s);
    s.w = w;
    tz_namecache_init(&s.producers);
    tz_namecache_init(&s.types);
    int unit = opts && opts->has_time_unit ? opts->time_unit : -9;
    traza_writer_set_time_unit(w, unit);
    int rc = 0;
    int64_t last = INT64_MIN;
    long evno = 0;
    for (size_t i = 0; i < npaths && rc == 0; i++)
        rc = kp_file(ctx, &s, paths[i], unit, &last, &evno, err);
    tz_namecache_free(&s.producers);
    tz_namecache_free(&s.types);
    if (s.pnames)
        for (size_t k = 0; k < s.nparams; k++)
            free(s.pnames[k]);
    free(s.pnames);
    free(s.pbuf);
    free(s.defs);
    free(s.ptypes);
    return rc;
}

const traza_importer tz_importer_kptrace = {
    "kptrace", "import-kptrace", "KPTrace CSV (FrameSoC layout: start,end,-,-,type,producer,producer2,cpu,params...)",
    kptrace_detect, kptrace_read,
};
