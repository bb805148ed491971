/* Events as text (the CSV exporter, and through traza_event_text the front ends): a
 * fixed-width table, CSV (RFC 4180) or a JSON array. */
#include "export/event_text.h"

#include <stdlib.h>
#include <string.h>

static void value_text(tz_buf *b, const traza_value *v)
{
    switch (v->kind) {
    case TRAZA_PT_INT: tz_buf_printf(b, "%lld", (long long)v->i); break;
    case TRAZA_PT_HEX: tz_buf_printf(b, "0x%llx", (unsigned long long)v->i); break;
    case TRAZA_PT_DOUBLE: tz_buf_printf(b, "%.17g", v->d); break;
    case TRAZA_PT_STRING: tz_buf_puts(b, v->s ? v->s : ""); break;
    }
}

static void csv_field(tz_buf *b, const char *s)
{
    if (strpbrk(s, ",\"\n\r"))
        tz_buf_quoted(b, s, '"');
    else
        tz_buf_puts(b, s);
}

void tz_event_header(tz_buf *b, traza_text_format fmt)
{
    if (fmt == TRAZA_TEXT_JSON || fmt == TRAZA_TEXT_JSON_TICKS)
        tz_buf_putc(b, '[');
    else if (fmt == TRAZA_TEXT_CSV)
        tz_buf_puts(b, "id,ts,end_ts,type,category,producer,end_producer,level,value,cpu,params\n");
    else
        tz_buf_printf(b, "%8s %16s %16s %-20s %-24s %s\n", "id", "ts", "end_ts", "type", "producer", "details");
}

void tz_event_footer(tz_buf *b, traza_text_format fmt)
{
    if (fmt == TRAZA_TEXT_JSON || fmt == TRAZA_TEXT_JSON_TICKS)
        tz_buf_puts(b, "]\n");
}

void tz_event_row(tz_buf *b, traza_text_format fmt, traza_trace *t, const traza_event *ev, int first)
{
    const traza_event_type *ty = traza_trace_event_type(t, ev->type);
    char path[2048], epath[2048];
    traza_trace_producer_path(t, ev->producer, path, sizeof path);
    if (ev->has & TRAZA_HAS_END_PRODUCER)
        traza_trace_producer_path(t, ev->end_producer, epath, sizeof epath);
    if (fmt == TRAZA_TEXT_JSON || fmt == TRAZA_TEXT_JSON_TICKS) {
        if (!first)
            tz_buf_putc(b, ',');
        const char *q = fmt == TRAZA_TEXT_JSON_TICKS ? "\"" : "";
        tz_buf_printf(b, "{\"id\":%lld,\"ts\":%s%lld%s", (long long)ev->id, q, (long long)ev->ts, q);
        if (ev->has & TRAZA_HAS_END)
            tz_buf_printf(b, ",\"end_ts\":%s%lld%s", q, (long long)ev->end_ts, q);
        tz_buf_puts(b, ",\"type\":");
        tz_json_str(b, ty->name);
        tz_buf_printf(b, ",\"category\":\"%s\",\"producer\":", traza_category_name(ty->category));
        tz_json_str(b, path);
        if (ev->has & TRAZA_HAS_END_PRODUCER) {
            tz_buf_puts(b, ",\"end_producer\":");
            tz_json_str(b, epath);
        }
        if (ev->has & TRAZA_HAS_LEVEL)
            tz_buf_printf(b, ",\"level\":%d", ev->level);
        if (ev->has & TRAZA_HAS_VALUE) {
            tz_buf_puts(b, ",\"value\":");
            tz_json_num(b, ev->value);
        }
        if (ev->has & TRAZA_HAS_CPU)
            tz_buf_printf(b, ",\"cpu\":%d", ev->cpu);
        if (ev->nparams) {
            tz_buf_puts(b, ",\"params\":{");
            for (uint32_t i = 0; i < ev->nparams; i++) {
                const traza_param *p = &ev->params[i];
                if (i)
                    tz_buf_putc(b, ',');
                tz_json_str(b, traza_trace_param_def(t, p->def)->name);
                tz_buf_putc(b, ':');
                if (p->v.kind == TRAZA_PT_STRING)
                    tz_json_str(b, p->v.s);
                else if (p->v.kind == TRAZA_PT_HEX)
                    tz_buf_printf(b, "\"0x%llx\"", (unsigned long long)p->v.i);
                else if (p->v.kind == TRAZA_PT_INT)
                    tz_buf_printf(b, "%lld", (long long)p->v.i);
                else
                    tz_json_num(b, p->v.d);
            }
            tz_buf_putc(b, '}');
        }
        tz_buf_putc(b, '}');
        return;
    }
    if (fmt == TRAZA_TEXT_CSV) {
        tz_buf_printf(b, "%lld,%lld,", (long long)ev->id, (long long)ev->ts);
        if (ev->has & TRAZA_HAS_END)
            tz_buf_printf(b, "%lld", (long long)ev->end_ts);
        tz_buf_putc(b, ',');
        csv_field(b, ty->name);
        tz_buf_printf(b, ",%s,", traza_category_name(ty->category));
        csv_field(b, path);
        tz_buf_putc(b, ',');
        if (ev->has & TRAZA_HAS_END_PRODUCER)
            csv_field(b, epath);
        tz_buf_putc(b, ',');
        if (ev->has & TRAZA_HAS_LEVEL)
            tz_buf_printf(b, "%d", ev->level);
        tz_buf_putc(b, ',');
        if (ev->has & TRAZA_HAS_VALUE)
            tz_buf_printf(b, "%.17g", ev->value);
        tz_buf_putc(b, ',');
        if (ev->has & TRAZA_HAS_CPU)
            tz_buf_printf(b, "%d", ev->cpu);
        tz_buf_putc(b, ',');
        tz_buf pv;
        tz_buf_init(&pv);
        for (uint32_t i = 0; i < ev->nparams; i++) {
            if (i)
                tz_buf_putc(&pv, ';');
            tz_buf_printf(&pv, "%s=", traza_trace_param_def(t, ev->params[i].def)->name);
            value_text(&pv, &ev->params[i].v);
        }
        csv_field(b, pv.s ? pv.s : "");
        tz_buf_free(&pv);
        tz_buf_putc(b, '\n');
        return;
    }
    tz_buf_printf(b, "%8lld %16lld ", (long long)ev->id, (long long)ev->ts);
    if (ev->has & TRAZA_HAS_END)
        tz_buf_printf(b, "%16lld ", (long long)ev->end_ts);
    else
        tz_buf_printf(b, "%16s ", "");
    tz_buf_printf(b, "%-20s %-24s", ty->name, path);
    if (ev->has & TRAZA_HAS_END_PRODUCER)
        tz_buf_printf(b, " -> %s", epath);
    if (ev->has & TRAZA_HAS_LEVEL)
        tz_buf_printf(b, " level=%d", ev->level);
    if (ev->has & TRAZA_HAS_VALUE)
        tz_buf_printf(b, " value=%.17g", ev->value);
    if (ev->has & TRAZA_HAS_CPU)
        tz_buf_printf(b, " cpu=%d", ev->cpu);
    for (uint32_t i = 0; i < ev->nparams; i++) {
        tz_buf_printf(b, " %s=", traza_trace_param_def(t, ev->params[i].def)->name);
        value_text(b, &ev->params[i].v);
    }
    tz_buf_putc(b, '\n');
}

struct traza_event_text {
    traza_trace *t;
    traza_text_format fmt;
    traza_write_fn fn;
    void *arg;
    int64_t rows;
    tz_buf b; /* one piece's text, reset after each */
};

traza_event_text *traza_event_text_open(traza_trace *t, traza_text_format fmt, traza_write_fn fn, void *arg)
{
    traza_event_text *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->t = t;
    w->fmt = fmt;
    w->fn = fn;
    w->arg = arg;
    tz_buf_init(&w->b);
    return w;
}

/* Passes the piece written into w->b to fn. */
static int flush(traza_event_text *w)
{
    int rc = w->b.oom ? -1 : w->b.len ? w->fn(w->arg, w->b.s, w->b.len) : 0;
    tz_buf_reset(&w->b);
    w->b.oom = 0;
    return rc;
}

int traza_event_text_header(traza_event_text *w)
{
    tz_event_header(&w->b, w->fmt);
    return flush(w);
}

int traza_event_text_row(traza_event_text *w, const traza_event *ev)
{
    tz_event_row(&w->b, w->fmt, w->t, ev, w->rows++ == 0);
    return flush(w);
}

int traza_event_text_footer(traza_event_text *w)
{
    tz_event_footer(&w->b, w->fmt);
    return flush(w);
}

void traza_event_text_close(traza_event_text *w)
{
    if (!w)
        return;
    tz_buf_free(&w->b);
    free(w);
}
