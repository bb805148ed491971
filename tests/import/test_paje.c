/* Pajé importer (native and pj_dump CSV) and the Pajé / pjdump exporters. */
#include "testutil.h"
#include "imputil.h"

#include <math.h>

#define FIX "tests/fixtures/paje/"

static const char *src_path(const char *rel, char *buf, size_t n)
{
    const char *root = getenv("TRAZA_SRC");
    snprintf(buf, n, "%s/%s", root ? root : ".", rel);
    return buf;
}

static traza_trace *import_file(tu_ws *w, const char *path, const char *format, const char *name)
{
    traza_import_opts o = {0};
    o.format = format;
    o.name = name;
    traza_trace_info info;
    const char *paths[1] = {path};
    if (traza_import(w->ws, paths, 1, &o, &info, &w->err) < 0)
        fail_msg("import %s: %s", path, w->err.msg);
    traza_trace_info_clear(&info);
    traza_trace *t = traza_trace_open(w->ws, name, TRAZA_OPEN_READ, &w->err);
    if (!t)
        fail_msg("open: %s", w->err.msg);
    return t;
}

/* All events, in time order, with their parameters copied out. */
typedef struct evrow {
    traza_event ev;
    char type[64], prod[64], endprod[64], key[32], value[32];
    int64_t prio;
} evrow;

static size_t all_events(traza_trace *t, evrow *rows, size_t max)
{
    traza_filter f;
    traza_filter_init(&f);
    f.with_params = 1;
    traza_err err;
    traza_cursor *c = traza_query(t, &f, &err);
    assert_non_null(c);
    const traza_event *ev;
    size_t n = 0;
    while (traza_cursor_next(c, &ev, &err) > 0) {
        assert_true(n < max);
        evrow *r = &rows[n++];
        memset(r, 0, sizeof *r);
        r->ev = *ev;
        r->ev.params = NULL;
        r->prio = -1;
        snprintf(r->type, sizeof r->type, "%s", traza_trace_event_type(t, ev->type)->name);
        snprintf(r->prod, sizeof r->prod, "%s", traza_trace_producer(t, ev->producer)->name);
        if (ev->has & TRAZA_HAS_END_PRODUCER)
            snprintf(r->endprod, sizeof r->endprod, "%s", traza_trace_producer(t, ev->end_producer)->name);
        for (uint32_t i = 0; i < ev->nparams; i++) {
            const char *pn = traza_trace_param_def(t, ev->params[i].def)->name;
            if (strcmp(pn, "key") == 0)
                snprintf(r->key, sizeof r->key, "%s", ev->params[i].v.s);
            else if (strcmp(pn, "value") == 0)
                snprintf(r->value, sizeof r->value, "%s", ev->params[i].v.s);
            else if (strcmp(pn, "Priority") == 0)
                r->prio = ev->params[i].v.i;
        }
    }
    traza_cursor_free(c);
    return n;
}

static const evrow *find_row(const evrow *rows, size_t n, const char *type, const char *prod, int64_t ts)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].type, type) == 0 && strcmp(rows[i].prod, prod) == 0 && rows[i].ev.ts == ts)
            return &rows[i];
    fail_msg("no %s event on %s at %lld", type, prod, (long long)ts);
    return NULL;
}

#define PS(x) ((int64_t)(x * 1000000000000.0 + 0.5)) /* seconds -> ticks of 1e-12 s */

/* The model of basic.paje; the values are pj_dump's (see the comments in the fixture). */
static void check_basic_model(traza_trace *t, int with_extras)
{
    const traza_trace_info *in = traza_trace_info_of(t);
    assert_int_equal(in->time_unit, -12); /* 3.123456789012 needs picoseconds */
    assert_int_equal(in->producers, 4);
    assert_int_equal(in->categories[TRAZA_STATE], 5);
    assert_int_equal(in->categories[TRAZA_PUNCTUAL], 1);
    assert_int_equal(in->categories[TRAZA_LINK], 2);
    assert_int_equal(in->categories[TRAZA_VARIABLE], 3);
    const traza_producer *pa = traza_trace_producer_find(t, "0/node one/proc A");
    assert_non_null(pa);
    assert_string_equal(pa->type, "Process");
    assert_string_equal(traza_trace_event_type_by_name(t, "Running")->color, "#00ff00");
    assert_string_equal(traza_trace_event_type_by_name(t, "Waiting for I/O")->color, "#00ff80");
    assert_string_equal(traza_trace_event_type_by_name(t, "Memory used")->color, "#ff0000");
    assert_int_equal(traza_trace_event_type_by_name(t, "Message")->category, TRAZA_LINK);

    evrow rows[32];
    size_t n = all_events(t, rows, 32);
    assert_int_equal(n, 11);
    const evrow *r = find_row(rows, n, "Running", "proc A", PS(1));
    assert_int_equal(r->ev.end_ts, PS(3.6));
    assert_int_equal(r->ev.level, 0);
    r = find_row(rows, n, "Waiting for I/O", "proc A", PS(1.5));
    assert_int_equal(r->ev.end_ts, PS(3));
    assert_int_equal(r->ev.level, 1);
    if (with_extras) /* user-defined fields are not exported */
        assert_int_equal(r->prio, 3);
    r = find_row(rows, n, "Computing", "proc A", PS(2));
    assert_int_equal(r->ev.end_ts, PS(2.5));
    assert_int_equal(r->ev.level, 2);
    r = find_row(rows, n, "Waiting for I/O", "proc A", PS(3.6));
    assert_int_equal(r->ev.end_ts, PS(3.6));
    r = find_row(rows, n, "Running", "proc B", PS(1));
    assert_int_equal(r->ev.end_ts, PS(2)); /* PajeResetState */
    /* variables: Set 100, Add 50 and Sub 25 at the same time, Add 10; the last one
     * keeps its end time: the end of the trace */
    r = find_row(rows, n, "Memory used", "node one", PS(0.5));
    assert_int_equal(r->ev.end_ts, PS(1.25));
    assert_true(r->ev.value == 100.0);
    r = find_row(rows, n, "Memory used", "node one", PS(1.25));
    assert_true(r->ev.value == 125.0);
    r = find_row(rows, n, "Memory used", "node one", PS(2));
    assert_true(r->ev.value == 135.0);
    assert_int_equal(r->ev.end_ts, PS(3.6));
    /* links matched by key, EndLink before StartLink included; exact decimal time */
    r = find_row(rows, n, "Message", "proc A", PS(2));
    assert_int_equal(r->ev.end_ts, PS(2.2));
    assert_string_equal(r->endprod, "proc B");
    assert_string_equal(r->key, "k1");
    assert_string_equal(r->value, "m");
    r = find_row(rows, n, "Message", "proc B", PS(2.5));
    assert_int_equal(r->ev.end_ts, 3123456789012LL);
    assert_string_equal(r->endprod, "proc A");
    r = find_row(rows, n, "hello world", "proc A", PS(1.75));
    assert_false(r->ev.has & TRAZA_HAS_END);
}

static void test_basic(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    char p[4096];
    traza_trace *t = import_file(&w, src_path(FIX "basic.paje", p, sizeof p), NULL, "basic");
    assert_string_equal(traza_trace_info_of(t)->format, "paje");
    check_basic_model(t, 1);
    traza_trace_close(t);
    tu_ws_close(&w);
}

/* Malformed fixtures: a precise error (file:line and what) and an unchanged workspace. */
static void test_errors(void **state)
{
    (void)state;
    static const struct { const char *file, *where, *what; } cases[] = {
        {"bad_unknown_id.paje", ":118:", "event id '99' is not defined"},
        {"bad_time.paje", ":118:", "expected a time in decimal seconds, found '1.2x'"},
        {"bad_backwards.paje", ":119:", "time goes backwards"},
        {"bad_absurd.paje", ":118:", "absurdly large"},
        {"bad_utf8.paje", ":118:", "invalid UTF-8 at column 15"},
        {"bad_fields.paje", ":118:", "expects 5 fields, found 4"},
        {"bad_unknown_container.paje", ":118:", "unknown container 'nope'"},
        {"bad_unknown_type.paje", ":118:", "unknown type 'NOPE'"},
        {"bad_pop.paje", ":118:", "no state is pushed"},
        {"bad_link.paje", ":120:", "incomplete link of type 'Msg' with key 'k1'"},
        {"bad_variable.paje", ":119:", "which has no value yet"},
        {"bad_value.paje", ":119:", "expected a finite number for the variable value, found 'lots'"},
        {"bad_truncated.paje", ":9:", "the file ends inside the definition"},
        {"bad_quote.paje", ":118:", "unterminated quoted string"},
    };
    tu_ws w;
    tu_ws_open(&w);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char p[4096], rel[256];
        snprintf(rel, sizeof rel, FIX "%s", cases[i].file);
        const char *paths[1] = {src_path(rel, p, sizeof p)};
        traza_import_opts o = {0};
        o.format = "paje";
        traza_trace_info info;
        traza_err err;
        assert_int_equal(traza_import(w.ws, paths, 1, &o, &info, &err), -1);
        char where[300];
        snprintf(where, sizeof where, "%s%s", cases[i].file, cases[i].where);
        assert_err_contains(err, where);
        assert_err_contains(err, cases[i].what);
        assert_int_equal(err.code, TRAZA_E_PARSE);
    }
    traza_trace_info *list;
    size_t n;
    assert_int_equal(traza_workspace_list(w.ws, &list, &n, &w.err), 0);
    assert_int_equal(n, 0);
    traza_trace_info_array_free(list, n);
    tu_ws_close(&w);
}

/* Definitions, a container and an event type for the cut and empty-file tests. */
#define PAJE_HEAD                                                                                                     \
    "%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n"              \
    "%EventDef PajeCreateContainer 1\n% Time date\n% Alias string\n% Type string\n% Container string\n"            \
    "% Name string\n%EndEventDef\n"                                                                                 \
    "%EventDef PajeDefineEventType 2\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n"                 \
    "%EventDef PajeNewEvent 3\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n"      \
    "0 CT 0 \"Core\"\n1 0.0 c0 CT 0 \"core0\"\n2 E CT \"tick\"\n"

/* A last line cut anywhere (no newline) is an error, never a shorter value; an empty
 * file is refused like the other importers refuse one. */
static void test_cut_and_empty(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    iu_check_cuts(&w, "paje", PAJE_HEAD "3 1.5 E c0 a\n", "3 78592000.000000 E c0 bb", 1, 1500000000, 78592000000000000);
    iu_expect_fail_msg(&w, "empty", "", 0, "paje",
                       "empty: empty file (no line but blank lines and comments): expected Pajé event definitions and events");
    iu_expect_fail_msg(&w, "blank", "\n# nothing\n\n", 12, "paje",
                       "blank: empty file (no line but blank lines and comments): expected Pajé event definitions and events");
    tu_ws_close(&w);
}

static void test_detect(void **state)
{
    (void)state;
    char p[4096];
    traza_err err;
    const traza_importer *imp = traza_importer_detect(src_path(FIX "basic.paje", p, sizeof p), &err);
    assert_non_null(imp);
    assert_string_equal(imp->name, "paje");
    imp = traza_importer_detect(src_path(FIX "basic.pjdump", p, sizeof p), &err);
    assert_non_null(imp);
    assert_string_equal(imp->name, "pjdump");
}

/* pj_dump's CSV output of basic.paje (made by pj_dump 1.3.6) reads back to the same
 * counts, levels and values. */
static void test_pjdump_import(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    char p[4096];
    traza_trace *t = import_file(&w, src_path(FIX "basic.pjdump", p, sizeof p), "pjdump", "csv");
    const traza_trace_info *in = traza_trace_info_of(t);
    assert_int_equal(in->producers, 4);
    assert_int_equal(in->categories[TRAZA_STATE], 5);
    assert_int_equal(in->categories[TRAZA_PUNCTUAL], 1);
    assert_int_equal(in->categories[TRAZA_LINK], 2);
    assert_int_equal(in->categories[TRAZA_VARIABLE], 3);
    evrow rows[32];
    size_t n = all_events(t, rows, 32);
    const evrow *r = find_row(rows, n, "Computing", "proc A", 2000000000);
    assert_int_equal(r->ev.level, 2);
    r = find_row(rows, n, "Memory used", "node one", 2000000000);
    assert_true(r->ev.value == 135.0);
    r = find_row(rows, n, "Message", "proc B", 2500000000);
    assert_string_equal(r->endprod, "proc A");
    assert_string_equal(r->key, "k2");
    traza_trace_close(t);
    tu_ws_close(&w);
}


/* Runs a shell command, returns its standard output (malloc'd) or NULL. */
static char *run_cmd(const char *cmd)
{
    FILE *f = popen(cmd, "r");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    size_t k;
    while (buf && (k = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += k;
        if (cap - len < 2) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    int st = pclose(f);
    if (buf)
        buf[len] = '\0';
    if (st != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static int have_pj_dump(void) { return system("command -v pj_dump >/dev/null 2>&1") == 0; }

/* Export basic.paje's model to Pajé, import it again: the same model. */
static void test_paje_roundtrip(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    char p[4096], out[4200];
    traza_trace *t = import_file(&w, src_path(FIX "basic.paje", p, sizeof p), NULL, "basic");
    snprintf(out, sizeof out, "%s/basic-out.paje", w.dir);
    if (traza_export(t, "paje", NULL, out, &w.err) < 0)
        fail_msg("export: %s", w.err.msg);
    traza_trace *t2 = import_file(&w, out, "paje", "again");
    check_basic_model(t2, 0);
    evrow a[32], b[32];
    size_t na = all_events(t, a, 32), nb = all_events(t2, b, 32);
    assert_int_equal(na, nb);
    for (size_t i = 0; i < na; i++) {
        const evrow *r = find_row(b, nb, a[i].type, a[i].prod, a[i].ev.ts);
        assert_int_equal(r->ev.end_ts, a[i].ev.end_ts);
        assert_int_equal(r->ev.level, a[i].ev.level);
        assert_true(r->ev.value == a[i].ev.value);
        assert_string_equal(r->endprod, a[i].endprod);
        assert_string_equal(r->key, a[i].key);
    }
    traza_trace_close(t2);
    traza_trace_close(t);
    /* pj_dump reads the export and prints the same entities as for the original */
    if (have_pj_dump()) {
        char cmd[9000];
        snprintf(cmd, sizeof cmd, "pj_dump -e 1e300 '%s' | sort", src_path(FIX "basic.paje", p, sizeof p));
        char *want = run_cmd(cmd);
        snprintf(cmd, sizeof cmd, "pj_dump -e 1e300 '%s' | sort", out);
        char *got = run_cmd(cmd);
        assert_non_null(want);
        assert_non_null(got);
        assert_string_equal(got, want);
        free(want);
        free(got);
    }
    tu_ws_close(&w);
}

/* The pjdump export of each shared trace equals pj_dump's output, line for line once
 * both are sorted (see src/export/pjdump.c for why the order differs). */
static void test_pjdump_export_shared(void **state)
{
    (void)state;
    const char *data = tu_data_dir();
    TU_SKIP_NO_DATA(data);
    if (!have_pj_dump()) {
        print_message("[  SKIPPED ] %s: pj_dump is not installed\n", __func__);
        skip();
    }
    static const char *const traces[] = {"categories", "ms", "native_sample", "replay_output_shurakai_extract", "simgrid-fg126"};
    tu_ws w;
    tu_ws_open(&w);
    for (size_t i = 0; i < sizeof traces / sizeof traces[0]; i++) {
        char path[4096], out[4200], cmd[9000];
        snprintf(path, sizeof path, "%s/pajeng/%s.trace", data, traces[i]);
        if (access(path, R_OK) != 0)
            continue;
        traza_trace *t = import_file(&w, path, "paje", traces[i]);
        snprintf(out, sizeof out, "%s/%s.pjdump", w.dir, traces[i]);
        if (traza_export(t, "pjdump", NULL, out, &w.err) < 0)
            fail_msg("export: %s", w.err.msg);
        snprintf(cmd, sizeof cmd, "pj_dump -e 1e300 '%s' | LC_ALL=C sort", path);
        char *want = run_cmd(cmd);
        snprintf(cmd, sizeof cmd, "LC_ALL=C sort '%s'", out);
        char *got = run_cmd(cmd);
        assert_non_null(want);
        assert_non_null(got);
        if (strcmp(want, got) != 0) {
            snprintf(cmd, sizeof cmd, "pj_dump -e 1e300 '%s' | LC_ALL=C sort | diff - '%s.sorted' | head -10", path, out);
            char sorted[9000];
            snprintf(sorted, sizeof sorted, "LC_ALL=C sort '%s' > '%s.sorted'", out, out);
            if (system(sorted) != 0)
                fail_msg("sort failed");
            char *d = run_cmd(cmd);
            fail_msg("%s: pjdump export differs from pj_dump:\n%s", traces[i], d ? d : "");
        }
        free(got);
        /* the Pajé export: pj_dump prints the same entities for it */
        snprintf(out, sizeof out, "%s/%s.paje", w.dir, traces[i]);
        if (traza_export(t, "paje", NULL, out, &w.err) < 0)
            fail_msg("export: %s", w.err.msg);
        snprintf(cmd, sizeof cmd, "pj_dump -e 1e300 '%s' | LC_ALL=C sort", out);
        got = run_cmd(cmd);
        assert_non_null(got);
        if (strcmp(want, got) != 0)
            fail_msg("%s: pj_dump of the Pajé export differs from pj_dump of the original", traces[i]);
        free(want);
        free(got);
        snprintf(out, sizeof out, "%s/%s.pjdump", w.dir, traces[i]);
        /* and the pjdump export reads back with the same counts */
        traza_trace *t2 = import_file(&w, out, "pjdump", "csv");
        for (int c = 0; c < TRAZA_NCATEGORIES; c++)
            assert_int_equal(traza_trace_info_of(t2)->categories[c], traza_trace_info_of(t)->categories[c]);
        assert_int_equal(traza_trace_info_of(t2)->producers, traza_trace_info_of(t)->producers);
        traza_trace_close(t2);
        assert_int_equal(traza_workspace_remove(w.ws, "csv", &w.err), 0);
        traza_trace_close(t);
    }
    tu_ws_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_cut_and_empty),
        cmocka_unit_test(test_detect),
        cmocka_unit_test(test_pjdump_import),
        cmocka_unit_test(test_paje_roundtrip),
        cmocka_unit_test(test_pjdump_export_shared),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
