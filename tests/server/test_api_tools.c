/* The tool jobs of the JSON API (api_tools.c) without sockets: POST-only routing,
 * a queued job cancelled before it starts, a job run by the tool worker to a saved
 * result, the worker's stop, and the page token in index.html. */
#include "api_fixture.h"

#include <jansson.h>
#include <pthread.h>
#include <time.h>

typedef tu_api_ws fx;

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    assert_non_null(f);
    tu_api_ws_open(f, 3000, 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    tu_api_ws_close(*state);
    free(*state);
    return 0;
}

/* method path?query -> the JSON answer (status checked). */
static json_t *call(fx *f, const char *method, const char *target, int want)
{
    char path[256];
    snprintf(path, sizeof path, "%s", target);
    char *q = strchr(path, '?');
    if (q)
        *q++ = 0;
    tz_params ps;
    tz_params_init(&ps);
    assert_int_equal(tz_params_parse(&ps, q), 0);
    tz_resp r;
    tz_api_handle(f->api, method, path, &ps, &r);
    tz_params_free(&ps);
    if (r.status != want)
        fail_msg("%s %s: status %d, expected %d: %.*s", method, target, r.status, want, (int)r.len, r.body);
    json_error_t je;
    json_t *j = json_loadb(r.body, r.len, 0, &je);
    tz_resp_free(&r);
    assert_non_null(j);
    return j;
}

static const char *str(json_t *j, const char *key)
{
    const char *s = json_string_value(json_object_get(j, key));
    return s ? s : "";
}

static void test_post_only(void **state)
{
    fx *f = *state;
    json_decref(call(f, "GET", "/api/run?tool=filter&trace=gen", 405));
    json_decref(call(f, "HEAD", "/api/results/delete?trace=gen&name=x", 405));
    json_decref(call(f, "GET", "/api/job/cancel?id=1", 405));
    json_decref(call(f, "POST", "/api/events?trace=gen", 405));
    json_decref(call(f, "POST", "/index.html", 405));
    json_decref(call(f, "PUT", "/api/run?tool=filter&trace=gen", 405));
    assert_int_equal(tz_api_changes("/api/run"), 1);
    assert_int_equal(tz_api_changes("/api/job"), 0);
    json_t *e = call(f, "POST", "/api/run?tool=anomaly&trace=gen&svg=%2Ftmp%2Fx.svg", 400);
    assert_string_equal(str(e, "error"), "option 'svg' names a file: not accepted over HTTP");
    json_decref(e);
    e = call(f, "POST", "/api/run?tool=import-csv&trace=gen", 400);
    assert_string_equal(str(e, "error"), "tool 'import-csv' is an importer: only analyses run from the API");
    json_decref(e);
    json_decref(call(f, "POST", "/api/run?tool=nope&trace=gen", 404));
    json_decref(call(f, "POST", "/api/run?tool=filter&trace=gen&replace=maybe", 400));
    json_decref(call(f, "GET", "/api/job?id=77", 404));
    json_decref(call(f, "GET", "/api/job", 400));
}

static void *worker(void *api)
{
    tz_api_tool_worker(api);
    return NULL;
}

/* Polls /api/job?id= until the job ends (5 s at most). */
static json_t *wait_job(fx *f, long long id)
{
    char t[64];
    snprintf(t, sizeof t, "/api/job?id=%lld", id);
    for (int i = 0; i < 500; i++) {
        json_t *j = call(f, "GET", t, 200);
        const char *st = str(j, "state");
        if (strcmp(st, "queued") != 0 && strcmp(st, "running") != 0)
            return j;
        json_decref(j);
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    fail_msg("job %lld did not end", id);
    return NULL;
}

static void test_jobs(void **state)
{
    fx *f = *state;
    /* no worker yet: a job stays queued, and a cancel ends it before it starts */
    json_t *j = call(f, "POST", "/api/run?tool=filter&trace=gen&type=state0&name=never", 200);
    long long first = json_integer_value(json_object_get(j, "job"));
    assert_string_equal(str(j, "state"), "queued");
    json_decref(j);
    char t[64];
    snprintf(t, sizeof t, "/api/job/cancel?id=%lld", first);
    j = call(f, "POST", t, 200);
    assert_string_equal(str(j, "state"), "cancelled");
    json_decref(j);
    j = call(f, "POST", "/api/run?tool=filter&trace=gen&type=state0&name=s0", 200);
    long long second = json_integer_value(json_object_get(j, "job"));
    assert_int_equal(second, first + 1);
    json_decref(j);

    traza_err err;
    tz_api *clone = tz_api_clone(f->api, &err);
    assert_non_null(clone);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, worker, clone), 0);
    j = wait_job(f, second);
    assert_string_equal(str(j, "state"), "done");
    assert_string_equal(str(j, "result"), "s0");
    assert_true(json_real_value(json_object_get(j, "progress")) == 1.0);
    json_decref(j);
    j = wait_job(f, first);
    assert_string_equal(str(j, "state"), "cancelled");
    assert_true(json_is_null(json_object_get(j, "result")));
    json_decref(j);

    /* the saved set is a result of the trace, and filters the views */
    j = call(f, "GET", "/api/results?trace=gen", 200);
    json_t *list = json_object_get(j, "results");
    assert_int_equal(json_array_size(list), 1);
    json_t *res = json_array_get(list, 0);
    assert_string_equal(str(res, "name"), "s0");
    json_int_t size = json_integer_value(json_object_get(res, "size"));
    json_decref(j);
    j = call(f, "GET", "/api/events?trace=gen&result=s0&limit=1", 200);
    assert_int_equal(json_integer_value(json_object_get(j, "total")), size);
    json_decref(j);
    assert_true(size > 0 && size < 3000);

    /* a failing run */
    j = call(f, "POST", "/api/run?tool=anomaly&trace=gen&type=nosuch", 200);
    long long third = json_integer_value(json_object_get(j, "job"));
    json_decref(j);
    j = wait_job(f, third);
    assert_string_equal(str(j, "state"), "failed");
    assert_non_null(strstr(str(j, "error"), "nosuch"));
    json_decref(j);

    /* delete, then none left */
    j = call(f, "POST", "/api/results/delete?trace=gen&name=s0", 200);
    assert_string_equal(str(j, "name"), "s0");
    json_decref(j);
    json_decref(call(f, "POST", "/api/results/delete?trace=gen&name=s0", 404));
    json_decref(call(f, "GET", "/api/events?trace=gen&result=s0", 404));

    /* the worker stops; runs are refused after */
    assert_int_equal(tz_api_tools_quit(f->api, 5000), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    tz_api_free(clone);
    json_decref(call(f, "POST", "/api/run?tool=filter&trace=gen", 503));
}

/* The UI's selection (set=, re.COLUMN=) reaches aggregate as its event filter: the
 * saved set as its set option, the column filter as its regex; the result is named
 * after them. */
static void test_selection_filters_aggregate(void **state)
{
    fx *f = *state;
    traza_err err;
    tz_api *clone = tz_api_clone(f->api, &err);
    assert_non_null(clone);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, worker, clone), 0);
    json_t *j = call(f, "POST", "/api/run?tool=filter&trace=gen&type=state0&name=s0", 200);
    long long id = json_integer_value(json_object_get(j, "job"));
    json_decref(j);
    j = wait_job(f, id);
    assert_string_equal(str(j, "state"), "done");
    json_decref(j);
    j = call(f, "POST", "/api/run?tool=aggregate&trace=gen&slices=4&p=0.5&set=s0&re.producer=.", 200);
    id = json_integer_value(json_object_get(j, "job"));
    json_decref(j);
    j = wait_job(f, id);
    /* the worker stops before the checks, so that a failed one ends the test */
    assert_int_equal(tz_api_tools_quit(f->api, 5000), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    tz_api_free(clone);
    char got[512];
    snprintf(got, sizeof got, "%s | %s | %s | %s", str(j, "state"), str(j, "filter"), str(j, "result"), str(j, "error"));
    json_decref(j);
    assert_string_equal(got, "done | set=s0 regex=producer~. | aggregate:occurrences:4:set=s0:regex=producer~. | ");
}

static void test_token_in_page(void **state)
{
    (void)state;
    const tz_asset *a;
    if (tz_web_assets(&a) == 0)
        skip(); /* a library built without the front end */
    tz_resp r;
    memset(&r, 0, sizeof r);
    tz_static_handle("/", "0123abcd", &r);
    assert_int_equal(r.status, 200);
    const char *head = memmem(r.body, r.len, "<head>", 6);
    assert_non_null(head);
    const char meta[] = "<head>\n<meta name=\"traza-token\" content=\"0123abcd\">";
    assert_true((size_t)(r.body + r.len - head) > sizeof meta && memcmp(head, meta, sizeof meta - 1) == 0);
    tz_resp_free(&r);
    tz_static_handle("/index.html", "", &r);
    assert_null(memmem(r.body, r.len, "traza-token", 11));
    tz_resp_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_post_only, setup, teardown),
        cmocka_unit_test_setup_teardown(test_jobs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_selection_filters_aggregate, setup, teardown),
        cmocka_unit_test(test_token_in_page),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
