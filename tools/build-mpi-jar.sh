#!/usr/bin/env bash
# Builds Open MPI's Java bindings (mpi.jar) from Debian's own openmpi source package, of the same version as the
# installed libmpi_java.so: Debian ships the JNI library (libopenmpi3) but not the jar. Prints the jar's path.
#
#   tools/build-mpi-jar.sh [DIR]     the jar goes to DIR/openmpi-VERSION/mpi.jar (default ~/.cache/jcoll/mpi-jar)
#
# Needs apt-get source: where no deb-src line exists for this system's suite, one is added
# (/etc/apt/sources.list.d/jcoll-deb-src.sources) and the package lists are updated, which needs root. The jar is
# compiled for Java 17 with the JDK's javac ($JAVA_HOME's, else the one on PATH), and built once per version.
set -euo pipefail

die() { echo "build-mpi-jar: $*" >&2; exit 1; }

library=""
for candidate in /usr/lib/*/openmpi/lib/libmpi_java.so /usr/lib/*/libmpi_java.so.*; do
  [[ -e $candidate ]] && { library=$candidate; break; }
done
[[ -n $library ]] || die "no libmpi_java.so: install Debian's openmpi-bin (libopenmpi3 holds the library)"
[[ $library == *.so ]] || echo "build-mpi-jar: $library has no libmpi_java.so link, by which mpi.jar loads it:" \
  "install libopenmpi-dev" >&2
package=$(dpkg-query -S "$(readlink -f "$library")" | head -1 | cut -d: -f1)
version=$(dpkg-query -W -f='${source:Version}' "$package")           # the source package's, e.g. 4.1.4-3
[[ -n $version ]] || die "cannot tell which Open MPI $library belongs to"

dir=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/jcoll/mpi-jar}/openmpi-$version
if [[ -f $dir/mpi.jar ]]; then
  echo "$dir/mpi.jar"
  exit 0
fi

javac=${JAVA_HOME:+$JAVA_HOME/bin/}javac
jar=${JAVA_HOME:+$JAVA_HOME/bin/}jar
command -v "$javac" >/dev/null || die "no javac (set JAVA_HOME to a JDK)"

if ! apt-cache showsrc openmpi 2>/dev/null | grep -qx "Version: $version"; then
  suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
  [[ -n $suite ]] || die "cannot tell this system's Debian suite from /etc/os-release"
  [[ $(id -u) == 0 ]] || die "no deb-src line for $suite: add one (or run this as root, which adds it)"
  cat > /etc/apt/sources.list.d/jcoll-deb-src.sources <<EOF
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $suite $suite-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  apt-get update -qq >/dev/null || die "apt-get update failed after adding deb-src for $suite"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# apt-get source unpacks with Debian's patches applied: the sources the installed library was built from
(cd "$work" && apt-get source -qq "openmpi=$version" >"$work/source.log" 2>&1) \
  || die "apt-get source openmpi=$version failed: $(tail -3 "$work/source.log")"
sources=("$work"/openmpi-*/ompi/mpi/java/java/*.java)
[[ -f ${sources[0]} ]] || die "the openmpi $version sources have no ompi/mpi/java/java/*.java"
"$javac" --release 17 -nowarn -encoding UTF-8 -d "$work/classes" "${sources[@]}"
printf 'Implementation-Title: Open MPI Java bindings\nImplementation-Version: %s\n' "$version" > "$work/manifest"
mkdir -p "$dir"
"$jar" --create --file "$work/mpi.jar" --manifest "$work/manifest" -C "$work/classes" .
mv "$work/mpi.jar" "$dir/mpi.jar"  # whole or not at all: a later run trusts what it finds
echo "$dir/mpi.jar"
