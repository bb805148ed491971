/* The warnings an analysis attaches to its result. */
#include "traza/analysis.h"

#include <stdarg.h>
#include <stdio.h>

void traza_warnings_add(traza_warnings *w, const char *fmt, ...)
{
    if (!w || w->n >= TRAZA_WARN_MAX)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->msg[w->n], sizeof w->msg[w->n], fmt, ap);
    va_end(ap);
    w->n++;
}
