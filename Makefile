# The two commands a new machine needs (see README.md): `make demo` and `make test`; `make install` after them.
SWIFT ?= swift
PREFIX ?= /usr/local
DEMO_TEXT ?= Hello from Chorus. Everything you hear was made on this machine, with no server at all.

.PHONY: setup build demo test install clean realsize

# Set-up builds chorus to pull the models with it. `make demo` speaks with that debug build, which `make
# test`'s test build then contains, so the two commands build chorus once: nearly all of a synthesis is
# ONNX Runtime's, the same library in either configuration. `make install` builds the release.
setup:
	scripts/setup.sh

build:
	scripts/setup.sh --release

demo: setup
	bin=$$($(SWIFT) build --show-bin-path) && \
	  $$bin/chorus speak --engine kokoro "$(DEMO_TEXT)" -o demo-kokoro.wav && \
	  $$bin/chorus speak --engine piper "$(DEMO_TEXT)" -o demo-piper.wav
	@echo "wrote demo-kokoro.wav and demo-piper.wav"

# The tests run many ONNX Runtime sessions at once, whose idle threads would spin on cores the others need
# (CHORUS_ORT_SPINNING=0: 15% less time and 20% less CPU on the heaviest suites, see DEVELOPING.md).
# NeuTTS's goldens were made with the espeak-ng its wheel bundles (1.52.0.1); the library is chosen when a
# process starts, so NeuTTS's tests run in a second process with it and every other test with the system's.
# The tests are built once, without the benchmarks (bench/, which .ci/run builds after the tests), and both
# runs take that build.
#
# Then the golden suites once more (GOLDEN_TESTS, NEUTTS_GOLDEN_TESTS), every ONNX Runtime session at one intra-op
# thread and every draw's logits moved by 1e-5 of their largest |logit| against its nearest boundary
# (CHORUS_TEST_PERTURB=aimed:1e-5, LogitPerturbation.aimed): the paths no GoldenRun argument reaches (whole
# pipelines, streams, the engines' chunks) draw their golden's tokens only if every draw keeps the margin its golden
# claims, so a thin one fails here on any machine, whatever its CPU or core count. The tests that take GoldenRun
# arguments (GOLDEN_RUN_TESTS) ran that perturbation at one thread in the first run already and are skipped.
GOLDEN_TESTS = ChorusCosyVoiceTests\.(ParityTests|UpstreamTests|ChunkMaskTests|CrossLingualTests|StreamingExecutorTests)|ChorusChatterboxTests\.(GenerationTests|HalfPrecisionTests|DecoderTests|SpeechEncoderTests|EngineTests)
NEUTTS_GOLDEN_TESTS = ChorusNeuTTSTests\.(GenerationTests|EngineTests)
GOLDEN_RUN_TESTS = sampledTokensSurviveEveryGoldenRun|speechTokensEqualUpstream|tokensEqualUpstream|chunkedAudioEqualsUpstream|chunkedTokensEqualUpstreamOnFloat16Graphs|speechWithTheClipsVoiceEqualsUpstream
GOLDEN_RUN = CHORUS_ORT_SPINNING=0 CHORUS_ORT_INTRA_OP_THREADS=1 CHORUS_TEST_PERTURB=aimed:1e-5

test:
	scripts/setup.sh --espeak-1.52
	$(SWIFT) build --product ChorusPackageTests
	CHORUS_ORT_SPINNING=0 $(SWIFT) test --skip-build --skip 'ChorusNeuTTSTests\.'
	espeak=$$(scripts/setup.sh --espeak-1.52-folder) && CHORUS_ORT_SPINNING=0 \
	  LD_LIBRARY_PATH=$$espeak/lib$${LD_LIBRARY_PATH:+:$$LD_LIBRARY_PATH} ESPEAK_DATA_PATH=$$espeak/espeak-ng-data \
	  $(SWIFT) test --skip-build --filter 'ChorusNeuTTSTests\.'
	$(GOLDEN_RUN) $(SWIFT) test --skip-build --filter '$(GOLDEN_TESTS)' --skip '$(GOLDEN_RUN_TESTS)'
	espeak=$$(scripts/setup.sh --espeak-1.52-folder) && $(GOLDEN_RUN) \
	  LD_LIBRARY_PATH=$$espeak/lib$${LD_LIBRARY_PATH:+:$$LD_LIBRARY_PATH} ESPEAK_DATA_PATH=$$espeak/espeak-ng-data \
	  $(SWIFT) test --skip-build --filter '$(NEUTTS_GOLDEN_TESTS)' --skip '$(GOLDEN_RUN_TESTS)'

# Real-size stand-ins of CosyVoice 3, Chatterbox Turbo, NeuTTS and FastConformer (seeded random weights at the
# published sizes, a few GB each, PyTorch in their own venvs): for bench/realsize.py and the user path at real size,
# never for `make test`. REALSIZE_DIR defaults to ~/.cache/chorus/realsize (scripts/realsize/build.sh).
realsize:
	scripts/realsize/build.sh $(REALSIZE_DIR)

# chorus in $(PREFIX)/bin, its resource bundles and the ONNX Runtime library in $(PREFIX)/lib/chorus, where
# the release build looks for the library (an rpath of $$ORIGIN/../lib/chorus).
install: build
	install -d "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(PREFIX)/lib/chorus"
	install -m 755 .build/release/chorus "$(DESTDIR)$(PREFIX)/bin/chorus"
	cp -P .deps/onnxruntime/lib/libonnxruntime.so* "$(DESTDIR)$(PREFIX)/lib/chorus/"
	for bundle in .build/release/*.resources; do \
	  [ -d "$$bundle" ] || continue; rm -rf "$(DESTDIR)$(PREFIX)/bin/$$(basename "$$bundle")"; \
	  cp -R "$$bundle" "$(DESTDIR)$(PREFIX)/bin/"; done
	@echo "installed $(PREFIX)/bin/chorus"

clean:
	rm -rf .build
