import ChorusModels

extension SileroVAD {
    /// The model `scripts/setup.sh` installs in `<models>/silero-vad`; sizes and hashes are of the
    /// files setup.sh unpacks from its sha256-pinned silero-vad 6.2.3 wheel.
    public static let manifest = ModelManifest(
        id: "silero-vad", name: "Silero VAD",
        files: [
            .init("silero_vad.onnx", size: 2_327_524,
                  sha256: "1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3",
                  from: .wheel(wheel, member: "silero_vad/data/silero_vad.onnx")),
            .init("LICENSE", size: 1_075, sha256: "2e63e9a38b6e8fc0c7bc37ce174caca1862870856c6daf5697cfb785e925520b",
                  optionalFor: "the licence text", from: .wheel(wheel, member: "silero_vad-6.2.3.dist-info/licenses/LICENSE")),
        ],
        source: "PyPI: silero-vad 6.2.3 (silero_vad/data/silero_vad.onnx)",
        licence: "MIT (Silero Team)",
        installation: .pull("silero-vad"), completionStamp: "silero-vad-6.2.3")

    /// The wheel the model comes from (hash and size as PyPI publishes them).
    static let wheel = PyPIWheel(
        package: "silero-vad", version: "6.2.3", filename: "silero_vad-6.2.3-py3-none-any.whl",
        sha256: "7b7f5436cfcb02fae583a05b512ea96467fd449fe54cb49a5e4f06c51a1e43b8", size: 11_317_527)
}
