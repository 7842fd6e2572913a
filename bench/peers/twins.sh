# Starts nginx serving static twins of the four lifecycle answers (bench/peers/peers.py); sets BASE and NGINX_PID.
# Needs WORK (a temp dir) and bench/lib/nginx.sh. Usage: start_twins [PYTHON]
# The twins' locations go into the server block through NGINX_SERVER_EXTRA (the block's layout is nginx.sh's).
start_twins() {
    NGINX_SERVER_EXTRA="$("${1:-python3}" -c 'import sys; sys.path.insert(0, "bench/peers"); import peers; print(peers.nginx_locations())')"
    start_static_nginx static.json
    unset NGINX_SERVER_EXTRA
    BASE="http://127.0.0.1:$NGINX_PORT"
    for _ in $(seq 50); do curl -fsS -X POST "$BASE/mobile/1/appinstance" >/dev/null 2>&1 && return 0; sleep 0.1; done
    echo "nginx did not serve the twins: $(cat "$WORK/nginx/stderr")" >&2
    return 1
}
