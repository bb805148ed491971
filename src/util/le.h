/* Little-endian integers in byte buffers, for the binary layouts we write
 * (doc/formats/): portable whatever the host's byte order or alignment. */
#ifndef TZ_LE_H
#define TZ_LE_H

#include <stddef.h>
#include <stdint.h>

static inline void tz_put_le16(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static inline void tz_put_le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static inline void tz_put_le64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static inline uint32_t tz_get_le16(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }

static inline uint32_t tz_get_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t tz_get_le64(const unsigned char *p) { return (uint64_t)tz_get_le32(p) | (uint64_t)tz_get_le32(p + 4) << 32; }

/* Writes v as an unsigned LEB128 number at p (room for 10 bytes): its length. */
static inline size_t tz_put_uleb(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

/* An unsigned LEB128 number at p[*pos] of p[0..n) into *out, *pos moved past it: 0, or
 * -1 at the end of the data or on a number longer than 64 bits' worth of groups. */
static inline int tz_get_uleb(const uint8_t *p, size_t n, size_t *pos, uint64_t *out)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (*pos >= n)
            return -1;
        uint8_t b = p[(*pos)++];
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return 0;
        }
    }
    return -1;
}

#endif
