/* SPDX-License-Identifier: MIT */
#ifndef FSA_MODEL_PRIVATE_H
#define FSA_MODEL_PRIVATE_H

#include "fsa/model.h"

#endif
