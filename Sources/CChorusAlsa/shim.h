#ifndef CHORUS_CALSA_SHIM_H
#define CHORUS_CALSA_SHIM_H
// ALSA's PCM API, from Debian's libasound2-dev.
#include <alsa/asoundlib.h>

// ALSA prints its own diagnostics to stderr when a device is missing; Chorus reports the failure
// itself, in words a user can act on, so those lines are dropped. (The handler is variadic, which
// Swift cannot write, hence C.)
static void chorus_alsa_ignore_error(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

static inline void chorus_alsa_silence_library_errors(void) {
    snd_lib_error_set_handler(chorus_alsa_ignore_error);
}
#endif
