/* Optional libraries opened on first use (dlopen), so that every traza process does
 * not pay for linking them. See dynlib.c for why and for the one piece of
 * process-wide state this implies. */
#ifndef TZ_DYNLIB_H
#define TZ_DYNLIB_H

#include <pthread.h>
#include <stddef.h>
#include "traza/error.h"

typedef void (*tz_fn)(void);

typedef struct tz_dynlib {
    const char *soname;        /* e.g. "libpq.so.5" */
    const char *package;       /* the Debian package that holds it */
    const char *feature;       /* what needs it, for the error message */
    const char *const *names;  /* the functions to look up */
    size_t n;
    void *table;               /* a struct of n function pointers, filled in that order */
    int ok;
    char why[240];             /* dlerror() when the library or a symbol is missing */
} tz_dynlib;

/* Opens the library and fills the slots (call it once, under pthread_once). */
void tz_dynlib_open(tz_dynlib *l);
/* 0 when the library is loaded; otherwise -1 with err saying what is missing. */
int tz_dynlib_status(const tz_dynlib *l, traza_err *err);

/* Defines, for a library whose function list is LIST (an X-macro of names), the
 * table type `tz_<tag>_api`, `const tz_<tag>_api *tz_<tag>_api_get(void)` (loads on
 * first call) and `int tz_<tag>_load(traza_err *)` (0, or -1 with the reason). The
 * table's members have the exact types of the library's declarations. */
#define TZ_DYNLIB_MEMBER(f) __typeof__(f) *f;
#define TZ_DYNLIB_DECLARE(tag, LIST)                                                                                    \
    typedef struct tz_##tag##_api {                                                                                     \
        LIST(TZ_DYNLIB_MEMBER)                                                                                          \
    } tz_##tag##_api;                                                                                                   \
    const tz_##tag##_api *tz_##tag##_api_get(void);                                                                     \
    int tz_##tag##_load(traza_err *err);

#define TZ_DYNLIB_NAME(f) #f,
#define TZ_DYNLIB_DEFINE(tag, LIST, so, pkg, what)                                                                      \
    static tz_##tag##_api tz_##tag##_fns;                                                                               \
    static const char *const tz_##tag##_names[] = {LIST(TZ_DYNLIB_NAME)};                                               \
    _Static_assert(sizeof(tz_##tag##_api) == sizeof tz_##tag##_names / sizeof *tz_##tag##_names * sizeof(tz_fn),       \
                   "function table layout");                                                                            \
    static tz_dynlib tz_##tag##_lib = {so, pkg, what, tz_##tag##_names, sizeof tz_##tag##_names / sizeof *tz_##tag##_names, \
                                       &tz_##tag##_fns, 0, {0}};                                                         \
    static pthread_once_t tz_##tag##_once = PTHREAD_ONCE_INIT;                                                          \
    static void tz_##tag##_init(void) { tz_dynlib_open(&tz_##tag##_lib); }                                              \
    const tz_##tag##_api *tz_##tag##_api_get(void)                                                                      \
    {                                                                                                                   \
        pthread_once(&tz_##tag##_once, tz_##tag##_init);                                                                \
        return &tz_##tag##_fns;                                                                                         \
    }                                                                                                                   \
    int tz_##tag##_load(traza_err *err)                                                                                 \
    {                                                                                                                   \
        pthread_once(&tz_##tag##_once, tz_##tag##_init);                                                                \
        return tz_dynlib_status(&tz_##tag##_lib, err);                                                                  \
    }

#endif
