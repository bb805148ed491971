/* traza — library context: logger, progress reporting, tool registry.
 *
 * libtraza keeps no global state: everything a call needs that is not an argument
 * lives in a traza_ctx created by the caller. */
#ifndef TRAZA_CTX_H
#define TRAZA_CTX_H

#include <stddef.h>
#include <stdint.h>
#include "traza/error.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The public API: the only symbols libtraza.so exports (the library is built with
 * -fvisibility=hidden). */
#pragma GCC visibility push(default)

typedef enum traza_log_level { TRAZA_LOG_DEBUG, TRAZA_LOG_INFO, TRAZA_LOG_WARN, TRAZA_LOG_ERROR } traza_log_level;

typedef void (*traza_log_fn)(void *user, traza_log_level level, const char *msg);

/* The one way to stop work early (doc/architecture.md, "Cancellation"). Nonzero from
 * fn(ctx, stage) stops the work; the library reads no clock: the caller decides (a
 * user's cancel, a signal, a server's time budget). A NULL stop or fn never stops.
 * A call that takes a traza_stop (a query's filter, series loading, ranking, SQL)
 * consults it and may answer partially; the other long work (imports, generation,
 * analysis tools) consults the context's stop (traza_ctx_set_stop) and fails with
 * TRAZA_E_CANCELLED. */
enum { TRAZA_STAGE_READ = 0, TRAZA_STAGE_COMPUTE = 1 };
typedef struct traza_stop {
    int (*fn)(void *ctx, int stage);
    void *ctx;
} traza_stop;

/* Progress of long work: `done` of `total` units (total 0 = unknown). It only
 * reports: stopping is the context's stop. */
typedef void (*traza_progress_fn)(void *user, const char *what, uint64_t done, uint64_t total);

typedef struct traza_ctx traza_ctx;
typedef struct traza_registry traza_registry;

traza_ctx *traza_ctx_new(traza_err *err);
void traza_ctx_free(traza_ctx *ctx);
void traza_ctx_set_logger(traza_ctx *ctx, traza_log_fn fn, void *user, traza_log_level min_level);
void traza_ctx_set_progress(traza_ctx *ctx, traza_progress_fn fn, void *user);
/* The stop the context's long work consults (a copy of *stop is kept; NULL: never). */
void traza_ctx_set_stop(traza_ctx *ctx, const traza_stop *stop);
/* The tool registry of this context (built-in tools are registered by traza_ctx_new). */
traza_registry *traza_ctx_registry(traza_ctx *ctx);

void traza_log(traza_ctx *ctx, traza_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Reports progress (at most ~10 times a second, and the final report) and returns
 * non-zero when the context's stop asks the work to stop (stage TRAZA_STAGE_COMPUTE),
 * asked at every call. Cheap to call often. */
int traza_progress(traza_ctx *ctx, const char *what, uint64_t done, uint64_t total);

const char *traza_version(void);

/* An optional feature of libtraza: built in, or left out because the build lacked its
 * library's development files (it then fails with TRAZA_E_UNSUPPORTED saying so). */
typedef struct traza_feature {
    const char *name;    /* "postgresql", "ctf", "etm", "trace-cmd" */
    const char *what;    /* what it gives: "CTF traces", ... */
    const char *library; /* the library it needs: "libbabeltrace2", ... */
    const char *package; /* the Debian packages of its development files, space-separated */
    int built;           /* 1 when this build has it */
} traza_feature;
/* The i-th optional feature (0, 1, ...) into *out: 0, or -1 past the last. */
int traza_feature_get(size_t i, traza_feature *out);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
