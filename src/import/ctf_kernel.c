/* The processed trace of an imported CTF trace (see include/traza/ctf.h).
 *
 * Two passes over the raw trace in time order: the first learns the threads (tid ->
 * pid, command name) from sched_switch, sched_process_fork, the statedump and the
 * context fields; the second replays the scheduler, system-call and interrupt events
 * through small per-thread and per-CPU state machines and writes closed intervals.
 * Every state is closed before the next one on the same (producer, level) opens, so
 * states never overlap; the ones still open at the end close at the trace's end. */
#include "traza/ctf.h"
#include "traza/result.h"
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { K_NONE, K_SWITCH, K_FORK, K_EXEC, K_EXIT, K_WAKEUP, K_STATEDUMP, K_SYS_ENTRY, K_SYS_EXIT, K_IRQ_ENTRY, K_IRQ_EXIT,
       K_SOFTIRQ_ENTRY, K_SOFTIRQ_EXIT, K_PROVIDER };

typedef struct open_state {
    int32_t type;   /* -1 = nothing open */
    int64_t start;
    int32_t cpu;
    int64_t ival;
    char *sval;
} open_state;

typedef struct kthread {
    int64_t tid, pid;
    int32_t idle_cpu; /* tid 0: one idle thread per CPU */
    char *comm;
    int32_t producer;
    int dead;
    open_state sched; /* level 0 */
    open_state sys;   /* level 1 */
} kthread;

typedef struct kcpu {
    int64_t cur;      /* the tid running, -1 unknown */
    int32_t producer;
    open_state run;     /* level 0: Running / Idle */
    open_state softirq; /* level 1 */
    open_state irq;     /* level 2 */
    open_state sys;     /* level 3: system calls of an unknown thread */
} kcpu;

typedef struct kproc {
    traza_trace *raw;
    traza_writer *w;
    traza_err *err;
    int8_t *kinds;        /* per raw type */
    size_t nkinds;
    const char *host;
    kthread *th;
    size_t nth, capth;
    tz_map thmap;         /* "tid" or "0/cpu" -> index */
    kcpu *cpus;
    size_t ncpus;
    tz_map pmap;          /* pid -> process producer */
    tz_map types, defs, provs;
    int32_t root;
    int64_t end;
    int64_t syscalls;
    int kernel, provider;
} kproc;

/* ---- parameters of raw events ------------------------------------------------ */

static const traza_value *pget(const kproc *k, const traza_event *e, const char *name)
{
    for (uint32_t i = 0; i < e->nparams; i++) {
        const traza_param_def *d = traza_trace_param_def(k->raw, e->params[i].def);
        if (d && strcmp(d->name, name) == 0)
            return &e->params[i].v;
    }
    return NULL;
}

static int pint(const kproc *k, const traza_event *e, const char *name, int64_t *out)
{
    const traza_value *v = pget(k, e, name);
    if (!v)
        return 0;
    if (v->kind == TRAZA_PT_INT || v->kind == TRAZA_PT_HEX) {
        *out = v->i;
        return 1;
    }
    if (v->kind == TRAZA_PT_DOUBLE) {
        *out = (int64_t)v->d;
        return 1;
    }
    if (v->kind == TRAZA_PT_STRING && v->s) {
        char *end;
        long long x = strtoll(v->s, &end, 0);
        if (end != v->s) {
            *out = x;
            return 1;
        }
    }
    return 0;
}

static const char *pstr(const kproc *k, const traza_event *e, const char *name)
{
    const traza_value *v = pget(k, e, name);
    return v && v->kind == TRAZA_PT_STRING ? v->s : NULL;
}

static int starts(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

static int classify(const char *n)
{
    if (!strcmp(n, "sched_switch"))
        return K_SWITCH;
    if (!strcmp(n, "sched_process_fork"))
        return K_FORK;
    if (!strcmp(n, "sched_process_exec"))
        return K_EXEC;
    if (!strcmp(n, "sched_process_exit"))
        return K_EXIT;
    if (!strcmp(n, "sched_wakeup") || !strcmp(n, "sched_wakeup_new"))
        return K_WAKEUP;
    if (!strcmp(n, "lttng_statedump_process_state"))
        return K_STATEDUMP;
    if (starts(n, "syscall_entry_") || starts(n, "compat_syscall_entry_"))
        return K_SYS_ENTRY;
    if (starts(n, "syscall_exit_") || starts(n, "compat_syscall_exit_") || !strcmp(n, "exit_syscall"))
        return K_SYS_EXIT;
    /* LTTng before 2.6: "sys_NAME" entries, one "exit_syscall" */
    if (starts(n, "sys_") && n[4] && strcmp(n, "sys_enter") != 0 && strcmp(n, "sys_exit") != 0)
        return K_SYS_ENTRY;
    if (!strcmp(n, "irq_handler_entry"))
        return K_IRQ_ENTRY;
    if (!strcmp(n, "irq_handler_exit"))
        return K_IRQ_EXIT;
    if (!strcmp(n, "softirq_entry"))
        return K_SOFTIRQ_ENTRY;
    if (!strcmp(n, "softirq_exit"))
        return K_SOFTIRQ_EXIT;
    if (strchr(n, ':'))
        return K_PROVIDER;
    return K_NONE;
}

/* The system call's name from its entry or exit event name ("" for exit_syscall). */
static const char *syscall_name(const char *n)
{
    static const char *const pre[] = {"compat_syscall_entry_", "compat_syscall_exit_", "syscall_entry_", "syscall_exit_", "sys_"};
    for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++)
        if (starts(n, pre[i]))
            return n + strlen(pre[i]);
    return "";
}

/* ---- the model ---------------------------------------------------------------- */

static int oom(kproc *k) { return traza_err_set(k->err, TRAZA_E_NOMEM, "ctf processing: out of memory"); }

static void os_init(open_state *s) { memset(s, 0, sizeof *s), s->type = -1; }

static kcpu *cpu_get(kproc *k, int64_t cpu)
{
    if (cpu < 0 || cpu > 65535)
        return NULL;
    if ((size_t)cpu >= k->ncpus) {
        size_t n = (size_t)cpu + 1;
        kcpu *c = realloc(k->cpus, n * sizeof *c);
        if (!c)
            return NULL;
        for (size_t i = k->ncpus; i < n; i++) {
            c[i].cur = -1;
            c[i].producer = -1;
            os_init(&c[i].run);
            os_init(&c[i].softirq);
            os_init(&c[i].irq);
            os_init(&c[i].sys);
        }
        k->cpus = c;
        k->ncpus = n;
    }
    return &k->cpus[cpu];
}

/* The thread `tid` (tid 0: the idle thread of `cpu`); created when `create`. */
static kthread *thread_get(kproc *k, int64_t tid, int64_t cpu, int create)
{
    char key[48];
    if (tid == 0)
        snprintf(key, sizeof key, "0/%lld", (long long)cpu);
    else
        snprintf(key, sizeof key, "%lld", (long long)tid);
    int64_t v;
    if (tz_map_get(&k->thmap, key, &v))
        return &k->th[v];
    if (!create || TZ_GROW(k->th, k->capth, k->nth + 1) < 0 || tz_map_put(&k->thmap, key, (int64_t)k->nth) < 0)
        return NULL;
    kthread *t = &k->th[k->nth++];
    memset(t, 0, sizeof *t);
    t->tid = tid;
    t->pid = tid;
    t->idle_cpu = tid == 0 ? (int32_t)cpu : -1;
    t->producer = -1;
    os_init(&t->sched);
    os_init(&t->sys);
    return t;
}

static int set_comm(kproc *k, kthread *t, const char *comm)
{
    if (!comm || !*comm || (t->comm && strcmp(t->comm, comm) == 0))
        return 0;
    char *c = tz_strdup(comm);
    if (!c)
        return oom(k);
    free(t->comm);
    t->comm = c;
    return 0;
}

static int learn(kproc *k, int64_t tid, int64_t pid, const char *comm, int64_t cpu)
{
    if (tid < 0 || (tid == 0 && cpu < 0))
        return 0;
    kthread *t = thread_get(k, tid, cpu, 1);
    if (!t)
        return oom(k);
    if (pid >= 0)
        t->pid = pid;
    return set_comm(k, t, comm);
}

static int32_t type_of(kproc *k, const char *name, traza_category cat)
{
    int64_t v;
    if (tz_map_get(&k->types, name, &v))
        return (int32_t)v;
    int32_t id = traza_writer_event_type(k->w, name, cat, k->err);
    if (id < 0)
        return -1;
    if (tz_map_put(&k->types, name, id) < 0)
        return oom(k);
    return id;
}

static int32_t def_of(kproc *k, int32_t type, const char *name, traza_ptype pt)
{
    char *key = tz_asprintf("%d\x1f%s", type, name);
    if (!key)
        return oom(k);
    int64_t v;
    if (tz_map_get(&k->defs, key, &v)) {
        free(key);
        return (int32_t)v;
    }
    int32_t id = traza_writer_param_def(k->w, type, name, pt, k->err);
    if (id >= 0 && tz_map_put(&k->defs, key, id) < 0)
        id = oom(k);
    free(key);
    return id;
}

/* ---- producers ---------------------------------------------------------------- */

static int make_producers(kproc *k)
{
    k->root = traza_writer_producer(k->w, -1, k->host, "Machine", k->err);
    if (k->root < 0)
        return -1;
    char name[96];
    for (size_t i = 0; i < k->ncpus; i++) {
        snprintf(name, sizeof name, "CPU %zu", i);
        if ((k->cpus[i].producer = traza_writer_producer(k->w, k->root, name, "Cpu", k->err)) < 0)
            return -1;
    }
    for (size_t i = 0; i < k->nth; i++) {
        kthread *t = &k->th[i];
        int64_t pid = t->tid == 0 ? 0 : t->pid;
        char pkey[32];
        snprintf(pkey, sizeof pkey, "%lld", (long long)pid);
        int64_t v;
        int32_t proc;
        if (tz_map_get(&k->pmap, pkey, &v)) {
            proc = (int32_t)v;
        } else {
            /* the process is named after its main thread (tid == pid) */
            const char *pname = pid == 0 ? "swapper" : NULL;
            kthread *main_t = pid > 0 ? thread_get(k, pid, -1, 0) : NULL;
            if (!pname)
                pname = main_t && main_t->comm ? main_t->comm : t->comm ? t->comm : "?";
            char *pn = tz_asprintf("%s [%lld]", pname, (long long)pid);
            if (!pn)
                return oom(k);
            proc = traza_writer_producer(k->w, k->root, pn, "Process", k->err);
            free(pn);
            if (proc < 0)
                return -1;
            if (tz_map_put(&k->pmap, pkey, proc) < 0)
                return oom(k);
        }
        char *tn = t->tid == 0 ? tz_asprintf("swapper/%d [0]", (int)t->idle_cpu)
                               : tz_asprintf("%s [%lld]", t->comm ? t->comm : "?", (long long)t->tid);
        if (!tn)
            return oom(k);
        t->producer = traza_writer_producer(k->w, proc, tn, "Thread", k->err);
        free(tn);
        if (t->producer < 0)
            return -1;
    }
    return 0;
}

/* ---- writing states ----------------------------------------------------------- */

static int os_close(kproc *k, open_state *s, int32_t producer, int level, int64_t ts, const char *ikey, const char *skey,
                    int has_ret, int64_t ret)
{
    if (s->type < 0)
        return 0;
    traza_param ps[3];
    uint32_t np = 0;
    if (ikey) {
        if ((ps[np].def = def_of(k, s->type, ikey, TRAZA_PT_INT)) < 0)
            return -1;
        ps[np].v = (traza_value){TRAZA_PT_INT, s->ival, 0, NULL};
        np++;
    }
    if (skey && s->sval) {
        if ((ps[np].def = def_of(k, s->type, skey, TRAZA_PT_STRING)) < 0)
            return -1;
        ps[np].v = (traza_value){TRAZA_PT_STRING, 0, 0, s->sval};
        np++;
    }
    if (has_ret) {
        if ((ps[np].def = def_of(k, s->type, "ret", TRAZA_PT_INT)) < 0)
            return -1;
        ps[np].v = (traza_value){TRAZA_PT_INT, ret, 0, NULL};
        np++;
    }
    traza_event e = {0};
    e.ts = s->start;
    e.end_ts = ts < s->start ? s->start : ts;
    e.type = s->type;
    e.producer = producer;
    e.level = level;
    e.has = TRAZA_HAS_END | TRAZA_HAS_LEVEL;
    if (s->cpu >= 0) {
        e.cpu = s->cpu;
        e.has |= TRAZA_HAS_CPU;
    }
    e.params = ps;
    e.nparams = np;
    int rc = traza_writer_event(k->w, &e, k->err);
    free(s->sval);
    os_init(s);
    return rc;
}

static int os_open(kproc *k, open_state *s, const char *type, int64_t ts, int32_t cpu, int64_t ival, const char *sval)
{
    if ((s->type = type_of(k, type, TRAZA_STATE)) < 0)
        return -1;
    s->start = ts;
    s->cpu = cpu;
    s->ival = ival;
    s->sval = NULL;
    if (sval && !(s->sval = tz_strdup(sval)))
        return oom(k);
    return 0;
}

static int thread_state(kproc *k, kthread *t, const char *type, int64_t ts, int32_t cpu)
{
    if (os_close(k, &t->sched, t->producer, 0, ts, NULL, NULL, 0, 0) < 0)
        return -1;
    return type ? os_open(k, &t->sched, type, ts, cpu, 0, NULL) : 0;
}

static int punctual(kproc *k, int32_t producer, const char *type, int64_t ts, int32_t cpu, const char *skey, const char *sval,
                    const char *ikey, int64_t ival)
{
    int32_t ty = type_of(k, type, TRAZA_PUNCTUAL);
    if (ty < 0)
        return -1;
    traza_param ps[2];
    uint32_t np = 0;
    if (skey && sval) {
        if ((ps[np].def = def_of(k, ty, skey, TRAZA_PT_STRING)) < 0)
            return -1;
        ps[np++].v = (traza_value){TRAZA_PT_STRING, 0, 0, sval};
    }
    if (ikey) {
        if ((ps[np].def = def_of(k, ty, ikey, TRAZA_PT_INT)) < 0)
            return -1;
        ps[np++].v = (traza_value){TRAZA_PT_INT, ival, 0, NULL};
    }
    traza_event e = {0};
    e.ts = ts;
    e.type = ty;
    e.producer = producer;
    if (cpu >= 0) {
        e.cpu = cpu;
        e.has = TRAZA_HAS_CPU;
    }
    e.params = ps;
    e.nparams = np;
    return traza_writer_event(k->w, &e, k->err);
}

/* The thread an event belongs to: its tid context field, else the one running on
 * its CPU. NULL when unknown. */
static kthread *current(kproc *k, const traza_event *e, int64_t cpu)
{
    int64_t tid;
    if (pint(k, e, "ctx.tid", &tid) || pint(k, e, "ctx.vtid", &tid))
        return thread_get(k, tid, cpu, 0);
    kcpu *c = cpu_get(k, cpu);
    return c && c->cur >= 0 ? thread_get(k, c->cur, cpu, 0) : NULL;
}

/* Preempted when switched out while runnable: prev_state 0, or only a "preempted"
 * marker bit above the task-state bits (TASK_REPORT_MAX / TASK_STATE_MAX). */
static int is_preempted(kproc *k, const traza_event *e)
{
    int64_t st;
    if (pint(k, e, "prev_state", &st))
        return (st & 0xff) == 0;
    const char *s = pstr(k, e, "prev_state");
    return s && (strcmp(s, "TASK_RUNNING") == 0 || strcmp(s, "R") == 0 || strcmp(s, "R+") == 0);
}

static int on_switch(kproc *k, const traza_event *e, int64_t cpu)
{
    kcpu *c = cpu_get(k, cpu);
    int64_t ptid, ntid;
    if (!c || !pint(k, e, "prev_tid", &ptid) || !pint(k, e, "next_tid", &ntid))
        return 0;
    kthread *prev = thread_get(k, ptid, cpu, 0), *next = thread_get(k, ntid, cpu, 0);
    if (prev) {
        if (prev->sched.type < 0 && !prev->dead && prev->tid != 0) {
            /* first sight: it was running since the start of the trace */
            if (os_open(k, &prev->sched, "Running", k->end, (int32_t)cpu, 0, NULL) < 0)
                return -1;
        }
        const char *st = prev->dead ? NULL : prev->tid == 0 ? NULL : is_preempted(k, e) ? "Preempted" : "Blocked";
        if (thread_state(k, prev, st, e->ts, (int32_t)cpu) < 0)
            return -1;
    }
    if (next && thread_state(k, next, next->tid == 0 ? NULL : "Running", e->ts, (int32_t)cpu) < 0)
        return -1;
    /* the CPU: Running (a thread) or Idle */
    if (os_close(k, &c->run, c->producer, 0, e->ts, "tid", "comm", 0, 0) < 0)
        return -1;
    if (ntid == 0) {
        if (os_open(k, &c->run, "Idle", e->ts, (int32_t)cpu, 0, NULL) < 0)
            return -1;
        c->run.ival = 0;
    } else if (os_open(k, &c->run, "Running", e->ts, (int32_t)cpu, ntid, next ? next->comm : pstr(k, e, "next_comm")) < 0) {
        return -1;
    }
    c->cur = ntid;
    return 0;
}

static int replay(kproc *k, const traza_event *e, int kind)
{
    int64_t cpu = e->has & TRAZA_HAS_CPU ? e->cpu : -1;
    const char *tname = traza_trace_event_type(k->raw, e->type)->name;
    switch (kind) {
    case K_SWITCH:
        return on_switch(k, e, cpu);
    case K_WAKEUP: {
        int64_t tid;
        kthread *t = pint(k, e, "tid", &tid) ? thread_get(k, tid, cpu, 0) : NULL;
        if (t && t->tid != 0 && !t->dead && (t->sched.type < 0 || t->sched.type == type_of(k, "Blocked", TRAZA_STATE)))
            return thread_state(k, t, "Waiting CPU", e->ts, -1);
        return 0;
    }
    case K_FORK: {
        int64_t ctid, ptid = -1;
        kthread *t = pint(k, e, "child_tid", &ctid) ? thread_get(k, ctid, cpu, 0) : NULL;
        pint(k, e, "parent_tid", &ptid);
        kthread *p = ptid > 0 ? thread_get(k, ptid, cpu, 0) : NULL;
        if (p && punctual(k, p->producer, "fork", e->ts, (int32_t)cpu, NULL, NULL, "child_tid", ctid) < 0)
            return -1;
        if (t && t->tid != 0) {
            t->dead = 0;
            return thread_state(k, t, "Waiting CPU", e->ts, -1);
        }
        return 0;
    }
    case K_EXEC: {
        int64_t tid;
        kthread *t = pint(k, e, "tid", &tid) ? thread_get(k, tid, cpu, 0) : current(k, e, cpu);
        return t ? punctual(k, t->producer, "exec", e->ts, (int32_t)cpu, "filename", pstr(k, e, "filename"), NULL, 0) : 0;
    }
    case K_EXIT: {
        int64_t tid;
        kthread *t = pint(k, e, "tid", &tid) ? thread_get(k, tid, cpu, 0) : current(k, e, cpu);
        if (!t || t->tid == 0)
            return 0;
        t->dead = 1;
        return punctual(k, t->producer, "exit", e->ts, (int32_t)cpu, NULL, NULL, NULL, 0);
    }
    case K_SYS_ENTRY: {
        kthread *t = current(k, e, cpu);
        kcpu *c = cpu_get(k, cpu);
        open_state *s = t ? &t->sys : c ? &c->sys : NULL;
        int32_t prod = t ? t->producer : c ? c->producer : -1;
        int level = t ? 1 : 3;
        k->syscalls++;
        if (!s) /* no thread and no CPU: counted, but nowhere to put it */
            return traza_err_set(k->err, TRAZA_E_PARSE, "%s at %lld: a system call entry with neither a thread nor a CPU", tname,
                                 (long long)e->ts);
        if (os_close(k, s, prod, level, e->ts, NULL, NULL, 0, 0) < 0)
            return -1;
        char *ty = tz_asprintf("sys_%s", syscall_name(tname));
        if (!ty)
            return oom(k);
        int rc = os_open(k, s, ty, e->ts, (int32_t)cpu, 0, NULL);
        free(ty);
        return rc;
    }
    case K_SYS_EXIT: {
        kthread *t = current(k, e, cpu);
        kcpu *c = cpu_get(k, cpu);
        int64_t ret = 0;
        int has_ret = pint(k, e, "ret", &ret);
        if (t && t->sys.type >= 0)
            return os_close(k, &t->sys, t->producer, 1, e->ts, NULL, NULL, has_ret, ret);
        if (c && c->sys.type >= 0)
            return os_close(k, &c->sys, c->producer, 3, e->ts, NULL, NULL, has_ret, ret);
        return 0;
    }
    case K_IRQ_ENTRY:
    case K_SOFTIRQ_ENTRY: {
        kcpu *c = cpu_get(k, cpu);
        if (!c)
            return 0;
        int irq = kind == K_IRQ_ENTRY;
        open_state *s = irq ? &c->irq : &c->softirq;
        if (os_close(k, s, c->producer, irq ? 2 : 1, e->ts, irq ? "irq" : "vec", "name", 0, 0) < 0)
            return -1;
        int64_t n = -1;
        pint(k, e, irq ? "irq" : "vec", &n);
        return os_open(k, s, irq ? "IRQ" : "SoftIRQ", e->ts, (int32_t)cpu, n, irq ? pstr(k, e, "name") : NULL);
    }
    case K_IRQ_EXIT:
    case K_SOFTIRQ_EXIT: {
        kcpu *c = cpu_get(k, cpu);
        if (!c)
            return 0;
        int irq = kind == K_IRQ_EXIT;
        int64_t ret = 0;
        int has_ret = irq && pint(k, e, "ret", &ret);
        return os_close(k, irq ? &c->irq : &c->softirq, c->producer, irq ? 2 : 1, e->ts, irq ? "irq" : "vec", "name", has_ret, ret);
    }
    default:
        return 0;
    }
}

/* ---- the provider view (user space) -------------------------------------------- */

static int provider_event(kproc *k, const traza_event *e)
{
    const char *name = traza_trace_event_type(k->raw, e->type)->name;
    const char *colon = strchr(name, ':');
    char key[160];
    int64_t pid = -1, tid = -1;
    if (!pint(k, e, "ctx.vpid", &pid))
        pint(k, e, "ctx.pid", &pid);
    if (!pint(k, e, "ctx.vtid", &tid))
        pint(k, e, "ctx.tid", &tid);
    snprintf(key, sizeof key, "%.*s\x1f%lld\x1f%lld", (int)(colon - name), name, (long long)pid, (long long)tid);
    int64_t v;
    int32_t prod;
    if (tz_map_get(&k->provs, key, &v)) {
        prod = (int32_t)v;
    } else {
        char pn[128];
        snprintf(pn, sizeof pn, "%.*s", (int)(colon - name), name);
        prod = traza_writer_producer(k->w, -1, pn, "Provider", k->err);
        if (prod >= 0 && pid >= 0) {
            snprintf(pn, sizeof pn, "pid %lld", (long long)pid);
            prod = traza_writer_producer(k->w, prod, pn, "Process", k->err);
        }
        if (prod >= 0 && tid >= 0) {
            snprintf(pn, sizeof pn, "tid %lld", (long long)tid);
            prod = traza_writer_producer(k->w, prod, pn, "Thread", k->err);
        }
        if (prod < 0)
            return -1;
        if (tz_map_put(&k->provs, key, prod) < 0)
            return oom(k);
    }
    int32_t ty = type_of(k, name, TRAZA_PUNCTUAL);
    if (ty < 0)
        return -1;
    traza_param *ps = e->nparams ? malloc(e->nparams * sizeof *ps) : NULL;
    if (e->nparams && !ps)
        return oom(k);
    for (uint32_t i = 0; i < e->nparams; i++) {
        const traza_param_def *d = traza_trace_param_def(k->raw, e->params[i].def);
        ps[i].v = e->params[i].v;
        if (!d || (ps[i].def = def_of(k, ty, d->name, d->ptype)) < 0) {
            free(ps);
            return d ? -1 : traza_err_set(k->err, TRAZA_E_INTERNAL, "ctf processing: a parameter without definition");
        }
    }
    traza_event o = *e;
    o.type = ty;
    o.producer = prod;
    o.params = ps;
    int rc = traza_writer_event(k->w, &o, k->err);
    free(ps);
    return rc;
}

/* ---- driver ------------------------------------------------------------------- */

static int pass(kproc *k, int second)
{
    traza_filter f;
    traza_filter_init(&f);
    f.with_params = 1;
    traza_cursor *cur = traza_query(k->raw, &f, k->err);
    if (!cur)
        return -1;
    const traza_event *e;
    int r, rc = 0;
    /* progress over both passes: each reads every event once */
    traza_ctx *ctx = traza_workspace_ctx(traza_trace_workspace(k->raw));
    uint64_t n = (uint64_t)traza_trace_info_of(k->raw)->events, seen = 0;
    while (rc == 0 && (r = traza_cursor_next(cur, &e, k->err)) > 0) {
        if ((++seen & 0xffff) == 0 && traza_progress(ctx, "processing CTF", (second ? n : 0) + seen, 2 * n)) {
            rc = traza_err_set(k->err, TRAZA_E_CANCELLED, "cancelled");
            break;
        }
        int kind = e->type >= 0 && (size_t)e->type < k->nkinds ? k->kinds[e->type] : K_NONE;
        if (kind == K_NONE)
            continue;
        int64_t cpu = e->has & TRAZA_HAS_CPU ? e->cpu : -1;
        if (!second) {
            if (!k->host) {
                const traza_producer *p = traza_trace_producer(k->raw, e->producer);
                while (p && p->parent >= 0)
                    p = traza_trace_producer(k->raw, p->parent);
                k->host = p ? p->name : "machine";
            }
            if (kind == K_PROVIDER) {
                k->provider = 1;
                continue;
            }
            k->kernel = 1;
            if (cpu >= 0 && !cpu_get(k, cpu)) {
                rc = oom(k);
                break;
            }
            int64_t tid, pid = -1;
            if (pint(k, e, "ctx.tid", &tid)) {
                pint(k, e, "ctx.pid", &pid);
                rc = learn(k, tid, pid, pstr(k, e, "ctx.procname"), cpu);
            }
            if (rc == 0 && kind == K_SWITCH) {
                if (pint(k, e, "prev_tid", &tid))
                    rc = learn(k, tid, -1, pstr(k, e, "prev_comm"), cpu);
                if (rc == 0 && pint(k, e, "next_tid", &tid))
                    rc = learn(k, tid, -1, pstr(k, e, "next_comm"), cpu);
            } else if (kind == K_FORK) {
                pid = -1;
                if (pint(k, e, "parent_tid", &tid)) {
                    pint(k, e, "parent_pid", &pid);
                    rc = learn(k, tid, pid, pstr(k, e, "parent_comm"), cpu);
                }
                pid = -1;
                if (rc == 0 && pint(k, e, "child_tid", &tid)) {
                    pint(k, e, "child_pid", &pid);
                    rc = learn(k, tid, pid, pstr(k, e, "child_comm"), cpu);
                }
            } else if (kind == K_STATEDUMP || kind == K_WAKEUP || kind == K_EXIT || kind == K_EXEC) {
                pid = -1;
                if (pint(k, e, "tid", &tid)) {
                    pint(k, e, "pid", &pid);
                    rc = learn(k, tid, pid, pstr(k, e, kind == K_STATEDUMP ? "name" : "comm"), cpu);
                }
            }
        } else if (kind == K_PROVIDER) {
            rc = provider_event(k, e);
        } else {
            rc = replay(k, e, kind);
        }
    }
    if (rc == 0 && r == 0 && second && traza_progress(ctx, "processing CTF", 2 * n, 2 * n))
        rc = traza_err_set(k->err, TRAZA_E_CANCELLED, "cancelled");
    traza_cursor_free(cur);
    return rc < 0 || r < 0 ? -1 : 0;
}

static int finish(kproc *k)
{
    for (size_t i = 0; i < k->nth; i++) {
        kthread *t = &k->th[i];
        if (os_close(k, &t->sched, t->producer, 0, k->end, NULL, NULL, 0, 0) < 0 ||
            os_close(k, &t->sys, t->producer, 1, k->end, NULL, NULL, 0, 0) < 0)
            return -1;
    }
    for (size_t i = 0; i < k->ncpus; i++) {
        kcpu *c = &k->cpus[i];
        if (os_close(k, &c->run, c->producer, 0, k->end, "tid", "comm", 0, 0) < 0 ||
            os_close(k, &c->softirq, c->producer, 1, k->end, "vec", "name", 0, 0) < 0 ||
            os_close(k, &c->irq, c->producer, 2, k->end, "irq", "name", 0, 0) < 0 ||
            os_close(k, &c->sys, c->producer, 3, k->end, NULL, NULL, 0, 0) < 0)
            return -1;
    }
    return 0;
}

static void kproc_free(kproc *k)
{
    for (size_t i = 0; i < k->nth; i++) {
        free(k->th[i].comm);
        free(k->th[i].sched.sval);
        free(k->th[i].sys.sval);
    }
    free(k->th);
    for (size_t i = 0; i < k->ncpus; i++) {
        free(k->cpus[i].run.sval);
        free(k->cpus[i].softirq.sval);
        free(k->cpus[i].irq.sval);
        free(k->cpus[i].sys.sval);
    }
    free(k->cpus);
    free(k->kinds);
    tz_map_free(&k->thmap);
    tz_map_free(&k->pmap);
    tz_map_free(&k->types);
    tz_map_free(&k->defs);
    tz_map_free(&k->provs);
}

/* 1 if `name` is the processed-trace result target of the open trace `t`. */
static int is_our_target(traza_trace *t, const char *name)
{
    traza_result_info *rs = NULL;
    size_t n = 0;
    traza_err e2;
    traza_err_clear(&e2);
    if (traza_result_list(t, &rs, &n, &e2) < 0)
        return 0;
    int found = 0;
    for (size_t i = 0; i < n; i++)
        if (rs[i].kind == TRAZA_RES_PROCESSED_TRACE && rs[i].target && strcmp(rs[i].target, name) == 0)
            found = 1;
    traza_result_info_array_free(rs, n);
    return found;
}

int traza_ctf_process(traza_workspace *ws, const char *trace, const char *out_name, traza_trace_info *out, traza_err *err)
{
    kproc k;
    memset(&k, 0, sizeof k);
    k.err = err;
    tz_map_init(&k.thmap);
    tz_map_init(&k.pmap);
    tz_map_init(&k.types);
    tz_map_init(&k.defs);
    tz_map_init(&k.provs);
    char *name = NULL;
    int rc = -1;
    if (!(k.raw = traza_trace_open(ws, trace, TRAZA_OPEN_WRITE, err)))
        goto done;
    const traza_trace_info *ri = traza_trace_info_of(k.raw);
    const traza_event_type *types;
    size_t nt = traza_trace_event_types(k.raw, &types);
    int32_t maxid = -1;
    for (size_t i = 0; i < nt; i++)
        if (types[i].id > maxid)
            maxid = types[i].id;
    k.nkinds = (size_t)(maxid + 1);
    if (k.nkinds && !(k.kinds = calloc(k.nkinds, 1))) {
        oom(&k);
        goto done;
    }
    int any = 0;
    for (size_t i = 0; i < nt; i++)
        if (types[i].id >= 0) {
            k.kinds[types[i].id] = (int8_t)classify(types[i].name);
            any |= k.kinds[types[i].id] != K_NONE;
        }
    if (!any) {
        rc = 0;
        goto done;
    }
    name = out_name ? tz_strdup(out_name) : tz_asprintf("%s.processed", ri->name);
    if (!name) {
        oom(&k);
        goto done;
    }
    traza_trace_info old;
    traza_err e2;
    traza_err_clear(&e2);
    if (traza_workspace_find(ws, name, &old, &e2) == 0) {
        traza_trace_info_clear(&old);
        if (!is_our_target(k.raw, name)) {
            traza_err_set(err, TRAZA_E_EXISTS, "a trace named '%s' exists and is not the processed trace of '%s'; give another name", name,
                          ri->name);
            goto done;
        }
    }
    if (pass(&k, 0) < 0)
        goto done;
    if (!k.kernel && !k.provider) {
        rc = 0;
        goto done;
    }
    /* a temporary name while the old processed trace (if any) still exists */
    char *tmp = tz_asprintf("%s.tmp-%lld", name, (long long)ri->id);
    if (!tmp) {
        oom(&k);
        goto done;
    }
    k.w = traza_writer_begin(ws, tmp, k.kernel ? "ctf-kernel" : "ctf-ust", err);
    free(tmp);
    if (!k.w)
        goto done;
    traza_writer_set_time_unit(k.w, ri->time_unit);
    if (traza_writer_set_param(k.w, "source_trace", ri->name, err) < 0)
        goto done;
    k.end = ri->min_ts;
    if (k.kernel && make_producers(&k) < 0)
        goto done;
    if (pass(&k, 1) < 0)
        goto done;
    k.end = ri->max_ts;
    if (finish(&k) < 0)
        goto done;
    char cnt[32];
    snprintf(cnt, sizeof cnt, "%lld", (long long)k.syscalls);
    if (traza_writer_set_param(k.w, "syscalls", cnt, err) < 0)
        goto done;
    traza_trace_info pinfo;
    memset(&pinfo, 0, sizeof pinfo);
    traza_writer *w = k.w;
    k.w = NULL;
    if (traza_writer_commit(w, &pinfo, err) < 0)
        goto done;
    /* swap in under the final name */
    traza_err_clear(&e2);
    if (traza_workspace_find(ws, name, &old, &e2) == 0) {
        traza_trace_info_clear(&old);
        if (traza_workspace_remove(ws, name, err) < 0) {
            traza_workspace_remove(ws, pinfo.name, &e2);
            traza_trace_info_clear(&pinfo);
            goto done;
        }
    }
    if (traza_workspace_rename(ws, pinfo.name, name, err) < 0) {
        traza_workspace_remove(ws, pinfo.name, &e2);
        traza_trace_info_clear(&pinfo);
        goto done;
    }
    traza_trace_info_clear(&pinfo);
    traza_result_meta m = {"processed", "ctf-kernel", k.kernel ? "kernel" : "provider", 1, NULL};
    if (traza_result_save_processed(k.raw, &m, name, err) < 0) {
        traza_workspace_remove(ws, name, &e2);
        goto done;
    }
    if (out && traza_workspace_find(ws, name, out, err) < 0)
        goto done;
    rc = 1;
done:
    if (k.w)
        traza_writer_abort(k.w);
    if (k.raw)
        traza_trace_close(k.raw);
    free(name);
    kproc_free(&k);
    return rc;
}
