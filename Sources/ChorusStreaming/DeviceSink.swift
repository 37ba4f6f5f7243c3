#if canImport(CChorusAlsa)
import CChorusAlsa
#endif

/// The sound output of the platform: ALSA on Linux, `AVAudioEngine` on Apple platforms.
public enum DeviceSink {
    /// A sink for `device` (an ALSA device name on Linux; ignored on Apple platforms, which play on
    /// the current output). Opening it throws `AudioSinkError.deviceUnavailable` when there is none.
    public static func make(device: String? = nil) throws -> any AudioSink {
        #if canImport(CChorusAlsa)
        return AlsaSink(device: device ?? "default")
        #elseif canImport(AVFoundation)
        return AVAudioEngineSink()
        #else
        throw AudioSinkError.deviceUnavailable(
            device: device ?? "sound output", reason: "Chorus has no device sink for this platform",
            suggestion: AudioSinkError.noDeviceSuggestion)
        #endif
    }
}
