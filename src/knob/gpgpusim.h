/* Internals of the GPGPU-Sim config importer (knob/gpgpusim.c) shared with tests and fuzz
 * targets; the public entry points are in knob.h. */
#ifndef LOCKSTEP_KNOB_GPGPUSIM_H
#define LOCKSTEP_KNOB_GPGPUSIM_H

#include "knob.h"

/* -config nesting limit. A knob_cfg whose depth is already this refuses every -config
 * include, which is how fuzz targets keep the importer away from the file system. */
#define KNOB_GPGPUSIM_MAX_DEPTH 8

/* Consistency of the mapping table: every mapped option is a known GPGPU-Sim option and
 * every knob it names exists. Returns the number of problems (the first is described in e). */
int knob_gpgpusim_selfcheck(base_err *e);

#endif
