/* The least a node can do to run a batch script: a process already
 * running starts SCRIPT (posix_spawn: a vfork and an exec) for each line
 * it reads on its standard input, and reaps what ended. At the end of
 * its input it waits for every script, then exits. bench/control-plane
 * pairs it with noop.c to measure the floor of sequential sbatch.
 *
 *   launcher SCRIPT < lines */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/wait.h>

extern char **environ;

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
	return 0;
}
