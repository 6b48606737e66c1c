// spm_shim.cc - libcal-spm.so: the table of spm_dl.h over
// sentencepiece::SentencePieceProcessor, loaded by spm_dl.c on first use
// (so that only the processes that need libsentencepiece and libstdc++
// load them). Kept thin on purpose: all policy (BOS/EOS, special-token
// parsing, UTF-8 repair) lives in tokenizer.c. Built with hidden
// visibility: the table's function is its one exported symbol.
#include "tok/spm_dl.h"
#include "tok/spm_shim.h" // the piece kinds (SPM_NORMAL ...)

#include <sentencepiece_processor.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

namespace {

struct shim {
    sentencepiece::SentencePieceProcessor sp;
};

const sentencepiece::SentencePieceProcessor &sp(const void *s) { return static_cast<const shim *>(s)->sp; }

void set_err(char *err, size_t errlen, const char *what, const std::string &msg) {
    if (err && errlen) std::snprintf(err, errlen, "%s: %s", what, msg.c_str());
}

void *load(const void *data, size_t len, char *err, size_t errlen) {
    shim *s = new (std::nothrow) shim;
    if (!s) {
        set_err(err, errlen, "SentencePiece model", "out of memory");
        return nullptr;
    }
    auto st = s->sp.LoadFromSerializedProto(absl::string_view(static_cast<const char *>(data), len));
    if (!st.ok()) {
        // The library's message for a failed parse is a source location.
        std::string msg = st.ToString();
        if (msg.find("ParseFromArray") != std::string::npos) msg = "protobuf parse failed";
        set_err(err, errlen, "SentencePiece model", msg);
        delete s;
        return nullptr;
    }
    return s;
}

void release(void *s) { delete static_cast<shim *>(s); }

int encode(const void *s, const char *text, size_t len, uint32_t **out, size_t *n, char *err, size_t errlen) {
    std::vector<int> ids;
    auto st = sp(s).Encode(absl::string_view(text, len), &ids);
    if (!st.ok()) {
        set_err(err, errlen, "SentencePiece encode", st.ToString());
        return -1;
    }
    *out = static_cast<uint32_t *>(std::malloc(ids.size() ? ids.size() * sizeof **out : 1));
    if (!*out) {
        set_err(err, errlen, "SentencePiece encode", "out of memory");
        return -1;
    }
    for (size_t i = 0; i < ids.size(); i++) (*out)[i] = static_cast<uint32_t>(ids[i]);
    *n = ids.size();
    return 0;
}

int decode(const void *s, const uint32_t *ids, size_t n, char **out, size_t *len, char *err, size_t errlen) {
    std::vector<int> v(ids, ids + n);
    std::string text;
    auto st = sp(s).Decode(v, &text);
    if (!st.ok()) {
        set_err(err, errlen, "SentencePiece decode", st.ToString());
        return -1;
    }
    *out = static_cast<char *>(std::malloc(text.size() + 1));
    if (!*out) {
        set_err(err, errlen, "SentencePiece decode", "out of memory");
        return -1;
    }
    std::memcpy(*out, text.data(), text.size());
    *len = text.size();
    return 0;
}

uint32_t vocab_size(const void *s) { return static_cast<uint32_t>(sp(s).GetPieceSize()); }
int64_t bos(const void *s) { return sp(s).bos_id(); }
int64_t eos(const void *s) { return sp(s).eos_id(); }
int64_t pad(const void *s) { return sp(s).pad_id(); }
int64_t unk(const void *s) { return sp(s).unk_id(); }

int is_special(const void *s, uint32_t id) {
    int i = static_cast<int>(id);
    return sp(s).IsControl(i) || sp(s).IsUnknown(i);
}

const char *piece(const void *s, uint32_t id, size_t *len) {
    const std::string &p = sp(s).IdToPiece(static_cast<int>(id));
    *len = p.size();
    return p.data();
}

int type(const void *s, uint32_t id) {
    int i = static_cast<int>(id);
    const auto &p = sp(s);
    return p.IsUnknown(i) ? SPM_UNKNOWN : p.IsControl(i) ? SPM_CONTROL : p.IsByte(i) ? SPM_BYTE
         : p.IsUnused(i) ? SPM_UNUSED : SPM_NORMAL;
}

float score(const void *s, uint32_t id) { return sp(s).GetScore(static_cast<int>(id)); }

const spm_dl_table table = {SPM_DL_ABI, sizeof(spm_dl_table), load, release, encode, decode, vocab_size,
                            bos, eos, pad, unk, is_special, piece, type, score};

} // namespace

extern "C" __attribute__((visibility("default"))) const spm_dl_table *cal_spm_shim_table(void) { return &table; }
