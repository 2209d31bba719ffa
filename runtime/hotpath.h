/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hotpath.h - the layouts and constants that entry.S's graph-mode fast
 * paths rely on.  Included by entry.S (numbers only) and by graph.c,
 * which checks every one against the C definitions at compile time
 * (lpt_hotpath_check), so a changed struct fails the build instead of
 * corrupting a trace.
 */
#ifndef LPT_HOTPATH_H
#define LPT_HOTPATH_H

/* struct lpt_tbuf (record.h) */
#define LPT_TBUF_OWNER		8
#define LPT_TBUF_CAP		32
#define LPT_TBUF_HEAD		40
#define LPT_TBUF_POS		48
#define LPT_TBUF_HELD		56
#define LPT_TBUF_LIMIT		64
#define LPT_TBUF_EV		112

/* struct lpt_event (lptrace-data.h), 32 bytes */
#define LPT_EVENT_SHIFT		5
#define LPT_EVENT_TSC		0
#define LPT_EVENT_FUNC		8
#define LPT_EVENT_ARG		16
#define LPT_EVENT_TID		24
#define LPT_EVENT_CPU		28
#define LPT_EVENT_KIND		30
#define LPT_EVENT_DEPTH		31
#define LPT_EVENT_DEPTH_MAX	255
#define LPT_EVENT_ENTRY		1	/* LPT_EV_ENTRY */
#define LPT_EVENT_EXIT		2	/* LPT_EV_EXIT */

/*
 * struct lpt_frame (graph.c), 40 bytes; FLAGS is the word that holds
 * the three flag bytes tail, held, restored and one byte of padding,
 * so that one store clears them and one test reads tail and held.
 */
#define LPT_FRAME_SIZE		40
#define LPT_FRAME_ORIG		0
#define LPT_FRAME_SLOT		8
#define LPT_FRAME_TSC		16
#define LPT_FRAME_FUNC		24
#define LPT_FRAME_FLAGS		32
#define LPT_FRAME_TAIL		32
#define LPT_FRAME_HELD		33
#define LPT_FRAME_RESTORED	34

/* struct lpt_shadow (graph.c) */
#define LPT_SHADOW_N		0
#define LPT_SHADOW_F		8
#define LPT_SHADOW_MAX		4096

/* enum lpt_cpu_insn (clock.h), and TSC_AUX's CPU bits */
#define LPT_HP_CPU_RDTSCP	1
#define LPT_HP_CPU_RDPID	2
#define LPT_HP_TSC_AUX_CPU	0xfff

#endif /* LPT_HOTPATH_H */
