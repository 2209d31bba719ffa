/* SPDX-License-Identifier: GPL-2.0 */
/*
 * linkpass check on a relocatable object (a module's .ko, any FILE.o):
 * its table's entries are relocations, section + offset (check_obj.c).
 */
#ifndef LINKPASS_CHECK_OBJ_H
#define LINKPASS_CHECK_OBJ_H

#include "findings.h"
#include "image.h"

int check_object(struct options *o, struct image *im, struct findings *fd);

#endif
