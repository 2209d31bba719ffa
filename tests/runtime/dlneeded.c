/*
 * dlneeded.c - a program linked against the traced library of dllib.c
 * (DT_NEEDED): calls lib_mid three times.
 */
#include <stdio.h>

int lib_mid(int x);

int main(void)
{
	int sum = 0, i;

	for (i = 0; i < 3; i++)
		sum += lib_mid(i);
	printf("sum=%d\n", sum);
	return 0;
}
