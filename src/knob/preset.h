/* Presets compiled into the binary from configs/NAME.cfg (see tools/embed.c). */
#ifndef LOCKSTEP_KNOB_PRESET_H
#define LOCKSTEP_KNOB_PRESET_H

typedef struct knob_preset {
    const char *name;  /* file name without .cfg */
    const char *path;  /* configs/NAME.cfg, for messages */
    const char *text;
} knob_preset;

extern const knob_preset knob_presets[];
extern const int knob_npresets;

/* The preset `lockstep run` uses when no --preset or --config is given. */
#define KNOB_DEFAULT_PRESET "rtx3070"

#endif
