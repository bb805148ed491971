/* The freestanding core of the tracer runtime: per-thread block buffers, compact
 * event encoding, the shadow stack, dump serialisation. No libc: the platform glue
 * supplies clocks, thread state and output (rt_internal.h). */
#include "rt_internal.h"

tz_rt tz_rt_g = {TZR_MODE_RING, 1, 0, 65536, 16, 0, 0, 0, TZR_CLOCK_UNSPECIFIED};

/* Bare metal (TZ_RING_ONLY): no stream mode, one context, which keeps the code under
 * 2 KB. Exits by return address (TZ_RET_HOOKS: the frame slots, tail calls, longjmp,
 * tz_exit) are there everywhere else, and on bare metal when asked for (the Cortex-M
 * patchable entries; a linker dropping unused sections keeps tz_exit out of the
 * -finstrument-functions firmware). */
#ifdef TZ_RING_ONLY
#define TZ_STREAMING 0
#else
#define TZ_STREAMING (tz_rt_g.mode == TZR_MODE_STREAM)
#ifndef TZ_RET_HOOKS
#define TZ_RET_HOOKS
#endif
#endif

static TZ_NOINSTR void tz_copy(void *dst, const void *src, size_t n)
{
    uint8_t *d = (uint8_t *)dst;
    const uint8_t *s = (const uint8_t *)src;
    while (n--)
        *d++ = *s++;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* little-endian targets: plain (unaligned) stores */
static inline TZ_NOINSTR void put32(uint8_t *p, uint32_t v) { __builtin_memcpy(p, &v, 4); }
static inline TZ_NOINSTR void put64(uint8_t *p, uint64_t v) { __builtin_memcpy(p, &v, 8); }
#else
static TZ_NOINSTR void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static TZ_NOINSTR void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
#endif

/* n u64 values, little-endian, one after the other */
static TZ_NOINSTR void put64s(uint8_t *p, const uint64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        put64(p + 8 * i, v[i]);
}

static inline TZ_NOINSTR uint8_t *put_uv(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static inline TZ_NOINSTR uint8_t *put_head_at(tz_thread *t, unsigned kind, uint64_t now)
{
    uint64_t d = now - t->last_tsc;
    /* `now` may precede the block start (read before block_next() began the block the
     * record goes into), and a clock may step back: such a record takes the time of the
     * one before it */
    if ((int64_t)d < 0)
        d = 0;
    else
        t->last_tsc = now;
#ifndef TZ_RING_ONLY
    if (d > (1ull << 61))
        d = 1ull << 61;
#endif
    t->events++;
    return put_uv(t->p, d << 2 | kind);
}

static inline TZ_NOINSTR uint8_t *put_head(tz_thread *t, unsigned kind)
{
    return put_head_at(t, kind, tz_arch_ticks());
}

/* Each block is preceded by room for its chunk header, so a streamed block goes out
 * in one write() (atomic against other threads' blocks with O_APPEND). */
static TZ_NOINSTR uint8_t *block_at(tz_thread *t, size_t i)
{
    return t->mem + i * t->block_size + TZR_CHUNK_HEADER_SIZE;
}

static TZ_NOINSTR void chunk_header(uint8_t *h, uint32_t type, const void *payload, size_t n)
{
    put32(h, type);
    put32(h + 4, (uint32_t)n);
    put64(h + 8, tzr_sum64(payload, n));
}

/* varint n, then the innermost n (at most TZ_STACK_SNAPSHOT) open functions, outermost first */
static TZ_NOINSTR uint8_t *put_open(tz_thread *t, uint8_t *p)
{
    uint32_t n = t->depth < TZ_STACK_SNAPSHOT ? t->depth : TZ_STACK_SNAPSHOT;
    p = put_uv(p, n);
    for (uint32_t i = t->depth - n; i < t->depth; i++)
        p = put_uv(p, t->stack[i].func - tz_rt_g.load_bias);
    return p;
}

static TZ_NOINSTR void block_start(tz_thread *t)
{
    uint8_t *b = block_at(t, t->cur);
    uint64_t now = tz_plat_ticks();
    put64(b, t->seq);
    put64(b + 8, now);
    put32(b + 16, t->tid); /* b + 20, the used bytes: block_finish */
    t->seq++;
    t->last_tsc = now;
    t->last_func = tz_rt_g.load_bias; /* the first entry's delta is its ELF address */
    t->p = b + TZR_BLOCK_HEADER_SIZE;
    t->end = b + t->block_size - TZR_CHUNK_HEADER_SIZE - TZ_RESERVE;
    /* the functions open now, so a block read alone still nests correctly */
    uint8_t *p = put_uv(t->p, TZR_K_EXT);
#ifdef TZ_TASKS
    if (t->task) {
        *p++ = t->in_isr ? TZR_EXT_ISR_ENTER : TZR_EXT_TASK;
        p = put_uv(p, t->task - 1);
    } else
#endif
        *p++ = TZR_EXT_STACK;
    t->p = put_open(t, p);
}

static TZ_NOINSTR void block_finish(tz_thread *t)
{
    uint8_t *b = block_at(t, t->cur);
    put32(b + 20, (uint32_t)(t->p - (b + TZR_BLOCK_HEADER_SIZE)));
}

#ifndef TZ_RING_ONLY
void tz_flush_thread(tz_thread *t)
{
    block_finish(t);
    uint8_t *b = block_at(t, t->cur);
    uint32_t used = (uint32_t)(t->p - (b + TZR_BLOCK_HEADER_SIZE));
    chunk_header(b - TZR_CHUNK_HEADER_SIZE, TZR_CHUNK_BLOCK, b, TZR_BLOCK_HEADER_SIZE + used);
    if (tz_plat_write(b - TZR_CHUNK_HEADER_SIZE, TZR_CHUNK_HEADER_SIZE + TZR_BLOCK_HEADER_SIZE + used) < 0)
        t->lost += t->events - t->first_seq; /* first_seq holds the events flushed so far in stream mode */
    t->first_seq = t->events;
    block_start(t);
}
#endif

static TZ_NOINSTR void block_next(tz_thread *t)
{
#ifndef TZ_RING_ONLY
    if (TZ_STREAMING) {
        tz_flush_thread(t);
        return;
    }
#endif
    block_finish(t);
    t->cur = (t->cur + 1) % t->nblocks;
    if (t->seq >= t->nblocks)
        t->overwritten++;
    block_start(t);
}

void tz_thread_init(tz_thread *t, uint32_t tid, uint8_t *mem, size_t nblocks, size_t block_size)
{
    t->tid = tid;
    t->mem = mem;
    t->nblocks = nblocks;
    t->block_size = block_size;
    t->cur = 0;
    t->depth = 0;
#ifndef TZ_RING_ONLY
    t->base.slot = UINTPTR_MAX;
#endif
    block_start(t);
}

#ifndef TZ_RING_ONLY
void tz_thread_restart(tz_thread *t, uint32_t tid)
{
    t->next = NULL;
    t->tid = tid;
    t->cur = 0;
    t->seq = t->first_seq = 0;
    t->events = t->lost = t->overwritten = t->overflow = 0;
    t->busy = t->qn = 0;
    t->qopen = 0;
    block_start(t);
}
#endif

static TZ_NOINSTR void emit_exit(tz_thread *t)
{
    if (t->p >= t->end)
        block_next(t);
    t->p = put_head(t, TZR_K_EXIT);
}

static TZ_NOINSTR void emit_entry_at(tz_thread *t, uintptr_t func, uint64_t now)
{
    if (t->p >= t->end)
        block_next(t);
    uint8_t *p = put_head_at(t, TZR_K_ENTRY, now);
    t->p = put_uv(p, tzr_zigzag((int64_t)(intptr_t)(func - t->last_func)));
    t->last_func = func;
}

static TZ_NOINSTR void emit_entry(tz_thread *t, uintptr_t func) { emit_entry_at(t, func, tz_arch_ticks()); }

static TZ_NOINSTR void emit_user_at(tz_thread *t, uint32_t id, int64_t value, uint64_t now)
{
    if (t->p >= t->end)
        block_next(t);
    uint8_t *p = put_head_at(t, TZR_K_USER, now);
    p = put_uv(p, id);
    t->p = put_uv(p, tzr_zigzag(value));
}

/* A shadow frame whose entry a signal handler could not queue (-finstrument-functions):
 * popped without an exit record. */
#define TZ_RET_UNRECORDED ((uintptr_t)1)

#ifndef TZ_RING_ONLY
/* ---- signals on the same thread (tz_thread.busy) ---- */
static inline TZ_NOINSTR void q_put(tz_thread *t, unsigned kind, uint64_t a, int64_t v)
{
    uint64_t now = tz_arch_ticks();
    uint32_t k = __atomic_fetch_add(&t->qn, 1, __ATOMIC_RELAXED); /* claimed against nested signals */
    if (k >= TZ_QCAP)
        return; /* counted as lost by the drain */
    tz_qrec *r = &t->q[k];
    r->tsc = now;
    r->a = a;
    r->v = v;
    r->kind = kind;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* busy is set: writes the queued records after the thread's own */
static TZ_NOINSTR void drain_locked(tz_thread *t)
{
    uint32_t i = 0;
    for (;;) {
        uint32_t n = t->qn;
        uint32_t m = n < TZ_QCAP ? n : TZ_QCAP;
        for (; i < m; i++) {
            const tz_qrec *r = &t->q[i];
            if (!tz_rt_g.enabled)
                continue;
            if (r->kind == TZR_K_ENTRY)
                emit_entry_at(t, (uintptr_t)r->a, r->tsc);
            else if (r->kind == TZR_K_USER)
                emit_user_at(t, (uint32_t)r->a, r->v, r->tsc);
            else {
                if (t->p >= t->end)
                    block_next(t);
                t->p = put_head_at(t, TZR_K_EXIT, r->tsc);
            }
        }
        /* a signal during the loop appended more: go on with those */
        if (__atomic_compare_exchange_n(&t->qn, &n, 0, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
            if (n > TZ_QCAP)
                t->lost += n - TZ_QCAP;
            return;
        }
    }
}

/* 1: this context writes (busy was clear, now set); 0: it interrupted a writer and queues */
static inline TZ_NOINSTR int tz_lock(tz_thread *t)
{
    if (t->busy)
        return 0;
    t->busy = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (t->qn)
        drain_locked(t);
    return 1;
}

static inline TZ_NOINSTR void tz_unlock(tz_thread *t)
{
    for (;;) {
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        t->busy = 0;
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        if (!t->qn)
            return;
        t->busy = 1; /* a signal queued records after our check: write them */
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        drain_locked(t);
    }
}

void tz_drain(tz_thread *t)
{
    if (tz_lock(t))
        tz_unlock(t);
}

/* An entry inside a signal handler that interrupted this thread's writer: the shadow
 * frame as usual (the handler's frames lie below the interrupted ones: no unwinding),
 * the record queued. Room is kept for the exit of every queued entry. */
static TZ_NOINSTR int enter_queued(tz_thread *t, uintptr_t func, uintptr_t slot, uintptr_t ret)
{
    int rec = tz_rt_g.enabled;
    if (rec && t->qn + t->qopen + 2 > TZ_QCAP) {
        t->lost++;
        if (slot)
            return 0; /* not hooked: no exit either */
        rec = 0;
        ret = TZ_RET_UNRECORDED;
    }
    if (t->depth >= TZ_SHADOW_MAX) {
        t->overflow++;
        return 0;
    }
    if (rec) {
        q_put(t, TZR_K_ENTRY, func, 0);
        t->qopen++;
    }
    tz_shadow *s = &t->stack[t->depth];
    s->ret = ret;
    s->slot = slot;
    s->func = func;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    t->depth++;
    return 1;
}

static TZ_NOINSTR void exit_queued(tz_thread *t)
{
    if (tz_rt_g.enabled && t->stack[t->depth - 1].ret != TZ_RET_UNRECORDED) {
        q_put(t, TZR_K_EXIT, 0, 0);
        if (t->qopen)
            t->qopen--;
    }
    t->depth--;
}
#define TZ_LOCK(t) tz_lock(t)
#define TZ_UNLOCK(t) tz_unlock(t)
#else
#define TZ_LOCK(t) 1
#define TZ_UNLOCK(t) ((void)0)
#endif

static TZ_NOINSTR int enter_locked(tz_thread *t, uintptr_t func, uintptr_t slot, uintptr_t ret)
{
#ifdef TZ_RET_HOOKS
    if (slot) {
        /* frames the stack has unwound past (longjmp) are closed here */
        while (t->depth && t->stack[t->depth - 1].slot <= slot) {
            tz_shadow *top = &t->stack[t->depth - 1];
            if (top->slot == slot && ret == (uintptr_t)&tz_exit_tramp) {
                /* a tail call: the caller's frame is gone, the callee returns for it */
                if (tz_rt_g.enabled) {
                    emit_exit(t);
                    emit_entry(t, func);
                }
                top->func = func;
                return 0;
            }
            if (tz_rt_g.enabled)
                emit_exit(t);
            t->depth--;
        }
    }
#endif
    if (t->depth >= TZ_SHADOW_MAX) {
        t->overflow++;
        return 0;
    }
    if (tz_rt_g.enabled)
        emit_entry(t, func);
    tz_shadow *s = &t->stack[t->depth];
    s->ret = ret;
    s->slot = slot;
    s->func = func;
#ifndef TZ_RING_ONLY
    __atomic_signal_fence(__ATOMIC_SEQ_CST); /* a handler pushes above a complete frame */
#endif
    t->depth++;
    return 1;
}

int tz_enter(tz_thread *t, uintptr_t func, uintptr_t slot, uintptr_t ret)
{
#ifndef TZ_RING_ONLY
    if (!TZ_LOCK(t))
        return enter_queued(t, func, slot, ret);
#endif
    int r = enter_locked(t, func, slot, ret);
    TZ_UNLOCK(t);
    return r;
}

#ifdef TZ_RET_HOOKS
uintptr_t tz_exit(tz_thread *t, uintptr_t sp)
{
    if (t->depth == 0)
        return 0; /* cannot happen: every hooked return has its entry */
#ifndef TZ_RING_ONLY
    if (!TZ_LOCK(t)) {
        uintptr_t ret = t->stack[t->depth - 1].ret;
        exit_queued(t);
        return ret;
    }
#endif
    while (t->depth > 1 && t->stack[t->depth - 1].slot + sizeof(uintptr_t) < sp) {
        if (tz_rt_g.enabled)
            emit_exit(t);
        t->depth--;
    }
    if (tz_rt_g.enabled)
        emit_exit(t);
    uintptr_t ret = t->stack[--t->depth].ret;
    TZ_UNLOCK(t);
    return ret;
}

/* Hooked frames whose return-address slot lies below sp are gone (an exception was
 * caught above them): their exits are recorded now. */
void tz_unwound(tz_thread *t, uintptr_t sp)
{
    if (!TZ_LOCK(t))
        return; /* a handler's catch inside a record: the next hooked event resyncs */
    while (t->depth && t->stack[t->depth - 1].slot && t->stack[t->depth - 1].slot < sp) {
        if (tz_rt_g.enabled)
            emit_exit(t);
        t->depth--;
    }
    TZ_UNLOCK(t);
}
#endif

void tz_exit_func(tz_thread *t, uintptr_t func)
{
    uint32_t d = t->depth;
    while (d && t->stack[d - 1].func != func)
        d--;
    if (!d)
        return; /* not entered while tracing (or beyond the shadow stack) */
#ifndef TZ_RING_ONLY
    if (!TZ_LOCK(t)) {
        while (t->depth >= d)
            exit_queued(t);
        return;
    }
#endif
    while (t->depth >= d) {
        if (tz_rt_g.enabled && t->stack[t->depth - 1].ret != TZ_RET_UNRECORDED)
            emit_exit(t);
        t->depth--;
    }
    TZ_UNLOCK(t);
}

void tz_user(tz_thread *t, uint32_t id, int64_t value)
{
    if (!tz_rt_g.enabled)
        return;
#ifndef TZ_RING_ONLY
    if (!TZ_LOCK(t)) {
        q_put(t, TZR_K_USER, id, value);
        return;
    }
#endif
    emit_user_at(t, id, value, tz_arch_ticks());
    TZ_UNLOCK(t);
}

#ifdef TZ_TASKS
void tz_task_switch(tz_thread *t, uint32_t id, tz_task_stack *out, const tz_task_stack *in, int sub, int isr)
{
    /* the record may exceed the block's reserve: head, subkind, id, n, the addresses */
    if (tz_rt_g.enabled && t->p + 16 + TZ_STACK_SNAPSHOT * 10 > t->end + TZ_RESERVE)
        block_next(t); /* its start names the task switched from */
    out->depth = t->depth;
    for (uint32_t i = 0; i < t->depth; i++)
        out->func[i] = t->stack[i].func;
    t->depth = in->depth;
    for (uint32_t i = 0; i < in->depth; i++)
        t->stack[i].func = in->func[i];
    t->task = id || isr ? id + 1 : 0; /* back before the first task: its blocks start with STACK */
    t->in_isr = (uint32_t)isr;
    if (!tz_rt_g.enabled)
        return;
    uint8_t *p = put_head(t, TZR_K_EXT);
    *p++ = (uint8_t)sub;
    p = put_uv(p, id);
    t->p = put_open(t, p);
}

void tz_task_state(tz_thread *t, uint32_t id, uint32_t state)
{
    if (!tz_rt_g.enabled)
        return;
    if (t->p >= t->end)
        block_next(t);
    uint8_t *p = put_head(t, TZR_K_EXT);
    *p++ = TZR_EXT_STATE;
    p = put_uv(p, id);
    t->p = put_uv(p, state);
}
#endif

int tz_write_chunk(tz_put_fn put, void *user, uint32_t type, const void *payload, size_t n)
{
    uint8_t h[TZR_CHUNK_HEADER_SIZE];
    chunk_header(h, type, payload, n);
    if (put(user, h, sizeof h) < 0)
        return -1;
    return n ? put(user, payload, n) : 0;
}

int tz_write_header(tz_put_fn put, void *user, int arch, uint32_t pid, const char *exe)
{
    uint8_t h[TZR_FILE_HEADER_SIZE] = {0};
    tz_copy(h, TZR_MAGIC, 8);
    h[8] = TZR_VERSION & 0xff;
    h[10] = (uint8_t)arch;
    h[12] = (uint8_t)sizeof(uintptr_t);
    h[13] = (uint8_t)tz_rt_g.mode;
    if (put(user, h, sizeof h) < 0)
        return -1;
    uint8_t info[TZR_INFO_FIXED + 512];
    size_t n = 0;
    while (exe && exe[n] && n < 512)
        n++;
    put32(info, pid);
    put32(info + 4, tz_rt_g.clock);
    put64(info + 8, tz_rt_g.load_bias);
    tz_copy(info + TZR_INFO_FIXED, exe, n);
    return tz_write_chunk(put, user, TZR_CHUNK_INFO, info, TZR_INFO_FIXED + n);
}

int tz_write_dump(tz_put_fn put, void *user, int arch, uint32_t pid, const char *exe, int header)
{
    /* the clocks' second reading before the writing: on a microcontroller, interrupts
     * are masked while the dump goes out, which stops an interrupt-driven clock */
    uint64_t cv[4] = {tz_rt_g.tsc_a, tz_rt_g.ns_a, tz_plat_ticks(), tz_plat_ns()};
    tz_count nchunks = 0;
    if (header) {
        if (tz_write_header(put, user, arch, pid, exe) < 0)
            return -1;
        nchunks++;
    }
    for (tz_thread *t = tz_rt_g.threads; t; t = t->next) {
#ifndef TZ_RING_ONLY
        if (TZ_STREAMING) {
            tz_flush_thread(t);
            continue;
        }
#endif
        block_finish(t);
        size_t n = t->seq < t->nblocks ? (size_t)t->seq : t->nblocks;
        for (size_t k = 0; k < n; k++) {
            size_t i = t->cur + 1 + k + (t->nblocks - n); /* < 2 * nblocks */
            if (i >= t->nblocks)
                i -= t->nblocks;
            uint8_t *b = block_at(t, i);
            uint32_t used = (uint32_t)b[20] | (uint32_t)b[21] << 8 | (uint32_t)b[22] << 16 | (uint32_t)b[23] << 24;
            if (tz_write_chunk(put, user, TZR_CHUNK_BLOCK, b, TZR_BLOCK_HEADER_SIZE + used) < 0)
                return -1;
            nchunks++;
        }
    }
    for (tz_thread *t = tz_rt_g.threads; t; t = t->next) {
        /* u32 tid + u32 reserved, then the counters */
        uint64_t v[6] = {t->tid, t->events, t->lost, t->overwritten, t->overflow,
                         tz_rt_g.mode == TZR_MODE_RING && t->seq > t->nblocks ? t->seq - t->nblocks : 0};
        uint8_t r[TZR_THREAD_SIZE];
        put64s(r, v, 6);
        if (tz_write_chunk(put, user, TZR_CHUNK_THREAD, r, sizeof r) < 0)
            return -1;
        nchunks++;
    }
#ifdef TZ_TASKS
    int nt = tz_plat_task_chunks(put, user);
    if (nt < 0)
        return -1;
    nchunks += (tz_count)nt;
#endif
    uint8_t c[TZR_CALIB_SIZE];
    put64s(c, cv, 4);
    if (tz_write_chunk(put, user, TZR_CHUNK_CALIB, c, sizeof c) < 0)
        return -1;
    nchunks++;
    uint8_t e[8];
    put64(e, header ? nchunks : 0); /* 0: unknown (streamed dump) */
    return tz_write_chunk(put, user, TZR_CHUNK_END, e, sizeof e);
}
