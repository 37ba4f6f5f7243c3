#ifndef CHORUS_CALSA_SHIM_H
#define CHORUS_CALSA_SHIM_H
// ALSA's PCM API, from Debian's libasound2-dev.
#include <alsa/asoundlib.h>
#endif
