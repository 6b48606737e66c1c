"""encode_spm_speed.py - python3-sentencepiece's single-thread speed for
bench/encode.sh: MODEL IN.cal -> "CPU_SECONDS BYTES". One document at a time,
encoding time only (CPU time of the process: robust on a shared machine)."""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
import calstream  # noqa: E402
import sentencepiece  # noqa: E402

sp = sentencepiece.SentencePieceProcessor(model_file=sys.argv[1])
docs = [r[3] for r in calstream.read_records(sys.argv[2], verify=False)[1]]
texts = [d.decode("utf-8", "replace") for d in docs]
t0 = time.process_time()
for t in texts:
    sp.encode(t)
print(time.process_time() - t0, sum(len(d) for d in docs))
