/* The libtracecmd and libtraceevent function tables (src/import/tracecmd_api.h). */
#include "import/tracecmd_api.h"
#include "util/features.h"

const int tz_built_tracecmd = 1;

TZ_DYNLIB_DEFINE(tcmd, TZ_TCMD_FUNCS, "libtracecmd.so.1", "libtracecmd1", "trace-cmd .dat files")
TZ_DYNLIB_DEFINE(tep, TZ_TEP_FUNCS, "libtraceevent.so.1", "libtraceevent1", "trace-cmd .dat files")
