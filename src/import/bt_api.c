/* The libbabeltrace2 function table (src/import/bt_api.h). */
#include "import/bt_api.h"
#include "util/features.h"

const int tz_built_ctf = 1;

TZ_DYNLIB_DEFINE(babel, TZ_BABEL_FUNCS, "libbabeltrace2.so.0", "libbabeltrace2-0", "CTF traces")
