/* Exact decimal parsing shared by the Pajé importers. */
#include "formats/paje_common.h"

/* Parses a decimal number "[+-]digits[.digits][(e|E)[+-]digits]" exactly into a
 * mantissa and a power of ten. Returns 0, or -1 with *why set. */
int tz_paje_decimal(const char *s, int *neg, uint64_t *mant, int *exp10, const char **why)
{
    const char *q = s;
    *neg = 0;
    if (*q == '+' || *q == '-')
        *neg = *q++ == '-';
    uint64_t m = 0;
    int e = 0, digits = 0, sig = 0;
    int seen_point = 0;
    for (;; q++) {
        if (*q >= '0' && *q <= '9') {
            digits++;
            int d = *q - '0';
            if (m == 0 && d == 0) {
                if (seen_point)
                    e--;
                continue;
            }
            if (sig < 19) {
                m = m * 10 + (uint64_t)d;
                sig++;
                if (seen_point)
                    e--;
            } else if (d != 0) {
                *why = "more than 19 significant digits";
                return -1;
            } else if (!seen_point) {
                e++;
            }
        } else if (*q == '.' && !seen_point) {
            seen_point = 1;
        } else {
            break;
        }
    }
    if (!digits) {
        *why = "no digits";
        return -1;
    }
    if (*q == 'e' || *q == 'E') {
        q++;
        int eneg = 0;
        if (*q == '+' || *q == '-')
            eneg = *q++ == '-';
        if (!(*q >= '0' && *q <= '9')) {
            *why = "no digits in the exponent";
            return -1;
        }
        long x = 0;
        while (*q >= '0' && *q <= '9') {
            x = x * 10 + (*q++ - '0');
            if (x > 400) {
                *why = "exponent out of range";
                return -1;
            }
        }
        e += eneg ? -(int)x : (int)x;
    }
    if (*q) {
        *why = "trailing characters";
        return -1;
    }
    /* Drop trailing zeros of the mantissa into the exponent. */
    while (m && m % 10 == 0) {
        m /= 10;
        e++;
    }
    if (m == 0)
        e = 0;
    *mant = m;
    *exp10 = e;
    return 0;
}

