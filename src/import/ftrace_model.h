/* What the ftrace importers share (trace-cmd .dat through libtraceevent, and the
 * text of the kernel's `trace` file or `trace-cmd report`): the model they build.
 *
 * Producers: "CPU n" (type CPU) and one "COMM (PID)" (type Thread) per task seen.
 *   sched_switch          a "running" state on the CPU: the next task's interval,
 *                         until the CPU's next switch (or the end)
 *   irq / softirq         "irq" / "softirq" states on the CPU, nested
 *   syscalls              "syscall" states on the thread
 *   function-graph        states named by the function on the thread, level = depth
 * Entries wait on a stack of frames (per CPU or per thread) for their exit. */
#ifndef TZ_IMPORT_FTRACE_MODEL_H
#define TZ_IMPORT_FTRACE_MODEL_H

#include "traza/import.h"
#include "traza/store.h"
#include "util/util.h"

#include <stdint.h>

/* The kinds of frame (an entry waiting for its exit). */
enum { FTM_IRQ = 1, FTM_SOFTIRQ, FTM_SYSCALL, FTM_SYSCALL_NAMED, FTM_FUNC };

typedef struct ftm_frame {
    int64_t ts;
    int kind;
    int64_t key;      /* irq number, softirq vector, syscall id, function address */
    const char *skey; /* FTM_SYSCALL_NAMED: the syscall's name (owned by the caller, lives
                       * as long as the model) */
    char *str;        /* FTM_IRQ: its name; FTM_FUNC: the function's (owned) */
} ftm_frame;

typedef struct ftm_stack {
    ftm_frame *f;
    size_t n, cap;
    int32_t prod;
    int cpu;
    int seen;         /* a record of this CPU / thread was read: first_ts is set */
    int64_t first_ts; /* where an exit without its entry starts */
} ftm_stack;

/* The task a CPU runs since its last sched_switch. */
typedef struct ftm_run {
    int active;
    int64_t ts, pid, prio, prev_pid, prev_state;
    char comm[32], prev_comm[32];
} ftm_run;

typedef struct ftm {
    traza_ctx *ctx;
    traza_writer *w;
    traza_err *err;
    const char *path;
    int rc;                /* -1 once something failed (err set) */
    ftm_stack *cpus;       /* per CPU: irq/softirq frames */
    ftm_run *run;
    size_t ncpus;
    ftm_stack *threads;    /* per thread: syscall/function-graph frames */
    size_t nthreads, capthreads;
    tz_imap thread_index;  /* pid -> index in threads */
    tz_map types;          /* state type name -> type */
    int32_t t_running, t_irq, t_softirq, t_syscall;
    int32_t d_comm, d_pid, d_prio, d_prev_comm, d_prev_pid, d_prev_state, d_irq, d_irqname, d_vec, d_vecname, d_sysid,
        d_sysname;
    tz_imap fg_defs;       /* function-graph type -> its "addr" def */
    int64_t first_ts, last_ts; /* of the records read so far */
    int64_t n_records, n_unended, n_unmatched;
} ftm;

void ftm_init(ftm *m, traza_ctx *ctx, traza_writer *w, const char *path, traza_err *err);
void ftm_free(ftm *m);
/* Sets err (out of memory) and m->rc; returns -1. */
int ftm_oom(ftm *m);
int ftm_fail(ftm *m);
/* Notes a record's time (ns) and returns its CPU's stack (made on first use), or NULL. */
ftm_stack *ftm_record(ftm *m, int cpu, int64_t ts);
ftm_stack *ftm_cpu(ftm *m, int cpu);
/* The thread of pid (named "COMM (PID)" when first seen; comm NULL: "<...>"), or NULL. */
ftm_stack *ftm_thread(ftm *m, int64_t pid, const char *comm, int cpu);
int32_t ftm_state_type(ftm *m, const char *name);
/* A sched_switch at ts on cpu: ends the running state of the CPU; the next task's
 * begins (its fields in m->run[cpu], filled by the caller after this returns 0). */
int ftm_switch(ftm *m, int cpu, int64_t ts);
/* An entry of `kind` (str: the irq's or the function's name, copied). 0 or -1. */
int ftm_push(ftm *m, ftm_stack *s, int kind, int64_t ts, int64_t key, const char *skey, const char *str);
/* An exit: closes the innermost open frame of the same kind and key (and skey);
 * none open: a state from `start`. 0 or -1. */
int ftm_pop(ftm *m, ftm_stack *s, int kind, int64_t ts, int64_t key, const char *skey, int64_t start);
/* The innermost open frame of `kind` on s, or NULL. */
ftm_frame *ftm_top(ftm_stack *s, int kind);
/* Ends every open state at the last record. 0 or -1. */
int ftm_finish(ftm *m);
/* Logs the exits without entries and the entries without exits. */
void ftm_log(ftm *m);

#endif
