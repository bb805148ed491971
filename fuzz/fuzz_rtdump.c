/* Fuzz harness of the runtime dump parser (.tzr) and the call replay. */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "import/rtdump.h"
#include "fuzz_rtreplay.h"
#include "../rt/include/traza_rt_format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Odd first byte of the input: its chunk checksums are recomputed first, so the
 * fuzzer reaches the event decoding instead of stopping at the checksum. */
static void fix_sums(uint8_t *p, size_t n)
{
    size_t pos = TZR_FILE_HEADER_SIZE;
    while (pos + TZR_CHUNK_HEADER_SIZE <= n) {
        uint32_t len = (uint32_t)p[pos + 4] | (uint32_t)p[pos + 5] << 8 | (uint32_t)p[pos + 6] << 16 | (uint32_t)p[pos + 7] << 24;
        size_t body = pos + TZR_CHUNK_HEADER_SIZE;
        if (len > n - body)
            break;
        uint64_t sum = tzr_sum64(p + body, len);
        for (int i = 0; i < 8; i++)
            p[pos + 8 + (size_t)i] = (uint8_t)(sum >> (8 * i));
        pos = body + len;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tz_rtdump d;
    traza_err err;
    if (size < 1)
        return 0;
    uint8_t *copy = malloc(size - 1 + 1);
    if (!copy)
        return 0;
    memcpy(copy, data + 1, size - 1);
    if (data[0] & 1)
        fix_sums(copy, size - 1);
    int rc = tz_rtdump_parse(&d, copy, size - 1, "fuzz", &err);
    free(copy);
    if (rc < 0)
        return 0;
    uint64_t acc = 0, unmatched = 0;
    for (size_t i = 0; i < d.nthreads; i++)
        replay(&d.threads[i], &acc, &unmatched);
    for (size_t i = 0; i < d.ntasks; i++) {
        replay(&d.tasks[i], &acc, &unmatched);
        for (size_t r = 0; r < d.tasks[i].nruns; r++)
            acc += d.tasks[i].runs[r].end - d.tasks[i].runs[r].start;
    }
    for (size_t i = 0; i < d.nthreads && d.nthreads; i++)
        if (d.threads[i].nops) {
            tz_rtd_op o;
            if (tz_rtd_op_at(&d.threads[i], 0, &o) == 0)
                acc += (uint64_t)tz_rtdump_ns(&d, o.tsc);
        }
    tz_rtdump_free(&d);
    return (int)(acc & 0);
}
