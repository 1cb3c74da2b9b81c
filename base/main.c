/* main.c — how every program starts and ends: signal handlers and the run's outputs at the
 * start; at the end the outputs renamed together (or removed), one line on stderr for a
 * failure, and the exit status. */
#include "nd/base/main.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nd/base/cmdline.h"
#include "nd/base/io.h"
#include "nd/base/text.h"

void nd_main_start(void)
{
    nd_signals_install();
    nd_outputs_begin();
}

/* "nd-X: wrote PATH" on stderr, one line per output. */
static void say_wrote(void *program, const char *path, bool replaced)
{
    char shown[4096]; /* a path may hold an ESC sequence or a newline: shown escaped */
    fprintf(stderr, "%s: wrote %s%s\n", (const char *)program, nd_text_shown(path, shown, sizeof shown),
            replaced ? " (replacing an earlier file)" : "");
}

int nd_main_finish(const char *program, int code, const nd_error *err)
{
    return nd_main_end(program, 0, code, err);
}

int nd_main_end(const char *program, int verbosity, int code, const nd_error *err)
{
    if (code) {
        nd_outputs_abort();
        fprintf(stderr, "%s: %s\n", program, err->message);
        return nd_exit_status(code);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        int e = errno;
        nd_outputs_abort();
        fprintf(stderr, "%s: cannot write the output: %s\n", program, strerror(e ? e : EIO));
        return 1;
    }
    nd_error commit = {0};
    /* the notes' level (nd/base/cmdline.h): -q and below write no such line */
    bool list = verbosity >= ND_VERBOSITY_DEFAULT;
    if ((code = nd_outputs_commit_each(&commit, list ? say_wrote : NULL, (void *)program))) {
        fprintf(stderr, "%s: %s\n", program, commit.message);
        return nd_exit_status(code);
    }
    return 0;
}
