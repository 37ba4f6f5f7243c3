#!/bin/sh
# Fuzzes every parser of untrusted files (bench/FuzzBench) with N structure-aware mutated inputs each,
# under a 1 GiB address-space limit (prlimit --as): a parser that crashes or tries to allocate past the
# limit fails its target. Prints inputs, parsed, refused and peak RSS per target.
#
#     bench/fuzz.sh [inputs per target, default 1000000] [debug|release, default release] [targets...]
set -u
inputs=${1:-1000000}
configuration=${2:-release}
shift 2 2>/dev/null || shift $#
targets=${*:-wav npy voice bpe tokenizer-json sentencepiece fst}
cd "$(dirname "$0")/.." || exit 1
swift build -c "$configuration" --product FuzzBench 2>&1 | grep -E "error|warning: .*(Sources|bench)/" 
binary="$(swift build -c "$configuration" --show-bin-path)/FuzzBench"
failed=0
for target in $targets; do
    if ! prlimit --as=1073741824 -- "$binary" "$target" "$inputs"; then
        echo "$target: FAILED (crash or over the 1 GiB limit), status $?"
        failed=1
    fi
done
exit $failed
