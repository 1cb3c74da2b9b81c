/* main.c — how every program starts and ends: signal handlers and the run's outputs at the
 * start; at the end the outputs renamed together (or removed), one line on stderr for a
 * failure, and the exit status. */
#include "nd/base/main.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nd/base/io.h"

void nd_main_start(void)
{
    nd_signals_install();
    nd_outputs_begin();
}

int nd_main_finish(const char *program, int code, const nd_error *err)
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
    if ((code = nd_outputs_commit(&commit))) {
        fprintf(stderr, "%s: %s\n", program, commit.message);
        return nd_exit_status(code);
    }
    return 0;
}
