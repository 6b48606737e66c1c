/* test_base_modelfile.c - the model folder policy (base/modelfile.h): every
 * kind of thing a name can be (regular file, directory, FIFO, socket,
 * device, symbolic link loop, dangling link, links inside and out of the
 * folder, a link on the way through a linked subfolder, the Hugging Face
 * cache layout) x the policy (default, --follow-links), with the message
 * each refusal gives. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "test.h"
#include "base/modelfile.h"

static char root[] = "/tmp/test_base_modelfile.XXXXXX";

static const char *at(const char *rel) {
    static char p[8][512];
    static int k;
    k = (k + 1) % 8;
    snprintf(p[k], sizeof p[k], "%s/%s", root, rel);
    return p[k];
}

static void put(const char *rel, const char *text) {
    FILE *f = fopen(at(rel), "w");
    if (!f) abort();
    fputs(text, f);
    fclose(f);
}

/* A case: NAME in DIR, what cal_model_file gives with and without
 * --follow-links (1 read, 0 absent, -1 refused) and a fragment of the
 * message when refused. */
typedef struct {
    const char *dir, *name;
    int strict, follow;
    const char *frag;
} kase;

int main(void) {
    if (!mkdtemp(root)) abort();
    mkdir(at("model"), 0755);
    mkdir(at("model/sub"), 0755);
    mkdir(at("elsewhere"), 0755);
    put("model/tokenizer.json", "{}");
    put("model/sub/inner.jinja", "x");
    put("elsewhere/secret", "shadow");
    mkdir(at("elsewhere/templates"), 0755);
    put("elsewhere/templates/t.jinja", "x");
    mkfifo(at("model/fifo.jinja"), 0644);
    mkfifo(at("elsewhere/fifo"), 0644);
    symlink("tokenizer.json", at("model/inside.json"));
    symlink("sub/inner.jinja", at("model/inside2.jinja"));
    symlink("../elsewhere/secret", at("model/out.jinja"));
    symlink(at("elsewhere/secret"), at("model/out_abs.jinja"));
    symlink("../elsewhere/templates", at("model/linked_dir"));
    symlink("../elsewhere/fifo", at("model/out_fifo.jinja"));
    symlink("loop_b", at("model/loop_a"));
    symlink("loop_a", at("model/loop_b"));
    symlink("/nonexistent/x", at("model/dangling.json"));
    symlink("/dev/zero", at("model/zero.json"));
    int have_sock = 0;
    {
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        struct sockaddr_un a;
        memset(&a, 0, sizeof a);
        a.sun_family = AF_UNIX;
        snprintf(a.sun_path, sizeof a.sun_path, "%s", at("model/sock"));
        have_sock = fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0;
        if (fd >= 0) close(fd);
    }
    /* the Hugging Face cache: models--o--n/snapshots/REV/NAME -> ../../blobs/HASH */
    mkdir(at("models--o--n"), 0755);
    mkdir(at("models--o--n/blobs"), 0755);
    mkdir(at("models--o--n/snapshots"), 0755);
    mkdir(at("models--o--n/snapshots/abc123"), 0755);
    put("models--o--n/blobs/h1", "{}");
    symlink("../../blobs/h1", at("models--o--n/snapshots/abc123/tokenizer.json"));
    symlink("../../../elsewhere/secret", at("models--o--n/snapshots/abc123/chat_template.jinja"));

    const kase cases[] = {
        {"model", "tokenizer.json", 1, 1, NULL},
        {"model", "missing.json", 0, 0, NULL},
        {"model", "sub", -1, -1, "model/sub: a directory, not a regular file"},
        {"model", "fifo.jinja", -1, -1, "model/fifo.jinja: a FIFO, not a regular file"},
        {"model", "inside.json", 1, 1, NULL},
        {"model", "inside2.jinja", 1, 1, NULL},
        {"model", "sub/inner.jinja", 1, 1, NULL},
        {"model", "out.jinja", -1, 1, "model/out.jinja: a symbolic link to /tmp/test_base_modelfile.*/elsewhere/secret, outside the model folder"},
        {"model", "out_abs.jinja", -1, 1, "outside the model folder"},
        {"model", "linked_dir/t.jinja", -1, 1, "a path through a symbolic link to /tmp/test_base_modelfile.*/elsewhere/templates/t.jinja, outside"},
        {"model", "out_fifo.jinja", -1, -1, "out_fifo.jinja: a FIFO, not a regular file"},
        {"model", "loop_a", -1, -1, "model/loop_a: a symbolic link loop, not a regular file"},
        {"model", "dangling.json", -1, -1, "model/dangling.json: a dangling symbolic link to /nonexistent/x"},
        {"model", "zero.json", -1, -1, "model/zero.json: a character device, not a regular file"},
        {"models--o--n/snapshots/abc123", "tokenizer.json", 1, 1, NULL},
        {"models--o--n/snapshots/abc123", "chat_template.jinja", -1, 1, "outside the model folder"},
    };
    for (int follow = 0; follow < 2; follow++) {
        cal_model_follow_links(follow);
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
            const kase *c = &cases[i];
            char *path = NULL, err[1024] = "";
            int want = follow ? c->follow : c->strict;
            int got = cal_model_file(at(c->dir), c->name, &path, err, sizeof err);
            int ok = got == want && (got != 1 || (path && !access(path, R_OK))) && (got != -1 || !strchr(err, '\n'));
            if (ok && got == -1 && c->frag) {
                char pat[600];
                snprintf(pat, sizeof pat, "%s", c->frag);
                /* a * in the fragment stands for the test's random folder name */
                char *star = strchr(pat, '*');
                if (star) {
                    *star = 0;
                    ok = strstr(err, pat) && strstr(err, star + 1);
                } else {
                    ok = strstr(err, c->frag) != NULL;
                }
            }
            CHECK(ok, "%s%s/%s: %d", follow ? "--follow-links: " : "", c->dir, c->name, want);
            if (!ok) printf("# got %d: %s\n", got, err);
            free(path);
        }
    }
    cal_model_follow_links(0);
    if (have_sock) {
        char *path = NULL, err[512] = "";
        CHECK(cal_model_file(at("model"), "sock", &path, err, sizeof err) == -1 && strstr(err, "a socket, not a regular file"),
              "a socket is refused as a socket (%s)", err);
    }
    char kind[256];
    CHECK(cal_path_kind(at("model/nothing"), kind, sizeof kind) == NULL, "nothing at a name: NULL");
    CHECK(cal_path_kind(at("nodir/x"), kind, sizeof kind) == NULL, "nothing in a missing folder: NULL");
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd) != 0) printf("# could not remove %s\n", root);
    TEST_END();
}
