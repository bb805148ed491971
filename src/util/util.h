/* Internal helpers shared by libtraza: growable buffers, string maps, arrays.
 * All allocation failures are reported to the caller; nothing here aborts. */
#ifndef TZ_UTIL_H
#define TZ_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "traza/error.h"

char *tz_strdup(const char *s);
char *tz_strndup(const char *s, size_t n);
char *tz_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grows *p (an array of elem-sized items with capacity *cap) to hold `need` items.
 * Returns 0, or -1 (and leaves *p valid) when out of memory or on overflow. */
int tz_grow(void **p, size_t *cap, size_t need, size_t elem);
/* The common case, room already there, inline: hot loops check before every append. */
static inline int tz_grow_to(void **p, size_t *cap, size_t need, size_t elem)
{
    return need <= *cap ? 0 : tz_grow(p, cap, need, elem);
}
#define TZ_GROW(arr, cap, need) tz_grow_to((void **)&(arr), &(cap), (need), sizeof *(arr))

/* A growable byte/string buffer. Out-of-memory is sticky: check `oom` once at the end. */
typedef struct tz_buf {
    char *s;
    size_t len, cap;
    int oom;
} tz_buf;

void tz_buf_init(tz_buf *b);
void tz_buf_free(tz_buf *b);
void tz_buf_reset(tz_buf *b);
/* Appends (the buffer stays NUL-terminated). The common case, enough room, is inline:
 * the trace writers append a few bytes at a time, millions of times. */
void tz_buf_put_grow(tz_buf *b, const void *data, size_t n);
static inline void tz_buf_put(tz_buf *b, const void *data, size_t n)
{
    if (__builtin_expect(n < b->cap - b->len && !b->oom, 1)) { /* cap > len whenever s exists */
        if (n) /* data may be NULL when n is 0 */
            __builtin_memcpy(b->s + b->len, data, n);
        b->len += n;
        b->s[b->len] = '\0';
        return;
    }
    tz_buf_put_grow(b, data, n);
}
static inline void tz_buf_putc(tz_buf *b, char c)
{
    if (__builtin_expect(1 < b->cap - b->len && !b->oom, 1)) {
        b->s[b->len++] = c;
        b->s[b->len] = '\0';
        return;
    }
    tz_buf_put_grow(b, &c, 1);
}
/* Room for `extra` more bytes (and the NUL) without another allocation; -1 on oom. */
int tz_buf_reserve_grow(tz_buf *b, size_t extra);
/* Room for `extra` more bytes and the NUL: 0, or -1 (oom set). The common case, room
 * already there, is inline (the line renderers and the tokenizer ask once a line). */
static inline int tz_buf_reserve(tz_buf *b, size_t extra)
{
    if (__builtin_expect(!b->oom && extra < b->cap - b->len, 1)) /* cap > len whenever s exists */
        return 0;
    return tz_buf_reserve_grow(b, extra);
}
void tz_buf_puts(tz_buf *b, const char *s);
void tz_buf_printf(tz_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tz_buf_vprintf(tz_buf *b, const char *fmt, va_list ap);
/* Takes the string (NUL-terminated, "" if empty); the buffer is reset. NULL on oom. */
char *tz_buf_take(tz_buf *b);
/* A traza_write_fn (traza/export.h) appending to the tz_buf arg: 0, or -1 once it is
 * out of memory. */
int tz_buf_sink(void *arg, const char *data, size_t len);

/* s between two q characters, each q inside doubled: a CSV field ("), an SQL
 * identifier (") or string literal ('). */
void tz_buf_quoted(tz_buf *b, const char *s, char q);

/* JSON helpers: a quoted, escaped string (invalid UTF-8 bytes become U+FFFD). */
void tz_json_str(tz_buf *b, const char *s);
void tz_json_strn(tz_buf *b, const char *s, size_t n);
/* Appends a saved result's provenance besides its tool, params and time:
 * ,"inputs":["A","B"],"version":"0.1.0" (null when the store did not keep it). */
struct traza_result_info;
void tz_json_result_provenance(tz_buf *b, const struct traza_result_info *r);
/* Text escaped for XML/HTML/SVG content and attributes (< > & "). */
void tz_xml_esc(tz_buf *b, const char *s);
/* Seconds in a readable unit ("1.23 ms", "-250 ns", 3 significant digits); "-" for NaN. */
const char *tz_secs_str(double s, char *buf, size_t size);
/* A double as JSON (non-finite values become null). */
void tz_json_num(tz_buf *b, double v);

/* Open-addressing hash map from string keys (copied) to int64 values. */
typedef struct tz_map {
    char **keys;
    int64_t *vals;
    size_t cap, count;
} tz_map;

void tz_map_init(tz_map *m);
void tz_map_free(tz_map *m);
/* 1 and *val if present, else 0. */
int tz_map_get(const tz_map *m, const char *key, int64_t *val);
int tz_map_getn(const tz_map *m, const char *key, size_t len, int64_t *val);
/* Inserts or replaces. -1 on out of memory. */
int tz_map_put(tz_map *m, const char *key, int64_t val);
int tz_map_putn(tz_map *m, const char *key, size_t len, int64_t val);

/* Hash map from int64 keys to int64 values. */
typedef struct tz_imap {
    int64_t *keys;
    int64_t *vals;
    unsigned char *used;
    size_t cap, count;
} tz_imap;

void tz_imap_init(tz_imap *m);
void tz_imap_free(tz_imap *m);
int tz_imap_get(const tz_imap *m, int64_t key, int64_t *val);
/* Inserts or replaces; -1 on out of memory (never after tz_imap_reserve made room). */
int tz_imap_put(tz_imap *m, int64_t key, int64_t val);
/* Room for `more` new keys without another allocation; -1 on out of memory. */
int tz_imap_reserve(tz_imap *m, size_t more);

uint64_t tz_hash_bytes(const void *data, size_t n);
/* A 64-bit mix (murmur3's finalizer); inline: hash-table probes call it per lookup. */
static inline uint64_t tz_hash_u64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/* UTF-8 validation: returns the byte offset of the first invalid sequence, or -1. */
long tz_utf8_invalid(const char *s, size_t n);

/* Strict number parsing of a whole token. Return 0 on success, -1 if not a number. */
int tz_parse_i64(const char *s, size_t n, int64_t *out);
int tz_parse_u64_hex(const char *s, size_t n, uint64_t *out); /* with or without 0x */
int tz_parse_double(const char *s, size_t n, double *out);

/* An output file that appears whole or not at all (outfile.c): a regular file (or a
 * new one) is written as a temporary beside it, renamed over it by tz_outfile_close
 * with ok = 1 and removed otherwise, so a failed run leaves no partial file and an old
 * file intact. Anything else (/dev/null, /dev/full, a pipe, a terminal) is written in
 * place and never removed. The temporary is fsync'd before the rename. open: 0 or -1
 * with err; close: -1 with err (errno set) when writing, closing or renaming fails, the
 * temporary then removed. */
typedef struct tz_outfile {
    FILE *f;
    char *path, *tmp; /* tmp NULL: written in place */
} tz_outfile;
int tz_outfile_open(tz_outfile *o, const char *path, traza_err *err);
int tz_outfile_close(tz_outfile *o, int ok, traza_err *err);
/* Writes data[0..n) to path through a tz_outfile: 0, or -1 with err. */
int tz_outfile_write(const char *path, const void *data, size_t n, traza_err *err);

/* Whole-buffer I/O on a file descriptor (fdio.c): 0, or -1 with errno set (0 when a
 * read meets the end of the file). EINTR and short transfers are retried. */
int tz_write_all(int fd, const void *buf, size_t n);
/* n bytes to a stream: what it holds flushed, then straight to its descriptor in one
 * write (fwrite through a 4 KiB stdio buffer split a 64 KiB piece into two); through
 * fwrite when it has no descriptor (fmemopen). 0, or -1 with errno set. */
int tz_fwrite_all(FILE *f, const void *buf, size_t n);
int tz_pwrite_all(int fd, const void *buf, size_t n, off_t off);
int tz_pread_all(int fd, void *buf, size_t n, off_t off);

/* Read a whole file into memory (NUL-terminated). */
int tz_read_file(const char *path, char **data, size_t *len, traza_err *err);

#endif
