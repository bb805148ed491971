/* Importer of traza runtime dumps (.tzr): functions become nested states per thread
 * (producer = thread under its process), per RTOS task (producer = task, with a
 * child "state" holding its Running/Ready/Blocked/Suspended states) or per interrupt
 * handler (producer "ISR <name>"), user events (TRAZA_EVENT) punctual events.
 * Symbolisation happens here, offline: function names from the program's symbol table
 * (util/elfsym.h), files and lines from its DWARF (libdw). */
#include "import/importers.h"
#include "import/rtdump.h"
#include "import/skips.h"
#include "util/elfsym.h"
#include "util/util.h"
#include "../../rt/include/traza_rt_format.h"

#include <elfutils/libdwfl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rtd_detect(const char *path, const unsigned char *head, size_t len)
{
    (void)path;
    return len >= 8 && memcmp(head, TZR_MAGIC, 8) == 0 ? 100 : 0;
}

typedef struct sym_info {
    int32_t type;
    uint64_t addr;
    char *file;
} sym_info;

typedef struct rtd_ctx {
    traza_writer *w;
    const tz_rtdump *d;
    Dwfl *dwfl;
    Dwfl_Module *mod;
    tz_elfsyms fsyms;       /* the program's symbol table (names owned by dwfl's Elf) */
    tz_imap addr2sym;       /* address -> index in syms */
    tz_imap type2sym;       /* event type -> the index in syms of its one address */
    sym_info *syms;
    size_t nsyms, cap;
    int32_t thread_prod;
    int32_t user_types[64]; /* by id, lazily; larger ids share the generic one */
    int32_t user_generic, d_uid, d_uval;
    int32_t states[4];      /* Running, Ready, Blocked, Suspended; lazily */
    uint64_t calls;
} rtd_ctx;

static const Dwfl_Callbacks offline_cb = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

/* The symbols of the program, else of its separate debuginfo file (a stripped
 * program whose .debug file dwfl found); none: addresses stay hexadecimal. */
static void load_fsyms(rtd_ctx *c)
{
    GElf_Addr bias;
    traza_err ignored;
    Elf *e = dwfl_module_getelf(c->mod, &bias);
    if (e && tz_elfsyms_read(e, "program", &c->fsyms, &ignored) == 0)
        return;
    Dwarf *dw = dwfl_module_getdwarf(c->mod, &bias);
    if (dw && (e = dwarf_getelf(dw)))
        tz_elfsyms_read(e, "debuginfo", &c->fsyms, &ignored);
}

/* A parameter of a function's type with its one value (its calls do not carry it). */
static int type_param(traza_writer *w, int32_t type, const char *name, const traza_value *v, traza_err *err)
{
    int32_t def = traza_writer_param_def(w, type, name, v->kind, err);
    return def < 0 ? -1 : traza_writer_param_const(w, def, v, err);
}

static int symbolize(rtd_ctx *c, uint64_t addr, sym_info **out, traza_err *err)
{
    int64_t idx;
    if (tz_imap_get(&c->addr2sym, (int64_t)addr, &idx)) {
        *out = &c->syms[idx];
        return 0;
    }
    char namebuf[64];
    const char *name = NULL, *file = NULL;
    int line = 0;
    if (c->mod) {
        uint64_t fa = c->d->arch != TZR_ARCH_X86_64 ? addr & ~(uint64_t)1 : addr; /* the Thumb bit */
        const tz_elfsym *f = tz_elfsyms_func_at(&c->fsyms, fa);
        name = f ? f->name : NULL;
        GElf_Addr bias = 0;
        dwfl_module_getelf(c->mod, &bias); /* file vaddr -> module address */
        Dwfl_Line *l = dwfl_module_getsrc(c->mod, bias + fa);
        if (l)
            file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
    }
    if (!name) {
        snprintf(namebuf, sizeof namebuf, "0x%" PRIx64, addr);
        name = namebuf;
    }
    /* A type is one function: its address, file and line are stored once, as the
     * type's (traza_writer_param_const). A second function of the same name (static
     * functions of two files) is told apart by its file, else by its address. */
    char alt[512];
    int32_t type = traza_writer_event_type(c->w, name, TRAZA_STATE, err);
    for (int k = 0; type >= 0 && tz_imap_get(&c->type2sym, type, &idx) && k < 2; k++) {
        const char *slash = file ? strrchr(file, '/') : NULL;
        if (k == 0 && file)
            snprintf(alt, sizeof alt, "%.200s (%.200s)", name, slash ? slash + 1 : file);
        else
            snprintf(alt, sizeof alt, "%.200s (0x%" PRIx64 ")", name, addr);
        type = traza_writer_event_type(c->w, alt, TRAZA_STATE, err);
    }
    if (type < 0)
        return -1;
    if (tz_imap_get(&c->type2sym, type, &idx))
        return traza_err_set(err, TRAZA_E_FORMAT, "two functions at 0x%" PRIx64 " and 0x%" PRIx64 " have one name: %s", c->syms[idx].addr, addr, name);
    if (TZ_GROW(c->syms, c->cap, c->nsyms + 1) < 0)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    sym_info *s = &c->syms[c->nsyms];
    memset(s, 0, sizeof *s);
    s->type = type;
    if (file) {
        const char *slash = strrchr(file, '/');
        s->file = tz_strdup(slash ? slash + 1 : file);
        if (!s->file)
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    s->addr = addr;
    c->nsyms++; /* owned from here: freed with the others on any failure */
    traza_value va = {TRAZA_PT_HEX, (int64_t)addr, 0, NULL}, vf = {TRAZA_PT_STRING, 0, 0, s->file}, vl = {TRAZA_PT_INT, line, 0, NULL};
    if (type_param(c->w, type, "addr", &va, err) < 0 ||
        (s->file && (type_param(c->w, type, "file", &vf, err) < 0 || type_param(c->w, type, "line", &vl, err) < 0)))
        return -1;
    if (tz_imap_put(&c->addr2sym, (int64_t)addr, (int64_t)c->nsyms - 1) < 0 || tz_imap_put(&c->type2sym, type, (int64_t)c->nsyms - 1) < 0)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    *out = s;
    return 0;
}

static int on_call(rtd_ctx *c, const tz_rtd_call *call, traza_err *err)
{
    sym_info *s = NULL;
    if (symbolize(c, call->addr, &s, err) < 0)
        return -1;
    traza_event ev = {0}; /* its function's address, file and line are its type's */
    ev.type = s->type;
    ev.producer = c->thread_prod;
    ev.ts = tz_rtdump_ns(c->d, call->start);
    ev.end_ts = tz_rtdump_ns(c->d, call->end);
    ev.level = call->level;
    ev.has = TRAZA_HAS_END | TRAZA_HAS_LEVEL;
    c->calls++;
    return traza_writer_event(c->w, &ev, err);
}

static int on_user(rtd_ctx *c, const tz_rtd_user *op, traza_err *err)
{
    int32_t *slot = op->id < 64 ? &c->user_types[op->id] : &c->user_generic;
    if (*slot < 0) {
        char name[48];
        if (op->id < 64)
            snprintf(name, sizeof name, "event %u", (unsigned)op->id);
        else
            snprintf(name, sizeof name, "event");
        int32_t ty = traza_writer_event_type(c->w, name, TRAZA_PUNCTUAL, err);
        if (ty < 0)
            return -1;
        *slot = ty;
    }
    int32_t did = traza_writer_param_def(c->w, *slot, "id", TRAZA_PT_INT, err);
    int32_t dval = traza_writer_param_def(c->w, *slot, "value", TRAZA_PT_INT, err);
    if (did < 0 || dval < 0)
        return -1;
    traza_param ps[2] = {{did, {TRAZA_PT_INT, (int64_t)(op->id & INT64_MAX), 0, NULL}},
                         {dval, {TRAZA_PT_INT, op->value, 0, NULL}}};
    traza_event ev = {0};
    ev.type = *slot;
    ev.producer = c->thread_prod;
    ev.ts = tz_rtdump_ns(c->d, op->tsc);
    ev.params = ps;
    ev.nparams = 2;
    return traza_writer_event(c->w, &ev, err);
}

/* One source of events in time order: a thread's or a task's calls and user events,
 * or a task's scheduling states (runs). The head is its next event. */
typedef struct tz_rtd_stream {
    tz_rtd_replay rp;
    const tz_rtd_thread *runs; /* a task whose states this stream gives (rp unused) */
    size_t run;
    int32_t prod;
    int has;
    uint64_t tsc;
    tz_rtd_call call;
    const tz_rtd_user *user; /* the head is this user event (else the call) */
} tz_rtd_stream;

static void stream_advance(tz_rtd_stream *s)
{
    if (s->runs) {
        s->has = s->run < s->runs->nruns;
        if (s->has)
            s->tsc = s->runs->runs[s->run++].start;
        return;
    }
    int k = tz_rtd_replay_next(&s->rp, &s->call, &s->user);
    s->has = k > 0;
    if (k == 1)
        s->user = NULL;
    if (s->has)
        s->tsc = s->user ? s->user->tsc : s->call.start;
}

/* Heap order of the streams by their head: time, then the stream's rank. */
static int stream_before(const tz_rtd_stream *ss, size_t a, size_t b)
{
    return ss[a].tsc != ss[b].tsc ? ss[a].tsc < ss[b].tsc : a < b;
}

static void heap_down(const tz_rtd_stream *ss, size_t *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && stream_before(ss, h[l], h[m]))
            m = l;
        if (l + 1 < n && stream_before(ss, h[l + 1], h[m]))
            m = l + 1;
        if (m == i)
            return;
        size_t x = h[i];
        h[i] = h[m];
        h[m] = x;
        i = m;
    }
}

/* A task's scheduling state: one of its runs (skipped when its state is none of the four). */
static int emit_run(rtd_ctx *c, const tz_rtd_stream *s, traza_err *err)
{
    static const char *const state_names[] = {"Running", "Ready", "Blocked", "Suspended"};
    const tz_rtd_run *run = &s->runs->runs[s->run - 1];
    int k = run->state + 1; /* TZ_RTD_RUNNING = -1 */
    if (k < 0 || k > 3)
        return 0;
    if (c->states[k] < 0 && (c->states[k] = traza_writer_event_type(c->w, state_names[k], TRAZA_STATE, err)) < 0)
        return -1;
    traza_event ev = {0};
    ev.type = c->states[k];
    ev.producer = s->prod;
    ev.ts = tz_rtdump_ns(c->d, run->start);
    ev.end_ts = tz_rtdump_ns(c->d, run->end);
    ev.has = TRAZA_HAS_END;
    return traza_writer_event(c->w, &ev, err);
}

/* The events of every stream, merged in time order: the store takes them as they
 * come, with no sort. */
static int replay_merged(rtd_ctx *c, tz_rtd_stream *ss, size_t ns, traza_err *err)
{
    size_t *h = malloc((ns + 1) * sizeof *h), n = 0;
    if (!h)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    for (size_t i = 0; i < ns; i++) {
        stream_advance(&ss[i]);
        if (ss[i].has)
            h[n++] = i;
    }
    for (size_t i = n / 2; i-- > 0;)
        heap_down(ss, h, n, i);
    int rc = 0;
    while (rc == 0 && n) {
        tz_rtd_stream *s = &ss[h[0]];
        c->thread_prod = s->prod;
        if (s->runs)
            rc = emit_run(c, s, err);
        else if (s->user)
            rc = on_user(c, s->user, err);
        else
            rc = on_call(c, &s->call, err);
        stream_advance(s);
        if (!s->has)
            h[0] = h[--n];
        heap_down(ss, h, n, 0);
    }
    free(h);
    return rc;
}

static int import_one(traza_ctx *ctx, traza_writer *w, const char *path, const traza_import_opts *opts,
                      traza_err *err)
{
    char *data = NULL;
    size_t len = 0;
    if (tz_read_file(path, &data, &len, err) < 0)
        return -1;
    int rc = tz_rtdump_import(ctx, w, (const uint8_t *)data, len, path, opts, err);
    free(data);
    return rc;
}

int tz_rtdump_import(traza_ctx *ctx, traza_writer *w, const uint8_t *data, size_t len, const char *path,
                     const traza_import_opts *opts, traza_err *err)
{
    tz_rtdump d;
    int rc = tz_rtdump_parse(&d, data, len, path, err);
    if (rc < 0)
        return -1;
    rtd_ctx c;
    memset(&c, 0, sizeof c);
    c.w = w;
    c.d = &d;
    /* a function trace at the dump's scale: about 9 bytes an event packed, 35 in rows */
    traza_writer_pack_events(w);
    for (size_t i = 0; i < 64; i++)
        c.user_types[i] = -1;
    c.user_generic = -1;
    for (size_t i = 0; i < 4; i++)
        c.states[i] = -1;
    tz_imap_init(&c.addr2sym);
    tz_imap_init(&c.type2sym);
    /* the program: $TRAZA_RT_EXE overrides the path recorded in the dump (a dump
     * read off a board, or a program moved since) */
    const char *exe = getenv("TRAZA_RT_EXE");
    if (!exe || !*exe)
        exe = d.exe;
    if (exe && *exe && access(exe, R_OK) == 0) {
        c.dwfl = dwfl_begin(&offline_cb);
        if (c.dwfl) {
            c.mod = dwfl_report_offline(c.dwfl, "main", exe, -1);
            dwfl_report_end(c.dwfl, NULL, NULL);
            if (c.mod)
                load_fsyms(&c);
        }
    }
    char buf[640];
    const char *base = d.exe ? strrchr(d.exe, '/') : NULL;
    snprintf(buf, sizeof buf, "%s[%u]", base ? base + 1 : (d.exe && *d.exe ? d.exe : "program"), (unsigned)d.pid);
    int32_t proc = traza_writer_producer(w, -1, buf, "Process", err);
    rc = proc < 0 ? -1 : 0;
    uint64_t unmatched = 0, lost = 0, over = 0, overflow = 0, written = 0;
    tz_rtd_stream *ss = calloc(2 * (d.nthreads + d.ntasks) + 1, sizeof *ss);
    size_t ns = 0;
    if (!ss && rc == 0)
        rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && i < d.nthreads; i++) {
        tz_rtd_thread *t = &d.threads[i];
        snprintf(buf, sizeof buf, "thread %u", (unsigned)t->tid);
        ss[ns].prod = traza_writer_producer(w, proc, buf, "Thread", err);
        if (ss[ns].prod < 0 || tz_rtd_replay_open(&ss[ns].rp, t, &unmatched, err) < 0) {
            rc = -1;
            break;
        }
        ns++;
        lost += t->lost;
        written += t->events;
        over += t->overwritten;
        overflow += t->overflow;
    }
    /* RTOS tasks: a producer each with its calls, and a child with its states;
     * interrupt handlers: a producer each with its calls */
    for (size_t i = 0; rc == 0 && i < d.ntasks; i++) {
        tz_rtd_thread *t = &d.tasks[i];
        if (!t->nops && !t->nruns && !t->nopen)
            continue; /* the context before the first task, whose events are its thread's */
        const char *nm = t->name && *t->name ? t->name : NULL;
        if (t->isr && nm)
            snprintf(buf, sizeof buf, "ISR %s", nm);
        else if (t->isr)
            snprintf(buf, sizeof buf, "ISR %u", (unsigned)t->tid);
        else if (nm)
            snprintf(buf, sizeof buf, "%s", nm);
        else
            snprintf(buf, sizeof buf, "task %u", (unsigned)t->tid);
        int32_t prod = traza_writer_producer(w, proc, buf, t->isr ? "ISR" : "Task", err);
        int32_t sched = prod < 0 || t->isr ? -1 : traza_writer_producer(w, prod, "state", "Scheduling", err);
        if (prod < 0 || (!t->isr && sched < 0) || tz_rtd_replay_open(&ss[ns].rp, t, &unmatched, err) < 0) {
            rc = -1;
            break;
        }
        ss[ns++].prod = prod;
        if (sched >= 0 && t->nruns) {
            ss[ns].runs = t;
            ss[ns++].prod = sched;
        }
    }
    if (rc == 0)
        rc = replay_merged(&c, ss, ns, err);
    for (size_t i = 0; ss && i < ns; i++)
        tz_rtd_replay_close(&ss[i].rp);
    free(ss);
    if (rc == 0) {
        char v[64];
        traza_writer_set_time_unit(w, d.has_calib ? -9 : 0);
        traza_writer_set_param(w, "rt.clock", d.has_calib ? "calibrated ns" : "uncalibrated ticks", err);
        traza_writer_set_param(w, "rt.mode", d.mode == TZR_MODE_STREAM ? "stream" : "ring", err);
        if (d.exe)
            traza_writer_set_param(w, "rt.program", d.exe, err);
        snprintf(v, sizeof v, "%" PRIu64, lost);
        traza_writer_set_param(w, "rt.lost_events", v, err);
        /* the events the recorder wrote (its count; a ring keeps only the newest) and those the dump holds */
        snprintf(v, sizeof v, "%" PRIu64, written);
        traza_writer_set_param(w, "rt.events_written", v, err);
        snprintf(v, sizeof v, "%" PRIu64, tz_rtdump_events_read(&d));
        traza_writer_set_param(w, "rt.events_read", v, err);
        snprintf(v, sizeof v, "%" PRIu64, over);
        traza_writer_set_param(w, "rt.overwritten_blocks", v, err);
        snprintf(v, sizeof v, "%" PRIu64, overflow);
        traza_writer_set_param(w, "rt.shadow_overflow", v, err);
        if (d.truncated) {
            /* what the threads still held in their buffers (at most one block each)
             * and any later events are lost, their number unknown */
            traza_writer_set_param(w, "rt.truncated", "yes: the dump has no end (program killed?); "
                                   "unflushed events of each thread are lost", err);
            snprintf(v, sizeof v, "%" PRIu64, d.truncated_bytes);
            traza_writer_set_param(w, "rt.truncated_bytes", v, err);
            snprintf(v, sizeof v, "%zu", d.nthreads);
            traza_writer_set_param(w, "rt.truncated_threads", v, err);
        }
        static const char *const clocks[] = {NULL, "DWT cycle counter", "SysTick (programmed by the runtime)",
                                             "SysTick (as the RTOS programs it)"};
        if (d.clock > 0 && d.clock < sizeof clocks / sizeof *clocks)
            traza_writer_set_param(w, "rt.clock_source", clocks[d.clock], err);
        if (d.ntasks) {
            snprintf(v, sizeof v, "%" PRIu64, d.task_switches);
            traza_writer_set_param(w, "rt.task_switches", v, err);
        }
        snprintf(v, sizeof v, "%" PRIu64, unmatched);
        traza_writer_set_param(w, "rt.unmatched_exits", v, err);
        if (d.has_calib) {
            snprintf(v, sizeof v, "%.0f", (double)(d.tsc_b - d.tsc_a) * 1e9 / (double)(d.ns_b - d.ns_a));
            traza_writer_set_param(w, "rt.ticks_per_second", v, err);
        }
        tz_skip_kind bad = {"bad_blocks", "corrupt blocks of the dump (checksum or length)", (int64_t)d.bad_blocks};
        rc = tz_skips_report(ctx, w, path, &bad, 1, tz_strict(opts), -1, err);
    }
    for (size_t i = 0; i < c.nsyms; i++)
        free(c.syms[i].file);
    free(c.syms);
    tz_elfsyms_free(&c.fsyms);
    tz_imap_free(&c.addr2sym);
    tz_imap_free(&c.type2sym);
    if (c.dwfl)
        dwfl_end(c.dwfl);
    tz_rtdump_free(&d);
    return rc;
}

static int rtd_read(traza_ctx *ctx, traza_writer *w, const char *const *paths, size_t npaths,
                    const traza_import_opts *opts, traza_err *err)
{
    for (size_t i = 0; i < npaths; i++)
        if (import_one(ctx, w, paths[i], opts, err) < 0)
            return -1;
    return 0;
}

const traza_importer tz_importer_rtdump = {
    "rtdump", "import-rtdump",
    "traza runtime dumps (.tzr): function calls as nested states per thread, symbolised from DWARF",
    rtd_detect, rtd_read,
};
