/* uftrace recording directories: a synthetic recording (nesting, symbols, missing
 * task, unmatched exit, errors) and the shared redis recording. */
#include "testutil.h"

static void put_bin(const char *dir, const char *name, const void *data, size_t n)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

static void rec(unsigned char *out, uint64_t t, unsigned type, unsigned depth, uint64_t addr, unsigned magic)
{
    uint64_t w = (uint64_t)type | (uint64_t)magic << 3 | (uint64_t)depth << 6 | addr << 16;
    for (int k = 0; k < 8; k++) {
        out[k] = (unsigned char)(t >> (8 * k));
        out[8 + k] = (unsigned char)(w >> (8 * k));
    }
}

/* Writes a small recording into DIR/uftrace.data; returns that path. */
static char *make_recording(const char *dir, int bad_magic)
{
    char *d = NULL;
    assert_true(asprintf(&d, "%s/uftrace.data", dir) > 0);
    assert_int_equal(mkdir(d, 0755), 0);
    unsigned char info[256] = "Ftrace!";
    info[8] = 4;               /* version */
    info[12] = 40;             /* header size */
    info[14] = 1;              /* little endian */
    info[15] = 2;              /* 64-bit */
    info[16] = 0x22;           /* TASK_SESSION | SYM_REL_ADDR */
    const char *text = "exename:/bin/app\ntaskinfo:lines=2\ntaskinfo:nr_tid=3\ntaskinfo:tids=100,101,102\n";
    memcpy(info + 40, text, strlen(text));
    put_bin(d, "info", info, 40 + strlen(text));
    free(tu_write(d, "task.txt",
                  "SESS timestamp=1.0 pid=100 sid=abc exename=\"/bin/app\"\n"
                  "TASK timestamp=1.0 tid=100 pid=100\n"
                  "TASK timestamp=1.0 tid=101 pid=100\n"
                  "TASK timestamp=1.0 tid=102 pid=100\n"));
    free(tu_write(d, "sid-abc.map", "00400000-00500000 r-xp 00000000 00:00 0      /bin/app build-id:12\n"
                                    "7ffd0000-7ffe0000 rw-p 00000000 00:00 0      [stack]\n"));
    free(tu_write(d, "app.sym", "# symbols: 2\n# path name: /bin/app\n"
                                "0000000000001000 00000100 T main\n0000000000002000 00000010 T foo\n"));
    unsigned char r[16 * 6];
    rec(r + 0, 10, 0, 0, 0x401000, 5);
    rec(r + 16, 20, 0, 1, 0x402004, bad_magic ? 3 : 5);
    rec(r + 32, 30, 1, 1, 0x402004, 5);
    rec(r + 48, 40, 1, 0, 0x401000, 5);
    rec(r + 64, 50, 0, 0, 0x402000, 5); /* never exits */
    rec(r + 80, 45, 0, 1, 0x4ff000, 5); /* no symbol covers it */
    put_bin(d, "100.dat", r, sizeof r);
    unsigned char q[16 * 3];
    rec(q + 0, 15, 1, 1, 0x402000, 5); /* entered before the recording */
    rec(q + 16, 16, 0, 0, 0x401010, 5);
    rec(q + 32, 17, 1, 0, 0x401010, 5);
    put_bin(d, "101.dat", q, sizeof q);
    return d;
}

static void test_synthetic(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    char *src = tu_tmpdir();
    char *d = make_recording(src, 0);
    const traza_importer *imp = traza_importer_detect(d, &w.err);
    assert_non_null(imp);
    assert_string_equal(imp->name, "uftrace");
    traza_trace_info info;
    const char *paths[1] = {src}; /* the parent of uftrace.data works too */
    if (traza_import(w.ws, paths, 1, NULL, &info, &w.err) < 0)
        fail_msg("%s", w.err.msg);
    assert_int_equal(info.categories[TRAZA_STATE], 6);
    assert_int_equal(info.time_unit, -9);
    int found = 0;
    for (size_t i = 0; i < info.nparams; i++)
        if (strcmp(info.params[i].key, "missing_tasks") == 0) {
            assert_string_equal(info.params[i].value, "102");
            found = 1;
        }
    assert_true(found);
    traza_trace *t = traza_trace_open(w.ws, info.name, TRAZA_OPEN_READ, &w.err);
    assert_non_null(t);
    const traza_producer *t100 = traza_trace_producer_find(t, "app (100)/tid 100");
    const traza_producer *t101 = traza_trace_producer_find(t, "app (100)/tid 101");
    assert_non_null(t100);
    assert_non_null(t101);
    assert_null(traza_trace_producer_find(t, "app (100)/tid 102"));
    traza_filter f;
    traza_filter_init(&f);
    f.with_params = 1;
    traza_cursor *c = traza_query(t, &f, &w.err);
    const traza_event *ev;
    /* expected in time order: name, producer, start, end, level */
    static const struct { const char *name; int tid; int64_t s, e; int level; } want[] = {
        {"main", 100, 10, 40, 0}, {"foo", 101, 15, 15, 1}, {"main", 101, 16, 17, 0},
        {"foo", 100, 20, 30, 1},  {"0x4ff000", 100, 45, 50, 1}, {"foo", 100, 50, 50, 0},
    };
    for (size_t i = 0; i < 6; i++) {
        assert_int_equal(traza_cursor_next(c, &ev, &w.err), 1);
        assert_string_equal(traza_trace_event_type(t, ev->type)->name, want[i].name);
        assert_int_equal(ev->producer, want[i].tid == 100 ? t100->id : t101->id);
        assert_int_equal(ev->ts, want[i].s);
        assert_int_equal(ev->end_ts, want[i].e);
        assert_int_equal(ev->level, want[i].level);
        assert_int_equal(ev->nparams, 1);
        assert_string_equal(traza_trace_param_def(t, ev->params[0].def)->name, "addr");
    }
    assert_int_equal(traza_cursor_next(c, &ev, &w.err), 0);
    traza_cursor_free(c);
    traza_trace_close(t);
    traza_trace_info_clear(&info);
    free(d);
    tu_rmdir(src);
    tu_ws_close(&w);
}

static void test_errors(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    char *src = tu_tmpdir();
    char *d = make_recording(src, 1);
    traza_import_opts o = {0};
    o.format = "uftrace";
    traza_trace_info info;
    const char *paths[1] = {d};
    assert_int_equal(traza_import(w.ws, paths, 1, &o, &info, &w.err), -1);
    assert_err_contains(w.err, "100.dat: byte 16 (record #1): bad record magic 3, expected 5");
    /* a broken symbol line */
    free(tu_write(d, "app.sym", "0000000000001000 00000100 T main\nzzzz\n"));
    assert_int_equal(traza_import(w.ws, paths, 1, &o, &info, &w.err), -1);
    assert_err_contains(w.err, "app.sym:2: expected 'ADDR [SIZE] TYPE NAME'");
    /* not a recording */
    free(tu_write(d, "info", "hello"));
    assert_int_equal(traza_import(w.ws, paths, 1, &o, &info, &w.err), -1);
    assert_err_contains(w.err, "byte 0: expected the uftrace magic");
    free(d);
    tu_rmdir(src);
    tu_ws_close(&w);
}

/* Processes nest as FORK lines say (ppid); a parent chain that comes back to itself,
 * of any length, is refused with the cycle named. */
static void test_process_tree(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    char *src = tu_tmpdir();
    char *d = make_recording(src, 0);
    const char *paths[1] = {d};
    traza_trace_info info;
    const char *tasks = "TASK timestamp=1.0 tid=100 pid=200\nTASK timestamp=1.0 tid=101 pid=200\n";
    char *text = NULL;
    assert_true(asprintf(&text, "%sFORK timestamp=1.0 pid=200 ppid=300\nFORK timestamp=1.0 pid=300 ppid=400\n",
                         tasks) > 0);
    free(tu_write(d, "task.txt", text));
    free(text);
    if (traza_import(w.ws, paths, 1, NULL, &info, &w.err) < 0)
        fail_msg("%s", w.err.msg);
    assert_int_equal(info.producers, 5);
    traza_trace *t = traza_trace_open(w.ws, info.name, TRAZA_OPEN_READ, &w.err);
    assert_non_null(t);
    assert_non_null(traza_trace_producer_find(t, "app (400)/app (300)/app (200)/tid 100"));
    assert_non_null(traza_trace_producer_find(t, "app (400)/app (300)/app (200)/tid 101"));
    traza_trace_close(t);
    traza_trace_info_clear(&info);

    static const struct { const char *forks, *cycle; } bad[] = {
        {"FORK timestamp=1.0 pid=200 ppid=300\nFORK timestamp=1.0 pid=300 ppid=200\n", "200 -> 300 -> 200"},
        {"FORK timestamp=1.0 pid=200 ppid=300\nFORK timestamp=1.0 pid=300 ppid=400\n"
         "FORK timestamp=1.0 pid=400 ppid=200\n",
         "200 -> 300 -> 400 -> 200"},
        {"FORK timestamp=1.0 pid=200 ppid=300\nFORK timestamp=1.0 pid=300 ppid=400\n"
         "FORK timestamp=1.0 pid=400 ppid=300\n",
         "300 -> 400 -> 300"},
    };
    traza_import_opts o = {0};
    o.name = "cycle";
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_true(asprintf(&text, "%s%s", tasks, bad[i].forks) > 0);
        free(tu_write(d, "task.txt", text));
        free(text);
        assert_int_equal(traza_import(w.ws, paths, 1, &o, &info, &w.err), -1);
        char *want = NULL;
        assert_true(asprintf(&want, "%s/task.txt: processes in a parent cycle: %s", d, bad[i].cycle) > 0);
        assert_string_equal(w.err.msg, want);
        free(want);
    }
    free(d);
    tu_rmdir(src);
    tu_ws_close(&w);
}

/* The shared recording: 9 of 10 threads (1072100.dat is missing from the copy). */
static void test_redis(void **state)
{
    (void)state;
    const char *data = tu_data_dir();
    TU_SKIP_NO_DATA(data);
    tu_ws w;
    tu_ws_open(&w);
    char path[4096];
    snprintf(path, sizeof path, "%s/uftrace-redisgraph-aarch64/uftrace.data", data);
    traza_trace_info info;
    const char *paths[1] = {path};
    if (traza_import(w.ws, paths, 1, NULL, &info, &w.err) < 0)
        fail_msg("%s", w.err.msg);
    /* 71,782 entries + 1 exit whose entry precedes the recording (the same count an
     * entry/exit matching of `uftrace dump` gives: see tests/formats/t_uftrace.sh) */
    assert_int_equal(info.categories[TRAZA_STATE], 71783);
    assert_int_equal(info.producers, 10); /* process + 9 threads */
    traza_trace *t = traza_trace_open(w.ws, info.name, TRAZA_OPEN_READ, &w.err);
    assert_non_null(t);
    /* names come from the .sym files: 0xaaaade260280 - base 0xaaaade1f0000 = 0x70280,
     * the PLT entry "fork" of redis-server.sym (the forked child's first record) */
    assert_non_null(traza_trace_event_type_by_name(t, "fork"));
    const traza_event_type *ty = traza_trace_event_type_by_name(t, "0xaaaade260280");
    assert_null(ty);
    traza_trace_close(t);
    traza_trace_info_clear(&info);
    tu_ws_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_synthetic),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_process_tree),
        cmocka_unit_test(test_redis),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
