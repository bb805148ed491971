/* Chrome trace-event JSON export ({"traceEvents": [...]}), readable by
 * chrome://tracing, Perfetto and traza's own chrome importer:
 *
 *   state    -> "X" (ts, dur)          punctual -> "i" (scope thread)
 *   variable -> "C" (args {KEY: value}; type "NAME.KEY" gives name NAME, key KEY)
 *   link     -> an "s"/"f" flow pair (id = the event id, binding point "e")
 *
 * Producers: a root producer is a process (pid), every other producer a thread of
 * its root (tid); names go out as process_name / thread_name metadata. Names the
 * chrome importer made ("NAME (N)", "pid N", "tid N") give back their numbers, so a
 * Chrome file survives a round trip with its pids and tids. Parameters become args.
 * A producer deeper than a thread is a thread of its root whose thread_name carries
 * "parent_tid" (its parent's tid), so the importer rebuilds the tree; every producer
 * gets its metadata, with events or not.
 * Timestamps are written in microseconds with exact decimals, from the trace start
 * (absolute_time: as stored): epoch nanoseconds read back as doubles lose the
 * nanoseconds, and nested slices then overlap. */
#include "export/exporters.h"
#include "util/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct ex_prod {
    long long pid, tid;
    int32_t root;
    int is_root, is_global;
} ex_prod;

/* "NAME (N)" -> N and the NAME length; "pid N"/"tid N" -> N and name length 0. */
static int label_number(const char *s, long long *num, size_t *namelen)
{
    size_t n = strlen(s);
    if ((strncmp(s, "pid ", 4) == 0 || strncmp(s, "tid ", 4) == 0) && n > 4) {
        char *end;
        long long v = strtoll(s + 4, &end, 10);
        if (*end == 0) {
            *num = v;
            *namelen = 0;
            return 0;
        }
        return -1;
    }
    if (n < 4 || s[n - 1] != ')')
        return -1;
    const char *open = strrchr(s, '(');
    if (!open || open == s || open[-1] != ' ')
        return -1;
    char *end;
    long long v = strtoll(open + 1, &end, 10);
    if (end == open + 1 || *end != ')')
        return -1;
    *num = v;
    *namelen = (size_t)(open - 1 - s);
    return 0;
}

/* Ticks of 10^unit s as microseconds, exactly. */
static void put_us(tz_buf *b, int64_t t, int unit)
{
    if (unit >= -6) {
        long long m = 1;
        for (int i = unit; i > -6; i--)
            m *= 10;
        tz_buf_printf(b, "%lld", (long long)t * m);
        return;
    }
    int digits = -6 - unit;
    long long div = 1;
    for (int i = 0; i < digits && i < 18; i++)
        div *= 10;
    unsigned long long a = t < 0 ? (unsigned long long)0 - (unsigned long long)t : (unsigned long long)t;
    tz_buf_printf(b, "%s%llu", t < 0 ? "-" : "", a / (unsigned long long)div);
    unsigned long long frac = a % (unsigned long long)div;
    if (frac) {
        char tmp[24];
        size_t l = (size_t)(digits < 18 ? digits : 18);
        tmp[l] = 0;
        for (size_t k = l; k > 0; k--) {
            tmp[k - 1] = (char)('0' + frac % 10);
            frac /= 10;
        }
        while (l > 0 && tmp[l - 1] == '0')
            tmp[--l] = 0;
        tz_buf_printf(b, ".%s", tmp);
    }
}

static void put_value(tz_buf *b, const traza_value *v)
{
    switch (v->kind) {
    case TRAZA_PT_INT: tz_buf_printf(b, "%lld", (long long)v->i); break;
    case TRAZA_PT_HEX: tz_buf_printf(b, "\"0x%llx\"", (unsigned long long)v->i); break;
    case TRAZA_PT_DOUBLE: tz_json_num(b, v->d); break;
    case TRAZA_PT_STRING: tz_json_str(b, v->s ? v->s : ""); break;
    }
}

static void put_args(tz_buf *b, traza_trace *t, const traza_event *ev, const char *skip_cat)
{
    tz_buf_puts(b, ",\"args\":{");
    int first = 1;
    for (uint32_t i = 0; i < ev->nparams; i++) {
        const char *name = traza_trace_param_def(t, ev->params[i].def)->name;
        if (skip_cat && strcmp(name, "cat") == 0)
            continue;
        if (!first)
            tz_buf_putc(b, ',');
        first = 0;
        tz_json_str(b, name);
        tz_buf_putc(b, ':');
        put_value(b, &ev->params[i].v);
    }
    tz_buf_putc(b, '}');
}

static const char *cat_of(traza_trace *t, const traza_event *ev)
{
    for (uint32_t i = 0; i < ev->nparams; i++)
        if (ev->params[i].v.kind == TRAZA_PT_STRING && strcmp(traza_trace_param_def(t, ev->params[i].def)->name, "cat") == 0)
            return ev->params[i].v.s;
    return NULL;
}

static void put_head(tz_buf *b, const char *ph, const char *name, const ex_prod *p, int64_t ts, int unit, const char *cat)
{
    tz_buf_printf(b, ",\n{\"ph\":\"%s\",\"name\":", ph);
    tz_json_str(b, name);
    if (cat) {
        tz_buf_puts(b, ",\"cat\":");
        tz_json_str(b, cat);
    }
    /* Events of a process (root) carry no tid; those of "global" no pid either. */
    if (!p->is_global)
        tz_buf_printf(b, ",\"pid\":%lld", p->pid);
    if (!p->is_root)
        tz_buf_printf(b, ",\"tid\":%lld", p->tid);
    tz_buf_puts(b, ",\"ts\":");
    put_us(b, ts, unit);
}

static int flush(tz_buf *b, FILE *out, traza_err *err)
{
    if (b->oom)
        return traza_err_set(err, TRAZA_E_NOMEM, "writing Chrome JSON: out of memory");
    if (b->len && fwrite(b->s, 1, b->len, out) != b->len)
        return traza_err_set(err, TRAZA_E_IO, "writing Chrome JSON: %s", strerror(errno));
    tz_buf_reset(b);
    return 0;
}

/* Assigns pid/tid numbers and writes the metadata events. */
static int producers_meta(traza_trace *t, ex_prod **out, tz_buf *b, size_t head_len, traza_err *err)
{
    const traza_producer *ps;
    size_t n = traza_trace_producers(t, &ps);
    ex_prod *pr = calloc(n ? n : 1, sizeof *pr);
    if (!pr)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    /* Numbers recovered from names only if they are unique among roots and among
     * the children of each root; otherwise producer ids are used. */
    int use_names = 1;
    tz_imap seen;
    tz_imap_init(&seen);
    for (size_t i = 0; i < n; i++) {
        int32_t r = (int32_t)i;
        while (ps[r].parent >= 0)
            r = ps[r].parent;
        pr[i].root = r;
        pr[i].is_root = ps[i].parent < 0;
        pr[i].is_global = pr[i].is_root && strcmp(ps[i].name, "global") == 0;
        if (pr[i].is_global)
            continue;
        long long num;
        size_t nl;
        int64_t dummy;
        int64_t key;
        if (label_number(ps[i].name, &num, &nl) < 0 || num < 0 || num > 0xffffffffLL) {
            use_names = 0;
            continue;
        }
        key = ((int64_t)(ps[i].parent >= 0 ? r + 1 : 0) << 32) | (int64_t)num;
        if (tz_imap_get(&seen, key, &dummy))
            use_names = 0;
        else if (tz_imap_put(&seen, key, 1) < 0) {
            tz_imap_free(&seen);
            free(pr);
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        }
        pr[i].pid = pr[i].tid = num;
    }
    tz_imap_free(&seen);
    for (size_t i = 0; i < n; i++) {
        if (!use_names) {
            pr[i].pid = pr[i].root;
            pr[i].tid = (long long)i;
        } else {
            long long tid = pr[i].tid;
            pr[i].pid = pr[pr[i].root].tid;
            pr[i].tid = ps[i].parent >= 0 ? tid : pr[i].pid;
        }
    }
    for (size_t i = 0; i < n; i++) {
        long long num;
        size_t nl;
        const char *name = ps[i].name;
        size_t len = strlen(name);
        if (use_names && label_number(name, &num, &nl) == 0)
            len = nl;
        if (len == 0 || pr[i].is_global) /* "pid N", "tid N": the importer's own default */
            continue;
        int is_root = ps[i].parent < 0;
        tz_buf_printf(b, "%s\n{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%lld,", b->len > head_len ? "," : "", is_root ? "process_name" : "thread_name",
                      pr[i].pid);
        if (!is_root)
            tz_buf_printf(b, "\"tid\":%lld,", pr[i].tid);
        tz_buf_puts(b, "\"args\":{\"name\":");
        tz_json_strn(b, name, len);
        if (!is_root && ps[ps[i].parent].parent >= 0)
            tz_buf_printf(b, ",\"parent_tid\":%lld", pr[ps[i].parent].tid);
        tz_buf_puts(b, "}}");
    }
    *out = pr;
    return 0;
}

static int write_chrome_opts(traza_trace *t, const traza_filter *f, const traza_export_opts *o, FILE *out, traza_err *err)
{
    traza_filter all;
    traza_filter_init(&all);
    traza_filter q = f ? *f : all;
    q.with_params = 1;
    const traza_trace_info *info = traza_trace_info_of(t);
    int unit = info->time_unit;
    int64_t origin = o && o->absolute_time ? 0 : info->min_ts;
    if (unit < -18 || unit > 6)
        return traza_err_set(err, TRAZA_E_UNSUPPORTED, "chrome export: time unit 10^%d s is out of range", unit);
    tz_buf b;
    tz_buf_init(&b);
    tz_buf_puts(&b, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
    size_t head_len = b.len;
    ex_prod *pr = NULL;
    if (producers_meta(t, &pr, &b, head_len, err) < 0) {
        tz_buf_free(&b);
        return -1;
    }
    /* The first real event must not start with a comma if no metadata was written. */
    int need_fix = b.len == head_len;
    traza_cursor *c = traza_query(t, &q, err);
    if (!c) {
        free(pr);
        tz_buf_free(&b);
        return -1;
    }
    const traza_event *ev;
    int rc;
    while ((rc = traza_cursor_next(c, &ev, err)) > 0) {
        const traza_event_type *ty = traza_trace_event_type(t, ev->type);
        const ex_prod *p = &pr[ev->producer];
        const char *cat = cat_of(t, ev);
        size_t at = b.len;
        switch (ty->category) {
        case TRAZA_STATE:
            put_head(&b, "X", ty->name, p, ev->ts - origin, unit, cat);
            tz_buf_puts(&b, ",\"dur\":");
            put_us(&b, ev->end_ts - ev->ts, unit);
            put_args(&b, t, ev, cat);
            tz_buf_putc(&b, '}');
            break;
        case TRAZA_PUNCTUAL:
            put_head(&b, "i", ty->name, p, ev->ts - origin, unit, cat);
            tz_buf_printf(&b, ",\"s\":\"%s\"", p->is_global ? "g" : p->is_root ? "p" : "t");
            put_args(&b, t, ev, cat);
            tz_buf_putc(&b, '}');
            break;
        case TRAZA_VARIABLE: {
            const char *dot = strrchr(ty->name, '.');
            char *name = dot ? tz_strndup(ty->name, (size_t)(dot - ty->name)) : tz_strdup(ty->name);
            if (!name) {
                rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
                break;
            }
            put_head(&b, "C", name, p, ev->ts - origin, unit, NULL);
            free(name);
            tz_buf_puts(&b, ",\"args\":{");
            tz_json_str(&b, dot ? dot + 1 : "value");
            tz_buf_putc(&b, ':');
            tz_json_num(&b, ev->value);
            tz_buf_puts(&b, "}}");
            break;
        }
        case TRAZA_LINK: {
            const ex_prod *e = (ev->has & TRAZA_HAS_END_PRODUCER) ? &pr[ev->end_producer] : p;
            put_head(&b, "s", ty->name, p, ev->ts - origin, unit, cat ? cat : "link");
            tz_buf_printf(&b, ",\"id\":%lld", (long long)ev->id);
            put_args(&b, t, ev, cat);
            tz_buf_putc(&b, '}');
            put_head(&b, "f", ty->name, e, ev->end_ts - origin, unit, cat ? cat : "link");
            tz_buf_printf(&b, ",\"id\":%lld,\"bp\":\"e\"}", (long long)ev->id);
            break;
        }
        default:
            break;
        }
        if (rc < 0)
            break;
        if (need_fix && b.len > at) {
            /* drop the ",\n" of the very first event */
            memmove(b.s + at, b.s + at + 1, b.len - at - 1);
            b.len--;
            b.s[b.len] = 0;
            need_fix = 0;
        }
        if (b.len > (1u << 20) && flush(&b, out, err) < 0) {
            rc = -1;
            break;
        }
    }
    traza_cursor_free(c);
    free(pr);
    if (rc == 0) {
        tz_buf_puts(&b, "\n]}\n");
        rc = flush(&b, out, err);
    }
    tz_buf_free(&b);
    return rc < 0 ? -1 : 0;
}

static int write_chrome(traza_trace *t, const traza_filter *f, FILE *out, traza_err *err)
{
    return write_chrome_opts(t, f, NULL, out, err);
}

const traza_exporter tz_exporter_chrome = {"chrome", "export-chrome", "Chrome trace-event JSON (X, i, C, s/f flows)", write_chrome,
                                           write_chrome_opts};
