# The two commands a new machine needs (see README.md): `make demo` and `make test`.
SWIFT ?= swift
DEMO_TEXT ?= Hello from Chorus. Everything you hear was made on this machine, with no server at all.

.PHONY: setup build demo test clean

setup:
	scripts/setup.sh

build: setup
	$(SWIFT) build -c release --product chorus

demo: build
	.build/release/chorus speak --engine kokoro "$(DEMO_TEXT)" -o demo-kokoro.wav
	.build/release/chorus speak --engine piper "$(DEMO_TEXT)" -o demo-piper.wav
	@echo "wrote demo-kokoro.wav and demo-piper.wav"

test: setup
	$(SWIFT) test

clean:
	rm -rf .build
