# Starts nginx serving static twins of the four lifecycle answers (bench/peers/peers.py); sets BASE and NGINX_PID.
# Needs WORK (a temp dir) and bench/lib/nginx.sh. Usage: start_twins [PYTHON]
start_twins() {
    LOCATIONS="$("${1:-python3}" -c 'import sys; sys.path.insert(0, "bench/peers"); import peers; print(peers.nginx_locations())')"
    start_static_nginx static.json
    kill "$NGINX_PID"; wait "$NGINX_PID" 2>/dev/null || true
    awk -v loc="$LOCATIONS" '{ sub(/default_type application\/json; }/, "default_type application/json;\n" loc "\n}"); print }' \
        "$WORK/nginx/nginx.conf" >"$WORK/nginx/peers.conf"
    /usr/sbin/nginx -c "$WORK/nginx/peers.conf" -p "$WORK/nginx" 2>"$WORK/nginx/stderr" &
    NGINX_PID=$!
    BASE="http://127.0.0.1:$NGINX_PORT"
    for _ in $(seq 50); do curl -fsS -X POST "$BASE/mobile/1/appinstance" >/dev/null 2>&1 && return 0; sleep 0.1; done
    echo "nginx did not start: $(cat "$WORK/nginx/stderr")" >&2
    return 1
}
