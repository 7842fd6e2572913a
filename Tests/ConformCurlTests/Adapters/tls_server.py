#!/usr/bin/env python3
"""HTTPS test server: makes a self-signed certificate with the openssl command, serves one JSON document,
and prints its port on the first line of standard output. It exits when its standard input closes, so it
never outlives the test process, even one that is killed."""
import http.server, os, signal, ssl, subprocess, sys, tempfile, threading

# A parent that ignores SIGTERM (as `conform serve` does while it runs) passes that on; take the default back.
signal.signal(signal.SIGTERM, signal.SIG_DFL)

work = tempfile.mkdtemp()
cert, key = os.path.join(work, "cert.pem"), os.path.join(work, "key.pem")
subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert],
               check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b'{"tls":true}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass

server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(cert, key)
server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)


def exit_when_parent_goes():
    sys.stdin.read()
    os._exit(0)


threading.Thread(target=exit_when_parent_goes, daemon=True).start()
try:
    server.serve_forever()
except KeyboardInterrupt:
    pass
