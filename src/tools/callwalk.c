/* One pass over the calls of a trace with a stack per producer (see callwalk.h). The
 * store gives calls in time order; the calls of one tick are put in (producer, level)
 * order first, as traza_callprofile_build's sort does. */
#include "tools/callwalk.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>


typedef struct cw_stack {
    tz_cw_frame *f; /* by level */
    size_t cap;
    int depth;
} cw_stack;

typedef struct cw {
    const tz_callwalk_fns *fns;
    void *ctx;
    tz_imap prod; /* producer -> stack index */
    cw_stack *st;
    size_t nst, stcap;
    traza_cp_call *tick; /* the calls of the current tick */
    size_t ntick, tickcap;
} cw;

static int close_down(cw *w, cw_stack *s, int level, traza_err *err)
{
    for (int k = s->depth - 1; k >= level; k--)
        if (s->f[k].present) {
            s->f[k].present = 0;
            if (w->fns->close && w->fns->close(w->ctx, &s->f[k], err) < 0)
                return -1;
        }
    if (s->depth > level)
        s->depth = level;
    return 0;
}

static int visit(cw *w, const traza_cp_call *c, traza_err *err)
{
    int64_t si;
    if (!tz_imap_get(&w->prod, c->producer, &si)) {
        if (TZ_GROW(w->st, w->stcap, w->nst + 1) < 0 || tz_imap_put(&w->prod, c->producer, (int64_t)w->nst) < 0)
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        memset(&w->st[w->nst], 0, sizeof w->st[w->nst]);
        si = (int64_t)w->nst++;
    }
    cw_stack *s = &w->st[si];
    int L = c->level;
    if (close_down(w, s, L, err) < 0)
        return -1;
    if (TZ_GROW(s->f, s->cap, (size_t)L + 1) < 0)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    for (int k = s->depth; k < L; k++) /* levels skipped (a thread first seen deep in its stack) have no call */
        s->f[k].present = 0;
    tz_cw_frame *parent = L > 0 && s->f[L - 1].present ? &s->f[L - 1] : NULL;
    if (parent)
        parent->child_time += c->end - c->ts;
    tz_cw_frame *f = &s->f[L];
    *f = (tz_cw_frame){.c = *c, .present = 1};
    s->depth = L + 1;
    return w->fns->open ? w->fns->open(w->ctx, f, parent, err) : 0;
}

static int cmp_tick(const void *a, const void *b)
{
    const traza_cp_call *x = a, *y = b;
    if (x->producer != y->producer)
        return x->producer < y->producer ? -1 : 1;
    return (x->level > y->level) - (x->level < y->level);
}

static int flush_tick(cw *w, traza_err *err)
{
    if (w->ntick > 1) /* the store's order within a tick is kept for equal keys (ends differ) */
        for (size_t i = 1; i < w->ntick; i++) {
            traza_cp_call c = w->tick[i];
            size_t j = i;
            while (j > 0 && cmp_tick(&w->tick[j - 1], &c) > 0) {
                w->tick[j] = w->tick[j - 1];
                j--;
            }
            w->tick[j] = c;
        }
    for (size_t i = 0; i < w->ntick; i++)
        if (visit(w, &w->tick[i], err) < 0)
            return -1;
    w->ntick = 0;
    return 0;
}

int tz_callwalk(traza_trace *t, const tz_callwalk_fns *fns, void *ctx, traza_err *err)
{
    cw w;
    memset(&w, 0, sizeof w);
    w.fns = fns;
    w.ctx = ctx;
    tz_imap_init(&w.prod);
    traza_filter f;
    traza_filter_init(&f);
    f.categories = 1u << TRAZA_STATE;
    traza_cursor *cur = traza_query(t, &f, err);
    int rc = cur ? 0 : -1;
    const traza_event *ev;
    while (rc == 0 && (rc = traza_cursor_next(cur, &ev, err)) == 1) {
        rc = 0;
        if (w.ntick && w.tick[0].ts != ev->ts && flush_tick(&w, err) < 0) {
            rc = -1;
            break;
        }
        if (TZ_GROW(w.tick, w.tickcap, w.ntick + 1) < 0) {
            rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            break;
        }
        w.tick[w.ntick++] = tz_cp_call_of(ev);
    }
    traza_cursor_free(cur);
    if (rc == 0)
        rc = flush_tick(&w, err);
    for (size_t i = 0; rc == 0 && i < w.nst; i++)
        rc = close_down(&w, &w.st[i], 0, err);
    for (size_t i = 0; i < w.nst; i++)
        free(w.st[i].f);
    free(w.st);
    free(w.tick);
    tz_imap_free(&w.prod);
    return rc;
}
