/* /api/callstack on traces larger than a request's budget: the server's call-profile
 * worker reads them in the background, each answer meanwhile covers the part read so
 * far (partial, building, covered_to: exactly the calls that start up to it), and
 * repeated requests end with the whole profile, equal to the library's build
 * (`traza callstack`), also when another filter or trace is asked for mid-build.
 * Every request has budget=10 (5 ms of waiting), far less than reading 300 000
 * events takes: without the worker, no request would ever answer the whole. */
#include "api_fixture.h"
#include "traza/callprofile.h"

#include <jansson.h>
#include <time.h>

/* Requests before giving up (each follows a 20 ms pause: minutes in all). */
#define MAX_TRIES 15000

static json_t *callstack(tz_api *api, const char *query)
{
    tz_params ps;
    tz_params_init(&ps);
    assert_int_equal(tz_params_parse(&ps, query), 0);
    tz_resp r;
    tz_api_handle(api, "GET", "/api/callstack", &ps, &r);
    tz_params_free(&ps);
    if (r.status != 200)
        fail_msg("%s: %d %.*s", query, r.status, (int)r.len, r.body);
    json_error_t je;
    json_t *j = json_loadb(r.body, r.len, 0, &je);
    assert_non_null(j);
    tz_resp_free(&r);
    return j;
}

static json_int_t jint(json_t *o, const char *k) { return json_integer_value(json_object_get(o, k)); }

/* The calls of the answer (every thread's, the window being the whole profile). */
static int64_t answer_calls(json_t *j)
{
    int64_t n = 0;
    json_t *th = json_object_get(j, "threads");
    for (size_t i = 0; i < json_array_size(th); i++)
        n += jint(json_array_get(th, i), "calls");
    return n;
}

/* The library's profile of trace `name` (types: only that state type when >= 0). */
static void reference(tu_api_ws *w, const char *name, int32_t type, traza_callprofile *cp)
{
    traza_err err;
    traza_trace *t = traza_trace_open(w->ws, name, TRAZA_OPEN_READ, &err);
    assert_non_null(t);
    traza_filter f;
    traza_filter_init(&f);
    if (type >= 0) {
        f.types = &type;
        f.ntypes = 1;
    }
    assert_int_equal(traza_callprofile_build(t, cp, &f, NULL, NULL, &err), 0);
    assert_true(cp->ncalls > 20000);
    traza_trace_close(t);
}

/* Asks `query` (over the reference's whole span) until the answer is complete; each
 * partial answer covers exactly the reference's calls that start up to its
 * covered_to. Returns the complete answer and how many partial ones came before. */
static json_t *until_complete(tz_api *api, const char *query, const traza_callprofile *ref, int *npartial)
{
    char url[512];
    snprintf(url, sizeof url, "%s&from=%lld&to=%lld&max=5&top=500&budget=10", query, (long long)ref->min_ts,
             (long long)ref->max_ts);
    *npartial = 0;
    for (int tries = 0;; tries++) {
        assert_true(tries < MAX_TRIES);
        json_t *j = callstack(api, url);
        if (json_is_false(json_object_get(j, "partial"))) {
            assert_null(json_object_get(j, "building"));
            assert_null(json_object_get(j, "covered_to"));
            return j;
        }
        assert_true(json_is_true(json_object_get(j, "partial")));
        assert_true(json_is_true(json_object_get(j, "building")));
        double progress = json_number_value(json_object_get(j, "progress"));
        assert_true(progress >= 0 && progress < 1);
        json_t *ct = json_object_get(j, "covered_to");
        int64_t want = 0;
        if (ct) {
            for (size_t i = 0; i < ref->ncalls; i++)
                want += ref->calls[i].ts <= json_integer_value(ct);
            assert_true(want < (int64_t)ref->ncalls);
        }
        assert_int_equal(answer_calls(j), want);
        ++*npartial;
        json_decref(j);
        struct timespec pause = {0, 20000000};
        nanosleep(&pause, NULL);
    }
}

/* The complete answer is the reference: every call, the same bounds and depth, and
 * each function's calls, total and self time. */
static void check_complete(json_t *j, const traza_callprofile *ref)
{
    assert_int_equal(answer_calls(j), (int64_t)ref->ncalls);
    assert_int_equal(jint(j, "min_ts"), ref->min_ts);
    assert_int_equal(jint(j, "max_ts"), ref->max_ts);
    assert_int_equal(jint(j, "max_level"), ref->max_level);
    assert_int_equal(jint(j, "functions"), (json_int_t)ref->nfuncs);
    json_t *prof = json_object_get(j, "profile");
    assert_int_equal(json_array_size(prof), ref->nfuncs);
    for (size_t i = 0; i < ref->nfuncs; i++) {
        json_t *p = NULL;
        for (size_t k = 0; k < json_array_size(prof) && !p; k++)
            if (jint(json_array_get(prof, k), "type") == ref->funcs[i].type)
                p = json_array_get(prof, k);
        assert_non_null(p);
        assert_int_equal(jint(p, "calls"), ref->funcs[i].calls);
        assert_int_equal(jint(p, "inclusive"), ref->funcs[i].inclusive);
        assert_int_equal(jint(p, "exclusive"), ref->funcs[i].exclusive);
    }
}

static void test_fills_in_across_requests(void **state)
{
    (void)state;
    tu_api_ws w;
    tu_api_ws_open(&w, 300000, 0);
    traza_callprofile ref;
    reference(&w, "gen", -1, &ref);
    int npartial;
    json_t *j = until_complete(w.api, "trace=gen", &ref, &npartial);
    check_complete(j, &ref);
    json_decref(j);
    /* kept: the next request answers the whole at once */
    j = until_complete(w.api, "trace=gen", &ref, &npartial);
    assert_int_equal(npartial, 0);
    check_complete(j, &ref);
    json_decref(j);
    traza_callprofile_free(&ref);
    tu_api_ws_close(&w);
}

static void test_switch_mid_build(void **state)
{
    (void)state;
    tu_api_ws w;
    tu_api_ws_open(&w, 300000, 0);
    traza_err err;
    traza_gen_opts o;
    traza_gen_opts_init(&o);
    o.events = 250000;
    o.seed = 7;
    traza_trace_info info;
    memset(&info, 0, sizeof info);
    assert_int_equal(traza_gen_store(w.ws, "other", &o, &info, &err), 0);
    traza_trace_info_clear(&info);
    traza_callprofile all, one, other;
    reference(&w, "gen", -1, &all);
    int32_t type = all.funcs[0].type;
    reference(&w, "gen", type, &one);
    reference(&w, "other", -1, &other);
    assert_true(one.ncalls < all.ncalls);
    char filtered[64], second[96];
    snprintf(filtered, sizeof filtered, "trace=gen&types=%d", type);
    snprintf(second, sizeof second, "trace=gen&max=5&budget=10&types=%d", all.funcs[1].type);
    /* the whole trace's build started, then replaced by the filter's, then by the
     * other trace's: each answer is of what it asks */
    json_decref(callstack(w.api, "trace=gen&max=5&budget=10"));
    json_decref(callstack(w.api, second));
    int npartial;
    json_t *j = until_complete(w.api, filtered, &one, &npartial);
    check_complete(j, &one);
    json_decref(j);
    json_decref(callstack(w.api, "trace=gen&max=5&budget=10"));
    j = until_complete(w.api, "trace=other", &other, &npartial);
    check_complete(j, &other);
    json_decref(j);
    /* the filtered profile is kept beside the unfiltered one */
    j = until_complete(w.api, filtered, &one, &npartial);
    assert_int_equal(npartial, 0);
    check_complete(j, &one);
    json_decref(j);
    /* and a build replaced by another trace's starts again when asked for */
    j = until_complete(w.api, "trace=gen", &all, &npartial);
    check_complete(j, &all);
    json_decref(j);
    traza_callprofile_free(&all);
    traza_callprofile_free(&one);
    traza_callprofile_free(&other);
    tu_api_ws_close(&w);
}

/* A filter the build refuses (no state events to read) is answered with the
 * library's error, once the worker has tried: the answers before it are partial. */
static void test_refused_filter(void **state)
{
    (void)state;
    tu_api_ws w;
    tu_api_ws_open(&w, 300000, 0);
    for (int tries = 0;; tries++) {
        assert_true(tries < MAX_TRIES);
        tz_params ps;
        tz_params_init(&ps);
        assert_int_equal(tz_params_parse(&ps, "trace=gen&categories=punctual&budget=10"), 0);
        tz_resp r;
        tz_api_handle(w.api, "GET", "/api/callstack", &ps, &r);
        tz_params_free(&ps);
        json_error_t je;
        json_t *j = json_loadb(r.body, r.len, 0, &je);
        assert_non_null(j);
        int st = r.status;
        tz_resp_free(&r);
        if (st == 200) {
            assert_true(json_is_true(json_object_get(j, "partial")));
            assert_int_equal(answer_calls(j), 0);
            json_decref(j);
            struct timespec pause = {0, 20000000};
            nanosleep(&pause, NULL);
            continue;
        }
        assert_int_equal(st, 400);
        assert_string_equal(json_string_value(json_object_get(j, "error")),
                            "call profiles read state events, which the filter's categories leave out");
        json_decref(j);
        break;
    }
    tu_api_ws_close(&w);
}

/* A build under way when the server's API is freed stops and is joined (no leak,
 * no thread left: ASan and TSan check). */
static void test_freed_mid_build(void **state)
{
    (void)state;
    tu_api_ws w;
    tu_api_ws_open(&w, 300000, 0);
    json_t *j = callstack(w.api, "trace=gen&max=5&budget=10");
    assert_non_null(json_object_get(j, "partial"));
    json_decref(j);
    tu_api_ws_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fills_in_across_requests),
        cmocka_unit_test(test_switch_mid_build),
        cmocka_unit_test(test_refused_filter),
        cmocka_unit_test(test_freed_mid_build),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
