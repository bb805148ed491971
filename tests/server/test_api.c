/* The HTTP server of `traza serve` and its JSON API: values, bounds, and 4xx (never a
 * crash) for path traversal, malformed, oversized and bad requests. The server runs
 * in-process on an ephemeral 127.0.0.1 port; requests go through a raw socket client
 * so malformed bytes can be sent too. */
#include "api_fixture.h"
#include "huge_grammar.h"
#include "sample_trace.h"

#include <math.h>
#include "server/server.h"
#include "traza/gen.h"
#include "traza/analysis.h"

#include <arpa/inet.h>
#include <jansson.h>
#include <netinet/in.h>
#include <signal.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/time.h>

typedef struct fx {
    tu_api_ws w;
    tz_api *api; /* = w.api */
    tz_server *srv;
    int port;
} fx;

static int setup(void **state)
{
    signal(SIGPIPE, SIG_IGN);
    fx *f = calloc(1, sizeof *f);
    assert_non_null(f);
    tu_api_ws_open(&f->w, 5000, 2);
    f->api = f->w.api;
    traza_err err;
    f->srv = tz_server_start(f->api, "127.0.0.1", 0, NULL, &err);
    assert_non_null(f->srv);
    f->port = tz_server_port(f->srv);
    assert_true(f->port > 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    assert_int_equal(tz_server_stop(f->srv, 5000), 0);
    tu_api_ws_close(&f->w);
    free(f);
    return 0;
}

/* Sends raw bytes, returns the whole answer (malloc'd) and its status. */
static char *raw(fx *f, const char *req, size_t len, int *status)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(s >= 0);
    struct timeval tv = {10, 0};
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)f->port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(s, (struct sockaddr *)&sa, sizeof sa), 0);
    size_t off = 0;
    while (off < len) {
        ssize_t w = send(s, req + off, len - off, MSG_NOSIGNAL);
        if (w <= 0)
            break; /* the server may close early on an oversized request */
        off += (size_t)w;
    }
    shutdown(s, SHUT_WR);
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    for (;;) {
        if (n + 4096 > cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
        ssize_t r = recv(s, buf + n, cap - n - 1, 0);
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    buf[n] = 0;
    close(s);
    *status = 0;
    if (n > 12 && strncmp(buf, "HTTP/1.", 7) == 0)
        *status = atoi(buf + 9);
    return buf;
}

static char *get(fx *f, const char *target, int *status)
{
    char *req = NULL;
    assert_true(asprintf(&req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", target) > 0);
    char *a = raw(f, req, strlen(req), status);
    free(req);
    return a;
}

static const char *body_of(const char *answer)
{
    const char *b = strstr(answer, "\r\n\r\n");
    return b ? b + 4 : "";
}

/* GET and parse the JSON body; asserts the status. */
static json_t *get_json(fx *f, const char *target, int want)
{
    int st;
    char *a = get(f, target, &st);
    if (st != want)
        fprintf(stderr, "GET %s: status %d, expected %d\n%s\n", target, st, want, a);
    assert_int_equal(st, want);
    json_error_t e;
    json_t *j = json_loads(body_of(a), 0, &e);
    if (!j)
        fprintf(stderr, "GET %s: not JSON: %s\n%.300s\n", target, e.text, body_of(a));
    assert_non_null(j);
    free(a);
    return j;
}

static json_int_t jint(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    assert_non_null(v);
    return json_integer_value(v);
}

static void test_traces_and_trace(void **state)
{
    fx *f = *state;
    json_t *j = get_json(f, "/api/traces", 200);
    assert_int_equal(jint(j, "count"), 1);
    json_t *t = json_array_get(json_object_get(j, "traces"), 0);
    assert_string_equal(json_string_value(json_object_get(t, "name")), "gen");
    assert_int_equal(jint(t, "events"), 5000);
    json_decref(j);
    j = get_json(f, "/api/trace?trace=gen", 200);
    json_t *types = json_object_get(j, "types");
    assert_int_equal(json_array_size(types), 10);
    /* deterministic colours: the library's colour of the name */
    json_t *t0 = json_array_get(types, 0);
    char c[8];
    traza_color_for(json_string_value(json_object_get(t0, "name")), c);
    assert_string_equal(json_string_value(json_object_get(t0, "color")), c);
    assert_int_equal(json_array_size(json_object_get(j, "producers")), 36);
    json_decref(j);
    json_decref(get_json(f, "/api/trace?trace=1", 200));
    json_decref(get_json(f, "/api/trace?trace=nope", 404));
    json_decref(get_json(f, "/api/trace", 400));
    json_decref(get_json(f, "/api/results?trace=gen", 200));
    json_decref(get_json(f, "/api/version", 200));
}

static void test_events_paged_and_bounded(void **state)
{
    fx *f = *state;
    json_t *j = get_json(f, "/api/events?trace=gen&offset=10&limit=5", 200);
    assert_int_equal(jint(j, "total"), 5000);
    assert_int_equal(json_array_size(json_object_get(j, "events")), 5);
    assert_int_equal(jint(json_array_get(json_object_get(j, "events"), 0), "id"), 11);
    json_decref(j);
    /* an unbounded request is clamped */
    j = get_json(f, "/api/events?trace=gen&limit=999999999", 200);
    assert_int_equal(jint(j, "limit"), TZ_API_MAX_EVENTS);
    assert_int_equal(json_array_size(json_object_get(j, "events")), TZ_API_MAX_EVENTS);
    json_decref(j);
    /* regex column filters: every row matches, the total shrinks */
    j = get_json(f, "/api/events?trace=gen&re.type=%5Estate&limit=1000", 200);
    json_int_t n = jint(j, "total");
    assert_true(n > 0 && n < 5000);
    json_t *evs = json_object_get(j, "events");
    for (size_t i = 0; i < json_array_size(evs); i++)
        assert_int_equal(strncmp(json_string_value(json_object_get(json_array_get(evs, i), "type")), "state", 5), 0);
    json_decref(j);
    j = get_json(f, "/api/events?trace=gen&nre.type=%5Estate&limit=1", 200);
    assert_int_equal(jint(j, "total"), 5000 - n);
    json_decref(j);
    /* a window */
    j = get_json(f, "/api/events?trace=gen&from=0&to=100000&limit=1", 200);
    json_int_t w = jint(j, "total");
    json_decref(j);
    j = get_json(f, "/api/density?trace=gen&from=0&to=100000&slices=7", 200);
    assert_int_equal(jint(j, "total"), w);
    json_decref(j);
    /* CSV of the selection: header + one line per event */
    int st;
    char *a = get(f, "/api/events.csv?trace=gen&re.type=%5Estate", &st);
    assert_int_equal(st, 200);
    assert_non_null(strstr(a, "Content-Type: text/csv"));
    assert_non_null(strstr(a, "attachment"));
    const char *b = body_of(a);
    assert_int_equal(strncmp(b, "id,ts,end_ts,type", 17), 0);
    long lines = 0;
    for (const char *p = b; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, n + 1);
    free(a);
}

static void test_density_timeline_stats(void **state)
{
    fx *f = *state;
    json_t *j = get_json(f, "/api/density?trace=gen&slices=50", 200);
    assert_int_equal(jint(j, "total"), 5000);
    assert_int_equal(json_array_size(json_object_get(j, "counts")), 50);
    json_decref(j);
    j = get_json(f, "/api/density?trace=gen&slices=100000000", 200);
    assert_int_equal(jint(j, "slices"), TZ_API_MAX_SLICES);
    json_decref(j);
    /* timeline: summary mode when more than `max` events, per-pixel counts add up */
    j = get_json(f, "/api/timeline?trace=gen&width=100&max=100", 200);
    assert_string_equal(json_string_value(json_object_get(j, "mode")), "summary");
    json_t *cols = json_object_get(j, "columns");
    assert_true(json_array_size(cols) <= 100);
    json_int_t sum = 0;
    for (size_t i = 0; i < json_array_size(cols); i++) {
        json_t *c = json_array_get(cols, i);
        sum += jint(c, "n");
        assert_true(json_array_size(json_object_get(c, "cells")) <= 16);
    }
    assert_int_equal(sum, 5000);
    json_decref(j);
    /* detail mode on a small window */
    j = get_json(f, "/api/timeline?trace=gen&from=0&to=20000&width=500", 200);
    assert_string_equal(json_string_value(json_object_get(j, "mode")), "detail");
    assert_true(json_array_size(json_object_get(j, "events")) >= (size_t)jint(j, "count"));
    json_decref(j);
    j = get_json(f, "/api/timeline?trace=gen&width=99999999&max=99999999", 200);
    assert_int_equal(jint(j, "width"), TZ_API_MAX_WIDTH);
    json_decref(j);
    /* detail rows are [ts, end, type, producer, end_producer, level, value, id]: the
     * value null where the event has none, the id the event's as /api/events gives it */
    j = get_json(f, "/api/timeline?trace=gen&width=100&max=20000", 200);
    json_t *evs = json_object_get(j, "events");
    assert_int_equal(json_array_size(evs), 5000);
    json_t *ev = get_json(f, "/api/events?trace=gen&offset=10&limit=1", 200);
    json_t *e10 = json_array_get(json_object_get(ev, "events"), 0), *row = json_array_get(evs, 10);
    assert_int_equal(json_array_size(row), 8);
    assert_int_equal(json_integer_value(json_array_get(row, 7)), jint(e10, "id"));
    assert_int_equal(json_integer_value(json_array_get(row, 0)), jint(e10, "ts"));
    json_decref(ev);
    for (size_t i = 0; i < json_array_size(evs); i++) {
        json_t *v = json_array_get(json_array_get(evs, i), 6);
        assert_true(json_is_null(v) || json_is_number(v));
    }
    json_decref(j);
    /* stats: the pies add up to the event count */
    j = get_json(f, "/api/stats?trace=gen", 200);
    assert_int_equal(jint(j, "total"), 5000);
    json_t *ty = json_object_get(j, "types");
    sum = 0;
    for (size_t i = 0; i < json_array_size(ty); i++)
        sum += jint(json_array_get(ty, i), "count");
    assert_int_equal(sum, 5000);
    json_decref(j);
    j = get_json(f, "/api/stats?trace=gen&types=0,1&producers=0&subtree=1", 200);
    assert_true(jint(j, "total") > 0);
    json_decref(j);
}

/* The time index (in-memory) and the store give the same answers. */
static void test_time_index_exact(void **state)
{
    fx *f = *state;
    traza_err err;
    traza_trace *t = traza_trace_open(f->w.ws, "gen", TRAZA_OPEN_READ, &err);
    assert_non_null(t);
    const traza_trace_info *info = traza_trace_info_of(t);
    int64_t wins[][2] = {{info->min_ts, info->max_ts}, {info->min_ts + 1000, info->min_ts + 77777}, {0, 1}, {info->max_ts - 10, info->max_ts + 1000}};
    for (size_t w = 0; w < sizeof wins / sizeof wins[0]; w++) {
        traza_filter fl;
        traza_filter_init(&fl);
        fl.has_from = fl.has_to = 1;
        fl.from = wins[w][0];
        fl.to = wins[w][1];
        uint64_t counts[37];
        int64_t a, b;
        assert_int_equal(traza_density(t, &fl, 37, counts, &a, &b, &err), 0);
        char url[256];
        snprintf(url, sizeof url, "/api/density?trace=gen&slices=37&from=%lld&to=%lld", (long long)fl.from, (long long)fl.to);
        json_t *j = get_json(f, url, 200);
        json_t *c = json_object_get(j, "counts");
        for (size_t i = 0; i < 37; i++)
            assert_int_equal(json_integer_value(json_array_get(c, i)), counts[i]);
        json_decref(j);
        /* the timeline's per-pixel counts add up to the window's count */
        snprintf(url, sizeof url, "/api/timeline?trace=gen&width=50&max=1&from=%lld&to=%lld", (long long)fl.from, (long long)fl.to);
        j = get_json(f, url, 200);
        json_int_t want = traza_count(t, &fl, &err), sum = 0;
        if (strcmp(json_string_value(json_object_get(j, "mode")), "summary") == 0) {
            json_t *cols = json_object_get(j, "columns");
            for (size_t i = 0; i < json_array_size(cols); i++)
                sum += jint(json_array_get(cols, i), "n");
            assert_int_equal(sum, want);
        }
        json_decref(j);
    }
    /* summary columns: exact counts per pixel, and every sampled (producer, type)
     * cell is one that occurs in that pixel; width 3 with 2 samples draws them from
     * the overview (a pixel holds > 2 of its entries), width 50 reads them by rank */
    int64_t shapes[][2] = {{50, 16}, {3, 2}, {7, 5}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int64_t width = shapes[s][0], sample = shapes[s][1];
        char url[256];
        snprintf(url, sizeof url, "/api/timeline?trace=gen&width=%lld&sample=%lld&max=1", (long long)width, (long long)sample);
        json_t *j = get_json(f, url, 200);
        assert_string_equal(json_string_value(json_object_get(j, "mode")), "summary");
        int64_t from = jint(j, "from"), to = jint(j, "to");
        __int128 span = (__int128)to - from + 1;
        json_t *cols = json_object_get(j, "columns");
        assert_true(json_array_size(cols) > 0);
        for (size_t i = 0; i < json_array_size(cols); i++) {
            json_t *col = json_array_get(cols, i);
            int64_t x = jint(col, "x");
            traza_filter fl;
            traza_filter_init(&fl);
            fl.has_from = fl.has_to = 1;
            fl.from = from + (int64_t)(span * x / width);
            fl.to = from + (int64_t)(span * (x + 1) / width) - 1;
            int64_t n = traza_count(t, &fl, &err);
            assert_int_equal(jint(col, "n"), n);
            json_t *cells = json_object_get(col, "cells");
            json_int_t took = 0;
            for (size_t k = 0; k < json_array_size(cells); k++) {
                json_t *cell = json_array_get(cells, k);
                int32_t prod = (int32_t)json_integer_value(json_array_get(cell, 0));
                int32_t type = (int32_t)json_integer_value(json_array_get(cell, 1));
                took += json_integer_value(json_array_get(cell, 2));
                traza_filter one = fl;
                one.types = &type;
                one.ntypes = 1;
                one.producers = &prod;
                one.nproducers = 1;
                assert_true(traza_count(t, &one, &err) > 0);
            }
            assert_int_equal(took, n < sample ? n : sample);
        }
        json_decref(j);
    }
    /* a deep offset lands on the same event as the store's offset */
    for (int64_t off = 0; off < 5000; off += 977) {
        traza_filter fl;
        traza_filter_init(&fl);
        fl.offset = off;
        fl.limit = 1;
        traza_cursor *c = traza_query(t, &fl, &err);
        const traza_event *ev;
        assert_int_equal(traza_cursor_next(c, &ev, &err), 1);
        char url[256];
        snprintf(url, sizeof url, "/api/events?trace=gen&offset=%lld&limit=1", (long long)off);
        json_t *j = get_json(f, url, 200);
        assert_int_equal(jint(json_array_get(json_object_get(j, "events"), 0), "id"), ev->id);
        assert_int_equal(jint(j, "total"), 5000);
        json_decref(j);
        traza_cursor_free(c);
    }
    json_t *j = get_json(f, "/api/events?trace=gen&offset=5000", 200);
    assert_int_equal(json_array_size(json_object_get(j, "events")), 0);
    json_decref(j);
    traza_trace_close(t);
}

static void test_analyses(void **state)
{
    fx *f = *state;
    json_t *j = get_json(f, "/api/aggregate?trace=gen&slices=1000000", 200);
    assert_int_equal(jint(j, "slices"), TZ_API_MAX_AGG_SLICES);
    json_t *pl = json_object_get(j, "p_list");
    assert_true(json_array_size(pl) >= 1);
    assert_int_equal(json_array_size(json_object_get(json_array_get(pl, 0), "parts")), TZ_API_MAX_AGG_SLICES);
    json_decref(j);
    j = get_json(f, "/api/anomaly?trace=gen&series=state0&rule=sigma", 200);
    assert_true(jint(j, "n") > 0);
    assert_true(json_array_size(json_object_get(j, "points")) <= TZ_API_MAX_POINTS);
    json_decref(j);
    j = get_json(f, "/api/correlate?trace=gen&series=state0&top=3", 200);
    assert_true(json_array_size(json_object_get(j, "causes")) <= 3);
    json_decref(j);
    j = get_json(f, "/api/callstack?trace=gen&max=10", 200);
    assert_true(json_array_size(json_object_get(j, "calls")) <= 10);
    assert_true(json_array_size(json_object_get(j, "profile")) > 0);
    json_decref(j);
    j = get_json(f, "/api/grammars", 200);
    assert_int_equal(json_array_size(json_object_get(j, "grammars")), 0);
    json_decref(j);
    json_decref(get_json(f, "/api/grammar?id=0", 404));
    json_decref(get_json(f, "/api/grammar", 400));
    json_decref(get_json(f, "/api/anomaly?trace=gen&series=state0&metric=bogus", 400));
    json_decref(get_json(f, "/api/anomaly?trace=gen&series=nosuchtype", 404));
    json_decref(get_json(f, "/api/anomaly?trace=gen", 400));
    json_decref(get_json(f, "/api/aggregate?trace=gen&model=bogus", 400));
}

static void test_bad_parameters(void **state)
{
    fx *f = *state;
    const char *bad400[] = {
        "/api/events?trace=gen&limit=abc",
        "/api/events?trace=gen&limit=0",
        "/api/events?trace=gen&offset=-1",
        "/api/events?trace=gen&from=10&to=5",
        "/api/events?trace=gen&from=1e3",
        "/api/events?trace=gen&from=99999999999999999999999",
        "/api/events?trace=gen&re.type=(unclosed",
        "/api/events?trace=gen&types=a,b",
        "/api/events?trace=gen&types=1,,2",
        "/api/events?trace=gen&categories=bogus",
        "/api/density?trace=gen&slices=-3",
        "/api/timeline?trace=gen&width=x",
        "/api/anomaly?trace=gen&series=state0&k=nan",
        "/api/events?trace=%ZZ",
    };
    for (size_t i = 0; i < sizeof bad400 / sizeof bad400[0]; i++) {
        int st;
        char *a = get(f, bad400[i], &st);
        if (st != 400)
            fprintf(stderr, "%s -> %d\n%s\n", bad400[i], st, a);
        assert_int_equal(st, 400);
        assert_non_null(strstr(body_of(a), "\"error\""));
        free(a);
    }
    json_decref(get_json(f, "/api/events?trace=gen&types=999", 404));
    json_decref(get_json(f, "/api/events?trace=gen&producers=99999", 404));
    json_decref(get_json(f, "/api/nothing", 404));
    /* too many parameters */
    char q[4096] = "/api/events?trace=gen";
    for (int i = 0; i < 60; i++)
        snprintf(q + strlen(q), sizeof q - strlen(q), "&x%d=1", i);
    json_decref(get_json(f, q, 400));
}

static void test_path_traversal(void **state)
{
    fx *f = *state;
    const char *paths[] = {
        "/../etc/passwd", "/%2e%2e/etc/passwd", "/%2E%2E/%2E%2E/etc/passwd", "/assets/../../etc/passwd",
        "/assets/..%2f..%2fetc%2fpasswd", "/assets/%2e%2e%2f%2e%2e%2fetc%2fpasswd", "//etc/passwd", "/./index.html",
        "/%00", "/index.html%00.js", "/assets/%5c..%5cetc", "/..", "/.", "/%", "/%zz", "/etc/passwd",
        "/assets/..%252f..%252fetc%252fpasswd", "/api/../api/traces",
    };
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        int st;
        char *a = get(f, paths[i], &st);
        if (st < 400 || st >= 500)
            fprintf(stderr, "%s -> %d\n%.400s\n", paths[i], st, a);
        assert_true(st >= 400 && st < 500);
        assert_null(strstr(a, "root:"));
        free(a);
    }
    /* "/" is served (the UI, or a note when built without it) */
    int st;
    char *a = get(f, "/", &st);
    assert_int_equal(st, 200);
    assert_non_null(strstr(a, "text/html"));
    free(a);
}

static void test_malformed_and_oversized(void **state)
{
    fx *f = *state;
    int st;
    const char *reqs[] = {
        "GARBAGE\r\n\r\n",
        "GET\r\n\r\n",
        "GET /api/traces HTTP/9.9\r\n\r\n",
        "GET /api/traces HTTP/1.1\r\nHost: x\r\nBad header line\r\n\r\n",
        "\r\n\r\n\r\n",
        "GET /api/traces HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof reqs / sizeof reqs[0]; i++) {
        char *a = raw(f, reqs[i], strlen(reqs[i]), &st);
        /* a 4xx (505 for an unknown HTTP version), or the connection closed without
         * an answer; never a 2xx or another 5xx */
        if (st != 0 && (st < 400 || st >= 500) && !(i == 2 && st == 505))
            fprintf(stderr, "request %zu -> %d\n%.300s\n", i, st, a);
        assert_true(st == 0 || (st >= 400 && st < 500) || (i == 2 && st == 505));
        free(a);
    }
    /* other methods */
    const char *post = "POST /api/traces HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello";
    char *a = raw(f, post, strlen(post), &st);
    assert_true(st == 405 || st == 413);
    free(a);
    const char *del = "DELETE /api/traces HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    a = raw(f, del, strlen(del), &st);
    assert_int_equal(st, 405);
    free(a);
    /* an oversized request line and oversized headers */
    size_t big = 200000;
    char *req = malloc(big + 100);
    assert_non_null(req);
    strcpy(req, "GET /api/traces?x=");
    size_t n = strlen(req);
    memset(req + n, 'a', big);
    strcpy(req + n + big, " HTTP/1.1\r\nHost: x\r\n\r\n");
    a = raw(f, req, strlen(req), &st);
    assert_true(st == 0 || (st >= 400 && st < 500));
    free(a);
    strcpy(req, "GET /api/traces HTTP/1.1\r\nX-Big: ");
    n = strlen(req);
    memset(req + n, 'b', big);
    strcpy(req + n + big, "\r\n\r\n");
    a = raw(f, req, strlen(req), &st);
    assert_true(st == 0 || (st >= 400 && st < 500));
    free(a);
    free(req);
    /* a too long parameter value */
    char *target = malloc(TZ_API_MAX_VALUE + 100);
    assert_non_null(target);
    strcpy(target, "/api/events?trace=");
    n = strlen(target);
    memset(target + n, 'g', TZ_API_MAX_VALUE + 10);
    target[n + TZ_API_MAX_VALUE + 10] = 0;
    a = get(f, target, &st);
    assert_int_equal(st, 400);
    free(a);
    free(target);
    /* the server still answers */
    json_decref(get_json(f, "/api/traces", 200));
}

/* HEAD answers carry the Content-Length of the GET answer, and no body. */
static void test_head_content_length(void **state)
{
    fx *f = *state;
    int st;
    char *g = get(f, "/api/traces", &st);
    assert_int_equal(st, 200);
    size_t glen = strlen(body_of(g));
    const char *req = "HEAD /api/traces HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    char *h = raw(f, req, strlen(req), &st);
    assert_int_equal(st, 200);
    const char *cl = strcasestr(h, "Content-Length:");
    assert_non_null(cl);
    assert_int_equal((size_t)strtoul(cl + 15, NULL, 10), glen);
    assert_true(glen > 0);
    assert_string_equal(body_of(h), "");
    free(g);
    free(h);
}

/* Regex counts and statistics are bounded by the request's budget: with the least
 * budget, the answer comes back flagged (or exact when the scan was fast enough);
 * with the default budget, exact. */
static void test_budget(void **state)
{
    fx *f = *state;
    json_t *j = get_json(f, "/api/events?trace=gen&limit=5&re.type=.", 200);
    assert_true(json_is_true(json_object_get(j, "total_exact")));
    assert_int_equal(jint(j, "total"), 5000);
    json_decref(j);
    j = get_json(f, "/api/events?trace=gen&limit=5&re.type=.&budget=10", 200); /* the least budget */
    json_t *ex = json_object_get(j, "total_exact");
    assert_non_null(ex);
    if (json_is_false(ex)) {
        assert_true(json_is_true(json_object_get(j, "partial")));
        assert_true(jint(j, "scanned") > 0 && jint(j, "scanned") <= 5000);
    } else {
        assert_int_equal(jint(j, "total"), 5000);
    }
    json_decref(j);
    j = get_json(f, "/api/stats?trace=gen&re.type=.", 200);
    assert_true(json_is_false(json_object_get(j, "partial")));
    assert_int_equal(jint(j, "total"), 5000);
    json_decref(j);
    j = get_json(f, "/api/stats?trace=gen&re.type=.&budget=10", 200);
    assert_non_null(json_object_get(j, "partial"));
    json_decref(j);
    json_decref(get_json(f, "/api/stats?trace=gen&budget=x", 400));
    json_decref(get_json(f, "/api/stats?trace=gen&budget=5", 400));
    json_decref(get_json(f, "/api/stats?trace=gen&budget=99999", 200)); /* clamped */
}

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A regex that cannot be decided within the match limit is a 422 naming it, never a
 * count; regexes that cost milliseconds per event stop at the budget inside a batch:
 * 10 000 events of ~1-3 ms each (10-30 s to match them all) answer within a few
 * seconds (a partial count at the budget, then the page gives up a second later). */
/* The ids of a page of /api/events, in order, as a string "2,3,4". */
static void event_ids(fx *f, const char *target, char *out, size_t cap)
{
    json_t *j = get_json(f, target, 200);
    json_t *evs = json_object_get(j, "events");
    size_t n = 0;
    out[0] = 0;
    for (size_t i = 0; i < json_array_size(evs); i++)
        n += (size_t)snprintf(out + n, cap - n, "%s%lld", i ? "," : "", (long long)jint(json_array_get(evs, i), "id"));
    assert_int_equal(jint(j, "total"), (json_int_t)json_array_size(evs));
    json_decref(j);
}

/* overlap=1 adds the intervals that start before the window and end in it (or at its
 * start, or after it). States of trace "ov", window [20, 50]:
 *   1 [0, 10]  2 [5, 20]  3 [10, 30]  4 [15, 100]  5 [25, 26]  6 [50, 60]  7 [60, 70] */
static void test_events_overlap(void **state)
{
    fx *f = *state;
    traza_err err;
    traza_writer *wr = traza_writer_begin(f->w.ws, "ov", "test", &err);
    assert_non_null(wr);
    int32_t p = traza_writer_producer(wr, -1, "core", "Core", &err);
    int32_t ty = traza_writer_event_type(wr, "run", TRAZA_STATE, &err);
    assert_true(p >= 0 && ty >= 0);
    static const int64_t iv[7][2] = {{0, 10}, {5, 20}, {10, 30}, {15, 100}, {25, 26}, {50, 60}, {60, 70}};
    for (size_t i = 0; i < 7; i++) {
        traza_event e = {0};
        e.ts = iv[i][0];
        e.end_ts = iv[i][1];
        e.has = TRAZA_HAS_END;
        e.type = ty;
        e.producer = p;
        assert_int_equal(traza_writer_event(wr, &e, &err), 0);
    }
    assert_int_equal(traza_writer_commit(wr, NULL, &err), 0);
    char ids[256];
    event_ids(f, "/api/events?trace=ov&from=20&to=50", ids, sizeof ids);
    assert_string_equal(ids, "5,6");
    event_ids(f, "/api/events?trace=ov&from=20&to=50&overlap=1", ids, sizeof ids);
    assert_string_equal(ids, "2,3,4,5,6");
    event_ids(f, "/api/events?trace=ov&from=21&to=50&overlap=1", ids, sizeof ids);
    assert_string_equal(ids, "3,4,5,6");
    event_ids(f, "/api/events?trace=ov&from=20&to=50&overlap=0", ids, sizeof ids);
    assert_string_equal(ids, "5,6");
}

static void test_regex_limits(void **state)
{
    fx *f = *state;
    char along[202];
    memset(along, 'a', 200);
    strcpy(along + 200, "!");
    tu_string_trace(f->w.ws, "bt", along, 10, 5);
    json_t *j = get_json(f, "/api/events?trace=bt&re.s=!%7C%5E(a%2B)%2B%24", 422);
    assert_string_equal(json_string_value(json_object_get(j, "error")),
                        "regular expression '!|^(a+)+$' on s could not be evaluated on event 1: match limit exceeded (the limit "
                        "of 200000 backtracking steps was hit: make the expression simpler or more specific)");
    json_decref(j);
    json_decref(get_json(f, "/api/stats?trace=bt&re.s=!%7C%5E(a%2B)%2B%24", 422));
    /* 16 'a' then '!': ^(a+)+$ takes 2^16 steps, within the limit */
    tu_string_trace(f->w.ws, "slow", "aaaaaaaaaaaaaaaa!", 10000, 0);
    double t0 = mono_s();
    j = get_json(f, "/api/events?trace=slow&re.s=%5E(a%2B)%2B%24&budget=10", 200);
    double dt = mono_s() - t0;
    if (dt >= 5.0)
        fail_msg("the request took %.2f s for a budget of 10 ms", dt);
    /* a page cut by the budget says so, with the rows it found (none match here) */
    assert_true(json_is_true(json_object_get(j, "partial")));
    assert_true(json_is_true(json_object_get(j, "page_partial")));
    assert_true(json_is_true(json_object_get(j, "more")));
    assert_int_equal(json_array_size(json_object_get(j, "events")), 0);
    json_decref(j);
    /* a download is the whole selection or an error that gives the budget */
    int st;
    char *a = get(f, "/api/events.csv?trace=slow&re.s=%5E(a%2B)%2B%24&budget=10", &st);
    assert_int_equal(st, 503);
    assert_non_null(strstr(body_of(a), "time budget (budget=10 ms)"));
    free(a);
    t0 = mono_s();
    j = get_json(f, "/api/stats?trace=slow&re.s=%5E(a%2B)%2B%24&budget=10", 200);
    dt = mono_s() - t0;
    if (dt >= 5.0)
        fail_msg("the stats request took %.2f s for a budget of 10 ms", dt);
    json_decref(j);
}

/* The aggregation micro model beyond the exact limit (forced low with exact=1):
 * occurrences come exactly from the time index, the other models from a per-slice
 * sample which, on this small trace, holds every event: the same values as the
 * library's exact model either way. */
static void agg_same(json_t *a, json_t *b)
{
    json_t *ta = json_object_get(a, "types"), *tb = json_object_get(b, "types");
    assert_int_equal(json_array_size(ta), json_array_size(tb));
    assert_true(json_array_size(ta) > 0);
    for (size_t i = 0; i < json_array_size(ta); i++) {
        json_t *va = json_object_get(json_array_get(ta, i), "values"), *vb = json_object_get(json_array_get(tb, i), "values");
        assert_int_equal(json_array_size(va), json_array_size(vb));
        for (size_t k = 0; k < json_array_size(va); k++) {
            double x = json_number_value(json_array_get(va, k)), y = json_number_value(json_array_get(vb, k));
            assert_true(x - y < 1e-6 * (1 + y) && y - x < 1e-6 * (1 + y));
        }
    }
    assert_int_equal(jint(a, "series"), jint(b, "series"));
}

static void test_aggregate_bounded(void **state)
{
    fx *f = *state;
    json_t *e = get_json(f, "/api/aggregate?trace=gen&slices=20", 200);
    assert_true(json_is_false(json_object_get(e, "sampled")));
    json_t *ix = get_json(f, "/api/aggregate?trace=gen&slices=20&exact=1", 200);
    assert_true(json_is_false(json_object_get(ix, "sampled")));
    assert_true(json_is_false(json_object_get(ix, "partial")));
    agg_same(ix, e);
    json_decref(ix);
    json_decref(e);
    static const char *const models[] = {"duration", "avg-duration", "avg-value"};
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        char a[128], b[128];
        snprintf(a, sizeof a, "/api/aggregate?trace=gen&slices=20&model=%s", models[i]);
        snprintf(b, sizeof b, "/api/aggregate?trace=gen&slices=20&model=%s&exact=1", models[i]);
        e = get_json(f, a, 200);
        json_t *sm = get_json(f, b, 200);
        assert_true(json_is_true(json_object_get(sm, "sampled")));
        agg_same(sm, e);
        json_decref(sm);
        json_decref(e);
    }
    json_decref(get_json(f, "/api/aggregate?trace=gen&exact=0", 400));
}

/* The UI's numbers are the CLI's: the same proposed p, gain and loss as the library
 * run as `traza aggregate paper --slices 5` (no normalisation unless asked). */
static void test_aggregate_as_cli(void **state)
{
    fx *f = *state;
    traza_err err = {0};
    /* the paper's example (5 slices x 3 series of counts), where normalising changes
     * the p list (uniform random counts propose p = 0 either way) */
    static const int cnt[5][3] = {{3, 5, 2}, {6, 6, 7}, {7, 2, 0}, {5, 9, 9}, {3, 1, 3}};
    traza_writer *wr = traza_writer_begin(f->w.ws, "paper", "gen", &err);
    assert_non_null(wr);
    int32_t pr = traza_writer_producer(wr, -1, "P", "Thread", &err), ty[3];
    for (int s = 0; s < 3; s++) {
        char nm[16];
        snprintf(nm, sizeof nm, "s%d", s);
        ty[s] = traza_writer_event_type(wr, nm, TRAZA_PUNCTUAL, &err);
    }
    for (int k = 0; k < 5; k++)
        for (int i = 0; i < 10; i++)
            for (int s = 0; s < 3; s++)
                if (i < cnt[k][s]) {
                    traza_event e;
                    memset(&e, 0, sizeof e);
                    e.ts = 100 * k + 10 * i + s;
                    e.type = ty[s];
                    e.producer = pr;
                    assert_int_equal(traza_writer_event(wr, &e, &err), 0);
                }
    assert_int_equal(traza_writer_commit(wr, NULL, &err), 0);
    traza_trace *t = traza_trace_open(f->w.ws, "paper", TRAZA_OPEN_READ, &err);
    assert_non_null(t);
    for (int norm = 0; norm < 2; norm++) {
        traza_agg_micro m;
        traza_agg_quality q;
        traza_agg_pentry *l;
        size_t nl, prop;
        assert_int_equal(traza_agg_micro_build(t, NULL, 5, TRAZA_AGG_OCCURRENCES, &m, &err), 0);
        if (norm)
            traza_agg_micro_normalize(&m);
        assert_int_equal(traza_agg_qualities(&m, &q, &err), 0);
        assert_int_equal(traza_agg_plist(&q, 0.001, &l, &nl, &prop, &err), 0);
        json_t *j = get_json(f, norm ? "/api/aggregate?trace=paper&slices=5&normalize=1" : "/api/aggregate?trace=paper&slices=5", 200);
        json_t *pl = json_object_get(j, "p_list");
        json_t *e = json_array_get(pl, (size_t)jint(j, "proposed"));
        assert_non_null(e);
        double p = json_real_value(json_object_get(e, "p")), g = json_number_value(json_object_get(e, "gain"));
        if (fabs(p - l[prop].p) > 1e-12 || fabs(g - l[prop].gain) > 1e-9 * (fabs(g) + 1))
            fail_msg("normalize=%d: the API proposes p = %.9g (gain %.9g), the CLI p = %.9g (gain %.9g)", norm, p, g, l[prop].p,
                     l[prop].gain);
        json_decref(j);
        traza_agg_plist_free(l, nl);
        traza_agg_quality_free(&q);
        traza_agg_micro_free(&m);
    }
    traza_trace_close(t);
}

static void test_router_direct(void **state)
{
    fx *f = *state;
    tz_params ps;
    tz_params_init(&ps);
    assert_int_equal(tz_params_parse(&ps, "trace=gen&limit=2&re.type=a%2Bb+c"), 0);
    assert_string_equal(tz_params_get(&ps, "re.type"), "a+b c");
    tz_resp r;
    tz_api_handle(f->api, "GET", "/api/events", &ps, &r);
    assert_int_equal(r.status, 200);
    tz_resp_free(&r);
    tz_api_handle(f->api, "PUT", "/api/events", &ps, &r);
    assert_int_equal(r.status, 405);
    tz_resp_free(&r);
    tz_api_handle(f->api, "GET", "relative", &ps, &r);
    assert_int_equal(r.status, 400);
    tz_resp_free(&r);
    tz_params_free(&ps);
    tz_params_init(&ps);
    assert_int_equal(tz_params_parse(&ps, "a=%zz"), -1);
    tz_params_free(&ps);
    tz_params_init(&ps);
    assert_int_equal(tz_params_parse(&ps, "a=%00"), -1);
    tz_params_free(&ps);
    /* a second server on the same port fails with a message */
    traza_err err;
    traza_err_clear(&err);
    assert_null(tz_server_start(f->api, "127.0.0.1", f->port, NULL, &err));
    assert_non_null(strstr(err.msg, "cannot listen"));
    assert_null(tz_server_start(f->api, "not-an-ip", 0, NULL, &err));
}

/* The analysis endpoints honour the budget: on a trace large enough that ranking
 * its causes takes far longer than 10 ms, budget=10 answers a well-formed ranking
 * flagged partial (or a 503 with a JSON error when nothing could be ranked); the
 * default budget gives the complete ranking, the same as the library's. */
static void check_causes(json_t *j)
{
    json_t *cs = json_object_get(j, "causes");
    assert_true(json_is_array(cs));
    assert_int_equal(json_array_size(cs), (size_t)jint(j, "total") < 500 ? (size_t)jint(j, "total") : 500);
    for (size_t i = 0; i < json_array_size(cs); i++) {
        json_t *c = json_array_get(cs, i);
        double r = json_number_value(json_object_get(c, "r"));
        assert_true(r >= -1 && r <= 1);
        assert_true(jint(c, "n") > 0);
        assert_true(json_is_string(json_object_get(c, "type_name")));
        if (i)
            assert_true(json_number_value(json_object_get(json_array_get(cs, i - 1), "r")) >= r);
    }
}

static void test_budget_analyses(void **state)
{
    fx *f = *state;
    traza_err err;
    traza_gen_opts o;
    traza_gen_opts_init(&o);
    o.events = 300000;
    traza_trace_info info;
    memset(&info, 0, sizeof info);
    assert_int_equal(traza_gen_store(f->w.ws, "big", &o, &info, &err), 0);
    int64_t max_ts = info.max_ts;
    traza_trace_info_clear(&info);
    for (int m = 0; m < 2; m++) {
        const char *method = m ? "irregular" : "regular";
        char url[256];
        snprintf(url, sizeof url, "/api/correlate?trace=big&series=state0&method=%s&top=500&budget=10", method);
        int st;
        char *a = get(f, url, &st);
        json_error_t je;
        json_t *j = json_loads(body_of(a), 0, &je);
        assert_non_null(j);
        if (st == 503) {
            assert_non_null(strstr(json_string_value(json_object_get(j, "error")), "time budget"));
        } else {
            assert_int_equal(st, 200);
            check_causes(j);
            if (json_is_true(json_object_get(j, "partial"))) {
                assert_true(jint(j, "ranked") >= 1 && jint(j, "ranked") <= jint(j, "candidates"));
                assert_int_equal(jint(j, "ranked"), jint(j, "total"));
                assert_true(jint(j, "covered_to") <= max_ts);
            } else {
                assert_true(json_is_false(json_object_get(j, "partial")));
            }
        }
        json_decref(j);
        free(a);
        /* a budget that suffices (the default one may not under ASan on a loaded
         * machine): complete, and exactly the library's ranking */
        snprintf(url, sizeof url, "/api/correlate?trace=big&series=state0&method=%s&top=500&budget=60000", method);
        j = get_json(f, url, 200);
        assert_true(json_is_false(json_object_get(j, "partial")));
        assert_null(json_object_get(j, "covered_to"));
        check_causes(j);
        traza_trace *t = traza_trace_open(f->w.ws, "big", 0, &err);
        assert_non_null(t);
        traza_series s;
        assert_int_equal(traza_series_load(t, "state0", 1, 0, NULL, NULL, &s, &err), 0);
        traza_rank_entry *rk;
        size_t n;
        assert_int_equal(traza_correlate_rank(t, &s, &(traza_corr_opts){.method = (traza_corr_method)m, .delta = 0}, NULL, NULL, &rk, &n, NULL, &err), 0);
        assert_int_equal(jint(j, "total"), (json_int_t)n);
        json_t *cs = json_object_get(j, "causes");
        for (size_t i = 0; i < json_array_size(cs) && i < n; i++) {
            json_t *c = json_array_get(cs, i);
            assert_int_equal(jint(c, "type"), rk[i].type);
            assert_int_equal(jint(c, "producer"), rk[i].producer);
            assert_true(json_number_value(json_object_get(c, "r")) == rk[i].r);
        }
        free(rk);
        traza_series_free(&s);
        traza_trace_close(t);
        json_decref(j);
    }
    /* anomalies and the call profile: flagged when cut, complete otherwise */
    json_t *full = get_json(f, "/api/anomaly?trace=big&series=state0", 200);
    assert_true(json_is_false(json_object_get(full, "partial")));
    json_t *j = get_json(f, "/api/anomaly?trace=big&series=state0&budget=10", 200);
    if (json_is_true(json_object_get(j, "partial"))) {
        assert_true(jint(j, "n") > 0 && jint(j, "n") < jint(full, "n"));
        assert_non_null(json_object_get(j, "covered_to"));
    } else {
        assert_int_equal(jint(j, "n"), jint(full, "n"));
    }
    json_decref(j);
    json_decref(full);
    j = get_json(f, "/api/callstack?trace=big&max=5&budget=10", 200);
    assert_non_null(json_object_get(j, "partial"));
    assert_true(json_array_size(json_object_get(j, "calls")) <= 5);
    json_decref(j);
    j = get_json(f, "/api/callstack?trace=big&max=5", 200);
    assert_true(json_is_false(json_object_get(j, "partial")));
    json_decref(j);
    /* aggregation beyond `exact` events: the time index is filled a part per request
     * (resuming where the last stopped); each answer meanwhile is sampled (or a 503
     * when the budget ran out before any event was read). Once the index is complete
     * the occurrence counts are exact, equal to the library's exact model over the
     * same window. */
    int tries = 0;
    for (;;) {
        int st;
        char *a = get(f, "/api/aggregate?trace=big&slices=20&exact=1000&budget=10", &st);
        json_error_t je;
        j = json_loads(body_of(a), 0, &je);
        free(a);
        assert_non_null(j);
        if (st == 503) {
            assert_non_null(strstr(json_string_value(json_object_get(j, "error")), "time budget"));
        } else {
            assert_int_equal(st, 200);
            assert_non_null(json_object_get(j, "types"));
            if (json_is_false(json_object_get(j, "sampled"))) {
                json_decref(j);
                break;
            }
        }
        json_decref(j);
        assert_true(++tries < 10000); /* each request fills at least one batch of 4096 */
    }
    j = get_json(f, "/api/aggregate?trace=big&slices=20&exact=1000", 200);
    assert_true(json_is_false(json_object_get(j, "sampled")));
    assert_true(json_is_false(json_object_get(j, "partial")));
    json_t *ref = get_json(f, "/api/aggregate?trace=big&slices=20", 200); /* 300 k <= exact: the library */
    assert_true(json_is_false(json_object_get(ref, "sampled")));
    json_t *ta = json_object_get(j, "types"), *tb = json_object_get(ref, "types");
    assert_int_equal(json_array_size(ta), json_array_size(tb));
    for (size_t i = 0; i < json_array_size(ta); i++) {
        json_t *va = json_object_get(json_array_get(ta, i), "values"), *vb = json_object_get(json_array_get(tb, i), "values");
        assert_int_equal(jint(json_array_get(ta, i), "id"), jint(json_array_get(tb, i), "id"));
        for (size_t k = 0; k < json_array_size(vb); k++)
            assert_true(fabs(json_number_value(json_array_get(va, k)) - json_number_value(json_array_get(vb, k))) < 1e-9);
    }
    json_decref(j);
    json_decref(ref);
}

/* The grammar view of a 10^10-symbol grammar: bounded, read from the grammar alone.
 * The cycle strip is sampled (4000 evenly spaced cycles) and still shows the one
 * odd cycle in the middle at its exact position; a small grammar gets exact runs. */
static void test_grammar_view_huge(void **state)
{
    fx *f = *state;
    traza_err err;
    char *dir = tu_tmpdir(), path[4200], small[4200];
    snprintf(path, sizeof path, "%s/huge.tzg", dir);
    snprintf(small, sizeof small, "%s/small.tzg", dir);
    traza_grammar *g = huge_grammar(&err);
    assert_non_null(g);
    assert_int_equal(traza_tzg_write(g, path, TRAZA_TZG_ZSTD, &err), 0);
    traza_grammar_free(g);
    /* a small Cyclitur grammar: (A B A C)^3 A D with loop header A */
    uint64_t seq[] = {1, 2, 1, 3, 1, 2, 1, 3, 1, 2, 1, 3, 1, 4};
    uint64_t loop_header = 1;
    g = traza_grammar_build(seq, sizeof seq / sizeof *seq, TRAZA_G_CYCLITUR, &loop_header, &err);
    assert_non_null(g);
    assert_int_equal(traza_tzg_write(g, small, TRAZA_TZG_ZSTD, &err), 0);
    traza_gcycle *tab;
    size_t nt, nr;
    traza_gcrun *runs;
    assert_int_equal(traza_grammar_cycles(g, loop_header, &tab, &nt, &err), 0);
    assert_int_equal(traza_grammar_cycle_runs(g, loop_header, tab, nt, &runs, &nr, &err), 0);
    traza_grammar_free(g);
    const char *files[] = {path, small};
    tz_api *api = tz_api_new(f->w.ws, files, 2, &err);
    assert_non_null(api);
    tz_params ps;
    tz_params_init(&ps);
    assert_int_equal(tz_params_parse(&ps, "id=0"), 0);
    tz_resp r;
    tz_api_handle(api, "GET", "/api/grammar", &ps, &r);
    assert_int_equal(r.status, 200);
    json_error_t je;
    json_t *j = json_loadb(r.body, r.len, 0, &je);
    assert_non_null(j);
    assert_true(json_is_true(json_object_get(j, "runs_sampled")));
    assert_int_equal(jint(j, "cycles_total"), 2000000001);
    assert_int_equal(jint(j, "distinct_cycles"), 2);
    json_t *jr = json_object_get(j, "runs");
    assert_true(json_array_size(jr) >= 3 && json_array_size(jr) <= 4000);
    json_int_t odd = -1, last = -1;
    for (size_t i = 0; i < json_array_size(jr); i++) {
        json_t *run = json_array_get(jr, i);
        json_int_t cyc = json_integer_value(json_array_get(run, 0)), pos = json_integer_value(json_array_get(run, 2));
        assert_true(pos > last);
        last = pos;
        json_t *c = json_array_get(json_object_get(j, "cycles"), (size_t)cyc);
        if (jint(c, "length") == 2) {
            assert_int_equal(pos, 5000000000LL); /* the odd cycle, after 10^9 of 5 symbols */
            odd = pos;
        }
    }
    assert_int_equal(odd, 5000000000LL);
    json_decref(j);
    tz_resp_free(&r);
    tz_params_free(&ps);
    /* the small grammar: the exact runs */
    tz_params_init(&ps);
    assert_int_equal(tz_params_parse(&ps, "id=1"), 0);
    tz_api_handle(api, "GET", "/api/grammar", &ps, &r);
    assert_int_equal(r.status, 200);
    j = json_loadb(r.body, r.len, 0, &je);
    assert_non_null(j);
    assert_true(json_is_false(json_object_get(j, "runs_sampled")));
    jr = json_object_get(j, "runs");
    assert_int_equal(json_array_size(jr), nr);
    for (size_t i = 0; i < nr; i++) {
        json_t *run = json_array_get(jr, i);
        assert_int_equal(json_integer_value(json_array_get(run, 0)), runs[i].cycle);
        assert_int_equal(json_integer_value(json_array_get(run, 1)), (json_int_t)runs[i].rep);
        assert_int_equal(json_integer_value(json_array_get(run, 2)), (json_int_t)runs[i].pos);
    }
    json_decref(j);
    tz_resp_free(&r);
    tz_params_free(&ps);
    free(runs);
    free(tab);
    tz_api_free(api);
    tu_rmdir(dir);
}

/* ticks=string: every time of the answers the UI reads is a string of the exact
 * integer; ticks=number (the default) keeps numbers; anything else is a 400. */
static void test_ticks_string(void **state)
{
    fx *f = *state;
    traza_err err;
    traza_trace *t = traza_trace_open(f->w.ws, "gen", TRAZA_OPEN_READ, &err);
    assert_non_null(t);
    const traza_trace_info *info = traza_trace_info_of(t);
    char want_min[32], want_max[32];
    snprintf(want_min, sizeof want_min, "%lld", (long long)info->min_ts);
    snprintf(want_max, sizeof want_max, "%lld", (long long)info->max_ts);
    json_t *j = get_json(f, "/api/trace?trace=gen&ticks=string", 200);
    json_t *in = json_object_get(j, "info");
    assert_string_equal(json_string_value(json_object_get(in, "min_ts")), want_min);
    assert_string_equal(json_string_value(json_object_get(in, "max_ts")), want_max);
    assert_int_equal(jint(in, "events"), info->events); /* counts stay numbers */
    json_decref(j);
    j = get_json(f, "/api/trace?trace=gen&ticks=number", 200);
    assert_int_equal(jint(json_object_get(j, "info"), "min_ts"), info->min_ts);
    json_decref(j);
    j = get_json(f, "/api/events?trace=gen&limit=3&ticks=string", 200);
    json_t *e0 = json_array_get(json_object_get(j, "events"), 0);
    traza_filter fl;
    traza_filter_init(&fl);
    fl.limit = 1;
    traza_cursor *c = traza_query(t, &fl, &err);
    assert_non_null(c);
    const traza_event *ev;
    assert_int_equal(traza_cursor_next(c, &ev, &err), 1);
    char want[32];
    snprintf(want, sizeof want, "%lld", (long long)ev->ts);
    assert_string_equal(json_string_value(json_object_get(e0, "ts")), want);
    assert_int_equal(jint(e0, "id"), ev->id);
    traza_cursor_free(c);
    json_decref(j);
    j = get_json(f, "/api/density?trace=gen&slices=4&ticks=string", 200);
    assert_string_equal(json_string_value(json_object_get(j, "from")), want_min);
    json_decref(j);
    j = get_json(f, "/api/timeline?trace=gen&width=100&max=20000", 200);
    snprintf(want, sizeof want, "%lld", (long long)jint(j, "to"));
    json_decref(j);
    j = get_json(f, "/api/timeline?trace=gen&width=100&max=20000&ticks=string", 200);
    assert_string_equal(json_string_value(json_object_get(j, "to")), want);
    assert_string_equal(json_string_value(json_object_get(j, "mode")), "detail");
    json_t *row = json_array_get(json_object_get(j, "events"), 0);
    assert_true(json_is_string(json_array_get(row, 0)) && json_is_string(json_array_get(row, 1)));
    assert_true(json_is_integer(json_array_get(row, 2)));
    json_decref(j);
    j = get_json(f, "/api/anomaly?trace=gen&series=state0&ticks=string", 200);
    assert_true(json_is_string(json_array_get(json_array_get(json_object_get(j, "points"), 0), 0)));
    json_decref(j);
    j = get_json(f, "/api/callstack?trace=gen&max=3", 200);
    snprintf(want, sizeof want, "%lld", (long long)jint(j, "min_ts"));
    json_decref(j);
    j = get_json(f, "/api/callstack?trace=gen&max=3&ticks=string", 200);
    assert_string_equal(json_string_value(json_object_get(j, "min_ts")), want);
    assert_true(json_is_string(json_array_get(json_array_get(json_object_get(j, "calls"), 0), 1)));
    json_decref(j);
    j = get_json(f, "/api/aggregate?trace=gen&slices=5&ticks=string", 200);
    assert_string_equal(json_string_value(json_object_get(j, "t0")), want_min);
    json_decref(j);
    j = get_json(f, "/api/trace?trace=gen&ticks=bogus", 400);
    assert_non_null(strstr(json_string_value(json_object_get(j, "error")), "'ticks'"));
    json_decref(j);
    traza_trace_close(t);
}

/* anomalies_of=: the ranking of the anomalies' probable causes is the library's on
 * the anomalous events (what `traza correlate --anomalies-of --rank` computes). */
static void test_correlate_anomalies(void **state)
{
    fx *f = *state;
    traza_err err;
    traza_trace *t = traza_trace_open(f->w.ws, "gen", TRAZA_OPEN_READ, &err);
    assert_non_null(t);
    traza_series s, an;
    assert_int_equal(traza_series_load(t, "state0", 0, 0, NULL, NULL, &s, &err), 0);
    traza_anomalies a;
    assert_int_equal(traza_anomaly_detect(&s, TRAZA_METRIC_DURATION, TRAZA_RULE_CI99, 3, &a, &err), 0);
    assert_true(a.n > 1);
    int64_t *ts = malloc(a.n * sizeof *ts);
    assert_non_null(ts);
    for (size_t i = 0; i < a.n; i++)
        ts[i] = s.ts[a.index[i]];
    assert_int_equal(traza_series_from(&an, "x", ts, NULL, a.n, &err), 0);
    for (size_t i = 0; i < a.n; i++)
        an.id[i] = s.id[a.index[i]];
    traza_rank_entry *rk;
    size_t n;
    assert_int_equal(traza_correlate_rank(t, &an, &(traza_corr_opts){.method = TRAZA_CORR_REGULAR, .delta = 0}, NULL, NULL, &rk, &n, NULL, &err), 0);
    json_t *j = get_json(f, "/api/correlate?trace=gen&anomalies_of=state0&rule=ci99&top=500&budget=10000", 200);
    assert_string_equal(json_string_value(json_object_get(j, "series")), "anomalies:state0:duration");
    assert_int_equal(jint(j, "events"), (json_int_t)a.n);
    assert_int_equal(jint(j, "total"), (json_int_t)n);
    json_t *cs = json_object_get(j, "causes");
    assert_int_equal(json_array_size(cs), n);
    for (size_t i = 0; i < n; i++) {
        json_t *c = json_array_get(cs, i);
        assert_int_equal(jint(c, "type"), rk[i].type);
        assert_int_equal(jint(c, "producer"), rk[i].producer);
        assert_true(json_number_value(json_object_get(c, "r")) == rk[i].r);
    }
    json_decref(j);
    json_decref(get_json(f, "/api/correlate?trace=gen&anomalies_of=state0&rule=bogus", 400));
    json_decref(get_json(f, "/api/correlate?trace=gen&anomalies_of=nosuchtype", 404));
    free(rk);
    free(ts);
    traza_series_free(&an);
    traza_anomalies_free(&a);
    traza_series_free(&s);
    traza_trace_close(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_traces_and_trace),
        cmocka_unit_test(test_ticks_string),
        cmocka_unit_test(test_events_paged_and_bounded),
        cmocka_unit_test(test_density_timeline_stats),
        cmocka_unit_test(test_time_index_exact),
        cmocka_unit_test(test_analyses),
        cmocka_unit_test(test_correlate_anomalies),
        cmocka_unit_test(test_bad_parameters),
        cmocka_unit_test(test_path_traversal),
        cmocka_unit_test(test_malformed_and_oversized),
        cmocka_unit_test(test_router_direct),
        cmocka_unit_test(test_head_content_length),
        cmocka_unit_test(test_budget),
        cmocka_unit_test(test_regex_limits),
        cmocka_unit_test(test_aggregate_bounded),
        cmocka_unit_test(test_aggregate_as_cli),
        cmocka_unit_test(test_events_overlap),
        cmocka_unit_test(test_budget_analyses),
        cmocka_unit_test(test_grammar_view_huge),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
