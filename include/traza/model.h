/* traza — the generic, self-describing trace model (FrameSoC lineage).
 *
 * A trace has producers (a tree), event types (each of one category, with typed
 * parameter definitions) and events. Fixed fields are typed struct members; the
 * variable part of an event is its list of parameter values. */
#ifndef TRAZA_MODEL_H
#define TRAZA_MODEL_H

#include <stdint.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif
/* The public API: the only symbols libtraza.so exports (the library is built with
 * -fvisibility=hidden). */
#pragma GCC visibility push(default)

typedef enum traza_category {
    TRAZA_PUNCTUAL = 0, /* instant */
    TRAZA_STATE = 1,    /* interval on one producer, with a nesting level */
    TRAZA_LINK = 2,     /* interval from a producer to an end producer */
    TRAZA_VARIABLE = 3, /* a value holding over an interval */
    TRAZA_NCATEGORIES = 4
} traza_category;

const char *traza_category_name(traza_category c);
/* Returns -1 if the name is unknown. */
int traza_category_parse(const char *name);

typedef enum traza_ptype {
    TRAZA_PT_INT = 0,
    TRAZA_PT_DOUBLE = 1,
    TRAZA_PT_STRING = 2,
    TRAZA_PT_HEX = 3 /* an integer shown in hexadecimal (addresses) */
} traza_ptype;

const char *traza_ptype_name(traza_ptype t);
int traza_ptype_parse(const char *name);

typedef struct traza_value {
    traza_ptype kind;
    int64_t i;     /* TRAZA_PT_INT, TRAZA_PT_HEX */
    double d;      /* TRAZA_PT_DOUBLE */
    const char *s; /* TRAZA_PT_STRING (not owned) */
} traza_value;

typedef struct traza_producer {
    int32_t id;
    int32_t parent; /* -1 for a root */
    const char *name;
    const char *type; /* free text: "Process", "Thread", "Core", a Pajé container type... */
} traza_producer;

typedef struct traza_param_def {
    int32_t id;
    int32_t type_id; /* the event type it belongs to */
    const char *name;
    traza_ptype ptype;
} traza_param_def;

typedef struct traza_event_type {
    int32_t id;
    const char *name;
    traza_category category;
    const char *color; /* "#rrggbb" or NULL */
} traza_event_type;

typedef struct traza_param {
    int32_t def;
    traza_value v;
} traza_param;

/* Presence bits of the optional fixed fields of an event. */
enum {
    TRAZA_HAS_END = 1u << 0,          /* end_ts (state, link, variable) */
    TRAZA_HAS_END_PRODUCER = 1u << 1, /* end_producer (link) */
    TRAZA_HAS_LEVEL = 1u << 2,        /* level (state nesting) */
    TRAZA_HAS_VALUE = 1u << 3,        /* value (variable) */
    TRAZA_HAS_CPU = 1u << 4           /* cpu */
};

#define TRAZA_NO_ID (-1)

typedef struct traza_event {
    int64_t id;       /* assigned by the store; ids follow time order */
    int64_t ts;       /* in the trace's time unit */
    int64_t end_ts;
    int32_t type;
    int32_t producer;
    int32_t end_producer;
    int32_t level;
    int32_t cpu;
    uint32_t has;     /* TRAZA_HAS_* */
    double value;
    const traza_param *params;
    uint32_t nparams;
} traza_event;

/* Metadata of a stored trace, as kept in the workspace catalogue. */
typedef struct traza_kv {
    char *key;
    char *value;
} traza_kv;

typedef struct traza_trace_info {
    int64_t id;
    char *name;
    char *alias;       /* free text, may be NULL */
    char *format;      /* the trace type: "paje", "kptrace", "pc", "csv", "gen", ... */
    int time_unit;     /* timestamps are in 10^time_unit seconds (-9 = ns) */
    int64_t min_ts, max_ts;
    int64_t events, producers, event_types;
    int64_t categories[TRAZA_NCATEGORIES]; /* events per category */
    int64_t created;   /* unix seconds */
    char **sources;    /* source files */
    size_t nsources;
    traza_kv *params;  /* free key/value parameters */
    size_t nparams;
} traza_trace_info;

void traza_trace_info_clear(traza_trace_info *info);
void traza_trace_info_array_free(traza_trace_info *arr, size_t n);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
