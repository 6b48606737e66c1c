/* modelfile.h - the files of a model folder, read as written by an
 * adversary, and what a path is, in words.
 *
 * Why this module exists: calkit reads a model folder it was given (-t DIR,
 * --chat DIR) by file names: tokenizer.json, tokenizer_config.json,
 * chat_template.jinja, additional_chat_templates/NAME.jinja, config.json.
 * A folder from the internet can make any of them a FIFO (reading it would
 * wait for ever), a device (/dev/zero never ends), a directory, a symlink
 * loop, or a link out of the folder: chat_template.jinja -> /etc/shadow
 * would render that file into the stream, as transformers would. The
 * policy: a name must lead to a regular file; a symbolic link is followed
 * while it stays inside the folder, or inside the Hugging Face cache
 * repository the folder is a snapshot of (.../models--ORG--NAME/snapshots/
 * REV/NAME links to ../../blobs/HASH); any other link is refused, naming
 * its target, unless cal_model_follow_links(1) (the programs'
 * --follow-links) was called. Whatever is refused is one message saying
 * what the path is. */
#ifndef CAL_BASE_MODELFILE_H
#define CAL_BASE_MODELFILE_H

#include <stddef.h>

/* Let links of model folders lead anywhere (still to regular files). */
void cal_model_follow_links(int yes);

/* What is at path, in words ("a regular file", "a directory", "a FIFO",
 * "a socket", "a character device", "a block device", "a symbolic link
 * loop", "a dangling symbolic link to T"), into buf; NULL when there is
 * nothing at path (a missing name, or one in a missing folder). */
const char *cal_path_kind(const char *path, char *buf, size_t n);

/* What to say when opening path failed with errno e: what the path really
 * is where that explains it (a socket, a symbolic link loop, a dangling link
 * and where it points), else strerror(e); into buf, which is returned. */
const char *cal_open_error(const char *path, int e, char *buf, size_t n);

/* DIR/NAME (NAME may hold '/'): 1 when it is a regular file the policy lets
 * calkit read, with "DIR/NAME" to open in *path (malloc'd); 0 when there is
 * nothing at that name; -1 with "DIR/NAME: what it is (why it is refused)"
 * in err. */
int cal_model_file(const char *dir, const char *name, char **path, char *err, size_t errlen);

#endif
