#!/usr/bin/env python3
"""The real OpenAI Python SDK as a client of `chorus serve` on 127.0.0.1.

    python3 -m venv /tmp/chorus-eval && /tmp/chorus-eval/bin/pip install openai
    swift build --product chorus
    /tmp/chorus-eval/bin/python eval/openai_sdk_check.py [--chorus .build/debug/chorus] [--engine piper]

Starts `chorus serve --api-key ...` on a free loopback port, then with `openai.OpenAI(base_url=...)`:
streams speech to a WAV file with `audio.speech.with_streaming_response.create` and checks it is a
playable WAV of the expected length; asks for pcm, mp3, flac, opus and aac (decoded by ffmpeg) and for WAV and
FLAC sent whole (their stated length); checks that OpenAI's voice alloy is answered
and names the voice that spoke, and that an unknown voice raises the SDK's BadRequestError with the server's message; transcribes the WAV with `audio.transcriptions.create`
when the server has a recogniser (else prints the server's 404 reason). Prints one line per check
and exits non-zero if one fails.
"""
import argparse
import socket
import subprocess
import sys
import tempfile
import time
import wave
from pathlib import Path

import openai

ROOT = Path(__file__).resolve().parent.parent
KEY = "eval-key-not-secret"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chorus", default=str(ROOT / ".build/debug/chorus"))
    parser.add_argument("--engine", default="piper")
    parser.add_argument("--voice", default=None, help="default: the engine's first voice")
    args = parser.parse_args()
    port = free_port()
    server = subprocess.Popen([args.chorus, "serve", "--host", "127.0.0.1", "--port", str(port), "--api-key", KEY],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    failures = 0

    def check(name, ok, detail=""):
        nonlocal failures
        failures += 0 if ok else 1
        print(f"{'ok  ' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}")

    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key=KEY)
        voices = client.get("/audio/voices", cast_to=object, options={"params": {"engine": args.engine}})
        voice = args.voice or voices["voices"][0]["id"]
        text = "The quick brown fox jumps over the lazy dog. Then it runs away."
        out = Path(tempfile.mkdtemp()) / "speech.wav"
        started = time.monotonic()
        with client.audio.speech.with_streaming_response.create(
                model=args.engine, voice=voice, input=text, response_format="wav") as response:
            response.stream_to_file(out)
        elapsed = time.monotonic() - started
        with wave.open(str(out), "rb") as audio:
            rate, width, channels = audio.getframerate(), audio.getsampwidth(), audio.getnchannels()
            frames = len(audio.readframes(10**9)) // (width * channels)
        seconds = frames / rate
        check("speech.with_streaming_response.create writes a playable WAV", width == 2 and channels == 1 and 2 < seconds < 15,
              f"{out} {rate} Hz, {seconds:.2f} s of audio in {elapsed:.2f} s")

        pcm = client.audio.speech.create(model=args.engine, voice=voice, input=text, response_format="pcm").content
        # Piper's durations vary a little from run to run (its noise), so only the scale is checked.
        check("pcm is 16-bit at 24 kHz", len(pcm) % 2 == 0 and 0.8 < len(pcm) / 48_000 / seconds < 1.25,
              f"{len(pcm) / 48_000:.2f} s at 24 kHz")

        # 64 kbit/s constant: 8000 bytes a second, starting with an MPEG frame sync.
        mp3 = client.audio.speech.create(model=args.engine, voice=voice, input=text, response_format="mp3").content
        check("mp3 is MPEG frames at 64 kbit/s", len(mp3) > 2 and mp3[0] == 0xFF and mp3[1] & 0xE0 == 0xE0
              and 0.8 < len(mp3) / 8_000 / seconds < 1.25, f"{len(mp3)} bytes, {len(mp3) / 8_000:.2f} s at 64 kbit/s")
        flac = client.audio.speech.create(model=args.engine, voice=voice, input=text, response_format="flac").content
        check("flac starts with its stream marker", flac[:4] == b"fLaC", f"{len(flac)} bytes")

        # Sent whole ("stream": false, Kokoro-FastAPI's field), WAV and FLAC state their real length.
        whole = client.audio.speech.create(model=args.engine, voice=voice, input=text, response_format="wav",
                                           extra_body={"stream": False}).content
        whole_path = out.with_name("whole.wav")
        whole_path.write_bytes(whole)
        with wave.open(str(whole_path), "rb") as audio:
            stated, actual = audio.getnframes(), len(audio.readframes(10**9)) // 2
            whole_rate = audio.getframerate()
        check("a WAV sent whole states its real length (Python's wave)", stated == actual and 0 < actual,
              f"{stated} frames stated, {actual} read, {actual / whole_rate:.2f} s")
        whole_flac = client.audio.speech.create(model=args.engine, voice=voice, input=text, response_format="flac",
                                                extra_body={"stream": False}).content
        info = int.from_bytes(whole_flac[18:26], "big")
        total, flac_rate = info & (2**36 - 1), info >> 44
        check("a FLAC sent whole states its total samples and an MD5", whole_flac[:4] == b"fLaC" and total > 0
              and whole_flac[26:42] != bytes(16), f"{total} samples at {flac_rate} Hz, {total / max(flac_rate, 1):.2f} s")

        # opus and aac, decoded by ffmpeg (Debian's) to 16-bit at 24 kHz, against the whole WAV's length.
        for response_format in ["opus", "aac"]:
            data = client.audio.speech.create(model=args.engine, voice=voice, input=text, response_format=response_format).content
            decoded = subprocess.run(["ffmpeg", "-v", "error", "-i", "pipe:0", "-f", "s16le", "-ac", "1", "-ar", "24000", "pipe:1"],
                                     input=data, capture_output=True)
            decoded_seconds = len(decoded.stdout) / 48_000
            reference = actual / whole_rate
            # The engine's own run-to-run variation (Piper's noise) and AAC's 1,024-sample priming allow 5% and 0.1 s.
            check(f"{response_format} decodes with ffmpeg to the WAV's length", decoded.returncode == 0
                  and abs(decoded_seconds - reference) <= 0.05 * reference + 0.1,
                  f"{len(data)} bytes, {decoded_seconds:.3f} s decoded against {reference:.3f} s"
                  + (f"; ffmpeg: {decoded.stderr.decode()[:200]}" if decoded.returncode else ""))

        with client.audio.speech.with_streaming_response.create(
                model="tts-1", voice="alloy", input="Hi there.", response_format="pcm") as response:
            spoke = response.headers.get("x-chorus-voice")
            audio = response.read()
        check("OpenAI's voice alloy is answered, X-Chorus-Voice naming the voice", bool(spoke) and len(audio) > 0,
              f"spoken by {spoke}, {len(audio) / 48_000:.2f} s")

        try:
            client.audio.speech.create(model=args.engine, voice="nobody-here", input="Hi.")
            check("an unknown voice raises BadRequestError", False, "no error")
        except openai.BadRequestError as error:
            check("an unknown voice raises BadRequestError", "Unknown voice 'nobody-here'" in str(error), str(error)[:120])

        try:
            with out.open("rb") as upload:
                transcript = client.audio.transcriptions.create(model="whisper-1", file=upload)
            check("transcriptions.create returns text", bool(transcript.text.strip()), repr(transcript.text))
        except openai.NotFoundError as error:
            print(f"skip transcriptions.create: the server has no recogniser ({str(error)[:160]})")
    finally:
        server.terminate()
        server.wait(timeout=60)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
