/* The event filter a tool takes as options, named as `traza query` names them, so
 * that a tool run on the CLI, from the web UI or by a plugin reads the events a view
 * shows. Parsed into a traza_filter_spec and resolved by traza_filter_resolve. */
#ifndef TZ_TOOL_FILTER_H
#define TZ_TOOL_FILTER_H

#include "traza/store.h"
#include "traza/tool.h"
#include "util/util.h"

/* The options, for a tool's option table (its window, from and to, it declares
 * itself: tools tell what the window means to them). */
#define TZ_FILTER_OPTIONS                                                                                                  \
    {"type", TRAZA_OPT_STRING, NULL, "event type (repeatable)", 0, 1},                                                    \
    {"producer", TRAZA_OPT_STRING, NULL, "producer name or path a/b/c (repeatable)", 0, 1},                               \
    {"subtree", TRAZA_OPT_BOOL, "false", "each producer given with its descendants", 0, 0},                               \
    TZ_FILTER_CONDITION_OPTIONS

/* The filter options but those that name types and producers: for the analyses of a
 * series, whose own options name its type and producer (tz_filter_args.conditions_only). */
#define TZ_FILTER_CONDITION_OPTIONS                                                                                        \
    {"category", TRAZA_OPT_STRING, NULL, "punctual, state, link or variable (repeatable)", 0, 1},                          \
    {"where", TRAZA_OPT_STRING, NULL, "parameter condition PARAM OP VALUE (repeatable)", 0, 1},                           \
    {"regex", TRAZA_OPT_STRING, NULL, "regular expression on a column, COLUMN~REGEX or COLUMN!~REGEX (repeatable)", 0, 1}, \
    {"set", TRAZA_OPT_RESULT, NULL, "a saved event set or group (its events) or producer set (its producers)", 0, 0},     \
    {"during", TRAZA_OPT_RESULT, NULL, "saved annotations: only the events overlapping one of their time ranges", 0, 0}

typedef struct tz_filter_args {
    traza_filter f;
    int32_t *types, *producers;       /* resolved ids f points into */
    traza_param_cond *conds;
    char **cond_copies;
    traza_regex_cond *regexes;
    char **regex_columns;
    size_t nconds, nregexes;
    int conditions_only; /* set before tz_filter_args_read: options type, producer and subtree are the tool's own */
} tz_filter_args;

/* An empty filter (every event): set f's window before tz_filter_args_read. */
void tz_filter_args_init(tz_filter_args *tf);
/* Adds the filter options of the call to tf->f, with the producers of extra_producers
 * (ids, e.g. those of a producer set the tool takes by another option). 0, or -1 with
 * err naming the option. */
int tz_filter_args_read(const traza_tool *tool, const traza_tool_call *call, traza_trace *t, const int32_t *extra_producers,
                        size_t nextra, tz_filter_args *tf, traza_err *err);
/* The filter options of the call as "NAME=VALUE" words (with conditions_only, those
 * of TZ_FILTER_CONDITION_OPTIONS), each after `sep`, appended to
 * b in the order given (nothing when none): what a result's name or parameters carry
 * so that a filtered run is told from an unfiltered one. Options in `skip` (NULL-ended,
 * or NULL) are left out. */
void tz_filter_args_text(const traza_tool_call *call, const char *sep, const char *const *skip, tz_buf *b);
/* The same for a tool of TZ_FILTER_CONDITION_OPTIONS. */
void tz_filter_conditions_text(const traza_tool_call *call, const char *sep, tz_buf *b);
void tz_filter_args_free(tz_filter_args *tf);

/* The events sel selects (NULL: every event) in time order, every one of them: sel
 * without its offset, limit and order, for an analysis that reads them all. */
traza_filter tz_filter_all_of(const traza_filter *sel);

/* Keeps in ids[0..*n) those also in keep[0..nkeep) (short lists), in place; an empty
 * `keep` keeps all. */
void tz_ids_keep(int32_t *ids, size_t *n, const int32_t *keep, size_t nkeep);

/* Restricts f to the events of one category, for an analysis that reads only those
 * (`what` names them in the error): -1 with TRAZA_E_USAGE when f's categories leave
 * that one out. */
int tz_filter_only_category(traza_filter *f, traza_category category, const char *what, traza_err *err);

#endif
