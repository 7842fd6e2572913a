# Starts nginx on loopback serving one static JSON file; sets NGINX_URL and NGINX_PID. Needs WORK (a temp dir).
# Usage: start_static_nginx [NAME [BODY]]   (default: static.json with a registration-like document)
# With NGINX_TLS_CERT and NGINX_TLS_KEY set (PEM files), it serves HTTPS with that certificate instead.
# NGINX_SERVER_EXTRA, when set, is added to the server block as it is (e.g. directives for POST answers).
start_static_nginx() {
    NGINX_FILE="${1:-static.json}"
    NGINX_BODY='{"pushRegId":"0f8fad5b-d9cb-469f-a165-70867728950e","regEnabled":true,"isPrimary":false}'
    [ "$#" -ge 2 ] && NGINX_BODY="$2"
    NGINX_PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')"
    mkdir -p "$WORK/www" "$WORK/nginx"
    chmod 755 "$WORK" "$WORK/www"
    printf '%s' "$NGINX_BODY" >"$WORK/www/$NGINX_FILE"
    cat >"$WORK/nginx/nginx.conf" <<CONF
worker_processes 2;
daemon off;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $WORK/nginx/body;
    proxy_temp_path $WORK/nginx/proxy;
    fastcgi_temp_path $WORK/nginx/fastcgi;
    uwsgi_temp_path $WORK/nginx/uwsgi;
    scgi_temp_path $WORK/nginx/scgi;
    keepalive_requests 1000000;
    server {
        listen 127.0.0.1:$NGINX_PORT${NGINX_TLS_CERT:+ ssl};
        ${NGINX_TLS_CERT:+ssl_certificate $NGINX_TLS_CERT; ssl_certificate_key $NGINX_TLS_KEY;}
        root $WORK/www; default_type application/json;
        ${NGINX_SERVER_EXTRA:-}
    }
}
CONF
    /usr/sbin/nginx -c "$WORK/nginx/nginx.conf" -p "$WORK/nginx" 2>"$WORK/nginx/stderr" &
    NGINX_PID=$!
    NGINX_URL="http${NGINX_TLS_CERT:+s}://127.0.0.1:$NGINX_PORT/$NGINX_FILE"
    for _ in $(seq 50); do curl -kfsS "$NGINX_URL" >/dev/null 2>&1 && return 0; sleep 0.1; done
    echo "nginx did not start: $(cat "$WORK/nginx/stderr")" >&2
    return 1
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
