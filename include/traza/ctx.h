/* traza — library context: logger, progress reporting, tool registry.
 *
 * libtraza keeps no global state: everything a call needs that is not an argument
 * lives in a traza_ctx created by the caller. */
#ifndef TRAZA_CTX_H
#define TRAZA_CTX_H

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
/* Progress of long work: `done` of `total` units (total 0 = unknown).
 * Return non-zero to cancel the work (it then fails with TRAZA_E_CANCELLED). */
typedef int (*traza_progress_fn)(void *user, const char *what, uint64_t done, uint64_t total);

typedef struct traza_ctx traza_ctx;
typedef struct traza_registry traza_registry;

traza_ctx *traza_ctx_new(traza_err *err);
void traza_ctx_free(traza_ctx *ctx);
void traza_ctx_set_logger(traza_ctx *ctx, traza_log_fn fn, void *user, traza_log_level min_level);
void traza_ctx_set_progress(traza_ctx *ctx, traza_progress_fn fn, void *user);
/* The tool registry of this context (built-in tools are registered by traza_ctx_new). */
traza_registry *traza_ctx_registry(traza_ctx *ctx);

void traza_log(traza_ctx *ctx, traza_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Returns non-zero if the user cancelled. Cheap to call often: it rate-limits itself. */
int traza_progress(traza_ctx *ctx, const char *what, uint64_t done, uint64_t total);

const char *traza_version(void);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
