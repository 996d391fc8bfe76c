#!/bin/sh
# Regenerates this folder's sample profiles and their references with llvm-profdata-22
# (Debian LLVM 22.1.8) and python3. Run from this folder: sh make.sh
set -e
C=../../../../../tests/corpus
T=$C/peers/llvm-sample-tests
BASIC=$C/llvm/sample-basic/sample-basic.text.prof
CSLBR=$C/llvm/sample-cs-lbr/sample-cs-lbr.text.prof
CSPROBE=$C/llvm/sample-cs-probe/sample-cs-probe.text.prof
NESTED=$C/llvm/sample-probe-nested/sample-probe-nested.text.prof
m() { out=$1; shift; llvm-profdata-22 merge --sample "$@" -o "$out"; }

printf '_Z10run_shapesi\n_Z12never_calledi\nmain\n_Z9cold_funcv\n_ZL8internalv\n_Z9cold_funcv\n' > symbols.txt

m basic.fs.extbinary.prof --extbinary -profile-isfs $BASIC
m basic.split.extbinary.prof --extbinary --split-layout $BASIC
m basic.split-compressed.extbinary.prof --extbinary --split-layout --compress-all-sections $BASIC
m basic.symlist.extbinary.prof --extbinary --prof-sym-list=symbols.txt $BASIC
m basic.symlist-compressed.extbinary.prof --extbinary --prof-sym-list=symbols.txt --compress-all-sections $BASIC
m basic.md5-compressed-partial.extbinary.prof --extbinary --use-md5 --compress-all-sections --gen-partial-profile $BASIC
m basic.flat.extbinary.prof --extbinary --convert-sample-profile-layout=flat $BASIC
m cs-lbr.compressed.extbinary.prof --extbinary --compress-all-sections $CSLBR
m cs-lbr.split.extbinary.prof --extbinary --split-layout $CSLBR
m cs-probe.md5-compressed.extbinary.prof --extbinary --use-md5 --compress-all-sections $CSPROBE
m cs-probe.nest.extbinary.prof --extbinary --convert-sample-profile-layout=nest $CSPROBE
m probe-nested.md5.extbinary.prof --extbinary --use-md5 $NESTED
m probe-nested.compressed-fs.extbinary.prof --extbinary --compress-all-sections -profile-isfs $NESTED
m vtable-fs.extbinary.prof --extbinary -extbinary-write-vtable-type-prof -profile-isfs $T/vtable-prof-fs-discriminator.prof
m vtable-ext.compressed.extbinary.prof --extbinary -extbinary-write-vtable-type-prof --compress-all-sections $T/sample-profile-ext.fbaa2a4.proftext
m vtable-remap.md5.extbinary.prof --extbinary -extbinary-write-vtable-type-prof --use-md5 $T/remap-incremental-read.prof
m preinliner.extbinary.prof --extbinary $T/csspgo-import-list-preinliner.prof
m pseudo-probe-inline.extbinary.prof --extbinary $T/pseudo-probe-inline.prof
m context-order.extbinary.prof --extbinary $T/profile-context-order.prof
m flatten.extbinary.prof --extbinary $T/sample-flatten-profile.proftext
m renaming.compressed.extbinary.prof --extbinary --compress-all-sections $T/pseudo-probe-stale-profile-renaming.prof
m indirect-call.binary.prof --binary $T/indirect-call.prof
m fsloader.binary.prof --binary $T/fsloader_v1.afdo
m overflow.binary.prof --binary $T/overflow.proftext
m sort.binary.prof --binary $T/sample-profile-sort.proftext
m afdo-progB.binary.prof --binary $C/llvm/afdo-progB/afdo-progB.afdo

python3 craft.py .

for f in *.prof; do
  rm -f "$f.proftext" "$f.reference-error.txt"
  if ! llvm-profdata-22 merge --sample --text "$f" -o "$f.proftext" 2> "$f.reference-error.txt"; then
    rm -f "$f.proftext"
  else
    rm -f "$f.reference-error.txt"
  fi
done
