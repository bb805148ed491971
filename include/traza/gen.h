/* traza — a deterministic synthetic trace generator (benchmarks and tests).
 *
 * The same options and seed always give the same events, whether they go straight
 * into a workspace (traza_gen_store) or into a file (traza_gen_file) that an
 * importer reads back into the same model. */
#ifndef TRAZA_GEN_H
#define TRAZA_GEN_H

#include <stdint.h>
#include <stddef.h>
#include "traza/store.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The public API: the only symbols libtraza.so exports (the library is built with
 * -fvisibility=hidden). */
#pragma GCC visibility push(default)
/* Experimental API: it may change between minor versions; its declarations are seen
 * only with TRAZA_EXPERIMENTAL_API defined (doc/architecture.md, "Stable and
 * experimental API"). */
#ifdef TRAZA_EXPERIMENTAL_API

#define TRAZA_GEN_MAX_DEPTH 8

typedef struct traza_gen_opts {
    uint64_t seed;
    int64_t events;                      /* number of events */
    int fanout[TRAZA_GEN_MAX_DEPTH];     /* producer tree: children per node, level by level */
    int depth;                           /* levels used in fanout; events go to the leaves */
    int types[TRAZA_NCATEGORIES];        /* event types per category */
    int params;                          /* parameters per event (types cycle int, double, string, hex) */
    int time_unit;                       /* exponent of seconds (-9 = ns) */
    int64_t mean_gap;                    /* mean ticks between two event starts */
} traza_gen_opts;

/* Defaults: seed 1, 100000 events, tree 4x8, types punctual=4 state=4 link=1
 * variable=1, 0 params, ns, mean gap 100 ticks. */
void traza_gen_opts_init(traza_gen_opts *o);
/* "4x8x16": fan-outs per level. */
int traza_gen_parse_tree(traza_gen_opts *o, const char *spec, traza_err *err);
/* About `producers` leaves over `depth` levels (equal fan-outs, the last one rounded up). */
int traza_gen_set_producers(traza_gen_opts *o, int64_t producers, int depth, traza_err *err);
/* "punctual=4,state=4,link=1,variable=1" (missing categories become 0). */
int traza_gen_parse_types(traza_gen_opts *o, const char *spec, traza_err *err);
/* Number of producers (all levels) and of leaves. */
int64_t traza_gen_producer_count(const traza_gen_opts *o, int64_t *leaves);

/* Writes a new trace named `name` into the workspace (format "gen"). */
int traza_gen_store(traza_workspace *ws, const char *name, const traza_gen_opts *o, traza_trace_info *out, traza_err *err);
/* Writes the same events as a file: format "csv" (a header naming the columns, so
 * `traza import` needs no --map) or "kptrace" (FrameSoC's KPTrace CSV layout; variable
 * events become states with a "value" parameter, leaf producers only). */
int traza_gen_file(const char *path, const char *format, const traza_gen_opts *o, traza_err *err);

#endif /* TRAZA_EXPERIMENTAL_API */
#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
