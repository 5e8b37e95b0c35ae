#!/bin/sh
# Starts the audiobookshelf-mcp binary for this machine's system and CPU, out
# of the MCP Bundle it was unpacked from (manifest.json runs it on macOS and
# Linux; Windows starts its x64 executable directly, which hands off to the
# arm64 one on an Arm machine). Written by hand; packed by
# `make release` (cmd/release).
dir=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd) || exit 1
case "$(uname -s)" in
Darwin) os=darwin ;;
Linux) os=linux ;;
*)
	echo "audiobookshelf-mcp: this bundle has no binary for $(uname -s)" >&2
	exit 1
	;;
esac
case "$(uname -m)" in
x86_64 | amd64) arch=amd64 ;;
arm64 | aarch64) arch=arm64 ;;
*)
	echo "audiobookshelf-mcp: this bundle has no binary for $(uname -m)" >&2
	exit 1
	;;
esac
bin="$dir/$os-$arch/audiobookshelf-mcp"
if [ ! -f "$bin" ]; then
	echo "audiobookshelf-mcp: this bundle has no binary for $os-$arch" >&2
	exit 1
fi
# An unpacker that drops file modes leaves the binary not executable.
[ -x "$bin" ] || chmod +x "$bin" 2>/dev/null
exec "$bin" "$@"
