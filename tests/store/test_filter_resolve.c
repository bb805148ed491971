/* traza_filter_resolve: the one place where event types and producers given by name
 * or id, producer subtrees, categories, saved results, time ranges and regular
 * expressions on columns (written COLUMN~RE, COLUMN!~RE) become a traza_filter (the
 * CLI and the server both call it). On the sample trace: root/{cpu0,cpu1}; 10 irq on
 * cpu0/cpu1, 10 run on cpu0, one msg on cpu0, one load on root. */
#include "sample_trace.h"

typedef struct fx {
    tu_ws w;
    traza_trace *t;
    traza_filter f;
    int32_t *types, *producers;
} fx;

static void fx_open(fx *x)
{
    memset(x, 0, sizeof *x);
    tu_ws_open(&x->w);
    tu_sample_trace(&x->w, "s", 10);
    x->t = traza_trace_open(x->w.ws, "s", TRAZA_OPEN_WRITE, &x->w.err);
    assert_non_null(x->t);
    traza_filter_init(&x->f);
}

static void fx_close(fx *x)
{
    free(x->types);
    free(x->producers);
    traza_trace_close(x->t);
    tu_ws_close(&x->w);
}

static int resolve(fx *x, const traza_filter_spec *s)
{
    free(x->types);
    free(x->producers);
    x->types = x->producers = NULL;
    traza_filter_init(&x->f);
    return traza_filter_resolve(x->t, s, &x->f, &x->types, &x->producers, &x->w.err);
}

static int64_t count(fx *x)
{
    int64_t n = traza_count(x->t, &x->f, &x->w.err);
    assert_true(n >= 0);
    return n;
}

static int32_t pid(fx *x, const char *name) { return traza_trace_producer_find(x->t, name)->id; }

static void test_names_and_ids(void **state)
{
    (void)state;
    fx x;
    fx_open(&x);
    const char *irq[] = {"irq"};
    traza_filter_spec s = {.type_names = irq, .ntype_names = 1};
    assert_int_equal(resolve(&x, &s), 0);
    assert_int_equal(x.f.ntypes, 1);
    assert_ptr_equal(x.f.types, x.types);
    assert_int_equal(count(&x), 10);
    int32_t run = traza_trace_event_type_by_name(x.t, "run")->id;
    traza_filter_spec s2 = {.type_names = irq, .ntype_names = 1, .type_ids = &run, .ntype_ids = 1};
    assert_int_equal(resolve(&x, &s2), 0);
    assert_int_equal(count(&x), 20);
    const char *cpu1[] = {"root/cpu1"};
    traza_filter_spec s3 = {.producer_names = cpu1, .nproducer_names = 1};
    assert_int_equal(resolve(&x, &s3), 0);
    assert_int_equal(x.f.nproducers, 1);
    assert_int_equal(x.f.producers[0], pid(&x, "cpu1"));
    assert_int_equal(count(&x), 5);
    const char *cats[] = {"state", "variable"};
    traza_filter_spec s4 = {.categories = cats, .ncategories = 2};
    assert_int_equal(resolve(&x, &s4), 0);
    assert_int_equal(x.f.categories, (1u << TRAZA_STATE) | (1u << TRAZA_VARIABLE));
    assert_null(x.types);
    assert_null(x.producers);
    assert_int_equal(count(&x), 11);
    fx_close(&x);
}

/* The store expands producer subtrees: root with subtree is root, cpu0 and cpu1. */
static void test_subtree(void **state)
{
    (void)state;
    fx x;
    fx_open(&x);
    const char *root[] = {"root"};
    traza_filter_spec s = {.producer_names = root, .nproducer_names = 1};
    assert_int_equal(resolve(&x, &s), 0);
    assert_int_equal(x.f.nproducers, 1);
    assert_int_equal(count(&x), 1); /* the load */
    s.subtree = 1;
    assert_int_equal(resolve(&x, &s), 0);
    assert_int_equal(x.f.nproducers, 3);
    assert_int_equal(x.f.producers[0], pid(&x, "root"));
    assert_int_equal(count(&x), 22);
    int32_t c0 = pid(&x, "cpu0");
    traza_filter_spec s2 = {.producer_ids = &c0, .nproducer_ids = 1, .subtree = 1};
    assert_int_equal(resolve(&x, &s2), 0);
    assert_int_equal(x.f.nproducers, 1);
    assert_int_equal(count(&x), 16); /* 5 irq, 10 run, 1 msg */
    fx_close(&x);
}

/* Errors name what is missing in the library's terms and leave the filter as it was. */
static void test_errors(void **state)
{
    (void)state;
    fx x;
    fx_open(&x);
    const char *bad[] = {"nosuch"};
    traza_filter_spec s = {.type_names = bad, .ntype_names = 1};
    assert_int_equal(resolve(&x, &s), -1);
    assert_int_equal(x.w.err.code, TRAZA_E_NOTFOUND);
    assert_string_equal(x.w.err.msg, "trace 's' has no event type 'nosuch'");
    assert_null(x.types);
    assert_null(x.f.types);
    int32_t id = 99;
    traza_filter_spec s2 = {.type_ids = &id, .ntype_ids = 1};
    assert_int_equal(resolve(&x, &s2), -1);
    assert_string_equal(x.w.err.msg, "trace 's' has no event type 99");
    traza_filter_spec s3 = {.producer_names = bad, .nproducer_names = 1};
    assert_int_equal(resolve(&x, &s3), -1);
    assert_string_equal(x.w.err.msg, "trace 's' has no producer 'nosuch' (or the name is ambiguous: give its path a/b/c)");
    traza_filter_spec s4 = {.producer_ids = &id, .nproducer_ids = 1, .subtree = 1};
    assert_int_equal(resolve(&x, &s4), -1);
    assert_string_equal(x.w.err.msg, "trace 's' has no producer 99");
    traza_filter_spec s5 = {.categories = bad, .ncategories = 1};
    assert_int_equal(resolve(&x, &s5), -1);
    assert_int_equal(x.w.err.code, TRAZA_E_USAGE);
    assert_string_equal(x.w.err.msg, "unknown category 'nosuch' (expected punctual, state, link or variable)");
    traza_filter_spec s6 = {.result = "nosuch"};
    assert_int_equal(resolve(&x, &s6), -1);
    assert_int_equal(x.w.err.code, TRAZA_E_NOTFOUND);
    fx_close(&x);
}

/* Saves the irqs as the event set 'irqs' (its id); x->f then selects them. */
static int64_t save_irqs(fx *x)
{
    const char *irq[] = {"irq"};
    traza_filter_spec sel = {.type_names = irq, .ntype_names = 1};
    assert_int_equal(resolve(x, &sel), 0);
    int64_t n = 0;
    traza_result_meta ev = {.name = "irqs", .tool = "filter"};
    int64_t id = traza_filter_save(x->t, &x->f, 0, 0, &ev, &n, &x->w.err);
    assert_true(id > 0);
    assert_int_equal(n, 10);
    return id;
}

/* A result: an event set keeps its events; a producer set its producers, when the
 * caller accepts producer sets, within the producers given. */
static void test_results(void **state)
{
    (void)state;
    fx x;
    fx_open(&x);
    int64_t n = 0;
    int64_t evset = save_irqs(&x);
    traza_result_meta pr = {.name = "irq-producers", .tool = "filter"};
    assert_true(traza_filter_save(x.t, &x.f, 0, 1, &pr, &n, &x.w.err) > 0);
    assert_int_equal(n, 2); /* cpu0, cpu1 */
    traza_result_meta idle = {.name = "none-active", .tool = "producer-activity"};
    assert_true(traza_producer_activity_save(x.t, 1000, 2000, 0, &idle, &n, &x.w.err) > 0);
    assert_int_equal(n, 0);

    traza_filter_spec s = {.result = "irqs"};
    assert_int_equal(resolve(&x, &s), 0);
    assert_int_equal(x.f.event_set, evset);
    assert_int_equal(count(&x), 10);
    /* an event set already in the filter must be the result's */
    traza_filter_init(&x.f);
    x.f.event_set = evset + 100;
    assert_int_equal(traza_filter_resolve(x.t, &s, &x.f, &x.types, &x.producers, &x.w.err), -1);
    assert_int_equal(x.w.err.code, TRAZA_E_USAGE);
    char want[64];
    snprintf(want, sizeof want, "result 'irqs' is not the event set %lld", (long long)(evset + 100));
    assert_string_equal(x.w.err.msg, want);

    traza_filter_spec s2 = {.result = "irq-producers"};
    assert_int_equal(resolve(&x, &s2), -1);
    assert_string_equal(x.w.err.msg, "result 'irq-producers' is a producer_set: only an event set or a group restricts events");
    s2.producer_sets = 1;
    assert_int_equal(resolve(&x, &s2), 0);
    assert_int_equal(x.f.nproducers, 2);
    assert_int_equal(count(&x), 21); /* all but the load on root */
    const char *root[] = {"root"};
    traza_filter_spec s3 = {.result = "irq-producers", .producer_sets = 1, .producer_names = root, .nproducer_names = 1};
    assert_int_equal(resolve(&x, &s3), 0);
    assert_int_equal(count(&x), 0); /* root is not in the set: an empty window */
    s3.subtree = 1;
    assert_int_equal(resolve(&x, &s3), 0);
    assert_int_equal(x.f.nproducers, 2);
    assert_int_equal(count(&x), 21);
    traza_filter_spec s4 = {.result = "none-active", .producer_sets = 1};
    assert_int_equal(resolve(&x, &s4), 0);
    assert_true(x.f.has_from && x.f.has_to);
    assert_int_equal(count(&x), 0);
    fx_close(&x);
}

static void save_ranges(fx *x, const char *name, const int64_t (*r)[2], size_t n, int ranged)
{
    traza_annotation a[8];
    memset(a, 0, sizeof a);
    for (size_t i = 0; i < n; i++) {
        a[i].key = "part";
        a[i].value = (traza_value){TRAZA_PT_INT, (int64_t)i, 0, NULL};
        a[i].has_range = ranged;
        a[i].from = r[i][0];
        a[i].to = r[i][1];
    }
    traza_result_meta m = {.name = name, .tool = "test"};
    assert_true(traza_result_save_annotations(x->t, &m, a, n, &x->w.err) > 0);
}

/* Annotations as time ranges: the events whose [ts, end_ts] overlaps one of them.
 * Ranges [12,14], [40,50] with [47,48] inside, [95,99] (given out of order) keep
 * the run [11,16], the msg [5,25] and the load [0,100] (over the first); the irqs at
 * 40 and 50 and the run [41,46] (the second); the run [91,96] (the third): 7 events,
 * and not the irqs at 10 and 90, the run [51,56], nor anything between. */
static void test_during(void **state)
{
    (void)state;
    fx x;
    fx_open(&x);
    static const int64_t r[][2] = {{95, 99}, {40, 50}, {12, 14}, {47, 48}};
    save_ranges(&x, "parts", r, 4, 1);
    traza_filter_spec s = {.during = "parts"};
    assert_int_equal(resolve(&x, &s), 0);
    assert_true(x.f.during > 0);
    /* the store reads the span of the ranges only */
    assert_true(x.f.has_from && x.f.has_to && x.f.overlap);
    assert_int_equal(x.f.from, 12);
    assert_int_equal(x.f.to, 99);
    assert_int_equal(count(&x), 7);
    /* the scan of the analyses keeps the same events, in time order */
    traza_scan *sc = traza_scan_open(x.t, &x.f, &x.w.err);
    assert_non_null(sc);
    traza_scan_batch b;
    int64_t ts[8], n = 0;
    while (traza_scan_next(sc, &b, &x.w.err) > 0)
        for (size_t i = 0; i < b.n && n < 8; i++)
            ts[n++] = b.ts[i];
    traza_scan_free(sc);
    static const int64_t want[] = {0, 5, 11, 40, 41, 50, 91};
    assert_int_equal(n, 7);
    for (size_t i = 0; i < 7; i++)
        assert_int_equal(ts[i], want[i]);
    /* offset and limit count the kept events */
    x.f.offset = 2;
    x.f.limit = 2;
    traza_cursor *c = traza_query(x.t, &x.f, &x.w.err);
    assert_non_null(c);
    const traza_event *ev;
    assert_int_equal(traza_cursor_next(c, &ev, &x.w.err), 1);
    assert_int_equal(ev->ts, 11);
    assert_int_equal(traza_cursor_next(c, &ev, &x.w.err), 1);
    assert_int_equal(ev->ts, 40);
    assert_int_equal(traza_cursor_next(c, &ev, &x.w.err), 0);
    traza_cursor_free(c);
    /* with the other filters: the irqs */
    const char *irq[] = {"irq"};
    traza_filter_spec s2 = {.during = "parts", .type_names = irq, .ntype_names = 1};
    assert_int_equal(resolve(&x, &s2), 0);
    assert_int_equal(count(&x), 2);
    /* a window of the caller's stays as it is: events starting in [30, 60] */
    traza_filter_init(&x.f);
    free(x.types);
    free(x.producers);
    x.f.has_from = x.f.has_to = 1;
    x.f.from = 30;
    x.f.to = 60;
    assert_int_equal(traza_filter_resolve(x.t, &s, &x.f, &x.types, &x.producers, &x.w.err), 0);
    assert_int_equal(x.f.from, 30);
    assert_false(x.f.overlap);
    assert_int_equal(count(&x), 3); /* irq 40, run [41,46], irq 50 */
    fx_close(&x);
}

/* Only annotations with time ranges are time ranges; the message says what the
 * result is instead. */
static void test_during_errors(void **state)
{
    (void)state;
    fx x;
    fx_open(&x);
    save_irqs(&x);
    static const int64_t r[][2] = {{0, 0}};
    save_ranges(&x, "notes", r, 1, 0);

    traza_filter_spec s = {.during = "irqs"};
    assert_int_equal(resolve(&x, &s), -1);
    assert_int_equal(x.w.err.code, TRAZA_E_USAGE);
    assert_string_equal(x.w.err.msg, "result 'irqs' is not a set of time ranges (its kind is event_set)");
    assert_int_equal(x.f.during, 0);
    assert_false(x.f.has_from);
    traza_filter_spec s2 = {.during = "notes"};
    assert_int_equal(resolve(&x, &s2), -1);
    assert_string_equal(x.w.err.msg, "result 'notes' is not a set of time ranges (none of its 1 annotations has one)");
    traza_filter_spec s3 = {.during = "nosuch"};
    assert_int_equal(resolve(&x, &s3), -1);
    assert_int_equal(x.w.err.code, TRAZA_E_NOTFOUND);
    fx_close(&x);
}

/* "COLUMN~RE" and "COLUMN!~RE" read into conditions that the resolved filter keeps. */
static void test_regexes(void **state)
{
    (void)state;
    fx x;
    fx_open(&x);
    traza_regex_cond re[2];
    char *col[2];
    assert_int_equal(traza_regex_cond_parse("type~^(irq|run)$", &re[0], &col[0], &x.w.err), 0);
    assert_string_equal(re[0].column, "type");
    assert_string_equal(re[0].pattern, "^(irq|run)$");
    assert_int_equal(re[0].negate, 0);
    assert_int_equal(traza_regex_cond_parse("producer!~cpu1", &re[1], &col[1], &x.w.err), 0);
    assert_string_equal(re[1].column, "producer");
    assert_string_equal(re[1].pattern, "cpu1");
    assert_int_equal(re[1].negate, 1);
    traza_filter_spec s = {.regexes = re, .nregexes = 1};
    assert_int_equal(resolve(&x, &s), 0);
    assert_ptr_equal(x.f.regexes, re);
    assert_int_equal(x.f.nregexes, 1);
    x.f.with_params = 1;
    assert_int_equal(count(&x), 20);
    s.nregexes = 2; /* irq and run, not on cpu1: the 10 run and the 5 irq of cpu0 */
    assert_int_equal(resolve(&x, &s), 0);
    x.f.with_params = 1;
    assert_int_equal(count(&x), 15);
    free(col[0]);
    free(col[1]);
    static const char *const bad[] = {"type", "~x", "!~x"};
    for (size_t i = 0; i < 3; i++) {
        char *c = (char *)1;
        assert_int_equal(traza_regex_cond_parse(bad[i], &re[0], &c, &x.w.err), -1);
        assert_int_equal(x.w.err.code, TRAZA_E_USAGE);
        assert_null(c);
        assert_non_null(strstr(x.w.err.msg, "expected COLUMN~REGEX or COLUMN!~REGEX"));
    }
    fx_close(&x);
}

/* "PARAM OP VALUE": the first operator (the longer of two at one place), spaces
 * around it dropped; no name before an operator, or none at all, is refused. */
static void test_param_cond_parse(void **state)
{
    (void)state;
    traza_err err;
    traza_param_cond c;
    char *copy;
    static const struct { const char *text, *name, *value; traza_cmp op; } ok[] = {
        {"size > 5", "size", "5", TRAZA_GT}, {"size>=5", "size", "5", TRAZA_GE}, {"a!=b=c", "a", "b=c", TRAZA_NE},
        {"x = <y>", "x", "<y>", TRAZA_EQ}, {"n<=  -1", "n", "-1", TRAZA_LE},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        assert_int_equal(traza_param_cond_parse(ok[i].text, &c, &copy, &err), 0);
        assert_string_equal(c.name, ok[i].name);
        assert_string_equal(c.value, ok[i].value);
        assert_int_equal(c.op, ok[i].op);
        free(copy);
    }
    static const char *const bad[] = {"size", "=5", "", "<x"};
    for (size_t i = 0; i < 4; i++) {
        copy = (char *)1;
        assert_int_equal(traza_param_cond_parse(bad[i], &c, &copy, &err), -1);
        assert_int_equal(err.code, TRAZA_E_USAGE);
        assert_null(copy);
        assert_non_null(strstr(err.msg, "expected PARAM OP VALUE with OP one of = != < > <= >="));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_and_ids),
        cmocka_unit_test(test_subtree),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_results),
        cmocka_unit_test(test_during),
        cmocka_unit_test(test_during_errors),
        cmocka_unit_test(test_regexes),
        cmocka_unit_test(test_param_cond_parse),
    };
    return cmocka_run_group_tests_name("filter_resolve", tests, NULL, NULL);
}
