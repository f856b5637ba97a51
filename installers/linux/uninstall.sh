#!/bin/sh
# Removes the Burrow service and binary. Data stays unless --purge is given
# (then CONFIG_DIR and CACHE_DIR are deleted; volumes are never touched).
set -eu
if [ "$(id -u)" -ne 0 ]; then echo "uninstall.sh: run as root (sudo)" >&2; exit 1; fi
CONFIG_DIR=${BURROW_CONFIG_DIR:-/var/lib/burrow}
CACHE_DIR=${BURROW_CACHE_DIR:-/var/cache/burrow}
systemctl disable --now burrow.service 2>/dev/null || true
rm -f /etc/systemd/system/burrow.service /usr/local/bin/burrow
systemctl daemon-reload
if [ "${1:-}" = "--purge" ]; then
  rm -rf "$CONFIG_DIR" "$CACHE_DIR" /etc/burrow
  userdel "${BURROW_USER:-burrow}" 2>/dev/null || true
fi
echo "Burrow is uninstalled."
