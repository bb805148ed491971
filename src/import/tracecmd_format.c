/* trace-cmd recordings told by their magic, and the "trace-cmd" importer: its reader
 * (tz_tracecmd_read) is tracecmd.c's, through libtracecmd and libtraceevent, or
 * tracecmd_missing.c's in a build without them. */
#include "import/importers.h"

#include <string.h>

static int tracecmd_detect(const char *path, const unsigned char *head, size_t len)
{
    (void)path;
    return head && len >= TC_MAGIC_LEN && memcmp(head, TC_MAGIC, TC_MAGIC_LEN) == 0 ? 90 : 0;
}

const traza_importer tz_importer_tracecmd = {
    "trace-cmd", "import-trace-cmd",
    "trace-cmd/ftrace recording (.dat): scheduling, irq, syscall and function-graph states per CPU and thread, other events punctual",
    tracecmd_detect, tz_tracecmd_read,
};
