/* Runtime dump parser (.tzr): the stack snapshot of a block, counts bounded by the
 * bytes that hold them, RTOS task records. */
#include "testutil.h"
#include "import/rtdump.h"
#include "../rt/include/traza_rt_format.h"

/* Operation i of thread t (decoded from its compact form). */
static tz_rtd_op op_at(const tz_rtd_thread *t, size_t i)
{
    tz_rtd_op o = {0, 0, 0};
    assert_int_equal(tz_rtd_op_at(t, i, &o), 0);
    return o;
}

/* The fuzz corpus file of a crafted dump: its block holds a second stack record, longer
 * than the first, which the parser wrote past the snapshot buffer of the first. Its
 * first byte is the harness's flag byte. */
#define SECOND_STACK "fuzz/corpus/rtdump/second-stack.raw"

static size_t read_src(const char *rel, uint8_t *out, size_t cap)
{
    const char *root = getenv("TRAZA_SRC");
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root ? root : ".", rel);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("%s: cannot open", path);
    size_t n = fread(out, 1, cap, f);
    fclose(f);
    return n;
}

/* A dump under construction: header, then chunks appended with their checksums. */
typedef struct { uint8_t b[4096]; size_t n; } dump;

static void put(dump *d, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        d->b[d->n++] = (uint8_t)(v >> (8 * i));
}

static void dump_begin(dump *d)
{
    d->n = 0;
    memcpy(d->b, TZR_MAGIC, 8);
    d->n = 8;
    put(d, TZR_VERSION, 2);
    put(d, TZR_ARCH_X86_64, 2);
    put(d, 8, 1);
    put(d, TZR_MODE_RING, 1);
    put(d, 0, 2);
}

static void chunk(dump *d, uint32_t type, const uint8_t *payload, size_t n)
{
    put(d, type, 4);
    put(d, n, 4);
    put(d, tzr_sum64(payload, n), 8);
    memcpy(d->b + d->n, payload, n);
    d->n += n;
}

/* A block of thread 7 whose event bytes are `ev`. */
static void block(dump *d, uint64_t seq, uint64_t tsc, const uint8_t *ev, size_t nev)
{
    uint8_t p[256];
    dump h = {.n = 0};
    put(&h, seq, 8);
    put(&h, tsc, 8);
    put(&h, 7, 4);
    put(&h, nev, 4);
    memcpy(p, h.b, h.n);
    memcpy(p + h.n, ev, nev);
    chunk(d, TZR_CHUNK_BLOCK, p, h.n + nev);
}

static void dump_end(dump *d, uint64_t nchunks)
{
    uint8_t p[8];
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(nchunks >> (8 * i));
    chunk(d, TZR_CHUNK_END, p, 8);
}

static void test_second_stack_record(void **state)
{
    (void)state;
    uint8_t data[256];
    size_t n = read_src(SECOND_STACK, data, sizeof data);
    assert_int_equal(n, 159);
    tz_rtdump d;
    traza_err err = {0};
    assert_int_equal(tz_rtdump_parse(&d, data + 1, n - 1, "h.tzr", &err), -1);
    assert_string_equal(err.msg, "h.tzr: byte 137: stack record after the start of a block of thread 6353");
    assert_null(d.threads);
}

/* After a lost block, the snapshot of the block the operations start in counts, even
 * when it is longer than the one of an earlier block that held no operation. */
static void test_snapshot_after_lost_block(void **state)
{
    (void)state;
    dump f;
    dump_begin(&f);
    const uint8_t only_stack[] = {TZR_K_EXT, TZR_EXT_STACK, 1, 0x10};
    block(&f, 0, 100, only_stack, sizeof only_stack);
    const uint8_t stack_exit[] = {TZR_K_EXT, TZR_EXT_STACK, 3, 0x20, 0x30, 0x40, (5 << 2) | TZR_K_EXIT};
    block(&f, 2, 200, stack_exit, sizeof stack_exit);
    dump_end(&f, 2);
    tz_rtdump d;
    traza_err err = {0};
    assert_int_equal(tz_rtdump_parse(&d, f.b, f.n, "lost.tzr", &err), 0);
    assert_int_equal(d.nthreads, 1);
    assert_int_equal(d.threads[0].nopen, 3);
    assert_int_equal(d.threads[0].open[0], 0x20);
    assert_int_equal(d.threads[0].open[2], 0x40);
    assert_int_equal(d.threads[0].first_tsc, 200);
    assert_int_equal(d.threads[0].nops, 1);
    assert_int_equal(op_at(&d.threads[0], 0).tsc, 205);
    tz_rtdump_free(&d);
}

static void test_stack_count_past_block(void **state)
{
    (void)state;
    dump f;
    dump_begin(&f);
    const uint8_t ev[] = {TZR_K_EXT, TZR_EXT_STACK, 0x7f, 0x10, 0x20};
    block(&f, 0, 100, ev, sizeof ev);
    dump_end(&f, 1);
    tz_rtdump d;
    traza_err err = {0};
    assert_int_equal(tz_rtdump_parse(&d, f.b, f.n, "cnt.tzr", &err), -1);
    assert_string_equal(err.msg, "cnt.tzr: byte 56: truncated or malformed event record");
}

/* RTOS tasks: a TASK record inside a block is a switch (its events go to that task,
 * its addresses are the task's open functions the first time); at a block's start it
 * names the running task without being a switch. */
static void task_dump(dump *f)
{
    dump_begin(f);
    const uint8_t b0[] = {TZR_K_EXT, TZR_EXT_STACK, 0,          /* main: nothing open */
                          (1 << 2) | TZR_K_ENTRY, 0x20,          /* 101: enters 0x10 */
                          (2 << 2) | TZR_K_EXT, TZR_EXT_TASK, 1, 1, 0x50, /* 103: to task 1, in 0x50 */
                          (3 << 2) | TZR_K_EXIT,                 /* 106: leaves 0x50 */
                          (4 << 2) | TZR_K_EXT, TZR_EXT_TASK, 2, 0, /* 110: to task 2 */
                          (1 << 2) | TZR_K_ENTRY, 0xa0, 0x01};   /* 111: enters 0x60 (0x10 + 0x50) */
    block(f, 0, 100, b0, sizeof b0);
    const uint8_t b1[] = {TZR_K_EXT, TZR_EXT_TASK, 2, 1, 0x60,  /* 300: task 2 still */
                          (5 << 2) | TZR_K_EXIT,                 /* 305: leaves 0x60 */
                          (1 << 2) | TZR_K_EXT, TZR_EXT_TASK, 1, 0}; /* 306: to task 1 */
    block(f, 1, 300, b1, sizeof b1);
    uint8_t name[TZR_TASK_FIXED + 2] = {1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 'r', 'x'};
    chunk(f, TZR_CHUNK_TASK, name, sizeof name);
    dump_end(f, 3);
}

static void test_task_records(void **state)
{
    (void)state;
    dump f;
    task_dump(&f);
    tz_rtdump d;
    traza_err err = {0};
    int rc = tz_rtdump_parse(&d, f.b, f.n, "tasks.tzr", &err);
    if (rc)
        fail_msg("%s", err.msg);
    assert_int_equal(d.task_switches, 3);
    assert_int_equal(d.nthreads, 1);
    assert_int_equal(d.threads[0].nops, 1);
    assert_int_equal(op_at(&d.threads[0], 0).a, 0x10);
    assert_int_equal(d.ntasks, 2);
    const tz_rtd_thread *t1 = &d.tasks[0], *t2 = &d.tasks[1];
    assert_int_equal(t1->tid, 1);
    assert_string_equal(t1->name, "rx");
    assert_int_equal(t1->nopen, 1);
    assert_int_equal(t1->open[0], 0x50);
    assert_int_equal(t1->first_tsc, 103);
    assert_int_equal(t1->nops, 1);
    assert_int_equal(op_at(t1, 0).tsc, 106);
    /* Running, Ready from its switch out (no STATE record said otherwise), Running */
    assert_int_equal(t1->nruns, 3);
    assert_int_equal(t1->runs[0].state, TZ_RTD_RUNNING);
    assert_int_equal(t1->runs[0].start, 103);
    assert_int_equal(t1->runs[0].end, 110);
    assert_int_equal(t1->runs[0].open_end, 0);
    assert_int_equal(t1->runs[1].state, TZR_STATE_READY);
    assert_int_equal(t1->runs[1].start, 110);
    assert_int_equal(t1->runs[1].end, 306);
    assert_int_equal(t1->runs[2].state, TZ_RTD_RUNNING);
    assert_int_equal(t1->runs[2].start, 306);
    assert_int_equal(t1->runs[2].open_end, 1);
    assert_int_equal(t2->tid, 2);
    assert_null(t2->name);
    assert_int_equal(t2->nopen, 0);
    assert_int_equal(t2->nops, 2);
    assert_int_equal(op_at(t2, 0).a, 0x60);
    assert_int_equal(op_at(t2, 1).tsc, 305);
    assert_int_equal(t2->nruns, 2);
    assert_int_equal(t2->runs[0].start, 110);
    assert_int_equal(t2->runs[0].end, 306);
    assert_int_equal(t2->runs[1].state, TZR_STATE_READY);
    assert_int_equal(t2->runs[1].start, 306);
    assert_int_equal(t2->runs[1].end, 306); /* the dump's last event */
    tz_rtdump_free(&d);
}

/* An interrupt handler (ISR records) gets the events between its entry and exit, the
 * interrupted task stays Running; STATE records: the running task's is the state it
 * takes at its switch out, another task's starts that state at once. */
static void isr_state_dump(dump *f, uint8_t t2_state)
{
    dump_begin(f);
    const uint8_t b0[] = {TZR_K_EXT, TZR_EXT_TASK, 1, 0,                  /* 100: task 1 runs */
                          (2 << 2) | TZR_K_EXT, TZR_EXT_ISR_ENTER, 3, 0,   /* 102: handler 3 */
                          (1 << 2) | TZR_K_ENTRY, 0x20,                    /* 103: enters 0x10 */
                          (1 << 2) | TZR_K_EXT, TZR_EXT_STATE, 2, t2_state, /* 104: task 2 ready */
                          (1 << 2) | TZR_K_EXIT,                           /* 105: leaves 0x10 */
                          (1 << 2) | TZR_K_EXT, TZR_EXT_ISR_EXIT, 1, 0,    /* 106: back in task 1 */
                          (1 << 2) | TZR_K_EXT, TZR_EXT_STATE, 1, TZR_STATE_BLOCKED, /* 107: task 1 blocks */
                          (1 << 2) | TZR_K_ENTRY, 0x40,                    /* 108: task 1 enters 0x30 */
                          (2 << 2) | TZR_K_EXT, TZR_EXT_TASK, 2, 0};       /* 110: to task 2 */
    block(f, 0, 100, b0, sizeof b0);
    uint8_t isr[TZR_TASK_FIXED + 2] = {3, 0, 0, 0, TZR_TASK_ISR, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 'T', '0'};
    chunk(f, TZR_CHUNK_TASK, isr, sizeof isr);
    dump_end(f, 2);
}

static void test_isr_and_state_records(void **state)
{
    (void)state;
    dump f;
    isr_state_dump(&f, TZR_STATE_READY);
    tz_rtdump d;
    traza_err err = {0};
    int rc = tz_rtdump_parse(&d, f.b, f.n, "isr.tzr", &err);
    if (rc)
        fail_msg("%s", err.msg);
    assert_int_equal(d.task_switches, 1); /* the handler's entry and exit are no switches */
    assert_int_equal(d.ntasks, 3);
    const tz_rtd_thread *t1 = &d.tasks[0], *h = &d.tasks[1], *t2 = &d.tasks[2];
    assert_int_equal(h->tid, 3);
    assert_true(h->isr);
    assert_string_equal(h->name, "T0");
    assert_int_equal(h->entries, 1);
    assert_int_equal(h->nops, 2);
    assert_int_equal(op_at(h, 0).a, 0x10);
    assert_int_equal(op_at(h, 1).tsc, 105);
    assert_int_equal(h->nruns, 0);
    assert_false(t1->isr);
    assert_int_equal(t1->nops, 1);
    assert_int_equal(op_at(t1, 0).a, 0x30);
    assert_int_equal(op_at(t1, 0).tsc, 108);
    /* Running 100-110 through the handler, then Blocked */
    assert_int_equal(t1->nruns, 2);
    assert_int_equal(t1->runs[0].state, TZ_RTD_RUNNING);
    assert_int_equal(t1->runs[0].start, 100);
    assert_int_equal(t1->runs[0].end, 110);
    assert_int_equal(t1->runs[1].state, TZR_STATE_BLOCKED);
    assert_int_equal(t1->runs[1].start, 110);
    /* Ready from 104, Running from 110 */
    assert_int_equal(t2->tid, 2);
    assert_int_equal(t2->nruns, 2);
    assert_int_equal(t2->runs[0].state, TZR_STATE_READY);
    assert_int_equal(t2->runs[0].start, 104);
    assert_int_equal(t2->runs[0].end, 110);
    assert_int_equal(t2->runs[1].state, TZ_RTD_RUNNING);
    tz_rtdump_free(&d);
}

/* A handler that interrupts the context before the first task (task 0, main) returns
 * to the thread's own events. */
static void test_isr_before_first_task(void **state)
{
    (void)state;
    dump f;
    dump_begin(&f);
    const uint8_t b0[] = {TZR_K_EXT, TZR_EXT_STACK, 0,                  /* 100: main */
                          (1 << 2) | TZR_K_EXT, TZR_EXT_ISR_ENTER, 3, 0, /* 101: handler 3 */
                          (1 << 2) | TZR_K_ENTRY, 0x20,                  /* 102: enters 0x10 */
                          (1 << 2) | TZR_K_EXIT,                         /* 103 */
                          (1 << 2) | TZR_K_EXT, TZR_EXT_ISR_EXIT, 0, 0,  /* 104: back in main */
                          (1 << 2) | TZR_K_ENTRY, 0x40};                 /* 105: main enters 0x30 */
    block(&f, 0, 100, b0, sizeof b0);
    dump_end(&f, 1);
    tz_rtdump d;
    traza_err err = {0};
    int rc = tz_rtdump_parse(&d, f.b, f.n, "isr0.tzr", &err);
    if (rc)
        fail_msg("%s", err.msg);
    assert_int_equal(d.task_switches, 0);
    assert_int_equal(d.nthreads, 1);
    assert_int_equal(d.threads[0].nops, 1);
    assert_int_equal(op_at(&d.threads[0], 0).a, 0x30);
    assert_int_equal(op_at(&d.threads[0], 0).tsc, 105);
    assert_int_equal(d.ntasks, 2);
    assert_int_equal(d.tasks[0].tid, 3);
    assert_int_equal(d.tasks[0].nops, 2);
    assert_int_equal(d.tasks[1].tid, 0);
    assert_int_equal(d.tasks[1].nops, 0);
    assert_int_equal(d.tasks[1].nruns, 0);
    tz_rtdump_free(&d);
}

static void test_bad_isr_and_state_records(void **state)
{
    (void)state;
    dump f;
    isr_state_dump(&f, TZR_STATE_READY);
    tz_rtdump d;
    traza_err err = {0};
    f.b[8] = 2; /* version 2 has no handler records */
    assert_int_equal(tz_rtdump_parse(&d, f.b, f.n, "v2.tzr", &err), -1);
    assert_string_equal(err.msg, "v2.tzr: byte 60: unknown extended record 3");
    isr_state_dump(&f, 3);
    assert_int_equal(tz_rtdump_parse(&d, f.b, f.n, "st.tzr", &err), -1);
    assert_string_equal(err.msg, "st.tzr: byte 66: task state 3, expected 0 to 2");
    /* a handler exit cannot start a block */
    dump_begin(&f);
    const uint8_t b0[] = {TZR_K_EXT, TZR_EXT_ISR_EXIT, 1, 0};
    block(&f, 0, 100, b0, sizeof b0);
    dump_end(&f, 1);
    assert_int_equal(tz_rtdump_parse(&d, f.b, f.n, "exit.tzr", &err), -1);
    assert_string_equal(err.msg, "exit.tzr: byte 56: handler exit at the start of a block");
}

/* Version 1 has no TASK record. */
static void test_task_record_in_version_1(void **state)
{
    (void)state;
    dump f;
    task_dump(&f);
    f.b[8] = 1;
    tz_rtdump d;
    traza_err err = {0};
    assert_int_equal(tz_rtdump_parse(&d, f.b, f.n, "v1.tzr", &err), -1);
    assert_string_equal(err.msg, "v1.tzr: byte 61: unknown extended record 2");
    f.b[8] = 4;
    assert_int_equal(tz_rtdump_parse(&d, f.b, f.n, "v4.tzr", &err), -1);
    assert_string_equal(err.msg, "v4.tzr: dump version 4, this traza reads versions 1 to 3");
}

/* The operations read back as they were put: every kind, ticks going back and
 * jumping by more than 2^59, addresses far apart, values of 64 bits; and the replay
 * gives a frame longer than 2^31 ticks its end. */
static void test_ops_round_trip(void **state)
{
    (void)state;
    static const tz_rtd_op in[] = {
        {100, 0x400000, TZR_K_ENTRY},
        {90, 0, TZR_K_EXIT}, /* a tick going back */
        {(uint64_t)1 << 62, 0x10, TZR_K_ENTRY},
        {((uint64_t)1 << 62) + 1, UINT64_MAX, TZR_K_USER},
        {UINT64_MAX, 3, TZ_RTD_SYNC},
        {UINT64_MAX, 0xffffffffffffff00u, TZ_RTD_SYNC_FRAME},
        {0, 0x400000, TZR_K_ENTRY},
        {7, 0, TZR_K_EXIT},
    };
    const size_t n = sizeof in / sizeof in[0];
    tz_rtd_thread t;
    memset(&t, 0, sizeof t);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(tz_rtd_ops_put(&t, in[i].kind, in[i].tsc, in[i].a), 0);
    assert_int_equal(t.nops, n);
    tz_rtd_cursor c;
    tz_rtd_cursor_init(&c, &t);
    tz_rtd_op o;
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(tz_rtd_cursor_next(&c, &o), 1);
        assert_int_equal(o.kind, in[i].kind);
        assert_true(o.tsc == in[i].tsc);
        assert_true(o.a == in[i].a);
    }
    assert_int_equal(tz_rtd_cursor_next(&c, &o), 0);
    assert_int_equal(tz_rtd_op_at(&t, n, &o), -1);
    free(t.ops);

    /* f (10 .. 10 + 2^32) calls g (20 .. 30): the replay gives both their ends */
    memset(&t, 0, sizeof t);
    uint64_t far = 10 + ((uint64_t)1 << 32);
    assert_int_equal(tz_rtd_ops_put(&t, TZR_K_ENTRY, 10, 0x100), 0);
    assert_int_equal(tz_rtd_ops_put(&t, TZR_K_ENTRY, 20, 0x200), 0);
    assert_int_equal(tz_rtd_ops_put(&t, TZR_K_EXIT, 30, 0), 0);
    assert_int_equal(tz_rtd_ops_put(&t, TZR_K_EXIT, far, 0), 0);
    tz_rtd_replay r;
    uint64_t unmatched = 0;
    traza_err err = {0};
    assert_int_equal(tz_rtd_replay_open(&r, &t, &unmatched, &err), 0);
    tz_rtd_call call;
    const tz_rtd_user *user;
    assert_int_equal(tz_rtd_replay_next(&r, &call, &user), 1);
    assert_true(call.addr == 0x100 && call.start == 10 && call.end == far && call.level == 0 && !call.open_end);
    assert_int_equal(tz_rtd_replay_next(&r, &call, &user), 1);
    assert_true(call.addr == 0x200 && call.start == 20 && call.end == 30 && call.level == 1 && !call.open_end);
    assert_int_equal(tz_rtd_replay_next(&r, &call, &user), 0);
    assert_int_equal(unmatched, 0);
    tz_rtd_replay_close(&r);
    free(t.ops);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ops_round_trip),
        cmocka_unit_test(test_second_stack_record),
        cmocka_unit_test(test_snapshot_after_lost_block),
        cmocka_unit_test(test_stack_count_past_block),
        cmocka_unit_test(test_task_records),
        cmocka_unit_test(test_task_record_in_version_1),
        cmocka_unit_test(test_isr_and_state_records),
        cmocka_unit_test(test_isr_before_first_task),
        cmocka_unit_test(test_bad_isr_and_state_records),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
