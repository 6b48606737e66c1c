/* test_stats_groups.c - lib/stats/groups.c: which tiles may share a BLAS
 * call. At every d from 64 to 9000 (every tiling psyrk makes there), a
 * tile has a neighbour exactly when it is off the diagonal, its neighbour
 * is the next tile along its column (even lanes) or row (odd lanes), and
 * both extents along the group are multiples of 8 (OpenBLAS's AVX-512 dgemm
 * gives other bits for a group with a tile of another width: groups.c).
 * And the start-up check: at d = 1300 (its last panel 436 wide) grouping is
 * exact with the kernels in use, and so is a group of multiples of 8 at
 * d = 4096; a group built across a 436-wide tile is refused or exact. */
#include <cblas.h>
#include <stdlib.h>
#include <string.h>

#include "stats/groups.h"
#include "stats/psyrk.h"
#include "test.h"

int main(void) {
    int ok = 1;
    size_t tilings = 0, pairs = 0;
    for (size_t d = 64; d <= 9000 && ok; d += 4) {
        cal_psyrk_tile *t;
        size_t n = cal_psyrk_tiling(d, &t);
        size_t *prev = malloc(n * sizeof *prev), *next = malloc(n * sizeof *next);
        for (int odd = 0; odd < 2; odd++) {
            cal_group_neighbours(t, n, odd, prev, next);
            for (size_t a = 0; a < n; a++)
                for (size_t b = 0; b < n; b++) {
                    int joins = a != b && t[a].i0 != t[a].j0 && t[b].i0 != t[b].j0 &&
                                cal_group_extent(&t[a], odd) % 8 == 0 && cal_group_extent(&t[b], odd) % 8 == 0 &&
                                (odd ? t[a].i0 == t[b].i0 && t[a].j0 + t[a].nj == t[b].j0
                                     : t[a].j0 == t[b].j0 && t[a].i0 + t[a].ni == t[b].i0);
                    ok &= (next[a] == b) == joins && (prev[b] == a) == joins;
                    pairs += joins;
                }
        }
        tilings++;
        free(prev), free(next), free(t);
    }
    CHECK(ok && pairs > 1000, "%zu tilings (d 64 to 9000): neighbours exactly off the diagonal, along the lane's "
          "direction, both widths multiples of 8 (%zu pairs)", tilings, pairs);

    int exact[2];
    size_t ds[2] = {1300, 4096};
    for (int k = 0; k < 2; k++) {
        cal_psyrk_tile *t;
        size_t d = ds[k], n = cal_psyrk_tiling(d, &t);
        size_t *pv[2], *nx[2];
        for (int odd = 0; odd < 2; odd++) {
            pv[odd] = malloc(n * sizeof **pv), nx[odd] = malloc(n * sizeof **nx);
            cal_group_neighbours(t, n, odd, pv[odd], nx[odd]);
        }
        double *s = calloc(cal_groups_scratch(d), sizeof *s);
        exact[k] = cal_groups_exact(t, pv, nx, n, s);
        free(s), free(t);
        for (int odd = 0; odd < 2; odd++) free(pv[odd]), free(nx[odd]);
    }
    /* measured exact with these kernels (groups.c); others may refuse */
    const char *core = openblas_get_corename();
    int known = core && (!strcmp(core, "SkylakeX") || !strcmp(core, "Cooperlake") || !strcmp(core, "Haswell"));
    if (known)
        CHECK(exact[0] && exact[1], "%s kernels: the start-up check passes at d = 1300 (a 436-wide last panel, left "
              "out of groups) and at d = 4096", core);
    else
        printf("skip - start-up check at d = 1300 and 4096: not measured with %s kernels (%s)\n", core ? core : "?",
               exact[0] && exact[1] ? "passes" : "refuses");
    TEST_END();
}
