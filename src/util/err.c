/* Error reporting: a code plus a precise, caller-visible message. */
#include "traza/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int traza_err_set(traza_err *err, traza_errcode code, const char *fmt, ...)
{
    if (!err)
        return -1;
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return -1;
}

int traza_err_prefix(traza_err *err, const char *fmt, ...)
{
    if (!err)
        return -1;
    char pre[512], old[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pre, sizeof pre, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    size_t pl = strnlen(pre, sizeof pre - 1);
    size_t ol = strnlen(old, sizeof old - 1);
    if (pl > sizeof err->msg - 1)
        pl = sizeof err->msg - 1;
    if (ol > sizeof err->msg - 1 - pl)
        ol = sizeof err->msg - 1 - pl;
    memcpy(err->msg, pre, pl);
    memcpy(err->msg + pl, old, ol);
    err->msg[pl + ol] = '\0';
    return -1;
}

void traza_err_clear(traza_err *err)
{
    if (err) {
        err->code = TRAZA_OK;
        err->msg[0] = '\0';
    }
}

const char *traza_errcode_name(traza_errcode code)
{
    switch (code) {
    case TRAZA_OK: return "ok";
    case TRAZA_E_IO: return "i/o error";
    case TRAZA_E_NOMEM: return "out of memory";
    case TRAZA_E_PARSE: return "parse error";
    case TRAZA_E_USAGE: return "usage error";
    case TRAZA_E_NOTFOUND: return "not found";
    case TRAZA_E_EXISTS: return "already exists";
    case TRAZA_E_FORMAT: return "bad file format";
    case TRAZA_E_UNSUPPORTED: return "unsupported";
    case TRAZA_E_INTERNAL: return "internal error";
    case TRAZA_E_CANCELLED: return "cancelled";
    }
    return "error";
}
