// `import Chorus`: the whole toolkit in one import, for apps that want it all. Each part is also a
// product of its own (ChorusKokoro, ChorusStreaming, ...) for apps that want less.
@_exported import ChorusAudio
@_exported import ChorusChatterbox
@_exported import ChorusCosyVoice
@_exported import ChorusEngines
@_exported import ChorusKokoro
@_exported import ChorusModels
@_exported import ChorusNeuTTS
@_exported import ChorusONNX
@_exported import ChorusPiper
@_exported import ChorusRecognition
@_exported import ChorusSpeech
@_exported import ChorusStreaming
@_exported import ChorusVAD
