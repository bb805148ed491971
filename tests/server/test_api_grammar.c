/* /api/grammar on a corrupt .tzg of the workspace: 422 with the reader's message,
 * the file named by its base name, never a 500. */
#include "testutil.h"
#include "server/server.h"
#include "traza/grammar.h"

#include <jansson.h>

static void get_grammar(tz_api *api, const char *query, tz_resp *r)
{
    tz_params ps;
    tz_params_init(&ps);
    assert_int_equal(tz_params_parse(&ps, query), 0);
    tz_api_handle(api, "GET", "/api/grammar", &ps, r);
    tz_params_free(&ps);
}

static void assert_error(const tz_resp *r, int status, const char *msg)
{
    assert_int_equal(r->status, status);
    json_error_t je;
    json_t *j = json_loadb(r->body, r->len, 0, &je);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "error")), msg);
    assert_int_equal(json_integer_value(json_object_get(j, "status")), status);
    json_decref(j);
}

static void test_corrupt_grammar(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    /* a.tzg: a valid grammar with one payload byte flipped; b.tzg: cut inside its header */
    uint64_t seq[] = {1, 2, 1, 3, 1, 2, 1, 3};
    traza_grammar *g = traza_grammar_build(seq, sizeof seq / sizeof *seq, TRAZA_G_SEQUITUR, NULL, &w.err);
    assert_non_null(g);
    unsigned char *d;
    size_t n;
    assert_int_equal(traza_tzg_encode(g, TRAZA_TZG_ZSTD, &d, &n, &w.err), 0);
    traza_grammar_free(g);
    d[n - 5] ^= 0x40;
    char path[4200];
    snprintf(path, sizeof path, "%s/a.tzg", w.dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(d, 1, n, f), n);
    fclose(f);
    snprintf(path, sizeof path, "%s/b.tzg", w.dir);
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(d, 1, 10, f), 10);
    fclose(f);
    free(d);

    tz_api *api = tz_api_new(w.ws, NULL, 0, &w.err);
    assert_non_null(api);
    tz_resp r;
    get_grammar(api, "id=0", &r);
    assert_error(&r, 422, "a.tzg: tzg: payload checksum mismatch (corrupted file)");
    tz_resp_free(&r);
    get_grammar(api, "id=1", &r);
    assert_error(&r, 422, "b.tzg: tzg: truncated file: 10 bytes, the header alone is 40");
    tz_resp_free(&r);
    tz_api_free(api);
    tu_ws_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corrupt_grammar),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
