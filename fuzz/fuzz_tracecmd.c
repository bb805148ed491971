/* libFuzzer harness: the trace-cmd .dat importer (through a temporary file, as
 * libtracecmd reads paths). Its layout walk guards libtracecmd; what libtracecmd
 * itself does with damaged event formats or CPU pages is libtracecmd's. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fz_import(data, size, "trace-cmd", NULL); }
