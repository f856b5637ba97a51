#!/bin/sh
# Removes the Burrow daemon and binary; data stays unless --purge is given (volumes never).
set -eu
if [ "$(id -u)" -ne 0 ]; then echo "uninstall.sh: run with sudo" >&2; exit 1; fi
PLIST=/Library/LaunchDaemons/com.burrow.server.plist
launchctl bootout system "$PLIST" 2>/dev/null || true
rm -f "$PLIST" /usr/local/bin/burrow
if [ "${1:-}" = "--purge" ]; then
  rm -rf "${BURROW_CONFIG_DIR:-/Library/Application Support/Burrow}" "${BURROW_CACHE_DIR:-/Library/Caches/Burrow}" /Library/Logs/Burrow
fi
echo "Burrow is uninstalled."
