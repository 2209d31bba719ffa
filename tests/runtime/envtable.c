/*
 * envtable.c - prints the runtime's table of LPTRACE* variables
 * (runtime/env.c, lpt_env_vars), one variable a line, tab-separated:
 * name, kind, accepted values (a number's "min max", a word's words
 * separated by "|", nothing for a path or glob), default (nothing when
 * unset), help.  For tests/test_runtime_env.py, which checks
 * docs/runtime.md against it.  Built without -pg and with no __fentry__
 * call: only env.o (and what it uses) comes out of liblptrace.a.
 */
#include <stdio.h>

#include "env.h"

static const char *const kinds[] = {
	[LPT_ENV_NUMBER] = "number",
	[LPT_ENV_WORD] = "word",
	[LPT_ENV_PATH] = "path",
	[LPT_ENV_GLOB] = "glob",
};

int main(void)
{
	size_t i, w;

	for (i = 0; i < lpt_env_nvars; i++) {
		const struct lpt_env_var *e = &lpt_env_vars[i];

		printf("%s\t%s\t", e->name, kinds[e->kind]);
		switch (e->kind) {
		case LPT_ENV_NUMBER:
			printf("%lu %lu\t%lu", e->min, e->max, e->def);
			break;
		case LPT_ENV_WORD:
			for (w = 0; e->words[w]; w++)
				printf("%s%s", w ? "|" : "", e->words[w]);
			printf("\t%s", e->words[e->def]);
			break;
		default:
			printf("\t");
			break;
		}
		printf("\t%s\n", e->help);
	}
	return 0;
}
