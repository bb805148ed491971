/* Reading outside input: a byte stream with transparent xz, zstd, gzip and bzip2
 * decompression (detected by magic number), and a line reader on top of it that
 * tracks line numbers and byte offsets for precise error messages. */
#ifndef TZ_INPUT_H
#define TZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include "traza/error.h"

typedef struct tz_input tz_input;

/* Opens a file ("-" = standard input). */
tz_input *tz_input_open(const char *path, traza_err *err);
/* Reads up to n bytes; returns the count, 0 at the end, -1 on error. */
long tz_input_read(tz_input *in, void *buf, size_t n, traza_err *err);
/* Bytes of the (compressed) file consumed so far and its size (0 if unknown): for progress. */
uint64_t tz_input_raw_pos(const tz_input *in);
uint64_t tz_input_raw_size(const tz_input *in);
const char *tz_input_path(const tz_input *in);
/* The whole input mapped read-only when it is a plain (uncompressed) regular file
 * that nothing has been read from yet, so that a parser can skip the copy into its
 * buffer; NULL otherwise (then read as usual). *len is the file size; a file that
 * changes size while mapped is the caller's risk, as with any mmap. Undo with
 * tz_input_unmap. */
const char *tz_input_map(tz_input *in, size_t *len);
void tz_input_unmap(const char *map, size_t len);
void tz_input_close(tz_input *in);

typedef struct tz_lines {
    tz_input *in;
    char *buf;
    size_t cap, start, end;
    int eof;
    int unterminated;   /* the line last returned ends the data without a '\n' */
    long lineno;        /* number of the line last returned (1-based) */
    uint64_t offset;    /* byte offset of the line last returned, in the decompressed data */
    uint64_t next_off;
} tz_lines;

int tz_lines_open(tz_lines *lr, const char *path, traza_err *err);
/* 1 with *line (NUL-terminated, no newline, \r stripped) and *len; 0 at the end; -1 on error.
 * A line over 64 MiB is an error. */
int tz_lines_next(tz_lines *lr, char **line, size_t *len, traza_err *err);
void tz_lines_close(tz_lines *lr);

#endif
