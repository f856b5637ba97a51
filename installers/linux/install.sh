#!/bin/sh
# Installs Burrow as a systemd service running as its own user.
#   sudo ./install.sh [path/to/burrow-linux-x64]
# Settings (environment): BURROW_PORT (3000), BURROW_VOLUME_ROOT (/srv/burrow),
# BURROW_CONFIG_DIR (/var/lib/burrow), BURROW_CACHE_DIR (/var/cache/burrow), BURROW_USER (burrow).
# Run again to upgrade: the binary is replaced, data and settings stay.
set -eu

BINARY_SOURCE=${1:-}
if [ -z "$BINARY_SOURCE" ]; then
  case "$(uname -m)" in
    x86_64|amd64) BINARY_SOURCE="$(dirname "$0")/burrow-linux-x64" ;;
    aarch64|arm64) BINARY_SOURCE="$(dirname "$0")/burrow-linux-arm64" ;;
    *) echo "install.sh: no Burrow build for $(uname -m)" >&2; exit 1 ;;
  esac
fi
PORT=${BURROW_PORT:-3000}
VOLUME_ROOT=${BURROW_VOLUME_ROOT:-/srv/burrow}
CONFIG_DIR=${BURROW_CONFIG_DIR:-/var/lib/burrow}
CACHE_DIR=${BURROW_CACHE_DIR:-/var/cache/burrow}
SERVICE_USER=${BURROW_USER:-burrow}
BINARY=/usr/local/bin/burrow
UNIT=/etc/systemd/system/burrow.service

if [ "$(id -u)" -ne 0 ]; then echo "install.sh: run as root (sudo)" >&2; exit 1; fi
if [ ! -f "$BINARY_SOURCE" ]; then echo "install.sh: $BINARY_SOURCE not found" >&2; exit 1; fi
command -v systemctl >/dev/null 2>&1 || { echo "install.sh: systemd is required" >&2; exit 1; }
case "$PORT" in ''|*[!0-9]*) echo "install.sh: BURROW_PORT must be a number" >&2; exit 1 ;; esac

# Verify the download when its checksum file is beside it.
SUMS="$(dirname "$BINARY_SOURCE")/SHA256SUMS"
if [ -f "$SUMS" ] && command -v sha256sum >/dev/null 2>&1; then
  (cd "$(dirname "$BINARY_SOURCE")" && grep " $(basename "$BINARY_SOURCE")\$" SHA256SUMS | sha256sum -c -) \
    || { echo "install.sh: checksum mismatch for $BINARY_SOURCE" >&2; exit 1; }
fi

# A system user with no login shell and no home of its own.
if ! id "$SERVICE_USER" >/dev/null 2>&1; then
  useradd --system --user-group --no-create-home --home-dir "$CONFIG_DIR" --shell /usr/sbin/nologin "$SERVICE_USER"
fi

install -d -m 0750 -o "$SERVICE_USER" -g "$SERVICE_USER" "$CONFIG_DIR" "$CACHE_DIR"
# The volume root may be an existing disk: create it only when missing, never chown a tree.
if [ ! -d "$VOLUME_ROOT" ]; then
  install -d -m 0750 -o "$SERVICE_USER" -g "$SERVICE_USER" "$VOLUME_ROOT" "$VOLUME_ROOT/Files"
fi
install -d -m 0755 /etc/burrow
[ -f /etc/burrow/burrow.env ] || printf '# Burrow settings (KEY=value), see the README variable table.\n' > /etc/burrow/burrow.env

# Replace the binary atomically (a running service keeps its old inode until restart).
install -m 0755 "$BINARY_SOURCE" "$BINARY.new"
mv -f "$BINARY.new" "$BINARY"

sed -e "s#@BINARY@#$BINARY#g" -e "s#@CONFIG_DIR@#$CONFIG_DIR#g" -e "s#@CACHE_DIR@#$CACHE_DIR#g" \
    -e "s#@VOLUME_ROOT@#$VOLUME_ROOT#g" -e "s#@PORT@#$PORT#g" -e "s#^User=.*#User=$SERVICE_USER#" \
    -e "s#^Group=.*#Group=$SERVICE_USER#" "$(dirname "$0")/burrow.service" > "$UNIT.new"
mv -f "$UNIT.new" "$UNIT"

systemctl daemon-reload
systemctl enable burrow.service >/dev/null
systemctl restart burrow.service
echo "Burrow is installed: http://$(hostname):$PORT/ (service: systemctl status burrow)"
echo "Volumes: each folder in $VOLUME_ROOT; make them readable/writable by user $SERVICE_USER."
