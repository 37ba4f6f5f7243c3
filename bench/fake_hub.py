#!/usr/bin/env python3
"""A local stand-in for the Hugging Face hub for bench/models_*.py (standard library only).

Serves one Piper voice of rhasspy/piper-voices at /rhasspy/piper-voices/resolve/main/<path> the way the
hub serves LFS files: a 302 to /cdn/<sha256> with X-Linked-Etag and X-Linked-Size; the CDN honours
`Range: bytes=N-` (206, or 416 past the end) and sends with sendfile(2). `--rate` caps bytes per second
per connection (0: no cap). Prints the port on its first line.
"""
import argparse, hashlib, http.server, os, socketserver, sys, time

VOICE = "en_US-bench-medium"
FOLDER = "en/en_US/bench/medium"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True, help="file served as the voice's .onnx")
    parser.add_argument("--rate", type=float, default=0, help="bytes per second per connection, 0 for no cap")
    args = parser.parse_args()
    config = os.path.join(os.path.dirname(args.model), "bench-voice.onnx.json")
    with open(config, "w") as out:
        out.write('{"audio": {"sample_rate": 22050}}\n')
    files = {}
    for path, local in ((f"{FOLDER}/{VOICE}.onnx", args.model), (f"{FOLDER}/{VOICE}.onnx.json", config)):
        digest = hashlib.sha256()
        with open(local, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        files[path] = (local, digest.hexdigest(), os.path.getsize(local))
    by_hash = {h: (local, size) for local, h, size in files.values()}

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_):
            pass

        def do_GET(self):
            prefix = "/rhasspy/piper-voices/resolve/main/"
            if self.path.startswith(prefix):
                entry = files.get(self.path[len(prefix):])
                if entry is None:
                    return self.empty(404)
                self.send_response(302)
                self.send_header("Location", f"/cdn/{entry[1]}")
                self.send_header("X-Linked-Etag", f'"{entry[1]}"')
                self.send_header("X-Linked-Size", str(entry[2]))
                self.send_header("Content-Length", "0")
                return self.end_headers()
            if self.path.startswith("/cdn/") and self.path[5:] in by_hash:
                local, size = by_hash[self.path[5:]]
                start = 0
                value = self.headers.get("Range", "")
                if value.startswith("bytes="):
                    start = int(value[6:].split("-")[0])
                    if start >= size:
                        self.send_response(416)
                        self.send_header("Content-Range", f"bytes */{size}")
                        self.send_header("Content-Length", "0")
                        return self.end_headers()
                    self.send_response(206)
                    self.send_header("Content-Range", f"bytes {start}-{size - 1}/{size}")
                else:
                    self.send_response(200)
                self.send_header("Content-Length", str(size - start))
                self.end_headers()
                with open(local, "rb") as f:
                    if args.rate <= 0:
                        self.connection.sendfile(f, start, size - start)
                        return
                    f.seek(start)
                    began, sent = time.monotonic(), 0
                    for block in iter(lambda: f.read(65536), b""):
                        self.wfile.write(block)
                        sent += len(block)
                        ahead = sent / args.rate - (time.monotonic() - began)
                        if ahead > 0:
                            time.sleep(ahead)
                return
            self.empty(404)

        def empty(self, status):
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True
        allow_reuse_address = True

    server = Server(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
