/*
 * The one stub of the mcount entry points for test programs: each just
 * returns.  Assembled on its own, without instrumentation, and linked
 * into programs built with -pg (tests/lpfacts.py MCOUNT_STUBS_S reads
 * this file; the generators and the corpus builders use that).
 */
	.text
	.globl	__fentry__
	.type	__fentry__, @function
__fentry__:
	ret
	.size	__fentry__, . - __fentry__

	.globl	mcount
	.type	mcount, @function
mcount:
	ret
	.size	mcount, . - mcount

	.globl	_mcount
	.type	_mcount, @function
_mcount:
	ret
	.size	_mcount, . - _mcount

	.section .note.GNU-stack, "", @progbits
