/* Whole-buffer reads and writes on file descriptors: short transfers and EINTR are
 * retried, so callers see all or an error. */
#include "util/util.h"

#include <errno.h>
#include <unistd.h>

/* write (off < 0) or pwrite at off, until n bytes are out */
static int write_loop(int fd, const unsigned char *b, size_t n, off_t off)
{
    while (n) {
        ssize_t w = off < 0 ? write(fd, b, n) : pwrite(fd, b, n, off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        b += w;
        n -= (size_t)w;
        if (off >= 0)
            off += w;
    }
    return 0;
}

int tz_write_all(int fd, const void *buf, size_t n) { return write_loop(fd, buf, n, -1); }

int tz_fwrite_all(FILE *f, const void *buf, size_t n)
{
    int fd = fileno(f);
    if (fd < 0)
        return fwrite(buf, 1, n, f) == n ? 0 : -1;
    return fflush(f) == 0 ? tz_write_all(fd, buf, n) : -1;
}

int tz_pwrite_all(int fd, const void *buf, size_t n, off_t off) { return off < 0 ? -1 : write_loop(fd, buf, n, off); }

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
