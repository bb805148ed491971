/* Fuzz harness of the RAM-image reader of a bare-metal runtime's ring (control block,
 * write position, blocks in sequence) and of the dump it makes, parsed and replayed. */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "import/rtdump.h"
#include "fuzz_rtreplay.h"
#include "import/rtring.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tz_buf out;
    tz_buf_init(&out);
    traza_err err;
    if (tz_rtram_to_dump(data, size, "fuzz", "fw.elf", &out, &err) == 0) {
        tz_rtdump d;
        if (tz_rtdump_parse(&d, (const uint8_t *)out.s, out.len, "fuzz", &err) == 0) {
            uint64_t acc = 0, unmatched = 0;
            for (size_t i = 0; i < d.nthreads; i++)
                replay(&d.threads[i], &acc, &unmatched);
            tz_rtdump_free(&d);
        } else
            abort(); /* the reader makes only dumps the parser takes */
    }
    tz_buf_free(&out);
    return 0;
}
