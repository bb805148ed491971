/* ELF function symbols (src/util/elfsym.c, traza/elf.h) on programs this test links
 * at fixed addresses: the function containing an address and the offset in it, an
 * odd x86-64 address as it is, the Thumb bit of 32-bit ARM ignored (both byte
 * orders, when arm-none-eabi-gcc is installed), and stripped, non-ELF and crafted
 * files refused. */
#include "testutil.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "traza/elf.h"

/* a: 0x401000, 5 bytes; b: 0x401005 (odd), 3 bytes; 8 bytes of no function;
 * c: 0x401010, 16 bytes; z: 0x401020, size 0 */
static const char X86_S[] =
    "\t.text\n"
    "\t.globl a\n\t.type a, @function\na:\tnop; nop; nop; nop; ret\n\t.size a, .-a\n"
    "\t.type b, @function\nb:\tnop; nop; ret\n\t.size b, .-b\n"
    "\t.skip 8\n"
    "\t.globl c\n\t.type c, @function\nc:\t.fill 15, 1, 0x90\n\tret\n\t.size c, .-c\n"
    "\t.type z, @function\nz:\tret\n"
    "\t.data\n\t.globl d\nd:\t.quad 1\n";

/* Thumb: a at 0x8000 (symbol 0x8001), 6 bytes; b at 0x8006 (symbol 0x8007), 2 bytes */
static const char THUMB_S[] =
    "\t.syntax unified\n\t.thumb\n\t.text\n"
    "\t.globl a\n\t.type a, %function\n\t.thumb_func\na:\tnop\n\tnop\n\tbx lr\n\t.size a, .-a\n"
    "\t.type b, %function\n\t.thumb_func\nb:\tbx lr\n\t.size b, .-b\n";

static int have(const char *tool)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", tool);
    return system(cmd) == 0;
}

/* Assembles src with cc (extra flags) into dir/name, linked at text; the path. */
static char *link_at(const char *dir, const char *name, const char *src, const char *cc, const char *flags,
                     const char *text)
{
    char *s = tu_write(dir, "in.s", src), *out = NULL, *cmd = NULL;
    assert_true(asprintf(&out, "%s/%s", dir, name) > 0);
    assert_true(asprintf(&cmd, "%s %s -nostdlib -Wl,-Ttext=%s -Wl,-e,a -o %s %s", cc, flags, text, out, s) > 0);
    assert_int_equal(system(cmd), 0);
    free(cmd);
    free(s);
    return out;
}

static traza_elf *open_ok(const char *path)
{
    traza_err err;
    traza_err_clear(&err);
    traza_elf *e = traza_elf_open(path, &err);
    if (!e)
        fail_msg("%s", err.msg);
    return e;
}

/* Looks addr up: "name+0xoff", or "-" if no function contains it. */
static const char *at(const traza_elf *e, uint64_t addr)
{
    static char buf[64];
    uint64_t off = 0;
    const char *n = traza_elf_func_at(e, addr, &off);
    if (!n)
        return "-";
    snprintf(buf, sizeof buf, "%s+0x%llx", n, (unsigned long long)off);
    return buf;
}

static void test_x86_64(void **state)
{
    (void)state;
    if (!have("gcc"))
        skip();
    char *dir = tu_tmpdir();
    char *p = link_at(dir, "x", X86_S, "gcc", "-static -no-pie", "0x401000");
    traza_elf *e = open_ok(p);
    assert_string_equal(at(e, 0x400fff), "-");
    assert_string_equal(at(e, 0x401000), "a+0x0");
    assert_string_equal(at(e, 0x401004), "a+0x4");
    assert_string_equal(at(e, 0x401005), "b+0x0"); /* odd: no Thumb bit on x86-64 */
    assert_string_equal(at(e, 0x401007), "b+0x2");
    assert_string_equal(at(e, 0x401008), "-");
    assert_string_equal(at(e, 0x40100f), "-");
    assert_string_equal(at(e, 0x401010), "c+0x0");
    assert_string_equal(at(e, 0x40101f), "c+0xf");
    assert_string_equal(at(e, 0x401020), "z+0x0"); /* size 0: its first byte */
    assert_string_equal(at(e, 0x401021), "-");
    assert_string_equal(at(e, 0x402000), "-"); /* d: data, not a function */
    traza_elf_close(e);
    free(p);
    tu_rmdir(dir);
}

static void thumb(const char *endian)
{
    if (!have("arm-none-eabi-gcc")) {
        print_message("[  SKIPPED ] no arm-none-eabi-gcc\n");
        skip();
    }
    char *dir = tu_tmpdir();
    char flags[32];
    snprintf(flags, sizeof flags, "-m%s-endian", endian);
    char *p = link_at(dir, "t", THUMB_S, "arm-none-eabi-gcc", flags, "0x8000");
    traza_elf *e = open_ok(p);
    assert_string_equal(at(e, 0x7fff), "-");
    assert_string_equal(at(e, 0x8000), "a+0x0");
    assert_string_equal(at(e, 0x8001), "a+0x0"); /* the Thumb bit */
    assert_string_equal(at(e, 0x8004), "a+0x4");
    assert_string_equal(at(e, 0x8005), "a+0x4");
    assert_string_equal(at(e, 0x8006), "b+0x0");
    assert_string_equal(at(e, 0x8007), "b+0x0");
    assert_string_equal(at(e, 0x8008), "-");
    traza_elf_close(e);
    free(p);
    tu_rmdir(dir);
}

static void test_thumb_little(void **state)
{
    (void)state;
    thumb("little");
}

static void test_thumb_big(void **state)
{
    (void)state;
    thumb("big");
}

static void expect_refused(const char *path, const char *msg)
{
    traza_err err;
    traza_err_clear(&err);
    assert_null(traza_elf_open(path, &err));
    assert_err_contains(err, path);
    assert_err_contains(err, msg);
}

/* The symbol table's section header of an ELF64 little-endian file (in buf). */
static unsigned char *symtab_shdr(unsigned char *buf, size_t len)
{
    uint64_t shoff, shnum = 0;
    memcpy(&shoff, buf + 0x28, 8);
    memcpy(&shnum, buf + 0x3c, 2);
    for (uint64_t i = 0; i < shnum && shoff + (i + 1) * 64 <= len; i++) {
        uint32_t type;
        memcpy(&type, buf + shoff + i * 64 + 4, 4);
        if (type == 2) /* SHT_SYMTAB */
            return buf + shoff + i * 64;
    }
    fail_msg("no SHT_SYMTAB");
    return NULL;
}

static void test_refused(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *txt = tu_write(dir, "notelf", "hello, not an ELF file\n");
    expect_refused(txt, "not an ELF file");
    char *none = NULL;
    assert_true(asprintf(&none, "%s/absent", dir) > 0);
    expect_refused(none, "cannot open");
    if (have("gcc") && have("strip")) {
        char *p = link_at(dir, "x", X86_S, "gcc", "-static -no-pie", "0x401000"), *cmd = NULL, *s = NULL;
        assert_true(asprintf(&s, "%s/stripped", dir) > 0);
        assert_true(asprintf(&cmd, "strip -o %s %s", s, p) > 0);
        assert_int_equal(system(cmd), 0);
        expect_refused(s, "no symbol table (stripped?)");
        /* the symbol table's offset past the end of the file */
        FILE *f = fopen(p, "r+b");
        assert_non_null(f);
        static unsigned char buf[1 << 16];
        size_t len = fread(buf, 1, sizeof buf, f);
        assert_true(len > 64 && len < sizeof buf);
        uint64_t far = (uint64_t)len + 4096;
        memcpy(symtab_shdr(buf, len) + 0x18, &far, 8);
        rewind(f);
        assert_int_equal(fwrite(buf, 1, len, f), len);
        fclose(f);
        expect_refused(p, "symbol table unreadable");
        /* the first 64 bytes: the ELF header alone, its section table beyond the file */
        assert_int_equal(truncate(p, 64), 0);
        expect_refused(p, "no symbol table");
        free(cmd);
        free(s);
        free(p);
    }
    free(none);
    free(txt);
    tu_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_x86_64),
        cmocka_unit_test(test_thumb_little),
        cmocka_unit_test(test_thumb_big),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
