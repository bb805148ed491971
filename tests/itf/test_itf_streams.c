/* ITFComp stream packing. Version 4: mostly-zero varint streams are stored in zero-run
 * form (method bit 0x80) and come back byte for byte; streams that are not canonical
 * varints are stored as they are; a corrupt zero-run form is refused. Version 5: a
 * stream of chunks 1.. is coded with chunk 0's stream as preset dictionary (bit 0x40),
 * and only a reader that has that dictionary can read it; dictionary streams may be
 * bzip2 (method 3). */
#include "testutil.h"
#include "itf/itf_internal.h"

/* Packs in[0..n) with the backend, checks the zero-run bit, unpacks, compares. */
static void round_trip(int backend, const uint8_t *in, size_t n, int want_zrun)
{
    tz_buf out;
    tz_buf_init(&out);
    traza_err err;
    assert_true(itf_pack_stream(NULL, backend, in, n, NULL, NULL, &out, &err) > 0);
    assert_int_equal(((uint8_t)out.s[0] & 0x80) != 0, want_zrun);
    itf_rd r = {(const uint8_t *)out.s, (const uint8_t *)out.s + out.len, 0};
    uint8_t *back = NULL;
    size_t bn = 0;
    assert_int_equal(itf_unpack_stream(NULL, &r, 4, NULL, &back, &bn, NULL, NULL, NULL, &err), 0);
    assert_int_equal(bn, n);
    if (n)
        assert_memory_equal(back, in, n);
    assert_true(r.p == r.end);
    free(back);
    /* unpacked in steps of 97 bytes: the stored form, which the zero-run reader reads
     * back to the same values */
    itf_rd r2 = {(const uint8_t *)out.s, (const uint8_t *)out.s + out.len, 0};
    itf_sunpack su;
    assert_int_equal(itf_sunpack_init(&su, NULL, &r2, 4, NULL, &err), 0);
    assert_true(r2.p == r2.end);
    assert_int_equal(su.zrun, want_zrun);
    for (size_t up = 97;; up += 97) {
        assert_int_equal(itf_sunpack_step(&su, up, &err), 0);
        assert_true(su.done >= (up < su.raw ? up : su.raw));
        if (up >= su.raw)
            break;
    }
    if (!want_zrun) {
        assert_int_equal(su.raw, n);
        if (n)
            assert_memory_equal(su.out, in, n);
    } else {
        itf_zrun_reader z;
        itf_zrun_reader_start(&z, su.out, su.raw, 1);
        itf_rd plain = {in, in + n, 0};
        while (plain.p < plain.end)
            assert_true(itf_get_uv(&plain) == itf_zrun_reader_get(&z));
        assert_false(z.bad);
        (void)itf_zrun_reader_get(&z); /* past the end */
        assert_true(z.bad);
    }
    itf_sunpack_end(&su);
    free(su.out);
    /* a version 3 reader does not know the bit */
    if (want_zrun) {
        r.p = (const uint8_t *)out.s;
        assert_int_equal(itf_unpack_stream(NULL, &r, 3, NULL, &back, &bn, NULL, NULL, NULL, &err), -1);
        assert_non_null(strstr(err.msg, "unknown stream method"));
    }
    tz_buf_free(&out);
}

static void test_zero_runs(void **state)
{
    (void)state;
    tz_buf s;
    tz_buf_init(&s);
    for (int i = 0; i < 5000; i++) /* mostly zeros, a few values, a long one at the end */
        itf_put_uv(&s, i % 97 == 5 ? (uint64_t)i * 1000003u : i % 300 == 7 ? 1 : 0);
    itf_put_uv(&s, UINT64_MAX);
    for (int b = 0; b < 3; b++)
        round_trip(b, (const uint8_t *)s.s, s.len, 1);
    /* only zeros; a single zero */
    tz_buf_reset(&s);
    for (int i = 0; i < 100000; i++)
        itf_put_uv(&s, 0);
    round_trip(TRAZA_ITF_XZ, (const uint8_t *)s.s, s.len, 1);
    round_trip(TRAZA_ITF_NONE, (const uint8_t *)"\0", 1, 1);
    /* mostly non-zero: stored plainly */
    tz_buf_reset(&s);
    for (int i = 0; i < 1000; i++)
        itf_put_uv(&s, (uint64_t)i % 5 ? (uint64_t)i : 0);
    round_trip(TRAZA_ITF_XZ, (const uint8_t *)s.s, s.len, 0);
    tz_buf_free(&s);
}

static void test_not_varints(void **state)
{
    (void)state;
    /* 0x80 0x00 is a non-canonical 0: the zero-run form would give 0x00 back */
    const uint8_t nc[] = {0, 0, 0, 0x80, 0x00, 0, 0, 0};
    round_trip(TRAZA_ITF_NONE, nc, sizeof nc, 0);
    /* a ten-byte varint whose last byte has more than the 64th bit */
    const uint8_t big[] = {0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
    round_trip(TRAZA_ITF_NONE, big, sizeof big, 0);
    /* a last byte with the continuation bit */
    const uint8_t open[] = {0, 0, 0, 0, 0x81};
    round_trip(TRAZA_ITF_NONE, open, sizeof open, 0);
    round_trip(TRAZA_ITF_XZ, (const uint8_t *)"", 0, 0);
}

static void test_corrupt_zero_runs(void **state)
{
    (void)state;
    traza_err err;
    /* stored (method 0) with the bit: raw 3, length 3, then the form */
    const uint8_t bad_zero[] = {0x80, 3, 3, 5, 0, 2}; /* a value 0 where a nonzero one belongs */
    const uint8_t bad_open[] = {0x80, 2, 2, 5, 0x80}; /* a truncated varint */
    const uint8_t too_big[] = {0x80, 5, 5, 0xff, 0xff, 0xff, 0xff, 0x7f}; /* a run beyond the limit */
    const uint8_t *cases[] = {bad_zero, bad_open, too_big};
    size_t lens[] = {sizeof bad_zero, sizeof bad_open, sizeof too_big};
    for (int i = 0; i < 3; i++) {
        itf_rd r = {cases[i], cases[i] + lens[i], 0};
        uint8_t *out = NULL;
        size_t n = 0;
        assert_int_equal(itf_unpack_stream(NULL, &r, 4, NULL, &out, &n, NULL, NULL, NULL, &err), -1);
        assert_null(out);
        assert_non_null(strstr(err.msg, "corrupt zero-run stream"));
    }
}

/* An xz stream unpacked in steps: a stored length one short, or one long, or damaged
 * packed bytes are errors, whatever the steps. */
static void test_steps_corrupt(void **state)
{
    (void)state;
    tz_buf s, out;
    tz_buf_init(&s), tz_buf_init(&out);
    traza_err err;
    for (int i = 0; i < 4000; i++)
        itf_put_uv(&s, (uint64_t)i * 7919 % 1000);
    assert_true(itf_pack_stream(NULL, TRAZA_ITF_XZ, (const uint8_t *)s.s, s.len, NULL, NULL, &out, &err) > 0);
    itf_rd h = {(const uint8_t *)out.s + 1, (const uint8_t *)out.s + out.len, 0};
    uint64_t raw = itf_get_uv(&h), len = itf_get_uv(&h);
    assert_int_equal((uint8_t)out.s[0], 1); /* xz, plain */
    for (int c = 0; c < 3; c++) {
        tz_buf b;
        tz_buf_init(&b);
        tz_buf_putc(&b, 1);
        itf_put_uv(&b, c == 0 ? raw - 1 : c == 1 ? raw + 1 : raw);
        itf_put_uv(&b, len);
        size_t at = b.len;
        tz_buf_put(&b, h.p, (size_t)len);
        if (c == 2)
            for (size_t i = at + len / 2; i < at + len / 2 + 6; i++)
                b.s[i] ^= 0x5a;
        for (size_t step = 50; step < 100000; step *= 7) {
            itf_rd r = {(const uint8_t *)b.s, (const uint8_t *)b.s + b.len, 0};
            itf_sunpack su;
            assert_int_equal(itf_sunpack_init(&su, NULL, &r, 4, NULL, &err), 0);
            int rc = 0;
            for (size_t up = step; rc == 0; up += step) {
                rc = itf_sunpack_step(&su, up, &err);
                if (up >= su.raw)
                    break;
            }
            assert_int_equal(rc, -1);
            assert_non_null(strstr(err.msg, "corrupt xz stream"));
            itf_sunpack_end(&su);
            free(su.out);
        }
        tz_buf_free(&b);
    }
    /* an xz stream that claims 0 bytes: its packed bytes are still checked */
    const uint8_t empty[] = {1, 0, 5, 0x01, 0x02, 0x03, 0x04, 0x05};
    itf_rd r = {empty, empty + sizeof empty, 0};
    itf_sunpack su;
    assert_int_equal(itf_sunpack_init(&su, NULL, &r, 4, NULL, &err), 0);
    assert_int_equal(itf_sunpack_step(&su, SIZE_MAX, &err), -1);
    assert_non_null(strstr(err.msg, "corrupt xz stream"));
    itf_sunpack_end(&su);
    free(su.out);
    tz_buf_free(&s), tz_buf_free(&out);
}

/* A stream of pseudo-random varints (seeded): LZMA alone gains little on it. */
static void noisy(tz_buf *b, uint64_t seed, int n)
{
    for (int i = 0; i < n; i++) {
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        itf_put_uv(b, seed % 100000);
    }
}

static void test_preset(void **state)
{
    (void)state;
    traza_err err;
    tz_buf c0, c1, form, out;
    tz_buf_init(&c0), tz_buf_init(&c1), tz_buf_init(&form), tz_buf_init(&out);
    noisy(&c0, 88172645463325252ull, 3000);
    /* chunk 1 repeats most of chunk 0, then adds its own */
    tz_buf_put(&c1, c0.s + 1000, c0.len - 1000);
    noisy(&c1, 42, 200);
    for (int b = 0; b < 2; b++) { /* xz, zstd */
        tz_buf_reset(&form), tz_buf_reset(&out);
        assert_true(itf_pack_stream(NULL, b, (const uint8_t *)c0.s, c0.len, NULL, &form, &out, &err) > 0);
        assert_int_equal(form.len, c0.len); /* not zero-run: the form is the stream */
        assert_memory_equal(form.s, c0.s, c0.len);
        /* the form read back from the packed stream alone */
        itf_rd r0 = {(const uint8_t *)out.s, (const uint8_t *)out.s + out.len, 0};
        uint8_t *f0 = NULL;
        size_t nf0 = 0;
        assert_int_equal(itf_unpack_stream(NULL, &r0, 5, NULL, NULL, NULL, NULL, &f0, &nf0, &err), 0);
        assert_int_equal(nf0, c0.len);
        assert_memory_equal(f0, c0.s, nf0);
        free(f0);
        itf_pre pre = {(const uint8_t *)form.s, form.len};
        tz_buf plain, with;
        tz_buf_init(&plain), tz_buf_init(&with);
        long a = itf_pack_stream(NULL, b, (const uint8_t *)c1.s, c1.len, NULL, NULL, &plain, &err);
        long w = itf_pack_stream(NULL, b, (const uint8_t *)c1.s, c1.len, &pre, NULL, &with, &err);
        assert_true(a > 0 && w > 0);
        assert_true((uint8_t)with.s[0] & 0x40);
        assert_true(w * 3 < a); /* the repeated part costs next to nothing */
        itf_rd r = {(const uint8_t *)with.s, (const uint8_t *)with.s + with.len, 0};
        assert_true(itf_stream_wants_pre(&r, 5));
        assert_false(itf_stream_wants_pre(&r, 4));
        uint8_t *back = NULL;
        size_t bn = 0;
        assert_int_equal(itf_unpack_stream(NULL, &r, 5, &pre, &back, &bn, NULL, NULL, NULL, &err), 0);
        assert_int_equal(bn, c1.len);
        assert_memory_equal(back, c1.s, bn);
        free(back);
        /* without the dictionary: refused, not guessed */
        r.p = (const uint8_t *)with.s;
        assert_int_equal(itf_unpack_stream(NULL, &r, 5, NULL, &back, &bn, NULL, NULL, NULL, &err), -1);
        assert_non_null(strstr(err.msg, "preset dictionary where there is none"));
        /* a version 4 reader does not know the bit */
        r.p = (const uint8_t *)with.s;
        assert_int_equal(itf_unpack_stream(NULL, &r, 4, &pre, &back, &bn, NULL, NULL, NULL, &err), -1);
        assert_non_null(strstr(err.msg, "unknown stream method"));
        /* skipping a stream lands on the next one */
        tz_buf_putc(&with, 7);
        r = (itf_rd){(const uint8_t *)with.s, (const uint8_t *)with.s + with.len, 0};
        assert_int_equal(itf_skip_stream(&r), 0);
        assert_int_equal(r.end - r.p, 1);
        assert_int_equal(*r.p, 7);
        r = (itf_rd){(const uint8_t *)with.s, (const uint8_t *)with.s + with.len - 3, 0};
        assert_int_equal(itf_skip_stream(&r), -1);
        /* unrelated data: the dictionary does not help, and costs next to nothing */
        tz_buf other;
        tz_buf_init(&other);
        noisy(&other, 7, 500);
        tz_buf_reset(&with), tz_buf_reset(&plain);
        long wo = itf_pack_stream(NULL, b, (const uint8_t *)other.s, other.len, &pre, NULL, &with, &err);
        long po = itf_pack_stream(NULL, b, (const uint8_t *)other.s, other.len, NULL, NULL, &plain, &err);
        assert_true(wo > 0 && po > 0 && wo <= po + 16);
        r = (itf_rd){(const uint8_t *)with.s, (const uint8_t *)with.s + with.len, 0};
        assert_int_equal(itf_unpack_stream(NULL, &r, 5, &pre, &back, &bn, NULL, NULL, NULL, &err), 0);
        assert_int_equal(bn, other.len);
        assert_memory_equal(back, other.s, bn);
        free(back);
        /* an empty dictionary (chunk 0's stream was empty) is no dictionary */
        itf_pre none = {(const uint8_t *)form.s, 0};
        tz_buf_reset(&with);
        assert_true(itf_pack_stream(NULL, b, (const uint8_t *)other.s, other.len, &none, NULL, &with, &err) > 0);
        assert_false((uint8_t)with.s[0] & 0x40);
        tz_buf_free(&other), tz_buf_free(&plain), tz_buf_free(&with);
    }
    tz_buf_free(&c0), tz_buf_free(&c1), tz_buf_free(&form), tz_buf_free(&out);
}

/* Dictionary streams may be bzip2 (method 3, version 5) when that is smaller: the
 * instruction texts of disassembly are. */
static void test_bzip2(void **state)
{
    (void)state;
    traza_err err;
    tz_buf text, out;
    tz_buf_init(&text), tz_buf_init(&out);
    static const char *const mn[] = {"ldr", "str", "add", "sub", "mov", "cmp", "bne", "push", "pop", "bl"};
    uint64_t x = 12345;
    for (int i = 0; i < 3000; i++) { /* assembly-like lines, operands drawn at random */
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        char line[64];
        int n = snprintf(line, sizeof line, "%s r%d, [r%d, #0x%x]\n", mn[x % 10], (int)(x >> 8) % 13, (int)(x >> 16) % 13,
                         (unsigned)(x >> 24) % 64 * 4);
        tz_buf_put(&text, line, (size_t)n);
    }
    assert_true(itf_pack_stream(NULL, TRAZA_ITF_XZ | ITF_PACK_BZIP2, (const uint8_t *)text.s, text.len, NULL, NULL, &out,
                                &err) > 0);
    assert_int_equal((uint8_t)out.s[0], 3);
    itf_rd r = {(const uint8_t *)out.s, (const uint8_t *)out.s + out.len, 0};
    uint8_t *back = NULL;
    size_t bn = 0;
    assert_int_equal(itf_unpack_stream(NULL, &r, 5, NULL, &back, &bn, NULL, NULL, NULL, &err), 0);
    assert_int_equal(bn, text.len);
    assert_memory_equal(back, text.s, bn);
    free(back);
    /* without the flag, or with zstd: never bzip2 */
    tz_buf o2;
    tz_buf_init(&o2);
    assert_true(itf_pack_stream(NULL, TRAZA_ITF_XZ, (const uint8_t *)text.s, text.len, NULL, NULL, &o2, &err) > 0);
    assert_int_equal((uint8_t)o2.s[0], 1);
    assert_true(o2.len > out.len);
    tz_buf_reset(&o2);
    assert_true(itf_pack_stream(NULL, TRAZA_ITF_ZSTD | ITF_PACK_BZIP2, (const uint8_t *)text.s, text.len, NULL, NULL, &o2,
                                &err) > 0);
    assert_int_equal((uint8_t)o2.s[0], 2);
    tz_buf_free(&o2);
    /* a version 4 reader does not know method 3 */
    r.p = (const uint8_t *)out.s;
    assert_int_equal(itf_unpack_stream(NULL, &r, 4, NULL, &back, &bn, NULL, NULL, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "unknown stream method 3 (expected 0..2)"));
    /* damaged bzip2 data: refused with the bzip2 error */
    out.s[out.len / 2] ^= 0x55;
    r.p = (const uint8_t *)out.s;
    assert_int_equal(itf_unpack_stream(NULL, &r, 5, NULL, &back, &bn, NULL, NULL, NULL, &err), -1);
    assert_null(back);
    assert_non_null(strstr(err.msg, "corrupt bzip2 stream"));
    tz_buf_free(&text), tz_buf_free(&out);
}

/* A packer reused across streams of different sizes, with and without a preset,
 * writes the bytes of one-shot encoders, for tiny streams that end up stored too and
 * across a switch of back end; warmed first (itf_packer_warm) or not. */
static void test_packer_reuse(void **state)
{
    (void)state;
    for (int warm = 0; warm < 2; warm++) {
        traza_err err;
        itf_packer *pk = itf_packer_new();
        assert_non_null(pk);
        if (warm)
            itf_packer_warm(pk);
        tz_buf src;
        tz_buf_init(&src);
        noisy(&src, 7, 60000); /* up to ~180 KB: dictionaries on both sides of 128 KiB */
        static const size_t LENS[] = {100, 5000, 150000, 40, 3000, 70000, 150000, 9};
        for (int b = 0; b < 2; b++)
            for (size_t i = 0; i < sizeof LENS / sizeof LENS[0]; i++) {
                size_t n = LENS[i] < src.len ? LENS[i] : src.len;
                itf_pre pre = {(const uint8_t *)src.s + src.len - 2000, i % 2 ? 2000 : 0};
                tz_buf one, re;
                tz_buf_init(&one), tz_buf_init(&re);
                long a = itf_pack_stream(NULL, b, (const uint8_t *)src.s, n, &pre, NULL, &one, &err);
                long c = itf_pack_stream(pk, b, (const uint8_t *)src.s, n, &pre, NULL, &re, &err);
                assert_true(a > 0);
                assert_int_equal(a, c);
                assert_memory_equal(one.s, re.s, one.len);
                tz_buf_free(&one), tz_buf_free(&re);
            }
        tz_buf_free(&src);
        itf_packer_free(pk);
    }
    itf_packer_free(NULL);
}

/* Version 7 frames leave empty streams out behind a mask of the ones present: the
 * compact form expands back to the same bytes, and a corrupt mask or frame is refused
 * with what is wrong. */
static void test_frame_mask(void **state)
{
    (void)state;
    static const uint8_t a[] = {1, 2, 3, 0, 0, 0, 7};
    tz_buf full, out;
    tz_buf_init(&full);
    traza_err err;
    /* streams 0 and 3 empty, 1 stored, 2 packed, 4 empty */
    for (int k = 0; k < 5; k++) {
        tz_buf_init(&out);
        assert_true(itf_pack_stream(NULL, TRAZA_ITF_XZ, a, k == 1 ? 3 : k == 2 ? sizeof a : 0, NULL, NULL, &out, &err) > 0);
        tz_buf_put(&full, out.s, out.len);
        tz_buf_free(&out);
    }
    tz_buf c;
    tz_buf_init(&c);
    tz_buf_put(&c, full.s, full.len);
    assert_int_equal(itf_frame_compact(&c, 5), 1);
    assert_int_equal((uint8_t)c.s[0], 0x06); /* streams 1 and 2 */
    assert_int_equal(c.len, full.len - 9 + 1);
    uint8_t *p = malloc(c.len);
    size_t n = c.len;
    memcpy(p, c.s, n);
    assert_int_equal(itf_frame_expand(&p, &n, 5, &err), 0);
    assert_int_equal(n, full.len);
    assert_memory_equal(p, full.s, n);
    free(p);
    /* a mask past the streams, a cut stream, bytes after the last one, no mask */
    uint8_t bad[64];
    memcpy(bad, c.s, c.len);
    bad[0] = 0x26; /* bit 5 of 5 streams */
    p = malloc(c.len), n = c.len;
    memcpy(p, bad, n);
    assert_int_equal(itf_frame_expand(&p, &n, 5, &err), -1);
    assert_non_null(strstr(err.msg, "corrupt frame: it names stream 5, past its 5 streams"));
    free(p);
    p = malloc(c.len), n = c.len - 1;
    memcpy(p, c.s, n);
    assert_int_equal(itf_frame_expand(&p, &n, 5, &err), -1);
    assert_non_null(strstr(err.msg, "corrupt frame: stream 2 is cut short"));
    free(p);
    p = malloc(c.len + 2), n = c.len + 2;
    memcpy(p, c.s, c.len);
    p[c.len] = p[c.len + 1] = 0;
    assert_int_equal(itf_frame_expand(&p, &n, 5, &err), -1);
    assert_non_null(strstr(err.msg, "corrupt frame: 2 bytes after its streams"));
    free(p);
    p = malloc(1), n = 0;
    assert_int_equal(itf_frame_expand(&p, &n, 5, &err), -1);
    assert_non_null(strstr(err.msg, "corrupt frame: no stream mask"));
    free(p);
    /* the writer's side: a payload that does not hold its streams */
    tz_buf t;
    tz_buf_init(&t);
    tz_buf_put(&t, full.s, full.len - 1);
    assert_int_equal(itf_frame_compact(&t, 5), -1);
    tz_buf_free(&t);
    tz_buf_free(&c);
    tz_buf_free(&full);
}

/* The line model's default back end: zstd at ITF_ZSTD_FAST with its content checksum.
 * A reader's pool lends one context to each stream and keeps it for the next; a byte
 * damaged in the middle of the literals is caught by the checksum. */
static void test_zstd_pool(void **state)
{
    (void)state;
    uint8_t in[3000];
    for (size_t i = 0; i < sizeof in; i++) /* varints that are not mostly zero: no zero-run form */
        in[i] = (uint8_t)((i * 2654435761u >> 13) % 97 + 1);
    tz_buf fast, slow;
    tz_buf_init(&fast);
    tz_buf_init(&slow);
    traza_err err;
    assert_true(itf_pack_stream(NULL, TRAZA_ITF_ZSTD | ITF_PACK_ZFAST, in, sizeof in, NULL, NULL, &fast, &err) > 0);
    assert_true(itf_pack_stream(NULL, TRAZA_ITF_ZSTD, in, sizeof in, NULL, NULL, &slow, &err) > 0);
    assert_int_equal((uint8_t)fast.s[0], 2); /* method zstd, no flag bits */
    assert_true(fast.len != slow.len || memcmp(fast.s, slow.s, fast.len) != 0);
    itf_zpool zp;
    itf_zpool_init(&zp);
    assert_int_equal(zp.n, 0);
    for (int round = 0; round < 3; round++) {
        itf_rd r = {(const uint8_t *)fast.s, (const uint8_t *)fast.s + fast.len, 0};
        uint8_t *back = NULL;
        size_t bn = 0;
        assert_int_equal(itf_unpack_stream(&zp, &r, 10, NULL, &back, &bn, NULL, NULL, NULL, &err), 0);
        assert_int_equal(bn, sizeof in);
        assert_memory_equal(back, in, sizeof in);
        free(back);
        assert_int_equal(zp.n, 1); /* the same context each time */
    }
    itf_rd r2 = {(const uint8_t *)fast.s, (const uint8_t *)fast.s + fast.len, 0};
    itf_sunpack su;
    assert_int_equal(itf_sunpack_init(&su, &zp, &r2, 10, NULL, &err), 0);
    assert_int_equal(itf_sunpack_step(&su, SIZE_MAX, &err), 0);
    assert_memory_equal(su.out, in, sizeof in);
    assert_int_equal(zp.n, 1);
    itf_sunpack_end(&su);
    free(su.out);
    /* damaged: the checksum (or the entropy decoder) refuses it, and the context goes
     * back to the pool fit for the next stream */
    for (size_t at = 8; at < fast.len - 4; at += fast.len / 7) {
        tz_buf bad;
        tz_buf_init(&bad);
        tz_buf_put(&bad, fast.s, fast.len);
        bad.s[at] ^= 0x5a;
        itf_rd r = {(const uint8_t *)bad.s, (const uint8_t *)bad.s + bad.len, 0};
        uint8_t *back = NULL;
        size_t bn = 0;
        assert_int_equal(itf_unpack_stream(&zp, &r, 10, NULL, &back, &bn, NULL, NULL, NULL, &err), -1);
        assert_non_null(strstr(err.msg, "corrupt zstd stream"));
        tz_buf_free(&bad);
        itf_rd r3 = {(const uint8_t *)fast.s, (const uint8_t *)fast.s + fast.len, 0};
        assert_int_equal(itf_unpack_stream(&zp, &r3, 10, NULL, &back, &bn, NULL, NULL, NULL, &err), 0);
        assert_memory_equal(back, in, sizeof in);
        free(back);
    }
    itf_zpool_free(&zp);
    assert_int_equal(zp.n, 0);
    tz_buf_free(&fast);
    tz_buf_free(&slow);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_runs),
        cmocka_unit_test(test_not_varints),
        cmocka_unit_test(test_corrupt_zero_runs),
        cmocka_unit_test(test_steps_corrupt),
        cmocka_unit_test(test_preset),
        cmocka_unit_test(test_bzip2),
        cmocka_unit_test(test_packer_reuse),
        cmocka_unit_test(test_frame_mask),
        cmocka_unit_test(test_zstd_pool),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
