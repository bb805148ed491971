/* The processed trace of CTF kernel traces (traza_ctf_process): a synthetic raw trace
 * with every kind of event, checked state by state, and the shared LTTng traces,
 * checked for a consistent producer tree and well-formed states. */
#include "testutil.h"
#include "traza/ctf.h"

typedef struct rawp {
    const char *name;
    int is_str;
    int64_t i;
    const char *s;
} rawp;

static void raw_event(traza_writer *w, int32_t *cpus, int64_t ts, int cpu, const char *type, const rawp *ps, size_t n)
{
    traza_err err;
    traza_err_clear(&err);
    int32_t ty = traza_writer_event_type(w, type, TRAZA_PUNCTUAL, &err);
    assert_true(ty >= 0);
    traza_param params[8];
    for (size_t i = 0; i < n; i++) {
        params[i].def = traza_writer_param_def(w, ty, ps[i].name, ps[i].is_str ? TRAZA_PT_STRING : TRAZA_PT_INT, &err);
        assert_true(params[i].def >= 0);
        params[i].v = (traza_value){ps[i].is_str ? TRAZA_PT_STRING : TRAZA_PT_INT, ps[i].i, 0, ps[i].s};
    }
    traza_event e = {0};
    e.ts = ts;
    e.type = ty;
    e.producer = cpus[cpu];
    e.cpu = cpu;
    e.has = TRAZA_HAS_CPU;
    e.params = params;
    e.nparams = (uint32_t)n;
    assert_int_equal(traza_writer_event(w, &e, &err), 0);
}

#define I(n, v) {n, 0, v, NULL}
#define S(n, v) {n, 1, 0, v}
#define EV(ts, cpu, type, ...)                                                                 \
    do {                                                                                       \
        const rawp ps_[] = {__VA_ARGS__};                                                      \
        raw_event(w, cpus, ts, cpu, type, ps_, sizeof ps_ / sizeof ps_[0]);                    \
    } while (0)

static void switch_ev(traza_writer *w, int32_t *cpus, int64_t ts, int cpu, const char *pc, int64_t pt, int64_t st, const char *nc,
                      int64_t nt)
{
    const rawp ps[] = {S("prev_comm", pc), I("prev_tid", pt), I("prev_prio", 20), I("prev_state", st), S("next_comm", nc), I("next_tid", nt),
                       I("next_prio", 20)};
    raw_event(w, cpus, ts, cpu, "sched_switch", ps, 7);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every event of a trace as "path type ts[-end Llevel] [param=value...]", sorted. */
static char *dump(traza_workspace *ws, const char *name)
{
    traza_err err;
    traza_err_clear(&err);
    traza_trace *t = traza_trace_open(ws, name, TRAZA_OPEN_READ, &err);
    assert_non_null(t);
    traza_filter f;
    traza_filter_init(&f);
    f.with_params = 1;
    traza_cursor *c = traza_query(t, &f, &err);
    assert_non_null(c);
    char **lines = NULL;
    size_t n = 0;
    const traza_event *e;
    while (traza_cursor_next(c, &e, &err) > 0) {
        char path[256], line[1024];
        traza_trace_producer_path(t, e->producer, path, sizeof path);
        int k = snprintf(line, sizeof line, "%s %s %lld", path, traza_trace_event_type(t, e->type)->name, (long long)e->ts);
        if (e->has & TRAZA_HAS_END)
            k += snprintf(line + k, sizeof line - (size_t)k, "-%lld L%d", (long long)e->end_ts, e->level);
        for (uint32_t i = 0; i < e->nparams; i++) {
            const traza_param_def *d = traza_trace_param_def(t, e->params[i].def);
            if (e->params[i].v.kind == TRAZA_PT_STRING)
                k += snprintf(line + k, sizeof line - (size_t)k, " %s=%s", d->name, e->params[i].v.s);
            else
                k += snprintf(line + k, sizeof line - (size_t)k, " %s=%lld", d->name, (long long)e->params[i].v.i);
        }
        lines = realloc(lines, (n + 1) * sizeof *lines);
        lines[n++] = strdup(line);
    }
    traza_cursor_free(c);
    traza_trace_close(t);
    qsort(lines, n, sizeof *lines, cmp_str);
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(lines[i]) + 1;
    char *out = calloc(len, 1);
    for (size_t i = 0; i < n; i++) {
        strcat(out, lines[i]);
        strcat(out, "\n");
        free(lines[i]);
    }
    free(lines);
    return out;
}

static void test_synthetic(void **state)
{
    (void)state;
    tu_ws tw;
    tu_ws_open(&tw);
    traza_writer *w = traza_writer_begin(tw.ws, "k", "ctf", &tw.err);
    assert_non_null(w);
    int32_t root = traza_writer_producer(w, -1, "host", "Trace", &tw.err);
    int32_t cpus[2] = {traza_writer_producer(w, root, "cpu 0", "Cpu", &tw.err), traza_writer_producer(w, root, "cpu 1", "Cpu", &tw.err)};
    EV(100, 0, "lttng_statedump_process_state", I("tid", 10), I("pid", 10), S("name", "app"));
    EV(110, 0, "lttng_statedump_process_state", I("tid", 11), I("pid", 10), S("name", "app-worker"));
    switch_ev(w, cpus, 200, 0, "swapper/0", 0, 0, "app", 10);
    EV(250, 0, "syscall_entry_read", I("fd", 3));
    switch_ev(w, cpus, 300, 0, "app", 10, 1, "app-worker", 11);
    EV(320, 0, "irq_handler_entry", I("irq", 5), S("name", "eth0"));
    EV(330, 0, "irq_handler_exit", I("irq", 5), I("ret", 1));
    EV(340, 0, "softirq_entry", I("vec", 3));
    EV(360, 0, "softirq_exit", I("vec", 3));
    EV(400, 1, "sched_wakeup", S("comm", "app"), I("tid", 10), I("prio", 20), I("target_cpu", 1));
    switch_ev(w, cpus, 450, 1, "swapper/1", 0, 0, "app", 10);
    EV(460, 1, "syscall_exit_read", I("ret", 42));
    EV(500, 0, "sched_process_fork", S("parent_comm", "app-worker"), I("parent_tid", 11), I("parent_pid", 10), S("child_comm", "app-worker"),
       I("child_tid", 12), I("child_pid", 10));
    EV(520, 0, "sys_open", S("filename", "/etc/x"));
    EV(530, 0, "exit_syscall", I("ret", 3));
    switch_ev(w, cpus, 600, 0, "app-worker", 11, 0, "app-worker", 12);
    EV(700, 0, "sched_process_exit", S("comm", "app-worker"), I("tid", 12), I("prio", 20));
    switch_ev(w, cpus, 710, 0, "app-worker", 12, 64, "swapper/0", 0);
    EV(800, 1, "syscall_entry_write", I("fd", 1));
    EV(900, 1, "sched_stat_runtime", S("comm", "app"), I("tid", 10));
    traza_trace_info info;
    assert_int_equal(traza_writer_commit(w, &info, &tw.err), 0);
    traza_trace_info_clear(&info);

    traza_trace_info pinfo;
    assert_int_equal(traza_ctf_process(tw.ws, "k", NULL, &pinfo, &tw.err), 1);
    assert_string_equal(pinfo.name, "k.processed");
    assert_int_equal(pinfo.producers, 1 + 2 + 2 + 5); /* host, 2 CPUs, 2 processes, 5 threads */
    traza_trace_info_clear(&pinfo);
    char *got = dump(tw.ws, "k.processed");
    const char *want =
        "host/CPU 0 IRQ 320-330 L2 irq=5 name=eth0 ret=1\n"
        "host/CPU 0 Idle 710-900 L0 tid=0\n"
        "host/CPU 0 Running 200-300 L0 tid=10 comm=app\n"
        "host/CPU 0 Running 300-600 L0 tid=11 comm=app-worker\n"
        "host/CPU 0 Running 600-710 L0 tid=12 comm=app-worker\n"
        "host/CPU 0 SoftIRQ 340-360 L1 vec=3\n"
        "host/CPU 1 Running 450-900 L0 tid=10 comm=app\n"
        "host/app [10]/app [10] Blocked 300-400 L0\n"
        "host/app [10]/app [10] Running 200-300 L0\n"
        "host/app [10]/app [10] Running 450-900 L0\n"
        "host/app [10]/app [10] Waiting CPU 400-450 L0\n"
        "host/app [10]/app [10] sys_read 250-460 L1 ret=42\n"
        "host/app [10]/app [10] sys_write 800-900 L1\n"
        "host/app [10]/app-worker [11] Preempted 600-900 L0\n"
        "host/app [10]/app-worker [11] Running 300-600 L0\n"
        "host/app [10]/app-worker [11] fork 500 child_tid=12\n"
        "host/app [10]/app-worker [11] sys_open 520-530 L1 ret=3\n"
        "host/app [10]/app-worker [12] Running 600-710 L0\n"
        "host/app [10]/app-worker [12] Waiting CPU 500-600 L0\n"
        "host/app [10]/app-worker [12] exit 700\n";
    assert_string_equal(got, want);
    free(got);

    /* the link, and a re-run replaces the processed trace */
    traza_trace *t = traza_trace_open(tw.ws, "k", TRAZA_OPEN_READ, &tw.err);
    assert_non_null(t);
    traza_result_info r;
    assert_int_equal(traza_result_find(t, "processed", &r, &tw.err), 0);
    assert_int_equal(r.kind, TRAZA_RES_PROCESSED_TRACE);
    assert_string_equal(r.target, "k.processed");
    traza_result_info_clear(&r);
    traza_trace_close(t);
    assert_int_equal(traza_ctf_process(tw.ws, "k", NULL, NULL, &tw.err), 1);
    traza_trace_info *all;
    size_t n;
    assert_int_equal(traza_workspace_list(tw.ws, &all, &n, &tw.err), 0);
    assert_int_equal(n, 2);
    traza_trace_info_array_free(all, n);
    /* a name taken by an unrelated trace is refused */
    assert_int_equal(traza_ctf_process(tw.ws, "k.processed", "k", NULL, &tw.err), -1);
    assert_err_contains(tw.err, "a trace named 'k' exists and is not the processed trace of 'k.processed'");
    tu_ws_close(&tw);
}

/* Producer tree: Machine -> Cpu, Machine -> Process -> Thread; states well-formed and
 * never overlapping on one (producer, level). Returns the number of thread states. */
static int64_t check_processed(traza_workspace *ws, const char *name, int64_t *nthreads)
{
    traza_err err;
    traza_err_clear(&err);
    traza_trace *t = traza_trace_open(ws, name, TRAZA_OPEN_READ, &err);
    assert_non_null(t);
    const traza_producer *ps;
    size_t np = traza_trace_producers(t, &ps);
    assert_true(np > 0);
    *nthreads = 0;
    int32_t maxid = 0;
    for (size_t i = 0; i < np; i++) {
        const traza_producer *p = &ps[i], *par = p->parent >= 0 ? traza_trace_producer(t, p->parent) : NULL;
        if (p->id > maxid)
            maxid = p->id;
        if (!strcmp(p->type, "Machine"))
            assert_null(par);
        else if (!strcmp(p->type, "Cpu") || !strcmp(p->type, "Process"))
            assert_string_equal(par->type, "Machine");
        else if (!strcmp(p->type, "Thread")) {
            assert_string_equal(par->type, "Process");
            (*nthreads)++;
        } else
            fail_msg("unexpected producer type %s", p->type);
    }
    int64_t *last = calloc((size_t)(maxid + 1) * 4, sizeof *last);
    traza_filter f;
    traza_filter_init(&f);
    traza_cursor *c = traza_query(t, &f, &err);
    assert_non_null(c);
    const traza_event *e;
    int64_t states = 0;
    while (traza_cursor_next(c, &e, &err) > 0) {
        const traza_event_type *ty = traza_trace_event_type(t, e->type);
        if (ty->category != TRAZA_STATE)
            continue;
        assert_true(e->has & TRAZA_HAS_END);
        assert_true(e->end_ts >= e->ts);
        assert_true(e->level >= 0 && e->level < 4);
        int64_t *l = &last[(size_t)e->producer * 4 + (size_t)e->level];
        if (e->ts < *l)
            fail_msg("overlap on producer %d level %d at %lld (previous ends %lld)", e->producer, e->level, (long long)e->ts, (long long)*l);
        *l = e->end_ts;
        if (!strcmp(traza_trace_producer(t, e->producer)->type, "Thread"))
            states++;
    }
    traza_cursor_free(c);
    free(last);
    traza_trace_close(t);
    return states;
}

/* Imports the shared LTTng kernel trace (with its processed trace) as "rot". */
static void import_rotation(tu_ws *tw, const char *data, traza_trace_info *info)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/babeltrace-ctf/lttng-tracefile-rotation/kernel", data);
    const char *paths[1] = {path};
    traza_import_opts o = {0};
    o.name = "rot";
    if (traza_import(tw->ws, paths, 1, &o, info, &tw->err) < 0)
        fail_msg("%s", tw->err.msg);
}

static void test_lttng_kernel(void **state)
{
    (void)state;
    const char *data = tu_data_dir();
    TU_SKIP_NO_DATA(data);
    tu_ws tw;
    tu_ws_open(&tw);
    traza_trace_info info;
    import_rotation(&tw, data, &info);
    traza_trace_info_clear(&info);
    traza_trace *t = traza_trace_open(tw.ws, "rot", TRAZA_OPEN_READ, &tw.err);
    traza_result_info r;
    assert_int_equal(traza_result_find(t, "processed", &r, &tw.err), 0);
    assert_string_equal(r.target, "rot.processed");
    traza_result_info_clear(&r);
    /* every sched_switch starts one Running state (on the thread switched in, idle
     * threads excepted) */
    traza_filter f;
    traza_filter_init(&f);
    int32_t sw = traza_trace_event_type_by_name(t, "sched_switch")->id;
    f.types = &sw;
    f.ntypes = 1;
    traza_param_cond cond = {"next_tid", TRAZA_NE, "0"};
    f.conds = &cond;
    f.nconds = 1;
    int64_t switches_in = traza_count(t, &f, &tw.err);
    traza_trace_close(t);
    int64_t nthreads;
    int64_t states = check_processed(tw.ws, "rot.processed", &nthreads);
    assert_true(nthreads > 10);
    assert_true(states > 0);
    t = traza_trace_open(tw.ws, "rot.processed", TRAZA_OPEN_READ, &tw.err);
    traza_filter_init(&f);
    int32_t run = traza_trace_event_type_by_name(t, "Running")->id;
    f.types = &run;
    f.ntypes = 1;
    const traza_producer *ps;
    size_t np = traza_trace_producers(t, &ps);
    int32_t *threads = calloc(np, sizeof *threads);
    size_t nt = 0;
    for (size_t i = 0; i < np; i++)
        if (!strcmp(ps[i].type, "Thread"))
            threads[nt++] = ps[i].id;
    f.producers = threads;
    f.nproducers = nt;
    /* plus the threads found running at the start (first seen as prev) */
    int64_t running = traza_count(t, &f, &tw.err);
    assert_true(running >= switches_in);
    assert_true(running <= switches_in + 8);
    free(threads);
    const traza_producer *cpu3 = traza_trace_producer_find(t, "CPU 3");
    assert_non_null(cpu3);
    traza_trace_close(t);
    tu_ws_close(&tw);
}

static void test_ust_providers(void **state)
{
    (void)state;
    const char *data = tu_data_dir();
    TU_SKIP_NO_DATA(data);
    tu_ws tw;
    tu_ws_open(&tw);
    char path[4096];
    snprintf(path, sizeof path, "%s/babeltrace-ctf/wk-heartbeat-u", data);
    const char *paths[1] = {path};
    traza_import_opts o = {0};
    o.name = "hb";
    traza_trace_info info;
    if (traza_import(tw.ws, paths, 1, &o, &info, &tw.err) < 0)
        fail_msg("%s", tw.err.msg);
    assert_int_equal(info.events, 20);
    traza_trace_info_clear(&info);
    traza_trace_info p;
    assert_int_equal(traza_workspace_find(tw.ws, "hb.processed", &p, &tw.err), 0);
    assert_int_equal(p.events, 20);
    assert_string_equal(p.format, "ctf-ust");
    traza_trace_info_clear(&p);
    traza_trace *t = traza_trace_open(tw.ws, "hb.processed", TRAZA_OPEN_READ, &tw.err);
    assert_non_null(traza_trace_producer_find(t, "heartbeat"));
    assert_non_null(traza_trace_event_type_by_name(t, "heartbeat:msg"));
    traza_trace_close(t);
    /* --no-process: no derived trace */
    o.name = "hb2";
    o.no_postprocess = 1;
    assert_int_equal(traza_import(tw.ws, paths, 1, &o, &info, &tw.err), 0);
    traza_trace_info_clear(&info);
    assert_int_equal(traza_workspace_find(tw.ws, "hb2.processed", &p, &tw.err), -1);
    tu_ws_close(&tw);
}

/* The progress calls of one phase: how many, the last (done, total), and whether each
 * was within its total and not behind the one before. */
typedef struct phase {
    const char *what;
    int calls, ordered;
    uint64_t done, total;
} phase;

static void on_progress(void *user, const char *what, uint64_t done, uint64_t total)
{
    phase *ph = user;
    for (; ph->what; ph++)
        if (!strcmp(ph->what, what)) {
            if ((ph->calls && (done < ph->done || total != ph->total)) || (total && done > total))
                ph->ordered = 0;
            ph->calls++;
            ph->done = done;
            ph->total = total;
        }
}

/* Importing a CTF trace reports a fraction (of the streams' time span, in
 * ten-thousandths) that ends whole, and its processing reports both passes over the
 * events, ending at twice their number. */
static void test_progress(void **state)
{
    (void)state;
    const char *data = tu_data_dir();
    TU_SKIP_NO_DATA(data);
    tu_ws tw;
    tu_ws_open(&tw);
    phase ph[] = {{"importing CTF", 0, 1, 0, 0}, {"processing CTF", 0, 1, 0, 0}, {NULL, 0, 0, 0, 0}};
    traza_ctx_set_progress(tw.ctx, on_progress, ph);
    traza_trace_info info;
    import_rotation(&tw, data, &info);
    traza_ctx_set_progress(tw.ctx, NULL, NULL);
    assert_true(ph[0].calls >= 1);
    assert_true(ph[0].ordered);
    assert_int_equal(ph[0].total, 10000);
    assert_int_equal(ph[0].done, 10000);
    assert_true(ph[1].calls >= 1);
    assert_true(ph[1].ordered);
    assert_int_equal(ph[1].total, 2 * (uint64_t)info.events);
    assert_int_equal(ph[1].done, ph[1].total);
    traza_trace_info_clear(&info);
    tu_ws_close(&tw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_synthetic),
        cmocka_unit_test(test_lttng_kernel),
        cmocka_unit_test(test_ust_providers),
        cmocka_unit_test(test_progress),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
