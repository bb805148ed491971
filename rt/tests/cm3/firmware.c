/* A small Cortex-M3 firmware traced by the bare-metal runtime: a main loop reading
 * a fake sensor, filtering, checksumming, with user events around a critical section
 * and a short recursion. Built with -finstrument-functions; the dump goes to the host
 * through semihosting at the end. */
#include <stdint.h>
#include "traza_rt.h"

volatile uint32_t sink;
static uint32_t state = 12345;

__attribute__((noinline)) uint32_t sensor_read(void)
{
    state = state * 1103515245u + 12345u;
    return state >> 16;
}

__attribute__((noinline)) uint32_t filter(uint32_t x)
{
    static uint32_t acc;
    acc = (acc * 3 + x) / 4;
    return acc;
}

__attribute__((noinline)) uint32_t crc_byte(uint32_t crc, uint32_t b)
{
    crc ^= b & 0xffu;
    for (int k = 0; k < 8; k++)
        crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    return crc;
}

__attribute__((noinline)) uint32_t process(uint32_t x)
{
    uint32_t f = filter(x);
    return crc_byte(0xffffffffu, f);
}

__attribute__((noinline)) uint32_t fact(uint32_t n) { return n <= 1 ? 1 : n * fact(n - 1); }

__attribute__((noinline)) void critical_update(uint32_t v)
{
    TRAZA_EVENT(1, v); /* critical section enter */
    sink += v;
    TRAZA_EVENT(2, v); /* critical section leave */
}

int main(void)
{
    for (uint32_t i = 0; i < 8; i++) {
        uint32_t x = sensor_read();
        sink ^= process(x);
        if ((i & 3) == 3)
            critical_update(i);
    }
    sink += fact(4);
    TRAZA_EVENT(99, -7);
    return traza_rt_dump() == 0 ? 0 : 1;
}
