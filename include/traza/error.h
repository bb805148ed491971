/* traza — error reporting.
 *
 * Every fallible libtraza function takes a `traza_err *` (may be NULL) and returns
 * 0 / a valid pointer on success, -1 / NULL on failure with the error filled in.
 * The library never prints and never exits: the message is for the caller to show. */
#ifndef TRAZA_ERROR_H
#define TRAZA_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif
/* The public API: the only symbols libtraza.so exports (the library is built with
 * -fvisibility=hidden). */
#pragma GCC visibility push(default)

typedef enum traza_errcode {
    TRAZA_OK = 0,
    TRAZA_E_IO,        /* file system or database I/O */
    TRAZA_E_NOMEM,     /* allocation failed */
    TRAZA_E_PARSE,     /* bad input: message names file, line/offset, expected, found */
    TRAZA_E_USAGE,     /* bad argument from the caller */
    TRAZA_E_NOTFOUND,  /* named trace, type, producer, result... does not exist */
    TRAZA_E_EXISTS,    /* name already taken */
    TRAZA_E_FORMAT,    /* corrupted or unsupported file of ours (magic, version, checksum) */
    TRAZA_E_UNSUPPORTED,
    TRAZA_E_INTERNAL,
    TRAZA_E_CANCELLED
} traza_errcode;

typedef struct traza_err {
    traza_errcode code;
    char msg[1024];
} traza_err;

/* Set an error (printf-style). Returns -1 so `return traza_err_set(...)` reads well.
 * A NULL err is allowed and ignored. */
int traza_err_set(traza_err *err, traza_errcode code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Prefix the current message with more context ("while importing x: ..."). */
int traza_err_prefix(traza_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void traza_err_clear(traza_err *err);
const char *traza_errcode_name(traza_errcode code);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
