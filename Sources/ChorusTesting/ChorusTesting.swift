// The testing product: fakes for code that drives engines and streaming providers, test clocks, a deadline
// for a hang (`withDeadline`), and the signals and checking sink of a streaming provider's backpressure test.
// It brings ChorusStreaming with it, whose `ClockedNullSink` plays audio at real-time speed on any
// clock (these included) without a sound device.
@_exported import ChorusStreaming
