/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mcount-table.h - the names of the ftrace call-site table, shared by
 * linkpass (writer, reader, check, dump) and the runtime.
 */
#ifndef LP_MCOUNT_TABLE_H
#define LP_MCOUNT_TABLE_H

/* The output section that holds the table. */
#define MCOUNT_SECTION		"__mcount_loc"

/*
 * The table's bounds, in the order they are looked for: the kernel's
 * linker script defines the first pair (MCOUNT_REC in vmlinux.lds.h);
 * a linker defines the second itself for a section named like a C
 * identifier, when something refers to it.
 */
#define MCOUNT_KERNEL_START	"__start_mcount_loc"
#define MCOUNT_KERNEL_STOP	"__stop_mcount_loc"
#define MCOUNT_LINKER_START	"__start___mcount_loc"
#define MCOUNT_LINKER_STOP	"__stop___mcount_loc"

#endif /* LP_MCOUNT_TABLE_H */
