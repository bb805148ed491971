/* libFuzzer harness: the ITF text importer. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fz_import(data, size, "itf", NULL); }
