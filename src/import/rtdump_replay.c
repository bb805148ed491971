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
 * unknown: the gap's start is taken). */
#include "import/rtdump.h"
#include "util/util.h"
#include "../../rt/include/traza_rt_format.h"

#include <stdlib.h>
#include <string.h>

/* The addresses a sync op's snapshot lists (the ops after it), bounded by the ops left. */
static size_t sync_frames(const tz_rtd_thread *t, size_t i)
{
    uint64_t n = t->ops[i].a;
    size_t left = t->nops - i - 1;
    return n <= left ? (size_t)n : left;
}

/* Number of the frames at the bottom of stack `addr` (depth entries) that the sync op
 * at i keeps (its snapshot starts with the same functions). */
static size_t sync_kept(const tz_rtd_thread *t, size_t i, const uint64_t *addr, size_t depth)
{
    size_t n = sync_frames(t, i), k = 0;
    const tz_rtd_op *f = &t->ops[i + 1];
    while (k < n && k < depth && addr[k] == f[k].a)
        k++;
    return k;
}

/* First walk: the end of every frame, by push order. */
static int find_ends(tz_rtd_replay *r, uint64_t *unmatched, traza_err *err)
{
    const tz_rtd_thread *t = r->t;
    size_t *seq = malloc(TZ_RTD_MAX_OPEN * sizeof *seq), depth = 0, cap = 0;
    if (!seq)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    int rc = 0;
#define PUSH(addr_)                                                                                              \
    do {                                                                                                         \
        if (TZ_GROW(r->ends, cap, r->nframes + 1) < 0 || TZ_GROW(r->seen_end, r->cap_seen, r->nframes + 1) < 0) { \
            rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");                                             \
            goto out;                                                                                            \
        }                                                                                                        \
        r->stack[depth] = (addr_);                                                                               \
        seq[depth++] = r->nframes++;                                                                             \
    } while (0)
#define POP(end_, seen_)                          \
    do {                                          \
        depth--;                                  \
        r->ends[seq[depth]] = (end_);             \
        r->seen_end[seq[depth]] = (uint8_t)(seen_); \
    } while (0)
    for (size_t i = 0; i < t->nopen && depth < TZ_RTD_MAX_OPEN; i++)
        PUSH(t->open[i]);
    uint64_t last = t->first_tsc;
    for (size_t i = 0; i < t->nops; i++) {
        const tz_rtd_op *o = &t->ops[i];
        uint8_t kind = t->kinds[i];
        last = o->tsc;
        if (kind == TZR_K_ENTRY) {
            if (depth >= TZ_RTD_MAX_OPEN) {
                rc = traza_err_set(err, TRAZA_E_FORMAT, "thread %u: calls nested deeper than %d", t->tid, TZ_RTD_MAX_OPEN);
                goto out;
            }
            PUSH(o->a);
        } else if (kind == TZR_K_EXIT) {
            if (!depth)
                (*unmatched)++;
            else
                POP(o->tsc, 1);
        } else if (kind == TZ_RTD_SYNC) {
            size_t n = sync_frames(t, i), k = sync_kept(t, i, r->stack, depth);
            while (depth > k)
                POP(o->tsc, 0);
            for (; k < n && depth < TZ_RTD_MAX_OPEN; k++)
                PUSH(t->ops[i + 1 + k].a);
            i += n;
        }
    }
    while (depth) /* still running when the dump was written */
        POP(last, 0);
#undef PUSH
#undef POP
out:
    free(seq);
    return rc;
}

int tz_rtd_replay_open(tz_rtd_replay *r, const tz_rtd_thread *t, uint64_t *unmatched, traza_err *err)
{
    memset(r, 0, sizeof *r);
    r->t = t;
    if (!(r->stack = malloc(TZ_RTD_MAX_OPEN * sizeof *r->stack))) {
        tz_rtd_replay_close(r);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    if (find_ends(r, unmatched, err) < 0) {
        tz_rtd_replay_close(r);
        return -1;
    }
    /* the second walk starts with the functions open at the window's start */
    r->q_addr = t->open;
    r->q_n = t->nopen;
    r->q_tsc = t->first_tsc;
    return 0;
}

void tz_rtd_replay_close(tz_rtd_replay *r)
{
    free(r->ends);
    free(r->seen_end);
    free(r->stack);
    memset(r, 0, sizeof *r);
}

/* Pushes a frame on the second walk and describes its call in *c. */
static void push(tz_rtd_replay *r, uint64_t addr, uint64_t start, int open, tz_rtd_call *c)
{
    size_t s = r->next_frame++;
    r->stack[r->depth] = addr;
    *c = (tz_rtd_call){addr, start, r->ends[s], (int)r->depth, open, !r->seen_end[s]};
    r->depth++;
}

int tz_rtd_replay_next(tz_rtd_replay *r, tz_rtd_call *call, const tz_rtd_user **user)
{
    const tz_rtd_thread *t = r->t;
    for (;;) {
        if (r->q_pos < r->q_n && r->depth < TZ_RTD_MAX_OPEN) {
            /* frames open from the start, or added by a snapshot */
            size_t k = r->q_pos++;
            push(r, r->q_ops ? r->q_ops[k].a : r->q_addr[k], r->q_tsc, 1, call);
            return 1;
        }
        r->q_n = 0;
        if (r->i >= t->nops)
            return 0;
        size_t i = r->i++;
        const tz_rtd_op *o = &t->ops[i];
        uint8_t kind = t->kinds[i];
        if (kind == TZR_K_ENTRY) {
            push(r, o->a, o->tsc, 0, call);
            return 1;
        }
        if (kind == TZR_K_EXIT) {
            if (r->depth)
                r->depth--;
        } else if (kind == TZ_RTD_SYNC) {
            size_t n = sync_frames(t, i), k = sync_kept(t, i, r->stack, r->depth);
            r->depth = k;
            r->q_ops = &t->ops[i + 1 + k];
            r->q_pos = 0;
            r->q_n = n - k;
            r->q_tsc = o->tsc;
            r->i += n;
        } else if (kind == TZR_K_USER && o->a < t->nusers) {
            *user = &t->users[o->a];
            return 2;
        }
    }
}
