/* The library context: logger, progress callback, stop, and the tool registry it owns (which
 * is why it lives with the registry, above util). */
#include "traza/version.h"
#include "traza/ctx.h"
#include "tools/registry_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct traza_ctx {
    traza_log_fn log;
    void *log_user;
    traza_log_level min_level;
    traza_progress_fn progress;
    void *progress_user;
    struct timespec last_progress;
    traza_stop stop;
    traza_registry *registry;
};

traza_ctx *traza_ctx_new(traza_err *err)
{
    traza_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory creating a context");
        return NULL;
    }
    ctx->min_level = TRAZA_LOG_INFO;
    ctx->registry = tz_registry_new(ctx, err);
    if (!ctx->registry) {
        free(ctx);
        return NULL;
    }
    return ctx;
}

void traza_ctx_free(traza_ctx *ctx)
{
    if (!ctx)
        return;
    tz_registry_free(ctx->registry);
    free(ctx);
}

void traza_ctx_set_logger(traza_ctx *ctx, traza_log_fn fn, void *user, traza_log_level min_level)
{
    ctx->log = fn;
    ctx->log_user = user;
    ctx->min_level = min_level;
}

void traza_ctx_set_progress(traza_ctx *ctx, traza_progress_fn fn, void *user)
{
    ctx->progress = fn;
    ctx->progress_user = user;
}

traza_registry *traza_ctx_registry(traza_ctx *ctx) { return ctx->registry; }

void traza_log(traza_ctx *ctx, traza_log_level level, const char *fmt, ...)
{
    if (!ctx || !ctx->log || level < ctx->min_level)
        return;
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ctx->log(ctx->log_user, level, msg);
}

void traza_ctx_set_stop(traza_ctx *ctx, const traza_stop *stop)
{
    ctx->stop = stop ? *stop : (traza_stop){NULL, NULL};
}

int traza_progress(traza_ctx *ctx, const char *what, uint64_t done, uint64_t total)
{
    if (!ctx)
        return 0;
    if (ctx->progress) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long ms = (now.tv_sec - ctx->last_progress.tv_sec) * 1000 + (now.tv_nsec - ctx->last_progress.tv_nsec) / 1000000;
        /* At most ~10 calls a second, but always the final one. */
        if (ms >= 100 || (total && done >= total)) {
            ctx->last_progress = now;
            ctx->progress(ctx->progress_user, what, done, total);
        }
    }
    return ctx->stop.fn && ctx->stop.fn(ctx->stop.ctx, TRAZA_STAGE_COMPUTE);
}

const char *traza_version(void) { return TRAZA_VERSION_STRING; }
