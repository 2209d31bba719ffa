/*
 * forks.c - a traced child process: it must write its own trace file
 * (LPTRACE_OUT.<pid>) and leave the parent's alone.
 */
#include <sys/wait.h>
#include <unistd.h>

#include "progs.h"

NOINLINE int in_parent(int x)
{
	return x + 1;
}

NOINLINE int in_child(int x)
{
	return x + 2;
}

int main(void)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		printf("child %d=%d\n", (int)getpid(), in_child(1));
		return 0;
	}
	waitpid(pid, &status, 0);
	printf("parent %d=%d child=%d\n", (int)getpid(), in_parent(1), (int)pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
