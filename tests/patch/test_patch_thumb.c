/* The Thumb-2 rewrites of `traza patch` (src/patch/patch_arm.c), byte for byte: a
 * -fpatchable-function-entry=3 site (three `nop` bf00) enabled as `push {lr}` (b500)
 * and a BL to the Thumb hook, forwards, backwards and at the ends of its +-16 MiB
 * range (expected encodings from GNU as), disabled back to the NOPs; a -pg site
 * switched off as `ldr.w lr, [sp], #4`; on an M-profile core (Cortex-M) an ARM-state
 * hook refused; and the M profile read from the build attributes. */
#include "testutil.h"

#include "patch/patch_elf.h"

static const uint8_t NOPS[6] = {0x00, 0xbf, 0x00, 0xbf, 0x00, 0xbf};

/* a Thumb patchable-entry site at addr written to `want`, the hook at target */
static int put(uint8_t *p, uint64_t addr, int want, uint64_t target, int thumb_only, traza_err *err)
{
    traza_patch_site st = {.name = "f", .addr = addr, .len = 6, .enabled = !want, .want = want,
                  .isa = TRAZA_PATCH_ISA_THUMB, .form = TRAZA_PATCH_FORM_PFE};
    traza_patch_sites s = {.v = &st, .n = 1, .target = target, .thumb_only = thumb_only};
    traza_err_clear(err);
    return tz_arm_site_put(p, &st, &s, "fw.elf", err);
}

static void test_enable(void **state)
{
    (void)state;
    traza_err err;
    uint8_t p[6];
    /* forwards: filter at 0x1cc, tz_pfe_entry at 0x394 (objdump: b500 f000 f8e1) */
    memcpy(p, NOPS, 6);
    assert_int_equal(put(p, 0x1cc, 1, 0x395, 1, &err), 0);
    static const uint8_t fwd[6] = {0x00, 0xb5, 0x00, 0xf0, 0xe1, 0xf8};
    assert_memory_equal(p, fwd, 6);
    /* backwards: the bl at 0x1002 to 0x400 (as: f7ff f9fd) */
    memcpy(p, NOPS, 6);
    assert_int_equal(put(p, 0x1000, 1, 0x401, 1, &err), 0);
    static const uint8_t back[6] = {0x00, 0xb5, 0xff, 0xf7, 0xfd, 0xf9};
    assert_memory_equal(p, back, 6);
    /* the farthest forward BL: 16 MiB - 2 past the bl + 4 (f3ff d7ff) */
    assert_int_equal(put(p, 0, 1, 6 + 0xfffffe + 1, 1, &err), 0);
    static const uint8_t far[6] = {0x00, 0xb5, 0xff, 0xf3, 0xff, 0xd7};
    assert_memory_equal(p, far, 6);
    /* the farthest backward: -16 MiB (f400 d000) */
    assert_int_equal(put(p, 0x1000000, 1, 0x1000006 - 0x1000000 + 1, 1, &err), 0);
    static const uint8_t farb[6] = {0x00, 0xb5, 0x00, 0xf4, 0x00, 0xd0};
    assert_memory_equal(p, farb, 6);
}

static void test_disable(void **state)
{
    (void)state;
    traza_err err;
    uint8_t p[6] = {0x00, 0xb5, 0x00, 0xf0, 0xe1, 0xf8};
    assert_int_equal(put(p, 0x1cc, 0, 0x395, 1, &err), 0);
    assert_memory_equal(p, NOPS, 6);
    /* -pg: push {lr}; bl __gnu_mcount_nc -> push {lr}; ldr.w lr, [sp], #4 */
    uint8_t g[6] = {0x00, 0xb5, 0x00, 0xf0, 0xe1, 0xf8};
    traza_patch_site st = {.name = "g", .addr = 0x1cc, .len = 6, .enabled = 1, .want = 0, .isa = TRAZA_PATCH_ISA_THUMB, .form = TRAZA_PATCH_FORM_PG};
    traza_patch_sites s = {.v = &st, .n = 1, .target = 0x395};
    assert_int_equal(tz_arm_site_put(g, &st, &s, "fw.elf", &err), 0);
    static const uint8_t pop[6] = {0x00, 0xb5, 0x5d, 0xf8, 0x04, 0xeb};
    assert_memory_equal(g, pop, 6);
}

static void test_refused(void **state)
{
    (void)state;
    traza_err err;
    uint8_t p[6];
    /* one halfword beyond the range, each way: the bytes stay NOPs past the push */
    memcpy(p, NOPS, 6);
    assert_int_equal(put(p, 0, 1, 6 + 0x1000000 + 1, 1, &err), -1);
    assert_string_equal(err.msg, "fw.elf: the hook at 0x1000007 is out of branch range of f at 0x2 (Thumb-2 bl: +-16 MiB)");
    assert_memory_equal(p + 2, NOPS + 2, 4);
    memcpy(p, NOPS, 6);
    assert_int_equal(put(p, 0x1000002, 1, 0x1000008 - 0x1000002 + 1, 1, &err), -1);
    assert_non_null(strstr(err.msg, "out of branch range"));
    /* an ARM-state hook (bit 0 clear) from a Cortex-M site: no blx there */
    memcpy(p, NOPS, 6);
    assert_int_equal(put(p, 0x1cc, 1, 0x394, 1, &err), -1);
    assert_string_equal(err.msg, "fw.elf: f: an M-profile core runs Thumb code only, but the hook at 0x394 is ARM code "
                                 "(no blx on Cortex-M): build it with -mthumb");
    assert_memory_equal(p, NOPS, 6);
    /* an A-profile core interworks: blx (f000 e8e2 to 0x394 from 0x1ce) */
    assert_int_equal(put(p, 0x1cc, 1, 0x394, 0, &err), 0);
    static const uint8_t blx[6] = {0x00, 0xb5, 0x00, 0xf0, 0xe2, 0xe8};
    assert_memory_equal(p, blx, 6);
    /* no hook linked in */
    memcpy(p, NOPS, 6);
    assert_int_equal(put(p, 0x1cc, 1, 0, 1, &err), -1);
    assert_non_null(strstr(err.msg, "tz_pfe_entry is not linked in"));
}

/* 'A', a section of `len` bytes for "aeabi", a File sub-section with the tags */
static size_t attrs(uint8_t *b, const uint8_t *tags, size_t n)
{
    size_t sub = 5 + n, sec = 4 + 6 + sub;
    b[0] = 'A';
    b[1] = (uint8_t)sec, b[2] = b[3] = b[4] = 0;
    memcpy(b + 5, "aeabi", 6);
    b[11] = 1;
    b[12] = (uint8_t)sub, b[13] = b[14] = b[15] = 0;
    memcpy(b + 16, tags, n);
    return 16 + n;
}

static void test_mprofile(void **state)
{
    (void)state;
    uint8_t b[64];
    /* Tag_CPU_name "7-M", Tag_CPU_arch 10 (v7), Tag_CPU_arch_profile 'M' (as gcc writes them) */
    static const uint8_t m[] = {5, '7', '-', 'M', 0, 6, 10, 7, 'M', 9, 2};
    assert_int_equal(tz_arm_is_mprofile(b, attrs(b, m, sizeof m)), 1);
    static const uint8_t a[] = {5, '7', '-', 'A', 0, 6, 10, 7, 'A', 8, 1};
    assert_int_equal(tz_arm_is_mprofile(b, attrs(b, a, sizeof a)), 0);
    /* truncated in the string, then a length past the end: nothing assumed */
    size_t n = attrs(b, m, sizeof m);
    assert_int_equal(tz_arm_is_mprofile(b, 18), 0);
    b[1] = 200;
    assert_int_equal(tz_arm_is_mprofile(b, n), 0);
    assert_int_equal(tz_arm_is_mprofile((const uint8_t *)"B", 1), 0);
    assert_int_equal(tz_arm_is_mprofile(b, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_enable),
        cmocka_unit_test(test_disable),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_mprofile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
