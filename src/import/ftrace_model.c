/* The model of the ftrace importers (import/ftrace_model.h). */
#include "import/ftrace_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const softirq_names[] = {"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU"};

void ftm_init(ftm *m, traza_ctx *ctx, traza_writer *w, const char *path, traza_err *err)
{
    memset(m, 0, sizeof *m);
    m->ctx = ctx;
    m->w = w;
    m->err = err;
    m->path = path;
    tz_imap_init(&m->thread_index);
    tz_imap_init(&m->fg_defs);
    tz_map_init(&m->types);
    m->t_running = m->t_irq = m->t_softirq = m->t_syscall = -1;
    traza_writer_set_time_unit(w, -9);
}

static void free_stack(ftm_stack *s)
{
    for (size_t k = 0; k < s->n; k++)
        free(s->f[k].str);
    free(s->f);
}

void ftm_free(ftm *m)
{
    for (size_t i = 0; i < m->ncpus; i++)
        free_stack(&m->cpus[i]);
    free(m->cpus);
    free(m->run);
    for (size_t i = 0; i < m->nthreads; i++)
        free_stack(&m->threads[i]);
    free(m->threads);
    tz_imap_free(&m->thread_index);
    tz_imap_free(&m->fg_defs);
    tz_map_free(&m->types);
}

int ftm_fail(ftm *m) { return m->rc = -1; }

int ftm_oom(ftm *m)
{
    traza_err_set(m->err, TRAZA_E_NOMEM, "%s: out of memory", m->path);
    return ftm_fail(m);
}

ftm_stack *ftm_cpu(ftm *m, int cpu)
{
    if (cpu < 0) {
        traza_err_set(m->err, TRAZA_E_PARSE, "%s: a record of CPU %d", m->path, cpu);
        ftm_fail(m);
        return NULL;
    }
    if ((size_t)cpu >= m->ncpus) {
        size_t want = (size_t)cpu + 1, cap1 = m->ncpus, cap2 = m->ncpus;
        if (tz_grow_to((void **)&m->cpus, &cap1, want, sizeof *m->cpus) < 0 ||
            tz_grow_to((void **)&m->run, &cap2, want, sizeof *m->run) < 0) {
            ftm_oom(m);
            return NULL;
        }
        memset(m->cpus + m->ncpus, 0, (want - m->ncpus) * sizeof *m->cpus);
        memset(m->run + m->ncpus, 0, (want - m->ncpus) * sizeof *m->run);
        for (size_t i = m->ncpus; i < want; i++)
            m->cpus[i].prod = -1;
        m->ncpus = want;
    }
    ftm_stack *s = &m->cpus[cpu];
    if (s->prod < 0) {
        char name[32];
        snprintf(name, sizeof name, "CPU %d", cpu);
        if ((s->prod = traza_writer_producer(m->w, -1, name, "CPU", m->err)) < 0) {
            ftm_fail(m);
            return NULL;
        }
        s->cpu = cpu;
    }
    return s;
}

ftm_stack *ftm_record(ftm *m, int cpu, int64_t ts)
{
    if (m->n_records++ == 0)
        m->first_ts = ts;
    if (ts > m->last_ts)
        m->last_ts = ts;
    ftm_stack *cs = ftm_cpu(m, cpu);
    if (cs && !cs->seen) {
        cs->seen = 1;
        cs->first_ts = ts;
    }
    return cs;
}

ftm_stack *ftm_thread(ftm *m, int64_t pid, const char *comm, int cpu)
{
    int64_t v;
    if (tz_imap_get(&m->thread_index, pid, &v))
        return &m->threads[v];
    char *name = tz_asprintf("%s (%lld)", comm ? comm : "<...>", (long long)pid);
    if (!name || TZ_GROW(m->threads, m->capthreads, m->nthreads + 1) < 0 || tz_imap_put(&m->thread_index, pid, (int64_t)m->nthreads) < 0) {
        free(name);
        ftm_oom(m);
        return NULL;
    }
    ftm_stack *s = &m->threads[m->nthreads++];
    memset(s, 0, sizeof *s);
    s->cpu = cpu;
    s->first_ts = m->first_ts;
    s->prod = traza_writer_producer(m->w, -1, name, "Thread", m->err);
    free(name);
    if (s->prod < 0) {
        ftm_fail(m);
        return NULL;
    }
    return s;
}

int32_t ftm_state_type(ftm *m, const char *name)
{
    int64_t v;
    if (tz_map_get(&m->types, name, &v))
        return (int32_t)v;
    int32_t t = traza_writer_event_type(m->w, name, TRAZA_STATE, m->err);
    if (t < 0)
        return ftm_fail(m);
    if (tz_map_put(&m->types, name, t) < 0)
        return ftm_oom(m);
    return t;
}

static int32_t def(ftm *m, int32_t type, const char *name, traza_ptype pt)
{
    return traza_writer_param_def(m->w, type, name, pt, m->err);
}

/* The fixed state types and their parameters, made on first use so that a trace
 * has only the types it uses. kind 0: "running". */
static int32_t fixed_type(ftm *m, int kind)
{
    int32_t t;
    switch (kind) {
    case 0:
        if (m->t_running >= 0)
            return m->t_running;
        if ((t = ftm_state_type(m, "running")) < 0 || (m->d_comm = def(m, t, "comm", TRAZA_PT_STRING)) < 0 ||
            (m->d_pid = def(m, t, "pid", TRAZA_PT_INT)) < 0 || (m->d_prio = def(m, t, "prio", TRAZA_PT_INT)) < 0 ||
            (m->d_prev_comm = def(m, t, "prev_comm", TRAZA_PT_STRING)) < 0 ||
            (m->d_prev_pid = def(m, t, "prev_pid", TRAZA_PT_INT)) < 0 ||
            (m->d_prev_state = def(m, t, "prev_state", TRAZA_PT_INT)) < 0)
            return ftm_fail(m);
        return m->t_running = t;
    case FTM_IRQ:
        if (m->t_irq >= 0)
            return m->t_irq;
        if ((t = ftm_state_type(m, "irq")) < 0 || (m->d_irq = def(m, t, "irq", TRAZA_PT_INT)) < 0 ||
            (m->d_irqname = def(m, t, "name", TRAZA_PT_STRING)) < 0)
            return ftm_fail(m);
        return m->t_irq = t;
    case FTM_SOFTIRQ:
        if (m->t_softirq >= 0)
            return m->t_softirq;
        if ((t = ftm_state_type(m, "softirq")) < 0 || (m->d_vec = def(m, t, "vec", TRAZA_PT_INT)) < 0 ||
            (m->d_vecname = def(m, t, "name", TRAZA_PT_STRING)) < 0)
            return ftm_fail(m);
        return m->t_softirq = t;
    default: /* FTM_SYSCALL, FTM_SYSCALL_NAMED */
        if (m->t_syscall >= 0)
            return m->t_syscall;
        if ((t = ftm_state_type(m, "syscall")) < 0 || (m->d_sysid = def(m, t, "id", TRAZA_PT_INT)) < 0 ||
            (m->d_sysname = def(m, t, "name", TRAZA_PT_STRING)) < 0)
            return ftm_fail(m);
        return m->t_syscall = t;
    }
}

static int emit_state(ftm *m, int32_t prod, int32_t type, int64_t ts, int64_t end, int level, int cpu, const traza_param *p,
                      uint32_t np)
{
    traza_event e = {0};
    e.ts = ts;
    e.end_ts = end < ts ? ts : end;
    e.type = type;
    e.producer = prod;
    e.level = level;
    e.cpu = cpu;
    e.has = TRAZA_HAS_END | TRAZA_HAS_LEVEL | TRAZA_HAS_CPU;
    e.params = p;
    e.nparams = np;
    return traza_writer_event(m->w, &e, m->err) < 0 ? ftm_fail(m) : 0;
}

static int emit_running(ftm *m, int cpu, int64_t end)
{
    ftm_run *r = &m->run[cpu];
    if (!r->active)
        return 0;
    r->active = 0;
    int32_t type = fixed_type(m, 0);
    if (type < 0)
        return -1;
    traza_param p[6] = {
        {m->d_comm, {TRAZA_PT_STRING, 0, 0, r->comm}},      {m->d_pid, {TRAZA_PT_INT, r->pid, 0, NULL}},
        {m->d_prio, {TRAZA_PT_INT, r->prio, 0, NULL}},      {m->d_prev_comm, {TRAZA_PT_STRING, 0, 0, r->prev_comm}},
        {m->d_prev_pid, {TRAZA_PT_INT, r->prev_pid, 0, NULL}}, {m->d_prev_state, {TRAZA_PT_INT, r->prev_state, 0, NULL}},
    };
    return emit_state(m, m->cpus[cpu].prod, type, r->ts, end, 0, cpu, p, 6);
}

int ftm_switch(ftm *m, int cpu, int64_t ts)
{
    if (!ftm_cpu(m, cpu) || emit_running(m, cpu, ts) < 0)
        return -1;
    memset(&m->run[cpu], 0, sizeof m->run[cpu]);
    m->run[cpu].ts = ts;
    m->run[cpu].active = 1;
    return 0;
}

/* A function's state type and its "addr" parameter definition. */
static int32_t fg_type(ftm *m, const char *fn, int32_t *addr_def)
{
    int32_t t = ftm_state_type(m, fn);
    if (t < 0)
        return -1;
    int64_t v;
    if (tz_imap_get(&m->fg_defs, t, &v)) {
        *addr_def = (int32_t)v;
    } else {
        if ((*addr_def = def(m, t, "addr", TRAZA_PT_HEX)) < 0)
            return ftm_fail(m);
        if (tz_imap_put(&m->fg_defs, t, *addr_def) < 0)
            return ftm_oom(m);
    }
    return t;
}

/* The state of frame f (at stack level `level`) of stack s, ending at end. */
static int close_frame(ftm *m, ftm_stack *s, const ftm_frame *f, int level, int64_t end)
{
    traza_param p[2];
    uint32_t np = 0;
    int32_t type = f->kind == FTM_FUNC ? 0 : fixed_type(m, f->kind);
    if (type < 0)
        return -1;
    switch (f->kind) {
    case FTM_IRQ:
        p[np++] = (traza_param){m->d_irq, {TRAZA_PT_INT, f->key, 0, NULL}};
        p[np++] = (traza_param){m->d_irqname, {TRAZA_PT_STRING, 0, 0, f->str ? f->str : ""}};
        break;
    case FTM_SOFTIRQ:
        p[np++] = (traza_param){m->d_vec, {TRAZA_PT_INT, f->key, 0, NULL}};
        if (f->key >= 0 && (size_t)f->key < sizeof softirq_names / sizeof *softirq_names)
            p[np++] = (traza_param){m->d_vecname, {TRAZA_PT_STRING, 0, 0, softirq_names[f->key]}};
        break;
    case FTM_SYSCALL:
        p[np++] = (traza_param){m->d_sysid, {TRAZA_PT_INT, f->key, 0, NULL}};
        break;
    case FTM_SYSCALL_NAMED:
        p[np++] = (traza_param){m->d_sysname, {TRAZA_PT_STRING, 0, 0, f->skey}};
        break;
    default: { /* FTM_FUNC */
        char buf[32];
        const char *fn = f->str;
        if (!fn) {
            snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)f->key);
            fn = buf;
        }
        int32_t d;
        if ((type = fg_type(m, fn, &d)) < 0)
            return -1;
        if (f->key)
            p[np++] = (traza_param){d, {TRAZA_PT_HEX, f->key, 0, NULL}};
    }
    }
    return emit_state(m, s->prod, type, f->ts, end, level, s->cpu, p, np);
}

int ftm_push(ftm *m, ftm_stack *s, int kind, int64_t ts, int64_t key, const char *skey, const char *str)
{
    if (TZ_GROW(s->f, s->cap, s->n + 1) < 0)
        return ftm_oom(m);
    ftm_frame *f = &s->f[s->n];
    f->ts = ts;
    f->kind = kind;
    f->key = key;
    f->skey = skey;
    f->str = NULL;
    if (str && !(f->str = tz_strdup(str)))
        return ftm_oom(m);
    s->n++;
    return 0;
}

ftm_frame *ftm_top(ftm_stack *s, int kind)
{
    for (size_t k = s->n; k > 0; k--)
        if (s->f[k - 1].kind == kind)
            return &s->f[k - 1];
    return NULL;
}

int ftm_pop(ftm *m, ftm_stack *s, int kind, int64_t ts, int64_t key, const char *skey, int64_t start)
{
    size_t k = s->n;
    while (k > 0 && !(s->f[k - 1].kind == kind && s->f[k - 1].key == key && (!skey || strcmp(s->f[k - 1].skey, skey) == 0)))
        k--;
    if (k == 0) {
        m->n_unmatched++;
        ftm_frame f = {start, kind, key, skey, NULL};
        return close_frame(m, s, &f, (int)s->n, ts);
    }
    while (s->n >= k) { /* the frames above index k-1 lost their exit; then k-1 itself */
        ftm_frame *f = &s->f[--s->n];
        if (s->n >= k)
            m->n_unended++;
        int rc = close_frame(m, s, f, (int)s->n, ts);
        free(f->str);
        if (rc < 0)
            return -1;
        if (s->n < k)
            break;
    }
    return 0;
}

static int close_all(ftm *m, ftm_stack *s)
{
    while (s->n > 0) {
        ftm_frame *f = &s->f[--s->n];
        m->n_unended++;
        int rc = close_frame(m, s, f, (int)s->n, m->last_ts);
        free(f->str);
        if (rc < 0)
            return -1;
    }
    return 0;
}

int ftm_finish(ftm *m)
{
    for (size_t i = 0; i < m->ncpus; i++)
        if (emit_running(m, (int)i, m->last_ts) < 0 || close_all(m, &m->cpus[i]) < 0)
            return -1;
    for (size_t i = 0; i < m->nthreads; i++)
        if (close_all(m, &m->threads[i]) < 0)
            return -1;
    return 0;
}

void ftm_log(ftm *m)
{
    if (m->n_unmatched)
        traza_log(m->ctx, TRAZA_LOG_INFO, "%s: %lld exit(s) without their entry start at the first record (of their CPU for irqs)", m->path,
                  (long long)m->n_unmatched);
    if (m->n_unended)
        traza_log(m->ctx, TRAZA_LOG_INFO, "%s: %lld entr(ies) without their exit end at the exit of an outer one or at the trace's end", m->path,
                  (long long)m->n_unended);
}
