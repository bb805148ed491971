/* Optional libraries opened on first use.
 *
 * libpq (PostgreSQL workspaces), libmicrohttpd (`traza serve`) and OpenCSD (the ETM
 * importer) bring TLS, Kerberos, LDAP, GnuTLS and a C++ runtime with them. Linked
 * the usual way they cost every traza process about 8 ms of dynamic linking before
 * main: `traza --help` takes 9.4 ms with them and ~1.5 ms without.
 * So they are opened with dlopen by the features that need them, and the rest of
 * traza never loads them.
 *
 * This is the library's only process-wide state: for each of these libraries, a
 * table of function addresses filled once under pthread_once and never written
 * again, the same addresses the dynamic linker would have written into the GOT had
 * the library been linked. It is safe from any thread, and it changes no behaviour
 * except when the library is missing, which the feature then reports. */
#include "util/dynlib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(void *) == sizeof(tz_fn), "object and function pointers of one size (POSIX dlsym)");

void tz_dynlib_open(tz_dynlib *l)
{
    void *h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(l->why, sizeof l->why, "%s", e ? e : l->soname);
        return;
    }
    for (size_t i = 0; i < l->n; i++) {
        void *p = dlsym(h, l->names[i]);
        if (!p) {
            snprintf(l->why, sizeof l->why, "%s: no symbol %s", l->soname, l->names[i]);
            /* the library stays open: a dlclose here would race nothing, but an
             * older library with missing symbols is simply unusable */
            return;
        }
        /* POSIX: a dlsym address converts to a function pointer of that size */
        memcpy((char *)l->table + i * sizeof(tz_fn), &p, sizeof p);
    }
    l->ok = 1; /* never closed: the table points into it for the life of the process */
}

int tz_dynlib_status(const tz_dynlib *l, traza_err *err)
{
    if (l->ok)
        return 0;
    return traza_err_set(err, TRAZA_E_UNSUPPORTED, "%s: %s (Debian package %s) could not be loaded: %s", l->feature,
                         l->soname, l->package, l->why);
}
