/* traza — workspaces, trace stores, import writers and queries.
 *
 * A workspace holds a catalogue of traces and one store per trace. The backend
 * (SQLite directory, or PostgreSQL) is chosen by the workspace location; all SQL
 * stays behind this API. */
#ifndef TRAZA_STORE_H
#define TRAZA_STORE_H

#include <stdint.h>
#include <stddef.h>
#include "traza/ctx.h"
#include "traza/model.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The public API: the only symbols libtraza.so exports (the library is built with
 * -fvisibility=hidden). */
#pragma GCC visibility push(default)

typedef struct traza_workspace traza_workspace;
typedef struct traza_trace traza_trace;
typedef struct traza_writer traza_writer;
typedef struct traza_cursor traza_cursor;

/* ---- workspace ---------------------------------------------------------- */

/* The default workspace location: $TRAZA_WORKSPACE, else $XDG_DATA_HOME/traza, else
 * ~/.local/share/traza. Writes into buf; returns buf or NULL if nothing fits. */
const char *traza_workspace_default(char *buf, size_t size);

/* Opens (creating if needed) a workspace: a directory path (SQLite backend) or a
 * postgresql:// URI when that backend is built in. */
traza_workspace *traza_workspace_open(traza_ctx *ctx, const char *location, traza_err *err);
/* 1 if a workspace is at `location` (one that only reads can then open it without
 * creating anything), 0 if not. A postgresql:// URI counts as one: its database is
 * made by the server's administrator, its tables on first use. */
int traza_workspace_exists(const char *location);
void traza_workspace_close(traza_workspace *ws);
const char *traza_workspace_backend(const traza_workspace *ws);
traza_ctx *traza_workspace_ctx(traza_workspace *ws);
const char *traza_workspace_location(const traza_workspace *ws);

/* All traces, ordered by id. Free with traza_trace_info_array_free. */
int traza_workspace_list(traza_workspace *ws, traza_trace_info **out, size_t *n, traza_err *err);
/* Looks a trace up by name, or by numeric id given as text. */
int traza_workspace_find(traza_workspace *ws, const char *name_or_id, traza_trace_info *out, traza_err *err);
int traza_workspace_remove(traza_workspace *ws, const char *name_or_id, traza_err *err);
int traza_workspace_rename(traza_workspace *ws, const char *name_or_id, const char *new_name, traza_err *err);

/* Metadata of a trace: "alias" (traza_trace_info.alias) and free key/value pairs
 * (traza_trace_info.params), such as FrameSoC's application, board, os and
 * description. Sets kv[0..n-1] in one transaction; a NULL value removes the key.
 * A key is 1 to 64 characters among letters, digits, '_', '-' and '.'; a value
 * is UTF-8-agnostic text of at most 4096 bytes. */
int traza_workspace_set_meta(traza_workspace *ws, const char *name_or_id, const traza_kv *kv, size_t n, traza_err *err);
/* Checks one metadata key: 0, or -1 with an error naming it. */
int traza_meta_key_check(const char *key, traza_err *err);
/* Checks the entries kv[0..n-1] as traza_workspace_set_meta does (keys, value sizes). */
int traza_meta_check(const traza_kv *kv, size_t n, traza_err *err);

/* ---- writing a new trace (importers) ------------------------------------ */

/* Starts a new trace. Nothing is visible in the workspace until commit: an abort, an
 * error or a crash leaves the catalogue and every other trace as they were. */
traza_writer *traza_writer_begin(traza_workspace *ws, const char *name, const char *format, traza_err *err);
/* As traza_writer_begin, but a trace of that name may exist: the commit replaces it
 * (with its saved results) in the transaction that publishes the new one, so a reader
 * of the workspace finds the old trace or the new one, never neither nor a part. The
 * new trace gets a new id (greater than the old one's): a reader holding the old id
 * sees that the trace changed. A reader that has the old trace open keeps reading it. */
traza_writer *traza_writer_begin_replacing(traza_workspace *ws, const char *name, const char *format, traza_err *err);
int traza_writer_set_time_unit(traza_writer *w, int exponent);
int traza_writer_add_source(traza_writer *w, const char *path, traza_err *err);
int traza_writer_set_param(traza_writer *w, const char *key, const char *value, traza_err *err);
/* Get-or-create a producer by (parent, name). Returns its id, -1 on error. */
int32_t traza_writer_producer(traza_writer *w, int32_t parent, const char *name, const char *ptype, traza_err *err);
/* Get-or-create an event type by name. Using one name with two categories is an
 * error (TRAZA_E_EXISTS). Returns the id, -1 on error. */
int32_t traza_writer_event_type(traza_writer *w, const char *name, traza_category cat, traza_err *err);
int traza_writer_set_type_color(traza_writer *w, int32_t type, const char *color, traza_err *err);
/* Get-or-create a parameter definition of an event type. A second definition under
 * the same name with another ptype is an error. Returns the id, -1 on error. */
int32_t traza_writer_param_def(traza_writer *w, int32_t type, const char *name, traza_ptype ptype, traza_err *err);
/* Gives parameter `def` one value for every event of its type (a function's address,
 * file and line): the value is stored once, not per event, and readers see it on
 * every event of the type as if each carried it (queries, conditions, regexes,
 * exports, SQL views). Set once per definition; events then do not carry it (an
 * event that does is refused). Returns 0 or -1. */
int traza_writer_param_const(traza_writer *w, int32_t def, const traza_value *v, traza_err *err);
/* Adds an event (params included). ev->id is ignored; ids are assigned at commit in
 * time order. Returns 0 or -1. */
int traza_writer_event(traza_writer *w, const traza_event *ev, traza_err *err);
/* Number of events added so far. */
int64_t traza_writer_count(const traza_writer *w);
/* How the events are stored (doc/store.md, "Packed events"). Packed, many to a row:
 * about a fifth of the bytes of a function trace's rows, read by traza only (the
 * library and the SQL views see the same events, ids and order). Rows: an SQLite
 * table any tool reads. The PostgreSQL backend, and an import too large to sort in
 * memory, store rows whatever is asked. */
typedef enum traza_layout { TRAZA_LAYOUT_AUTO = 0, TRAZA_LAYOUT_ROWS = 1, TRAZA_LAYOUT_PACKED = 2 } traza_layout;
/* The layout chosen for this trace (the user's choice): it stands over the importer's. */
void traza_writer_set_layout(traza_writer *w, traza_layout layout);
/* The importer's default: packed, unless a layout was chosen (traza_writer_set_layout). */
void traza_writer_pack_events(traza_writer *w);
const char *traza_layout_name(traza_layout layout);
/* "rows", "packed" (or "auto"): the layout, or -1. */
int traza_layout_parse(const char *s);
/* Builds indexes, publishes the trace in the catalogue. The writer is freed either way. */
int traza_writer_commit(traza_writer *w, traza_trace_info *out_info, traza_err *err);
void traza_writer_abort(traza_writer *w);

/* ---- reading a trace ----------------------------------------------------- */

/* What a trace's events take in its workspace. */
typedef struct traza_trace_storage {
    int64_t bytes; /* its store (SQLite: the trace's file); -1 when the backend does not say (PostgreSQL) */
    int packed;    /* 1: its events are packed many to a row (traza_writer_pack_events) */
} traza_trace_storage;
int traza_trace_storage_of(traza_trace *t, traza_trace_storage *out, traza_err *err);

enum { TRAZA_OPEN_READ = 0, TRAZA_OPEN_WRITE = 1 /* to save results */ };

traza_trace *traza_trace_open(traza_workspace *ws, const char *name_or_id, int flags, traza_err *err);
void traza_trace_close(traza_trace *t);
const traza_trace_info *traza_trace_info_of(const traza_trace *t);
traza_workspace *traza_trace_workspace(traza_trace *t);

size_t traza_trace_producers(const traza_trace *t, const traza_producer **out);
size_t traza_trace_event_types(const traza_trace *t, const traza_event_type **out);
size_t traza_trace_param_defs(const traza_trace *t, const traza_param_def **out);
const traza_producer *traza_trace_producer(const traza_trace *t, int32_t id);
const traza_event_type *traza_trace_event_type(const traza_trace *t, int32_t id);
const traza_param_def *traza_trace_param_def(const traza_trace *t, int32_t id);
/* The value every event of the definition's type has (traza_writer_param_const), or
 * NULL when events carry their own values. */
const traza_value *traza_trace_param_const(const traza_trace *t, int32_t def);
const traza_event_type *traza_trace_event_type_by_name(const traza_trace *t, const char *name);
/* Finds a producer by name, or by path "root/child/grandchild", or by numeric id. */
const traza_producer *traza_trace_producer_find(const traza_trace *t, const char *spec);
/* The producer's full path "root/child" into buf. */
const char *traza_trace_producer_path(const traza_trace *t, int32_t id, char *buf, size_t size);
/* Appends the ids of producer `id` and all its descendants; returns the count or -1. */
int traza_trace_producer_subtree(const traza_trace *t, int32_t id, int32_t **ids, size_t *n, traza_err *err);

/* ---- queries ------------------------------------------------------------- */

typedef enum traza_cmp { TRAZA_EQ, TRAZA_NE, TRAZA_LT, TRAZA_GT, TRAZA_LE, TRAZA_GE } traza_cmp;

/* A condition on a named parameter: numeric when the value parses as a number and
 * the parameter is numeric, string comparison otherwise. */
typedef struct traza_param_cond {
    const char *name;
    traza_cmp op;
    const char *value;
} traza_param_cond;

/* A PCRE2 regular expression on a column: "type", "producer" (its path), "ts",
 * "end_ts", "category", "cpu", "value", "level", or a parameter name. Each match is
 * bounded (TRAZA_REGEX_MATCH_LIMIT backtracking steps, TRAZA_REGEX_DEPTH_LIMIT
 * nested ones): a value it cannot be decided on within them fails the query with
 * TRAZA_E_UNSUPPORTED and a message naming the regex, never a silent "no match". */
#define TRAZA_REGEX_MATCH_LIMIT 200000u
#define TRAZA_REGEX_DEPTH_LIMIT 200000u
typedef struct traza_regex_cond {
    const char *column;
    const char *pattern;
    int negate;
} traza_regex_cond;

/* traza_stop (ctx.h): a query's optional stop, e.g. a server's time budget. */

typedef enum traza_order { TRAZA_ORDER_TIME = 0, TRAZA_ORDER_TIME_DESC = 1 } traza_order;

typedef struct traza_filter {
    int has_from, has_to;
    int64_t from, to;          /* inclusive bounds on ts */
    int overlap;               /* intervals overlapping [from, to] instead of ts in it */
    const int32_t *types;      /* NULL = all */
    size_t ntypes;
    const int32_t *producers;  /* NULL = all; traza_filter_resolve expands subtrees */
    size_t nproducers;
    unsigned categories;       /* bit (1 << category); 0 = all */
    const traza_param_cond *conds;
    size_t nconds;
    const traza_regex_cond *regexes;
    size_t nregexes;
    int64_t event_set;         /* restrict to a saved event set, or to the event leaves of a saved
                                * group (result id); 0 = none */
    int64_t event_set_node;    /* with a group: only the leaves under this node (its id); 0 = all */
    traza_order order;
    int64_t offset;            /* skip this many matching events */
    int64_t limit;             /* at most this many; 0 = no limit */
    int with_params;           /* load parameter values into each event */
    const traza_stop *stop;    /* consulted (stage TRAZA_STAGE_READ) after each event a regex (or during) is
                                * evaluated on, and by the SQLite store while it looks for the
                                * next matching event; when it stops, the cursor fails with
                                * TRAZA_E_CANCELLED */
    int64_t during;            /* only events overlapping one of the time ranges of a saved
                                * annotations result (its id), [ts, end_ts] against each
                                * inclusive range; applied above the backend like the regexes;
                                * 0 = none */
} traza_filter;

void traza_filter_init(traza_filter *f);

/* What a front end selects by name or id, as its user wrote it; the store resolves
 * it (traza_filter_resolve), so no caller expands producer subtrees itself. */
typedef struct traza_filter_spec {
    const char *const *type_names;     /* event type names */
    size_t ntype_names;
    const int32_t *type_ids;           /* event type ids */
    size_t ntype_ids;
    const char *const *producer_names; /* producer names, paths "a/b/c" or ids */
    size_t nproducer_names;
    const int32_t *producer_ids;
    size_t nproducer_ids;
    int subtree;                       /* each producer with all its descendants */
    const char *const *categories;     /* "punctual", "state", "link", "variable" */
    size_t ncategories;
    const char *result;                /* a saved result (name or id): an event set keeps its events */
    int producer_sets;                 /* 1: result may be a producer set, which keeps its producers
                                        * (those among the producers above when some are given; none
                                        * at all makes the window empty) */
    const char *during;                /* a saved annotations result (name or id) whose time ranges
                                        * keep the events that overlap one of them */
    const traza_regex_cond *regexes;   /* every one must match (traza_regex_cond_parse reads them) */
    size_t nregexes;
} traza_filter_spec;

/* Reads a regular expression condition written "COLUMN~REGEX" (the column matches)
 * or "COLUMN!~REGEX" (it does not): out->pattern points into text, out->column is
 * *column, a malloc'd copy the caller frees. 0, or -1 with err (TRAZA_E_USAGE: no
 * '~' after a column name; TRAZA_E_NOMEM), *column then NULL. */
int traza_regex_cond_parse(const char *text, traza_regex_cond *out, char **column, traza_err *err);

/* Reads a parameter condition written "PARAM OP VALUE" (OP one of = != < > <= >=,
 * the first in the text; spaces around it ignored): out->name and out->value point
 * into *copy, a malloc'd copy of text the caller frees. 0, or -1 with err
 * (TRAZA_E_USAGE: no operator after a name; TRAZA_E_NOMEM), *copy then NULL. */
int traza_param_cond_parse(const char *text, traza_param_cond *out, char **copy, traza_err *err);

/* Sets the types, producers, categories, event_set, during and regexes of f from spec
 * (f's regexes point to spec's); the other fields are left as they are, and an
 * event_set already set must be the result's.
 * With during and no window in f, the window becomes the ranges' span, overlapping.
 * f->types and f->producers then point into *types and *producers (malloc'd, NULL
 * when none), which the caller frees. 0, or -1 with err (TRAZA_E_NOTFOUND: no such
 * type, producer or result; TRAZA_E_USAGE: an unknown category, a result of another
 * kind, another event set, or a during result that is not a set of time ranges), f,
 * *types and *producers then unchanged. */
int traza_filter_resolve(traza_trace *t, const traza_filter_spec *spec, traza_filter *f, int32_t **types,
                         int32_t **producers, traza_err *err);

/* Opens a cursor; events come in time order (ties by id). */
traza_cursor *traza_query(traza_trace *t, const traza_filter *f, traza_err *err);
/* 1 with *ev set (valid until the next call), 0 at the end, -1 on error. */
int traza_cursor_next(traza_cursor *c, const traza_event **ev, traza_err *err);
void traza_cursor_free(traza_cursor *c);
/* Counts matching events (offset/limit ignored). -1 on error. */
int64_t traza_count(traza_trace *t, const traza_filter *f, traza_err *err);

/* ---- fast scans for analyses --------------------------------------------- */

/* Events as parallel arrays of the columns most analyses need. end_ts equals ts for
 * an event without an end time. */
typedef struct traza_scan_batch {
    size_t n;
    const int64_t *id;
    const int64_t *ts;
    const int64_t *end_ts;
    const int32_t *type;
    const int32_t *producer;
} traza_scan_batch;

typedef struct traza_scan traza_scan;

/* Opens a scan of the events matching f (every filter field applies, including
 * regexes, offset and limit; with_params is ignored), in time order (or reversed
 * with TRAZA_ORDER_TIME_DESC). Much cheaper per event than traza_query when only
 * these columns are needed. */
traza_scan *traza_scan_open(traza_trace *t, const traza_filter *f, traza_err *err);
/* 1 with *b filled (arrays valid until the next call; b->n >= 1), 0 at the end,
 * -1 on error. */
int traza_scan_next(traza_scan *s, traza_scan_batch *b, traza_err *err);
void traza_scan_free(traza_scan *s);

/* ---- ranks and overviews ------------------------------------------------------ */

/* The rank of an event is its 0-based position in time order (ties by id). These
 * calls answer in O(log n) store look-ups without reading the events in between;
 * they are for views that must stay fast on traces of millions of events. A backend
 * without them (PostgreSQL) answers TRAZA_E_UNSUPPORTED. */

/* For each ts[i], the number of events that start before ts[i] (the rank of the first
 * event with start >= ts[i]) into rank[i]. */
int traza_ranks_of(traza_trace *t, const int64_t *ts, size_t n, int64_t *rank, traza_err *err);
/* Start time, type and producer of the events of ranks rank[0..n-1] (each < events). */
int traza_events_at(traza_trace *t, const int64_t *rank, size_t n, int64_t *ts, int32_t *type, int32_t *producer,
                    traza_err *err);

/* Every step-th event of the trace in time order: entry i is the event of rank
 * i * step. Stored with the trace at import (computed on first use for older
 * stores); the arrays belong to the open trace. */
typedef struct traza_overview {
    int64_t step;
    size_t n;
    const int64_t *ts;
    const int32_t *type;
    const int32_t *producer;
} traza_overview;
int traza_trace_overview(traza_trace *t, traza_overview *ov, traza_err *err);

/* ---- time values ---------------------------------------------------------- */

/* Parses "1.5ms", "200us", "3s", "42ns", "10ps", or raw ticks ("12345") into ticks
 * of 10^time_unit seconds. */
int traza_time_parse(const char *text, int time_unit, int64_t *out, traza_err *err);
/* A time of a trace, as people give it:
 *   - with a unit ("1.5ms", "+2s", "-10us"): relative to the trace's start (min_ts),
 *     unless `absolute` is set;
 *   - "@" then a value ("@1571261796.553s", "@12345"): absolute, unit or ticks;
 *   - raw ticks ("12345"): absolute ticks of the trace's time unit.
 * The result is in absolute ticks. */
int traza_time_parse_in(const traza_trace_info *info, const char *text, int absolute, int64_t *out, traza_err *err);
/* Formats ticks as a human string with a unit ("1.5 ms"). */
const char *traza_time_format(int64_t ticks, int time_unit, char *buf, size_t size);
/* Formats ticks as exact decimal seconds, every digit kept ("1571261795.523067504 s"):
 * for instants such as an epoch start. */
const char *traza_time_format_exact(int64_t ticks, int time_unit, char *buf, size_t size);
/* A trace whose ticks are not seconds says so in its parameter "time.axis": the value
 * "instructions" (a tick is one executed instruction, ETM traces without timestamps)
 * or "ticks" (a tick of a clock whose frequency the trace does not give: ETM traces
 * timed by their timestamps). Returns that value, or NULL when the axis is time
 * (10^time_unit s). */
#define TRAZA_TIME_AXIS_PARAM "time.axis"
const char *traza_time_axis(const traza_trace_info *info);
/* traza_time_format (exact: traza_time_format_exact) for a trace, on its axis:
 * "9548 instr" on an instruction axis, "120 ticks" on a tick axis. */
const char *traza_trace_time_format(const traza_trace_info *info, int64_t ticks, int exact, char *buf, size_t size);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
