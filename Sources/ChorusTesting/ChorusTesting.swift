// The testing product: fakes for code that drives engines and streaming providers, and a manual clock.
// It brings ChorusStreaming with it, whose `ClockedNullSink` plays audio at real-time speed on any
// clock (this one included) without a sound device.
@_exported import ChorusStreaming
