/* Fault injection for tests/fault/test_fault.c: this executable defines malloc,
 * calloc, realloc and the write side of the I/O (write, pwrite, fsync, fdatasync,
 * rename, ftruncate, fwrite, fflush, fclose), so every caller in the process —
 * libtraza, SQLite, libc itself — goes through them; each forwards to the next
 * definition (dlsym(RTLD_NEXT)). That is glibc's ordinary interposition, and it works
 * in both builds: in the plain one the next definition is glibc's, under ASan it is
 * ASan's interceptor (libasan comes first in the search order and its malloc is
 * weak), so ASan's allocator and leak check stay in charge. -Wl,--wrap would reach
 * only the calls made from libtraza's own objects, never SQLite's.
 *
 * fi_arm(kind, n) makes the n-th call of that kind from now fail (once: a transient
 * fault, the kind SQLite's own OOM and I/O-error tests start with): an allocation
 * returns NULL with ENOMEM, a write-side call -1 (or a short count, EOF) with ENOSPC
 * or EIO. free, posix_memalign and the rest are not defined here: they go straight to
 * the allocator the wrappers forward to. */
#ifndef TZ_TEST_FAULT_INJECT_H
#define TZ_TEST_FAULT_INJECT_H

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

enum { FI_NONE = 0, FI_ALLOC = 1, FI_IO = 2 };

static atomic_int fi_kind;      /* what is armed */
static atomic_long fi_left;     /* calls of that kind before the one that fails */
static atomic_long fi_hits;     /* faults injected since fi_arm */

static void fi_arm(int kind, long n)
{
    atomic_store(&fi_hits, 0);
    atomic_store(&fi_left, n);
    atomic_store(&fi_kind, kind);
}

/* Disarms; returns 1 when the armed fault was injected. */
static int fi_disarm(void)
{
    atomic_store(&fi_kind, FI_NONE);
    return atomic_load(&fi_hits) > 0;
}

static int fi_fail(int kind)
{
    if (atomic_load(&fi_kind) != kind)
        return 0;
    if (atomic_fetch_sub(&fi_left, 1) != 1)
        return 0;
    atomic_fetch_add(&fi_hits, 1);
    return 1;
}

/* Allocations made by the libraries a few importers hand their input to (babeltrace2
 * and glib, OpenCSD and the C++ runtime) abort or throw when they fail, by their own
 * design, and so do libc's allocations made on their behalf: with fi_own_only set,
 * only allocations called from other code (libtraza, SQLite, the test) are counted
 * and failed. The caller is found by its return address (dladdr allocates nothing). */
static atomic_int fi_own_only;
static _Thread_local int fi_in_dladdr;

/* Not instrumented, not inlined: malloc runs before ASan has mapped its shadow memory,
 * and an instrumented frame holding `di` would write to that shadow. */
__attribute__((noinline, no_sanitize_address)) static int fi_foreign_caller(void *ret)
{
    if (!atomic_load(&fi_own_only) || fi_in_dladdr)
        return 0;
    fi_in_dladdr = 1;
    Dl_info di;
    int ok = dladdr(ret, &di);
    fi_in_dladdr = 0;
    if (!ok || !di.dli_fname)
        return 0;
    static const char *const foreign[] = {"babeltrace", "libglib", "libgmodule", "opencsd", "libstdc++", "libtracecmd", "libtraceevent",
                                          "libtracefs", "libc.so", "ld-linux"};
    for (size_t i = 0; i < sizeof foreign / sizeof foreign[0]; i++)
        if (strstr(di.dli_fname, foreign[i]))
            return 1;
    return 0;
}

static int fi_fail_alloc(void *caller)
{
    return atomic_load(&fi_kind) == FI_ALLOC && !fi_foreign_caller(caller) && fi_fail(FI_ALLOC);
}

/* dlsym may allocate while the real functions are looked up: those few blocks come
 * from here, and are never freed (free() is not ours, so they must never reach it:
 * the look-up happens once, before the first test, through fi_init). */
static _Alignas(16) unsigned char fi_boot[4096];
static size_t fi_boot_used;
static int fi_resolving;

static void *fi_boot_alloc(size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (fi_boot_used + n > sizeof fi_boot)
        return NULL;
    void *p = fi_boot + fi_boot_used;
    fi_boot_used += n;
    return p;
}

static void *(*fi_malloc)(size_t);
static void *(*fi_calloc)(size_t, size_t);
static void *(*fi_realloc)(void *, size_t);

static void fi_resolve_alloc(void)
{
    if (fi_malloc || fi_resolving)
        return;
    fi_resolving = 1;
    fi_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
    fi_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
    fi_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
    fi_resolving = 0;
}

void *malloc(size_t n)
{
    fi_resolve_alloc();
    if (!fi_malloc)
        return fi_boot_alloc(n);
    if (fi_fail_alloc(__builtin_return_address(0))) {
        errno = ENOMEM;
        return NULL;
    }
    return fi_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    fi_resolve_alloc();
    if (!fi_calloc)
        return fi_boot_alloc(n * size); /* zeroed: static storage */
    if (fi_fail_alloc(__builtin_return_address(0))) {
        errno = ENOMEM;
        return NULL;
    }
    return fi_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    fi_resolve_alloc();
    if (fi_fail_alloc(__builtin_return_address(0))) {
        errno = ENOMEM;
        return NULL;
    }
    return fi_realloc(p, n);
}

/* The write side: each wrapper looks its real function up on first use. */
#define FI_NEXT(name)                                                                   \
    static __typeof__(&name) fi_next_##name;                                            \
    if (!fi_next_##name)                                                                \
        fi_next_##name = (__typeof__(&name))dlsym(RTLD_NEXT, #name)

ssize_t write(int fd, const void *buf, size_t n)
{
    FI_NEXT(write);
    if (fi_fail(FI_IO)) {
        errno = ENOSPC;
        return -1;
    }
    return fi_next_write(fd, buf, n);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    FI_NEXT(pwrite);
    if (fi_fail(FI_IO)) {
        errno = ENOSPC;
        return -1;
    }
    return fi_next_pwrite(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
    FI_NEXT(pwrite64);
    if (fi_fail(FI_IO)) {
        errno = ENOSPC;
        return -1;
    }
    return fi_next_pwrite64(fd, buf, n, off);
}

int fsync(int fd)
{
    FI_NEXT(fsync);
    if (fi_fail(FI_IO)) {
        errno = EIO;
        return -1;
    }
    return fi_next_fsync(fd);
}

int fdatasync(int fd)
{
    FI_NEXT(fdatasync);
    if (fi_fail(FI_IO)) {
        errno = EIO;
        return -1;
    }
    return fi_next_fdatasync(fd);
}

int rename(const char *from, const char *to)
{
    FI_NEXT(rename);
    if (fi_fail(FI_IO)) {
        errno = EIO;
        return -1;
    }
    return fi_next_rename(from, to);
}

int ftruncate(int fd, off_t len)
{
    FI_NEXT(ftruncate);
    if (fi_fail(FI_IO)) {
        errno = EIO;
        return -1;
    }
    return fi_next_ftruncate(fd, len);
}

int ftruncate64(int fd, off_t len)
{
    FI_NEXT(ftruncate64);
    if (fi_fail(FI_IO)) {
        errno = EIO;
        return -1;
    }
    return fi_next_ftruncate64(fd, len);
}

/* stdio writes through libc's internal write, which no executable can interpose:
 * its own entry points are failed instead. */
size_t fwrite(const void *p, size_t size, size_t n, FILE *f)
{
    FI_NEXT(fwrite);
    if (fi_fail(FI_IO)) {
        errno = ENOSPC;
        return 0;
    }
    return fi_next_fwrite(p, size, n, f);
}

int fflush(FILE *f)
{
    FI_NEXT(fflush);
    if (fi_fail(FI_IO)) {
        errno = ENOSPC;
        return EOF;
    }
    return fi_next_fflush(f);
}

/* A failing fclose still closes the stream (as a real one does: its last flush
 * failed). */
int fclose(FILE *f)
{
    FI_NEXT(fclose);
    int fail = fi_fail(FI_IO);
    int rc = fi_next_fclose(f);
    if (fail) {
        errno = ENOSPC;
        return EOF;
    }
    return rc;
}

static void fi_init(void)
{
    fi_resolve_alloc();
}

#endif
