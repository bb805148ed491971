/* Reading a bare-metal runtime's ring through its control block (rtring.h). */
#include "import/rtring.h"
#include "import/rtdump.h"
#include "util/le.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define SLOT_EVENTS(r) ((uint64_t)(r)->w[TZRC_W_BLOCK_SIZE] - TZR_CHUNK_HEADER_SIZE - TZR_BLOCK_HEADER_SIZE)

static const char *const word_names[TZRC_WORDS] = {
    "magic", "version", "self address", "arch", "ring address", "block size",
    "block count", "clock frequency", "write position address", "sequence address", "event count address",
    "overflow count address",
};

int tz_rtring_init(tz_rtring *r, const uint8_t *ctl, size_t n, const char *name, uint64_t at, traza_err *err)
{
    memset(r, 0, sizeof *r);
    tz_buf_init(&r->pend);
    tz_buf_init(&r->chunks);
    if (n < TZRC_SIZE)
        return traza_err_set(err, TRAZA_E_FORMAT, "%s: offset %" PRIu64 ": control block of %zu bytes, expected %u",
                             name, at, n, TZRC_SIZE);
    for (size_t i = 0; i < TZRC_WORDS; i++)
        r->w[i] = tz_get_le32(ctl + 4 * i);
    const uint32_t *w = r->w;
    uint32_t bad = TZRC_WORDS, expected = 0;
    if (w[TZRC_W_MAGIC] != TZRC_MAGIC)
        bad = TZRC_W_MAGIC, expected = TZRC_MAGIC;
    else if (w[TZRC_W_VERSION] != TZRC_VERSION)
        bad = TZRC_W_VERSION, expected = TZRC_VERSION;
    else if (w[TZRC_W_ARCH] != TZR_ARCH_CORTEX_M)
        bad = TZRC_W_ARCH, expected = TZR_ARCH_CORTEX_M;
    if (bad < TZRC_WORDS)
        return traza_err_set(err, TRAZA_E_FORMAT,
                             "%s: offset %" PRIu64 ": control block %s: expected 0x%" PRIx32 ", found 0x%" PRIx32, name,
                             at + 4 * bad, word_names[bad], expected, w[bad]);
    uint64_t bs = w[TZRC_W_BLOCK_SIZE], nb = w[TZRC_W_NBLOCKS];
    if (bs < TZR_CHUNK_HEADER_SIZE + TZR_BLOCK_HEADER_SIZE + 64 || bs > TZR_MAX_CHUNK || bs % 4)
        return traza_err_set(err, TRAZA_E_FORMAT,
                             "%s: offset %" PRIu64 ": control block block size: expected a multiple of 4 in %u..%u, "
                             "found %" PRIu64, name, at + 4 * TZRC_W_BLOCK_SIZE,
                             TZR_CHUNK_HEADER_SIZE + TZR_BLOCK_HEADER_SIZE + 64, TZR_MAX_CHUNK, bs);
    if (nb == 0 || nb * bs > (1u << 30) || (uint64_t)w[TZRC_W_RING] + nb * bs > UINT32_MAX + (uint64_t)1)
        return traza_err_set(err, TRAZA_E_FORMAT,
                             "%s: offset %" PRIu64 ": control block block count: expected 1..%" PRIu64
                             " blocks inside the address space, found %" PRIu64,
                             name, at + 4 * TZRC_W_NBLOCKS, (uint64_t)(1u << 30) / bs, nb);
    return 0;
}

static int rd32(tz_rtring_read_fn rd, void *user, uint32_t addr, uint32_t *v, traza_err *err)
{
    uint8_t b[4];
    if (rd(user, addr, b, 4, err) < 0)
        return -1;
    *v = tz_get_le32(b);
    return 0;
}

/* pend (a block's header and its events taken so far) as a BLOCK chunk into out */
static void put_pend(tz_rtring *r, tz_buf *out)
{
    uint8_t *b = (uint8_t *)r->pend.s;
    uint32_t used = (uint32_t)(r->pend.len - TZR_BLOCK_HEADER_SIZE);
    tz_put_le32(b + 20, used);
    uint8_t h[TZR_CHUNK_HEADER_SIZE];
    tz_put_le32(h, TZR_CHUNK_BLOCK);
    tz_put_le32(h + 4, (uint32_t)r->pend.len);
    tz_put_le64(h + 8, tzr_sum64(b, r->pend.len));
    tz_buf_put(out, h, sizeof h);
    tz_buf_put(out, b, r->pend.len);
}

/* pend, a block taken whole (or all that will be of it), among the finished chunks */
static void emit_pend(tz_rtring *r)
{
    if (!r->pend.len)
        return;
    put_pend(r, &r->chunks);
    r->nchunks++;
    tz_buf_reset(&r->pend);
    r->scanned = 0;
}

int tz_rtring_poll(tz_rtring *r, tz_rtring_read_fn rd, void *user, uint64_t *new_bytes, traza_err *err)
{
    const uint32_t *w = r->w;
    uint32_t wp, seq;
    uint64_t taken = 0;
    if (new_bytes)
        *new_bytes = 0;
    if (rd32(rd, user, w[TZRC_W_WP_ADDR], &wp, err) < 0 || rd32(rd, user, w[TZRC_W_SEQ_ADDR], &seq, err) < 0 ||
        rd32(rd, user, w[TZRC_W_EVENTS_ADDR], &r->events, err) < 0 ||
        rd32(rd, user, w[TZRC_W_OVERFLOW_ADDR], &r->overflow, err) < 0)
        return -1;
    if (wp == 0 || seq == 0)
        return 0; /* not recording yet */
    uint64_t ring = w[TZRC_W_RING], bs = w[TZRC_W_BLOCK_SIZE], nb = w[TZRC_W_NBLOCKS];
    uint64_t first = ring + TZR_CHUNK_HEADER_SIZE + TZR_BLOCK_HEADER_SIZE;
    if (wp < first || wp >= ring + nb * bs || (wp - ring) % bs < TZR_CHUNK_HEADER_SIZE + TZR_BLOCK_HEADER_SIZE)
        return traza_err_set(err, TRAZA_E_FORMAT,
                             "write position 0x%08" PRIx32 ": expected the events of a block in the ring "
                             "0x%08" PRIx64 "..0x%08" PRIx64, wp, ring, ring + nb * bs);
    uint64_t cur = (uint64_t)seq - 1;
    if ((wp - ring) / bs != cur % nb)
        return 1; /* halted inside a block switch: the next poll sees it done */
    if (r->started && cur < r->next_seq)
        return traza_err_set(err, TRAZA_E_FORMAT,
                             "block sequence went back from %" PRIu64 " to %" PRIu64 " (the target restarted?)",
                             r->next_seq, cur);
    r->started = 1;
    if (cur >= r->next_seq + nb) { /* overwritten before they were read */
        uint64_t oldest = cur + 1 - nb;
        r->lost_blocks += oldest - r->next_seq;
        emit_pend(r); /* a block partly taken: its events so far stand, the rest is lost (counted) */
        r->next_seq = oldest;
    }
    uint8_t hdr[TZR_BLOCK_HEADER_SIZE];
    for (uint64_t s = r->next_seq; s <= cur; s++) {
        uint64_t base = ring + (s % nb) * bs + TZR_CHUNK_HEADER_SIZE;
        if (rd(user, base, hdr, sizeof hdr, err) < 0)
            return -1;
        uint64_t hseq = tz_get_le64(hdr);
        if (hseq != s)
            return traza_err_set(err, TRAZA_E_FORMAT,
                                 "block at 0x%08" PRIx64 ": sequence number expected %" PRIu64 ", found %" PRIu64, base,
                                 s, hseq);
        uint64_t used = s < cur ? tz_get_le32(hdr + 20) : wp - (base + TZR_BLOCK_HEADER_SIZE);
        uint64_t have = r->pend.len ? r->pend.len - TZR_BLOCK_HEADER_SIZE : 0;
        if (used > SLOT_EVENTS(r) || used < have)
            return traza_err_set(err, TRAZA_E_FORMAT,
                                 "block at 0x%08" PRIx64 ": used bytes expected %" PRIu64 "..%" PRIu64 ", found %" PRIu64,
                                 base, have, SLOT_EVENTS(r), used);
        if (!r->pend.len)
            tz_buf_put(&r->pend, hdr, sizeof hdr);
        if (used > have) {
            if (tz_buf_reserve(&r->pend, used - have) < 0)
                return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            if (rd(user, base + TZR_BLOCK_HEADER_SIZE + have, r->pend.s + r->pend.len, used - have, err) < 0)
                return -1;
            r->pend.len += used - have;
            taken += used - have;
            if (tz_rtring_scan_tasks(r, err) < 0)
                return -1;
        }
        if (s < cur) {
            emit_pend(r);
            r->next_seq = s + 1;
        }
    }
    if (r->pend.oom || r->chunks.oom)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    if (new_bytes)
        *new_bytes = taken;
    return 0;
}

static void put_chunk(tz_buf *out, uint32_t type, const uint8_t *p, size_t n)
{
    uint8_t h[TZR_CHUNK_HEADER_SIZE];
    tz_put_le32(h, type);
    tz_put_le32(h + 4, (uint32_t)n);
    tz_put_le64(h + 8, tzr_sum64(p, n));
    tz_buf_put(out, h, sizeof h);
    tz_buf_put(out, p, n);
}

int tz_rtring_dump(tz_rtring *r, const char *exe, tz_buf *out, traza_err *err)
{
    uint8_t fh[TZR_FILE_HEADER_SIZE] = {0};
    memcpy(fh, TZR_MAGIC, 8);
    tz_put_le16(fh + 8, TZR_VERSION);
    tz_put_le16(fh + 10, r->w[TZRC_W_ARCH]);
    fh[12] = 4;
    fh[13] = TZR_MODE_RING;
    tz_buf_put(out, fh, sizeof fh);
    size_t elen = exe ? strlen(exe) : 0;
    if (elen > 4096)
        elen = 4096;
    uint8_t info[TZR_INFO_FIXED + 4096] = {0};
    if (elen)
        memcpy(info + TZR_INFO_FIXED, exe, elen);
    put_chunk(out, TZR_CHUNK_INFO, info, TZR_INFO_FIXED + elen);
    tz_buf_put(out, r->chunks.s, r->chunks.len);
    uint64_t n = 2 + r->nchunks;
    if (r->pend.len) { /* the block being written, as far as it was taken */
        put_pend(r, out);
        n++;
    }
    for (size_t i = 0; i < r->ntasks; i++) {
        const tz_rtring_task *t = &r->tasks[i];
        if (t->state != TZ_RTTASK_NAMED)
            continue;
        uint8_t c[TZR_TASK_FIXED + TZ_RTRING_NAME_MAX] = {0};
        size_t len = strlen(t->name);
        tz_put_le32(c, t->id);
        tz_put_le32(c + 4, t->isr ? TZR_TASK_ISR : 0);
        memcpy(c + TZR_TASK_FIXED, t->name, len);
        put_chunk(out, TZR_CHUNK_TASK, c, TZR_TASK_FIXED + len);
        n++;
    }
    uint8_t th[TZR_THREAD_SIZE] = {0};
    tz_put_le64(th + 8, r->events);
    tz_put_le64(th + 24, r->lost_blocks);
    tz_put_le64(th + 32, r->overflow);
    size_t th_at = out->len;
    put_chunk(out, TZR_CHUNK_THREAD, th, sizeof th);
    if (r->w[TZRC_W_CLOCK_HZ]) {
        uint8_t c[TZR_CALIB_SIZE] = {0};
        tz_put_le64(c + 16, r->w[TZRC_W_CLOCK_HZ]);
        tz_put_le64(c + 24, 1000000000u);
        put_chunk(out, TZR_CHUNK_CALIB, c, sizeof c);
        n++;
    }
    uint8_t e[8];
    tz_put_le64(e, n);
    put_chunk(out, TZR_CHUNK_END, e, sizeof e);
    if (out->oom)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    /* the events lost: the target's count less the events the blocks taken hold */
    tz_rtdump d;
    if (tz_rtdump_parse(&d, (const uint8_t *)out->s, out->len, "ring", err) < 0)
        return -1;
    uint64_t got = tz_rtdump_events_read(&d);
    tz_rtdump_free(&d);
    uint8_t *tc = (uint8_t *)out->s + th_at;
    tz_put_le64(tc + TZR_CHUNK_HEADER_SIZE + 16, r->events > got ? r->events - got : 0);
    tz_put_le64(tc + 8, tzr_sum64(tc + TZR_CHUNK_HEADER_SIZE, TZR_THREAD_SIZE));
    return 0;
}

void tz_rtring_free(tz_rtring *r)
{
    tz_buf_free(&r->pend);
    tz_buf_free(&r->chunks);
    free(r->tasks);
    r->tasks = NULL;
    r->ntasks = r->taskcap = 0;
}
