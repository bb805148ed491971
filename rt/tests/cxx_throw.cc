// C++ exceptions across traced frames (tests/rt/t_crash_cxx.sh): N times,
// catcher() -> a() -> b() -> c() throws, caught in catcher(); every third time a()
// rethrows through its own handler; the destructor of a local of b() calls leaf()
// while the exception passes. Prints "caught N sum S".
#include <cstdio>
#include <cstdlib>

volatile long sink;

__attribute__((noinline)) void leaf(long i) { sink += i; }
__attribute__((noinline)) void c(int i)
{
    leaf(i);
    if (i >= 0)
        throw i;
}
struct Guard {
    ~Guard() { leaf(2); }
};
__attribute__((noinline)) void b(int i)
{
    Guard g; // its destructor runs during the unwinding (a landing pad)
    c(i);
    sink++;
}
__attribute__((noinline)) void a(int i)
{
    if (i % 3 == 0) {
        try {
            b(i);
        } catch (int) {
            leaf(1);
            throw;
        }
    } else
        b(i);
    sink++;
}
__attribute__((noinline)) int catcher(int i)
{
    try {
        a(i);
    } catch (int v) {
        return v;
    }
    return -1;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 10;
    long sum = 0;
    int caught = 0;
    for (int i = 0; i < n; i++) {
        int v = catcher(i);
        if (v == i)
            caught++;
        sum += v;
    }
    leaf(0);
    printf("caught %d sum %ld\n", caught, sum);
    return 0;
}
