/* Runtime dump parser (.tzr): the stack snapshot of a block, counts bounded by the
 * bytes that hold them. */
#include "testutil.h"
#include "import/rtdump.h"
#include "../rt/include/traza_rt_format.h"

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
    assert_int_equal(d.threads[0].ops[0].tsc, 205);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_second_stack_record),
        cmocka_unit_test(test_snapshot_after_lost_block),
        cmocka_unit_test(test_stack_count_past_block),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
