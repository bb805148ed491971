/* Shared helpers of the analysis tools. */
#include "analysis/tool_util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

const char *tz_targ(const traza_tool *tool, const traza_tool_call *call, const char *name)
{
    return traza_tool_arg(tool, call->args, name);
}

int tz_targ_bool(const traza_tool *tool, const traza_tool_call *call, const char *name)
{
    const char *v = tz_targ(tool, call, name);
    return v && (!strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes"));
}

double tz_targ_double(const traza_tool *tool, const traza_tool_call *call, const char *name, double def)
{
    const char *v = tz_targ(tool, call, name);
    double d;
    if (!v || tz_parse_double(v, strlen(v), &d) < 0)
        return def;
    return d;
}

static int targ_time(const traza_tool *tool, const traza_tool_call *call, traza_trace *t, const char *name, int instant,
                     int64_t *out, traza_err *err)
{
    *out = 0;
    const char *v = tz_targ(tool, call, name);
    if (!v)
        return 0;
    const traza_trace_info *info = traza_trace_info_of(t);
    int rc = instant ? traza_time_parse_in(info, v, 0, out, err) : traza_time_parse(v, info->time_unit, out, err);
    if (rc < 0)
        return traza_err_prefix(err, "--%s: ", name);
    return 1;
}

int tz_targ_time(const traza_tool *tool, const traza_tool_call *call, traza_trace *t, const char *name, int64_t *out, traza_err *err)
{
    return targ_time(tool, call, t, name, 0, out, err);
}

int tz_targ_instant(const traza_tool *tool, const traza_tool_call *call, traza_trace *t, const char *name, int64_t *out,
                    traza_err *err)
{
    return targ_time(tool, call, t, name, 1, out, err);
}

void tz_warnings_show(const traza_tool_call *call, const traza_warnings *w)
{
    for (size_t i = 0; i < w->n; i++) {
        if (call->warn)
            call->warn(call->print_user, w->msg[i]);
        else if (!call->json)
            traza_tool_printf(call, "warning: %s\n", w->msg[i]);
    }
}

void tz_json_warnings(tz_buf *b, const traza_warnings *w)
{
    tz_buf_puts(b, ", \"warnings\": [");
    for (size_t i = 0; i < w->n; i++) {
        if (i)
            tz_buf_puts(b, ", ");
        tz_json_str(b, w->msg[i]);
    }
    tz_buf_putc(b, ']');
}

void tz_warnings_merge(traza_warnings *dst, const traza_warnings *src)
{
    for (size_t i = 0; i < src->n; i++)
        traza_warnings_add(dst, "%s", src->msg[i]);
}

int tz_write_file(const char *path, const tz_buf *b, traza_err *err)
{
    if (b->oom)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory building %s", path);
    return tz_outfile_write(path, b->s, b->len, err);
}


void tz_svg_text(tz_buf *b, double x, double y, const char *anchor, const char *text)
{
    tz_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", x, y, anchor);
    tz_xml_esc(b, text);
    tz_buf_puts(b, "</text>\n");
}

void tz_svg_begin(tz_buf *b, int w, int h, const char *title)
{
    tz_buf_printf(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                     "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                     "font-family=\"sans-serif\" font-size=\"11\">\n<title>", w, h, w, h);
    tz_xml_esc(b, title);
    tz_buf_printf(b, "</title>\n<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", w, h);
}

void tz_svg_end(tz_buf *b) { tz_buf_puts(b, "</svg>\n"); }

double tz_px(const tz_plot *p, double x)
{
    double d = p->x1 - p->x0;
    return p->x + (d > 0 ? (x - p->x0) / d : 0.5) * p->w;
}

double tz_py(const tz_plot *p, double y)
{
    double d = p->y1 - p->y0;
    return p->y + p->h - (d > 0 ? (y - p->y0) / d : 0.5) * p->h;
}

void tz_svg_frame(tz_buf *b, const tz_plot *p, const char *title, const char *xlabel, const char *ylabel)
{
    char t[64];
    tz_buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#888\"/>\n", p->x, p->y, p->w, p->h);
    tz_buf_puts(b, "<g font-weight=\"bold\">");
    tz_svg_text(b, p->x + p->w / 2, p->y - 8, "middle", title);
    tz_buf_puts(b, "</g>\n");
    tz_svg_text(b, p->x + p->w / 2, p->y + p->h + 28, "middle", xlabel);
    tz_svg_text(b, p->x - 8, p->y - 8, "start", ylabel);
    snprintf(t, sizeof t, "%.6g", p->x0);
    tz_svg_text(b, p->x, p->y + p->h + 14, "start", t);
    snprintf(t, sizeof t, "%.6g", p->x1);
    tz_svg_text(b, p->x + p->w, p->y + p->h + 14, "end", t);
    snprintf(t, sizeof t, "%.6g", p->y0);
    tz_svg_text(b, p->x - 4, p->y + p->h, "end", t);
    snprintf(t, sizeof t, "%.6g", p->y1);
    tz_svg_text(b, p->x - 4, p->y + 10, "end", t);
}

const char *tz_svg_color(size_t i)
{
    static const char *const pal[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
    return pal[i % (sizeof pal / sizeof pal[0])];
}

const char *tz_result_inputs(traza_trace *t, const char *a, const char *b, char *out, size_t cap)
{
    const char *in[2] = {a, b};
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < 2; i++) {
        traza_result_info r;
        int64_t node;
        traza_err e;
        traza_err_clear(&e);
        if (!in[i] || traza_trace_event_type_by_name(t, in[i]) || traza_result_input(t, in[i], &r, &node, &e) < 0)
            continue;
        traza_result_info_clear(&r);
        int k = snprintf(out + len, cap - len, "%s%s", len ? "\n" : "", in[i]);
        if (k < 0 || (size_t)k >= cap - len)
            break;
        len += (size_t)k;
    }
    return len ? out : NULL;
}
