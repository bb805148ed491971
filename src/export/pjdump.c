/* pjdump export: pj_dump's own CSV-like lines and number formats, so the output
 * compares line by line with `pj_dump` run on the original Pajé file:
 *   Container, Parent, Type, Start, End, Duration, Name   (times as C++ streams print
 *                                                          doubles: %g, 6 digits)
 *   State, Container, Type, Start, End, Duration, Imbrication, Value   (%.6f)
 *   Event, Container, Type, Time, Value
 *   Variable, Container, Type, Start, End, Duration, Value
 *   Link, Container, Type, Start, End, Duration, Value, StartContainer, EndContainer, Key
 * Times are computed as pj_dump computes them: the double nearest to the decimal
 * time, durations as a difference of doubles.
 *
 * Order: pj_dump walks containers depth first through std::map containers keyed by
 * Pajé identifiers (aliases), which a stored trace does not keep, and lists links in
 * the order they were completed. traza writes each container's line followed by its
 * entities in time order, containers in creation order; the set of lines is the same
 * and a sorted comparison (what the tests do) matches. */
#include "export/exporters.h"
#include "export/paje_meta.h"
#include "formats/paje_common.h"
#include "util/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int flush_buf(tz_buf *b, FILE *out, traza_err *err)
{
    if (b->oom)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    if (b->len && fwrite(b->s, 1, b->len, out) != b->len)
        return traza_err_set(err, TRAZA_E_IO, "writing pjdump: %s", strerror(errno));
    tz_buf_reset(b);
    return 0;
}

static void fixed(tz_buf *b, double v) { tz_buf_printf(b, ", %.6f", v); }

static int write_pjdump(traza_trace *t, const traza_filter *f, FILE *out, traza_err *err)
{
    tz_paje_meta m;
    if (tz_paje_meta_load(t, &m, err) < 0)
        return -1;
    const traza_trace_info *in = traza_trace_info_of(t);
    int u = in->time_unit;
    const traza_producer *ps;
    size_t np = traza_trace_producers(t, &ps);
    tz_buf b;
    tz_buf_init(&b);
    double tmax = tz_paje_time_double(in->max_ts, u);
    if (!m.paje_root)
        tz_buf_printf(&b, "Container, 0, 0, 0, %g, %g, 0\n", tmax, tmax);
    for (size_t i = 0; i < np; i++) {
        const traza_producer *p = traza_trace_producer(t, (int32_t)i);
        double s = m.has_ctimes[i] ? tz_paje_time_double(m.cstart[i], u) : 0;
        double e = m.has_ctimes[i] ? tz_paje_time_double(m.cend[i], u) : tmax;
        const char *parent = p->parent >= 0 ? traza_trace_producer(t, p->parent)->name : "0";
        tz_buf_printf(&b, "Container, %s, %s, %g, %g, %g, %s\n", parent, p->type ? p->type : "", s, e, e - s, p->name);
    }
    int rc = flush_buf(&b, out, err);
    traza_filter all;
    traza_filter_init(&all);
    traza_filter qf = f ? *f : all;
    qf.with_params = 1;
    traza_cursor *c = rc < 0 ? NULL : traza_query(t, &qf, err);
    if (!c)
        rc = -1;
    const traza_event *ev;
    while (rc == 0 && (rc = traza_cursor_next(c, &ev, err)) > 0) {
        rc = 0;
        const traza_event_type *et = traza_trace_event_type(t, ev->type);
        const tz_paje_etype *pe = &m.etypes[ev->type];
        const char *cname = traza_trace_producer(t, ev->producer)->name;
        double s = tz_paje_time_double(ev->ts, u);
        double e = (ev->has & TRAZA_HAS_END) ? tz_paje_time_double(ev->end_ts, u) : s;
        const char *value = *pe->value ? pe->value : et->name;
        switch (et->category) {
        case TRAZA_STATE:
            tz_buf_printf(&b, "State, %s, %s", cname, pe->ptype);
            fixed(&b, s); fixed(&b, e); fixed(&b, e - s);
            fixed(&b, (ev->has & TRAZA_HAS_LEVEL) ? (double)ev->level : 0.0);
            tz_buf_printf(&b, ", %s\n", value);
            break;
        case TRAZA_PUNCTUAL:
            tz_buf_printf(&b, "Event, %s, %s", cname, pe->ptype);
            fixed(&b, s);
            tz_buf_printf(&b, ", %s\n", value);
            break;
        case TRAZA_VARIABLE:
            tz_buf_printf(&b, "Variable, %s, %s", cname, pe->ptype);
            fixed(&b, s); fixed(&b, e); fixed(&b, e - s);
            fixed(&b, (ev->has & TRAZA_HAS_VALUE) ? ev->value : 0.0);
            tz_buf_putc(&b, '\n');
            break;
        default: {
            const char *holder = "0", *lvalue = "", *key = "";
            for (uint32_t i = 0; i < ev->nparams; i++) {
                const traza_param *pp = &ev->params[i];
                const char *pn = traza_trace_param_def(t, pp->def)->name;
                if (strcmp(pn, TZ_PAJE_P_CONTAINER) == 0 && pp->v.kind == TRAZA_PT_INT && pp->v.i >= 0 && (size_t)pp->v.i < np)
                    holder = traza_trace_producer(t, (int32_t)pp->v.i)->name;
                else if (strcmp(pn, TZ_PAJE_P_VALUE) == 0 && pp->v.kind == TRAZA_PT_STRING)
                    lvalue = pp->v.s;
                else if (strcmp(pn, TZ_PAJE_P_KEY) == 0 && pp->v.kind == TRAZA_PT_STRING)
                    key = pp->v.s;
            }
            const char *to = (ev->has & TRAZA_HAS_END_PRODUCER) ? traza_trace_producer(t, ev->end_producer)->name : cname;
            tz_buf_printf(&b, "Link, %s, %s", holder, pe->ptype);
            fixed(&b, s); fixed(&b, e); fixed(&b, e - s);
            tz_buf_printf(&b, ", %s, %s, %s, %s\n", lvalue, cname, to, key);
            break;
        }
        }
        if (b.len > (1u << 20))
            rc = flush_buf(&b, out, err);
    }
    if (rc == 0)
        rc = flush_buf(&b, out, err);
    traza_cursor_free(c);
    tz_buf_free(&b);
    tz_paje_meta_free(&m);
    return rc < 0 ? -1 : 0;
}

const traza_exporter tz_exporter_pjdump = {"pjdump", "export-pjdump", "pj_dump's CSV lines (compares with pj_dump's output)", write_pjdump, NULL};
