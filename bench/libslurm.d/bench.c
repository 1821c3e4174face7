/* The C side of bench/libslurm: a program built against Debian's
 * slurm/slurm.h that times libslurm calls, whichever libslurm.so.38 the
 * loader finds.
 *
 *   bench submit N   submits N held batch jobs, one call after another
 *   bench load R     loads every job R times
 *
 * Prints `name value unit` lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static int submit(int n) {
    char *env[] = {"PATH=/usr/bin:/bin"};
    char cwd[4096];
    double start = now();
    for (int i = 0; i < n; i++) {
        job_desc_msg_t d;
        slurm_init_job_desc_msg(&d);
        d.name = "libslurm-bench";
        d.script = "#!/bin/sh\ntrue\n";
        d.environment = env;
        d.env_size = 1;
        d.work_dir = getcwd(cwd, sizeof cwd);
        d.std_out = "/dev/null";
        d.priority = 0; /* held: each waits for its own commit only */
        d.user_id = getuid();
        d.group_id = getgid();
        submit_response_msg_t *resp = NULL;
        if (slurm_submit_batch_job(&d, &resp) != SLURM_SUCCESS) {
            slurm_perror("slurm_submit_batch_job");
            return 1;
        }
        slurm_free_submit_response_response_msg(resp);
    }
    double secs = now() - start;
    printf("libslurm_submit_loop %.1f jobs/s (%d in %.2f s)\n", n / secs, n, secs);
    return 0;
}

static int load(int reps) {
    double *t = calloc(reps, sizeof *t);
    uint32_t count = 0;
    for (int i = 0; i < reps; i++) {
        job_info_msg_t *msg = NULL;
        double start = now();
        if (slurm_load_jobs(0, &msg, SHOW_ALL) != SLURM_SUCCESS) {
            slurm_perror("slurm_load_jobs");
            return 1;
        }
        t[i] = now() - start;
        count = msg->record_count;
        slurm_free_job_info_msg(msg);
    }
    qsort(t, reps, sizeof *t, cmp);
    printf("libslurm_load_jobs_at_%u %.4f s (median of %d)\n", count, t[reps / 2], reps);
    free(t);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 3)
        return 2;
    slurm_init(NULL);
    int n = atoi(argv[2]);
    int rc = !strcmp(argv[1], "submit") ? submit(n) : !strcmp(argv[1], "load") ? load(n) : 2;
    slurm_fini();
    return rc;
}
