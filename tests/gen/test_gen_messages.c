/* The generator's option parsers speak in the library's terms (what is wrong with the
 * producer tree, the event types, the producer count), never in the CLI's option
 * names: the CLI adds those. Exact texts, and the error code a caller branches on. */
#include "testutil.h"

#include "traza/gen.h"

static void expect(int rc, const traza_err *err, const char *msg)
{
    assert_int_equal(rc, -1);
    assert_int_equal(err->code, TRAZA_E_USAGE);
    assert_string_equal(err->msg, msg);
}

static void test_messages(void **state)
{
    (void)state;
    traza_gen_opts o;
    traza_gen_opts_init(&o);
    traza_err err;
    traza_err_clear(&err);
    expect(traza_gen_parse_tree(&o, "4x", &err), &err, "trailing 'x' in the producer tree '4x'");
    expect(traza_gen_parse_tree(&o, "4y8", &err), &err,
           "a producer tree is fan-outs like 4x8x16 (1 to 8 levels, each 1..1000000), not '4y8'");
    expect(traza_gen_set_producers(&o, 0, 2, &err), &err, "the producer count must be 1..10000000 and the depth 1..8");
    expect(traza_gen_parse_types(&o, "state", &err), &err,
           "event types are counted as punctual=N,state=N,link=N,variable=N, not 'state'");
    expect(traza_gen_parse_types(&o, "state=0", &err), &err, "at least one event type is needed");
    assert_int_equal(traza_gen_parse_tree(&o, "2x3", &err), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_messages)};
    return cmocka_run_group_tests_name("gen_messages", tests, NULL, NULL);
}
