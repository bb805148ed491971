/* Fault injection as SQLite tests it: each operation runs again and again with the
 * N-th allocation failing, N = 1, 2, … until a run no longer reaches N (every
 * allocation of the operation has then failed once), and the same with the N-th
 * write, fsync or rename (fault_inject.h). After each run the operation either
 * failed cleanly — an error with a message, the workspace listing the same traces
 * and results and holding the same files as before (no temporary left), an output
 * file absent — or succeeded with the right result. Under ASan every run is also
 * checked for leaks at exit and for use of freed memory. Each test prints how many
 * failure points it exercised.
 *
 * The operations: the import of a small input of every format, saving a result (a
 * store commit), writing and reading a .tzg, compressing and decompressing a .tzi.
 * CTF, ETM and trace-cmd read their input through babeltrace2, OpenCSD and
 * libtracecmd, whose own allocations abort, throw or crash when they fail: there,
 * only the allocations of traza and SQLite are failed (fi_own_only); the CTF and ETM
 * inputs come from ../shared/data. */
#include "fault_inject.h"

#include <dirent.h>
#include <sys/stat.h>

#include "testutil.h"
#include "traza/grammar.h"
#include "traza/itf.h"
#include "traza/result.h"

/* Failure points of one kind tried in one test: every one up to FI_DENSE, then
 * every FI_STRIDE-th (an import allocates thousands of times, most of them inside
 * SQLite; this keeps the whole test within a minute, three under ASan). Set
 * TRAZA_FAULT_ALL=1 to try every one. */
enum { FI_DENSE = 400, FI_STRIDE = 7 };
/* The imports through babeltrace2 and OpenCSD allocate several times more (and take
 * longer per run): there every point up to 100, then every 29th. */
static long fi_dense = FI_DENSE, fi_stride = FI_STRIDE;

static long fi_total;
/* The fault of the run in progress, for the messages of the checks. */
static const char *fi_cur_kind = "no";
static long fi_cur_n;

static const char *src_dir(void)
{
    const char *s = getenv("TRAZA_SRC");
    return s && *s ? s : ".";
}

/* The sorted names of every file under dir (relative), '|'-separated. */
static void list_files(FILE *m, const char *dir, const char *rel)
{
    struct dirent **ents;
    int n = scandir(dir, &ents, NULL, alphasort);
    for (int i = 0; i < n; i++) {
        const char *nm = ents[i]->d_name;
        if (strcmp(nm, ".") != 0 && strcmp(nm, "..") != 0) {
            char *p = NULL, *r = NULL;
            assert_true(asprintf(&p, "%s/%s", dir, nm) > 0);
            assert_true(asprintf(&r, "%s%s", rel, nm) > 0);
            fprintf(m, "|%s", r);
            struct stat st;
            if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
                char *r2 = NULL;
                assert_true(asprintf(&r2, "%s/", r) > 0);
                list_files(m, p, r2);
                free(r2);
            }
            free(p);
            free(r);
        }
        free(ents[i]);
    }
    if (n >= 0)
        free(ents);
}

/* What a failed operation must leave as it was: the traces (id, name, events),
 * the results of `trace` (when given) and the files of the workspace and of `out_dir`. */
static char *snapshot(tu_ws *w, const char *trace, const char *out_dir)
{
    char *out = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&out, &len);
    assert_non_null(m);
    traza_trace_info *ts;
    size_t n;
    traza_err err;
    if (traza_workspace_list(w->ws, &ts, &n, &err) < 0)
        fail_msg("list: %s", err.msg);
    for (size_t i = 0; i < n; i++)
        fprintf(m, "%lld:%s:%lld;", (long long)ts[i].id, ts[i].name, (long long)ts[i].events);
    traza_trace_info_array_free(ts, n);
    if (trace) {
        traza_trace *t = traza_trace_open(w->ws, trace, TRAZA_OPEN_READ, &err);
        if (!t)
            fail_msg("open %s: %s", trace, err.msg);
        traza_result_info *rs;
        if (traza_result_list(t, &rs, &n, &err) < 0)
            fail_msg("results: %s", err.msg);
        for (size_t i = 0; i < n; i++)
            fprintf(m, "r%lld:%s;", (long long)rs[i].id, rs[i].name);
        traza_result_info_array_free(rs, n);
        traza_trace_close(t);
    }
    list_files(m, w->dir, "");
    if (out_dir) {
        fputs("#", m);
        list_files(m, out_dir, "");
    }
    assert_int_equal(fclose(m), 0);
    return out;
}

/* One operation under test. run: 0 or -1 with err set. check: after a success,
 * asserts the result is right and undoes it (so that the next run starts from the
 * same state). */
typedef struct fi_op {
    const char *label;
    tu_ws *w;
    const char *trace;    /* whose results the snapshot lists, or NULL */
    const char *out_dir;  /* a folder the operation writes into, or NULL */
    int (*run)(struct fi_op *op, traza_err *err);
    void (*check)(struct fi_op *op);
    void *user;
} fi_op;

/* Runs op with the N-th call of `kind` failing for N = 1, 2, …; returns how many
 * failure points were exercised. */
static long fi_loop(fi_op *op, int kind)
{
    const char *all = getenv("TRAZA_FAULT_ALL");
    int every = all && *all == '1';
    long points = 0;
    char *before = snapshot(op->w, op->trace, op->out_dir);
    for (long n = 1;; n += (every || n < fi_dense) ? 1 : fi_stride) {
        traza_err err;
        traza_err_clear(&err);
        fi_cur_kind = kind == FI_ALLOC ? "allocation" : "I/O";
        fi_cur_n = n;
        fi_arm(kind, n);
        int rc = op->run(op, &err);
        int hit = fi_disarm();
        if (rc == 0) {
            op->check(op);
        } else {
            if (!hit)
                fail_msg("%s: failed with no fault injected (%s fault %ld armed): %s", op->label,
                         kind == FI_ALLOC ? "allocation" : "I/O", n, err.msg);
            if (!err.msg[0])
                fail_msg("%s: %s fault %ld: an error without a message", op->label,
                         kind == FI_ALLOC ? "allocation" : "I/O", n);
        }
        char *after = snapshot(op->w, op->trace, op->out_dir);
        if (strcmp(before, after) != 0)
            fail_msg("%s: %s fault %ld (%s) changed the workspace:\n before %s\n after  %s", op->label,
                     kind == FI_ALLOC ? "allocation" : "I/O", n, rc == 0 ? "success" : err.msg, before, after);
        free(after);
        if (!hit)
            break;
        points++;
    }
    free(before);
    print_message("[ FAULTS   ] %s: %ld %s failure points\n", op->label, points,
                  kind == FI_ALLOC ? "allocation" : "write/fsync/rename");
    fi_total += points;
    return points;
}

static void fi_both(fi_op *op)
{
    assert_true(fi_loop(op, FI_ALLOC) > 0);
    fi_loop(op, FI_IO);
}

/* ---- imports ----------------------------------------------------------------- */

typedef struct imp_case {
    const char *path;     /* the input */
    const char *format;
    char digest[64];      /* of the clean import */
} imp_case;

/* Events, producers and types of a trace, folded into one text. */
static void trace_digest(tu_ws *w, const char *name, char *out, size_t size)
{
    traza_err err;
    traza_trace *t = traza_trace_open(w->ws, name, TRAZA_OPEN_READ, &err);
    if (!t)
        fail_msg("open %s: %s", name, err.msg);
    traza_filter f;
    traza_filter_init(&f);
    f.with_params = 1;
    traza_cursor *c = traza_query(t, &f, &err);
    assert_non_null(c);
    uint64_t h = 1469598103934665603ull;
    long n = 0;
    const traza_event *e;
    int rc;
    while ((rc = traza_cursor_next(c, &e, &err)) == 1) {
        char buf[512];
        int k = snprintf(buf, sizeof buf, "%lld %lld %s %s %u", (long long)e->ts, (long long)e->end_ts,
                         traza_trace_event_type(t, e->type)->name, traza_trace_producer(t, e->producer)->name,
                         e->nparams);
        for (int i = 0; i < k && i < (int)sizeof buf; i++)
            h = (h ^ (unsigned char)buf[i]) * 1099511628211ull;
        n++;
    }
    assert_int_equal(rc, 0);
    traza_cursor_free(c);
    const traza_producer *ps;
    const traza_event_type *ty;
    size_t np = traza_trace_producers(t, &ps), nt = traza_trace_event_types(t, &ty);
    snprintf(out, size, "%ld events %zu producers %zu types %016llx", n, np, nt, (unsigned long long)h);
    traza_trace_close(t);
}

static int imp_run(fi_op *op, traza_err *err)
{
    imp_case *c = op->user;
    traza_import_opts o;
    memset(&o, 0, sizeof o);
    o.format = c->format;
    o.name = "faulty";
    traza_trace_info info;
    const char *paths[1] = {c->path};
    int rc = traza_import(op->w->ws, paths, 1, &o, &info, err);
    if (rc == 0)
        traza_trace_info_clear(&info);
    return rc;
}

/* Removes the imported trace, and the trace a CTF kernel import derives from it. */
static void remove_import(tu_ws *w)
{
    traza_err err;
    if (traza_workspace_remove(w->ws, "faulty", &err) < 0)
        fail_msg("rm: %s", err.msg);
    traza_workspace_remove(w->ws, "faulty.processed", &err); /* absent for most formats */
}

static void imp_check(fi_op *op)
{
    imp_case *c = op->user;
    char d[sizeof c->digest];
    trace_digest(op->w, "faulty", d, sizeof d);
    assert_string_equal(d, c->digest);
    remove_import(op->w);
}

static void fault_import(const char *format, const char *rel)
{
    tu_ws w;
    tu_ws_open(&w);
    imp_case c = {.format = format};
    char *path = NULL;
    if (rel[0] == '/' || strcmp(format, "uftrace") == 0)
        path = strdup(rel);
    else
        assert_true(asprintf(&path, "%s/%s", src_dir(), rel) > 0);
    c.path = path;
    char label[64];
    snprintf(label, sizeof label, "import %s", format);
    fi_op op = {.label = label, .w = &w, .run = imp_run, .check = imp_check, .user = &c};
    /* the clean import, to compare with */
    traza_err err;
    if (imp_run(&op, &err) < 0)
        fail_msg("%s: %s", label, err.msg);
    trace_digest(&w, "faulty", c.digest, sizeof c.digest);
    remove_import(&w);
    fi_both(&op);
    free(path);
    tu_ws_close(&w);
}

/* An import of a trace of ../shared/data (skipped, visibly, when it is absent). */
static void fault_import_shared(const char *format, const char *rel)
{
    const char *d = tu_data_dir();
    TU_SKIP_NO_DATA(d);
    char *rp = realpath(d, NULL), *path = NULL;
    assert_non_null(rp);
    assert_true(asprintf(&path, "%s/%s", rp, rel) > 0);
    free(rp);
    atomic_store(&fi_own_only, 1);
    fi_dense = 100, fi_stride = 29;
    fault_import(format, path);
    fi_dense = FI_DENSE, fi_stride = FI_STRIDE;
    atomic_store(&fi_own_only, 0);
    free(path);
}

static void test_import_perfscript(void **state) { (void)state; fault_import("perf-script", "fuzz/corpus/perfscript/model.txt"); }
static void test_import_perfetto(void **state) { (void)state; fault_import("perfetto", "fuzz/corpus/perfetto/demo.pftrace"); }
static void test_import_tarmac(void **state) { (void)state; fault_import("tarmac", "fuzz/corpus/tarmac/calls.tarmac"); }
static void test_import_itf(void **state) { (void)state; fault_import("itf", "fuzz/corpus/itftext/calls.itf"); }
static void test_import_perfetto_clocks(void **state) { (void)state; fault_import("perfetto", "fuzz/corpus/perfetto/clocks.pftrace"); }
/* trace-cmd files are read through libtracecmd, whose allocations are left alone */
static void test_import_tracecmd(void **state)
{
    (void)state;
    atomic_store(&fi_own_only, 1);
    fault_import("trace-cmd", "fuzz/corpus/tracecmd/all_kinds.dat");
    atomic_store(&fi_own_only, 0);
}
static void test_import_ctf(void **state) { (void)state; fault_import_shared("ctf", "babeltrace-ctf/wk-heartbeat-u"); }
static void test_import_etm(void **state) { (void)state; fault_import_shared("etm", "opencsd/snapshots/TC2"); }

static void test_import_paje(void **state) { (void)state; fault_import("paje", "fuzz/corpus/paje/basic.paje"); }
static void test_import_pjdump(void **state) { (void)state; fault_import("pjdump", "fuzz/corpus/paje/basic.pjdump"); }
static void test_import_kptrace(void **state) { (void)state; fault_import("kptrace", "fuzz/corpus/kptrace/basic.csv"); }
static void test_import_pc(void **state) { (void)state; fault_import("pc", "fuzz/corpus/pc/keil.csv"); }
static void test_import_csv(void **state) { (void)state; fault_import("csv", "fuzz/corpus/csv/header.csv"); }
static void test_import_rtdump(void **state) { (void)state; fault_import("rtdump", "fuzz/corpus/rtdump/cortexm.tzr"); }
static void test_import_rtram(void **state) { (void)state; fault_import("rtram", "fuzz/corpus/rtram/live-burst.ram"); }
static void test_import_chrome(void **state) { (void)state; fault_import("chrome", "fuzz/corpus/chrome/async.json"); }

/* The uftrace seed of the fuzz corpus holds the files of a recording separated by
 * "\n@@\n" (fuzz/fuzz_uftrace.c). */
static void test_import_uftrace(void **state)
{
    (void)state;
    char *seed = NULL;
    assert_true(asprintf(&seed, "%s/fuzz/corpus/uftrace/full.bin", src_dir()) > 0);
    FILE *f = fopen(seed, "rb");
    assert_non_null(f);
    char data[4096];
    size_t size = fread(data, 1, sizeof data, f);
    fclose(f);
    free(seed);
    char *dir = tu_tmpdir(), *rec = NULL;
    assert_true(asprintf(&rec, "%s/uftrace.data", dir) > 0);
    assert_int_equal(mkdir(rec, 0755), 0);
    static const char *names[] = {"info", "task.txt", "app.sym", "sid-f.map", "100.dat"};
    size_t pos = 0;
    for (int i = 0; i < 5; i++) {
        const char *sep = i < 4 ? memmem(data + pos, size - pos, "\n@@\n", 4) : NULL;
        size_t end = sep ? (size_t)(sep - data) : size;
        char *p = NULL;
        assert_true(asprintf(&p, "%s/%s", rec, names[i]) > 0);
        FILE *o = fopen(p, "wb");
        assert_non_null(o);
        assert_int_equal(fwrite(data + pos, 1, end - pos, o), end - pos);
        assert_int_equal(fclose(o), 0);
        free(p);
        pos = sep ? end + 4 : size;
    }
    fault_import("uftrace", rec);
    free(rec);
    tu_rmdir(dir);
}

/* ---- saving a result ----------------------------------------------------------- */

static int res_run(fi_op *op, traza_err *err)
{
    traza_trace *t = traza_trace_open(op->w->ws, "basic", TRAZA_OPEN_WRITE, err);
    if (!t)
        return -1;
    static const int64_t ids[] = {1, 3, 5, 7};
    traza_result_meta m = {.name = "picked", .tool = "test", .params = "{}"};
    int64_t id = traza_result_save_events(t, &m, ids, 4, err);
    traza_trace_close(t);
    return id > 0 ? 0 : -1;
}

static void res_check(fi_op *op)
{
    traza_err err;
    traza_trace *t = traza_trace_open(op->w->ws, "basic", TRAZA_OPEN_WRITE, &err);
    assert_non_null(t);
    traza_result_info r;
    if (traza_result_find(t, "picked", &r, &err) < 0)
        fail_msg("saved result not found: %s", err.msg);
    int64_t *ids;
    size_t n;
    assert_int_equal(traza_result_events(t, r.id, &ids, &n, &err), 0);
    assert_int_equal(n, 4);
    assert_int_equal(ids[0], 1);
    assert_int_equal(ids[3], 7);
    free(ids);
    assert_int_equal(traza_result_delete(t, r.id, &err), 0);
    traza_result_info_clear(&r);
    traza_trace_close(t);
}

static void test_result_save(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    char *path = NULL;
    assert_true(asprintf(&path, "%s/fuzz/corpus/paje/basic.paje", src_dir()) > 0);
    traza_import_opts o;
    memset(&o, 0, sizeof o);
    o.name = "basic";
    traza_trace_info info;
    if (traza_import(w.ws, (const char *const *)&path, 1, &o, &info, &w.err) < 0)
        fail_msg("import: %s", w.err.msg);
    traza_trace_info_clear(&info);
    fi_op op = {.label = "result save", .w = &w, .trace = "basic", .run = res_run, .check = res_check};
    fi_both(&op);
    free(path);
    tu_ws_close(&w);
}

/* ---- .tzg ----------------------------------------------------------------------- */

enum { TZG_N = 600 };

typedef struct tzg_case {
    uint64_t seq[TZG_N];
    traza_grammar *g;
    char *dir, *path;
    int backend;
    size_t got;
    int same;
} tzg_case;

static int tzg_write_run(fi_op *op, traza_err *err)
{
    tzg_case *c = op->user;
    return traza_tzg_write(c->g, c->path, c->backend, err);
}

static int tzg_collect(void *user, uint64_t sym)
{
    tzg_case *c = user;
    if (c->got >= TZG_N || c->seq[c->got] != sym)
        c->same = 0;
    c->got++;
    return 0;
}

/* Expands g and compares it with the sequence; -1 (err set) when the expansion
 * fails, as it may while a fault is armed. */
static int tzg_expect_same(tzg_case *c, const traza_grammar *g, traza_err *err)
{
    c->got = 0;
    c->same = 1;
    if (traza_grammar_extract(g, 0, TZG_N, tzg_collect, c, err) < 0)
        return -1;
    assert_int_equal(c->got, TZG_N);
    assert_true(c->same);
    return 0;
}

static void tzg_write_check(fi_op *op)
{
    tzg_case *c = op->user;
    traza_err err;
    traza_grammar *g = traza_tzg_read(c->path, &err);
    if (!g)
        fail_msg("read back: %s", err.msg);
    if (tzg_expect_same(c, g, &err) < 0)
        fail_msg("expand: %s", err.msg);
    traza_grammar_free(g);
    assert_int_equal(unlink(c->path), 0);
}

static int tzg_read_run(fi_op *op, traza_err *err)
{
    tzg_case *c = op->user;
    traza_grammar *g = traza_tzg_read(c->path, err);
    if (!g)
        return -1;
    int rc = tzg_expect_same(c, g, err);
    traza_grammar_free(g);
    return rc;
}

static void nothing(fi_op *op) { (void)op; }

static void tzg_case_init(tzg_case *c, int backend)
{
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < TZG_N; i++) /* loops with a varying body: rules and runs */
        c->seq[i] = (i % 7 == 0) ? 1 : 2 + (i * i) % 5;
    traza_err err;
    uint64_t loop_header = 1;
    c->g = traza_grammar_build(c->seq, TZG_N, TRAZA_G_CYCLITUR, &loop_header, &err);
    if (!c->g)
        fail_msg("build: %s", err.msg);
    c->dir = tu_tmpdir();
    assert_true(asprintf(&c->path, "%s/g.tzg", c->dir) > 0);
    c->backend = backend;
}

static void tzg_case_free(tzg_case *c)
{
    traza_grammar_free(c->g);
    free(c->path);
    tu_rmdir(c->dir);
}

static void tzg_loops(int backend, const char *wlabel, const char *rlabel)
{
    tu_ws w;
    tu_ws_open(&w);
    static tzg_case c;
    tzg_case_init(&c, backend);
    fi_op wr = {.label = wlabel, .w = &w, .out_dir = c.dir, .run = tzg_write_run, .check = tzg_write_check,
                .user = &c};
    fi_both(&wr);
    traza_err err;
    assert_int_equal(traza_tzg_write(c.g, c.path, backend, &err), 0);
    fi_op rd = {.label = rlabel, .w = &w, .out_dir = c.dir, .run = tzg_read_run, .check = nothing, .user = &c};
    assert_true(fi_loop(&rd, FI_ALLOC) > 0);
    tzg_case_free(&c);
    tu_ws_close(&w);
}

static void test_tzg_zstd(void **state) { (void)state; tzg_loops(TRAZA_TZG_ZSTD, "tzg write (zstd)", "tzg read (zstd)"); }
static void test_tzg_xz(void **state) { (void)state; tzg_loops(TRAZA_TZG_XZ, "tzg write (xz)", "tzg read (xz)"); }

/* ---- .tzi ----------------------------------------------------------------------- */

typedef struct tzi_case {
    char *in, *dir, *out;
    char *text;
    size_t len;
    FILE *got;
} tzi_case;

static int tzi_write_run(fi_op *op, traza_err *err)
{
    tzi_case *c = op->user;
    traza_itf_opts o;
    traza_itf_opts_init(&o);
    return traza_itf_compress(c->in, c->out, &o, NULL, err);
}

/* Decompresses c->out into a temporary file (c->got), compared by tzi_read_check
 * once the fault is disarmed. */
static int tzi_read_run(fi_op *op, traza_err *err)
{
    tzi_case *c = op->user;
    traza_itf_reader *r = traza_itf_open_path(c->out, err);
    if (!r)
        return -1;
    int rc = -1;
    if (!(c->got = tmpfile()))
        traza_err_set(err, TRAZA_E_IO, "tmpfile: %s", strerror(errno));
    else
        rc = traza_itf_decompress(r, c->got, err);
    traza_itf_close(r);
    if (rc < 0 && c->got) {
        fclose(c->got);
        c->got = NULL;
    }
    return rc;
}

static void tzi_read_check(fi_op *op)
{
    tzi_case *c = op->user;
    char *buf = malloc(c->len + 1);
    assert_non_null(buf);
    assert_int_equal(fflush(c->got), 0);
    rewind(c->got);
    size_t len = fread(buf, 1, c->len + 1, c->got);
    if (len != c->len || memcmp(buf, c->text, len) != 0)
        fail_msg("%s: %s fault %ld: decompressed %zu bytes differ from the %zu of the input", op->label, fi_cur_kind,
                 fi_cur_n, len, c->len);
    free(buf);
    assert_int_equal(fclose(c->got), 0);
    c->got = NULL;
}

static void tzi_write_check(fi_op *op)
{
    tzi_case *c = op->user;
    traza_err err;
    if (tzi_read_run(op, &err) < 0)
        fail_msg("%s fault %ld: compressed, but reading back: %s", fi_cur_kind, fi_cur_n, err.msg);
    tzi_read_check(op);
    assert_int_equal(unlink(c->out), 0);
}

static void test_tzi(void **state)
{
    (void)state;
    tu_ws w;
    tu_ws_open(&w);
    tzi_case c;
    memset(&c, 0, sizeof c);
    assert_true(asprintf(&c.in, "%s/tests/itf/data/v2_loop.itf", src_dir()) > 0);
    FILE *f = fopen(c.in, "rb");
    assert_non_null(f);
    c.text = malloc(1 << 16);
    assert_non_null(c.text);
    c.len = fread(c.text, 1, 1 << 16, f);
    fclose(f);
    c.dir = tu_tmpdir();
    assert_true(asprintf(&c.out, "%s/t.tzi", c.dir) > 0);
    fi_op wr = {.label = "tzi compress", .w = &w, .out_dir = c.dir, .run = tzi_write_run,
                .check = tzi_write_check, .user = &c};
    fi_both(&wr);
    traza_err err;
    assert_int_equal(tzi_write_run(&wr, &err), 0);
    fi_op rd = {.label = "tzi decompress", .w = &w, .out_dir = c.dir, .run = tzi_read_run, .check = tzi_read_check,
                .user = &c};
    fi_both(&rd);
    free(c.in);
    free(c.out);
    free(c.text);
    tu_rmdir(c.dir);
    tu_ws_close(&w);
}

static void test_total(void **state)
{
    (void)state;
    print_message("[ FAULTS   ] total: %ld failure points exercised\n", fi_total);
    assert_true(fi_total > 0);
}

int main(void)
{
    fi_init();
    const char *only = getenv("TRAZA_FAULT_ONLY"); /* e.g. test_import_ctf */
    if (only && *only)
        cmocka_set_test_filter(only);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_import_paje),   cmocka_unit_test(test_import_pjdump),
        cmocka_unit_test(test_import_kptrace), cmocka_unit_test(test_import_pc),
        cmocka_unit_test(test_import_csv),    cmocka_unit_test(test_import_rtdump),
        cmocka_unit_test(test_import_rtram),
        cmocka_unit_test(test_import_chrome), cmocka_unit_test(test_import_uftrace),
        cmocka_unit_test(test_import_ctf),    cmocka_unit_test(test_import_etm),
        cmocka_unit_test(test_import_perfscript), cmocka_unit_test(test_import_perfetto),
        cmocka_unit_test(test_import_perfetto_clocks), cmocka_unit_test(test_import_tarmac),
        cmocka_unit_test(test_import_itf),
        cmocka_unit_test(test_import_tracecmd),
        cmocka_unit_test(test_result_save),   cmocka_unit_test(test_tzg_zstd),
        cmocka_unit_test(test_tzg_xz),        cmocka_unit_test(test_tzi),
        cmocka_unit_test(test_total),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
