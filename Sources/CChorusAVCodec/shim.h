#include <libavcodec/avcodec.h>
#include <libavutil/channel_layout.h>
#include <libavutil/frame.h>
#include <libavutil/samplefmt.h>

// AVERROR(EAGAIN) and AVERROR_EOF are macros Swift does not import.
static inline int chorus_averror_again(void) { return AVERROR(EAGAIN); }
static inline int chorus_averror_eof(void) { return AVERROR_EOF; }
