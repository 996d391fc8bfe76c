#!/bin/sh
# Regenerates the references of edge/ and llvm-profparser/ with llvm-profdata-22 (LLVM 22.1.8).
# Run from this folder: sh make-references.sh
set -u
corpus=../../../../tests/corpus
LC_ALL=C
export LC_ALL

# reference F OUT: OUT.proftext and OUT.summary.txt, or OUT.reference-error.txt
reference() {
    rm -f "$2.proftext" "$2.summary.txt" "$2.reference-error.txt"
    if llvm-profdata-22 merge --sample --text "$1" -o "$2.proftext" 2>"$2.err"; then
        llvm-profdata-22 show --sample --detailed-summary "$1" >"$2.summary.txt"
        rm -f "$2.err"
    else
        rm -f "$2.proftext"
        mv "$2.err" "$2.reference-error.txt"
    fi
}

# Hand-written corner cases of the text reader.
for f in edge/*.prof; do
    reference "$f" "$f"
done

# llvm-profparser's text sample profiles (its .proftext, .afdotext and .text files that
# llvm-profdata-22 reads as sample profiles), one reference per distinct content.
mkdir -p llvm-profparser
rm -f llvm-profparser/* llvm-profparser.list
( cd "$corpus/peers/llvm-profparser" && find . \( -name '*.proftext' -o -name '*.afdotext' -o -name '*.text' \) \
    ! -name '*.proftext.proftext' | sed 's|^\./||' | sort ) | while read -r rel; do
    src="$corpus/peers/llvm-profparser/$rel"
    if llvm-profdata-22 merge --sample --text "$src" -o /dev/null 2>&1 | grep -q 'Unrecognized sample profile encoding format'; then
        continue
    fi
    sum=$(md5sum <"$src" | cut -c1-32)
    stem=$(grep " $sum\$" llvm-profparser.sums 2>/dev/null | head -1 | cut -d' ' -f1)
    if [ -z "$stem" ]; then
        stem=$(echo "$rel" | sed 's|/|__|g')
        echo "$stem $sum" >>llvm-profparser.sums
        reference "$src" "llvm-profparser/$stem"
    fi
    echo "peers/llvm-profparser/$rel $stem" >>llvm-profparser.list
done
rm -f llvm-profparser.sums
