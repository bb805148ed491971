/* Internal: creating the registry of a context and the built-in tool list. */
#ifndef TZ_REGISTRY_INTERNAL_H
#define TZ_REGISTRY_INTERNAL_H

#include "traza/tool.h"

traza_registry *tz_registry_new(traza_ctx *ctx, traza_err *err);
void tz_registry_free(traza_registry *reg);
/* Registers every built-in tool (tools/builtin.c). */
int tz_register_builtins(traza_registry *reg, traza_err *err);

#endif
