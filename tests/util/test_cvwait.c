/* Spinning condition variables and join (src/util/cvwait.c): a value passed back and
 * forth between two threads arrives every time, whether the waiter catches the wake
 * while it polls (long spin), after it went to sleep (no spin) or either way (a spin
 * shorter than the partner's work); tz_thread_join returns once the thread is over. */
#include "testutil.h"

#include <pthread.h>
#include <time.h>

#include "util/cvwait.h"

#define ROUNDS 2000

typedef struct ping {
    pthread_mutex_t mu;
    tz_cv cv;
    int turn;     /* 0: the main thread's, 1: the partner's */
    long value;   /* bumped by each side in its turn */
    long seen[2]; /* values each side saw in its turns, summed */
    int slow;     /* the partner works a little before it answers */
} ping;

static void work(void)
{
    struct timespec ts = {0, 20000}; /* 20 us: longer than the short spin below */
    nanosleep(&ts, NULL);
}

static void *partner(void *arg)
{
    ping *p = arg;
    for (int i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&p->mu);
        while (p->turn != 1)
            tz_cv_wait(&p->cv, &p->mu);
        p->seen[1] += p->value;
        p->value++;
        pthread_mutex_unlock(&p->mu);
        if (p->slow && i % 64 == 0)
            work();
        pthread_mutex_lock(&p->mu);
        p->turn = 0;
        tz_cv_wake(&p->cv);
        pthread_mutex_unlock(&p->mu);
    }
    return NULL;
}

static void run(long spin_ns, int slow)
{
    ping p = {.slow = slow};
    assert_int_equal(pthread_mutex_init(&p.mu, NULL), 0);
    assert_int_equal(tz_cv_init(&p.cv, spin_ns), 0);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, partner, &p), 0);
    for (int i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&p.mu);
        p.seen[0] += p.value;
        p.value++;
        p.turn = 1;
        tz_cv_wake(&p.cv);
        while (p.turn != 0)
            tz_cv_wait(&p.cv, &p.mu);
        pthread_mutex_unlock(&p.mu);
    }
    assert_int_equal(tz_thread_join(th, spin_ns), 0);
    /* main saw 0, 2, 4, ...; the partner 1, 3, 5, ... */
    assert_int_equal(p.value, 2 * ROUNDS);
    assert_true(p.seen[0] == (long)ROUNDS * (ROUNDS - 1));
    assert_true(p.seen[1] == (long)ROUNDS * ROUNDS);
    tz_cv_destroy(&p.cv);
    pthread_mutex_destroy(&p.mu);
}

static void test_sleeping_waiters(void **state)
{
    (void)state;
    run(0, 0);
}

static void test_spinning_waiters(void **state)
{
    (void)state;
    run(1000000000L, 0); /* 1 s: every wake is caught while polling */
}

static void test_short_spin(void **state)
{
    (void)state;
    run(5000, 1); /* 5 us against the partner's 20 us pauses: both paths */
}

static volatile int finished;

static void *ends(void *arg)
{
    (void)arg;
    work();
    finished = 1;
    return NULL;
}

static void test_join(void **state)
{
    (void)state;
    for (long spin = 0; spin <= 100000000L; spin += 100000000L) {
        finished = 0;
        pthread_t th;
        assert_int_equal(pthread_create(&th, NULL, ends, NULL), 0);
        assert_int_equal(tz_thread_join(th, spin), 0);
        assert_int_equal(finished, 1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sleeping_waiters),
        cmocka_unit_test(test_spinning_waiters),
        cmocka_unit_test(test_short_spin),
        cmocka_unit_test(test_join),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
