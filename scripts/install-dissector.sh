#!/usr/bin/env bash
# Installs the MetaRoCE Wireshark dissector (contrib/metaroce/tools/wireshark/metaroce.lua) into
# the user's personal Lua plugin folder, where Wireshark and tshark load it at start-up without
# -X lua_script: (~/.local/lib/wireshark/plugins on Linux; the folder is asked from tshark, so
# other versions and platforms get theirs). It copies, so the installed file does not change
# when this clone does: run it again after an update.
#
#   scripts/install-dissector.sh              install (or update)
#   scripts/install-dissector.sh --uninstall  remove it again
#
# Without installing: tshark -X lua_script:contrib/metaroce/tools/wireshark/metaroce.lua -r f.pcap
set -euo pipefail
source "$(dirname "$0")/common.sh"

lua="$ROOT/contrib/metaroce/tools/wireshark/metaroce.lua"
if ! command -v tshark >/dev/null; then
  echo "install-dissector: tshark is not installed (scripts/install-deps.sh installs it)" >&2
  exit 1
fi
folder="$(tshark -G folders 2>/dev/null | sed -n 's/^Personal Lua Plugins:[[:space:]]*//p')"
folder="${folder:-$HOME/.local/lib/wireshark/plugins}"

if [ "${1:-}" = "--uninstall" ]; then
  rm -f "$folder/metaroce.lua"
  echo "install-dissector: removed $folder/metaroce.lua"
  exit 0
fi
mkdir -p "$folder"
install -m 0644 "$lua" "$folder/metaroce.lua"
echo "install-dissector: installed $folder/metaroce.lua (Wireshark and tshark load it at start)"
