/* notable.c - built without -pg: the library links and finds no table. */
#include <stdio.h>

#include "lptrace.h"

int main(void)
{
	struct lpt_stats st;
	int rc = lpt_init();

	lpt_stats(&st);
	printf("init=%d sites=%llu enable=%d\n", rc,
	       (unsigned long long)st.sites, lpt_enable(NULL));
	return 0;
}
