/* A small program for the tracer demo (scripts/demo.sh): a sensor loop whose
 * functions call each other. Each frame reads 64 samples, smooths them, checks them
 * with a CRC-8 and, every 64th frame, logs a summary. Build it instrumented:
 *   gcc -g -O1 -fno-inline -pg -mfentry -o sensor sensor.c
 * and record it with `traza record -o sensor.tzr --import sensor -- ./sensor 200`. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define SAMPLES 64

static uint32_t seed = 12345;

static int read_sample(void)
{
    seed = seed * 1103515245u + 12345u;
    return (int)((seed >> 16) & 0x3ff);
}

static int smooth(const int *in, int i)
{
    int sum = in[i];
    if (i > 0)
        sum += in[i - 1];
    if (i + 1 < SAMPLES)
        sum += in[i + 1];
    return sum / 3;
}

static uint8_t crc8_byte(uint8_t crc, uint8_t b)
{
    crc ^= b;
    for (int k = 0; k < 8; k++)
        crc = (uint8_t)(crc & 0x80 ? (crc << 1) ^ 0x07 : crc << 1);
    return crc;
}

static uint8_t checksum(const int *v)
{
    uint8_t crc = 0;
    for (int i = 0; i < SAMPLES; i++)
        crc = crc8_byte(crc, (uint8_t)v[i]);
    return crc;
}

static void log_summary(int frame, const int *v, uint8_t crc)
{
    long sum = 0;
    for (int i = 0; i < SAMPLES; i++)
        sum += v[i];
    printf("frame %d: mean %ld, crc %02x\n", frame, sum / SAMPLES, crc);
}

static uint8_t process_frame(int frame)
{
    int raw[SAMPLES], out[SAMPLES];
    for (int i = 0; i < SAMPLES; i++)
        raw[i] = read_sample();
    for (int i = 0; i < SAMPLES; i++)
        out[i] = smooth(raw, i);
    uint8_t crc = checksum(out);
    if (frame % 64 == 0)
        log_summary(frame, out, crc);
    return crc;
}

int main(int argc, char **argv)
{
    int frames = argc > 1 ? atoi(argv[1]) : 100;
    unsigned all = 0;
    for (int f = 0; f < frames; f++)
        all += process_frame(f);
    printf("%d frames, crc total %u\n", frames, all);
    return 0;
}
