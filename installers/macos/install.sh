#!/bin/sh
# Installs Burrow as a launchd daemon running as the user who runs this script (via sudo),
# so it can read that user's folders.
#   sudo ./install.sh [path/to/burrow-macos-arm64]
# Settings (environment): BURROW_PORT (3000), BURROW_VOLUME_ROOT (~/Burrow),
# BURROW_CONFIG_DIR (/Library/Application Support/Burrow), BURROW_CACHE_DIR (/Library/Caches/Burrow).
set -eu
if [ "$(id -u)" -ne 0 ]; then echo "install.sh: run with sudo" >&2; exit 1; fi
RUN_AS=${SUDO_USER:-$(stat -f %Su /dev/console)}
HOME_OF_USER=$(dscl . -read "/Users/$RUN_AS" NFSHomeDirectory | awk '{print $2}')
case "$(uname -m)" in
  arm64) DEFAULT_BINARY="$(dirname "$0")/burrow-macos-arm64" ;;
  *) DEFAULT_BINARY="$(dirname "$0")/burrow-macos-x64" ;;
esac
BINARY_SOURCE=${1:-$DEFAULT_BINARY}
PORT=${BURROW_PORT:-3000}
VOLUME_ROOT=${BURROW_VOLUME_ROOT:-$HOME_OF_USER/Burrow}
CONFIG_DIR=${BURROW_CONFIG_DIR:-/Library/Application Support/Burrow}
CACHE_DIR=${BURROW_CACHE_DIR:-/Library/Caches/Burrow}
LOG_DIR=/Library/Logs/Burrow
BINARY=/usr/local/bin/burrow
PLIST=/Library/LaunchDaemons/com.burrow.server.plist

[ -f "$BINARY_SOURCE" ] || { echo "install.sh: $BINARY_SOURCE not found" >&2; exit 1; }
mkdir -p "$CONFIG_DIR" "$CACHE_DIR" "$LOG_DIR" /usr/local/bin
chown "$RUN_AS" "$CONFIG_DIR" "$CACHE_DIR" "$LOG_DIR"
chmod 0750 "$CONFIG_DIR" "$CACHE_DIR"
if [ ! -d "$VOLUME_ROOT" ]; then mkdir -p "$VOLUME_ROOT/Files"; chown -R "$RUN_AS" "$VOLUME_ROOT"; fi

# Stop a running copy, replace the binary, and sign it: macOS kills unsigned arm64 programs,
# and the signature of the Node inside was broken when Burrow was injected into it.
launchctl bootout system "$PLIST" 2>/dev/null || true
cp "$BINARY_SOURCE" "$BINARY.new"
chmod 0755 "$BINARY.new"
xattr -d com.apple.quarantine "$BINARY.new" 2>/dev/null || true
codesign --force --sign - "$BINARY.new"
mv -f "$BINARY.new" "$BINARY"

sed -e "s#@BINARY@#$BINARY#g" -e "s#@USER@#$RUN_AS#g" -e "s#@CONFIG_DIR@#$CONFIG_DIR#g" \
    -e "s#@CACHE_DIR@#$CACHE_DIR#g" -e "s#@VOLUME_ROOT@#$VOLUME_ROOT#g" -e "s#@PORT@#$PORT#g" \
    -e "s#@LOG_DIR@#$LOG_DIR#g" "$(dirname "$0")/com.burrow.server.plist" > "$PLIST"
chown root:wheel "$PLIST"
chmod 0644 "$PLIST"
launchctl bootstrap system "$PLIST"
echo "Burrow is installed: http://localhost:$PORT/ (log: $LOG_DIR/burrow.log)"
