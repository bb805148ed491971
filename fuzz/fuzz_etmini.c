/* Fuzz harness: the CoreSight snapshot INI parser (snapshot.ini, device and trace
 * metadata files). The trace buffers themselves are parsed by OpenCSD. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "import/etm_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tz_ini ini;
    traza_err err;
    traza_err_clear(&err);
    if (tz_ini_parse((const char *)data, size, "fuzz.ini", &ini, &err) == 0) {
        (void)tz_ini_get(&ini, "device", "name");
        (void)tz_ini_get(&ini, "regs", "TRCIDR0");
        tz_ini_free(&ini);
    }
    return 0;
}
