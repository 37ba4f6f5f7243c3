#include <opus/opusenc.h>

// ope_encoder_ctl is variadic, which Swift cannot call: the settings Chorus makes, as plain functions.
static inline int chorus_ope_set_bitrate(OggOpusEnc *encoder, opus_int32 bitsPerSecond) {
    return ope_encoder_ctl(encoder, OPUS_SET_BITRATE(bitsPerSecond));
}

static inline int chorus_ope_set_muxing_delay(OggOpusEnc *encoder, opus_int32 samplesAt48k) {
    return ope_encoder_ctl(encoder, OPE_SET_MUXING_DELAY(samplesAt48k));
}

static inline int chorus_ope_set_decision_delay(OggOpusEnc *encoder, opus_int32 samplesAt48k) {
    return ope_encoder_ctl(encoder, OPE_SET_DECISION_DELAY(samplesAt48k));
}
