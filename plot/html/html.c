/* The one-page HTML report: built in a memory stream, written once; see html.h. */
#include "nd/html/html.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "nd/base/io.h"

struct nd_html {
    FILE *fp;
    char *buf;
    size_t len;
    bool in_section;
    unsigned figures; /* figures so far: the prefix of the next one's ids */
    char *generator;
};

/* Light, printable, no external font or script: the page must render the same anywhere. */
static const char style[] =
    "body{font-family:sans-serif;max-width:1100px;margin:1.5em auto;padding:0 1em;color:#222;"
    "line-height:1.4}\n"
    "h1{font-size:1.5em;margin-bottom:0.2em}h2{font-size:1.2em;border-bottom:1px solid #ccc;"
    "padding-bottom:0.2em;margin-top:1.6em}\n"
    "table{border-collapse:collapse;margin:0.6em 0;font-size:0.9em}"
    "th,td{border:1px solid #ddd;padding:0.25em 0.6em;text-align:left}th{background:#f3f3f3}"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}caption{text-align:left;"
    "font-weight:bold;padding:0.3em 0}\n"
    "dl{display:grid;grid-template-columns:max-content auto;gap:0.2em 1em}dt{font-weight:bold}"
    "dd{margin:0;word-break:break-all}\n"
    "figure{margin:1em 0}figure svg{width:100%;height:auto;border:1px solid #eee}"
    "figcaption{font-size:0.9em;color:#555}\n"
    ".verdict{font-weight:bold;font-size:1.05em}.warning{color:#a00000}"
    "footer{margin-top:2em;font-size:0.8em;color:#777}\n";

static void put_escaped(FILE *fp, const char *s, size_t n)
{
    for (size_t i = 0; i < n && s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '&': fputs("&amp;", fp); break;
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '"': fputs("&quot;", fp); break;
        case '\'': fputs("&#39;", fp); break;
        default: fputc(c < 0x20 && c != '\n' && c != '\t' ? ' ' : c, fp);
        }
    }
}

static void put_text(FILE *fp, const char *s)
{
    if (s) put_escaped(fp, s, strlen(s));
}

nd_html *nd_html_open(const char *title, const char *generator)
{
    nd_html *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    h->generator = nd_strdup(generator ? generator : "nd");
    h->fp = open_memstream(&h->buf, &h->len);
    if (!h->fp || !h->generator) {
        nd_html_free(h);
        return NULL;
    }
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
          h->fp);
    put_text(h->fp, title);
    fprintf(h->fp, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", style);
    put_text(h->fp, title);
    fputs("</h1>\n", h->fp);
    return h;
}

void nd_html_free(nd_html *h)
{
    if (!h) return;
    if (h->fp) fclose(h->fp);
    free(h->buf);
    free(h->generator);
    free(h);
}

void nd_html_section(nd_html *h, const char *id, const char *heading)
{
    if (h->in_section) fputs("</section>\n", h->fp);
    fputs("<section id=\"", h->fp);
    put_text(h->fp, id);
    fputs("\">\n<h2>", h->fp);
    put_text(h->fp, heading);
    fputs("</h2>\n", h->fp);
    h->in_section = true;
}

void nd_html_text(nd_html *h, const char *fmt, ...)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(m, fmt, ap);
    va_end(ap);
    fclose(m);
    fputs("<p>", h->fp);
    put_text(h->fp, text);
    fputs("</p>\n", h->fp);
    free(text);
}

void nd_html_verdict(nd_html *h, const char *text)
{
    fputs("<p class=\"verdict\">", h->fp);
    put_text(h->fp, text);
    fputs("</p>\n", h->fp);
}

void nd_html_facts(nd_html *h, size_t n, const char *const *names, const char *const *values)
{
    fputs("<dl>\n", h->fp);
    for (size_t i = 0; i < n; i++) {
        if (!values[i]) continue;
        fputs("<dt>", h->fp);
        put_text(h->fp, names[i]);
        fputs("</dt><dd>", h->fp);
        put_text(h->fp, values[i]);
        fputs("</dd>\n", h->fp);
    }
    fputs("</dl>\n", h->fp);
}

/* Whether a cell reads as a number: digits with signs, separators, a unit or % after. */
static bool numeric(const char *s)
{
    if (!s || !*s) return false;
    bool digit = false;
    for (const char *p = s; *p; p++) {
        if (isdigit((unsigned char)*p))
            digit = true;
        else if (!strchr("+-.,% eE", *p) && !(digit && isalpha((unsigned char)*p)))
            return false;
    }
    return digit && (isdigit((unsigned char)s[0]) || s[0] == '-' || s[0] == '+');
}

void nd_html_table(nd_html *h, const char *caption, size_t n_cols, const char *const *headers, size_t n_rows,
                   const char *const *cells)
{
    fputs("<table>\n", h->fp);
    if (caption) {
        fputs("<caption>", h->fp);
        put_text(h->fp, caption);
        fputs("</caption>\n", h->fp);
    }
    fputs("<thead><tr>", h->fp);
    for (size_t c = 0; c < n_cols; c++) {
        fputs("<th>", h->fp);
        put_text(h->fp, headers[c]);
        fputs("</th>", h->fp);
    }
    fputs("</tr></thead>\n<tbody>\n", h->fp);
    for (size_t r = 0; r < n_rows; r++) {
        fputs("<tr>", h->fp);
        for (size_t c = 0; c < n_cols; c++) {
            const char *cell = cells[r * n_cols + c];
            fputs(numeric(cell) ? "<td class=\"n\">" : "<td>", h->fp);
            put_text(h->fp, cell ? cell : "");
            fputs("</td>", h->fp);
        }
        fputs("</tr>\n", h->fp);
    }
    fputs("</tbody>\n</table>\n", h->fp);
}

bool nd_html_grid_init(nd_html_grid *g, size_t cols, size_t cap_rows)
{
    memset(g, 0, sizeof *g);
    size_t n = cols * (cap_rows ? cap_rows : 1);
    g->cells = calloc(n, sizeof *g->cells);
    g->ptrs = calloc(n, sizeof *g->ptrs);
    if (!g->cells || !g->ptrs) {
        nd_html_grid_free(g);
        return false;
    }
    for (size_t i = 0; i < n; i++) g->ptrs[i] = g->cells[i];
    g->cols = cols;
    g->cap_rows = cap_rows;
    return true;
}

void nd_html_grid_set(nd_html_grid *g, size_t row, size_t col, const char *fmt, ...)
{
    if (!g->cells || row >= g->cap_rows || col >= g->cols) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->cells[row * g->cols + col], ND_HTML_CELL_MAX, fmt, ap);
    va_end(ap);
    if (row >= g->rows) g->rows = row + 1;
}

void nd_html_grid_table(nd_html *h, const char *caption, const char *const *headers, const nd_html_grid *g)
{
    if (g->ptrs) nd_html_table(h, caption, g->cols, headers, g->rows, g->ptrs);
}

void nd_html_grid_free(nd_html_grid *g)
{
    free(g->cells);
    free(g->ptrs);
    memset(g, 0, sizeof *g);
}

void nd_html_notes(nd_html *h, size_t n, const char *const *items)
{
    fputs("<ul>\n", h->fp);
    for (size_t i = 0; i < n; i++) {
        bool warning = items[i] && (strstr(items[i], "warning") || strstr(items[i], "Warning"));
        fputs(warning ? "<li class=\"warning\">" : "<li>", h->fp);
        put_text(h->fp, items[i]);
        fputs("</li>\n", h->fp);
    }
    fputs("</ul>\n", h->fp);
}

/* ---- SVG inlined ------------------------------------------------------------------------- */

/* Whether s[0..n) starts with word. */
static bool starts(const char *s, size_t n, const char *word)
{
    size_t w = strlen(word);
    return n >= w && memcmp(s, word, w) == 0;
}

/* The SVG from its <svg element on, its ids and the references to them prefixed with
 * "f<k>-": id='X' -> id='f3-X', href='#X' and url(#X) -> the same with the prefix. The
 * fixed width and height give way to the page's (the viewBox keeps the proportions). */
static void put_svg(FILE *fp, const char *svg, size_t len, unsigned k)
{
    const char *start = NULL;
    for (size_t i = 0; i + 4 <= len && !start; i++)
        if (starts(svg + i, len - i, "<svg")) start = svg + i;
    const char *end = svg + len;
    char prefix[24];
    snprintf(prefix, sizeof prefix, "f%u-", k);
    for (const char *p = start; p < end; p++) {
        size_t rest = (size_t)(end - p);
        if (starts(p, rest, "id='") || starts(p, rest, "id=\"")) {
            fwrite(p, 1, 4, fp);
            fputs(prefix, fp);
            p += 3;
        } else if (starts(p, rest, "href='#") || starts(p, rest, "href=\"#")) {
            fwrite(p, 1, 7, fp);
            fputs(prefix, fp);
            p += 6;
        } else if (starts(p, rest, "url(#")) {
            fwrite(p, 1, 5, fp);
            fputs(prefix, fp);
            p += 4;
        } else if (p == start + 4 && p < end) {
            fputs(" role=\"img\"", fp);
            fputc(*p, fp);
        } else {
            fputc(*p, fp);
        }
    }
}

void nd_html_figure(nd_html *h, const char *svg, size_t len, const char *caption)
{
    bool found = false;
    for (size_t i = 0; svg && i + 4 <= len && !found; i++) found = starts(svg + i, len - i, "<svg");
    if (!found) {
        nd_html_text(h, "(a plot could not be embedded: %s)", caption ? caption : "no SVG");
        return;
    }
    fputs("<figure>\n", h->fp);
    put_svg(h->fp, svg, len, h->figures++);
    fputs("\n<figcaption>", h->fp);
    put_text(h->fp, caption);
    fputs("</figcaption>\n</figure>\n", h->fp);
}

void nd_html_gallery(nd_html *h, const nd_plot_gallery *g, const char *const *captions)
{
    for (size_t i = 0; g && i < g->count; i++)
        nd_html_figure(h, g->items[i].svg, g->items[i].len,
                       captions && captions[i] ? captions[i] : g->items[i].name);
}

void nd_html_plots_section(nd_html *h, const nd_plot_gallery *g, const char *const *captions,
                           size_t n_captions)
{
    nd_html_section(h, "plots", "Plots");
    if (g && g->count)
        nd_html_gallery(h, g, g->count <= n_captions ? captions : NULL);
    else
        nd_html_text(h, "No plots (--no-plots).");
}

int nd_html_write(nd_html *h, const char *path, nd_error *err)
{
    FILE *fp = h->fp;
    if (h->in_section) fputs("</section>\n", fp);
    h->in_section = false;
    fputs("<footer>Written by ", fp);
    put_text(fp, h->generator);
    fputs(" (docs/report.md). The plots are inline SVG; each is also a PNG, with its gnuplot script "
          "and data, in the run's output directory.</footer>\n</body>\n</html>\n",
          fp);
    if (fflush(fp) != 0 || ferror(fp) || !h->buf) return nd_error_set(err, ND_ENOMEM, "out of memory");
    return nd_write_file_atomic(path, h->buf, h->len, err);
}
