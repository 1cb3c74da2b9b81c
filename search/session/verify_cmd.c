/*
 * verify_cmd.c — ND's -V/--verify in every binary: load the run as the command would, read
 * the checkpoint's tensors beside its config.json (headers only, offline), print the census
 * and exit; with -o, write the census spec too.
 */
#include "nd/session/cli.h"

#include <stdlib.h>
#include <string.h>

#include "nd/inputs/census.h"
#include "nd/inputs/checkpoint.h"
#include "nd/base/io.h"

int nd_verify_command(const nd_cli_common *c, const char *out_dir, FILE *out, FILE *diag, nd_error *err)
{
    nd_session ses;
    int rc = nd_session_open(&ses, c, false, diag, err);
    if (rc) {
        nd_session_close(&ses);
        return rc;
    }
    const nd_run *run = &ses.run;
    nd_checkpoint_tensors t = {0};
    char *dir = run->checkpoint[0] ? nd_path_dir(run->checkpoint) : NULL;
    bool have = false;
    if (dir) {
        if ((rc = nd_checkpoint_tensors_read(dir, &t, err))) goto done;
        have = t.count > 0;
        if (!have && diag)
            fprintf(diag,
                    "note: -V: %s holds no .safetensors files (nor model.safetensors.index.json) to compare "
                    "with: nd's side only\n",
                    dir);
    } else if (diag) {
        fprintf(diag,
                "note: -V: %s names no checkpoint (a config.json beside its .safetensors files): nd's side "
                "only\n",
                run->source);
    }
    nd_census *census = malloc(sizeof *census);
    if (!census) rc = nd_error_set(err, ND_ENOMEM, "out of memory");
    if (!rc) rc = nd_census_build(run, ses.device, have ? &t : NULL, census, err);
    if (!rc) {
        if (have)
            nd_census_print(out, run, census);
        else
            nd_census_print_nd(out, run, census);
    }
    if (!rc && out_dir) {
        char path[2048];
        if (!have) {
            snprintf(census->dir, sizeof census->dir, "%s", dir ? dir : "");
        }
        rc = nd_census_write_spec(out_dir, run, census, path, sizeof path, err);
        if (!rc) fprintf(out, "Census spec written to %s\n", path);
    }
    free(census);
done:
    free(dir);
    nd_checkpoint_tensors_free(&t);
    nd_session_close(&ses);
    return rc;
}
