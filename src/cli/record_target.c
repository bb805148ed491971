/* traza record --target gdb://HOST:PORT --elf FW.elf: a bare-metal target's ring read
 * live (traza_live_record), imported as a trace at the end and, every --refresh
 * milliseconds while it records, imported so far (doc/tracer-live.md). The imports
 * during the recording run on a thread of their own, so that the polls keep their
 * pace: each replaces the trace's previous version in one step (the store's replace),
 * marked rt.recording=1; the final import replaces the last one without the mark. */
#include "cli/record_target.h"
#include "traza/live.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t live_stop;
static void on_sigint(int sig)
{
    (void)sig;
    live_stop = 1;
}

/* gdb://HOST:PORT -> host, port (in buf) */
static int parse_target(const char *url, char *buf, size_t size, const char **host, const char **port)
{
    if (strncmp(url, "gdb://", 6) != 0 || strlen(url + 6) >= size)
        return -1;
    snprintf(buf, size, "%s", url + 6);
    char *colon = strrchr(buf, ':');
    if (!colon || colon == buf || !colon[1])
        return -1;
    *colon = '\0';
    *host = buf;
    *port = colon + 1;
    return 0;
}

/* The dump into `out`, or into a new temporary file (its path in tmpl) when out is
 * NULL: 0, or -1 with errno. */
static int write_dump(const char *out, char *tmpl, const unsigned char *dump, size_t len)
{
    int fd = out ? open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : mkstemp(tmpl);
    if (fd < 0)
        return -1;
    int rc = tz_write_all(fd, dump, len);
    int e = errno;
    if (close(fd) < 0 && rc == 0) {
        rc = -1;
        e = errno;
    }
    if (rc < 0 && !out)
        unlink(tmpl);
    errno = e;
    return rc;
}

/* Imports the dump file as trace `name`, replacing the trace's previous version when
 * `replace`, with the parameters kv[0..n-1]. */
static int import_dump(traza_workspace *ws, const char *path, const char *name, int replace, const traza_kv *kv,
                       size_t n, traza_trace_info *info, traza_err *err)
{
    traza_import_opts o = {0};
    o.format = "rtdump";
    o.name = name;
    o.replace = replace;
    o.params = kv;
    o.nparams = n;
    const char *paths[1] = {path};
    return traza_import(ws, paths, 1, &o, info, err);
}

/* The imports during the recording: the newest dump waits for the thread (a newer one
 * takes its place), which imports it as the trace's next version. */
typedef struct refresher {
    traza_workspace *ws;
    const char *name;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned char *dump;    /* the dump waiting (malloc'd), len bytes */
    size_t len;
    int quit;
    int published;          /* a version of the trace is in the store */
    long long imports;      /* versions published */
    int failed;             /* an import failed: no more (err says why) */
    traza_err err;
} refresher;

static void *refresh_main(void *arg)
{
    refresher *r = arg;
    static const traza_kv recording[1] = {{(char *)"rt.recording", (char *)"1"}};
    pthread_mutex_lock(&r->mu);
    for (;;) {
        while (!r->quit && !r->dump)
            pthread_cond_wait(&r->cv, &r->mu);
        if (r->quit)
            break;
        unsigned char *dump = r->dump;
        size_t len = r->len;
        int replace = r->published;
        r->dump = NULL;
        pthread_mutex_unlock(&r->mu);
        char tmpl[] = "/tmp/traza-live-XXXXXX";
        traza_err err;
        traza_err_clear(&err);
        traza_trace_info info;
        int rc = write_dump(NULL, tmpl, dump, len);
        if (rc < 0)
            traza_err_set(&err, TRAZA_E_IO, "%s: %s", tmpl, strerror(errno));
        else {
            rc = import_dump(r->ws, tmpl, r->name, replace, recording, 1, &info, &err);
            unlink(tmpl);
            if (rc == 0)
                traza_trace_info_clear(&info);
        }
        free(dump);
        pthread_mutex_lock(&r->mu);
        if (rc < 0) {
            r->failed = 1;
            r->err = err;
            break;
        }
        r->published = 1;
        r->imports++;
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

/* traza_live_opts.on_dump: the dump to the thread (a copy; one waiting is dropped) */
static int refresh_offer(void *user, const unsigned char *dump, size_t len, const traza_live_stats *st, traza_err *err)
{
    (void)st;
    refresher *r = user;
    unsigned char *copy = malloc(len ? len : 1);
    if (!copy)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    memcpy(copy, dump, len);
    pthread_mutex_lock(&r->mu);
    if (r->failed) {
        free(copy);
    } else {
        free(r->dump);
        r->dump = copy;
        r->len = len;
        pthread_cond_signal(&r->cv);
    }
    pthread_mutex_unlock(&r->mu);
    return 0;
}

static int refresh_start(refresher *r, traza_workspace *ws, const char *name)
{
    memset(r, 0, sizeof *r);
    r->ws = ws;
    r->name = name;
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    /* the recording's SIGINT is for the thread that polls */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    int rc = pthread_create(&r->th, NULL, refresh_main, r);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        pthread_cond_destroy(&r->cv);
        pthread_mutex_destroy(&r->mu);
        fprintf(stderr, "traza record: cannot start the thread of --refresh: %s\n", strerror(rc));
        return -1;
    }
    return 0;
}

/* Waits for the import under way (a dump still waiting is dropped: the final import
 * takes its place). */
static void refresh_stop(refresher *r)
{
    pthread_mutex_lock(&r->mu);
    r->quit = 1;
    pthread_cond_signal(&r->cv);
    pthread_mutex_unlock(&r->mu);
    pthread_join(r->th, NULL);
    free(r->dump);
    r->dump = NULL;
    pthread_cond_destroy(&r->cv);
    pthread_mutex_destroy(&r->mu);
}

/* The recording or its final import failed (err): a version imported during the
 * recording stays, no longer marked as being recorded. */
static int fail_recorded(traza_cli *cli, traza_workspace *ws, const char *name, int published, const traza_err *err)
{
    int rc = cli_fail(cli, err);
    if (published) {
        traza_kv unmark[1] = {{(char *)"rt.recording", NULL}};
        traza_err e2;
        traza_err_clear(&e2);
        if (traza_workspace_set_meta(ws, name, unmark, 1, &e2) == 0)
            fprintf(stderr, "traza record: trace '%s' keeps what was imported before\n", name);
    }
    return rc;
}

int cli_record_target(traza_cli *cli, const cli_record_target_opts *ro)
{
    char buf[512];
    traza_live_opts o = {0};
    if (parse_target(ro->target, buf, sizeof buf, &o.host, &o.port) < 0)
        return cli_usage_error("record", "--target is gdb://HOST:PORT, not '%s'", ro->target);
    if (!ro->elf)
        return cli_usage_error("record", "--target needs --elf FW.elf (the firmware the target runs)");
    const char *name = ro->name;
    if (!name) {
        const char *b = strrchr(ro->elf, '/');
        name = b ? b + 1 : ro->elf;
    }
    traza_workspace *ws = cli_ws(cli);
    if (!ws)
        return EXIT_FAIL;
    traza_err err;
    traza_err_clear(&err);
    traza_trace_info info;
    /* a name taken is refused before the recording, not after it */
    if (traza_workspace_find(ws, name, &info, &err) == 0) {
        traza_trace_info_clear(&info);
        traza_err_set(&err, TRAZA_E_EXISTS, "a trace named '%s' already exists", name);
        return cli_fail_new_trace(cli, &err);
    }
    traza_err_clear(&err);
    o.program = ro->elf;
    o.interval_ms = (int)ro->interval_ms;
    o.duration_ms = (int)(ro->duration_s * 1000);
    o.stop = &live_stop;
    o.timeout_ms = 5000;
    refresher rf;
    int refreshing = ro->refresh_ms > 0;
    if (refreshing) {
        if (refresh_start(&rf, ws, name) < 0)
            return EXIT_FAIL;
        o.refresh_ms = (int)ro->refresh_ms;
        o.on_dump = refresh_offer;
        o.user = &rf;
    }
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigaction(SIGINT, &sa, &old);
    unsigned char *dump = NULL;
    size_t dumplen = 0;
    traza_live_stats st;
    int rc = traza_live_record(&o, &dump, &dumplen, &st, &err);
    sigaction(SIGINT, &old, NULL);
    int published = 0;
    long long versions = 0;
    if (refreshing) {
        refresh_stop(&rf);
        published = rf.published;
        versions = rf.imports;
        if (rf.failed && !cli->quiet)
            fprintf(stderr, "traza record: importing the trace during the recording stopped: %s\n", rf.err.msg);
    }
    if (rc < 0) {
        free(dump);
        return fail_recorded(cli, ws, name, published, &err);
    }
    /* the dump file, then the import (which reads it) */
    char tmpl[] = "/tmp/traza-live-XXXXXX";
    const char *path = ro->out ? ro->out : tmpl;
    if (write_dump(ro->out, tmpl, dump, dumplen) < 0) {
        traza_err_set(&err, TRAZA_E_IO, "%s: %s", path, strerror(errno));
        free(dump);
        return fail_recorded(cli, ws, name, published, &err);
    }
    free(dump);
    if (!cli->quiet) {
        fprintf(stderr, "traza record: %s: %llu polls, %llu bytes of events, target events %llu, "
                        "%llu blocks overwritten before they were read%s\n",
                ro->target, (unsigned long long)st.polls, (unsigned long long)st.bytes, (unsigned long long)st.events,
                (unsigned long long)st.lost_blocks,
                st.target_exited ? " (the target exited: what it wrote after the last poll is not read)" : "");
        if (st.tasks_named || st.tasks_unnamed)
            fprintf(stderr, "traza record: task names read from the target: %llu, not readable (named \"task N\"): %llu\n",
                    (unsigned long long)st.tasks_named, (unsigned long long)st.tasks_unnamed);
    }
    char unread[32];
    snprintf(unread, sizeof unread, "%llu", (unsigned long long)st.tasks_unnamed);
    traza_kv kv[1] = {{(char *)"rt.task_names_unread", unread}};
    rc = import_dump(ws, path, name, published, kv, st.tasks_named || st.tasks_unnamed ? 1 : 0, &info, &err);
    if (!ro->out)
        unlink(tmpl);
    if (rc < 0)
        return fail_recorded(cli, ws, name, published, &err);
    if (cli->json) {
        tz_buf b;
        tz_buf_init(&b);
        tz_buf_puts(&b, "{\"trace\":");
        tz_json_str(&b, info.name);
        tz_buf_printf(&b, ",\"events\":%lld,\"target_events\":%llu,\"overwritten_blocks\":%llu,\"polls\":%llu,"
                          "\"refreshes\":%lld,\"tasks_named\":%llu,\"tasks_unnamed\":%llu}\n",
                      (long long)info.events, (unsigned long long)st.events, (unsigned long long)st.lost_blocks,
                      (unsigned long long)st.polls, versions, (unsigned long long)st.tasks_named,
                      (unsigned long long)st.tasks_unnamed);
        fputs(b.s ? b.s : "", stdout);
        tz_buf_free(&b);
    } else if (!cli->quiet)
        printf("imported '%s': %lld events\n", info.name, (long long)info.events);
    traza_trace_info_clear(&info);
    return EXIT_OK;
}
