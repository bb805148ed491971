/* traza — tools: importers, exporters and analyses as registered, typed units.
 *
 * Built-in tools are registered by traza_ctx_new(). Plugins are shared libraries
 * found on a plugin path that export `traza_plugin_init` (versioned C ABI below).
 * External "black-box" tools are executables described by a `.tool` manifest and
 * launched with the same options (doc/plugins.md). */
#ifndef TRAZA_TOOL_H
#define TRAZA_TOOL_H

#include <stddef.h>
#include "traza/ctx.h"
#include "traza/store.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The public API: the only symbols libtraza.so exports (the library is built with
 * -fvisibility=hidden). */
#pragma GCC visibility push(default)

/* Raised whenever a struct a plugin shares with the library (traza_filter, …)
 * changes size or layout. */
#define TRAZA_PLUGIN_ABI 2

typedef enum traza_tool_kind { TRAZA_TOOL_IMPORTER, TRAZA_TOOL_EXPORTER, TRAZA_TOOL_ANALYSIS } traza_tool_kind;
const char *traza_tool_kind_name(traza_tool_kind k);

typedef enum traza_opt_type {
    TRAZA_OPT_BOOL, TRAZA_OPT_INT, TRAZA_OPT_DOUBLE, TRAZA_OPT_STRING,
    TRAZA_OPT_TIME,   /* a time value with units ("1.5ms") */
    TRAZA_OPT_RESULT  /* the name or id of a saved result of the trace */
} traza_opt_type;
const char *traza_opt_type_name(traza_opt_type t);

typedef struct traza_tool_option {
    const char *name;
    traza_opt_type type;
    const char *def;   /* default as text, NULL = none */
    const char *help;
    int required;
    int multi;         /* may be given several times */
} traza_tool_option;

typedef struct traza_tool_args {
    size_t n;
    const char *const *keys;
    const char *const *values;
} traza_tool_args;

/* Everything a tool run gets. `print` receives the tool's human (or JSON) output. */
typedef struct traza_tool_call {
    traza_ctx *ctx;
    traza_workspace *ws;
    const char *trace;        /* trace name/id, or the input path for importers */
    const traza_tool_args *args;
    int json;
    void (*print)(void *user, const char *text);
    void *print_user;
    /* Receives each warning of the run (one line, no newline) with print_user; NULL:
     * the tools print them through `print` as "warning: ..." (text output only). */
    void (*warn)(void *user, const char *text);
} traza_tool_call;

typedef struct traza_tool traza_tool;
typedef int (*traza_tool_fn)(const traza_tool *tool, const traza_tool_call *call, traza_err *err);

struct traza_tool {
    const char *name;
    const char *summary;
    traza_tool_kind kind;
    const traza_tool_option *options;
    size_t noptions;
    traza_tool_fn run;
    void *user;         /* for the tool's own use */
    const char *origin; /* "builtin", a plugin path, or a manifest path (set by the registry) */
};

/* Registers a tool (the registry copies the struct, not the strings: they must live
 * as long as the context). A name already registered is an error. */
int traza_registry_add(traza_registry *reg, const traza_tool *tool, traza_err *err);
size_t traza_registry_count(const traza_registry *reg);
const traza_tool *traza_registry_at(const traza_registry *reg, size_t i);
const traza_tool *traza_registry_find(const traza_registry *reg, const char *name);
/* Loads every plugin (*.so) and manifest (*.tool) in the directories of a
 * colon-separated path. Directories that do not exist are skipped. Problems with
 * one plugin are logged and do not stop the others; returns the number loaded. */
int traza_registry_load_path(traza_registry *reg, const char *path, traza_err *err);

/* Checks the args against the tool's options (unknown names, types, required). */
int traza_tool_check_args(const traza_tool *tool, const traza_tool_args *args, traza_err *err);
/* The value of option `name`: the last given, else the default, else NULL. */
const char *traza_tool_arg(const traza_tool *tool, const traza_tool_args *args, const char *name);
int traza_tool_run(const traza_tool *tool, const traza_tool_call *call, traza_err *err);
/* Prints through call->print, printf-style. */
void traza_tool_printf(const traza_tool_call *call, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A plugin exports this symbol. It must return 0 after registering its tools, and
 * refuse (return -1) if `abi` is not the TRAZA_PLUGIN_ABI it was built against. */
typedef int (*traza_plugin_init_fn)(traza_registry *reg, int abi, traza_err *err);
#define TRAZA_PLUGIN_INIT_SYMBOL "traza_plugin_init"

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
