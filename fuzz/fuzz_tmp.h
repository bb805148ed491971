/* The fuzz input as a temporary file, for harnesses of code that takes paths. */
#ifndef TZ_FUZZ_TMP_H
#define TZ_FUZZ_TMP_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "util/util.h"

#define FZ_TMP 64
/* Writes data to a new file /tmp/traza-fuzz-<tag>-?????? (mkstemp) named in in[FZ_TMP],
 * and names out[FZ_TMP] = in + suffix for the harness's output. 0, or -1 (nothing left
 * behind). fz_tmp_done removes both. */
static inline int fz_tmp_input(const char *tag, const char *suffix, const uint8_t *data, size_t size, char *in,
                               char *out)
{
    snprintf(in, FZ_TMP, "/tmp/traza-fuzz-%s-XXXXXX", tag);
    int fd = mkstemp(in);
    if (fd < 0)
        return -1;
    int rc = tz_write_all(fd, data, size);
    close(fd);
    if ((size_t)snprintf(out, FZ_TMP, "%s%s", in, suffix) >= FZ_TMP)
        rc = -1;
    if (rc < 0) {
        unlink(in);
        return -1;
    }
    return 0;
}
static inline void fz_tmp_done(const char *in, const char *out)
{
    unlink(out);
    unlink(in);
}

#endif
