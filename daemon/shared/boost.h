/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The limits of boosts and groups, shared by the configuration, the
 * policy and the API. */
#pragma once

#define BOOST_MAX 100U
#define GROUPS_MAX 16          /* kernel limit for SchedTune, counting root */
#define CLASS_NAME_MAX 32
