#include <FLAC/stream_encoder.h>
#include <FLAC/stream_decoder.h>
