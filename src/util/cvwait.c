/* Spinning condition variables and join: see cvwait.h for why. */
#include "util/cvwait.h"

#include <errno.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
#endif

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#elif defined(__aarch64__) || defined(__arm__)
    __asm__ volatile("yield");
#endif
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int tz_cv_init(tz_cv *c, long spin_ns)
{
    c->sig = 0;
    c->spin_ns = spin_ns;
    return pthread_cond_init(&c->cv, NULL);
}

void tz_cv_destroy(tz_cv *c) { pthread_cond_destroy(&c->cv); }

void tz_cv_wake(tz_cv *c)
{
    __atomic_store_n(&c->sig, c->sig + 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&c->cv);
}

void tz_cv_wait(tz_cv *c, pthread_mutex_t *mu)
{
    uint64_t s = c->sig;
    if (c->spin_ns > 0) {
        pthread_mutex_unlock(mu);
        int64_t end = now_ns() + c->spin_ns;
        for (unsigned i = 1; __atomic_load_n(&c->sig, __ATOMIC_ACQUIRE) == s; i++) {
            cpu_relax();
            if (i % 64 == 0 && now_ns() > end)
                break;
        }
        pthread_mutex_lock(mu);
        if (c->sig != s)
            return;
    }
    pthread_cond_wait(&c->cv, mu);
}

int tz_thread_join(pthread_t th, long spin_ns)
{
#ifdef __GLIBC__
    int64_t end = now_ns() + spin_ns;
    for (unsigned i = 1;; i++) {
        int rc = pthread_tryjoin_np(th, NULL);
        if (rc != EBUSY)
            return rc;
        cpu_relax();
        if (i % 16 == 0 && now_ns() > end)
            break;
    }
#else
    (void)spin_ns;
#endif
    return pthread_join(th, NULL);
}
