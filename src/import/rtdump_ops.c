/* A thread's operations, encoded in memory between the parse and the replay.
 *
 * An operation is a head varint, then its argument:
 *   head: zigzag(tick - the previous operation's tick) << 4 | code << 1, or, when that
 *         difference does not fit in 59 bits, code << 1 | 1 followed by the zigzag
 *         difference as its own varint;
 *   code: 0 entry, 1 exit, 2 user, 3 snapshot (TZ_RTD_SYNC), 4 snapshot frame;
 *   argument: entry: zigzag(address - the previous entry's address); user, snapshot
 *         and snapshot frame: the value as is; exit: none.
 * Calls follow each other by a few hundred ticks and mostly into nearby functions, so
 * an exit takes 1 to 3 bytes and an entry 3 to 6, where a decoded operation takes 17:
 * for a dump of 23 M calls, some 250 MB instead of 800. */
#include "import/rtdump.h"
#include "util/le.h"
#include "util/util.h"
#include "../../rt/include/traza_rt_format.h"

#define OP_MAX_BYTES 30 /* three varints */

static int code_of(uint8_t kind)
{
    switch (kind) {
    case TZR_K_ENTRY: return TZ_RTD_OP_ENTRY;
    case TZR_K_EXIT: return TZ_RTD_OP_EXIT;
    case TZR_K_USER: return TZ_RTD_OP_USER;
    case TZ_RTD_SYNC: return TZ_RTD_OP_SYNC;
    default: return TZ_RTD_OP_SYNC_FRAME;
    }
}

int tz_rtd_ops_put(tz_rtd_thread *t, uint8_t kind, uint64_t tsc, uint64_t a)
{
    if (t->ops_len + OP_MAX_BYTES > t->ops_cap && TZ_GROW(t->ops, t->ops_cap, t->ops_len + OP_MAX_BYTES) < 0)
        return -1;
    uint8_t *p = t->ops + t->ops_len;
    unsigned code = (unsigned)code_of(kind);
    uint64_t d = tzr_zigzag((int64_t)(tsc - t->ops_tsc));
    size_t n;
    if (d >> 59)
        n = tz_put_uleb(p, code << 1 | 1), n += tz_put_uleb(p + n, d);
    else
        n = tz_put_uleb(p, d << 4 | code << 1);
    if (code == TZ_RTD_OP_ENTRY) {
        n += tz_put_uleb(p + n, tzr_zigzag((int64_t)(a - t->ops_func)));
        t->ops_func = a;
    } else if (code != TZ_RTD_OP_EXIT) {
        n += tz_put_uleb(p + n, a);
    }
    t->ops_len += n;
    t->ops_tsc = tsc;
    t->nops++;
    return 0;
}

void tz_rtd_cursor_init(tz_rtd_cursor *c, const tz_rtd_thread *t)
{
    c->p = t->ops;
    c->end = t->ops ? t->ops + t->ops_len : NULL;
    c->tsc = c->func = 0;
}

int tz_rtd_op_at(const tz_rtd_thread *t, size_t i, tz_rtd_op *o)
{
    tz_rtd_cursor c;
    tz_rtd_cursor_init(&c, t);
    for (size_t k = 0; k <= i; k++)
        if (!tz_rtd_cursor_next(&c, o))
            return -1;
    return 0;
}
