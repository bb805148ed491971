/* RAM images of a bare-metal runtime's ring (src/import/rtram.c, rtring.c): the
 * control block found by its magic and placed by its own address, the block being
 * written read up to the write position, blocks the target overwrote counted (blocks
 * and events), and a control block or write position that does not fit refused with
 * the offset, what was expected and what was found. A reader polling a target
 * (rtring.c, as traza record --target does): dumps taken between polls hold every
 * event once; the RTOS tasks the records name get their names from the runtime's
 * table (rtring_tasks.c), and a name that cannot be read leaves the task unnamed,
 * counted. */
#include "testutil.h"
#include "import/rtdump.h"
#include "import/rtring.h"
#include "util/le.h"

/* Operation i of thread t (decoded from its compact form). */
static tz_rtd_op op_at(const tz_rtd_thread *t, size_t i)
{
    tz_rtd_op o = {0, 0, 0};
    assert_int_equal(tz_rtd_op_at(t, i, &o), 0);
    return o;
}

#define BASE 0x20000000u
#define CTL 16u      /* offset of the control block in the image */
#define RING 0x100u  /* offset of the ring */
#define BS 128u      /* block (slot) size */
#define VARS 0x60u   /* offset of wp, seq, events, overflow */

static uint8_t img[RING + 4 * BS];

/* a control block of two slots; seq blocks started, wp = the write position offset */
static void image(uint32_t nblocks, uint32_t seq, uint32_t wp_off, uint32_t events)
{
    memset(img, 0, sizeof img);
    uint32_t w[TZRC_WORDS] = {TZRC_MAGIC, TZRC_VERSION, BASE + CTL, TZR_ARCH_CORTEX_M, BASE + RING, BS, nblocks, 0,
                              BASE + VARS, BASE + VARS + 4, BASE + VARS + 8, BASE + VARS + 12};
    for (int i = 0; i < TZRC_WORDS; i++)
        tz_put_le32(img + CTL + 4 * i, w[i]);
    tz_put_le32(img + VARS, wp_off ? BASE + wp_off : 0);
    tz_put_le32(img + VARS + 4, seq);
    tz_put_le32(img + VARS + 8, events);
}

/* block seq in slot i: header (used = n), then the events */
static uint32_t put_block(uint32_t slot, uint64_t seq, const uint8_t *ev, uint32_t n)
{
    uint8_t *b = img + RING + slot * BS + TZR_CHUNK_HEADER_SIZE;
    tz_put_le64(b, seq);
    tz_put_le64(b + 8, 1000);
    tz_put_le32(b + 16, 0);
    tz_put_le32(b + 20, n);
    memcpy(b + TZR_BLOCK_HEADER_SIZE, ev, n);
    return (uint32_t)(b + TZR_BLOCK_HEADER_SIZE + n - img);
}

/* the block-start stack record (none open), an entry of 0x100, its exit */
static const uint8_t EV[] = {0x03, 0x01, 0x00, 0x04, 0x80, 0x04, 0x05};

static void to_dump(tz_rtdump *d)
{
    tz_buf out;
    tz_buf_init(&out);
    traza_err err;
    int rc = tz_rtram_to_dump(img, sizeof img, "ram.bin", "fw.elf", &out, &err);
    if (rc < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(tz_rtdump_parse(d, (const uint8_t *)out.s, out.len, "dump", &err), 0);
    tz_buf_free(&out);
}

static void test_current_block_to_write_position(void **state)
{
    (void)state;
    image(2, 1, 0, 2);
    /* the current block's header says 0 bytes used: the write position says 7 */
    uint32_t wp = put_block(0, 0, EV, sizeof EV);
    tz_put_le32(img + RING + TZR_CHUNK_HEADER_SIZE + 20, 0);
    tz_put_le32(img + VARS, BASE + wp);
    tz_rtdump d;
    to_dump(&d);
    assert_int_equal(d.nthreads, 1);
    assert_int_equal(d.threads[0].nops, 2);
    assert_int_equal(op_at(&d.threads[0], 0).a, 0x100);
    assert_int_equal(d.threads[0].events, 2);
    assert_int_equal(d.threads[0].lost, 0);
    assert_int_equal(d.threads[0].overwritten, 0);
    assert_string_equal(d.exe, "fw.elf");
    tz_rtdump_free(&d);
}

static void test_overwritten_blocks_counted(void **state)
{
    (void)state;
    /* 10 blocks started, 2 slots: blocks 8 and 9 are there, 0..7 overwritten */
    image(2, 10, 0, 40);
    put_block(0, 8, EV, sizeof EV);
    uint32_t wp = put_block(1, 9, EV, sizeof EV);
    tz_put_le32(img + VARS, BASE + wp);
    tz_rtdump d;
    to_dump(&d);
    assert_int_equal(d.threads[0].nops, 4);
    assert_int_equal(d.threads[0].overwritten, 8);
    assert_int_equal(d.threads[0].lost, 36); /* 40 written, 4 read */
    tz_rtdump_free(&d);
}

static void expect_error(const char *msg)
{
    tz_buf out;
    tz_buf_init(&out);
    traza_err err;
    assert_int_equal(tz_rtram_to_dump(img, sizeof img, "ram.bin", NULL, &out, &err), -1);
    assert_string_equal(err.msg, msg);
    tz_buf_free(&out);
}

static void test_errors(void **state)
{
    (void)state;
    image(2, 1, 0, 0);
    tz_put_le32(img + CTL + 4 * TZRC_W_ARCH, 1);
    expect_error("ram.bin: offset 28: control block arch: expected 0x4, found 0x1");
    image(2, 1, 0, 0);
    tz_put_le32(img + CTL + 4 * TZRC_W_BLOCK_SIZE, 130);
    expect_error("ram.bin: offset 36: control block block size: expected a multiple of 4 in 104..16777216, found 130");
    image(2, 1, RING + 4, 0); /* inside the room for the chunk header */
    expect_error("write position 0x20000104: expected the events of a block in the ring 0x20000100..0x20000200");
    image(2, 1, 0, 0);
    uint32_t wp = put_block(0, 5, EV, sizeof EV);
    tz_put_le32(img + VARS, BASE + wp);
    expect_error("block at 0x20000110: sequence number expected 0, found 5");
    image(2, 1, 0, 0);
    tz_put_le32(img + CTL + 4 * TZRC_W_RING, BASE + 0x10000);
    tz_put_le32(img + VARS, BASE + 0x10000 + 64);
    expect_error("ram.bin: the image (0x20000000..0x20000300) does not hold the 24 bytes at 0x20010010");
    memset(img, 0, sizeof img);
    expect_error("ram.bin: no control block (expected the magic \"TZRC\" and version 1 at a 4-aligned offset of the "
                 "768 bytes)");
}

/* target memory = the image at BASE; a read outside it fails */
static int img_read(void *user, uint64_t addr, void *buf, size_t n, traza_err *err)
{
    (void)user;
    if (addr < BASE || addr - BASE > sizeof img || n > sizeof img - (addr - BASE))
        return traza_err_set(err, TRAZA_E_IO, "0x%08llx: outside the image", (unsigned long long)addr);
    memcpy(buf, img + (addr - BASE), n);
    return 0;
}

static void start_ring(tz_rtring *r)
{
    traza_err err;
    assert_int_equal(tz_rtring_init(r, img + CTL, TZRC_SIZE, "ctl", CTL, &err), 0);
}

static void dump_of(tz_rtring *r, tz_rtdump *d)
{
    tz_buf out;
    tz_buf_init(&out);
    traza_err err;
    if (tz_rtring_dump(r, "fw.elf", &out, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(tz_rtdump_parse(d, (const uint8_t *)out.s, out.len, "dump", &err), 0);
    tz_buf_free(&out);
}

/* Dumps taken between polls (a trace refreshed while it is recorded): the block being
 * written is in each as far as it was taken, and the polls after a dump take only
 * what is new (no event twice). */
static void test_dumps_between_polls(void **state)
{
    (void)state;
    /* block 0: the stack record, then two calls; the first poll sees one */
    static const uint8_t two[] = {0x03, 0x01, 0x00, 0x04, 0x80, 0x04, 0x05, 0x04, 0x00, 0x05};
    image(2, 1, 0, 2);
    uint32_t wp = put_block(0, 0, two, 7);
    tz_put_le32(img + VARS, BASE + wp);
    tz_rtring r;
    start_ring(&r);
    traza_err err;
    uint64_t got;
    assert_int_equal(tz_rtring_poll(&r, img_read, NULL, &got, &err), 0);
    assert_int_equal(got, 7);
    tz_rtdump d;
    dump_of(&r, &d);
    assert_int_equal(d.threads[0].nops, 2);
    tz_rtdump_free(&d);
    /* the second call in the same block; then block 1 starts with one more */
    wp = put_block(0, 0, two, sizeof two);
    tz_put_le32(img + VARS, BASE + wp);
    tz_put_le32(img + VARS + 8, 4);
    assert_int_equal(tz_rtring_poll(&r, img_read, NULL, &got, &err), 0);
    assert_int_equal(got, 3);
    dump_of(&r, &d);
    assert_int_equal(d.threads[0].nops, 4);
    assert_int_equal(d.threads[0].lost, 0);
    tz_rtdump_free(&d);
    wp = put_block(1, 1, EV, sizeof EV);
    tz_put_le32(img + VARS, BASE + wp);
    tz_put_le32(img + VARS + 4, 2);
    tz_put_le32(img + VARS + 8, 6);
    assert_int_equal(tz_rtring_poll(&r, img_read, NULL, &got, &err), 0);
    assert_int_equal(got, sizeof EV);
    dump_of(&r, &d);
    assert_int_equal(d.threads[0].nops, 6);
    assert_int_equal(d.threads[0].lost, 0);
    assert_int_equal(d.threads[0].events, 6);
    tz_rtdump_free(&d);
    tz_rtring_free(&r);
}

/* RTOS records naming tasks 1 (TASK), 2 (ISR_ENTER), 1 (ISR_EXIT), 3 (STATE) and 4
 * (TASK): the runtime's table of name pointers gives "producer" to 1 and "SysTick"
 * to 2; 3's pointer leads outside the memory, 4 is past the table: those two stay
 * unnamed, counted. The dump carries TASK chunks with the names read. */
static void test_task_names(void **state)
{
    (void)state;
    static const uint8_t ev[] = {
        0x03, 0x02, 0x01, 0x00,       /* block start: task 1 running, nothing open */
        0x04, 0x80, 0x04, 0x05,       /* a call of 0x100 */
        0x07, 0x03, 0x02, 0x00,       /* handler 2 enters */
        0x07, 0x04, 0x01, 0x00,       /* ... returns to task 1 */
        0x07, 0x05, 0x03, 0x00,       /* task 3 becomes Ready */
        0x07, 0x02, 0x04, 0x00,       /* switch to task 4 */
    };
    image(2, 1, 0, 6);
    uint32_t wp = put_block(0, 0, ev, sizeof ev);
    tz_put_le32(img + VARS, BASE + wp);
    /* the table (4 entries, tasks 0..3) at 0x70, the names at 0x80 */
    const uint32_t table = 0x70;
    tz_put_le32(img + table, 0);
    tz_put_le32(img + table + 4, BASE + 0x80);
    tz_put_le32(img + table + 8, BASE + 0x90);
    tz_put_le32(img + table + 12, BASE + 0x10000);
    memcpy(img + 0x80, "producer", 9);
    memcpy(img + 0x90, "SysTick", 8);
    tz_rtring r;
    start_ring(&r);
    traza_err err;
    assert_int_equal(tz_rtring_poll(&r, img_read, NULL, NULL, &err), 0);
    assert_int_equal(r.ntasks, 4);
    assert_int_equal(tz_rtring_read_names(&r, img_read, NULL, BASE + table, 4), 2);
    assert_int_equal(tz_rtring_tasks_in(&r, TZ_RTTASK_NAMED), 2);
    assert_int_equal(tz_rtring_tasks_in(&r, TZ_RTTASK_UNNAMED), 2);
    assert_int_equal(tz_rtring_read_names(&r, img_read, NULL, BASE + table, 4), 0); /* each read once */
    tz_rtdump d;
    dump_of(&r, &d);
    int seen = 0;
    for (size_t i = 0; i < d.ntasks; i++) {
        const tz_rtd_thread *t = &d.tasks[i];
        if (t->tid == 1) {
            assert_string_equal(t->name, "producer");
            seen |= 1;
        } else if (t->tid == 2) {
            assert_string_equal(t->name, "SysTick");
            assert_true(t->isr);
            seen |= 2;
        } else {
            assert_null(t->name);
        }
    }
    assert_int_equal(seen, 3);
    tz_rtdump_free(&d);
    tz_rtring_free(&r);
    /* a name without its NUL within the bound, or with a byte that is not printable */
    image(2, 1, 0, 6);
    wp = put_block(0, 0, ev, sizeof ev);
    tz_put_le32(img + VARS, BASE + wp);
    tz_put_le32(img + table + 4, BASE + 0x80);
    tz_put_le32(img + table + 8, BASE + 0xc0);
    memset(img + 0x80, 'a', 0x40);
    memcpy(img + 0xc0, "Sys\tTick", 9);
    start_ring(&r);
    assert_int_equal(tz_rtring_poll(&r, img_read, NULL, NULL, &err), 0);
    assert_int_equal(tz_rtring_read_names(&r, img_read, NULL, BASE + table, 4), 0);
    assert_int_equal(tz_rtring_tasks_in(&r, TZ_RTTASK_UNNAMED), 4);
    tz_rtring_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_current_block_to_write_position),
        cmocka_unit_test(test_overwritten_blocks_counted),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_dumps_between_polls),
        cmocka_unit_test(test_task_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
