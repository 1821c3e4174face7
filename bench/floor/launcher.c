/* The least a node can do to run a batch script: a process already
 * running starts SCRIPT (posix_spawn: a vfork and an exec) for each line
 * it reads on its standard input, and reaps what ended. At the end of
 * its input it waits for every script, prints the CPU time it and the
 * scripts took (`SELF CHILDREN`, in microseconds), and exits.
 * bench/control-plane pairs it with noop.c to measure the floor of
 * sequential sbatch.
 *
 *   launcher SCRIPT < lines */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>

extern char **environ;

/* The user and system time of `who`, in microseconds. */
static long long cpu_us(int who)
{
	struct rusage r;

	getrusage(who, &r);
	return (r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1000000LL +
	       r.ru_utime.tv_usec + r.ru_stime.tv_usec;
}

int main(int argc, char **argv)
{
	char line[256];
	char *args[] = { argv[1], NULL };
	long running = 0;

	if (argc != 2) {
		fputs("usage: launcher SCRIPT < lines\n", stderr);
		return 2;
	}
	while (fgets(line, sizeof line, stdin)) {
		pid_t pid;
		int rc = posix_spawn(&pid, argv[1], NULL, NULL, args, environ);

		if (rc) {
			errno = rc;
			perror(argv[1]);
			return 1;
		}
		running++;
		while (running && waitpid(-1, NULL, WNOHANG) > 0)
			running--;
	}
	while (running && waitpid(-1, NULL, 0) > 0)
		running--;
	printf("%lld %lld\n", cpu_us(RUSAGE_SELF), cpu_us(RUSAGE_CHILDREN));
	return 0;
}
