/* libFuzzer target: arbitrary text through the three config readers (lockstep params,
 * GPGPU-Sim syntax, and a --stats-json file's knobs object). Must never crash, hang or
 * leak. -config includes are refused by starting the GPGPU-Sim import at the nesting limit,
 * so fuzzing never opens files; "preset = NAME" only reads the presets compiled into the
 * binary. */
#include "knob/gpgpusim.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0; /* an embedded NUL just ends the text early */

    knob_cfg c;
    base_err e = {0};
    knob_init(&c);
    if (knob_load_params_text(&c, "fuzz.cfg", text, &e) == 0)
        (void)knob_validate(&c, &e);
    knob_free(&c);

    knob_init(&c);
    c.depth = KNOB_GPGPUSIM_MAX_DEPTH;
    base_err_clear(&e);
    if (knob_import_gpgpusim_text(&c, "fuzz.config", text, &e) == 0)
        (void)knob_validate(&c, &e);
    c.depth = 0;
    knob_free(&c);

    knob_init(&c);
    base_err_clear(&e);
    if (knob_load_json_text(&c, "fuzz.json", text, &e) == 0)
        (void)knob_validate(&c, &e);
    knob_free(&c);

    free(text);
    return 0;
}
