/* CSV export: one event per line, fixed columns then the parameters as name=value
 * pairs joined by ';' (RFC 4180 quoting where needed). */
#include "export/exporters.h"
#include "util/util.h"

#include <errno.h>
#include <string.h>

static void csv_field(tz_buf *b, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        tz_buf_puts(b, s);
        return;
    }
    tz_buf_putc(b, '"');
    for (; *s; s++) {
        if (*s == '"')
            tz_buf_putc(b, '"');
        tz_buf_putc(b, *s);
    }
    tz_buf_putc(b, '"');
}

/* Formats a parameter value as text. */
static void value_text(tz_buf *b, const traza_value *v)
{
    switch (v->kind) {
    case TRAZA_PT_INT: tz_buf_printf(b, "%lld", (long long)v->i); break;
    case TRAZA_PT_HEX: tz_buf_printf(b, "0x%llx", (unsigned long long)v->i); break;
    case TRAZA_PT_DOUBLE: tz_buf_printf(b, "%.17g", v->d); break;
    case TRAZA_PT_STRING: tz_buf_puts(b, v->s ? v->s : ""); break;
    }
}

static int write_csv(traza_trace *t, const traza_filter *f, FILE *out, traza_err *err)
{
    traza_filter all;
    traza_filter_init(&all);
    traza_filter q = f ? *f : all;
    q.with_params = 1;
    traza_cursor *c = traza_query(t, &q, err);
    if (!c)
        return -1;
    tz_buf b, pv, path;
    tz_buf_init(&b);
    tz_buf_init(&pv);
    tz_buf_init(&path);
    tz_buf_puts(&b, "id,ts,end_ts,type,category,producer,end_producer,level,value,cpu,params\n");
    const traza_event *ev;
    int rc;
    char pbuf[4096];
    while ((rc = traza_cursor_next(c, &ev, err)) > 0) {
        const traza_event_type *ty = traza_trace_event_type(t, ev->type);
        tz_buf_printf(&b, "%lld,%lld,", (long long)ev->id, (long long)ev->ts);
        if (ev->has & TRAZA_HAS_END)
            tz_buf_printf(&b, "%lld", (long long)ev->end_ts);
        tz_buf_putc(&b, ',');
        csv_field(&b, ty->name);
        tz_buf_printf(&b, ",%s,", traza_category_name(ty->category));
        csv_field(&b, traza_trace_producer_path(t, ev->producer, pbuf, sizeof pbuf));
        tz_buf_putc(&b, ',');
        if (ev->has & TRAZA_HAS_END_PRODUCER)
            csv_field(&b, traza_trace_producer_path(t, ev->end_producer, pbuf, sizeof pbuf));
        tz_buf_putc(&b, ',');
        if (ev->has & TRAZA_HAS_LEVEL)
            tz_buf_printf(&b, "%d", ev->level);
        tz_buf_putc(&b, ',');
        if (ev->has & TRAZA_HAS_VALUE)
            tz_buf_printf(&b, "%.17g", ev->value);
        tz_buf_putc(&b, ',');
        if (ev->has & TRAZA_HAS_CPU)
            tz_buf_printf(&b, "%d", ev->cpu);
        tz_buf_putc(&b, ',');
        tz_buf_reset(&pv);
        for (uint32_t i = 0; i < ev->nparams; i++) {
            if (i)
                tz_buf_putc(&pv, ';');
            tz_buf_printf(&pv, "%s=", traza_trace_param_def(t, ev->params[i].def)->name);
            value_text(&pv, &ev->params[i].v);
        }
        csv_field(&b, pv.s ? pv.s : "");
        tz_buf_putc(&b, '\n');
        if (b.len > (1u << 20)) {
            if (b.oom || fwrite(b.s, 1, b.len, out) != b.len) {
                rc = traza_err_set(err, b.oom ? TRAZA_E_NOMEM : TRAZA_E_IO, "writing CSV: %s", b.oom ? "out of memory" : strerror(errno));
                break;
            }
            tz_buf_reset(&b);
        }
    }
    if (rc == 0 && (b.oom || fwrite(b.s, 1, b.len, out) != b.len))
        rc = traza_err_set(err, b.oom ? TRAZA_E_NOMEM : TRAZA_E_IO, "writing CSV: %s", b.oom ? "out of memory" : strerror(errno));
    traza_cursor_free(c);
    tz_buf_free(&b);
    tz_buf_free(&pv);
    tz_buf_free(&path);
    return rc < 0 ? -1 : 0;
}

const traza_exporter tz_exporter_csv = {"csv", "export-csv", "events as CSV, one per line, parameters as name=value;...", write_csv};
