#!/bin/bash
# The image's health check: GET /healthz must answer 200 (a stopped internal part answers 503).
# Bash's /dev/tcp, as the slim image has no curl.
set -euo pipefail
exec 3<>"/dev/tcp/127.0.0.1/${GITLORE_HEALTH_PORT:-3000}"
printf 'GET /healthz HTTP/1.0\r\nHost: localhost\r\n\r\n' >&3
read -r -t 4 _ status _ <&3
[ "$status" = "200" ]
