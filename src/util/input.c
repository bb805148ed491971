/* Byte streams with transparent decompression, and a buffered line reader. */
#include "util/input.h"
#include "util/util.h"

#include <bzlib.h>
#include <errno.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <zlib.h>
#include <zstd.h>

enum { IN_PLAIN, IN_XZ, IN_ZSTD, IN_GZIP, IN_BZIP2 };

struct tz_input {
    FILE *f;
    char *path;
    int kind;
    int raw_eof;
    uint64_t raw_pos, raw_size;
    unsigned char *raw;      /* compressed input buffer */
    size_t raw_len, raw_off;
    lzma_stream xz;
    ZSTD_DStream *zs;
    z_stream gz;
    bz_stream bz;
    int done;
    int zend; /* zstd: the last call that moved ended a frame (a stream may end there) */
    int member_end; /* gzip, bzip2: a member ended, none of the next is read (the file may end here) */
};

#define RAW_CAP (1u << 17)
/* The first read, which only has to show the magic: a plain file is then read in
 * place (tz_input_map) or straight into the caller's buffer, and a first read of
 * RAW_CAP would copy 128 KiB for nothing (32 page faults, 2 % of compressing a 218 kB
 * Tarmac file). */
#define RAW_FIRST 4096u

static int fill_raw(tz_input *in, size_t cap, traza_err *err)
{
    if (in->raw_off < in->raw_len || in->raw_eof)
        return 0;
    in->raw_len = fread(in->raw, 1, cap, in->f);
    in->raw_off = 0;
    in->raw_pos += in->raw_len;
    if (in->raw_len < cap) {
        if (ferror(in->f))
            return traza_err_set(err, TRAZA_E_IO, "%s: read error: %s", in->path, strerror(errno));
        in->raw_eof = 1;
    }
    return 0;
}

tz_input *tz_input_open(const char *path, traza_err *err)
{
    tz_input *in = calloc(1, sizeof *in);
    if (!in || !(in->path = tz_strdup(path)) || !(in->raw = malloc(RAW_CAP))) {
        if (in) {
            free(in->path);
            free(in);
        }
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        return NULL;
    }
    in->f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!in->f) {
        traza_err_set(err, TRAZA_E_IO, "%s: cannot open: %s", path, strerror(errno));
        free(in->raw);
        free(in->path);
        free(in);
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(in->f), &st) == 0 && S_ISREG(st.st_mode))
        in->raw_size = (uint64_t)st.st_size;
    if (fill_raw(in, RAW_FIRST, err) < 0) {
        tz_input_close(in);
        return NULL;
    }
    const unsigned char *m = in->raw;
    size_t n = in->raw_len;
    if (n >= 6 && memcmp(m, "\xFD" "7zXZ\0", 6) == 0) {
        in->kind = IN_XZ;
        lzma_stream init = LZMA_STREAM_INIT;
        in->xz = init;
        if (lzma_stream_decoder(&in->xz, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) {
            traza_err_set(err, TRAZA_E_NOMEM, "%s: cannot start the xz decoder", path);
            tz_input_close(in);
            return NULL;
        }
    } else if (n >= 4 && memcmp(m, "\x28\xB5\x2F\xFD", 4) == 0) {
        in->kind = IN_ZSTD;
        in->zs = ZSTD_createDStream();
        if (!in->zs || ZSTD_isError(ZSTD_initDStream(in->zs))) {
            traza_err_set(err, TRAZA_E_NOMEM, "%s: cannot start the zstd decoder", path);
            tz_input_close(in);
            return NULL;
        }
    } else if (n >= 10 && memcmp(m, "BZh", 3) == 0 && m[3] >= '1' && m[3] <= '9' &&
               (memcmp(m + 4, "\x31\x41\x59\x26\x53\x59", 6) == 0 || memcmp(m + 4, "\x17\x72\x45\x38\x50\x90", 6) == 0)) {
        /* "BZh", the block size, then a block's magic (pi) or the end of an empty stream (sqrt pi) */
        in->kind = IN_BZIP2;
        if (BZ2_bzDecompressInit(&in->bz, 0, 0) != BZ_OK) {
            traza_err_set(err, TRAZA_E_NOMEM, "%s: cannot start the bzip2 decoder", path);
            tz_input_close(in);
            return NULL;
        }
    } else if (n >= 2 && m[0] == 0x1f && m[1] == 0x8b) {
        in->kind = IN_GZIP;
        if (inflateInit2(&in->gz, 15 + 32) != Z_OK) {
            traza_err_set(err, TRAZA_E_NOMEM, "%s: cannot start the gzip decoder", path);
            tz_input_close(in);
            return NULL;
        }
    }
    return in;
}

long tz_input_read(tz_input *in, void *buf, size_t n, traza_err *err)
{
    if (in->done || n == 0)
        return 0;
    if (in->kind == IN_PLAIN) {
        if (in->raw_off < in->raw_len) {
            size_t k = in->raw_len - in->raw_off;
            if (k > n)
                k = n;
            memcpy(buf, in->raw + in->raw_off, k);
            in->raw_off += k;
            return (long)k;
        }
        if (in->raw_eof)
            return 0;
        size_t k = fread(buf, 1, n, in->f);
        in->raw_pos += k;
        if (k < n && ferror(in->f))
            return traza_err_set(err, TRAZA_E_IO, "%s: read error: %s", in->path, strerror(errno));
        if (k == 0)
            in->raw_eof = 1;
        return (long)k;
    }
    for (;;) {
        if (fill_raw(in, RAW_CAP, err) < 0)
            return -1;
        size_t avail = in->raw_len - in->raw_off;
        size_t produced = 0;
        int finished = 0;
        if (in->member_end && !avail && in->raw_eof) {
            in->done = 1;
            return 0;
        }
        in->member_end = 0;
        if (in->kind == IN_XZ) {
            in->xz.next_in = in->raw + in->raw_off;
            in->xz.avail_in = avail;
            in->xz.next_out = buf;
            in->xz.avail_out = n;
            lzma_ret r = lzma_code(&in->xz, in->raw_eof ? LZMA_FINISH : LZMA_RUN);
            in->raw_off = in->raw_len - in->xz.avail_in;
            produced = n - in->xz.avail_out;
            if (r == LZMA_STREAM_END)
                finished = 1;
            else if (r != LZMA_OK && !(r == LZMA_BUF_ERROR && produced))
                return traza_err_set(err, TRAZA_E_PARSE, "%s: xz data is corrupt or truncated (after %llu compressed bytes, lzma error %d)",
                                     in->path, (unsigned long long)in->raw_pos, (int)r);
        } else if (in->kind == IN_ZSTD) {
            ZSTD_inBuffer ib = {in->raw + in->raw_off, avail, 0};
            ZSTD_outBuffer ob = {buf, n, 0};
            size_t r = ZSTD_decompressStream(in->zs, &ob, &ib);
            in->raw_off += ib.pos;
            produced = ob.pos;
            if (ZSTD_isError(r))
                return traza_err_set(err, TRAZA_E_PARSE, "%s: zstd data is corrupt: %s", in->path, ZSTD_getErrorName(r));
            /* (A frame may end where a read of the file does, before its end is
             * known: the next call, with no input, then moves nothing.) */
            if (ib.pos || ob.pos)
                in->zend = r == 0;
            if (in->zend && in->raw_eof && in->raw_off == in->raw_len)
                finished = 1;
            else if (!produced && in->raw_eof && in->raw_off == in->raw_len)
                return traza_err_set(err, TRAZA_E_PARSE, "%s: zstd data is truncated", in->path);
        } else if (in->kind == IN_BZIP2) {
            in->bz.next_in = (char *)(in->raw + in->raw_off);
            in->bz.avail_in = (unsigned)avail;
            in->bz.next_out = buf;
            in->bz.avail_out = (unsigned)(n > UINT32_MAX ? UINT32_MAX : n);
            unsigned before = in->bz.avail_out;
            int r = BZ2_bzDecompress(&in->bz);
            in->raw_off = in->raw_len - in->bz.avail_in;
            produced = before - in->bz.avail_out;
            if (r == BZ_STREAM_END) {
                /* Concatenated streams (pbzip2): continue if more input follows. */
                if (in->raw_off < in->raw_len || !in->raw_eof) {
                    BZ2_bzDecompressEnd(&in->bz);
                    memset(&in->bz, 0, sizeof in->bz);
                    if (BZ2_bzDecompressInit(&in->bz, 0, 0) != BZ_OK)
                        return traza_err_set(err, TRAZA_E_NOMEM, "%s: cannot restart the bzip2 decoder", in->path);
                    in->member_end = 1;
                } else {
                    finished = 1;
                }
            } else if (r != BZ_OK) {
                return traza_err_set(err, TRAZA_E_PARSE, "%s: bzip2 data is corrupt (after %llu compressed bytes, bzip2 error %d)",
                                     in->path, (unsigned long long)in->raw_pos, r);
            } else if (!produced && in->raw_eof && in->raw_off == in->raw_len) {
                return traza_err_set(err, TRAZA_E_PARSE, "%s: bzip2 data is truncated", in->path);
            }
        } else {
            in->gz.next_in = in->raw + in->raw_off;
            in->gz.avail_in = (uInt)avail;
            in->gz.next_out = buf;
            in->gz.avail_out = (uInt)(n > UINT32_MAX ? UINT32_MAX : n);
            uInt before = in->gz.avail_out;
            int r = inflate(&in->gz, Z_NO_FLUSH);
            in->raw_off = in->raw_len - in->gz.avail_in;
            produced = before - in->gz.avail_out;
            if (r == Z_STREAM_END) {
                /* Concatenated gzip members: continue if more input follows. */
                if (in->raw_off < in->raw_len || !in->raw_eof) {
                    inflateReset(&in->gz);
                    in->member_end = 1;
                } else
                    finished = 1;
            } else if (r != Z_OK && !(r == Z_BUF_ERROR && produced)) {
                return traza_err_set(err, TRAZA_E_PARSE, "%s: gzip data is corrupt (%s)", in->path, in->gz.msg ? in->gz.msg : "inflate error");
            } else if (!produced && in->raw_eof && in->raw_off == in->raw_len) {
                return traza_err_set(err, TRAZA_E_PARSE, "%s: gzip data is truncated", in->path);
            }
        }
        /* done at the end: a zstd decoder called again would start a new frame and
         * find none (traza itf compress of a .zst file failed with "truncated") */
        if (finished)
            in->done = 1;
        if (produced || finished)
            return (long)produced;
    }
}

uint64_t tz_input_raw_pos(const tz_input *in) { return in->raw_pos; }
uint64_t tz_input_raw_size(const tz_input *in) { return in->raw_size; }
const char *tz_input_path(const tz_input *in) { return in->path; }

const char *tz_input_map(tz_input *in, size_t *len)
{
    /* only a plain regular file not read past its first buffer */
    if (in->kind != IN_PLAIN || in->f == stdin || !in->raw_size || in->raw_size > SIZE_MAX || in->raw_off != 0 ||
        in->raw_pos != in->raw_len || (uint64_t)in->raw_len > in->raw_size)
        return NULL;
    void *m = mmap(NULL, (size_t)in->raw_size, PROT_READ, MAP_PRIVATE, fileno(in->f), 0);
    if (m == MAP_FAILED)
        return NULL;
    madvise(m, (size_t)in->raw_size, MADV_SEQUENTIAL);
    *len = (size_t)in->raw_size;
    return m;
}

void tz_input_unmap(const char *map, size_t len)
{
    if (map)
        munmap((void *)map, len);
}

void tz_input_close(tz_input *in)
{
    if (!in)
        return;
    if (in->kind == IN_XZ)
        lzma_end(&in->xz);
    if (in->zs)
        ZSTD_freeDStream(in->zs);
    if (in->kind == IN_GZIP)
        inflateEnd(&in->gz);
    if (in->kind == IN_BZIP2)
        BZ2_bzDecompressEnd(&in->bz);
    if (in->f && in->f != stdin)
        fclose(in->f);
    free(in->raw);
    free(in->path);
    free(in);
}

/* ---- lines ----------------------------------------------------------------- */

#define LINE_MAX_BYTES (64u << 20)

int tz_lines_open(tz_lines *lr, const char *path, traza_err *err)
{
    memset(lr, 0, sizeof *lr);
    lr->in = tz_input_open(path, err);
    if (!lr->in)
        return -1;
    lr->cap = 1u << 20;
    lr->buf = malloc(lr->cap + 1);
    if (!lr->buf) {
        tz_input_close(lr->in);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    return 0;
}

int tz_lines_next(tz_lines *lr, char **line, size_t *len, traza_err *err)
{
    for (;;) {
        char *nl = lr->start < lr->end ? memchr(lr->buf + lr->start, '\n', lr->end - lr->start) : NULL;
        if (nl || (lr->eof && lr->start < lr->end)) {
            char *s = lr->buf + lr->start;
            size_t n = nl ? (size_t)(nl - s) : lr->end - lr->start;
            lr->start += n + (nl ? 1 : 0);
            lr->unterminated = !nl;
            if (n && s[n - 1] == '\r')
                n--;
            s[n] = '\0';
            lr->lineno++;
            lr->offset = lr->next_off;
            lr->next_off += (uint64_t)(lr->buf + lr->start - s);
            *line = s;
            *len = n;
            return 1;
        }
        if (lr->eof)
            return 0;
        /* Move the partial line to the front, grow if a line fills the buffer. */
        if (lr->start > 0) {
            memmove(lr->buf, lr->buf + lr->start, lr->end - lr->start);
            lr->end -= lr->start;
            lr->start = 0;
        }
        if (lr->end == lr->cap) {
            if (lr->cap >= LINE_MAX_BYTES)
                return traza_err_set(err, TRAZA_E_PARSE, "%s:%ld: line longer than 64 MiB", tz_input_path(lr->in), lr->lineno + 1);
            char *nb = realloc(lr->buf, lr->cap * 2 + 1);
            if (!nb)
                return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            lr->buf = nb;
            lr->cap *= 2;
        }
        long k = tz_input_read(lr->in, lr->buf + lr->end, lr->cap - lr->end, err);
        if (k < 0)
            return -1;
        if (k == 0)
            lr->eof = 1;
        lr->end += (size_t)k;
    }
}

void tz_lines_close(tz_lines *lr)
{
    tz_input_close(lr->in);
    free(lr->buf);
    memset(lr, 0, sizeof *lr);
}
