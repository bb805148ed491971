/* traza — analysis results stored beside the trace (FrameSoC results).
 *
 * One tool's output is the next tool's input: event sets and producer sets from
 * filters and searches, groups (trees, ordered or not, over events, types or
 * producers), annotations (typed key/values with optional time ranges), and
 * processed traces (a derived trace of the workspace linked to its source). */
#ifndef TRAZA_RESULT_H
#define TRAZA_RESULT_H

#include <stdint.h>
#include <stddef.h>
#include "traza/store.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The public API: the only symbols libtraza.so exports (the library is built with
 * -fvisibility=hidden). */
#pragma GCC visibility push(default)

typedef enum traza_result_kind {
    TRAZA_RES_EVENT_SET = 0,
    TRAZA_RES_PRODUCER_SET = 1,
    TRAZA_RES_GROUP = 2,
    TRAZA_RES_ANNOTATION = 3,
    TRAZA_RES_PROCESSED_TRACE = 4
} traza_result_kind;

const char *traza_result_kind_name(traza_result_kind k);
int traza_result_kind_parse(const char *name);

typedef struct traza_result_info {
    int64_t id;
    char *name;
    traza_result_kind kind;
    char *tool;       /* the tool that made it */
    char *params;     /* the options it ran with, as text */
    int64_t created;  /* unix seconds */
    int64_t size;     /* members / nodes / annotations; for processed traces 1 */
    char *target;     /* processed trace: the derived trace's name */
    char *inputs;     /* provenance: the saved results it read, one a line; NULL if none */
    char *version;    /* provenance: the traza version that made it; NULL before it was kept */
} traza_result_info;

void traza_result_info_clear(traza_result_info *r);
void traza_result_info_array_free(traza_result_info *arr, size_t n);

/* What every save takes besides the payload. With the library's version and the time
 * of the save, the tool, params and inputs are the result's provenance. */
typedef struct traza_result_meta {
    const char *name;   /* unique within the trace; an existing one is replaced if `replace` */
    const char *tool;
    const char *params;
    int replace;
    const char *inputs; /* the saved results the tool read, one a line; NULL if none */
} traza_result_meta;

enum { TRAZA_GROUP_NONE = 0, TRAZA_GROUP_EVENT = 1, TRAZA_GROUP_TYPE = 2, TRAZA_GROUP_PRODUCER = 3 };

/* A node of a group tree. Inner nodes have ref_kind NONE; leaves reference an
 * event, type or producer. `position` orders children when the parent is ordered. */
typedef struct traza_group_node {
    int64_t id;        /* unique within the group, > 0 */
    int64_t parent;    /* 0 for the root(s) */
    const char *name;  /* may be NULL */
    int ordered;       /* children are ordered */
    int ref_kind;      /* TRAZA_GROUP_* */
    int64_t ref;
    int64_t position;
} traza_group_node;

typedef struct traza_annotation {
    const char *key;
    traza_value value;
    int has_range;
    int64_t from, to;
} traza_annotation;

/* Each save returns the new result id (> 0) or -1. The trace must be opened with
 * TRAZA_OPEN_WRITE. */
int64_t traza_result_save_events(traza_trace *t, const traza_result_meta *m, const int64_t *ids, size_t n, traza_err *err);
int64_t traza_result_save_producers(traza_trace *t, const traza_result_meta *m, const int32_t *ids, size_t n, traza_err *err);
int64_t traza_result_save_group(traza_trace *t, const traza_result_meta *m, const traza_group_node *nodes, size_t n, traza_err *err);
int64_t traza_result_save_annotations(traza_trace *t, const traza_result_meta *m, const traza_annotation *a, size_t n, traza_err *err);
int64_t traza_result_save_processed(traza_trace *t, const traza_result_meta *m, const char *derived_trace, traza_err *err);

int traza_result_list(traza_trace *t, traza_result_info **out, size_t *n, traza_err *err);
/* By name or numeric id. */
int traza_result_find(traza_trace *t, const char *name_or_id, traza_result_info *out, traza_err *err);
int traza_result_delete(traza_trace *t, int64_t id, traza_err *err);

/* A saved result named as another tool's input: NAME or ID, or GROUP/NODE, the part of
 * a group under one of its nodes, named by the node's name or id (a seqsearch group's
 * second instance: 'seq:A,B/9'). *node gets that node's id, 0 for a whole result. */
int traza_result_input(traza_trace *t, const char *ref, traza_result_info *out, int64_t *node, traza_err *err);
/* Restricts f to the events of a saved result: an event set's members, or the event
 * leaves of a group (of one node's subtree with GROUP/NODE). Other kinds are refused. */
int traza_filter_set_result(traza_trace *t, traza_filter *f, const char *ref, traza_err *err);
/* The producers of a saved result, sorted, malloc'd: a producer set's members; a
 * group's producer leaves and the producers of its event leaves (under NODE with
 * GROUP/NODE); an event set's producers. Annotations and processed traces are refused. */
int traza_result_producer_ids(traza_trace *t, const char *ref, int32_t **ids, size_t *n, traza_err *err);

/* Payload readers. Arrays are malloc'd; free() them (groups/annotations: use the
 * matching free function). */
int traza_result_events(traza_trace *t, int64_t id, int64_t **ids, size_t *n, traza_err *err);
/* The ids of the event sets (TRAZA_RES_EVENT_SET results) that hold event `event`, in
 * order: one membership look-up per event set, never a read of the members. */
int traza_result_sets_of_event(traza_trace *t, int64_t event, int64_t **ids, size_t *n, traza_err *err);
int traza_result_producers(traza_trace *t, int64_t id, int32_t **ids, size_t *n, traza_err *err);
int traza_result_group(traza_trace *t, int64_t id, traza_group_node **nodes, size_t *n, traza_err *err);
void traza_group_nodes_free(traza_group_node *nodes, size_t n);
int traza_result_annotations(traza_trace *t, int64_t id, traza_annotation **a, size_t *n, traza_err *err);
void traza_annotations_free(traza_annotation *a, size_t n);

typedef struct traza_time_range {
    int64_t from, to; /* inclusive, from <= to */
} traza_time_range;
/* The time ranges of the annotations of result `id` into *out (malloc'd, free()),
 * sorted by start and merged where they overlap or touch, so that they are disjoint;
 * annotations without a range are skipped. */
int traza_result_time_ranges(traza_trace *t, int64_t id, traza_time_range **out, size_t *n, traza_err *err);
/* Whether [from, to] overlaps one of n sorted disjoint ranges (as the above gives them). */
int traza_time_ranges_overlap(const traza_time_range *r, size_t n, int64_t from, int64_t to);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
