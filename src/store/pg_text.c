/* PostgreSQL backend: lossless storage of strings that are not valid UTF-8.
 *
 * The store API takes any bytes (SQLite keeps them as they are); a UTF-8 PostgreSQL
 * database rejects invalid sequences. So text sent to the server is encoded: every
 * byte that is not part of a valid UTF-8 sequence becomes the noncharacter U+FDD0
 * (never assigned, "for internal use") followed by the byte's two upper-case hex
 * digits, and a U+FDD0 already in the input becomes U+FDD0 U+FDD0. Valid text without
 * U+FDD0 (all real data seen so far) is stored unchanged, so the database stays
 * readable and comparisons inside the server are unaffected; strings read back are
 * decoded to the original bytes. Equality filters compare encoded forms (the encoding
 * is one-to-one); ordering filters (<, >) on strings holding invalid bytes may order
 * differently from SQLite's byte order. Layout: doc/store.md. */
#include "store/pg_internal.h"

#include <string.h>

#define MARK "\xEF\xB7\x90" /* U+FDD0 */
#define MARKLEN 3

int tz_pg_text_needs_enc(const char *s, size_t n)
{
    return tz_utf8_invalid(s, n) >= 0 || memmem(s, n, MARK, MARKLEN) != NULL;
}

void tz_pg_text_enc(tz_buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t i = 0;
    while (i < n) {
        if (n - i >= MARKLEN && memcmp(s + i, MARK, MARKLEN) == 0) {
            tz_buf_puts(b, MARK MARK);
            i += MARKLEN;
            continue;
        }
        long bad = tz_utf8_invalid(s + i, n - i);
        /* the valid run up to the next invalid byte or mark */
        size_t end = bad < 0 ? n : i + (size_t)bad;
        const char *m = memmem(s + i, end - i, MARK, MARKLEN);
        if (m)
            end = (size_t)(m - s);
        tz_buf_put(b, s + i, end - i);
        i = end;
        if (bad >= 0 && !m && i < n) {
            unsigned char c = (unsigned char)s[i++];
            tz_buf_puts(b, MARK);
            tz_buf_putc(b, hex[c >> 4]);
            tz_buf_putc(b, hex[c & 15]);
        }
    }
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

void tz_pg_text_dec(tz_buf *b, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        const char *m = memmem(s + i, n - i, MARK, MARKLEN);
        size_t end = m ? (size_t)(m - s) : n;
        tz_buf_put(b, s + i, end - i);
        i = end;
        if (!m)
            break;
        i += MARKLEN;
        if (n - i >= MARKLEN && memcmp(s + i, MARK, MARKLEN) == 0) {
            tz_buf_puts(b, MARK);
            i += MARKLEN;
        } else if (n - i >= 2 && hexval(s[i]) >= 0 && hexval(s[i + 1]) >= 0) {
            tz_buf_putc(b, (char)(hexval(s[i]) << 4 | hexval(s[i + 1])));
            i += 2;
        } else {
            tz_buf_puts(b, MARK); /* not written by traza: kept as it is */
        }
    }
}

char *tz_pg_text_get(const PGresult *r, int row, int col)
{
    if (PQgetisnull(r, row, col))
        return NULL;
    const char *s = PQgetvalue(r, row, col);
    size_t n = (size_t)PQgetlength(r, row, col);
    if (!memmem(s, n, MARK, MARKLEN))
        return tz_strdup(s);
    tz_buf b;
    tz_buf_init(&b);
    tz_pg_text_dec(&b, s, n);
    tz_buf_putc(&b, '\0');
    if (b.oom) {
        tz_buf_free(&b);
        return NULL;
    }
    return tz_buf_take(&b);
}
