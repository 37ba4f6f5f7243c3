// `import Chorus`: every on-device part of the toolkit in one import (engines, recognition, streaming, text,
// DSP, audio, models). The parts that bring large dependencies are products of their own and not included:
// ChorusCloud and ChorusGoogle (cloud providers: NIO, gRPC), ChorusHub (downloads: AsyncHTTPClient),
// ChorusServer (Hummingbird) and ChorusTesting (fakes for tests). Each part is also a product of its own
// (ChorusKokoro, ChorusStreaming, ...) for apps that want less. The engines come through ChorusEngines, which
// re-exports every engine it registers.
@_exported import ChorusAudio
@_exported import ChorusDSP
@_exported import ChorusEngines
@_exported import ChorusFiles
@_exported import ChorusGeneration
@_exported import ChorusModels
@_exported import ChorusONNX
@_exported import ChorusPhonemizer
@_exported import ChorusPieceModel
@_exported import ChorusRecognition
@_exported import ChorusSpeech
@_exported import ChorusStreaming
@_exported import ChorusText
@_exported import ChorusVAD
