#!/usr/bin/env bash
# Regenerates Sources/ChorusGoogle/Generated from Protos/ (run by hand after changing a .proto; the
# output is committed, so neither a build nor CI runs protoc or a build plugin).
#
# protoc comes from Debian's protobuf-compiler; protoc-gen-swift (apple/swift-protobuf) and
# protoc-gen-grpc-swift-2 (grpc/grpc-swift-protobuf) are built from the versions Package.swift
# resolves, in their own scratch folder, so the generated code matches the runtime it links.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v protoc >/dev/null; then
    echo "protoc is missing: apt-get install protobuf-compiler" >&2
    exit 1
fi

scratch=.build-protoc
swift build --scratch-path "$scratch" --product protoc-gen-swift
swift build --scratch-path "$scratch" --product protoc-gen-grpc-swift-2
bin=$(swift build --scratch-path "$scratch" --show-bin-path)

out=Sources/ChorusGoogle/Generated
rm -rf "$out"
mkdir -p "$out"
# Package visibility: ChorusGoogle and its tests (the fake server) use the messages; apps see only
# the provider.
protoc \
    --proto_path=Protos \
    --plugin=protoc-gen-swift="$bin/protoc-gen-swift" \
    --plugin=protoc-gen-grpc-swift="$bin/protoc-gen-grpc-swift-2" \
    --swift_out="$out" --swift_opt=Visibility=Package --swift_opt=FileNaming=DropPath \
    --grpc-swift_out="$out" --grpc-swift_opt=Visibility=Package --grpc-swift_opt=FileNaming=DropPath \
    --grpc-swift_opt=Client=true --grpc-swift_opt=Server=true \
    google/cloud/texttospeech/v1/cloud_tts.proto
echo "protoc $(protoc --version | cut -d' ' -f2), wrote:"
ls "$out"
