/* Time values with units on the command line, converted exactly (decimal arithmetic,
 * no binary floating point) into ticks of the trace's time unit. */
#include "traza/store.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct { const char *suffix; int exp; } units[] = {
    {"s", 0}, {"ms", -3}, {"us", -6}, {"\xC2\xB5s", -6}, {"ns", -9}, {"ps", -12}, {"fs", -15},
};

int traza_time_parse(const char *text, int time_unit, int64_t *out, traza_err *err)
{
    const char *p = text;
    int neg = 0;
    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    __int128 mant = 0;
    int digits = 0, frac = 0, seen_dot = 0;
    for (; *p; p++) {
        if (isdigit((unsigned char)*p)) {
            if (digits >= 36)
                return traza_err_set(err, TRAZA_E_USAGE, "time value '%s': too many digits", text);
            mant = mant * 10 + (*p - '0');
            if (mant != 0 || seen_dot)
                digits++;
            if (seen_dot)
                frac++;
        } else if (*p == '.' && !seen_dot) {
            seen_dot = 1;
        } else {
            break;
        }
    }
    if (p == text + neg || (p == text + neg + 1 && seen_dot))
        return traza_err_set(err, TRAZA_E_USAGE, "time value '%s': expected a number with an optional unit (s, ms, us, ns, ps)", text);
    int exp10;
    if (*p == '\0') {
        if (seen_dot)
            return traza_err_set(err, TRAZA_E_USAGE, "time value '%s': raw ticks must be a whole number (or give a unit: s, ms, us, ns)", text);
        exp10 = time_unit; /* raw ticks */
    } else {
        int found = 0;
        exp10 = 0;
        for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
            if (strcmp(p, units[i].suffix) == 0) {
                exp10 = units[i].exp;
                found = 1;
            }
        if (!found)
            return traza_err_set(err, TRAZA_E_USAGE, "time value '%s': unknown unit '%s' (expected s, ms, us, ns, ps or none for ticks)", text, p);
    }
    /* value = mant * 10^(exp10 - frac) seconds; ticks = value / 10^time_unit. */
    int shift = exp10 - frac - time_unit;
    while (shift > 0) {
        if (mant > (__int128)INT64_MAX)
            return traza_err_set(err, TRAZA_E_USAGE, "time value '%s' is out of range", text);
        mant *= 10;
        shift--;
    }
    while (shift < 0) {
        __int128 q = mant / 10, r = mant % 10;
        mant = q + (r >= 5); /* round half up: finer than a tick is meaningless */
        shift++;
    }
    if (mant > (__int128)INT64_MAX)
        return traza_err_set(err, TRAZA_E_USAGE, "time value '%s' is out of range", text);
    *out = neg ? -(int64_t)mant : (int64_t)mant;
    return 0;
}

int traza_time_parse_in(const traza_trace_info *info, const char *text, int absolute, int64_t *out, traza_err *err)
{
    if (*text == '@')
        return traza_time_parse(text + 1, info->time_unit, out, err);
    int64_t v;
    if (traza_time_parse(text, info->time_unit, &v, err) < 0)
        return -1;
    const char *p = text + (*text == '-' || *text == '+');
    p += strspn(p, "0123456789.");
    if (absolute || *p == '\0') { /* no unit: raw ticks, absolute */
        *out = v;
        return 0;
    }
    if ((v > 0 && info->min_ts > INT64_MAX - v) || (v < 0 && info->min_ts < INT64_MIN - v))
        return traza_err_set(err, TRAZA_E_USAGE, "time value '%s' is out of range from the trace's start", text);
    *out = info->min_ts + v;
    return 0;
}

const char *traza_time_format(int64_t ticks, int time_unit, char *buf, size_t size)
{
    /* Pick the largest unit in which the value is >= 1. */
    long double v = (long double)ticks;
    int e = time_unit;
    static const struct { int exp; const char *name; } names[] = {{0, "s"}, {-3, "ms"}, {-6, "us"}, {-9, "ns"}, {-12, "ps"}};
    long double abs = v < 0 ? -v : v;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        long double scaled = abs;
        int d = e - names[i].exp;
        for (; d > 0; d--) scaled *= 10;
        for (; d < 0; d++) scaled /= 10;
        if (scaled >= 1 || i + 1 == sizeof names / sizeof names[0] || ticks == 0) {
            long double s = v;
            d = e - names[i].exp;
            for (; d > 0; d--) s *= 10;
            for (; d < 0; d++) s /= 10;
            snprintf(buf, size, "%.6Lg %s", s, names[i].name);
            return buf;
        }
    }
    snprintf(buf, size, "%lld", (long long)ticks);
    return buf;
}

const char *traza_time_format_exact(int64_t ticks, int time_unit, char *buf, size_t size)
{
    uint64_t mag = ticks < 0 ? (uint64_t)0 - (uint64_t)ticks : (uint64_t)ticks;
    const char *sign = ticks < 0 ? "-" : "";
    if (time_unit >= 0 || time_unit < -18) {
        uint64_t mul = 1;
        for (int i = 0; i < time_unit && i < 19; i++)
            mul *= 10;
        if (time_unit >= 0 && time_unit < 19 && mag <= UINT64_MAX / mul)
            snprintf(buf, size, "%s%llu s", sign, (unsigned long long)(mag * mul));
        else
            snprintf(buf, size, "%s%llu ticks of 10^%d s", sign, (unsigned long long)mag, time_unit);
        return buf;
    }
    uint64_t div = 1;
    for (int i = 0; i < -time_unit; i++)
        div *= 10;
    snprintf(buf, size, "%s%llu.%0*llu s", sign, (unsigned long long)(mag / div), -time_unit, (unsigned long long)(mag % div));
    return buf;
}

const char *traza_time_axis(const traza_trace_info *info)
{
    for (size_t i = 0; info && i < info->nparams; i++)
        if (strcmp(info->params[i].key, TRAZA_TIME_AXIS_PARAM) == 0)
            return info->params[i].value;
    return NULL;
}

const char *traza_trace_time_format(const traza_trace_info *info, int64_t ticks, int exact, char *buf, size_t size)
{
    const char *axis = traza_time_axis(info);
    if (!axis)
        return exact ? traza_time_format_exact(ticks, info->time_unit, buf, size) : traza_time_format(ticks, info->time_unit, buf, size);
    snprintf(buf, size, "%lld %s", (long long)ticks, strcmp(axis, "instructions") == 0 ? "instr" : axis);
    return buf;
}
