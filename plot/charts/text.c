/* The small pieces every plot kind writes with: in-memory text, escaped
 * strings, numbers, the palette, round axis limits, options. */
#include "plot_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/io.h"
#include "nd/base/text.h"
#include "nd/base/array.h"

int nd_plot_text_open(nd_plot_text *t, nd_error *err)
{
    t->buf = NULL;
    t->len = 0;
    t->fp = open_memstream(&t->buf, &t->len);
    if (!t->fp) return nd_error_set(err, ND_ENOMEM, "out of memory");
    return ND_OK;
}

int nd_plot_text_finish(nd_plot_text *t, nd_error *err)
{
    if (!t->fp) return ND_OK;
    int failed = ferror(t->fp);
    if (fclose(t->fp) != 0) failed = 1;
    t->fp = NULL;
    if (failed || !t->buf) return nd_error_set(err, ND_ENOMEM, "out of memory");
    return ND_OK;
}

void nd_plot_text_free(nd_plot_text *t)
{
    if (t->fp) fclose(t->fp);
    free(t->buf);
    t->fp = NULL;
    t->buf = NULL;
    t->len = 0;
}

int nd_plot_texts_open(nd_plot_texts *t, nd_error *err)
{
    int rc = nd_plot_text_open(&t->data, err);
    return rc ? rc : nd_plot_text_open(&t->body, err);
}

void nd_plot_texts_free(nd_plot_texts *t)
{
    nd_plot_text_free(&t->data);
    nd_plot_text_free(&t->body);
}

void nd_plot_put_string(FILE *fp, const char *s)
{
    fputc('\'', fp);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '\'')
            fputs("''", fp);
        else if (*p < 0x20 || *p == 0x7f)
            fputc(' ', fp);
        else
            fputc(*p, fp);
    }
    fputc('\'', fp);
}

void nd_plot_put_lines(FILE *fp, const char *s)
{
    const char *line = s ? s : "";
    for (;;) {
        size_t len = strcspn(line, "\n");
        char part[512];
        snprintf(part, sizeof part, "%.*s", (int)(len < sizeof part ? len : sizeof part - 1), line);
        nd_plot_put_string(fp, part);
        if (!line[len]) break;
        fputs(".\"\\n\".", fp);
        line += len + 1;
    }
}

void nd_plot_put_label(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"')
            fputc('\'', fp);
        else if (*p < 0x20 || *p == 0x7f)
            fputc(' ', fp);
        else
            fputc(*p, fp);
    }
    fputc('"', fp);
}

void nd_plot_put_word(FILE *fp, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    if (!*p) fputc('_', fp);
    for (; *p; p++) fputc(*p <= 0x20 || *p == 0x7f ? '_' : *p, fp);
}

/* Text that reads back to exactly x: nd_format_double's shortest digits, but
 * whole numbers below 10^16 written out ("100", not "1e+02"); "nan" for any
 * non-finite value, which gnuplot reads as not-a-number. */
static const char *nd_plot_format_number(double x, char buf[ND_DOUBLE_TEXT_MAX])
{
    if (!isfinite(x)) return strcpy(buf, "nan");
    nd_format_double(x, buf);
    /* nd_format_double keeps the fewest significant digits, and %g then
     * writes 100 as "1e+02" and 5500 as "5.5e+03". Below 10^16 such a number
     * is a whole number: write its digits out, which reads back the same. */
    const char *e = strchr(buf, 'e');
    if (e) {
        long exponent = strtol(e + 1, NULL, 10);
        if (exponent >= 0 && exponent < 16) snprintf(buf, ND_DOUBLE_TEXT_MAX, "%.*g", (int)exponent + 1, x);
    }
    return buf;
}

void nd_plot_put_number(FILE *fp, double x)
{
    char buf[ND_DOUBLE_TEXT_MAX];
    fputs(nd_plot_format_number(x, buf), fp);
}

const char *nd_plot_color(size_t i)
{
    /* Tableau 10, then six more distinct hues: qualitative, readable on white,
     * and fixed so part i has the same colour in every plot and every run. */
    static const char *const palette[] = {
        "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
        "#9c755f", "#bab0ac", "#499894", "#d37295", "#8cd17d", "#a0cbe8", "#f1ce63", "#79706e",
    };
    return palette[i % ND_ARRAY_LEN(palette)];
}

double nd_plot_pow10(int k)
{
    /* Whole powers are exact up to 10^22; a negative power is one correctly
     * rounded division, the double nearest to the decimal "0.00...1". */
    double p = 1;
    for (int i = 0; i < abs(k); i++) p *= 10;
    return k < 0 ? 1 / p : p;
}

double nd_plot_nice_ceil(double x)
{
    /* Mantissas in tenths, so m * 10^(e-1) is an exact integer product (or
     * one division) and prints as "150" or "0.12", not "150.00000000000003". */
    static const int tenths[] = {10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100};
    if (!(x > 0) || !isfinite(x)) return 1;
    int e = (int)floor(log10(x));
    if (e > 20) e = 20;
    if (e < -20) e = -20;
    for (size_t i = 0; i < ND_ARRAY_LEN(tenths); i++) {
        double v = e - 1 >= 0 ? tenths[i] * nd_plot_pow10(e - 1) : tenths[i] / nd_plot_pow10(1 - e);
        if (v >= x) return v;
    }
    return nd_plot_pow10(e + 1);
}

double nd_plot_label_margin(const char *const *labels, size_t n, const nd_plot_options *opt)
{
    size_t longest = 0;
    for (size_t i = 0; labels && i < n; i++)
        if (labels[i] && strlen(labels[i]) > longest) longest = strlen(labels[i]);
    int width = opt && opt->width_px > 0 ? opt->width_px : ND_PLOT_WIDTH_DEFAULT;
    double m = (7.2 * (double)longest + 30) / width;
    return m < 0.12 ? 0.12 : m > 0.5 ? 0.5 : m;
}

void nd_plot_put_key_panel(FILE *fp, const char *const *names, const char *const *colors, size_t n,
                           const char *mark_title, double left, double bottom, double top,
                           const nd_plot_options *opt)
{
    nd_plot_put_key_panel_line(fp, names, colors, n, mark_title, NULL, left, bottom, top, opt);
}

void nd_plot_put_key_panel_line(FILE *fp, const char *const *names, const char *const *colors, size_t n,
                                const char *mark_title, const char *budget_title, double left, double bottom,
                                double top, const nd_plot_options *opt)
{
    /* gnuplot sizes a horizontal key to the plot it belongs to: this panel is that plot. */
    int width = opt && opt->width_px > 0 ? opt->width_px : ND_PLOT_WIDTH_DEFAULT;
    /* a column is as wide as the longest entry (about 7 px a character, the swatch and a gap):
     * at least 145 px, as before there were long names */
    size_t longest = mark_title ? strlen(mark_title) : 0;
    if (budget_title && strlen(budget_title) > longest) longest = strlen(budget_title);
    for (size_t k = 0; k < n; k++)
        if (names[k] && strlen(names[k]) > longest) longest = strlen(names[k]);
    double column_px = 7.2 * (double)longest + 40 > 145 ? 7.2 * (double)longest + 40 : 145;
    double fit = (0.97 - left) * width / column_px; /* below 1 (or negative) when left is far right */
    size_t entries = n + (mark_title != NULL) + (budget_title != NULL), cols = fit >= 1 ? (size_t)fit : 1;
    fprintf(fp,
            "# the legend, a panel of its own across the image\n"
            "set lmargin at screen %.3f\nset rmargin at screen 0.97\nset tmargin at screen %.3f\n"
            "set bmargin at screen %.3f\nunset border\nunset tics\nunset grid\nunset title\nunset xlabel\n"
            "unset ylabel\nunset arrow\nunset label\nunset xzeroaxis\nunset yzeroaxis\nunset logscale\n"
            "set xrange [0:1]\nset yrange [0:1]\n"
            "set key inside left top horizontal Left reverse samplen 2.5 width 1 maxrows %zu noopaque nobox\n"
            "plot ",
            left, top, bottom, (entries + cols - 1) / cols);
    for (size_t k = 0; k < n; k++) {
        fprintf(fp, "%sNaN with boxes fs solid 1.0 fc rgb '%s' title ", k ? ", \\\n     " : "", colors[k]);
        nd_plot_put_string(fp, names[k]);
    }
    if (mark_title) {
        fprintf(fp, "%sNaN with points pt 9 ps 1.3 lc rgb '#000000' title ", n ? ", \\\n     " : "");
        nd_plot_put_string(fp, mark_title);
    }
    if (budget_title) { /* as the budget is drawn: a dashed line, not a swatch */
        fprintf(fp, "%sNaN with lines dt 2 lw 2 lc rgb '%s' title ", n || mark_title ? ", \\\n     " : "",
                ND_PLOT_BUDGET_COLOR);
        nd_plot_put_string(fp, budget_title);
    }
    fputc('\n', fp);
}

bool nd_plot_has_budget(double budget_mib)
{
    return isfinite(budget_mib) && budget_mib > 0;
}

void nd_plot_put_budget(FILE *fp, double budget_mib, const char *axes, const char *suffix)
{
    char num[ND_DOUBLE_TEXT_MAX], title[128];
    nd_plot_format_number(budget_mib, num);
    snprintf(title, sizeof title, "memory budget, %s MiB%s", num, suffix);
    fputs(", \\\n     ", fp);
    nd_plot_put_number(fp, budget_mib);
    fprintf(fp, "%s with lines dt 2 lw 2 lc rgb '%s' title ", axes, ND_PLOT_BUDGET_COLOR);
    nd_plot_put_string(fp, title);
}

const char *nd_plot_title(const nd_plot_options *opt, const char *fallback)
{
    return opt && opt->title ? opt->title : fallback;
}

int nd_plot_mul_size(size_t a, size_t b, size_t *out)
{
    if (a && b > SIZE_MAX / a) return -1;
    *out = a * b;
    return 0;
}

int nd_plot_any_finite(const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i])) return 1;
    return 0;
}

void nd_plot_options_init(nd_plot_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->format = ND_PLOT_PNG;
    opt->width_px = ND_PLOT_WIDTH_DEFAULT;
    opt->height_px = ND_PLOT_HEIGHT_DEFAULT;
}

int nd_plot_format_from_name(const char *name, nd_plot_format *fmt, nd_error *err)
{
    static const nd_plot_format all[] = {ND_PLOT_PNG, ND_PLOT_SVG, ND_PLOT_PDF};
    for (size_t i = 0; name && i < ND_ARRAY_LEN(all); i++) {
        if (nd_text_equal_nocase(name, nd_plot_format_extension(all[i]))) {
            *fmt = all[i];
            return ND_OK;
        }
    }
    return nd_error_set(err, ND_EINPUT, "unknown plot format '%s': expected png, svg or pdf",
                        name ? name : "");
}

const char *nd_plot_format_extension(nd_plot_format fmt)
{
    switch (fmt) {
    case ND_PLOT_SVG: return "svg";
    case ND_PLOT_PDF: return "pdf";
    case ND_PLOT_PNG:
    default: return "png";
    }
}
