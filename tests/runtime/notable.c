/* notable.c - built without -pg: the library links and finds no table. */
#include <stdio.h>

#include "lptrace.h"

int main(void)
{
	struct lp_stats st;
	int rc = lp_init();

	lp_stats(&st);
	printf("init=%d sites=%llu enable=%d\n", rc,
	       (unsigned long long)st.sites, lp_enable(NULL));
	return 0;
}
