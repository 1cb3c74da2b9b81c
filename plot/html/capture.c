/* A stream that writes to another (stderr) and keeps a copy in memory, so a report can
 * list the notes and warnings its run printed. glibc's fopencookie makes the tee. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "nd/html/html.h"

static ssize_t tee_write(void *cookie, const char *buf, size_t size)
{
    nd_html_capture *c = cookie;
    fwrite(buf, 1, size, c->to);
    fflush(c->to);
    if (c->mem) fwrite(buf, 1, size, c->mem);
    return (ssize_t)size; /* the run goes on whatever the copy does */
}

int nd_html_capture_open(nd_html_capture *c, FILE *to, nd_error *err)
{
    memset(c, 0, sizeof *c);
    c->to = to;
    c->mem = open_memstream(&c->buf, &c->len);
    cookie_io_functions_t io = {NULL, tee_write, NULL, NULL};
    c->fp = c->mem ? fopencookie(c, "w", io) : NULL;
    if (!c->fp) {
        nd_html_capture_close(c);
        return nd_error_set(err, ND_ENOMEM, "out of memory");
    }
    setvbuf(c->fp, NULL, _IONBF, 0); /* each note reaches the terminal as it is written */
    return ND_OK;
}

const char *nd_html_capture_text(nd_html_capture *c)
{
    if (c->fp) fflush(c->fp);
    if (c->mem) fflush(c->mem);
    return c->buf ? c->buf : "";
}

void nd_html_capture_close(nd_html_capture *c)
{
    if (c->fp) fclose(c->fp);
    if (c->mem) fclose(c->mem);
    free(c->buf);
    memset(c, 0, sizeof *c);
}

/* Progress lines are for the terminal: redrawn ones carry '\r', and a step's own lines say
 * "% (" or end with "done in N s". */
static int is_progress(const char *line, size_t len)
{
    char text[512];
    snprintf(text, sizeof text, "%.*s", (int)(len < sizeof text ? len : sizeof text - 1), line);
    return strchr(text, '\r') || strstr(text, " done in ") || strstr(text, " % (") || strstr(text, "\033[");
}

void nd_html_notes_from_capture(nd_html *h, nd_html_capture *c)
{
    const char *text = nd_html_capture_text(c);
    size_t n = 0, cap = 16;
    char **lines = malloc(cap * sizeof *lines);
    for (const char *p = text; lines && *p;) {
        size_t len = strcspn(p, "\n");
        if (len && !is_progress(p, len)) {
            if (n == cap) {
                char **more = realloc(lines, 2 * cap * sizeof *lines);
                if (!more) break;
                lines = more;
                cap *= 2;
            }
            lines[n] = malloc(len + 1);
            if (lines[n]) {
                memcpy(lines[n], p, len);
                lines[n][len] = '\0';
                n++;
            }
        }
        p += len + (p[len] == '\n');
    }
    nd_html_section(h, "notes", "Notes and warnings");
    if (n)
        nd_html_notes(h, n, (const char *const *)lines);
    else
        nd_html_text(h, "The run printed no note or warning.");
    for (size_t i = 0; i < n; i++) free(lines[i]);
    free(lines);
}
