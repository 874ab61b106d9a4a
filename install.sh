#!/bin/sh
# Installs indoubt, its manual (man/: sections 1, 5 and 7) and its shell completions
# (completions/) under PREFIX (default /usr/local), below DESTDIR if set (for packaging).
# INDOUBT_BIN=path installs that binary instead of building target/release/indoubt.
#
#   ./install.sh                    # as root: /usr/local/bin/indoubt, man indoubt-check
#   PREFIX=$HOME/.local ./install.sh
set -eu
# Paths given relative to where it is run from, before it moves to the repository.
absolute() { case $1 in /*|'') printf '%s' "$1" ;; *) printf '%s/%s' "$PWD" "$1" ;; esac; }
prefix=${PREFIX:-/usr/local}
case $prefix in /*) ;; *) echo "install.sh: PREFIX must be an absolute path, not $prefix" >&2; exit 1 ;; esac
root=$(absolute "${DESTDIR:-}")$prefix
bin=$(absolute "${INDOUBT_BIN:-}")
cd "$(dirname "$0")"
if [ -z "$bin" ]; then
  cargo build --release --locked --bin indoubt
  bin=target/release/indoubt
fi
[ -x "$bin" ] || { echo "install.sh: $bin is not an executable" >&2; exit 1; }
install -d "$root/bin"
install -m 0755 "$bin" "$root/bin/indoubt"
for section in 1 5 7; do
  install -d "$root/share/man/man$section"
  install -m 0644 man/*."$section" "$root/share/man/man$section/"
done
install -d "$root/share/bash-completion/completions" "$root/share/zsh/site-functions" \
  "$root/share/fish/vendor_completions.d"
install -m 0644 completions/indoubt.bash "$root/share/bash-completion/completions/indoubt"
install -m 0644 completions/_indoubt "$root/share/zsh/site-functions/_indoubt"
install -m 0644 completions/indoubt.fish "$root/share/fish/vendor_completions.d/indoubt.fish"
echo "installed $root/bin/indoubt, $(ls man | wc -l) man pages (man indoubt, man indoubt-runbook) and completions"
