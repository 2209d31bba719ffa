/* Edge cases for scripts/mcount-prologue.py: big frames (stack-probe loop),
 * VLAs, structs by value, varargs, float and many arguments, tail calls. */
#include <stdarg.h>
#include <string.h>
struct big { long a[20]; };
int use(void *p);
int bigframe(int x) { char buf[4000000]; buf[x] = 1; return use(buf); }
int midframe(int x) { char buf[70000]; buf[x] = 1; return use(buf); }
int vla(int n) { char b[n]; return use(b); }
long byval(struct big b, struct big c) { return b.a[3] + c.a[19]; }
int va(int n, ...) { va_list ap; va_start(ap, n); int s = 0; for (int i = 0; i < n; i++) s += va_arg(ap, int); va_end(ap); return s; }
double fl(double a, double b, double c, double d, double e, double f, double g, double h, double i) { return a*b+c*d+e*f+g*h+i; }
long manyargs(long a,long b,long c,long d,long e,long f,long g,long h,long i,long j,long k) { return a+b+c+d+e+f+g+h+i+j+k; }
int leaf(int x) { return x; }
int tail(int x) { return leaf(x + 1); }
int rec(int x) { return x ? rec(x - 1) + 1 : 0; }
void cpy(char *d, const char *s) { memcpy(d, s, 100); }
