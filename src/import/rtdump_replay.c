/* A thread's operations replayed as calls and user events, in the order they start.
 *
 * A call is known whole only at its exit, so calls complete in end order (children
 * before their parent). Handing them on in start order lets the store take them as
 * they come, with no sort: a first walk over the operations gives every frame pushed
 * on the call stack its end (and whether that end was seen); the second walk, done
 * one item at a time by tz_rtd_replay_next, pushes the frames again and hands each
 * call on as it is pushed. The frames are those of entries, of the functions already
 * open when the window starts, and of those a block's stack snapshot (TZ_RTD_SYNC)
 * adds after a gap; a snapshot also ends the frames it does not hold (their end is
 * unknown: the gap's start is taken).
 *
 * A frame's end is kept as its duration in 31 bits and whether its exit was seen in
 * the 32nd: 4 bytes a call. The rare frame longer than 2^31 - 2 ticks, or ending before
 * it starts (a crafted dump), has its end in a side list. */
#include "import/rtdump.h"
#include "util/util.h"
#include "../../rt/include/traza_rt_format.h"

#include <stdlib.h>
#include <string.h>

#define SEEN 0x80000000u

/* Reads the frames that snapshot o lists (the operations after it) into r->snap: how
 * many. The cursor moves past them. */
static size_t read_snapshot(tz_rtd_replay *r, tz_rtd_cursor *c, const tz_rtd_op *o)
{
    size_t n = 0;
    tz_rtd_op f;
    while (n < o->a && n < TZ_RTD_MAX_OPEN && tz_rtd_cursor_next(c, &f))
        r->snap[n++] = f.a;
    return n;
}

/* Number of the frames at the bottom of the stack (depth entries) that a snapshot of
 * n frames keeps (it starts with the same functions). */
static size_t snapshot_kept(const tz_rtd_replay *r, size_t depth, size_t n)
{
    size_t k = 0;
    while (k < n && k < depth && r->stack[k] == r->snap[k])
        k++;
    return k;
}

static int far_cmp(const void *a, const void *b)
{
    size_t x = ((const struct tz_rtd_far *)a)->frame, y = ((const struct tz_rtd_far *)b)->frame;
    return x < y ? -1 : x > y;
}

/* Records the end of frame f, which started at `start`. 0, or -1 out of memory. */
static int set_end(tz_rtd_replay *r, size_t f, uint64_t start, uint64_t end, int seen)
{
    uint32_t s = seen ? SEEN : 0;
    if (end >= start && end - start < TZ_RTD_LONG) {
        r->ends[f] = (uint32_t)(end - start) | s;
        return 0;
    }
    if (TZ_GROW(r->far, r->far_cap, r->nfar + 1) < 0)
        return -1;
    r->far[r->nfar++] = (struct tz_rtd_far){f, end};
    r->ends[f] = TZ_RTD_LONG | s;
    return 0;
}

/* First walk: the end of every frame, by push order. */
static int find_ends(tz_rtd_replay *r, uint64_t *unmatched, traza_err *err)
{
    const tz_rtd_thread *t = r->t;
    size_t *seq = malloc(TZ_RTD_MAX_OPEN * sizeof *seq), depth = 0, cap = 0;
    uint64_t *start = malloc(TZ_RTD_MAX_OPEN * sizeof *start);
    int rc = 0;
    if (!seq || !start) {
        rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        goto out;
    }
#define PUSH(addr_, tsc_)                                                    \
    do {                                                                     \
        if (TZ_GROW(r->ends, cap, r->nframes + 1) < 0)                       \
            goto nomem;                                                      \
        r->stack[depth] = (addr_);                                           \
        start[depth] = (tsc_);                                               \
        seq[depth++] = r->nframes++;                                         \
    } while (0)
#define POP(end_, seen_)                                                     \
    do {                                                                     \
        depth--;                                                             \
        if (set_end(r, seq[depth], start[depth], (end_), (seen_)) < 0)       \
            goto nomem;                                                      \
    } while (0)
    for (size_t i = 0; i < t->nopen && depth < TZ_RTD_MAX_OPEN; i++)
        PUSH(t->open[i], t->first_tsc);
    uint64_t last = t->first_tsc;
    tz_rtd_cursor c;
    tz_rtd_cursor_init(&c, t);
    tz_rtd_op o;
    while (tz_rtd_cursor_next(&c, &o)) {
        last = o.tsc;
        if (o.kind == TZR_K_ENTRY) {
            if (depth >= TZ_RTD_MAX_OPEN) {
                rc = traza_err_set(err, TRAZA_E_FORMAT, "thread %u: calls nested deeper than %d", t->tid, TZ_RTD_MAX_OPEN);
                goto out;
            }
            PUSH(o.a, o.tsc);
        } else if (o.kind == TZR_K_EXIT) {
            if (!depth)
                (*unmatched)++;
            else
                POP(o.tsc, 1);
        } else if (o.kind == TZ_RTD_SYNC) {
            size_t n = read_snapshot(r, &c, &o), k = snapshot_kept(r, depth, n);
            while (depth > k)
                POP(o.tsc, 0);
            for (; k < n && depth < TZ_RTD_MAX_OPEN; k++)
                PUSH(r->snap[k], o.tsc);
        }
    }
    while (depth) /* still running when the dump was written */
        POP(last, 0);
#undef PUSH
#undef POP
    /* the second walk meets the far ends in push order */
    if (r->nfar)
        qsort(r->far, r->nfar, sizeof *r->far, far_cmp);
    goto out;
nomem:
    rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
out:
    free(seq);
    free(start);
    return rc;
}

int tz_rtd_replay_open(tz_rtd_replay *r, const tz_rtd_thread *t, uint64_t *unmatched, traza_err *err)
{
    memset(r, 0, sizeof *r);
    r->t = t;
    if (!(r->stack = malloc(TZ_RTD_MAX_OPEN * sizeof *r->stack)) || !(r->snap = malloc(TZ_RTD_MAX_OPEN * sizeof *r->snap))) {
        tz_rtd_replay_close(r);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    if (find_ends(r, unmatched, err) < 0) {
        tz_rtd_replay_close(r);
        return -1;
    }
    /* the second walk starts with the functions open at the window's start */
    tz_rtd_cursor_init(&r->cur, t);
    r->q_addr = t->open;
    r->q_n = t->nopen;
    r->q_tsc = t->first_tsc;
    return 0;
}

void tz_rtd_replay_close(tz_rtd_replay *r)
{
    free(r->ends);
    free(r->far);
    free(r->stack);
    free(r->snap);
    memset(r, 0, sizeof *r);
}

/* Pushes a frame on the second walk and describes its call in *c. */
static void push(tz_rtd_replay *r, uint64_t addr, uint64_t start, int open, tz_rtd_call *c)
{
    size_t s = r->next_frame++;
    uint32_t e = r->ends[s];
    uint64_t end = start + (e & ~SEEN);
    if ((e & ~SEEN) == TZ_RTD_LONG)
        end = r->far_pos < r->nfar && r->far[r->far_pos].frame == s ? r->far[r->far_pos++].end : start;
    r->stack[r->depth] = addr;
    *c = (tz_rtd_call){addr, start, end, (int)r->depth, open, !(e & SEEN)};
    r->depth++;
}

int tz_rtd_replay_next(tz_rtd_replay *r, tz_rtd_call *call, const tz_rtd_user **user)
{
    const tz_rtd_thread *t = r->t;
    for (;;) {
        if (r->q_pos < r->q_n && r->depth < TZ_RTD_MAX_OPEN) {
            /* frames open from the start, or added by a snapshot */
            push(r, r->q_addr[r->q_pos++], r->q_tsc, 1, call);
            return 1;
        }
        r->q_n = 0;
        tz_rtd_op o;
        if (!tz_rtd_cursor_next(&r->cur, &o))
            return 0;
        if (o.kind == TZR_K_ENTRY) {
            push(r, o.a, o.tsc, 0, call);
            return 1;
        }
        if (o.kind == TZR_K_EXIT) {
            if (r->depth)
                r->depth--;
        } else if (o.kind == TZ_RTD_SYNC) {
            size_t n = read_snapshot(r, &r->cur, &o), k = snapshot_kept(r, r->depth, n);
            r->depth = k;
            r->q_addr = r->snap + k;
            r->q_pos = 0;
            r->q_n = n - k;
            r->q_tsc = o.tsc;
        } else if (o.kind == TZR_K_USER && o.a < t->nusers) {
            *user = &t->users[o.a];
            return 2;
        }
    }
}
