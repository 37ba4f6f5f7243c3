import ChorusModels

extension WeTextNormalizer {
    /// The grammars `scripts/setup.sh` installs in `<models>/wetext` (read by the CosyVoice front end);
    /// sizes and hashes are of the files setup.sh unpacks from its sha256-pinned wetext 0.1.8 wheel.
    public static let manifest = ModelManifest(
        id: "wetext", name: "wetext grammars",
        files: [
            .init("zh/tn/tagger.fst", size: 527_178, sha256: "cf341314c51f7ce59049f3b2c42f0ce8fd71e6d08d4d6969613aad384a5e2ae8",
                  from: .wheel(wheel, member: "wetext/fsts/zh/tn/tagger.fst")),
            .init("zh/tn/verbalizer.fst", size: 1_069_758,
                  sha256: "5a13cd679dd54637d12d2bd1bd33ee2165d91c867e14468c93195af02256e5da",
                  from: .wheel(wheel, member: "wetext/fsts/zh/tn/verbalizer.fst")),
            .init("en/tn/tagger.fst", size: 5_645_674,
                  sha256: "245e2dc9174cdd007a8e9e50f3339773d1adbbc7535b71cf67478dc1683cc3ec",
                  from: .wheel(wheel, member: "wetext/fsts/en/tn/tagger.fst")),
            .init("en/tn/verbalizer.fst", size: 6_398_822,
                  sha256: "03155c88f317b2795969e264c19f87faf98b9853d5ac631e419bacdc3b3ee15a",
                  from: .wheel(wheel, member: "wetext/fsts/en/tn/verbalizer.fst")),
            .init("LICENSE", size: 11_357, sha256: "c71d239df91726fc519c6eb72d318ec65820627232b2f796219e87dcf35d0ab4",
                  optionalFor: "the licence text",
                  from: .wheel(wheel, member: "wetext-0.1.8.dist-info/licenses/LICENSE")),
        ],
        source: "PyPI: wetext 0.1.8 (wetext/fsts, Chinese and English tn)",
        licence: "Apache-2.0",
        installation: .pull("wetext"), completionStamp: "wetext-0.1.8")

    /// The wheel the grammars come from (hash and size as PyPI publishes them).
    static let wheel = PyPIWheel(
        package: "wetext", version: "0.1.8", filename: "wetext-0.1.8-py3-none-any.whl",
        sha256: "b2083e7f38ac38fcbecdf7aec6ac6f0e3d1a11b763facfa4daabc12138215454", size: 5_071_604)
}
