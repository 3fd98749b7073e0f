# one.sh OP LABEL ["MIN MAX"] (run from the repository root, on a build whose Perf.run prints "#MARK rank R pid P size S from T0 to T1",
# JVM uptime in seconds, to stderr around each size's measure; the patch is in README.md)
op=$1; label=$2; range=${3:-128K 32M}; here=$(cd "$(dirname "$0")" && pwd); d=/tmp/pc-$op-$label; rm -rf $d; mkdir -p $d
export PATH=/usr/lib/jvm/temurin-25-jdk-amd64/bin:$PATH
s=$(date +%s)
JCOLL_JAVA_OPTS="-XX:+UnlockDiagnosticVMOptions -XX:+LogCompilation -XX:LogFile=$d/lc%p.log" ./jcoll perf $op -n 2 --transport shm -b ${range% *} -e ${range#* } > $d/out.txt 2>&1
echo "### $op $label wall $(( $(date +%s) - s )) s"
grep -v "^#MARK" $d/out.txt | grep "^ "
grep "#MARK" $d/out.txt | sed 's/\[1\] //' | awk '{print $5, $7, $9, $11}' > $d/marks
for f in $d/lc*.log; do p=$(basename $f .log | sed 's/lcpid//'); w=$(awk -v p=$p '$1==p' $d/marks | awk 'NR==1{a=$3} {b=$4} END{print a, b}'); [ "$w" != " " ] && { echo "== rank pid $p sweep $w"; python3 "$here/timeline.py" $f $w | grep -v "L[123] "; }; done
