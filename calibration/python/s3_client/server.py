"""A minimal S3-like HTTPS endpoint for client.py: HEAD and GET (with Range) of one in-memory .npy object of float32
(64 MiB by default), any bucket and key. Needs a self-signed cert.pem and key.pem in the working directory
(openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 2 -subj /CN=127.0.0.1).
  taskset -c 0 python3 server.py PORT [BYTES]"""
import http.server, ssl, sys, io, re, numpy as np, socketserver
n = int(sys.argv[2]) if len(sys.argv) > 2 else 64 << 20
buf = io.BytesIO(); np.save(buf, np.random.default_rng(1).standard_normal(n // 4, dtype=np.float32)); DATA = buf.getvalue()
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def headers_for(self, start, end, status):
        self.send_response(status)
        self.send_header("Content-Length", str(end - start))
        self.send_header("ETag", '"abc"'); self.send_header("Accept-Ranges", "bytes")
        self.send_header("Last-Modified", "Mon, 01 Jan 2024 00:00:00 GMT")
        self.send_header("Content-Type", "binary/octet-stream")
        if status == 206: self.send_header("Content-Range", f"bytes {start}-{end-1}/{len(DATA)}")
        self.end_headers()
    def rng(self):
        r = self.headers.get("Range")
        if not r: return 0, len(DATA), 200
        a, b = re.match(r"bytes=(\d+)-(\d*)", r).groups()
        return int(a), (int(b) + 1 if b else len(DATA)), 206
    def do_HEAD(self):
        self.headers_for(0, len(DATA), 200)
    def do_GET(self):
        s, e, st = self.rng(); self.headers_for(s, e, st)
        mv = memoryview(DATA)
        for i in range(s, e, 1 << 20): self.wfile.write(mv[i:min(e, i + (1 << 20))])
class S(socketserver.ThreadingMixIn, http.server.HTTPServer): daemon_threads = True
srv = S(("127.0.0.1", int(sys.argv[1])), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); ctx.load_cert_chain("cert.pem", "key.pem")
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
print("ready", len(DATA), flush=True); srv.serve_forever()
