/* traza — a self-contained HTML report (inline SVG charts, no network needed). */
#ifndef TRAZA_REPORT_H
#define TRAZA_REPORT_H

#include "traza/store.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The public API: the only symbols libtraza.so exports (the library is built with
 * -fvisibility=hidden). */
#pragma GCC visibility push(default)

/* Appends one section per trace: metadata, event density, pie charts of events per
 * type and per producer, and the states with the largest total duration. Returns a
 * malloc'd HTML document, or NULL with err set. */
char *traza_report_html(traza_trace *const *traces, size_t n, size_t density_slices, traza_err *err);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
