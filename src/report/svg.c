/* Self-contained SVG charts: pie, histogram, horizontal bars. Text is escaped;
 * numbers are printed with fixed precision so output is byte-stable. */
#include "traza/store.h"
#include "traza/svg.h"
#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void traza_color_for(const char *name, char out[8])
{
    /* Hue from a hash of the name; saturation and lightness fixed for legibility. */
    uint64_t h = tz_hash_bytes(name ? name : "", name ? strlen(name) : 0);
    double hue = (double)(h % 360);
    double s = 0.55 + (double)((h >> 16) % 20) / 100.0, l = 0.50 + (double)((h >> 24) % 12) / 100.0;
    double c = (1 - fabs(2 * l - 1)) * s, x = c * (1 - fabs(fmod(hue / 60.0, 2) - 1)), m = l - c / 2;
    double r = 0, g = 0, b = 0;
    if (hue < 60) { r = c; g = x; }
    else if (hue < 120) { r = x; g = c; }
    else if (hue < 180) { g = c; b = x; }
    else if (hue < 240) { g = x; b = c; }
    else if (hue < 300) { r = x; b = c; }
    else { r = c; b = x; }
    snprintf(out, 8, "#%02x%02x%02x", (unsigned)lround((r + m) * 255), (unsigned)lround((g + m) * 255), (unsigned)lround((b + m) * 255));
}


static void head(tz_buf *b, int w, int h, const char *title)
{
    tz_buf_printf(b,
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                  "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n"
                  "<text x=\"10\" y=\"20\" font-size=\"15\" font-weight=\"bold\">",
                  w, h, w, h);
    tz_xml_esc(b, title);
    tz_buf_puts(b, "</text>\n");
}

static const char *color_of(const traza_chart_item *it, char buf[8])
{
    if (it->color)
        return it->color;
    traza_color_for(it->label, buf);
    return buf;
}

static void human(char *buf, size_t n, double v)
{
    if (fabs(v) >= 1e9) snprintf(buf, n, "%.2fG", v / 1e9);
    else if (fabs(v) >= 1e6) snprintf(buf, n, "%.2fM", v / 1e6);
    else if (fabs(v) >= 1e4) snprintf(buf, n, "%.1fk", v / 1e3);
    else if (v == floor(v)) snprintf(buf, n, "%.0f", v);
    else snprintf(buf, n, "%.3g", v);
}

char *traza_svg_pie(const char *title, const traza_chart_item *items, size_t n)
{
    double total = 0, other = 0;
    for (size_t i = 0; i < n; i++)
        total += items[i].value > 0 ? items[i].value : 0;
    size_t shown = 0;
    for (size_t i = 0; i < n; i++)
        if (items[i].value > 0 && (total <= 0 || items[i].value / total >= 0.01))
            shown++;
    int legend_rows = (int)shown + 1;
    int h = 60 + (legend_rows * 18 > 300 ? legend_rows * 18 : 300);
    tz_buf b;
    tz_buf_init(&b);
    head(&b, 640, h, title);
    double cx = 160, cy = 180, r = 130, a = -M_PI / 2;
    int row = 0;
    char col[8], num[32];
    if (total <= 0) {
        tz_buf_printf(&b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"#eeeeee\"/>\n<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">no data</text>\n", cx, cy, r, cx, cy);
    }
    for (size_t i = 0; i <= n && total > 0; i++) {
        const traza_chart_item *it = i < n ? &items[i] : NULL;
        double v;
        const char *label, *fill;
        if (it) {
            if (it->value <= 0)
                continue;
            if (it->value / total < 0.01) {
                other += it->value;
                continue;
            }
            v = it->value;
            label = it->label;
            fill = color_of(it, col);
        } else {
            if (other <= 0)
                break;
            v = other;
            label = "other (< 1% each)";
            fill = "#bbbbbb";
        }
        double frac = v / total, a2 = a + frac * 2 * M_PI;
        if (frac >= 0.9999) {
            tz_buf_printf(&b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"><title>", cx, cy, r, fill);
        } else {
            tz_buf_printf(&b, "<path d=\"M%.2f,%.2f L%.2f,%.2f A%.1f,%.1f 0 %d 1 %.2f,%.2f Z\" fill=\"%s\" stroke=\"#fff\"><title>", cx, cy,
                          cx + r * cos(a), cy + r * sin(a), r, r, frac > 0.5, cx + r * cos(a2), cy + r * sin(a2), fill);
        }
        tz_xml_esc(&b, label);
        human(num, sizeof num, v);
        tz_buf_printf(&b, ": %s (%.1f%%)</title></%s>\n", num, frac * 100, frac >= 0.9999 ? "circle" : "path");
        int y = 50 + row * 18;
        tz_buf_printf(&b, "<rect x=\"320\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"338\" y=\"%d\">", y, fill, y + 11);
        tz_xml_esc(&b, label);
        tz_buf_printf(&b, " — %s (%.1f%%)</text>\n", num, frac * 100);
        row++;
        a = a2;
    }
    tz_buf_puts(&b, "</svg>\n");
    return tz_buf_take(&b);
}

char *traza_svg_histogram(const char *title, const uint64_t *counts, size_t n, double x0, double x1, const char *x_unit)
{
    int w = 760, h = 320, left = 60, right = 20, top = 40, bottom = 50;
    int pw = w - left - right, ph = h - top - bottom;
    uint64_t max = 1;
    for (size_t i = 0; i < n; i++)
        if (counts[i] > max)
            max = counts[i];
    tz_buf b;
    tz_buf_init(&b);
    head(&b, w, h, title);
    tz_buf_printf(&b, "<g fill=\"#3b7dd8\">\n");
    for (size_t i = 0; i < n; i++) {
        double bw = (double)pw / (double)(n ? n : 1);
        double bh = (double)ph * (double)counts[i] / (double)max;
        tz_buf_printf(&b, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"><title>%llu</title></rect>\n", left + i * bw,
                      top + ph - bh, bw > 1.5 ? bw - 0.5 : bw, bh, (unsigned long long)counts[i]);
    }
    tz_buf_puts(&b, "</g>\n");
    char num[32];
    tz_buf_printf(&b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", left, top + ph, left + pw, top + ph);
    tz_buf_printf(&b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", left, top, left, top + ph);
    for (int k = 0; k <= 4; k++) {
        human(num, sizeof num, (double)max * k / 4);
        int y = top + ph - ph * k / 4;
        tz_buf_printf(&b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", left - 4, y + 4, num);
        human(num, sizeof num, x0 + (x1 - x0) * k / 4);
        tz_buf_printf(&b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", left + pw * k / 4, top + ph + 16, num);
    }
    tz_buf_printf(&b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", left + pw / 2, h - 10);
    tz_xml_esc(&b, x_unit);
    tz_buf_puts(&b, "</text>\n</svg>\n");
    return tz_buf_take(&b);
}

char *traza_svg_density(const char *title, const uint64_t *counts, size_t n, int64_t from, int64_t to,
                        const traza_trace_info *info)
{
    static const struct { int exp; const char *name; } units[] = {{0, "s"}, {-3, "ms"}, {-6, "us"}, {-9, "ns"}, {-12, "ps"}};
    const char *count = traza_time_axis(info);
    if (count) { /* a count axis: its counts, unscaled */
        char axis[64];
        snprintf(axis, sizeof axis, "from the start (%s)", strcmp(count, "instructions") == 0 ? "instr" : count);
        return traza_svg_histogram(title, counts, n, (double)(from - info->min_ts), (double)(to - info->min_ts), axis);
    }
    /* seconds per tick, then the largest unit in which the span is at least 1 */
    double tick = pow(10.0, info->time_unit), span = (double)(to - info->min_ts) * tick;
    size_t u = 0;
    while (u + 1 < sizeof units / sizeof units[0] && span < pow(10.0, units[u].exp))
        u++;
    double scale = tick / pow(10.0, units[u].exp);
    char axis[64];
    snprintf(axis, sizeof axis, "time from the start (%s)", units[u].name);
    return traza_svg_histogram(title, counts, n, (double)(from - info->min_ts) * scale, (double)(to - info->min_ts) * scale,
                               axis);
}

char *traza_svg_bars(const char *title, const traza_chart_item *items, size_t n, const char *value_unit)
{
    int rowh = 20, w = 760, left = 220, top = 40;
    int h = top + (int)n * rowh + 30;
    double max = 0;
    for (size_t i = 0; i < n; i++)
        if (items[i].value > max)
            max = items[i].value;
    if (max <= 0)
        max = 1;
    tz_buf b;
    tz_buf_init(&b);
    head(&b, w, h, title);
    char col[8], num[32];
    for (size_t i = 0; i < n; i++) {
        int y = top + (int)i * rowh;
        double bw = (w - left - 120) * items[i].value / max;
        tz_buf_printf(&b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", left - 6, y + 14);
        tz_xml_esc(&b, items[i].label);
        tz_buf_printf(&b, "</text><rect x=\"%d\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\"/>", left, y + 3, bw, rowh - 6,
                      color_of(&items[i], col));
        human(num, sizeof num, items[i].value);
        tz_buf_printf(&b, "<text x=\"%.2f\" y=\"%d\">%s ", left + bw + 6, y + 14, num);
        tz_xml_esc(&b, value_unit);
        tz_buf_puts(&b, "</text>\n");
    }
    tz_buf_puts(&b, "</svg>\n");
    return tz_buf_take(&b);
}
