/* Parser of traza runtime dumps (.tzr): header, checksummed chunks, the compact
 * event encoding of the blocks. Rejects truncated or corrupted input with the byte
 * offset of the problem. */
#include "import/rtdump.h"
#include "util/le.h"
#include "util/util.h"
#include "../../rt/include/traza_rt_format.h"

#include <stdlib.h>
#include <string.h>

#define MAX_OPEN TZ_RTD_MAX_OPEN

static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

static void thread_free(tz_rtd_thread *t)
{
    free(t->ops);
    free(t->users);
    free(t->open);
    free(t->name);
    free(t->runs);
}

void tz_rtdump_free(tz_rtdump *d)
{
    for (size_t i = 0; i < d->nthreads; i++)
        thread_free(&d->threads[i]);
    for (size_t i = 0; i < d->ntasks; i++)
        thread_free(&d->tasks[i]);
    free(d->threads);
    free(d->tasks);
    free(d->exe);
    memset(d, 0, sizeof *d);
}

/* the entry of `tid` in a thread or task array, added if new; its index, or -1 */
static long entry_of(tz_rtd_thread **arr, size_t *n, size_t *cap, uint32_t tid)
{
    for (size_t i = 0; i < *n; i++)
        if ((*arr)[i].tid == tid)
            return (long)i;
    if (TZ_GROW(*arr, *cap, *n + 1) < 0)
        return -1;
    tz_rtd_thread *t = &(*arr)[(*n)++];
    memset(t, 0, sizeof *t);
    t->tid = tid;
    return (long)(*n - 1);
}

static tz_rtd_thread *thread_of(tz_rtdump *d, uint32_t tid, size_t *cap)
{
    long i = entry_of(&d->threads, &d->nthreads, cap, tid);
    return i < 0 ? NULL : &d->threads[i];
}

/* Parsing state of the dump: which task each thread's buffer is running (-1: none). */
typedef struct parse_st {
    size_t tcap, kcap;
    long cur_task; /* where the events go: a task or an interrupt handler */
    long run_task; /* the task in its Running state */
    uint64_t last_tsc; /* of the last event read (the end of a run still going) */
} parse_st;

static int push_op(tz_rtd_thread *t, uint64_t tsc, uint8_t kind, uint64_t a, int64_t v)
{
    if (kind == TZR_K_USER) {
        if (TZ_GROW(t->users, t->ucap, t->nusers + 1) < 0)
            return -1;
        t->users[t->nusers] = (tz_rtd_user){tsc, a, v};
        a = t->nusers++;
    }
    return tz_rtd_ops_put(t, kind, tsc, a);
}

/* Ends the task's current state span at `tsc` (if one is open) and starts a span of
 * `state` there. */
static int push_run(tz_rtd_thread *k, uint64_t tsc, int state, int open_start)
{
    if (k->nruns && k->runs[k->nruns - 1].open_end) {
        k->runs[k->nruns - 1].end = tsc;
        k->runs[k->nruns - 1].open_end = 0;
    }
    if (TZ_GROW(k->runs, k->runcap, k->nruns + 1) < 0)
        return -1;
    k->runs[k->nruns++] = (tz_rtd_run){tsc, tsc, state, open_start, 1};
    return 0;
}

/* The task or handler entry of record id `id`: its index, -2 out of range, -1 memory */
static long task_of(tz_rtdump *d, parse_st *ps, uint32_t owner, uint64_t id)
{
    if (id > UINT32_MAX)
        return -2;
    long k = entry_of(&d->tasks, &d->ntasks, &ps->kcap, (uint32_t)id);
    if (k >= 0)
        d->tasks[k].owner = owner;
    return k;
}

/* A record of context `sub` (TASK, ISR_ENTER, ISR_EXIT) for task k at `tsc`; `sw`
 * when not at the start of a block. The events that follow belong to task k. A TASK
 * record that is a switch ends the running task's Running span (it becomes Ready, or
 * the state its STATE records said) and starts the new one's; the handler records
 * leave the Running task as it is. Task 0 is the context before the first task. */
static int context_record(tz_rtdump *d, parse_st *ps, long k, unsigned sub, uint64_t tsc, int sw)
{
    /* a handler that interrupted the context before the first task returns to the
     * thread's own events */
    ps->cur_task = sub == TZR_EXT_ISR_EXIT && d->tasks[k].tid == 0 ? -1 : k;
    if (sub == TZR_EXT_ISR_ENTER)
        d->tasks[k].isr = 1;
    if (sub != TZR_EXT_TASK || ps->run_task == k)
        return 0;
    if (sw)
        d->task_switches++;
    if (ps->run_task >= 0) {
        tz_rtd_thread *o = &d->tasks[ps->run_task];
        if (push_run(o, tsc, sw ? o->pending : TZR_STATE_READY, !sw) < 0)
            return -1;
        if (!sw) /* a block after lost ones: what the task did in between is unknown */
            o->nruns--;
        o->pending = TZR_STATE_READY;
    }
    ps->run_task = k;
    return push_run(&d->tasks[k], tsc, TZ_RTD_RUNNING, !sw);
}

/* A STATE record: task k becomes `state`, or takes it at its switch out if running. */
static int state_record(parse_st *ps, tz_rtd_thread *t, long k, uint64_t state, uint64_t tsc)
{
    if (k == ps->run_task) {
        t->pending = (int)state;
        return 0;
    }
    if (t->nruns && t->runs[t->nruns - 1].open_end && t->runs[t->nruns - 1].state == (int)state)
        return 0;
    return push_run(t, tsc, (int)state, 0);
}

/* Reads the `cnt` addresses of a STACK or TASK record; with `snap`, they become the
 * functions open at t's first operation (from `tsc`); with `sync`, t's nesting is
 * realigned to them at `tsc` (TZ_RTD_SYNC). 0, -1 (memory), 1 (malformed). */
static int read_open(tz_rtd_thread *t, const uint8_t *e, size_t used, size_t *pos, uint64_t cnt, int snap, int sync,
                     uint64_t tsc)
{
    if (sync) {
        if (push_op(t, tsc, TZ_RTD_SYNC, cnt, 0) < 0)
            return -1;
        t->nsync++;
    }
    if (snap) {
        free(t->open);
        t->open = NULL;
        t->nopen = 0;
        if (cnt && !(t->open = calloc((size_t)cnt, sizeof *t->open)))
            return -1;
        t->first_tsc = tsc;
    }
    for (uint64_t i = 0; i < cnt; i++) {
        uint64_t a;
        if (tz_get_uleb(e, used, pos, &a) < 0)
            return 1;
        if (snap)
            t->open[t->nopen++] = a;
        if (sync) {
            if (push_op(t, tsc, TZ_RTD_SYNC_FRAME, a, 0) < 0)
                return -1;
            t->nsync++;
        }
    }
    return 0;
}

static int parse_block(tz_rtdump *d, parse_st *ps, tz_rtd_thread *bt, const uint8_t *p, size_t n, uint64_t base,
                       const char *name, traza_err *err)
{
    tz_rtd_thread *t = bt; /* the thread or task the events go to */
    if (ps->cur_task >= 0)
        t = &d->tasks[ps->cur_task];
    uint64_t seq = rd64(p), tsc = rd64(p + 8);
    uint32_t used = rd32(p + 20);
    if (used != n - TZR_BLOCK_HEADER_SIZE)
        return traza_err_set(err, TRAZA_E_FORMAT, "%s: byte %llu: block says %u event bytes, chunk holds %zu", name,
                             (unsigned long long)base, used, n - TZR_BLOCK_HEADER_SIZE);
    if (bt->has_blocks && seq <= bt->last_seq)
        return traza_err_set(err, TRAZA_E_FORMAT, "%s: byte %llu: block sequence %llu of thread %u after %llu", name,
                             (unsigned long long)base, (unsigned long long)seq, bt->tid, (unsigned long long)bt->last_seq);
    int first = !bt->has_blocks;
    if (!first && seq != bt->last_seq + 1) /* a lost block: the stack snapshot resynchronises */
        first = 1;
    bt->has_blocks = 1;
    bt->last_seq = seq;
    const uint8_t *e = p + TZR_BLOCK_HEADER_SIZE;
    size_t pos = 0;
    uint64_t func = 0;
    while (pos < used) {
        size_t at = pos;
        uint64_t h;
        if (tz_get_uleb(e, used, &pos, &h) < 0)
            goto bad;
        tsc += h >> 2;
        unsigned kind = (unsigned)(h & 3);
        if (kind == TZR_K_ENTRY) {
            uint64_t z;
            if (tz_get_uleb(e, used, &pos, &z) < 0)
                goto bad;
            func += (uint64_t)tzr_unzigzag(z);
            if (d->ptr_size == 4)
                func &= 0xffffffffu;
            if (push_op(t, tsc, TZR_K_ENTRY, func, 0) < 0)
                goto nomem;
        } else if (kind == TZR_K_EXIT) {
            if (push_op(t, tsc, TZR_K_EXIT, 0, 0) < 0)
                goto nomem;
        } else if (kind == TZR_K_USER) {
            uint64_t id, z;
            if (tz_get_uleb(e, used, &pos, &id) < 0 || tz_get_uleb(e, used, &pos, &z) < 0)
                goto bad;
            if (push_op(t, tsc, TZR_K_USER, id, tzr_unzigzag(z)) < 0)
                goto nomem;
        } else {
            if (pos >= used)
                goto bad;
            uint8_t sub = e[pos++];
            if (sub == TZR_EXT_STATE && d->version >= 3) {
                uint64_t id, st;
                if (tz_get_uleb(e, used, &pos, &id) < 0 || tz_get_uleb(e, used, &pos, &st) < 0)
                    goto bad;
                if (st > TZR_STATE_SUSPENDED)
                    return traza_err_set(err, TRAZA_E_FORMAT, "%s: byte %llu: task state %llu, expected 0 to %d", name,
                                         (unsigned long long)(base + TZR_BLOCK_HEADER_SIZE + at), (unsigned long long)st,
                                         TZR_STATE_SUSPENDED);
                long k = task_of(d, ps, bt->tid, id);
                if (k == -2)
                    goto bad_id;
                if (k < 0)
                    goto nomem;
                t = ps->cur_task >= 0 ? &d->tasks[ps->cur_task] : bt; /* the array may have moved */
                if (state_record(ps, &d->tasks[k], k, st, tsc) < 0)
                    goto nomem;
                continue;
            }
            if ((sub == TZR_EXT_TASK && d->version >= 2) ||
                ((sub == TZR_EXT_ISR_ENTER || sub == TZR_EXT_ISR_EXIT) && d->version >= 3)) {
                uint64_t id, cnt;
                if (tz_get_uleb(e, used, &pos, &id) < 0 || tz_get_uleb(e, used, &pos, &cnt) < 0 || cnt > MAX_OPEN || cnt > used - pos)
                    goto bad;
                if (sub == TZR_EXT_ISR_EXIT && at == 0)
                    return traza_err_set(err, TRAZA_E_FORMAT, "%s: byte %llu: handler exit at the start of a block", name,
                                         (unsigned long long)(base + TZR_BLOCK_HEADER_SIZE + at));
                long k = task_of(d, ps, bt->tid, id);
                if (k == -2)
                    goto bad_id;
                if (k < 0 || context_record(d, ps, k, sub, tsc, at != 0) < 0)
                    goto nomem;
                t = ps->cur_task >= 0 ? &d->tasks[ps->cur_task] : bt;
                int rc = read_open(t, e, used, &pos, cnt, t != bt && !t->has_open && t->nops == 0, 0, tsc);
                if (rc < 0)
                    goto nomem;
                if (rc > 0)
                    goto bad;
                t->has_open |= t != bt;
                continue;
            }
            if (sub != TZR_EXT_STACK)
                return traza_err_set(err, TRAZA_E_FORMAT, "%s: byte %llu: unknown extended record %u", name,
                                     (unsigned long long)(base + TZR_BLOCK_HEADER_SIZE + at), sub);
            if (at != 0)
                return traza_err_set(err, TRAZA_E_FORMAT,
                                     "%s: byte %llu: stack record after the start of a block of thread %u", name,
                                     (unsigned long long)(base + TZR_BLOCK_HEADER_SIZE + at), bt->tid);
            uint64_t cnt;
            if (tz_get_uleb(e, used, &pos, &cnt) < 0 || cnt > MAX_OPEN || cnt > used - pos) /* an address takes >= 1 byte */
                goto bad;
            /* The snapshot that counts is the one of the block the operations start in,
             * and the one after a gap (lost or corrupt blocks). */
            int rc = read_open(t, e, used, &pos, cnt, first && t->nops == 0, first && t->nops > 0, tsc);
            if (rc < 0)
                goto nomem;
            if (rc > 0)
                goto bad;
        }
        continue;
    bad:
        return traza_err_set(err, TRAZA_E_FORMAT, "%s: byte %llu: truncated or malformed event record", name,
                             (unsigned long long)(base + TZR_BLOCK_HEADER_SIZE + at));
    bad_id:
        return traza_err_set(err, TRAZA_E_FORMAT, "%s: byte %llu: task id out of range", name,
                             (unsigned long long)(base + TZR_BLOCK_HEADER_SIZE + at));
    }
    ps->last_tsc = tsc;
    return 0;
nomem:
    return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
}

/* The next whole chunk at or after pos (a known type of a plausible size, its
 * checksum right), or len: where reading resumes after a corrupt block. */
static size_t next_chunk(const uint8_t *data, size_t len, size_t pos)
{
    for (; len - pos >= TZR_CHUNK_HEADER_SIZE + 8; pos++) {
        const uint8_t *h = data + pos, *p = h + TZR_CHUNK_HEADER_SIZE;
        uint32_t type = rd32(h), n = rd32(h + 4);
        if (n > len - pos - TZR_CHUNK_HEADER_SIZE)
            continue;
        int plausible = 0;
        switch (type) {
        case TZR_CHUNK_BLOCK:
            plausible = n >= TZR_BLOCK_HEADER_SIZE && n <= TZR_MAX_CHUNK && rd32(p + 20) == n - TZR_BLOCK_HEADER_SIZE;
            break;
        case TZR_CHUNK_INFO:
        case TZR_CHUNK_TASK:
            plausible = n >= TZR_INFO_FIXED && n <= TZR_INFO_FIXED + 512;
            break;
        case TZR_CHUNK_CALIB:
            plausible = n == TZR_CALIB_SIZE;
            break;
        case TZR_CHUNK_THREAD:
            plausible = n == TZR_THREAD_SIZE;
            break;
        case TZR_CHUNK_END:
            plausible = n == 8;
            break;
        default:
            break;
        }
        if (plausible && tzr_sum64(p, n) == rd64(h + 8))
            return pos;
    }
    return len;
}

int tz_rtdump_parse(tz_rtdump *d, const uint8_t *data, size_t len, const char *name, traza_err *err)
{
    memset(d, 0, sizeof *d);
    parse_st ps = {0, 0, -1, -1, 0};
    if (len < TZR_FILE_HEADER_SIZE || memcmp(data, TZR_MAGIC, 8) != 0)
        return traza_err_set(err, TRAZA_E_FORMAT, "%s: not a traza runtime dump (expected the magic \"TZRDUMP\\x1a\")", name);
    d->version = (unsigned)data[8] | (unsigned)data[9] << 8;
    if (d->version < 1 || d->version > TZR_VERSION)
        return traza_err_set(err, TRAZA_E_FORMAT, "%s: dump version %u, this traza reads versions 1 to %u", name,
                             d->version, TZR_VERSION);
    d->arch = (unsigned)data[10] | (unsigned)data[11] << 8;
    d->ptr_size = data[12];
    d->mode = data[13];
    size_t pos = TZR_FILE_HEADER_SIZE;
    int ended = 0;
    uint64_t nchunks = 0;
    while (pos < len) {
        if (ended) {
            traza_err_set(err, TRAZA_E_FORMAT, "%s: byte %zu: data after the end chunk", name, pos);
            goto fail;
        }
        if (len - pos < TZR_CHUNK_HEADER_SIZE && d->mode == TZR_MODE_STREAM) {
            d->truncated_bytes = len - pos; /* killed while writing: keep what is whole */
            break;
        }
        if (len - pos < TZR_CHUNK_HEADER_SIZE) {
            traza_err_set(err, TRAZA_E_FORMAT, "%s: byte %zu: truncated chunk header (%zu of 16 bytes)", name, pos, len - pos);
            goto fail;
        }
        uint32_t type = rd32(data + pos), n = rd32(data + pos + 4);
        uint64_t sum = rd64(data + pos + 8);
        size_t body = pos + TZR_CHUNK_HEADER_SIZE;
        if (n <= TZR_MAX_CHUNK && n > len - body && d->mode == TZR_MODE_STREAM) {
            d->truncated_bytes = len - pos;
            break;
        }
        if (type == TZR_CHUNK_BLOCK && (n > TZR_MAX_CHUNK || n > len - body))
            goto bad_block; /* its length corrupt */
        if (n > TZR_MAX_CHUNK || n > len - body) {
            traza_err_set(err, TRAZA_E_FORMAT, "%s: byte %zu: chunk of %u bytes, only %zu left (truncated file?)", name,
                          pos, n, len - body);
            goto fail;
        }
        const uint8_t *p = data + body;
        if (type == TZR_CHUNK_BLOCK && (n < TZR_BLOCK_HEADER_SIZE || tzr_sum64(p, n) != sum)) {
        bad_block:
            /* one corrupt block costs its events: reading goes on at the next whole
             * chunk; a block's stack snapshot resynchronises its thread's nesting */
            d->bad_blocks++;
            pos = next_chunk(data, len, pos + 1);
            if (pos == len && d->mode == TZR_MODE_STREAM)
                d->truncated = 1;
            continue;
        }
        if (tzr_sum64(p, n) != sum) {
            traza_err_set(err, TRAZA_E_FORMAT, "%s: byte %zu: checksum mismatch in a chunk of type %u (corrupted)", name,
                          pos, type);
            goto fail;
        }
        switch (type) {
        case TZR_CHUNK_INFO:
            if (n < TZR_INFO_FIXED)
                goto short_chunk;
            d->pid = rd32(p);
            if (d->version >= 3)
                d->clock = rd32(p + 4);
            d->load_bias = rd64(p + 8);
            free(d->exe);
            d->exe = tz_strndup((const char *)p + TZR_INFO_FIXED, n - TZR_INFO_FIXED);
            if (!d->exe)
                goto nomem;
            if (strlen(d->exe) != n - TZR_INFO_FIXED) {
                traza_err_set(err, TRAZA_E_FORMAT, "%s: byte %zu: NUL byte in the program path", name, body);
                goto fail;
            }
            break;
        case TZR_CHUNK_BLOCK: {
            if (n < TZR_BLOCK_HEADER_SIZE)
                goto short_chunk;
            tz_rtd_thread *t = thread_of(d, rd32(p + 16), &ps.tcap);
            if (!t)
                goto nomem;
            if (parse_block(d, &ps, t, p, n, body, name, err) < 0)
                goto fail;
            break;
        }
        case TZR_CHUNK_CALIB:
            if (n < TZR_CALIB_SIZE)
                goto short_chunk;
            d->tsc_a = rd64(p);
            d->ns_a = rd64(p + 8);
            d->tsc_b = rd64(p + 16);
            d->ns_b = rd64(p + 24);
            d->has_calib = d->tsc_b > d->tsc_a && d->ns_b > d->ns_a;
            d->ns_per_tick = d->has_calib ? (double)(d->ns_b - d->ns_a) / (double)(d->tsc_b - d->tsc_a) : 1;
            break;
        case TZR_CHUNK_THREAD: {
            if (n < TZR_THREAD_SIZE)
                goto short_chunk;
            tz_rtd_thread *t = thread_of(d, rd32(p), &ps.tcap);
            if (!t)
                goto nomem;
            t->events = rd64(p + 8);
            t->lost = rd64(p + 16);
            t->overwritten = rd64(p + 24);
            t->overflow = rd64(p + 32);
            t->first_seq = rd64(p + 40);
            t->has_stats = 1;
            break;
        }
        case TZR_CHUNK_TASK: {
            if (n < TZR_TASK_FIXED)
                goto short_chunk;
            long k = entry_of(&d->tasks, &d->ntasks, &ps.kcap, rd32(p));
            if (k < 0)
                goto nomem;
            tz_rtd_thread *t = &d->tasks[k];
            if (rd32(p + 4) & TZR_TASK_ISR)
                t->isr = 1;
            t->entries = rd64(p + 8);
            free(t->name);
            t->name = tz_strndup((const char *)p + TZR_TASK_FIXED, n - TZR_TASK_FIXED);
            if (!t->name)
                goto nomem;
            if (strlen(t->name) != n - TZR_TASK_FIXED) {
                traza_err_set(err, TRAZA_E_FORMAT, "%s: byte %zu: NUL byte in a task name", name, body);
                goto fail;
            }
            break;
        }
        case TZR_CHUNK_END:
            if (n < 8)
                goto short_chunk;
            if (rd64(p) && rd64(p) != nchunks && !d->bad_blocks) {
                traza_err_set(err, TRAZA_E_FORMAT, "%s: byte %zu: end chunk counts %llu chunks, the file has %llu", name,
                              pos, (unsigned long long)rd64(p), (unsigned long long)nchunks);
                goto fail;
            }
            ended = 1;
            break;
        default: /* unknown chunk types of a later minor revision are skipped */
            break;
        }
        nchunks++;
        pos = body + n;
        continue;
    short_chunk:
        traza_err_set(err, TRAZA_E_FORMAT, "%s: byte %zu: chunk of type %u too short (%u bytes)", name, pos, type, n);
        goto fail;
    }
    for (size_t i = 0; i < d->ntasks; i++) {
        tz_rtd_thread *k = &d->tasks[i];
        if (k->nruns && k->runs[k->nruns - 1].open_end)
            k->runs[k->nruns - 1].end = ps.last_tsc;
    }
    if (!ended && d->mode == TZR_MODE_STREAM) {
        d->truncated = 1; /* the blocks written so far are whole and checksummed */
    } else if (!ended) {
        traza_err_set(err, TRAZA_E_FORMAT, "%s: byte %zu: no end chunk (truncated dump, or the program did not exit normally)",
                      name, len);
        goto fail;
    }
    return 0;
nomem:
    traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
fail:
    tz_rtdump_free(d);
    return -1;
}

int64_t tz_rtdump_ns(const tz_rtdump *d, uint64_t tsc)
{
    if (!d->has_calib)
        return (int64_t)(tsc & INT64_MAX);
    double v = ((double)tsc - (double)d->tsc_a) * d->ns_per_tick;
    if (v > 9e18)
        v = 9e18;
    if (v < -9e18)
        v = -9e18;
    return (int64_t)v;
}

uint64_t tz_rtdump_events_read(const tz_rtdump *d)
{
    uint64_t n = d->task_switches;
    for (size_t i = 0; i < d->nthreads; i++)
        n += d->threads[i].nops - d->threads[i].nsync;
    for (size_t i = 0; i < d->ntasks; i++)
        n += d->tasks[i].nops - d->tasks[i].nsync;
    return n;
}
