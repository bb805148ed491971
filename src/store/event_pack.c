/* Packed events and posting lists: the byte layouts (doc/store.md, "Packed events"). */
#include "store/event_pack.h"
#include "util/le.h"

#include <math.h>
#include <string.h>

/* flags byte: the TRAZA_HAS_* bits (0..4), then the type and the producer given
 * (else the previous event's) */
#define F_HAS 0x1fu
#define F_TYPE 0x20u
#define F_PROD 0x40u

static uint64_t zz(int64_t v) { return ((uint64_t)v << 1) ^ (v < 0 ? ~(uint64_t)0 : 0); }
static int64_t unzz(uint64_t u) { return (u & 1) ? -(int64_t)(u >> 1) - 1 : (int64_t)(u >> 1); }

size_t tz_pack_put(const traza_event *prev, const traza_event *ev, unsigned char *out)
{
    uint32_t has = ev->has & F_HAS;
    if ((has & TRAZA_HAS_VALUE) && isnan(ev->value))
        has &= ~(uint32_t)TRAZA_HAS_VALUE; /* as SQLite stores a NaN: NULL */
    int new_type = !prev || prev->type != ev->type, new_prod = !prev || prev->producer != ev->producer;
    size_t n = 1;
    out[0] = (unsigned char)(has | (new_type ? F_TYPE : 0) | (new_prod ? F_PROD : 0));
    /* time: the gap from the previous event (time order), the first one whole */
    n += tz_put_uleb(out + n, prev ? (uint64_t)ev->ts - (uint64_t)prev->ts : zz(ev->ts));
    if (new_type)
        n += tz_put_uleb(out + n, zz(ev->type));
    if (new_prod)
        n += tz_put_uleb(out + n, zz(ev->producer));
    if (has & TRAZA_HAS_END) /* the duration, wrapping: any end reads back */
        n += tz_put_uleb(out + n, zz((int64_t)((uint64_t)ev->end_ts - (uint64_t)ev->ts)));
    if (has & TRAZA_HAS_END_PRODUCER)
        n += tz_put_uleb(out + n, zz(ev->end_producer));
    if (has & TRAZA_HAS_LEVEL)
        n += tz_put_uleb(out + n, zz(ev->level));
    if (has & TRAZA_HAS_VALUE) {
        uint64_t bits;
        memcpy(&bits, &ev->value, sizeof bits);
        tz_put_le64(out + n, bits);
        n += 8;
    }
    if (has & TRAZA_HAS_CPU)
        n += tz_put_uleb(out + n, zz(ev->cpu));
    return n;
}

/* A zigzagged 32-bit field. */
static int get32(const unsigned char *b, size_t n, size_t *pos, int32_t *out)
{
    uint64_t u;
    if (tz_get_uleb(b, n, pos, &u) < 0)
        return -1;
    int64_t v = unzz(u);
    if (v < INT32_MIN || v > INT32_MAX)
        return -1;
    *out = (int32_t)v;
    return 0;
}

int tz_pack_decode(const unsigned char *b, size_t n, int64_t first_id, tz_pack_block *out)
{
    size_t pos = 0, k = 0;
    int64_t ts = 0;
    int32_t type = 0, prod = 0;
    out->first_id = first_id;
    while (pos < n) {
        if (k == TZ_PACK_BLOCK)
            return -1;
        unsigned f = b[pos++];
        if (f & 0x80u || (k == 0 && (f & (F_TYPE | F_PROD)) != (F_TYPE | F_PROD)))
            return -1;
        uint64_t u;
        if (tz_get_uleb(b, n, &pos, &u) < 0)
            return -1;
        ts = k == 0 ? unzz(u) : (int64_t)((uint64_t)ts + u); /* wraps as it was written */
        if ((f & F_TYPE) && get32(b, n, &pos, &type) < 0)
            return -1;
        if ((f & F_PROD) && get32(b, n, &pos, &prod) < 0)
            return -1;
        out->ts[k] = ts;
        out->type[k] = type;
        out->producer[k] = prod;
        out->end_ts[k] = 0;
        out->end_producer[k] = out->level[k] = out->cpu[k] = 0;
        out->value[k] = 0;
        out->has[k] = (uint8_t)(f & F_HAS);
        if (f & TRAZA_HAS_END) {
            if (tz_get_uleb(b, n, &pos, &u) < 0)
                return -1;
            out->end_ts[k] = (int64_t)((uint64_t)ts + (uint64_t)unzz(u));
        }
        if ((f & TRAZA_HAS_END_PRODUCER) && get32(b, n, &pos, &out->end_producer[k]) < 0)
            return -1;
        if ((f & TRAZA_HAS_LEVEL) && get32(b, n, &pos, &out->level[k]) < 0)
            return -1;
        if (f & TRAZA_HAS_VALUE) {
            if (n - pos < 8)
                return -1;
            uint64_t bits = tz_get_le64(b + pos);
            memcpy(&out->value[k], &bits, sizeof bits);
            pos += 8;
        }
        if ((f & TRAZA_HAS_CPU) && get32(b, n, &pos, &out->cpu[k]) < 0)
            return -1;
        k++;
    }
    if (k == 0 || first_id < 1 || first_id > INT64_MAX - (int64_t)k)
        return -1;
    out->n = k;
    return 0;
}

void tz_pack_event(const tz_pack_block *blk, size_t i, traza_event *ev)
{
    memset(ev, 0, sizeof *ev);
    ev->id = blk->first_id + (int64_t)i;
    ev->ts = blk->ts[i];
    ev->end_ts = blk->end_ts[i];
    ev->type = blk->type[i];
    ev->producer = blk->producer[i];
    ev->end_producer = blk->end_producer[i];
    ev->level = blk->level[i];
    ev->cpu = blk->cpu[i];
    ev->value = blk->value[i];
    ev->has = blk->has[i];
}

void tz_pack_put_id(tz_buf *out, int64_t prev, int64_t id)
{
    unsigned char b[10];
    tz_buf_put(out, (const char *)b, tz_put_uleb(b, (uint64_t)id - (uint64_t)prev));
}

long tz_pack_ids(const unsigned char *b, size_t n, int64_t first, int64_t *ids, size_t cap)
{
    if (cap == 0 || first < 1)
        return -1;
    size_t k = 0, pos = 0;
    ids[k++] = first;
    while (pos < n) {
        uint64_t gap;
        if (k == cap || tz_get_uleb(b, n, &pos, &gap) < 0 || gap == 0 || gap > (uint64_t)(INT64_MAX - ids[k - 1]))
            return -1;
        ids[k] = ids[k - 1] + (int64_t)gap;
        k++;
    }
    return (long)k;
}
