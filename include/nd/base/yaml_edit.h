/*
 * yaml_edit.h — changing a few values of a user's YAML file and keeping everything
 * else: other keys, their order, comments, blank lines, quoting.
 *
 * nd writes a chosen strategy back into a framework's own config (MindFormers yaml,
 * HyperParallel train.yaml, accelerate yaml) so the user can launch it unchanged. A YAML
 * library would drop the comments, so edits are made on the text: a value's span (from
 * libyaml's marks) is replaced, and a missing key is inserted as a new line at the end
 * of its mapping, indented like its siblings. Block style only where a key is added.
 *
 * Anchors and aliases (docs/frameworks.md §Anchors, aliases and merge keys): a value with an
 * anchor (`data_parallel: &dp 8`) is changed after the anchor, so every alias (*dp) takes
 * the new value, as the file's author asked by writing one. A value nd sets where the file
 * has an alias stays the alias when the anchor ends up holding that value, and is
 * replaced by it (the alias expanded at that one place) otherwise, decided at
 * nd_yaml_edit_finish. A mapping reached through an alias (`cfg: *base`) that nd writes
 * into becomes `cfg:` with `<<: *base` under it: the keys nd adds win there alone.
 */
#ifndef ND_YAML_EDIT_H
#define ND_YAML_EDIT_H

#include <stddef.h>
#include "nd/base/error.h"

typedef struct nd_yaml_edit nd_yaml_edit; /* opaque: the text being edited */

/* Reads path (at most 16 MiB). The caller frees with nd_yaml_edit_free. ND_EINPUT (unreadable,
 * not YAML), ND_ENOMEM. On
 * failure *e is untouched and there is nothing to free. */
int nd_yaml_edit_open(nd_yaml_edit **e, const char *path, nd_error *err);

/* Sets the value at keys[0].keys[1]...keys[depth-1] to `value`, YAML text written as given
 * ("8", "true", "full", "[1, 2]"). Missing mappings on the way are created. ND_EINPUT when a
 * key on the way holds a value that is not a mapping, or a key must be added to a flow
 * mapping ({...}). */
int nd_yaml_edit_set(nd_yaml_edit *e, const char *const *keys, int depth, const char *value, nd_error *err);

/* nd_yaml_edit_set with the keys as one dotted path ("parallel_config.model_parallel"). */
int nd_yaml_edit_set_path(nd_yaml_edit *e, const char *dotted, const char *value, nd_error *err);

/* Removes a top-level key and its whole block (its lines up to the next top-level key).
 * Nothing happens when it is absent, or when the block defines an anchor an alias after it
 * uses (the rest would not parse). */
int nd_yaml_edit_remove(nd_yaml_edit *e, const char *key, nd_error *err);

/* Settles the values set where aliases are (see above), then checks that the text still
 * parses. nd_yaml_edit_text and nd_yaml_edit_write call it. */
int nd_yaml_edit_finish(nd_yaml_edit *e, nd_error *err);

/* The text as edited (owned by e), after nd_yaml_edit_finish. */
const char *nd_yaml_edit_text(nd_yaml_edit *e, size_t *len);

/* nd_yaml_edit_finish, then writes the edited text to path atomically. ND_EIO on failure. */
int nd_yaml_edit_write(nd_yaml_edit *e, const char *path, nd_error *err);

void nd_yaml_edit_free(nd_yaml_edit *e);

#endif
