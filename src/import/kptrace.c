/* KPTrace CSV (STMicroelectronics' KPTrace, as FrameSoC reads it); doc/formats/kptrace.md.
 *
 * One event per line, optionally after a header line (a first line whose first field
 * is not a number), which names the parameter columns 9 and on:
 *   col 1  start timestamp, an integer count of the trace unit: microseconds (-6, the
 *          unit KPTrace writes) unless --time-unit E says 10^E s; a fraction of the
 *          unit is an error, never a silent rounding
 *   col 2  end timestamp: present -> a state (or the end of a link), empty -> punctual
 *   col 3, 4  durations KPTrace derives from cols 1 and 2 (Interrupt, SoftIRQ): not read
 *   col 5  event type          col 6  producer ("1036 (sshd)", "Interrupt 168 (...)")
 * then by event kind:
 *   system calls (type "sys_..."): col 7 CPU, col 8+ the call's arguments, parameters
 *          arg1, arg2, ...
 *   any other type: col 7 second producer (present -> a link from col 6 to col 7, as
 *          __switch_to from the previous to the next task), col 8 CPU, col 9+
 *          parameters named by the header (arg1, arg2, ... without one).
 * An empty parameter is absent. A parameter's type (int, hex, double, string) is fixed
 * by its first value; a later value of another type is an error naming the line and
 * column. A type used with two categories is an error, and timestamps must not go
 * backwards. */
#include "import/csvutil.h"
#include "import/importers.h"
#include "util/input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define KP_FIXED 8    /* columns before the parameters of a non-syscall line */
#define KP_MAXPAR 64  /* parameters a line may hold */

static const char *const kp_names[KP_FIXED] = {"start", "end", "duration", "duration", "type", "producer", "producer2", "cpu"};

static int is_count(const char *s, size_t n)
{
    int64_t v;
    return n > 0 && tz_parse_int(s, n, &v) == 0 && v >= 0;
}

static int is_syscall(const char *type, size_t n) { return n > 4 && strncmp(type, "sys_", 4) == 0; }

/* The column holding the CPU, and the first parameter column, of a line of this type. */
static size_t cpu_col(const char *type, size_t n) { return is_syscall(type, n) ? 6 : 7; }

/* A data line's shape: a count, an empty or count end, a type, a producer and an empty
 * or integer CPU where the type puts it. */
static int row_shape(const tz_fields *r)
{
    if (r->n < 6 || !is_count(r->f[0], r->len[0]) || (r->len[1] && !is_count(r->f[1], r->len[1])) || !r->len[4] || !r->len[5])
        return 0;
    size_t c = cpu_col(r->f[4], r->len[4]);
    return c >= r->n || !r->len[c] || is_count(r->f[c], r->len[c]);
}

/* Detection decides on the first lines only: a header naming the KPTrace columns, or
 * else the first data lines. A bad line further on is the importer's to report, with its line and column,
 * rather than a reason to pick another format. */
static int kptrace_detect(const char *path, const unsigned char *head, size_t len)
{
    (void)path;
    const char *ls[8];
    size_t ll[8];
    size_t n = tz_head_lines(head, len, ls, ll, 8);
    if (n < 1 || tz_guess_sep(ls[0], ll[0]) != ',')
        return 0;
    tz_fields r = {0};
    char buf[8192];
    int ok = 0, bad = 0, named = 0, header = 0;
    for (size_t i = 0; i < n; i++) {
        if (ll[i] >= sizeof buf)
            break;
        memcpy(buf, ls[i], ll[i]);
        buf[ll[i]] = '\0';
        if (tz_fields_split(&r, buf, ll[i], ',', "", 0, NULL) < 0) {
            bad++;
            continue;
        }
        if (i == 0 && r.n >= 1 && !is_count(r.f[0], r.len[0])) {
            if (r.n < KP_FIXED)
                break;
            header = 1;
            if (strcasestr(r.f[0], "time") || strcasestr(r.f[0], "start"))
                named++;
            if (strcasestr(r.f[4], "type") || strcasestr(r.f[4], "event"))
                named++;
            if (strcasestr(r.f[7], "cpu"))
                named++;
            continue;
        }
        if (row_shape(&r))
            ok++;
        else if (ok + bad == 0)
            break; /* the first data line decides */
        else
            bad++;
    }
    tz_fields_free(&r);
    if (header && named >= 2)
        return 85; /* a header naming the KPTrace columns decides alone */
    return ok && bad <= ok ? 55 : 0;
}

typedef struct kp_state {
    const char *path;
    traza_writer *w;
    tz_namecache producers, types;
    tz_param_slots slots;   /* one per (type, parameter column) */
    size_t nnamed;          /* parameter columns the header names */
    char **pnames;          /* [KP_MAXPAR]: the header's names, then arg<k> */
    char *argnames[KP_MAXPAR];
    int have_header;        /* the first file had one (later files must match) */
    traza_param pbuf[KP_MAXPAR];
} kp_state;

static int ts_err(traza_err *err, const char *path, long line, size_t col, const char *name, const char *f, size_t n, int rc, int unit)
{
    char ex[160];
    if (rc == -2)
        return tz_field_err(err, path, line, col, name, "a timestamp that fits in 64 bits", f, n);
    if (rc == -3) {
        snprintf(ex, sizeof ex, "an integer count of 1e%d s (KPTrace timestamps are in the trace unit; give the trace a finer time unit)", unit);
        return tz_field_err(err, path, line, col, name, ex, f, n);
    }
    snprintf(ex, sizeof ex, "a timestamp, an integer count of 1e%d s (e.g. 266047)", unit);
    return tz_field_err(err, path, line, col, name, ex, f, n);
}

/* Reads the header line: the names of the parameter columns. */
static int kp_header(kp_state *s, const tz_fields *r, const char *path, traza_err *err)
{
    if (r->n < KP_FIXED)
        return traza_err_set(err, TRAZA_E_PARSE,
                             "%s:1: expected a header of at least 8 columns (start, end, 2 durations, type, producer, producer2, cpu), found %zu",
                             path, r->n);
    size_t np = r->n - KP_FIXED;
    if (np > KP_MAXPAR)
        return traza_err_set(err, TRAZA_E_PARSE, "%s:1: expected at most %d parameter columns, found %zu", path, KP_MAXPAR, np);
    if (s->have_header) { /* a second file: same parameter columns required */
        int same = np == s->nnamed;
        for (size_t k = 0; same && k < np; k++)
            same = strcmp(s->pnames[k], r->f[KP_FIXED + k]) == 0;
        if (!same)
            return traza_err_set(err, TRAZA_E_PARSE, "%s:1: the parameter columns differ from the first file's header", path);
        return 0;
    }
    for (size_t k = 0; k < np; k++) {
        const char *nm = r->f[KP_FIXED + k];
        if (!*nm)
            return traza_err_set(err, TRAZA_E_PARSE, "%s:1: column %zu: expected a parameter name in the header, found an empty field", path,
                                 KP_FIXED + k + 1);
        for (size_t j = 0; j < k; j++)
            if (strcmp(s->pnames[j], nm) == 0)
                return traza_err_set(err, TRAZA_E_PARSE, "%s:1: column %zu: parameter name '%s' is already column %zu", path, KP_FIXED + k + 1,
                                     nm, KP_FIXED + j + 1);
        if (!(s->pnames[k] = tz_strdup(nm)))
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        s->nnamed = k + 1;
    }
    s->have_header = 1;
    return 0;
}

static int kp_line(traza_ctx *ctx, kp_state *s, tz_fields *r, tz_input *in, const char *path, long ln, int unit, int64_t *last_ts,
                   int64_t *evno, traza_err *err)
{
    size_t ncols = s->have_header ? KP_FIXED + s->nnamed : KP_FIXED + KP_MAXPAR;
    if (r->n < 6)
        return tz_field_err(err, path, ln, r->n, r->n < KP_FIXED ? kp_names[r->n] : NULL,
                            r->n == 4 ? "an event type" : r->n == 5 ? "a producer" : "more fields (at least 6)", NULL, 0);
    int sys = is_syscall(r->f[4], r->len[4]);
    size_t cpuc = sys ? 6 : 7, par0 = cpuc + 1;
    if (sys)
        ncols = par0 + KP_MAXPAR;
    if (r->n > ncols) {
        char b[100];
        return traza_err_set(err, TRAZA_E_PARSE, "%s:%ld: column %zu: expected at most %zu fields (%s), found an unknown extra column '%s'", path,
                             ln, ncols + 1, ncols, sys || !s->have_header ? "the parameters a line may hold" : "the header's",
                             tz_shorten(r->f[ncols], r->len[ncols], b, sizeof b));
    }
    traza_event ev;
    memset(&ev, 0, sizeof ev);
    int prc = tz_parse_fixed(r->f[0], r->len[0], 0, &ev.ts);
    if (prc < 0 || ev.ts < 0)
        return ts_err(err, path, ln, 0, "start", r->f[0], r->len[0], prc < 0 ? prc : -1, unit);
    if (ev.ts < *last_ts) {
        char b1[40], b2[40];
        return traza_err_set(err, TRAZA_E_PARSE, "%s:%ld: column 1 (start): time goes backwards: expected a timestamp >= %s (the previous line's), found %s",
                             path, ln, traza_time_format(*last_ts, unit, b1, sizeof b1), traza_time_format(ev.ts, unit, b2, sizeof b2));
    }
    *last_ts = ev.ts;
    traza_category cat = TRAZA_PUNCTUAL;
    if (r->len[1]) {
        prc = tz_parse_fixed(r->f[1], r->len[1], 0, &ev.end_ts);
        if (prc < 0)
            return ts_err(err, path, ln, 1, "end", r->f[1], r->len[1], prc, unit);
        if (ev.end_ts < ev.ts)
            return tz_field_err(err, path, ln, 1, "end", "an end timestamp not before the start", r->f[1], r->len[1]);
        ev.has |= TRAZA_HAS_END;
        cat = TRAZA_STATE;
    }
    if (!r->len[4])
        return tz_field_err(err, path, ln, 4, "type", "an event type name", "", 0);
    if (!r->len[5])
        return tz_field_err(err, path, ln, 5, "producer", "a producer name", "", 0);
    if ((ev.producer = tz_cached_producer(&s->producers, s->w, -1, r->f[5], r->len[5], NULL, err)) < 0)
        return -1;
    if (!sys && r->n > 6 && r->len[6]) {
        if ((ev.end_producer = tz_cached_producer(&s->producers, s->w, -1, r->f[6], r->len[6], NULL, err)) < 0)
            return -1;
        ev.has |= TRAZA_HAS_END_PRODUCER;
        if (!(ev.has & TRAZA_HAS_END)) {
            ev.end_ts = ev.ts;
            ev.has |= TRAZA_HAS_END;
        }
        cat = TRAZA_LINK;
    }
    if (r->n > cpuc && r->len[cpuc]) {
        int64_t cpu;
        if (tz_parse_int(r->f[cpuc], r->len[cpuc], &cpu) < 0 || cpu < 0 || cpu > INT32_MAX)
            return tz_field_err(err, path, ln, cpuc, "cpu",
                                sys ? "a CPU number (0 to 2^31-1; a system call's arguments follow the CPU)" : "a CPU number (0 to 2^31-1)",
                                r->f[cpuc], r->len[cpuc]);
        ev.cpu = (int32_t)cpu;
        ev.has |= TRAZA_HAS_CPU;
    }
    if ((ev.type = tz_cached_type(&s->types, s->w, r->f[4], r->len[4], cat, path, ln, err)) < 0)
        return -1;
    uint32_t npar = 0;
    for (size_t k = 0; k + par0 < r->n; k++) {
        const char *f = r->f[par0 + k];
        size_t fl = r->len[par0 + k];
        if (!fl)
            continue;
        const char *name = !sys && k < s->nnamed ? s->pnames[k] : s->argnames[k];
        traza_ptype pt;
        int got = tz_param_slot_value(&s->slots, s->w, ev.type, k, name, -1, f, fl, &s->pbuf[npar], &pt, err);
        if (got == -1)
            return -1;
        if (got < 0) {
            char ex[160];
            snprintf(ex, sizeof ex, "a %s value (parameter '%s' of type '%s' took that type from its first value)",
                     traza_ptype_name(pt), name, r->f[4]);
            return tz_field_err(err, path, ln, par0 + k, name, ex, f, fl);
        }
        npar++;
    }
    ev.params = s->pbuf;
    ev.nparams = npar;
    return tz_import_emit(ctx, s->w, &ev, in, path, ln, evno, err);
}

static int kp_file(traza_ctx *ctx, kp_state *s, const char *path, int first, int unit, int64_t *last_ts, int64_t *evno, traza_err *err)
{
    tz_lines lr;
    if (tz_lines_open(&lr, path, err) < 0)
        return -1;
    tz_fields r = {0};
    int rc = -1, got;
    char *line;
    size_t len;
    while ((got = tz_lines_next(&lr, &line, &len, err)) == 1) {
        long ln = lr.lineno;
        if (len == 0)
            continue;
        if (tz_check_terminated(&lr, line, len, path, err) < 0 || tz_check_utf8(line, len, path, ln, err) < 0 ||
            tz_fields_split(&r, line, len, ',', path, ln, err) < 0)
            goto out;
        if (ln == 1 && !is_count(r.f[0], r.len[0])) {
            if (!first && !s->have_header) {
                traza_err_set(err, TRAZA_E_PARSE, "%s:1: expected an event line (the first file has no header), found a header", path);
                goto out;
            }
            if (kp_header(s, &r, path, err) < 0)
                goto out;
            continue;
        }
        if (kp_line(ctx, s, &r, lr.in, path, ln, unit, last_ts, evno, err) < 0)
            goto out;
    }
    if (got < 0)
        goto out;
    if (lr.lineno == 0) {
        traza_err_set(err, TRAZA_E_PARSE, "%s: empty file: expected KPTrace CSV lines", path);
        goto out;
    }
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
    tz_param_slots_reset(&s.slots, KP_MAXPAR);
    tz_namecache_init(&s.producers);
    tz_namecache_init(&s.types);
    int unit = opts && opts->has_time_unit ? opts->time_unit : -6;
    traza_writer_set_time_unit(w, unit);
    int rc = 0;
    s.pnames = calloc(KP_MAXPAR, sizeof *s.pnames);
    if (!s.pnames)
        rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    for (size_t k = 0; k < KP_MAXPAR && rc == 0; k++)
        if (!(s.argnames[k] = tz_asprintf("arg%zu", k + 1)))
            rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    int64_t last = INT64_MIN;
    int64_t evno = 0;
    for (size_t i = 0; i < npaths && rc == 0; i++)
        rc = kp_file(ctx, &s, paths[i], i == 0, unit, &last, &evno, err);
    tz_namecache_free(&s.producers);
    tz_namecache_free(&s.types);
    for (size_t k = 0; k < KP_MAXPAR; k++) {
        if (s.pnames)
            free(s.pnames[k]);
        free(s.argnames[k]);
    }
    free(s.pnames);
    tz_param_slots_reset(&s.slots, 0);
    return rc;
}

const traza_importer tz_importer_kptrace = {
    "kptrace", "import-kptrace", "KPTrace CSV (µs timestamps: start,end,duration,duration,type,producer,producer2|cpu,cpu|args...)",
    kptrace_detect, kptrace_read,
};
