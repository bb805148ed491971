/* Condition variables that spin briefly before they sleep, and a join that does too.
 *
 * ITFComp's line decoder and its render thread hand batches to each other every
 * 50-100 microseconds. A thread that sleeps on a plain condition variable between
 * batches must be woken through the kernel: on a VM the waker pays about 2 us per
 * futex wake, because the sleeper's virtual CPU has halted, and the last wake-up and
 * the join at the end of a Tarmac decompression take about 0.1 ms, 2-3 % of the
 * whole. So a waiter first polls a counter that every wake bumps, for a bounded
 * time, and sleeps only if nothing came; a waker whose partner is polling finds no
 * sleeper and makes no system call. Polling costs a core: the compressor's tokenizer
 * queue, whose second core also packs streams, is 6-10 % slower with it.
 *
 * Use: every change the waiters wait for is made with the mutex held and followed by
 * tz_cv_wake; waiters loop on their condition around tz_cv_wait, as with
 * pthread_cond_wait (which may return spuriously too). */
#ifndef TZ_CVWAIT_H
#define TZ_CVWAIT_H

#include <pthread.h>
#include <stdint.h>

typedef struct tz_cv {
    pthread_cond_t cv;
    uint64_t sig;  /* bumped by every wake: written under the mutex, polled outside */
    long spin_ns;  /* how long a waiter polls before it sleeps */
} tz_cv;

/* 0, or an error number from pthread_cond_init. */
int tz_cv_init(tz_cv *c, long spin_ns);
void tz_cv_destroy(tz_cv *c);
/* With the mutex held: wakes every waiter. */
void tz_cv_wake(tz_cv *c);
/* With the mutex held: returns after a wake (or spuriously), the mutex held again. */
void tz_cv_wait(tz_cv *c, pthread_mutex_t *mu);
/* pthread_join, polling first for up to spin_ns for a thread that is about to end. */
int tz_thread_join(pthread_t th, long spin_ns);

#endif
