/* relay.h - bytes a program reads and checks, passed on to its output
 * without a second copy through user memory where the kernel allows it.
 *
 * cat(1) copies each byte twice: read(2) into its buffer, write(2) out of
 * it. A filter that reads the same bytes to verify every checksum and then
 * writes them pays both copies and the checksums, and so cannot reach
 * cat's cost. A relay removes the write's copy:
 *
 *   input a pipe or FIFO, output a pipe or socket: each read is preceded by
 *     tee(2) of the same bytes into a private pipe (the pipe's pages get a
 *     second reference, nothing is copied); the ranges the caller has
 *     verified move from there to the output by splice(2), the others are
 *     discarded;
 *   input a regular file, output a pipe: splice(2) from the file at the
 *     range's offset (its page-cache pages); output a socket: sendfile(2);
 *   anything else (output a regular file or /dev/null, input a socket):
 *     no relay (cal_relay_new gives NULL) and the caller writes its copy.
 *
 * The bytes sent are the bytes the caller read and verified: pages a
 * process wrote into the pipe are never changed once written (a later
 * write may only fill a page's unused tail, beyond what was teed), and a
 * file's pages hold what was read unless the file is rewritten while it is
 * read. The same caveat holds for a pipe whose writer spliced a file's
 * page-cache pages into it (cal-cat --pass F | cal-cat --pass): those pages
 * are the file's, and a rewrite of F while they travel changes what this
 * relay sends after the caller verified it. Nothing goes out before the
 * caller has checked it. vmsplice(2) of the caller's own buffer would
 * save the same copy, but the pipe (and any pipe or socket the reader
 * splices them on to) would then hold pages the caller reuses: not used.
 *
 * Bytes the relay no longer holds (read before the relay was made, or
 * dropped when its pipe filled up) and every failure of tee or splice fall
 * back to write(2) from the caller's copy, with write's error convention
 * (cal__write_all: EPIPE ends the program quietly, status 0). */
#ifndef CAL_BASE_RELAY_H
#define CAL_BASE_RELAY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct cal_relay cal_relay;

/* A relay from in_fd to out_fd whose stream offset `at` is the next byte
 * in_fd will give (the bytes read from it so far); NULL when no path saves
 * a copy for these two descriptors. */
cal_relay *cal_relay_new(int in_fd, int out_fd, uint64_t at);
/* read(2) of in_fd through the relay: up to n bytes (fewer than read(2)
 * might give when the relay's pipe is nearly full), blocking as read does;
 * 0 at the end of input, -1 with errno on an error. */
ssize_t cal_relay_read(cal_relay *rl, void *buf, size_t n);
/* Sends the n bytes at stream offset off to out_fd; copy holds the same
 * bytes, as read. Offsets increase from call to call, and never reach
 * beyond what was read. Bytes between two sends (or before the first) are
 * never sent. name: the output in error messages. Returns 0, or, when the
 * input is a file that now ends before off + n (it shrank since it was
 * read), the count of the range's last bytes not sent: the caller writes
 * them from its copy, or (a copy mapped from that file, now gone) says the
 * file shrank; the output is not to blame. */
size_t cal_relay_send(cal_relay *rl, uint64_t off, const void *copy, size_t n, const char *name);
/* Bytes sent without a copy so far (for tests and -v). */
uint64_t cal_relay_spliced(const cal_relay *rl);
void cal_relay_free(cal_relay *rl);

#endif
