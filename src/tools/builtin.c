/* The list of built-in tools. Each tool lives in its own file under src/tools/
 * (analyses); importers and exporters are registered from their tables. Add new
 * tools to tools/builtin_list.h. */
#include "tools/registry_internal.h"
#include "tools/builtin_list.h"

int tz_register_builtins(traza_registry *reg, traza_err *err)
{
    for (size_t i = 0; tz_builtin_tools[i]; i++)
        if (traza_registry_add(reg, tz_builtin_tools[i], err) < 0)
            return -1;
    if (tz_register_importer_tools(reg, err) < 0)
        return -1;
    return tz_register_exporter_tools(reg, err);
}
