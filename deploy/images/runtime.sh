#!/usr/bin/env bash
# runtime.sh OUT: the file tree under the GPU Ledger images, built from this machine alone.
#
# The images are built without a container registry or daemon (deploy/images/README.md), so their
# base is made here rather than pulled: a Java runtime cut from the JDK that builds the project
# (jlink, the JDK's own modules only) and the few shared libraries that runtime and the JNI
# libraries inside the Kafka jars load (glibc, zlib, libstdc++), copied from this machine. OUT gets:
#
#   opt/java/openjdk/        the runtime, where eclipse-temurin images keep theirs
#   lib/…, lib64/…           every library those ELF files need, at the path the loader looks for
#   etc/passwd, etc/group    root and the user the programs run as (gpuledger, 10001)
#   etc/nsswitch.conf        names from /etc/hosts first, as the container runtime writes it
#   tmp/                     scratch space for the JVM and the JNI libraries it unpacks
#   var/lib/gpu-ledger/      the working directory: the agent's spool, the engine's state
#
# Needs: a JDK 17+ with its jmods (JAVA_HOME, or the one `javac` belongs to), ldd, Linux.
set -euo pipefail

out="${1:?usage: runtime.sh OUT}"
jdk="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}"
if [[ ! -d "$jdk/jmods" ]]; then
    echo "runtime.sh: $jdk has no jmods; install the JDK's jmods (Debian: openjdk-17-jmods) or set JAVA_HOME" >&2
    exit 1
fi

rm -rf "$out"
mkdir -p "$out/opt/java" "$out/etc" "$out/tmp" "$out/var/lib/gpu-ledger"

# The Java SE modules, plus what the programs reach beyond them: sun.misc.Unsafe (Kafka, Netty,
# the compression codecs), elliptic-curve TLS, the agent's HTTP endpoint, JFR and jcmd for the
# operator. java.desktop stays for java.beans, without its native (AWT, sound, font) libraries.
"$jdk/bin/jlink" \
    --add-modules java.se,jdk.unsupported,jdk.crypto.ec,jdk.httpserver,jdk.management,jdk.jfr,jdk.jcmd,jdk.naming.dns,jdk.net,jdk.security.auth,jdk.security.jgss,jdk.zipfs \
    --exclude-files='glob:/java.desktop/lib/**' \
    --strip-debug --no-man-pages --no-header-files --compress=2 \
    --output "$out/opt/java/openjdk"

# Shared libraries: what every ELF file of the runtime needs, and what the JNI libraries bundled in
# the dependencies need (rocksdbjni, snappy-java, zstd-jni, lz4-java link these by name, some of
# them the pre-2.34 glibc names), each with what it needs in turn; `ldd` gives the closure.
extra=(libstdc++.so.6 libgcc_s.so.1 libpthread.so.0 libdl.so.2 librt.so.1 libm.so.6)
cache="$(ldconfig -p)"
library() { # the 64-bit library of that soname this machine has (awk reads all: no SIGPIPE)
    awk -v n="$1" '$1 == n && /x86-64|AArch64|64bit/ && !found {print $NF; found = 1}' <<< "$cache"
}
elves=()
while IFS= read -r -d '' file; do
    if [[ "$(od -An -c -N 4 "$file" | tr -d ' ')" == '177ELF' ]]; then
        elves+=("$file")
    fi
done < <(find "$out/opt/java/openjdk" -type f -print0)
for name in "${extra[@]}"; do
    path="$(library "$name")"
    [[ -n "$path" ]] || { echo "runtime.sh: no $name on this machine" >&2; exit 1; }
    elves+=("$path")
done
{
    for elf in "${elves[@]}"; do
        # Libraries of the runtime itself (libjvm.so, found by the launcher) are not looked up.
        LD_LIBRARY_PATH="$out/opt/java/openjdk/lib:$out/opt/java/openjdk/lib/server" ldd "$elf" 2>/dev/null \
            | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}'
    done
    for name in "${extra[@]}"; do
        library "$name"
    done
} | grep -v "^$out/" | sort -u | while read -r lib; do
    mkdir -p "$out$(dirname "$lib")"
    cp "$(readlink -f "$lib")" "$out$lib"
done

cat > "$out/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/sbin/nologin
gpuledger:x:10001:10001:GPU Ledger:/tmp:/sbin/nologin
PASSWD
cat > "$out/etc/group" <<'GROUP'
root:x:0:
gpuledger:x:10001:
GROUP
cat > "$out/etc/nsswitch.conf" <<'NSS'
passwd: files
group:  files
hosts:  files dns
NSS
echo "runtime.sh: $(du -sh "$out" | cut -f1) in $out ($(find "$out" -name '*.so*' -path "$out/lib*" | wc -l) system libraries)" >&2
