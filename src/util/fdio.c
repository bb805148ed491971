/* Whole-buffer reads and writes on file descriptors: short transfers and EINTR are
 * retried, so callers see all or an error. */
#include "util/util.h"

#include <errno.h>
#include <unistd.h>

int tz_write_all(int fd, const void *buf, size_t n)
{
    const unsigned char *b = buf;
    while (n) {
        ssize_t w = write(fd, b, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        b += w;
        n -= (size_t)w;
    }
    return 0;
}

int tz_pwrite_all(int fd, const void *buf, size_t n, off_t off)
{
    const unsigned char *b = buf;
    while (n) {
        ssize_t w = pwrite(fd, b, n, off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        b += w;
        n -= (size_t)w;
        off += w;
    }
    return 0;
}

int tz_pread_all(int fd, void *buf, size_t n, off_t off)
{
    unsigned char *b = buf;
    while (n) {
        ssize_t r = pread(fd, b, n, off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r == 0)
                errno = 0; /* end of file: no errno to report */
            return -1;
        }
        b += r;
        n -= (size_t)r;
        off += r;
    }
    return 0;
}
