/* Complete or loud: the one report of skipped inputs that every importer uses. */
#include "import/skips.h"

#include <stdio.h>

void tz_skips_init(tz_skips *s, traza_ctx *ctx, traza_writer *w, const char *path, traza_err *err)
{
    s->ctx = ctx;
    s->w = w;
    s->path = path;
    s->err = err;
    tz_buf_init(&s->msg);
    s->total = 0;
    s->rc = 0;
}

int tz_skips_note(tz_skips *s, const char *key, const char *what, int64_t n)
{
    if (!n || s->rc)
        return s->rc;
    char num[24], pkey[80];
    snprintf(num, sizeof num, "%lld", (long long)n);
    snprintf(pkey, sizeof pkey, "skipped.%s", key);
    traza_log(s->ctx, TRAZA_LOG_WARN, "%s: skipped %lld %s", s->path, (long long)n, what);
    tz_buf_printf(&s->msg, "%s%lld %s", s->msg.len ? ", " : "", (long long)n, what);
    s->total += n;
    if (s->msg.oom)
        s->rc = traza_err_set(s->err, TRAZA_E_NOMEM, "%s: out of memory", s->path);
    else if (traza_writer_set_param(s->w, pkey, num, s->err) < 0)
        s->rc = -1;
    return s->rc;
}

int tz_skips_finish(tz_skips *s, int strict, int64_t emitted)
{
    int rc = s->rc;
    if (rc == 0 && s->total && (strict || emitted == 0))
        rc = traza_err_set(s->err, TRAZA_E_PARSE, "%s: %s: skipped %s", s->path,
                           strict ? "a strict import takes every event" : "no event to import", s->msg.s);
    tz_buf_free(&s->msg);
    return rc;
}

int tz_skips_report(traza_ctx *ctx, traza_writer *w, const char *path, const tz_skip_kind *kinds, size_t n,
                    int strict, int64_t emitted, traza_err *err)
{
    tz_skips s;
    tz_skips_init(&s, ctx, w, path, err);
    for (size_t i = 0; i < n; i++)
        tz_skips_note(&s, kinds[i].key, kinds[i].what, kinds[i].n);
    return tz_skips_finish(&s, strict, emitted);
}
