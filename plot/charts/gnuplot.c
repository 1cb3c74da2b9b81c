/* gnuplot.c — writing a plot's three files and running gnuplot on it.
 *
 * The pitfalls handled here were measured on gnuplot 5.4
 * (docs/reference/c-libraries.md §6): gnuplot reading stdin keeps going after an
 * error but exits 1; a failed `set output` sends image bytes to stdout; errors
 * leave 0-byte images behind; a missing gnuplot still gives a non-NULL popen
 * and the first write raises SIGPIPE; ~/.gnuplot changes the output unless -d. */
#include "plot_internal.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nd/base/io.h"
#include "nd/base/array.h"

#define NOT_FOUND_MESSAGE "gnuplot not found on PATH: install gnuplot-nox"
#define LOG_READ_MAX      8192

/* A new string "a" "b" "c" (any may be ""), or NULL when out of memory. */
static char *concat3(const char *a, const char *b, const char *c)
{
    size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
    char *s = malloc(la + lb + lc + 1);
    if (!s) return NULL;
    memcpy(s, a, la);
    memcpy(s + la, b, lb);
    memcpy(s + la + lb, c, lc + 1);
    return s;
}

/* The first place the len bytes at s hold word (memmem is not POSIX; a PDF's streams hold
 * NUL bytes, so no strstr), or NULL. */
static const char *find_bytes(const char *s, size_t len, const char *word)
{
    size_t n = strlen(word);
    for (size_t i = 0; i + n <= len; i++)
        if (s[i] == word[0] && !memcmp(s + i, word, n)) return s + i;
    return NULL;
}

static int contains(const char *s, size_t len, const char *word)
{
    return find_bytes(s, len, word) != NULL;
}

/* From gnuplot's stderr, the line that says what went wrong: warnings, the
 * echoed command and its caret line come first, so "the first line" alone
 * would often be a warning or a command. The echoed command is appended as
 * context. Falls back to the first non-blank line. */
static void first_error_line(const char *log, char *out, size_t size)
{
    const char *echo = NULL, *first = NULL, *found = NULL;
    size_t echo_len = 0, first_len = 0, found_len = 0;
    for (const char *line = log; *line && !found;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *t = line;
        while (t < line + len && (*t == ' ' || *t == '\t' || *t == '^')) t++;
        size_t tlen = len - (size_t)(t - line);
        if (tlen > 0 && !first) {
            first = t;
            first_len = tlen;
        }
        if (tlen == 0) {
            /* blank, or the caret under an echoed command */
        } else if (strncmp(line, "gnuplot> ", 9) == 0) {
            echo = line + 9;
            echo_len = len - 9;
        } else if (!contains(t, tlen, "arning:")) {
            found = t;
            found_len = tlen;
        }
        line = end ? end + 1 : line + len;
    }
    if (!found) {
        found = first;
        found_len = first_len;
        echo = NULL;
    }
    if (!found) {
        snprintf(out, size, "no message on stderr");
        return;
    }
    /* "line 1: " counts lines of stdin since the last command, which means
     * nothing to the reader; the echoed command says where instead. */
    if (found_len > 5 && strncmp(found, "line ", 5) == 0) {
        const char *p = found + 5;
        while (p < found + found_len && *p >= '0' && *p <= '9') p++;
        if (p + 1 < found + found_len && p[0] == ':' && p[1] == ' ') {
            found_len -= (size_t)(p + 2 - found);
            found = p + 2;
        }
    }
    if (echo_len > 120) echo_len = 120;
    if (echo)
        snprintf(out, size, "%.*s (in: %.*s)", (int)found_len, found, (int)echo_len, echo);
    else
        snprintf(out, size, "%.*s", (int)found_len, found);
}

/* Decodes pclose's status into 0 or an ND_ERUNTIME message. */
static int gnuplot_status(int status, int write_errno, int log_fd, const char *what, nd_error *err)
{
    if (status == -1)
        return nd_error_set(err, ND_ERUNTIME, "%s: cannot wait for gnuplot: %s", what, strerror(errno));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return nd_error_set(err, ND_ERUNTIME, "%s", NOT_FOUND_MESSAGE);
    if (WIFSIGNALED(status))
        return nd_error_set(err, ND_ERUNTIME, "%s: gnuplot was killed by signal %d", what, WTERMSIG(status));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        if (!write_errno) return ND_OK;
        return nd_error_set(err, ND_ERUNTIME, "%s: gnuplot did not read the whole script: %s", what,
                            strerror(write_errno));
    }
    char log[LOG_READ_MAX + 1];
    ssize_t got = lseek(log_fd, 0, SEEK_SET) == 0 ? read(log_fd, log, LOG_READ_MAX) : -1;
    log[got > 0 ? got : 0] = '\0';
    char line[512];
    first_error_line(log, line, sizeof line);
    return nd_error_set(err, ND_ERUNTIME, "%s: gnuplot failed (exit %d): %s", what,
                        WIFEXITED(status) ? WEXITSTATUS(status) : -1, line);
}

/* Runs gnuplot on script (which sets its own output), as `gnuplot -d` with
 * stderr captured to a temporary file in log_dir. ND_ERUNTIME with gnuplot's
 * first error line, or the not-found message. what names the plot. The log is
 * unlinked as soon as it is created and handed to gnuplot by descriptor, so no
 * signal or crash can leave it behind. */
static int nd_plot_run_gnuplot(const char *script, size_t len, const char *log_dir, const char *what,
                               nd_error *err)
{
    char *log_path = nd_path_join(log_dir, ".nd-gnuplot-log.XXXXXX");
    if (!log_path) return nd_error_set(err, ND_ENOMEM, "out of memory");
    int log_fd = mkstemp(log_path);
    if (log_fd < 0) {
        int e = errno;
        int rc = nd_error_set(err, ND_EIO, "%s: cannot write: %s", log_path, strerror(e));
        free(log_path);
        return rc;
    }
    unlink(log_path);
    free(log_path);
    char redirect[48];
    snprintf(redirect, sizeof redirect, "exec gnuplot -d 2>&%d >/dev/null", log_fd);
    char *cmd = nd_strdup(redirect);
    int rc = ND_OK;
    if (!cmd) {
        rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    } else {
        /* A missing or dying gnuplot turns our writes into SIGPIPE, which
         * would kill the caller: ignore it so the writes fail with EPIPE, and
         * put back whatever the program had. The disposition is process-wide,
         * so plot.h asks callers to draw from one thread at a time. */
        struct sigaction ignore, previous;
        memset(&ignore, 0, sizeof ignore);
        ignore.sa_handler = SIG_IGN;
        sigemptyset(&ignore.sa_mask);
        sigaction(SIGPIPE, &ignore, &previous);
        errno = 0;
        FILE *to_gnuplot = popen(cmd, "w");
        if (!to_gnuplot) {
            rc = nd_error_set(err, ND_ERUNTIME, "%s: cannot start gnuplot: %s", what,
                              strerror(errno ? errno : ENOMEM));
        } else {
            int write_errno = 0;
            if (fwrite(script, 1, len, to_gnuplot) != len || fflush(to_gnuplot) != 0)
                write_errno = errno ? errno : EPIPE;
            int status = pclose(to_gnuplot);
            rc = gnuplot_status(status, write_errno, log_fd, what, err);
        }
        sigaction(SIGPIPE, &previous, NULL);
    }
    free(cmd);
    close(log_fd);
    return rc;
}

int nd_plot_gnuplot_check(nd_error *err)
{
    FILE *p = popen("exec gnuplot -V 2>/dev/null", "r");
    if (!p) return nd_error_set(err, ND_ERUNTIME, "cannot start sh: %s", strerror(errno));
    char version[64] = "";
    size_t n = fread(version, 1, sizeof version - 1, p);
    version[n] = '\0';
    while (fgetc(p) != EOF) {
    }
    int status = pclose(p);
    if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && strncmp(version, "gnuplot", 7) == 0)
        return ND_OK;
    if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) != 127)
        return nd_error_set(err, ND_ERUNTIME, "gnuplot -V failed (exit %d)", WEXITSTATUS(status));
    return nd_error_set(err, ND_ERUNTIME, "%s", NOT_FOUND_MESSAGE);
}

/* ---- the three files ----------------------------------------------------- */

static int check_options(const nd_plot_options *opt, nd_plot_options *o, nd_error *err)
{
    if (opt)
        *o = *opt;
    else
        nd_plot_options_init(o);
    if (o->width_px == 0) o->width_px = ND_PLOT_WIDTH_DEFAULT;
    if (o->height_px == 0) o->height_px = ND_PLOT_HEIGHT_DEFAULT;
    if (o->width_px < 0 || o->height_px < 0 || o->width_px > ND_PLOT_SIZE_MAX ||
        o->height_px > ND_PLOT_SIZE_MAX)
        return nd_error_set(err, ND_EINPUT, "plot size %dx%d: width and height must be 1 to %d", o->width_px,
                            o->height_px, ND_PLOT_SIZE_MAX);
    if (o->format != ND_PLOT_PNG && o->format != ND_PLOT_SVG && o->format != ND_PLOT_PDF)
        return nd_error_set(err, ND_EINPUT, "plot format %d: expected PNG, SVG or PDF", (int)o->format);
    return ND_OK;
}

static void put_terminal(FILE *fp, const nd_plot_options *o)
{
    /* The font is named generically so fontconfig picks the system's sans
     * (DejaVu Sans on Debian); size 10 suits a 1000 x 700 image. */
    if (o->format == ND_PLOT_PDF) {
        /* pdfcairo measures in inches; 100 px to the inch keeps the default
         * 1000 x 700 at a 10 x 7 inch page with the same proportions. */
        fputs("set terminal pdfcairo size ", fp);
        nd_plot_put_number(fp, o->width_px / 100.0);
        fputs("in,", fp);
        nd_plot_put_number(fp, o->height_px / 100.0);
        fputs("in noenhanced font 'Sans,10'\n", fp);
    } else if (o->format == ND_PLOT_SVG) {
        fprintf(fp, "set terminal svg size %d,%d noenhanced font 'Sans,10' background rgb 'white'\n",
                o->width_px, o->height_px);
    } else {
        fprintf(fp, "set terminal pngcairo size %d,%d noenhanced font 'Sans,10'\n", o->width_px,
                o->height_px);
    }
}

/* A file name in a comment: control characters would end the comment. */
static void put_comment_text(FILE *fp, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        fputc(*p < 0x20 || *p == 0x7f ? ' ' : *p, fp);
}

/* The whole script, with `set output` naming output. */
static int compose(const nd_plot_job *job, const nd_plot_options *o, const char *stem, const char *output,
                   nd_plot_text *t, nd_error *err)
{
    int rc = nd_plot_text_open(t, err);
    if (rc) return rc;
    FILE *fp = t->fp;
    fprintf(fp, "# nd %s plot. The data is inline below and also in ", job->kind);
    put_comment_text(fp, stem);
    fputs(".dat.\n# Re-render from this directory: gnuplot ", fp);
    put_comment_text(fp, stem);
    fputs(".gp\nset encoding utf8\n", fp);
    put_terminal(fp, o);
    fputs("set output ", fp);
    nd_plot_put_string(fp, output);
    fprintf(fp, "\n$DATA << EOD\n%sEOD\n%s", job->data, job->body);
    /* Closes the image; pdfcairo writes its trailer only then. */
    fputs("unset output\n", fp);
    return nd_plot_text_finish(t, err);
}

static int write_all(nd_outfile *out, const char *buf, size_t len, nd_error *err)
{
    if (fwrite(buf, 1, len, out->fp) == len) return ND_OK;
    return nd_error_set(err, ND_EIO, "%s: cannot write: %s", out->path, strerror(errno));
}

/* cairo (1.16, Debian 12's) stamps a PDF with the time it was drawn, so two runs on the same
 * inputs differ. Each "/CreationDate (D:...)" (and /ModDate) is rewritten in place, keeping
 * every byte offset (the PDF's cross-reference table counts them): to SOURCE_DATE_EPOCH when
 * it is set (reproducible-builds.org's convention), else blanked with spaces. */
static void fix_pdf_dates(int fd, off_t size)
{
    if (size <= 0 || size > ((off_t)64 << 20)) return;
    char *pdf = malloc((size_t)size + 1);
    if (!pdf || pread(fd, pdf, (size_t)size, 0) != size) {
        free(pdf);
        return;
    }
    pdf[size] = '\0';
    char date[32] = "";
    const char *epoch = getenv("SOURCE_DATE_EPOCH");
    char *end = NULL;
    long long t = epoch ? strtoll(epoch, &end, 10) : -1;
    if (epoch && *epoch && end && !*end && t >= 0 && t <= 253402300799LL) { /* to year 9999 */
        time_t when = (time_t)t;
        struct tm tm;
        if (gmtime_r(&when, &tm)) strftime(date, sizeof date, "D:%Y%m%d%H%M%SZ", &tm);
    }
    static const char *const keys[] = {"/CreationDate (", "/ModDate ("};
    for (size_t k = 0; k < ND_ARRAY_LEN(keys); k++)
        for (char *at = (char *)find_bytes(pdf, (size_t)size, keys[k]); at;
             at = (char *)find_bytes(at + 1, (size_t)(pdf + size - at - 1), keys[k])) {
            char *open = at + strlen(keys[k]), *close = memchr(open, ')', (size_t)(pdf + size - open));
            if (!close) break;
            size_t room = (size_t)(close - open), n = strlen(date);
            if (n && n <= room) { /* the new date, then spaces after the ')' */
                memcpy(open, date, n);
                open[n] = ')';
                memset(open + n + 1, ' ', room - n);
            } else { /* the whole entry becomes white space */
                memset(at, ' ', (size_t)(close + 1 - at));
            }
        }
    if (pwrite(fd, pdf, (size_t)size, 0) != size) { /* checked by the commit's fsync/close */
    }
    free(pdf);
}

/* Renders into the temporary file of img; gnuplot's image lands there and
 * nd_outfile_commit renames it into place later. */
static int render(const nd_plot_job *job, const nd_plot_options *o, const char *stem, const char *dir,
                  nd_outfile *img, nd_error *err)
{
    nd_plot_text script = {0};
    int rc = compose(job, o, stem, img->tmp_path, &script, err);
    if (!rc) rc = nd_plot_run_gnuplot(script.buf, script.len, dir, img->path, err);
    nd_plot_text_free(&script);
    if (rc) return rc;
    /* Exit status 0 should mean an image; a 0-byte file must never replace one. */
    struct stat st;
    if (fstat(fileno(img->fp), &st) != 0 || st.st_size == 0)
        return nd_error_set(err, ND_ERUNTIME, "%s: gnuplot wrote an empty image", img->path);
    if (o->format == ND_PLOT_PDF) fix_pdf_dates(fileno(img->fp), st.st_size);
    return ND_OK;
}

void nd_plot_gallery_free(nd_plot_gallery *g)
{
    for (size_t i = 0; g && i < g->count; i++) {
        free(g->items[i].name);
        free(g->items[i].svg);
    }
    if (g) {
        free(g->items);
        g->items = NULL;
        g->count = g->cap = 0;
    }
}

#define SVG_MAX_BYTES ((size_t)64 << 20)

/* Draws the plot once more as SVG into a temporary file under $TMPDIR (or /tmp), reads it into
 * the gallery and removes the file: the report's copy, whatever format the files are in. */
static int add_to_gallery(const nd_plot_job *job, const nd_plot_options *o, const char *stem, nd_error *err)
{
    nd_plot_gallery *g = o->gallery;
    if (g->count == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 8;
        nd_plot_svg *items = realloc(g->items, cap * sizeof *items);
        if (!items) return nd_error_set(err, ND_ENOMEM, "out of memory");
        g->items = items;
        g->cap = cap;
    }
    const char *tmp = getenv("TMPDIR");
    char *path = nd_path_join(tmp && *tmp ? tmp : "/tmp", ".nd-svg.XXXXXX");
    if (!path) return nd_error_set(err, ND_ENOMEM, "out of memory");
    int fd = mkstemp(path);
    if (fd < 0) {
        int rc = nd_error_set(err, ND_EIO, "%s: cannot write: %s", path, strerror(errno));
        free(path);
        return rc;
    }
    close(fd);
    nd_plot_options svg = *o;
    svg.format = ND_PLOT_SVG;
    nd_plot_text script = {0};
    char *dir = nd_path_dir(path), *data = NULL;
    size_t len = 0;
    int rc =
        dir ? compose(job, &svg, stem, path, &script, err) : nd_error_set(err, ND_ENOMEM, "out of memory");
    if (!rc) rc = nd_plot_run_gnuplot(script.buf, script.len, dir, stem, err);
    if (!rc) rc = nd_read_file(path, SVG_MAX_BYTES, &data, &len, err);
    if (!rc) {
        g->items[g->count] = (nd_plot_svg){nd_strdup(stem), data, len};
        if (!g->items[g->count].name) {
            free(data);
            rc = nd_error_set(err, ND_ENOMEM, "out of memory");
        } else
            g->count++;
    }
    unlink(path);
    nd_plot_text_free(&script);
    free(path);
    free(dir);
    return rc;
}

int nd_plot_emit(const char *out_base, const nd_plot_options *opt, const nd_plot_job *job, nd_error *err)
{
    nd_plot_options o;
    int rc = check_options(opt, &o, err);
    if (rc) return rc;
    const char *slash = out_base ? strrchr(out_base, '/') : NULL;
    const char *stem = slash ? slash + 1 : out_base;
    if (!stem || !*stem)
        return nd_error_set(err, ND_EINPUT, "%s plot: output name '%s' has no file name", job->kind,
                            out_base ? out_base : "");
    const char *ext = nd_plot_format_extension(o.format);
    char *dir = nd_path_dir(out_base);
    char *dat_path = concat3(out_base, ".dat", "");
    char *gp_path = concat3(out_base, ".gp", "");
    char *img_path = concat3(out_base, ".", ext);
    char *img_name = concat3(stem, ".", ext);
    nd_outfile dat = {0}, gp = {0}, img = {0};
    nd_plot_text script = {0};
    if (!dir || !dat_path || !gp_path || !img_path || !img_name) {
        rc = nd_error_set(err, ND_ENOMEM, "out of memory");
        goto done;
    }
    if (o.gallery && (rc = add_to_gallery(job, &o, stem, err))) goto done;
    if (o.gallery && o.gallery_only) goto done;
    if ((rc = compose(job, &o, stem, img_name, &script, err))) goto done;
    if ((rc = nd_outfile_open(&dat, dat_path, err))) goto done;
    if ((rc = write_all(&dat, job->data, strlen(job->data), err))) goto done;
    if ((rc = nd_outfile_open(&gp, gp_path, err))) goto done;
    if ((rc = write_all(&gp, script.buf, script.len, err))) goto done;
    if (!o.script_only) {
        if ((rc = nd_outfile_open(&img, img_path, err))) goto done;
        if ((rc = render(job, &o, stem, dir, &img, err))) goto done;
    }
    if ((rc = nd_outfile_commit(&dat, err))) goto done;
    if ((rc = nd_outfile_commit(&gp, err))) goto done;
    if (!o.script_only) rc = nd_outfile_commit(&img, err);
done:
    nd_outfile_discard(&dat);
    nd_outfile_discard(&gp);
    nd_outfile_discard(&img);
    nd_plot_text_free(&script);
    free(dir);
    free(dat_path);
    free(gp_path);
    free(img_path);
    free(img_name);
    return rc;
}

int nd_plot_texts_emit(nd_plot_texts *t, const char *kind, const char *out_base, const nd_plot_options *opt,
                       nd_error *err)
{
    int rc;
    if ((rc = nd_plot_text_finish(&t->data, err)) || (rc = nd_plot_text_finish(&t->body, err))) return rc;
    nd_plot_job job = {kind, t->data.buf, t->body.buf};
    return nd_plot_emit(out_base, opt, &job, err);
}
