/* The differential flame graph: B's call tree, each frame coloured by the change of
 * its self or total time against A, its title the numbers of both sides. */
#include "traza/diff.h"
#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FLAME_W 1200
#define FRAME_H 17
#define TOP 40

double traza_diff_frame_change(const traza_diff_frame *f, traza_diff_metric m)
{
    if (f->calls_a == 0 || f->calls_b == 0)
        return NAN;
    double a = m == TRAZA_DIFF_METRIC_SELF ? f->self_a : f->total_a;
    double b = m == TRAZA_DIFF_METRIC_SELF ? f->self_b : f->total_b;
    if (a <= 0)
        return b > 0 ? INFINITY : NAN;
    return (b - a) / a;
}

void traza_diff_frame_color(const traza_diff_frame *f, traza_diff_metric m, char out[8])
{
    static const int neutral = 232, red[3] = {224, 40, 40}, blue[3] = {40, 96, 224};
    if (f->calls_a == 0) {
        snprintf(out, 8, "#b388eb"); /* only in B */
        return;
    }
    double r = traza_diff_frame_change(f, m);
    double k = isnan(r) ? 0 : fmin(1.0, fabs(r));
    const int *to = r > 0 ? red : blue;
    int c[3];
    for (int i = 0; i < 3; i++)
        c[i] = (int)lround(neutral + (to[i] - neutral) * k);
    snprintf(out, 8, "#%02x%02x%02x", (unsigned)c[0], (unsigned)c[1], (unsigned)c[2]);
}

/* A unit for every time of the graph: the largest that keeps its biggest time >= 1. */
static void pick_unit(double max, const char **name, double *scale)
{
    static const char *const names[] = {"s", "ms", "us", "ns"};
    static const double scales[] = {1, 1e3, 1e6, 1e9};
    size_t i = 0;
    while (i < 3 && max * scales[i] < 1)
        i++;
    *name = names[i];
    *scale = scales[i];
}

/* "A 1.5 ms, B 2.25 ms, +0.75 ms (+50.0%)" */
static void side_numbers(tz_buf *b, const char *what, double a, double bv, int has_a, int has_b, const char *u, double sc)
{
    tz_buf_printf(b, "\n%s: ", what);
    if (has_a) tz_buf_printf(b, "A %.9g %s", a * sc, u);
    else tz_buf_puts(b, "A none");
    if (has_b) tz_buf_printf(b, ", B %.9g %s", bv * sc, u);
    else tz_buf_puts(b, ", B none");
    if (has_a && has_b) {
        tz_buf_printf(b, ", %+.9g %s", (bv - a) * sc, u);
        if (a > 0) tz_buf_printf(b, " (%+.1f%%)", (bv - a) / a * 100);
    }
}

/* The call path of frame i, root;...;function. */
static void path_of(tz_buf *s, const traza_diff_tree *t, size_t i)
{
    if (t->frames[i].parent != SIZE_MAX) {
        path_of(s, t, t->frames[i].parent);
        tz_buf_putc(s, ';');
    }
    tz_buf_puts(s, t->frames[i].name);
}

static void frame_title(tz_buf *b, const traza_diff_tree *t, size_t i, const char *u, double sc)
{
    const traza_diff_frame *f = &t->frames[i];
    tz_buf s;
    tz_buf_init(&s);
    path_of(&s, t, i);
    if (f->calls_a == 0) tz_buf_puts(&s, "\nonly in B");
    else if (f->calls_b == 0) tz_buf_puts(&s, "\nonly in A");
    side_numbers(&s, "self", f->self_a, f->self_b, f->calls_a > 0, f->calls_b > 0, u, sc);
    side_numbers(&s, "total", f->total_a, f->total_b, f->calls_a > 0, f->calls_b > 0, u, sc);
    tz_buf_printf(&s, "\ncalls: A %lld, B %lld", (long long)f->calls_a, (long long)f->calls_b);
    tz_xml_esc(b, s.s ? s.s : "");
    b->oom |= s.oom;
    tz_buf_free(&s);
}

char *traza_diff_flame_svg(const traza_diff_tree *t, traza_diff_metric m, const char *title)
{
    double root_b = 0, max_t = 0;
    size_t gone = 0;
    for (size_t i = 0; i < t->nframes; i++) {
        const traza_diff_frame *f = &t->frames[i];
        if (f->parent == SIZE_MAX)
            root_b += f->total_b;
        max_t = fmax(max_t, fmax(f->total_a, f->total_b));
        gone += f->calls_b == 0 && (f->parent == SIZE_MAX || t->frames[f->parent].calls_b > 0);
    }
    const char *u;
    double sc;
    pick_unit(max_t, &u, &sc);
    double *x = malloc((t->nframes ? t->nframes : 1) * sizeof *x), *used = calloc(t->nframes ? t->nframes : 1, sizeof *used);
    if (!x || !used) {
        free(x);
        free(used);
        return NULL;
    }
    int depth = 1; /* the rows of the frames wide enough to draw */
    for (size_t i = 0; i < t->nframes; i++)
        if (t->frames[i].calls_b > 0 && root_b > 0 && t->frames[i].total_b / root_b * FLAME_W >= 0.1 && t->frames[i].depth >= depth)
            depth = t->frames[i].depth + 1;
    int graph_h = depth * FRAME_H, legend_y = TOP + graph_h + 22;
    int h = legend_y + 18 + (int)gone * 16 + (gone ? 20 : 0) + 10;
    tz_buf b;
    tz_buf_init(&b);
    tz_buf_printf(&b,
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                  "font-family=\"sans-serif\" font-size=\"11\" data-testid=\"diff-flame\">\n"
                  "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n"
                  "<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">",
                  FLAME_W + 20, h, FLAME_W + 20, h);
    tz_xml_esc(&b, title ? title : "");
    tz_buf_printf(&b, "</text>\n<text x=\"%d\" y=\"22\" text-anchor=\"end\">colour: %s time of B against A; width: total time of B</text>\n",
                  FLAME_W + 10, m == TRAZA_DIFF_METRIC_SELF ? "self" : "total");
    double root_used = 0;
    for (size_t i = 0; i < t->nframes; i++) {
        const traza_diff_frame *f = &t->frames[i];
        double *slot = f->parent == SIZE_MAX ? &root_used : &used[f->parent];
        double w = root_b > 0 ? f->total_b / root_b * FLAME_W : 0;
        x[i] = (f->parent == SIZE_MAX ? 0 : x[f->parent]) + *slot;
        *slot += w;
        if (f->calls_b == 0 || w < 0.1) /* the same test as the rows above */
            continue;
        char col[8];
        traza_diff_frame_color(f, m, col);
        double fx = 10 + x[i], fy = TOP + (double)(depth - 1 - f->depth) * FRAME_H;
        tz_buf_printf(&b, "<g data-frame=\"%zu\"><title>", i);
        frame_title(&b, t, i, u, sc);
        tz_buf_printf(&b, "</title><rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%d\" fill=\"%s\" stroke=\"#ffffff\" stroke-width=\"0.5\"%s/>",
                      fx, fy, w, FRAME_H - 1, col, f->calls_a == 0 ? " stroke-dasharray=\"3 2\"" : "");
        size_t fit = w > 8 ? (size_t)((w - 6) / 6.5) : 0;
        if (fit >= 3) {
            size_t len = strlen(f->name);
            tz_buf_printf(&b, "<text x=\"%.2f\" y=\"%.2f\">", fx + 3, fy + FRAME_H - 5);
            if (len <= fit) {
                tz_xml_esc(&b, f->name);
            } else {
                char *cut = tz_strndup(f->name, fit - 2);
                tz_xml_esc(&b, cut ? cut : "");
                b.oom |= !cut;
                free(cut);
                tz_buf_puts(&b, "..");
            }
            tz_buf_puts(&b, "</text>");
        }
        tz_buf_puts(&b, "</g>\n");
    }
    /* legend: the scale of the colours */
    static const double steps[] = {-1, -0.5, -0.1, 0, 0.1, 0.5, 1};
    double lx = 10;
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++, lx += 70) {
        traza_diff_frame probe = {.calls_a = 1, .calls_b = 1, .self_a = 1, .self_b = 1 + steps[i], .total_a = 1, .total_b = 1 + steps[i]};
        char col[8];
        traza_diff_frame_color(&probe, m, col);
        tz_buf_printf(&b, "<rect x=\"%.0f\" y=\"%d\" width=\"14\" height=\"12\" fill=\"%s\"/><text x=\"%.0f\" y=\"%d\">%+.0f%%</text>\n", lx,
                      legend_y - 10, col, lx + 18, legend_y, steps[i] * 100);
    }
    tz_buf_printf(&b, "<rect x=\"%.0f\" y=\"%d\" width=\"14\" height=\"12\" fill=\"#b388eb\"/><text x=\"%.0f\" y=\"%d\">only in B</text>\n", lx,
                  legend_y - 10, lx + 18, legend_y);
    if (gone) {
        int y = legend_y + 24;
        tz_buf_printf(&b, "<text x=\"10\" y=\"%d\" font-weight=\"bold\">only in A (not drawn):</text>\n", y);
        for (size_t i = 0; i < t->nframes; i++) {
            const traza_diff_frame *f = &t->frames[i];
            if (f->calls_b != 0 || (f->parent != SIZE_MAX && t->frames[f->parent].calls_b == 0))
                continue;
            y += 16;
            tz_buf_printf(&b, "<g data-gone=\"%zu\"><title>", i);
            frame_title(&b, t, i, u, sc);
            tz_buf_printf(&b, "</title><text x=\"20\" y=\"%d\">", y);
            tz_buf s;
            tz_buf_init(&s);
            path_of(&s, t, i);
            tz_xml_esc(&b, s.s ? s.s : "");
            b.oom |= s.oom;
            tz_buf_free(&s);
            tz_buf_printf(&b, ": %lld calls, total %.9g %s</text></g>\n", (long long)f->calls_a, f->total_a * sc, u);
        }
    }
    tz_buf_puts(&b, "</svg>\n");
    free(x);
    free(used);
    return tz_buf_take(&b);
}
