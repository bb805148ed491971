/* An output file that appears whole or not at all (util.h, tz_outfile). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/util.h"

int tz_outfile_open(tz_outfile *o, const char *path, traza_err *err)
{
    memset(o, 0, sizeof *o);
    size_t n = strlen(path);
    if (!(o->path = strdup(path)))
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) { /* a device or a pipe: in place */
        if (!(o->f = fopen(path, "wb"))) {
            int e = errno;
            free(o->path);
            o->path = NULL;
            return traza_err_set(err, TRAZA_E_IO, "cannot open %s: %s", path, strerror(e));
        }
        return 0;
    }
    if (!(o->tmp = malloc(n + 48))) {
        free(o->path);
        o->path = NULL;
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    /* O_EXCL on a name of our own (not mkstemp, whose 0600 would need the umask to
     * undo, and reading the umask changes it): the file gets the permissions of a
     * plain fopen */
    int fd = -1;
    for (unsigned k = 0; k < 1000 && fd < 0; k++) {
        snprintf(o->tmp, n + 48, "%s.tmp-%ld-%u", path, (long)getpid(), k);
        fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0 || !(o->f = fdopen(fd, "wb"))) {
        int e = errno;
        if (fd >= 0) {
            close(fd);
            unlink(o->tmp);
        }
        free(o->path), free(o->tmp);
        o->path = o->tmp = NULL;
        return traza_err_set(err, TRAZA_E_IO, "cannot create %s: %s", path, strerror(e));
    }
    return 0;
}

int tz_outfile_close(tz_outfile *o, int ok, traza_err *err)
{
    int rc = 0, e = 0;
    if (o->f) {
        /* the data on the disk before the name: a crash after the rename must not
         * leave an empty or partial file under it */
        if (ok && (fflush(o->f) != 0 || ferror(o->f) || (o->tmp && fsync(fileno(o->f)) != 0)))
            rc = -1, e = errno ? errno : EIO;
        if (fclose(o->f) != 0 && rc == 0)
            rc = -1, e = errno;
    }
    if (rc < 0 && ok)
        traza_err_set(err, TRAZA_E_IO, "writing %s: %s", o->path, strerror(e));
    if (o->tmp) {
        if (ok && rc == 0 && rename(o->tmp, o->path) != 0) {
            e = errno;
            rc = traza_err_set(err, TRAZA_E_IO, "cannot move %s into place: %s", o->path, strerror(e));
        }
        if (!ok || rc < 0)
            unlink(o->tmp);
    }
    free(o->path);
    free(o->tmp);
    memset(o, 0, sizeof *o);
    errno = e;
    return rc;
}

int tz_outfile_write(const char *path, const void *data, size_t n, traza_err *err)
{
    tz_outfile o;
    if (tz_outfile_open(&o, path, err) < 0)
        return -1;
    errno = 0;
    int ok = n == 0 || fwrite(data, 1, n, o.f) == n;
    if (!ok) {
        int e = errno ? errno : EIO;
        traza_err_set(err, TRAZA_E_IO, "writing %s: %s", path, strerror(e));
    }
    return tz_outfile_close(&o, ok, err) < 0 || !ok ? -1 : 0;
}
