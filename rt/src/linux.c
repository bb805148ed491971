/* Linux glue of the tracer runtime: configuration from the environment, per-thread
 * state in TLS with buffers from mmap, the dump file, -finstrument-functions hooks.
 *
 * Environment: TRAZA_RT_OUT (dump path, default traza-rt.tzr), TRAZA_RT_MODE (ring |
 * stream), TRAZA_RT_BUFSIZE (bytes per thread, suffix K/M; ring default 8M),
 * TRAZA_RT_PID (only that process records: programs it executes stay silent).
 *
 * A forked child records on into its own dump, TRAZA_RT_OUT.<pid>. A fatal signal
 * (SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL) writes the dump, then the signal is
 * raised again with its default action. TRAZA_RT_SNAPSHOT_SIGNAL (USR1, USR2 or a
 * number): that signal writes the ring out as it is (out.snapN.tzr), recording on.
 * TRAZA_RT_SNAPSHOT_FILE (a path): the same each time that file appears (a watcher
 * thread takes it away). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "rt_internal.h"
#include "traza_rt.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

TZ_API void __cyg_profile_func_enter(void *fn, void *site) TZ_NOINSTR;
TZ_API void __cyg_profile_func_exit(void *fn, void *site) TZ_NOINSTR;

/* also read by the x86_64 hooks (one %fs-relative load; relaxed to local-exec when linked in) */
__thread tz_thread *tz_tls_thread __attribute__((tls_model("initial-exec")));
static __thread int tls_busy __attribute__((tls_model("initial-exec")));
static int g_state; /* 0 not initialised, 1 recording, 2 off */
static int g_fd = -1;
static char g_out[4096];
static char g_exe[512];
static pthread_key_t g_key;

uint64_t tz_plat_ticks(void) { return tz_arch_ticks(); }

uint64_t tz_plat_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static TZ_NOINSTR int first_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    *(uintptr_t *)data = (uintptr_t)info->dlpi_addr;
    return 1; /* the first object is the main program */
}

static TZ_NOINSTR size_t parse_size(const char *s, size_t def)
{
    if (!s || !*s)
        return def;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end == 'k' || *end == 'K')
        v <<= 10;
    else if (*end == 'm' || *end == 'M')
        v <<= 20;
    else if (*end == 'g' || *end == 'G')
        v <<= 30;
    return v ? (size_t)v : def;
}

static TZ_NOINSTR void thread_gone(void *p)
{
    tz_thread *t = p;
    if (t && tz_rt_g.mode == TZR_MODE_STREAM && g_state == 1)
        tz_flush_thread(t);
}

static TZ_NOINSTR int put_fd(void *user, const void *data, size_t n)
{
    int fd = *(int *)user;
    const char *p = data;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int tz_plat_write(const void *data, size_t n)
{
    return g_fd >= 0 ? put_fd(&g_fd, data, n) : -1;
}

static TZ_NOINSTR int open_stream(void)
{
    int fd = open(g_out, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0 && tz_write_header(put_fd, &fd, TZ_ARCH, (uint32_t)getpid(), g_exe) < 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* The output name with ".TAGN" before its extension (out.tzr -> out.TAGN.tzr), into
 * dst; -1 if it does not fit. Async-signal-safe (no stdio). */
static TZ_NOINSTR int out_name(char *dst, size_t cap, const char *tag, uint64_t n)
{
    size_t len = strlen(g_out), stem = len;
    const char *dot = strrchr(g_out, '.');
    if (dot && strrchr(g_out, '/') < dot)
        stem = (size_t)(dot - g_out);
    char num[24];
    size_t k = sizeof num;
    do
        num[--k] = (char)('0' + n % 10);
    while ((n /= 10) != 0);
    size_t tl = strlen(tag), nl = sizeof num - k;
    if (len + 1 + tl + nl + 1 > cap)
        return -1;
    memcpy(dst, g_out, stem);
    dst[stem] = '.';
    memcpy(dst + stem + 1, tag, tl);
    memcpy(dst + stem + 1 + tl, num + k, nl);
    memcpy(dst + stem + 1 + tl + nl, g_out + stem, len - stem + 1);
    return 0;
}

/* A snapshot on demand (TRAZA_RT_SNAPSHOT_SIGNAL): the ring as it is now written to
 * out.snapN.tzr (N = 1, 2, ...) while the program runs on; recording goes on. Other
 * threads may write while their buffers are copied (as at exit). Ring mode only: a
 * stream is on disk already. A runtime that has recorded nothing writes none: with
 * two in the process (linked in and preloaded), the idle one stays silent, as at
 * exit. 1 when a snapshot was written. */
static int g_snap_signal;
static uint32_t g_snaps;
static TZ_NOINSTR int snapshot_now(void)
{
    int saved = errno, wrote = 0;
    uint64_t events = 0;
    for (tz_thread *t = tz_rt_g.threads; t; t = t->next)
        events += t->events;
    char path[sizeof g_out];
    if (__atomic_load_n(&g_state, __ATOMIC_ACQUIRE) == 1 && tz_rt_g.mode == TZR_MODE_RING && events &&
        out_name(path, sizeof path, "snap", __atomic_add_fetch(&g_snaps, 1, __ATOMIC_RELAXED)) == 0) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd >= 0) {
            wrote = tz_write_dump(put_fd, &fd, TZ_ARCH, (uint32_t)getpid(), g_exe, 1) == 0;
            close(fd);
        }
    }
    errno = saved;
    return wrote;
}

static TZ_NOINSTR void on_snapshot(int sig)
{
    (void)sig;
    snapshot_now();
}

/* A snapshot when a file appears (TRAZA_RT_SNAPSHOT_FILE), for programs whose
 * signals are their own and for whoever can only touch a file: a watcher thread
 * looks for the file every 50 ms (one access), writes the snapshot as the signal
 * does, then removes the file: whoever touched it knows the snapshot is complete
 * once the file is gone. An idle runtime (see snapshot_now) leaves the file alone.
 * The traced threads pay nothing; the watcher runs only runtime and libc code (not
 * instrumented) and blocks every signal, which stay the program's threads'. A
 * forked child has no watcher. */
static char g_snap_file[4096];
static TZ_NOINSTR void *snap_watch(void *arg)
{
    (void)arg;
    const struct timespec period = {0, 50 * 1000 * 1000};
    for (;;) {
        if (access(g_snap_file, F_OK) == 0 && snapshot_now())
            unlink(g_snap_file);
        nanosleep(&period, NULL);
    }
    return NULL;
}

static TZ_NOINSTR void start_snap_watch(void)
{
    const char *f = getenv("TRAZA_RT_SNAPSHOT_FILE");
    if (!f || !*f || strlen(f) >= sizeof g_snap_file)
        return;
    memcpy(g_snap_file, f, strlen(f) + 1);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t attr;
    pthread_t th;
    if (pthread_attr_init(&attr) == 0) {
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attr, 64 * 1024);
        if (pthread_create(&th, &attr, snap_watch, NULL) != 0)
            g_snap_file[0] = 0;
        pthread_attr_destroy(&attr);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* "USR2", "SIGUSR2" or a number; 0 if none */
static TZ_NOINSTR int parse_signal(const char *s)
{
    if (!s || !*s)
        return 0;
    if (strncmp(s, "SIG", 3) == 0)
        s += 3;
    if (strcmp(s, "USR1") == 0)
        return SIGUSR1;
    if (strcmp(s, "USR2") == 0)
        return SIGUSR2;
    long v = strtol(s, NULL, 10);
    return v > 0 && v < NSIG ? (int)v : 0;
}

/* fork(): the child keeps the forking thread's open functions, starts an empty buffer
 * and writes its own dump; the parent's file and other threads are not its. */
static TZ_NOINSTR void at_fork_child(void)
{
    if (__atomic_load_n(&g_state, __ATOMIC_ACQUIRE) != 1)
        return;
    char name[sizeof g_out];
    if (out_name(name, sizeof name, "", (uint64_t)getpid()) == 0)
        memcpy(g_out, name, sizeof g_out); /* out.tzr -> out.PID.tzr */
    tz_thread *t = tz_tls_thread;
    if (t)
        tz_thread_restart(t, (uint32_t)syscall(SYS_gettid));
    tz_rt_g.threads = t;
    if (tz_rt_g.mode == TZR_MODE_STREAM && g_fd >= 0) {
        close(g_fd);
        g_fd = open_stream();
        if (g_fd < 0) {
            g_fd = -2;
            __atomic_store_n(&g_state, 2, __ATOMIC_RELEASE);
        }
    }
}

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
#define TZ_NFATAL (sizeof fatal_signals / sizeof fatal_signals[0])
static struct sigaction g_fatal_old[TZ_NFATAL];

/* A fatal signal: the dump is written (open, write, close: async-signal-safe), then the
 * signal is raised again with the action found at start-up (the default, or a second
 * runtime's handler in the process: the linked one and the preloaded one both chain). */
static TZ_NOINSTR void on_fatal(int sig)
{
    traza_rt_dump();
    for (size_t i = 0; i < TZ_NFATAL; i++)
        if (fatal_signals[i] == sig)
            sigaction(sig, &g_fatal_old[i], NULL);
    raise(sig);
}

static TZ_NOINSTR void rt_init(void)
{
    int expected = 0;
    if (!__atomic_compare_exchange_n(&g_state, &expected, 3, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return;
    const char *pid = getenv("TRAZA_RT_PID");
    if (pid && *pid && strtol(pid, NULL, 10) != (long)getpid()) {
        __atomic_store_n(&g_state, 2, __ATOMIC_RELEASE);
        return;
    }
    const char *out = getenv("TRAZA_RT_OUT");
    strncpy(g_out, out && *out ? out : "traza-rt.tzr", sizeof g_out - 1);
    const char *mode = getenv("TRAZA_RT_MODE");
    tz_rt_g.mode = mode && strcmp(mode, "stream") == 0 ? TZR_MODE_STREAM : TZR_MODE_RING;
    size_t total = parse_size(getenv("TRAZA_RT_BUFSIZE"), tz_rt_g.mode == TZR_MODE_STREAM ? 65536 : 8u << 20);
    tz_rt_g.block_size = 65536;
    if (total < 2 * tz_rt_g.block_size)
        tz_rt_g.block_size = total / 2 < 4096 ? 4096 : (total / 2 + 15) & ~(size_t)15;
    tz_rt_g.nblocks = tz_rt_g.mode == TZR_MODE_STREAM ? 1 : total / tz_rt_g.block_size;
    if (tz_rt_g.nblocks < 1)
        tz_rt_g.nblocks = 1;
    uintptr_t bias = 0;
    dl_iterate_phdr(first_object, &bias);
    tz_rt_g.load_bias = bias;
    ssize_t n = readlink("/proc/self/exe", g_exe, sizeof g_exe - 1);
    g_exe[n > 0 ? n : 0] = 0;
    pthread_key_create(&g_key, thread_gone);
    pthread_atfork(NULL, NULL, at_fork_child);
    /* before main: a handler the program sets later replaces these */
    for (size_t i = 0; i < TZ_NFATAL; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_NODEFER;
        if (sigaction(fatal_signals[i], &sa, &g_fatal_old[i]) < 0)
            g_fatal_old[i].sa_handler = SIG_DFL;
    }
    g_snap_signal = parse_signal(getenv("TRAZA_RT_SNAPSHOT_SIGNAL"));
    if (g_snap_signal) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_snapshot;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        sigaction(g_snap_signal, &sa, NULL);
    }
    tz_rt_g.tsc_a = tz_plat_ticks();
    tz_rt_g.ns_a = tz_plat_ns();
    __atomic_store_n(&g_state, 1, __ATOMIC_RELEASE);
    start_snap_watch();
}

tz_thread *tz_plat_thread_peek(void) { return tz_tls_thread; }

int tz_plat_can_record(void)
{
    int st = __atomic_load_n(&g_state, __ATOMIC_ACQUIRE);
    return !tls_busy && (st == 0 || st == 1);
}

tz_thread *tz_plat_thread(void)
{
    tz_thread *t = tz_tls_thread;
    if (__builtin_expect(t != NULL, 1))
        return t;
    if (tls_busy)
        return NULL;
    tls_busy = 1;
    int st = __atomic_load_n(&g_state, __ATOMIC_ACQUIRE);
    if (st == 0) {
        rt_init();
        st = __atomic_load_n(&g_state, __ATOMIC_ACQUIRE);
    }
    if (st == 1 && tz_rt_g.mode == TZR_MODE_STREAM && g_fd == -1) {
        /* opened by the first thread that records: a second, idle runtime in the
         * process (linked in and preloaded) never touches the file */
        static int opening;
        if (__atomic_exchange_n(&opening, 1, __ATOMIC_ACQ_REL) == 0) {
            int fd = open_stream();
            if (fd < 0) {
                __atomic_store_n(&g_state, 2, __ATOMIC_RELEASE);
                st = 2;
            }
            __atomic_store_n(&g_fd, fd < 0 ? -2 : fd, __ATOMIC_RELEASE);
        } else {
            while (__atomic_load_n(&g_fd, __ATOMIC_ACQUIRE) == -1)
                ;
        }
    }
    if (st == 1) {
        size_t bytes = sizeof(tz_thread) + tz_rt_g.nblocks * tz_rt_g.block_size;
        void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m != MAP_FAILED) {
            t = m;
            tz_thread_init(t, (uint32_t)syscall(SYS_gettid), (uint8_t *)m + sizeof(tz_thread), tz_rt_g.nblocks,
                           tz_rt_g.block_size);
            t->next = __atomic_load_n(&tz_rt_g.threads, __ATOMIC_ACQUIRE);
            while (!__atomic_compare_exchange_n(&tz_rt_g.threads, &t->next, t, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
                ;
            pthread_setspecific(g_key, t);
            tz_tls_thread = t;
        }
    }
    tls_busy = 0;
    return t;
}

void traza_rt_event(uint32_t id, int64_t value)
{
    tz_thread *t = tz_plat_thread();
    if (t)
        tz_user(t, id, value);
}

void traza_rt_enable(int on) { tz_rt_g.enabled = on; }

int traza_rt_dump(void)
{
    if (__atomic_load_n(&g_state, __ATOMIC_ACQUIRE) != 1)
        return 0;
    tz_rt_g.enabled = 0;
    uint64_t events = 0;
    for (tz_thread *t = tz_rt_g.threads; t; t = t->next)
        events += t->events;
    /* Two runtimes in one process (linked in and preloaded): the idle one stays silent. */
    if (tz_rt_g.mode == TZR_MODE_RING ? events == 0 : g_fd < 0) {
        __atomic_store_n(&g_state, 2, __ATOMIC_RELEASE);
        return 0;
    }
    /* short runs: wait until the TSC calibration spans at least 5 ms */
    while (tz_plat_ns() - tz_rt_g.ns_a < 5000000u)
        ;
    int rc;
    if (tz_rt_g.mode == TZR_MODE_STREAM) {
        rc = tz_write_dump(put_fd, &g_fd, TZ_ARCH, (uint32_t)getpid(), g_exe, 0);
        close(g_fd);
        g_fd = -1;
    } else {
        int fd = open(g_out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0)
            return -1;
        rc = tz_write_dump(put_fd, &fd, TZ_ARCH, (uint32_t)getpid(), g_exe, 1);
        if (close(fd) < 0)
            rc = -1;
    }
    __atomic_store_n(&g_state, 2, __ATOMIC_RELEASE);
    return rc;
}

__attribute__((constructor)) static TZ_NOINSTR void rt_ctor(void) { rt_init(); }
__attribute__((destructor)) static TZ_NOINSTR void rt_dtor(void) { traza_rt_dump(); }

/* -finstrument-functions: exits come from the compiler, no return-address games. */
void __cyg_profile_func_enter(void *fn, void *site)
{
    (void)site;
    tz_thread *t = tz_plat_thread();
    if (t)
        tz_enter(t, (uintptr_t)fn, 0, 0);
}

void __cyg_profile_func_exit(void *fn, void *site)
{
    (void)site;
    tz_thread *t = tz_tls_thread;
    if (t)
        tz_exit_func(t, (uintptr_t)fn);
}

/* `-pg` on the link line (pkg-config gives it with the compile flags) pulls in glibc's
 * gprof start-up (gcrt1.o), which would write gmon.out: the tracer replaces gprof, so
 * these two are no-ops here. */
TZ_API void __monstartup(unsigned long lo, unsigned long hi) TZ_NOINSTR;
TZ_API void _mcleanup(void) TZ_NOINSTR;
void __monstartup(unsigned long lo, unsigned long hi) { (void)lo; (void)hi; }
void _mcleanup(void) {}
