/* The OpenCSD function table (src/import/etm_api.h). */
#include "import/etm_api.h"
#include "util/features.h"

const int tz_built_etm = 1;

TZ_DYNLIB_DEFINE(ocsd, TZ_OCSD_FUNCS, "libopencsd_c_api.so.1", "libopencsd1", "CoreSight ETM traces")
