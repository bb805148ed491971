/* traza — small, dependency-free SVG charts (pie, histogram, bars) and the
 * deterministic colours every view uses for event types and producers. */
#ifndef TRAZA_SVG_H
#define TRAZA_SVG_H

#include <stddef.h>
#include <stdint.h>
#include "traza/model.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The public API: the only symbols libtraza.so exports (the library is built with
 * -fvisibility=hidden). */
#pragma GCC visibility push(default)

/* A stable colour for a name ("#rrggbb"): the same name gets the same colour in
 * every run, report and view. */
void traza_color_for(const char *name, char out[8]);

typedef struct traza_chart_item {
    const char *label;
    double value;
    const char *color;  /* NULL = traza_color_for(label) */
} traza_chart_item;

/* Each returns a malloc'd, self-contained SVG document, or NULL when out of memory.
 * Pie: slices below 1% are grouped as "other"; the legend shows values and shares. */
char *traza_svg_pie(const char *title, const traza_chart_item *items, size_t n);
/* Histogram of counts over [x0, x1] with axis labels (x_unit is the axis caption). */
char *traza_svg_histogram(const char *title, const uint64_t *counts, size_t n, double x0, double x1, const char *x_unit);
/* The event density of a trace, counts of slices over [from, to] (ticks of info's
 * time unit): the x axis reads time from the trace's start (min_ts), in the unit
 * that suits the span ("time from the start (ms)"). */
char *traza_svg_density(const char *title, const uint64_t *counts, size_t n, int64_t from, int64_t to,
                        const traza_trace_info *info);
/* Horizontal bars, largest first as given. */
char *traza_svg_bars(const char *title, const traza_chart_item *items, size_t n, const char *value_unit);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
