/* libFuzzer harness: bytes -> temporary file -> Perfetto protobuf importer -> commit
 * or abort in a temporary workspace, which is removed afterwards. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fz_import(data, size, "perfetto", NULL); }
