/* The ITFComp paper's text ITF ("0x10001014 ldr -res r3 -par r0:0xbe8f3940") coded
 * through the block model. A line becomes a line of the generated ITF, which the block
 * model codes well: the instruction's text stays with its pc in the dictionary, and
 * what changes from one execution to the next goes where the generated ITF keeps its
 * data addresses and condition failures:
 *   - every value, a token "0x" + 8 lowercase hex digits after a ' ' or a ':' (register
 *     values of -par, the target of -target), becomes a slot byte in the text and one
 *     " mem=0x........" of the coded line, in order;
 *   - " -noexec" right after the mnemonic becomes the coded line's " CCFAIL".
 * A line that does not take this form exactly (no "0x%08x " pc, a slot or escape byte
 * in it, more than 64 values, a text that would read as the generated ITF's own
 * " mem=0x" or " CCFAIL") is coded as the escape byte and the line, which the block
 * model keeps as an exception, byte for byte. Reading applies the inverse, so the
 * round trip is exact for any input.
 * A condition-failed instruction often comes without the values of its executed
 * instances ("stmhs -noexec" beside "stmhs -par sp:0x40800680 -par sp:0x40800684"):
 * the writer then codes it with its pc's text, CCFAIL and no address, which the reader
 * reads as the text without its values (itf_paper_drop_values), so that the line is
 * not an exception with a text of its own. */
#include "itf/itf_paper.h"
#include "itf/itf_internal.h"

#include <string.h>

/* "0x" + v as 8 lower-case hex digits. */
static void put_value(tz_buf *out, uint32_t v)
{
    char h[10] = {'0', 'x'};
    itf_put_hex8(h + 2, v);
    tz_buf_put(out, h, 10);
}

/* The value at s[i] of s[0..n) into *v: "0x" + 8 lowercase hex digits, then the end or
 * a space. */
static int value_at(const char *s, size_t n, size_t i, uint32_t *v)
{
    return i + 10 <= n && s[i] == '0' && s[i + 1] == 'x' && (i + 10 == n || s[i + 10] == ' ') && itf_hex8(s + i + 2, v) == 0;
}

static void escape(const char *s, size_t n, tz_buf *out)
{
    tz_buf_reset(out);
    tz_buf_putc(out, ITF_PAPER_ESC);
    tz_buf_put(out, s, n);
}

void itf_paper_to_gen(const char *s, size_t n, tz_buf *out)
{
    uint32_t pc;
    if (n < 12 || itf_gen_pc(s, n, &pc) < 0 || s[10] != ' ' ||
        memchr(s, ITF_PAPER_SLOT, n) || memchr(s, ITF_PAPER_ESC, n))
        return escape(s, n, out);
    const char *body = s + 11;
    size_t bn = n - 11, m = 0;
    while (m < bn && body[m] != ' ')
        m++;
    int noexec = bn - m >= 8 && memcmp(body + m, " -noexec", 8) == 0 && (bn - m == 8 || body[m + 8] == ' ');
    uint32_t vals[ITF_PAPER_MAXVAL];
    size_t nv = 0;
    tz_buf_reset(out);
    tz_buf_put(out, s, 11);
    size_t text_at = out->len;
    for (size_t i = 0; i < bn;) {
        if (noexec && i == m) {
            i += 8;
            continue;
        }
        char prev = i == 0 ? ' ' : body[i - 1];
        uint32_t v;
        if ((prev == ' ' || prev == ':') && value_at(body, bn, i, &v)) {
            if (nv == ITF_PAPER_MAXVAL)
                return escape(s, n, out);
            vals[nv++] = v;
            tz_buf_putc(out, ITF_PAPER_SLOT);
            i += 10;
            continue;
        }
        tz_buf_putc(out, body[i++]);
    }
    size_t tl = out->len - text_at;
    const char *text = out->s ? out->s + text_at : "";
    if (tl == 0 || memmem(text, tl, " mem=0x", 7) || (tl >= 7 && memcmp(text + tl - 7, " CCFAIL", 7) == 0))
        return escape(s, n, out);
    for (size_t k = 0; k < nv; k++) {
        tz_buf_put(out, " mem=", 5);
        put_value(out, vals[k]);
    }
    if (noexec)
        tz_buf_put(out, " CCFAIL", 7);
}

/* t[0..n) with each slot replaced by the next value of vals (from *k on). */
static void put_filled(tz_buf *out, const char *t, size_t n, const uint32_t *vals, size_t *k)
{
    for (;;) {
        const char *slot = memchr(t, ITF_PAPER_SLOT, n);
        size_t run = slot ? (size_t)(slot - t) : n;
        tz_buf_put(out, t, run);
        if (!slot)
            return;
        put_value(out, vals[(*k)++]);
        t += run + 1;
        n -= run + 1;
    }
}

void itf_paper_drop_values(const char *t, size_t n, tz_buf *out)
{
    size_t start = out->len, last = (size_t)-1; /* where the last kept word starts */
    for (size_t i = 0; i <= n;) {
        const char *sp = i < n ? memchr(t + i, ' ', n - i) : NULL;
        size_t e = sp ? (size_t)(sp - t) : n;
        if (memchr(t + i, ITF_PAPER_SLOT, e - i)) {
            if (last != (size_t)-1 && out->s[last] == '-') { /* its flag goes with it */
                out->len = last > start ? last - 1 : start;
                last = (size_t)-1;
            }
        } else {
            if (out->len > start)
                tz_buf_putc(out, ' ');
            last = out->len;
            tz_buf_put(out, t + i, e - i);
        }
        if (!sp)
            break;
        i = e + 1;
    }
    if (out->s && !out->oom)
        out->s[out->len] = 0;
}

void itf_paper_from_gen(const char *s, size_t n, tz_buf *out)
{
    if (n && s[0] == ITF_PAPER_ESC) {
        tz_buf_put(out, s + 1, n - 1);
        return;
    }
    uint32_t mems[ITF_PAPER_MAXVAL];
    itf_genline g;
    int ok = itf_gen_parse(s, n, &g, mems, ITF_PAPER_MAXVAL);
    size_t k = 0;
    for (size_t i = 0; ok && i < g.textlen; i++)
        k += g.text[i] == ITF_PAPER_SLOT;
    if (ok && k && g.ccfail && g.nmem == 0) { /* a condition failure without its values */
        tz_buf_put(out, s, 11);
        size_t at = out->len;
        itf_paper_drop_values(g.text, g.textlen, out);
        size_t m = at;
        while (m < out->len && out->s[m] != ' ')
            m++;
        tz_buf_put(out, " -noexec", 8); /* after the mnemonic: move the rest behind it */
        if (!out->oom && m < out->len - 8) {
            memmove(out->s + m + 8, out->s + m, out->len - 8 - m);
            memcpy(out->s + m, " -noexec", 8);
        }
        return;
    }
    if (!ok || k != g.nmem) {
        tz_buf_put(out, s, n); /* not a coded line (a damaged file): as it is */
        return;
    }
    tz_buf_put(out, s, 11);
    size_t m = 0;
    while (m < g.textlen && g.text[m] != ' ')
        m++;
    k = 0;
    put_filled(out, g.text, m, mems, &k);
    if (g.ccfail)
        tz_buf_put(out, " -noexec", 8);
    put_filled(out, g.text + m, g.textlen - m, mems, &k);
}

int itf_paper_rewrite(tz_buf *b, size_t from, tz_buf *tmp)
{
    tz_buf_reset(tmp);
    if (from)
        tz_buf_put(tmp, b->s, from);
    size_t i = from;
    while (i < b->len) {
        const char *nl = memchr(b->s + i, '\n', b->len - i);
        size_t e = nl ? (size_t)(nl - b->s) : b->len;
        itf_paper_from_gen(b->s + i, e - i, tmp);
        if (nl)
            tz_buf_putc(tmp, '\n');
        i = e + (nl != NULL);
    }
    if (tmp->oom) {
        tz_buf_reset(tmp);
        tmp->oom = 0;
        return -1;
    }
    tz_buf t = *b;
    *b = *tmp;
    *tmp = t;
    return 0;
}
