/* cache.h - the cache of prepared tokenizers (tok/image.h): where it lives,
 * which image belongs to a tokenizer's files, and writing one.
 *
 * The folder: $CAL_CACHE when set (a folder; "off" or "0" turns the cache
 * off), else $XDG_CACHE_HOME/calkit, else $HOME/.cache/calkit; images go
 * in its tokenizers/ folder (made 0700 on first use). A folder that cannot
 * be made or written (a read-only HOME) means no cache: the tokenizer is
 * loaded from its files as without one.
 *
 * An image is named by its content key: XXH3-128 of calkit's build id (the
 * version and a hash of lib/tok's sources, so that a changed engine never
 * reads an older image) and of the name, length and bytes of every file a
 * load may read (the tokenizer file and a model folder's configuration
 * files). Hashing 33 MB costs a few ms, so the key of files that have not
 * changed since is found from their identity: a memo, named by a hash of
 * the files' (device, inode, size, modification and change times), holds
 * the key. A memo is written only for files whose times are over two
 * seconds old (a file changed within a clock tick of its memo would keep
 * its times); any later change gives a new change time, so a memo never
 * names the key of other bytes.
 *
 * The same rule spares hashing the image (22 MB for Llama 3, most of a
 * cached load's CPU): after a load has verified an image's body checksum,
 * the memo records the image's identity as mapped (fstat of the
 * descriptor), once its times are over two seconds old; a later load of a
 * file with that identity checks the header, its checksum and the section
 * table but not the body. Writing into the image, truncating it or renaming
 * another file over it changes its identity and brings back the full check.
 *
 * Threat model. The cache guards against accidents: a file cut short by a
 * crash or a full disk, a byte changed by a stray writer, another build's
 * or another tokenizer's image, concurrent writers. Those are refused and
 * rebuilt. A change that keeps the image's identity (bit rot on the
 * medium, a crash that keeps size and times but not the data) is caught
 * only while the memo records no identity (the first loads, under two
 * seconds old); after that it is used, as any program's own files would be. It does not guard against a writer who can
 * write the 0700 cache folder: such a writer can already forge a memo
 * (naming any key) or an image whose checksums match its bytes, and so
 * can change the ids that come out; what holds even then is that no bytes
 * of an image (hashed or not) can crash or hang a program: every offset
 * and index read from it is bounded (image.h). Changing an image under a
 * running program (in place, while mapped) is of the same kind; cutting it
 * short ends the program with one line (io/mapfile.h), not a crash. */
#ifndef CAL_TOK_CACHE_H
#define CAL_TOK_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "tok/image.h"

#define TOK_CACHE_MAXIN 8

typedef struct {
    char *dir;                   /* the cache folder, NULL: no cache */
    size_t n;                    /* inputs */
    char *path[TOK_CACHE_MAXIN]; /* the files a load may read */
    uint64_t st[TOK_CACHE_MAXIN][8]; /* their identity; all 0 when absent */
    uint64_t key[2];
    uint64_t image[8];           /* the memo's image identity (tok_file_identity; all 0: none) */
    int keyed, from_memo;
    char note[512];              /* what happened, for -v: "hit", "made", "off", why not */
} tok_cache;

/* calkit's build id, as images record it. */
const char *tok_cache_build(void);

/* The cache folder as the environment says (malloc'd), or NULL when off. */
char *tok_cache_dir(void);

/* Starts a lookup for the files paths[0..n) (absent ones too: their
 * absence is part of the key); enabled 0 turns the cache off. */
void tok_cache_begin(tok_cache *c, int enabled, char *const *paths, size_t n);
/* Maps the image of those files: 1 (im verified and open; its body
 * checksum skipped when the memo records the image's identity, above), or
 * 0 (none usable: a damaged or foreign one is said in c->note and replaced
 * by the next tok_cache_save). c->note: "hit", "hit (image hashed)" or
 * "hit (files hashed, image hashed)". */
int tok_cache_open(tok_cache *c, tok_image *im);
/* 1 when the files' memo names an image that exists (no hashing, no
 * verifying: a hint that a load will be cheap). */
int tok_cache_ready(tok_cache *c);
/* Writes the image of the sections w (atomically) and the memo, unless the
 * files changed since tok_cache_begin. */
void tok_cache_save(tok_cache *c, const tok_image_parts *w);
void tok_cache_end(tok_cache *c);

#endif
