/* libFuzzer harness: the generic CSV importer. The first line of the input, when it
 * starts with "map:", is the column map; otherwise the header is the map. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4 && memcmp(data, "map:", 4) == 0) {
        const uint8_t *nl = memchr(data, '\n', size);
        if (!nl)
            return 0;
        size_t ml = (size_t)(nl - data) - 4;
        char *map = malloc(ml + 1);
        if (!map)
            return 0;
        memcpy(map, data + 4, ml);
        map[ml] = '\0';
        if (strlen(map) == ml)
            fz_import(nl + 1, size - (size_t)(nl + 1 - data), "csv", map);
        free(map);
        return 0;
    }
    return fz_import(data, size, "csv", NULL);
}
