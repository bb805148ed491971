/* Reading PC lists, PC-trace CSV and raw binary word streams as symbol sequences. */
#include <string.h>
#include "traza/grammar.h"
#include "util/input.h"
#include "util/lines_hex.h"
#include "util/util.h"

static int read_raw(const char *path, int width, int (*fn)(void *, uint64_t), void *user, traza_err *err)
{
    tz_input *in = tz_input_open(path, err);
    if (!in)
        return -1;
    unsigned char buf[65536];
    size_t have = 0, w = (size_t)width / 8;
    uint64_t off = 0;
    for (;;) {
        long n = tz_input_read(in, buf + have, sizeof buf - have, err);
        if (n < 0) {
            tz_input_close(in);
            return -1;
        }
        if (n == 0)
            break;
        have += (size_t)n;
        size_t i = 0;
        for (; i + w <= have; i += w) {
            uint64_t v = 0;
            for (size_t b = 0; b < w; b++)
                v |= (uint64_t)buf[i + b] << (8 * b);
            if (fn(user, v)) {
                tz_input_close(in);
                return -1;
            }
        }
        off += i;
        memmove(buf, buf + i, have - i);
        have -= i;
    }
    tz_input_close(in);
    if (have)
        return traza_err_set(err, TRAZA_E_PARSE, "%s: byte %llu: %zu trailing byte(s), expected whole %d-bit words",
                             path, (unsigned long long)off, have, width);
    return 0;
}

int traza_grammar_read(const char *path, int fmt, int (*fn)(void *, uint64_t), void *user, traza_err *err)
{
    if (fmt == TRAZA_GIN_RAW32 || fmt == TRAZA_GIN_RAW64)
        return read_raw(path, fmt, fn, user, err);
    tz_lines lr;
    if (tz_lines_open(&lr, path, err) < 0)
        return -1;
    char *line;
    size_t len;
    int r = 0;
    for (;;) {
        uint64_t v;
        if (tz_lines_hex_fast(&lr, &v)) { /* a bare hexadecimal address */
            if (fn(user, v)) {
                r = -1;
                break;
            }
            continue;
        }
        if ((r = tz_lines_next(&lr, &line, &len, err)) != 1)
            break;
        while (len && (line[len - 1] == ' ' || line[len - 1] == '\t'))
            len--;
        size_t s = 0;
        while (s < len && (line[s] == ' ' || line[s] == '\t'))
            s++;
        if (s == len || line[s] == '#')
            continue;
        const char *tok = line + s;
        size_t tl = len - s;
        const char *comma = memchr(tok, ',', tl), *space = memchr(tok, ' ', tl);
        /* ITF, "0xaddr disasm": its first word an address, whatever commas the
         * instruction's operands hold after it */
        if (comma && space && space < comma && tl > 2 && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X'))
            comma = NULL;
        if (comma) { /* CSV: time,address[,...] */
            const char *a = comma + 1, *e = memchr(a, ',', (size_t)(tok + tl - a));
            tl = (size_t)((e ? e : tok + tl) - a);
            tok = a;
            while (tl && *tok == ' ')
                tok++, tl--;
            while (tl && tok[tl - 1] == ' ')
                tl--;
            if (tl >= 2 && tok[0] == '"' && tok[tl - 1] == '"')
                tok++, tl -= 2;
        } else if (space) {
            tl = (size_t)(space - tok);
        }
        if (tz_parse_u64_hex(tok, tl, &v) < 0) {
            if (comma && lr.lineno == 1)
                continue; /* CSV header */
            r = traza_err_set(err, TRAZA_E_PARSE, "%s:%ld: expected a hexadecimal address, found '%.*s'", path,
                              lr.lineno, (int)(tl > 40 ? 40 : tl), tok);
            break;
        }
        if (fn(user, v)) {
            r = -1;
            break;
        }
    }
    tz_lines_close(&lr);
    return r < 0 ? -1 : 0;
}
