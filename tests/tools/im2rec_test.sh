#!/usr/bin/env bash
# `weft im2rec` end to end (CTest cli.im2rec):
#   im2rec_test.sh WEFT IM2REC_CHECK
# im2rec_check makes a folder tree of PNG and JPEG images (three classes, a
# nested one, a text file and a corrupt PNG); `weft im2rec --list
# --recursive` lists it with a train/val split, and the lists must equal
# what MXNet's im2rec.py writes: its list_image/make_list, replayed below with
# Python's own random.seed(100) / random.shuffle (skipped without python3).
# Packing then writes .rec/.idx with --resize on 3 threads (the corrupt image
# reported and skipped), and with --pass-through (the files' own bytes);
# im2rec_check reads each back through ImageRecordIter and checks labels,
# pixels and stored sizes.
set -euo pipefail
weft="$1"
check="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

"$check" make-tree "$tmp/tree"
"$weft" im2rec "$tmp/data" "$tmp/tree" --list --recursive --train-ratio 0.75 > "$tmp/list.out"
grep -q '^dog/puppy 2$' "$tmp/list.out" || { cat "$tmp/list.out"; echo "class list missing"; exit 1; }
test -f "$tmp/data_train.lst" && test -f "$tmp/data_val.lst"

if command -v python3 > /dev/null; then
  python3 - "$tmp/tree" "$tmp/data" <<'PY'
import os, random, sys
root, prefix = sys.argv[1], sys.argv[2]
exts = ['.jpeg', '.jpg', '.png']
items, cat = [], {}
for path, dirs, files in os.walk(root, followlinks=True):
    dirs.sort()
    files.sort()
    for fname in files:
        fpath = os.path.join(path, fname)
        if os.path.isfile(fpath) and os.path.splitext(fname)[1].lower() in exts:
            cat.setdefault(path, len(cat))
            items.append((len(items), os.path.relpath(fpath, root), cat[path]))
random.seed(100)
random.shuffle(items)
sep = int(len(items) * 0.75)
def text(chunk):
    return ''.join('%d\t%f\t%s\n' % (i, l, p) for i, p, l in chunk)
for name, chunk in (('_train', items[:sep]), ('_val', items[sep:])):
    got = open(prefix + name + '.lst').read()
    if got != text(chunk):
        sys.exit('%s.lst differs from im2rec.py:\n%s---\n%s' % (name, got, text(chunk)))
print('lists match im2rec.py')
PY
fi

"$weft" im2rec "$tmp/data" "$tmp/tree" --resize 16 --num-thread 3 > "$tmp/pack.out" 2> "$tmp/pack.err"
grep -q 'skipped cat/broken.png' "$tmp/pack.err" || { cat "$tmp/pack.err"; exit 1; }
grep -q 'data_train.rec: .* images' "$tmp/pack.out" || { cat "$tmp/pack.out"; exit 1; }
"$check" verify "$tmp/data_train" 16
"$check" verify "$tmp/data_val" 16

# --pass-through packs the files' bytes undecoded (the corrupt one would be
# packed as it is, as im2rec.py packs it): without it on disk, it is skipped.
rm -f "$tmp"/data_*.rec "$tmp"/data_*.idx "$tmp/tree/cat/broken.png"
"$weft" im2rec "$tmp/data" "$tmp/tree" --pass-through > /dev/null 2> "$tmp/pass.err"
grep -q 'skipped cat/broken.png: cannot read' "$tmp/pass.err" || { cat "$tmp/pass.err"; exit 1; }
"$check" verify "$tmp/data_train" 0
"$check" verify "$tmp/data_val" 0

if "$weft" im2rec "$tmp/none" "$tmp/tree" > "$tmp/err.out" 2>&1; then
  echo "packing without a list should fail"; exit 1
fi
grep -q 'make one with --list' "$tmp/err.out"
echo "im2rec ok"
